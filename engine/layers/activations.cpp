// Element-wise activations. See activations.hpp for the definitions.
#include "engine/layers/activations.hpp"

#include <cmath>
#include <sstream>

namespace spike::engine {

namespace {

template <typename F>
Tensor mapElements(const TensorView& input, F f)
{
    Tensor out(input.shape());
    const float* __restrict x = input.data();
    float* __restrict y = out.data();
    const std::int64_t n = input.numel();
    for (std::int64_t i = 0; i < n; ++i) {
        y[i] = f(x[i]);
    }
    return out;
}

std::string number(float v)
{
    std::ostringstream os;
    os << v;
    return os.str();
}

}  // namespace

Activation::Activation(std::int64_t size) : Layer(Shape{size}, Shape{size}) {}

nlohmann::json Activation::config() const
{
    return {{"shape", {sizeIn()}}};
}

ReLU::ReLU(std::int64_t size) : Activation(size)
{
    finishRegistration();
}

Tensor ReLU::compute(const TensorView& input) const
{
    // torch.relu propagates NaN; testing x < 0 (false for NaN) keeps it.
    return mapElements(input, [](float x) { return x < 0.0F ? 0.0F : x; });
}

Sigmoid::Sigmoid(std::int64_t size) : Activation(size)
{
    finishRegistration();
}

Tensor Sigmoid::compute(const TensorView& input) const
{
    return mapElements(input, [](float x) { return 1.0F / (1.0F + std::exp(-x)); });
}

Tanh::Tanh(std::int64_t size) : Activation(size)
{
    finishRegistration();
}

Tensor Tanh::compute(const TensorView& input) const
{
    return mapElements(input, [](float x) { return std::tanh(x); });
}

GELU::GELU(std::int64_t size, const std::string& approximate) : Activation(size)
{
    m_approximate = addAttribute(simulationParameter("approximate").choices({"none", "tanh"})
                                     .initEnum("none")
                                     .doc("'none': exact, with erf; 'tanh': tanh approximation"));
    finishRegistration({{"approximate", approximate}});
}

std::string GELU::extraRepr() const
{
    return "approximate='" + enumValue(m_approximate) + "'";
}

Tensor GELU::compute(const TensorView& input) const
{
    if (enumValue(m_approximate) == "tanh") {
        const float k = std::sqrt(2.0F / static_cast<float>(M_PI));
        return mapElements(input, [k](float x) {
            return 0.5F * x * (1.0F + std::tanh(k * (x + 0.044715F * x * x * x)));
        });
    }
    const float invSqrt2 = static_cast<float>(M_SQRT1_2);
    return mapElements(input, [invSqrt2](float x) { return 0.5F * x * (1.0F + std::erf(x * invSqrt2)); });
}

Threshold::Threshold(float threshold, float value, std::int64_t size) : Activation(size)
{
    m_threshold = addAttribute(simulationParameter("threshold").initConstant(0.0F)
                                   .doc("Inputs at or below this are replaced by 'value'"));
    m_value = addAttribute(simulationParameter("value").initConstant(0.0F)
                               .doc("Output where the input is at or below 'threshold'"));
    finishRegistration({{"threshold", Tensor::scalar(threshold)}, {"value", Tensor::scalar(value)}});
}

std::string Threshold::extraRepr() const
{
    return "threshold=" + number(value(m_threshold)[0]) + ", value=" + number(value(m_value)[0]);
}

Tensor Threshold::compute(const TensorView& input) const
{
    const float th = value(m_threshold)[0];
    const float v = value(m_value)[0];
    return mapElements(input, [th, v](float x) { return x > th ? x : v; });
}

PReLU::PReLU(std::int64_t numParameters, float init, std::int64_t size)
    : Activation(size), m_numParameters(numParameters)
{
    if (numParameters < 1) {
        throw Error("PReLU: num_parameters must be >= 1, got " + std::to_string(numParameters));
    }
    m_weight = addAttribute(parameter("weight").family("weights").shapes({Shape{numParameters}})
                                .initConstant(init)
                                .doc("Slope for negative inputs: one, or one per channel (axis 1)"));
    finishRegistration();
}

std::string PReLU::extraRepr() const
{
    return "num_parameters=" + std::to_string(m_numParameters);
}

nlohmann::json PReLU::config() const
{
    return {{"shape", {sizeIn()}}, {"num_parameters", m_numParameters}};
}

Tensor PReLU::compute(const TensorView& input) const
{
    const float* w = value(m_weight).data();
    if (m_numParameters == 1) {
        const float a = w[0];
        return mapElements(input, [a](float x) { return x >= 0.0F ? x : a * x; });
    }
    const int axis = input.rank() >= 2 ? 1 : 0;
    const std::int64_t channels = input.dim(axis);
    if (channels != m_numParameters) {
        throw Error(where() + ": input " + input.shape().toString() + " has " +
                    std::to_string(channels) + " channels on axis " + std::to_string(axis) +
                    ", expected " + std::to_string(m_numParameters) + " (num_parameters)");
    }
    std::int64_t inner = 1;
    for (int a = axis + 1; a < input.rank(); ++a) {
        inner *= input.dim(a);
    }
    Tensor out(input.shape());
    const std::int64_t n = input.numel();
    for (std::int64_t i = 0; i < n; ++i) {
        const float x = input[i];
        const float a = w[(i / inner) % channels];
        out[i] = x >= 0.0F ? x : a * x;
    }
    return out;
}

}  // namespace spike::engine
