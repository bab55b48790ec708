// LiveRun: the GUI side of a live simulation. Owns an engine::SimulationController (whose worker
// thread owns the running copy of the model), a read-only copy of the model's structure for the
// plots, and a rolling engine::Recording of the last window of steps that RasterPlot and
// TracePlot draw directly.
//
// Probes: the spikes of every spiking module the controller can reach (the series evolve()
// records flagged `spikes`: "spikes" of neuron layers, "output" of spiking sources), plus the
// membrane signal of one traced module. A root Sequential is handed to the controller as the
// equivalent chain Network (same paths, same results), so each of its layers can be probed;
// modules inside a Sequential nested in a Network are reached only through the Sequential's
// output.
//
// Draining: a GUI timer calls poll() every refreshIntervalMs. poll() takes the controller's
// events, then every probe's snapshot; spike events become dense (T, N) count rows. Rows are
// staged per probe and committed up to the newest step every probe has reached, so all series
// end at the same step. Each series keeps at most window() steps (maxWindowSteps, reduced so that
// window x recorded channels <= maxWindowValues); older steps are dropped.
//
// Gaps: when the GUI falls behind, the bounded probe buffers drop their oldest data. A series
// whose next data do not continue it (rows dropped, or spike events dropped so that the oldest
// steps of a snapshot are incomplete) restarts its window after the gap: it never holds zeros
// in place of missing data, and its tStart says where it now begins. Probe buffers are sized
// for a window (rows, or window x channels events), so a gap only removes steps that would have
// left the window anyway (unless setTracedPath() has since enlarged the window).
//
// Resets: a StateReset event empties every series and time restarts at step 0. When a reset
// lands between a poll's event take and its probe takes, the data going back in time announce
// it: every series restarts then, and the event, drained by the next poll, keeps what they
// gathered from step 0 on.
//
// Invariants: every series in recording() has data (T, N) with T in [1, window()], dt = the
// model's time step and tStart = (first kept step) x dt; a series is absent while it has no
// data. All series that hold data end at currentStep() (after a poll).
// Thread: GUI thread only (the object, its timer and its signals); the controller's worker
// thread never touches anything here but through the controller.
#pragma once

#include "engine/module.hpp"
#include "engine/recording.hpp"
#include "engine/simulation_controller.hpp"

#include <QObject>
#include <QString>
#include <QTimer>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace spike::ui {

/// The membrane-potential signal of `module`: its recordable State of family "membrane"
/// ("vmem" for LIF, "v" for LIFRefrac and CUBALIF), or "" when it has none.
std::string membraneSignal(const engine::Module& module);

/// How a LiveRun runs and how much it keeps.
struct LiveRunOptions {
    int refreshIntervalMs = 33;               ///< [ms] GUI drain and redraw period
    std::int64_t maxWindowSteps = 20000;      ///< most steps kept in the rolling recording
    std::int64_t maxWindowValues = 1 << 24;   ///< cap on window steps x recorded channels; the
                                              ///< window shrinks to respect it
    engine::Speed speed = engine::Speed::fastest();
    engine::BackendKind backend = engine::BackendKind::Cpu;
};

/// A running simulation with live plots; see the file comment.
class LiveRun : public QObject {
    Q_OBJECT

public:
    /// Takes `model`, keeps a structural copy for the plots and compiles the model on a new
    /// controller (paused, at the model's stepsElapsed()). Throws engine::Error with the
    /// engine's message when the model is null or cannot be compiled. `tracedPath` names the
    /// module whose membrane signal is recorded (none when it has no membrane signal).
    LiveRun(std::unique_ptr<engine::Module> model, const QString& tracedPath,
            LiveRunOptions options = {}, QObject* parent = nullptr);
    /// Stops the worker (at its next chunk boundary) and joins it.
    ~LiveRun() override;
    LiveRun(const LiveRun&) = delete;
    LiveRun& operator=(const LiveRun&) = delete;

    /// Runs until pause(), a NaN / Inf or destruction.
    void run();
    /// Pauses (also cancels a step() target).
    void pause();
    /// Runs `steps` >= 1 more steps, then pauses (stepsDone() follows).
    void step(std::int64_t steps);
    /// Every module back to its initial state at step 0; the recording is emptied when the
    /// worker has applied it (the next poll after).
    void resetState();
    /// Simulated seconds per wall second, or as fast as possible.
    void setSpeed(engine::Speed speed);
    /// Moves the running copy to another backend (states carried over); a failure comes back
    /// through failed() and the old backend stays.
    void setBackend(engine::BackendKind kind);
    /// Sets attribute `name` of the module at `path` in the running copy, between two chunks
    /// (a live edit), and in plotModel() (thresholds drawn from it). A change the controller
    /// refuses (invalid, or not live-editable while running) comes back through failed().
    void setAttribute(const QString& path, const std::string& name, const engine::AttributeValue& value);

