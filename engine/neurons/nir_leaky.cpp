// LI, NIRLIF, NIRCubaLI, NIRCubaLIF: registration, the per-neuron caches of the discretisations and the
// CPU time loops. See nir_leaky.hpp for the equations; the room compiles with
// -ffp-contract=off, so every product and sum below is rounded to float32 as written.
#include "engine/neurons/nir_leaky.hpp"

#include <algorithm>
#include <cmath>

namespace spike::engine {

namespace {

constexpr float kDefaultTau = 0.01F;     // [s]
constexpr float kDefaultTauSyn = 0.005F; // [s]

/// exp(-dt / tau) per neuron, in double from the float32 values, rounded once.
Eigen::ArrayXf decays(float dt, const Eigen::ArrayXf& tau)
{
    Eigen::ArrayXf out(tau.size());
    for (Eigen::Index i = 0; i < tau.size(); ++i) {
        out[i] = static_cast<float>(std::exp(-static_cast<double>(dt) / tau[i]));
    }
    return out;
}

/// dt / tau per neuron as float32 quotients.
Eigen::ArrayXf quotients(float dt, const Eigen::ArrayXf& tau)
{
    Eigen::ArrayXf out(tau.size());
    for (Eigen::Index i = 0; i < tau.size(); ++i) {
        out[i] = dt / tau[i];
    }
    return out;
}

void leakyEuler(std::int64_t n, const float* __restrict x, float* __restrict v,
                const float* __restrict k, const float* __restrict vLeak,
                const float* __restrict r)
{
    for (std::int64_t i = 0; i < n; ++i) {
        v[i] = v[i] + k[i] * ((vLeak[i] - v[i]) + r[i] * x[i]);
    }
}

void leakyExact(std::int64_t n, const float* __restrict x, float* __restrict v,
                const float* __restrict a, const float* __restrict vLeak,
                const float* __restrict r)
{
    for (std::int64_t i = 0; i < n; ++i) {
        const float vInf = vLeak[i] + r[i] * x[i];
        v[i] = vInf + (v[i] - vInf) * a[i];
    }
}

void leakyImpulse(std::int64_t n, const float* __restrict x, float* __restrict v,
                  const float* __restrict a, const float* __restrict k,
                  const float* __restrict vLeak, const float* __restrict r)
{
    for (std::int64_t i = 0; i < n; ++i) {
        v[i] = (vLeak[i] + (v[i] - vLeak[i]) * a[i]) + k[i] * (r[i] * x[i]);
    }
}

/// z = v > v_threshold; v = v_reset where z.
void fire(std::int64_t n, float* __restrict v, const float* __restrict vTh,
          const float* __restrict vReset, float* __restrict z)
{
    for (std::int64_t i = 0; i < n; ++i) {
        const bool spike = v[i] > vTh[i];
        z[i] = spike ? 1.0F : 0.0F;
        v[i] = spike ? vReset[i] : v[i];
    }
}

}  // namespace

// ---- LI ------------------------------------------------------------------------------------

LI::LI(std::int64_t n, const AttributeMap& initial) : LI("LI", n, false)
{
    registerMembrane();
    finishRegistration(initial);
}

LI::LI(const std::string& type, std::int64_t n, bool spiking) : NirNeuronLayer(type, n, spiking) {}

void LI::registerMembrane()
{
    m_tau = addAttribute(perNeuronParameter("tau", kDefaultTau).family("taus").units("s")
                             .positive().doc("Membrane time constant"));
    m_r = addAttribute(perNeuronParameter("r", 1.0F).family("gains")
                           .doc("Resistance: gain of the input x (unitless)"));
    m_vLeak = addAttribute(perNeuronParameter("v_leak", 0.0F).family("potentials").units("")
                               .doc("Leak potential: v relaxes towards v_leak + r x"));
    m_dt = addAttribute(timeStepAttribute());
    addDiscretisation();
    m_v = addAttribute(membraneState());
}

Status LI::validateChange(const Lookup& proposed) const
{
    return checkFinite(proposed, m_dt, m_tau, true);
}

void LI::attributesChanged()
{
    const float dt = value(m_dt)[0];
    const Eigen::ArrayXf tau = perNeuron(m_tau);
    m_k = quotients(dt, tau);
    m_factor = scheme() == Scheme::Euler ? m_k : decays(dt, tau);
    m_rN = perNeuron(m_r);
    m_vLeakN = perNeuron(m_vLeak);
}

std::vector<NeuronLayer::CarriedState> LI::carriedStates()
{
    return {{m_v, &m_vWork}};
}

std::vector<NeuronLayer::Trace> LI::traces() const
{
    return {{"v", Shape{sizeOut()}, ""}};
}

void LI::stepMembrane(const float* x)
{
    const std::int64_t n = sizeOut();
    switch (scheme()) {
    case Scheme::Exact:
        leakyExact(n, x, m_vWork.data(), m_factor.data(), m_vLeakN.data(), m_rN.data());
        break;
    case Scheme::Impulse:
        leakyImpulse(n, x, m_vWork.data(), m_factor.data(), m_k.data(), m_vLeakN.data(),
                     m_rN.data());
        break;
    case Scheme::Euler:
        leakyEuler(n, x, m_vWork.data(), m_factor.data(), m_vLeakN.data(), m_rN.data());
        break;
    }
}

void LI::runBatch(const float* input, std::int64_t steps, float* out, const TraceTargets& traces)
{
    const std::int64_t n = sizeOut();
    for (std::int64_t t = 0; t < steps; ++t) {
        stepMembrane(input + t * n);
        std::copy(m_vWork.data(), m_vWork.data() + n, out + t * n);
        if (traces[0]) {
            traces[0].write(t, m_vWork.data(), n);
        }
    }
}

// ---- NIRLIF --------------------------------------------------------------------------------

NIRLIF::NIRLIF(std::int64_t n, const AttributeMap& initial) : LI("NIRLIF", n, true)
{
    registerMembrane();
    m_vTh = addAttribute(thresholdParameter());
    m_vReset = addAttribute(resetParameter());
    finishRegistration(initial);
}

void NIRLIF::attributesChanged()
{
    LI::attributesChanged();
    m_vThN = perNeuron(m_vTh);
    m_vResetN = perNeuron(m_vReset);
}

void NIRLIF::runBatch(const float* input, std::int64_t steps, float* spikesOut,
                      const TraceTargets& traces)
{
    const std::int64_t n = sizeOut();
    for (std::int64_t t = 0; t < steps; ++t) {
        stepMembrane(input + t * n);
        fire(n, m_vWork.data(), m_vThN.data(), m_vResetN.data(), spikesOut + t * n);
        if (traces[0]) {
            traces[0].write(t, m_vWork.data(), n);
        }
    }
}

// ---- NIRCubaLI ----------------------------------------------------------------------------

NIRCubaLI::NIRCubaLI(std::int64_t n, const AttributeMap& initial) : NIRCubaLI("NIRCubaLI", n, false)
{
    registerMembraneParameters();
    registerInputAndStates();
    finishRegistration(initial);
}

NIRCubaLI::NIRCubaLI(const std::string& type, std::int64_t n, bool spiking)
    : NirNeuronLayer(type, n, spiking)
{
}

void NIRCubaLI::registerMembraneParameters()
{
    m_tauSyn = addAttribute(perNeuronParameter("tau_syn", kDefaultTauSyn).family("taus")
                                .units("s").positive().doc("Synaptic time constant"));
    m_tauMem = addAttribute(perNeuronParameter("tau_mem", kDefaultTau).family("taus")
                                .units("s").positive().doc("Membrane time constant"));
    m_r = addAttribute(perNeuronParameter("r", 1.0F).family("gains")
                           .doc("Resistance: gain of i_syn on the membrane (unitless)"));
    m_vLeak = addAttribute(perNeuronParameter("v_leak", 0.0F).family("potentials").units("")
                               .doc("Leak potential: v relaxes towards v_leak + r i_syn"));
}

void NIRCubaLI::registerInputAndStates()
{
    m_wIn = addAttribute(perNeuronParameter("w_in", 1.0F).family("weights")
                             .doc("Input weight: gain of the input x on i_syn (unitless)"));
    m_dt = addAttribute(timeStepAttribute());
    addDiscretisation();
    m_v = addAttribute(membraneState());
    m_iSyn = addAttribute(stateVariable("i_syn").family("synapses").shapes({Shape{sizeOut()}})
                              .units("").initConstant(0.0F)
                              .doc("Synaptic current, in membrane-potential units (starts at 0)"));
}

Status NIRCubaLI::validateChange(const Lookup& proposed) const
{
    if (Status s = checkFinite(proposed, m_dt, m_tauSyn, true); !s.ok) {
        return s;
    }
    return checkFinite(proposed, m_dt, m_tauMem, true);
}

void NIRCubaLI::attributesChanged()
{
    const float dt = value(m_dt)[0];
    const Eigen::ArrayXf tauSyn = perNeuron(m_tauSyn);
    const Eigen::ArrayXf tauMem = perNeuron(m_tauMem);
    m_rN = perNeuron(m_r);
    m_vLeakN = perNeuron(m_vLeak);
    m_wInN = perNeuron(m_wIn);
    m_kSyn = quotients(dt, tauSyn);
    m_kMem = quotients(dt, tauMem);
    const std::int64_t n = sizeOut();
    m_a.resize(n);
    m_b.resize(n);
    m_rc.resize(n);
    for (std::int64_t i = 0; i < n; ++i) {
        const double h = dt;
        const double ts = tauSyn[i];
        const double tm = tauMem[i];
        const double a = std::exp(-h / tm);
        const double e = h * (1.0 / tm - 1.0 / ts);
        const double c = a * (h / tm) * (e == 0.0 ? 1.0 : std::expm1(e) / e);
        m_a[i] = static_cast<float>(a);
        m_b[i] = static_cast<float>(std::exp(-h / ts));
        m_rc[i] = static_cast<float>(static_cast<double>(m_rN[i]) * c);
    }
}

std::vector<NeuronLayer::CarriedState> NIRCubaLI::carriedStates()
{
    return {{m_v, &m_vWork}, {m_iSyn, &m_iWork}};
}

std::vector<NeuronLayer::Trace> NIRCubaLI::traces() const
{
    const Shape perNeuronShape{sizeOut()};
    return {{"v", perNeuronShape, ""}, {"i_syn", perNeuronShape, ""}};
}

void NIRCubaLI::stepCurrentAndMembrane(const float* __restrict x, Scheme steps)
{
    const std::int64_t n = sizeOut();
    float* __restrict v = m_vWork.data();
    float* __restrict cur = m_iWork.data();
    const float* __restrict r = m_rN.data();
    const float* __restrict vLeak = m_vLeakN.data();
    const float* __restrict w = m_wInN.data();
    if (steps == Scheme::Impulse) {
        const float* __restrict a = m_a.data();
        const float* __restrict b = m_b.data();
        const float* __restrict rc = m_rc.data();
        const float* __restrict kSyn = m_kSyn.data();
        for (std::int64_t i = 0; i < n; ++i) {
            v[i] = (vLeak[i] + (v[i] - vLeak[i]) * a[i]) + rc[i] * cur[i];
            cur[i] = cur[i] * b[i] + kSyn[i] * (w[i] * x[i]);
        }
    } else if (steps == Scheme::Exact) {
        const float* __restrict a = m_a.data();
        const float* __restrict b = m_b.data();
        const float* __restrict rc = m_rc.data();
        for (std::int64_t i = 0; i < n; ++i) {
            const float iInf = w[i] * x[i];
            const float vInf = vLeak[i] + r[i] * iInf;
            const float d = cur[i] - iInf;
            v[i] = (vInf + (v[i] - vInf) * a[i]) + rc[i] * d;
            cur[i] = iInf + d * b[i];
        }
    } else {
        const float* __restrict kSyn = m_kSyn.data();
        const float* __restrict kMem = m_kMem.data();
        for (std::int64_t i = 0; i < n; ++i) {
            cur[i] = cur[i] + kSyn[i] * (w[i] * x[i] - cur[i]);
            v[i] = v[i] + kMem[i] * ((vLeak[i] - v[i]) + r[i] * cur[i]);
        }
    }
}

void NIRCubaLI::writeTraces(const TraceTargets& traces, std::int64_t t)
{
    const std::int64_t n = sizeOut();
    if (traces[0]) {
        traces[0].write(t, m_vWork.data(), n);
    }
    if (traces[1]) {
        traces[1].write(t, m_iWork.data(), n);
    }
}

void NIRCubaLI::runBatch(const float* input, std::int64_t steps, float* out,
                         const TraceTargets& traces)
{
    const std::int64_t n = sizeOut();
    const Scheme stepping = scheme();
    for (std::int64_t t = 0; t < steps; ++t) {
        stepCurrentAndMembrane(input + t * n, stepping);
        std::copy(m_vWork.data(), m_vWork.data() + n, out + t * n);
        writeTraces(traces, t);
    }
}

// ---- NIRCubaLIF ----------------------------------------------------------------------------

NIRCubaLIF::NIRCubaLIF(std::int64_t n, const AttributeMap& initial)
    : NIRCubaLI("NIRCubaLIF", n, true)
{
    registerMembraneParameters();
    m_vTh = addAttribute(thresholdParameter());
    m_vReset = addAttribute(resetParameter());
    registerInputAndStates();
    finishRegistration(initial);
}

void NIRCubaLIF::attributesChanged()
{
    NIRCubaLI::attributesChanged();
    m_vThN = perNeuron(m_vTh);
    m_vResetN = perNeuron(m_vReset);
}

void NIRCubaLIF::runBatch(const float* input, std::int64_t steps, float* spikesOut,
                          const TraceTargets& traces)
{
    const std::int64_t n = sizeOut();
    const Scheme stepping = scheme();
    for (std::int64_t t = 0; t < steps; ++t) {
        stepCurrentAndMembrane(input + t * n, stepping);
        fire(n, m_vWork.data(), m_vThN.data(), m_vResetN.data(), spikesOut + t * n);
        writeTraces(traces, t);
    }
}

}  // namespace spike::engine
