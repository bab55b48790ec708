// Linear, Flatten and Identity with torch.nn semantics.
//
//     Linear    y = x W^T + b      x (..., in_features), W (out_features, in_features), b (out,)
//     Flatten   merges axes start_dim..end_dim into one (evolve: identity on each sample)
//     Identity  y = x
//
// Linear initialises like PyTorch: W ~ U(-1/sqrt(in), 1/sqrt(in)) (Kaiming-uniform with
// a = sqrt(5)) and b likewise, drawn from the module's seeded generator.
#pragma once

#include "engine/layers/layer.hpp"

namespace spike::engine {

class Linear : public Layer {
public:
    Linear(std::int64_t inFeatures, std::int64_t outFeatures, bool bias = true,
           const AttributeMap& initial = {});
    std::string className() const override { return "Linear"; }
    std::string extraRepr() const override;
    nlohmann::json config() const override;
    std::vector<std::string> recordableSignals() const override { return {"output"}; }

    bool hasBias() const { return m_hasBias; }

protected:
    Tensor compute(const TensorView& input) const override;

private:
    bool m_hasBias;
    AttributeId m_weight, m_bias, m_seed;
};

class Flatten : public Layer {
public:
    /// size: features per sample when evolving over time.
    explicit Flatten(std::int64_t size = 1, int startDim = 1, int endDim = -1);
    std::string className() const override { return "Flatten"; }
    std::string extraRepr() const override;
    nlohmann::json config() const override;

protected:
    Tensor compute(const TensorView& input) const override;

private:
    int m_startDim;
    int m_endDim;
};

class Identity : public Layer {
public:
    explicit Identity(std::int64_t size = 1);
    std::string className() const override { return "Identity"; }
    nlohmann::json config() const override;
    std::vector<std::string> recordableSignals() const override { return {"output"}; }

protected:
    Tensor compute(const TensorView& input) const override;
};

}  // namespace spike::engine
