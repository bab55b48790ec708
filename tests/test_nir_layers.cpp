// The layer types NIR graphs use that torch's set lacked (issue #18): Conv1d, AvgPool2d and
// SumPool2d against recorded PyTorch cases (tests/data/torch_nir_layers, recorded by its
// record.py), Scale and Heaviside by hand, Delay's steps, rounding, carried ring and reset; bad
// configs and values refused naming the module or key; model-file round trips; and a Network
// chain of all of them (run by the CPU executor, in any chunking) equal to the modules evolved
// one after another.
#include "engine/io/model_io.hpp"
#include "engine/io/module_factory.hpp"
#include "engine/io/reconfigure.hpp"
#include "engine/layers/channelwise.hpp"
#include "engine/layers/conv1d.hpp"
#include "engine/layers/conv2d.hpp"
#include "engine/layers/delay.hpp"
#include "engine/layers/pooling.hpp"
#include "engine/layers/sequential.hpp"
#include "engine/network/network.hpp"
#include "engine/runtime/backend.hpp"
#include "tests/layer_test_helpers.hpp"
#include "tests/module_compare.hpp"
#include "tests/reference_case.hpp"

#include <QtTest/QtTest>

#include <QTemporaryDir>

#include <cmath>
#include <limits>

using namespace spike::engine;  // NOLINT: test file
using spike::tests::expectError;
using spike::tests::ReferenceCase;
using json = nlohmann::json;

namespace {

constexpr const char* kCases = "torch_nir_layers";

Tensor randomTensor(Shape shape, std::uint64_t seed, double lo = -2, double hi = 2)
{
    return spike::tests::uniformTensor(shape, seed, lo, hi);
}

Tensor vec(std::vector<float> v)
{
    const auto n = static_cast<std::int64_t>(v.size());
    return Tensor(Shape{n}, v);
}

/// A Delay of `delays` [s] at time step `dt` [s].
std::unique_ptr<Delay> delayOf(std::vector<float> delays, float dt = 1e-3F)
{
    const auto n = static_cast<std::int64_t>(delays.size());
    return std::make_unique<Delay>(n, AttributeMap{{"delay", vec(delays)}, {"dt", Tensor::scalar(dt)}});
}

/// Output row t, channel j of a (T, N) tensor.
float at(const Tensor& y, std::int64_t t, std::int64_t j)
{
    return y[t * y.dim(y.rank() - 1) + j];
}

/// A (T, N) series with a 1 at step `t0` in every channel, else 0.
Tensor pulses(std::int64_t steps, std::int64_t n, std::int64_t t0)
{
    Tensor x(Shape{steps, n});
    for (std::int64_t j = 0; j < n; ++j) {
        x[t0 * n + j] = 1.0F;
    }
    return x;
}

/// Rows [from, from + count) of a (T, N) tensor.
Tensor rows(const Tensor& x, std::int64_t from, std::int64_t count)
{
    const std::int64_t n = x.dim(1);
    Tensor out(Shape{count, n});
    std::copy_n(x.data() + from * n, count * n, out.data());
    return out;
}

/// Rows of `a` then rows of `b` (both (T, N)).
Tensor concatRows(const Tensor& a, const Tensor& b)
{
    Tensor out(Shape{a.dim(0) + b.dim(0), a.dim(1)});
    std::copy_n(a.data(), a.numel(), out.data());
    std::copy_n(b.data(), b.numel(), out.data() + a.numel());
    return out;
}

/// The chain the Network test wires: Conv1d -> AvgPool2d -> Scale -> Delay -> SumPool2d ->
/// Heaviside, sizes matched (the pools see the Conv1d's (4, 6) output as one (1, 4, 6) image).
/// Without the Conv1d (`withConv` false) the input is that image, 24 channels, and every step's
/// result is the same bits however the steps are grouped (a GEMM's bits may depend on how many
/// samples share it, so Conv1d's, like Conv2d's, are the same only for the same grouping).
std::vector<std::pair<std::string, std::unique_ptr<Module>>> chainModules(bool withConv = true)
{
    std::vector<std::pair<std::string, std::unique_ptr<Module>>> m;
    if (withConv) {
        m.emplace_back("conv", std::make_unique<Conv1d>(2, 4, 3, 1, 1, 1, 1, true, 6,
                                                        AttributeMap{{"seed", Tensor::scalar(3)}}));
    }
    m.emplace_back("avg", std::make_unique<AvgPool2d>(1, Size2{2, 2}, Size2{1, 1}, Size2{1, 0}, Size2{4, 6}));
    Tensor scale(Shape{25});
    Tensor delay(Shape{25});
    for (std::int64_t j = 0; j < 25; ++j) {
        scale[j] = 0.5F + 0.1F * static_cast<float>(j % 7);
        delay[j] = 1e-3F * static_cast<float>(j % 4);
    }
    m.emplace_back("scale", std::make_unique<Scale>(25, AttributeMap{{"scale", scale}}));
    m.emplace_back("delay", std::make_unique<Delay>(25, AttributeMap{{"delay", delay}}));
    m.emplace_back("sum", std::make_unique<SumPool2d>(1, Size2{2, 3}, Size2{1, 2}, Size2{0, 1}, Size2{5, 5}));
    Tensor threshold(Shape{12});
    for (std::int64_t j = 0; j < 12; ++j) {
        threshold[j] = -0.2F + 0.05F * static_cast<float>(j);
    }
    m.emplace_back("spike", std::make_unique<Heaviside>(12, AttributeMap{{"threshold", threshold}}));
    return m;
}

std::unique_ptr<Network> chainNetwork(bool withConv = true)
{
    auto net = std::make_unique<Network>(withConv ? 12 : 24, 12);
    std::string previous = "in";
    for (auto& [name, module] : chainModules(withConv)) {
        net->addNode(name, std::move(module));
        net->connect(previous, name);
        previous = name;
    }
    net->connect(previous, "out");
    return net;
}

}  // namespace

