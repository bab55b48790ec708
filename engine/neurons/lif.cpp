// LIF layer: registration, leak-mode conversions and the CPU time loop. See lif.hpp for the
// equations. The hot loop is compiled with -O3 -fno-trapping-math -ffp-contract=off so GCC
// vectorises the threshold select while keeping Rockpool's exact float32 rounding.
#include "engine/neurons/lif.hpp"

#include "engine/neurons/neuron_range.hpp"

#include "kernels/lif_math.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <sstream>

namespace spike::engine {

namespace {

constexpr float kDefaultTauMem = 0.02F;  // [s]
constexpr float kDefaultTauSyn = 0.05F;  // [s]

/// Membrane, spike and reset for n neurons given their summed synaptic currents. A separate
/// instantiation per noise setting keeps the loop branch-free so GCC vectorises it.
template <bool Noisy>
void membraneStep(std::int64_t n, float* __restrict v, const float* __restrict isynSum,
                  const float* __restrict alpha, const float* __restrict noise,
                  const float* __restrict bias, const float* __restrict th, float maxSpikes,
                  float* __restrict s, float* __restrict spikesOut)
{
    for (std::int64_t i = 0; i < n; ++i) {
        const float vm = spike::kernels::lifMembrane(v[i], alpha[i], isynSum[i],
                                                     Noisy ? noise[i] : 0.0F, bias[i]);
        const float sp = spike::kernels::lifSpikeCount(vm, th[i], maxSpikes);
        v[i] = spike::kernels::lifReset(vm, sp, th[i]);
        s[i] = sp;
        spikesOut[i] = sp;
    }
}

/// One whole step for one-synapse neurons without recurrence, fused into a single pass so each
/// neuron's state is loaded and stored once. `Uniform`: every neuron shares alpha, beta, bias and
/// threshold (element 0 of each array), which keeps the working set to the state alone.
template <bool Noisy, bool Uniform>
void fusedStep(std::int64_t n, const float* __restrict x, float* __restrict isyn,
               float* __restrict v, const float* __restrict alpha, const float* __restrict beta,
               const float* __restrict bias, const float* __restrict th,
               const float* __restrict noise, float maxSpikes, float* __restrict spikesOut)
{
    for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t p = Uniform ? 0 : i;
        const float current = spike::kernels::lifSynapse(isyn[i], x[i], beta[p]);
        isyn[i] = current;
        const float vm = spike::kernels::lifMembrane(v[i], alpha[p], current,
                                                     Noisy ? noise[i] : 0.0F, bias[p]);
        const float sp = spike::kernels::lifSpikeCount(vm, th[p], maxSpikes);
        v[i] = spike::kernels::lifReset(vm, sp, th[p]);
        spikesOut[i] = sp;
    }
}

}  // namespace

const std::vector<std::string>& LIF::leakModes()
{
    static const std::vector<std::string> modes{"taus", "decays", "bitshifts"};
    return modes;
}

LIF::LIF(std::int64_t nIn, std::int64_t nOut, bool hasRec, const AttributeMap& initial)
    : NeuronLayer({nIn, nOut}, true, true), m_hasRec(hasRec)
{
    if (nOut <= 0 || nIn <= 0 || nIn % nOut != 0) {
        throw Error("LIF: shape (" + std::to_string(nIn) + ", " + std::to_string(nOut) +
                    ") is invalid; Nin must be a positive multiple of Nout (Nin = Nout * "
                    "n_synapses)");
    }
    m_nSyn = nIn / nOut;
    registerAttributes();
    finishRegistration(initial);
    onResetState();
}

