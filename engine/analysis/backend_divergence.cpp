// Backend divergence: two copies, two executors, one step at a time, compared after each step.
// See backend_divergence.hpp.
#include "engine/analysis/backend_divergence.hpp"

#include "engine/io/model_clone.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <memory>

namespace spike::engine {

namespace {

/// |a - b|, with equal non-finite values counting 0 and a non-finite against another value +inf.
double absDifference(float a, float b)
{
    if (std::isfinite(a) && std::isfinite(b)) {
        return std::fabs(static_cast<double>(a) - static_cast<double>(b));
    }
    const bool same = (std::isnan(a) && std::isnan(b)) || a == b;
    return same ? 0.0 : std::numeric_limits<double>::infinity();
}

/// Throws Error when `side` cannot run here.
void checkSide(const DivergenceSide& side, const char* name)
{
    const std::string prefix = std::string("side ") + name + " (" + side.label() + "): ";
    if (side.backend == BackendKind::Auto) {
        throw Error(prefix + "name the backend (cpu, cpu:THREADS or cuda), not auto");
    }
    if (side.backend == BackendKind::Cpu && side.threads < 1) {
        throw Error(prefix + "CPU threads must be at least 1 (got " +
                    std::to_string(side.threads) + ")");
    }
    std::string why;
    if (!backendAvailable(side.backend, &why)) {
        throw Error(prefix + toString(side.backend) + " is not available here: " + why);
    }
}

/// One compared State: the module on each side and the attribute's name.
struct ComparedState {
    const Module* a = nullptr;
    const Module* b = nullptr;
    std::string name;
};

/// Every numeric, non-derived State attribute of `a`'s tree, paired with `b`'s same module.
std::vector<ComparedState> comparedStates(const Module& a, const Module& b, std::vector<std::string>& names)
{
    std::vector<ComparedState> out;
    for (const auto& [path, module] : a.namedModules()) {
        for (const AttributeView& view : module->attributes()) {
            if (view.spec->kind != AttributeKind::State || view.derived ||
                !std::holds_alternative<Tensor>(*view.value)) {
                continue;
            }
            const Module& other = b.getSubmodule(path);
            if (other.tensor(view.spec->name).numel() != std::get<Tensor>(*view.value).numel()) {
                throw Error("state " + (path.empty() ? "" : path + ".") + view.spec->name +
                            ": side B's copy has another size (the perturbation changed a shape?)");
            }
            out.push_back({module, &other, view.spec->name});
            names.push_back(path.empty() ? view.spec->name : path + "." + view.spec->name);
        }
    }
    return out;
}

std::unique_ptr<Executor> executorFor(Module& root, const DivergenceSide& side,
                                      const DivergenceOptions& options)
{
    ExecutorOptions executor;
    executor.maxChunkSteps = 1;
    executor.threads = side.threads;
    executor.threadMinWork = options.threadMinWork;
    return makeExecutor(root, side.backend, executor);
}

}  // namespace

std::string DivergenceSide::label() const
{
    if (backend == BackendKind::Cpu && threads != 1) {
        return "cpu:" + std::to_string(threads);
    }
    return toString(backend);
}

DivergenceSide parseDivergenceSide(const std::string& text)
{
    const std::string forms = " (use cpu, cpu:THREADS or cuda)";
    DivergenceSide side;
    if (text == "cpu") {
        return side;
    }
    if (text == "cuda") {
        side.backend = BackendKind::Cuda;
        return side;
    }
    if (text.rfind("cpu:", 0) == 0) {
        const std::string count = text.substr(4);
        int threads = 0;
        const auto r = std::from_chars(count.data(), count.data() + count.size(), threads);
        if (count.empty() || r.ec != std::errc() || r.ptr != count.data() + count.size() || threads < 1) {
            throw Error("backend '" + text + "': thread count '" + count +
                        "' is not a whole number >= 1" + forms);
        }
        side.threads = threads;
        return side;
    }
    throw Error("backend '" + text + "' is not known" + forms);
}

Divergence backendDivergence(const Module& model, const DivergenceOptions& options)
{
    if (options.steps < 1 || options.steps > kDivergenceMaxSteps) {
        throw Error("steps must be between 1 and " + std::to_string(kDivergenceMaxSteps) +
                    " (got " + std::to_string(options.steps) + ")");
    }
    if (!std::isfinite(options.input)) {
        throw Error("input must be a finite number");
    }
    checkSide(options.a, "A");
    checkSide(options.b, "B");

    const std::unique_ptr<Module> a = cloneModule(model);
    const std::unique_ptr<Module> b = cloneModule(model);
    if (!options.perturbB.empty()) {
        if (const Status s = b->setAttributes(options.perturbB); !s) {
            throw Error("perturbation of side B: " + s.message);
        }
    }
    Divergence result;
    const std::vector<ComparedState> states = comparedStates(*a, *b, result.states);
    if (states.empty()) {
        throw Error("the model has no State attribute to compare (" + model.className() +
                    " keeps no state between steps)");
    }
    result.sideA = options.a.label();
    result.sideB = options.b.label();
    result.dt = model.timeStep();

    std::unique_ptr<Executor> ea;
    std::unique_ptr<Executor> eb;
    try {
        ea = executorFor(*a, options.a, options);
    } catch (const Error& e) {
        throw Error("side A (" + result.sideA + "): " + e.what());
    }
    try {
        eb = executorFor(*b, options.b, options);
    } catch (const Error& e) {
        throw Error("side B (" + result.sideB + "): " + e.what());
    }

    // The whole output of every spiking module, on both sides (the same plan on each).
    std::vector<ProbeRequest> probes;
    for (const PlanNode& node : ea->plan().nodes) {
        if (node.role == PlanNode::Role::Module && node.module->spikingOutput()) {
            probes.push_back({node.path, "out", {}});
            result.spikingPaths.push_back(node.path);
        }
    }
    const std::vector<ProbeInfo> infos = ea->setProbes(probes);
    eb->setProbes(probes);

    const std::int64_t nIn = a->sizeIn();
    const std::vector<float> input(static_cast<std::size_t>(nIn), static_cast<float>(options.input));
    const float* inputRow = nIn > 0 ? input.data() : nullptr;
    const auto steps = static_cast<std::size_t>(options.steps);
    result.maxAbs.assign(states.size(), std::vector<double>(steps, 0.0));
    result.overallMax.assign(states.size(), 0.0);
    const std::int64_t progressEvery = std::max<std::int64_t>(1, options.steps / 100);

    for (std::int64_t t = 0; t < options.steps; ++t) {
        ea->advance(1, inputRow, nullptr);
        eb->advance(1, inputRow, nullptr);
        ea->storeStates();
        eb->storeStates();
        for (std::size_t s = 0; s < states.size(); ++s) {
            const Tensor& va = states[s].a->tensor(states[s].name);
            const Tensor& vb = states[s].b->tensor(states[s].name);
            const float* pa = va.data();
            const float* pb = vb.data();
            double worst = 0.0;
            for (std::int64_t i = 0, n = va.numel(); i < n; ++i) {
                worst = std::max(worst, absDifference(pa[i], pb[i]));
            }
            result.maxAbs[s][static_cast<std::size_t>(t)] = worst;
            result.overallMax[s] = std::max(result.overallMax[s], worst);
        }
        for (std::size_t k = 0; k < probes.size() && !result.firstSpikeDifference; ++k) {
            const float* ra = ea->probeData(k);
            const float* rb = eb->probeData(k);
            for (std::int64_t i = 0; i < infos[k].width; ++i) {
                if (ra[i] != rb[i]) {
                    result.firstSpikeDifference = SpikeDifference{t, probes[k].path, i, ra[i], rb[i]};
                    break;
                }
            }
        }
        result.steps = t + 1;
        if (options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed)) {
            throw DivergenceCancelled();
        }
        if (options.progress && ((t + 1) % progressEvery == 0 || t + 1 == options.steps)) {
            options.progress(static_cast<double>(t + 1) / static_cast<double>(options.steps));
        }
    }
    return result;
}

