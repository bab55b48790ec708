// SimulationController: runs one module tree on one worker thread and takes commands from any
// thread (the GUI's run controls and inspector, a headless runner, tests).
//
// Owns: the module tree (std::unique_ptr<Module>), the Executor compiled from it, the probe set
// with one ProbeBuffer per probe, the command queue and the event queue. The worker thread owns
// the tree and the executor from construction to destruction; nothing else touches them except
// through withModel() / readModel(), whose functions the worker runs.
//
// Commands (run, pause, step, resetState, setAttribute(s), setSpeed, setBackend, the probe
// commands) are queued in call order and applied by the worker between chunks, never inside one;
// they return at once. Failures come back as ControllerEvent::Kind::Error events naming the
// command, never as exceptions across threads. The worker drives the one chunk loop of
// run_loop.hpp (chunks of at most 8 ms of wall time, real-time pacing) piece by piece, so that
// it waits for a pacing deadline on its condition variable (woken early by commands). Per chunk:
//
//     n      = loop.chunkSteps(steps left to a step() target)                        [steps]
//     wait   until loop.deadline(step, n)                                       (real time only)
//     loop.advance(n, zeros, no output)
//     step  += n
//     probe k: buffer k.push(step - n, n, executor.probeData(k))
//     executor.findNonFinite() -> pause, NonFinitePause event naming path, attribute, element
//     step == target -> pause, StepsDone event
//
// The pacing anchor restarts when running starts and when the speed or the state changes.
//
// Invariants: the step counter equals the steps the executor advanced since construction (starting
// from the tree's stepsElapsed()) or the last resetState(); probe buffers hold rows for steps in
// that numbering; the worker never waits for a consumer longer than a ProbeBuffer swap or an
// event-queue swap.
#pragma once

#include "engine/core/attribute.hpp"
#include "engine/runtime/backend.hpp"
#include "engine/tensor/error.hpp"
#include "engine/core/module.hpp"
#include "engine/runtime/probe_buffer.hpp"
#include "engine/runtime/run_loop.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace spike::engine {

/// A command's number: increasing in submission order, from 1.
struct CommandId {
    std::uint64_t value = 0;
    bool valid() const { return value != 0; }
    auto operator<=>(const CommandId&) const = default;
};

/// A probe's number within one controller: from 1, never reused.
struct ProbeId {
    std::uint64_t value = 0;
    bool valid() const { return value != 0; }
    auto operator<=>(const ProbeId&) const = default;
};

/// Whether the worker is advancing the simulation.
enum class RunState {
    Paused,
    Running,  ///< running freely or towards a step() target
};

/// Something the worker tells the consumer.
struct ControllerEvent {
    enum class Kind {
        Error,           ///< a command failed (message says why; a refused change leaves the
                         ///< model as it was), or a rebuild removed a probe that no longer resolves
        Running,         ///< the simulation started advancing
        Paused,          ///< the simulation stopped advancing
        NonFinitePause,  ///< a working state became NaN or infinite; paused (see nonFinite)
        StepsDone,       ///< a step() target was reached
        StateReset,      ///< resetState() ran: step 0, probe buffers emptied
        ProbesChanged,   ///< the probe set changed (probes() lists it)
        ExecutorRebuilt, ///< the executor was rebuilt (backend, non-live attribute, withModel)
    };
    Kind kind = Kind::Error;
    std::int64_t step = 0;    ///< step counter when posted
    CommandId command;        ///< the command that caused it; invalid when the worker acted on
                              ///< its own (step target reached, NaN found)
    std::string commandText;  ///< that command as text, e.g. "setAttribute('lif', 'bias')"
    std::string message;      ///< one line for a person
    ProbeId probe;            ///< the probe concerned by a probe command's error, else invalid
    std::optional<NonFinite> nonFinite;  ///< NonFinitePause only
};

/// Construction options.
struct ControllerOptions {
    BackendKind backend = BackendKind::Cpu;
    /// maxChunkSteps (most steps per chunk) and plan options. CUDA: chunks of up to 256 steps
    /// (ExecutorOptions::deviceMaxChunkSteps), which the run loop still shortens to its pacing
    /// and to maxChunkSeconds of wall time, so the plots stay live.
    ExecutorOptions executor = [] {
        ExecutorOptions o;
        o.deviceMaxChunkSteps = 256;
        return o;
    }();
    Speed speed;
    std::int64_t defaultProbeCapacity = 65536;  ///< rows or events, when a probe asks for 0
    std::size_t maxPendingEvents = 4096;  ///< beyond this the oldest are dropped (0: no limit)
};

/// A probe as the consumer sees it.
struct ProbeStatus {
    ProbeId id;
    ProbeRequest request;
    ProbeInfo info;              ///< width, spikes or continuous, units
    std::int64_t capacity = 0;   ///< rows (continuous) or events (spiking)
};

