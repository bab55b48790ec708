// The editor's undo commands: every edit of a GraphDocument is one of these, pushed with
// pushCommand(). Commands hold the document and stable ids (NodeId, ConnectionId), never
// pointers into the tree, the scene or the selection.
//
// Structural commands (add, delete, connect, disconnect, rename, group, ungroup, paste) record
// their work in an EditJournal of primitive steps (a node or connection taken out or put in at
// an index, a rename, a position); undo replays the steps' inverses in reverse order, redo
// replays the steps, so child order, connection order, delayed flags, projections with their
// states, ids and positions come back exactly. A refused edit (the engine's reason, e.g. a
// shape mismatch) rolls back whatever it had done and is never pushed.
// Thread: GUI thread only.
#pragma once

#include "ui/document/graph_document.hpp"

#include <QUndoCommand>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace spike::ui {

/// Primitive steps of one structural edit, applied as they are recorded. See the file comment.
class EditJournal {
public:
    explicit EditJournal(GraphDocument& doc);
    ~EditJournal();
    EditJournal(const EditJournal&) = delete;
    EditJournal& operator=(const EditJournal&) = delete;

    /// Shared hand-over slot: a step that takes something out leaves it here for a later step
    /// that puts it back elsewhere (moving a node into a new group).
    struct NodeSlot {
        DetachedModule held;
        NodeId id;
    };
    struct ConnectionSlot {
        DetachedConnection held;
    };

    /// Takes graph node `id` out of its network into `slot` (a new slot when null).
    std::shared_ptr<NodeSlot> takeNode(NodeId id, std::shared_ptr<NodeSlot> slot = nullptr);
    /// Puts the slot's node into `network` at `index` as `name`; returns its id.
    NodeId putNode(const std::shared_ptr<NodeSlot>& slot, NodeId network, std::size_t index,
                   const std::string& name);
    /// Takes connection `id` out into `slot` (a new slot when null).
    std::shared_ptr<ConnectionSlot> takeConnection(ConnectionId id,
                                                   std::shared_ptr<ConnectionSlot> slot = nullptr);
    /// Connects the slot's connection in `network` at `index` with these endpoints and flag
    /// (nullopt: kept from the slot); returns its id.
    ConnectionId putConnection(const std::shared_ptr<ConnectionSlot>& slot, NodeId network,
                               std::size_t index, const std::string& name, const std::string& from,
                               const std::string& to, std::optional<bool> delayed);
    void renameNode(NodeId id, const std::string& name);
    void renameConnection(ConnectionId id, const std::string& name);
    void setPosition(NodeId id, std::optional<QPointF> position);

    /// Reverts every step, newest first.
    void undo();
    /// Applies every step again, oldest first.
    void redo();
    bool empty() const { return m_steps.empty(); }

private:
    struct Step;
    void record(std::unique_ptr<Step> step);

    GraphDocument* m_doc;
    std::vector<std::unique_ptr<Step>> m_steps;
};

/// Base of every editor command: apply() performs the edit the first time (throwing
/// engine::Error to refuse it); redo() and undo() replay it.
class GraphCommand : public QUndoCommand {
public:
    explicit GraphCommand(GraphDocument& doc, const QString& text);
    /// Performs the edit; on a thrown engine::Error the document must be unchanged.
    virtual void apply() = 0;
    void redo() override;
    void undo() override;

protected:
    /// Replays the edit after an undo (default: the journal).
    virtual void replay();
    /// Reverts the edit (default: the journal).
    virtual void revert();

    GraphDocument& m_doc;
    EditJournal m_journal;

private:
    bool m_applied = false;
};

/// Applies `command` and pushes it onto the document's undo stack. A refused edit pushes
/// nothing, leaves the document unchanged and returns the reason.
engine::Status pushCommand(GraphDocument& doc, std::unique_ptr<GraphCommand> command);

/// Adds a module built by engine::createModule(type, config) to a Network.
class AddNodeCommand : public GraphCommand {
public:
    /// `name` empty: the type in lower case, made unique. `attributes` (a JSON object of the
    /// model format's "attributes", e.g. engine::startValues(type)) are set on the new module
    /// before it enters the document; a value it refuses refuses the whole command.
    AddNodeCommand(GraphDocument& doc, NodeId network, std::string type, nlohmann::json config,
                   std::string name = {}, std::optional<QPointF> position = std::nullopt,
                   nlohmann::json attributes = nlohmann::json::object());
    void apply() override;
    /// The new node (valid after apply()).
    NodeId node() const { return m_node; }

private:
    NodeId m_network;
    std::string m_type, m_name;
    nlohmann::json m_config;
    std::optional<QPointF> m_position;
    nlohmann::json m_attributes;
    NodeId m_node;
};

