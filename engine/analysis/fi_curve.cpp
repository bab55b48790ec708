// fiCurve(): the batched sweep, the spike statistics and the analytic curves (fi_curve.hpp).
// Thread: whichever thread calls it; it touches only its own copies of the module.
#include "engine/analysis/fi_curve.hpp"

#include "engine/analysis/driven_port.hpp"
#include "engine/analysis/range_text.hpp"
#include "engine/analysis/wide_population.hpp"

#include "engine/io/model_clone.hpp"
#include "engine/tensor/error.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace spike::engine {

namespace {

/// Spike statistics of one current over the measured steps.
struct Measured {
    double rateHz = 0.0;
    double firstIsiRateHz = 0.0;
    double spikes = 0.0;
};

void validate(const FiOptions& o)
{
    if (!std::isfinite(o.start) || !std::isfinite(o.stop)) {
        throw Error("f-I curve: the current range " + numberText(o.start) + ":" +
                    numberText(o.stop) + " is not finite");
    }
    constexpr double kFloatMax = std::numeric_limits<float>::max();
    if (std::abs(o.start) > kFloatMax || std::abs(o.stop) > kFloatMax) {
        throw Error("f-I curve: the current range " + numberText(o.start) + ":" +
                    numberText(o.stop) +
                    " lies outside float32's range (the engine's input is float32)");
    }
    if (o.start > o.stop) {
        throw Error("f-I curve: the current range is empty (start " + numberText(o.start) +
                    " > stop " + numberText(o.stop) + ")");
    }
    if (o.count < 1 || o.count > kFiMaxCount) {
        throw Error("f-I curve: count " + std::to_string(o.count) + " is out of range (1 to " +
                    std::to_string(kFiMaxCount) + " currents)");
    }
    if (o.steps && *o.steps < 1) {
        throw Error("f-I curve: steps " + std::to_string(*o.steps) + " must be at least 1");
    }
    if (o.warmupSteps < 0) {
        throw Error("f-I curve: warm-up " + std::to_string(o.warmupSteps) +
                    " steps must not be negative");
    }
}

/// The population copy every batch runs on: States at rest.
std::unique_ptr<Module> restingCopy(const Module& neuron)
{
    auto copy = cloneModule(neuron);
    copy->resetState();
    copy->eval();
    return copy;
}

/// Runs `currents` as one or more batches; one Measured per current.
class Sweep {
public:
    Sweep(const Module& neuron, const PortSpec& port, std::int64_t warmup, std::int64_t steps,
          double dt, const FiOptions& options)
        : m_neuron(neuron), m_port(port), m_warmup(warmup), m_steps(steps), m_dt(dt),
          m_options(options)
    {
    }