/// See the file comment. Not copyable or movable (the worker holds `this`).
class SimulationController {
public:
    /// Takes ownership of `model` and compiles it on the worker thread, with `options`. Throws
    /// Error (from the calling thread) when the model is null or cannot be compiled; the model is
    /// then destroyed. The simulation starts paused. Any thread.
    explicit SimulationController(std::unique_ptr<Module> model, ControllerOptions options = {});
    /// Stops the worker at the next chunk boundary (also while running or pacing) and joins it.
    /// Commands still queued are dropped. Called by the owner's thread; no other call may be in
    /// progress or follow.
    ~SimulationController();
    SimulationController(const SimulationController&) = delete;
    SimulationController& operator=(const SimulationController&) = delete;

    // ---- commands: any thread, never block; applied by the worker between chunks -----------
    /// Runs until pause(), a NaN or a destructor. Error event when there is no executor.
    CommandId run();
    /// Pauses (also cancels a step() target).
    CommandId pause();
    /// Runs `steps` >= 1 more steps, then pauses exactly there (StepsDone, then Paused): from
    /// the pending step() target when there is one (so step(a); step(b) runs a + b steps however
    /// the commands interleave with chunks), else from wherever the command finds the run.
    CommandId step(std::int64_t steps);
    /// Module::resetState() on the tree, working states reloaded (delayed values cleared), step
    /// counter 0, pending probe data discarded. The run state is kept; a step() target keeps its
    /// remaining steps.
    CommandId resetState();
    /// Sets one attribute of the module at `path` ("" = root). See setAttributes().
    CommandId setAttribute(std::string path, std::string name, AttributeValue value);
    /// Validates all changes, then commits all or none (Module::setAttributes), between chunks:
    /// working states are stored, the change applied and the working states reloaded. A change
    /// to an attribute whose spec is not liveEditable is refused while running ("pause to
    /// change ...") and, while paused, applied by rebuilding the executor (probes kept).
    CommandId setAttributes(NestedAttributes changes);
    /// Sets the pacing; factor must be finite and >= 0.
    CommandId setSpeed(Speed speed);
    /// Rebuilds the executor on another backend (states carried over, probes kept). On failure
    /// the old executor stays.
    CommandId setBackend(BackendKind kind);
    /// Sets the CPU executor's threads (ExecutorOptions::threads; 0: every core) and rebuilds
    /// the executor with them (states carried over, probes kept), also while running: results
    /// are bit-identical for any thread count, so the run goes on as it would have. A negative
    /// count fails; the same count changes nothing; on failure the old executor stays.
    CommandId setThreads(int threads);

    /// Adds a probe recording `request` into a buffer of `capacity` rows or events (0: the
    /// default). The id is valid at once; if the worker cannot resolve the request it posts an
    /// Error event carrying this id and the probe never appears.
    ProbeId addProbe(ProbeRequest request, std::int64_t capacity = 0);
    /// Removes a probe; its pending data are discarded.
    CommandId removeProbe(ProbeId id);
    /// Replaces the whole probe set (all or nothing); returns the new probes' ids, in order.
    std::vector<ProbeId> setProbes(std::vector<ProbeRequest> requests, std::int64_t capacity = 0);

    // ---- blocking calls: any thread but the worker (from the worker they fail at once) -------
    /// Runs `fn` on the worker with the whole tree, for structural edits: refused while running
    /// (pause first). Working states are stored first; the executor is released before `fn` and
    /// rebuilt after it (probes that no longer resolve are removed, each with an Error event).
    /// Returns fn's exception as a failure, or the rebuild's; without an executor, run() fails
    /// until a later withModel() makes the tree compile again. The new executor loads what the
    /// old one stored (states and the values delayed connections carry), so an edit that leaves
    /// the structure alone continues the run exactly.
    Status withModel(const std::function<void(Module&)>& fn);
    /// Runs `fn` on the worker with the tree's stored states up to date (saving, inspecting);
    /// allowed while running (between two chunks); nothing is rebuilt.
    Status readModel(const std::function<void(const Module&)>& fn);
    /// Runs `fn` on the worker between two chunks with the tree the executor advances, for
    /// attaching, reading and removing observers that change neither the structure nor any
    /// attribute (forward hooks: engine/analysis ActivationMonitor); allowed while running;
    /// nothing is stored or rebuilt. Hooks fire for modules advanced through forwardBatched()
    /// (layers and the children of composites), not for neuron populations' own runners.
    Status observeModel(const std::function<void(Module&)>& fn);
    /// Waits until every command sent before this call has been applied and the simulation is
    /// paused; false on timeout.
    bool waitIdle(std::chrono::milliseconds timeout);

