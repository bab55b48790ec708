// SumPool2d and AvgPool2d: argument checks, repr/config, and the window sum. See pooling.hpp.
#include "engine/layers/pooling.hpp"

#include <algorithm>

namespace spike::engine {

namespace {

std::string pair(Size2 v)
{
    std::string s = "(";  // appended piece by piece: GCC 12 warns falsely on "(" + to_string()
    s += std::to_string(v[0]);
    s += ", ";
    s += std::to_string(v[1]);
    s += ")";
    return s;
}

/// The checked geometry of a pool: stride and input size resolved.
struct PoolGeometry {
    Size2 stride;
    Size2 inputSize;
    Size2 outputSize;
};

PoolGeometry resolve(const char* type, std::int64_t channels, Size2 kernel,
                     std::optional<Size2> strideOrNone, Size2 padding, Size2 inputSize)
{
    const std::string prefix = std::string(type) + ": ";
    const auto positive = [](Size2 v) { return v[0] >= 1 && v[1] >= 1; };
    if (channels < 1) {
        throw Error(prefix + "channels must be >= 1, got " + std::to_string(channels));
    }
    if (!positive(kernel)) {
        throw Error(prefix + "kernel_size must be >= 1, got " + pair(kernel));
    }
    const Size2 stride = strideOrNone.value_or(kernel);
    if (!positive(stride)) {
        throw Error(prefix + "stride must be >= 1, got " + pair(stride));
    }
    if (padding[0] < 0 || padding[1] < 0) {
        throw Error(prefix + "padding must be >= 0, got " + pair(padding));
    }
    if (inputSize[0] == 0 && inputSize[1] == 0) {
        for (int a = 0; a < 2; ++a) {
            inputSize[a] = std::max<std::int64_t>(1, kernel[a] - 2 * padding[a]);
        }
    }
    if (!positive(inputSize)) {
        throw Error(prefix + "input_size must be >= 1 (or (0, 0) for the smallest input the "
                    "kernel fits), got " + pair(inputSize));
    }
    Size2 out{};
    for (int a = 0; a < 2; ++a) {
        out[a] = convOutputExtent(inputSize[a], kernel[a], stride[a], padding[a]);
        if (out[a] < 1) {
            throw Error(prefix + "kernel " + pair(kernel) + " is larger than the padded input_size " +
                        pair({inputSize[0] + 2 * padding[0], inputSize[1] + 2 * padding[1]}));
        }
    }
    return {stride, inputSize, out};
}

}  // namespace

Pool2d::Pool2d(const char* type, bool average, std::int64_t channels, Size2 kernelSize,
               std::optional<Size2> stride, Size2 padding, Size2 inputSize)
    : Layer([&] {
                const PoolGeometry g = resolve(type, channels, kernelSize, stride, padding, inputSize);
                return Shape{channels, g.inputSize[0], g.inputSize[1]};
            }(),
            [&] {
                const PoolGeometry g = resolve(type, channels, kernelSize, stride, padding, inputSize);
                return Shape{channels, g.outputSize[0], g.outputSize[1]};
            }()),
      m_average(average),
      m_channels(channels),
      m_kernel(kernelSize),
      m_stride(stride.value_or(kernelSize)),
      m_padding(padding),
      m_inputSize({sampleInputShape()[1], sampleInputShape()[2]})
{
}

Size2 Pool2d::outputSize(Size2 input) const
{
    Size2 out{};
    for (int a = 0; a < 2; ++a) {
        out[a] = convOutputExtent(input[a], m_kernel[a], m_stride[a], m_padding[a]);
        if (out[a] < 1) {
            throw Error(where() + ": kernel " + pair(m_kernel) + " is larger than the padded input " +
                        pair({input[0] + 2 * m_padding[0], input[1] + 2 * m_padding[1]}));
        }
    }
    return out;
}

std::string Pool2d::extraRepr() const
{
    return "channels=" + std::to_string(m_channels) + ", kernel_size=" + pair(m_kernel) +
           ", stride=" + pair(m_stride) + ", padding=" + pair(m_padding);
}

nlohmann::json Pool2d::config() const
{
    const auto arr = [](Size2 v) { return nlohmann::json::array({v[0], v[1]}); };
    return {{"channels", m_channels},
            {"kernel_size", arr(m_kernel)},
            {"stride", arr(m_stride)},
            {"padding", arr(m_padding)},
            {"input_size", arr(m_inputSize)}};
}

Tensor Pool2d::compute(const TensorView& input) const
{
    const int rank = input.rank();
    const int c0 = imageChannelAxis(where(), input, m_channels);
    const std::int64_t h = input.dim(c0 + 1);
    const std::int64_t w = input.dim(c0 + 2);
    const Size2 outHW = outputSize({h, w});
    const std::int64_t ho = outHW[0];
    const std::int64_t wo = outHW[1];
    const std::int64_t planes = (rank == 4 ? input.dim(0) : 1) * m_channels;
    Tensor out(rank == 4 ? Shape{input.dim(0), m_channels, ho, wo} : Shape{m_channels, ho, wo});
    // torch divides the float sum by the integer window size converted to float.
    const float divisor = static_cast<float>(m_kernel[0] * m_kernel[1]);
    for (std::int64_t p = 0; p < planes; ++p) {
        const float* plane = input.data() + p * h * w;
        float* y = out.data() + p * ho * wo;
        for (std::int64_t oy = 0; oy < ho; ++oy) {
            const std::int64_t top = oy * m_stride[0] - m_padding[0];
            const std::int64_t y0 = std::max<std::int64_t>(top, 0);
            const std::int64_t y1 = std::min(top + m_kernel[0], h);
            for (std::int64_t ox = 0; ox < wo; ++ox) {
                const std::int64_t left = ox * m_stride[1] - m_padding[1];
                const std::int64_t x0 = std::max<std::int64_t>(left, 0);
                const std::int64_t x1 = std::min(left + m_kernel[1], w);
                float sum = 0.0F;
                for (std::int64_t iy = y0; iy < y1; ++iy) {
                    for (std::int64_t ix = x0; ix < x1; ++ix) {
                        sum += plane[iy * w + ix];
                    }
                }
                y[oy * wo + ox] = m_average ? sum / divisor : sum;
            }
        }
    }
    return out;
}

SumPool2d::SumPool2d(std::int64_t channels, Size2 kernelSize, std::optional<Size2> stride,
                     Size2 padding, Size2 inputSize)
    : Pool2d("SumPool2d", false, channels, kernelSize, stride, padding, inputSize)
{
    finishRegistration();
}

AvgPool2d::AvgPool2d(std::int64_t channels, Size2 kernelSize, std::optional<Size2> stride,
                     Size2 padding, Size2 inputSize)
    : Pool2d("AvgPool2d", true, channels, kernelSize, stride, padding, inputSize)
{
    finishRegistration();
}

}  // namespace spike::engine
