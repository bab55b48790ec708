// equations_models: the three networks of bench/equations, built with SpikeStudio's C++ API or
// derived from a model file, and the per-neuron drives both sides share.
//
//   Izhikevich  "RS" EquationNeuron(8000) and "FS" EquationNeuron(2000), the library's
//               Izhikevich equations with v an input state (wires add to v at the start of a
//               step, Brian2's on_pre 'v += w') and I a per-neuron parameter (the drive):
//               RS a 0.02, d 8 mV; FS a 0.1, d 2 mV; b 0.2, c -65 mV; euler, dt 0.1 ms.
//               Four SparseProjections (rule "probability", autapses allowed, delayed one step
//               as Brian2's default schedule delivers them): RS->RS, RS->FS weight we,
//               FS->RS, FS->FS weight wi [V].
//   HH          the library's HodgkinHuxley(1000) (exponential_euler, dt 0.01 ms), its input
//               port I fed by a ConstantCurrent with one amplitude per neuron [A/m^2].
//   CUBA        bench/cuba/cuba_network_4000.json, and the same document with both CUBALIF
//               populations replaced by an EquationNeuron running CUBA's neuron as equations
//               (SI: v in volts, weights in volts), the same synapses (same projection seeds).
//
// Drives are drawn from a seeded SplitMix64, rounded to float32 and written to a text file (one
// SI value per line) for brian2_equations.py, so both sides use the same numbers.
//
// Header-only, one translation unit includes it. Owns nothing global; thread: main's.
#pragma once

#include "bench/bench_common.hpp"
#include "engine/network/network.hpp"
#include "engine/network/projections.hpp"
#include "engine/neurons/equation_neuron.hpp"
#include "engine/neurons/model_library.hpp"
#include "engine/sources/sources.hpp"
#include "engine/tensor/tensor.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace spike::bench::equations {

constexpr std::int64_t kRegular = 8000;     ///< regular-spiking Izhikevich neurons
constexpr std::int64_t kFast = 2000;        ///< fast-spiking Izhikevich neurons
constexpr double kIzhikevichDt = 1e-4;      ///< [s]
constexpr std::int64_t kHodgkinHuxley = 1000;
constexpr double kHodgkinHuxleyDt = 1e-5;   ///< [s]
constexpr double kCubaDt = 1e-4;            ///< [s]

/// The library's Izhikevich equations with v an input state and I a per-neuron parameter.
inline const char* izhikevichText()
{
    return "dv/dt = (0.04*v**2/mV + 5*v + 140*mV - u + I) / ms : volt (input, membrane)\n"
           "du/dt = a*(b*v - u) / ms : volt\n"
           "I = 0*mV : volt  # constant drive, per neuron\n"
           "a = 0.02 : 1\n"
           "b = 0.2 : 1\n"
           "c = -65*mV : volt\n"
           "d = 8*mV : volt\n"
           "v(0) = -65*mV\n"
           "u(0) = b*v\n"
           "threshold: v >= 30*mV\n"
           "reset: v = c; u += d\n"
           "method: euler\n";
}

/// CUBA's neuron (Brian2's examples/CUBA.py) as equations, SI units.
inline const char* cubaText()
{
    return "dv/dt = (ge + gi - (v - El)) / taum : volt (unless refractory)\n"
           "dge/dt = -ge / taue : volt (input)\n"
           "dgi/dt = -gi / taui : volt (input)\n"
           "taum = 20*ms : second\n"
           "taue = 5*ms : second\n"
           "taui = 10*ms : second\n"
           "Vt = -50*mV : volt\n"
           "Vr = -60*mV : volt\n"
           "El = -49*mV : volt\n"
           "v(0) = Vr\n"
           "ge(0) = 0*mV\n"
           "gi(0) = 0*mV\n"
           "threshold: v > Vt\n"
           "reset: v = Vr\n"
           "refractory: 5*ms\n"
           "method: exact\n";
}