void LIF::registerAttributes()
{
    const std::int64_t n = sizeOut();
    const std::vector<Shape> perNeuron = perNeuronShapes();
    const std::vector<Shape> perSynapse{Shape{}, Shape{1}, Shape{n}, Shape{n, m_nSyn}};

    m_tauMem = addAttribute(parameter("tau_mem").family("taus").shapes(perNeuron).units("s")
                                .positive().initConstant(kDefaultTauMem)
                                .doc("Membrane time constant (settable in leak_mode 'taus')"));
    m_tauSyn = addAttribute(parameter("tau_syn").family("taus").shapes(perSynapse).units("s")
                                .positive().initConstant(kDefaultTauSyn)
                                .doc("Synaptic time constant (settable in leak_mode 'taus')"));
    Bounds unitOpen{0.0, 1.0, false, false};
    m_alpha = addAttribute(parameter("alpha").family("decays").shapes(perNeuron).bounds(unitOpen)
                               .initConstant(std::exp(-kDefaultTimeStep / kDefaultTauMem))
                               .doc("Membrane decay per step (settable in leak_mode 'decays')"));
    m_beta = addAttribute(parameter("beta").family("decays").shapes(perSynapse).bounds(unitOpen)
                              .initConstant(std::exp(-kDefaultTimeStep / kDefaultTauSyn))
                              .doc("Synaptic decay per step (settable in leak_mode 'decays')"));
    m_dashMem = addAttribute(parameter("dash_mem").family("bitshifts").shapes(perNeuron).integer()
                                 .range(1, 31).initConstant(5.0F)
                                 .doc("Membrane bit-shift decay: alpha = 1 - 2^-dash_mem"));
    m_dashSyn = addAttribute(parameter("dash_syn").family("bitshifts").shapes(perSynapse).integer()
                                 .range(1, 31).initConstant(5.0F)
                                 .doc("Synaptic bit-shift decay: beta = 1 - 2^-dash_syn"));
    m_bias = addAttribute(parameter("bias").family("biases").shapes(perNeuron).initConstant(0.0F)
                              .doc("Constant input added to the membrane every step"));
    m_threshold = addAttribute(parameter("threshold").family("thresholds").role(Role::Threshold).shapes(perNeuron)
                                   .positive().initConstant(1.0F)
                                   .doc("Firing threshold; subtracted from vmem per spike"));
    m_dt = addAttribute(timeStepAttribute());
    m_noiseStd = addAttribute(simulationParameter("noise_std").nonNegative().initConstant(0.0F)
                                  .doc("Std. dev. of membrane noise after 1 s (scaled by sqrt(dt))"));
    m_maxSpikes = addAttribute(simulationParameter("max_spikes_per_dt").integer()
                                   .range(1, 16777216).initConstant(65536.0F)
                                   .doc("Most spikes one neuron may emit in one step"));
    m_learningWindow = addAttribute(simulationParameter("learning_window").nonNegative()
                                        .initConstant(0.5F)
                                        .doc("Width of the surrogate gradient around threshold"));
    m_surrogate = addAttribute(simulationParameter("surrogate")
                                   .choices({"PeriodicExponential", "StepPWL"})
                                   .initEnum("PeriodicExponential")
                                   .doc("Surrogate gradient used by trainers (kept for files)"));
    m_leakMode = addAttribute(simulationParameter("leak_mode").choices(leakModes())
                                  .initEnum("taus")
                                  .doc("Which pair sets the leak: taus, decays or bitshifts"));
    m_seed = addAttribute(simulationParameter("seed").integer().range(0, 16777216)
                              .initConstant(0.0F).live(false)
                              .doc("Seed of the noise and weight-initialisation generators"));
    if (m_hasRec) {
        m_wRec = addAttribute(
            parameter("w_rec").family("weights").shapes({Shape{n, sizeIn()}})
                .init([](const Module& m) -> AttributeValue {
                    // Kaiming-uniform (PyTorch default gain sqrt(2), fan_in = Nin), seeded.
                    const auto& self = static_cast<const LIF&>(m);
                    Random rng(static_cast<std::uint64_t>(self.tensor("seed")[0]) ^
                               0xA5A5A5A5ULL);
                    const double bound = std::sqrt(6.0 / static_cast<double>(self.sizeIn()));
                    Tensor w(Shape{self.sizeOut(), self.sizeIn()});
                    for (std::int64_t i = 0; i < w.numel(); ++i) {
                        w[i] = static_cast<float>(rng.uniform(-bound, bound));
                    }
                    return w;
                })
                .doc("Recurrent weights (Nout, Nin): spikes_prev @ w_rec feeds isyn"));
    }
    m_vmem = addAttribute(stateVariable("vmem").family("membrane").role(Role::Membrane).shapes({Shape{n}})
                              .initConstant(0.0F).doc("Membrane potential"));
    m_isyn = addAttribute(stateVariable("isyn").family("synapses").shapes({Shape{n, m_nSyn}})
                              .initConstant(0.0F).doc("Synaptic currents (Nout, n_synapses)"));
    m_spikes = addAttribute(stateVariable("spikes").family("spikes").shapes({Shape{n}})
                                .initConstant(0.0F).doc("Spikes emitted in the last step"));
}

nlohmann::json LIF::config() const
{
    return {{"shape", {sizeIn(), sizeOut()}}, {"has_rec", m_hasRec}};
}

std::string LIF::extraRepr() const
{
    std::ostringstream os;
    os << "shape=(" << sizeIn() << ", " << sizeOut() << "), leak_mode=" << enumValue(m_leakMode);
    if (m_hasRec) {
        os << ", has_rec=True";
    }
    return os.str();
}

bool LIF::derivedUnder(const AttributeSpec& spec, const Lookup& proposed) const
{
    const auto& mode = std::get<std::string>(proposed("leak_mode"));
    if (spec.family == "taus" || spec.family == "decays" || spec.family == "bitshifts") {
        return spec.family != mode;
    }
    return false;
}

