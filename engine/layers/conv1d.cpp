// Conv1d: argument checks, PyTorch-style repr/config, and the forward through Conv2d's
// convolve2d(). See conv1d.hpp for the definition.
#include "engine/layers/conv1d.hpp"

#include "engine/layers/conv2d.hpp"
#include "engine/layers/init.hpp"

#include <algorithm>

namespace spike::engine {

namespace {

/// "(3,)", PyTorch's text of a one-element tuple.
std::string single(std::int64_t v)
{
    std::string s = "(";  // appended piece by piece: GCC 12 warns falsely on "(" + to_string()
    s += std::to_string(v);
    s += ",)";
    return s;
}

/// Checks the constructor arguments and returns the per-sample L, resolving 0.
std::int64_t resolveLength(std::int64_t in, std::int64_t out, std::int64_t kernel,
                           std::int64_t stride, std::int64_t padding, std::int64_t dilation,
                           std::int64_t groups, std::int64_t length)
{
    if (in < 1 || out < 1) {
        throw Error("Conv1d: in_channels and out_channels must be >= 1, got (" +
                    std::to_string(in) + ", " + std::to_string(out) + ")");
    }
    if (kernel < 1) {
        throw Error("Conv1d: kernel_size must be >= 1, got " + std::to_string(kernel));
    }
    if (stride < 1) {
        throw Error("Conv1d: stride must be >= 1, got " + std::to_string(stride));
    }
    if (dilation < 1) {
        throw Error("Conv1d: dilation must be >= 1, got " + std::to_string(dilation));
    }
    if (padding < 0) {
        throw Error("Conv1d: padding must be >= 0, got " + std::to_string(padding));
    }
    if (groups < 1 || in % groups != 0 || out % groups != 0) {
        throw Error("Conv1d: groups (" + std::to_string(groups) +
                    ") must be >= 1 and divide in_channels (" + std::to_string(in) +
                    ") and out_channels (" + std::to_string(out) + ")");
    }
    if (length == 0) {
        length = std::max<std::int64_t>(1, dilation * (kernel - 1) + 1 - 2 * padding);
    }
    if (length < 1) {
        throw Error("Conv1d: input_size must be >= 1 (or 0 for the smallest input the kernel "
                    "fits), got " + std::to_string(length));
    }
    if (convOutputExtent(length, kernel, stride, padding, dilation) < 1) {
        throw Error("Conv1d: kernel " + std::to_string(kernel) + " with dilation " +
                    std::to_string(dilation) + " is larger than the padded input_size " +
                    std::to_string(length + 2 * padding));
    }
    return length;
}

}  // namespace

Conv1d::Conv1d(std::int64_t inChannels, std::int64_t outChannels, std::int64_t kernelSize,
               std::int64_t stride, std::int64_t padding, std::int64_t dilation,
               std::int64_t groups, bool bias, std::int64_t inputSize, const AttributeMap& initial)
    : Layer(Shape{inChannels, resolveLength(inChannels, outChannels, kernelSize, stride, padding,
                                            dilation, groups, inputSize)},
            Shape{outChannels,
                  convOutputExtent(resolveLength(inChannels, outChannels, kernelSize, stride,
                                                 padding, dilation, groups, inputSize),
                                   kernelSize, stride, padding, dilation)}),
      m_in(inChannels),
      m_out(outChannels),
      m_kernel(kernelSize),
      m_stride(stride),
      m_padding(padding),
      m_dilation(dilation),
      m_groups(groups),
      m_inputSize(sampleInputShape()[1]),
      m_hasBias(bias)
{
    const Shape weightShape{outChannels, inChannels / groups, kernelSize};
    const std::int64_t fanIn = inChannels / groups * kernelSize;
    m_seed = addAttribute(simulationParameter("seed").integer().range(0, 16777216)
                              .initConstant(0.0F).live(false)
                              .doc("Seed of the weight initialisation (used by resetParameters)"));
    m_weight = addAttribute(parameter("weight").family("weights").shapes({weightShape})
                                .init(uniformInit(weightShape, fanIn, 1))
                                .doc("Kernels (out_channels, in_channels / groups, k)"));
    if (bias) {
        m_bias = addAttribute(parameter("bias").family("biases").shapes({Shape{outChannels}})
                                  .init(uniformInit(Shape{outChannels}, fanIn, 2))
                                  .doc("Bias (out_channels,)"));
    }
    finishRegistration(initial);
}

std::int64_t Conv1d::outputSize(std::int64_t length) const
{
    const std::int64_t out = convOutputExtent(length, m_kernel, m_stride, m_padding, m_dilation);
    if (out < 1) {
        throw Error(where() + ": kernel " + std::to_string(m_kernel) + " with dilation " +
                    std::to_string(m_dilation) + " is larger than the padded input " +
                    std::to_string(length + 2 * m_padding));
    }
    return out;
}

std::string Conv1d::extraRepr() const
{
    std::string s = std::to_string(m_in) + ", " + std::to_string(m_out) +
                    ", kernel_size=" + single(m_kernel) + ", stride=" + single(m_stride);
    if (m_padding != 0) {
        s += ", padding=" + single(m_padding);
    }
    if (m_dilation != 1) {
        s += ", dilation=" + single(m_dilation);
    }
    if (m_groups != 1) {
        s += ", groups=" + std::to_string(m_groups);
    }
    if (!m_hasBias) {
        s += ", bias=False";
    }
    return s;
}

nlohmann::json Conv1d::config() const
{
    return {{"in_channels", m_in},   {"out_channels", m_out}, {"kernel_size", m_kernel},
            {"stride", m_stride},    {"padding", m_padding},  {"dilation", m_dilation},
            {"groups", m_groups},    {"bias", m_hasBias},     {"input_size", m_inputSize}};
}

Tensor Conv1d::compute(const TensorView& input) const
{
    const int rank = input.rank();
    if (rank != 2 && rank != 3) {
        throw Error(where() + ": input " + input.shape().toString() +
                    " must be (N, C, L) or (C, L)");
    }
    const int c0 = rank - 2;
    if (input.dim(c0) != m_in) {
        throw Error(where() + ": input " + input.shape().toString() + " has " +
                    std::to_string(input.dim(c0)) + " channels on axis " + std::to_string(c0) +
                    ", expected " + std::to_string(m_in));
    }
    const std::int64_t batches = rank == 3 ? input.dim(0) : 1;
    const std::int64_t length = input.dim(c0 + 1);
    const std::int64_t lo = outputSize(length);
    Tensor out(rank == 3 ? Shape{batches, m_out, lo} : Shape{m_out, lo});
    convolve2d({m_in, m_out, m_groups, {1, m_kernel}, {1, m_stride}, {0, m_padding}, {1, m_dilation}},
               input.data(), batches, {1, length}, {1, lo}, value(m_weight).data(),
               m_hasBias ? value(m_bias).data() : nullptr, out.data());
    return out;
}

}  // namespace spike::engine