class TestNirLayers : public QObject {
    Q_OBJECT

private slots:
    // ---- torch reference cases --------------------------------------------------------------

    void conv1dReferenceCases_data()
    {
        QTest::addColumn<QString>("name");
        for (const char* name : {"conv1d_stride_padding", "conv1d_dilation_groups", "conv1d_depthwise"}) {
            QTest::newRow(name) << QString::fromLatin1(name);
        }
    }

    void conv1dReferenceCases()
    {
        QFETCH(QString, name);
        const auto c = ReferenceCase::load(name.toStdString(), kCases);
        const auto& p = c.json.at("params");
        const auto num = [&](const char* key, std::int64_t fallback) {
            return p.contains(key) ? p.at(key).get<std::int64_t>() : fallback;
        };
        // "bias": the array's file, or false for none.
        const bool bias = !p.contains("bias") || p.at("bias").is_string() || p.at("bias").get<bool>();
        AttributeMap values{{"weight", c.named("params", "weight")}};
        if (bias) {
            values["bias"] = c.named("params", "bias");
        }
        Conv1d conv(num("in_channels", 1), num("out_channels", 1), num("kernel_size", 1), num("stride", 1),
                    num("padding", 0), num("dilation", 1), num("groups", 1), bias, num("input_size", 0), values);
        const Tensor input = c.array(c.json.at("input").get<std::string>());
        const Tensor expected = c.named("expected", "output");
        const Tensor out = conv.forward(input);
        QCOMPARE(out.shape(), expected.shape());
        const double excess = spike::tests::toleranceExcess(out, expected, c.atol(), c.rtol());
        QVERIFY2(excess <= 0.0, ("exceeds tolerance by " + std::to_string(excess)).c_str());
        // Unbatched (C, L) gives the first sample's rows; evolve() views each step as (C, L).
        const std::int64_t perSample = input.numel() / input.dim(0);
        Tensor sample(Shape{input.dim(1), input.dim(2)});
        std::copy_n(input.data(), perSample, sample.data());
        const Tensor first = conv.forward(sample);
        QCOMPARE(first.shape(), (Shape{expected.dim(1), expected.dim(2)}));
        const Tensor firstOut = rows(out.reshaped(Shape{out.dim(0), first.numel()}), 0, 1);
        QVERIFY(spike::tests::toleranceExcess(first, firstOut, 1e-6, 1e-6) <= 0.0);
        const Tensor series = conv.evolve(input.reshaped(Shape{1, input.dim(0), perSample})).output;
        QVERIFY(series.reshaped(out.shape()).identical(out));
        // The factory builds the same module from the case's params.
        nlohmann::json config = p;
        config.erase("weight");
        config.erase("bias");
        config["bias"] = bias;
        auto built = createModule("Conv1d", config);
        QVERIFY(built->setAttributes({{"", values}}).ok);
        QVERIFY(built->forward(input).identical(out));
        QVERIFY(built->config() == conv.config());
    }

    void poolReferenceCases_data()
    {
        QTest::addColumn<QString>("name");
        for (const char* name : {"avgpool2d_padding", "avgpool2d_rect", "sumpool2d", "sumpool2d_padding"}) {
            QTest::newRow(name) << QString::fromLatin1(name);
        }
    }