    /// One Measured per current; reports progress when `report`.
    std::vector<Measured> run(const std::vector<double>& currents, bool report) const
    {
        constexpr std::int64_t kBatches = 10;  // progress and cancel points
        const std::int64_t total = m_warmup + m_steps;
        const std::int64_t width = std::max(m_neuron.sizeIn(), m_neuron.sizeOut());
        const auto count = static_cast<std::int64_t>(currents.size());
        const std::int64_t perBatch = std::max<std::int64_t>(
            1, std::min(kFiBatchFloats / (total * width), (count + kBatches - 1) / kBatches));
        std::vector<Measured> out;
        out.reserve(currents.size());
        for (std::size_t first = 0; first < currents.size();
             first += static_cast<std::size_t>(perBatch)) {
            if (m_options.cancel != nullptr && m_options.cancel->load()) {
                throw FiCancelled();
            }
            const std::size_t n = std::min(currents.size() - first,
                                           static_cast<std::size_t>(perBatch));
            runBatch(currents.data() + first, n, out);
            if (report && m_options.progress) {
                m_options.progress(static_cast<double>(out.size()) /
                                   static_cast<double>(currents.size()));
            }
        }
        return out;
    }

private:
    void runBatch(const double* currents, std::size_t n, std::vector<Measured>& out) const
    {
        const std::int64_t total = m_warmup + m_steps;
        const std::int64_t nin = m_neuron.sizeIn();
        const std::int64_t nout = m_neuron.sizeOut();
        const auto b = static_cast<std::int64_t>(n);
        Tensor input(Shape{b, total, nin});
        for (std::int64_t k = 0; k < b; ++k) {
            const auto x = static_cast<float>(currents[k]);
            for (std::int64_t t = 0; t < total; ++t) {
                float* row = input.data() + (k * total + t) * nin;
                std::fill(row + m_port.offset, row + m_port.offset + m_port.size, x);
            }
        }
        auto copy = restingCopy(m_neuron);
        const Tensor spikes = copy->evolve(input).output;  // (B, T, Nout)
        const double seconds = static_cast<double>(m_steps) * m_dt;
        std::vector<std::int64_t> firstStep(static_cast<std::size_t>(nout));
        std::vector<double> firstCount(static_cast<std::size_t>(nout));
        std::vector<double> isiRate(static_cast<std::size_t>(nout));
        for (std::int64_t k = 0; k < b; ++k) {
            std::fill(firstStep.begin(), firstStep.end(), -1);
            std::fill(isiRate.begin(), isiRate.end(), -1.0);
            double count = 0.0;
            for (std::int64_t t = m_warmup; t < total; ++t) {
                const float* row = spikes.data() + (k * total + t) * nout;
                for (std::int64_t j = 0; j < nout; ++j) {
                    const double s = row[j];
                    if (s <= 0.0) {
                        continue;
                    }
                    count += s;
                    const auto uj = static_cast<std::size_t>(j);
                    if (isiRate[uj] >= 0.0) {
                        continue;
                    }
                    if (firstStep[uj] < 0) {
                        firstStep[uj] = t;
                        firstCount[uj] = s;
                        if (s >= 2.0) {
                            isiRate[uj] = s / m_dt;
                        }
                    } else {
                        isiRate[uj] = 1.0 / (static_cast<double>(t - firstStep[uj]) * m_dt);
                    }
                }
            }
            double isiSum = 0.0;
            for (double r : isiRate) {
                isiSum += std::max(r, 0.0);
            }
            Measured m;
            m.spikes = count;
            m.rateHz = count / (static_cast<double>(nout) * seconds);
            m.firstIsiRateHz = isiSum / static_cast<double>(nout);
            out.push_back(m);
        }
    }