    // ---- consumer side: any thread ---------------------------------------------------------
    /// Every event since the last call, oldest first.
    std::vector<ControllerEvent> takeEvents();
    /// Events dropped because more than maxPendingEvents were waiting.
    std::int64_t droppedEvents() const { return m_droppedEvents.load(std::memory_order_relaxed); }
    /// The probe's data since the last take (ProbeBuffer::take); nullopt for an unknown id.
    std::optional<ProbeSnapshot> takeProbe(ProbeId id);
    /// The current probe set, in executor order.
    std::vector<ProbeStatus> probes() const;
    /// Steps advanced since construction or the last reset (updated after every chunk).
    std::int64_t currentStep() const { return m_step.load(std::memory_order_acquire); }
    RunState runState() const { return m_state.load(std::memory_order_acquire); }
    /// The compiled plan's time step [s].
    double dt() const { return m_dt.load(std::memory_order_relaxed); }
    /// "cpu" or "cuda" ("" while there is no executor).
    std::string backendName() const;

private:
    /// A queued command. `body` runs on the worker; a failure becomes an Error event.
    struct Command {
        CommandId id;
        std::string text;
        ProbeId probe;
        std::function<Status()> body;
    };
    /// A probe as the worker holds it (same order as the executor's probes).
    struct ActiveProbe {
        ProbeId id;
        ProbeRequest request;
        ProbeInfo info;
        std::int64_t capacity = 0;
        std::shared_ptr<ProbeBuffer> buffer;
    };

    // Any thread.
    CommandId enqueue(std::string text, std::function<Status()> body, ProbeId probe = {});
    Status callOnWorker(const std::string& text, std::function<Status()> body);

    // Worker thread only.
    void postEvent(ControllerEvent::Kind kind, std::string message, ProbeId probe = {},
                   std::optional<NonFinite> nonFinite = std::nullopt);
    void workerMain(std::promise<Status>& ready);
    void executeCommands(std::deque<Command>& batch);
    void advanceChunk(std::int64_t steps);
    void setRunning(bool running);
    Status doSetAttributes(const NestedAttributes& changes);
    Status doSetSpeed(Speed speed);
    Status doReset();
    Status rebuild(BackendKind kind, bool keepOldOnFailure);
    Status applyProbes(std::vector<ActiveProbe> next);
    void publish();
    bool onWorker() const { return std::this_thread::get_id() == m_worker.get_id(); }
    /// "'lif'", or "the root" for "".
    static std::string describePath(const std::string& path);
    /// A probe not yet resolved; capacity 0 means the default.
    ActiveProbe newProbe(ProbeId id, const ProbeRequest& request, std::int64_t capacity) const;
    /// "('lif', 'vmem')".
    static std::string describeProbe(const ProbeRequest& request);

    const ControllerOptions m_options;
    ExecutorOptions m_executorOptions = m_options.executor;  ///< worker only; setThreads() changes it

    // Queue (m_queueMutex): commands in, stop flag, progress of the queue.
    mutable std::mutex m_queueMutex;
    std::condition_variable m_wake;     ///< worker waits: commands, stop, pacing deadline
    std::condition_variable m_idleCv;   ///< waitIdle() waits: commands applied, paused
    std::deque<Command> m_queue;
    std::uint64_t m_lastCommand = 0;    ///< id of the last queued command
    std::uint64_t m_appliedCommand = 0; ///< id of the last applied command
    bool m_stop = false;

    // Events (m_eventMutex).
    std::mutex m_eventMutex;
    std::deque<ControllerEvent> m_events;
    std::atomic<std::int64_t> m_droppedEvents{0};

    // Published for consumers (m_publishMutex): the probe set and the backend name.
    mutable std::mutex m_publishMutex;
    std::vector<ProbeStatus> m_publishedProbes;
    std::map<ProbeId, std::shared_ptr<ProbeBuffer>> m_publishedBuffers;
    std::string m_publishedBackend;

    std::atomic<std::int64_t> m_step{0};
    std::atomic<RunState> m_state{RunState::Paused};
    std::atomic<double> m_dt{1.0};
    std::atomic<std::uint64_t> m_nextProbe{1};

    // Worker thread only (after construction).
    std::unique_ptr<Module> m_model;
    std::unique_ptr<Executor> m_executor;  ///< null when the tree does not compile
    std::string m_executorError;           ///< why there is no executor
    BackendKind m_backend;
    RunLoop m_loop;                        ///< chunk sizing and pacing
    bool m_running = false;
    std::optional<std::int64_t> m_target;  ///< step() target
    std::int64_t m_stepCount = 0;
    std::vector<ActiveProbe> m_probes;
    const Command* m_current = nullptr;    ///< the command being applied (for events)

    std::thread m_worker;  ///< last: starts after every other member exists
};

}  // namespace spike::engine
