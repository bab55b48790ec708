// The NIR node types that map one-to-one onto an element-wise engine module (a neuron, Scale,
// Heaviside, Delay): the one table both directions read (nir_import.cpp, nir_export.cpp), so a
// parameter list is written once. Plain data; any thread.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace spike::engine::nir {

/// One element-wise node type: the NIR name, the engine module type, the parameters (NIR and
/// engine attribute names are the same), those that must be > 0, and the values older files
/// may leave out.
struct ElementType {
    std::string nir;
    std::string engine;
    std::vector<std::string> params;
    std::vector<std::string> positive;
    std::map<std::string, double> defaults;  ///< parameter -> value when absent (with a note)
    bool discretised = false;                ///< the module has `discretisation` (and `dt`)
    bool timed = false;                      ///< the module has `dt`
};

/// Every element-wise type, NIR's order.
const std::vector<ElementType>& elementTypes();
/// The type whose NIR name is `nirType`, or nullptr.
const ElementType* elementTypeByNir(const std::string& nirType);
/// The type whose engine module type is `engineType`, or nullptr.
const ElementType* elementTypeByEngine(const std::string& engineType);

}  // namespace spike::engine::nir