    const Module& m_neuron;
    PortSpec m_port;
    std::int64_t m_warmup;
    std::int64_t m_steps;
    double m_dt;
    const FiOptions& m_options;
};

/// Whether every element of `name` equals the first.
bool uniform(const Module& m, const std::string& name)
{
    const Tensor& t = m.tensor(name);
    for (std::int64_t i = 1; i < t.numel(); ++i) {
        if (t[i] != t[0]) {
            return false;
        }
    }
    return true;
}

/// "" when all of `names` are uniform over the population, else the first that is not.
std::string firstNonUniform(const Module& m, std::initializer_list<const char*> names)
{
    for (const char* name : names) {
        if (!uniform(m, name)) {
            return name;
        }
    }
    return {};
}

double value(const Module& m, const char* name)
{
    return static_cast<double>(m.tensor(name)[0]);
}

/// LIF's recurrence for constant input, in double, from rest: spikes in the measured steps.
double lifDiscreteRate(const Module& m, double x, std::int64_t warmup, std::int64_t steps,
                       double dt)
{
    const auto nsyn = m.sizeIn() / m.sizeOut();
    const double alpha = value(m, "alpha");
    const double beta = value(m, "beta");
    const double bias = value(m, "bias");
    const double theta = value(m, "threshold");
    const double maxSpikes = value(m, "max_spikes_per_dt");
    double isyn = 0.0;
    double v = 0.0;
    double count = 0.0;
    for (std::int64_t t = 0; t < warmup + steps; ++t) {
        isyn = (isyn + x) * beta;
        v = v * alpha + static_cast<double>(nsyn) * isyn + bias;
        if (v >= theta) {
            const double s = std::min(std::floor(v / theta), maxSpikes);
            v -= s * theta;
            if (t >= warmup) {
                count += s;
            }
        }
    }
    return count / (static_cast<double>(steps) * dt);
}

/// 1 / (t_ref + tau ln((V - v_reset) / (V - v_th))), 0 when V <= v_th.
double continuousRate(double vInf, double vReset, double vTh, double tau, double tRef)
{
    if (!(vInf > vTh)) {
        return 0.0;
    }
    return 1.0 / (tRef + tau * std::log((vInf - vReset) / (vInf - vTh)));
}

/// Fills curve.analyticHz / analyticKind, or analyticNote with the reason there is none.
void analytic(const Module& m, FiCurve& curve)
{
    const std::string type = m.className();
    std::string odd;
    if (type == "LIF") {
        if (m.hasAttribute("w_rec")) {
            curve.analyticNote = "LIF with recurrent weights has no analytic curve";
            return;
        }
        if (value(m, "noise_std") != 0.0) {
            curve.analyticNote = "LIF with membrane noise has no analytic curve";
            return;
        }
        odd = firstNonUniform(m, {"alpha", "beta", "bias", "threshold"});
        if (odd.empty()) {
            curve.analyticKind = "exact discrete";
            for (double x : curve.current) {
                curve.analyticHz.push_back(
                    lifDiscreteRate(m, x, curve.warmupSteps, curve.steps, curve.dt));
            }
        }
    } else if (type == "LIFRefrac") {
        odd = firstNonUniform(m, {"tau_syn_inv", "tau_mem_inv", "v_leak", "v_th", "v_reset",
                                  "rho_reset"});
        if (odd.empty()) {
            curve.analyticKind = "continuous approximation";
            const double dtF = static_cast<double>(m.tensor("dt")[0]);
            const auto aSyn = static_cast<double>(static_cast<float>(
                static_cast<float>(dtF) * m.tensor("tau_syn_inv")[0]));
            const double tau = 1.0 / value(m, "tau_mem_inv");
            const double tRef = value(m, "rho_reset") * curve.dt;
            for (double x : curve.current) {
                curve.analyticHz.push_back(continuousRate(value(m, "v_leak") + x / aSyn,
                                                          value(m, "v_reset"), value(m, "v_th"),
                                                          tau, tRef));
            }
        }
    } else if (type == "CUBALIF") {
        odd = firstNonUniform(m, {"tau_mem", "tau_exc", "v_rest", "v_reset", "v_th",
                                  "refractory_time"});
        if (odd.empty()) {
            curve.analyticKind = "continuous approximation";
            for (double x : curve.current) {
                curve.analyticHz.push_back(continuousRate(
                    value(m, "v_rest") + x * value(m, "tau_exc") / curve.dt,
                    value(m, "v_reset"), value(m, "v_th"), value(m, "tau_mem"),
                    value(m, "refractory_time")));
            }
        }
    } else {
        curve.analyticNote = type + " has no analytic f-I curve";
        return;
    }
    if (!odd.empty()) {
        curve.analyticNote = "no analytic curve: " + odd + " differs between neurons";
    }
}

/// The smallest spiking current between `lo` (silent) and `hi` (spiking): two batched rounds.
double refineRheobase(const Sweep& sweep, double lo, double hi)
{
    constexpr int kInterior = 15;
    for (int round = 0; round < 2; ++round) {
        std::vector<double> xs;
        for (int i = 1; i <= kInterior; ++i) {
            xs.push_back(lo + (hi - lo) * i / (kInterior + 1));
        }
        const auto measured = sweep.run(xs, false);
        double newLo = lo;
        double newHi = hi;
        for (std::size_t i = 0; i < xs.size(); ++i) {
            if (measured[i].spikes > 0.0) {
                newHi = xs[i];
                break;
            }
            newLo = xs[i];
        }
        lo = newLo;
        hi = newHi;
    }
    return hi;
}

}  // namespace

