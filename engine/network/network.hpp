// Network: a container whose children are wired explicitly, port to port, with optional weights.
//
// Owns its children (nodes and projections) like any module, plus an ordered list of
// connections. A connection runs from an output port of a child (or the network's own input
// "in") to an input port of a child (or the network's own output "out"); it either passes values
// through unchanged (sizes must match) or carries a Projection child, named after the
// connection, that maps the source size to the target size. Several connections into one port
// sum, in connection order. Endpoints are written "node.port", "node" (its only port), "in" or
// "out"; children may therefore not be called "in" or "out". A network's input and output may
// be split into named boundary ports (consecutive slices, in order): outside, they are its input
// and output ports ("group.exc"); inside, "in.exc" is a source and "out.rate" a target. "in" and
// "out" alone always mean the whole input and output.
//
// Cycles are legal: a connection that closes a cycle of undelayed connections is marked
// `delayed` when it is made and delivers the source's value of the previous step. The flag is
// saved with the model, so results never depend on the order connections were made in.
// Invariant: the undelayed connections form no cycle. Networks nest; the runtime flattens them
// (engine/runtime/execution_plan.hpp), reading it through the Graph interface
// (engine/core/graph.hpp, which also defines Endpoint, Connection and BoundaryPort). evolve()
// runs the network through the CPU executor. Thread: owned by whichever thread owns the tree.
#pragma once

#include "engine/core/graph.hpp"
#include "engine/core/module.hpp"
#include "engine/core/projection.hpp"
#include "engine/network/connection_index.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace spike::engine {

/// Explicitly wired container; see the file comment.
class Network : public Module, public Graph {
public:
    /// A network with `inputSize` external input channels (0: driven by its own sources) and
    /// `outputSize` external output channels (0: observed through probes only), each one port
    /// ("in" / "out").
    explicit Network(std::int64_t inputSize = 0, std::int64_t outputSize = 0);
    /// A network whose input and output are split into these named ports, in channel order (an
    /// empty list: no channels on that side; one port called "in" / "out": that side unsplit).
    /// Throws Error for an empty, dotted or repeated name, "in" / "out" among several ports, or a
    /// size below 1.
    Network(std::vector<BoundaryPort> inputs, std::vector<BoundaryPort> outputs);

    std::string className() const override { return "Network"; }
    /// {"input_size": n, "output_size": m}, or "input_ports" / "output_ports" as
    /// [{"name": ..., "size": ...}, ...] for a side split into named ports.
    nlohmann::json config() const override;
    std::string extraRepr() const override;
    /// The named input ports, or one port "in" covering the whole input.
    std::vector<PortSpec> inputPorts() const override;
    /// The named output ports, or one port "out" covering the whole output.
    std::vector<PortSpec> outputPorts() const override;
    /// The named ports of each side (empty: the side is one port, "in" / "out").
    const std::vector<BoundaryPort>& boundaryInputs() const { return m_inPorts; }
    const std::vector<BoundaryPort>& boundaryOutputs() const { return m_outPorts; }

    /// Adds a node (any module but a Projection). Throws Error for a bad or taken name.
    Module& addNode(const std::string& name, std::unique_ptr<Module> node);
    /// Like addNode, but places the node at position `index` of nodes() (index <= the number
    /// of nodes), so an editor can put a removed node back where it was. `node` is moved from
    /// only on success: when this throws, the caller still owns it.
    Module& insertNode(std::size_t index, const std::string& name, std::unique_ptr<Module>&& node);
    /// Removes a node and every connection touching it (with their projections).
    std::unique_ptr<Module> removeNode(const std::string& name);
    /// Renames node `from` to `to`, rewriting the endpoints of every connection touching it.
    /// Throws Error (network unchanged) when `from` is not a node or `to` is invalid or taken.
    void renameNode(const std::string& from, const std::string& to);
    /// Children that are nodes (not connection projections), in insertion order.
    std::vector<std::pair<std::string, Module*>> nodes() const override;

