// Which input port an analysis drives with its constant input (the f-I curve's current, the
// parameter sweep's input, the phase portrait's current), one rule for all three so that they
// agree on every model: "in" (LIF, LIFRefrac, layers), else "exc" (CUBALIF), else the model's
// first current port (an equation model's `I : ... (input)`: Izhikevich, AdEx, HH, QIF,
// FitzHugh-Nagumo, adaptive LIF), else its first event port (COBA's `ge`). An equation model
// with no input declares a placeholder port "unused" that is never driven. Stateless.
#pragma once

#include "engine/core/module.hpp"

#include <optional>
#include <string>

namespace spike::engine {

/// The port `module`'s analyses drive (see the file comment); nullopt when it has none.
std::optional<PortSpec> drivenInputPort(const Module& module);

/// The units an equation model declares for its input `port` as its text writes them ("volt",
/// "amp/metre**2"); "" for a dimensionless input and for every other module (their inputs carry
/// the model's own units per step).
std::string inputPortUnits(const Module& module, const std::string& port);

}  // namespace spike::engine
