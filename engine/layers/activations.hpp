// Element-wise activations with torch.nn semantics. Each works on any input shape in forward()
// (PReLU reads its channel axis, 1, or 0 for a 1-D input) and per time step in evolve(), where
// the sample is a vector of `size` features (the node's port width in the editor).
//
//     ReLU       y = max(x, 0)                  (NaN propagates)
//     Sigmoid    y = 1 / (1 + exp(-x))
//     Tanh       y = tanh(x)
//     GELU       none: y = x/2 (1 + erf(x / sqrt 2));  tanh: y = x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
//     Threshold  y = x if x > threshold else value
//     PReLU      y = x if x >= 0 else weight[c] x   (weight: one slope, or one per channel c)
#pragma once

#include "engine/layers/layer.hpp"

namespace spike::engine {

/// Common base: same shape in and out, (size,) per sample.
class Activation : public Layer {
public:
    std::string extraRepr() const override { return {}; }
    nlohmann::json config() const override;
    std::vector<std::string> recordableSignals() const override { return {"output"}; }

protected:
    explicit Activation(std::int64_t size);
};

class ReLU : public Activation {
public:
    explicit ReLU(std::int64_t size = 1);
    std::string className() const override { return "ReLU"; }

protected:
    Tensor compute(const TensorView& input) const override;
};

class Sigmoid : public Activation {
public:
    explicit Sigmoid(std::int64_t size = 1);
    std::string className() const override { return "Sigmoid"; }

protected:
    Tensor compute(const TensorView& input) const override;
};

class Tanh : public Activation {
public:
    explicit Tanh(std::int64_t size = 1);
    std::string className() const override { return "Tanh"; }

protected:
    Tensor compute(const TensorView& input) const override;
};

class GELU : public Activation {
public:
    /// `approximate`: "none" (erf) or "tanh".
    explicit GELU(std::int64_t size = 1, const std::string& approximate = "none");
    std::string className() const override { return "GELU"; }
    std::string extraRepr() const override;

protected:
    Tensor compute(const TensorView& input) const override;

private:
    AttributeId m_approximate;
};

class Threshold : public Activation {
public:
    Threshold(float threshold, float value, std::int64_t size = 1);
    std::string className() const override { return "Threshold"; }
    std::string extraRepr() const override;

protected:
    Tensor compute(const TensorView& input) const override;

private:
    AttributeId m_threshold, m_value;
};

class PReLU : public Activation {
public:
    /// One learnable slope (numParameters = 1) or one per channel, initialised to `init`.
    explicit PReLU(std::int64_t numParameters = 1, float init = 0.25F, std::int64_t size = 1);
    std::string className() const override { return "PReLU"; }
    std::string extraRepr() const override;
    nlohmann::json config() const override;

protected:
    Tensor compute(const TensorView& input) const override;

private:
    std::int64_t m_numParameters;
    AttributeId m_weight;
};

}  // namespace spike::engine