    void poolReferenceCases()
    {
        QFETCH(QString, name);
        const auto c = ReferenceCase::load(name.toStdString(), kCases);
        const auto& p = c.json.at("params");
        nlohmann::json config = p;
        auto pool = createModule(c.json.at("module").get<std::string>(), config);
        const Tensor input = c.array(c.json.at("input").get<std::string>());
        const Tensor expected = c.named("expected", "output");
        const Tensor out = pool->forward(input);
        QCOMPARE(out.shape(), expected.shape());
        // Summed in torch's order: bit for bit.
        QCOMPARE(spike::tests::countDifferent(out, expected), std::int64_t{0});
        // evolve() views every step as (C, H, W) with H, W = input_size.
        const std::int64_t perSample = input.numel() / input.dim(0);
        const Tensor series = pool->evolve(input.reshaped(Shape{input.dim(0), 1, perSample})).output;
        QVERIFY(series.reshaped(out.shape()).identical(out));
        QCOMPARE(pool->shape(), (std::vector<std::int64_t>{perSample, expected.numel() / expected.dim(0)}));
        QVERIFY(pool->config().at("stride") == p.at("stride"));
    }

    void poolsSumAndAverageByDefinition()
    {
        // A 1 x 3 x 4 input of known values; 2 x 2 windows, stride 2 (the default), padding 1.
        Tensor x(Shape{1, 3, 4});
        for (std::int64_t i = 0; i < 12; ++i) {
            x[i] = static_cast<float>(i + 1);
        }
        SumPool2d sum(1, {2, 2}, std::nullopt, {1, 1});
        AvgPool2d avg(1, {2, 2}, std::nullopt, {1, 1});
        QCOMPARE(sum.stride(), (Size2{2, 2}));
        const Tensor s = sum.forward(x);
        QCOMPARE(s.shape(), (Shape{1, 2, 3}));
        // Windows (rows -1..0, 1..2) x (cols -1..0, 1..2, 3..4) of [[1 2 3 4] [5 6 7 8] [9 10 11 12]].
        const std::vector<float> want{1, 2 + 3, 4, 5 + 9, 6 + 7 + 10 + 11, 8 + 12};
        for (std::int64_t i = 0; i < 6; ++i) {
            QCOMPARE(s[i], want[static_cast<std::size_t>(i)]);
            QCOMPARE(avg.forward(x)[i], want[static_cast<std::size_t>(i)] / 4.0F);  // padded zeros count
        }
        QCOMPARE(sum.toString(), std::string("SumPool2d(channels=1, kernel_size=(2, 2), stride=(2, 2), padding=(1, 1))"));
        // The smallest input the window fits when no input_size is given.
        QCOMPARE(AvgPool2d(3, {3, 2}).sampleInputShape(), (Shape{3, 3, 2}));
        QCOMPARE(AvgPool2d(3, {3, 2}, Size2{1, 1}, {1, 1}).sampleInputShape(), (Shape{3, 1, 1}));
        expectError([&] { sum.forward(Tensor(Shape{2, 3, 4})); }, "has 2 channels on axis 0, expected 1");
        expectError([&] { sum.forward(Tensor(Shape{3, 4})); }, "must be (N, C, H, W) or (C, H, W)");
        SumPool2d big(1, {5, 5});
        expectError([&] { big.forward(Tensor(Shape{1, 3, 7})); },
                    "SumPool2d (root): kernel (5, 5) is larger than the padded input (3, 7)");
    }

    // ---- Scale and Heaviside ----------------------------------------------------------------

    void scaleMultipliesEachChannel()
    {
        Scale scale(3, {{"scale", vec({2.0F, -0.5F, 0.0F})}});
        QCOMPARE(scale.spec("scale").family, std::string("weights"));
        const Tensor y = scale.forward(Tensor(Shape{2, 3}, {1, 2, 3, -4, 8, 1e30F}));
        const std::vector<float> want{2, -1, 0, -8, -4, 0};
        for (std::int64_t i = 0; i < 6; ++i) {
            QCOMPARE(y[i], want[static_cast<std::size_t>(i)]);
        }
        QVERIFY(Scale(2).tensor("scale").identical(vec({1, 1})));  // starts as the identity
        // evolve: (B, T, N), every step the same product.
        const Tensor x = randomTensor(Shape{2, 5, 3}, 1);
        const Tensor e = scale.evolve(x).output;
        for (std::int64_t i = 0; i < x.numel(); ++i) {
            QCOMPARE(e[i], scale.tensor("scale")[i % 3] * x[i]);
        }
        expectError([&] { scale.forward(Tensor(Shape{3, 2})); },
                    "Scale (root): input (3, 2) must have the 3 channels on its last axis");
        QVERIFY(!scale.spikingOutput());
    }