    /// Changes the traced module: the membrane probe is replaced and its series starts empty
    /// (from the step at which the worker adds the new probe). A path without a membrane
    /// signal, or one the controller cannot probe separately, records no trace.
    void setTracedPath(const QString& path);
    /// Like setTracedPath(), recording State `signal` of the module ("i_exc", "refrac", ...);
    /// an empty `signal` means the membrane. A signal that is not a State of the module records
    /// no trace.
    /// `neurons` (ascending indices; empty: all) keeps only those channels of the trace.
    void setTrace(const QString& path, const std::string& signal, const std::vector<std::int64_t>& neurons = {});
    /// The traced neurons (empty: all), as passed to setTrace().
    const std::vector<std::int64_t>& tracedNeurons() const { return m_traceNeurons; }
    QString tracedPath() const { return m_tracedPath; }
    /// The signal recorded for the traced module ("vmem", "v"), or "" when none.
    QString tracedSignal() const { return QString::fromStdString(m_traceSignal); }

    /// Whether the simulation advances (the last Running / Paused event drained).
    bool isRunning() const { return m_running; }
    /// The step every series has been drained up to (one past the newest drained step).
    std::int64_t currentStep() const { return m_currentStep; }
    /// [s] the model's time step.
    double timeStep() const { return m_dt; }
    /// Most steps a series keeps (maxWindowSteps reduced by maxWindowValues).
    std::int64_t window() const { return m_window; }

    /// The rolling recording: module path -> signal -> series; see the file comment.
    const engine::Recording& recording() const { return m_recording; }
    /// A read-only copy of the model's structure and parameters for the plots (RasterPlot walks
    /// it; TracePlot reads thresholds). The worker never touches it; its States are not live.
    const engine::Module& plotModel() const { return *m_plotModel; }
    /// Rows (continuous) and events (spikes) the probe buffers dropped because the GUI fell
    /// behind, since construction.
    std::int64_t droppedSamples() const { return m_dropped; }

    /// Drains events and probe data now (the timer calls this). Emits updated() once when the
    /// recording changed.
    void poll();
    /// Waits until the worker has applied every command sent so far and is paused, then polls.
    /// False on timeout (it polls anyway). For tests and the screenshot mode.
    bool waitIdle(std::chrono::milliseconds timeout);

Q_SIGNALS:
    /// recording() changed; at most once per poll.
    void updated();
    /// The simulation started (true) or stopped (false) advancing.
    void runningChanged(bool running);
    /// A step() target was reached.
    void stepsDone();
    /// A command failed, or a NaN / Inf paused the run (naming module, state, element and
    /// value). One line for a person.
    void failed(const QString& message);

private:
    /// One probe's way into the recording.
    struct Track {
        engine::ProbeId probe;
        std::string path;
        std::string signal;
        std::string units;
        std::int64_t width = 0;     ///< channels per step
        std::int64_t capacity = 0;  ///< the probe buffer's capacity (rows or events)
        bool spikes = false;
        bool started = false;        ///< staged rows follow the data drained so far
        bool resetByData = false;    ///< restarted in this poll at a reset whose event the
                                     ///< next poll drains (the event then keeps its data)
        std::int64_t stagedStart = 0;  ///< step of staged row 0
        std::int64_t stagedRows = 0;
        std::vector<float> staged;     ///< drained, not yet committed rows (capacity reused)
        std::int64_t windowEnd = 0;    ///< one past the last step in the series (when present)
    };

    void addTraceTrack();
    void removeTrack(std::size_t index);
    /// Adds `snapshot` to the track's staged rows; true when the data went back in time.
    bool stage(Track& track, const engine::ProbeSnapshot& snapshot);
    /// Moves staged rows up to the step every started track has reached into the series.
    bool commit();
    /// Appends `rows` rows of `track` to its series (restarting it when they do not continue
    /// it), keeping the last m_window steps.
    void appendToSeries(Track& track, std::int64_t firstStep, const float* rows,
                        std::int64_t count);
    /// Cuts every series to the last m_window steps.
    void trimAll();
    /// Forgets a track's staged and recorded data.
    void clearTrack(Track& track);
    void handleEvents(bool* changed);
    void computeWindow();
    engine::TimeSeries* seriesOf(const Track& track);
    void eraseSeries(const Track& track);

    LiveRunOptions m_options;
    std::unique_ptr<engine::Module> m_plotModel;
    std::vector<std::string> m_probePaths;  ///< modules the controller can probe separately
    std::unique_ptr<engine::SimulationController> m_controller;
    std::vector<Track> m_tracks;   ///< spike tracks, then the trace track when there is one
    bool m_hasTrace = false;
    QString m_tracedPath;
    std::string m_traceSignal;
    std::string m_requestedSignal;  ///< "" = the membrane signal
    std::vector<std::int64_t> m_traceNeurons;  ///< traced channels; empty = all
    engine::Recording m_recording;
    double m_dt = 1.0;
    std::int64_t m_window = 1;
    std::int64_t m_currentStep = 0;
    std::int64_t m_dropped = 0;
    bool m_running = false;
    QTimer m_timer;
};

}  // namespace spike::ui
