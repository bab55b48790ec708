// engine::parameterSweep (engine/analysis/parameter_sweep.hpp): for LIF (one and two synapses, taus
// and decays), NIRLIF, LIFRefrac and CUBALIF every grid point of a 1-D and a 2-D sweep equals, bit
// for bit, a separate run of a copy with that point's values set (written here with evolve(), not
// through the sweep), for rate, spikes, peak (membrane and another state) and cv, and the sweep ran
// as one wide population; the per-point fallback (LIF with has_rec, LIF with membrane noise) gives
// the same numbers as single runs, also for large populations run in slices and chunks; the rate
// of a bias sweep equals fiCurve's rate of each bias's copy bit for bit, and an IF threshold sweep
// in exact binary arithmetic counts exactly the spikes the closed form floor(T / m) gives; every
// bad input of the header is refused in one line naming it, leaving the module as it was;
// progress and cancel between chunks; parseSweepAxis.
#include "engine/analysis/fi_curve.hpp"
#include "engine/analysis/parameter_sweep.hpp"
#include "engine/analysis/spike_statistics.hpp"
#include "engine/io/model_clone.hpp"
#include "engine/io/module_factory.hpp"
#include "engine/layers/linear.hpp"
#include "engine/neurons/cuba_lif.hpp"
#include "engine/neurons/lif.hpp"
#include "engine/neurons/lif_refrac.hpp"
#include "engine/neurons/nir_integrating.hpp"
#include "engine/neurons/nir_leaky.hpp"
#include "engine/tensor/error.hpp"

#include <QtTest/QtTest>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using namespace spike::engine;  // NOLINT: test file

namespace {

/// Every measure of one copy, run on its own.
struct Single {
    double rate = 0.0;
    double spikes = 0.0;
    double peak = 0.0;
    double cv = 0.0;

