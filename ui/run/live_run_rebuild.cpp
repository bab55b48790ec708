// LiveRun's model side: turning a model into what a controller runs (a structural copy for the
// plots, a root Sequential rewired as a chain Network, the plan's probeable paths and spike
// tracks) and replaceModel(), the structural rebuild that continues the run: states copied from
// the running copy, time continued, tracks moved over to the new controller. See live_run.hpp.
// GUI thread only; the running copy is read on the worker through the controller's readModel().
#include "ui/run/live_run.hpp"

#include "engine/tensor/error.hpp"
#include "engine/runtime/execution_plan.hpp"
#include "engine/io/model_io.hpp"
#include "engine/network/network.hpp"
#include "engine/layers/sequential.hpp"

#include <algorithm>
#include <exception>
#include <map>
#include <utility>

namespace spike::ui {

namespace {

/// How long replaceModel() waits for the worker to pause (a chunk is milliseconds).
constexpr auto kPauseWait = std::chrono::seconds(60);


/// Whether `port` is the module's only port on that side and covers all `size` channels.
bool onlyPortCovers(const std::vector<engine::PortSpec>& ports, std::int64_t size)
{
    return ports.size() == 1 && ports.front().offset == 0 && ports.front().size == size;
}

/// Whether a Sequential's chain can be wired as a Network node for node: names free for a
/// Network, and one whole port on each side that is joined.
bool chainable(const engine::Module& sequential)
{
    const auto children = sequential.namedChildren();
    if (children.empty()) {
        return false;
    }
    for (std::size_t i = 0; i < children.size(); ++i) {
        const auto& [name, child] = children[i];
        if (name == "in" || name == "out") {
            return false;
        }
        const bool fedIn = i > 0 || child->sizeIn() > 0;
        const bool feedsOut = i + 1 < children.size() || child->sizeOut() > 0;
        if ((fedIn && !onlyPortCovers(child->inputPorts(), child->sizeIn())) ||
            (feedsOut && !onlyPortCovers(child->outputPorts(), child->sizeOut()))) {
            return false;
        }
    }
    return true;
}

/// `module`, or when it is a chainable Sequential, the Network that wires its children (moved
/// over, names and states kept, nested Sequentials likewise) in a chain from "in" to "out".
/// compilePlan() treats a Sequential as one leaf; as a Network every layer is a plan node of
/// its own, which the controller can probe, and the chain computes the same thing.
std::unique_ptr<engine::Module> asProbeableTree(std::unique_ptr<engine::Module> module)
{
    auto* sequential = dynamic_cast<engine::Sequential*>(module.get());
    if (sequential == nullptr || !chainable(*sequential)) {
        return module;
    }
    auto network = std::make_unique<engine::Network>(sequential->sizeIn(), sequential->sizeOut());
    std::string previous = sequential->sizeIn() > 0 ? "in" : "";
    for (const auto& [name, child] : sequential->namedChildren()) {
        std::unique_ptr<engine::Module> moved = sequential->removeModule(name);
        const bool hasInput = moved->sizeIn() > 0;
        network->addNode(name, asProbeableTree(std::move(moved)));
        if (!previous.empty() && hasInput) {
            network->connect(previous, name);
        }
        previous = name;
    }
    if (network->sizeOut() > 0) {
        network->connect(previous, "out");
    }
    network->setStepsElapsed(sequential->stepsElapsed());
    return network;
}

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

/// Copies the States of `from` into `to` (same class assumed) where name, kind and shape agree.
void copyStates(const engine::Module& from, engine::Module& to)
{
    engine::AttributeMap states;
    for (const engine::AttributeView& view : to.attributes()) {
        const std::string& name = view.spec->name;
        if (view.spec->kind != engine::AttributeKind::State || view.derived ||
            !from.hasAttribute(name) || from.isDerived(name) ||
            from.spec(name).kind != engine::AttributeKind::State) {
            continue;
        }
        const engine::AttributeValue& value = from.attribute(name);
        if (value.index() != view.value->index()) {
            continue;
        }
        const auto* tensor = std::get_if<engine::Tensor>(&value);
        if (tensor != nullptr && !(tensor->shape() == std::get<engine::Tensor>(*view.value).shape())) {
            continue;
        }
        states.emplace(name, value);
    }
    if (states.empty() || to.setAttributes(engine::NestedAttributes{{"", states}}).ok) {
        return;
    }
    for (const auto& [name, value] : states) {
        (void)to.setAttribute(name, value);  // a value the new module refuses keeps its own
    }
}

/// Copies what the delayed connections of `from` carry into the same-named delayed
/// connections of `to` (the executor ignores a value of the wrong size).
void copyDelayedValues(const engine::Network& from, engine::Network& to)
{
    for (const engine::Connection& connection : to.connections()) {
        if (!connection.delayed) {
            continue;
        }
        if (const std::vector<float>* value = from.delayedValue(connection.name)) {
            to.setDelayedValue(connection.name, *value);
        }
    }
}

}  // namespace

LiveRun::Prepared LiveRun::prepare(std::unique_ptr<engine::Module> model)
{
    Prepared out;
    engine::SaveOptions inlineAll;
    inlineAll.inlineLimit = -1;
    out.plotJson = engine::modelToJson(*model, inlineAll);
    out.running = asProbeableTree(std::move(model));
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
            track.spikeWindow = std::make_unique<SpikeWindow>(track.width);
            out.spikeTracks.push_back(std::move(track));
        }
    }
    return out;
}

