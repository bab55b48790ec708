// NIR graphs as plain data: what a .nir file (the Neuromorphic Intermediate Representation, an
// HDF5 file) holds, with no engine semantics attached.
//
// A file is a version string plus one root graph. A graph is a list of named nodes and a list of
// edges (source name -> target name, either may be "node.port" in newer files); a node has a type
// name ("LIF", "Affine", "NIRGraph", ...) and named parameters, each an array (float32, float64
// or int64, any rank, 0-d for a scalar), a string, or a group of further parameters (older files
// keep e.g. input_type as a group of arrays). A node of type "NIRGraph" also holds its nested
// graph. nir_file.hpp reads and writes this form; nir_import.hpp and nir_export.hpp map it onto
// module trees. Values are kept exactly as stored: a float32 array read and written again is bit
// for bit the same. Thread: plain values, owned by whoever holds them.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace spike::engine::nir {

/// How an array's elements are stored in the file.
enum class ArrayType { Float32, Float64, Int64 };

/// One parameter array, C order. Float32 values are held exactly as doubles.
struct NirArray {
    ArrayType type = ArrayType::Float32;
    std::vector<std::int64_t> shape;  ///< empty: a 0-d scalar (one value)
    std::vector<double> values;       ///< product(shape) values (1 for a scalar)

    std::int64_t numel() const
    {
        std::int64_t n = 1;
        for (const auto d : shape) {
            n *= d;
        }
        return n;
    }
};

/// A node parameter: an array, a string, or a group of named parameters.
struct NirValue {
    enum class Kind { Array, String, Group };
    Kind kind = Kind::Array;
    NirArray array;                          ///< Kind::Array
    std::string text;                        ///< Kind::String
    std::map<std::string, NirValue> group;   ///< Kind::Group

    static NirValue ofArray(NirArray a)
    {
        NirValue v;
        v.kind = Kind::Array;
        v.array = std::move(a);
        return v;
    }
    static NirValue ofString(std::string s)
    {
        NirValue v;
        v.kind = Kind::String;
        v.text = std::move(s);
        return v;
    }
};

struct NirGraph;

/// One node of a graph.
struct NirNode {
    std::string name;  ///< its name within the graph (may be "0", "1" or contain dots)
    std::string type;  ///< the NIR type name: "LIF", "Affine", "NIRGraph", ...
    /// Every stored dataset or group of the node but "type" (and, for a NIRGraph, but "nodes"
    /// and "edges"), by name.
    std::map<std::string, NirValue> params;
    /// The nested graph of a node of type "NIRGraph"; null otherwise.
    std::shared_ptr<NirGraph> graph;
};

/// One edge: data flows from `source` to `target` (node names, or "node.port").
struct NirEdge {
    std::string source;
    std::string target;
};

/// A graph: nodes in the order the file lists them (HDF5 groups list by name) and its edges
/// in stored order.
struct NirGraph {
    std::vector<NirNode> nodes;
    std::vector<NirEdge> edges;
    /// Any other dataset or group of the graph node ("metadata", "input_type", ...), by name.
    std::map<std::string, NirValue> params;

    /// The node called `name`, or nullptr.
    const NirNode* find(const std::string& name) const
    {
        for (const auto& n : nodes) {
            if (n.name == name) {
                return &n;
            }
        }
        return nullptr;
    }
};

/// A whole file.
struct NirFile {
    std::string version;  ///< the file's "version" ("1.0.7"); "" when the file has none
    NirGraph graph;       ///< the root graph (the file's "node" group)
};

}  // namespace spike::engine::nir