void LIF::attributesChanged()
{
    const std::string& mode = enumValue(m_leakMode);
    const float dt = value(m_dt)[0];
    if (mode == "bitshifts" && !m_mode.empty() && m_mode != "bitshifts") {
        // Switching into bitshifts: the derived dash values become the settable ones, rounded
        // to the nearest allowed shift.
        const auto toShift = [](float d) { return std::clamp(std::nearbyint(d), 1.0F, 31.0F); };
        setDerived(m_dashMem, mapped(value(m_dashMem), toShift));
        setDerived(m_dashSyn, mapped(value(m_dashSyn), toShift));
    }
    m_mode = mode;

    const auto expDecay = [dt](float tau) { return std::exp(-dt / tau); };
    const auto tauOf = [dt](float a) { return -dt / std::log(a); };
    const auto fromShift = [](float d) { return 1.0F - std::exp2(-d); };
    const auto shiftOf = [](float a) { return -std::log2(1.0F - a); };
    if (mode == "taus") {
        setDerived(m_alpha, mapped(value(m_tauMem), expDecay));
        setDerived(m_beta, mapped(value(m_tauSyn), expDecay));
        setDerived(m_dashMem, mapped(value(m_alpha), shiftOf));
        setDerived(m_dashSyn, mapped(value(m_beta), shiftOf));
    } else if (mode == "decays") {
        setDerived(m_tauMem, mapped(value(m_alpha), tauOf));
        setDerived(m_tauSyn, mapped(value(m_beta), tauOf));
        setDerived(m_dashMem, mapped(value(m_alpha), shiftOf));
        setDerived(m_dashSyn, mapped(value(m_beta), shiftOf));
    } else {
        setDerived(m_alpha, mapped(value(m_dashMem), fromShift));
        setDerived(m_beta, mapped(value(m_dashSyn), fromShift));
        setDerived(m_tauMem, mapped(value(m_alpha), tauOf));
        setDerived(m_tauSyn, mapped(value(m_beta), tauOf));
    }
    const std::int64_t n = sizeOut();
    expandTo(value(m_alpha), n, 1, m_alphaN);
    expandTo(value(m_beta), n, m_nSyn, m_betaNS);
    expandTo(value(m_bias), n, 1, m_biasN);
    expandTo(value(m_threshold), n, 1, m_thresholdN);
    m_uniform = allEqual(m_alphaN) && allEqual(m_betaNS) && allEqual(m_biasN) &&
                allEqual(m_thresholdN);
    // A new seed (from a model file, the inspector, --seed) restarts the noise stream at once, so
    // a loaded model draws exactly what a freshly built one with that seed draws.
    if (value(m_seed)[0] != m_seededWith) {
        onResetState();
    }
}

void LIF::onResetState()
{
    m_seededWith = value(m_seed)[0];
    m_rng.reseed(static_cast<std::uint64_t>(m_seededWith));
}

std::vector<NeuronLayer::CarriedState> LIF::carriedStates()
{
    return {{m_vmem, &m_v}, {m_isyn, &m_i}, {m_spikes, &m_s}};
}

std::vector<NeuronLayer::Trace> LIF::traces() const
{
    std::vector<Trace> out{{"vmem", Shape{sizeOut()}, ""}, {"isyn", Shape{sizeOut(), m_nSyn}, ""}};
    if (m_hasRec) {
        out.push_back({"irec", Shape{sizeOut(), m_nSyn}, ""});
    }
    return out;
}

void LIF::prepareEvolve()
{
    m_noise.setZero(sizeOut());
    m_sum.resize(sizeOut());
    m_irec.resize(sizeIn());
}

