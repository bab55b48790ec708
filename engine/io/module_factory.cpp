// The list of module types: the spiking models, containers, sources and projections with their
// config readers here, the layers and activations in layer_types.cpp. Adding a module type to the
// engine means adding its config reader and one entry of the table.
#include "engine/io/module_factory.hpp"

#include "engine/io/factory_detail.hpp"

#include "engine/neurons/cuba_lif.hpp"
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
    if (hasRec && nOut * nIn > Tensor::kMaxElements) {
        throw Error("config 'shape': a recurrent layer of shape (" + std::to_string(nIn) + ", " +
                    std::to_string(nOut) + ") needs a weight matrix larger than the tensor limit");
    }
    return std::make_unique<LIF>(nIn, nOut, hasRec);
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
    return std::make_unique<LIFRefrac>(n);
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
    return std::make_unique<CUBALIF>(configInt({{"N", shape.front()}}, "N", 1, kMaxNeurons));
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
    return std::make_unique<T>(configInt({{"N", shape.front()}}, "N", 1, kMaxNeurons));
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
    return std::make_unique<FileSource>(steps, n);
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

}  // namespace

const std::vector<ModuleTypeInfo>& moduleTypes()
{
    static const std::vector<ModuleTypeInfo> types = [] {
    std::vector<ModuleTypeInfo> all{
        {"LIF", "neurons",
         "Leaky integrate-and-fire neurons with exponential synapses (Rockpool LIFTorch)", false,
         {{"shape", {1, 1}}, {"has_rec", false}}, createLif, "neurons/lif.hpp"},
        {"LIFRefrac", "neurons",
         "Leaky integrate-and-fire neurons with an absolute refractory period (Norse LIFRefrac)",
         false, {{"shape", {1}}}, createLifRefrac, "neurons/lif_refrac.hpp"},
        {"CUBALIF", "neurons",
         "CUBA leaky integrate-and-fire neurons, excitatory and inhibitory exponential currents "
         "(Brian2's CUBA benchmark)",
         false, {{"shape", {1}}}, createCubaLif, "neurons/cuba_lif.hpp"},
    };
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
         {{"shape", {1}}}, createSource<ConstantCurrent>, "sources/sources.hpp"},
        {"PulseTrain", "sources", "Step or repeating pulse current: onset, width, period (no input)",
         false, {{"shape", {1}}}, createSource<PulseTrain>, "sources/sources.hpp"},
        {"SineCurrent", "sources", "Sine current: amplitude, frequency, phase, offset (no input)",
         false, {{"shape", {1}}}, createSource<SineCurrent>, "sources/sources.hpp"},
        {"PoissonSource", "sources", "Poisson spikes at a rate per channel, seeded (no input)",
         false, {{"shape", {1}}}, createSource<PoissonSource>, "sources/sources.hpp"},
        {"RegularSpikeTrain", "sources", "One spike every 1 / rate from an onset (no input)", false,
         {{"shape", {1}}}, createSource<RegularSpikeTrain>, "sources/sources.hpp"},
        {"FileSource", "sources",
         "Plays a (T, N) array row by row, e.g. a .npy file, looping or not (no input)", false,
         {{"shape", {1, 1}}}, createFileSource, "sources/sources.hpp"},
        {"DenseProjection", "projections",
         "All-to-all weights W (Nsrc, Ndst): post += pre @ W (Rockpool LinearTorch)", false,
         {{"shape", {1, 1}}}, createDenseProjection, "network/projections.hpp"},
        {"OneToOneProjection", "projections",
         "Channel-wise weights: post += w * pre, w scalar or per channel", false,
         {{"shape", {1}}}, createOneToOneProjection, "network/projections.hpp"},
        {"SparseProjection", "projections",
         "Seeded random sparse synapses (probability or in-degree), event-driven, with a delay",
         false, {{"shape", {1, 1}}}, createSparseProjection, "network/projections.hpp"},
    });
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
