// Helpers shared by the composite modules (ResBlock, MLP, DynamicsNetwork): modules whose
// constructor builds a fixed set of named children from a handful of settings, after DI-engine's
// and LightZero's torch modules.
//
// Owns nothing; stateless functions. A composite's children never change after construction, so
// model files set their attributes by name (model_io matches file children onto them) instead of
// attaching new ones.
#pragma once

#include "engine/core/module.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace spike::engine {

/// Activation names a composite accepts ("none" only where a torch module allows None).
inline const std::vector<std::string>& compositeActivations()
{
    static const std::vector<std::string> names{"ReLU", "GELU", "Tanh", "Sigmoid"};
    return names;
}

/// A parameter-free activation module ("ReLU", "GELU", "Tanh", "Sigmoid") whose evolve() sees
/// `size` features per step. Throws Error naming `owner` and the accepted names otherwise.
std::unique_ptr<Module> makeActivation(const std::string& name, std::int64_t size,
                                       const std::string& owner);

/// Throws Error "<owner>: <what> must be one of 'a', 'b'; got 'x'" unless `value` is a choice.
void requireChoice(const std::string& owner, const std::string& what, const std::string& value,
                   const std::vector<std::string>& choices);

/// An initial-value map giving a Linear, Conv2d or LSTM its weight-initialisation seed, so that
/// the children of one composite draw different weights.
AttributeMap seedAttribute(std::int64_t seed);

/// Element-wise x += y (float32) over tensors of equal numel; throws Error naming `where`
/// otherwise.
void addInPlace(Tensor& x, const TensorView& y, const std::string& where);

/// Reads the config entries of a composite with messages naming the key ("config 'num_channels':
/// expected a whole number in [1, 100000000], got -1"). Unknown keys are refused.
class ConfigReader {
public:
    /// Throws Error unless `config` is an object whose keys are all in `known`.
    ConfigReader(const nlohmann::json& config, std::vector<std::string> known);

    bool has(const std::string& key) const;
    /// Whole number in [lo, hi]; `fallback` when absent.
    std::int64_t integer(const std::string& key, std::int64_t fallback, std::int64_t lo,
                         std::int64_t hi) const;
    bool boolean(const std::string& key, bool fallback) const;
    /// One of `choices` (compared exactly); `fallback` when absent.
    std::string choice(const std::string& key, const std::string& fallback,
                       const std::vector<std::string>& choices) const;
    /// List of whole numbers in [lo, hi] with a length in [minLen, maxLen].
    std::vector<std::int64_t> integers(const std::string& key, std::vector<std::int64_t> fallback,
                                       std::size_t minLen, std::size_t maxLen, std::int64_t lo,
                                       std::int64_t hi) const;

    /// Largest feature or channel count a config may ask for (10^8).
    static constexpr std::int64_t kMaxSize = 100000000;

private:
    const nlohmann::json& m_config;
};

}  // namespace spike::engine
