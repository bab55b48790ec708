// LiveRun: the GUI side of a live simulation. Owns an engine::SimulationController (whose worker
// thread owns the running copy of the model), a read-only copy of the model's structure for the
// plots, one SpikeWindow of spike events per spiking module (RasterPlot::showSpikes() draws them)
// and the rolling dense series of the traces (TracePlot draws them), over the last window of
// steps.
//
// Probes: the spikes of every spiking module the controller can reach (the series evolve()
// records flagged `spikes`: "spikes" of neuron layers, "output" of spiking sources), plus any
// number of traces. A root Sequential is handed to the controller as the equivalent chain
// Network (same paths, same results), so each of its layers can be probed; modules inside a
// Sequential nested in a Network are reached only through the Sequential's output.
//
// Traces: one track per (module path, signal), recorded under recording()[path][signal]. A
// trace is made by addTrace() (any number) or by setTrace() / setTracedPath() (the one
// "primary" trace, which the single-trace API reads back). Both kinds live in one list with
// ids from 1, never reused; a (path, signal) pair made by both is one trace, one track and one
// id: it stays while either still wants it (setTrace() moving the primary elsewhere keeps a
// trace addTrace() made; removeTrace() drops it whatever made it), and its neuron selection is
// the one the last call gave (tracedNeurons() and traceInfo() agree).
//
// Draining: a GUI timer calls poll() every refreshIntervalMs. poll() takes the controller's
// events, then every probe's snapshot: spike events stay events (staged, then appended to the
// module's SpikeWindow; never a dense array), trace rows stay rows. Both are staged per probe
// and committed up to the newest step every probe has reached, so all series and spike windows
// end at the same step. Each keeps at most window() steps (maxWindowSteps, reduced so that
// window x traced channels <= maxWindowValues; spike channels do not count); older steps are
// dropped, from every trace series at each poll (a slide in place). Adding a trace shrinks the
// window (the others lose their oldest steps, nothing else); removing one lets it grow again.
// A spike window also keeps at most max(maxWindowEvents, width) events: when a poll brings it
// past that, its first step moves forward (whole steps) until it fits, so a busy module's window
// can start later than the traces' (it always keeps its newest step). Trimming a spike window is
// O(1) amortised (see SpikeWindow).
//
// Dense spikes: recording() still holds every spiking module's spike counts as a dense (T, N)
// series (what evolve() records), made from its window when recording() is called after the
// windows changed (a cache kept until the next change), so a GUI that draws from spikeWindows()
// never pays for them. A module so wide that its whole window would exceed maxWindowValues
// floats gets only its last maxWindowValues / N steps (at least one) in recording().
//
// Gaps: when the GUI falls behind, the bounded probe buffers drop their oldest data. A series
// whose next data do not continue it (rows dropped, or spike events dropped so that the oldest
// steps of a snapshot are incomplete) restarts its window after the gap: it never holds zeros
// in place of missing data, and its tStart says where it now begins. Probe buffers are sized
// for the window when their probe is made (a spike probe for window x width events, at most the
// events cap), so a gap only removes steps that would have left the window anyway (unless
// removing a trace has since enlarged the window).
//
// Resets: a StateReset event empties every series and time restarts at step 0. When a reset
// lands between a poll's event take and its probe takes, the data going back in time announce
// it: every series restarts then, and the event, drained by the next poll, keeps what they
// gathered from step 0 on.
//
// Rebuilds: replaceModel() swaps in an edited model without going back to step 0; see its
// comment. Per module path that exists in both models with the same class, State attributes of
// the same shape (and the values delayed connections of a same-named Network carry) are copied
// from the running copy, so those modules continue where they were. Everything else starts from
// the new model's own values. Random streams are not States: a PoissonSource (and a noisy
// neuron) starts its generator again from its seed, so its draws after a rebuild repeat the
// stream from its beginning rather than continuing it.
//
// Invariants: every series in recording() has data (T, N) with T in [1, window()], dt = the
// model's time step and tStart = (first kept step) x dt; a series is absent while it has no
// data, and spikeWindows() lists a window only while it covers at least one step. All series and
// spike windows that hold data end at currentStep() (after a poll). Every trace in traceIds()
// has exactly one track and probe; every spiking module one track, probe and window.
// Thread: GUI thread only (the object, its timer and its signals); the controller's worker
// thread never touches anything here but through the controller.
#pragma once