std::unique_ptr<engine::Module> LiveRun::plotCopy(const nlohmann::json& plotJson)
{
    return engine::modelFromJson(plotJson, "live run", ".").root;
}

std::unique_ptr<engine::SimulationController> LiveRun::makeController(
    std::unique_ptr<engine::Module> running) const
{
    engine::ControllerOptions controllerOptions;
    controllerOptions.backend = m_options.backend;
    controllerOptions.speed = m_options.speed;
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
    const engine::Status status = m_controller->readModel([&next](const engine::Module& running) {
        std::map<std::string, const engine::Module*> byPath;
        for (const auto& [path, module] : running.namedModules()) {
            byPath.emplace(path, module);
        }
        for (const auto& [path, module] : next.namedModules()) {
            const auto found = byPath.find(path);
            if (found == byPath.end() || found->second->className() != module->className()) {
                continue;
            }
            copyStates(*found->second, *module);
            const auto* fromNetwork = dynamic_cast<const engine::Network*>(found->second);
            auto* toNetwork = dynamic_cast<engine::Network*>(module);
            if (fromNetwork != nullptr && toNetwork != nullptr) {
                copyDelayedValues(*fromNetwork, *toNetwork);
            }
        }
    });
    if (!status.ok) {
        *error = QString::fromStdString(status.message);
    }
    return status.ok;
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
    std::unique_ptr<engine::Module> plot;
    try {
        prepared = prepare(std::move(model));
        if (!copyRunningStates(*prepared.running, &why)) {
            return fail(why);
        }
        prepared.running->setStepsElapsed(step);
        next = makeController(std::move(prepared.running));
        plot = plotCopy(prepared.plotJson);
    } catch (const std::exception& e) {
        return fail(QString::fromStdString(e.what()));
    }

    m_controller = std::move(next);  // joins the old worker
    m_plotModel = std::move(plot);
    m_probePaths = std::move(prepared.probePaths);
    const double dt = m_plotModel->timeStep();
    const bool newTimeBase = dt != m_dt;
    m_dt = dt;
    adoptTracks(std::move(prepared.spikeTracks), newTimeBase);
    m_currentStep = step;
    if (wasRunning) {
        m_controller->run();
    }
    Q_EMIT updated();
    return true;
}

}  // namespace spike::ui
