// DI-engine's residual block. See resblock.hpp.
#include "engine/composites/resblock.hpp"

#include "engine/composites/composite.hpp"
#include "engine/layers/normalization.hpp"
#include "engine/layers/sequential.hpp"

#include <algorithm>

namespace spike::engine {

namespace {

/// DI-engine's conv2d_block: Sequential(Conv2d, [BatchNorm2d], [activation]) named 0, 1, 2.
std::unique_ptr<Sequential> convBlock(std::int64_t in, std::int64_t out, std::int64_t kernel,
                                      std::int64_t stride, std::int64_t padding, Size2 inputSize,
                                      bool norm, const std::string& activation, bool bias,
                                      std::int64_t seed, const std::string& owner)
{
    auto block = std::make_unique<Sequential>();
    auto conv = std::make_unique<Conv2d>(in, out, Size2{kernel, kernel}, Size2{stride, stride},
                                         Size2{padding, padding}, Size2{1, 1}, 1, bias, inputSize,
                                         seedAttribute(seed));
    const Size2 outSize = conv->outputSize(inputSize);
    block->append(std::move(conv));
    if (norm) {
        block->append(std::make_unique<BatchNorm2d>(out, 1e-5, 0.1, true, true, outSize));
    }
    if (!activation.empty()) {
        block->append(makeActivation(activation, out * outSize[0] * outSize[1], owner));
    }
    return block;
}

}  // namespace

ResBlock::ResBlock(std::int64_t inChannels, const ResBlockOptions& options)
    : Module({1}, false, false), m_in(inChannels), m_options(options)
{
    const std::string owner = "ResBlock";
    requireChoice(owner, "activation", options.activation, compositeActivations());
    requireChoice(owner, "norm_type", options.normType, {"BN", "none"});
    requireChoice(owner, "res_type", options.resType, {"basic", "bottleneck", "downsample"});
    const std::int64_t out = options.outChannels == 0 ? inChannels : options.outChannels;
    m_options.outChannels = out;
    if (inChannels < 1 || out < 1) {
        throw Error(owner + ": in_channels and out_channels must be >= 1, got (" +
                    std::to_string(inChannels) + ", " + std::to_string(out) + ")");
    }
    if (options.inputSize[0] < 1 || options.inputSize[1] < 1) {
        throw Error(owner + ": input_size must be >= 1 in both axes, got (" +
                    std::to_string(options.inputSize[0]) + ", " +
                    std::to_string(options.inputSize[1]) + ")");
    }
    if (options.resType != "downsample" && out != inChannels) {
        throw Error(owner + ": a " + options.resType + " block adds its input to its output, so " +
                    "out_channels must equal in_channels (" + std::to_string(inChannels) +
                    "), got " + std::to_string(out));
    }
    const bool norm = options.normType == "BN";
    const Size2 in = options.inputSize;
    const auto& act = options.activation;
    const bool bias = options.bias;
    std::unique_ptr<Sequential> conv1;
    std::unique_ptr<Sequential> conv2;
    std::unique_ptr<Sequential> conv3;
    if (options.resType == "basic") {
        conv1 = convBlock(inChannels, out, 3, 1, 1, in, norm, act, bias, options.seed, owner);
        conv2 = convBlock(out, out, 3, 1, 1, in, norm, "", bias, options.seed + 1, owner);
        m_outSize = in;
    } else if (options.resType == "bottleneck") {
        conv1 = convBlock(inChannels, out, 1, 1, 0, in, norm, act, bias, options.seed, owner);
        conv2 = convBlock(out, out, 3, 1, 1, in, norm, act, bias, options.seed + 1, owner);
        conv3 = convBlock(out, out, 1, 1, 0, in, norm, "", bias, options.seed + 2, owner);
        m_outSize = in;
    } else {
        conv1 = convBlock(inChannels, out, 3, 2, 1, in, norm, act, bias, options.seed, owner);
        m_outSize = dynamic_cast<const Conv2d&>(conv1->getSubmodule("0")).outputSize(in);
        conv2 = convBlock(out, out, 3, 1, 1, m_outSize, norm, "", bias, options.seed + 1, owner);
        conv3 = convBlock(inChannels, out, 3, 2, 1, in, false, "", bias, options.seed + 2, owner);
    }
    const std::int64_t nIn = inChannels * in[0] * in[1];
    const std::int64_t nOut = out * m_outSize[0] * m_outSize[1];
    m_act = &addModule("act", makeActivation(act, nOut, owner));
    m_conv1 = &addModule("conv1", std::move(conv1));
    m_conv2 = &addModule("conv2", std::move(conv2));
    if (conv3) {
        m_conv3 = &addModule("conv3", std::move(conv3));
    }
    setShape(nIn == nOut ? std::vector<std::int64_t>{nIn} : std::vector<std::int64_t>{nIn, nOut},
             false, false);
    finishRegistration();
}

nlohmann::json ResBlock::config() const
{
    return {{"in_channels", m_in},
            {"out_channels", m_options.outChannels},
            {"activation", m_options.activation},
            {"norm_type", m_options.normType},
            {"res_type", m_options.resType},
            {"bias", m_options.bias},
            {"input_size", {m_options.inputSize[0], m_options.inputSize[1]}}};
}

std::unique_ptr<Module> ResBlock::fromConfig(const nlohmann::json& config)
{
    const ConfigReader r(config, {"in_channels", "out_channels", "activation", "norm_type",
                                  "res_type", "bias", "input_size"});
    constexpr std::int64_t kMax = ConfigReader::kMaxSize;
    if (!r.has("in_channels")) {
        throw Error("config 'in_channels': missing");
    }
    ResBlockOptions o;
    const std::int64_t in = r.integer("in_channels", 1, 1, kMax);
    o.outChannels = r.integer("out_channels", 0, 0, kMax);
    o.activation = r.choice("activation", o.activation, compositeActivations());
    o.normType = r.choice("norm_type", o.normType, {"BN", "none"});
    o.resType = r.choice("res_type", o.resType, {"basic", "bottleneck", "downsample"});
    o.bias = r.boolean("bias", o.bias);
    const auto size = r.integers("input_size", {1, 1}, 2, 2, 1, kMax);
    o.inputSize = {size[0], size[1]};
    const double out = static_cast<double>(o.outChannels == 0 ? in : o.outChannels);
    if (static_cast<double>(std::max<std::int64_t>(in, 1)) * static_cast<double>(size[0]) *
            static_cast<double>(size[1]) > 1e8) {
        throw Error("config 'input_size': in_channels x H x W exceeds 10^8 features");
    }
    if (out * static_cast<double>(std::max(in, static_cast<std::int64_t>(out))) * 9.0 >
        static_cast<double>(Tensor::kMaxElements)) {
        throw Error("config 'out_channels': a conv weight exceeds the tensor limit");
    }
    try {
        return std::make_unique<ResBlock>(in, o);
    } catch (const Error& e) {
        throw Error(std::string("config: ") + e.what());
    }
}

std::vector<FlowStep> ResBlock::dataFlow() const
{
    if (m_options.resType == "downsample") {
        return {{"conv1", "conv2"}, {"conv2", "act", "+ conv3(x)"}, {"conv3", "act", "identity path"}};
    }
    if (m_options.resType == "bottleneck") {
        return {{"conv1", "conv2"}, {"conv2", "conv3"}, {"conv3", "act", "+ x (residual)"}};
    }
    return {{"conv1", "conv2"}, {"conv2", "act", "+ x (residual)"}};
}

Tensor ResBlock::forward(const Tensor& input)
{
    if (input.rank() != 4 || input.dim(1) != m_in) {
        throw Error(where() + ": expected input (N, " + std::to_string(m_in) +
                    ", H, W), got " + input.shape().toString());
    }
    return runWithHooks(input.view(), [this](const TensorView& in) {
        const Tensor x = in.copy();
        Tensor y = m_conv2->forward(m_conv1->forward(x));
        if (m_options.resType == "bottleneck") {
            y = m_conv3->forward(y);
        }
        if (m_options.resType == "downsample") {
            addInPlace(y, m_conv3->forward(x).view(), where());
        } else {
            addInPlace(y, x.view(), where());
        }
        return m_act->forward(y);
    });
}

Tensor ResBlock::evolveImpl(const TensorView& input, const Recorder& recorder)
{
    Tensor y = m_conv1->forwardBatched(input, recorder.child("conv1"));
    y = m_conv2->forwardBatched(y.view(), recorder.child("conv2"));
    if (m_options.resType == "bottleneck") {
        y = m_conv3->forwardBatched(y.view(), recorder.child("conv3"));
    }
    if (m_options.resType == "downsample") {
        addInPlace(y, m_conv3->forwardBatched(input, recorder.child("conv3")).view(), where());
    } else {
        addInPlace(y, input, where());
    }
    return m_act->forwardBatched(y.view(), recorder.child("act"));
}

}  // namespace spike::engine