#include "engine/analysis/layer_statistics.hpp"
#include "engine/core/module.hpp"
#include "engine/core/recording.hpp"
#include "engine/runtime/simulation_controller.hpp"
#include "engine/runtime/spike_window.hpp"

#include <QObject>
#include <QString>
#include <QTimer>

#include <chrono>
#include <map>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace spike::ui {

/// How a LiveRun runs and how much it keeps.
struct LiveRunOptions {
    int refreshIntervalMs = 33;               ///< [ms] GUI drain and redraw period
    std::int64_t maxWindowSteps = 20000;      ///< most steps kept in the rolling recording
    std::int64_t maxWindowValues = 1 << 22;   ///< cap on window steps x traced channels (and on
                                              ///< a dense spike series in recording()); the
                                              ///< window shrinks to respect it
    std::int64_t maxWindowEvents = 1 << 23;   ///< cap on the events of one spike window; its
                                              ///< first step moves forward to respect it
    engine::Speed speed = engine::Speed::fastest();
    engine::BackendKind backend = engine::BackendKind::Cpu;
    int threads = 0;  ///< CPU executor threads (ExecutorOptions::threads; 0: every core)
};

/// One trace as LiveRun records it; see LiveRun::traceInfo().
struct TraceInfo {
    int id = 0;                          ///< from 1, never reused within one LiveRun
    QString path;                        ///< module path ("" = the root)
    std::string signal;                  ///< the recording's signal key ("vmem", "out", ...)
    std::vector<std::int64_t> neurons;   ///< kept channels, in the order given; empty = all
    std::string units;
    bool membrane = false;               ///< the signal is the module's membrane potential
};

/// States of one module of the running copy (LiveRun::readStates()).
struct RunStates {
    std::int64_t step = 0;                                 ///< steps the running copy has taken
    std::map<std::string, engine::AttributeValue> values;  ///< State attributes by name
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
    /// Simulated seconds per wall second, or as fast as possible (kept for replaceModel()).
    void setSpeed(engine::Speed speed);
    /// Moves the running copy to another backend (states carried over); a failure comes back
    /// through failed() and the old backend stays.
    void setBackend(engine::BackendKind kind);
    /// Runs the CPU executor on `threads` threads (0: every core) from the next chunk on; the
    /// results are the same for any count. A failure comes back through failed().
    void setThreads(int threads);
    /// The CPU threads asked for (0: every core).
    int threads() const { return m_options.threads; }
    /// Sets attribute `name` of the module at `path` in the running copy, between two chunks
    /// (a live edit), and in plotModel() (thresholds drawn from it). A change the controller
    /// refuses (invalid, or not live-editable while running) comes back through failed().
    void setAttribute(const QString& path, const std::string& name, const engine::AttributeValue& value);

    /// Changes the primary trace to the membrane of `path`: setTrace(path, "").
    void setTracedPath(const QString& path);
    /// Makes (path, signal) the primary trace; an empty `signal` means the membrane. The
    /// previous primary trace is removed unless addTrace() also made it (then it stays as an
    /// added trace). The new one takes `neurons` (indices; empty: all; a selection with an index
    /// out of range is dropped: all channels); when (path, signal) is already a trace, that
    /// trace becomes the primary one and keeps its series unless the selection changes, else
    /// its series starts empty (from the step at which the worker adds the probe). A path or
    /// signal addTrace() would refuse records no primary trace. Emits updated(), and
    /// tracesChanged() when the set of traces changed. Nothing happens when path, signal and
    /// neurons equal the last call's and its primary trace still exists (after removeTrace()
    /// or a rebuild dropped it, the same call makes it again when it resolves).
    void setTrace(const QString& path, const std::string& signal, const std::vector<std::int64_t>& neurons = {});
    /// The neurons passed to the last setTrace() (cleared when out of range), or, when an
    /// addTrace() of the same pair came later, that call's selection.
    const std::vector<std::int64_t>& tracedNeurons() const { return m_traceNeurons; }
    /// The path passed to the last setTrace() / setTracedPath(), whether or not it is traced.
    QString tracedPath() const { return m_tracedPath; }
    /// The signal of the primary trace ("vmem", "v"), or "" when there is none.
    QString tracedSignal() const;
    /// The primary trace's id, or 0 when there is none.
    int primaryTraceId() const { return m_primaryId; }

