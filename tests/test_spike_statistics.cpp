// engine::spikeStatistics against theory: the engine's PoissonSource gives geometric intervals
// (mean dt / p, CV sqrt(1 - p)) and Bernoulli window counts (Fano factor 1 - p) within their
// sampling error; a regular train gives CV 0 and Fano 0 with the exact interval; n spikes in one
// step count as n - 1 intervals of dt / n; the histograms hold every interval and every neuron;
// bad input is refused with a message naming it; a SpikeWindow's events give exactly the numbers
// of its dense rows.
#include "engine/analysis/spike_statistics.hpp"
#include "engine/sources/sources.hpp"
#include "engine/tensor/error.hpp"
#include "spike_statistics_compare.hpp"

#include <QtTest/QtTest>

#include <cmath>
#include <numeric>
#include <string>
#include <vector>

using namespace spike::engine;  // NOLINT: test file

namespace {

double sum(const std::vector<double>& v)
{
    return std::accumulate(v.begin(), v.end(), 0.0);
}

template <typename F>
void expectError(F&& f, const std::string& part)
{
    try {
        f();
    } catch (const Error& e) {
        const std::string what = e.what();
        QVERIFY2(what.find(part) != std::string::npos, what.c_str());
        return;
    }
    QFAIL(("no error, expected one saying: " + part).c_str());
}

}  // namespace

class TestSpikeStatistics : public QObject {
    Q_OBJECT

private slots:
    void poissonSourceMatchesTheory()
    {
        constexpr std::int64_t kNeurons = 200;
        constexpr std::int64_t kSteps = 50000;
        constexpr double kDt = 1e-4;
        constexpr double kRate = 20.0;
        PoissonSource source(kNeurons, {{"rate", Tensor::scalar(static_cast<float>(kRate))},
                                        {"seed", Tensor::scalar(5.0F)},
                                        {"dt", Tensor::scalar(static_cast<float>(kDt))}});
        const Tensor spikes = source.evolve(Tensor(Shape{kSteps, 0})).output;
        const SpikeStatistics s = spikeStatistics(spikes.data(), kSteps, kNeurons, kDt);
        const double p = kRate * kDt;
        const double expected = kNeurons * kSteps * p;  // 20000 spikes
        QVERIFY2(std::abs(s.spikes - expected) < 4.0 * std::sqrt(expected),
                 std::to_string(s.spikes).c_str());
        QVERIFY(std::abs(s.meanRateHz - kRate) < 0.05 * kRate);
        // Intervals: geometric in steps, mean dt / p = 50 ms, CV sqrt(1 - p).
        QVERIFY2(std::abs(s.isiMean - kDt / p) < 0.03 * kDt / p, std::to_string(s.isiMean).c_str());
        QVERIFY2(std::abs(s.isiCv - std::sqrt(1.0 - p)) < 0.03, std::to_string(s.isiCv).c_str());
        QVERIFY2(std::abs(s.meanCv - std::sqrt(1.0 - p)) < 0.05, std::to_string(s.meanCv).c_str());
        // Window counts: Bernoulli sums, Fano 1 - p; default window 0.1 s = 1000 steps.
        QCOMPARE(s.window, std::int64_t{1000});
        QVERIFY2(std::abs(s.meanFano - (1.0 - p)) < 0.06, std::to_string(s.meanFano).c_str());
        QCOMPARE(s.fanoNeurons, kNeurons);
        QCOMPARE(sum(s.isiHistogram.counts), static_cast<double>(s.intervals));
        QCOMPARE(s.intervals, static_cast<std::int64_t>(s.spikes) - kNeurons);
        QCOMPARE(sum(s.rateHistogram.counts), static_cast<double>(kNeurons));
        // The ISI histogram falls off like exp(-t p / dt): the first fifth of the range holds most.
        const std::size_t fifth = s.isiHistogram.counts.size() / 5;
        double head = 0.0;
        for (std::size_t k = 0; k < fifth; ++k) {
            head += s.isiHistogram.counts[k];
        }
        QVERIFY(head > 0.5 * static_cast<double>(s.intervals));
    }

