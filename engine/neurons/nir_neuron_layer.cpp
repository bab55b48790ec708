// NirNeuronLayer: what the NIR neuron types share. See nir_neuron_layer.hpp.
#include "engine/neurons/nir_neuron_layer.hpp"

#include <cmath>

namespace spike::engine {

const std::vector<std::string>& NirNeuronLayer::discretisations()
{
    static const std::vector<std::string> names{"euler", "exact", "impulse"};
    return names;
}

NirNeuronLayer::NirNeuronLayer(const std::string& type, std::int64_t n, bool spikingOutput)
    : NeuronLayer({n}, false, spikingOutput)
{
    if (n <= 0) {
        throw Error(type + ": size N = " + std::to_string(n) +
                    " is invalid; expected at least one neuron");
    }
}

nlohmann::json NirNeuronLayer::config() const
{
    return {{"shape", {sizeOut()}}};
}

std::string NirNeuronLayer::extraRepr() const
{
    std::string text = "shape=(" + std::to_string(sizeOut()) + ",)";
    if (m_discretisation.valid()) {
        text += ", discretisation=" + enumValue(m_discretisation);
    }
    return text;
}

AttributeBuilder NirNeuronLayer::perNeuronParameter(std::string name, float initial) const
{
    const std::int64_t n = sizeOut();
    std::vector<Shape> shapes{Shape{n}, Shape{}};
    if (n != 1) {
        shapes.push_back(Shape{1});
    }
    return std::move(parameter(std::move(name)).shapes(std::move(shapes)).initConstant(initial));
}

AttributeBuilder NirNeuronLayer::membraneState() const
{
    return std::move(stateVariable("v").family("membrane").role(Role::Membrane)
                         .shapes({Shape{sizeOut()}}).units("").initConstant(0.0F)
                         .doc("Membrane potential (starts at 0, as in NIR's reference simulation)"));
}

AttributeBuilder NirNeuronLayer::thresholdParameter() const
{
    return std::move(perNeuronParameter("v_threshold", 1.0F).family("thresholds")
                         .role(Role::Threshold).units("")
                         .doc("Firing threshold: a spike when v > v_threshold"));
}

AttributeBuilder NirNeuronLayer::resetParameter() const
{
    return std::move(perNeuronParameter("v_reset", 0.0F).family("potentials").units("")
                         .doc("Potential v is set to in the step it spikes"));
}

void NirNeuronLayer::addDiscretisation()
{
    m_discretisation = addAttribute(
        simulationParameter("discretisation").choices(discretisations()).initEnum("euler")
            .doc("euler: one forward-Euler step of dt (NIR's reference); exact: the exact "
                 "solution over dt with the input held; impulse: the exact decay over dt, then "
                 "the step's input as one impulse of area dt x (Rockpool's ExpSynTorch for an "
                 "LI it exported)"));
}

NirNeuronLayer::Scheme NirNeuronLayer::scheme() const
{
    if (!m_discretisation.valid()) {
        return Scheme::Euler;
    }
    const std::string& name = enumValue(m_discretisation);
    return name == "exact" ? Scheme::Exact : name == "impulse" ? Scheme::Impulse : Scheme::Euler;
}

const std::string& NirNeuronLayer::nameOf(AttributeId id) const
{
    return attributes()[static_cast<std::size_t>(id.index)].spec->name;
}

const Tensor& NirNeuronLayer::proposedTensor(const Lookup& proposed, AttributeId id) const
{
    return std::get<Tensor>(proposed(nameOf(id)));
}

Status NirNeuronLayer::checkFinite(const Lookup& proposed, AttributeId dt, AttributeId named,
                                   bool divide) const
{
    const float step = proposedTensor(proposed, dt)[0];
    const Tensor& values = proposedTensor(proposed, named);
    for (std::int64_t k = 0; k < values.numel(); ++k) {
        const float product = divide ? step / values[k] : step * values[k];
        if (!std::isfinite(product)) {
            return Status::failure(
                where() + ": attribute '" + nameOf(named) + "': " + number(values[k]) +
                (values.numel() > 1 ? " at flat index " + std::to_string(k) : "") + " gives dt " +
                (divide ? "/ " : "* ") + nameOf(named) + " = " + number(product) + " with dt = " +
                number(step) + " [s], which float32 cannot hold");
        }
    }
    return Status::success();
}

Eigen::ArrayXf NirNeuronLayer::perNeuron(AttributeId id) const
{
    Eigen::ArrayXf out;
    expandTo(value(id), sizeOut(), 1, out);
    return out;
}

}  // namespace spike::engine