    /// Records `signal` of the module at `path` from the step at which the worker adds the
    /// probe. `signal`: a State the module's runner offers per step ("vmem", "v", "i_exc",
    /// "isyn", "refrac", ...; any numeric State for modules run generically), "" for its
    /// membrane, "out" (or "output") for its whole output, or a name of one of its output
    /// ports. Spiking outputs are refused: the spike tracks record them already (raster).
    /// `neurons`: channels of that signal to keep, each in [0, width), in the given order;
    /// empty: all. Returns the trace's id (> 0), or 0 with a one-line reason in `*error` (when
    /// given): unknown path, a module the controller cannot probe separately, unknown or
    /// spiking signal, neuron index out of range. When (path, signal) is already a trace (also
    /// the primary one) its id is returned, its selection replaced by `neurons` (series started
    /// again only when the selection changed). Emits updated() and tracesChanged().
    int addTrace(const QString& path, const std::string& signal,
                 const std::vector<std::int64_t>& neurons = {}, QString* error = nullptr);
    /// Removes trace `id` (also the primary one: tracedSignal() then reads ""), its probe and
    /// series; the window grows back by its channels. Unknown ids are ignored. Emits updated()
    /// and tracesChanged() when it removed something.
    void removeTrace(int id);
    /// Every trace's id, ascending (the primary one included).
    std::vector<int> traceIds() const;
    /// Trace `id`, or nullptr when there is none (valid until the set of traces changes).
    const TraceInfo* traceInfo(int id) const;
    /// Trace `id`'s series in recording(), or nullptr while it holds no data.
    const engine::TimeSeries* traceSeries(int id) const;

    /// Replaces the running model by `model` (an edited copy, after a structural change)
    /// without restarting time. Pauses the worker if it runs and drains everything; copies
    /// States from the running copy as the file comment says; sets the new model's elapsed
    /// steps to currentStep(); compiles it on a new controller (same backend, speed and
    /// options). Spike tracks are made for the new model's spiking modules, and every trace
    /// whose (path, signal) and neuron selection still resolve keeps its id; a track whose
    /// (path, signal, width) exists before and after continues its series (rows drained so far
    /// stay, new rows follow them), the others start empty. Traces that no longer resolve are
    /// dropped with their series (tracesChanged()). plotModel() becomes a copy of `model`.
    /// A model with another time step restarts every series. Runs again when it was running
    /// after run() (runningChanged() reports the pause and the restart); a step() target still
    /// pending is cancelled (the run stays paused at the rebuild step). On failure (null model, a model
    /// that does not compile, the worker not pausing) returns false with the engine's message
    /// in `*error`, and the old run goes on unchanged (running again when it was).
    bool replaceModel(std::unique_ptr<engine::Module> model, QString* error = nullptr);

    /// The State attributes of module `path` ("" the root) of the running copy, as the worker
    /// has them now (between two chunks while running, so call it when paused), and the step
    /// they belong to. False with the reason in `*error` when there is no such module or the
    /// worker did not answer.
    bool readStates(const QString& path, RunStates* out, QString* error = nullptr);
    /// Activation statistics of module `path` of the running copy and of its descendants since
    /// the previous call, keyed by path relative to it (engine::ActivationMonitor: its hooks go
    /// on at the first call for that module, which reports nothing, and move to the new model
    /// when replaceModel() rebuilds the run). Answered between two chunks while running. False with the reason in `*error`
    /// when there is no such module or the worker did not answer.
    bool readActivations(const QString& path, std::map<std::string, engine::ActivationSnapshot>* out,
                         QString* error = nullptr);
    /// Takes the activation hooks off (nobody looks any more): the model runs without them.
    void stopActivations();

