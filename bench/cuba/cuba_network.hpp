// cuba_network: the Vogels-Abbott CUBA network of Brian2's examples/CUBA.py, built with
// SpikeStudio's C++ API, and the pieces cuba_bench needs to run and dissect it.
//
//   Network: "E" CUBALIF(3200), "I" CUBALIF(800); connections (SparseProjection, rule
//   "probability", p = 0.02, autapses allowed as in Brian2's connect(p=...) on P -> P):
//     EE  E.spikes -> E.exc  weight we      EI  E.spikes -> I.exc  weight we
//     IE  I.spikes -> E.inh  weight wi      II  I.spikes -> I.inh  weight wi
//   every connection delayed by one step (spikes of step s act on the currents at step s + 1,
//   Brian2's default schedule: groups, thresholds, synapses, resets), projection delay 0.
//   Neurons: tau_mem 20 ms, tau_exc 5 ms, tau_inh 10 ms, v_rest = El = -49 mV, v_th = -50 mV,
//   v_reset = -60 mV, refractory 5 ms, dt = 0.1 ms; v0 = Vr + u (Vt - Vr), u uniform [0, 1)
//   from a seeded SplitMix64; i_exc = i_inh = 0.
//
// Header-only, one translation unit includes it. Owns nothing global; thread: main's.
#pragma once

#include "bench/bench_common.hpp"
#include "engine/neurons/cuba_lif.hpp"
#include "engine/network/network.hpp"
#include "engine/network/projections.hpp"
#include "engine/tensor/tensor.hpp"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace spike::bench::cuba {

constexpr std::int64_t kExcitatory = 3200;
constexpr std::int64_t kInhibitory = 800;
constexpr std::int64_t kNeurons = kExcitatory + kInhibitory;
constexpr double kDt = 1e-4;               // [s]
constexpr float kTauMem = 20e-3F;          // [s]
constexpr float kTauExc = 5e-3F;           // [s]
constexpr float kTauInh = 10e-3F;          // [s]
constexpr float kVth = -50.0F;             // [mV]
constexpr float kVreset = -60.0F;          // [mV]
constexpr float kVrest = -49.0F;           // [mV] (El)
constexpr float kRefractory = 5e-3F;       // [s]
constexpr float kWe = 60.0F * 0.27F / 10.0F;   // [mV] excitatory weight
constexpr float kWi = -20.0F * 4.5F / 10.0F;   // [mV] inhibitory weight
constexpr double kP = 0.02;                // connection probability

/// One of the four connections: its name, ends, sizes and weight.
struct ConnectionSpec {
    const char* name;
    const char* from;
    const char* to;
    std::int64_t nSource;
    std::int64_t nTarget;
    float weight;
};

inline const std::array<ConnectionSpec, 4>& connectionSpecs()
{
    static const std::array<ConnectionSpec, 4> specs{{
        {"EE", "E.spikes", "E.exc", kExcitatory, kExcitatory, kWe},
        {"EI", "E.spikes", "I.exc", kExcitatory, kInhibitory, kWe},
        {"IE", "I.spikes", "E.inh", kInhibitory, kExcitatory, kWi},
        {"II", "I.spikes", "I.inh", kInhibitory, kInhibitory, kWi},
    }};
    return specs;
}

/// A CUBALIF population of n neurons with the CUBA parameters and uniform initial v.
inline std::unique_ptr<engine::CUBALIF> makePopulation(std::int64_t n, SplitMix64& rng)
{
    using engine::Tensor;
    auto pop = std::make_unique<engine::CUBALIF>(
        n, engine::AttributeMap{{"tau_mem", Tensor::scalar(kTauMem)},
                                {"tau_exc", Tensor::scalar(kTauExc)},
                                {"tau_inh", Tensor::scalar(kTauInh)},
                                {"v_rest", Tensor::scalar(kVrest)},
                                {"v_reset", Tensor::scalar(kVreset)},
                                {"v_th", Tensor::scalar(kVth)},
                                {"refractory_time", Tensor::scalar(kRefractory)},
                                {"dt", Tensor::scalar(static_cast<float>(kDt))}});
    Tensor v(engine::Shape{n});
    for (std::int64_t i = 0; i < n; ++i) {
        const double u = static_cast<double>(rng.next() >> 11U) * 0x1.0p-53;  // [0, 1)
        v[i] = static_cast<float>(kVreset + u * (kVth - kVreset));
    }
    if (const engine::Status s = pop->setAttribute("v", v); !s.ok) {
        throw engine::Error(s.message);
    }
    return pop;
}

