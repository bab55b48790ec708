// The element-wise NIR types; see nir_types.hpp.
#include "engine/nir/nir_types.hpp"

namespace spike::engine::nir {

const std::vector<ElementType>& elementTypes()
{
    // v_reset came with NIR 1.0 (older LIF, CubaLIF and IF reset to 0); w_in with CubaLIF's
    // input weight (1 before).
    static const std::vector<ElementType> types{
        {"LIF", "NIRLIF", {"tau", "r", "v_leak", "v_threshold", "v_reset"}, {"tau"},
         {{"v_reset", 0.0}}, true, true},
        {"CubaLIF", "NIRCubaLIF",
         {"tau_syn", "tau_mem", "r", "v_leak", "v_threshold", "v_reset", "w_in"},
         {"tau_syn", "tau_mem"}, {{"v_reset", 0.0}, {"w_in", 1.0}}, true, true},
        {"CubaLI", "NIRCubaLI", {"tau_syn", "tau_mem", "r", "v_leak", "w_in"}, {"tau_syn", "tau_mem"},
         {{"w_in", 1.0}}, true, true},
        {"LI", "LI", {"tau", "r", "v_leak"}, {"tau"}, {}, true, true},
        {"IF", "IF", {"r", "v_threshold", "v_reset"}, {}, {{"v_reset", 0.0}}, false, true},
        {"I", "Integrator", {"r"}, {}, {}, false, true},
        {"Scale", "Scale", {"scale"}, {}, {}, false, false},
        {"Threshold", "Heaviside", {"threshold"}, {}, {}, false, false},
        {"Delay", "Delay", {"delay"}, {}, {}, false, true},
    };
    return types;
}

const ElementType* elementTypeByNir(const std::string& nirType)
{
    for (const auto& t : elementTypes()) {
        if (t.nir == nirType) {
            return &t;
        }
    }
    return nullptr;
}

const ElementType* elementTypeByEngine(const std::string& engineType)
{
    for (const auto& t : elementTypes()) {
        if (t.engine == engineType) {
            return &t;
        }
    }
    return nullptr;
}

}  // namespace spike::engine::nir
