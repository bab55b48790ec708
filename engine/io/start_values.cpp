// The attribute values a module starts with when a user adds it from the palette or the
// quick-add list, or chooses a projection for a wire (engine::startValues, module_factory.hpp).
// The engine's own defaults reproduce the peers (Rockpool's LIF fires as many spikes per step as
// threshold crossings, a sparse projection's weight is 1), which is right for a file recorded
// from a peer but not for a circuit built from scratch: a 10 Hz Poisson input into a LIF into a
// LIF would fire at thousands of Hz. These values give a minimal circuit biologically plausible
// rates; tests/test_start_values.cpp measures them, docs/gui.md states them.
#include "engine/io/module_factory.hpp"

#include <map>
#include <sstream>

namespace spike::engine {

namespace {

const std::map<std::string, nlohmann::json>& table()
{
    static const std::map<std::string, nlohmann::json> values{
        {"LIF", {{"tau_mem", 0.02}, {"tau_syn", 0.005}, {"threshold", 1.0}, {"max_spikes_per_dt", 1}}},
        {"SparseProjection", {{"rule", "probability"}, {"p", 0.1}, {"weight", 0.5}}},
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