FiCurve fiCurve(const Module& neuron, const FiOptions& options)
{
    validate(options);
    const std::string who = "f-I curve of '" + neuron.className() + "'";
    std::optional<PortSpec> out;
    for (const PortSpec& p : neuron.outputPorts()) {
        if (p.name == "spikes") {
            out = p;
        }
    }
    if (!out) {
        throw Error(who + ": the module has no spikes output (an f-I curve needs a spiking "
                    "neuron population: LIF, LIFRefrac or CUBALIF)");
    }
    const std::optional<PortSpec> in = drivenInputPort(neuron);
    if (!in) {
        throw Error(who + ": the module has no input port to drive (it declares no input: an "
                    "equation model needs a line such as 'I : amp (input)')");
    }

    FiCurve curve;
    curve.port = in->name;
    curve.portUnits = inputPortUnits(neuron, in->name);
    curve.neurons = neuron.sizeOut();
    curve.dt = neuron.timeStep();
    if (!(curve.dt > 0.0) || !std::isfinite(curve.dt)) {
        throw Error(who + ": the time step " + numberText(curve.dt) + " s is not positive");
    }
    curve.steps = options.steps ? *options.steps
                                : std::max<std::int64_t>(1, std::llround(1.0 / curve.dt));
    curve.warmupSteps = options.warmupSteps;
    constexpr std::int64_t kMaxStepsPerRun = 100000000;
    const std::int64_t width = std::max(neuron.sizeIn(), neuron.sizeOut());
    if (curve.steps > kMaxStepsPerRun || curve.warmupSteps > kMaxStepsPerRun) {  // before adding them
        throw Error(who + ": " + std::to_string(curve.steps) + " measured and " +
                    std::to_string(curve.warmupSteps) + " warm-up steps is too long a run (at most " +
                    std::to_string(kMaxStepsPerRun) + " steps each)");
    }
    const std::int64_t total = curve.steps + curve.warmupSteps;
    if (total * width > kMaxStepsPerRun) {
        throw Error(who + ": " + std::to_string(total) + " steps x " + std::to_string(width) +
                    " channels is too long a run (at most " + std::to_string(kMaxStepsPerRun) +
                    " step-channels per current)");
    }

    for (std::int64_t k = 0; k < options.count; ++k) {
        // (start (n - 1 - k) + stop k) / (n - 1): both ends exact, 0 exact in a symmetric range.
        const auto n1 = static_cast<double>(options.count - 1);
        const auto kd = static_cast<double>(k);
        curve.current.push_back(options.count == 1
                                    ? options.start
                                    : (options.start * (n1 - kd) + options.stop * kd) / n1);
    }
    const Sweep sweep(neuron, *in, curve.warmupSteps, curve.steps, curve.dt, options);
    const auto measured = sweep.run(curve.current, true);
    for (const Measured& m : measured) {
        curve.rateHz.push_back(m.rateHz);
        curve.firstIsiRateHz.push_back(m.firstIsiRateHz);
    }
    for (std::size_t k = 0; k < measured.size(); ++k) {
        if (measured[k].spikes > 0.0) {
            curve.rheobase = curve.current[k];
            if (k > 0 && options.refineRheobase) {
                curve.rheobase = refineRheobase(sweep, curve.current[k - 1], curve.current[k]);
                curve.rheobaseRefined = true;
            }
            break;
        }
    }
    analytic(neuron, curve);
    return curve;
}