    double of(const std::string& measure) const
    {
        if (measure == "rate") {
            return rate;
        }
        return measure == "spikes" ? spikes : measure == "peak" ? peak : cv;
    }
};

/// A copy of `m` with `values` set (scalars), from rest, driven with `current` on every channel
/// of its "in" (or "exc") port for warmup + steps steps; the measures over the measured steps.
Single singleRun(const Module& m, const std::vector<std::pair<std::string, double>>& values,
                 double current, std::int64_t steps, std::int64_t warmup, const std::string& state)
{
    auto copy = cloneModule(m);
    for (const auto& [name, v] : values) {
        const Status s = copy->setAttribute(name, Tensor::scalar(static_cast<float>(v)));
        if (!s.ok) {
            throw Error("test: " + s.message);
        }
    }
    copy->resetState();
    PortSpec port;
    for (const PortSpec& p : copy->inputPorts()) {
        if (p.name == "in" || p.name == "exc") {
            port = p;
            break;
        }
    }
    const std::int64_t total = steps + warmup;
    const std::int64_t nin = copy->sizeIn();
    Tensor input(Shape{total, nin});
    for (std::int64_t t = 0; t < total; ++t) {
        for (std::int64_t c = port.offset; c < port.offset + port.size; ++c) {
            input[t * nin + c] = static_cast<float>(current);
        }
    }
    const EvolveResult r = copy->evolve(input, RecordSpec(std::set<std::string>{state}));
    const std::int64_t n = copy->sizeOut();
    Single out;
    std::vector<float> measured;
    for (std::int64_t t = warmup; t < total; ++t) {
        for (std::int64_t j = 0; j < n; ++j) {
            out.spikes += r.output[t * n + j];
            measured.push_back(r.output[t * n + j]);
        }
    }
    out.rate = out.spikes / (static_cast<double>(n) * (static_cast<double>(steps) * m.timeStep()));
    const Tensor& trace = r.record.at("").at(state).data;
    const std::int64_t row = trace.numel() / total;
    float peak = -std::numeric_limits<float>::infinity();
    for (std::int64_t i = warmup * row; i < total * row; ++i) {
        peak = std::max(peak, trace[i]);
    }
    out.peak = peak;
    const SpikeStatistics s = spikeStatistics(measured.data(), steps, n, m.timeStep());
    out.cv = s.cvNeurons > 0 ? s.meanCv : std::numeric_limits<double>::quiet_NaN();
    return out;
}

bool sameBits(double a, double b)
{
    return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

SweepAxis axis(const std::string& name, double start, double stop, std::int64_t count)
{
    SweepAxis a;
    a.attribute = name;
    a.start = start;
    a.stop = stop;
    a.count = count;
    return a;
}

/// What expectSingleRuns() found: the first difference ("" when none) and the rates.
struct Check {
    std::string failure;
    std::vector<double> rates;
};

/// Whether every grid point of the sweep of `m` over `axes`, for every measure (peak of `state`,
/// "" for the membrane), equals singleRun() of that point bit for bit, and the sweep ran wide or
/// not as `wide` says.
Check compareSingleRuns(const Module& m, const std::vector<SweepAxis>& axes,
                        double current, bool wide, const std::string& state,
                        std::int64_t steps = 200, std::int64_t warmup = 10)
{
    SweepOptions o;
    o.axes = axes;
    o.current = current;
    o.steps = steps;
    o.warmupSteps = warmup;
    o.state = state;
    std::vector<Single> singles;
    Check check;
    for (const std::string& measure : sweepMeasures()) {
        o.measure = measure;
        const SweepResult r = parameterSweep(m, o);
        if (r.widePopulation != wide) {
            return {"" + m.className() + " ran " +
                        (r.widePopulation ? "wide" : "one copy per point"), {}};
        }
        const std::size_t ny = std::max<std::size_t>(1, r.y.size());
        if (r.x.size() != static_cast<std::size_t>(axes[0].count) ||
            r.values.size() != r.x.size() * ny || r.x.front() != axes[0].start ||
            r.x.back() != axes[0].stop) {
            return {"the grid of " + m.className() + " is not as asked", {}};
        }
        const std::string traced = state.empty() ? m.membraneSignal() : state;
        if (measure == "peak" && r.state != traced) {
            return {"peak read '" + r.state + "'", {}};
        }
        for (std::size_t i = 0; i < r.x.size(); ++i) {
            for (std::size_t j = 0; j < ny; ++j) {
                const std::size_t k = i * ny + j;
                if (singles.size() <= k) {
                    std::vector<std::pair<std::string, double>> values{{axes[0].attribute, r.x[i]}};
                    if (!r.y.empty()) {
                        values.emplace_back(axes[1].attribute, r.y[j]);
                    }
                    singles.push_back(singleRun(m, values, current, steps, warmup, traced));
                }
                if (!sameBits(r.values[k], singles[k].of(measure))) {
                    return {"" + m.className() + " " + measure + " at point " +
                                std::to_string(k) + ": sweep " + std::to_string(r.values[k]) +
                                ", single run " + std::to_string(singles[k].of(measure)), {}};
                }
            }
        }
        if (measure == "rate") {
            check.rates = r.values;
        }
    }
    return check;
}

/// compareSingleRuns(), with an Error thrown on the way as its failure.
Check expectSingleRuns(const Module& m, const std::vector<SweepAxis>& axes, double current,
                       bool wide, const std::string& state = {})
{
    try {
        return compareSingleRuns(m, axes, current, wide, state);
    } catch (const Error& e) {
        return {e.what(), {}};
    }
}

/// Whether the check found no difference (else logs it).
bool matches(const Check& check)
{
    if (!check.failure.empty()) {
        qWarning("%s", check.failure.c_str());
    }
    return check.failure.empty();
}

/// Whether the rates vary over the grid and some point fires: the comparison is not vacuous.
bool varies(const Check& check)
{
    if (!matches(check)) {
        return false;
    }
    const std::vector<double>& rates = check.rates;
    const auto [lo, hi] = std::minmax_element(rates.begin(), rates.end());
    return *hi > *lo && *hi > 10.0;
}

/// Every attribute value of `m` (States included) and its elapsed steps.
std::vector<std::string> snapshot(const Module& m)
{
    std::vector<std::string> out;
    for (const AttributeView& v : m.attributes()) {
        std::ostringstream text;
        text << v.spec->name << '=';
        if (const auto* t = std::get_if<Tensor>(v.value)) {
            text << t->shape().toString();
            for (std::int64_t i = 0; i < t->numel(); ++i) {
                text << ' ' << std::bit_cast<std::uint32_t>((*t)[i]);
            }
        } else {
            text << std::get<std::string>(*v.value);
        }
        out.push_back(text.str());
    }
    out.push_back("steps=" + std::to_string(m.stepsElapsed()));
    return out;
}

/// The message parameterSweep throws for `options`, or "" when it does not throw.
std::string refusal(const Module& m, const SweepOptions& options)
{
    try {
        parameterSweep(m, options);
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

/// A LIF of three neurons with two synapses each and per-neuron and per-synapse values, evolved
/// a little so its States are not at rest (the sweep starts every copy from rest).
std::unique_ptr<LIF> mixedLif()
{
    auto m = std::make_unique<LIF>(
        6, 3, false,
        AttributeMap{{"threshold", Tensor(Shape{3}, std::vector<float>{0.8F, 1.0F, 1.2F})},
                     {"tau_syn", Tensor(Shape{3, 2}, std::vector<float>{0.02F, 0.05F, 0.03F,
                                                                       0.04F, 0.06F, 0.01F})},
                     {"bias", Tensor(Shape{3}, std::vector<float>{0.0F, 0.001F, -0.001F})}});
    m->evolve(Tensor(Shape{20, 6}, 0.01F));
    return m;
}

}  // namespace

class TestParameterSweep : public QObject {
    Q_OBJECT

private slots:
    void lifSweepsEqualSingleRunsBitForBit()
    {
        const auto m = mixedLif();
        const auto before = snapshot(*m);
        QVERIFY(varies(expectSingleRuns(*m, {axis("tau_mem", 0.01, 0.05, 13)}, 0.004, true)));
        QVERIFY(varies(expectSingleRuns(
            *m, {axis("tau_mem", 0.01, 0.04, 5), axis("bias", -0.002, 0.004, 4)}, 0.003, true)));
        // Another state than the membrane: the synaptic currents, (N, n_synapses) per step.
        QVERIFY(matches(
            expectSingleRuns(*m, {axis("threshold", 0.5, 1.5, 6)}, 0.004, true, "isyn")));
        QCOMPARE(snapshot(*m), before);

        // decays mode: alpha is settable, tau_mem derived; the mode is copied to the wide copy.
        LIF decays(2, 2, false, {{"leak_mode", std::string("decays")}});
        QVERIFY(varies(expectSingleRuns(decays, {axis("alpha", 0.8, 0.99, 7)}, 0.05, true)));
    }

    void nirLifSweepsEqualSingleRunsBitForBit()
    {
        NIRLIF m(3, {{"v_leak", Tensor(Shape{3}, std::vector<float>{0.0F, 0.1F, -0.1F})}});
        QVERIFY(varies(expectSingleRuns(m, {axis("tau", 0.005, 0.05, 11)}, 2.0, true)));
        QVERIFY(varies(expectSingleRuns(
            m, {axis("tau", 0.005, 0.02, 4), axis("v_threshold", 0.5, 1.5, 5)}, 2.0, true)));
        NIRLIF exact(2, {{"discretisation", std::string("exact")}});
        QVERIFY(varies(expectSingleRuns(exact, {axis("r", 0.5, 3.0, 6)}, 2.0, true)));
    }

    void lifRefracSweepsEqualSingleRunsBitForBit()
    {
        LIFRefrac m(4, {{"v_th", Tensor(Shape{4}, std::vector<float>{0.9F, 1.0F, 1.1F, 1.2F})}});
        QVERIFY(varies(expectSingleRuns(m, {axis("v_leak", -0.5, 0.5, 11)}, 0.5, true)));
        QVERIFY(varies(expectSingleRuns(
            m, {axis("rho_reset", 0, 8, 5), axis("tau_mem_inv", 50, 200, 4)}, 0.5, true)));
        QVERIFY(matches(expectSingleRuns(m, {axis("v_reset", -0.5, 0.5, 3)}, 0.5, true, "rho")));
    }

    void cubaLifSweepsEqualSingleRunsBitForBit()
    {
        // Brian2's CUBA neuron fires without input (v_rest above v_th); "exc" is driven.
        CUBALIF m(3);
        SweepOptions port;
        port.axes = {axis("v_th", -55, -45, 3)};
        QCOMPARE(parameterSweep(m, port).port, std::string("exc"));
        QVERIFY(varies(expectSingleRuns(m, {axis("tau_mem", 0.005, 0.04, 8)}, 0.0, true)));
        QVERIFY(varies(expectSingleRuns(
            m, {axis("v_th", -52, -46, 4), axis("refractory_time", 0.0, 0.004, 5)}, 0.5, true)));
    }

    void perPointFallbackEqualsSingleRuns()
    {
        // Recurrent weights couple the neurons: one copy per point.
        LIF rec(3, 3, true,
                {{"seed", Tensor::scalar(5.0F)}, {"max_spikes_per_dt", Tensor::scalar(4.0F)}});
        QVERIFY(varies(expectSingleRuns(
            rec, {axis("threshold", 0.5, 1.5, 4), axis("bias", 0.0, 0.02, 3)}, 0.01, false)));
        // One noise generator for all neurons: the blocks would draw differently; one copy per
        // point draws as a single copy does.
        LIF noisy(2, 2, false,
                  {{"noise_std", Tensor::scalar(0.3F)}, {"seed", Tensor::scalar(3.0F)}});
        QVERIFY(varies(expectSingleRuns(noisy, {axis("tau_mem", 0.01, 0.05, 5)}, 0.01, false)));
        // Without noise the same module runs wide.
        LIF quiet(2, 2);
        SweepOptions o;
        o.axes = {axis("tau_mem", 0.01, 0.05, 5)};
        o.steps = 50;
        QVERIFY(parameterSweep(quiet, o).widePopulation);
    }

    void largePopulationsSlicedAndChunkedChangeNothing()
    {
        // 3000 neurons: a copy steps in slices of 65536 / 6000 = 10 steps, two points per wide
        // copy; 400 recurrent neurons (one copy per point) in slices of 163 steps, so the
        // previous step's spikes cross a slice boundary.
        LIFRefrac wide(3000);
        QVERIFY(varies(expectSingleRuns(wide, {axis("v_th", 0.5, 2.0, 12)}, 0.5, true)));
        LIF rec(400, 400, true,
                {{"seed", Tensor::scalar(2.0F)}, {"max_spikes_per_dt", Tensor::scalar(1.0F)}});
        QVERIFY(varies(expectSingleRuns(rec, {axis("bias", 0.0, 0.1, 3)}, 0.02, false)));
    }

    void biasSweepRateEqualsFiCurveOfEachCopy()
    {
        // rate uses fiCurve's expression: a bias's point equals fiCurve's rate, at the same
        // current, of a copy with that bias, bit for bit.
        const auto m = mixedLif();
        SweepOptions o;
        o.axes = {axis("bias", -0.01, 0.2, 16)};
        o.current = 0.0;
        o.steps = 500;
        o.warmupSteps = 20;
        const SweepResult r = parameterSweep(*m, o);
        QVERIFY(r.widePopulation);
        QCOMPARE(r.unit, std::string("Hz"));
        for (std::size_t k = 0; k < r.x.size(); ++k) {
            auto copy = cloneModule(*m);
            QVERIFY(copy->setAttribute("bias", Tensor::scalar(static_cast<float>(r.x[k]))).ok);
            FiOptions fi;
            fi.start = fi.stop = 0.0;
            fi.count = 1;
            fi.steps = 500;
            fi.warmupSteps = 20;
            const FiCurve c = fiCurve(*copy, fi);
            QVERIFY2(sameBits(r.values[k], c.rateHz[0]),
                     qPrintable(QString("bias %1: %2 vs %3")
                                    .arg(r.x[k])
                                    .arg(r.values[k])
                                    .arg(c.rateHz[0])));
        }
        QCOMPARE(r.values.front(), 0.0);  // a negative bias at zero input never fires
        QVERIFY(r.values.back() > 50.0);
    }

    void ifThresholdSweepCountsTheClosedForm()
    {
        // IF: v += (dt r) x each step, a spike when v > v_threshold, then v = 0. With dt = 2^-10,
        // r = 1 and x = 64 every step adds exactly 1/16, so a neuron with threshold th fires every
        // m = floor(16 th) + 1 steps, first at step m - 1: floor(T / m) spikes in T steps.
        IF m(4, {{"dt", Tensor::scalar(0.0009765625F)}});
        SweepOptions o;
        o.axes = {axis("v_threshold", 0.05, 1.0, 20)};
        o.current = 64.0;
        o.steps = 997;
        o.measure = "spikes";
        const SweepResult r = parameterSweep(m, o);
        QVERIFY(r.widePopulation);
        for (std::size_t k = 0; k < r.x.size(); ++k) {
            const auto th = static_cast<double>(static_cast<float>(r.x[k]));
            const auto steps = static_cast<std::int64_t>(std::floor(16.0 * th)) + 1;
            QCOMPARE(r.values[k], 4.0 * static_cast<double>(997 / steps));
        }
        QCOMPARE(r.values.front(), 4.0 * 997);  // 0.05 < 1/16: a spike every step
        QCOMPARE(r.values.back(), 4.0 * (997 / 17));
    }

    void measuresUnitsAndCv()
    {
        LIFRefrac m(2);
        SweepOptions o;
        o.axes = {axis("v_th", 0.5, 50.0, 3)};
        o.current = 0.5;
        o.steps = 300;
        o.warmupSteps = 100;
        o.measure = "cv";
        const SweepResult cv = parameterSweep(m, o);
        QCOMPARE(cv.unit, std::string());
        QVERIFY(cv.values[0] >= 0.0 && cv.values[0] < 0.05);  // a regular train
        QVERIFY(std::isnan(cv.values[2]));  // never fires: no interval, no CV
        o.measure = "peak";
        const SweepResult peak = parameterSweep(m, o);
        QCOMPARE(peak.unit, std::string("V"));
        QCOMPARE(peak.state, std::string("v"));
        // v -> v_leak + x / (dt tau_syn_inv) = 2.5 without a spike.
        QVERIFY(peak.values[2] > 2.0 && peak.values[2] < 2.6);
        QCOMPARE(sweepMeasures(), (std::vector<std::string>{"rate", "cv", "spikes", "peak"}));
        QCOMPARE(peak.steps, std::int64_t{300});
        QCOMPARE(peak.neurons, std::int64_t{2});
        o.steps.reset();
        o.measure = "rate";
        QCOMPARE(parameterSweep(m, o).steps, std::int64_t{1000});  // 1 s / dt
    }

    void sweepableAttributesAreTheSettableParameters()
    {
        QCOMPARE(sweepableAttributes(LIF(4, 2)),
                 (std::vector<std::string>{"tau_mem", "tau_syn", "bias", "threshold"}));
        QCOMPARE(sweepableAttributes(LIF(2, 2, false, {{"leak_mode", std::string("decays")}})),
                 (std::vector<std::string>{"alpha", "beta", "bias", "threshold"}));
        QCOMPARE(sweepableAttributes(LIF(2, 2, true)),  // no w_rec
                 (std::vector<std::string>{"tau_mem", "tau_syn", "bias", "threshold"}));
        QCOMPARE(sweepableAttributes(LIFRefrac(2)),
                 (std::vector<std::string>{"tau_syn_inv", "tau_mem_inv", "v_leak", "v_th",
                                           "v_reset", "rho_reset"}));
    }

    void badInputIsRefusedInOneLineNamingIt()
    {
        LIF m(3, 3, true);
        m.evolve(Tensor(Shape{10, 3}, 0.3F));
        const auto before = snapshot(m);
        const auto ok = [] {
            SweepOptions o;
            o.axes = {axis("threshold", 0.5, 1.5, 3)};
            o.steps = 20;
            return o;
        };
        std::vector<std::pair<SweepOptions, std::string>> cases;
        const auto with = [&](auto change, const std::string& says) {
            SweepOptions o = ok();
            change(o);
            cases.emplace_back(o, says);
        };
        with([](SweepOptions& o) { o.axes.clear(); }, "give one or two axes");
        with([](SweepOptions& o) {
                 o.axes = {axis("bias", 0, 1, 2), axis("threshold", 1, 2, 2),
                           axis("tau_mem", 0.01, 0.02, 2)};
             },
             "got 3");
        with([](SweepOptions& o) { o.axes.push_back(axis("threshold", 1, 2, 2)); },
             "'threshold' is swept twice");
        with([](SweepOptions& o) { o.axes[0].attribute = "nope"; },
             "LIF has no attribute 'nope' (sweepable: tau_mem, tau_syn, bias, threshold)");
        const auto named = [&](const char* attribute, const std::string& says) {
            with([attribute](SweepOptions& o) { o.axes[0].attribute = attribute; }, says);
        };
        named("alpha", "'alpha' cannot be swept: it is derived");
        named("vmem", "'vmem' cannot be swept: it is a State");
        named("dt", "'dt' cannot be swept: it is a simulation parameter");
        named("w_rec", "'w_rec' cannot be swept: it is of shape (3, 3), neither one number nor one per neuron");
        with([](SweepOptions& o) { o.axes[0].count = 0; }, "axis 'threshold': count 0 is out of range");
        with([](SweepOptions& o) { o.axes[0].count = 1000000000; }, "count 1000000000 is out of range");
        with([](SweepOptions& o) { o.axes = {axis("bias", 0, 1, 1000), axis("threshold", 1, 2, 1000)}; },
             "the grid of 1000 x 1000 points exceeds 100000 points");
        with([](SweepOptions& o) { o.axes[0].stop = std::numeric_limits<double>::infinity(); },
             "axis 'threshold': the range 0.5:inf is not finite");
        with([](SweepOptions& o) { o.axes[0].start = std::nan(""); }, "is not finite");
        with([](SweepOptions& o) { o.axes[0].stop = 1e300; }, "lies outside float32's range");
        with([](SweepOptions& o) { o.axes[0] = axis("threshold", -1, 1, 3); },
             "grid point threshold=-1: LIF (root): attribute 'threshold': expected values > 0");
        with([](SweepOptions& o) { o.measure = "rates"; }, "unknown measure 'rates' (one of rate, cv, spikes, peak)");
        with([](SweepOptions& o) {
                 o.measure = "peak";
                 o.state = "volts";
             },
             "LIF has no recordable state 'volts' for peak (one of vmem, isyn, irec)");
        with([](SweepOptions& o) { o.steps = 0; }, "steps 0 must be at least 1");
        with([](SweepOptions& o) { o.warmupSteps = -1; }, "warm-up -1 steps must not be negative");
        with([](SweepOptions& o) { o.current = std::nan(""); }, "the current nan is not a finite");
        with([](SweepOptions& o) { o.current = 1e39; }, "the current 1e+39");
        with([](SweepOptions& o) { o.steps = 200000000; }, "too long a run");
        with([](SweepOptions& o) { o.warmupSteps = std::numeric_limits<std::int64_t>::max(); },
             "9223372036854775807 warm-up steps is too long a run");
        for (const auto& [options, says] : cases) {
            const std::string message = refusal(m, options);
            QVERIFY2(message.find(says) != std::string::npos,
                     qPrintable(QString::fromStdString("'" + message + "' lacks '" + says + "'")));
            QVERIFY2(message.rfind("parameter sweep: ", 0) == 0, message.c_str());
            QVERIFY2(message.find('\n') == std::string::npos, message.c_str());
        }
        QCOMPARE(snapshot(m), before);

        // A value one attribute accepts alone but not with dt: LIFRefrac's refractory time must
        // be whole steps.
        LIFRefrac times(2, {{"parametrisation", std::string("times")}});
        SweepOptions o = ok();
        o.axes = {axis("refractory_time", 0.0, 0.003, 4)};
        QCOMPARE(refusal(times, o), std::string());
        o.axes = {axis("refractory_time", 0.0, 0.003, 5)};
        QVERIFY2(refusal(times, o).find("grid point refractory_time=0.00075: ") != std::string::npos,
                 refusal(times, o).c_str());

        // cv keeps every interval: a point with too many spikes is refused, not run out of memory.
        LIF flood(1, 1, false, {{"bias", Tensor::scalar(1e6F)}});
        SweepOptions many = ok();
        many.measure = "cv";
        many.steps = 1000;
        QVERIFY2(refusal(flood, many).find("grid point threshold=0.5: 6.5536e+07 spikes are too "
                                           "many intervals for cv") != std::string::npos,
                 refusal(flood, many).c_str());

        // Modules a sweep cannot drive.
        Linear linear(3, 2);
        QVERIFY2(refusal(linear, ok()).find("Linear has no spikes output") != std::string::npos,
                 refusal(linear, ok()).c_str());
        LI li(2);
        QVERIFY(refusal(li, ok()).find("LI has no spikes output") != std::string::npos);
    }

    void progressAndCancelBetweenChunks()
    {
        LIF m(2, 2);
        SweepOptions o;
        o.axes = {axis("tau_mem", 0.01, 0.05, 5), axis("bias", 0.0, 0.1, 5)};
        o.steps = 50;
        std::vector<double> reported;
        o.progress = [&reported](double f) { reported.push_back(f); };
        parameterSweep(m, o);
        QCOMPARE(reported.size(), std::size_t{9});  // 25 points in chunks of 3
        QVERIFY(std::is_sorted(reported.begin(), reported.end()));
        QCOMPARE(reported.back(), 1.0);

        std::atomic<bool> cancel{false};
        o.cancel = &cancel;
        o.progress = [&cancel](double f) {
            if (f > 0.3) {
                cancel = true;
            }
        };
        QVERIFY_THROWS_EXCEPTION(SweepCancelled, parameterSweep(m, o));
        try {
            cancel = true;
            parameterSweep(m, o);
            QFAIL("not cancelled");
        } catch (const Error& e) {
            QCOMPARE(std::string(e.what()), std::string("parameter sweep: cancelled"));
        }
    }

    void parsesTheCommandLineAxis()
    {
        SweepAxis a;
        parseSweepAxis("tau_mem=0.01:0.05:9", a);
        QCOMPARE(a.attribute, std::string("tau_mem"));
        QCOMPARE(a.start, 0.01);
        QCOMPARE(a.stop, 0.05);
        QCOMPARE(a.count, std::int64_t{9});
        parseSweepAxis("bias=1:-1:3", a);
        QCOMPARE(a.stop, -1.0);
        const std::vector<std::pair<std::string, std::string>> bad{
            {"tau_mem", "--param 'tau_mem' is not NAME=START:STOP:COUNT"},
            {"=0:1:3", "is not NAME=START:STOP:COUNT"},
            {"bias=0:1", "--param 'bias=0:1' is not NAME=START:STOP:COUNT"},
            {"bias=a:1:3", "--param bias: START 'a' is not a number"},
            {"bias=0::3", "--param bias: STOP '' is not a number"},
            {"bias=0:1:2.5", "--param bias: COUNT '2.5' is not a whole number"},
        };
        for (const auto& [text, says] : bad) {
            try {
                parseSweepAxis(text, a);
                QFAIL(text.c_str());
            } catch (const Error& e) {
                QVERIFY2(std::string(e.what()).find(says) != std::string::npos, e.what());
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestParameterSweep)
#include "test_parameter_sweep.moc"
