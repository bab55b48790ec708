// MLP: DI-engine's multi-layer perceptron (ding.torch_utils.MLP), a chain of children named
// "0", "1", ... exactly as DI-engine's nn.Sequential lays them out, so state-dict keys match:
//
//     channels = [in] + [hidden] * (layer_num - 1) + [out]
//     for every layer but the last:  Linear, norm (if any), activation (if any)
//     last layer:                    Linear, norm (if output_norm),
//                                    activation (if output_activation)
//
// e.g. in 32, hidden 16, out 21, layer_num 2, BN, ReLU, no output norm or activation:
// 0 Linear(32, 16), 1 BatchNorm1d(16), 2 ReLU, 3 Linear(16, 21). layer_num 0 is a single
// Identity. norm is BatchNorm1d ("BN"), LayerNorm over the features ("LN") or absent ("none").
// With last_linear_layer_init_zero the last Linear starts with zero weight and bias (as
// DI-engine; resetParameters() redraws it like any Linear). Dropout is not offered (it is the
// identity at inference).
// forward() takes (N, in) (any leading axes the children accept); evolve() applies the chain at
// every step, the norms with their running statistics.
// Thread: owned by whichever thread evolves it.
#pragma once

#include "engine/core/module.hpp"

#include <string>

namespace spike::engine {

/// Settings of an MLP beyond its sizes.
struct MlpOptions {
    std::string activation = "ReLU";  ///< "ReLU", "GELU", "Tanh", "Sigmoid" or "none"
    std::string normType = "none";    ///< "BN" (BatchNorm1d), "LN" (LayerNorm) or "none"
    bool outputActivation = true;     ///< activation after the last Linear too
    bool outputNorm = true;           ///< norm after the last Linear too
    bool lastLinearLayerInitZero = false;
    std::int64_t seed = 0;  ///< the k-th Linear draws its weights with seed + k
};

class MLP : public Module {
public:
    /// Throws Error for sizes < 1 (layer_num < 0), or an unknown activation or norm.
    MLP(std::int64_t inChannels, std::int64_t hiddenChannels, std::int64_t outChannels,
        std::int64_t layerNum, const MlpOptions& options = {});
    /// Builds from a model-file config (DI-engine's names: in_channels, hidden_channels,
    /// out_channels, layer_num, activation, norm_type, output_activation, output_norm,
    /// last_linear_layer_init_zero); throws Error naming the key.
    static std::unique_ptr<Module> fromConfig(const nlohmann::json& config);

    std::string className() const override { return "MLP"; }
    nlohmann::json config() const override;

    /// The torch call: the children's forward() in order, with hooks.
    Tensor forward(const Tensor& input) override;
    /// Each child into the next (Linear, norm, activation, ..., the last Linear).
    std::vector<FlowStep> dataFlow() const override { return chainFlow(); }

    std::int64_t layerNum() const { return m_layerNum; }
    const MlpOptions& options() const { return m_options; }

protected:
    Tensor evolveImpl(const TensorView& input, const Recorder& recorder) override;

private:
    std::int64_t m_in, m_hidden, m_out, m_layerNum;
    MlpOptions m_options;
};

}  // namespace spike::engine