/// The CUBA network; `withConnections` false leaves the two populations unconnected (for the
/// neuron-update part of the profile). Connection k's synapses are drawn with seed seed + k.
inline std::unique_ptr<engine::Network> buildNetwork(std::uint64_t seed, bool withConnections)
{
    using engine::Tensor;
    auto net = std::make_unique<engine::Network>(0, 0);
    SplitMix64 rng(seed * 0x2545F4914F6CDD1DULL + 17U);
    net->addNode("E", makePopulation(kExcitatory, rng));
    net->addNode("I", makePopulation(kInhibitory, rng));
    if (!withConnections) {
        return net;
    }
    float k = 0.0F;
    for (const ConnectionSpec& c : connectionSpecs()) {
        auto proj = std::make_unique<engine::SparseProjection>(
            c.nSource, c.nTarget,
            engine::AttributeMap{{"rule", std::string("probability")},
                                 {"p", Tensor::scalar(static_cast<float>(kP))},
                                 {"weight", Tensor::scalar(c.weight)},
                                 {"delay", Tensor::scalar(0.0F)},
                                 {"autapses", Tensor::scalar(1.0F)},
                                 {"seed", Tensor::scalar(static_cast<float>(seed % 1000000U) * 4.0F + k)}});
        net->connect(c.from, c.to, std::move(proj), c.name, true);
        k += 1.0F;
    }
    return net;
}

/// Out-degree of every neuron (E first, then I) over all four connections.
inline std::vector<double> outDegrees(const engine::Network& net)
{
    std::vector<double> degree(static_cast<std::size_t>(kNeurons), 0.0);
    for (const ConnectionSpec& c : connectionSpecs()) {
        const auto* proj = dynamic_cast<const engine::SparseProjection*>(net.projection(c.name));
        if (proj == nullptr) {
            continue;
        }
        const std::int64_t first = std::string(c.from).front() == 'E' ? 0 : kExcitatory;
        const auto& rows = proj->rowStart();
        for (std::int64_t i = 0; i < c.nSource; ++i) {
            degree[static_cast<std::size_t>(first + i)] +=
                static_cast<double>(rows[static_cast<std::size_t>(i + 1)] -
                                    rows[static_cast<std::size_t>(i)]);
        }
    }
    return degree;
}

/// Synapses of the network, and how many of them are autapses (i -> i within E or within I).
inline std::pair<std::int64_t, std::int64_t> synapseCounts(const engine::Network& net)
{
    std::int64_t total = 0;
    std::int64_t autapses = 0;
    for (const ConnectionSpec& c : connectionSpecs()) {
        const auto* proj = dynamic_cast<const engine::SparseProjection*>(net.projection(c.name));
        if (proj == nullptr) {
            continue;
        }
        total += proj->synapseCount();
        if (std::string(c.from).front() != std::string(c.to).front()) {
            continue;
        }
        for (std::int64_t i = 0; i < c.nSource; ++i) {
            for (auto s = proj->rowStart()[static_cast<std::size_t>(i)];
                 s < proj->rowStart()[static_cast<std::size_t>(i + 1)]; ++s) {
                autapses += proj->targets()[static_cast<std::size_t>(s)] == i ? 1 : 0;
            }
        }
    }
    return {total, autapses};
}

}  // namespace spike::bench::cuba
