// Conv2d: argument checks, PyTorch-style repr/config, and the im2col + GEMM forward.
// See conv2d.hpp for the definition.
#include "engine/layers/conv2d.hpp"

#include "engine/layers/init.hpp"

#include <algorithm>
#include <memory>
#include <vector>

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

/// Checks the constructor arguments and returns the per-sample (H, W), resolving {0, 0}.
Size2 resolveInputSize(std::int64_t in, std::int64_t out, Size2 kernel, Size2 stride,
                       Size2 padding, Size2 dilation, std::int64_t groups, Size2 inputSize)
{
    const auto positive = [](Size2 v) { return v[0] >= 1 && v[1] >= 1; };
    if (in < 1 || out < 1) {
        throw Error("Conv2d: in_channels and out_channels must be >= 1, got (" +
                    std::to_string(in) + ", " + std::to_string(out) + ")");
    }
    if (!positive(kernel)) {
        throw Error("Conv2d: kernel_size must be >= 1, got " + pair(kernel));
    }
    if (!positive(stride)) {
        throw Error("Conv2d: stride must be >= 1, got " + pair(stride));
    }
    if (!positive(dilation)) {
        throw Error("Conv2d: dilation must be >= 1, got " + pair(dilation));
    }
    if (padding[0] < 0 || padding[1] < 0) {
        throw Error("Conv2d: padding must be >= 0, got " + pair(padding));
    }
    if (groups < 1 || in % groups != 0 || out % groups != 0) {
        throw Error("Conv2d: groups (" + std::to_string(groups) +
                    ") must be >= 1 and divide in_channels (" + std::to_string(in) +
                    ") and out_channels (" + std::to_string(out) + ")");
    }
    if (inputSize[0] == 0 && inputSize[1] == 0) {
        for (int a = 0; a < 2; ++a) {
            inputSize[a] = std::max<std::int64_t>(1, dilation[a] * (kernel[a] - 1) + 1 - 2 * padding[a]);
        }
    }
    if (!positive(inputSize)) {
        throw Error("Conv2d: input_size must be >= 1 (or (0, 0) for the smallest input the "
                    "kernel fits), got " + pair(inputSize));
    }
    for (int a = 0; a < 2; ++a) {
        if (convOutputExtent(inputSize[a], kernel[a], stride[a], padding[a], dilation[a]) < 1) {
            throw Error("Conv2d: kernel " + pair(kernel) + " with dilation " + pair(dilation) +
                        " is larger than the padded input_size " +
                        pair({inputSize[0] + 2 * padding[0], inputSize[1] + 2 * padding[1]}));
        }
    }
    return inputSize;
}

/// Per-sample input shape (C, H, W) for evolve(); checks every argument.
Shape sampleIn(std::int64_t in, std::int64_t out, Size2 kernel, Size2 stride, Size2 padding,
               Size2 dilation, std::int64_t groups, Size2 inputSize)
{
    const Size2 hw = resolveInputSize(in, out, kernel, stride, padding, dilation, groups, inputSize);
    return Shape{in, hw[0], hw[1]};
}

/// Per-sample output shape (O, Ho, Wo) for evolve().
Shape sampleOut(std::int64_t in, std::int64_t out, Size2 kernel, Size2 stride, Size2 padding,
                Size2 dilation, std::int64_t groups, Size2 inputSize)
{
    const Size2 hw = resolveInputSize(in, out, kernel, stride, padding, dilation, groups, inputSize);
    return Shape{out, convOutputExtent(hw[0], kernel[0], stride[0], padding[0], dilation[0]),
                 convOutputExtent(hw[1], kernel[1], stride[1], padding[1], dilation[1])};
}

/// GEMMs narrower than this many columns batch several samples together.
constexpr std::int64_t kWideGemm = 256;

/// im2col for one sample and group, through a table of input offsets: row (c, ki, kj) of the
/// columns receives in[c, y*sh - ph + ki*dh, x*sw - pw + kj*dw] for every output pixel (y, x),
/// or zero outside the input. The table holds, per (ki, kj) and pixel, the offset within one
/// input plane, or -1; it is the same for every channel, sample and group, so it is built once
/// per call and the copy is one branch-light loop even for tiny images.
struct Im2col {
    std::int64_t planeSize;             ///< H * W
    std::int64_t pixels;                ///< Ho * Wo
    std::int64_t taps;                  ///< kh * kw
    std::vector<std::int32_t> offsets;  ///< (taps, pixels)

    Im2col(std::int64_t h, std::int64_t w, std::int64_t ho, std::int64_t wo, Size2 kernel,
           Size2 stride, Size2 padding, Size2 dilation)
        : planeSize(h * w), pixels(ho * wo), taps(kernel[0] * kernel[1]),
          offsets(static_cast<std::size_t>(taps * pixels))
    {
        std::int32_t* o = offsets.data();
        for (std::int64_t ki = 0; ki < kernel[0]; ++ki) {
            for (std::int64_t kj = 0; kj < kernel[1]; ++kj) {
                for (std::int64_t y = 0; y < ho; ++y) {
                    const std::int64_t iy = y * stride[0] - padding[0] + ki * dilation[0];
                    for (std::int64_t x = 0; x < wo; ++x, ++o) {
                        const std::int64_t ix = x * stride[1] - padding[1] + kj * dilation[1];
                        *o = iy < 0 || iy >= h || ix < 0 || ix >= w
                                 ? -1
                                 : static_cast<std::int32_t>(iy * w + ix);
                    }
                }
            }
        }
    }

