// SumPool2d and AvgPool2d: window sums over (C, H, W) samples, NIR's pooling nodes.
//
//     ih0 = y*sh - ph,  iw0 = x*sw - pw                  the window's corner in the padded input
//     sum = sum over ih in [ih0, ih0 + kh) ∩ [0, H), iw in [iw0, iw0 + kw) ∩ [0, W) of in[c, ih, iw]
//           (float32, row by row, left to right: padded positions add nothing)
//     SumPool2d:  out[c, y, x] = sum
//     AvgPool2d:  out[c, y, x] = sum / (kh * kw)         padded zeros counted (count_include_pad)
//     Ho = floor((H + 2 ph - kh) / sh) + 1, likewise Wo
//
// AvgPool2d is torch.nn.AvgPool2d(kernel_size, stride, padding) with its defaults
// (count_include_pad=True, ceil_mode=False), summed in torch's CPU order so the results are
// bit-identical; SumPool2d equals torch's avg_pool2d(..., divisor_override=1). Channels pool
// independently. forward() takes (N, C, H, W) or (C, H, W) of any H, W; evolve() sees
// (B, T, C*H*W) and views every step as (C, H, W) with H, W = `input_size`. The stride defaults
// to the kernel size. Unlike torch, a padding over half the kernel is accepted (a window wholly
// in the padding gives 0). No attributes; allocation-free but for the output.
// Thread: owned by whichever thread evolves it.
#pragma once

#include "engine/layers/conv2d.hpp"
#include "engine/layers/layer.hpp"

#include <optional>

namespace spike::engine {

/// Common base of the two pools: the window sum, checks, repr and config.
class Pool2d : public Layer {
public:
    std::string extraRepr() const override;
    nlohmann::json config() const override;
    std::vector<std::string> recordableSignals() const override { return {"output"}; }

    std::int64_t channels() const { return m_channels; }
    Size2 kernelSize() const { return m_kernel; }
    Size2 stride() const { return m_stride; }
    Size2 padding() const { return m_padding; }
    /// (H, W) of the per-sample shape used by evolve().
    Size2 inputSize() const { return m_inputSize; }
    /// Output (Ho, Wo) for an input (H, W); throws Error naming the module when the kernel does
    /// not fit the padded input.
    Size2 outputSize(Size2 input) const;

protected:
    /// `stride` nullopt: the kernel size. `inputSize` {0, 0}: the smallest input the kernel fits.
    /// Throws Error "<type>: ..." for a channel count, kernel or stride below 1, a negative
    /// padding, or a kernel larger than the padded `inputSize`.
    Pool2d(const char* type, bool average, std::int64_t channels, Size2 kernelSize,
           std::optional<Size2> stride, Size2 padding, Size2 inputSize);
    Tensor compute(const TensorView& input) const override;

private:
    bool m_average;
    std::int64_t m_channels;
    Size2 m_kernel, m_stride, m_padding, m_inputSize;
};

/// Sum over each kh x kw window (NIR SumPool2d).
class SumPool2d : public Pool2d {
public:
    SumPool2d(std::int64_t channels, Size2 kernelSize, std::optional<Size2> stride = std::nullopt,
              Size2 padding = {0, 0}, Size2 inputSize = {0, 0});
    std::string className() const override { return "SumPool2d"; }
};

/// Mean over each kh x kw window, padded zeros included (torch.nn.AvgPool2d, NIR AvgPool2d).
class AvgPool2d : public Pool2d {
public:
    AvgPool2d(std::int64_t channels, Size2 kernelSize, std::optional<Size2> stride = std::nullopt,
              Size2 padding = {0, 0}, Size2 inputSize = {0, 0});
    std::string className() const override { return "AvgPool2d"; }
};

}  // namespace spike::engine
