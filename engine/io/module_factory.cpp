// The list of module types: the spiking models, containers, sources and projections with their
// config readers here, the layers and activations in layer_types.cpp. Adding a module type to the
// engine means adding its config reader and one entry of the table, and for a model with
// dynamics its equations for users (ModelEquations, below the config readers).
#include "engine/io/module_factory.hpp"

#include "engine/io/factory_detail.hpp"

#include "engine/neurons/cuba_lif.hpp"
#include "engine/neurons/equation_neuron.hpp"
#include "engine/composites/dynamics_network.hpp"
#include "engine/neurons/lif.hpp"
#include "engine/neurons/lif_refrac.hpp"
#include "engine/composites/mlp.hpp"
#include "engine/layers/module_list.hpp"
#include "engine/network/network.hpp"
#include "engine/network/projections.hpp"
#include "engine/composites/resblock.hpp"
#include "engine/layers/sequential.hpp"
#include "engine/sources/sources.hpp"

#include <algorithm>
#include <cmath>

namespace spike::engine {

using io_detail::configBool;
using io_detail::configInt;
using io_detail::kMaxNeurons;
using io_detail::rejectUnknownKeys;
using io_detail::requireObject;

namespace {

std::unique_ptr<Module> createLif(const nlohmann::json& config)
{
    requireObject(config);
    rejectUnknownKeys(config, {"shape", "has_rec"});
    if (!config.contains("shape")) {
        throw Error("config 'shape': missing; expected [Nin, Nout] or [N]");
    }
    const auto& shape = config.at("shape");
    if (!shape.is_array() || shape.empty() || shape.size() > 2) {
        throw Error("config 'shape': expected [Nin, Nout] or [N], got " + shape.dump());
    }
    nlohmann::json dims = {{"Nin", shape.front()}, {"Nout", shape.back()}};
    const std::int64_t nIn = configInt(dims, "Nin", 1, kMaxNeurons);
    const std::int64_t nOut = configInt(dims, "Nout", 1, kMaxNeurons);
    bool hasRec = false;
    if (config.contains("has_rec")) {
        if (!config.at("has_rec").is_boolean()) {
            throw Error("config 'has_rec': expected true or false, got " + config.at("has_rec").dump());
        }
        hasRec = config.at("has_rec").get<bool>();
    }
    if (nIn % nOut != 0) {  // the constructor's own check and message, before anything is built
        throw Error("LIF: shape (" + std::to_string(nIn) + ", " + std::to_string(nOut) +
                    ") is invalid; Nin must be a positive multiple of Nout (Nin = Nout * n_synapses)");
    }
    if (hasRec && nOut * nIn > Tensor::kMaxElements) {
        throw Error("config 'shape': a recurrent layer of shape (" + std::to_string(nIn) + ", " +
                    std::to_string(nOut) + ") needs a weight matrix larger than the tensor limit");
    }
    return io_detail::buildUnlessChecking<LIF>(nIn, nOut, hasRec);
}

std::unique_ptr<Module> createLifRefrac(const nlohmann::json& config)
{
    requireObject(config);
    rejectUnknownKeys(config, {"shape"});
    if (!config.contains("shape")) {
        throw Error("config 'shape': missing; expected [N] or [N, N]");
    }
    const auto& shape = config.at("shape");
    if (!shape.is_array() || shape.empty() || shape.size() > 2) {
        throw Error("config 'shape': expected [N] or [N, N], got " + shape.dump());
    }
    const std::int64_t n = configInt({{"N", shape.front()}}, "N", 1, kMaxNeurons);
    if (shape.back() != shape.front()) {
        throw Error("config 'shape': LIFRefrac has one input channel per neuron (Nin = Nout); "
                    "expected [N] or [N, N], got " + shape.dump());
    }
    return io_detail::buildUnlessChecking<LIFRefrac>(n);
}

std::unique_ptr<Module> createCubaLif(const nlohmann::json& config)
{
    requireObject(config);
    rejectUnknownKeys(config, {"shape"});
    if (!config.contains("shape")) {
        throw Error("config 'shape': missing; expected [N], the number of neurons");
    }
    const auto& shape = config.at("shape");
    if (!shape.is_array() || shape.size() != 1) {
        throw Error("config 'shape': expected [N], the number of neurons (CUBALIF has 2N input "
                    "channels, N excitatory then N inhibitory), got " + shape.dump());
    }
    return io_detail::buildUnlessChecking<CUBALIF>(configInt({{"N", shape.front()}}, "N", 1, kMaxNeurons));
}

std::unique_ptr<Module> createModuleList(const nlohmann::json& config)
{
    requireObject(config);
    rejectUnknownKeys(config, {});
    return std::make_unique<ModuleList>();
}

/// Named boundary ports of a Network config: [{"name": "exc", "size": 800}, ...].
std::vector<BoundaryPort> configPorts(const nlohmann::json& config, const char* key)
{
    const nlohmann::json& list = config.at(key);
    if (!list.is_array()) {
        throw Error(std::string("config: '") + key + "' must be a list of {\"name\", \"size\"} objects");
    }
    std::vector<BoundaryPort> out;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const nlohmann::json& p = list[i];
        const std::string where = std::string(key) + "/" + std::to_string(i);
        if (!p.is_object() || !p.contains("name") || !p.at("name").is_string() || !p.contains("size")) {
            throw Error("config: '" + where + "' must be an object {\"name\": string, \"size\": integer}");
        }
        rejectUnknownKeys(p, {"name", "size"});
        out.push_back({p.at("name").get<std::string>(), configInt(p, "size", 1, kMaxNeurons)});
    }
    return out;
}

/// Network: config {"input_size": n, "output_size": m} (both default 0), or "input_ports" /
/// "output_ports" lists of {"name", "size"} instead of a side's size.
std::unique_ptr<Module> createNetwork(const nlohmann::json& config)
{
    requireObject(config);
    rejectUnknownKeys(config, {"input_size", "output_size", "input_ports", "output_ports"});
    for (const auto& [size, ports] : {std::pair{"input_size", "input_ports"}, {"output_size", "output_ports"}}) {
        if (config.contains(size) && config.contains(ports)) {
            throw Error(std::string("config: give either '") + size + "' or '" + ports + "', not both");
        }
    }
    if (config.contains("input_ports") || config.contains("output_ports")) {
        auto side = [&](const char* size, const char* ports) {
            if (config.contains(ports)) {
                return configPorts(config, ports);
            }
            const std::int64_t n = config.contains(size) ? configInt(config, size, 0, kMaxNeurons) : 0;
            return n == 0 ? std::vector<BoundaryPort>{}
                          : std::vector<BoundaryPort>{{size == std::string("input_size") ? "in" : "out", n}};
        };
        return std::make_unique<Network>(side("input_size", "input_ports"), side("output_size", "output_ports"));
    }
    const std::int64_t in = config.contains("input_size")
                                ? configInt(config, "input_size", 0, kMaxNeurons)
                                : 0;
    const std::int64_t out = config.contains("output_size")
                                 ? configInt(config, "output_size", 0, kMaxNeurons)
                                 : 0;
    return std::make_unique<Network>(in, out);
}

std::unique_ptr<Module> createSequential(const nlohmann::json& config)
{
    requireObject(config);
    rejectUnknownKeys(config, {});
    return std::make_unique<Sequential>();
}

/// Factory for a stimulus source: config "shape" [N] (required), N in [1, 10^8].
template <typename T>
std::unique_ptr<Module> createSource(const nlohmann::json& config)
{
    requireObject(config);
    rejectUnknownKeys(config, {"shape"});
    if (!config.contains("shape")) {
        throw Error("config 'shape': missing; expected [N], the number of channels");
    }
    const auto& shape = config.at("shape");
    if (!shape.is_array() || shape.size() != 1) {
        throw Error("config 'shape': expected [N], the number of channels, got " + shape.dump());
    }
    return io_detail::buildUnlessChecking<T>(configInt({{"N", shape.front()}}, "N", 1, kMaxNeurons));
}

/// FileSource: config "shape" [T, N] (rows, channels); the samples are its "data" attribute.
std::unique_ptr<Module> createFileSource(const nlohmann::json& config)
{
    requireObject(config);
    rejectUnknownKeys(config, {"shape"});
    if (!config.contains("shape")) {
        throw Error("config 'shape': missing; expected [T, N], the rows and channels of the data");
    }
    const auto& shape = config.at("shape");
    if (!shape.is_array() || shape.size() != 2) {
        throw Error("config 'shape': expected [T, N], the rows and channels of the data, got " +
                    shape.dump());
    }
    const std::int64_t steps = configInt({{"T", shape[0]}}, "T", 1, Tensor::kMaxElements);
    const std::int64_t n = configInt({{"N", shape[1]}}, "N", 1, kMaxNeurons);
    if (steps * n > Tensor::kMaxElements) {
        throw Error("config 'shape': (" + std::to_string(steps) + ", " + std::to_string(n) +
                    ") is larger than the tensor limit");
    }
    return io_detail::buildUnlessChecking<FileSource>(steps, n);
}

/// Projections: config "shape" [Nsrc, Ndst] (`square`: [N]), each extent in [1, 10^8].
template <typename T, bool square>
std::unique_ptr<Module> createProjection(const nlohmann::json& config)
{
    requireObject(config);
    rejectUnknownKeys(config, {"shape"});
    const char* expected = square ? "[N]" : "[Nsrc, Ndst]";
    if (!config.contains("shape")) {
        throw Error(std::string("config 'shape': missing; expected ") + expected);
    }
    const auto& shape = config.at("shape");
    if (!shape.is_array() || shape.size() != (square ? 1U : 2U)) {
        throw Error(std::string("config 'shape': expected ") + expected + ", got " + shape.dump());
    }
    const std::int64_t nSrc = configInt({{"Nsrc", shape.front()}}, "Nsrc", 1, kMaxNeurons);
    if constexpr (square) {
        return std::make_unique<T>(nSrc);
    } else {
        const std::int64_t nDst = configInt({{"Ndst", shape.back()}}, "Ndst", 1, kMaxNeurons);
        return std::make_unique<T>(nSrc, nDst);
    }
}

std::unique_ptr<Module> createDenseProjection(const nlohmann::json& config)
{
    return createProjection<DenseProjection, false>(config);
}

std::unique_ptr<Module> createOneToOneProjection(const nlohmann::json& config)
{
    return createProjection<OneToOneProjection, true>(config);
}

std::unique_ptr<Module> createSparseProjection(const nlohmann::json& config)
{
    return createProjection<SparseProjection, false>(config);
}

// ---- equations for users (ModelEquations), in Brian2's syntax ------------------------------
// Each states what the code computes (the header comment has the exact order and float32 detail).

constexpr auto kUpdate = EquationRole::Update;
constexpr auto kThreshold = EquationRole::Threshold;
constexpr auto kReset = EquationRole::Reset;
constexpr auto kEvent = EquationRole::Event;
constexpr auto kDefinition = EquationRole::Definition;

ModelEquations lifEquations()
{
    return {"Rockpool's leaky integrate-and-fire neurons, one update per time step dt: each synaptic "
            "current isyn takes in its input and decays by beta; the membrane vmem decays by alpha and "
            "adds the summed currents and the bias. A neuron spikes when vmem reaches threshold (once "
            "per threshold reached, up to max_spikes_per_dt) and loses threshold per spike.",
            {{kUpdate, "irec = spikes @ w_rec  # the spikes of the previous step", "w_rec"},
             {kUpdate, "isyn = beta * (isyn + x + irec)", "w_rec"},
             {kUpdate, "isyn = beta * (isyn + x)", "!w_rec"},
             {kUpdate, "vmem = alpha * vmem + sum(isyn) + bias + noise_std * sqrt(dt) * randn()"
                       "  # the sum runs over each neuron's synapses"},
             {kThreshold, "vmem >= threshold"},
             {kReset, "spikes = min(floor(vmem / threshold), max_spikes_per_dt)"},
             {kReset, "vmem = vmem - spikes * threshold  # subtractive reset"},
             {kDefinition, "alpha = exp(-dt / tau_mem)  # leak_mode taus (in decays, alpha and beta "
                           "are set directly)"},
             {kDefinition, "beta = exp(-dt / tau_syn)"},
             {kDefinition, "alpha = 1 - 2**(-dash_mem)  # leak_mode bitshifts; beta likewise from dash_syn"}},
            {{"x", "Input of the step, one channel per synapse", ""},
             {"irec", "Recurrent input of the step", ""}}};
}

ModelEquations lifRefracEquations()
{
    return {"Norse's leaky integrate-and-fire neurons with an absolute refractory period, one Euler "
            "step of dt per time step: the input jumps the synaptic current i, which decays and drives "
            "the membrane v towards v_leak. A neuron spikes when v exceeds v_th, is reset to v_reset "
            "and held there for rho_reset steps.",
            {{kUpdate, "i = i + x  # the input jumps the current"},
             {kUpdate, "v = v + dt * tau_mem_inv * (v_leak - v + i)  # held while refractory (rho > 0)"},
             {kUpdate, "i = i - dt * tau_syn_inv * i"},
             {kThreshold, "v > v_th  # not while refractory"},
             {kReset, "v = v_reset"},
             {kReset, "rho = rho_reset  # then one less per step; refractory while rho > 0"},
             {kDefinition, "tau_mem_inv = 1 / tau_mem  # parametrisation times; tau_syn_inv likewise"},
             {kDefinition, "rho_reset = refractory_time / dt"}},
            {{"x", "Input of the step, one channel per neuron", "V"}}};
}

ModelEquations cubaLifEquations()
{
    return {"The current-based neuron of Brian2's CUBA benchmark (Vogels & Abbott 2005): excitatory and "
            "inhibitory currents decay exponentially and drive the membrane v towards v_rest, "
            "integrated exactly over each step. A neuron spikes when v exceeds v_th, is reset to "
            "v_reset and held there for refractory_time.",
            {{kEvent, "i_exc += x_exc  # at the start of the step"},
             {kEvent, "i_inh += x_inh  # inhibitory weights are negative"},
             {kUpdate, "dv/dt = (v_rest - v + i_exc + i_inh) / tau_mem  # held while refractory"},
             {kUpdate, "di_exc/dt = -i_exc / tau_exc"},
             {kUpdate, "di_inh/dt = -i_inh / tau_inh"},
             {kThreshold, "v > v_th  # not while refractory"},
             {kReset, "v = v_reset  # held for refractory_time, counted from the spike step"},
             {kReset, "refrac = max(refractory_time / dt - 1, 0)  # steps still held after this one"}},
            {{"x_exc", "Input of the step on the exc port", "mV"},
             {"x_inh", "Input of the step on the inh port", "mV"}}};
}

/// The output y and the time t every source's equations use.
std::vector<EquationSymbol> sourceSymbols(std::vector<EquationSymbol> more = {})
{
    std::vector<EquationSymbol> all{{"y", "Output of the step, per channel", ""},
                                    {"t", "Time of the step, k · dt from the start or the last reset", "s"}};
    all.insert(all.end(), more.begin(), more.end());
    return all;
}

ModelEquations constantCurrentEquations()
{
    return {"A current that stays at amplitude, one value for all channels or one per channel.",
            {{kUpdate, "y = amplitude"}},
            sourceSymbols()};
}

ModelEquations pulseTrainEquations()
{
    return {"A current at baseline that rises by amplitude during pulses: the first pulse starts at "
            "onset and lasts duration, and a new one starts every period. Times are rounded to whole "
            "steps (pulses last at least one).",
            {{kUpdate, "y = baseline + amplitude * on"},
             {kDefinition, "on = t >= onset and (t - onset) % period < duration"
                           "  # duration 0: on until the end; period 0: a single pulse"}},
            sourceSymbols({{"on", "1 while a pulse is on, else 0", ""}})};
}

ModelEquations sineCurrentEquations()
{
    return {"A sine current oscillating around offset.",
            {{kUpdate, "y = offset + amplitude * sin(2 * pi * frequency * t + phase)"}},
            sourceSymbols()};
}

ModelEquations poissonEquations()
{
    return {"Independent Poisson spike trains: in every step each channel spikes with probability "
            "rate · dt, from a seeded generator.",
            {{kThreshold, "rand() < rate * dt  # one draw per channel and step; rate * dt at most 1"}},
            sourceSymbols()};
}

ModelEquations regularSpikeTrainEquations()
{
    return {"A regular spike train: one spike every 1 / rate from onset, in the first step at or after "
            "each spike time. A rate of 0 is silent.",
            {{kThreshold, "t == onset + n / rate  # n = 0, 1, 2, …; onset rounded to the nearest step"}},
            sourceSymbols({{"n", "Spikes emitted so far", ""}})};
}

ModelEquations fileSourceEquations()
{
    return {"Plays the rows of data, one per step. After the last row it starts again from the first "
            "when loop is set, and gives 0 otherwise.",
            {{kUpdate, "y = data[k]  # with loop: row k % T"},
             {kDefinition, "k = t / dt"}},
            sourceSymbols({{"k", "Number of the step", ""}, {"T", "Rows of data", ""}})};
}

/// The source's output pre and the target's input post every projection's equations use.
std::vector<EquationSymbol> projectionSymbols(const std::string& pre, const std::string& post)
{
    return {{pre, "Output of the source in the step", ""}, {post, "Input of the target in the step", ""}};
}

ModelEquations denseEquations()
{
    return {"All-to-all connections: each step, every target channel receives the sum of every "
            "source channel times its weight.",
            {{kUpdate, "post += pre @ weight  # pre (Nsrc) times the weight matrix (Nsrc, Ndst)"}},
            projectionSymbols("pre", "post")};
}

ModelEquations oneToOneEquations()
{
    return {"Channel i of the source feeds channel i of the target, times its weight.",
            {{kUpdate, "post += weight * pre  # channel by channel"}},
            projectionSymbols("pre", "post")};
}

ModelEquations sparseEquations()
{
    return {"Random sparse synapses drawn once from seed (each pair with probability p, or in_degree "
            "sources per target), each with a weight w: weight itself (weight_dist constant), or "
            "drawn once around it (uniform or normal, spread weight_spread). A nonzero source value "
            "reaches each of its targets delay steps later, times w.",
            {{kEvent, "post_j += w_ij * pre_i  # for each synapse i → j of a nonzero pre_i, at t_arrive"},
             {kDefinition, "t_arrive = t + delay * dt  # a value sent in the step at t reaches its targets"},
             {kDefinition, "w_ij = weight  # weight_dist constant"},
             {kDefinition, "w_ij = weight + weight_spread * (2 * u_ij - 1)  # weight_dist uniform"},
             {kDefinition, "w_ij = weight + weight_spread * z_ij  # weight_dist normal"},
             {kDefinition, "w_ij = 0 if sign(w_ij) != sign(weight)  # keep_sign (Dale's law)"}},
            [] {
                std::vector<EquationSymbol> all = projectionSymbols("pre_i", "post_j");
                all.push_back({"t", "Time of the step the source sends in", "s"});
                all.push_back({"t_arrive", "Time of the step the targets receive it in", "s"});
                all.push_back({"w_ij", "Weight of synapse i → j, drawn once from seed", ""});
                all.push_back({"u_ij", "Uniform draw in [0, 1), one per synapse", ""});
                all.push_back({"z_ij", "Standard normal draw, one per synapse", ""});
                return all;
            }()};
}

}  // namespace

