// EfficientZero's DynamicsNetwork: the LightZero reference case (outputs and both weight
// statistics, strict loading of the exported state dict), its evolve() path, the LN and
// downsample variants, the template factory (ResBlock, MLP, DynamicsNetwork), model files with
// constructor-built children, and the bundled template resources/examples/dynamics_network.json.
// ResBlock and MLP on their own are covered by test_composites.cpp.
#include "engine/composites/dynamics_network.hpp"
#include "engine/layers/lstm.hpp"
#include "engine/io/model_io.hpp"
#include "engine/io/module_factory.hpp"
#include "engine/tensor/random.hpp"
#include "tests/layer_test_helpers.hpp"
#include "tests/reference_case.hpp"

#include <QtTest/QtTest>

#include <QTemporaryDir>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

using namespace spike::engine;  // NOLINT: test file
using spike::tests::ReferenceCase;
using spike::tests::expectClose;
using spike::tests::endsWith;
using spike::tests::expectError;
using spike::tests::keysOf;
using spike::tests::randomize;

namespace {

const std::string kTemplate =
    std::string(SPIKE_TEST_DATA_DIR) + "/../../resources/examples/dynamics_network.json";

Tensor randomTensor(Shape shape, std::uint64_t seed, double lo = -1, double hi = 1)
{
    return spike::tests::uniformTensor(shape, seed, lo, hi);
}

/// The case array named by the top-level key `key` ("input", "h0", "c0").
Tensor caseArray(const ReferenceCase& c, const char* key)
{
    return c.array(c.json.at(key).get<std::string>());
}

/// The reference case's constructor arguments, LightZero names.
DynamicsNetworkConfig caseConfig(const ReferenceCase& c)
{
    const auto& p = c.json.at("params");
    DynamicsNetworkConfig cfg;
    cfg.observationShape = p.at("observation_hw").get<std::vector<std::int64_t>>();
    cfg.actionEncodingDim = p.at("action_encoding_dim").get<std::int64_t>();
    cfg.numResBlocks = p.at("num_res_blocks").get<std::int64_t>();
    cfg.numChannels = p.at("num_channels").get<std::int64_t>();
    cfg.rewardHeadChannels = p.at("reward_head_channels").get<std::int64_t>();
    cfg.rewardHeadHiddenChannels = {p.at("hidden").get<std::int64_t>()};
    cfg.outputSupportSize = p.at("output_support_size").get<std::int64_t>();
    cfg.flattenInputSizeForRewardHead = p.at("flatten").get<std::int64_t>();
    cfg.lstmHiddenSize = p.at("lstm_hidden").get<std::int64_t>();
    cfg.normType = p.at("norm_type").get<std::string>();
    cfg.downsample = p.at("downsample").get<bool>();
    cfg.lastLinearLayerInitZero = p.at("last_linear_layer_init_zero").get<bool>();
    return cfg;
}

/// The case's network with the case's weights (from its state_dict folder).
std::unique_ptr<DynamicsNetwork> caseNetwork(const ReferenceCase& c)
{
    auto net = std::make_unique<DynamicsNetwork>(caseConfig(c));
    const auto r = net->loadStateDict(loadStateDictFolder(c.dir + "/state_dict"), true);
    if (!r.status.ok) {
        throw std::runtime_error(r.status.message);
    }
    return net;
}

/// Sample b of a (B, C, H, W) tensor as (1, C, H, W).
Tensor sample(const Tensor& t, std::int64_t b)
{
    const std::int64_t n = t.numel() / t.dim(0);
    Tensor out(Shape{1, t.dim(1), t.dim(2), t.dim(3)});
    std::copy(t.data() + b * n, t.data() + (b + 1) * n, out.data());
    return out;
}

/// Row `row` of a tensor seen as (rows, n).
Tensor row(const Tensor& t, std::int64_t r, std::int64_t n)
{
    Tensor out(Shape{n});
    std::copy(t.data() + r * n, t.data() + (r + 1) * n, out.data());
    return out;
}

std::string readText(const std::string& path)
{
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace

class TestDynamicsNetwork : public QObject {
    Q_OBJECT

private slots:
    void referenceCase()
    {
        const auto c = ReferenceCase::load("dynamics_network");
        auto net = caseNetwork(c);
        net->eval();
        const DynamicsOutput out =
            net->forwardDynamics(caseArray(c, "input"), caseArray(c, "h0"),
                                 caseArray(c, "c0"));
        const Tensor next = c.named("expected", "next_latent_state");
        QCOMPARE(out.nextLatentState.shape(), next.shape());
        QCOMPARE(out.h.shape(), c.named("expected", "h").shape());
        QCOMPARE(out.valuePrefix.shape(), c.named("expected", "value_prefix").shape());
        expectClose(out.nextLatentState, next, c.atol(), c.rtol(), "next_latent_state");
        expectClose(out.h, c.named("expected", "h"), c.atol(), c.rtol(), "h");
        expectClose(out.c, c.named("expected", "c"), c.atol(), c.rtol(), "c");
        expectClose(out.valuePrefix, c.named("expected", "value_prefix"), c.atol(), c.rtol(),
                    "value_prefix");
        const double dynamicMean = c.json.at("expected").at("dynamic_mean").get<double>();
        const double rewardMean = c.json.at("expected").at("reward_mean").get<double>();
        QVERIFY2(std::abs(net->getDynamicMean() - dynamicMean) < 1e-6,
                 std::to_string(net->getDynamicMean()).c_str());
        QVERIFY2(std::abs(net->getRewardMean() - rewardMean) < 1e-6,
                 std::to_string(net->getRewardMean()).c_str());
        // The distribution: conv1x1_reward.weight (4*6) then fc_reward_head's parameters.
        const auto dist = net->rewardWeightDistribution();
        QCOMPARE(dist.size(), std::size_t{24 + 16 * 32 + 16 + 16 + 16 + 21 * 16 + 21});
        QCOMPARE(dist.front(), net->getSubmodule("conv1x1_reward").tensor("weight")[0]);
        QCOMPARE(dist.back(), net->getSubmodule("fc_reward_head.3").tensor("bias")[20]);
        // forward(x) is forwardDynamics from a zero (h, c).
        const Tensor sa = caseArray(c, "input");
        const Tensor zeros(Shape{1, 3, 32});
        QVERIFY(net->forward(sa).identical(net->forwardDynamics(sa, zeros, zeros).nextLatentState));
    }

    void stateDictKeysAreLightZeros()
    {
        const auto c = ReferenceCase::load("dynamics_network");
        DynamicsNetwork net(caseConfig(c));
        // case.json's key order is PyTorch's state_dict() order.
        std::ifstream file(c.dir + "/case.json");
        const auto ordered = nlohmann::ordered_json::parse(file);
        std::vector<std::string> expected;
        for (const auto& [k, v] : ordered.at("state_dict").items()) {
            expected.push_back(k);
        }
        std::vector<std::string> keys;
        std::vector<std::string> tracked;
        for (const auto& key : keysOf(net.stateDict())) {
            (endsWith(key, ".num_batches_tracked") ? tracked : keys).push_back(key);
        }
        QCOMPARE(keys, expected);  // same keys, in PyTorch's order
        QCOMPARE(tracked, (std::vector<std::string>{
                              "norm_common.num_batches_tracked",
                              "resblocks.0.conv1.1.num_batches_tracked",
                              "resblocks.0.conv2.1.num_batches_tracked",
                              "norm_reward.num_batches_tracked",
                              "norm_value_prefix.num_batches_tracked",
                              "fc_reward_head.1.num_batches_tracked"}));
        // Child names and types as LightZero's print(model) shows them.
        std::vector<std::string> children;
        for (const auto& [n, m] : net.namedChildren()) {
            children.push_back(n + ":" + m->className());
        }
        QCOMPARE(children, (std::vector<std::string>{
                               "activation:ReLU", "conv:Conv2d", "norm_common:BatchNorm2d",
                               "resblocks:ModuleList", "conv1x1_reward:Conv2d",
                               "norm_reward:BatchNorm2d", "lstm:LSTM",
                               "norm_value_prefix:BatchNorm1d", "fc_reward_head:MLP"}));
        QCOMPARE(net.getSubmodule("resblocks.0").className(), std::string("ResBlock"));
        QCOMPARE(net.sizeIn(), std::int64_t{8 * 16});
        QCOMPARE(net.sizeOut(), std::int64_t{6 * 16});
        QVERIFY(net.toString().find("(resblocks): ModuleList(\n    (0): ResBlock(\n      (act): ReLU()\n"
                                    "      (conv1): Sequential(\n") != std::string::npos);
    }

    void strictLoadingNamesTheMissingKey()
    {
        const auto c = ReferenceCase::load("dynamics_network");
        DynamicsNetwork net(caseConfig(c));
        const StateDict before = net.stateDict();
        StateDict dict = loadStateDictFolder(c.dir + "/state_dict");
        dict.erase(std::remove_if(dict.begin(), dict.end(),
                                  [](const auto& e) { return e.first == "lstm.weight_hh_l0"; }),
                   dict.end());
        auto r = net.loadStateDict(dict, true);
        QVERIFY(!r.status.ok);
        QVERIFY2(r.status.message.find("Missing key(s) in state_dict: \"lstm.weight_hh_l0\"") !=
                     std::string::npos,
                 r.status.message.c_str());
        QCOMPARE(r.missingKeys, (std::vector<std::string>{"lstm.weight_hh_l0"}));
        // Nothing changed.
        const StateDict after = net.stateDict();
        for (std::size_t i = 0; i < before.size(); ++i) {
            QVERIFY(after[i].second.identical(before[i].second));
        }
        // An unknown key is named too; non-strict loading takes the rest.
        dict.emplace_back("lstm.weight_ih_l1", Tensor(Shape{128, 32}));
        r = net.loadStateDict(dict, true);
        QVERIFY(r.status.message.find("Unexpected key(s) in state_dict: \"lstm.weight_ih_l1\"") !=
                std::string::npos);
        r = net.loadStateDict(dict, false);
        QVERIFY2(r.status.ok, r.status.message.c_str());
        QCOMPARE(r.missingKeys, (std::vector<std::string>{"lstm.weight_hh_l0"}));
        QCOMPARE(r.unexpectedKeys, (std::vector<std::string>{"lstm.weight_ih_l1"}));
        for (const auto& [k, v] : dict) {
            if (k == "conv.weight") {
                QVERIFY(net.getSubmodule("conv").tensor("weight").identical(v));
            }
        }
    }

    void evolveIsOneDynamicsStepPerTimeStep()
    {
        const auto c = ReferenceCase::load("dynamics_network");
        auto net = caseNetwork(c);
        net->eval();
        const Tensor sa = caseArray(c, "input");  // three encodings: three time steps
        const std::int64_t steps = sa.dim(0);
        const std::int64_t nIn = net->sizeIn();
        Tensor input = sa.reshaped(Shape{steps, nIn});
        const EvolveResult r = net->evolve(input, RecordSpec({"value_prefix", "lstm.h"}));
        QCOMPARE(r.output.shape(), (Shape{steps, net->sizeOut()}));
        const Tensor& prefix = r.record.at("").at("value_prefix").data;
        QCOMPARE(prefix.shape(), (Shape{steps, 21}));

        Tensor h(Shape{1, 1, 32});
        Tensor cc(Shape{1, 1, 32});
        for (std::int64_t t = 0; t < steps; ++t) {
            const DynamicsOutput o = net->forwardDynamics(sample(sa, t), h, cc);
            expectClose(row(r.output, t, net->sizeOut()), o.nextLatentState, 1e-6, 1e-6,
                        "next_latent_state");
            expectClose(row(prefix, t, 21), o.valuePrefix, 1e-5, 1e-5, "value_prefix");
            h = o.h;
            cc = o.c;
        }
        // The carried state is the lstm child's.
        expectClose(net->getSubmodule("lstm").tensor("h"), h, 1e-6, 1e-6, "h");
        expectClose(net->getSubmodule("lstm").tensor("c"), cc, 1e-6, 1e-6, "c");
        const auto keys = keysOf(net->stateDict());
        QVERIFY(std::find(keys.begin(), keys.end(), "lstm.h") == keys.end());

        // Chunks give the same result as one call; resetState() starts again from zero.
        net->resetState();
        const Tensor whole = net->evolve(input).output;
        QVERIFY(whole.identical(r.output));
        net->resetState();
        Tensor first(Shape{1, nIn});
        Tensor rest(Shape{steps - 1, nIn});
        std::copy(input.data(), input.data() + nIn, first.data());
        std::copy(input.data() + nIn, input.data() + input.numel(), rest.data());
        const Tensor a = net->evolve(first).output;
        const Tensor b = net->evolve(rest).output;
        expectClose(row(b, steps - 2, net->sizeOut()), row(whole, steps - 1, net->sizeOut()),
                    1e-6, 1e-6, "chunked");
        expectClose(a, row(whole, 0, net->sizeOut()), 1e-6, 1e-6, "first step");

        // Batches: each element starts from the stored state.
        net->resetState();
        Tensor batched(Shape{2, steps, nIn});
        std::copy(input.data(), input.data() + input.numel(), batched.data());
        std::copy(input.data(), input.data() + input.numel(), batched.data() + input.numel());
        const Tensor both = net->evolve(batched).output;
        expectClose(both.reshaped(Shape{2 * steps * net->sizeOut()}),
                    [&] {
                        Tensor t(Shape{2 * steps * net->sizeOut()});
                        std::copy(whole.data(), whole.data() + whole.numel(), t.data());
                        std::copy(whole.data(), whole.data() + whole.numel(), t.data() + whole.numel());
                        return t;
                    }(),
                    1e-6, 1e-6, "batched");

        // Wrong layouts are refused with the expected shape.
        expectError([&] { net->forward(Tensor(Shape{2, 8, 4, 5})); },
                    "DynamicsNetwork (root): expected a state-action encoding (B, 8, 4, 4)");
        expectError([&] { net->forwardDynamics(sa, Tensor(Shape{1, 2, 32}), Tensor(Shape{1, 2, 32})); },
                    "lstm");
    }

    void layerNormAndDownsampleVariants()
    {
        DynamicsNetworkConfig cfg;
        cfg.observationShape = {12, 40, 24};  // downsampled 16 times: a 3 x 2 latent
        cfg.downsample = true;
        cfg.numChannels = 7;
        cfg.actionEncodingDim = 1;
        cfg.numResBlocks = 2;
        cfg.rewardHeadChannels = 3;
        cfg.rewardHeadHiddenChannels = {10, 10};
        cfg.outputSupportSize = 5;
        cfg.lstmHiddenSize = 9;
        cfg.normType = "LN";
        cfg.lastLinearLayerInitZero = true;
        DynamicsNetwork net(cfg);
        QCOMPARE(net.latentSize(), (Size2{3, 2}));
        QCOMPARE(net.latentChannels(), std::int64_t{6});
        QCOMPARE(net.settings().flattenInputSizeForRewardHead, std::int64_t{3 * 3 * 2});
        QCOMPARE(net.getSubmodule("norm_common").config().at("normalized_shape"),
                 nlohmann::json({6, 3, 2}));
        QCOMPARE(net.getSubmodule("norm_reward").config().at("normalized_shape"),
                 nlohmann::json({3, 3, 2}));
        QCOMPARE(net.getSubmodule("norm_value_prefix").className(), std::string("BatchNorm1d"));
        QCOMPARE(net.getSubmodule("resblocks.1.conv2.1").className(), std::string("BatchNorm2d"));
        std::vector<std::string> head;
        for (const auto& [n, m] : net.getSubmodule("fc_reward_head").namedChildren()) {
            head.push_back(m->className());
        }
        QCOMPARE(head, (std::vector<std::string>{"Linear", "LayerNorm", "ReLU", "Linear",
                                                 "LayerNorm", "ReLU", "Linear"}));
        // last_linear_layer_init_zero: a zero value prefix until trained.
        QVERIFY(net.getSubmodule("fc_reward_head.6").tensor("weight").identical(Tensor(Shape{5, 10})));
        randomize(net, 11);
        net.eval();
        const Tensor sa = randomTensor(Shape{4, 7, 3, 2}, 3);
        const Tensor h0 = randomTensor(Shape{1, 4, 9}, 4);
        const Tensor c0 = randomTensor(Shape{1, 4, 9}, 5);
        const DynamicsOutput o = net.forwardDynamics(sa, h0, c0);
        QCOMPARE(o.nextLatentState.shape(), (Shape{4, 6, 3, 2}));
        QCOMPARE(o.valuePrefix.shape(), (Shape{4, 5}));
        // The first stage by hand: relu(LN(conv(sa)) + sa[:, :6]).
        Tensor x = net.getSubmodule("norm_common").forward(net.getSubmodule("conv").forward(sa));
        for (std::int64_t b = 0; b < 4; ++b) {
            for (std::int64_t i = 0; i < 36; ++i) {
                x[b * 36 + i] = std::max(x[b * 36 + i] + sa[b * 42 + i], 0.0F);
            }
        }
        x = net.getSubmodule("resblocks.0").forward(x);
        x = net.getSubmodule("resblocks.1").forward(x);
        QVERIFY(x.identical(o.nextLatentState));
        // evolve() with the same state gives the same numbers.
        QVERIFY(net.setAttributes({{"lstm",
                                    {{"h", row(h0, 0, 9).reshaped(Shape{1, 9})},
                                     {"c", row(c0, 0, 9).reshaped(Shape{1, 9})}}}})
                    .ok);
        const EvolveResult r = net.evolve(sample(sa, 0).reshaped(Shape{1, 1, 42}), RecordSpec({"value_prefix"}));
        expectClose(r.output, sample(o.nextLatentState, 0), 1e-6, 1e-6, "evolve");
        expectClose(r.record.at("").at("value_prefix").data, row(o.valuePrefix, 0, 5), 1e-5, 1e-5,
                    "value_prefix");

        cfg.flattenInputSizeForRewardHead = 64;
        expectError([&] { DynamicsNetwork bad(cfg); },
                    "flatten_input_size_for_reward_head must be reward_head_channels x H x W = 3 x 3 "
                    "x 2 = 18, got 64");
        cfg.flattenInputSizeForRewardHead = 0;
        cfg.numChannels = 1;
        expectError([&] { DynamicsNetwork bad(cfg); }, "num_channels (1) must exceed action_encoding_dim (1)");
        cfg.numChannels = 7;
        cfg.normType = "GN";
        expectError([&] { DynamicsNetwork bad(cfg); }, "norm_type must be one of 'BN', 'LN'; got 'GN'");
    }

    void factoryBuildsTheTemplates()
    {
        for (const char* type : {"ResBlock", "MLP", "DynamicsNetwork"}) {
            const ModuleTypeInfo* info = findModuleType(type);
            QVERIFY(info != nullptr);
            QCOMPARE(info->category, std::string("templates"));
            QVERIFY(!info->container);
            const auto m = createModule(type, info->exampleConfig);
            QCOMPARE(m->className(), std::string(type));
            // config() rebuilds the same module.
            QCOMPARE(createModule(type, m->config())->toString(), m->toString());
        }
        expectError([] { createModule("DynamicsNetwork", {{"num_channels", 8}}); },
                    "config 'observation_shape': missing");
        expectError([] { createModule("DynamicsNetwork", {{"observation_shape", {4, 4}}, {"lstm", 3}}); },
                    "config 'lstm': unknown key");
        expectError([] {
            createModule("DynamicsNetwork", {{"observation_shape", {4, 4}}, {"num_channels", 2},
                                             {"action_encoding_dim", 2}});
        }, "config 'num_channels': must exceed action_encoding_dim (2), got 2");
        expectError([] { createModule("DynamicsNetwork", {{"observation_shape", {4, 4}}, {"norm_type", "BN2"}}); },
                    "config 'norm_type': expected one of 'BN', 'LN', got \"BN2\"");
        expectError([] { createModule("ResBlock", {{"in_channels", 4}, {"res_type", "wide"}}); },
                    "config 'res_type': expected one of 'basic', 'bottleneck', 'downsample'");
        expectError([] { createModule("MLP", {{"in_channels", 4}}); }, "config 'hidden_channels': missing");
    }

    void modelFilesSetBuiltChildrenByName()
    {
        const auto c = ReferenceCase::load("dynamics_network");
        auto net = caseNetwork(c);
        QTemporaryDir dir;
        for (const std::int64_t limit : {std::int64_t{-1}, std::int64_t{64}}) {
            const std::string path = dir.filePath("dyn.json").toStdString();
            saveModel(path, *net, SaveOptions{limit});
            auto loaded = loadModel(path);
            QCOMPARE(loaded->toString(), net->toString());
            QCOMPARE(loaded->config(), net->config());
            const StateDict a = net->stateDict();
            const StateDict b = loaded->stateDict();
            QCOMPARE(keysOf(b), keysOf(a));
            for (std::size_t i = 0; i < a.size(); ++i) {
                QVERIFY2(b[i].second.identical(a[i].second), a[i].first.c_str());
            }
        }

        // The file's children must be the ones the config builds.
        nlohmann::json doc = modelToJson(*net);
        auto& children = doc["model"]["children"];
        QCOMPARE(children[1]["name"], nlohmann::json("conv"));
        const auto load = [&](const nlohmann::json& d) { return modelFromJson(d, "dyn.json", "."); };
        nlohmann::json bad = doc;
        bad["model"]["children"][1]["type"] = "Linear";
        expectError([&] { load(bad); },
                    "dyn.json: /model/children/1/type: DynamicsNetwork builds its child 'conv' as "
                    "Conv2d, not Linear");
        bad = doc;
        bad["model"]["children"][1]["name"] = "conv0";
        expectError([&] { load(bad); },
                    "dyn.json: /model/children/1/name: DynamicsNetwork builds its children from its "
                    "config and has no child named 'conv0' (children: 'activation', 'conv',");
        bad = doc;
        bad["model"]["children"][1]["config"]["in_channels"] = 9;
        expectError([&] { load(bad); },
                    "/model/children/1/config/in_channels: DynamicsNetwork builds its child 'conv' "
                    "with in_channels = 8 (from its own config), not 9");
        bad = doc;
        bad["model"]["children"][3]["children"][0]["children"][1]["children"][0]["attributes"]["weight"] =
            1.0;
        expectError([&] { load(bad); }, "/model/children/3/children/0/children/1/children/0/attributes/weight");
        bad = doc;
        bad["model"]["children"][3]["children"].push_back(bad["model"]["children"][3]["children"][0]);
        bad["model"]["children"][3]["children"][1]["name"] = "1";
        expectError([&] { load(bad); }, "/model/children/3/children/1/name: ModuleList builds its children "
                                        "from its config and has no child named '1' (children: '0')");
        // A file may leave children out (they keep their initial values) and set a few attributes.
        nlohmann::json slim = doc;
        slim["model"]["children"] = nlohmann::json::array(
            {{{"name", "lstm"}, {"type", "LSTM"}, {"attributes", {{"seed", 7}}}}});
        auto partial = load(slim).root;
        QCOMPARE(partial->getSubmodule("lstm").tensor("seed")[0], 7.0F);
    }

    void bundledTemplateLoadsAndRuns()
    {
        const auto c = ReferenceCase::load("dynamics_network");
        auto model = loadModel(kTemplate);
        QCOMPARE(model->className(), std::string("DynamicsNetwork"));
        // The template is the reference case's network with the case's weights.
        auto reference = caseNetwork(c);
        QCOMPARE(model->config(), reference->config());
        const StateDict a = reference->stateDict();
        const StateDict b = model->stateDict();
        QCOMPARE(keysOf(b), keysOf(a));
        for (std::size_t i = 0; i < a.size(); ++i) {
            QVERIFY2(b[i].second.identical(a[i].second), a[i].first.c_str());
        }
        // Listed in the GUI's resources, inline (a bundled file has no folder for .npy files).
        QVERIFY(readText(std::string(SPIKE_TEST_DATA_DIR) + "/../../resources/resources.qrc")
                    .find("examples/dynamics_network.json") != std::string::npos);
        QVERIFY(readText(kTemplate).find("\"npy\"") == std::string::npos);

        // What spikesim run does: loadModel, then evolve (T, Nin), recording.
        const Tensor sa = caseArray(c, "input");
        const EvolveResult r =
            model->evolve(sa.reshaped(Shape{sa.dim(0), model->sizeIn()}), RecordSpec(true));
        QCOMPARE(r.output.shape(), (Shape{3, 96}));
        QCOMPARE(r.record.at("").at("value_prefix").data.shape(), (Shape{3, 21}));
        QCOMPARE(r.record.at("lstm").at("h").data.shape(), (Shape{3, 1, 32}));
        QVERIFY(r.output.allFinite());
        reference->eval();
        Tensor h(Shape{1, 1, 32});
        Tensor cc(Shape{1, 1, 32});
        for (std::int64_t t = 0; t < 3; ++t) {
            const DynamicsOutput o = reference->forwardDynamics(sample(sa, t), h, cc);
            expectClose(row(r.output, t, 96), o.nextLatentState, 1e-6, 1e-6, "template step");
            h = o.h;
            cc = o.c;
        }
        // A zero input (spikesim run --steps without --input) runs too.
        model->resetState();
        QVERIFY(model->evolve(Tensor(Shape{5, model->sizeIn()})).output.allFinite());
    }
};

QTEST_GUILESS_MAIN(TestDynamicsNetwork)
#include "test_dynamics_network.moc"
