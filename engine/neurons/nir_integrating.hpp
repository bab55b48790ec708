// Integrator, IF: NIR's integrating neurons (integrator, integrate-and-fire), continuous-time
// models without a leak, discretised with step dt.
//
//     Integrator  dv/dt = r x                                   output v (not spikes)
//     IF          dv/dt = r x;  z = v > v_threshold;  v = v_reset where z
//
// Shape (N,): input channel j drives neuron j; every parameter per neuron. Per time step, per
// neuron, in the order the code executes them (float32 throughout, no fused multiply-add;
// k = dt * r is a float32 product formed when the parameters change):
//
//     v = v + k * x                                             k = dt * r
//     (IF) z = 1 where v > v_threshold (strict), else 0
//     (IF) v = v_reset where z
//
// One forward-Euler step is exact for an input held during the step, so these types have no
// discretisation attribute. States start at zero, as in NIR's reference simulation.
// Recordable: v (both), spikes (IF; Integrator outputs v on its port "out"). With constant input
// x > 0 from v = v_reset, IF fires every floor((v_threshold - v_reset) / (dt r x)) + 1 steps
// (the strict > needs one step more when the ratio is a whole number). No CUDA twin: the CUDA
// executor runs them on the host. Thread: owned by whichever thread evolves it; evolve()
// allocates per call, never per step.
#pragma once

#include "engine/neurons/nir_neuron_layer.hpp"

namespace spike::engine {

/// NIR's integrator: a non-spiking membrane summing r x dt, whose output is v.
class Integrator : public NirNeuronLayer {
public:
    /// A population of n > 0 neurons; `initial` overrides initial attribute values (validated;
    /// throws Error naming the attribute).
    explicit Integrator(std::int64_t n, const AttributeMap& initial = {});
    std::string className() const override { return "Integrator"; }

protected:
    /// The membrane of Integrator and IF: r, dt, v.
    Integrator(const std::string& type, std::int64_t n, bool spiking);
    void registerMembrane();
    Status validateChange(const Lookup& proposed) const override;
    void attributesChanged() override;
    std::vector<CarriedState> carriedStates() override;
    /// v (N,).
    std::vector<Trace> traces() const override;
    void runBatch(const float* input, std::int64_t steps, float* out,
                  const TraceTargets& traces) override;
    /// v = v + k * x for every neuron.
    void stepMembrane(const float* x);

    AttributeId m_r, m_dt, m_v;
    Eigen::ArrayXf m_k;      ///< dt * r per neuron
    Eigen::ArrayXf m_vWork;  ///< v of the batch element being run
};

/// NIR's integrate-and-fire neuron: the integrator with a threshold and a reset.
class IF : public Integrator {
public:
    explicit IF(std::int64_t n, const AttributeMap& initial = {});
    std::string className() const override { return "IF"; }

protected:
    void attributesChanged() override;
    void runBatch(const float* input, std::int64_t steps, float* spikesOut,
                  const TraceTargets& traces) override;

private:
    AttributeId m_vTh, m_vReset;
    Eigen::ArrayXf m_vThN, m_vResetN;
};

}  // namespace spike::engine
