// Carrying a run's dynamical state into a rebuilt tree: after a structural edit the edited model
// continues where the running one stopped. Knows only the core's faces (Module, Graph).
#pragma once

#include "engine/core/module.hpp"

namespace spike::engine {

/// For every module of `next` whose path and class match a module of `running`: copies the
/// States whose name, kind and shape agree (a value `next` refuses keeps its own), and for a
/// Graph the values in flight on same-named delayed connections. Everything else in `next`
/// (new modules, changed shapes, parameters) stays as it is.
void carryStates(const Module& running, Module& next);

}  // namespace spike::engine
