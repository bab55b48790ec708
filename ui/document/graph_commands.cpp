// EditJournal, the command base and the simple commands (add, delete, move, connect,
// disconnect, rename, set attribute). Group, ungroup, copy and paste are in graph_grouping.cpp.
// See graph_commands.hpp.
#include "ui/document/graph_commands.hpp"

#include "engine/io/model_io.hpp"
#include "engine/io/module_factory.hpp"
#include "engine/core/projection.hpp"

#include <algorithm>
#include <cctype>

namespace spike::ui {

using engine::Error;

// ---- journal -----------------------------------------------------------------------------

/// One reversible primitive. `forward` was applied when it was recorded.
struct EditJournal::Step {
    enum class Kind { TakeNode, PutNode, TakeConnection, PutConnection, RenameNode,
                      RenameConnection, Position };
    Kind kind = Kind::Position;
    std::shared_ptr<NodeSlot> node;
    std::shared_ptr<ConnectionSlot> connection;
    NodeId id;
    ConnectionId connectionId;
    // Where a node or connection sits while in the document (recorded when taken or put).
    NodeId parent;
    std::size_t index = 0;
    std::string name, from, to;
    std::optional<bool> delayed;
    // Renames and positions.
    std::string oldName, newName;
    std::optional<QPointF> oldPosition, newPosition;

    void take(GraphDocument& doc, bool isNode)
    {
        if (isNode) {
            node->held = doc.detachNode(node->id);
        } else {
            connection->held = doc.detachConnection(connectionId);
        }
    }

    void put(GraphDocument& doc, bool isNode)
    {
        if (isNode) {
            node->id = doc.insertNode(parent, index, name, node->held);
        } else {
            DetachedConnection& c = connection->held;
            c.name = name;
            c.from = from;
            c.to = to;
            c.delayed = delayed;
            connectionId = doc.insertConnection(parent, index, c);
        }
    }

