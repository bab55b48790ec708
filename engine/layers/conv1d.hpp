// Conv1d with torch.nn.Conv1d semantics (zero padding, cross-correlation).
//
//     out[n, o, x] = bias[o] + sum over c in group(o), kj of
//                    weight[o, c, kj] * in[n, g*Cg + c, x*s - p + kj*d]
//     Lo = floor((L + 2 p - d (k - 1) - 1) / s) + 1
//
// with Cg = in_channels / groups input channels and out_channels / groups output channels per
// group g; positions outside the input read as zero. forward() takes (N, C, L) or (C, L) of any
// L; evolve() sees (B, T, C*L) and views every step as (C, L) with L = the `input_size` given
// at construction. Weights initialise like PyTorch: weight and bias ~ U(-1/sqrt(fan_in),
// 1/sqrt(fan_in)), fan_in = Cg*k, from the module's seeded generator.
//
// Computed by Conv2d's convolve2d() (conv2d.hpp) as a 1 x k kernel with stride (1, s), padding
// (0, p) and dilation (1, d) over (C, 1, L): the weight (out, in/groups, k) is laid out exactly
// as (out, in/groups, 1, k), so nothing is copied. One scratch buffer per call.
// Thread: owned by whichever thread evolves it.
#pragma once

#include "engine/layers/layer.hpp"

#include <cstdint>

namespace spike::engine {

class Conv1d : public Layer {
public:
    /// `inputSize` L fixes the per-sample shape (C, L) for evolve() and the editor's ports only;
    /// 0 picks the smallest input the kernel fits (1 whenever it fits). Throws Error for
    /// non-positive sizes, channels not divisible by `groups`, or a kernel larger than the
    /// padded `inputSize` when one is given.
    Conv1d(std::int64_t inChannels, std::int64_t outChannels, std::int64_t kernelSize,
           std::int64_t stride = 1, std::int64_t padding = 0, std::int64_t dilation = 1,
           std::int64_t groups = 1, bool bias = true, std::int64_t inputSize = 0,
           const AttributeMap& initial = {});

    std::string className() const override { return "Conv1d"; }
    /// PyTorch's text: "3, 4, kernel_size=(3,), stride=(2,), padding=(1,)".
    std::string extraRepr() const override;
    nlohmann::json config() const override;
    std::vector<std::string> recordableSignals() const override { return {"output"}; }

    std::int64_t inChannels() const { return m_in; }
    std::int64_t outChannels() const { return m_out; }
    std::int64_t kernelSize() const { return m_kernel; }
    std::int64_t stride() const { return m_stride; }
    std::int64_t padding() const { return m_padding; }
    std::int64_t dilation() const { return m_dilation; }
    std::int64_t groups() const { return m_groups; }
    bool hasBias() const { return m_hasBias; }
    /// L of the per-sample shape used by evolve().
    std::int64_t inputSize() const { return m_inputSize; }
    /// Output length for an input of length `length`; throws Error naming the module when the
    /// kernel does not fit the padded input.
    std::int64_t outputSize(std::int64_t length) const;

protected:
    Tensor compute(const TensorView& input) const override;

private:
    std::int64_t m_in, m_out, m_kernel, m_stride, m_padding, m_dilation, m_groups, m_inputSize;
    bool m_hasBias;
    AttributeId m_weight, m_bias, m_seed;
};

}  // namespace spike::engine
