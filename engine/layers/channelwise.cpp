// Scale and Heaviside. See channelwise.hpp for the definitions.
#include "engine/layers/channelwise.hpp"

namespace spike::engine {

namespace {

/// Checks `channels` before the Layer base is built from it.
std::int64_t checkedChannels(const char* type, std::int64_t channels)
{
    if (channels < 1) {
        throw Error(std::string(type) + ": shape must be >= 1 channel, got " +
                    std::to_string(channels));
    }
    return channels;
}

/// y[i] = f(x[i], p[i mod n]) for a parameter p of n channels on the last axis.
template <typename F>
Tensor mapChannels(const TensorView& input, const float* p, std::int64_t n, F f)
{
    Tensor out(input.shape());
    const float* __restrict x = input.data();
    float* __restrict y = out.data();
    const std::int64_t rows = input.numel() / n;
    for (std::int64_t r = 0; r < rows; ++r) {
        for (std::int64_t j = 0; j < n; ++j) {
            y[r * n + j] = f(x[r * n + j], p[j]);
        }
    }
    return out;
}

}  // namespace

ChannelwiseLayer::ChannelwiseLayer(const char* type, std::int64_t channels, bool spikingOutput)
    : Layer(Shape{checkedChannels(type, channels)}, Shape{channels}, false, spikingOutput)
{
}

nlohmann::json ChannelwiseLayer::config() const
{
    return {{"shape", {sizeIn()}}};
}

std::string ChannelwiseLayer::extraRepr() const
{
    return "shape=(" + std::to_string(sizeIn()) + ",)";
}

void ChannelwiseLayer::checkChannels(const TensorView& input) const
{
    if (input.rank() < 1 || input.dim(input.rank() - 1) != sizeIn()) {
        throw Error(where() + ": input " + input.shape().toString() + " must have the " +
                    std::to_string(sizeIn()) + " channels on its last axis");
    }
}

Scale::Scale(std::int64_t channels, const AttributeMap& initial)
    : ChannelwiseLayer("Scale", channels, false)
{
    m_scale = addAttribute(parameter("scale").family("weights").shapes({Shape{channels}})
                               .initConstant(1.0F)
                               .doc("Factor per channel: y = scale * x"));
    finishRegistration(initial);
}

Tensor Scale::compute(const TensorView& input) const
{
    checkChannels(input);
    return mapChannels(input, value(m_scale).data(), sizeIn(),
                       [](float x, float s) { return s * x; });
}

Heaviside::Heaviside(std::int64_t channels, const AttributeMap& initial)
    : ChannelwiseLayer("Heaviside", channels, true)
{
    m_threshold = addAttribute(parameter("threshold").family("thresholds").shapes({Shape{channels}})
                                   .initConstant(0.0F)
                                   .doc("Per channel: y = 1 where x > threshold (strictly), else 0"));
    finishRegistration(initial);
}

Tensor Heaviside::compute(const TensorView& input) const
{
    checkChannels(input);
    return mapChannels(input, value(m_threshold).data(), sizeIn(),
                       [](float x, float th) { return x > th ? 1.0F : 0.0F; });
}

}  // namespace spike::engine
