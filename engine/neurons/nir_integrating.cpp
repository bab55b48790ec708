// Integrator, IF: registration, the per-neuron caches and the CPU time loops. See
// nir_integrating.hpp for the equations; the room compiles with -ffp-contract=off.
#include "engine/neurons/nir_integrating.hpp"

#include <algorithm>

namespace spike::engine {

// ---- Integrator ----------------------------------------------------------------------------

Integrator::Integrator(std::int64_t n, const AttributeMap& initial) : Integrator("Integrator", n, false)
{
    registerMembrane();
    finishRegistration(initial);
}

Integrator::Integrator(const std::string& type, std::int64_t n, bool spiking)
    : NirNeuronLayer(type, n, spiking)
{
}

void Integrator::registerMembrane()
{
    m_r = addAttribute(perNeuronParameter("r", 1.0F).family("gains")
                           .doc("Resistance: gain of the input x (unitless)"));
    m_dt = addAttribute(timeStepAttribute());
    m_v = addAttribute(membraneState());
}

Status Integrator::validateChange(const Lookup& proposed) const
{
    return checkFinite(proposed, m_dt, m_r, false);
}

void Integrator::attributesChanged()
{
    const float dt = value(m_dt)[0];
    m_k = perNeuron(m_r);
    for (Eigen::Index i = 0; i < m_k.size(); ++i) {
        m_k[i] = dt * m_k[i];
    }
}

std::vector<NeuronLayer::CarriedState> Integrator::carriedStates()
{
    return {{m_v, &m_vWork}};
}

std::vector<NeuronLayer::Trace> Integrator::traces() const
{
    return {{"v", Shape{sizeOut()}, ""}};
}

void Integrator::stepMembrane(const float* __restrict x)
{
    const std::int64_t n = sizeOut();
    float* __restrict v = m_vWork.data();
    const float* __restrict k = m_k.data();
    for (std::int64_t i = 0; i < n; ++i) {
        v[i] = v[i] + k[i] * x[i];
    }
}

void Integrator::runBatch(const float* input, std::int64_t steps, float* out,
                          const TraceTargets& traces)
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

// ---- IF ------------------------------------------------------------------------------------

IF::IF(std::int64_t n, const AttributeMap& initial) : Integrator("IF", n, true)
{
    registerMembrane();
    m_vTh = addAttribute(thresholdParameter());
    m_vReset = addAttribute(resetParameter());
    finishRegistration(initial);
}

void IF::attributesChanged()
{
    Integrator::attributesChanged();
    m_vThN = perNeuron(m_vTh);
    m_vResetN = perNeuron(m_vReset);
}

void IF::runBatch(const float* input, std::int64_t steps, float* spikesOut,
                  const TraceTargets& traces)
{
    const std::int64_t n = sizeOut();
    float* __restrict v = m_vWork.data();
    const float* __restrict vTh = m_vThN.data();
    const float* __restrict vReset = m_vResetN.data();
    for (std::int64_t t = 0; t < steps; ++t) {
        stepMembrane(input + t * n);
        float* __restrict z = spikesOut + t * n;
        for (std::int64_t i = 0; i < n; ++i) {
            const bool spike = v[i] > vTh[i];
            z[i] = spike ? 1.0F : 0.0F;
            v[i] = spike ? vReset[i] : v[i];
        }
        if (traces[0]) {
            traces[0].write(t, v, n);
        }
    }
}

}  // namespace spike::engine
