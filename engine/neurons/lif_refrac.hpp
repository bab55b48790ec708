// LIFRefrac: leaky integrate-and-fire neurons with an exponential synapse and an absolute
// refractory period, Norse LIFRefracCell (feed-forward) semantics.
//
// Shape (N,): input channel j is the current jump of neuron j. Per time step, per neuron, in the
// order the code executes them (float32 throughout, no fused multiply-add; dt * tau_mem_inv and
// dt * tau_syn_inv are float32 products formed when the parameters change):
//
//     i_jump = i + x[t]
//     v_dec  = v + (dt * tau_mem_inv) * ((v_leak - v) + i_jump)
//     i      = i_jump - (dt * tau_syn_inv) * i_jump
//     z      = 1 where v_dec - v_th > 0 and not rho > 0, else 0
//     v      = v (unchanged) where rho > 0, else v_reset where v_dec - v_th > 0, else v_dec
//     rho    = rho_reset where z, else max(rho - 1, 0) where rho > 0, else rho
//
// Parametrisations (the parametrisation attribute chooses which three are settable; the other
// three are derived and stay readable):
//     rates  tau_syn_inv, tau_mem_inv [1/s], rho_reset [steps]:
//            tau_syn = 1 / tau_syn_inv, tau_mem = 1 / tau_mem_inv, refractory_time = rho_reset * dt
//     times  tau_syn, tau_mem, refractory_time [s]:
//            tau_syn_inv = 1 / tau_syn, tau_mem_inv = 1 / tau_mem, rho_reset = refractory_time / dt,
//            which must be a whole number of steps (up to float32 rounding of the two values);
//            any other ratio is refused with a message naming both values.
// Each reciprocal is one correctly rounded float32 division (1 / 0.01 gives exactly 100).
//
// States start at v = v_leak, i = 0, rho = 0, spikes = 0; until the first evolution a v still at
// rest follows changes of v_leak (as Norse builds its state at the first step), a v set by hand
// does not. Recordable: v, i, rho, spikes. The surrogate method and its sharpness alpha only
// matter to gradient-based trainers; they are kept so model files round-trip. Thread: owned by
// whichever thread evolves it; evolve() allocates per call, never per step.
#pragma once

#include "engine/neurons/neuron_layer.hpp"

#include <Eigen/Core>

#include <initializer_list>

namespace spike::engine {

/// Norse-compatible LIF population with an absolute refractory period.
class LIFRefrac : public NeuronLayer {
public:
    /// Parametrisation names, as accepted by the parametrisation attribute.
    static const std::vector<std::string>& parametrisations();
    /// Surrogate method names (Norse's threshold methods), as accepted by surrogate.
    static const std::vector<std::string>& surrogateMethods();

    /// Builds a population of n > 0 neurons. `initial` overrides initial attribute values
    /// (validated; throws Error naming the attribute). Set "parametrisation" to "times" in
    /// `initial` to give tau_syn, tau_mem and refractory_time instead of the rates.
    explicit LIFRefrac(std::int64_t n, const AttributeMap& initial = {});

    std::string className() const override { return "LIFRefrac"; }
    nlohmann::json config() const override;
    std::string extraRepr() const override;

    std::int64_t nNeurons() const { return sizeOut(); }

    /// Its device twin (lif_refrac_device.cpp): kernels::lifRefracStepsCuda.
    std::unique_ptr<DeviceNeuron> makeDeviceNeuron() override;

protected:
    bool derivedUnder(const AttributeSpec& spec, const Lookup& proposed) const override;
    Status validateChange(const Lookup& proposed) const override;
    void attributesChanged() override;
    std::vector<CarriedState> carriedStates() override;
    /// v, i and rho, each (N,).
    std::vector<Trace> traces() const override;
    void runBatch(const float* input, std::int64_t steps, float* spikesOut,
                  const TraceTargets& traces) override;
    /// Every neuron is independent.
    bool runsInRanges() const override;
    void runRange(const float* input, std::int64_t steps, float* spikesOut, const TraceTargets& traces,
                  std::int64_t begin, std::int64_t end) override;

private:
    using DerivedValues = std::vector<std::pair<AttributeId, Tensor>>;

    void registerAttributes();
    /// Name of a registered attribute.
    const std::string& nameOf(AttributeId id) const;
    /// Whether `spec` is one of `ids`.
    bool isOneOf(const AttributeSpec& spec, std::initializer_list<AttributeId> ids) const;
    /// The three values derived in the proposed parametrisation, each validated against its own
    /// spec; a failure names the attribute (and, for rho_reset, both refractory_time and dt).
    Status derive(const Lookup& proposed, DerivedValues& out) const;

    AttributeId m_tauSynInv, m_tauMemInv, m_tauSyn, m_tauMem;
    AttributeId m_vLeak, m_vTh, m_vReset, m_rhoReset, m_refractoryTime;
    AttributeId m_dt, m_surrogate, m_alpha, m_parametrisation;
    AttributeId m_vState, m_iState, m_rho, m_spikes;

    // Per-neuron caches expanded from scalar-or-per-neuron attributes (refreshed on change).
    Eigen::ArrayXf m_dtTauMemInvN, m_dtTauSynInvN, m_vLeakN, m_vThN, m_vResetN, m_rhoResetN;
    bool m_uniform = false;  ///< all neurons share every parameter (element 0 of each cache)
    Tensor m_restV;          ///< v_leak as (N,) when last applied: v equal to it is "at rest"

    // Working state of one batch element during evolve (sized per call by NeuronLayer).
    Eigen::ArrayXf m_v, m_i, m_r, m_s;
};

}  // namespace spike::engine
