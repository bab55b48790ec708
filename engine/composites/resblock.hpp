// ResBlock: DI-engine's 2-D residual block (ding.torch_utils.ResBlock), built from conv blocks
// Sequential(Conv2d, norm, activation) named like DI-engine's conv2d_block, so state-dict keys
// match ("conv1.0.weight", "conv1.1.running_mean", ...). In the order the code runs:
//
//     basic       y = conv2(conv1(x))                      conv1 3x3 + norm + act, conv2 3x3 + norm
//                 out = act(y + x)
//     bottleneck  y = conv3(conv2(conv1(x)))               conv1 1x1 + norm + act, conv2 3x3 + norm
//                 out = act(y + x)                         + act, conv3 1x1 + norm
//     downsample  y = conv2(conv1(x))                      conv1 3x3 stride 2 + norm + act,
//                 out = act(y + conv3(x))                  conv2 3x3 + norm, conv3 3x3 stride 2
//                                                          (no norm): the identity path
//
// 3x3 convs have padding 1, 1x1 convs none. Children, in torch's order: "act" (the activation
// applied after the sum; torch shares one instance with the conv blocks), "conv1", "conv2" and,
// for bottleneck and downsample, "conv3". norm is BatchNorm2d ("BN") or absent ("none"):
// DI-engine's "LN" is a GroupNorm, which the engine does not have. basic and bottleneck need
// out_channels == in_channels (the residual is added as is).
// forward() takes (N, C, H, W) of any H, W; evolve() views each step as (C, H, W) with (H, W) =
// input_size, and uses the norms' running statistics (see normalization.hpp).
// Thread: owned by whichever thread evolves it.
#pragma once

#include "engine/layers/conv2d.hpp"
#include "engine/core/module.hpp"

#include <string>

namespace spike::engine {

/// Settings of a ResBlock beyond its input channels (DI-engine's defaults).
struct ResBlockOptions {
    std::string activation = "ReLU";  ///< "ReLU", "GELU", "Tanh" or "Sigmoid"
    std::string normType = "BN";      ///< "BN" (BatchNorm2d) or "none"
    std::string resType = "basic";    ///< "basic", "bottleneck" or "downsample"
    bool bias = true;                 ///< biases on the convolutions
    std::int64_t outChannels = 0;     ///< 0: same as in_channels
    Size2 inputSize = {1, 1};         ///< (H, W) of one step in evolve()
    std::int64_t seed = 0;            ///< conv1, conv2, conv3 draw weights with seed, +1, +2
};

class ResBlock : public Module {
public:
    /// Throws Error for an unknown activation, norm or residual type, sizes < 1, or
    /// out_channels != in_channels in a basic or bottleneck block.
    explicit ResBlock(std::int64_t inChannels, const ResBlockOptions& options = {});
    /// Builds from a model-file config (DI-engine's names: in_channels, out_channels, activation,
    /// norm_type, res_type, bias, plus input_size [H, W]); throws Error naming the key.
    static std::unique_ptr<Module> fromConfig(const nlohmann::json& config);

    std::string className() const override { return "ResBlock"; }
    nlohmann::json config() const override;

    /// The torch call on (N, C, H, W), with hooks; the norms follow train()/eval().
    Tensor forward(const Tensor& input) override;
    /// conv1 -> conv2 (-> conv3) -> act "+ x (residual)"; downsample: conv1 -> conv2 -> act
    /// "+ conv3(x)" and conv3 -> act "identity path".
    std::vector<FlowStep> dataFlow() const override;

    std::int64_t inChannels() const { return m_in; }
    const ResBlockOptions& options() const { return m_options; }
    /// (H, W) of the output for the evolve() input size.
    Size2 outputSize() const { return m_outSize; }

protected:
    Tensor evolveImpl(const TensorView& input, const Recorder& recorder) override;

private:
    std::int64_t m_in;
    ResBlockOptions m_options;
    Size2 m_outSize;
    Module* m_act = nullptr;
    Module* m_conv1 = nullptr;
    Module* m_conv2 = nullptr;
    Module* m_conv3 = nullptr;
};

}  // namespace spike::engine
