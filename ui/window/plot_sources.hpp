// What the plots show of a model, read from its module tree: the plots (ui/plots) receive these
// plain descriptions and never read a module themselves. The window (from the run's plot copy)
// and the tests make them; it is the room that may read both the model and the plots.
#pragma once

#include "ui/plots/raster_plot.hpp"
#include "ui/plots/trace_plot.hpp"

#include "engine/core/module.hpp"

#include <vector>

namespace spike::ui {

/// The class, neuron-or-channel kind (a Role::Membrane State), Role::Threshold value and output
/// size of `module`, for a trace pane.
TraceSource traceSourceOf(const engine::Module& module);
/// Every module of the tree under `root` (root included) with its path and class, in tree
/// order: the order of the raster's bands.
std::vector<RasterModule> rasterModulesOf(const engine::Module& root);

}  // namespace spike::ui
