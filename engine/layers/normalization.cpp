// BatchNorm1d, BatchNorm2d, LayerNorm. See normalization.hpp for the definitions.
#include "engine/layers/normalization.hpp"

#include <charconv>
#include <cmath>

namespace spike::engine {

namespace {

/// Python's repr of a float: "1e-05", "0.1".
std::string pyFloat(float v)
{
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    std::string s(buf, r.ptr);
    if (s.find_first_of(".en") == std::string::npos) {
        s += ".0";
    }
    return s;
}

const char* pyBool(bool b)
{
    return b ? "True" : "False";
}

}  // namespace

// ---- BatchNormBase ------------------------------------------------------------------------

BatchNormBase::BatchNormBase(std::int64_t numFeatures, double eps, double momentum, bool affine,
                             bool trackRunningStats, const Shape& sample, int minRank, int maxRank)
    : Layer(sample, sample),
      m_features(numFeatures),
      m_affine(affine),
      m_track(trackRunningStats),
      m_minRank(minRank),
      m_maxRank(maxRank)
{
    const Shape channels{numFeatures};
    m_eps = addAttribute(simulationParameter("eps").positive()
                             .initConstant(static_cast<float>(eps))
                             .doc("Added to the variance before the square root"));
    m_momentum = addAttribute(simulationParameter("momentum").range(0.0, 1.0)
                                  .initConstant(static_cast<float>(momentum))
                                  .doc("Weight of the batch statistics in the running update"));
    if (affine) {
        m_weight = addAttribute(parameter("weight").family("weights").shapes({channels})
                                    .initConstant(1.0F).doc("Scale per channel (C,)"));
        m_bias = addAttribute(parameter("bias").family("biases").shapes({channels})
                                  .initConstant(0.0F).doc("Shift per channel (C,)"));
    }
    if (trackRunningStats) {
        m_runningMean = addAttribute(stateVariable("running_mean").family("statistics")
                                         .shapes({channels}).initConstant(0.0F).keepOnResetState()
                                         .doc("Running mean per channel, used in eval mode"));
        m_runningVar = addAttribute(stateVariable("running_var").family("statistics")
                                        .shapes({channels}).nonNegative().initConstant(1.0F)
                                        .keepOnResetState()
                                        .doc("Running (unbiased) variance per channel, used in eval mode"));
        m_batches = addAttribute(stateVariable("num_batches_tracked").family("statistics")
                                     .shapes({Shape{}}).integer().nonNegative().initConstant(0.0F)
                                     .keepOnResetState().optionalOnLoad()
                                     .doc("Training batches seen by the running statistics"));
    }
}

std::string BatchNormBase::extraRepr() const
{
    return std::to_string(m_features) + ", eps=" + pyFloat(value(m_eps)[0]) +
           ", momentum=" + pyFloat(value(m_momentum)[0]) + ", affine=" + pyBool(m_affine) +
           ", track_running_stats=" + pyBool(m_track);
}

void BatchNormBase::checkInput(const TensorView& input) const
{
    const int rank = input.rank();
    if (rank < m_minRank || rank > m_maxRank) {
        const std::string expected = m_minRank == m_maxRank
                                         ? std::to_string(m_minRank) + "-D"
                                         : std::to_string(m_minRank) + "-D or " +
                                               std::to_string(m_maxRank) + "-D";
        throw Error(where() + ": expected a " + expected + " input, got " +
                    input.shape().toString());
    }
    if (input.dim(1) != m_features) {
        throw Error(where() + ": input " + input.shape().toString() + " has " +
                    std::to_string(input.dim(1)) + " channels on axis 1, expected " +
                    std::to_string(m_features));
    }
}

void BatchNormBase::batchMoments(const TensorView& input, std::vector<double>& mean,
                                 std::vector<double>& var) const
{
    const std::int64_t c = m_features;
    const std::int64_t batches = input.dim(0);
    const std::int64_t inner = input.numel() / (batches * c);
    const double count = static_cast<double>(batches * inner);
    mean.assign(static_cast<std::size_t>(c), 0.0);
    var.assign(static_cast<std::size_t>(c), 0.0);
    for (std::int64_t ch = 0; ch < c; ++ch) {
        double sum = 0.0;
        for (std::int64_t n = 0; n < batches; ++n) {
            const float* x = input.data() + (n * c + ch) * inner;
            for (std::int64_t i = 0; i < inner; ++i) {
                sum += x[i];
            }
        }
        const double m = sum / count;
        double sq = 0.0;
        for (std::int64_t n = 0; n < batches; ++n) {
            const float* x = input.data() + (n * c + ch) * inner;
            for (std::int64_t i = 0; i < inner; ++i) {
                sq += (x[i] - m) * (x[i] - m);
            }
        }
        mean[static_cast<std::size_t>(ch)] = m;
        var[static_cast<std::size_t>(ch)] = sq / count;
    }
}

Tensor BatchNormBase::normalise(const TensorView& input, const float* mean, const float* var) const
{
    const std::int64_t c = m_features;
    const std::int64_t batches = input.dim(0);
    const std::int64_t inner = input.numel() / (batches * c);
    const float eps = value(m_eps)[0];
    std::vector<float> alpha(static_cast<std::size_t>(c));
    std::vector<float> beta(static_cast<std::size_t>(c));
    for (std::int64_t ch = 0; ch < c; ++ch) {
        // PyTorch's CPU kernel: alpha = invstd * weight, beta = bias - mean * alpha.
        const float invstd = 1.0F / std::sqrt(var[ch] + eps);
        const float w = m_affine ? value(m_weight)[ch] : 1.0F;
        const float b = m_affine ? value(m_bias)[ch] : 0.0F;
        alpha[static_cast<std::size_t>(ch)] = invstd * w;
        beta[static_cast<std::size_t>(ch)] = b - mean[ch] * alpha[static_cast<std::size_t>(ch)];
    }
    Tensor out(input.shape());
    for (std::int64_t n = 0; n < batches; ++n) {
        for (std::int64_t ch = 0; ch < c; ++ch) {
            const std::int64_t offset = (n * c + ch) * inner;
            const float* __restrict x = input.data() + offset;
            float* __restrict y = out.data() + offset;
            const float a = alpha[static_cast<std::size_t>(ch)];
            const float b = beta[static_cast<std::size_t>(ch)];
            for (std::int64_t i = 0; i < inner; ++i) {
                y[i] = x[i] * a + b;
            }
        }
    }
    return out;
}

Tensor BatchNormBase::compute(const TensorView& input) const
{
    checkInput(input);
    if (m_track) {
        return normalise(input, value(m_runningMean).data(), value(m_runningVar).data());
    }
    std::vector<double> mean;
    std::vector<double> var;
    batchMoments(input, mean, var);
    const std::vector<float> meanF(mean.begin(), mean.end());
    const std::vector<float> varF(var.begin(), var.end());
    return normalise(input, meanF.data(), varF.data());
}

Tensor BatchNormBase::forward(const Tensor& input)
{
    if (!training() || input.numel() == 0) {
        return Layer::forward(input);  // eval, or the empty-input error
    }
    return runWithHooks(input.view(), [this](const TensorView& in) {
        checkInput(in);
        const std::int64_t count = in.numel() / m_features;
        if (count <= 1) {
            throw Error(where() + ": expected more than 1 value per channel when training, got "
                        "input " + in.shape().toString());
        }
        std::vector<double> mean;
        std::vector<double> var;
        batchMoments(in, mean, var);
        const std::vector<float> meanF(mean.begin(), mean.end());
        const std::vector<float> varF(var.begin(), var.end());
        Tensor out = normalise(in, meanF.data(), varF.data());
        if (m_track) {
            const double momentum = value(m_momentum)[0];
            const double unbiased = static_cast<double>(count) / static_cast<double>(count - 1);
            Tensor& runningMean = stateRef(m_runningMean);
            Tensor& runningVar = stateRef(m_runningVar);
            for (std::int64_t ch = 0; ch < m_features; ++ch) {
                const auto i = static_cast<std::size_t>(ch);
                runningMean[ch] = static_cast<float>((1.0 - momentum) * runningMean[ch] + momentum * mean[i]);
                runningVar[ch] = static_cast<float>((1.0 - momentum) * runningVar[ch] +
                                                    momentum * var[i] * unbiased);
            }
            stateRef(m_batches)[0] += 1.0F;
        }
        return out;
    });
}

// ---- BatchNorm1d / BatchNorm2d ------------------------------------------------------------

namespace {

std::int64_t checkedFeatures(const char* type, std::int64_t numFeatures)
{
    if (numFeatures < 1) {
        throw Error(std::string(type) + ": num_features must be >= 1, got " +
                    std::to_string(numFeatures));
    }
    return numFeatures;
}

Shape sample1d(std::int64_t numFeatures, std::int64_t length)
{
    checkedFeatures("BatchNorm1d", numFeatures);
    if (length < 0) {
        throw Error("BatchNorm1d: length must be >= 0 (0: samples are (C,)), got " +
                    std::to_string(length));
    }
    return length == 0 ? Shape{numFeatures} : Shape{numFeatures, length};
}

Shape sample2d(std::int64_t numFeatures, std::array<std::int64_t, 2> inputSize)
{
    checkedFeatures("BatchNorm2d", numFeatures);
    if (inputSize[0] < 1 || inputSize[1] < 1) {
        throw Error("BatchNorm2d: input_size must be >= 1, got (" + std::to_string(inputSize[0]) +
                    ", " + std::to_string(inputSize[1]) + ")");
    }
    return Shape{numFeatures, inputSize[0], inputSize[1]};
}

}  // namespace

BatchNorm1d::BatchNorm1d(std::int64_t numFeatures, double eps, double momentum, bool affine,
                         bool trackRunningStats, std::int64_t length, const AttributeMap& initial)
    : BatchNormBase(numFeatures, eps, momentum, affine, trackRunningStats,
                    sample1d(numFeatures, length), 2, 3),
      m_length(length)
{
    finishRegistration(initial);
}

nlohmann::json BatchNorm1d::config() const
{
    return {{"num_features", numFeatures()}, {"affine", affine()},
            {"track_running_stats", tracksRunningStats()}, {"length", m_length}};
}

BatchNorm2d::BatchNorm2d(std::int64_t numFeatures, double eps, double momentum, bool affine,
                         bool trackRunningStats, std::array<std::int64_t, 2> inputSize,
                         const AttributeMap& initial)
    : BatchNormBase(numFeatures, eps, momentum, affine, trackRunningStats,
                    sample2d(numFeatures, inputSize), 4, 4),
      m_inputSize(inputSize)
{
    finishRegistration(initial);
}

nlohmann::json BatchNorm2d::config() const
{
    return {{"num_features", numFeatures()}, {"affine", affine()},
            {"track_running_stats", tracksRunningStats()},
            {"input_size", {m_inputSize[0], m_inputSize[1]}}};
}

// ---- LayerNorm ----------------------------------------------------------------------------

namespace {

Shape normalizedShapeOf(const std::vector<std::int64_t>& dims)
{
    if (dims.empty() || dims.size() > 3) {
        throw Error("LayerNorm: normalized_shape must have 1 to 3 axes, got " +
                    std::to_string(dims.size()));
    }
    for (const std::int64_t d : dims) {
        if (d < 1) {
            throw Error("LayerNorm: normalized_shape extents must be >= 1, got " +
                        Shape(dims).toString());
        }
    }
    return Shape(dims);
}

}  // namespace

LayerNorm::LayerNorm(std::vector<std::int64_t> normalizedShape, double eps, bool elementwiseAffine,
                     bool bias, const AttributeMap& initial)
    : Layer(normalizedShapeOf(normalizedShape), normalizedShapeOf(normalizedShape)),
      m_normalized(normalizedShape),
      m_affine(elementwiseAffine),
      m_hasBias(elementwiseAffine && bias)
{
    m_eps = addAttribute(simulationParameter("eps").positive()
                             .initConstant(static_cast<float>(eps))
                             .doc("Added to the variance before the square root"));
    if (m_affine) {
        m_weight = addAttribute(parameter("weight").family("weights").shapes({m_normalized})
                                    .initConstant(1.0F).doc("Element-wise scale (normalized_shape)"));
    }
    if (m_hasBias) {
        m_bias = addAttribute(parameter("bias").family("biases").shapes({m_normalized})
                                  .initConstant(0.0F).doc("Element-wise shift (normalized_shape)"));
    }
    finishRegistration(initial);
}

std::string LayerNorm::extraRepr() const
{
    return m_normalized.toString() + ", eps=" + pyFloat(value(m_eps)[0]) +
           ", elementwise_affine=" + pyBool(m_affine) + (m_affine && !m_hasBias ? ", bias=False" : "");
}

nlohmann::json LayerNorm::config() const
{
    return {{"normalized_shape", m_normalized.dims()},
            {"elementwise_affine", m_affine},
            {"bias", m_hasBias || !m_affine}};
}

Tensor LayerNorm::compute(const TensorView& input) const
{
    const int k = m_normalized.rank();
    const int rank = input.rank();
    bool fits = rank >= k;
    for (int a = 0; fits && a < k; ++a) {
        fits = input.dim(rank - k + a) == m_normalized[a];
    }
    if (!fits) {
        throw Error(where() + ": input " + input.shape().toString() +
                    " does not end with the normalized shape " + m_normalized.toString());
    }
    const std::int64_t m = m_normalized.numel();
    const std::int64_t rows = input.numel() / m;
    const float eps = value(m_eps)[0];
    const float* w = m_affine ? value(m_weight).data() : nullptr;
    const float* b = m_hasBias ? value(m_bias).data() : nullptr;
    Tensor out(input.shape());
    for (std::int64_t r = 0; r < rows; ++r) {
        const float* __restrict x = input.data() + r * m;
        float* __restrict y = out.data() + r * m;
        double sum = 0.0;
        for (std::int64_t i = 0; i < m; ++i) {
            sum += x[i];
        }
        const double meanD = sum / static_cast<double>(m);
        double sq = 0.0;
        for (std::int64_t i = 0; i < m; ++i) {
            sq += (x[i] - meanD) * (x[i] - meanD);
        }
        // PyTorch's CPU kernel: y = (x * rstd - mean * rstd) * weight + bias.
        const float rstd = 1.0F / std::sqrt(static_cast<float>(sq / static_cast<double>(m)) + eps);
        const float shift = -rstd * static_cast<float>(meanD);
        for (std::int64_t i = 0; i < m; ++i) {
            float v = x[i] * rstd + shift;
            if (w != nullptr) {
                v *= w[i];
            }
            if (b != nullptr) {
                v += b[i];
            }
            y[i] = v;
        }
    }
    return out;
}

}  // namespace spike::engine