/// Deletes graph nodes with every connection touching them.
class DeleteNodesCommand : public GraphCommand {
public:
    DeleteNodesCommand(GraphDocument& doc, std::vector<NodeId> nodes);
    void apply() override;

private:
    std::vector<NodeId> m_nodes;
};

/// Moves nodes (one command per drag: the positions at its start and end).
class MoveNodesCommand : public GraphCommand {
public:
    MoveNodesCommand(GraphDocument& doc, std::vector<std::pair<NodeId, QPointF>> targets);
    void apply() override;

private:
    std::vector<std::pair<NodeId, QPointF>> m_targets;
};

/// Connects two ports of one Network, optionally through a projection built by
/// engine::createModule(projectionType, projectionConfig).
class ConnectCommand : public GraphCommand {
public:
    ConnectCommand(GraphDocument& doc, NodeId network, std::string from, std::string to,
                   std::string projectionType = {}, nlohmann::json projectionConfig = {},
                   std::string name = {}, std::optional<bool> delayed = std::nullopt);
    void apply() override;
    ConnectionId connection() const { return m_connection; }

private:
    NodeId m_network;
    std::string m_from, m_to, m_projectionType, m_name;
    nlohmann::json m_projectionConfig;
    std::optional<bool> m_delayed;
    ConnectionId m_connection;
};

/// Removes connections (with their projections).
class DisconnectCommand : public GraphCommand {
public:
    DisconnectCommand(GraphDocument& doc, std::vector<ConnectionId> connections);
    void apply() override;

private:
    std::vector<ConnectionId> m_connections;
};

/// Renames a graph node or a connection.
class RenameCommand : public GraphCommand {
public:
    RenameCommand(GraphDocument& doc, NodeId node, std::string name);
    RenameCommand(GraphDocument& doc, ConnectionId connection, std::string name);
    void apply() override;

private:
    NodeId m_node;
    ConnectionId m_connection;
    std::string m_name;
};

/// Sets one attribute of one module (validate-then-commit). Consecutive edits of the same
/// attribute of the same module merge into one undo step.
class SetAttributeCommand : public GraphCommand {
public:
    static constexpr int kId = 0x5e7a;
    SetAttributeCommand(GraphDocument& doc, NodeId node, std::string attribute,
                        engine::AttributeValue value);
    void apply() override;
    int id() const override { return kId; }
    bool mergeWith(const QUndoCommand* other) override;

protected:
    void replay() override;
    void revert() override;

private:
    NodeId m_node;
    std::string m_attribute;
    engine::AttributeValue m_value;
    engine::AttributeMap m_before;  ///< every settable attribute of the module before the edit
};

/// Moves graph nodes of one Network into a new child Network with one boundary port per source
/// a cut wire reads, wired so that it simulates bit-identically (docs/editor-model.md).
class GroupCommand : public GraphCommand {
public:
    GroupCommand(GraphDocument& doc, std::vector<NodeId> nodes, std::string name = "group");
    void apply() override;
    NodeId group() const { return m_group; }

private:
    std::vector<NodeId> m_nodes;
    std::string m_name;
    NodeId m_group;
};

/// Replaces a child Network by its nodes and wiring (the inverse of GroupCommand).
class UngroupCommand : public GraphCommand {
public:
    UngroupCommand(GraphDocument& doc, NodeId group);
    void apply() override;
    /// The former group's nodes, now in the parent.
    const std::vector<NodeId>& nodes() const { return m_nodes; }

private:
    NodeId m_group;
    std::vector<NodeId> m_nodes;
};

/// Serialises graph nodes of one Network and the connections among them as a fragment
/// {"format": "spikestudio.fragment", "nodes": [...], "connections": [...], "layout": {...}}.
/// Throws engine::Error when the nodes are not all graph nodes of one Network.
nlohmann::json copyFragment(const GraphDocument& doc, const std::vector<NodeId>& nodes);

/// Pastes a fragment (from this or another document) into a Network: names made unique,
/// positions shifted by `offset`.
class PasteCommand : public GraphCommand {
public:
    PasteCommand(GraphDocument& doc, NodeId network, nlohmann::json fragment,
                 QPointF offset = {});
    void apply() override;
    const std::vector<NodeId>& nodes() const { return m_nodes; }

private:
    NodeId m_network;
    nlohmann::json m_fragment;
    QPointF m_offset;
    std::vector<NodeId> m_nodes;
};

/// `base`, or `base_2`, `base_3`... whichever `taken` refuses first.
std::string uniqueName(const std::string& base, const std::function<bool(const std::string&)>& taken);

}  // namespace spike::ui