    void heavisideIsStrict()
    {
        Heaviside h(4, {{"threshold", vec({0.0F, 0.5F, -1.0F, 2.0F})}});
        QVERIFY(h.spikingOutput());
        QCOMPARE(h.spec("threshold").family, std::string("thresholds"));
        // At the threshold itself: 0. Just above: 1.
        const Tensor at = h.forward(vec({0.0F, 0.5F, -1.0F, 2.0F}));
        const Tensor above = h.forward(vec({std::nextafter(0.0F, 1.0F), std::nextafter(0.5F, 1.0F),
                                            std::nextafter(-1.0F, 0.0F), std::nextafter(2.0F, 3.0F)}));
        const Tensor below = h.forward(vec({-1e-30F, 0.49F, -1.5F, -3.0F}));
        for (std::int64_t j = 0; j < 4; ++j) {
            QCOMPARE(at[j], 0.0F);
            QCOMPARE(above[j], 1.0F);
            QCOMPARE(below[j], 0.0F);
        }
        QCOMPARE(h.forward(vec({std::numeric_limits<float>::quiet_NaN(), 1, 1, 1}))[0], 0.0F);
        QVERIFY(Heaviside(2).tensor("threshold").identical(vec({0, 0})));
        const auto r = h.evolve(Tensor(Shape{3, 4}, {1, 1, 1, 1, 0, 0, -2, 2, 5, 0.6F, 0, 2.5F}),
                                RecordSpec(true));
        const std::vector<float> want{1, 1, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1};
        for (std::int64_t i = 0; i < 12; ++i) {
            QCOMPARE(r.output[i], want[static_cast<std::size_t>(i)]);
        }
        QVERIFY(r.record.at("").at("output").spikes);
        // The torch-style Threshold stays its own type.
        QCOMPARE(createModule("Threshold", {{"shape", {2}}})->className(), std::string("Threshold"));
        QVERIFY(createModule("Threshold", {{"shape", {2}}})->hasAttribute("value"));
    }

    // ---- Delay ------------------------------------------------------------------------------

    void delayPulseArrivesDStepsLaterPerChannel()
    {
        // 0, 1, 3 and 7 steps at dt = 1 ms.
        auto d = delayOf({0.0F, 1e-3F, 3e-3F, 7e-3F});
        QCOMPARE(d->delaySteps(), (std::vector<std::int64_t>{0, 1, 3, 7}));
        QCOMPARE(d->tensor("buffer").shape(), (Shape{7, 4}));
        const Tensor y = d->evolve(pulses(12, 4, 2)).output;
        const std::int64_t arrive[] = {2, 3, 5, 9};
        for (std::int64_t j = 0; j < 4; ++j) {
            for (std::int64_t t = 0; t < 12; ++t) {
                QCOMPARE(at(y, t, j), t == arrive[j] ? 1.0F : 0.0F);
            }
        }
        // Values, not just pulses: channel j is its input shifted by d_j, zeros before.
        d->resetState();
        const Tensor x = randomTensor(Shape{20, 4}, 2);
        const Tensor z = d->evolve(x).output;
        for (std::int64_t j = 0; j < 4; ++j) {
            const std::int64_t dj = d->delaySteps()[static_cast<std::size_t>(j)];
            for (std::int64_t t = 0; t < 20; ++t) {
                QCOMPARE(at(z, t, j), t < dj ? 0.0F : at(x, t - dj, j));
            }
        }
        QCOMPARE(d->toString(), std::string("Delay(shape=(4,), steps=7)"));
    }

    void delayZeroPassesThrough()
    {
        Delay d(3);
        QCOMPARE(d.longestDelay(), std::int64_t{0});
        QCOMPARE(d.tensor("buffer").shape(), (Shape{0, 3}));
        const Tensor x = randomTensor(Shape{2, 6, 3}, 3);
        QVERIFY(d.evolve(x).output.identical(x));
        QVERIFY(d.forward(x).identical(x));
    }

