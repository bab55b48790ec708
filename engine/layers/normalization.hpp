// Normalisation layers with torch.nn semantics: BatchNorm1d, BatchNorm2d, LayerNorm.
//
// BatchNorm (channel axis 1 of (N, C), (N, C, L) or (N, C, H, W)), per channel c:
//     eval, or evolve():  alpha = weight[c] / sqrt(running_var[c] + eps)
//                         beta  = bias[c] - running_mean[c] * alpha
//                         y     = x * alpha + beta                       (float32, PyTorch's order)
//     forward() in training mode (train(), the default):
//                         mean, var = batch mean and biased variance over (N, L) or (N, H, W)
//                         y computed as above with mean, var in place of the running statistics
//                         running_mean = (1 - momentum) running_mean + momentum mean
//                         running_var  = (1 - momentum) running_var + momentum var * n / (n - 1)
//                         num_batches_tracked += 1
// Without track_running_stats there are no running statistics and batch statistics are always
// used (without an update). evolve() is the simulation call: it never updates the statistics and
// normalises with the running ones, whatever the mode, so a simulation is deterministic per step.
// weight and bias exist only with affine (else 1 and 0). The running statistics are States (torch
// buffers, in the state dict) that resetState() keeps: they are learned, not dynamical state.
//
// LayerNorm over the last len(normalized_shape) axes of each sample:
//     mean, var = mean and biased variance over those axes
//     y = (x - mean) / sqrt(var + eps) * weight + bias         (weight, bias: normalized_shape)
#pragma once

#include "engine/layers/layer.hpp"

#include <array>
#include <vector>

namespace spike::engine {

/// Shared implementation of BatchNorm1d and BatchNorm2d.
class BatchNormBase : public Layer {
public:
    /// Torch call: batch statistics (and a running-statistics update) in training mode, the
    /// running statistics in eval mode. Throws Error for an empty input, a wrong rank or channel
    /// count, or a single value per channel in training mode.
    Tensor forward(const Tensor& input) override;

    /// "4, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True".
    std::string extraRepr() const override;
    std::vector<std::string> recordableSignals() const override { return {"output"}; }

    std::int64_t numFeatures() const { return m_features; }
    bool affine() const { return m_affine; }
    bool tracksRunningStats() const { return m_track; }

protected:
    /// Registers the attributes; the derived constructor calls finishRegistration().
    /// `sample` is the per-sample shape for evolve() (C first); inputs have rank in
    /// [minRank, maxRank] with channels on axis 1.
    BatchNormBase(std::int64_t numFeatures, double eps, double momentum, bool affine,
                  bool trackRunningStats, const Shape& sample, int minRank, int maxRank);

    /// Inference: running statistics when tracked, else batch statistics; nothing is updated.
    Tensor compute(const TensorView& input) const override;

private:
    /// Throws Error unless `input` has an accepted rank and numFeatures channels on axis 1.
    void checkInput(const TensorView& input) const;
    /// Biased batch mean and variance per channel (double accumulation).
    void batchMoments(const TensorView& input, std::vector<double>& mean,
                      std::vector<double>& var) const;
    /// y = x * alpha + beta per channel, alpha and beta from mean, var and the affine terms.
    Tensor normalise(const TensorView& input, const float* mean, const float* var) const;

    std::int64_t m_features;
    bool m_affine, m_track;
    int m_minRank, m_maxRank;
    AttributeId m_weight, m_bias, m_runningMean, m_runningVar, m_batches, m_eps, m_momentum;
};

class BatchNorm1d : public BatchNormBase {
public:
    /// Input (N, C) or (N, C, L). `length` L fixes the per-sample shape for evolve(): (C,) when
    /// 0, (C, L) otherwise. `initial` may set any attribute (weight, running_mean, eps, ...).
    explicit BatchNorm1d(std::int64_t numFeatures, double eps = 1e-5, double momentum = 0.1,
                         bool affine = true, bool trackRunningStats = true,
                         std::int64_t length = 0, const AttributeMap& initial = {});
    std::string className() const override { return "BatchNorm1d"; }
    nlohmann::json config() const override;

private:
    std::int64_t m_length;
};

class BatchNorm2d : public BatchNormBase {
public:
    /// Input (N, C, H, W). `inputSize` (H, W) fixes the per-sample shape (C, H, W) for evolve()
    /// and the editor's ports only; forward() accepts any H, W.
    explicit BatchNorm2d(std::int64_t numFeatures, double eps = 1e-5, double momentum = 0.1,
                         bool affine = true, bool trackRunningStats = true,
                         std::array<std::int64_t, 2> inputSize = {1, 1},
                         const AttributeMap& initial = {});
    std::string className() const override { return "BatchNorm2d"; }
    nlohmann::json config() const override;

private:
    std::array<std::int64_t, 2> m_inputSize;
};

class LayerNorm : public Layer {
public:
    /// Normalises over the trailing axes `normalizedShape` (1 to 4 extents >= 1); the per-sample
    /// shape for evolve() is normalizedShape. weight and bias exist with elementwiseAffine
    /// (bias also needs `bias`, as torch's LayerNorm(bias=False)).
    explicit LayerNorm(std::vector<std::int64_t> normalizedShape, double eps = 1e-5,
                       bool elementwiseAffine = true, bool bias = true,
                       const AttributeMap& initial = {});
    std::string className() const override { return "LayerNorm"; }
    /// "(4,), eps=1e-05, elementwise_affine=True".
    std::string extraRepr() const override;
    nlohmann::json config() const override;
    std::vector<std::string> recordableSignals() const override { return {"output"}; }

protected:
    Tensor compute(const TensorView& input) const override;

private:
    Shape m_normalized;
    bool m_affine, m_hasBias;
    AttributeId m_weight, m_bias, m_eps;
};

}  // namespace spike::engine
