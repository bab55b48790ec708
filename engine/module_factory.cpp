// The list of module types. Adding a module type to the engine means adding one entry here.
#include "module_factory.hpp"

#include "lif.hpp"
#include "sequential.hpp"

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

std::unique_ptr<Module> createSequential(const nlohmann::json& config)
{
    requireObject(config);
    rejectUnknownKeys(config, {});
    return std::make_unique<Sequential>();
}

}  // namespace

const std::vector<ModuleTypeInfo>& moduleTypes()
{
    static const std::vector<ModuleTypeInfo> types{
        {"LIF", "neurons",
         "Leaky integrate-and-fire neurons with exponential synapses (Rockpool LIFTorch)", false,
         {{"shape", {1, 1}}, {"has_rec", false}}, createLif},
        {"Sequential", "containers", "Chain of modules evolved one after another", true,
         nlohmann::json::object(), createSequential},
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
