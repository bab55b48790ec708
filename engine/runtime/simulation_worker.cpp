// SimulationController, the worker thread's half: the command loop around the chunks of the run
// loop (engine/runtime/run_loop.hpp: chunk sizing, real-time pacing, advancing), probe hand-off,
// the NaN / Inf check, and the commands' effects on the model and the executor (attribute edits,
// reset, rebuilds, probe sets). Everything here runs on the worker
// thread only; it shares state with other threads only through the queue, the event queue, the
// published probe set and the atomics (see simulation_controller.hpp).
#include "engine/runtime/simulation_controller.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <sstream>

namespace spike::engine {

namespace {

std::string formatValue(float v)
{
    std::ostringstream os;
    os << v;
    return os.str();
}

}  // namespace

void SimulationController::postEvent(ControllerEvent::Kind kind, std::string message,
                                     ProbeId probe, std::optional<NonFinite> nonFinite)
{
    ControllerEvent event;
    event.kind = kind;
    event.step = m_stepCount;
    if (m_current != nullptr) {
        event.command = m_current->id;
        event.commandText = m_current->text;
    }
    event.message = std::move(message);
    event.probe = probe;
    event.nonFinite = std::move(nonFinite);
    std::lock_guard<std::mutex> lock(m_eventMutex);
    if (m_options.maxPendingEvents > 0 && m_events.size() >= m_options.maxPendingEvents) {
        m_events.pop_front();
        m_droppedEvents.fetch_add(1, std::memory_order_relaxed);
    }
    m_events.push_back(std::move(event));
}

void SimulationController::workerMain(std::promise<Status>& ready)
{
    const Status built = rebuild(m_backend, false);
    ready.set_value(built);
    if (!built.ok) {
        return;
    }
    std::unique_lock<std::mutex> lock(m_queueMutex);
    while (!m_stop) {
        if (!m_queue.empty()) {
            std::deque<Command> batch;
            batch.swap(m_queue);
            lock.unlock();
            executeCommands(batch);
            const std::uint64_t last = batch.back().id.value;
            batch.clear();
            lock.lock();
            m_appliedCommand = last;
            m_idleCv.notify_all();
            continue;
        }
        if (!m_running) {
            m_wake.wait(lock, [this] { return m_stop || !m_queue.empty(); });
            continue;
        }
        lock.unlock();
        const std::int64_t steps = m_loop.chunkSteps(
            *m_executor, m_target ? std::optional<std::int64_t>(*m_target - m_stepCount) : std::nullopt);
        if (const auto deadline = m_loop.deadline(*m_executor, m_stepCount, steps)) {
            lock.lock();
            m_wake.wait_until(lock, *deadline, [this] { return m_stop || !m_queue.empty(); });
            continue;
        }
        advanceChunk(steps);
        lock.lock();
        if (!m_running) {
            m_idleCv.notify_all();
        }
    }
    std::deque<Command> dropped;
    dropped.swap(m_queue);
    lock.unlock();
    dropped.clear();
    m_executor.reset();
}

void SimulationController::executeCommands(std::deque<Command>& batch)
{
    for (const Command& command : batch) {
        m_current = &command;
        Status status;
        try {
            status = command.body();
        } catch (const std::exception& e) {
            status = Status::failure(e.what());
        }
        if (!status.ok) {
            postEvent(ControllerEvent::Kind::Error, status.message, command.probe);
        }
        m_current = nullptr;
    }
}

void SimulationController::advanceChunk(std::int64_t steps)
{
    if (!m_executor) {
        setRunning(false);
        return;
    }
    try {
        m_loop.advance(*m_executor, steps, nullptr, nullptr);
    } catch (const std::exception& e) {
        m_target.reset();
        postEvent(ControllerEvent::Kind::Error,
                  "advancing from step " + std::to_string(m_stepCount) + " failed: " + e.what());
        setRunning(false);
        return;
    }
    const std::int64_t first = m_stepCount;
    m_stepCount += steps;
    m_step.store(m_stepCount, std::memory_order_release);
    for (std::size_t k = 0; k < m_probes.size(); ++k) {
        if (const std::optional<SpikeLists> lists = m_executor->probeSpikeLists(k)) {
            m_probes[k].buffer->push(first, steps, m_executor->probeData(k), *lists);
        } else {
            m_probes[k].buffer->push(first, steps, m_executor->probeData(k));
        }
    }
    if (const std::optional<NonFinite> bad = m_executor->findNonFinite()) {
        m_target.reset();
        postEvent(ControllerEvent::Kind::NonFinitePause,
                  "non-finite value " + formatValue(bad->value) + " in " + describePath(bad->path) +
                      " state '" + bad->attribute + "' element " + std::to_string(bad->index) +
                      ", found after step " + std::to_string(m_stepCount) +
                      " (checked once per chunk of " + std::to_string(steps) + " steps); paused",
                  {}, bad);
        setRunning(false);
        return;
    }
    if (m_target && m_stepCount >= *m_target) {
        m_target.reset();
        postEvent(ControllerEvent::Kind::StepsDone, "reached step " + std::to_string(m_stepCount));
        setRunning(false);
    }
}

void SimulationController::setRunning(bool running)
{
    if (running == m_running) {
        return;
    }
    m_running = running;
    m_state.store(running ? RunState::Running : RunState::Paused, std::memory_order_release);
    if (running) {
        m_loop.anchor(m_stepCount);
    }
    postEvent(running ? ControllerEvent::Kind::Running : ControllerEvent::Kind::Paused,
              (running ? "running from step " : "paused at step ") + std::to_string(m_stepCount));
}

Status SimulationController::doSetAttributes(const NestedAttributes& changes)
{
    bool needsRebuild = !m_executor;
    for (const auto& [path, attributes] : changes) {
        const Module& module = m_model->getSubmodule(path);
        for (const auto& [name, value] : attributes) {
            if (!module.hasAttribute(name) || module.spec(name).liveEditable) {
                continue;  // unknown names are reported by Module::setAttributes
            }
            if (m_running) {
                return Status::failure("pause to change '" + name + "' of " + describePath(path) +
                                       " (" + module.className() +
                                       "): it cannot change while the simulation runs");
            }
            needsRebuild = true;
        }
    }
    if (m_executor) {
        m_executor->storeStates();
    }
    Status status = m_model->setAttributes(changes);
    if (!status.ok) {
        return status;  // nothing changed: the working states are still the executor's
    }
    if (needsRebuild) {
        return rebuild(m_backend, false);
    }
    m_executor->loadStates(false);
    return Status::success();
}

Status SimulationController::doSetSpeed(Speed speed)
{
    if (!std::isfinite(speed.factor) || speed.factor < 0.0) {
        return Status::failure(
            "setSpeed: factor " + std::to_string(speed.factor) +
            " is invalid; expected a finite value >= 0 (0: as fast as possible)");
    }
    m_loop.setSpeed(speed, m_stepCount);
    return Status::success();
}

Status SimulationController::doReset()
{
    m_model->resetState();
    if (m_executor) {
        m_executor->loadStates(true);
    }
    if (m_target) {
        m_target = *m_target - m_stepCount;
    }
    m_stepCount = 0;
    m_step.store(0, std::memory_order_release);
    for (const ActiveProbe& probe : m_probes) {
        probe.buffer->clear();
    }
    m_loop.anchor(0);
    postEvent(ControllerEvent::Kind::StateReset, "state reset; step 0");
    return Status::success();
}

Status SimulationController::rebuild(BackendKind kind, bool keepOldOnFailure)
{
    std::string note;
    std::unique_ptr<Executor> fresh;
    try {
        fresh = makeExecutor(*m_model, kind, m_executorOptions, &note);
    } catch (const std::exception& e) {
        const std::string message =
            "cannot build the " + toString(kind) + " executor: " + std::string(e.what());
        if (!keepOldOnFailure) {
            m_executor.reset();
            m_executorError = message;
            m_target.reset();
            setRunning(false);
            publish();
        }
        return Status::failure(message);
    }
    // Keep every probe that still resolves on the new executor; report the others.
    std::vector<ActiveProbe> kept;
    std::vector<ProbeRequest> requests;
    for (const ActiveProbe& probe : m_probes) {
        std::string why;
        try {
            if (fresh->setProbes({probe.request}).front().width < 1) {
                why = "it records no channels";
            }
        } catch (const std::exception& e) {
            why = e.what();
        }
        if (why.empty()) {
            kept.push_back(probe);
            requests.push_back(probe.request);
        } else {
            postEvent(ControllerEvent::Kind::Error,
                      "probe #" + std::to_string(probe.id.value) + " " +
                          describeProbe(probe.request) + " removed: " + why,
                      probe.id);
        }
    }
    const std::vector<ProbeInfo> infos = fresh->setProbes(requests);
    for (std::size_t k = 0; k < kept.size(); ++k) {
        if (infos[k].width != kept[k].info.width || infos[k].spikes != kept[k].info.spikes) {
            kept[k].buffer =
                std::make_shared<ProbeBuffer>(infos[k].width, infos[k].spikes, kept[k].capacity);
        }
        kept[k].info = infos[k];
    }
    const bool lostProbes = kept.size() != m_probes.size();
    m_executor = std::move(fresh);
    m_executorError.clear();
    m_probes = std::move(kept);
    m_dt.store(m_executor->plan().dt, std::memory_order_relaxed);
    publish();
    postEvent(
        ControllerEvent::Kind::ExecutorRebuilt,
        "executor built on " + m_executor->backendName() + (note.empty() ? "" : " (" + note + ")"));
    if (lostProbes) {
        postEvent(ControllerEvent::Kind::ProbesChanged,
                  std::to_string(m_probes.size()) + " probes");
    }
    return Status::success();
}

Status SimulationController::applyProbes(std::vector<ActiveProbe> next)
{
    if (!m_executor) {
        return Status::failure("no executor: " + m_executorError);
    }
    std::vector<ProbeRequest> requests;
    for (const ActiveProbe& probe : next) {
        requests.push_back(probe.request);
    }
    const std::vector<ProbeInfo> infos = m_executor->setProbes(requests);  // throws: old set stays
    for (std::size_t k = 0; k < next.size(); ++k) {
        ActiveProbe& probe = next[k];
        if (infos[k].width < 1) {
            std::vector<ProbeRequest> old;
            for (const ActiveProbe& p : m_probes) {
                old.push_back(p.request);
            }
            m_executor->setProbes(old);
            return Status::failure("probe " + describeProbe(probe.request) +
                                   " records no channels; nothing to buffer");
        }
        if (!probe.buffer || infos[k].width != probe.info.width ||
            infos[k].spikes != probe.info.spikes) {
            probe.buffer =
                std::make_shared<ProbeBuffer>(infos[k].width, infos[k].spikes, probe.capacity);
        }
        probe.info = infos[k];
    }
    m_probes = std::move(next);
    publish();
    postEvent(ControllerEvent::Kind::ProbesChanged, std::to_string(m_probes.size()) + " probes");
    return Status::success();
}

void SimulationController::publish()
{
    std::vector<ProbeStatus> statuses;
    std::map<ProbeId, std::shared_ptr<ProbeBuffer>> buffers;
    for (const ActiveProbe& probe : m_probes) {
        statuses.push_back(ProbeStatus{probe.id, probe.request, probe.info, probe.capacity});
        buffers.emplace(probe.id, probe.buffer);
    }
    std::string backend = m_executor ? m_executor->backendName() : std::string();
    std::lock_guard<std::mutex> lock(m_publishMutex);
    m_publishedProbes = std::move(statuses);
    m_publishedBuffers = std::move(buffers);
    m_publishedBackend = std::move(backend);
}

}  // namespace spike::engine
