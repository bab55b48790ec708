// DI-engine's MLP. See mlp.hpp.
#include "engine/composites/mlp.hpp"

#include "engine/composites/composite.hpp"
#include "engine/layers/linear.hpp"
#include "engine/layers/normalization.hpp"

#include <algorithm>

namespace spike::engine {

MLP::MLP(std::int64_t inChannels, std::int64_t hiddenChannels, std::int64_t outChannels,
         std::int64_t layerNum, const MlpOptions& options)
    : Module({1}, false, false),
      m_in(inChannels),
      m_hidden(hiddenChannels),
      m_out(outChannels),
      m_layerNum(layerNum),
      m_options(options)
{
    const std::string owner = "MLP";
    std::vector<std::string> activations = compositeActivations();
    activations.push_back("none");
    requireChoice(owner, "activation", options.activation, activations);
    requireChoice(owner, "norm_type", options.normType, {"BN", "LN", "none"});
    if (inChannels < 1 || hiddenChannels < 1 || outChannels < 1 || layerNum < 0) {
        throw Error(owner + ": in_channels, hidden_channels and out_channels must be >= 1 and " +
                    "layer_num >= 0, got (" + std::to_string(inChannels) + ", " +
                    std::to_string(hiddenChannels) + ", " + std::to_string(outChannels) + ", " +
                    std::to_string(layerNum) + ")");
    }
    std::int64_t index = 0;
    const auto add = [&](std::unique_ptr<Module> child) {
        addModule(std::to_string(index++), std::move(child));
    };
    const auto norm = [&](std::int64_t n) -> std::unique_ptr<Module> {
        if (options.normType == "BN") {
            return std::make_unique<BatchNorm1d>(n);
        }
        return std::make_unique<LayerNorm>(std::vector<std::int64_t>{n});
    };
    if (layerNum == 0) {
        add(std::make_unique<Identity>(inChannels));
        m_out = inChannels;
    } else {
        std::vector<std::int64_t> channels{inChannels};
        for (std::int64_t i = 0; i + 1 < layerNum; ++i) {
            channels.push_back(hiddenChannels);
        }
        channels.push_back(outChannels);
        for (std::size_t k = 0; k + 1 < channels.size(); ++k) {
            const bool last = k + 2 == channels.size();
            const std::int64_t n = channels[k + 1];
            AttributeMap initial = seedAttribute(options.seed + static_cast<std::int64_t>(k));
            if (last && options.lastLinearLayerInitZero) {
                initial.emplace("weight", Tensor::zeros(Shape{n, channels[k]}));
                initial.emplace("bias", Tensor::zeros(Shape{n}));
            }
            add(std::make_unique<Linear>(channels[k], n, true, initial));
            if (options.normType != "none" && (!last || options.outputNorm)) {
                add(norm(n));
            }
            if (options.activation != "none" && (!last || options.outputActivation)) {
                add(makeActivation(options.activation, n, owner));
            }
        }
    }
    setShape(inChannels == m_out ? std::vector<std::int64_t>{inChannels}
                                 : std::vector<std::int64_t>{inChannels, m_out},
             false, false);
    finishRegistration();
}

nlohmann::json MLP::config() const
{
    return {{"in_channels", m_in},
            {"hidden_channels", m_hidden},
            {"out_channels", m_out},
            {"layer_num", m_layerNum},
            {"activation", m_options.activation},
            {"norm_type", m_options.normType},
            {"output_activation", m_options.outputActivation},
            {"output_norm", m_options.outputNorm},
            {"last_linear_layer_init_zero", m_options.lastLinearLayerInitZero}};
}

std::unique_ptr<Module> MLP::fromConfig(const nlohmann::json& config)
{
    const ConfigReader r(config, {"in_channels", "hidden_channels", "out_channels", "layer_num",
                                  "activation", "norm_type", "output_activation", "output_norm",
                                  "last_linear_layer_init_zero"});
    constexpr std::int64_t kMax = ConfigReader::kMaxSize;
    for (const char* key : {"in_channels", "hidden_channels", "out_channels", "layer_num"}) {
        if (!r.has(key)) {
            throw Error(std::string("config '") + key + "': missing");
        }
    }
    const std::int64_t in = r.integer("in_channels", 1, 1, kMax);
    const std::int64_t hidden = r.integer("hidden_channels", 1, 1, kMax);
    const std::int64_t out = r.integer("out_channels", 1, 1, kMax);
    const std::int64_t layers = r.integer("layer_num", 1, 0, 1000);
    MlpOptions o;
    std::vector<std::string> activations = compositeActivations();
    activations.push_back("none");
    o.activation = r.choice("activation", o.activation, activations);
    o.normType = r.choice("norm_type", o.normType, {"BN", "LN", "none"});
    o.outputActivation = r.boolean("output_activation", o.outputActivation);
    o.outputNorm = r.boolean("output_norm", o.outputNorm);
    o.lastLinearLayerInitZero = r.boolean("last_linear_layer_init_zero", o.lastLinearLayerInitZero);
    const double widest = static_cast<double>(std::max({in, hidden, out}));
    if (widest * widest > static_cast<double>(Tensor::kMaxElements)) {
        throw Error("config: a Linear weight of this MLP would exceed the tensor limit");
    }
    return std::make_unique<MLP>(in, hidden, out, layers, o);
}

Tensor MLP::forward(const Tensor& input)
{
    return runWithHooks(input.view(), [this](const TensorView& in) {
        Tensor x = in.copy();
        for (const auto& [name, child] : namedChildren()) {
            x = child->forward(x);
        }
        return x;
    });
}

Tensor MLP::evolveImpl(const TensorView& input, const Recorder& recorder)
{
    const auto children = namedChildren();
    Tensor x = children.front().second->forwardBatched(input, recorder.child(children.front().first));
    for (std::size_t i = 1; i < children.size(); ++i) {
        x = children[i].second->forwardBatched(x.view(), recorder.child(children[i].first));
    }
    return x;
}

}  // namespace spike::engine
