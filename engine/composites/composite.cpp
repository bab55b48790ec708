// Helpers shared by the composite modules. See composite.hpp.
#include "engine/composites/composite.hpp"

#include "engine/layers/activations.hpp"

#include <algorithm>
#include <cmath>

namespace spike::engine {

namespace {

std::string quotedList(const std::vector<std::string>& names)
{
    std::string out;
    for (const auto& n : names) {
        out += (out.empty() ? "'" : ", '") + n + "'";
    }
    return out;
}

}  // namespace

std::unique_ptr<Module> makeActivation(const std::string& name, std::int64_t size,
                                       const std::string& owner)
{
    if (name == "ReLU") {
        return std::make_unique<ReLU>(size);
    }
    if (name == "GELU") {
        return std::make_unique<GELU>(size);
    }
    if (name == "Tanh") {
        return std::make_unique<Tanh>(size);
    }
    if (name == "Sigmoid") {
        return std::make_unique<Sigmoid>(size);
    }
    throw Error(owner + ": activation must be one of " + quotedList(compositeActivations()) +
                "; got '" + name + "'");
}

void requireChoice(const std::string& owner, const std::string& what, const std::string& value,
                   const std::vector<std::string>& choices)
{
    if (std::find(choices.begin(), choices.end(), value) == choices.end()) {
        throw Error(owner + ": " + what + " must be one of " + quotedList(choices) + "; got '" +
                    value + "'");
    }
}

AttributeMap seedAttribute(std::int64_t seed)
{
    return {{"seed", Tensor::scalar(static_cast<float>(seed))}};
}

void addInPlace(Tensor& x, const TensorView& y, const std::string& where)
{
    if (x.numel() != y.numel()) {
        throw Error(where + ": cannot add " + y.shape().toString() + " to " +
                    x.shape().toString());
    }
    x.flat() += Eigen::Map<const Eigen::ArrayXf>(y.data(), y.numel());
}

ConfigReader::ConfigReader(const nlohmann::json& config, std::vector<std::string> known)
    : m_config(config)
{
    if (!config.is_object()) {
        throw Error("config: expected an object, got " + std::string(config.type_name()));
    }
    for (const auto& [k, v] : config.items()) {
        if (std::find(known.begin(), known.end(), k) == known.end()) {
            throw Error("config '" + k + "': unknown key (expected " + quotedList(known) + ")");
        }
    }
}

bool ConfigReader::has(const std::string& key) const
{
    return m_config.contains(key) && !m_config.at(key).is_null();
}

namespace {

std::int64_t wholeNumber(const nlohmann::json& v, const std::string& key, std::int64_t lo,
                         std::int64_t hi)
{
    const bool whole = v.is_number_integer() ||
                       (v.is_number_float() && std::isfinite(v.get<double>()) &&
                        v.get<double>() == std::floor(v.get<double>()) &&
                        std::abs(v.get<double>()) < 9.0e15);
    if (!whole) {
        throw Error("config '" + key + "': expected a whole number, got " + v.dump());
    }
    const auto n = v.is_number_integer() ? v.get<std::int64_t>()
                                         : static_cast<std::int64_t>(v.get<double>());
    if (n < lo || n > hi) {
        throw Error("config '" + key + "': expected a value in [" + std::to_string(lo) + ", " +
                    std::to_string(hi) + "], got " + std::to_string(n));
    }
    return n;
}

}  // namespace

std::int64_t ConfigReader::integer(const std::string& key, std::int64_t fallback,
                                   std::int64_t lo, std::int64_t hi) const
{
    return has(key) ? wholeNumber(m_config.at(key), key, lo, hi) : fallback;
}

bool ConfigReader::boolean(const std::string& key, bool fallback) const
{
    if (!has(key)) {
        return fallback;
    }
    const auto& v = m_config.at(key);
    if (!v.is_boolean()) {
        throw Error("config '" + key + "': expected true or false, got " + v.dump());
    }
    return v.get<bool>();
}

std::string ConfigReader::choice(const std::string& key, const std::string& fallback,
                                 const std::vector<std::string>& choices) const
{
    if (!has(key)) {
        return fallback;
    }
    const auto& v = m_config.at(key);
    if (!v.is_string() ||
        std::find(choices.begin(), choices.end(), v.get<std::string>()) == choices.end()) {
        throw Error("config '" + key + "': expected one of " + quotedList(choices) + ", got " +
                    v.dump());
    }
    return v.get<std::string>();
}

std::vector<std::int64_t> ConfigReader::integers(const std::string& key,
                                                 std::vector<std::int64_t> fallback,
                                                 std::size_t minLen, std::size_t maxLen,
                                                 std::int64_t lo, std::int64_t hi) const
{
    if (!has(key)) {
        return fallback;
    }
    const auto& v = m_config.at(key);
    if (!v.is_array() || v.size() < minLen || v.size() > maxLen) {
        throw Error("config '" + key + "': expected a list of " +
                    (minLen == maxLen ? std::to_string(minLen)
                                      : std::to_string(minLen) + " to " + std::to_string(maxLen)) +
                    " whole numbers, got " + v.dump());
    }
    std::vector<std::int64_t> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
        out.push_back(wholeNumber(v[i], key + "/" + std::to_string(i), lo, hi));
    }
    return out;
}

}  // namespace spike::engine
