// Shared by the tests that build small spiking circuits as model-format JSON and measure their
// rates (test_start_values, test_network_journey, test_network_journey_gui): a Network document
// of given nodes and connections, and a population's mean rate from a recording.
#pragma once

#include "engine/core/module.hpp"

#include <nlohmann/json.hpp>

#include <numeric>
#include <string>

namespace spike::tests {

/// A model-format document whose root Network (no external ports) has these children and
/// connections.
inline nlohmann::json circuitDocument(const nlohmann::json& children, const nlohmann::json& connections)
{
    return {{"format", "spikestudio.model"},
            {"version", 1},
            {"model",
             {{"type", "Network"},
              {"config", {{"input_size", 0}, {"output_size", 0}}},
              {"children", children},
              {"connections", connections}}}};
}

/// Mean rate [Hz] per neuron of the recorded `path`.spikes over `steps` steps of `dt` seconds.
inline double meanRate(const engine::EvolveResult& result, const std::string& path, std::int64_t steps,
                       double dt = 1e-3)
{
    const engine::Tensor& spikes = result.record.at(path).at("spikes").data;
    const double total = std::accumulate(spikes.data(), spikes.data() + spikes.numel(), 0.0);
    return total / static_cast<double>(spikes.shape()[spikes.shape().rank() - 1]) /
           (static_cast<double>(steps) * dt);
}

}  // namespace spike::tests
