// Conv2d with torch.nn.Conv2d semantics (zero padding, cross-correlation).
//
//     out[n, o, y, x] = bias[o] + sum over c in group(o), ki, kj of
//                       weight[o, c, ki, kj] * in[n, g*Cg + c, y*sh - ph + ki*dh, x*sw - pw + kj*dw]
//     Ho = floor((H + 2 ph - dh (kh - 1) - 1) / sh) + 1, likewise Wo
//
// with Cg = in_channels / groups input channels and out_channels / groups output channels per
// group g; positions outside the input read as zero. forward() takes (N, C, H, W) or (C, H, W)
// of any H, W; evolve() sees (B, T, C*H*W) and views every step as (C, H, W) with H, W = the
// `input_size` given at construction. Weights initialise like PyTorch: weight and bias
// ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in = Cg*kh*kw, from the module's seeded generator.
//
// Computed per group as GEMMs, weight (Og, Cg*kh*kw) x columns (Cg*kh*kw, Ho*Wo), one sample at
// a time or, for small images, several side by side; one scratch buffer per call (im2col is
// skipped for 1x1 kernels with stride 1 and no padding). That computation is convolve2d(),
// which Conv1d (conv1d.hpp) runs as a 1 x k kernel over (C, 1, L).
#pragma once

#include "engine/layers/layer.hpp"

#include <array>

namespace spike::engine {

/// A (height, width) pair of extents or steps.
using Size2 = std::array<std::int64_t, 2>;

/// Output extent of a convolution or pooling window along one axis, floor((in + 2 padding -
/// dilation (kernel - 1) - 1) / stride) + 1, or 0 when the window does not fit the padded input.
std::int64_t convOutputExtent(std::int64_t in, std::int64_t kernel, std::int64_t stride,
                              std::int64_t padding, std::int64_t dilation = 1);

/// The channel axis of an image input of a module (`where` names it): 0 for (C, H, W), 1 for
/// (N, C, H, W). Throws Error for another rank or a channel count other than `channels`.
int imageChannelAxis(const std::string& where, const TensorView& input, std::int64_t channels);

/// What a 2-D convolution computes with, apart from its data (Conv2d's arguments; Conv1d's as
/// a 1 x k kernel over (C, 1, L)).
struct ConvGeometry {
    std::int64_t inChannels = 1;
    std::int64_t outChannels = 1;
    std::int64_t groups = 1;
    Size2 kernel{1, 1};
    Size2 stride{1, 1};
    Size2 padding{0, 0};
    Size2 dilation{1, 1};
};

/// The convolution of the top comment: `input` (batches, C, H, W) with H, W = `inputHW`,
/// `weight` (O, C / groups, kh, kw) and `bias` (O,) or nullptr, into `out` (batches, O, Ho, Wo)
/// with Ho, Wo = `outputHW` (which the caller checked, see convOutputExtent). Allocates one
/// scratch buffer per call.
void convolve2d(const ConvGeometry& g, const float* input, std::int64_t batches, Size2 inputHW,
                Size2 outputHW, const float* weight, const float* bias, float* out);

class Conv2d : public Layer {
public:
    /// `inputSize` (H, W) fixes the per-sample shape for evolve() and the editor's ports only;
    /// {0, 0} picks the smallest input the kernel fits (1 x 1 whenever it fits). Throws Error
    /// for non-positive sizes, channels not divisible by `groups`, or a kernel larger than the
    /// padded `inputSize` when one is given.
    Conv2d(std::int64_t inChannels, std::int64_t outChannels, Size2 kernelSize,
           Size2 stride = {1, 1}, Size2 padding = {0, 0}, Size2 dilation = {1, 1},
           std::int64_t groups = 1, bool bias = true, Size2 inputSize = {0, 0},
           const AttributeMap& initial = {});

    std::string className() const override { return "Conv2d"; }
    /// PyTorch's text: "3, 4, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1)".
    std::string extraRepr() const override;
    nlohmann::json config() const override;
    std::vector<std::string> recordableSignals() const override { return {"output"}; }

    std::int64_t inChannels() const { return m_in; }
    std::int64_t outChannels() const { return m_out; }
    Size2 kernelSize() const { return m_kernel; }
    Size2 stride() const { return m_stride; }
    Size2 padding() const { return m_padding; }
    Size2 dilation() const { return m_dilation; }
    std::int64_t groups() const { return m_groups; }
    bool hasBias() const { return m_hasBias; }
    /// (H, W) of the per-sample shape used by evolve().
    Size2 inputSize() const { return m_inputSize; }
    /// Output (Ho, Wo) for an input (H, W); throws Error naming the module when the kernel does
    /// not fit the padded input.
    Size2 outputSize(Size2 input) const;

protected:
    Tensor compute(const TensorView& input) const override;

private:
    std::int64_t m_in, m_out, m_groups;
    Size2 m_kernel, m_stride, m_padding, m_dilation, m_inputSize;
    bool m_hasBias;
    AttributeId m_weight, m_bias, m_seed;
};

}  // namespace spike::engine