/// n values uniform in [lo, hi), float32, from SplitMix64(seed).
inline std::vector<float> uniformDrive(std::int64_t n, double lo, double hi, std::uint64_t seed)
{
    SplitMix64 rng(seed * 0x9E3779B97F4A7C15ULL + 0x51ED2701ULL);
    std::vector<float> out(static_cast<std::size_t>(n));
    for (float& x : out) {
        const double u = static_cast<double>(rng.next() >> 11U) * 0x1.0p-53;  // [0, 1)
        x = static_cast<float>(lo + u * (hi - lo));
    }
    return out;
}

/// Writes one value a line with enough digits to read back the same float32. Throws on failure.
inline void writeDrive(const std::string& path, const std::vector<float>& values)
{
    std::ofstream out(path);
    for (float x : values) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.9g\n", static_cast<double>(x));
        out << buf;
    }
    if (!out) {
        throw engine::Error("cannot write " + path);
    }
}

inline engine::Tensor vectorTensor(const float* data, std::int64_t n)
{
    engine::Tensor t(engine::Shape{n});
    for (std::int64_t i = 0; i < n; ++i) {
        t[i] = data[i];
    }
    return t;
}

/// Weights and connectivity of the Izhikevich network.
struct IzhikevichCoupling {
    double p = 0.01;      ///< connection probability
    double we = 0.5e-3;   ///< [V] added to v by a regular-spiking neuron's spike
    double wi = -1.0e-3;  ///< [V] added to v by a fast-spiking neuron's spike
};

/// The Izhikevich network; `drive` holds kRegular + kFast values [V] (RS first).
inline std::unique_ptr<engine::Network> buildIzhikevich(const std::vector<float>& drive,
                                                        const IzhikevichCoupling& c,
                                                        std::uint64_t seed)
{
    using engine::Tensor;
    auto net = std::make_unique<engine::Network>(0, 0);
    const float* rs = drive.data();
    const float* fs = drive.data() + kRegular;
    net->addNode("RS", std::make_unique<engine::EquationNeuron>(
                           engine::EquationNeuron::kCustomType, izhikevichText(), kRegular,
                           engine::AttributeMap{{"I", vectorTensor(rs, kRegular)},
                                                {"dt", Tensor::scalar(static_cast<float>(kIzhikevichDt))}}));
    net->addNode("FS", std::make_unique<engine::EquationNeuron>(
                           engine::EquationNeuron::kCustomType, izhikevichText(), kFast,
                           engine::AttributeMap{{"I", vectorTensor(fs, kFast)},
                                                {"a", Tensor::scalar(0.1F)},
                                                {"d", Tensor::scalar(2e-3F)},
                                                {"dt", Tensor::scalar(static_cast<float>(kIzhikevichDt))}}));
    struct Edge {
        const char* name;
        const char* from;
        const char* to;
        std::int64_t nSource;
        std::int64_t nTarget;
        double weight;
    };
    const Edge edges[] = {{"RS_RS", "RS.spikes", "RS.v", kRegular, kRegular, c.we},
                          {"RS_FS", "RS.spikes", "FS.v", kRegular, kFast, c.we},
                          {"FS_RS", "FS.spikes", "RS.v", kFast, kRegular, c.wi},
                          {"FS_FS", "FS.spikes", "FS.v", kFast, kFast, c.wi}};
    float k = 0.0F;
    for (const Edge& e : edges) {
        auto proj = std::make_unique<engine::SparseProjection>(
            e.nSource, e.nTarget,
            engine::AttributeMap{{"rule", std::string("probability")},
                                 {"p", Tensor::scalar(static_cast<float>(c.p))},
                                 {"weight", Tensor::scalar(static_cast<float>(e.weight))},
                                 {"delay", Tensor::scalar(0.0F)},
                                 {"autapses", Tensor::scalar(1.0F)},
                                 {"seed", Tensor::scalar(static_cast<float>(seed % 1000000U) * 4.0F + k)}});
        net->connect(e.from, e.to, std::move(proj), e.name, true);
        k += 1.0F;
    }
    return net;
}

