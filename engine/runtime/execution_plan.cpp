// compilePlan(): flattening, strongly connected components and the step groups. See
// execution_plan.hpp.
#include "engine/runtime/execution_plan.hpp"

#include "engine/core/graph.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <tuple>
#include <sstream>

namespace spike::engine {

namespace {

/// Where a network's connection endpoints land in the flattened graph.
struct Flattener {
    ExecutionPlan& plan;

    int addNode(PlanNode::Role role, const std::string& path, Module* module, std::int64_t in,
                std::int64_t out)
    {
        PlanNode n;
        n.role = role;
        n.path = path;
        n.module = module;
        n.sizeIn = in;
        n.sizeOut = out;
        plan.nodes.push_back(n);
        plan.incoming.emplace_back();
        return static_cast<int>(plan.nodes.size()) - 1;
    }

    /// Adds `net`'s nodes and connections; `in` / `out` are the nodes standing for its own
    /// input (whose output rows carry it) and output (whose input rows collect it).
    void addGraph(Graph& net, const std::string& prefix, int in, int out)
    {
        struct Ends {
            int source = -1;  ///< node whose output rows a connection from this child reads
            int target = -1;  ///< node whose input rows a connection to this child writes
        };
        std::map<std::string, Ends> ends;
        for (const auto& [name, child] : net.nodes()) {
            const std::string path = prefix + name;
            if (auto* sub = dynamic_cast<Graph*>(child)) {
                const int subIn = addNode(PlanNode::Role::Junction, path + ".in", nullptr,
                                          child->sizeIn(), child->sizeIn());
                const int subOut = addNode(PlanNode::Role::Junction, path + ".out", nullptr,
                                           child->sizeOut(), child->sizeOut());
                ends[name] = {subOut, subIn};
                addGraph(*sub, path + ".", subIn, subOut);
            } else {
                const int n = addNode(PlanNode::Role::Module, path, child, child->sizeIn(),
                                      child->sizeOut());
                ends[name] = {n, n};
            }
        }
        for (const Connection& c : net.connections()) {
            PlanEdge e;
            e.path = prefix + c.name;
            e.delayed = c.delayed;
            e.graph = &net;
            e.connection = c.name;
            e.projection = c.hasProjection ? net.projection(c.name) : nullptr;
            // Both ends through the network's own resolution: a child's port or a boundary
            // port ("in", "in.E", "out.rate"), each a slice of the node's rows.
            const PortSpec source = net.resolve(c.from.toString(), true).second;
            const PortSpec target = net.resolve(c.to.toString(), false).second;
            e.from = c.from.node.empty() ? in : ends.at(c.from.node).source;
            e.fromOffset = source.offset;
            e.fromSize = source.size;
            e.to = c.to.node.empty() ? out : ends.at(c.to.node).target;
            e.toOffset = target.offset;
            e.toSize = target.size;
            plan.edges.push_back(e);
            plan.incoming[static_cast<std::size_t>(e.to)].push_back(
                static_cast<int>(plan.edges.size()) - 1);
        }
    }
};

/// Strongly connected components over all edges (Tarjan), returned in topological order.
std::vector<std::vector<int>> components(const ExecutionPlan& plan)
{
    const int n = static_cast<int>(plan.nodes.size());
    std::vector<std::vector<int>> succ(static_cast<std::size_t>(n));
    for (const PlanEdge& e : plan.edges) {
        succ[static_cast<std::size_t>(e.from)].push_back(e.to);
    }
    std::vector<int> index(static_cast<std::size_t>(n), -1);
    std::vector<int> low(static_cast<std::size_t>(n), 0);
    std::vector<bool> onStack(static_cast<std::size_t>(n), false);
    std::vector<int> stack;
    std::vector<std::vector<int>> out;
    int counter = 0;
    // Iterative Tarjan (networks may be deep chains).
    for (int root = 0; root < n; ++root) {
        if (index[static_cast<std::size_t>(root)] >= 0) {
            continue;
        }
        std::vector<std::pair<int, std::size_t>> frames{{root, 0}};
        index[static_cast<std::size_t>(root)] = low[static_cast<std::size_t>(root)] = counter++;
        stack.push_back(root);
        onStack[static_cast<std::size_t>(root)] = true;
        while (!frames.empty()) {
            auto& [v, next] = frames.back();
            const auto vi = static_cast<std::size_t>(v);
            if (next < succ[vi].size()) {
                const int w = succ[vi][next++];
                const auto wi = static_cast<std::size_t>(w);
                if (index[wi] < 0) {
                    index[wi] = low[wi] = counter++;
                    stack.push_back(w);
                    onStack[wi] = true;
                    frames.emplace_back(w, 0);
                } else if (onStack[wi]) {
                    low[vi] = std::min(low[vi], index[wi]);
                }
                continue;
            }
            if (low[vi] == index[vi]) {
                std::vector<int> comp;
                int w = -1;
                do {
                    w = stack.back();
                    stack.pop_back();
                    onStack[static_cast<std::size_t>(w)] = false;
                    comp.push_back(w);
                } while (w != v);
                std::sort(comp.begin(), comp.end());
                out.push_back(std::move(comp));
            }
            const int done = v;
            frames.pop_back();
            if (!frames.empty()) {
                const auto pi = static_cast<std::size_t>(frames.back().first);
                low[pi] = std::min(low[pi], low[static_cast<std::size_t>(done)]);
            }
        }
    }
    std::reverse(out.begin(), out.end());
    return out;
}

/// `members` in topological order of their undelayed edges among themselves (ties by index).
/// Throws Error naming a connection of any undelayed cycle.
std::vector<int> undelayedOrder(const ExecutionPlan& plan, const std::vector<int>& members)
{
    // Per node: -1 outside `members`, else its undelayed in-degree from members. Each edge is
    // met twice in all (counted, then followed from its source's list), so ordering a network
    // of n nodes costs O(n + edges), not n x edges.
    std::vector<int> indegree(plan.nodes.size(), -1);
    for (int m : members) {
        indegree[static_cast<std::size_t>(m)] = 0;
    }
    const auto member = [&](int i) { return indegree[static_cast<std::size_t>(i)] >= 0; };
    std::vector<std::vector<int>> next(plan.nodes.size());
    for (const PlanEdge& e : plan.edges) {
        if (!e.delayed && member(e.from) && member(e.to)) {
            ++indegree[static_cast<std::size_t>(e.to)];
            next[static_cast<std::size_t>(e.from)].push_back(e.to);
        }
    }
    std::vector<int> order;
    std::set<int> ready;  // the lowest index first
    for (int m : members) {
        if (indegree[static_cast<std::size_t>(m)] == 0) {
            ready.insert(m);
        }
    }
    while (!ready.empty()) {
        const int v = *ready.begin();
        ready.erase(ready.begin());
        order.push_back(v);
        for (int to : next[static_cast<std::size_t>(v)]) {
            if (--indegree[static_cast<std::size_t>(to)] == 0) {
                ready.insert(to);
            }
        }
    }
    if (order.size() != members.size()) {
        for (const PlanEdge& e : plan.edges) {
            if (!e.delayed && member(e.from) && member(e.to) &&
                indegree[static_cast<std::size_t>(e.to)] > 0 &&
                indegree[static_cast<std::size_t>(e.from)] > 0) {
                throw Error("connection '" + e.path + "' (" + plan.nodes[static_cast<std::size_t>(e.from)].path +
                            " to " + plan.nodes[static_cast<std::size_t>(e.to)].path +
                            ") is part of a cycle of undelayed connections; mark one connection "
                            "of the cycle as delayed");
            }
        }
        throw Error("the network has a cycle of undelayed connections");
    }
    return order;
}

}  // namespace

void ExecutionPlan::indexNodes()
{
    m_byPath.clear();
    m_byPath.reserve(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        if (nodes[i].role == PlanNode::Role::Module || nodes[i].role == PlanNode::Role::Junction) {
            m_byPath.try_emplace(nodes[i].path, static_cast<int>(i));  // the first, as the search finds
        }
    }
    m_indexedNodes = nodes.size();
    m_indexed = true;
}

int ExecutionPlan::findNode(const std::string& path) const
{
    if (m_indexed && m_indexedNodes == nodes.size()) {
        const auto it = m_byPath.find(path);
        if (it == m_byPath.end()) {
            return -1;
        }
        const PlanNode& n = nodes[static_cast<std::size_t>(it->second)];
        if (n.path == path && (n.role == PlanNode::Role::Module || n.role == PlanNode::Role::Junction)) {
            return it->second;
        }
    }
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        if (nodes[i].path == path &&
            (nodes[i].role == PlanNode::Role::Module || nodes[i].role == PlanNode::Role::Junction)) {
            return static_cast<int>(i);
        }
    }
    return -1;
}

