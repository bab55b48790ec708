// EfficientZero's dynamics network (LightZero). See dynamics_network.hpp.
#include "engine/composites/dynamics_network.hpp"

#include "engine/composites/composite.hpp"
#include "engine/layers/lstm.hpp"
#include "engine/composites/mlp.hpp"
#include "engine/layers/module_list.hpp"
#include "engine/core/node_runner.hpp"
#include "engine/layers/normalization.hpp"
#include "engine/composites/resblock.hpp"

#include <cmath>

namespace spike::engine {

namespace {

const char* const kOwner = "DynamicsNetwork";

std::int64_t ceilDiv(std::int64_t a, std::int64_t b)
{
    return (a + b - 1) / b;
}

void requirePositive(const char* name, std::int64_t value)
{
    if (value < 1) {
        throw Error(std::string(kOwner) + ": " + name + " must be >= 1, got " +
                    std::to_string(value));
    }
}

/// Adds |v| of every element to (sum, count) in order, in double (as LightZero sums Python
/// floats).
void accumulateAbs(const Tensor& t, double& sum, std::int64_t& count)
{
    for (std::int64_t i = 0; i < t.numel(); ++i) {
        sum += std::abs(static_cast<double>(t[i]));
    }
    count += t.numel();
}

}  // namespace

DynamicsNetwork::DynamicsNetwork(const DynamicsNetworkConfig& config)
    : Module({1}, false, false), m_config(config)
{
    const std::string owner = kOwner;
    requireChoice(owner, "activation", config.activation, compositeActivations());
    requireChoice(owner, "norm_type", config.normType, {"BN", "LN"});
    const auto& obs = config.observationShape;
    if (obs.size() < 2 || obs.size() > 3 || obs[obs.size() - 2] < 1 || obs.back() < 1) {
        std::string given;
        for (const auto d : obs) {
            given += (given.empty() ? "" : ", ") + std::to_string(d);
        }
        throw Error(owner + ": observation_shape must be (C, H, W) or (H, W) with H, W >= 1, got (" +
                    given + ")");
    }
    requirePositive("action_encoding_dim", config.actionEncodingDim);
    requirePositive("num_channels", config.numChannels);
    requirePositive("reward_head_channels", config.rewardHeadChannels);
    requirePositive("output_support_size", config.outputSupportSize);
    requirePositive("lstm_hidden_size", config.lstmHiddenSize);
    if (config.numResBlocks < 0) {
        throw Error(owner + ": num_res_blocks must be >= 0, got " +
                    std::to_string(config.numResBlocks));
    }
    if (config.rewardHeadHiddenChannels.empty()) {
        throw Error(owner + ": reward_head_hidden_channels needs at least one width");
    }
    for (const auto w : config.rewardHeadHiddenChannels) {
        requirePositive("reward_head_hidden_channels", w);
    }
    if (config.numChannels <= config.actionEncodingDim) {
        throw Error(owner + ": num_channels (" + std::to_string(config.numChannels) +
                    ") must exceed action_encoding_dim (" +
                    std::to_string(config.actionEncodingDim) +
                    "): the encoding holds the latent channels, then the action planes");
    }
    const std::int64_t hObs = obs[obs.size() - 2];
    const std::int64_t wObs = obs.back();
    m_latentSize = config.downsample ? Size2{ceilDiv(hObs, 16), ceilDiv(wObs, 16)}
                                     : Size2{hObs, wObs};
    m_latentChannels = config.numChannels - config.actionEncodingDim;
    const Size2 hw = m_latentSize;
    const std::int64_t area = hw[0] * hw[1];
    const std::int64_t flatten = config.rewardHeadChannels * area;
    if (config.flattenInputSizeForRewardHead != 0 &&
        config.flattenInputSizeForRewardHead != flatten) {
        throw Error(owner + ": flatten_input_size_for_reward_head must be reward_head_channels x " +
                    "H x W = " + std::to_string(config.rewardHeadChannels) + " x " +
                    std::to_string(hw[0]) + " x " + std::to_string(hw[1]) + " = " +
                    std::to_string(flatten) + ", got " +
                    std::to_string(config.flattenInputSizeForRewardHead));
    }
    m_config.flattenInputSizeForRewardHead = flatten;
    const std::int64_t cl = m_latentChannels;
    const std::int64_t cr = config.rewardHeadChannels;
    const std::int64_t hidden = config.lstmHiddenSize;
    const bool bn = config.normType == "BN";

    // Distinct weight-initialisation seeds for the children, in construction order.
    std::int64_t seed = 1;
    m_activation = &addModule("activation", makeActivation(config.activation, cl * area, owner));
    m_conv = &addModule("conv", std::make_unique<Conv2d>(config.numChannels, cl, Size2{3, 3},
                                                         Size2{1, 1}, Size2{1, 1}, Size2{1, 1}, 1,
                                                         false, hw, seedAttribute(seed++)));
    if (bn) {
        m_normCommon =
            &addModule("norm_common", std::make_unique<BatchNorm2d>(cl, 1e-5, 0.1, true, true, hw));
    } else {
        m_normCommon = &addModule("norm_common", std::make_unique<LayerNorm>(
                                                     std::vector<std::int64_t>{cl, hw[0], hw[1]}));
    }
    auto blocks = std::make_unique<ModuleList>();
    for (std::int64_t k = 0; k < config.numResBlocks; ++k) {
        ResBlockOptions options;
        options.activation = config.activation;
        options.normType = "BN";
        options.resType = "basic";
        options.bias = false;
        options.inputSize = hw;
        options.seed = seed;
        seed += 3;
        blocks->append(std::make_unique<ResBlock>(cl, options));
    }
    m_resblocks = &addModule("resblocks", std::move(blocks));
    m_conv1x1Reward = &addModule(
        "conv1x1_reward", std::make_unique<Conv2d>(cl, cr, Size2{1, 1}, Size2{1, 1}, Size2{0, 0},
                                                   Size2{1, 1}, 1, true, hw, seedAttribute(seed++)));
    if (bn) {
        m_normReward =
            &addModule("norm_reward", std::make_unique<BatchNorm2d>(cr, 1e-5, 0.1, true, true, hw));
    } else {
        m_normReward = &addModule("norm_reward", std::make_unique<LayerNorm>(
                                                     std::vector<std::int64_t>{cr, hw[0], hw[1]}));
    }
    auto lstm = std::make_unique<LSTM>(flatten, hidden, 1, true, false, seedAttribute(seed++));
    m_lstm = lstm.get();
    addModule("lstm", std::move(lstm));
    m_normValuePrefix = &addModule("norm_value_prefix", std::make_unique<BatchNorm1d>(hidden));
    MlpOptions head;
    head.activation = config.activation;
    head.normType = config.normType;
    head.outputActivation = false;
    head.outputNorm = false;
    head.lastLinearLayerInitZero = config.lastLinearLayerInitZero;
    head.seed = seed;
    m_fcRewardHead = &addModule(
        "fc_reward_head",
        std::make_unique<MLP>(hidden, config.rewardHeadHiddenChannels.front(),
                              config.outputSupportSize,
                              static_cast<std::int64_t>(config.rewardHeadHiddenChannels.size()) + 1,
                              head));
    setShape({config.numChannels * area, cl * area}, false, false);
    finishRegistration();
}

nlohmann::json DynamicsNetwork::config() const
{
    const auto& c = m_config;
    return {{"observation_shape", c.observationShape},
            {"action_encoding_dim", c.actionEncodingDim},
            {"num_res_blocks", c.numResBlocks},
            {"num_channels", c.numChannels},
            {"reward_head_channels", c.rewardHeadChannels},
            {"reward_head_hidden_channels", c.rewardHeadHiddenChannels},
            {"output_support_size", c.outputSupportSize},
            {"flatten_input_size_for_reward_head", c.flattenInputSizeForRewardHead},
            {"downsample", c.downsample},
            {"lstm_hidden_size", c.lstmHiddenSize},
            {"last_linear_layer_init_zero", c.lastLinearLayerInitZero},
            {"activation", c.activation},
            {"norm_type", c.normType}};
}

std::unique_ptr<Module> DynamicsNetwork::fromConfig(const nlohmann::json& json)
{
    const ConfigReader r(json, {"observation_shape", "action_encoding_dim", "num_res_blocks",
                                "num_channels", "reward_head_channels",
                                "reward_head_hidden_channels", "output_support_size",
                                "flatten_input_size_for_reward_head", "downsample",
                                "lstm_hidden_size", "last_linear_layer_init_zero", "activation",
                                "norm_type"});
    constexpr std::int64_t kMax = ConfigReader::kMaxSize;
    if (!r.has("observation_shape")) {
        throw Error("config 'observation_shape': missing; expected [C, H, W] or [H, W]");
    }
    DynamicsNetworkConfig c;
    c.observationShape = r.integers("observation_shape", {}, 2, 3, 1, kMax);
    c.actionEncodingDim = r.integer("action_encoding_dim", c.actionEncodingDim, 1, kMax);
    c.numResBlocks = r.integer("num_res_blocks", c.numResBlocks, 0, 1000);
    c.numChannels = r.integer("num_channels", c.numChannels, 2, kMax);
    c.rewardHeadChannels = r.integer("reward_head_channels", c.rewardHeadChannels, 1, kMax);
    c.rewardHeadHiddenChannels = r.integers("reward_head_hidden_channels",
                                            c.rewardHeadHiddenChannels, 1, 64, 1, kMax);
    c.outputSupportSize = r.integer("output_support_size", c.outputSupportSize, 1, kMax);
    c.flattenInputSizeForRewardHead =
        r.integer("flatten_input_size_for_reward_head", 0, 0, kMax);
    c.downsample = r.boolean("downsample", c.downsample);
    c.lstmHiddenSize = r.integer("lstm_hidden_size", c.lstmHiddenSize, 1, kMax);
    c.lastLinearLayerInitZero =
        r.boolean("last_linear_layer_init_zero", c.lastLinearLayerInitZero);
    c.activation = r.choice("activation", c.activation, compositeActivations());
    c.normType = r.choice("norm_type", c.normType, {"BN", "LN"});
    if (c.numChannels <= c.actionEncodingDim) {
        throw Error("config 'num_channels': must exceed action_encoding_dim (" +
                    std::to_string(c.actionEncodingDim) + "), got " +
                    std::to_string(c.numChannels));
    }
    // Sizes that would exhaust memory are refused before anything is allocated.
    const auto& obs = c.observationShape;
    const std::int64_t h = c.downsample ? ceilDiv(obs[obs.size() - 2], 16) : obs[obs.size() - 2];
    const std::int64_t w = c.downsample ? ceilDiv(obs.back(), 16) : obs.back();
    const double area = static_cast<double>(h) * static_cast<double>(w);
    const auto limit = [](const char* key, double n, double max, const char* what) {
        if (n > max) {
            throw Error(std::string("config '") + key + "': " + what);
        }
    };
    limit("observation_shape", static_cast<double>(c.numChannels) * area, 1e8,
          "num_channels x H x W exceeds 10^8 features");
    limit("reward_head_channels", static_cast<double>(c.rewardHeadChannels) * area, 1e8,
          "reward_head_channels x H x W exceeds 10^8 features");
    limit("num_channels",
          static_cast<double>(c.numChannels) * static_cast<double>(c.numChannels) * 9.0,
          static_cast<double>(Tensor::kMaxElements), "the 3x3 conv weight exceeds the tensor limit");
    limit("lstm_hidden_size",
          4.0 * static_cast<double>(c.lstmHiddenSize) *
              std::max(static_cast<double>(c.rewardHeadChannels) * area,
                       static_cast<double>(c.lstmHiddenSize)),
          static_cast<double>(Tensor::kMaxElements), "an LSTM weight exceeds the tensor limit");
    for (const auto width : c.rewardHeadHiddenChannels) {
        limit("reward_head_hidden_channels",
              static_cast<double>(width) *
                  std::max(static_cast<double>(c.lstmHiddenSize),
                           static_cast<double>(c.outputSupportSize)),
              static_cast<double>(Tensor::kMaxElements), "a Linear weight exceeds the tensor limit");
    }
    try {
        return std::make_unique<DynamicsNetwork>(c);
    } catch (const Error& e) {
        throw Error(std::string("config: ") + e.what());
    }
}

DynamicsOutput DynamicsNetwork::forwardDynamics(const Tensor& stateActionEncoding,
                                                const Tensor& h0, const Tensor& c0)
{
    return run(stateActionEncoding, &h0, &c0);
}

std::vector<FlowStep> DynamicsNetwork::dataFlow() const
{
    return {{"conv", "norm_common"},
            {"norm_common", "resblocks", "+ state, activation"},
            {"resblocks", "conv1x1_reward", "next_latent_state"},
            {"conv1x1_reward", "norm_reward"},
            {"norm_reward", "lstm", "activation, flatten"},
            {"lstm", "norm_value_prefix", "out[0]"},
            {"norm_value_prefix", "fc_reward_head", "activation"}};
}

Tensor DynamicsNetwork::forward(const Tensor& stateActionEncoding)
{
    return run(stateActionEncoding, nullptr, nullptr).nextLatentState;
}

DynamicsOutput DynamicsNetwork::run(const Tensor& sa, const Tensor* h0, const Tensor* c0)
{
    const Size2 hw = m_latentSize;
    if (sa.rank() != 4 || sa.dim(1) != m_config.numChannels || sa.dim(2) != hw[0] ||
        sa.dim(3) != hw[1] || sa.dim(0) < 1) {
        throw Error(where() + ": expected a state-action encoding (B, " +
                    std::to_string(m_config.numChannels) + ", " + std::to_string(hw[0]) + ", " +
                    std::to_string(hw[1]) + ") with B >= 1, got " + sa.shape().toString());
    }
    DynamicsOutput out;
    Tensor next = runWithHooks(sa.view(), [&](const TensorView& in) {
        const std::int64_t batch = in.dim(0);
        const std::int64_t nIn = sizeIn();
        const std::int64_t nLatent = sizeOut();
        const Tensor input = in.copy();
        Tensor x = m_normCommon->forward(m_conv->forward(input));
        // The residual: the latent channels of the encoding come first in every sample.
        for (std::int64_t b = 0; b < batch; ++b) {
            Eigen::Map<Eigen::ArrayXf>(x.data() + b * nLatent, nLatent) +=
                Eigen::Map<const Eigen::ArrayXf>(input.data() + b * nIn, nLatent);
        }
        x = m_activation->forward(x);
        for (const auto& [name, block] : m_resblocks->namedChildren()) {
            x = block->forward(x);
        }
        Tensor y = m_activation->forward(m_normReward->forward(m_conv1x1Reward->forward(x)));
        y.reshape(Shape{1, batch, m_config.flattenInputSizeForRewardHead});
        LstmResult r = m_lstm->forwardWithState(y, h0, c0);
        Tensor v = r.output;
        v.reshape(Shape{batch, m_config.lstmHiddenSize});
        v = m_fcRewardHead->forward(m_activation->forward(m_normValuePrefix->forward(v)));
        out.h = std::move(r.h);
        out.c = std::move(r.c);
        out.valuePrefix = std::move(v);
        return x;
    });
    out.nextLatentState = std::move(next);
    return out;
}

Tensor DynamicsNetwork::evolveImpl(const TensorView& input, const Recorder& recorder)
{
    const std::int64_t rows = input.dim(0) * input.dim(1);
    const std::int64_t nIn = sizeIn();
    const std::int64_t nLatent = sizeOut();
    Tensor x = m_conv->forwardBatched(input, recorder.child("conv"));
    x = m_normCommon->forwardBatched(x.view(), recorder.child("norm_common"));
    for (std::int64_t r = 0; r < rows; ++r) {
        Eigen::Map<Eigen::ArrayXf>(x.data() + r * nLatent, nLatent) +=
            Eigen::Map<const Eigen::ArrayXf>(input.data() + r * nIn, nLatent);
    }
    x = m_activation->forward(x);
    const Recorder blocks = recorder.child("resblocks");
    for (const auto& [name, block] : m_resblocks->namedChildren()) {
        x = block->forwardBatched(x.view(), blocks.child(name));
    }
    Tensor y = m_conv1x1Reward->forwardBatched(x.view(), recorder.child("conv1x1_reward"));
    y = m_activation->forward(m_normReward->forwardBatched(y.view(), recorder.child("norm_reward")));
    y = m_lstm->forwardBatched(y.view(), recorder.child("lstm"));
    y = m_activation->forward(
        m_normValuePrefix->forwardBatched(y.view(), recorder.child("norm_value_prefix")));
    y = m_fcRewardHead->forwardBatched(y.view(), recorder.child("fc_reward_head"));
    if (recorder.wants("value_prefix")) {
        recorder.record("value_prefix", std::move(y), "", false);
    }
    return x;
}

std::vector<ModuleStatistic> DynamicsNetwork::statistics() const
{
    return {
        {"dynamic_mean",
         "mean |w| over conv.weight and every parameter of the res blocks (LightZero's "
         "get_dynamic_mean)",
         getDynamicMean()},
        {"reward_mean",
         "mean |w| over conv1x1_reward.weight and every parameter of fc_reward_head "
         "(LightZero's get_reward_mean)",
         getRewardMean()},
    };
}

std::unique_ptr<NodeRunner> DynamicsNetwork::makeRunner()
{
    return std::make_unique<GenericRunner>(
        *this, std::vector<TraceInfo>{{"value_prefix", m_config.outputSupportSize, ""}});
}

double DynamicsNetwork::getDynamicMean() const
{
    double sum = 0.0;
    std::int64_t count = 0;
    accumulateAbs(m_conv->tensor("weight"), sum, count);
    for (const auto& [name, block] : m_resblocks->namedChildren()) {
        for (const auto& [key, t] : block->namedParameters()) {
            accumulateAbs(t, sum, count);
        }
    }
    return sum / static_cast<double>(count);
}

std::vector<float> DynamicsNetwork::rewardWeightDistribution() const
{
    const Tensor& w = m_conv1x1Reward->tensor("weight");
    std::vector<float> out(w.data(), w.data() + w.numel());
    for (const auto& [key, t] : m_fcRewardHead->namedParameters()) {
        out.insert(out.end(), t.data(), t.data() + t.numel());
    }
    return out;
}

double DynamicsNetwork::getRewardMean() const
{
    const std::vector<float> dist = rewardWeightDistribution();
    double sum = 0.0;
    for (const float v : dist) {
        sum += std::abs(static_cast<double>(v));
    }
    return sum / static_cast<double>(dist.size());
}

}  // namespace spike::engine