namespace {

/// The probe's run: long enough for a neuron near its rheobase to fire once, short enough for
/// the dialog that asks; run in slices of kProbeSliceSteps so its buffers stay small.
constexpr double kProbeSeconds = 0.5;
constexpr std::int64_t kProbeMaxSteps = 20000;
constexpr std::int64_t kProbeSliceSteps = 2000;

/// The rheobase of a model without a formula, found by running: neuron 0's parameters
/// (oneNeuronCopy) in one population with a neuron per current - 0 and +-10^(e/4), e = -40..16 -
/// for kProbeSeconds. Silent at 0: the smallest positive current that fires; firing at 0: minus
/// the smallest magnitude that silences it. nullopt when no current changes it or the module
/// cannot be probed. HH at dt = 0.01 ms: 115 neurons x 2 x 10^4 steps, about 0.15 s here.
std::optional<double> probedRheobase(const Module& neuron)
{
    const double dt = neuron.timeStep();
    const auto outputs = neuron.outputPorts();
    const bool spiking = std::any_of(outputs.begin(), outputs.end(),
                                     [](const PortSpec& p) { return p.name == "spikes"; });
    if (!spiking || !drivenInputPort(neuron) || !(dt > 0.0) || !std::isfinite(dt)) {
        return std::nullopt;
    }
    constexpr int kLow = -40;
    constexpr int kHigh = 16;
    std::vector<double> magnitudes;
    for (int e = kLow; e <= kHigh; ++e) {
        magnitudes.push_back(std::pow(10.0, 0.25 * e));
    }
    std::vector<float> currents{0.0F};  // neuron 2k + 1: +magnitude k, 2k + 2: -magnitude k
    for (const double x : magnitudes) {
        currents.push_back(static_cast<float>(x));
        currents.push_back(static_cast<float>(-x));
    }
    const auto count = static_cast<std::int64_t>(currents.size());
    std::vector<double> spikes(currents.size(), 0.0);
    try {
        Status status;
        auto wide = widePopulation(*oneNeuronCopy(neuron, 0, "f-I curve"), count, {}, status);
        const std::optional<PortSpec> port = wide ? drivenInputPort(*wide) : std::nullopt;
        if (!port || port->size != count || wide->sizeOut() != count) {
            return std::nullopt;
        }
        const std::int64_t steps =
            std::clamp<std::int64_t>(std::llround(kProbeSeconds / dt), 1, kProbeMaxSteps);
        const std::int64_t nin = wide->sizeIn();
        for (std::int64_t done = 0; done < steps; done += kProbeSliceSteps) {
            const std::int64_t slice = std::min(kProbeSliceSteps, steps - done);
            Tensor input(Shape{slice, nin});
            for (std::int64_t t = 0; t < slice; ++t) {
                std::copy(currents.begin(), currents.end(), input.data() + t * nin + port->offset);
            }
            const Tensor out = wide->evolve(input).output;  // (slice, count)
            for (std::int64_t t = 0; t < slice; ++t) {
                for (std::int64_t j = 0; j < count; ++j) {
                    spikes[static_cast<std::size_t>(j)] += out[t * count + j];
                }
            }
        }
    } catch (const Error&) {
        return std::nullopt;  // a model the probe cannot copy or run: no suggestion
    }
    const bool firesAtRest = spikes[0] > 0.0;
    for (std::size_t k = 0; k < magnitudes.size(); ++k) {
        const double at = spikes[firesAtRest ? 2 * k + 2 : 2 * k + 1];
        if (firesAtRest ? at == 0.0 : at > 0.0) {
            return firesAtRest ? -magnitudes[k] : magnitudes[k];
        }
    }
    return std::nullopt;
}

}  // namespace

std::optional<double> steadyStateRheobase(const Module& m)
{
    const std::string type = m.className();
    if (type == "LIF") {
        const double alpha = value(m, "alpha");
        const double beta = value(m, "beta");
        const auto nsyn = static_cast<double>(m.sizeIn() / m.sizeOut());
        return ((1.0 - alpha) * value(m, "threshold") - value(m, "bias")) * (1.0 - beta) /
               (nsyn * beta);
    }
    if (type == "LIFRefrac") {
        return (value(m, "v_th") - value(m, "v_leak")) * m.timeStep() * value(m, "tau_syn_inv");
    }
    if (type == "CUBALIF") {
        return (value(m, "v_th") - value(m, "v_rest")) * m.timeStep() / value(m, "tau_exc");
    }
    return std::nullopt;
}

FiOptions suggestedFiOptions(const Module& neuron)
{
    FiOptions o;
    o.count = 41;
    std::optional<double> x = steadyStateRheobase(neuron);
    if (!x) {
        x = probedRheobase(neuron);
    }
    if (x && std::isfinite(*x) && *x > 0.0) {
        o.start = 0.0;
        o.stop = 4.0 * *x;
    } else if (x && std::isfinite(*x) && *x < 0.0) {
        o.start = 2.0 * *x;
        o.stop = -2.0 * *x;
    }
    return o;
}

void parseCurrentRange(const std::string& text, FiOptions& options)
{
    const RangeText r = parseRangeText(text, "--current", "--current '" + text + "' is not START:STOP:COUNT");
    options.start = r.start;
    options.stop = r.stop;
    options.count = r.count;
}

}  // namespace spike::engine
