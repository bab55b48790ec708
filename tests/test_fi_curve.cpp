// engine::fiCurve (engine/analysis/fi_curve.hpp): LIFRefrac's curve against the continuous formula
// within one bin, LIF's against its exact discrete recurrence, the batch equal to separate
// single-current runs bit for bit (also when a large population is split into several batches),
// the refined rheobase, monotone curves, CUBALIF driven through "exc", and every bad input refused
// with a message naming it; progress and cancel between batches; the suggested range around the steady-state rheobase.
#include "engine/analysis/fi_curve.hpp"
#include "engine/io/model_clone.hpp"
#include "engine/layers/linear.hpp"
#include "engine/neurons/cuba_lif.hpp"
#include "engine/neurons/lif.hpp"
#include "engine/neurons/lif_refrac.hpp"
#include "engine/tensor/error.hpp"

#include <QtTest/QtTest>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>

using namespace spike::engine;  // NOLINT: test file

namespace {

/// The message fiCurve throws for `options`, or "" when it does not throw.
std::string refusal(const Module& m, const FiOptions& options)
{
    try {
        fiCurve(m, options);
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

/// Rate and first-ISI rate of one current, from a plain (T, Nin) evolve of a resting copy.
std::pair<double, double> singleRun(const Module& m, double x, std::int64_t steps)
{
    auto copy = cloneModule(m);
    copy->resetState();
    const std::int64_t nin = m.sizeIn();
    const std::int64_t nout = m.sizeOut();
    Tensor input(Shape{steps, nin}, static_cast<float>(x));
    const Tensor out = copy->evolve(input).output;
    const double dt = m.timeStep();
    double count = 0.0;
    double isiSum = 0.0;
    for (std::int64_t j = 0; j < nout; ++j) {
        std::int64_t first = -1;
        double isi = -1.0;
        for (std::int64_t t = 0; t < steps; ++t) {
            const double s = out[t * nout + j];
            if (s <= 0.0) {
                continue;
            }
            count += s;
            if (isi >= 0.0) {
                continue;
            }
            if (first < 0) {
                first = t;
                if (s >= 2.0) {
                    isi = s / dt;
                }
            } else {
                isi = 1.0 / (static_cast<double>(t - first) * dt);
            }
        }
        isiSum += std::max(isi, 0.0);
    }
    return {count / (static_cast<double>(nout) * static_cast<double>(steps) * dt),
            isiSum / static_cast<double>(nout)};
}

}  // namespace

class TestFiCurve : public QObject {
    Q_OBJECT

private slots:
    void lifRefracFollowsTheContinuousFormulaWithinOneBin()
    {
        // dt = 10 us so Euler's error (dt tau_mem_inv / 2 of each interval) stays far below a bin.
        LIFRefrac m(1, {{"dt", Tensor::scalar(1e-5F)}, {"rho_reset", Tensor::scalar(200.0F)}});
        FiOptions o;
        // V = x / (dt tau_syn_inv) from 0.05 to 3.05 (v_th = 1), off the rheobase itself where the
        // formula's slope is infinite.
        o.start = 0.0001;
        o.stop = 0.0061;
        o.count = 13;
        o.warmupSteps = 5000;  // ten synaptic time constants
        const FiCurve c = fiCurve(m, o);
        QCOMPARE(c.steps, std::int64_t{100000});  // 1 s / dt
        QCOMPARE(c.analyticKind, std::string("continuous approximation"));
        QCOMPARE(c.analyticHz.size(), c.current.size());
        const double seconds = static_cast<double>(c.steps) * c.dt;
        int firing = 0;
        for (std::size_t k = 0; k < c.current.size(); ++k) {
            const double r = c.analyticHz[k];
            // One bin, plus the whole-step rounding of each interval (at most one step).
            const double tol = 1.0 / seconds + r * r * c.dt;
            QVERIFY2(std::abs(c.rateHz[k] - r) <= tol,
                     qPrintable(QString("I=%1: %2 Hz vs %3 Hz").arg(c.current[k]).arg(c.rateHz[k]).arg(r)));
            firing += r > 10.0 ? 1 : 0;
            if (k > 0) {
                QVERIFY(c.rateHz[k] >= c.rateHz[k - 1]);
            }
        }
        QVERIFY(firing >= 8);  // the comparison covers a real range of rates
        QVERIFY(c.rateHz.back() > 150.0 && c.rateHz.back() < 500.0);
        QCOMPARE(c.rateHz.front(), 0.0);
    }

    void lifMatchesItsExactDiscreteCurve()
    {
        LIF m(1, 1);
        FiOptions o;
        o.start = 0.0;
        o.stop = 0.4;
        o.count = 41;
        const FiCurve c = fiCurve(m, o);
        QCOMPARE(c.analyticKind, std::string("exact discrete"));
        QCOMPARE(c.steps, std::int64_t{1000});
        const double bin = 1.0 / (static_cast<double>(c.steps) * c.dt);
        int firing = 0;
        for (std::size_t k = 0; k < c.current.size(); ++k) {
            QVERIFY2(std::abs(c.rateHz[k] - c.analyticHz[k]) <= bin + 1e-9,
                     qPrintable(QString("I=%1: %2 vs %3").arg(c.current[k]).arg(c.rateHz[k]).arg(c.analyticHz[k])));
            firing += c.rateHz[k] > 0.0 ? 1 : 0;
            if (k > 0) {
                QVERIFY(c.rateHz[k] >= c.rateHz[k - 1]);
                QVERIFY(c.analyticHz[k] >= c.analyticHz[k - 1]);
            }
            QVERIFY(c.firstIsiRateHz[k] >= 0.0);
        }
        QVERIFY(firing > 20);
        QVERIFY(c.rateHz.back() > 100.0);
    }

    void lifWithTwoSynapsesPerNeuronSumsThem()
    {
        // Shape (4, 2): two synapses per neuron, each driven by the current.
        LIF m(4, 2);
        FiOptions o;
        o.start = 0.0;
        o.stop = 0.2;
        o.count = 11;
        const FiCurve c = fiCurve(m, o);
        QCOMPARE(c.analyticKind, std::string("exact discrete"));
        const double bin = 1.0 / (static_cast<double>(c.steps) * c.dt);
        for (std::size_t k = 0; k < c.current.size(); ++k) {
            QVERIFY(std::abs(c.rateHz[k] - c.analyticHz[k]) <= bin + 1e-9);
        }
        // Twice the drive of a one-synapse neuron at the same current.
        LIF single(1, 1);
        FiOptions doubled = o;
        doubled.stop = 0.4;
        const FiCurve s = fiCurve(single, doubled);
        for (std::size_t k = 0; k < c.current.size(); ++k) {
            QVERIFY(std::abs(c.rateHz[k] - s.rateHz[k]) <= bin + 1e-9);
        }
        QVERIFY(c.rateHz.back() > 50.0);
        QVERIFY(std::abs(*steadyStateRheobase(m) - 0.5 * *steadyStateRheobase(single)) < 1e-9);
    }

    void batchEqualsSeparateRunsBitForBit()
    {
        // Per-neuron thresholds: every neuron fires at its own rate; the population mean is kept.
        Tensor thresholds(Shape{3}, std::vector<float>{0.8F, 1.0F, 1.3F});
        LIF m(6, 3, false, {{"threshold", thresholds}});
        FiOptions o;
        o.start = 0.05;
        o.stop = 0.5;
        o.count = 7;
        o.steps = 400;
        const FiCurve c = fiCurve(m, o);
        QVERIFY(c.analyticHz.empty());
        QVERIFY2(c.analyticNote.find("threshold") != std::string::npos, c.analyticNote.c_str());
        for (std::size_t k = 0; k < c.current.size(); ++k) {
            const auto [rate, isi] = singleRun(m, c.current[k], 400);
            QCOMPARE(c.rateHz[k], rate);
            QCOMPARE(c.firstIsiRateHz[k], isi);
        }
        QVERIFY(c.rateHz.back() > 0.0);
    }

    void largePopulationSplitIntoBatchesChangesNothing()
    {
        LIFRefrac m(3000);
        FiOptions o;
        o.start = 0.0;
        o.stop = 0.5;
        o.count = 9;
        o.steps = 1000;
        const std::int64_t perBatch = kFiBatchFloats / (o.steps.value() * 3000);
        QVERIFY(perBatch < o.count);  // really split
        const FiCurve c = fiCurve(m, o);
        for (std::size_t k = 0; k < c.current.size(); ++k) {
            const auto [rate, isi] = singleRun(m, c.current[k], 1000);
            QCOMPARE(c.rateHz[k], rate);
            QCOMPARE(c.firstIsiRateHz[k], isi);
        }
        QVERIFY(c.rateHz.back() > 0.0);
    }

    void rheobaseIsRefinedBetweenGridPoints()
    {
        LIF m(1, 1);
        FiOptions o;
        o.start = 0.0;
        o.stop = 0.1;
        o.count = 11;
        const FiCurve c = fiCurve(m, o);
        QVERIFY(c.rheobase.has_value());
        QVERIFY(c.rheobaseRefined);
        // The first spiking grid point and the one before it bracket the refined value.
        std::size_t first = 0;
        while (c.rateHz[first] == 0.0) {
            ++first;
        }
        QVERIFY(first > 0);
        QVERIFY(*c.rheobase > c.current[first - 1] && *c.rheobase <= c.current[first]);
        QVERIFY(*c.rheobase < c.current[first]);  // 0.01 apart: refinement moved it
        // Converged-state bound: v* = x beta / ((1 - beta)(1 - alpha)) must reach threshold 1.
        const double alpha = m.tensor("alpha")[0];
        const double beta = m.tensor("beta")[0];
        const double xc = (1.0 - alpha) * (1.0 - beta) / beta;
        QVERIFY(*c.rheobase >= xc * 0.999);
        QVERIFY(*c.rheobase <= xc * 1.1);
        // It spikes, and a bracket width (1/256 of the grid step) below it does not.
        FiOptions at;
        at.start = at.stop = *c.rheobase;
        at.count = 1;
        QVERIFY(fiCurve(m, at).rateHz[0] > 0.0);
        at.start = at.stop = *c.rheobase - 0.01 / 256.0 * 1.01;
        QCOMPARE(fiCurve(m, at).rateHz[0], 0.0);

        o.refineRheobase = false;
        const FiCurve grid = fiCurve(m, o);
        QCOMPARE(*grid.rheobase, c.current[first]);
        QVERIFY(!grid.rheobaseRefined);

        o.start = 10.0;
        o.stop = 20.0;
        QVERIFY(!fiCurve(m, o).rheobaseRefined);  // already spiking at the range's start
        o.start = 0.0;
        o.stop = 0.0009;  // below (1 - alpha)(1 - beta) / beta
        QVERIFY(!fiCurve(m, o).rheobase.has_value());  // never spikes
    }

    void cubaLifIsDrivenThroughExc()
    {
        // v_rest = -49 mV lies above v_th = -50 mV (Brian2's CUBA): it fires without input, and
        // V = v_rest + x tau_exc / dt = v_rest + 5 x falls below threshold for x < -0.2.
        CUBALIF m(2);
        FiOptions o;
        o.start = -1.0;
        o.stop = 4.0;
        o.count = 11;
        o.warmupSteps = 500;
        const FiCurve c = fiCurve(m, o);
        QCOMPARE(c.port, std::string("exc"));
        QCOMPARE(c.rateHz.front(), 0.0);
        QVERIFY(c.rateHz.back() > 10.0);
        QCOMPARE(c.analyticKind, std::string("continuous approximation"));
        for (std::size_t k = 1; k < c.current.size(); ++k) {
            QVERIFY(c.rateHz[k] >= c.rateHz[k - 1]);
            if (c.analyticHz[k] > 20.0) {
                QVERIFY2(std::abs(c.rateHz[k] - c.analyticHz[k]) < 0.1 * c.analyticHz[k],
                         qPrintable(QString("%1 vs %2").arg(c.rateHz[k]).arg(c.analyticHz[k])));
            }
        }
    }

    void suggestedRangeSurroundsTheSteadyStateRheobase()
    {
        // LIFRefrac: V = x / (dt tau_syn_inv) reaches v_th = 1 at x = 1e-3 * 200.
        LIFRefrac refrac(1);
        QCOMPARE_LT(std::abs(*steadyStateRheobase(refrac) - 0.2), 1e-6);
        FiOptions o = suggestedFiOptions(refrac);
        QCOMPARE(o.start, 0.0);
        QCOMPARE(o.stop, 4.0 * *steadyStateRheobase(refrac));
        QCOMPARE(o.count, std::int64_t{41});
        const FiCurve c = fiCurve(refrac, o);
        QVERIFY(c.rheobase.has_value() && *c.rheobase > 0.2 && *c.rheobase < 0.8);
        // CUBALIF fires without input: the range reaches below zero, where it falls silent.
        CUBALIF cuba(1);
        o = suggestedFiOptions(cuba);
        QVERIFY(o.start < 0.0 && o.stop == -o.start);
        o.warmupSteps = 100;
        const FiCurve cc = fiCurve(cuba, o);
        QCOMPARE(cc.rateHz.front(), 0.0);
        QVERIFY(cc.rateHz.back() > 0.0);
        // A module without a model of its own: no rheobase, the unit range.
        Linear linear(3, 2);
        QVERIFY(!steadyStateRheobase(linear).has_value());
        QCOMPARE(suggestedFiOptions(linear).stop, 1.0);
    }

    void progressAndCancelBetweenBatches()
    {
        LIF m(1, 1);
        FiOptions o;
        o.start = 0.0;
        o.stop = 0.05;
        o.count = 41;
        std::vector<double> reported;
        o.progress = [&reported](double done) { reported.push_back(done); };
        const FiCurve whole = fiCurve(m, o);
        QCOMPARE(reported.size(), std::size_t{9});  // batches of ceil(41 / 10) = 5 currents
        QVERIFY(std::is_sorted(reported.begin(), reported.end()));
        QCOMPARE(reported.back(), 1.0);

        std::atomic<bool> cancel{false};
        o.cancel = &cancel;
        o.progress = [&cancel](double done) {
            if (done > 0.3) {
                cancel = true;
            }
        };
        QVERIFY_THROWS_EXCEPTION(FiCancelled, fiCurve(m, o));
        cancel = false;
        o.progress = nullptr;
        const FiCurve again = fiCurve(m, o);  // not cancelled: the same numbers
        QVERIFY(again.rateHz == whole.rateHz && again.rheobase == whole.rheobase);
    }

    void badInputIsRefusedWithAMessage()
    {
        LIF m(1, 1);
        FiOptions o;
        o.count = 0;
        QVERIFY(refusal(m, o).find("count 0") != std::string::npos);
        o.count = 1000000000;
        QVERIFY(refusal(m, o).find("count 1000000000 is out of range") != std::string::npos);
        o.count = 5;
        o.start = 2.0;
        o.stop = 1.0;
        QVERIFY(refusal(m, o).find("empty") != std::string::npos);
        o.start = std::nan("");
        QVERIFY(refusal(m, o).find("not finite") != std::string::npos);
        o.start = 0.0;
        o.stop = 1e39;
        QVERIFY(refusal(m, o).find("outside float32's range") != std::string::npos);
        o.stop = 1.0;
        o.start = 0.0;
        o.steps = 0;
        QVERIFY(refusal(m, o).find("steps 0") != std::string::npos);
        o.steps = 10;
        o.warmupSteps = -1;
        QVERIFY(refusal(m, o).find("warm-up") != std::string::npos);
        o.warmupSteps = 0;
        o.steps = 2000000000;
        QVERIFY(refusal(m, o).find("too long") != std::string::npos);
        o.steps = 10;
        // A warm-up near the int64 limit is refused before it is added to the steps (that sum
        // once overflowed into a negative step count in the message).
        o.warmupSteps = std::numeric_limits<std::int64_t>::max();
        QVERIFY2(refusal(m, o).find("10 measured and 9223372036854775807 warm-up steps is too long a run") !=
                     std::string::npos,
                 refusal(m, o).c_str());
        o.warmupSteps = 0;
        QVERIFY(refusal(m, o).empty());

        Linear linear(3, 2);
        QVERIFY(refusal(linear, o).find("no spikes output") != std::string::npos);

        FiOptions parsed;
        parseCurrentRange("0:2.5:6", parsed);
        QCOMPARE(parsed.start, 0.0);
        QCOMPARE(parsed.stop, 2.5);
        QCOMPARE(parsed.count, std::int64_t{6});
        for (const char* bad : {"0:1", "a:1:3", "0:1:2.5", "0:1:3:4", "", "0::3"}) {
            QVERIFY_THROWS_EXCEPTION(Error, parseCurrentRange(bad, parsed));
        }
    }
};

QTEST_GUILESS_MAIN(TestFiCurve)
#include "test_fi_curve.moc"
