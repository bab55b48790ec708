// GraphDocument: the editor's document model over an engine module tree, in the spirit of
// QtNodes' AbstractGraphModel: stable ids, roles and fine-grained signals. The canvas, the
// module-tree view and the inspector observe it; none of them edits the engine directly.
//
// Owns: the root module (an empty Network for a new document; any tree can be loaded), the
// id registry (every module of the tree has a NodeId, every connection of every Network a
// ConnectionId; ids are never reused and survive renames, moves between networks and
// undo/redo, because commands hold detached modules together with their ids), per-node
// positions (written as the model file's "layout" extras, {"path": [x, y]}), the other extras
// (passed through) and the undo stack.
// Invariants: every module in the tree has exactly one NodeId; a detached module has none (its
// ids travel with it in a DetachedModule); toJson() is deterministic (sorted keys), so equal
// documents serialise byte for byte the same.
// Edits: the primitives below change the tree and emit their signals; they are meant for the
// undo commands (graph_commands.hpp) - views push commands, never call primitives.
// Thread: GUI thread only.
#pragma once

#include "engine/io/model_io.hpp"
#include "engine/network/network.hpp"

#include <QMetaType>
#include <QObject>
#include <QPointF>
#include <QUndoStack>
#include <QVariant>

#include <nlohmann/json.hpp>

#include <compare>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace spike::ui {

/// Stable id of one module of the document (0: none).
struct NodeId {
    std::uint64_t value = 0;
    bool valid() const { return value != 0; }
    auto operator<=>(const NodeId&) const = default;
};

/// Stable id of one connection of one Network of the document (0: none).
struct ConnectionId {
    std::uint64_t value = 0;
    bool valid() const { return value != 0; }
    auto operator<=>(const ConnectionId&) const = default;
};

/// What nodeData() can tell about a node.
enum class NodeRole {
    Type,         ///< QString: className()
    Name,         ///< QString: name within the parent ("" for the root)
    Path,         ///< QString: dotted path ("" for the root)
    Shape,        ///< QVariantList of qint64: shape()
    InputPorts,   ///< QVariantList of QVariantMap {name, offset, size, spiking}
    OutputPorts,  ///< as InputPorts
    Position,     ///< QPointF, or an invalid QVariant when the node has none
    Container,    ///< bool: holds child modules the user may edit (Network, Sequential, ...)
    Composite,    ///< bool: builds its own children from its config (ResBlock, MLP, ...)
    IsNetwork,    ///< bool: a Network (wired explicitly; accepts nodes and connections)
    IsProjection, ///< bool: a connection's projection rather than a graph node
};

/// One connection as the document sees it.
struct ConnectionInfo {
    NodeId network;               ///< the Network holding it
    std::string name;
    engine::Endpoint from;
    engine::Endpoint to;
    bool delayed = false;
    NodeId projection;            ///< invalid when the connection passes values through
};

/// A module subtree taken out of the document, with the ids of its modules (in
/// Module::namedModules() order) so that putting it back restores them.
struct DetachedModule {
    std::unique_ptr<engine::Module> module;
    std::vector<NodeId> ids;  ///< empty for a module never in the document
};

/// A connection taken out of a network: its wiring, projection and id.
struct DetachedConnection {
    ConnectionId id;               ///< invalid for a connection never in the document
    std::string name;
    std::string from;              ///< "node.port", "in"
    std::string to;                ///< "node.port", "out"
    std::optional<bool> delayed;   ///< nullopt: the engine decides (closes a cycle or not)
    DetachedModule projection;     ///< module null: pass-through
};

/// The editor's document model; see the file comment.
class GraphDocument : public QObject {
    Q_OBJECT

public:
    /// A new document: an empty Network root, no layout.
    explicit GraphDocument(QObject* parent = nullptr);
    ~GraphDocument() override;

    // ---- whole document -------------------------------------------------------------------
    /// Replaces the tree and extras (a "layout" entry gives positions). Clears the undo stack
    /// and emits documentReset(). Throws engine::Error for a malformed layout (tree unchanged).
    void reset(std::unique_ptr<engine::Module> root,
               const nlohmann::json& extras = nlohmann::json::object());
    /// Loads a parsed model document (engine model_io); throws engine::Error, keeping the
    /// current document on failure.
    void fromJson(const nlohmann::json& doc, const std::string& sourceName = "document",
                  const std::string& baseDir = ".");
    /// The model document with the layout in its "layout" extras (arrays inline).
    nlohmann::json toJson() const;
    /// Loads / saves a model file; throw engine::Error.
    void load(const std::string& path);
    void save(const std::string& path) const;

    /// The document's extras other than "layout" (e.g. "plots"), as loaded; saved back as they are.
    const nlohmann::json& extras() const { return m_extras; }
    /// Sets the extras entry `key` ("plots"; not "layout", which the positions make), written
    /// with the next save; a null `value` removes it. Not an undoable edit: a view's state.
    void setExtra(const std::string& key, const nlohmann::json& value);
    QUndoStack* undoStack() { return &m_undo; }
    const engine::Module& root() const { return *m_root; }