    /// Writes `channels` x taps rows of `pixels` values to `dst`, row stride `ld`.
    void operator()(const float* src, std::int64_t channels, float* dst, std::int64_t ld) const
    {
        for (std::int64_t c = 0; c < channels; ++c) {
            const float* __restrict plane = src + c * planeSize;
            for (std::int64_t t = 0; t < taps; ++t) {
                const std::int32_t* __restrict o = offsets.data() + t * pixels;
                float* __restrict row = dst + (c * taps + t) * ld;
                for (std::int64_t p = 0; p < pixels; ++p) {
                    row[p] = o[p] >= 0 ? plane[o[p]] : 0.0F;
                }
            }
        }
    }
};

}  // namespace

std::int64_t convOutputExtent(std::int64_t in, std::int64_t kernel, std::int64_t stride,
                              std::int64_t padding, std::int64_t dilation)
{
    const std::int64_t span = dilation * (kernel - 1) + 1;
    const std::int64_t padded = in + 2 * padding;
    return padded < span ? 0 : (padded - span) / stride + 1;
}

int imageChannelAxis(const std::string& where, const TensorView& input, std::int64_t channels)
{
    const int rank = input.rank();
    if (rank != 3 && rank != 4) {
        throw Error(where + ": input " + input.shape().toString() +
                    " must be (N, C, H, W) or (C, H, W)");
    }
    const int c0 = rank - 3;
    if (input.dim(c0) != channels) {
        throw Error(where + ": input " + input.shape().toString() + " has " +
                    std::to_string(input.dim(c0)) + " channels on axis " + std::to_string(c0) +
                    ", expected " + std::to_string(channels));
    }
    return c0;
}

void convolve2d(const ConvGeometry& g, const float* input, std::int64_t batches, Size2 inputHW,
                Size2 outputHW, const float* weight, const float* bias, float* out)
{
    const std::int64_t h = inputHW[0];
    const std::int64_t w = inputHW[1];
    const std::int64_t ho = outputHW[0];
    const std::int64_t wo = outputHW[1];
    const std::int64_t cg = g.inChannels / g.groups;
    const std::int64_t og = g.outChannels / g.groups;
    const std::int64_t kh = g.kernel[0];
    const std::int64_t kw = g.kernel[1];
    const std::int64_t k = cg * kh * kw;
    const std::int64_t pixels = ho * wo;
    const std::int64_t inPlane = h * w;
    // Small images are batched: several samples' columns side by side make one wider GEMM
    // (Eigen is far from its peak on a few dozen columns); the product then goes through a
    // scratch block into each sample's rows.
    const std::int64_t chunk =
        pixels >= kWideGemm ? 1 : std::min(batches, (kWideGemm + pixels - 1) / pixels);
    const bool direct = chunk == 1 && kh == 1 && kw == 1 && g.stride == Size2{1, 1} &&
                        g.padding == Size2{0, 0};
    const std::int64_t ld = chunk * pixels;  // row stride of the column and scratch buffers
    const auto buffer = std::make_unique_for_overwrite<float[]>(
        static_cast<std::size_t>((direct ? 0 : k * ld) + (chunk > 1 ? og * ld : 0)));
    float* columns = buffer.get();
    float* scratch = buffer.get() + (direct ? 0 : k * ld);
    const Im2col im2col = direct ? Im2col(1, 1, 0, 0, {0, 0}, {1, 1}, {0, 0}, {1, 1})
                                 : Im2col(h, w, ho, wo, g.kernel, g.stride, g.padding, g.dilation);
    using StridedMatrix = Eigen::Map<Tensor::RowMatrix, 0, Eigen::OuterStride<>>;
    using ConstStridedMatrix = Eigen::Map<const Tensor::RowMatrix, 0, Eigen::OuterStride<>>;

    for (std::int64_t n0 = 0; n0 < batches; n0 += chunk) {
        const std::int64_t nc = std::min(chunk, batches - n0);
        for (std::int64_t gi = 0; gi < g.groups; ++gi) {
            const auto source = [&](std::int64_t n) {
                return input + (n * g.inChannels + gi * cg) * inPlane;
            };
            if (!direct) {
                for (std::int64_t j = 0; j < nc; ++j) {
                    im2col(source(n0 + j), cg, columns + j * pixels, ld);
                }
            }
            const Eigen::Map<const Tensor::RowMatrix> wg(weight + gi * og * k, og, k);
            const ConstStridedMatrix cols(direct ? source(n0) : columns, k, nc * pixels,
                                          Eigen::OuterStride<>(direct ? pixels : ld));
            StridedMatrix y(chunk > 1 ? scratch : out + (n0 * g.outChannels + gi * og) * pixels, og,
                            nc * pixels, Eigen::OuterStride<>(chunk > 1 ? ld : pixels));
            y.noalias() = wg * cols;
            if (bias != nullptr) {
                y.colwise() += Eigen::Map<const Eigen::VectorXf>(bias + gi * og, og);
            }
            if (chunk > 1) {
                for (std::int64_t j = 0; j < nc; ++j) {
                    for (std::int64_t o = 0; o < og; ++o) {
                        std::copy_n(scratch + o * ld + j * pixels, pixels,
                                    out + ((n0 + j) * g.outChannels + gi * og + o) * pixels);
                    }
                }
            }
        }
    }
}