    /// Whether the simulation advances (the last Running / Paused event drained).
    bool isRunning() const { return m_running; }
    /// The step every series has been drained up to (one past the newest drained step).
    std::int64_t currentStep() const { return m_currentStep; }
    /// [s] the model's time step.
    double timeStep() const { return m_dt; }
    /// Most steps a series or spike window keeps (maxWindowSteps reduced by maxWindowValues
    /// over the traced channels).
    std::int64_t window() const { return m_window; }

    /// The rolling recording: module path -> signal -> series, the traces' and (made from the
    /// spike windows when called after they changed) every spiking module's; see the file
    /// comment. The reference stays valid; series of spiking modules are replaced when it is
    /// called again after a change.
    const engine::Recording& recording() const;
    /// The spike window of every spiking module that covers at least one step, in the tree
    /// order of plotModel(); see the file comment. The pointers stay valid until the set of
    /// spiking modules changes (replaceModel()); the windows change with each poll.
    engine::SpikeWindows spikeWindows() const;
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
    /// The set of traces changed: added, removed, a selection replaced, dropped by a rebuild or
    /// by the controller refusing its probe.
    void tracesChanged();
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
        std::vector<std::int64_t> neurons;  ///< trace tracks: kept channels; empty = all
        int traceId = 0;            ///< the trace it records; 0 for a spike track
        std::int64_t width = 0;     ///< channels per step
        std::int64_t capacity = 0;  ///< the probe buffer's capacity (rows or events)
        bool spikes = false;
        bool started = false;        ///< staged rows follow the data drained so far
        bool resetByData = false;    ///< restarted in this poll at a reset whose event the
                                     ///< next poll drains (the event then keeps its data)
        std::int64_t stagedStart = 0;  ///< step of staged row 0
        std::int64_t stagedRows = 0;
        std::vector<float> staged;     ///< trace: drained, not yet committed rows
        std::vector<engine::SpikeEvent> stagedEvents;  ///< spikes: drained, not yet committed
        std::unique_ptr<engine::SpikeWindow> spikeWindow;      ///< spikes: the committed events
        std::int64_t windowEnd = 0;    ///< one past the last step in the series (when present)
    };
    /// One trace: what the caller sees, and who asked for it.
    struct TraceEntry {
        TraceInfo info;
        std::int64_t channels = 0;  ///< width of the whole signal
        bool primary = false;       ///< made by setTrace()
        bool added = false;         ///< made by addTrace()
    };
    /// A signal a trace can record, as resolveTrace() finds it.
    struct ResolvedSignal {
        std::string signal;
        std::int64_t channels = 0;
        std::string units;
        bool membrane = false;
    };
    /// A model made ready for a controller (live_run_rebuild.cpp).
    struct Prepared {
        std::unique_ptr<engine::Module> plot;     ///< a copy of the model as given, for the plots
        std::unique_ptr<engine::Module> running;  ///< the probeable tree the worker will own
        std::vector<std::string> probePaths;
        std::vector<Track> spikeTracks;           ///< no probes yet
    };

    // live_run_rebuild.cpp
    /// Copies, converts and compiles the plan of `model`; throws engine::Error.
    static Prepared prepare(std::unique_ptr<engine::Module> model);
    /// A controller for `running` with the current backend and speed; throws engine::Error.
    std::unique_ptr<engine::SimulationController> makeController(std::unique_ptr<engine::Module> running) const;
    /// Copies the running copy's States into `next` (engine::carryStates); false when the
    /// worker could not be read.
    bool copyRunningStates(engine::Module& next, QString* error);
    /// Moves the tracks over to a new controller after a rebuild; see replaceModel().
    void adoptTracks(std::vector<Track> spikeTracks, bool newTimeBase);

    // live_run_traces.cpp
    /// Why (path, signal) cannot be traced, or "" with `*out` filled in.
    QString resolveTrace(const std::string& path, const std::string& signal, ResolvedSignal* out) const;
    TraceEntry* findTrace(int id);
    TraceEntry* findTrace(const std::string& path, const std::string& signal);
    /// A track (no probe) for `entry`.
    static Track traceTrack(const TraceEntry& entry);
    /// Gives `track` a probe sized for the current window.
    void attachProbe(Track& track);
    /// Appends a trace track with its probe, shrinking the window first.
    void startTraceTrack(const TraceEntry& entry);
    /// Removes trace `id`'s track, probe and series.
    void stopTraceTrack(int id);
    /// Makes the primary trace follow m_tracedPath / m_requestedSignal / m_traceNeurons;
    /// `probe`: give a new track its probe now. True when the set of traces changed.
    bool applyPrimary(bool probe);
    /// Drops trace `id` from the list (its track is the caller's business).
    void eraseTrace(int id);
    /// Removes track `index` and its series (not its probe).
    void removeTrack(std::size_t index);

    // live_run.cpp
    /// "'lif'", or "the root" for "".
    static QString describePath(const std::string& path);
    /// Adds `snapshot` to the track's staged rows or events (taking its event buffer when
    /// nothing is staged); true when the data went back in time.
    bool stage(Track& track, engine::ProbeSnapshot& snapshot);
    /// Moves staged rows up to the step every started track has reached into the series.
    bool commit();
    /// Appends `rows` rows of `track` to its series (restarting it when they do not continue
    /// it), keeping the last m_window steps.
    void appendToSeries(Track& track, std::int64_t firstStep, const float* rows,
                        std::int64_t count);
    /// Appends `events` of the steps [firstStep, end) to a spike track's window (restarting it
    /// when they do not continue it), keeping the last m_window steps and the events cap.
    void appendToWindow(Track& track, std::int64_t firstStep,
                        std::span<const engine::SpikeEvent> events, std::int64_t end);
    /// Most events a spike window of `width` neurons keeps.
    std::int64_t eventCap(std::int64_t width) const;
    /// Remakes the dense spike series of m_recording from the windows.
    void refreshDenseSpikes() const;
    /// Cuts every series to the last m_window steps.
    void trimAll();
    /// Forgets a track's staged and recorded data.
    void clearTrack(Track& track);
    void handleEvents(bool* changed);
    void computeWindow();
    engine::TimeSeries* seriesOf(const Track& track);
    const engine::TimeSeries* seriesOf(const Track& track) const;
    void eraseSeries(const Track& track);

    LiveRunOptions m_options;
    std::unique_ptr<engine::Module> m_plotModel;
    std::vector<std::string> m_probePaths;  ///< modules the controller can probe separately
    /// readActivations()'s hooks; touched on the worker only (observeModel()). Declared before
    /// the controller so that it goes after the worker and its model.
    std::unique_ptr<engine::ActivationMonitor> m_activations;
    std::string m_activationsPath;  ///< the module m_activations watches
    std::unique_ptr<engine::SimulationController> m_controller;
    std::vector<Track> m_tracks;      ///< spike tracks and trace tracks
    std::vector<TraceEntry> m_traces; ///< ascending id
    int m_nextTraceId = 1;
    int m_primaryId = 0;              ///< 0: no primary trace
    QString m_tracedPath;
    std::string m_requestedSignal;  ///< "" = the membrane signal
    std::vector<std::int64_t> m_traceNeurons;  ///< primary trace's channels; empty = all
    mutable engine::Recording m_recording;  ///< traces; spikes made by refreshDenseSpikes()
    mutable bool m_denseStale = false;      ///< a spike window changed since the last refresh
    /// (path, signal) of the dense spike series refreshDenseSpikes() put in m_recording.
    mutable std::vector<std::pair<std::string, std::string>> m_denseKeys;
    double m_dt = 1.0;
    std::int64_t m_window = 1;
    std::int64_t m_currentStep = 0;
    std::int64_t m_dropped = 0;
    bool m_running = false;
    bool m_freeRunning = false;  ///< the last run command was run(), not pause() or step()
    QTimer m_timer;
};

}  // namespace spike::ui
