// The attribute values a module starts with when a user adds it from the palette or the
// quick-add list, or chooses a projection for a wire (engine::startValues, module_factory.hpp).
// The engine's own defaults reproduce the peers (Rockpool's LIF fires as many spikes per step as
// threshold crossings, a sparse projection's weight is 1), which is right for a file recorded
// from a peer but not for a circuit built from scratch: a 10 Hz Poisson input into a LIF into a
// LIF would fire at thousands of Hz. These values give a minimal circuit biologically plausible
// rates; tests/test_start_values.cpp measures them, docs/gui.md states them.
#include "engine/io/module_factory.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <sstream>

namespace spike::engine {

namespace {

const std::map<std::string, nlohmann::json>& table()
{
    static const std::map<std::string, nlohmann::json> values{
        // Rockpool's LIF adds each step's synaptic current to the membrane unscaled, so a spike of
        // weight 1 lifts vmem about 3 thresholds with these time constants: one spike per step at
        // most keeps any input bounded (1 kHz at dt = 1 ms).
        {"LIF", {{"tau_mem", 0.02}, {"tau_syn", 0.005}, {"threshold", 1.0}, {"max_spikes_per_dt", 1}}},
        // NIR's neurons take their input as a current: a spike of weight 0.08 moves v by
        // dt * r * 0.08 (IF) or dt / tau * r * 0.08 (NIRLIF; NIRCubaLIF through i_syn), so r sets
        // the gain. Ten 10 Hz inputs give about 8 Hz (IF), 10 Hz (NIRLIF, NIRCubaLIF).
        {"IF", {{"r", 1000.0}}},
        {"NIRLIF", {{"r", 50.0}}},
        {"NIRCubaLIF", {{"r", 70.0}}},
        // Into a palette LIF: about 38 Hz (constant), 50 Hz bursts of 100 ms every 200 ms (pulses),
        // 0 to 80 Hz and back twice a second (sine).
        {"ConstantCurrent", {{"amplitude", 0.015}}},
        {"PulseTrain", {{"amplitude", 0.02}, {"baseline", 0.0}, {"onset", 0.01}, {"duration", 0.1}, {"period", 0.2}}},
        {"SineCurrent", {{"amplitude", 0.015}, {"offset", 0.015}, {"frequency", 2.0}}},
        // Ten sources per target whatever the sizes (fewer when the source has fewer channels), each
        // spike lifting a palette LIF by about a quarter of its threshold: 10 Hz Poisson input gives
        // about 10 Hz in a first LIF layer and 10 to 25 Hz in a second (tests/test_start_values.cpp).
        {"SparseProjection", {{"rule", "in_degree"}, {"in_degree", 10}, {"weight", 0.08}}},
    };
    return values;
}

}  // namespace

const nlohmann::json& startValues(const std::string& type)
{
    static const nlohmann::json none = nlohmann::json::object();
    const auto it = table().find(type);
    return it == table().end() ? none : it->second;
}

nlohmann::json startValues(const std::string& type, const nlohmann::json& config)
{
    nlohmann::json values = startValues(type);
    // A sparse projection cannot draw more distinct sources per target than the source has.
    if (type == "SparseProjection" && values.contains("in_degree") && config.is_object() &&
        config.contains("shape") && config.at("shape").is_array() && !config.at("shape").empty() &&
        config.at("shape").front().is_number_integer()) {
        const std::int64_t sources = config.at("shape").front().get<std::int64_t>();
        values["in_degree"] = std::max<std::int64_t>(1, std::min<std::int64_t>(values["in_degree"].get<std::int64_t>(), sources));
    }
    return values;
}

std::string startValuesText(const std::string& type)
{
    const nlohmann::json& values = startValues(type);
    if (values.empty()) {
        return {};
    }
    std::ostringstream os;
    os << "Starts with ";
    bool first = true;
    for (const auto& [name, value] : values.items()) {
        os << (first ? "" : ", ") << name << " = " << (value.is_string() ? value.get<std::string>() : value.dump());
        first = false;
    }
    os << ".";
    return os.str();
}

}  // namespace spike::engine