const std::vector<ModuleTypeInfo>& moduleTypes()
{
    static const std::vector<ModuleTypeInfo> types = [] {
    std::vector<ModuleTypeInfo> all{
        {"LIF", "neurons",
         "Leaky integrate-and-fire neurons with exponential synapses (Rockpool LIFTorch)", false,
         {{"shape", {1, 1}}, {"has_rec", false}}, createLif, "neurons/lif.hpp", lifEquations()},
        {"LIFRefrac", "neurons",
         "Leaky integrate-and-fire neurons with an absolute refractory period (Norse LIFRefrac)",
         false, {{"shape", {1}}}, createLifRefrac, "neurons/lif_refrac.hpp", lifRefracEquations()},
        {"CUBALIF", "neurons",
         "CUBA leaky integrate-and-fire neurons, excitatory and inhibitory exponential currents "
         "(Brian2's CUBA benchmark)",
         false, {{"shape", {1}}}, createCubaLif, "neurons/cuba_lif.hpp", cubaLifEquations()},
    };
    // LI ... NIRCubaLIF: the neuron types NIR defines (nir_neuron_types.cpp).
    const std::vector<ModuleTypeInfo> nirNeurons = io_detail::nirNeuronTypes();
    all.insert(all.end(), nirNeurons.begin(), nirNeurons.end());
    // Izhikevich ... EquationNeuron: the models written as equations (equation_types.cpp).
    const std::vector<ModuleTypeInfo> equationModels = io_detail::equationTypes();
    all.insert(all.end(), equationModels.begin(), equationModels.end());
    // Linear ... Threshold: the layers and activations (layer_types.cpp).
    const std::vector<ModuleTypeInfo> layers = io_detail::layerTypes();
    all.insert(all.end(), layers.begin(), layers.end());
    all.insert(all.end(), {
        {"Sequential", "containers", "Chain of modules evolved one after another", true,
         nlohmann::json::object(), createSequential, ""},
        {"Network", "containers",
         "Nodes wired port to port, with projections, sums at inputs and delayed cycles", true,
         {{"input_size", 0}, {"output_size", 0}}, createNetwork, ""},
        {"ModuleList", "containers",
         "Indexed list of modules called by their owner; no forward of its own (torch.nn.ModuleList)",
         true, nlohmann::json::object(), createModuleList, ""},
        {"ResBlock", "templates",
         "Residual block of conv-norm-act blocks, basic, bottleneck or downsample (DI-engine ResBlock)",
         false, {{"in_channels", 4}, {"res_type", "basic"}, {"input_size", {8, 8}}},
         ResBlock::fromConfig, ""},
        {"MLP", "templates",
         "Linear, norm and activation per hidden layer, last Linear plain (DI-engine MLP)", false,
         {{"in_channels", 8}, {"hidden_channels", 16}, {"out_channels", 4}, {"layer_num", 2},
          {"activation", "ReLU"}, {"norm_type", "BN"}, {"output_activation", false},
          {"output_norm", false}},
         MLP::fromConfig, ""},
        {"DynamicsNetwork", "templates",
         "EfficientZero dynamics network: next latent state and value prefix (LightZero)", false,
         {{"observation_shape", {4, 4}}, {"action_encoding_dim", 2}, {"num_res_blocks", 1},
          {"num_channels", 8}, {"reward_head_channels", 4}, {"reward_head_hidden_channels", {16}},
          {"output_support_size", 21}, {"lstm_hidden_size", 32}},
         DynamicsNetwork::fromConfig, ""},
        {"ConstantCurrent", "sources", "Constant current, scalar or per channel (no input)", false,
         {{"shape", {1}}}, createSource<ConstantCurrent>, "sources/sources.hpp",
         constantCurrentEquations()},
        {"PulseTrain", "sources", "Step or repeating pulse current: onset, width, period (no input)",
         false, {{"shape", {1}}}, createSource<PulseTrain>, "sources/sources.hpp",
         pulseTrainEquations()},
        {"SineCurrent", "sources", "Sine current: amplitude, frequency, phase, offset (no input)",
         false, {{"shape", {1}}}, createSource<SineCurrent>, "sources/sources.hpp",
         sineCurrentEquations()},
        {"PoissonSource", "sources", "Poisson spikes at a rate per channel, seeded (no input)",
         false, {{"shape", {1}}}, createSource<PoissonSource>, "sources/sources.hpp",
         poissonEquations()},
        {"RegularSpikeTrain", "sources", "One spike every 1 / rate from an onset (no input)", false,
         {{"shape", {1}}}, createSource<RegularSpikeTrain>, "sources/sources.hpp",
         regularSpikeTrainEquations()},
        {"FileSource", "sources",
         "Plays a (T, N) array row by row, e.g. a .npy file, looping or not (no input)", false,
         {{"shape", {1, 1}}}, createFileSource, "sources/sources.hpp", fileSourceEquations()},
        {"DenseProjection", "projections",
         "All-to-all weights W (Nsrc, Ndst): post += pre @ W (Rockpool LinearTorch)", false,
         {{"shape", {1, 1}}}, createDenseProjection, "network/projections.hpp", denseEquations()},
        {"OneToOneProjection", "projections",
         "Channel-wise weights: post += w * pre, w scalar or per channel", false,
         {{"shape", {1}}}, createOneToOneProjection, "network/projections.hpp",
         oneToOneEquations()},
        {"SparseProjection", "projections",
         "Seeded random sparse synapses (probability or in-degree), event-driven, with a delay",
         false, {{"shape", {1, 1}}}, createSparseProjection, "network/projections.hpp", sparseEquations()},
    });
    // The constructor settings of each row (type_settings.cpp), kept apart so the table stays
    // one line of identity per type.
    for (ModuleTypeInfo& info : all) {
        info.settings = io_detail::typeSettings(info.type);
    }
    return all;
    }();
    return types;
}