std::string ExecutionPlan::describe() const
{
    std::ostringstream os;
    auto name = [&](int i) {
        const PlanNode& n = nodes[static_cast<std::size_t>(i)];
        switch (n.role) {
        case PlanNode::Role::Input: return std::string("<input>");
        case PlanNode::Role::Output: return std::string("<output>");
        default: return n.path;
        }
    };
    for (std::size_t g = 0; g < groups.size(); ++g) {
        os << "group " << g << (groups[g].lockStep ? " (lock-step):" : " (time-batched):");
        for (int i : groups[g].nodes) {
            os << " " << name(i);
        }
        os << "\n";
    }
    for (const PlanEdge& e : edges) {
        os << "  " << e.path << ": " << name(e.from) << " -> " << name(e.to)
           << (e.projection != nullptr ? " via " + e.projection->className() : std::string())
           << (e.delayed ? " (delayed 1 step)" : "") << "\n";
    }
    return os.str();
}

ExecutionPlan compilePlan(Module& root, const PlanOptions& options)
{
    ExecutionPlan plan;
    plan.dt = root.timeStep();
    Flattener f{plan};
    plan.inputNode = f.addNode(PlanNode::Role::Input, "", nullptr, 0, root.sizeIn());
    plan.outputNode = f.addNode(PlanNode::Role::Output, "", nullptr, root.sizeOut(), root.sizeOut());
    if (auto* net = dynamic_cast<Graph*>(&root)) {
        f.addGraph(*net, "", plan.inputNode, plan.outputNode);
    } else {
        const int n = f.addNode(PlanNode::Role::Module, "", &root, root.sizeIn(), root.sizeOut());
        for (const auto& [from, to, size] :
             {std::tuple{plan.inputNode, n, root.sizeIn()}, {n, plan.outputNode, root.sizeOut()}}) {
            if (size > 0) {
                PlanEdge e;
                e.from = from;
                e.to = to;
                e.fromSize = e.toSize = size;
                plan.edges.push_back(e);
                plan.incoming[static_cast<std::size_t>(to)].push_back(
                    static_cast<int>(plan.edges.size()) - 1);
            }
        }
    }

    std::vector<int> all(plan.nodes.size());
    for (std::size_t i = 0; i < all.size(); ++i) {
        all[i] = static_cast<int>(i);
    }
    const std::vector<int> global = undelayedOrder(plan, all);  // validates: no undelayed cycle
    if (options.lockStepAll) {
        plan.groups.push_back({global, true});
    } else {
        std::vector<bool> selfLoop(plan.nodes.size(), false);
        for (const PlanEdge& e : plan.edges) {
            if (e.from == e.to) {
                selfLoop[static_cast<std::size_t>(e.from)] = true;
            }
        }
        for (const std::vector<int>& comp : components(plan)) {
            if (comp.size() == 1 && !selfLoop[static_cast<std::size_t>(comp.front())]) {
                plan.groups.push_back({comp, false});
            } else {
                plan.groups.push_back({undelayedOrder(plan, comp), true});
            }
        }
    }
    for (std::size_t g = 0; g < plan.groups.size(); ++g) {
        for (int i : plan.groups[g].nodes) {
            plan.nodes[static_cast<std::size_t>(i)].group = static_cast<int>(g);
        }
    }
    plan.indexNodes();
    return plan;
}

int wholeRowEdge(const ExecutionPlan& plan, int node)
{
    const PlanNode& p = plan.nodes[static_cast<std::size_t>(node)];
    const std::vector<int>& incoming = plan.incoming[static_cast<std::size_t>(node)];
    if (p.role == PlanNode::Role::Input || p.sizeIn == 0 || incoming.size() != 1 ||
        plan.groups[static_cast<std::size_t>(p.group)].lockStep) {
        return -1;
    }
    const PlanEdge& e = plan.edges[static_cast<std::size_t>(incoming[0])];
    const bool whole = e.projection == nullptr && e.fromOffset == 0 && e.toOffset == 0 &&
                       e.fromSize == p.sizeIn &&
                       plan.nodes[static_cast<std::size_t>(e.from)].sizeOut == p.sizeIn;
    return whole ? incoming[0] : -1;
}

}  // namespace spike::engine
