// DynamicsNetwork: EfficientZero's dynamics network as LightZero builds it
// (lzero.model.efficientzero_model.DynamicsNetwork), with LightZero's child names, so a LightZero
// state dict exported as <key>.npy files loads with strict checking. For a state-action encoding
// sa (B, C, H, W), C = num_channels (latent channels Cl = C - action_encoding_dim, then the
// action planes), in the order the code runs:
//
//     state = sa[:, :Cl]
//     x = act(norm_common(conv(sa)) + state)               conv: 3x3, pad 1, no bias, C -> Cl
//     x = resblocks[k](x) for every k                      ResBlock basic, BN, no bias
//     next_latent_state = x
//     y = act(norm_reward(conv1x1_reward(x)))               1x1 conv with bias, Cl -> Cr
//     y = y reshaped to (1, B, flatten)                     flatten = Cr * H * W
//     out, (h, c) = lstm(y, (h0, c0))                       one step, gates i, f, g, o
//     value_prefix = fc_reward_head(act(norm_value_prefix(out[0])))
//
// Children, in LightZero's order: activation (the activation module applied at every "act"
// above; the res blocks hold their own), conv, norm_common, resblocks (ModuleList of ResBlock),
// conv1x1_reward, norm_reward, lstm, norm_value_prefix, fc_reward_head (MLP: Linear, norm, act
// per hidden layer, last Linear plain). norm_type "BN" uses BatchNorm2d for norm_common and norm_reward
// and BatchNorm1d in fc_reward_head; "LN" uses LayerNorm over (Cl, H, W), (Cr, H, W) and the
// hidden features. As in LightZero, the res blocks and norm_value_prefix are BatchNorm in both.
// downsample means the latent state is the observation downsampled 16 times by the
// representation network: (H, W) = ceil(observation (H, W) / 16); otherwise (H, W) is the
// observation's.
//
// Two calls. forwardDynamics() is the torch call (norms follow train()/eval(); LightZero runs
// the network in eval mode for inference). evolve() is the simulation call: input (T, C*H*W)
// (or batched), one dynamics step per time step, the LSTM state (h, c) carried from step to step
// in the lstm child's States "h" and "c" (start at zero, reset by resetState()); the norms use
// their running statistics; output next_latent_state flattened (T, Cl*H*W); "value_prefix"
// (T, output_support_size) is recordable.
// Thread: owned by whichever thread evolves it.
#pragma once

#include "engine/layers/conv2d.hpp"
#include "engine/core/module.hpp"

#include <string>
#include <vector>

namespace spike::engine {

class LSTM;

/// LightZero's constructor arguments (same names in the model file's config, snake_case).
struct DynamicsNetworkConfig {
    std::vector<std::int64_t> observationShape;  ///< (C, H, W) or (H, W); only H, W are used
    std::int64_t actionEncodingDim = 2;
    std::int64_t numResBlocks = 1;
    std::int64_t numChannels = 64;  ///< channels of the state-action encoding (latent + action)
    std::int64_t rewardHeadChannels = 64;
    std::vector<std::int64_t> rewardHeadHiddenChannels = {32};  ///< first entry = hidden width
    std::int64_t outputSupportSize = 601;
    std::int64_t flattenInputSizeForRewardHead = 0;  ///< 0: reward_head_channels * H * W
    bool downsample = false;
    std::int64_t lstmHiddenSize = 512;
    bool lastLinearLayerInitZero = true;
    std::string activation = "ReLU";  ///< "ReLU", "GELU", "Tanh" or "Sigmoid"
    std::string normType = "BN";      ///< "BN" or "LN"
};

/// Result of DynamicsNetwork::forwardDynamics.
struct DynamicsOutput {
    Tensor nextLatentState;  ///< (B, Cl, H, W)
    Tensor h;                ///< (1, B, lstm_hidden_size)
    Tensor c;                ///< (1, B, lstm_hidden_size)
    Tensor valuePrefix;      ///< (B, output_support_size)
};

class DynamicsNetwork : public Module {
public:
    /// Throws Error naming the setting at fault (unknown activation or norm, sizes < 1,
    /// num_channels <= action_encoding_dim, a flatten size that is not reward_head_channels x H x W).
    explicit DynamicsNetwork(const DynamicsNetworkConfig& config);

    /// Builds from a model-file config (LightZero's argument names); throws Error naming the key.
    static std::unique_ptr<Module> fromConfig(const nlohmann::json& config);

    std::string className() const override { return "DynamicsNetwork"; }
    nlohmann::json config() const override;
    std::vector<std::string> recordableSignals() const override { return {"value_prefix"}; }
    /// The computation of the file comment as arrows between the children: conv -> norm_common
    /// -> resblocks ("+ state, activation") -> conv1x1_reward ("next_latent_state") ->
    /// norm_reward -> lstm ("activation, flatten") -> norm_value_prefix ("out[0]") ->
    /// fc_reward_head ("activation"). The shared activation child is applied on three of them.
    std::vector<FlowStep> dataFlow() const override;
    /// "dynamic_mean" (getDynamicMean()) and "reward_mean" (getRewardMean()).
    std::vector<ModuleStatistic> statistics() const override;
    /// A GenericRunner that also offers "value_prefix" (output_support_size values per step)
    /// besides every State below (the LSTM's "lstm.h" and "lstm.c").
    std::unique_ptr<NodeRunner> makeRunner() override;

    /// LightZero's forward(state_action_encoding, (h0, c0)): sa (B, C, H, W), h0 and c0
    /// (1, B, lstm_hidden_size). Forward hooks see sa and next_latent_state. Throws Error naming
    /// the module and the expected shape.
    DynamicsOutput forwardDynamics(const Tensor& stateActionEncoding, const Tensor& h0,
                                   const Tensor& c0);
    /// forwardDynamics from a zero (h, c), returning next_latent_state.
    Tensor forward(const Tensor& stateActionEncoding) override;

    /// LightZero's get_dynamic_mean(): mean |w| over conv.weight and every parameter of the res
    /// blocks (not their buffers).
    double getDynamicMean() const;
    /// LightZero's get_reward_mean()[1]: mean |w| of rewardWeightDistribution().
    double getRewardMean() const;
    /// LightZero's get_reward_mean()[0]: conv1x1_reward.weight, then every parameter of
    /// fc_reward_head, flattened (for a histogram).
    std::vector<float> rewardWeightDistribution() const;

    const DynamicsNetworkConfig& settings() const { return m_config; }
    /// Cl = num_channels - action_encoding_dim.
    std::int64_t latentChannels() const { return m_latentChannels; }
    /// (H, W) of the latent state.
    Size2 latentSize() const { return m_latentSize; }

protected:
    Tensor evolveImpl(const TensorView& input, const Recorder& recorder) override;

private:
    DynamicsOutput run(const Tensor& sa, const Tensor* h0, const Tensor* c0);

    DynamicsNetworkConfig m_config;
    std::int64_t m_latentChannels = 0;
    Size2 m_latentSize{};
    Module* m_activation = nullptr;
    Module* m_conv = nullptr;
    Module* m_normCommon = nullptr;
    Module* m_resblocks = nullptr;
    Module* m_conv1x1Reward = nullptr;
    Module* m_normReward = nullptr;
    LSTM* m_lstm = nullptr;
    Module* m_normValuePrefix = nullptr;
    Module* m_fcRewardHead = nullptr;
};

}  // namespace spike::engine
