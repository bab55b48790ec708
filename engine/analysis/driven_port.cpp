#include "engine/analysis/driven_port.hpp"

#include "engine/equations/model.hpp"
#include "engine/equations/units.hpp"
#include "engine/neurons/equation_neuron.hpp"

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

std::string inputPortUnits(const Module& module, const std::string& port)
{
    const auto* eq = dynamic_cast<const EquationNeuron*>(&module);
    if (eq == nullptr) {
        return {};
    }
    const equations::EquationModel& model = eq->model();
    const equations::Declaration* declared = model.parameter(port);
    if (declared == nullptr) {
        declared = model.state(port);
    }
    if (declared == nullptr) {
        return {};
    }
    const std::string name = equations::dimensionName(declared->dim);
    return name == "1" ? std::string() : name;
}

}  // namespace spike::engine
