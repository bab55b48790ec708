// CUBALIF: current-based leaky integrate-and-fire neurons with separate exponential excitatory
// and inhibitory currents and an absolute refractory period, the neuron of Brian2's CUBA example
// (Vogels & Abbott 2005; the benchmark Brian2 and NEST use).
//
//     dv/dt     = (i_exc + i_inh - (v - v_rest)) / tau_mem     (v held while refractory)
//     di_exc/dt = -i_exc / tau_exc,   di_inh/dt = -i_inh / tau_inh
//     spike when v > v_th: v = v_reset, refractory for refractory_time
//
// Shape: sizeIn = 2N, sizeOut = N. The flat input row is [exc (N) | inh (N)]: channel j < N jumps
// i_exc of neuron j, channel N + j jumps i_inh of neuron j, by the value given [mV] (Brian2's
// on_pre "ge += we" as our networks wire it; inhibitory weights are negative). Ports: "exc"
// (0, N) and "inh" (N, N) in, "spikes" out.
//
// Per time step t, per neuron, in the order the code executes them (float32 throughout, no fused
// multiply-add; the propagators are computed in double from the float32 parameters and rounded
// to float32 once per parameter change, see kernels/lif_math.hpp cubaPropagators()):
//
//     ie     = i_exc + x_exc[t],  ii = i_inh + x_inh[t]
//     held   = refrac > 0
//     v_new  = v                                                              where held
//            = ((v_rest + (v - v_rest) pMem) + ie pMemExc) + ii pMemInh         otherwise
//     i_exc  = ie pExc,           i_inh = ii pInh
//     z      = 1 where not held and v_new > v_th, else 0
//     v      = v_reset where z, else v_new
//     refrac = max(R - 1, 0) where z, else refrac - 1 where held, else 0
//
// with pMem = exp(-dt / tau_mem), pExc = exp(-dt / tau_exc), pInh = exp(-dt / tau_inh),
// pMemExc = tau_exc / (tau_exc - tau_mem) (pExc - pMem) ((dt / tau_mem) pMem when equal), pMemInh
// likewise, and R = refractory_time / dt, which must be a whole number of steps (up to float32
// rounding); any other ratio is refused with a message naming both values. The refractory period
// counts from the start of the spike step, as in Brian2: the membrane stays at v_reset for R steps
// counting the spike step (R = 0 and R = 1 both mean no hold).
//
// States start at v = v_rest, i_exc = i_inh = 0, refrac = 0; until the first evolution a v still
// at rest follows changes of v_rest, a v set by hand does not. Recordable: v, i_exc, i_inh, refrac
// and spikes, each after the step. Thread: owned by whichever thread evolves it; evolve()
// allocates per call, never per step.
#pragma once

#include "engine/neurons/neuron_layer.hpp"

#include <Eigen/Core>

namespace spike::engine {

/// CUBA LIF population (Brian2's CUBA benchmark neuron), excitatory and inhibitory inputs.
class CUBALIF : public NeuronLayer {
public:
    /// Builds a population of n > 0 neurons (2n input channels: n excitatory, then n
    /// inhibitory). `initial` overrides initial attribute values (validated; throws Error naming
    /// the attribute).
    explicit CUBALIF(std::int64_t n, const AttributeMap& initial = {});

    std::string className() const override { return "CUBALIF"; }
    nlohmann::json config() const override;
    std::string extraRepr() const override;
    /// "exc" (channels 0 .. N-1) and "inh" (channels N .. 2N-1), both spiking.
    std::vector<PortSpec> inputPorts() const override;

    std::int64_t nNeurons() const { return sizeOut(); }

    /// Its device twin (cuba_lif_device.cpp): kernels::cubaStepsCuda.
    std::unique_ptr<DeviceNeuron> makeDeviceNeuron() override;

protected:
    Status validateChange(const Lookup& proposed) const override;
    void attributesChanged() override;
    std::vector<CarriedState> carriedStates() override;
    /// v, i_exc, i_inh and refrac, each (N,).
    std::vector<Trace> traces() const override;
    void runBatch(const float* input, std::int64_t steps, float* spikesOut,
                  const TraceTargets& traces) override;
    /// Always: every neuron is independent (no recurrence, no noise).
    bool runsInRanges() const override;
    /// Each neuron's step zeroes its two input values after reading them (consumingInput()).
    bool canConsumeInput() const override { return true; }
    void runRange(const float* input, std::int64_t steps, float* spikesOut, const TraceTargets& traces,
                  std::int64_t begin, std::int64_t end) override;

private:
    void registerAttributes();
    /// Name of a registered attribute.
    const std::string& nameOf(AttributeId id) const;
    /// refractory_time / dt per element as whole steps; a failure names refractory_time, both
    /// values and their ratio.
    Status refractorySteps(const Tensor& time, float dt, Tensor& steps) const;

    AttributeId m_tauMem, m_tauExc, m_tauInh, m_vRest, m_vReset, m_vTh, m_refractoryTime, m_dt;
    AttributeId m_vState, m_iExcState, m_iInhState, m_refrac;

    // Per-neuron caches expanded from scalar-or-per-neuron attributes (refreshed on change).
    Eigen::ArrayXf m_pMemN, m_pExcN, m_pInhN, m_pMemExcN, m_pMemInhN;
    Eigen::ArrayXf m_vRestN, m_vThN, m_vResetN, m_refracStepsN;
    bool m_uniform = false;  ///< all neurons share every parameter (element 0 of each cache)
    Tensor m_restV;          ///< v_rest as (N,) when last applied: v equal to it is "at rest"

    // Working state of one batch element during evolve (sized per call by NeuronLayer).
    Eigen::ArrayXf m_v, m_iExc, m_iInh, m_r;
};

}  // namespace spike::engine
