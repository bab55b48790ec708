// NIR import: a NIR graph (nir_graph.hpp, as nir_file.hpp reads it) becomes a module tree that
// runs like any model (docs/nir.md lists the node types and their mapping).
//
// The root graph becomes a Network; every NIR node becomes a node of the same name (a '.' in a
// name becomes '_', "in" / "out" gain a '_', each renaming listed in the notes), nested NIRGraph
// nodes become nested Networks. Input and Output nodes become Identity nodes of their name, fed
// by / feeding the network's boundary (one Input: the network's whole input "in"; several: one
// named input port each, in file order), so their values can be recorded as "output.output".
// Edges become connections; every node is evaluated once per step in topological order from
// the inputs, and an edge that closes a cycle (found depth-first from the inputs, in edge order)
// delivers the previous step's value, as NIR's reference simulation does. Sizes are inferred
// along the edges (a pooling node takes its input's (C, H, W)) and checked where they meet.
//
// NIR is continuous-time: the options say the time step and the discretisation that neurons use
// (stored on every neuron as its `dt` and `discretisation` attributes, so the document keeps
// them), and whether the file counts time in seconds or in steps. Everything is validated before anything is returned: a problem throws one Error
// "<file>: node '<path>': <what was expected>". Stateless functions; any thread.
#pragma once

#include "engine/core/module.hpp"
#include "engine/nir/nir_graph.hpp"

#include <memory>
#include <string>
#include <vector>

namespace spike::engine::nir {

/// How a continuous-time NIR graph is discretised.
struct NirImportOptions {
    double dt = 1e-3;  ///< time step [s], > 0
    /// "euler": one forward-Euler step of dt (NIR's reference scheme; Norse and snnTorch
    /// simulate so); "exact": the exact solution over dt with the input held; "rockpool": as
    /// Rockpool simulates what its to_nir wrote: a CubaLIF becomes the engine's LIF (Rockpool's
    /// LIFTorch, bias = v_leak), an LI steps by "impulse" (ExpSynTorch), other neurons "exact".
    std::string discretisation = "euler";
    /// "s": time constants and delays are seconds, as NIR specifies; "steps": they count time
    /// steps of dt (Sinabs writes tau so), so they are multiplied by dt and IF's and
    /// Integrator's r (rates) divided by it.
    std::string timeUnit = "s";
};

/// The discretisations NirImportOptions accepts, default first.
const std::vector<std::string>& discretisations();
/// The time units NirImportOptions accepts ("s" first, the default; then "steps").
const std::vector<std::string>& timeUnits();
/// The dt [s] at which Rockpool's to_nir writes `r` for a neuron of time constant `tau` [s]
/// (r = tau exp(-dt / tau) / dt, solved exactly: dt = tau W0(1 / r)); 0 when r <= 0.
double rockpoolDt(double tau, double r);

/// A graph as a module tree, with what the import adapted.
struct NirImport {
    std::unique_ptr<Module> root;    ///< a Network
    std::vector<std::string> notes;  ///< one line per renaming or default filled in
    std::string version;             ///< the file's NIR version
};

/// Builds the tree of `file`; `sourceName` (the file's path) starts every message. Throws Error.
NirImport importNir(const NirFile& file, const std::string& sourceName,
                    const NirImportOptions& options = {});
/// readNirFile(path) then importNir. Throws Error naming the file.
NirImport loadNir(const std::string& path, const NirImportOptions& options = {});
/// Whether `path` names a NIR file by its extension (".nir", any case).
bool isNirPath(const std::string& path);
/// A model file of either format: a .nir file through loadNir (its notes appended to `notes`
/// when given), any other through engine::loadModel (the JSON model format).
std::unique_ptr<Module> loadAnyModel(const std::string& path, const NirImportOptions& options = {},
                                     std::vector<std::string>* notes = nullptr);

}  // namespace spike::engine::nir
