// LiveRun's model side: turning a model into what a controller runs (a copy for the plots,
// engine::cloneModule; the tree the worker runs, engine::asProbeableTree; the plan's probeable
// paths and spike tracks) and replaceModel(), the structural rebuild that continues the run:
// states carried over from the running copy (engine::carryStates), time continued, tracks moved
// over to the new controller. See live_run.hpp.
// GUI thread only; the running copy is read on the worker through the controller's readModel().
#include "ui/run/live_run.hpp"

#include "engine/tensor/error.hpp"
#include "engine/runtime/execution_plan.hpp"
#include "engine/runtime/state_carry.hpp"
#include "engine/io/model_clone.hpp"
#include "engine/network/probeable_tree.hpp"

#include <algorithm>
#include <exception>
#include <utility>

namespace spike::ui {

namespace {

/// How long replaceModel() waits for the worker to pause (a chunk is milliseconds).
constexpr auto kPauseWait = std::chrono::seconds(60);

/// The signal under which evolve() records a spiking module's output.
std::string spikeSignal(const engine::Module& module)
{
    const auto offered = module.recordableSignals();
    for (const char* name : {"spikes", "output"}) {
        if (std::find(offered.begin(), offered.end(), name) != offered.end()) {
            return name;
        }
    }
    return "out";
}

/// The module at `path` of `root` ("" the root), or nullptr.
engine::Module* moduleAt(const engine::Module& root, const std::string& path)
{
    for (const auto& [p, module] : root.namedModules()) {
        if (p == path) {
            return module;
        }
    }
    return nullptr;
}

/// Why a read of module `path` from the worker failed ("" when it did not), into `*error`.
bool readOutcome(const engine::Status& status, bool found, const QString& path, QString* error)
{
    QString why;
    if (!status.ok) {
        why = QString::fromStdString(status.message);
    } else if (!found) {
        why = LiveRun::tr("the running model has no module '%1'").arg(path);
    }
    if (error != nullptr) {
        *error = why;
    }
    return why.isEmpty();
}

}  // namespace

LiveRun::Prepared LiveRun::prepare(std::unique_ptr<engine::Module> model)
{
    Prepared out;
    out.plot = engine::cloneModule(*model);
    out.running = engine::asProbeableTree(std::move(model));
    // The plan points into the tree: read it before a controller takes the tree.
    const engine::ExecutionPlan plan = engine::compilePlan(*out.running);
    for (const engine::PlanNode& node : plan.nodes) {
        if (node.role != engine::PlanNode::Role::Module) {
            continue;
        }
        out.probePaths.push_back(node.path);
        if (node.module->spikingOutput() && node.sizeOut > 0) {
            Track track;
            track.path = node.path;
            track.signal = spikeSignal(*node.module);
            track.width = node.sizeOut;
            track.spikes = true;
            track.spikeWindow = std::make_unique<engine::SpikeWindow>(track.width);
            out.spikeTracks.push_back(std::move(track));
        }
    }
    return out;
}

std::unique_ptr<engine::SimulationController> LiveRun::makeController(
    std::unique_ptr<engine::Module> running) const
{
    engine::ControllerOptions controllerOptions;
    controllerOptions.backend = m_options.backend;
    controllerOptions.speed = m_options.speed;
    controllerOptions.executor.threads = m_options.threads;
    if (m_controller) {
        // The backend the run is on now (setBackend() may have moved it, or failed to).
        const std::string name = m_controller->backendName();
        if (name == "cuda") {
            controllerOptions.backend = engine::BackendKind::Cuda;
        } else if (name == "cpu") {
            controllerOptions.backend = engine::BackendKind::Cpu;
        }
    }
    return std::make_unique<engine::SimulationController>(std::move(running), controllerOptions);
}

bool LiveRun::copyRunningStates(engine::Module& next, QString* error)
{
    const engine::Status status = m_controller->readModel(
        [&next](const engine::Module& running) { engine::carryStates(running, next); });
    if (!status.ok) {
        *error = QString::fromStdString(status.message);
    }
    return status.ok;
}

bool LiveRun::readStates(const QString& path, RunStates* out, QString* error)
{
    bool found = false;
    const engine::Status status = m_controller->readModel([&](const engine::Module& running) {
        const engine::Module* module = moduleAt(running, path.toStdString());
        if (module == nullptr) {
            return;
        }
        found = true;
        out->values.clear();
        for (const auto& view : module->attributes()) {
            if (view.spec->kind == engine::AttributeKind::State) {
                out->values.emplace(view.spec->name, *view.value);
            }
        }
    });
    out->step = m_controller->currentStep();
    return readOutcome(status, found, path, error);
}

bool LiveRun::readActivations(const QString& path,
                              std::map<std::string, engine::ActivationSnapshot>* out, QString* error)
{
    bool found = false;
    const engine::Status status = m_controller->observeModel([&](engine::Module& running) {
        engine::Module* module = moduleAt(running, path.toStdString());
        if (module == nullptr) {
            return;
        }
        found = true;
        if (!m_activations || !m_activations->watches(*module)) {
            m_activations.reset();  // hooks of a model a rebuild replaced: already gone
            m_activations = std::make_unique<engine::ActivationMonitor>(*module);
            m_activationsPath = path.toStdString();
        }
        *out = m_activations->take();
    });
    return readOutcome(status, found, path, error);
}

void LiveRun::stopActivations()
{
    if (m_activations) {
        // A worker that does not answer keeps the hooks until the run goes; nothing else to do.
        static_cast<void>(m_controller->observeModel([this](engine::Module&) { m_activations.reset(); }));
    }
}

void LiveRun::adoptTracks(std::vector<Track> spikeTracks, bool newTimeBase)
{
    std::vector<Track> old = std::move(m_tracks);
    m_tracks = std::move(spikeTracks);

    std::vector<int> dropped;
    for (TraceEntry& entry : m_traces) {
        ResolvedSignal resolved;
        const bool resolves =
            resolveTrace(entry.info.path.toStdString(), entry.info.signal, &resolved).isEmpty() &&
            std::all_of(entry.info.neurons.begin(), entry.info.neurons.end(),
                        [&](std::int64_t i) { return i >= 0 && i < resolved.channels; });
        if (!resolves) {
            dropped.push_back(entry.info.id);
            continue;
        }
        entry.channels = resolved.channels;
        entry.info.units = resolved.units;
        entry.info.membrane = resolved.membrane;
    }
    for (const int id : dropped) {
        eraseTrace(id);
    }
    for (const TraceEntry& entry : m_traces) {
        m_tracks.push_back(traceTrack(entry));
    }

    // A track that records the same thing as before continues where the old one stopped.
    std::vector<bool> kept(old.size(), false);
    for (Track& track : m_tracks) {
        for (std::size_t k = 0; k < old.size(); ++k) {
            Track& before = old[k];
            if (kept[k] || before.path != track.path || before.signal != track.signal ||
                before.width != track.width || before.spikes != track.spikes || newTimeBase) {
                continue;
            }
            kept[k] = true;
            track.started = before.started;
            track.stagedStart = before.stagedStart;
            track.stagedRows = before.stagedRows;
            track.staged = std::move(before.staged);
            track.stagedEvents = std::move(before.stagedEvents);
            if (track.spikes) {
                track.spikeWindow = std::move(before.spikeWindow);
            }
            track.windowEnd = before.windowEnd;
            break;
        }
    }
    for (std::size_t k = 0; k < old.size(); ++k) {
        if (!kept[k]) {
            eraseSeries(old[k]);
        }
    }
    m_denseStale = true;

    computeWindow();
    for (Track& track : m_tracks) {
        attachProbe(track);
    }
    trimAll();
    if (!dropped.empty()) {
        Q_EMIT tracesChanged();
    }
}

bool LiveRun::replaceModel(std::unique_ptr<engine::Module> model, QString* error)
{
    QString why;
    const bool wasRunning =
        m_freeRunning && m_controller->runState() == engine::RunState::Running;
    const auto fail = [&](const QString& message) {
        if (wasRunning) {
            m_controller->run();
        }
        if (error != nullptr) {
            *error = message;
        }
        return false;
    };
    if (!model) {
        return fail(tr("There is no model to run."));
    }
    m_controller->pause();
    if (!waitIdle(kPauseWait)) {
        return fail(tr("The simulation did not pause in time; the model was not replaced."));
    }
    const std::int64_t step = m_controller->currentStep();

    Prepared prepared;
    std::unique_ptr<engine::SimulationController> next;
    try {
        prepared = prepare(std::move(model));
        if (!copyRunningStates(*prepared.running, &why)) {
            return fail(why);
        }
        prepared.running->setStepsElapsed(step);
        next = makeController(std::move(prepared.running));
    } catch (const std::exception& e) {
        return fail(QString::fromStdString(e.what()));
    }

    m_controller = std::move(next);  // joins the old worker
    m_plotModel = std::move(prepared.plot);
    m_probePaths = std::move(prepared.probePaths);
    const double dt = m_plotModel->timeStep();
    const bool newTimeBase = dt != m_dt;
    m_dt = dt;
    adoptTracks(std::move(prepared.spikeTracks), newTimeBase);
    m_currentStep = step;
    if (m_activations) {
        // The hooks went with the old model: put them on the new one before it steps, so that
        // no step goes unseen.
        static_cast<void>(m_controller->observeModel([this](engine::Module& running) {
            m_activations.reset();
            if (engine::Module* module = moduleAt(running, m_activationsPath)) {
                m_activations = std::make_unique<engine::ActivationMonitor>(*module);
            }
        }));
    }
    if (wasRunning) {
        m_controller->run();
    }
    Q_EMIT updated();
    return true;
}

}  // namespace spike::ui
