// Graph: what the runtime reads from a container whose children are wired port to port.
//
// The plan compiler (engine/runtime/execution_plan.cpp) flattens nested graphs through this
// interface, and the CPU executor keeps the values of delayed connections through it, so the
// runtime never names the concrete container: engine/network/network.hpp's Network is the
// implementation (Arbor's recipe habit: the simulation reads the model through a small
// description interface). A Graph is always also a Module (the runtime finds it by
// dynamic_cast from Module); its nodes are Modules, its connections carry an optional
// Projection. Thread: whichever thread owns the tree.
#pragma once

#include "engine/core/module.hpp"
#include "engine/core/projection.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace spike::engine {

/// One end of a connection: a child's port, or the graph's own "in" / "out" (node empty).
struct Endpoint {
    std::string node;  ///< child name; "" for the graph's own boundary
    std::string port;  ///< port name ("in" / "out" for the boundary)

    /// "node.port", or "in" / "out" for the boundary.
    std::string toString() const { return node.empty() ? port : node + "." + port; }
    bool operator==(const Endpoint& o) const { return node == o.node && port == o.port; }
};

/// A wire from an output port to an input port.
struct Connection {
    std::string name;    ///< unique within the graph; also the projection child's name
    Endpoint from;       ///< output port of a child, or the graph's "in"
    Endpoint to;         ///< input port of a child, or the graph's "out"
    bool delayed = false;        ///< delivers the previous step's value (closes a cycle)
    bool hasProjection = false;  ///< the child named `name` is this connection's Projection
};

/// A named slice of a graph's input or output.
struct BoundaryPort {
    std::string name;       ///< non-empty, no '.', unique on its side
    std::int64_t size = 0;  ///< channels, >= 1
    bool operator==(const BoundaryPort& o) const { return name == o.name && size == o.size; }
};

/// The wiring of a container, as the runtime reads it; see the file comment.
class Graph {
public:
    virtual ~Graph() = default;
    Graph(const Graph&) = delete;
    Graph& operator=(const Graph&) = delete;

    /// Children that are nodes (not connection projections), in insertion order.
    virtual std::vector<std::pair<std::string, Module*>> nodes() const = 0;
    /// The connections, in the order their inputs are summed.
    virtual const std::vector<Connection>& connections() const = 0;
    /// The projection of connection `name`, or nullptr when it has none.
    virtual Projection* projection(const std::string& name) const = 0;
    /// Resolves "node.port" / "node" / "in" / "in.port" / "out" / "out.port" as a source
    /// (output) or target (input) end: the endpoint plus the port's slice. Throws Error naming
    /// the graph, node and ports.
    virtual std::pair<Endpoint, PortSpec> resolve(const std::string& text, bool asSource) const = 0;
    /// Value a delayed connection will deliver at the next step, as kept between runs; nullptr
    /// before the first run and after a state reset.
    virtual const std::vector<float>* delayedValue(const std::string& connection) const = 0;
    virtual void setDelayedValue(const std::string& connection, std::vector<float> value) = 0;

protected:
    Graph() = default;
};

}  // namespace spike::engine
