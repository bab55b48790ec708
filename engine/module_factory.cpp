// The list of module types. Adding a module type to the engine means adding one entry here.
#include "module_factory.hpp"

#include "activations.hpp"
#include "lif.hpp"
#include "lif_refrac.hpp"
#include "linear.hpp"
#include "sequential.hpp"
#include "sources.hpp"

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

std::unique_ptr<Module> createFlatten(const nlohmann::json& config)
{
    requireObject(config);
    rejectUnknownKeys(config, {"shape", "start_dim", "end_dim"});
    const auto dim = [&](const char* key, int fallback) {
        return config.contains(key) ? static_cast<int>(configInt(config, key, -4, 3)) : fallback;
    };
    return std::make_unique<Flatten>(featureCount(config), dim("start_dim", 1), dim("end_dim", -1));
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

}  // namespace

const std::vector<ModuleTypeInfo>& moduleTypes()
{
    static const std::vector<ModuleTypeInfo> types{
        {"LIF", "neurons",
         "Leaky integrate-and-fire neurons with exponential synapses (Rockpool LIFTorch)", false,
         {{"shape", {1, 1}}, {"has_rec", false}}, createLif},
        {"LIFRefrac", "neurons",
         "Leaky integrate-and-fire neurons with an absolute refractory period (Norse LIFRefrac)",
         false, {{"shape", {1}}}, createLifRefrac},
        {"Linear", "layers", "Fully connected layer y = x W^T + b (torch.nn.Linear)", false,
         {{"in_features", 1}, {"out_features", 1}, {"bias", true}}, createLinear},
        {"Flatten", "layers", "Merges axes start_dim..end_dim into one (torch.nn.Flatten)", false,
         {{"shape", {1}}}, createFlatten},
        {"Identity", "layers", "Passes its input through unchanged", false, {{"shape", {1}}},
         createSized<Identity>},
        {"ReLU", "activations", "max(x, 0)", false, {{"shape", {1}}}, createSized<ReLU>},
        {"Sigmoid", "activations", "1 / (1 + exp(-x))", false, {{"shape", {1}}},
         createSized<Sigmoid>},
        {"Tanh", "activations", "tanh(x)", false, {{"shape", {1}}}, createSized<Tanh>},
        {"GELU", "activations", "Gaussian error linear unit, exact (erf) or tanh approximation",
         false, {{"shape", {1}}}, createGelu},
        {"PReLU", "activations", "x for x >= 0, else a learnable slope times x (per channel)",
         false, {{"shape", {1}}, {"num_parameters", 1}}, createPrelu},
        {"Threshold", "activations", "x where x > threshold, else value", false,
         {{"shape", {1}}}, createThreshold},
        {"Sequential", "containers", "Chain of modules evolved one after another", true,
         nlohmann::json::object(), createSequential},
        {"ConstantCurrent", "sources", "Constant current, scalar or per channel (no input)", false,
         {{"shape", {1}}}, createSource<ConstantCurrent>},
        {"PulseTrain", "sources", "Step or repeating pulse current: onset, width, period (no input)",
         false, {{"shape", {1}}}, createSource<PulseTrain>},
        {"SineCurrent", "sources", "Sine current: amplitude, frequency, phase, offset (no input)",
         false, {{"shape", {1}}}, createSource<SineCurrent>},
        {"PoissonSource", "sources", "Poisson spikes at a rate per channel, seeded (no input)",
         false, {{"shape", {1}}}, createSource<PoissonSource>},
        {"RegularSpikeTrain", "sources", "One spike every 1 / rate from an onset (no input)", false,
         {{"shape", {1}}}, createSource<RegularSpikeTrain>},
        {"FileSource", "sources",
         "Plays a (T, N) array row by row, e.g. a .npy file, looping or not (no input)", false,
         {{"shape", {1, 1}}}, createFileSource},
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
    throw Error(parent.className() + " cannot hold child modules");
}

}  // namespace spike::engine