NestedAttributes parsePerturbation(const Module& model, const std::string& text)
{
    const std::size_t eq = text.find('=');
    if (eq == std::string::npos) {
        throw Error("--set '" + text + "': expected PATH.NAME=VALUE or PATH.NAME[INDEX]=VALUE");
    }
    std::string target = text.substr(0, eq);
    const std::string valueText = text.substr(eq + 1);
    double value = 0.0;
    const auto r = std::from_chars(valueText.data(), valueText.data() + valueText.size(), value);
    if (valueText.empty() || r.ec != std::errc() || r.ptr != valueText.data() + valueText.size() ||
        !std::isfinite(value)) {
        throw Error("--set '" + text + "': value '" + valueText + "' is not a finite number");
    }
    std::optional<std::int64_t> index;
    if (const std::size_t open = target.find('['); open != std::string::npos) {
        const std::size_t close = target.find(']', open);
        const std::string digits = close == std::string::npos ? "" : target.substr(open + 1, close - open - 1);
        std::int64_t i = 0;
        const auto ri = std::from_chars(digits.data(), digits.data() + digits.size(), i);
        if (close != target.size() - 1 || digits.empty() || ri.ec != std::errc() ||
            ri.ptr != digits.data() + digits.size() || i < 0) {
            throw Error("--set '" + text + "': index '" + target.substr(open) +
                        "' is not [N] with a whole number N >= 0 at the end of the name");
        }
        index = i;
        target.resize(open);
    }
    const std::size_t dot = target.rfind('.');
    const std::string path = dot == std::string::npos ? std::string() : target.substr(0, dot);
    const std::string name = dot == std::string::npos ? target : target.substr(dot + 1);
    const Module* module = nullptr;
    try {
        module = &model.getSubmodule(path);
    } catch (const Error& e) {
        throw Error("--set '" + text + "': " + e.what());
    }
    if (!module->hasAttribute(name)) {
        throw Error("--set '" + text + "': " + (path.empty() ? "the root" : "module " + path) +
                    " (" + module->className() + ") has no attribute '" + name + "'");
    }
    const AttributeValue& current = module->attribute(name);
    if (!std::holds_alternative<Tensor>(current)) {
        throw Error("--set '" + text + "': attribute '" + name + "' is not numeric");
    }
    Tensor changed = std::get<Tensor>(current);
    if (!index) {
        std::fill_n(changed.data(), changed.numel(), static_cast<float>(value));
    } else if (*index >= changed.numel()) {
        throw Error("--set '" + text + "': index " + std::to_string(*index) + " is out of range (" +
                    name + " has " + std::to_string(changed.numel()) + " element" +
                    (changed.numel() == 1 ? ")" : "s)"));
    } else {
        changed.data()[*index] = static_cast<float>(value);
    }
    return NestedAttributes{{path, AttributeMap{{name, changed}}}};
}

}  // namespace spike::engine
