// ConfigureNodeCommand. See graph_configure.hpp.
// Thread: GUI thread only.
#include "ui/document/graph_configure.hpp"

#include "engine/core/projection.hpp"
#include "engine/io/module_factory.hpp"
#include "engine/io/reconfigure.hpp"

#include <algorithm>
#include <map>
#include <memory>

namespace spike::ui {

using engine::Error;

namespace {

/// Sizes of a module's ports by name, one side.
std::map<std::string, std::int64_t> portSizes(const std::vector<engine::PortSpec>& ports)
{
    std::map<std::string, std::int64_t> out;
    for (const auto& p : ports) {
        out[p.name] = p.size;
    }
    return out;
}

/// One connection touching the node, as it was and as it will be put back.
struct Touching {
    ConnectionId id;
    std::size_t index = 0;
    std::string name, from, to;
    bool delayed = false;
    /// The projection rebuilt for the new sizes (null: the connection goes back unchanged).
    std::unique_ptr<engine::Module> projection;
};

}  // namespace

std::string configureRefusal(const GraphDocument& doc, NodeId id)
{
    const engine::Module* m = doc.module(id);
    if (m == nullptr) {
        return "no such module";
    }
    if (doc.nodeData(id, NodeRole::IsProjection).toBool()) {
        return "a projection's shape follows its wire: select the wire to choose its kind";
    }
    const engine::ModuleTypeInfo* info = engine::findModuleType(m->className());
    if (info != nullptr && info->container) {
        // Rebuilding a container from its config would leave it empty: its children are the
        // user's, not its config's.
        return "the settings of a " + m->className() +
               " (its boundary ports) are read-only here: its contents are edited on the canvas";
    }
    const NodeId parent = doc.parentOf(id);
    if (!parent.valid()) {
        return "the root " + m->className() + " has no network around it: its settings are read-only here";
    }
    if (doc.network(parent) == nullptr) {
        const engine::Module* p = doc.module(parent);
        const std::string where = doc.path(parent).empty() ? "the root " + p->className()
                                                           : p->className() + " '" + doc.path(parent) + "'";
        return "'" + doc.path(id) + "' is a child of " + where +
               ", which builds it from its own configuration: only the nodes of a Network can be "
               "rebuilt from new settings";
    }
    return {};
}

ConfigureNodeCommand::ConfigureNodeCommand(GraphDocument& doc, NodeId node, nlohmann::json config)
    : GraphCommand(doc, QStringLiteral("Change settings")), m_node(node), m_config(std::move(config))
{
}

void ConfigureNodeCommand::apply()
{
    if (const std::string why = configureRefusal(m_doc, m_node); !why.empty()) {
        throw Error(why);
    }
    const engine::Module& old = *m_doc.module(m_node);
    if (old.config() == m_config) {
        throw Error("the settings are unchanged");
    }
    setText(QStringLiteral("Change settings of %1").arg(QString::fromStdString(old.name())));
    const NodeId parent = m_doc.parentOf(m_node);
    const engine::Network& net = *m_doc.network(parent);
    const std::string name = old.name();

    // Everything is checked and built before the document is touched.
    engine::Reconfigured rebuilt = engine::reconfigure(old, m_config);
    m_notes = rebuilt.notes;
    const auto newIn = portSizes(rebuilt.module->inputPorts());
    const auto newOut = portSizes(rebuilt.module->outputPorts());

    /// Size of end `text` of a connection after the change (`asSource`: an output port).
    const auto sizeAfter = [&](const engine::Endpoint& end, const std::string& wire, bool asSource) {
        if (end.node != name) {
            return net.resolve(end.toString(), asSource).second.size;
        }
        const auto& sizes = asSource ? newOut : newIn;
        const auto it = sizes.find(end.port);
        if (it == sizes.end()) {
            throw Error("wire '" + wire + "': '" + name + "' would have no " + (asSource ? "output" : "input") +
                        " port '" + end.port + "' with these settings; delete the wire first");
        }
        return it->second;
    };

    std::vector<Touching> touching;
    const auto nodes = m_doc.graphNodes(parent);
    const std::size_t nodeIndex =
        static_cast<std::size_t>(std::find(nodes.begin(), nodes.end(), m_node) - nodes.begin());
    for (const ConnectionId cid : m_doc.connections(parent)) {
        const auto info = m_doc.connection(cid);
        if (info->from.node != name && info->to.node != name) {
            continue;
        }
        Touching t;
        t.id = cid;
        t.index = m_doc.connectionIndex(cid);
        t.name = info->name;
        t.from = info->from.toString();
        t.to = info->to.toString();
        t.delayed = info->delayed;
        const std::int64_t src = sizeAfter(info->from, info->name, true);
        const std::int64_t dst = sizeAfter(info->to, info->name, false);
        const std::string ends = " (" + t.from + " -> " + t.to + ")";
        const engine::Projection* projection = net.projection(info->name);
        if (projection == nullptr) {
            if (src != dst) {
                throw Error("wire '" + info->name + "'" + ends + " has no projection and would join " +
                            std::to_string(src) + " channels to " + std::to_string(dst) +
                            "; give it a projection first (select the wire and choose Dense or Sparse)");
            }
        } else {
            const bool square = projection->className() == "OneToOneProjection";
            if (square && src != dst) {
                throw Error("wire '" + info->name + "': a one-to-one projection needs equal sizes (" +
                            std::to_string(src) + " -> " + std::to_string(dst) +
                            "); choose Dense or Sparse on the wire first");
            }
            nlohmann::json config = projection->config();
            const nlohmann::json shape = square ? nlohmann::json::array({src}) : nlohmann::json::array({src, dst});
            if (!config.is_object() || config.value("shape", nlohmann::json()) != shape) {
                if (!config.is_object()) {
                    config = nlohmann::json::object();
                }
                config["shape"] = shape;
                engine::Reconfigured p = engine::reconfigure(*projection, config);
                for (const std::string& note : p.notes) {
                    m_notes.push_back("wire '" + info->name + "': " + note);
                }
                t.projection = std::move(p.module);
            }
        }
        touching.push_back(std::move(t));
    }

    // Take the wires (last first, so each recorded index is where it goes back), then the node.
    std::sort(touching.begin(), touching.end(), [](const Touching& a, const Touching& b) { return a.index < b.index; });
    std::vector<std::shared_ptr<EditJournal::ConnectionSlot>> taken(touching.size());
    for (std::size_t k = touching.size(); k-- > 0;) {
        taken[k] = m_journal.takeConnection(touching[k].id);
    }
    m_journal.takeNode(m_node);
    auto slot = std::make_shared<EditJournal::NodeSlot>();
    slot->held.module = std::move(rebuilt.module);
    slot->held.ids = {m_node};  // the same id: position, selection and plots follow it
    if (m_journal.putNode(slot, parent, nodeIndex, name) != m_node) {
        throw Error("the rebuilt node did not keep its id");
    }
    for (std::size_t k = 0; k < touching.size(); ++k) {
        Touching& t = touching[k];
        std::shared_ptr<EditJournal::ConnectionSlot> back = taken[k];
        if (t.projection) {
            // A new slot, so that undo puts the old projection back; the ids stay.
            back = std::make_shared<EditJournal::ConnectionSlot>();
            back->held.id = taken[k]->held.id;
            back->held.projection.module = std::move(t.projection);
            if (!taken[k]->held.projection.ids.empty()) {
                back->held.projection.ids = {taken[k]->held.projection.ids.front()};
            }
        }
        m_journal.putConnection(back, parent, t.index, t.name, t.from, t.to, t.delayed);
    }
}

}  // namespace spike::ui
