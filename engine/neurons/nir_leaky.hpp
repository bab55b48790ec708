// LI, NIRLIF, NIRCubaLI, NIRCubaLIF: NIR's leaky neurons (leaky integrator, leaky
// integrate-and-fire, current-based leaky integrator, current-based leaky integrate-and-fire),
// continuous-time models discretised with step dt.
//
//     LI          tau dv/dt = (v_leak - v) + r x                        output v (not spikes)
//     NIRLIF      tau dv/dt = (v_leak - v) + r x;  z = v > v_threshold; v = v_reset where z
//     NIRCubaLI   tau_syn di_syn/dt = w_in x - i_syn;  tau_mem dv/dt = (v_leak - v) + r i_syn;
//                 output v (not spikes)
//     NIRCubaLIF  NIRCubaLI's two equations;  z = v > v_threshold; v = v_reset where z
//
// Shape (N,): input channel j drives neuron j; every parameter per neuron. Per time step, per
// neuron, in the order the code executes them (float32 throughout, no fused multiply-add; the
// factors k = dt / tau are float32 quotients, the propagators a, b, c are computed in double
// from the float32 parameters and rounded to float32 once, all when the parameters change):
//
//   discretisation "euler" (NIR's reference simulation; Norse and snnTorch step so):
//     LI, NIRLIF   v     = v + k * ((v_leak - v) + r * x)                 k = dt / tau
//     NIRCubaLI,   i_syn = i_syn + k_syn * (w_in * x - i_syn)            k_syn = dt / tau_syn
//     NIRCubaLIF   v     = v + k_mem * ((v_leak - v) + r * i_syn)        (the new i_syn)
//
//   discretisation "exact" (the exact solution over dt with x held during the step):
//     LI, NIRLIF   v_inf = v_leak + r * x
//                  v     = v_inf + (v - v_inf) * a                        a = exp(-dt / tau)
//     NIRCubaLI,   i_inf = w_in * x
//     NIRCubaLIF   v_inf = v_leak + r * i_inf
//                  d     = i_syn - i_inf
//                  v     = v_inf + (v - v_inf) * a + rc * d               rc = r * c
//                  i_syn = i_inf + d * b
//                  with a = exp(-dt / tau_mem), b = exp(-dt / tau_syn) and c the membrane's
//                  response after dt to a unit synaptic deviation decaying with tau_syn:
//                  c = tau_syn / (tau_syn - tau_mem) * (b - a), evaluated as
//                  c = a * (dt / tau_mem) * expm1(e) / e, e = dt * (1/tau_mem - 1/tau_syn),
//                  which is c = a * dt / tau_mem when tau_syn == tau_mem (e = 0).
//
//   discretisation "impulse" (the exact decay over dt, then the step's input as one impulse of
//   area dt * x at the end of the step; with the r Rockpool's to_nir writes for an ExpSynTorch,
//   r = tau * exp(-dt / tau) / dt, an LI steps exactly as ExpSynTorch: v = beta * (v + x)):
//     LI, NIRLIF   v     = (v_leak + (v - v_leak) * a) + k * (r * x)      k = dt / tau
//     NIRCubaLI,   v     = (v_leak + (v - v_leak) * a) + rc * i_syn        (the old i_syn)
//     NIRCubaLIF   i_syn = i_syn * b + k_syn * (w_in * x)
//
//   then (NIRLIF, NIRCubaLIF)
//                  z = 1 where v > v_threshold (strict), else 0
//                  v = v_reset where z
//
// States start at zero (v, and i_syn), as in NIR's reference simulation, not at v_leak.
// NIRCubaLI and NIRCubaLIF run the same step (NIRCubaLIF derives from NIRCubaLI and adds the
// threshold and reset), so NIRCubaLI's v is, bit for bit, NIRCubaLIF's with a threshold never
// reached. Recordable: v (all four), i_syn (NIRCubaLI, NIRCubaLIF), spikes (NIRLIF, NIRCubaLIF;
// LI and NIRCubaLI output v on their port "out"). The discretisation may change while running.
// No CUDA twin: the CUDA executor runs them on the host. Thread: owned by whichever thread
// evolves it; evolve() allocates per call, never per step.
#pragma once

#include "engine/neurons/nir_neuron_layer.hpp"

