// RunSession: the run policy of one document. When a run starts (the first Run or Step, on a
// copy of the document's model: engine::cloneModule), how an edit of the document reaches it
// (a live-editable attribute, or any attribute while paused, is set on the running copy between
// two chunks; a structural edit, or an attribute that needs a rebuild while running, rebuilds
// the run from the edited model once per event-loop turn and continues it from the same step
// with the states carried over, LiveRun::replaceModel), when it ends (the document is replaced,
// Reset, a model that cannot run), and the blocking runs of the public API (runSteps, runFor).
//
// Owns: the LiveRun (nullptr before the first run and after a drop), the backend, CPU threads and
// speed the next run starts with. Owns no widget: the window shows message() in its status bar, redraws
// on updated(), and re-attaches its plot requests on started() / rebuilt() / tracesChanged().
// While a session exists, a running document holds three module trees: the document's, the
// plots' copy inside LiveRun (names, units, thresholds) and the worker's running tree.
// Thread: GUI thread only.
#pragma once

#include "ui/document/graph_document.hpp"

#include "engine/analysis/layer_statistics.hpp"
#include "engine/runtime/simulation_controller.hpp"

#include <QObject>
#include <QString>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>

namespace spike::ui {

class LiveRun;
struct RunStates;

/// See the file comment.
class RunSession : public QObject {
    Q_OBJECT

public:
    /// Largest number of steps one runSteps() may take.
    static constexpr int kMaxSteps = 1000000;

    /// Follows `document`'s edits from now on (connects to its signals).
    explicit RunSession(GraphDocument& document, QObject* parent = nullptr);
    ~RunSession() override;

    /// The current run, or nullptr before the first run and after drop().
    LiveRun* live() const { return m_live.get(); }
    /// Where the primary trace of a new run points (the window's selected neuron layer).
    void setTracedPathSource(std::function<QString()> source) { m_tracedPath = std::move(source); }
    /// Backend of the next run; a running one moves to it (LiveRun::setBackend).
    void setBackend(engine::BackendKind kind);
    /// CPU threads of the next run (0: every core); a running one switches at its next chunk
    /// (LiveRun::setThreads), with the same results.
    void setThreads(int threads);
    int threads() const { return m_threads; }
    /// Pacing of runs (fastest or real time times f); applied to the running one at once.
    void setSpeed(engine::Speed speed);

    /// Starts a run on a copy of the document's model unless one exists (then a pending rebuild
    /// happens first). False, with the engine's message in `error` and message(), when the model
    /// cannot run.
    bool ensure(QString* error = nullptr);
    /// Runs `steps` more steps as fast as possible and waits for them (at most a minute); then
    /// updated() and a summary in message(). False with the reason otherwise.
    bool runSteps(int steps, QString* error = nullptr);
    /// Runs freely for `seconds` of wall time (the plots redraw live), then pauses.
    bool runFor(double seconds, QString* error = nullptr);
    /// Run when paused (starting one when needed) at the chosen speed, pause when running.
    void toggle();
    /// `steps` steps as fast as possible whatever the speed, then pause (starting a run when
    /// needed); the next Run is paced again.
    void step(int steps);
    /// Ends the run: the next one starts at t = 0 from the document's initial states.
    void reset();
    /// Ends the run with `reason` (shown by the plots); dropped() follows.
    void drop(const QString& reason);
    /// Ends the run without signals (the window is closing).
    void shutdown();

    bool isRunning() const;
    /// Steps simulated by the current run (0 without one).
    std::int64_t currentStep() const;
    /// [s] the run's time step, or the document's without a run.
    double timeStep() const;
    /// The running copy's States of module `path` when a run exists and is paused (see
    /// LiveRun::readStates()); false otherwise. With `whileRunning` also during a run: the
    /// worker answers between two chunks (at most one chunk, 8 ms, of waiting on this thread).
    bool readStates(const QString& path, RunStates* out, bool whileRunning = false) const;
    /// Activation statistics of module `path` and its descendants since the previous call
    /// (LiveRun::readActivations(); running or paused); false without a run.
    bool readActivations(const QString& path,
                         std::map<std::string, engine::ActivationSnapshot>* out) const;
    /// LiveRun::stopActivations() when a run exists.
    void stopActivations() const;
    /// Why `spec` cannot be edited now ("" when it can): attributes that need a rebuild are
    /// refused while running (the inspector's edit gate).
    QString editRefusal(const engine::AttributeSpec& spec) const;

Q_SIGNALS:
    /// A new run exists (ensure()).
    void started();
    /// The run continues on the edited model (after a structural edit).
    void rebuilt();
    /// The run ended; `reason` says why and what to do.
    void dropped(const QString& reason);
    /// New samples were drained (LiveRun's timer), or a blocking run finished.
    void updated();
    /// The run dropped or added traces on its own (a rebuild that removed a module).
    void tracesChanged();
    /// Running or paused changed.
    void runningChanged();
    /// One line for the status bar.
    void message(const QString& text);

private:
    void onAttributeChanged(NodeId id, const QString& name);
    void scheduleRebuild();
    void rebuildNow();
    void applySpeed();

    GraphDocument& m_doc;
    std::unique_ptr<LiveRun> m_live;
    std::function<QString()> m_tracedPath;
    engine::BackendKind m_backend = engine::BackendKind::Cpu;
    int m_threads = 0;
    engine::Speed m_speed;
    bool m_rebuildPending = false;  ///< a structural edit waits for rebuildNow()
};

}  // namespace spike::ui