Conv2d::Conv2d(std::int64_t inChannels, std::int64_t outChannels, Size2 kernelSize, Size2 stride,
               Size2 padding, Size2 dilation, std::int64_t groups, bool bias, Size2 inputSize,
               const AttributeMap& initial)
    : Layer(sampleIn(inChannels, outChannels, kernelSize, stride, padding, dilation, groups,
                     inputSize),
            sampleOut(inChannels, outChannels, kernelSize, stride, padding, dilation, groups,
                      inputSize)),
      m_in(inChannels),
      m_out(outChannels),
      m_groups(groups),
      m_kernel(kernelSize),
      m_stride(stride),
      m_padding(padding),
      m_dilation(dilation),
      m_inputSize(resolveInputSize(inChannels, outChannels, kernelSize, stride, padding, dilation,
                                   groups, inputSize)),
      m_hasBias(bias)
{
    const Shape weightShape{outChannels, inChannels / groups, kernelSize[0], kernelSize[1]};
    const std::int64_t fanIn = inChannels / groups * kernelSize[0] * kernelSize[1];
    m_seed = addAttribute(simulationParameter("seed").integer().range(0, 16777216)
                              .initConstant(0.0F).live(false)
                              .doc("Seed of the weight initialisation (used by resetParameters)"));
    m_weight = addAttribute(parameter("weight").family("weights").shapes({weightShape})
                                .init(uniformInit(weightShape, fanIn, 1))
                                .doc("Kernels (out_channels, in_channels / groups, kh, kw)"));
    if (bias) {
        m_bias = addAttribute(parameter("bias").family("biases").shapes({Shape{outChannels}})
                                  .init(uniformInit(Shape{outChannels}, fanIn, 2))
                                  .doc("Bias (out_channels,)"));
    }
    finishRegistration(initial);
}

Size2 Conv2d::outputSize(Size2 input) const
{
    Size2 out{};
    for (int a = 0; a < 2; ++a) {
        out[a] = convOutputExtent(input[a], m_kernel[a], m_stride[a], m_padding[a], m_dilation[a]);
        if (out[a] < 1) {
            throw Error(where() + ": kernel " + pair(m_kernel) + " with dilation " +
                        pair(m_dilation) + " is larger than the padded input " +
                        pair({input[0] + 2 * m_padding[0], input[1] + 2 * m_padding[1]}));
        }
    }
    return out;
}

std::string Conv2d::extraRepr() const
{
    std::string s = std::to_string(m_in) + ", " + std::to_string(m_out) +
                    ", kernel_size=" + pair(m_kernel) + ", stride=" + pair(m_stride);
    if (m_padding != Size2{0, 0}) {
        s += ", padding=" + pair(m_padding);
    }
    if (m_dilation != Size2{1, 1}) {
        s += ", dilation=" + pair(m_dilation);
    }
    if (m_groups != 1) {
        s += ", groups=" + std::to_string(m_groups);
    }
    if (!m_hasBias) {
        s += ", bias=False";
    }
    return s;
}

nlohmann::json Conv2d::config() const
{
    const auto arr = [](Size2 v) { return nlohmann::json::array({v[0], v[1]}); };
    return {{"in_channels", m_in},         {"out_channels", m_out},
            {"kernel_size", arr(m_kernel)}, {"stride", arr(m_stride)},
            {"padding", arr(m_padding)},    {"dilation", arr(m_dilation)},
            {"groups", m_groups},           {"bias", m_hasBias},
            {"input_size", arr(m_inputSize)}};
}

Tensor Conv2d::compute(const TensorView& input) const
{
    const int rank = input.rank();
    const int c0 = imageChannelAxis(where(), input, m_in);
    const std::int64_t batches = rank == 4 ? input.dim(0) : 1;
    const std::int64_t h = input.dim(c0 + 1);
    const std::int64_t w = input.dim(c0 + 2);
    const Size2 outHW = outputSize({h, w});
    Tensor out(rank == 4 ? Shape{batches, m_out, outHW[0], outHW[1]}
                         : Shape{m_out, outHW[0], outHW[1]});
    convolve2d({m_in, m_out, m_groups, m_kernel, m_stride, m_padding, m_dilation}, input.data(),
               batches, {h, w}, outHW, value(m_weight).data(),
               m_hasBias ? value(m_bias).data() : nullptr, out.data());
    return out;
}

}  // namespace spike::engine