    void delayRoundsToTheNearestStep()
    {
        // 2.5 steps round up (0.0025 / 0.001 is 2.5 as decimals; float32's quotient is
        // 2.4999998), 2.4 down, 2.6 up, 1.5 steps of 0.1 ms up (1.4999999999999998 in double).
        auto d = delayOf({2.5e-3F, 2.4e-3F, 2.6e-3F, 0.4e-3F, 0.5e-3F, 0.0F});
        QCOMPARE(d->delaySteps(), (std::vector<std::int64_t>{3, 2, 3, 0, 1, 0}));
        auto fine = delayOf({0.15e-3F, 0.35F, 0.45e-3F}, 0.1e-3F);
        QCOMPARE(fine->delaySteps(), (std::vector<std::int64_t>{2, 3500, 5}));
        // Changing dt re-rounds: 2.5 ms at 0.5 ms is 5 steps; the ring grows, emptied.
        QVERIFY(d->setAttribute("dt", Tensor::scalar(0.5e-3F)).ok);
        QCOMPARE(d->delaySteps(), (std::vector<std::int64_t>{5, 5, 5, 1, 1, 0}));
        QCOMPARE(d->tensor("buffer").shape(), (Shape{5, 6}));
        const Tensor y = d->evolve(pulses(8, 6, 0)).output;
        QCOMPARE(at(y, 5, 0), 1.0F);
        QCOMPARE(at(y, 1, 3), 1.0F);
        QCOMPARE(at(y, 0, 5), 1.0F);
    }

    void delayTwoCallsEqualOneAndResetClears()
    {
        auto one = delayOf({1e-3F, 4e-3F, 0.0F, 9e-3F, 2e-3F});
        auto two = delayOf({1e-3F, 4e-3F, 0.0F, 9e-3F, 2e-3F});
        const Tensor x = randomTensor(Shape{23, 5}, 4);
        const Tensor whole = one->evolve(x).output;
        const Tensor a = two->evolve(rows(x, 0, 6)).output;
        const Tensor b = two->evolve(rows(x, 6, 17)).output;
        QVERIFY(concatRows(a, b).identical(whole));
        spike::tests::compareAttributes(*one, *two);
        QCOMPARE(two->stepsElapsed(), std::int64_t{23});
        // The ring is the state: a state dict carries it into a fresh module.
        auto three = delayOf({1e-3F, 4e-3F, 0.0F, 9e-3F, 2e-3F});
        QVERIFY(three->loadStateDict(one->stateDict()).status.ok);
        const Tensor more = randomTensor(Shape{11, 5}, 5);
        QVERIFY(three->evolve(more).output.identical(one->evolve(more).output));
        // resetState empties the ring: the same input gives the first output again.
        one->resetState();
        QVERIFY(one->tensor("buffer").flat().isZero());
        QCOMPARE(one->tensor("buffer_head").item(), 0.0F);
        QVERIFY(one->evolve(x).output.identical(whole));
    }

    void delayBatchesStartFromTheStoredRing()
    {
        auto d = delayOf({2e-3F, 3e-3F});
        d->evolve(randomTensor(Shape{4, 2}, 6));  // something in the ring
        auto reference = delayOf({2e-3F, 3e-3F});
        QVERIFY(reference->setAttributes(NestedAttributes{{"", {{"buffer", d->tensor("buffer")},
                                                                {"buffer_head", d->tensor("buffer_head")}}}})
                    .ok);
        const Tensor x = randomTensor(Shape{3, 7, 2}, 7);
        const Tensor batched = d->evolve(x).output;
        for (std::int64_t b = 2; b >= 0; --b) {
            auto copy = delayOf({2e-3F, 3e-3F});
            QVERIFY(copy->setAttributes(NestedAttributes{{"", {{"buffer", reference->tensor("buffer")},
                                                                 {"buffer_head", reference->tensor("buffer_head")}}}})
                        .ok);
            const Tensor alone = copy->evolve(rows(x.reshaped(Shape{21, 2}), b * 7, 7)).output;
            QVERIFY(rows(batched.reshaped(Shape{21, 2}), b * 7, 7).identical(alone));
            if (b == 0) {
                spike::tests::compareAttributes(*copy, *d);  // the stored ring is element 0's
            }
        }
    }

