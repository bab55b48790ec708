#include "engine/analysis/driven_port.hpp"

#include <vector>

namespace spike::engine {

std::optional<PortSpec> drivenInputPort(const Module& module)
{
    const std::vector<PortSpec> ports = module.inputPorts();
    const auto usable = [](const PortSpec& p) { return p.size > 0 && p.name != "unused"; };
    for (const char* name : {"in", "exc"}) {
        for (const PortSpec& p : ports) {
            if (p.name == name && usable(p)) {
                return p;
            }
        }
    }
    for (const bool events : {false, true}) {
        for (const PortSpec& p : ports) {
            if (p.spiking == events && usable(p)) {
                return p;
            }
        }
    }
    return std::nullopt;
}

}  // namespace spike::engine
