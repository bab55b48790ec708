// NIR export: a module tree becomes a NIR graph (nir_graph.hpp) that nir_file.hpp writes; the
// inverse of nir_import.hpp for every type NIR can hold (docs/nir.md lists the mapping).
//
// A Network becomes a graph whose nodes keep the module names; nested Networks become nested
// NIRGraph nodes; a Sequential becomes a chain; any other root becomes input -> module ->
// output. The network's boundary becomes Input and Output nodes: an Identity fed only by the
// boundary (as the importer builds them) is that Input node, otherwise one named after the
// boundary port ("input" / "output" for the whole side). A Dense projection on a wire becomes a
// Linear node named after the wire, a one-to-one projection a Scale node. Parameters are written
// as float32 arrays with the sample shapes inferred along the wires (a neuron after a Conv2d
// keeps the (C, H, W) of its parameters), so a file imported and exported again holds the same
// arrays bit for bit.
//
// What NIR cannot hold is listed by module path in NirExport::leftOut (stimulus sources, LSTMs,
// normalisation layers, sparse projections, neurons with other discretisations, editor layout),
// and the wires touching it are dropped; a caller shows that list before writing. Stateless
// functions; call from the thread that owns the tree.
#pragma once

#include "engine/core/module.hpp"
#include "engine/nir/nir_graph.hpp"

#include <string>
#include <vector>

namespace spike::engine::nir {

/// A tree as a NIR file, with what it could not carry.
struct NirExport {
    NirFile file;
    /// "<module path>: <type> (why)" for each module or wire left out, in tree order.
    std::vector<std::string> leftOut;
};

/// Builds the NIR graph of `root`. Throws Error when nothing of it can be expressed.
NirExport exportNir(const Module& root);
/// exportNir(root), then writes the file (atomically) and returns what was left out.
std::vector<std::string> saveNir(const std::string& path, const Module& root);

}  // namespace spike::engine::nir
