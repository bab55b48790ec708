// The list of module types. Adding a module type to the engine means adding one entry here.
#include "engine/io/module_factory.hpp"

#include "engine/layers/activations.hpp"
#include "engine/layers/conv2d.hpp"
#include "engine/neurons/cuba_lif.hpp"
#include "engine/composites/dynamics_network.hpp"
#include "engine/neurons/lif.hpp"
#include "engine/neurons/lif_refrac.hpp"
#include "engine/layers/linear.hpp"
#include "engine/composites/mlp.hpp"
#include "engine/layers/lstm.hpp"
#include "engine/layers/module_list.hpp"
#include "engine/network/network.hpp"
#include "engine/layers/normalization.hpp"
#include "engine/network/projections.hpp"
#include "engine/composites/resblock.hpp"
#include "engine/layers/sequential.hpp"
#include "engine/sources/sources.hpp"

#include <algorithm>
#include <cmath>

namespace spike::engine {

namespace {

/// Reads an integer config entry with bounds, naming the key on error.
std::int64_t configInt(const nlohmann::json& config, const std::string& key, std::int64_t lo,
                       std::int64_t hi)
{
    const auto& v = config.at(key);
    if (!v.is_number_integer() && !(v.is_number_float() && v.get<double>() == std::floor(v.get<double>()))) {
        throw Error("config '" + key + "': expected a whole number, got " + v.dump());
    }
    const auto n = v.get<std::int64_t>();
    if (n < lo || n > hi) {
        throw Error("config '" + key + "': expected a value in [" + std::to_string(lo) + ", " +
                    std::to_string(hi) + "], got " + std::to_string(n));
    }
    return n;
}

void requireObject(const nlohmann::json& config)
{
    if (!config.is_object()) {
        throw Error("config: expected an object, got " + std::string(config.type_name()));
    }
}

void rejectUnknownKeys(const nlohmann::json& config, const std::vector<std::string>& known)
{
    for (const auto& [k, v] : config.items()) {
        if (std::find(known.begin(), known.end(), k) == known.end()) {
            std::string list;
            for (const auto& n : known) {
                list += (list.empty() ? "'" : ", '") + n + "'";
            }
            throw Error("config '" + k + "': unknown key (expected " +
                        (list.empty() ? std::string("none") : list) + ")");
        }
    }
}

/// Largest layer a config may ask for (10^8 neurons), so a typo cannot exhaust memory.
constexpr std::int64_t kMaxNeurons = 100000000;

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

/// Features per sample for size-agnostic layers: config "shape" [N], 1 when absent.
std::int64_t featureCount(const nlohmann::json& config)
{
    if (!config.contains("shape")) {
        return 1;
    }
    const auto& shape = config.at("shape");
    if (!shape.is_array() || shape.size() != 1) {
        throw Error("config 'shape': expected [N], got " + shape.dump());
    }
    return configInt({{"N", shape.front()}}, "N", 1, kMaxNeurons);
}

/// Factory for an element-wise layer whose only config is its feature count.
template <typename T>
std::unique_ptr<Module> createSized(const nlohmann::json& config)
{
    requireObject(config);
    rejectUnknownKeys(config, {"shape"});
    return std::make_unique<T>(featureCount(config));
}

std::unique_ptr<Module> createGelu(const nlohmann::json& config)
{
    requireObject(config);
    rejectUnknownKeys(config, {"shape"});
    return std::make_unique<GELU>(featureCount(config));
}

std::unique_ptr<Module> createThreshold(const nlohmann::json& config)
{
    requireObject(config);
    rejectUnknownKeys(config, {"shape"});
    return std::make_unique<Threshold>(0.0F, 0.0F, featureCount(config));
}

std::unique_ptr<Module> createPrelu(const nlohmann::json& config)
{
    requireObject(config);
    rejectUnknownKeys(config, {"shape", "num_parameters"});
    const std::int64_t count =
        config.contains("num_parameters") ? configInt(config, "num_parameters", 1, kMaxNeurons) : 1;
    return std::make_unique<PReLU>(count, 0.25F, featureCount(config));
}

std::unique_ptr<Module> createLinear(const nlohmann::json& config)
{
    requireObject(config);
    rejectUnknownKeys(config, {"in_features", "out_features", "bias"});
    for (const char* key : {"in_features", "out_features"}) {
        if (!config.contains(key)) {
            throw Error(std::string("config '") + key + "': missing");
        }
    }
    const std::int64_t in = configInt(config, "in_features", 1, kMaxNeurons);
    const std::int64_t out = configInt(config, "out_features", 1, kMaxNeurons);
    if (in * out > Tensor::kMaxElements) {
        throw Error("config: a (" + std::to_string(out) + ", " + std::to_string(in) +
                    ") weight matrix is larger than the tensor limit");
    }
    bool bias = true;
    if (config.contains("bias")) {
        if (!config.at("bias").is_boolean()) {
            throw Error("config 'bias': expected true or false, got " + config.at("bias").dump());
        }
        bias = config.at("bias").get<bool>();
    }
    return std::make_unique<Linear>(in, out, bias);
}

/// Reads an optional boolean config entry, naming the key on error.
bool configBool(const nlohmann::json& config, const std::string& key, bool fallback)
{
    if (!config.contains(key)) {
        return fallback;
    }
    if (!config.at(key).is_boolean()) {
        throw Error("config '" + key + "': expected true or false, got " + config.at(key).dump());
    }
    return config.at(key).get<bool>();
}

/// Reads an optional (height, width) config entry: one whole number for both or [h, w].
Size2 configPair(const nlohmann::json& config, const std::string& key, std::int64_t lo,
                 std::int64_t hi, Size2 fallback)
{
    if (!config.contains(key)) {
        return fallback;
    }
    const auto& v = config.at(key);
    if (v.is_array()) {
        if (v.size() != 2) {
            throw Error("config '" + key + "': expected a whole number or [height, width], got " +
                        v.dump());
        }
        return {configInt({{key, v[0]}}, key, lo, hi), configInt({{key, v[1]}}, key, lo, hi)};
    }
    const std::int64_t n = configInt(config, key, lo, hi);
    return {n, n};
}

std::unique_ptr<Module> createConv2d(const nlohmann::json& config)
{
    requireObject(config);
    rejectUnknownKeys(config, {"in_channels", "out_channels", "kernel_size", "stride", "padding",
                               "dilation", "groups", "bias", "input_size"});
    for (const char* key : {"in_channels", "out_channels", "kernel_size"}) {
        if (!config.contains(key)) {
            throw Error(std::string("config '") + key + "': missing");
        }
    }
    const std::int64_t in = configInt(config, "in_channels", 1, kMaxNeurons);
    const std::int64_t out = configInt(config, "out_channels", 1, kMaxNeurons);
    const Size2 kernel = configPair(config, "kernel_size", 1, 4096, {1, 1});
    const Size2 stride = configPair(config, "stride", 1, 4096, {1, 1});
    const Size2 padding = configPair(config, "padding", 0, 4096, {0, 0});
    const Size2 dilation = configPair(config, "dilation", 1, 4096, {1, 1});
    const std::int64_t groups = config.contains("groups") ? configInt(config, "groups", 1, in) : 1;
    if (in % groups != 0 || out % groups != 0) {
        throw Error("config 'groups': " + std::to_string(groups) + " does not divide in_channels (" +
                    std::to_string(in) + ") and out_channels (" + std::to_string(out) + ")");
    }
    if (out * (in / groups) * kernel[0] * kernel[1] > Tensor::kMaxElements) {
        throw Error("config: the weight of this Conv2d is larger than the tensor limit");
    }
    const Size2 inputSize = configPair(config, "input_size", 0, kMaxNeurons, {0, 0});
    if (in * inputSize[0] * inputSize[1] > kMaxNeurons) {
        throw Error("config 'input_size': in_channels x height x width exceeds 10^8 features");
    }
    try {
        return std::make_unique<Conv2d>(in, out, kernel, stride, padding, dilation, groups,
                                        configBool(config, "bias", true), inputSize);
    } catch (const Error& e) {
        throw Error(std::string("config 'input_size': ") + e.what());  // the only check left
    }
}

std::unique_ptr<Module> createBatchNorm1d(const nlohmann::json& config)
{
    requireObject(config);
    rejectUnknownKeys(config, {"num_features", "affine", "track_running_stats", "length"});
    if (!config.contains("num_features")) {
        throw Error("config 'num_features': missing");
    }
    const std::int64_t c = configInt(config, "num_features", 1, kMaxNeurons);
    const std::int64_t length = config.contains("length") ? configInt(config, "length", 0, kMaxNeurons) : 0;
    if (c * std::max<std::int64_t>(length, 1) > kMaxNeurons) {
        throw Error("config 'length': num_features x length exceeds 10^8 features");
    }
    return std::make_unique<BatchNorm1d>(c, 1e-5, 0.1, configBool(config, "affine", true),
                                         configBool(config, "track_running_stats", true), length);
}

std::unique_ptr<Module> createBatchNorm2d(const nlohmann::json& config)
{
    requireObject(config);
    rejectUnknownKeys(config, {"num_features", "affine", "track_running_stats", "input_size"});
    if (!config.contains("num_features")) {
        throw Error("config 'num_features': missing");
    }
    const std::int64_t c = configInt(config, "num_features", 1, kMaxNeurons);
    const Size2 inputSize = configPair(config, "input_size", 1, kMaxNeurons, {1, 1});
    if (c * inputSize[0] * inputSize[1] > kMaxNeurons) {
        throw Error("config 'input_size': num_features x height x width exceeds 10^8 features");
    }
    return std::make_unique<BatchNorm2d>(c, 1e-5, 0.1, configBool(config, "affine", true),
                                         configBool(config, "track_running_stats", true), inputSize);
}

std::unique_ptr<Module> createLayerNorm(const nlohmann::json& config)
{
    requireObject(config);
    rejectUnknownKeys(config, {"normalized_shape", "elementwise_affine", "bias"});
    if (!config.contains("normalized_shape")) {
        throw Error("config 'normalized_shape': missing; expected [N] or up to three extents");
    }
    const auto& shape = config.at("normalized_shape");
    std::vector<std::int64_t> dims;
    if (shape.is_array() && !shape.empty() && shape.size() <= 3) {
        std::int64_t total = 1;
        for (const auto& d : shape) {
            dims.push_back(configInt({{"normalized_shape", d}}, "normalized_shape", 1, kMaxNeurons));
            total *= dims.back();
            if (total > kMaxNeurons) {
                throw Error("config 'normalized_shape': more than 10^8 features");
            }
        }
    } else if (shape.is_number()) {
        dims.push_back(configInt(config, "normalized_shape", 1, kMaxNeurons));
    } else {
        throw Error("config 'normalized_shape': expected a whole number or a list of 1 to 3, got " +
                    shape.dump());
    }
    return std::make_unique<LayerNorm>(dims, 1e-5, configBool(config, "elementwise_affine", true),
                                       configBool(config, "bias", true));
}

std::unique_ptr<Module> createFlatten(const nlohmann::json& config)
{
    requireObject(config);
    rejectUnknownKeys(config, {"shape", "start_dim", "end_dim"});
    const auto dim = [&](const char* key, int fallback) {
        return config.contains(key) ? static_cast<int>(configInt(config, key, -4, 3)) : fallback;
    };
    return std::make_unique<Flatten>(featureCount(config), dim("start_dim", 1), dim("end_dim", -1));
}

std::unique_ptr<Module> createLstm(const nlohmann::json& config)
{
    requireObject(config);
    rejectUnknownKeys(config, {"input_size", "hidden_size", "num_layers", "bias", "batch_first"});
    for (const char* key : {"input_size", "hidden_size"}) {
        if (!config.contains(key)) {
            throw Error(std::string("config '") + key + "': missing");
        }
    }
    const std::int64_t in = configInt(config, "input_size", 1, kMaxNeurons);
    const std::int64_t hidden = configInt(config, "hidden_size", 1, kMaxNeurons);
    const std::int64_t layers =
        config.contains("num_layers") ? configInt(config, "num_layers", 1, 1000) : 1;
    if (4 * hidden * std::max(in, hidden) > Tensor::kMaxElements) {
        throw Error("config: a (" + std::to_string(4 * hidden) + ", " +
                    std::to_string(std::max(in, hidden)) +
                    ") weight matrix is larger than the tensor limit");
    }
    const auto flag = [&](const char* key, bool fallback) {
        if (!config.contains(key)) {
            return fallback;
        }
        if (!config.at(key).is_boolean()) {
            throw Error(std::string("config '") + key + "': expected true or false, got " +
                        config.at(key).dump());
        }
        return config.at(key).get<bool>();
    };
    return std::make_unique<LSTM>(in, hidden, layers, flag("bias", true),
                                  flag("batch_first", false));
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
    static const std::vector<ModuleTypeInfo> types{
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
        {"Linear", "layers", "Fully connected layer y = x W^T + b (torch.nn.Linear)", false,
         {{"in_features", 1}, {"out_features", 1}, {"bias", true}}, createLinear, ""},
        {"LSTM", "layers",
         "Long short-term memory layers, gate order i, f, g, o; carries h and c over time "
         "(torch.nn.LSTM)",
         false,
         {{"input_size", 1}, {"hidden_size", 1}, {"num_layers", 1}, {"bias", true},
          {"batch_first", false}},
         createLstm, ""},
        {"Conv2d", "layers", "2-D convolution over (C, H, W) samples (torch.nn.Conv2d)", false,
         {{"in_channels", 1}, {"out_channels", 1}, {"kernel_size", {3, 3}}, {"padding", {1, 1}},
          {"input_size", {8, 8}}},
         createConv2d, ""},
        {"BatchNorm1d", "layers", "Batch normalisation over (N, C) or (N, C, L) (torch.nn.BatchNorm1d)",
         false, {{"num_features", 1}}, createBatchNorm1d, ""},
        {"BatchNorm2d", "layers", "Batch normalisation over (N, C, H, W) (torch.nn.BatchNorm2d)",
         false, {{"num_features", 1}, {"input_size", {1, 1}}}, createBatchNorm2d, ""},
        {"LayerNorm", "layers", "Normalisation over the trailing axes of each sample (torch.nn.LayerNorm)",
         false, {{"normalized_shape", {1}}}, createLayerNorm, ""},
        {"Flatten", "layers", "Merges axes start_dim..end_dim into one (torch.nn.Flatten)", false,
         {{"shape", {1}}}, createFlatten, ""},
        {"Identity", "layers", "Passes its input through unchanged", false, {{"shape", {1}}},
         createSized<Identity>, ""},
        {"ReLU", "activations", "max(x, 0)", false, {{"shape", {1}}}, createSized<ReLU>, ""},
        {"Sigmoid", "activations", "1 / (1 + exp(-x))", false, {{"shape", {1}}},
         createSized<Sigmoid>, ""},
        {"Tanh", "activations", "tanh(x)", false, {{"shape", {1}}}, createSized<Tanh>, ""},
        {"GELU", "activations", "Gaussian error linear unit, exact (erf) or tanh approximation",
         false, {{"shape", {1}}}, createGelu, ""},
        {"PReLU", "activations", "x for x >= 0, else a learnable slope times x (per channel)",
         false, {{"shape", {1}}, {"num_parameters", 1}}, createPrelu, ""},
        {"Threshold", "activations", "x where x > threshold, else value", false,
         {{"shape", {1}}}, createThreshold, ""},
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
    };
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
