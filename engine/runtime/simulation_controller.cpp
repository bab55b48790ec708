// SimulationController, the side other threads call: construction, the command functions (which
// queue closures for the worker), the blocking calls and the consumer side. The worker's half
// (loop, chunks, pacing, probes, health checks, rebuilds) is simulation_worker.cpp. See
// simulation_controller.hpp for the threading model.
#include "engine/runtime/simulation_controller.hpp"

#include <algorithm>
#include <cmath>
#include <exception>

namespace spike::engine {

std::string SimulationController::describePath(const std::string& path)
{
    if (path.empty()) {
        return "the root";
    }
    std::string text(1, '\'');
    text += path;
    text += '\'';
    return text;
}

std::string SimulationController::describeProbe(const ProbeRequest& request)
{
    std::string text(1, '(');
    text += describePath(request.path);
    text += ", '";
    text += request.signal;
    text += "')";
    return text;
}

SimulationController::ActiveProbe SimulationController::newProbe(ProbeId id,
                                                                 const ProbeRequest& request,
                                                                 std::int64_t capacity) const
{
    ActiveProbe probe;
    probe.id = id;
    probe.request = request;
    probe.capacity = capacity > 0 ? capacity : m_options.defaultProbeCapacity;
    return probe;
}

// ---- construction and destruction (owner's thread) ------------------------------------------

namespace {

/// Longest wall time one worker chunk should take [s]: probe data reach the consumer at least
/// about this often, so live plots can redraw at 60 fps even when one step takes milliseconds.
constexpr double kMaxChunkSeconds = 0.008;

RunLoopOptions workerLoop(Speed speed)
{
    if (!std::isfinite(speed.factor) || speed.factor < 0.0) {
        throw Error("SimulationController: speed factor " + std::to_string(speed.factor) +
                    " is invalid; expected a finite value >= 0 (0: as fast as possible)");
    }
    RunLoopOptions options;
    options.speed = speed;
    options.maxChunkSeconds = kMaxChunkSeconds;
    return options;
}

}  // namespace

SimulationController::SimulationController(std::unique_ptr<Module> model, ControllerOptions options)
    : m_options(std::move(options)), m_model(std::move(model)), m_backend(m_options.backend),
      m_loop(workerLoop(m_options.speed))
{
    if (!m_model) {
        throw Error("SimulationController: no model given");
    }
    if (m_options.defaultProbeCapacity < 1) {
        throw Error("SimulationController: defaultProbeCapacity must be >= 1, got " +
                    std::to_string(m_options.defaultProbeCapacity));
    }
    m_stepCount = m_model->stepsElapsed();
    m_step.store(m_stepCount, std::memory_order_release);
    std::promise<Status> ready;
    std::future<Status> built = ready.get_future();
    m_worker = std::thread([this, p = std::move(ready)]() mutable { workerMain(p); });
    const Status status = built.get();
    if (!status.ok) {
        {
            std::lock_guard<std::mutex> lock(m_queueMutex);
            m_stop = true;
        }
        m_wake.notify_all();
        m_worker.join();
        throw Error("SimulationController: " + status.message);
    }
}

SimulationController::~SimulationController()
{
    {
        std::lock_guard<std::mutex> lock(m_queueMutex);
        m_stop = true;
    }
    m_wake.notify_all();
    if (m_worker.joinable()) {
        m_worker.join();
    }
}

// ---- commands (any thread) ------------------------------------------------------------------

CommandId SimulationController::enqueue(std::string text, std::function<Status()> body,
                                        ProbeId probe)
{
    std::lock_guard<std::mutex> lock(m_queueMutex);
    const CommandId id{++m_lastCommand};
    m_queue.push_back(Command{id, std::move(text), probe, std::move(body)});
    m_wake.notify_all();
    return id;
}

Status SimulationController::callOnWorker(const std::string& text, std::function<Status()> body)
{
    if (onWorker()) {
        return Status::failure(text + ": called from the simulation thread itself (inside a "
                                      "withModel or readModel function); it would wait forever");
    }
    auto promise = std::make_shared<std::promise<Status>>();
    std::future<Status> result = promise->get_future();
    enqueue(text, [promise, text, body = std::move(body)]() -> Status {
        try {
            promise->set_value(body());
        } catch (const std::exception& e) {
            promise->set_value(Status::failure(text + ": " + e.what()));
        }
        return Status::success();
    });
    try {
        return result.get();
    } catch (const std::future_error&) {
        return Status::failure(text + ": the controller stopped before running it");
    }
}

CommandId SimulationController::run()
{
    return enqueue("run", [this]() -> Status {
        if (!m_executor) {
            return Status::failure("cannot run: " + m_executorError);
        }
        m_target.reset();
        setRunning(true);
        return Status::success();
    });
}

CommandId SimulationController::pause()
{
    return enqueue("pause", [this]() -> Status {
        m_target.reset();
        setRunning(false);
        return Status::success();
    });
}

CommandId SimulationController::step(std::int64_t steps)
{
    return enqueue("step(" + std::to_string(steps) + ")", [this, steps]() -> Status {
        if (steps < 1) {
            return Status::failure("step: expected at least 1 step, got " + std::to_string(steps));
        }
        if (!m_executor) {
            return Status::failure("cannot step: " + m_executorError);
        }
        m_target = (m_target ? *m_target : m_stepCount) + steps;
        setRunning(true);
        return Status::success();
    });
}

CommandId SimulationController::resetState()
{
    return enqueue("resetState", [this] { return doReset(); });
}

CommandId SimulationController::setAttribute(std::string path, std::string name,
                                             AttributeValue value)
{
    NestedAttributes changes;
    changes[path][name] = std::move(value);
    return enqueue("setAttribute(" + describePath(path) + ", '" + name + "')",
                   [this, changes = std::move(changes)] { return doSetAttributes(changes); });
}

CommandId SimulationController::setAttributes(NestedAttributes changes)
{
    return enqueue("setAttributes",
                   [this, changes = std::move(changes)] { return doSetAttributes(changes); });
}

CommandId SimulationController::setSpeed(Speed speed)
{
    return enqueue("setSpeed(" + std::to_string(speed.factor) + ")",
                   [this, speed] { return doSetSpeed(speed); });
}

CommandId SimulationController::setBackend(BackendKind kind)
{
    return enqueue("setBackend(" + toString(kind) + ")", [this, kind]() -> Status {
        if (m_executor) {
            m_executor->storeStates();
        }
        Status status = rebuild(kind, m_executor != nullptr);
        if (status.ok) {
            m_backend = kind;
        }
        return status;
    });
}

CommandId SimulationController::setThreads(int threads)
{
    return enqueue("setThreads(" + std::to_string(threads) + ")", [this, threads]() -> Status {
        if (threads < 0) {
            return Status::failure("setThreads: threads must be >= 0 (0: every core), got " +
                                   std::to_string(threads));
        }
        if (threads == m_executorOptions.threads) {
            return Status::success();
        }
        const int previous = m_executorOptions.threads;
        m_executorOptions.threads = threads;
        if (m_executor) {
            m_executor->storeStates();
        }
        Status status = rebuild(m_backend, m_executor != nullptr);
        if (!status.ok) {
            m_executorOptions.threads = previous;
        }
        return status;
    });
}

ProbeId SimulationController::addProbe(ProbeRequest request, std::int64_t capacity)
{
    const ProbeId id{m_nextProbe.fetch_add(1, std::memory_order_relaxed)};
    const std::string text = "addProbe" + describeProbe(request);
    enqueue(text,
            [this, id, request = std::move(request), capacity]() -> Status {
                if (capacity < 0) {
                    return Status::failure(
                        "addProbe: capacity must be >= 0 (0: the default), got " +
                        std::to_string(capacity));
                }
                std::vector<ActiveProbe> next = m_probes;
                next.push_back(newProbe(id, request, capacity));
                return applyProbes(std::move(next));
            },
            id);
    return id;
}

CommandId SimulationController::removeProbe(ProbeId id)
{
    return enqueue("removeProbe(#" + std::to_string(id.value) + ")",
                   [this, id]() -> Status {
                       std::vector<ActiveProbe> next = m_probes;
                       const auto it =
                           std::find_if(next.begin(), next.end(),
                                        [id](const ActiveProbe& p) { return p.id == id; });
                       if (it == next.end()) {
                           return Status::failure("removeProbe: there is no probe #" +
                                                  std::to_string(id.value));
                       }
                       next.erase(it);
                       return applyProbes(std::move(next));
                   },
                   id);
}

std::vector<ProbeId> SimulationController::setProbes(std::vector<ProbeRequest> requests,
                                                     std::int64_t capacity)
{
    std::vector<ProbeId> ids;
    for (std::size_t k = 0; k < requests.size(); ++k) {
        ids.push_back(ProbeId{m_nextProbe.fetch_add(1, std::memory_order_relaxed)});
    }
    enqueue("setProbes(" + std::to_string(requests.size()) + " probes)",
            [this, ids, requests = std::move(requests), capacity]() -> Status {
                if (capacity < 0) {
                    return Status::failure("setProbes: capacity must be >= 0 (0: the default), "
                                           "got " + std::to_string(capacity));
                }
                std::vector<ActiveProbe> next;
                for (std::size_t k = 0; k < requests.size(); ++k) {
                    next.push_back(newProbe(ids[k], requests[k], capacity));
                }
                return applyProbes(std::move(next));
            });
    return ids;
}

// ---- blocking calls (any thread but the worker) ---------------------------------------------

Status SimulationController::withModel(const std::function<void(Module&)>& fn)
{
    return callOnWorker("withModel", [this, &fn]() -> Status {
        if (m_running) {
            return Status::failure("withModel: pause the simulation before editing the model");
        }
        if (m_executor) {
            m_executor->storeStates();
        }
        m_executor.reset();
        Status result = Status::success();
        try {
            fn(*m_model);
        } catch (const std::exception& e) {
            result = Status::failure(std::string("withModel: ") + e.what());
        }
        const Status built = rebuild(m_backend, false);
        if (!built.ok) {
            return result.ok ? built : Status::failure(result.message + "; then " + built.message);
        }
        return result;
    });
}

Status SimulationController::readModel(const std::function<void(const Module&)>& fn)
{
    return callOnWorker("readModel", [this, &fn]() -> Status {
        if (m_executor) {
            m_executor->storeStates();
        }
        fn(*m_model);
        return Status::success();
    });
}

Status SimulationController::observeModel(const std::function<void(Module&)>& fn)
{
    return callOnWorker("observeModel", [this, &fn]() -> Status {
        fn(*m_model);
        return Status::success();
    });
}

bool SimulationController::waitIdle(std::chrono::milliseconds timeout)
{
    std::unique_lock<std::mutex> lock(m_queueMutex);
    const std::uint64_t last = m_lastCommand;
    return m_idleCv.wait_for(lock, timeout, [this, last] {
        return m_appliedCommand >= last &&
               m_state.load(std::memory_order_acquire) == RunState::Paused;
    });
}

// ---- consumer side (any thread) -------------------------------------------------------------

std::vector<ControllerEvent> SimulationController::takeEvents()
{
    std::deque<ControllerEvent> taken;
    {
        std::lock_guard<std::mutex> lock(m_eventMutex);
        taken.swap(m_events);
    }
    return {std::make_move_iterator(taken.begin()), std::make_move_iterator(taken.end())};
}

std::optional<ProbeSnapshot> SimulationController::takeProbe(ProbeId id)
{
    std::shared_ptr<ProbeBuffer> buffer;
    {
        std::lock_guard<std::mutex> lock(m_publishMutex);
        const auto it = m_publishedBuffers.find(id);
        if (it == m_publishedBuffers.end()) {
            return std::nullopt;
        }
        buffer = it->second;
    }
    return buffer->take();
}

std::vector<ProbeStatus> SimulationController::probes() const
{
    std::lock_guard<std::mutex> lock(m_publishMutex);
    return m_publishedProbes;
}

std::string SimulationController::backendName() const
{
    std::lock_guard<std::mutex> lock(m_publishMutex);
    return m_publishedBackend;
}

}  // namespace spike::engine
