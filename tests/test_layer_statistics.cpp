// engine/analysis/layer_statistics: the numbers the canvas prints on a composite's nodes and the
// histogram pane draws. Summaries against a two-pass computation in double (NaN left out, zeros
// counted); histograms that hold every finite value between the smallest and the largest;
// weight summaries over the "weights" family only; and the activation monitor: an MLP's
// children's pooled outputs equal the children run by hand, a ReLU's fraction of zeros equals
// the fraction of its input at or below zero, a DynamicsNetwork's shared activation counts its
// three applications, modules not called are left out, pools start again after take(), the
// histograms hold every value since then up to kActivationKeep (then the newest), and the hooks
// go with the monitor.
#include "engine/analysis/layer_statistics.hpp"
#include "engine/composites/dynamics_network.hpp"
#include "engine/composites/mlp.hpp"
#include "tests/layer_test_helpers.hpp"

#include <QtTest/QtTest>

#include <algorithm>
#include <cmath>
#include <memory>
#include <limits>
#include <vector>

using namespace spike::engine;  // NOLINT: test file
using spike::tests::expectError;
using spike::tests::randomize;
using spike::tests::uniformTensor;

namespace {

/// The summary's fields computed the slow way, two passes in double.
void expectSummaryOf(const ValueSummary& s, const std::vector<double>& values)
{
    std::vector<double> finite;
    for (const double v : values) {
        if (std::isfinite(v)) {
            finite.push_back(v);
        }
    }
    QCOMPARE(s.count, static_cast<std::int64_t>(finite.size()));
    QCOMPARE(s.nonFinite, static_cast<std::int64_t>(values.size() - finite.size()));
    double mean = 0.0;
    double meanAbs = 0.0;
    std::int64_t zeros = 0;
    for (const double v : finite) {
        mean += v;
        meanAbs += std::fabs(v);
        zeros += static_cast<std::int64_t>(v == 0.0);
    }
    mean /= static_cast<double>(finite.size());
    meanAbs /= static_cast<double>(finite.size());
    double var = 0.0;
    for (const double v : finite) {
        var += (v - mean) * (v - mean);
    }
    var /= static_cast<double>(finite.size());
    QVERIFY(std::fabs(s.mean() - mean) < 1e-9 * std::max(1.0, std::fabs(mean)));
    QVERIFY(std::fabs(s.std() - std::sqrt(var)) < 1e-6 * std::max(1.0, std::sqrt(var)));
    QVERIFY(std::fabs(s.meanAbs() - meanAbs) < 1e-9 * std::max(1.0, meanAbs));
    QCOMPARE(s.zeros, zeros);
    // Within float rounding: a composite's children may run a different (batched) matrix path
    // than the same layer called alone.
    QVERIFY(std::fabs(s.min - *std::min_element(finite.begin(), finite.end())) < 1e-5);
    QVERIFY(std::fabs(s.max - *std::max_element(finite.begin(), finite.end())) < 1e-5);
}

std::vector<double> valuesOf(const Tensor& t)
{
    return std::vector<double>(t.data(), t.data() + t.numel());
}

double histogramCount(const Histogram& h)
{
    double total = 0.0;
    for (const double c : h.counts) {
        total += c;
    }
    return total;
}

MlpOptions plainRelu()
{
    MlpOptions o;
    o.outputActivation = false;
    o.outputNorm = false;
    return o;
}

}  // namespace

