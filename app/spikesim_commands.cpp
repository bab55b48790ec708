// spikesim info / run. See spikesim_commands.hpp.
#include "app/spikesim_commands.hpp"

#include "engine/io/model_io.hpp"
#include "engine/nir/nir_import.hpp"
#include "engine/io/module_factory.hpp"
#include "engine/network/network.hpp"
#include "engine/network/probeable_tree.hpp"
#include "engine/neurons/equation_neuron.hpp"
#include "engine/tensor/npy.hpp"
#include "engine/tensor/npz.hpp"

#include <chrono>
#include <filesystem>
#include <iomanip>
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace spike::app {

using engine::AttributeKind;
using engine::Error;
using engine::Module;
using engine::Shape;
using engine::Tensor;

namespace {

std::string shapeText(const Module& m)
{
    std::ostringstream os;
    const auto& s = m.shape();
    os << "(" << s.front();
    if (s.size() > 1) {
        os << ", " << s.back();
    }
    os << (s.size() == 1 ? ",)" : ")");
    return os.str();
}

std::string kindTitle(AttributeKind kind)
{
    switch (kind) {
    case AttributeKind::Parameter: return "Parameters";
    case AttributeKind::SimulationParameter: return "Simulation parameters";
    case AttributeKind::State: return "States";
    }
    return "";
}

void describeAttributes(const Module& m, std::ostringstream& os)
{
    const auto views = m.attributes();
    for (const AttributeKind kind : {AttributeKind::Parameter, AttributeKind::SimulationParameter,
                                     AttributeKind::State}) {
        std::map<std::string, std::vector<engine::AttributeView>> byFamily;
        for (const auto& v : views) {
            if (v.spec->kind == kind && !v.derived) {
                byFamily[v.spec->family].push_back(v);
            }
        }
        if (byFamily.empty()) {
            continue;
        }
        os << "    " << kindTitle(kind) << "\n";
        for (const auto& [family, list] : byFamily) {
            os << "      [" << (family.empty() ? "-" : family) << "]\n";
            for (const auto& v : list) {
                std::string shape;
                if (const auto* t = std::get_if<Tensor>(v.value)) {
                    shape = t->shape().toString();
                } else {
                    shape = "enum";
                }
                os << "        " << std::left << std::setw(18) << v.spec->name << std::setw(10)
                   << shape << std::setw(5) << (v.spec->units.empty() ? "" : v.spec->units)
                   << " = " << engine::describeValue(*v.value);
                if (!v.spec->liveEditable) {
                    os << "  (rebuild to change)";
                }
                os << "\n";
            }
        }
    }
    std::string derived;
    for (const auto& v : views) {
        if (v.derived) {
            derived += (derived.empty() ? "" : ", ") + v.spec->name + " " +
                       engine::describeValue(*v.value);
        }
    }
    if (!derived.empty()) {
        os << "    Derived (read-only in this mode): " << derived << "\n";
    }
    const auto signals = m.recordableSignals();
    if (!signals.empty()) {
        std::string list;
        for (const auto& s : signals) {
            list += (list.empty() ? "" : ", ") + s;
        }
        os << "    Recordable: " << list << "\n";
    }
}

/// A model written as equations: its text as written (comment-only lines left out), the method
/// in use and the ports.
void describeEquations(const Module& m, std::ostringstream& os)
{
    const auto* eq = dynamic_cast<const engine::EquationNeuron*>(&m);
    if (eq == nullptr) {
        return;
    }
    os << "    Equations (method " << eq->method() << "):\n";
    std::istringstream lines(eq->text());
    for (std::string line; std::getline(lines, line);) {
        const auto first = line.find_first_not_of(" \t");
        if (first != std::string::npos && line[first] != '#') {
            os << "      " << line.substr(first) << "\n";
        }
    }
    std::string ports;
    for (const auto& p : m.inputPorts()) {
        ports += (ports.empty() ? "" : ", ") + p.name + (p.spiking ? " (adds to the state)" : " (held for the step)");
    }
    os << "    Input ports: " << ports << "\n";
}

/// The module's constructor settings (ModuleTypeInfo::settings) with their values and bounds:
/// "    Settings: neurons = 100 in [1, 100000000] (size), has_rec = false (true/false)".
void describeSettings(const Module& m, std::ostringstream& os)
{
    const engine::ModuleTypeInfo* info = engine::findModuleType(m.className());
    if (info == nullptr || info->settings.empty()) {
        return;
    }
    const nlohmann::json config = m.config();
    os << "    Settings:";
    const char* separator = " ";
    for (const engine::ConfigSetting& s : info->settings) {
        const nlohmann::json v = s.get(config);
        os << separator << s.name << " = " << (v.is_string() ? v.get<std::string>() : v.dump());
        switch (s.kind) {
        case engine::SettingKind::Integer:
            os << " in [" << s.min << ", " << s.max << "]";
            break;
        case engine::SettingKind::Boolean:
            os << " (true/false)";
            break;
        case engine::SettingKind::Choice: {
            std::string list;
            for (const auto& c : s.choices) {
                list += (list.empty() ? "" : "/") + c;
            }
            os << " (" << list << ")";
            break;
        }
        }
        os << (s.size ? " (size)" : "");
        separator = ", ";
    }
    os << "\n";
}

/// Splits "PATH.ATTR" into (path, attr); a key without '.' names an attribute of the root.
std::pair<std::string, std::string> splitKey(const std::string& key)
{
    const auto dot = key.rfind('.');
    if (dot == std::string::npos) {
        return {"", key};
    }
    return {key.substr(0, dot), key.substr(dot + 1)};
}

/// The (T, Nin) input of an .npz archive: one (T, N) array per input port of the root, named as
/// the port (a NIR graph's Input nodes), side by side in port order; a root with one input port
/// takes an archive of one array whatever its name.
Tensor inputFromArchive(const std::string& path, const Module& root)
{
    const auto arrays = engine::npz::load(path);
    const std::vector<engine::PortSpec> ports = root.inputPorts();
    std::string held;
    for (const auto& [name, t] : arrays) {
        held += (held.empty() ? "" : ", ") + name;
    }
    std::vector<const Tensor*> chosen;
    for (const auto& port : ports) {
        const Tensor* found = nullptr;
        for (const auto& [name, t] : arrays) {
            if (name == port.name || (ports.size() == 1 && arrays.size() == 1)) {
                found = &t;
            }
        }
        if (found == nullptr) {
            throw Error(path + ": no array '" + port.name + "' for the model's input '" + port.name +
                        "' (the archive holds: " + (held.empty() ? std::string("nothing") : held) + ")");
        }
        if (found->rank() != 2 || found->dim(1) != port.size) {
            throw Error(path + ": array '" + port.name + "' has shape " + found->shape().toString() +
                        "; expected (T, " + std::to_string(port.size) + ")");
        }
        if (!chosen.empty() && found->dim(0) != chosen.front()->dim(0)) {
            throw Error(path + ": array '" + port.name + "' has " + std::to_string(found->dim(0)) +
                        " steps, the others " + std::to_string(chosen.front()->dim(0)));
        }
        chosen.push_back(found);
    }
    if (arrays.size() > chosen.size()) {
        throw Error(path + ": holds " + std::to_string(arrays.size()) + " arrays (" + held +
                    ") for the model's " + std::to_string(ports.size()) + " input(s)");
    }
    if (chosen.empty()) {
        throw Error(path + ": the model takes no input");
    }
    const std::int64_t steps = chosen.front()->dim(0);
    Tensor rows(Shape{steps, root.sizeIn()});
    for (std::int64_t t = 0; t < steps; ++t) {
        float* row = rows.data() + t * root.sizeIn();
        for (std::size_t k = 0; k < chosen.size(); ++k) {
            const std::int64_t width = ports[k].size;
            std::copy(chosen[k]->data() + t * width, chosen[k]->data() + (t + 1) * width,
                      row + ports[k].offset);
        }
    }
    return rows;
}

}  // namespace

std::string describeModel(const std::string& modelPath, const engine::nir::NirImportOptions& nir)
{
    std::vector<std::string> notes;
    const auto root = engine::nir::loadAnyModel(modelPath, nir, &notes);
    std::ostringstream os;
    os << "Model " << modelPath << "\n";
    if (engine::nir::isNirPath(modelPath)) {
        os << "NIR graph, discretised with dt " << nir.dt << " s, " << nir.discretisation
           << (nir.timeUnit == "steps" ? ", time constants read in steps of dt" : "") << "\n";
        for (const auto& note : notes) {
            os << "note: " << note << "\n";
        }
    }
    if (const std::string conflict = root->timeStepConflict(); !conflict.empty()) {
        os << "warning: " << conflict << "; " << engine::Module::kTimeStepAdvice << "\n";
    }
    std::int64_t parameterCount = 0;
    for (const auto& [key, t] : root->namedParameters()) {
        parameterCount += t.numel();
    }
    for (const auto& [path, m] : root->namedModules()) {
        os << (path.empty() ? "(root)" : path) << "  " << m->className() << "  shape "
           << shapeText(*m) << "  in: " << (m->spikingInput() ? "spikes" : "continuous")
           << "  out: " << (m->spikingOutput() ? "spikes" : "continuous") << "\n";
        describeSettings(*m, os);
        describeEquations(*m, os);
        describeAttributes(*m, os);
        // Summary statistics of the module's current values (the Inspector's Statistics group).
        const auto statistics = m->statistics();
        if (!statistics.empty()) {
            os << "    Statistics\n";
            for (const auto& st : statistics) {
                os << "      " << st.name << " = " << std::setprecision(9) << st.value
                   << std::setprecision(6) << "  (" << st.description << ")\n";
            }
        }
        if (const auto* net = dynamic_cast<const engine::Network*>(m)) {
            for (const auto& c : net->connections()) {
                os << "    connection " << c.name << ": " << c.from.toString() << " -> "
                   << c.to.toString();
                if (c.hasProjection) {
                    os << " via " << net->projection(c.name)->className();
                }
                os << (c.delayed ? " (delayed 1 step)" : "") << "\n";
            }
        }
    }
    os << "Parameters: " << parameterCount << " values\n";
    return os.str();
}

int runModel(const RunOptions& options, std::ostream& out, std::ostream& err)
{
    namespace fs = std::filesystem;
    std::vector<std::string> notes;
    auto root = engine::nir::loadAnyModel(options.model, options.nir, &notes);
    for (const auto& note : notes) {
        err << "spikesim: note: " << note << "\n";
    }

    if (!options.stateDict.empty()) {
        const auto dict = engine::loadStateDictFolder(options.stateDict);
        const auto result = root->loadStateDict(dict, true);
        if (!result.status.ok) {
            throw Error(options.stateDict + ": " + result.status.message);
        }
    }
    if (options.seed >= 0) {
        engine::NestedAttributes seeds = root->attributesNamed("seed");
        for (auto& [path, attrs] : seeds) {
            attrs["seed"] = Tensor::scalar(static_cast<float>(options.seed));
        }
        if (engine::Status s = root->setAttributes(seeds); !s.ok) {
            throw Error("--seed: " + s.message);
        }
        root->resetState();
    }

    // Input: (T, Nin) or (B, T, Nin) from a file, or zeros.
    Tensor input;
    const std::int64_t nIn = root->sizeIn();
    if (!options.input.empty()) {
        input = fs::path(options.input).extension() == ".npz"
                    ? inputFromArchive(options.input, *root)
                    : engine::npy::load(options.input);
        if ((input.rank() != 2 && input.rank() != 3) || input.dim(input.rank() - 1) != nIn) {
            throw Error(options.input + ": input shape " + input.shape().toString() +
                        " does not fit the model; expected (T, " + std::to_string(nIn) +
                        ") or (B, T, " + std::to_string(nIn) + ")");
        }
    } else {
        if (options.steps <= 0) {
            throw Error("--steps is required when no --input is given");
        }
        input = Tensor(Shape{options.steps, nIn});
    }
    const bool batched = input.rank() == 3;
    const bool executorPath = dynamic_cast<const engine::Network*>(root.get()) != nullptr ||
                              options.backendGiven || options.threadsGiven ||
                              options.realtime > 0.0;
    if (executorPath) {
        if (batched && input.dim(0) != 1) {
            throw Error(options.input + ": batched input " + input.shape().toString() +
                        " runs only through Module::evolve on the CPU; give (T, " +
                        std::to_string(nIn) + ") with --backend or --realtime");
        }
        const Tensor rows = batched ? Tensor(input.shape().withoutFirst(),
                                             std::vector<float>(input.data(), input.data() + input.numel()))
                                    : input;
        const std::int64_t available = rows.dim(0);
        const std::int64_t steps = options.steps > 0 ? options.steps : available;
        if (steps > available) {
            throw Error(options.input + ": has " + std::to_string(available) +
                        " time steps, fewer than --steps " + std::to_string(steps));
        }
        // As the GUI runs it: a chained Sequential becomes a Network, so every layer is a plan
        // node whose signals --record can name ("0.spikes").
        root = engine::asProbeableTree(std::move(root));
        runOnExecutor(*root, options, rows, steps, options.record, out, err);
        return 0;
    }
    const std::int64_t batches = batched ? input.dim(0) : 1;
    const std::int64_t available = input.dim(batched ? 1 : 0);
    const std::int64_t steps = options.steps > 0 ? options.steps : available;
    if (steps > available) {
        throw Error(options.input + ": has " + std::to_string(available) +
                    " time steps, fewer than --steps " + std::to_string(steps));
    }
    if (steps == 0 || batches == 0) {
        throw Error(options.input + ": input " + input.shape().toString() + " is empty");
    }

    // Recording requests are checked before anything runs.
    std::set<std::string> keys;
    for (const auto& key : options.record) {
        const auto [path, attr] = splitKey(key);
        Module* m = nullptr;
        try {
            m = &root->getSubmodule(path);
        } catch (const Error& e) {
            throw Error("--record " + key + ": " + e.what());
        }
        const auto signals = m->recordableSignals();
        if (std::find(signals.begin(), signals.end(), attr) == signals.end()) {
            std::string list;
            for (const auto& s : signals) {
                list += (list.empty() ? "" : ", ") + s;
            }
            throw Error("--record " + key + ": " + m->className() + " '" + path +
                        "' cannot record '" + attr + "' (recordable: " +
                        (list.empty() ? std::string("nothing") : list) + ")");
        }
        keys.insert(key);
    }
    if (!keys.empty() && options.outDir.empty()) {
        throw Error("--record needs --out DIR to write the recordings to");
    }

    // Count spikes and neurons of every spiking neuron layer through forward hooks.
    double spikeCount = 0.0;
    std::int64_t neurons = 0;
    std::vector<engine::HookHandle> hooks;
    for (const auto& [path, m] : root->namedModules()) {
        // Neurons: spiking leaves that take input (stimulus sources have none).
        if (m->childCount() == 0 && m->spikingOutput() && m->sizeIn() > 0) {
            neurons += m->sizeOut();
            hooks.push_back(m->registerForwardHook(
                [&spikeCount](Module&, const Tensor&, const Tensor& output) -> std::optional<Tensor> {
                    spikeCount += output.flat().cast<double>().sum();
                    return std::nullopt;
                }));
        }
    }

    // Batch elements run one after another from the same initial state, in chunks when
    // progress is shown; results equal one evolve() over (B, T, Nin).
    const engine::NestedAttributes initialState = root->state();
    const std::int64_t initialSteps = root->stepsElapsed();
    std::map<std::string, std::vector<float>> recorded;
    std::map<std::string, Shape> sampleShape;
    const std::int64_t chunk = options.progress ? std::max<std::int64_t>(1, steps / 100) : steps;
    const engine::RecordSpec spec(keys);
    double seconds = 0.0;
    for (std::int64_t b = 0; b < batches; ++b) {
        if (b > 0) {
            if (engine::Status s = root->setAttributes(initialState); !s.ok) {
                throw Error(s.message);
            }
            root->setStepsElapsed(initialSteps);
        }
        const float* base = input.data() + b * available * nIn;
        for (std::int64_t t0 = 0; t0 < steps; t0 += chunk) {
            const std::int64_t len = std::min(chunk, steps - t0);
            Tensor piece(Shape{len, nIn});
            std::copy(base + t0 * nIn, base + (t0 + len) * nIn, piece.data());
            const auto start = std::chrono::steady_clock::now();
            auto result = root->evolve(piece, spec);
            seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            for (const auto& [key, series] : engine::flatten(result.record)) {
                auto& buffer = recorded[key];
                buffer.insert(buffer.end(), series->data.data(),
                              series->data.data() + series->data.numel());
                sampleShape[key] = series->data.shape().withoutFirst();
            }
            if (options.progress) {
                const std::int64_t done = b * steps + t0 + len;
                err << "\rspikesim: step " << done << " / " << batches * steps << " ("
                    << (100 * done) / (batches * steps) << "%)" << std::flush;
            }
        }
    }
    if (options.progress) {
        err << "\n";
    }

    if (!keys.empty()) {
        std::error_code ec;
        fs::create_directories(options.outDir, ec);
        if (ec) {
            throw Error(options.outDir + ": cannot create folder: " + ec.message());
        }
        for (const auto& key : keys) {
            std::vector<std::int64_t> dims;
            if (batched) {
                dims.push_back(batches);
            }
            dims.push_back(steps);
            for (const auto d : sampleShape.at(key).dims()) {
                dims.push_back(d);
            }
            const Tensor data(Shape(dims), recorded.at(key));
            engine::npy::save((fs::path(options.outDir) / (key + ".npy")).string(), data);
        }
    }

    const double neuronSteps = static_cast<double>(neurons) * static_cast<double>(steps) *
                               static_cast<double>(batches);
    out << "steps " << steps << ", batch " << batches << ", neurons " << neurons << ", wall "
        << std::fixed << std::setprecision(4) << seconds << " s, " << std::scientific
        << std::setprecision(3) << (seconds > 0.0 ? neuronSteps / seconds : 0.0)
        << " neuron-steps/s, spikes " << std::fixed << std::setprecision(0) << spikeCount
        << "\n";
    return 0;
}

}  // namespace spike::app
