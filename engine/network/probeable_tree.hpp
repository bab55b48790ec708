// The tree a run compiles: a root Sequential whose children chain port to port becomes the
// Network that wires the same children in a chain ("in" → first → … → last → "out"), nested
// Sequentials likewise. compilePlan() treats a Sequential as one leaf; as a Network every layer
// is a plan node of its own, which probes, the live plots and `spikesim run --record` can name
// ("0.spikes"), and the chain computes the same thing. Shared by the GUI's runs (ui/run) and
// `spikesim run` on an executor.
#pragma once

#include "engine/core/module.hpp"

#include <memory>

namespace spike::engine {

/// `module`, or when it is a chainable Sequential (see the file comment: names other than "in"
/// and "out", one whole port on each joined side), the chain Network with its children moved
/// over (names, attributes, states and the elapsed-step counter kept).
std::unique_ptr<Module> asProbeableTree(std::unique_ptr<Module> module);

}  // namespace spike::engine