    /// Connects `from` to `to` ("node.port", "node", "in", "out"). With a projection its shape
    /// must be (source size, target size); without one the sizes must match. `name` defaults to
    /// "<from node>_to_<to node>" (made unique). `delayed` defaults to whether the connection
    /// closes a cycle; an explicit false that would close a cycle is refused. Throws Error naming
    /// both ends and their sizes when anything does not fit; the network is then unchanged.
    const Connection& connect(const std::string& from, const std::string& to,
                              std::unique_ptr<Projection> projection = nullptr,
                              const std::string& name = {},
                              std::optional<bool> delayed = std::nullopt);
    /// Like connect(), but places the connection at position `index` of connections() (index
    /// <= the number of connections), which fixes where its input is summed. Throws Error
    /// (network unchanged) for an index past the end or anything connect() refuses; then the
    /// caller still owns `projection` (it is moved from only on success).
    const Connection& insertConnection(std::size_t index, const std::string& from,
                                       const std::string& to,
                                       std::unique_ptr<Projection>&& projection = nullptr,
                                       const std::string& name = {},
                                       std::optional<bool> delayed = std::nullopt);
    /// Removes the connection called `name` and returns its projection (nullptr when it has
    /// none), so an editor can reconnect it unchanged. Throws Error when absent.
    std::unique_ptr<Projection> disconnect(const std::string& name);
    /// Renames connection `from` to `to` (and its projection child). Throws Error (network
    /// unchanged) when `from` is absent or `to` is invalid or taken.
    void renameConnection(const std::string& from, const std::string& to);
    /// Position of connection `name` in connections(); throws Error when absent.
    std::size_t connectionIndex(const std::string& name) const;
    const std::vector<Connection>& connections() const override { return m_connections; }
    /// The connection called `name`, or nullptr.
    const Connection* findConnection(const std::string& name) const;
    /// The projection of connection `name`, or nullptr when it has none.
    Projection* projection(const std::string& name) const override;

    /// Resolves "node.port" / "node" / "in" / "in.port" / "out" / "out.port" as a source
    /// (output) or target (input) end: the endpoint (the boundary's: node "", port "in",
    /// "in.exc", ...) plus the port's slice. Throws Error naming the network, node and ports.
    std::pair<Endpoint, PortSpec> resolve(const std::string& text, bool asSource) const override;

    /// Value a delayed connection will deliver at the next step (its source port's last output),
    /// as kept between runs; nullptr before the first run and after resetState(). Executors
    /// store it (Executor::storeStates()) and load it, so evolving in several calls equals one.
    const std::vector<float>* delayedValue(const std::string& connection) const override;
    void setDelayedValue(const std::string& connection, std::vector<float> value) override;

    std::int64_t inputSize() const { return sizeIn(); }
    std::int64_t outputSize() const { return sizeOut(); }

protected:
    /// Clears the delayed connections' values.
    void onResetState() override;
    /// Runs the network through the CPU executor, batch element by batch element.
    Tensor evolveImpl(const TensorView& input, const Recorder& recorder) override;

private:
    /// Whether `name` is a connection's or a child's name.
    bool nameTaken(const std::string& name) const;
    /// Throws Error unless `name` may name a new node or connection (`what`: "node" or
    /// "connection").
    void checkNewName(const std::string& name, const std::string& what) const;

    /// The boundary endpoint `text` ("in", "in.exc", "out", "out.rate") with its slice.
    std::pair<Endpoint, PortSpec> resolveBoundary(const std::string& text, bool asSource) const;

    std::vector<BoundaryPort> m_inPorts;
    std::vector<BoundaryPort> m_outPorts;
    std::vector<Connection> m_connections;
    ConnectionIndex m_index;  ///< m_connections' names and undelayed edges
    std::map<std::string, std::vector<float>> m_delayedValues;  ///< connection → last value
};

}  // namespace spike::engine
