// Internal to engine/io's module factory: the config readers every type's constructor entry
// uses (each names the key at fault), the layer rows of the type table (layer_types.cpp) and
// every type's settings (type_settings.cpp).
#pragma once

#include "engine/io/module_factory.hpp"
#include "engine/tensor/error.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace spike::engine::equations {
struct EquationModel;
}  // namespace spike::engine::equations

namespace spike::engine::io_detail {

/// Reads an integer config entry with bounds, naming the key on error.
inline std::int64_t configInt(const nlohmann::json& config, const std::string& key, std::int64_t lo,
                       std::int64_t hi)
{
    const auto& v = config.at(key);
    const auto outOfRange = [&](const std::string& got) {
        return Error("config '" + key + "': expected a value in [" + std::to_string(lo) + ", " +
                     std::to_string(hi) + "], got " + got);
    };
    if (v.is_number_float()) {
        // Checked as a double first: converting one beyond int64 (1e110) is undefined.
        const double d = v.get<double>();
        if (!std::isfinite(d) || d != std::floor(d)) {
            throw Error("config '" + key + "': expected a whole number, got " + v.dump());
        }
        if (d < static_cast<double>(lo) || d > static_cast<double>(hi) || d >= 0x1p63) {
            throw outOfRange(v.dump());
        }
    } else if (!v.is_number_integer()) {
        throw Error("config '" + key + "': expected a whole number, got " + v.dump());
    } else if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(hi)) {
        throw outOfRange(v.dump());
    }
    const auto n = v.is_number_float() ? static_cast<std::int64_t>(v.get<double>())
                                       : v.get<std::int64_t>();
    if (n < lo || n > hi) {
        throw outOfRange(std::to_string(n));
    }
    return n;
}

inline void requireObject(const nlohmann::json& config)
{
    if (!config.is_object()) {
        throw Error("config: expected an object, got " + std::string(config.type_name()));
    }
}

inline void rejectUnknownKeys(const nlohmann::json& config, const std::vector<std::string>& known)
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

/// Reads an optional boolean config entry, naming the key on error.
inline bool configBool(const nlohmann::json& config, const std::string& key, bool fallback)
{
    if (!config.contains(key)) {
        return fallback;
    }
    if (!config.at(key).is_boolean()) {
        throw Error("config '" + key + "': expected true or false, got " + config.at(key).dump());
    }
    return config.at(key).get<bool>();
}


/// Whether configWithSetting is checking a config on this thread: then the readers of the types
/// whose settings can make them large build nothing after their checks (a 10^8-neuron LIF takes
/// seconds and gigabytes to build, and the quick-add list checks a size per keystroke). Such a
/// reader checks everything its module's constructor would refuse.
bool checkingOnly();

/// Makes checkingOnly() true on this thread while it lives.
class CheckingOnly {
public:
    CheckingOnly();
    ~CheckingOnly();
    CheckingOnly(const CheckingOnly&) = delete;
    CheckingOnly& operator=(const CheckingOnly&) = delete;

private:
    bool m_previous;
};

/// A reader's last step: the module built from `args`, or nullptr while checkingOnly().
template <typename T, typename... Args>
std::unique_ptr<Module> buildUnlessChecking(Args&&... args)
{
    if (checkingOnly()) {
        return nullptr;
    }
    return std::make_unique<T>(std::forward<Args>(args)...);
}

/// The layers and activations of the type table, in palette order (Linear ... Threshold).
std::vector<ModuleTypeInfo> layerTypes();

/// The neuron types NIR defines (nir_neuron_types.cpp): LI, Integrator, IF, NIRLIF, NIRCubaLIF.
std::vector<ModuleTypeInfo> nirNeuronTypes();

/// The equation-defined neuron types (equation_types.cpp): one per library model, then
/// EquationNeuron (the user's own text).
std::vector<ModuleTypeInfo> equationTypes();
/// The text a new EquationNeuron starts with: a LIF written as equations.
const std::string& defaultEquationText();
/// The equations for users of a checked model text (what the Equations tab shows).
ModelEquations equationsFor(const equations::EquationModel& m);

/// The constructor settings of module type `type` (type_settings.cpp), in display order;
/// empty for types without (containers but Network, projections: their shape follows the wire).
std::vector<ConfigSetting> typeSettings(const std::string& type);

}  // namespace spike::engine::io_detail