    void delayRefusesBadValues()
    {
        auto d = delayOf({1e-3F, 2e-3F});
        const Tensor before = d->tensor("delay");
        const auto refused = [&](const AttributeMap& change, const std::string& fragment) {
            const Status s = d->setAttributes({{"", change}});
            QVERIFY2(!s.ok && s.message.find(fragment) != std::string::npos, s.message.c_str());
            QVERIFY(d->tensor("delay").identical(before));
        };
        refused({{"delay", vec({-1e-3F, 0.0F})}}, "Delay (root): attribute 'delay': expected values >= 0");
        refused({{"delay", vec({std::numeric_limits<float>::quiet_NaN(), 0.0F})}},
                "Delay (root): attribute 'delay': expected finite values");
        refused({{"delay", vec({1.0F})}}, "attribute 'delay': expected shape (2,)");
        refused({{"delay", vec({1001.0F, 0.0F})}},
                "Delay (root): attribute 'delay': 1001 s at dt = 0.001 s is 1001000 steps at channel 0; "
                "at most 1000000 steps");
        refused({{"dt", Tensor::scalar(1e-9F)}}, "Delay (root): attribute 'delay': 0.002 s at dt = 1e-09 s is 2000000 steps at channel 1");
        refused({{"dt", Tensor::scalar(0.0F)}}, "Delay (root): attribute 'dt'");
        refused({{"buffer", Tensor(Shape{3, 2})}}, "attribute 'buffer': expected shape (2, 2)");
        refused({{"buffer_head", Tensor::scalar(2.0F)}}, "attribute 'buffer_head': expected a ring row below 2");
        // 10^6 steps is the limit itself; a ring over 2^27 values is refused too.
        Delay wide(200);
        const std::string tooLarge = "Delay (root): attribute 'delay': the longest delay, 1000000 steps, "
                                     "x 200 channels needs a ring of 200000000 values; at most 134217728";
        expectError([&] { Delay(200, {{"delay", Tensor(Shape{200}, 1000.0F)}}); }, tooLarge);
        const Status s = wide.setAttribute("delay", Tensor(Shape{200}, 1000.0F));
        QVERIFY2(!s.ok && s.message.find(tooLarge) != std::string::npos, s.message.c_str());
        QVERIFY(d->setAttribute("delay", vec({1000.0F, 0.0F})).ok);
        QCOMPARE(d->longestDelay(), std::int64_t{1000000});
        expectError([] { Delay(0); }, "Delay: shape must be >= 1 channel, got 0");
    }

    void delayReconfiguresWithItsRing()
    {
        auto d = delayOf({2e-3F, 3e-3F});
        d->evolve(randomTensor(Shape{4, 2}, 12));
        // To itself: the delays, the ring and its head carry unchanged.
        const Reconfigured same = reconfigure(*d, d->config());
        QVERIFY(same.notes.empty());
        spike::tests::compareAttributes(*same.module, *d);
        // A third channel: the delays keep theirs (the new one starts at 0), the ring of the new
        // shape starts empty, and the notes say so.
        const Reconfigured wider = reconfigure(*d, {{"shape", {3}}});
        QVERIFY(wider.module->tensor("delay").identical(vec({2e-3F, 3e-3F, 0.0F})));
        QCOMPARE(wider.module->tensor("buffer").shape(), (Shape{3, 3}));
        QVERIFY(wider.module->tensor("buffer").flat().isZero());
        std::string notes;
        for (const auto& n : wider.notes) {
            notes += n + "\n";
        }
        QVERIFY2(notes.find("buffer") != std::string::npos, notes.c_str());
    }

    // ---- the factory ------------------------------------------------------------------------