class TestLayerStatistics : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void summariesEqualTheTwoPassComputation()
    {
        Tensor t = uniformTensor(Shape{1000}, 7, -3.0, 5.0);
        t[3] = 0.0F;
        t[10] = 0.0F;
        t[20] = std::numeric_limits<float>::quiet_NaN();
        t[21] = std::numeric_limits<float>::infinity();
        const ValueSummary s = summarize(t.data(), t.numel());
        expectSummaryOf(s, valuesOf(t));
        QCOMPARE(s.zeros, std::int64_t{2});
        QCOMPARE(s.nonFinite, std::int64_t{2});
        QCOMPARE(s.zeroFraction(), 2.0 / 998.0);

        // Pooling two halves equals summarising the whole.
        ValueSummary pooled = summarize(t.data(), 400);
        pooled.merge(summarize(t.data() + 400, 600));
        QCOMPARE(pooled.count, s.count);
        QCOMPARE(pooled.min, s.min);
        QCOMPARE(pooled.max, s.max);
        QVERIFY(std::fabs(pooled.mean() - s.mean()) < 1e-12);
        QVERIFY(std::fabs(pooled.std() - s.std()) < 1e-9);

        const ValueSummary empty = summarize(nullptr, 0);
        QVERIFY(empty.empty());
        QCOMPARE(empty.mean(), 0.0);
        QCOMPARE(empty.std(), 0.0);
        QCOMPARE(empty.zeroFraction(), 0.0);
    }

    void histogramsHoldEveryFiniteValueOverTheirRange()
    {
        Tensor t = uniformTensor(Shape{500}, 3, -2.0, 6.0);
        t[0] = std::numeric_limits<float>::quiet_NaN();
        const Histogram h = valueHistogram(t.data(), t.numel(), 16);
        QCOMPARE(h.edges.size(), std::size_t{17});
        QCOMPARE(h.counts.size(), std::size_t{16});
        const ValueSummary s = summarize(t.data(), t.numel());
        QCOMPARE(h.edges.front(), s.min);
        QCOMPARE(h.edges.back(), s.max);
        double total = 0.0;
        for (const double c : h.counts) {
            total += c;
        }
        QCOMPARE(total, 499.0);
        // Each value in its bin: count them bin by bin by hand.
        for (std::size_t k = 0; k < h.counts.size(); ++k) {
            double inBin = 0.0;
            for (std::int64_t i = 1; i < t.numel(); ++i) {
                const double v = t[i];
                const bool last = k + 1 == h.counts.size();
                if (v >= h.edges[k] && (v < h.edges[k + 1] || (last && v <= h.edges[k + 1]))) {
                    inBin += 1.0;
                }
            }
            QCOMPARE(h.counts[k], inBin);
        }

        // All equal: one unit around the value, everything in the middle bin.
        const std::vector<float> same(9, 2.5F);
        const Histogram flat = valueHistogram(same.data(), 9, 4);
        QCOMPARE(flat.edges.front(), 2.0);
        QCOMPARE(flat.edges.back(), 3.0);
        QCOMPARE(flat.counts[2], 9.0);
        expectError([&] { valueHistogram(same.data(), 9, 0); }, "bins must be 1 .. 100000, got 0");
    }

    void weightSummariesCoverTheWeightsFamilyOfTheSubtree()
    {
        MLP mlp(6, 5, 3, 2, plainRelu());
        randomize(mlp, 9);
        std::vector<double> weights = valuesOf(mlp.getSubmodule("0").tensor("weight"));
        const std::vector<double> second = valuesOf(mlp.getSubmodule("2").tensor("weight"));
        weights.insert(weights.end(), second.begin(), second.end());
        expectSummaryOf(weightSummary(mlp), weights);  // biases left out
        expectSummaryOf(weightSummary(mlp.getSubmodule("2")), second);
        QVERIFY(weightSummary(mlp.getSubmodule("1")).empty());  // a ReLU has none

        std::vector<std::string> names;
        for (const NamedTensor& p : parameterTensors(mlp)) {
            names.push_back(p.name + ":" + p.family);
        }
        QCOMPARE(names, (std::vector<std::string>{"0.weight:weights", "0.bias:biases",
                                                  "2.weight:weights", "2.bias:biases"}));
    }

    void theMonitorSeesEachChildsOutput()
    {
        MLP mlp(6, 5, 3, 2, plainRelu());
        randomize(mlp, 21);
        const Tensor x = uniformTensor(Shape{40, 6}, 22, -2.0, 2.0);
        // By hand first, with no hooks on.
        const Tensor h = mlp.getSubmodule("0").forward(x);
        const Tensor r = mlp.getSubmodule("1").forward(h);
        const Tensor y = mlp.getSubmodule("2").forward(r);

        ActivationMonitor monitor(mlp, 10);
        QCOMPARE(monitor.paths(), (std::vector<std::string>{"", "0", "1", "2"}));
        QVERIFY(monitor.watches(mlp));
        QVERIFY(!monitor.watches(mlp.getSubmodule("0")));
        QVERIFY(monitor.take().empty());  // nothing ran yet

        const Tensor out = mlp.evolve(x).output;
        auto snap = monitor.take();
        QCOMPARE(snap.size(), std::size_t{4});
        expectSummaryOf(snap.at("0").summary, valuesOf(h));
        expectSummaryOf(snap.at("1").summary, valuesOf(r));
        expectSummaryOf(snap.at("2").summary, valuesOf(y));
        expectSummaryOf(snap.at("").summary, valuesOf(out));
        QCOMPARE(snap.at("1").lastShape, (Shape{1, 40, 5}));
        QCOMPARE(snap.at("1").calls, std::int64_t{1});
        // A ReLU's zeros are its input's values at or below zero.
        std::int64_t notPositive = 0;
        for (std::int64_t i = 0; i < h.numel(); ++i) {
            notPositive += static_cast<std::int64_t>(h[i] <= 0.0F);
        }
        QVERIFY(notPositive > 0 && notPositive < h.numel());
        QCOMPARE(snap.at("1").summary.zeros, notPositive);
        // The histogram holds the values since the previous take().
        double total = 0.0;
        for (const double c : snap.at("2").histogram.counts) {
            total += c;
        }
        QCOMPARE(total, static_cast<double>(y.numel()));

        // Pools start again after take(); two calls pool both.
        QVERIFY(monitor.take().empty());
        mlp.evolve(x);
        mlp.evolve(x);
        snap = monitor.take();
        QCOMPARE(snap.at("0").calls, std::int64_t{2});
        QCOMPARE(snap.at("0").summary.count, 2 * h.numel());
        QCOMPARE(histogramCount(snap.at("0").histogram), static_cast<double>(2 * h.numel()));

        // Beyond kActivationKeep values the histogram holds the newest that many.
        MLP wide(6, 5, 1000, 1, plainRelu());
        ActivationMonitor wideMonitor(wide);
        wide.evolve(uniformTensor(Shape{40, 6}, 23, -1.0, 1.0));  // 40,000 values: all kept
        wide.evolve(uniformTensor(Shape{40, 6}, 24, -1.0, 1.0));  // 80,000: the newest 65,536
        const auto wideSnap = wideMonitor.take();
        QCOMPARE(wideSnap.at("0").summary.count, std::int64_t{80000});
        QCOMPARE(histogramCount(wideSnap.at("0").histogram), static_cast<double>(kActivationKeep));
        wide.evolve(uniformTensor(Shape{100, 6}, 25, -1.0, 1.0));  // one output over the limit
        QCOMPARE(histogramCount(wideMonitor.take().at("0").histogram), static_cast<double>(kActivationKeep));
        wide.evolve(uniformTensor(Shape{2, 6}, 26, -1.0, 1.0));  // after a take(): only the new
        QCOMPARE(histogramCount(wideMonitor.take().at("0").histogram), 2000.0);
    }

    void aSharedActivationPoolsEveryApplication()
    {
        DynamicsNetworkConfig cfg;
        cfg.observationShape = {12, 40, 24};
        cfg.downsample = true;
        cfg.numChannels = 7;
        cfg.actionEncodingDim = 1;
        cfg.numResBlocks = 1;
        cfg.rewardHeadChannels = 3;
        cfg.rewardHeadHiddenChannels = {10};
        cfg.outputSupportSize = 5;
        cfg.lstmHiddenSize = 9;
        DynamicsNetwork net(cfg);
        randomize(net, 5);
        net.eval();
        ActivationMonitor monitor(net);
        const Tensor x = uniformTensor(Shape{2, net.sizeIn()}, 6, -1.0, 1.0);
        const Tensor out = net.evolve(x).output;
        const auto snap = monitor.take();
        QCOMPARE(snap.at("activation").calls, std::int64_t{3});  // after norm_common, norm_reward, norm_value_prefix
        QCOMPARE(snap.at("conv").calls, std::int64_t{1});
        QVERIFY(snap.count("resblocks.0.conv1") == 1);
        QVERIFY(snap.count("resblocks") == 0);  // a ModuleList holds blocks; it is never called
        expectSummaryOf(snap.at("").summary, valuesOf(out));
        QVERIFY(snap.at("activation").summary.zeroFraction() > 0.0);
    }

    void theHooksGoWithTheMonitor()
    {
        MLP mlp(4, 4, 2, 1, plainRelu());
        const Tensor x = uniformTensor(Shape{3, 4}, 2, -1.0, 1.0);
        {
            ActivationMonitor monitor(mlp);
            mlp.evolve(x);
            QVERIFY(!monitor.take().empty());
        }
        // The model runs on without the monitor; a new one starts empty.
        mlp.evolve(x);
        ActivationMonitor again(mlp);
        QVERIFY(again.take().empty());
        // A monitor outliving its model neither crashes nor reports anything.
        auto temp = std::make_unique<MLP>(4, 4, 2, 1, plainRelu());
        ActivationMonitor orphan(*temp);
        temp->evolve(x);
        temp.reset();
        QCOMPARE(orphan.take().size(), orphan.paths().size());  // what it saw before the model went
        QVERIFY(orphan.take().empty());
    }
};

QTEST_GUILESS_MAIN(TestLayerStatistics)
#include "test_layer_statistics.moc"
