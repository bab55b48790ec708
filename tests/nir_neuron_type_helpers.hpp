// Shared by the tests of NIR's neuron types (test_nir_neurons, test_nir_neurons_registry): the
// type list, what each type has (spikes, a leak, a synaptic current), building one through the
// factory, random parameters that make it fire now and then, and "nothing changed" snapshots.
#pragma once

#include "tests/neuron_test_helpers.hpp"
#include "engine/io/module_factory.hpp"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace spike::tests::nir_neurons {

using engine::AttributeMap;
using engine::AttributeValue;
using engine::Error;
using engine::Module;
using engine::Random;
using engine::Shape;
using engine::Status;
using engine::Tensor;
using engine::createModule;

inline const std::vector<std::string> kTypes{"LI", "Integrator", "IF", "NIRLIF", "NIRCubaLIF", "NIRCubaLI"};

inline bool spiking(const std::string& type)
{
    return type == "IF" || type == "NIRLIF" || type == "NIRCubaLIF";
}

inline bool leaky(const std::string& type)
{
    return type == "LI" || type == "NIRLIF" || type == "NIRCubaLIF" || type == "NIRCubaLI";
}

/// The types with a synaptic current i_syn.
inline bool cuba(const std::string& type)
{
    return type == "NIRCubaLIF" || type == "NIRCubaLI";
}

/// A type built through the factory with `n` neurons and `values` set (asserted to succeed).
inline std::unique_ptr<Module> build(const std::string& type, std::int64_t n, const AttributeMap& values = {})
{
    auto m = createModule(type, {{"shape", {n}}});
    const Status s = m->setAttributes({{"", values}});
    if (!s.ok) {
        throw Error(s.message);
    }
    return m;
}

/// Random per-neuron parameters that make each type cross its threshold now and then under
/// inputs in [-0.5, 2.5), with one parameter given as a scalar (spread over the neurons).
inline AttributeMap randomParameters(const std::string& type, std::int64_t n, Random& rng)
{
    const Shape s{n};
    AttributeMap p;
    if (type == "LI" || type == "NIRLIF") {
        p["tau"] = randomTensor(rng, s, 0.005, 0.03);
        p["r"] = randomTensor(rng, s, 0.8, 2.0);
        p["v_leak"] = randomTensor(rng, s, -0.2, 0.2);
    } else if (cuba(type)) {
        p["tau_syn"] = randomTensor(rng, s, 0.002, 0.01);
        p["tau_mem"] = randomTensor(rng, s, 0.005, 0.03);
        p["r"] = randomTensor(rng, s, 0.8, 2.0);
        p["v_leak"] = randomTensor(rng, s, -0.2, 0.2);
        p["w_in"] = randomTensor(rng, s, 0.5, 1.5);
    } else {
        p["r"] = randomTensor(rng, s, 20.0, 60.0);
    }
    if (spiking(type)) {
        p["v_threshold"] = randomTensor(rng, s, 0.8, 1.2);
        p["v_reset"] = Tensor::scalar(-0.1F);
    }
    p["dt"] = Tensor::scalar(1e-3F);
    return p;
}

/// The value of attribute `name` of neuron j, spread from a scalar when it is one, as double.
inline double at(const Module& m, const std::string& name, std::int64_t j)
{
    const Tensor& t = m.tensor(name);
    return t.numel() == 1 ? t[0] : t[j];
}

/// Every attribute value of `m` (the registry's view), for "nothing changed" checks.
inline std::map<std::string, AttributeValue> snapshot(const Module& m)
{
    std::map<std::string, AttributeValue> out;
    for (const auto& view : m.attributes()) {
        out.emplace(view.spec->name, *view.value);
    }
    return out;
}

inline bool sameValues(const std::map<std::string, AttributeValue>& a,
                const std::map<std::string, AttributeValue>& b)
{
    for (const auto& [name, value] : a) {
        const AttributeValue& other = b.at(name);
        if (value.index() != other.index()) {
            return false;
        }
        if (const auto* t = std::get_if<Tensor>(&value)) {
            if (!t->identical(std::get<Tensor>(other))) {
                return false;
            }
        } else if (std::get<std::string>(value) != std::get<std::string>(other)) {
            return false;
        }
    }
    return a.size() == b.size();
}

}  // namespace spike::tests::nir_neurons
