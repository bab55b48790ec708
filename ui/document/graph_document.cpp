// GraphDocument: id registry, roles, layout extras and the edit primitives. See
// graph_document.hpp.
#include "ui/document/graph_document.hpp"

#include "engine/io/module_factory.hpp"
#include "engine/core/projection.hpp"

#include <QVariantList>
#include <QVariantMap>


namespace spike::ui {

using engine::Error;
using engine::Module;
using engine::Network;

namespace {

QVariantList portList(const std::vector<engine::PortSpec>& ports)
{
    QVariantList out;
    for (const auto& p : ports) {
        out.push_back(QVariantMap{{"name", QString::fromStdString(p.name)},
                                  {"offset", QVariant::fromValue<qint64>(p.offset)},
                                  {"size", QVariant::fromValue<qint64>(p.size)},
                                  {"spiking", p.spiking}});
    }
    return out;
}

}  // namespace

GraphDocument::GraphDocument(QObject* parent) : QObject(parent)
{
    m_root = std::make_unique<Network>();
    registerSubtree(*m_root, {});
}

GraphDocument::~GraphDocument()
{
    // Commands hold detached modules; free them while the document still exists.
    m_undo.clear();
}

void GraphDocument::readLayout(const nlohmann::json& extras)
{
    if (!extras.contains("layout")) {
        return;
    }
    for (const auto& [path, xy] : extras.at("layout").items()) {
        const NodeId id = findNode(path);
        if (id.valid()) {
            m_positions[id] = QPointF(xy[0].get<double>(), xy[1].get<double>());
        }
    }
}

void GraphDocument::reset(std::unique_ptr<Module> root, const nlohmann::json& extras)
{
    if (!root) {
        throw Error("GraphDocument: cannot show an empty model");
    }
    if (!extras.is_object()) {
        throw Error("GraphDocument: extras must be a JSON object");
    }
    if (extras.contains("layout")) {
        const auto& layout = extras.at("layout");
        if (!layout.is_object()) {
            throw Error("layout: expected an object mapping module paths to [x, y]");
        }
        for (const auto& [path, xy] : layout.items()) {
            if (!xy.is_array() || xy.size() != 2 || !xy[0].is_number() || !xy[1].is_number()) {
                throw Error("layout: '" + path + "': expected [x, y], got " + xy.dump());
            }
        }
    }
    m_undo.clear();
    m_ids.clear();
    m_modules.clear();
    m_connectionIds.clear();
    m_connections.clear();
    m_positions.clear();
    m_root = std::move(root);
    registerSubtree(*m_root, {});
    readLayout(extras);
    m_extras = extras;
    m_writeLayout = m_extras.contains("layout");
    m_extras.erase("layout");
    Q_EMIT documentReset();
}

void GraphDocument::fromJson(const nlohmann::json& doc, const std::string& sourceName,
                             const std::string& baseDir)
{
    engine::ModelDocument loaded = engine::modelFromJson(doc, sourceName, baseDir);
    reset(std::move(loaded.root), loaded.extras);
}

void GraphDocument::load(const std::string& path)
{
    engine::ModelDocument loaded = engine::loadModelDocument(path);
    reset(std::move(loaded.root), loaded.extras);
}

void GraphDocument::setExtra(const std::string& key, const nlohmann::json& value)
{
    if (key == "layout") {
        throw Error("GraphDocument: the \"layout\" extras are made from the node positions");
    }
    if (value.is_null()) {
        m_extras.erase(key);
    } else {
        m_extras[key] = value;
    }
}

nlohmann::json GraphDocument::toJson() const
{
    nlohmann::json extras = m_extras;
    nlohmann::json layout = nlohmann::json::object();
    for (const auto& [id, p] : m_positions) {
        if (const Module* m = module(id)) {
            layout[m->fullName()] = {p.x(), p.y()};
        }
    }
    if (m_writeLayout || !layout.empty()) {
        extras["layout"] = std::move(layout);
    }
    return engine::modelToJson(*m_root, {}, {}, {}, extras);
}

void GraphDocument::save(const std::string& path) const
{
    nlohmann::json doc = toJson();
    nlohmann::json extras = nlohmann::json::object();
    for (const auto& [key, value] : doc.items()) {
        if (key != "format" && key != "version" && key != "model") {
            extras[key] = value;
        }
    }
    engine::saveModel(path, *m_root, {}, extras);
}

// ---- ids ---------------------------------------------------------------------------------

std::vector<NodeId> GraphDocument::registerSubtree(Module& subtree, const std::vector<NodeId>& reuse)
{
    std::vector<NodeId> ids;
    const auto modules = subtree.namedModules();
    for (std::size_t i = 0; i < modules.size(); ++i) {
        const NodeId id = i < reuse.size() && reuse[i].valid() ? reuse[i] : NodeId{m_nextId++};
        m_ids[modules[i].second] = id;
        m_modules[id.value] = modules[i].second;
        ids.push_back(id);
    }
    for (const auto& [p, m] : modules) {
        if (auto* net = dynamic_cast<Network*>(m)) {
            for (const auto& c : net->connections()) {
                (void)connectionIdFor(m_ids.at(m), c.name);
            }
        }
    }
    return ids;
}

std::vector<NodeId> GraphDocument::unregisterSubtree(const Module& subtree)
{
    std::vector<NodeId> ids;
    for (const auto& [p, m] : subtree.namedModules()) {
        const auto it = m_ids.find(m);
        ids.push_back(it->second);
        m_modules.erase(it->second.value);
        m_ids.erase(it);
    }
    return ids;
}

ConnectionId GraphDocument::connectionIdFor(NodeId network, const std::string& name)
{
    const auto key = std::make_pair(network.value, name);
    if (const auto it = m_connectionIds.find(key); it != m_connectionIds.end()) {
        return it->second;
    }
    const ConnectionId id{m_nextId++};
    m_connectionIds[key] = id;
    m_connections[id.value] = {network, name};
    return id;
}

NodeId GraphDocument::rootId() const
{
    return nodeId(*m_root);
}

NodeId GraphDocument::findNode(const std::string& path) const
{
    try {
        return nodeId(m_root->getSubmodule(path));
    } catch (const Error&) {
        return {};
    }
}

NodeId GraphDocument::nodeId(const Module& module) const
{
    const auto it = m_ids.find(&module);
    return it == m_ids.end() ? NodeId{} : it->second;
}

Module* GraphDocument::module(NodeId id) const
{
    const auto it = m_modules.find(id.value);
    return it == m_modules.end() ? nullptr : it->second;
}

Network* GraphDocument::network(NodeId id) const
{
    return dynamic_cast<Network*>(module(id));
}

std::string GraphDocument::path(NodeId id) const
{
    const Module* m = module(id);
    return m == nullptr ? std::string() : m->fullName();
}

NodeId GraphDocument::parentOf(NodeId id) const
{
    const Module* m = module(id);
    return m == nullptr || m->parent() == nullptr ? NodeId{} : nodeId(*m->parent());
}

std::vector<NodeId> GraphDocument::children(NodeId id) const
{
    std::vector<NodeId> out;
    if (const Module* m = module(id)) {
        for (const auto& [n, c] : m->namedChildren()) {
            out.push_back(nodeId(*c));
        }
    }
    return out;
}

std::vector<NodeId> GraphDocument::graphNodes(NodeId network) const
{
    std::vector<NodeId> out;
    if (const Network* net = this->network(network)) {
        for (const auto& [n, c] : net->nodes()) {
            out.push_back(nodeId(*c));
        }
    }
    return out;
}

QVariant GraphDocument::nodeData(NodeId id, NodeRole role) const
{
    const Module* m = module(id);
    if (m == nullptr) {
        return {};
    }
    const auto* parentNet = dynamic_cast<const Network*>(m->parent());
    switch (role) {
    case NodeRole::Type: return QString::fromStdString(m->className());
    case NodeRole::Name: return QString::fromStdString(m->name());
    case NodeRole::Path: return QString::fromStdString(m->fullName());
    case NodeRole::Shape: {
        QVariantList shape;
        for (const auto d : m->shape()) {
            shape.push_back(QVariant::fromValue<qint64>(d));
        }
        return shape;
    }
    case NodeRole::InputPorts: return portList(m->inputPorts());
    case NodeRole::OutputPorts: return portList(m->outputPorts());
    case NodeRole::Position: {
        const auto p = position(id);
        return p ? QVariant(*p) : QVariant();
    }
    case NodeRole::Container: {
        const engine::ModuleTypeInfo* info = engine::findModuleType(m->className());
        return info != nullptr && info->container;
    }
    case NodeRole::Composite: {
        const engine::ModuleTypeInfo* info = engine::findModuleType(m->className());
        return (info == nullptr || !info->container) && m->childCount() > 0;
    }
    case NodeRole::IsNetwork: return dynamic_cast<const Network*>(m) != nullptr;
    case NodeRole::IsProjection:
        return parentNet != nullptr && parentNet->findConnection(m->name()) != nullptr;
    }
    return {};
}

std::optional<QPointF> GraphDocument::position(NodeId id) const
{
    const auto it = m_positions.find(id);
    if (it == m_positions.end() || !contains(id)) {
        return std::nullopt;
    }
    return it->second;
}

// ---- connections -------------------------------------------------------------------------

std::vector<ConnectionId> GraphDocument::connections(NodeId network) const
{
    std::vector<ConnectionId> out;
    if (const Network* net = this->network(network)) {
        for (const auto& c : net->connections()) {
            out.push_back(findConnection(network, c.name));
        }
    }
    return out;
}

ConnectionId GraphDocument::findConnection(NodeId network, const std::string& name) const
{
    const Network* net = this->network(network);
    if (net == nullptr || net->findConnection(name) == nullptr) {
        return {};
    }
    const auto it = m_connectionIds.find(std::make_pair(network.value, name));
    return it == m_connectionIds.end() ? ConnectionId{} : it->second;
}

std::optional<ConnectionInfo> GraphDocument::connection(ConnectionId id) const
{
    const auto it = m_connections.find(id.value);
    if (it == m_connections.end()) {
        return std::nullopt;
    }
    const Network* net = network(it->second.first);
    const engine::Connection* c =
        net == nullptr ? nullptr : net->findConnection(it->second.second);
    if (c == nullptr) {
        return std::nullopt;
    }
    ConnectionInfo info{it->second.first, c->name, c->from, c->to, c->delayed, {}};
    if (c->hasProjection) {
        info.projection = nodeId(*net->projection(c->name));
    }
    return info;
}

std::size_t GraphDocument::connectionIndex(ConnectionId id) const
{
    const auto info = connection(id);
    if (!info) {
        throw Error("GraphDocument: no such connection");
    }
    return network(info->network)->connectionIndex(info->name);
}

// ---- primitives --------------------------------------------------------------------------

NodeId GraphDocument::insertNode(NodeId network, std::size_t index, const std::string& name,
                                 DetachedModule& node)
{
    Network* net = this->network(network);
    if (net == nullptr) {
        throw Error("GraphDocument: nodes can only be added to a Network");
    }
    Module& added = net->insertNode(index, name, std::move(node.module));
    const NodeId id = registerSubtree(added, node.ids).front();
    node.ids.clear();
    Q_EMIT subtreeInserted(network, id);
    Q_EMIT nodeAdded(id);
    return id;
}

DetachedModule GraphDocument::detachNode(NodeId id)
{
    Module* m = module(id);
    Network* net = m == nullptr ? nullptr : dynamic_cast<Network*>(m->parent());
    if (net == nullptr || net->findConnection(m->name()) != nullptr) {
        throw Error("GraphDocument: only a Network's nodes can be removed");
    }
    for (const auto& c : net->connections()) {
        if (c.from.node == m->name() || c.to.node == m->name()) {
            throw Error("GraphDocument: node '" + m->fullName() + "' is still connected ('" +
                        c.name + "')");
        }
    }
    const NodeId parent = nodeId(*net);
    Q_EMIT nodeAboutToBeRemoved(id);
    Q_EMIT subtreeAboutToBeRemoved(parent, id);
    DetachedModule out;
    out.ids = unregisterSubtree(*m);
    out.module = net->removeNode(m->name());
    Q_EMIT subtreeRemoved(parent, id);
    Q_EMIT nodeRemoved(id);
    return out;
}

ConnectionId GraphDocument::insertConnection(NodeId network, std::size_t index,
                                             DetachedConnection& c)
{
    Network* net = this->network(network);
    if (net == nullptr) {
        throw Error("GraphDocument: connections can only be made inside a Network");
    }
    if (c.projection.module && dynamic_cast<engine::Projection*>(c.projection.module.get()) == nullptr) {
        throw Error("GraphDocument: a connection's module must be a projection");
    }
    std::unique_ptr<engine::Projection> projection(
        static_cast<engine::Projection*>(c.projection.module.release()));
    const engine::Connection* madePtr = nullptr;
    try {
        madePtr = &net->insertConnection(index, c.from, c.to, std::move(projection), c.name,
                                         c.delayed);
    } catch (const Error&) {
        c.projection.module = std::move(projection);
        throw;
    }
    const engine::Connection& made = *madePtr;
    const std::string name = made.name;
    const auto key = std::make_pair(network.value, name);
    ConnectionId id = c.id;
    if (id.valid()) {
        m_connectionIds[key] = id;
        m_connections[id.value] = {network, name};
    } else {
        m_connectionIds.erase(key);
        id = connectionIdFor(network, name);
    }
    NodeId projectionId;
    if (made.hasProjection) {
        projectionId = registerSubtree(*net->projection(name), c.projection.ids).front();
        c.projection.ids.clear();
        Q_EMIT subtreeInserted(network, projectionId);
    }
    Q_EMIT connectionAdded(id);
    return id;
}

DetachedConnection GraphDocument::detachConnection(ConnectionId id)
{
    const auto info = connection(id);
    if (!info) {
        throw Error("GraphDocument: no such connection");
    }
    Network* net = network(info->network);
    Q_EMIT connectionAboutToBeRemoved(id);
    if (info->projection.valid()) {
        Q_EMIT subtreeAboutToBeRemoved(info->network, info->projection);
    }
    DetachedConnection out;
    out.id = id;
    out.name = info->name;
    out.from = info->from.toString();
    out.to = info->to.toString();
    out.delayed = info->delayed;
    if (info->projection.valid()) {
        out.projection.ids = unregisterSubtree(*module(info->projection));
    }
    out.projection.module = net->disconnect(info->name);
    m_connectionIds.erase(std::make_pair(info->network.value, info->name));
    m_connections.erase(id.value);
    if (info->projection.valid()) {
        Q_EMIT subtreeRemoved(info->network, info->projection);
    }
    Q_EMIT connectionRemoved(id);
    return out;
}

void GraphDocument::renameNode(NodeId id, const std::string& name)
{
    Module* m = module(id);
    auto* net = m == nullptr ? nullptr : dynamic_cast<Network*>(m->parent());
    if (net == nullptr) {
        throw Error("GraphDocument: only a Network's nodes can be renamed");
    }
    const std::string old = m->name();
    net->renameNode(old, name);
    if (old != name) {
        Q_EMIT nodeRenamed(id);
    }
}

void GraphDocument::renameConnection(ConnectionId id, const std::string& name)
{
    const auto info = connection(id);
    if (!info) {
        throw Error("GraphDocument: no such connection");
    }
    if (info->name == name) {
        return;
    }
    network(info->network)->renameConnection(info->name, name);
    m_connectionIds.erase(std::make_pair(info->network.value, info->name));
    m_connectionIds[std::make_pair(info->network.value, name)] = id;
    m_connections[id.value] = {info->network, name};
    Q_EMIT connectionRenamed(id);
    if (info->projection.valid()) {
        Q_EMIT nodeRenamed(info->projection);
    }
}

void GraphDocument::setPosition(NodeId id, std::optional<QPointF> position)
{
    if (!contains(id)) {
        throw Error("GraphDocument: no such node");
    }
    const auto old = this->position(id);
    if (old == position) {
        return;
    }
    if (position) {
        m_positions[id] = *position;
    } else {
        m_positions.erase(id);
    }
    Q_EMIT nodeMoved(id);
}

engine::Status GraphDocument::setAttributes(NodeId id, const engine::AttributeMap& values)
{
    Module* m = module(id);
    if (m == nullptr) {
        return engine::Status::failure("GraphDocument: no such node");
    }
    engine::Status s = m->setAttributes({{"", values}});
    if (s.ok) {
        for (const auto& [name, value] : values) {
            Q_EMIT attributeChanged(id, QString::fromStdString(name));
        }
    }
    return s;
}

}  // namespace spike::ui