    void apply(GraphDocument& doc, bool forward)
    {
        switch (kind) {
        case Kind::TakeNode: forward ? take(doc, true) : put(doc, true); break;
        case Kind::PutNode: forward ? put(doc, true) : take(doc, true); break;
        case Kind::TakeConnection: forward ? take(doc, false) : put(doc, false); break;
        case Kind::PutConnection: forward ? put(doc, false) : take(doc, false); break;
        case Kind::RenameNode: doc.renameNode(id, forward ? newName : oldName); break;
        case Kind::RenameConnection:
            doc.renameConnection(connectionId, forward ? newName : oldName);
            break;
        case Kind::Position: doc.setPosition(id, forward ? newPosition : oldPosition); break;
        }
    }
};

EditJournal::EditJournal(GraphDocument& doc) : m_doc(&doc) {}

EditJournal::~EditJournal() = default;

void EditJournal::record(std::unique_ptr<Step> step)
{
    m_steps.push_back(std::move(step));
}

std::shared_ptr<EditJournal::NodeSlot> EditJournal::takeNode(NodeId id,
                                                             std::shared_ptr<NodeSlot> slot)
{
    auto step = std::make_unique<Step>();
    step->kind = Step::Kind::TakeNode;
    step->node = slot ? std::move(slot) : std::make_shared<NodeSlot>();
    step->node->id = id;
    step->parent = m_doc->parentOf(id);
    const auto siblings = m_doc->graphNodes(step->parent);
    step->index = static_cast<std::size_t>(
        std::find(siblings.begin(), siblings.end(), id) - siblings.begin());
    step->name = m_doc->module(id) != nullptr ? m_doc->module(id)->name() : std::string();
    step->take(*m_doc, true);
    auto out = step->node;
    record(std::move(step));
    return out;
}

NodeId EditJournal::putNode(const std::shared_ptr<NodeSlot>& slot, NodeId network,
                            std::size_t index, const std::string& name)
{
    auto step = std::make_unique<Step>();
    step->kind = Step::Kind::PutNode;
    step->node = slot;
    step->parent = network;
    step->index = index;
    step->name = name;
    step->put(*m_doc, true);
    const NodeId id = slot->id;
    record(std::move(step));
    return id;
}

std::shared_ptr<EditJournal::ConnectionSlot> EditJournal::takeConnection(
    ConnectionId id, std::shared_ptr<ConnectionSlot> slot)
{
    const auto info = m_doc->connection(id);
    if (!info) {
        throw Error("no such connection");
    }
    auto step = std::make_unique<Step>();
    step->kind = Step::Kind::TakeConnection;
    step->connection = slot ? std::move(slot) : std::make_shared<ConnectionSlot>();
    step->connectionId = id;
    step->parent = info->network;
    step->index = m_doc->connectionIndex(id);
    step->name = info->name;
    step->from = info->from.toString();
    step->to = info->to.toString();
    step->delayed = info->delayed;
    step->take(*m_doc, false);
    auto out = step->connection;
    record(std::move(step));
    return out;
}

ConnectionId EditJournal::putConnection(const std::shared_ptr<ConnectionSlot>& slot,
                                        NodeId network, std::size_t index,
                                        const std::string& name, const std::string& from,
                                        const std::string& to, std::optional<bool> delayed)
{
    auto step = std::make_unique<Step>();
    step->kind = Step::Kind::PutConnection;
    step->connection = slot;
    step->parent = network;
    step->index = index;
    step->name = name;
    step->from = from;
    step->to = to;
    step->delayed = delayed.has_value() ? delayed : slot->held.delayed;
    step->put(*m_doc, false);
    // Replays must make exactly this connection: keep the name and flag the engine chose.
    const auto made = m_doc->connection(step->connectionId);
    step->name = made->name;
    step->delayed = made->delayed;
    const ConnectionId id = step->connectionId;
    record(std::move(step));
    return id;
}

void EditJournal::renameNode(NodeId id, const std::string& name)
{
    auto step = std::make_unique<Step>();
    step->kind = Step::Kind::RenameNode;
    step->id = id;
    step->oldName = m_doc->module(id) != nullptr ? m_doc->module(id)->name() : std::string();
    step->newName = name;
    m_doc->renameNode(id, name);
    record(std::move(step));
}

void EditJournal::renameConnection(ConnectionId id, const std::string& name)
{
    const auto info = m_doc->connection(id);
    if (!info) {
        throw Error("no such connection");
    }
    auto step = std::make_unique<Step>();
    step->kind = Step::Kind::RenameConnection;
    step->connectionId = id;
    step->oldName = info->name;
    step->newName = name;
    m_doc->renameConnection(id, name);
    record(std::move(step));
}

void EditJournal::setPosition(NodeId id, std::optional<QPointF> position)
{
    auto step = std::make_unique<Step>();
    step->kind = Step::Kind::Position;
    step->id = id;
    step->oldPosition = m_doc->position(id);
    step->newPosition = position;
    m_doc->setPosition(id, position);
    record(std::move(step));
}

void EditJournal::undo()
{
    for (auto it = m_steps.rbegin(); it != m_steps.rend(); ++it) {
        (*it)->apply(*m_doc, false);
    }
}

void EditJournal::redo()
{
    for (auto& step : m_steps) {
        step->apply(*m_doc, true);
    }
}

// ---- command base ------------------------------------------------------------------------

GraphCommand::GraphCommand(GraphDocument& doc, const QString& text)
    : QUndoCommand(text), m_doc(doc), m_journal(doc)
{
}

void GraphCommand::redo()
{
    if (!m_applied) {
        m_applied = true;  // pushCommand() applied it before pushing
        return;
    }
    replay();
}

void GraphCommand::undo()
{
    revert();
}

void GraphCommand::replay()
{
    m_journal.redo();
}

void GraphCommand::revert()
{
    m_journal.undo();
}

engine::Status pushCommand(GraphDocument& doc, std::unique_ptr<GraphCommand> command)
{
    try {
        command->apply();
    } catch (const Error& e) {
        command->undo();  // rolls back the steps already made
        return engine::Status::failure(e.what());
    }
    doc.undoStack()->push(command.release());
    return engine::Status::success();
}

std::string uniqueName(const std::string& base, const std::function<bool(const std::string&)>& taken)
{
    std::string name = base;
    for (int k = 2; taken(name); ++k) {
        name = base + "_" + std::to_string(k);
    }
    return name;
}

// ---- simple commands ---------------------------------------------------------------------

namespace {

engine::Network& requireNetwork(const GraphDocument& doc, NodeId id)
{
    engine::Network* net = doc.network(id);
    if (net == nullptr) {
        throw Error(doc.contains(id) ? "'" + doc.path(id) + "' (" + doc.module(id)->className() +
                                           ") is not a Network; nodes and wires live in Networks"
                                     : std::string("no such network"));
    }
    return *net;
}

bool takenIn(const engine::Network& net, const std::string& name)
{
    if (net.findConnection(name) != nullptr) {
        return true;
    }
    for (const auto& [n, c] : net.namedChildren()) {
        if (n == name) {
            return true;
        }
    }
    return false;
}

}  // namespace

AddNodeCommand::AddNodeCommand(GraphDocument& doc, NodeId network, std::string type,
                               nlohmann::json config, std::string name,
                               std::optional<QPointF> position, nlohmann::json attributes)
    : GraphCommand(doc, QStringLiteral("Add %1").arg(QString::fromStdString(type))),
      m_network(network),
      m_type(std::move(type)),
      m_name(std::move(name)),
      m_config(std::move(config)),
      m_position(position),
      m_attributes(std::move(attributes))
{
}

void AddNodeCommand::apply()
{
    const engine::Network& net = requireNetwork(m_doc, m_network);
    auto slot = std::make_shared<EditJournal::NodeSlot>();
    slot->held.module = engine::createModule(m_type, m_config);
    if (m_attributes.is_object() && !m_attributes.empty()) {
        engine::AttributeMap values;
        for (const auto& [key, value] : m_attributes.items()) {
            values.emplace(key, engine::attributeFromJson(value, "/attributes/" + key, "."));
        }
        if (engine::Status s = slot->held.module->setAttributes({{"", values}}); !s.ok) {
            throw Error(m_type + ": " + s.message);
        }
    }
    std::string name = m_name;
    if (name.empty()) {
        std::string base = m_type;
        std::transform(base.begin(), base.end(), base.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        name = uniqueName(base, [&](const std::string& n) { return takenIn(net, n); });
    }
    m_node = m_journal.putNode(slot, m_network, net.nodes().size(), name);
    if (m_position) {
        m_journal.setPosition(m_node, m_position);
    }
}

DeleteNodesCommand::DeleteNodesCommand(GraphDocument& doc, std::vector<NodeId> nodes)
    : GraphCommand(doc, QStringLiteral("Delete")), m_nodes(std::move(nodes))
{
}

void DeleteNodesCommand::apply()
{
    if (m_nodes.empty()) {
        throw Error("nothing to delete");
    }
    for (const NodeId id : m_nodes) {
        if (!m_doc.contains(id) || m_doc.network(m_doc.parentOf(id)) == nullptr ||
            m_doc.nodeData(id, NodeRole::IsProjection).toBool()) {
            throw Error("only nodes of a Network can be deleted (delete a projection by "
                        "disconnecting its connection)");
        }
    }
    for (const NodeId id : m_nodes) {
        if (!m_doc.contains(id)) {
            continue;  // listed twice
        }
        const NodeId parent = m_doc.parentOf(id);
        const std::string name = m_doc.module(id)->name();
        const auto conns = m_doc.connections(parent);
        for (auto it = conns.rbegin(); it != conns.rend(); ++it) {
            const auto info = m_doc.connection(*it);
            if (info->from.node == name || info->to.node == name) {
                m_journal.takeConnection(*it);
            }
        }
        m_journal.takeNode(id);
    }
}

MoveNodesCommand::MoveNodesCommand(GraphDocument& doc,
                                   std::vector<std::pair<NodeId, QPointF>> targets)
    : GraphCommand(doc, QStringLiteral("Move")), m_targets(std::move(targets))
{
}

void MoveNodesCommand::apply()
{
    for (const auto& [id, p] : m_targets) {
        if (!m_doc.contains(id)) {
            throw Error("cannot move a node that is not in the document");
        }
        m_journal.setPosition(id, p);
    }
}

ConnectCommand::ConnectCommand(GraphDocument& doc, NodeId network, std::string from,
                               std::string to, std::string projectionType,
                               nlohmann::json projectionConfig, std::string name,
                               std::optional<bool> delayed)
    : GraphCommand(doc, QStringLiteral("Connect")),
      m_network(network),
      m_from(std::move(from)),
      m_to(std::move(to)),
      m_projectionType(std::move(projectionType)),
      m_name(std::move(name)),
      m_projectionConfig(std::move(projectionConfig)),
      m_delayed(delayed)
{
}

void ConnectCommand::apply()
{
    const engine::Network& net = requireNetwork(m_doc, m_network);
    auto slot = std::make_shared<EditJournal::ConnectionSlot>();
    if (!m_projectionType.empty()) {
        slot->held.projection.module = engine::createModule(m_projectionType, m_projectionConfig);
        if (dynamic_cast<engine::Projection*>(slot->held.projection.module.get()) == nullptr) {
            throw Error(m_projectionType + " is not a projection (expected DenseProjection, "
                                           "OneToOneProjection or SparseProjection)");
        }
    }
    m_connection = m_journal.putConnection(slot, m_network, net.connections().size(), m_name,
                                           m_from, m_to, m_delayed);
}

DisconnectCommand::DisconnectCommand(GraphDocument& doc, std::vector<ConnectionId> connections)
    : GraphCommand(doc, QStringLiteral("Disconnect")), m_connections(std::move(connections))
{
}

void DisconnectCommand::apply()
{
    if (m_connections.empty()) {
        throw Error("nothing to disconnect");
    }
    for (const ConnectionId id : m_connections) {
        if (m_doc.connection(id)) {
            m_journal.takeConnection(id);
        } else {
            throw Error("no such connection");
        }
    }
}

RenameCommand::RenameCommand(GraphDocument& doc, NodeId node, std::string name)
    : GraphCommand(doc, QStringLiteral("Rename")), m_node(node), m_name(std::move(name))
{
}

RenameCommand::RenameCommand(GraphDocument& doc, ConnectionId connection, std::string name)
    : GraphCommand(doc, QStringLiteral("Rename")), m_connection(connection), m_name(std::move(name))
{
}

void RenameCommand::apply()
{
    if (m_connection.valid()) {
        m_journal.renameConnection(m_connection, m_name);
    } else {
        if (m_doc.nodeData(m_node, NodeRole::IsProjection).toBool()) {
            throw Error("a projection is named after its connection; rename the connection");
        }
        m_journal.renameNode(m_node, m_name);
    }
}

SetAttributeCommand::SetAttributeCommand(GraphDocument& doc, NodeId node, std::string attribute,
                                         engine::AttributeValue value)
    : GraphCommand(doc, QStringLiteral("Set %1").arg(QString::fromStdString(attribute))),
      m_node(node),
      m_attribute(std::move(attribute)),
      m_value(std::move(value))
{
}

void SetAttributeCommand::apply()
{
    const engine::Module* m = m_doc.module(m_node);
    if (m == nullptr) {
        throw Error("no such module");
    }
    engine::AttributeMap before;
    for (const auto& view : m->attributes()) {
        if (!view.derived) {
            before.emplace(view.spec->name, *view.value);
        }
    }
    if (engine::Status s = m_doc.setAttributes(m_node, {{m_attribute, m_value}}); !s.ok) {
        throw Error(s.message);
    }
    // Undo restores every attribute the edit changed (a new delay also reshapes a ring).
    m_before.clear();
    for (auto& [name, value] : before) {
        const engine::AttributeValue& now = m->attribute(name);
        const auto* a = std::get_if<engine::Tensor>(&value);
        const auto* b = std::get_if<engine::Tensor>(&now);
        const bool same = a != nullptr && b != nullptr
                              ? a->identical(*b)
                              : a == nullptr && b == nullptr &&
                                    std::get<std::string>(value) == std::get<std::string>(now);
        if (!same || name == m_attribute) {
            m_before.emplace(name, std::move(value));
        }
    }
}

void SetAttributeCommand::replay()
{
    if (engine::Status s = m_doc.setAttributes(m_node, {{m_attribute, m_value}}); !s.ok) {
        throw Error(s.message);
    }
}

void SetAttributeCommand::revert()
{
    if (m_before.empty()) {
        return;  // refused before anything changed
    }
    if (engine::Status s = m_doc.setAttributes(m_node, m_before); !s.ok) {
        throw Error(s.message);
    }
}

bool SetAttributeCommand::mergeWith(const QUndoCommand* other)
{
    const auto* o = dynamic_cast<const SetAttributeCommand*>(other);
    if (o == nullptr || o->m_node != m_node || o->m_attribute != m_attribute) {
        return false;
    }
    m_value = o->m_value;
    // Attributes only the later edit changed had, before it, their value from before this one.
    for (const auto& [name, value] : o->m_before) {
        m_before.emplace(name, value);
    }
    return true;
}

}  // namespace spike::ui
