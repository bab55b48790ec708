// NirNeuronLayer: base of the neuron types NIR (the Neuromorphic Intermediate Representation,
// neuroir.org) defines in continuous time: LI, NIRLIF, NIRCubaLIF (nir_leaky.hpp) and Integrator,
// IF (nir_integrating.hpp). docs/nir.md states their equations and discretisations.
//
// Owns what the five share: shape (N,) with input channel j driving neuron j (no spiking input),
// the config {"shape": [N]}, parameters declared per neuron (canonical shape (N,), which the
// defaults fill; a scalar () or (1,) is accepted and spread over the neurons when the per-neuron
// caches are built), the membrane State v (Role::Membrane, starting at 0 as NIR's reference
// simulation starts every state, not at v_leak), the discretisation choice of the types with a
// leak ("euler" default, "exact"; may change while running) and the check that the float32
// products the steps use (dt / tau, dt * r) stay finite. No CUDA twin: under the CUDA executor
// these modules run on the host through their NodeRunner (NeuronLayer::makeRunner()). Thread:
// owned by whichever thread evolves it; evolve() allocates per call, never per step.
#pragma once

#include "engine/neurons/neuron_layer.hpp"

#include <Eigen/Core>

#include <initializer_list>
#include <string>
#include <vector>

namespace spike::engine {

/// Shared base of the NIR neuron types; see the file comment.
class NirNeuronLayer : public NeuronLayer {
public:
    /// The discretisation names, as the discretisation attribute accepts them ("euler" first,
    /// the default, then "exact" and "impulse"; nir_leaky.hpp states each step).
    static const std::vector<std::string>& discretisations();

    /// {"shape": [N]}.
    nlohmann::json config() const override;
    /// "shape=(N,)", plus ", discretisation=euler" for the types with a leak.
    std::string extraRepr() const override;

    std::int64_t nNeurons() const { return sizeOut(); }

protected:
    /// A population of n > 0 neurons of type `type` (named in the size error, thrown as Error).
    NirNeuronLayer(const std::string& type, std::int64_t n, bool spikingOutput);

    /// A Parameter of shape (N,) (or a scalar spread over the neurons) starting at `initial`
    /// everywhere.
    AttributeBuilder perNeuronParameter(std::string name, float initial) const;
    /// The membrane State "v" (N,) [V], Role::Membrane, starting at 0.
    AttributeBuilder membraneState() const;
    /// The per-neuron Parameter "v_threshold" [V] (Role::Threshold, default 1): a spike when
    /// v > v_threshold.
    AttributeBuilder thresholdParameter() const;
    /// The per-neuron Parameter "v_reset" [V] (default 0): v in the step it spikes.
    AttributeBuilder resetParameter() const;
    /// How a leaky type steps: the value of its discretisation attribute.
    enum class Scheme { Euler, Exact, Impulse };

    /// Registers the "discretisation" SimulationParameter (euler, exact, impulse; live).
    void addDiscretisation();
    /// The current discretisation (Euler for types without the attribute).
    Scheme scheme() const;

    /// Name of a registered attribute.
    const std::string& nameOf(AttributeId id) const;
    /// The proposed value of a numeric attribute.
    const Tensor& proposedTensor(const Lookup& proposed, AttributeId id) const;
    /// Fails, naming attribute `named`, when dt / named (`divide`) or dt * named is not finite
    /// in float32 for some neuron (a tau of 1e-45 [s]), so the steps never meet an infinity.
    Status checkFinite(const Lookup& proposed, AttributeId dt, AttributeId named,
                       bool divide) const;

    /// A parameter's value spread over the neurons.
    Eigen::ArrayXf perNeuron(AttributeId id) const;

private:
    AttributeId m_discretisation;
};

}  // namespace spike::engine