    // ---- nodes ----------------------------------------------------------------------------
    NodeId rootId() const;
    /// Id of the module at dotted `path` ("" is the root); invalid when there is none.
    NodeId findNode(const std::string& path) const;
    /// Id of a module of the tree; invalid when it is not in the document.
    NodeId nodeId(const engine::Module& module) const;
    /// The module, or nullptr when `id` is not in the document.
    engine::Module* module(NodeId id) const;
    /// The module as a Network, or nullptr.
    engine::Network* network(NodeId id) const;
    bool contains(NodeId id) const { return module(id) != nullptr; }
    std::string path(NodeId id) const;
    NodeId parentOf(NodeId id) const;
    /// Every child module (nodes and projections), in child order.
    std::vector<NodeId> children(NodeId id) const;
    /// The graph nodes of a Network (Network::nodes() order); empty for other modules.
    std::vector<NodeId> graphNodes(NodeId network) const;
    QVariant nodeData(NodeId id, NodeRole role) const;
    std::optional<QPointF> position(NodeId id) const;

    // ---- connections ----------------------------------------------------------------------
    /// Connections of a Network, in summation order; empty for other modules.
    std::vector<ConnectionId> connections(NodeId network) const;
    /// The connection called `name` in `network`; invalid when absent.
    ConnectionId findConnection(NodeId network, const std::string& name) const;
    /// The connection, or nullopt when it is not in the document.
    std::optional<ConnectionInfo> connection(ConnectionId id) const;
    /// Position of the connection in its network's list.
    std::size_t connectionIndex(ConnectionId id) const;

    // ---- primitives for undo commands (each emits its signals; throw engine::Error) --------
    /// Puts `node` into Network `network` at nodes() position `index` as `name`. `node` is
    /// moved from only on success.
    NodeId insertNode(NodeId network, std::size_t index, const std::string& name,
                      DetachedModule& node);
    /// Takes a graph node (no connection may touch it) out of its Network.
    DetachedModule detachNode(NodeId id);
    /// Connects in `network` at position `index`; the connection's id is kept when valid.
    /// `c`'s projection is moved from only on success (a refused connection leaves it).
    ConnectionId insertConnection(NodeId network, std::size_t index, DetachedConnection& c);
    /// Disconnects, returning everything needed to connect it again unchanged.
    DetachedConnection detachConnection(ConnectionId id);
    void renameNode(NodeId id, const std::string& name);
    void renameConnection(ConnectionId id, const std::string& name);
    /// Sets (or with nullopt clears) a node's position.
    void setPosition(NodeId id, std::optional<QPointF> position);
    /// Validate-then-commit on one module; on success emits attributeChanged per attribute.
    engine::Status setAttributes(NodeId id, const engine::AttributeMap& values);

Q_SIGNALS:
    /// The whole tree was replaced (load, reset); every id is new. Not emitted for edits.
    void documentReset();
    /// A graph node (a Network's node, with its subtree) entered the document.
    void nodeAdded(spike::ui::NodeId id);
    /// A graph node is about to leave (still resolvable) / has left (no longer resolvable).
    void nodeAboutToBeRemoved(spike::ui::NodeId id);
    void nodeRemoved(spike::ui::NodeId id);
    /// A node's position changed.
    void nodeMoved(spike::ui::NodeId id);
    /// A module (graph node or projection) was renamed; paths below it changed.
    void nodeRenamed(spike::ui::NodeId id);
    /// A module subtree (a graph node or a connection's projection) was inserted under
    /// `parent` / is about to be removed / was removed from under `parent`.
    void subtreeInserted(spike::ui::NodeId parent, spike::ui::NodeId root);
    void subtreeAboutToBeRemoved(spike::ui::NodeId parent, spike::ui::NodeId root);
    void subtreeRemoved(spike::ui::NodeId parent, spike::ui::NodeId root);
    void connectionAdded(spike::ui::ConnectionId id);
    void connectionAboutToBeRemoved(spike::ui::ConnectionId id);
    void connectionRemoved(spike::ui::ConnectionId id);
    void connectionRenamed(spike::ui::ConnectionId id);
    /// One attribute of a module changed value.
    void attributeChanged(spike::ui::NodeId id, const QString& attribute);

private:
    /// Gives every module of `subtree` an id (`reuse` in namedModules() order when given) and
    /// every connection of its networks one.
    std::vector<NodeId> registerSubtree(engine::Module& subtree, const std::vector<NodeId>& reuse);
    std::vector<NodeId> unregisterSubtree(const engine::Module& subtree);
    ConnectionId connectionIdFor(NodeId network, const std::string& name);
    void readLayout(const nlohmann::json& extras);

    std::unique_ptr<engine::Module> m_root;
    nlohmann::json m_extras = nlohmann::json::object();  ///< without "layout"
    bool m_writeLayout = false;  ///< the loaded document had a "layout" entry
    std::uint64_t m_nextId = 1;
    std::unordered_map<const engine::Module*, NodeId> m_ids;
    std::unordered_map<std::uint64_t, engine::Module*> m_modules;
    std::map<std::pair<std::uint64_t, std::string>, ConnectionId> m_connectionIds;
    std::map<std::uint64_t, std::pair<NodeId, std::string>> m_connections;
    std::map<NodeId, QPointF> m_positions;
    QUndoStack m_undo;
};

}  // namespace spike::ui

Q_DECLARE_METATYPE(spike::ui::NodeId)
Q_DECLARE_METATYPE(spike::ui::ConnectionId)