namespace spike::engine {

/// NIR's leaky integrator: a non-spiking membrane whose output is v.
class LI : public NirNeuronLayer {
public:
    /// A population of n > 0 neurons; `initial` overrides initial attribute values (validated;
    /// throws Error naming the attribute).
    explicit LI(std::int64_t n, const AttributeMap& initial = {});
    std::string className() const override { return "LI"; }

protected:
    /// The leaky membrane of LI and NIRLIF: tau, r, v_leak, dt, discretisation, v.
    LI(const std::string& type, std::int64_t n, bool spiking);
    void registerMembrane();
    Status validateChange(const Lookup& proposed) const override;
    void attributesChanged() override;
    std::vector<CarriedState> carriedStates() override;
    /// v (N,).
    std::vector<Trace> traces() const override;
    void runBatch(const float* input, std::int64_t steps, float* out,
                  const TraceTargets& traces) override;
    /// One step of every neuron's membrane over input row x.
    void stepMembrane(const float* x);

    AttributeId m_tau, m_r, m_vLeak, m_dt, m_v;
    Eigen::ArrayXf m_factor;  ///< euler: dt / tau; exact and impulse: exp(-dt / tau)
    Eigen::ArrayXf m_k;       ///< dt / tau (the impulse's gain)
    Eigen::ArrayXf m_rN, m_vLeakN;
    Eigen::ArrayXf m_vWork;   ///< v of the batch element being run
};

/// NIR's leaky integrate-and-fire neuron: LI's membrane with a threshold and a reset.
class NIRLIF : public LI {
public:
    explicit NIRLIF(std::int64_t n, const AttributeMap& initial = {});
    std::string className() const override { return "NIRLIF"; }

protected:
    void attributesChanged() override;
    void runBatch(const float* input, std::int64_t steps, float* spikesOut,
                  const TraceTargets& traces) override;

private:
    AttributeId m_vTh, m_vReset;
    Eigen::ArrayXf m_vThN, m_vResetN;
};

/// NIR's current-based leaky integrator: an exponential synaptic current i_syn driving a leaky
/// membrane, which does not spike; the output is v.
class NIRCubaLI : public NirNeuronLayer {
public:
    explicit NIRCubaLI(std::int64_t n, const AttributeMap& initial = {});
    std::string className() const override { return "NIRCubaLI"; }

protected:
    /// The current-driven membrane of NIRCubaLI and NIRCubaLIF; registers nothing (the two
    /// register* calls below do, the spiking type putting its threshold and reset between them).
    NIRCubaLI(const std::string& type, std::int64_t n, bool spiking);
    /// tau_syn, tau_mem, r, v_leak.
    void registerMembraneParameters();
    /// w_in, dt, discretisation, v, i_syn.
    void registerInputAndStates();
    Status validateChange(const Lookup& proposed) const override;
    void attributesChanged() override;
    std::vector<CarriedState> carriedStates() override;
    /// v and i_syn, each (N,).
    std::vector<Trace> traces() const override;
    void runBatch(const float* input, std::int64_t steps, float* out,
                  const TraceTargets& traces) override;
    /// One step of every neuron's i_syn and v over input row x (m_vWork, m_iWork), by the
    /// exact solution or by euler.
    void stepCurrentAndMembrane(const float* x, Scheme steps);
    /// Records v and i_syn of step t where asked.
    void writeTraces(const TraceTargets& traces, std::int64_t t);

    AttributeId m_tauSyn, m_tauMem, m_r, m_vLeak, m_wIn, m_dt, m_v, m_iSyn;
    // Per-neuron caches: euler uses kSyn = dt / tau_syn, kMem = dt / tau_mem; exact uses
    // a = exp(-dt / tau_mem), b = exp(-dt / tau_syn), rc = r * c (see the file comment).
    Eigen::ArrayXf m_kSyn, m_kMem, m_a, m_b, m_rc;
    Eigen::ArrayXf m_rN, m_vLeakN, m_wInN;
    Eigen::ArrayXf m_vWork, m_iWork;  ///< v and i_syn of the batch element being run
};

/// NIR's current-based leaky integrate-and-fire neuron: NIRCubaLI's current and membrane with a
/// threshold and a reset.
class NIRCubaLIF : public NIRCubaLI {
public:
    explicit NIRCubaLIF(std::int64_t n, const AttributeMap& initial = {});
    std::string className() const override { return "NIRCubaLIF"; }

protected:
    void attributesChanged() override;
    void runBatch(const float* input, std::int64_t steps, float* spikesOut,
                  const TraceTargets& traces) override;

private:
    AttributeId m_vTh, m_vReset;
    Eigen::ArrayXf m_vThN, m_vResetN;
};

}  // namespace spike::engine
