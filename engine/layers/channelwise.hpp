// Scale and Heaviside: NIR's per-channel element-wise nodes, each with one (N,) Parameter.
//
//     Scale      y[..., j] = scale[j] * x[..., j]                      (float32, one product)
//     Heaviside  y[..., j] = 1 if x[..., j] > threshold[j] else 0     (strict: x = threshold gives 0)
//
// Heaviside is NIR's Threshold node (the engine's "Threshold" is torch.nn.Threshold, another
// function); its output is spikes (0 or 1). Both take any input whose last axis has the N
// channels in forward() ((N,), (B, N), (B, T, N), ...; the Nth-from-last axes are batch axes)
// and (B, T, N) in evolve(), where every step is one (N,) sample; NaN gives NaN (Scale) and 0
// (Heaviside). Stateless; allocation-free but for the output. Thread: owned by whichever thread
// evolves it.
#pragma once

#include "engine/layers/layer.hpp"

namespace spike::engine {

/// Common base: N channels in and out, the channels on the last axis.
class ChannelwiseLayer : public Layer {
public:
    nlohmann::json config() const override;
    std::string extraRepr() const override;
    std::vector<std::string> recordableSignals() const override { return {"output"}; }
    std::int64_t channels() const { return sizeIn(); }

protected:
    /// Throws Error "<type>: ..." for fewer than one channel.
    ChannelwiseLayer(const char* type, std::int64_t channels, bool spikingOutput);
    /// Throws Error naming the module when the last axis of `input` is not the N channels.
    void checkChannels(const TensorView& input) const;
};

/// y = scale * x per channel (NIR Scale).
class Scale : public ChannelwiseLayer {
public:
    /// `initial` may give "scale" (N,); it starts at 1.
    explicit Scale(std::int64_t channels = 1, const AttributeMap& initial = {});
    std::string className() const override { return "Scale"; }

protected:
    Tensor compute(const TensorView& input) const override;

private:
    AttributeId m_scale;
};

/// y = 1 where x > threshold, else 0, per channel (NIR Threshold).
class Heaviside : public ChannelwiseLayer {
public:
    /// `initial` may give "threshold" (N,); it starts at 0.
    explicit Heaviside(std::int64_t channels = 1, const AttributeMap& initial = {});
    std::string className() const override { return "Heaviside"; }

protected:
    Tensor compute(const TensorView& input) const override;

private:
    AttributeId m_threshold;
};

}  // namespace spike::engine
