// ReplaceNodeCommand. See graph_replace.hpp.
// Thread: GUI thread only.
#include "ui/document/graph_replace.hpp"

#include "ui/document/graph_configure.hpp"

#include "engine/io/module_factory.hpp"

#include <algorithm>
#include <memory>

namespace spike::ui {

using engine::Error;

namespace {

bool samePorts(const std::vector<engine::PortSpec>& a, const std::vector<engine::PortSpec>& b)
{
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const engine::PortSpec& x, const engine::PortSpec& y) {
        return x.name == y.name && x.offset == y.offset && x.size == y.size && x.spiking == y.spiking;
    });
}

}  // namespace

ReplaceNodeCommand::ReplaceNodeCommand(GraphDocument& doc, NodeId node, std::string type, nlohmann::json config)
    : GraphCommand(doc, QStringLiteral("Replace module")), m_node(node), m_type(std::move(type)),
      m_config(std::move(config))
{
}

void ReplaceNodeCommand::apply()
{
    if (const std::string why = configureRefusal(m_doc, m_node); !why.empty()) {
        throw Error(why);
    }
    const engine::Module& old = *m_doc.module(m_node);
    const std::string name = old.name();
    setText(QStringLiteral("Replace %1 by a %2").arg(QString::fromStdString(name), QString::fromStdString(m_type)));

    // Everything is checked and built before the document is touched.
    std::unique_ptr<engine::Module> fresh = engine::createModule(m_type, m_config);
    if (!samePorts(old.inputPorts(), fresh->inputPorts()) || !samePorts(old.outputPorts(), fresh->outputPorts())) {
        throw Error("a " + m_type + " with these settings would have other ports than '" + name +
                    "': its wires could not stay");
    }
    // Every value the new module also has, one at a time: a per-neuron parameter where the new
    // module starts with one value (Izhikevich's five patterns) is taken too; what the new
    // module refuses keeps its own initial value.
    for (const engine::AttributeView& view : fresh->attributes()) {
        const std::string& attribute = view.spec->name;
        if (!view.derived && old.hasAttribute(attribute) && !old.isDerived(attribute)) {
            (void)fresh->setAttribute(attribute, old.attribute(attribute));
        }
    }

    const NodeId parent = m_doc.parentOf(m_node);
    const auto nodes = m_doc.graphNodes(parent);
    const std::size_t nodeIndex =
        static_cast<std::size_t>(std::find(nodes.begin(), nodes.end(), m_node) - nodes.begin());
    struct Wire {
        ConnectionId id;
        std::size_t index = 0;
        std::string name, from, to;
        bool delayed = false;
    };
    std::vector<Wire> wires;
    for (const ConnectionId cid : m_doc.connections(parent)) {
        const auto info = m_doc.connection(cid);
        if (info->from.node == name || info->to.node == name) {
            wires.push_back({cid, m_doc.connectionIndex(cid), info->name, info->from.toString(), info->to.toString(),
                             info->delayed});
        }
    }
    // Take the wires (last first, so each recorded index is where it goes back), then the node.
    std::sort(wires.begin(), wires.end(), [](const Wire& a, const Wire& b) { return a.index < b.index; });
    std::vector<std::shared_ptr<EditJournal::ConnectionSlot>> taken(wires.size());
    for (std::size_t k = wires.size(); k-- > 0;) {
        taken[k] = m_journal.takeConnection(wires[k].id);
    }
    m_journal.takeNode(m_node);
    auto slot = std::make_shared<EditJournal::NodeSlot>();
    slot->held.module = std::move(fresh);
    slot->held.ids = {m_node};  // the same id: position, selection and plots follow it
    if (m_journal.putNode(slot, parent, nodeIndex, name) != m_node) {
        throw Error("the new node did not keep its id");
    }
    for (std::size_t k = 0; k < wires.size(); ++k) {
        m_journal.putConnection(taken[k], parent, wires[k].index, wires[k].name, wires[k].from, wires[k].to,
                                wires[k].delayed);
    }
}

}  // namespace spike::ui