void LIF::runBatch(const float* input, std::int64_t steps, float* out, const TraceTargets& traces)
{
    const TraceTarget& recV = traces[0];
    const TraceTarget& recI = traces[1];
    const TraceTarget recR = m_hasRec ? traces[2] : TraceTarget{};
    const std::int64_t n = sizeOut();
    const std::int64_t nIn = sizeIn();
    const std::int64_t nsyn = m_nSyn;
    const float maxSpikes = value(m_maxSpikes)[0];
    const float noiseScale = value(m_noiseStd)[0] * std::sqrt(value(m_dt)[0]);
    const bool noisy = noiseScale > 0.0F;
    float* __restrict v = m_v.data();
    float* __restrict isyn = m_i.data();
    float* __restrict s = m_s.data();
    float* __restrict noise = m_noise.data();
    const float* __restrict alpha = m_alphaN.data();
    const float* __restrict beta = m_betaNS.data();
    const float* __restrict bias = m_biasN.data();
    const float* __restrict th = m_thresholdN.data();
    const Tensor* wRec = m_hasRec ? &value(m_wRec) : nullptr;

    const auto drawNoise = [&] { m_rng.fillNormal(noise, n, noiseScale); };

    if (steps == 0) {
        return;
    }
    if (nsyn == 1 && wRec == nullptr && !noisy) {
        runRange(input, steps, out, traces, 0, n);
        return;
    }
    if (nsyn == 1 && wRec == nullptr) {
        for (std::int64_t t = 0; t < steps; ++t) {
            const float* __restrict x = input + t * nIn;
            float* __restrict spikesOut = out + t * n;
            drawNoise();
            if (m_uniform) {
                fusedStep<true, true>(n, x, isyn, v, alpha, beta, bias, th, noise, maxSpikes, spikesOut);
            } else {
                fusedStep<true, false>(n, x, isyn, v, alpha, beta, bias, th, noise, maxSpikes, spikesOut);
            }
            if (recV) {
                recV.write(t, v, n);
            }
            if (recI) {
                recI.write(t, isyn, n);
            }
        }
        std::copy(out + (steps - 1) * n, out + steps * n, s);
        return;
    }

    for (std::int64_t t = 0; t < steps; ++t) {
        const float* __restrict x = input + t * nIn;
        float* __restrict spikesOut = out + t * n;
        if (noisy) {
            drawNoise();
        }
        if (wRec != nullptr) {
            // irec = spikes_prev @ w_rec, then isyn += x; isyn += irec (Rockpool's order).
            m_irec.noalias() = Eigen::Map<const Eigen::Matrix<float, 1, Eigen::Dynamic>>(s, n) *
                               wRec->matrix();
            const float* __restrict irec = m_irec.data();
            for (std::int64_t j = 0; j < nIn; ++j) {
                isyn[j] = spike::kernels::lifSynapse(isyn[j] + x[j], irec[j], beta[j]);
            }
            if (recR) {
                recR.write(t, irec, nIn);
            }
        } else {
            for (std::int64_t j = 0; j < nIn; ++j) {
                isyn[j] = spike::kernels::lifSynapse(isyn[j], x[j], beta[j]);
            }
        }
        if (nsyn == 1) {
            if (noisy) {
                membraneStep<true>(n, v, isyn, alpha, noise, bias, th, maxSpikes, s, spikesOut);
            } else {
                membraneStep<false>(n, v, isyn, alpha, noise, bias, th, maxSpikes, s, spikesOut);
            }
        } else {
            // Sum each neuron's synapses in index order (Rockpool's isyn.sum(2)), then the same
            // membrane update over the sums.
            float* __restrict sums = m_sum.data();
            for (std::int64_t i = 0; i < n; ++i) {
                float sum = isyn[i * nsyn];
                for (std::int64_t k = 1; k < nsyn; ++k) {
                    sum += isyn[i * nsyn + k];
                }
                sums[i] = sum;
            }
            if (noisy) {
                membraneStep<true>(n, v, sums, alpha, noise, bias, th, maxSpikes, s, spikesOut);
            } else {
                membraneStep<false>(n, v, sums, alpha, noise, bias, th, maxSpikes, s, spikesOut);
            }
        }
        if (recV) {
            recV.write(t, v, n);
        }
        if (recI) {
            recI.write(t, isyn, nIn);
        }
    }
}

bool LIF::runsInRanges() const
{
    return m_nSyn == 1 && !m_hasRec && value(m_noiseStd)[0] * std::sqrt(value(m_dt)[0]) <= 0.0F;
}

void LIF::runRange(const float* input, std::int64_t steps, float* out, const TraceTargets& traces,
                   std::int64_t begin, std::int64_t end)
{
    // One synapse, no recurrence, no noise (runsInRanges()): the fused step over [begin, end).
    const neurons_detail::NeuronRange range{sizeOut(), begin, end};
    const std::int64_t count = range.count();
    const float maxSpikes = value(m_maxSpikes)[0];
    float* __restrict v = range.at(m_v);
    float* __restrict isyn = range.at(m_i);
    const float* __restrict alpha = range.at(m_alphaN);
    const float* __restrict beta = range.at(m_betaNS);
    const float* __restrict bias = range.at(m_biasN);
    const float* __restrict th = range.at(m_thresholdN);
    if (range.empty()) {
        return;
    }
    for (std::int64_t t = 0; t < steps; ++t) {
        const float* __restrict x = range.step(input, t);
        float* __restrict spikesOut = range.step(out, t);
        if (m_uniform) {
            fusedStep<false, true>(count, x, isyn, v, alpha, beta, bias, th, nullptr, maxSpikes, spikesOut);
        } else {
            fusedStep<false, false>(count, x, isyn, v, alpha, beta, bias, th, nullptr, maxSpikes, spikesOut);
        }
        range.writeTraces(traces, t, std::array<const float*, 2>{m_v.data(), m_i.data()});
    }
    range.keepLastSpikes(out, steps, m_s);
}

}  // namespace spike::engine