    void factoryRowsAndBadConfigs()
    {
        for (const char* type : {"Scale", "Heaviside", "SumPool2d", "AvgPool2d", "Conv1d", "Delay"}) {
            const ModuleTypeInfo* info = findModuleType(type);
            QVERIFY2(info != nullptr, type);
            QCOMPARE(info->category, std::string("layers"));
            QVERIFY(!info->doc.empty());
            auto m = info->create(info->exampleConfig);
            QCOMPARE(m->className(), std::string(type));
            QVERIFY2(createModule(type, m->config())->config() == m->config(), type);
            QVERIFY2(!info->settings.empty(), type);
        }
        QCOMPARE(createModule("Delay", {{"shape", {7}}})->sizeIn(), std::int64_t{7});
        QCOMPARE(createModule("Scale", {{"shape", {3}}})->shape(), (std::vector<std::int64_t>{3}));
        auto conv = createModule("Conv1d", {{"in_channels", 4}, {"out_channels", 6}, {"kernel_size", {3}},
                                            {"stride", 2}, {"padding", 1}, {"dilation", 2}, {"groups", 2},
                                            {"bias", false}, {"input_size", 10}});
        QCOMPARE(conv->toString(), std::string("Conv1d(4, 6, kernel_size=(3,), stride=(2,), padding=(1,), "
                                               "dilation=(2,), groups=2, bias=False)"));
        QCOMPARE(conv->shape(), (std::vector<std::int64_t>{40, 6 * 4}));
        QCOMPARE(conv->tensor("weight").shape(), (Shape{6, 2, 3}));
        auto pool = createModule("AvgPool2d", {{"channels", 2}, {"kernel_size", 3}, {"input_size", {9, 6}}});
        QVERIFY(pool->config().at("stride") == json({3, 3}));  // the kernel size
        QCOMPARE(pool->shape(), (std::vector<std::int64_t>{2 * 9 * 6, 2 * 3 * 2}));

        const auto bad = [](const char* type, const nlohmann::json& config, const std::string& fragment) {
            expectError([&] { createModule(type, config); }, fragment);
        };
        const nlohmann::json pool2{{"channels", 1}, {"kernel_size", {2, 2}}, {"input_size", {4, 4}}};
        bad("SumPool2d", {{"channels", 1}, {"kernel_size", {5, 5}}, {"input_size", {2, 2}}},
            "config 'input_size': SumPool2d: kernel (5, 5) is larger than the padded input_size (2, 2)");
        bad("AvgPool2d", {{"channels", 1}, {"kernel_size", {4, 4}}, {"padding", 1}, {"input_size", {1, 1}}},
            "config 'input_size': AvgPool2d: kernel (4, 4) is larger than the padded input_size (3, 3)");
        {
            nlohmann::json c = pool2;
            c["stride"] = {0, 1};
            bad("AvgPool2d", c, "config 'stride': expected a value in [1, 4096], got 0");
            c["stride"] = {1, 1, 1};
            bad("AvgPool2d", c, "config 'stride': expected a whole number or [height, width]");
            c = pool2;
            c["padding"] = -1;
            bad("SumPool2d", c, "config 'padding'");
            c = pool2;
            c["dilation"] = 2;
            bad("SumPool2d", c, "config 'dilation': unknown key");
        }
        bad("SumPool2d", {{"kernel_size", 2}}, "config 'channels': missing");
        bad("AvgPool2d", {{"channels", 2}}, "config 'kernel_size': missing");
        bad("AvgPool2d", {{"channels", 1000}, {"kernel_size", 1}, {"input_size", {100000, 100000}}},
            "config 'input_size': channels x height x width exceeds");
        bad("Conv1d", {{"in_channels", 1}, {"out_channels", 1}, {"kernel_size", 5}, {"input_size", 2}},
            "config 'input_size': kernel 5 with dilation 1 is larger than the padded input_size 2");
        bad("Conv1d", {{"in_channels", 1}, {"out_channels", 1}, {"kernel_size", 3}, {"stride", 0}},
            "config 'stride': expected a value in [1, 4096], got 0");
        bad("Conv1d", {{"in_channels", 1}, {"out_channels", 1}, {"kernel_size", {3, 3}}},
            "config 'kernel_size': expected a whole number or [n]");
        bad("Conv1d", {{"in_channels", 3}, {"out_channels", 4}, {"kernel_size", 1}, {"groups", 3}},
            "config 'groups'");
        bad("Conv1d", {{"in_channels", 3}, {"kernel_size", 1}}, "config 'out_channels': missing");
        bad("Scale", {{"shape", {2, 3}}}, "config 'shape': expected [N]");
        bad("Heaviside", {{"shape", {0}}}, "config 'N'");
        bad("Delay", {{"shape", {1}}, {"delay", 1}}, "config 'delay': unknown key");
        // Settings (type_settings.cpp): the stride of a pool reads the kernel size when absent.
        const json strideless{{"channels", 1}, {"kernel_size", {3, 2}}, {"input_size", {6, 6}}};
        const ModuleTypeInfo* avg = findModuleType("AvgPool2d");
        for (const auto& s : avg->settings) {
            if (s.name == "stride_width") {
                QVERIFY(s.get(strideless) == json(2));
            }
        }
        const json narrowed = configWithSetting("AvgPool2d", strideless, "stride_height", 1);
        QVERIFY(narrowed.at("stride") == json({1, 2}));
        QVERIFY(configWithSize("Delay", 5).at("shape") == json({5}));
        QVERIFY(configWithSize("Conv1d", 5).at("out_channels") == json(5));
        QVERIFY(configWithSize("SumPool2d", 5).at("channels") == json(5));
        expectError([] { configWithSetting("Conv1d", findModuleType("Conv1d")->exampleConfig, "kernel_size", 20); },
                    "Conv1d setting 'kernel_size': config 'input_size': kernel 20");
    }

    // ---- model files ------------------------------------------------------------------------

