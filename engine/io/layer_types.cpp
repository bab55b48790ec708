// The layer and activation rows of the module type table and their config readers (torch-style
// constructor arguments). See module_factory.hpp; the rest of the table is in module_factory.cpp.
#include "engine/io/factory_detail.hpp"

#include "engine/layers/activations.hpp"
#include "engine/layers/channelwise.hpp"
#include "engine/layers/conv1d.hpp"
#include "engine/layers/conv2d.hpp"
#include "engine/layers/delay.hpp"
#include "engine/layers/linear.hpp"
#include "engine/layers/lstm.hpp"
#include "engine/layers/normalization.hpp"
#include "engine/layers/pooling.hpp"

#include <optional>

namespace spike::engine::io_detail {

namespace {

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
    return buildUnlessChecking<T>(featureCount(config));
}

std::unique_ptr<Module> createGelu(const nlohmann::json& config)
{
    requireObject(config);
    rejectUnknownKeys(config, {"shape"});
    return buildUnlessChecking<GELU>(featureCount(config));
}

std::unique_ptr<Module> createThreshold(const nlohmann::json& config)
{
    requireObject(config);
    rejectUnknownKeys(config, {"shape"});
    return buildUnlessChecking<Threshold>(0.0F, 0.0F, featureCount(config));
}

std::unique_ptr<Module> createPrelu(const nlohmann::json& config)
{
    requireObject(config);
    rejectUnknownKeys(config, {"shape", "num_parameters"});
    const std::int64_t count =
        config.contains("num_parameters") ? configInt(config, "num_parameters", 1, kMaxNeurons) : 1;
    return buildUnlessChecking<PReLU>(count, 0.25F, featureCount(config));
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
    return buildUnlessChecking<Linear>(in, out, bias);
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

/// Reads an optional 1-D config entry: a whole number or a one-element list [n].
std::int64_t configSingle(const nlohmann::json& config, const std::string& key, std::int64_t lo,
                          std::int64_t hi, std::int64_t fallback)
{
    if (!config.contains(key)) {
        return fallback;
    }
    const auto& v = config.at(key);
    if (v.is_array()) {
        if (v.size() != 1) {
            throw Error("config '" + key + "': expected a whole number or [n], got " + v.dump());
        }
        return configInt({{key, v[0]}}, key, lo, hi);
    }
    return configInt(config, key, lo, hi);
}

std::unique_ptr<Module> createConv1d(const nlohmann::json& config)
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
    const std::int64_t kernel = configSingle(config, "kernel_size", 1, 4096, 1);
    const std::int64_t stride = configSingle(config, "stride", 1, 4096, 1);
    const std::int64_t padding = configSingle(config, "padding", 0, 4096, 0);
    const std::int64_t dilation = configSingle(config, "dilation", 1, 4096, 1);
    const std::int64_t groups = config.contains("groups") ? configInt(config, "groups", 1, in) : 1;
    if (in % groups != 0 || out % groups != 0) {
        throw Error("config 'groups': " + std::to_string(groups) + " does not divide in_channels (" +
                    std::to_string(in) + ") and out_channels (" + std::to_string(out) + ")");
    }
    if (out * (in / groups) > Tensor::kMaxElements / kernel) {
        throw Error("config: the weight of this Conv1d is larger than the tensor limit");
    }
    const std::int64_t length = configSingle(config, "input_size", 0, kMaxNeurons, 0);
    if (length > kMaxNeurons / in) {
        throw Error("config 'input_size': in_channels x length exceeds 10^8 features");
    }
    const std::int64_t outLength =
        convOutputExtent(std::max<std::int64_t>(length, 1), kernel, stride, padding, dilation);
    if (outLength > kMaxNeurons / out) {
        throw Error("config 'out_channels': out_channels x output length exceeds 10^8 features");
    }
    if (length > 0 && convOutputExtent(length, kernel, stride, padding, dilation) < 1) {
        throw Error("config 'input_size': kernel " + std::to_string(kernel) + " with dilation " +
                    std::to_string(dilation) + " is larger than the padded input_size " +
                    std::to_string(length + 2 * padding));
    }
    return buildUnlessChecking<Conv1d>(in, out, kernel, stride, padding, dilation, groups,
                                       configBool(config, "bias", true), length);
}

/// Factory of SumPool2d and AvgPool2d: channels, kernel_size, optional stride (the kernel size),
/// padding and input_size.
template <typename T>
std::unique_ptr<Module> createPool(const nlohmann::json& config)
{
    requireObject(config);
    rejectUnknownKeys(config, {"channels", "kernel_size", "stride", "padding", "input_size"});
    for (const char* key : {"channels", "kernel_size"}) {
        if (!config.contains(key)) {
            throw Error(std::string("config '") + key + "': missing");
        }
    }
    const std::int64_t channels = configInt(config, "channels", 1, kMaxNeurons);
    const Size2 kernel = configPair(config, "kernel_size", 1, 4096, {1, 1});
    const std::optional<Size2> stride =
        config.contains("stride") ? std::optional<Size2>(configPair(config, "stride", 1, 4096, kernel))
                                  : std::nullopt;
    const Size2 padding = configPair(config, "padding", 0, 4096, {0, 0});
    const Size2 inputSize = configPair(config, "input_size", 0, kMaxNeurons, {0, 0});
    if (inputSize[0] > kMaxNeurons / channels ||
        inputSize[1] > kMaxNeurons / (channels * std::max<std::int64_t>(inputSize[0], 1))) {
        throw Error("config 'input_size': channels x height x width exceeds 10^8 features");
    }
    try {
        return std::make_unique<T>(channels, kernel, stride, padding, inputSize);  // no weights
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
    return buildUnlessChecking<BatchNorm1d>(c, 1e-5, 0.1, configBool(config, "affine", true),
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
    return buildUnlessChecking<BatchNorm2d>(c, 1e-5, 0.1, configBool(config, "affine", true),
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
    return buildUnlessChecking<LayerNorm>(dims, 1e-5, configBool(config, "elementwise_affine", true),
                                       configBool(config, "bias", true));
}

std::unique_ptr<Module> createFlatten(const nlohmann::json& config)
{
    requireObject(config);
    rejectUnknownKeys(config, {"shape", "start_dim", "end_dim"});
    const auto dim = [&](const char* key, int fallback) {
        return config.contains(key) ? static_cast<int>(configInt(config, key, -4, 3)) : fallback;
    };
    return buildUnlessChecking<Flatten>(featureCount(config), dim("start_dim", 1), dim("end_dim", -1));
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
    return buildUnlessChecking<LSTM>(in, hidden, layers, flag("bias", true),
                                  flag("batch_first", false));
}

}  // namespace

std::vector<ModuleTypeInfo> layerTypes()
{
    return {
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
        {"Conv1d", "layers", "1-D convolution over (C, L) samples (torch.nn.Conv1d)", false,
         {{"in_channels", 1}, {"out_channels", 1}, {"kernel_size", 3}, {"padding", 1},
          {"input_size", 8}},
         createConv1d, ""},
        {"AvgPool2d", "layers",
         "Mean over kh x kw windows of (C, H, W) samples, padded zeros counted (torch.nn.AvgPool2d)",
         false,
         {{"channels", 1}, {"kernel_size", {2, 2}}, {"stride", {2, 2}}, {"input_size", {8, 8}}},
         createPool<AvgPool2d>, ""},
        {"SumPool2d", "layers", "Sum over kh x kw windows of (C, H, W) samples (NIR SumPool2d)",
         false,
         {{"channels", 1}, {"kernel_size", {2, 2}}, {"stride", {2, 2}}, {"input_size", {8, 8}}},
         createPool<SumPool2d>, ""},
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
        {"Scale", "layers", "scale * x, one factor per channel (NIR Scale)", false,
         {{"shape", {1}}}, createSized<Scale>, ""},
        {"Heaviside", "layers", "Spikes: 1 where x > threshold, else 0, per channel (NIR Threshold)",
         false, {{"shape", {1}}}, createSized<Heaviside>, ""},
        {"Delay", "layers",
         "Each channel's input round(delay / dt) steps later, zero before (NIR Delay)", false,
         {{"shape", {1}}}, createSized<Delay>, ""},
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
    };
}

}  // namespace spike::engine::io_detail
