// Internal to the NIR importer (nir_import.cpp, nir_import_nodes.cpp): the parameter readers,
// which check and convert what a node stores and name the node and parameter at fault, and the
// per-type halves of the import (a node's sample shapes, its module). Nested graphs are the
// graph importer's own business. Stateless; any thread.
#pragma once

#include "engine/core/module.hpp"
#include "engine/nir/nir_graph.hpp"
#include "engine/nir/nir_import.hpp"
#include "engine/tensor/tensor.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace spike::engine::nir::import_detail {

/// A sample shape (no batch or time axis).
using Dims = std::vector<std::int64_t>;

std::int64_t product(const Dims& d);
/// Python-style text: "(2, 7, 7)", "(6,)".
std::string dimsText(const Dims& d);

/// What every step of an import needs: where messages come from, the options, the notes.
struct Context {
    std::string source;
    NirImportOptions options;
    std::vector<std::string>* notes;
};

/// A node being imported: the NIR node, its dotted path (for messages and notes), its engine
/// name, its inferred input and output sample shapes.
struct Item {
    const NirNode* node = nullptr;
    std::string path;
    std::string name;
    Dims in;
    Dims out;
    bool known = false;  ///< in / out inferred
};

/// Throws Error "<source>: node '<path>': <what>".
[[noreturn]] void fail(const Context& c, const std::string& path, const std::string& what);
/// The NIR node types this version reads.
const std::vector<std::string>& supportedTypes();

/// The output sample shape of a node that is not a NIRGraph, given what its first forward
/// source gives (empty: none reaches it); sets it.in. Fails naming the node.
Dims nodeShapes(const Context& c, Item& it, const Dims& given);
/// The module of a node that is not a NIRGraph (its shapes inferred); fails naming the node.
std::unique_ptr<Module> nodeModule(const Context& c, const Item& it);

/// The time quantities of an element-wise node's values `v` (as read from the file) in seconds:
/// with time unit "steps", tau* and delay are multiplied by dt and IF's and Integrator's r
/// divided by it; with "s", a time constant of a second or more gets a note pointing at
/// "steps" (Sinabs writes tau in steps). nir_import_peers.cpp.
void inSeconds(const Context& c, const Item& it, AttributeMap& v);
/// A CubaLIF node under discretisation "rockpool": the engine's LIF (Rockpool's LIFTorch) of n
/// neurons from the node's values `v` (in seconds), with notes for what Rockpool does not use
/// and for a dt other than the one the file's r was written for. nir_import_peers.cpp.
std::unique_ptr<Module> rockpoolLif(const Context& c, const Item& it, const AttributeMap& v,
                                    std::int64_t n);

}  // namespace spike::engine::nir::import_detail