    void modelFileRoundTripKeepsEveryAttribute()
    {
        QTemporaryDir dir;
        auto chain = chainModules();
        auto seq = std::make_unique<Sequential>();
        for (auto& [name, module] : chain) {
            seq->appendNamed(name, std::move(module));
        }
        // A ring in mid-run, a dt other than the default, and non-default conv weights.
        QVERIFY(seq->setAttributes({{"delay", {{"dt", Tensor::scalar(0.5e-3F)}}}}).ok);
        seq->evolve(randomTensor(Shape{9, 12}, 8));
        QVERIFY(!seq->getSubmodule("delay").tensor("buffer").flat().isZero());
        QVERIFY(seq->getSubmodule("delay").tensor("buffer_head").item() != 0.0F);
        for (const std::int64_t inlineLimit : {std::int64_t{4096}, std::int64_t{4}}) {
            const std::string path = dir.filePath("nir.json").toStdString();
            SaveOptions options;
            options.inlineLimit = inlineLimit;
            saveModel(path, *seq, options);
            auto loaded = loadModel(path);
            QCOMPARE(loaded->toString(), seq->toString());
            spike::tests::compareTrees(*seq, *loaded);
            const Tensor x = randomTensor(Shape{2, 6, 12}, 9);
            QVERIFY(loaded->evolve(x).output.identical(seq->evolve(x).output));
            spike::tests::compareTrees(*seq, *loaded);
        }
    }

    // ---- in a Network -----------------------------------------------------------------------

    void networkChainEqualsTheModulesOneAfterAnother()
    {
        // The modules evolved one after another, by hand; then Network::evolve (the CPU
        // executor, every node through its runner), with the same output and ring.
        auto chain = chainModules();
        const Tensor x = randomTensor(Shape{40, 12}, 10);
        Tensor expected = x;
        for (auto& [name, module] : chain) {
            expected = module->evolve(expected).output;
        }
        QVERIFY(expected.flat().sum() > 0.0F && expected.flat().sum() < static_cast<float>(expected.numel()));
        auto net = chainNetwork();
        QVERIFY(net->evolve(x).output.identical(expected));
        spike::tests::compareAttributes(net->getSubmodule("delay"), *chain[3].second);
        QCOMPARE(net->getSubmodule("delay").stepsElapsed(), std::int64_t{40});
    }

    void networkChainInAnyChunking()
    {
        // Without the Conv1d every step's bits are independent of the grouping: the executor in
        // any chunking, lock-step too, and two evolve calls give the one-after-another output
        // and leave the same ring.
        auto chain = chainModules(false);
        const Tensor x = randomTensor(Shape{40, 24}, 11);
        std::vector<Tensor> stages{x};
        for (auto& [name, module] : chain) {
            stages.push_back(module->evolve(stages.back()).output);
        }
        const Tensor& expected = stages.back();
        QVERIFY(expected.flat().sum() > 0.0F && expected.flat().sum() < static_cast<float>(expected.numel()));
        const Module& delay = *chain[2].second;
        QCOMPARE(delay.className(), std::string("Delay"));
        // The pulse shift holds inside the chain: Delay's output is its input d_j steps later.
        const Tensor& before = stages[2];  // stages[k + 1] is chain[k]'s output
        const Tensor& after = stages[3];
        for (std::int64_t j = 0; j < 25; ++j) {
            const std::int64_t dj = dynamic_cast<const Delay&>(delay).delaySteps()[static_cast<std::size_t>(j)];
            for (std::int64_t t = 0; t < 40; ++t) {
                QCOMPARE(at(after, t, j), t < dj ? 0.0F : at(before, t - dj, j));
            }
        }
        for (const auto& [chunk, lockStep] :
             {std::pair<std::int64_t, bool>{40, false}, {1, false}, {7, false}, {13, true}}) {
            auto fresh = chainNetwork(false);
            ExecutorOptions options;
            options.maxChunkSteps = chunk;
            options.plan.lockStepAll = lockStep;
            auto executor = makeCpuExecutor(*fresh, options);
            Tensor out(Shape{40, 12});
            for (std::int64_t t0 = 0; t0 < 40; t0 += chunk) {
                const std::int64_t n = std::min<std::int64_t>(chunk, 40 - t0);
                executor->advance(n, x.data() + t0 * 24, out.data() + t0 * 12);
            }
            executor->storeStates();
            QVERIFY2(out.identical(expected), ("chunk " + std::to_string(chunk)).c_str());
            spike::tests::compareAttributes(fresh->getSubmodule("delay"), delay);
        }
        auto split = chainNetwork(false);
        const Tensor a = split->evolve(rows(x, 0, 15)).output;
        const Tensor b = split->evolve(rows(x, 15, 25)).output;
        QVERIFY(concatRows(a, b).identical(expected));
        spike::tests::compareAttributes(split->getSubmodule("delay"), delay);
    }
};

QTEST_GUILESS_MAIN(TestNirLayers)
#include "test_nir_layers.moc"
