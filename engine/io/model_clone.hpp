// Copies of module trees in memory: what a model file would carry (type, config, every settable
// attribute, children, a Network's connections with their projections), without writing JSON
// and parsing it back. The copy equals modelFromJson(modelToJson(tree)) attribute for attribute;
// like a file it leaves out hooks, the elapsed-step counter and the values in flight on delayed
// connections. Used wherever a tree is handed to another owner (a run, the plots).
#pragma once

#include "engine/core/module.hpp"

#include <memory>

namespace spike::engine {

/// A deep copy of `source` and its subtree. Throws Error naming the module path when a type
/// cannot be rebuilt from its own config (a bug in that type's config()).
std::unique_ptr<Module> cloneModule(const Module& source);

}  // namespace spike::engine