/// The library's HodgkinHuxley population driven by a ConstantCurrent; `drive` [A/m^2].
inline std::unique_ptr<engine::Network> buildHodgkinHuxley(const std::vector<float>& drive)
{
    using engine::Tensor;
    const auto n = static_cast<std::int64_t>(drive.size());
    const engine::LibraryModel* lib = engine::findLibraryModel("HodgkinHuxley");
    if (lib == nullptr) {
        throw engine::Error("the model library has no HodgkinHuxley");
    }
    auto net = std::make_unique<engine::Network>(0, 0);
    const Tensor dt = Tensor::scalar(static_cast<float>(kHodgkinHuxleyDt));
    net->addNode("drive", std::make_unique<engine::ConstantCurrent>(
                              n, engine::AttributeMap{{"amplitude", vectorTensor(drive.data(), n)},
                                                      {"dt", dt}}));
    net->addNode("HH", std::make_unique<engine::EquationNeuron>("HodgkinHuxley", lib->model.text, n,
                                                                engine::AttributeMap{{"dt", dt}}));
    net->connect("drive", "HH.I");
    return net;
}

/// The CUBA model document with both CUBALIF populations replaced by EquationNeuron(cubaText()):
/// initial v converted from mV to V, ports exc/inh renamed ge/gi, weights from mV to V.
/// Throws engine::Error when the document is not the CUBALIF network it expects.
inline nlohmann::json cubaAsEquations(nlohmann::json doc)
{
    auto& model = doc.at("model");
    for (auto& child : model.at("children")) {
        if (child.at("type") != "CUBALIF") {
            throw engine::Error("expected CUBALIF populations, found " + child.at("type").dump());
        }
        const auto& a = child.at("attributes");
        const auto& v = a.at("v");
        std::vector<double> volts;
        for (const auto& x : v.is_object() ? v.at("data") : v) {
            volts.push_back(x.get<double>() * 1e-3);
        }
        child["type"] = engine::EquationNeuron::kCustomType;
        child["config"]["equations"] = cubaText();
        child["attributes"] = {{"dt", a.at("dt")}, {"v", volts}};
    }
    for (auto& c : model.at("connections")) {
        std::string to = c.at("to").get<std::string>();
        const auto dot = to.find('.');
        const std::string port = dot == std::string::npos ? "" : to.substr(dot + 1);
        if (port != "exc" && port != "inh") {
            throw engine::Error("expected a connection to .exc or .inh, found " + to);
        }
        c["to"] = to.substr(0, dot) + (port == "exc" ? ".ge" : ".gi");
        auto& w = c.at("projection").at("attributes").at("weight");
        w = w.get<double>() * 1e-3;
    }
    doc["description"] = "bench/equations: " + doc.value("description", std::string()) +
                         "; both populations as EquationNeuron (CUBA's neuron as equations, SI)";
    return doc;
}

/// resources/examples/lifrefrac_as_equations.json cut to one of its two neuron nodes (`keep`:
/// "refrac", the built-in LIFRefrac, or "equations", the same neuron as equations) with `n`
/// neurons, all driven by the same current step of `amplitude` per step from 20 ms.
inline nlohmann::json lifRefracVariant(nlohmann::json doc, const std::string& keep, std::int64_t n, double amplitude)
{
    auto& model = doc.at("model");
    nlohmann::json children = nlohmann::json::array();
    for (auto& child : model.at("children")) {
        const std::string name = child.at("name").get<std::string>();
        if (name != "step" && name != keep) {
            continue;
        }
        child["config"]["shape"] = {n};
        if (name == "step") {
            child["attributes"]["amplitude"] = amplitude;
        }
        children.push_back(child);
    }
    model["children"] = children;
    nlohmann::json connections = nlohmann::json::array();
    for (const auto& c : model.at("connections")) {
        if (c.at("to").get<std::string>().rfind(keep + ".", 0) == 0) {
            connections.push_back(c);
        }
    }
    model["connections"] = connections;
    doc.erase("plots");
    return doc;
}

}  // namespace spike::bench::equations