    void regularTrainHasNoVariability()
    {
        constexpr std::int64_t kSteps = 1000;
        std::vector<float> rows(kSteps * 2, 0.0F);
        for (std::int64_t t = 0; t < kSteps; t += 10) {
            rows[static_cast<std::size_t>(t * 2)] = 1.0F;  // neuron 0 every 10 steps, neuron 1 silent
        }
        SpikeStatisticsOptions options;
        options.window = 100;
        const SpikeStatistics s = spikeStatistics(rows.data(), kSteps, 2, 1e-3, options);
        QCOMPARE(s.spikes, 100.0);
        QCOMPARE(s.rateHz[0], 100.0);
        QCOMPARE(s.rateHz[1], 0.0);
        QCOMPARE(s.meanRateHz, 50.0);
        QCOMPARE(s.intervals, std::int64_t{99});
        QVERIFY(std::abs(s.isiMean - 0.01) < 1e-12);
        QVERIFY(s.isiCv < 1e-9);
        QCOMPARE(s.cvNeurons, std::int64_t{1});
        QCOMPARE(s.fanoNeurons, std::int64_t{1});
        QVERIFY(s.meanFano < 1e-12);
        QCOMPARE(s.isiHistogram.counts.back(), 99.0);  // every interval is the largest one
    }

    void severalSpikesInOneStepSplitTheStep()
    {
        std::vector<float> rows{0.0F, 3.0F, 0.0F, 0.0F, 1.0F};
        const SpikeStatistics s = spikeStatistics(rows.data(), 5, 1, 1e-3);
        QCOMPARE(s.spikes, 4.0);
        QCOMPARE(s.intervals, std::int64_t{3});  // two of dt / 3, then from 1 + 2/3 to 4 steps
        QVERIFY(std::abs(s.isiMean - (1e-3 / 3.0 + 1e-3 / 3.0 + 7e-3 / 3.0) / 3.0) < 1e-15);
    }

    void aWindowsEventsGiveTheDenseNumbers()
    {
        // A window of the run (events, starting at step 300 after trimming) against the dense
        // rows toDense() makes of it: every number equal, multi-spike steps included.
        SpikeWindow window(7);
        window.restart(250);
        std::vector<SpikeEvent> events;
        std::uint32_t state = 12345;
        for (std::int64_t t = 250; t < 2250; ++t) {
            for (std::int32_t i = 0; i < 7; ++i) {
                state = state * 1664525U + 1013904223U;
                if ((state >> 24) < 8U * static_cast<std::uint32_t>(i + 1)) {
                    events.push_back({t, i, (state & 0xFFU) < 20U ? 3 : 1});
                }
            }
        }
        window.append(events, 2250);
        window.trimBefore(300);
        const double dt = 5e-4;
        const TimeSeries dense = window.toDense(dt);
        SpikeStatisticsOptions o;
        o.bins = 17;
        o.rateBins = 5;
        const SpikeStatistics a = spikeStatistics(dense.data.data(), window.steps(), 7, dt, o);
        const SpikeStatistics b = spikeStatistics(window, dt, o);
        QVERIFY(a.spikes > 500.0);
        QCOMPARE(b.steps, std::int64_t{1950});
        QCOMPARE(b.isiHistogram.counts.size(), std::size_t{17});
        QCOMPARE(b.rateHistogram.counts.size(), std::size_t{5});
        spike::tests::compareSpikeStatistics(b, a);
        if (QTest::currentTestFailed()) {
            return;
        }
        expectError([] { spikeStatistics(SpikeWindow(3), 1e-3); }, "at least one step");
    }

    void badInputIsNamed()
    {
        const std::vector<float> rows{0.0F, 1.0F, -1.0F, 0.0F};
        expectError([&] { spikeStatistics(rows.data(), 0, 2, 1e-3); }, "at least one step");
        expectError([&] { spikeStatistics(rows.data(), 2, 2, -1.0); }, "time step must be positive");
        expectError([&] { spikeStatistics(rows.data(), 2, 2, NAN); }, "time step must be positive");
        SpikeStatisticsOptions bins;
        bins.bins = 0;
        expectError([&] { spikeStatistics(rows.data(), 2, 2, 1e-3, bins); }, "bins must be 1 to 100000");
        bins.bins = 10;
        bins.rateBins = -1;
        expectError([&] { spikeStatistics(rows.data(), 2, 2, 1e-3, bins); }, "rate bins must be 1 to 100000");
        expectError([&] { spikeStatistics(rows.data(), 2, 2, 1e-3); }, "step 1, neuron 0 has -1");
        const std::vector<float> nan{0.0F, NAN};
        expectError([&] { spikeStatistics(nan.data(), 1, 2, 1e-3); }, "step 0, neuron 1 has nan");
    }
};

QTEST_APPLESS_MAIN(TestSpikeStatistics)
#include "test_spike_statistics.moc"
