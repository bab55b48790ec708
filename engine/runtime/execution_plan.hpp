// ExecutionPlan: a module tree compiled into the immutable schedule the executors run.
//
// compilePlan() flattens nested graphs (modules that implement engine/core/graph.hpp: Network)
// into one graph of leaf nodes (any module that is not a graph: neurons, layers, sources,
// Sequentials...), plus a junction for every graph boundary and one node each for the external
// input and output. Edges are the connections, with their
// projection and delay flag; the edges into a node are kept in connection order, which fixes the
// order in which inputs are summed. Nodes are grouped into strongly connected components (over
// all edges) in topological order: a component without a cycle is one node run over a whole
// chunk of steps at a time (time-batched); a cycle becomes a lock-step group whose nodes advance
// one step at a time, in topological order of their undelayed edges. Both schedules give
// identical results; PlanOptions::lockStepAll forces lock-step everywhere to prove it.
// A plan holds raw pointers into the tree: any structural change (add/remove a node or a
// connection, a new shape) needs a new plan. Thread: built and used by the tree's owner.
#pragma once

#include "engine/core/module.hpp"
#include "engine/core/projection.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace spike::engine {

class Graph;

/// One node of the flattened graph.
struct PlanNode {
    enum class Role {
        Input,     ///< the external input: its output rows are the caller's input rows
        Output,    ///< the external output: its input rows are the caller's output rows
        Junction,  ///< a nested network's boundary: output = sum of its inputs
        Module,    ///< a leaf module advanced by its NodeRunner
    };
    Role role = Role::Module;
    std::string path;          ///< dotted path from the compiled root ("exc", "sub.in")
    Module* module = nullptr;  ///< the leaf module (Role::Module only)
    std::int64_t sizeIn = 0;   ///< channels of its input rows
    std::int64_t sizeOut = 0;  ///< channels of its output rows
    int group = -1;            ///< index into ExecutionPlan::groups
};

/// One wire of the flattened graph (a connection, possibly through a junction).
struct PlanEdge {
    std::string path;            ///< dotted path of the connection ("sub.exc_to_inh")
    int from = -1;               ///< source node index
    int to = -1;                 ///< target node index
    std::int64_t fromOffset = 0; ///< first channel of the source port in the source's output
    std::int64_t fromSize = 0;   ///< channels of the source port
    std::int64_t toOffset = 0;   ///< first channel of the target port in the target's input
    std::int64_t toSize = 0;     ///< channels of the target port
    Projection* projection = nullptr;  ///< nullptr: values pass through (fromSize == toSize)
    bool delayed = false;        ///< reads the source's previous step
    Graph* graph = nullptr;      ///< the graph holding the connection (nullptr: implicit edge)
    std::string connection;      ///< the connection's name within `graph`
};

/// Nodes advanced together.
struct StepGroup {
    std::vector<int> nodes;  ///< execution order within the group
    bool lockStep = false;   ///< true: one step at a time across all nodes (a cycle)
};

/// Compile-time choices.
struct PlanOptions {
    bool lockStepAll = false;  ///< one lock-step group for everything (testing, debugging)
};

/// The compiled schedule. See the file comment.
struct ExecutionPlan {
    std::vector<PlanNode> nodes;
    std::vector<PlanEdge> edges;
    std::vector<std::vector<int>> incoming;  ///< per node: edge indices, in summation order
    std::vector<StepGroup> groups;           ///< in execution order
    int inputNode = -1;
    int outputNode = -1;
    double dt = 1.0;  ///< [s] the root's time step

    /// Index of the node whose path is `path` (leaf modules and junctions), or -1.
    int findNode(const std::string& path) const;
    /// Multi-line human description: groups, their nodes, edges, delays.
    std::string describe() const;

    /// Indexes the nodes by path for findNode(), one hash per lookup instead of a search through
    /// `nodes` (a probe of every node of a 20000-node network made that quadratic: 0.55 s of a
    /// 3.7 s run). compilePlan() calls it; while `nodes` has grown or shrunk since, findNode()
    /// searches as before; after changing a node's path, call it again.
    void indexNodes();

private:
    std::unordered_map<std::string, int> m_byPath;
    std::size_t m_indexedNodes = 0;
    bool m_indexed = false;
};

/// Walks one group's part of a chunk of `steps` steps, calling step(node, t0, n) for each of its
/// nodes: a time-batched group's node once with (0, steps), a lock-step group's nodes once per
/// step t with (t, 1), in group order. Inline (it sits on the per-step path of lock-step groups).
template <typename Step>
void forEachScheduledIn(const StepGroup& g, std::int64_t steps, Step&& step)
{
    if (!g.lockStep) {
        for (int n : g.nodes) {
            step(n, std::int64_t{0}, steps);
        }
        return;
    }
    for (std::int64_t t = 0; t < steps; ++t) {
        for (int n : g.nodes) {
            step(n, t, std::int64_t{1});
        }
    }
}

/// Walks one chunk of `steps` steps in schedule order: forEachScheduledIn() for every group in
/// plan order. Every executor runs its chunks through these, so all backends share one schedule.
template <typename Step>
void forEachScheduled(const ExecutionPlan& plan, std::int64_t steps, Step&& step)
{
    for (const StepGroup& g : plan.groups) {
        forEachScheduledIn(g, steps, step);
    }
}

/// The edge whose source rows are a time-batched node's input rows as they are: its only
/// incoming edge when that passes the source's whole output row through onto the whole input
/// row (gathering it would give 0 + x: the same values, except that -0 becomes +0); -1 for
/// any other node, and for every node of a lock-step group (each gathers one row at a time).
/// The CPU executor reads such rows in place, the CUDA executor copies them.
int wholeRowEdge(const ExecutionPlan& plan, int node);

/// Compiles `root` (a Graph such as a Network, or any other module, which becomes a one-node
/// plan). Throws Error
/// when the undelayed connections form a cycle (naming one of its connections).
ExecutionPlan compilePlan(Module& root, const PlanOptions& options = {});

}  // namespace spike::engine
