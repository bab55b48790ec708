// Carrying a run's dynamical state into a rebuilt tree: after a structural edit the edited model
// continues where the running one stopped. Knows only the core's faces (Module, Graph).
#pragma once

#include "engine/core/module.hpp"

namespace spike::engine {

/// For every module of `next` whose path and class match a module of `running`: copies the
/// States whose name and kind agree (a value `next` refuses keeps its own) - whole when the
/// shapes agree, and when only the extents differ (a population resized in the editor) the
/// leading block both have, so neuron i keeps its state and new neurons keep `next`'s own -
/// and for a Graph the values in flight on same-named delayed connections. Everything else in
/// `next` (new modules, changed ranks, parameters) stays as it is.
void carryStates(const Module& running, Module& next);

}  // namespace spike::engine