const ModuleTypeInfo* findModuleType(const std::string& type)
{
    for (const auto& t : moduleTypes()) {
        if (t.type == type) {
            return &t;
        }
    }
    return nullptr;
}

ModelEquations modelEquationsOf(const Module& module)
{
    const auto* own = dynamic_cast<const EquationNeuron*>(&module);
    if (own != nullptr && own->className() == EquationNeuron::kCustomType) {
        return io_detail::equationsFor(own->model());
    }
    const ModuleTypeInfo* info = findModuleType(module.className());
    return info == nullptr ? ModelEquations{} : info->equations;
}

std::string moduleEquations(const std::string& type)
{
    const ModuleTypeInfo* info = findModuleType(type);
    return info == nullptr || info->header.empty() ? std::string() : headerComment(info->header);
}

std::unique_ptr<Module> createModule(const std::string& type, const nlohmann::json& config)
{
    const ModuleTypeInfo* info = findModuleType(type);
    if (info == nullptr) {
        std::string known;
        for (const auto& t : moduleTypes()) {
            known += (known.empty() ? "" : ", ") + t.type;
        }
        throw Error("unknown module type '" + type + "' (known types: " + known + ")");
    }
    return info->create(config.is_null() ? nlohmann::json::object() : config);
}

void attachChild(Module& parent, const std::string& name, std::unique_ptr<Module> child)
{
    if (auto* seq = dynamic_cast<Sequential*>(&parent)) {
        seq->appendNamed(name, std::move(child));
        return;
    }
    if (auto* list = dynamic_cast<ModuleList*>(&parent)) {
        list->appendNamed(name, std::move(child));
        return;
    }
    if (auto* net = dynamic_cast<Network*>(&parent)) {
        net->addNode(name, std::move(child));
        return;
    }
    throw Error(parent.className() + " cannot hold child modules");
}

}  // namespace spike::engine
