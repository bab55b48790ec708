// GroupCommand, UngroupCommand, copyFragment and PasteCommand. See graph_commands.hpp and
// docs/editor-model.md.
//
// Bit-identical grouping. The executor sums the wires into a port in connection order, starting
// from zero, and a pass-through wire copies values exactly. Group therefore gives the new
// network one named boundary port per source that a cut wire reads:
//   input side: one port per (outside source port, delay flag). One pass-through wire outside
//     (carrying the delay, so the parent still sees every cycle's delay) copies the source into
//     the port; inside, every cut wire reads "in.<port>" with its projection, name and summation
//     position unchanged.
//   output side: one port per inside source port. One pass-through wire inside copies the source
//     into "out.<port>"; outside, every cut wire reads "<group>.<port>" with its projection,
//     delay flag and position among its target's inputs unchanged.
// So any selection groups, whatever its wiring (a group whose parent would then hold an undelayed
// cycle is refused with the engine's reason). Ungroup dissolves each boundary port whose one side
// is a single pass-through wire (first into its target when it is the inner or outer wire that
// goes away last), the shape Group makes, and refuses the others with the reason.
#include "ui/document/graph_commands.hpp"

#include "engine/io/model_io.hpp"

#include <algorithm>
#include <set>

namespace spike::ui {

using engine::Connection;
using engine::Error;
using engine::Network;

namespace {

using ConnSlot = std::shared_ptr<EditJournal::ConnectionSlot>;

bool anyDelayed(const std::vector<Connection>& conns)
{
    return std::any_of(conns.begin(), conns.end(), [](const Connection& c) { return c.delayed; });
}

/// Whether, among `all` connections into `target`, every one `inSet` comes before every one not.
bool crossingFirst(const std::vector<Connection>& all, const engine::Endpoint& target,
                   const std::function<bool(const Connection&)>& inSet)
{
    bool seenOther = false;
    for (const auto& c : all) {
        if (!(c.to == target)) {
            continue;
        }
        if (!inSet(c)) {
            seenOther = true;
        } else if (seenOther) {
            return false;
        }
    }
    return true;
}

std::set<std::string> namesOf(const Network& net)
{
    std::set<std::string> out;
    for (const auto& [n, c] : net.namedChildren()) {
        out.insert(n);
    }
    for (const auto& c : net.connections()) {
        out.insert(c.name);
    }
    return out;
}

std::string claim(std::set<std::string>& taken, const std::string& base)
{
    const std::string name =
        uniqueName(base, [&](const std::string& n) { return taken.count(n) > 0 || n == "in" || n == "out"; });
    taken.insert(name);
    return name;
}

std::string renamedEnd(const engine::Endpoint& e, const std::map<std::string, std::string>& names)
{
    if (e.node.empty()) {
        return e.port;
    }
    const auto it = names.find(e.node);
    return (it == names.end() ? e.node : it->second) + "." + e.port;
}

}  // namespace

// ---- group -------------------------------------------------------------------------------

GroupCommand::GroupCommand(GraphDocument& doc, std::vector<NodeId> nodes, std::string name)
    : GraphCommand(doc, QStringLiteral("Group")), m_nodes(std::move(nodes)), m_name(std::move(name))
{
}

void GroupCommand::apply()
{
    if (m_nodes.empty()) {
        throw Error("cannot group: nothing is selected");
    }
    const NodeId parent = m_doc.parentOf(m_nodes.front());
    const Network* net = m_doc.network(parent);
    std::set<std::string> selected;
    for (const NodeId id : m_nodes) {
        if (!m_doc.contains(id) || m_doc.parentOf(id) != parent || net == nullptr ||
            m_doc.nodeData(id, NodeRole::IsProjection).toBool()) {
            throw Error("cannot group: the selected nodes must all be nodes of one Network");
        }
        selected.insert(m_doc.module(id)->name());
    }
    const std::vector<Connection> conns = net->connections();
    auto inside = [&](const engine::Endpoint& e) { return !e.node.empty() && selected.count(e.node) > 0; };

    // The boundary ports, in the order their first wire appears.
    struct Port {
        std::string name;
        std::string source;  ///< the source endpoint whose values it carries
        bool delayed = false;
        std::int64_t size = 0;
    };
    std::vector<Port> inPorts;
    std::vector<Port> outPorts;
    std::map<std::pair<std::string, bool>, std::size_t> inIndex;
    std::map<std::string, std::size_t> outIndex;
    std::set<std::string> inNames;
    std::set<std::string> outNames;
    const auto portBase = [&](const engine::Endpoint& e) {
        if (e.node.empty()) {
            const auto dot = e.port.find('.');
            return dot == std::string::npos ? std::string("input") : e.port.substr(dot + 1);
        }
        return net->getSubmodule(e.node).outputPorts().size() == 1 ? e.node : e.node + "_" + e.port;
    };
    for (const auto& c : conns) {
        const std::string source = c.from.toString();
        if (inside(c.to) && !inside(c.from) && inIndex.count({source, c.delayed}) == 0) {
            inIndex[{source, c.delayed}] = inPorts.size();
            inPorts.push_back({claim(inNames, portBase(c.from)), source, c.delayed,
                               net->resolve(source, true).second.size});
        } else if (inside(c.from) && !inside(c.to) && outIndex.count(source) == 0) {
            outIndex[source] = outPorts.size();
            outPorts.push_back({claim(outNames, portBase(c.from)), source, false,
                                net->resolve(source, true).second.size});
        }
    }
    std::vector<engine::BoundaryPort> inSpec;
    std::vector<engine::BoundaryPort> outSpec;
    for (const Port& p : inPorts) {
        inSpec.push_back({p.name, p.size});
    }
    for (const Port& p : outPorts) {
        outSpec.push_back({p.name, p.size});
    }

    std::set<std::string> parentNames = namesOf(*net);
    const std::string group = claim(parentNames, m_name.empty() ? "group" : m_name);
    std::set<std::string> innerNames(selected.begin(), selected.end());
    for (const auto& c : conns) {
        if (inside(c.from) || inside(c.to)) {
            innerNames.insert(c.name);
        }
    }

    try {
        // Take the wires touching the selection, then the nodes, keeping their order.
        std::map<std::string, ConnSlot> wireSlots;
        const auto ids = m_doc.connections(parent);
        for (std::size_t i = conns.size(); i-- > 0;) {
            if (inside(conns[i].from) || inside(conns[i].to)) {
                wireSlots[conns[i].name] = m_journal.takeConnection(ids[i]);
            }
        }
        const auto siblings = m_doc.graphNodes(parent);
        std::size_t groupIndex = 0;
        bool before = true;
        std::vector<std::pair<std::string, std::shared_ptr<EditJournal::NodeSlot>>> moved;
        for (const NodeId id : siblings) {
            const bool sel = selected.count(m_doc.module(id)->name()) > 0;
            before = before && !sel;
            groupIndex += before ? 1 : 0;
        }
        for (auto it = siblings.rbegin(); it != siblings.rend(); ++it) {
            const std::string name = m_doc.module(*it)->name();
            if (selected.count(name) > 0) {
                moved.emplace_back(name, m_journal.takeNode(*it));
            }
        }
        std::reverse(moved.begin(), moved.end());
        auto groupSlot = std::make_shared<EditJournal::NodeSlot>();
        groupSlot->held.module = std::make_unique<Network>(inSpec, outSpec);
        m_group = m_journal.putNode(groupSlot, parent, groupIndex, group);
        for (std::size_t k = 0; k < moved.size(); ++k) {
            m_journal.putNode(moved[k].second, m_group, k, moved[k].first);
        }
        // Inner wires, in the parent's order.
        std::size_t inner = 0;
        std::set<std::size_t> outDone;
        for (const auto& c : conns) {
            if (inside(c.from) && inside(c.to)) {
                m_journal.putConnection(wireSlots[c.name], m_group, inner++, c.name, c.from.toString(),
                                        c.to.toString(), c.delayed);
            } else if (inside(c.to)) {
                const Port& port = inPorts[inIndex.at({c.from.toString(), c.delayed})];
                m_journal.putConnection(wireSlots[c.name], m_group, inner++, c.name, "in." + port.name,
                                        c.to.toString(), false);
            } else if (inside(c.from)) {
                const std::size_t k = outIndex.at(c.from.toString());
                if (outDone.insert(k).second) {
                    m_journal.putConnection(std::make_shared<EditJournal::ConnectionSlot>(), m_group,
                                            inner++, claim(innerNames, c.from.node + "_to_out"),
                                            c.from.toString(), "out." + outPorts[k].name, false);
                }
            }
        }
        // Outer wires, where the crossing wires were.
        std::size_t outer = 0;
        std::set<std::size_t> inDone;
        for (const auto& c : conns) {
            const bool in = inside(c.to) && !inside(c.from);
            const bool out = inside(c.from) && !inside(c.to);
            if (!in && !out) {
                outer += inside(c.from) ? 0 : 1;
                continue;
            }
            if (in) {
                const std::size_t k = inIndex.at({c.from.toString(), c.delayed});
                if (inDone.insert(k).second) {
                    const std::string from = c.from.node.empty() ? "in" : c.from.node;
                    m_journal.putConnection(std::make_shared<EditJournal::ConnectionSlot>(), parent,
                                            outer++, claim(parentNames, from + "_to_" + group),
                                            c.from.toString(), group + "." + inPorts[k].name,
                                            inPorts[k].delayed);
                }
            } else {
                const Port& port = outPorts[outIndex.at(c.from.toString())];
                m_journal.putConnection(wireSlots[c.name], parent, outer++, c.name, group + "." + port.name,
                                        c.to.toString(), c.delayed);
            }
        }
        // The group sits at the centre of its nodes.
        QPointF sum;
        int placed = 0;
        for (const NodeId id : m_nodes) {
            if (const auto p = m_doc.position(id)) {
                sum += *p;
                ++placed;
            }
        }
        if (placed > 0) {
            m_journal.setPosition(m_group, sum / placed);
        }
    } catch (const Error& e) {
        throw Error(std::string("cannot group: ") + e.what());
    }
}

// ---- ungroup -----------------------------------------------------------------------------

UngroupCommand::UngroupCommand(GraphDocument& doc, NodeId group)
    : GraphCommand(doc, QStringLiteral("Ungroup")), m_group(group)
{
}

void UngroupCommand::apply()
{
    const Network* inner = m_doc.network(m_group);
    const NodeId parent = m_doc.parentOf(m_group);
    const Network* net = m_doc.network(parent);
    if (inner == nullptr || net == nullptr) {
        throw Error("cannot ungroup: only a Network inside a Network can be ungrouped");
    }
    const std::string gName = inner->name();
    const std::vector<Connection> innerConns = inner->connections();
    const std::vector<Connection> conns = net->connections();
    // Boundary keys as the inside writes them: "in", "in.exc", "out", "out.rate".
    const auto outerKey = [](const std::string& side, const std::string& port) {
        return port == side ? side : side + "." + port;
    };
    std::map<std::string, std::vector<Connection>> fromIn;
    std::map<std::string, std::vector<Connection>> toOut;
    std::map<std::string, std::vector<Connection>> intoG;
    std::map<std::string, std::vector<Connection>> fromG;
    for (const auto& c : innerConns) {
        if (c.from.node.empty() && c.to.node.empty()) {
            throw Error("cannot ungroup '" + gName + "': connection '" + c.name +
                        "' wires its input straight to its output");
        }
        if (c.from.node.empty()) {
            if (c.from.port == "in" && !inner->boundaryInputs().empty()) {
                throw Error("cannot ungroup '" + gName + "': connection '" + c.name +
                            "' reads its whole input across several ports");
            }
            fromIn[c.from.port].push_back(c);
        }
        if (c.to.node.empty()) {
            if (c.to.port == "out" && !inner->boundaryOutputs().empty()) {
                throw Error("cannot ungroup '" + gName + "': connection '" + c.name +
                            "' writes its whole output across several ports");
            }
            toOut[c.to.port].push_back(c);
        }
    }
    for (const auto& c : conns) {
        if (c.to.node == gName) {
            intoG[outerKey("in", c.to.port)].push_back(c);
        }
        if (c.from.node == gName) {
            fromG[outerKey("out", c.from.port)].push_back(c);
        }
    }
    const std::string why = "; only a boundary port crossed by one pass-through wire on one side "
                            "can be dissolved without changing the simulation";
    // Per input port: A = one outer pass-through wire; B = one inner pass-through wire, first
    // into its target. Per output port: A = one inner pass-through wire; B = one outer
    // pass-through wire, first into its target.
    std::set<std::string> inA, inB, outA, outB;
    const auto first = [](const std::vector<Connection>& all, const Connection& c) {
        return crossingFirst(all, c.to, [&c](const Connection& x) { return x.name == c.name; });
    };
    // `single`: the side whose one pass-through wire pattern A removes; `other`: the side whose
    // one pass-through wire pattern B removes when it is first among `otherAll` into its target.
    const auto classify = [&](const std::string& key, const std::string& what, const std::vector<Connection>& outer,
                              const std::vector<Connection>& innerSide, bool outerIsSingle,
                              const std::vector<Connection>& otherAll, std::set<std::string>& a,
                              std::set<std::string>& b) {
        if (outer.empty() != innerSide.empty()) {
            throw Error("cannot ungroup '" + gName + "': its " + what + " '" + key +
                        "' is wired on one side only (dissolving it would drop connections)");
        }
        const auto& single = outerIsSingle ? outer : innerSide;
        const auto& other = outerIsSingle ? innerSide : outer;
        if (single.empty()) {
            return;
        }
        if (single.size() == 1 && !single[0].hasProjection && !(single[0].delayed && anyDelayed(other))) {
            a.insert(key);
        } else if (other.size() == 1 && !other[0].hasProjection && !(other[0].delayed && anyDelayed(single)) &&
                   first(otherAll, other[0])) {
            b.insert(key);
        } else {
            throw Error("cannot ungroup '" + gName + "': its " + what + " '" + key + "' joins " +
                        std::to_string(outer.size()) + " outer and " + std::to_string(innerSide.size()) +
                        " inner wires" + why);
        }
    };
    for (const auto& port : inner->inputPorts()) {
        const std::string key = outerKey("in", port.name);
        classify(key, "input", intoG[key], fromIn[key], true, innerConns, inA, inB);
    }
    for (const auto& port : inner->outputPorts()) {
        const std::string key = outerKey("out", port.name);
        classify(key, "output", fromG[key], toOut[key], false, conns, outA, outB);
    }

    // Names in the parent: the group's nodes and wires keep theirs unless taken.
    std::set<std::string> taken = namesOf(*net);
    taken.erase(gName);
    for (const auto& c : conns) {
        if (c.from.node == gName || c.to.node == gName) {
            taken.erase(c.name);
        }
    }
    std::map<std::string, std::string> rename;
    for (const auto& [n, m] : inner->nodes()) {
        rename[n] = claim(taken, n);
    }
    try {
        std::map<std::string, ConnSlot> outerSlots;
        std::map<std::string, ConnSlot> innerSlots;
        const auto ids = m_doc.connections(parent);
        for (std::size_t i = conns.size(); i-- > 0;) {
            if (conns[i].from.node == gName || conns[i].to.node == gName) {
                outerSlots[conns[i].name] = m_journal.takeConnection(ids[i]);
            }
        }
        const auto innerIds = m_doc.connections(m_group);
        for (std::size_t i = innerConns.size(); i-- > 0;) {
            innerSlots[innerConns[i].name] = m_journal.takeConnection(innerIds[i]);
        }
        const auto innerNodes = m_doc.graphNodes(m_group);
        std::vector<std::pair<std::string, std::shared_ptr<EditJournal::NodeSlot>>> moved;
        for (auto it = innerNodes.rbegin(); it != innerNodes.rend(); ++it) {
            const std::string name = m_doc.module(*it)->name();
            moved.emplace_back(name, m_journal.takeNode(*it));
        }
        std::reverse(moved.begin(), moved.end());
        const auto siblings = m_doc.graphNodes(parent);
        const std::size_t gIndex = static_cast<std::size_t>(
            std::find(siblings.begin(), siblings.end(), m_group) - siblings.begin());
        m_journal.takeNode(m_group);
        m_nodes.clear();
        for (std::size_t k = 0; k < moved.size(); ++k) {
            m_nodes.push_back(m_journal.putNode(moved[k].second, parent, gIndex + k,
                                                rename.at(moved[k].first)));
        }
        std::size_t index = 0;
        auto put = [&](const ConnSlot& slot, const std::string& name, const std::string& from,
                       const std::string& to, bool delayed) {
            m_journal.putConnection(slot, parent, index++, claim(taken, name), from, to, delayed);
        };
        auto emitBlock = [&] {
            for (const auto& c : innerConns) {
                const std::string to = renamedEnd(c.to, rename);
                const std::string from = renamedEnd(c.from, rename);
                if (c.from.node.empty() && inA.count(c.from.port) > 0) {
                    const Connection& o = intoG[c.from.port][0];
                    put(innerSlots[c.name], c.name, o.from.toString(), to, c.delayed || o.delayed);
                } else if (c.from.node.empty()) {
                    for (const auto& o : intoG[c.from.port]) {
                        put(outerSlots[o.name], o.name, o.from.toString(), to, o.delayed || c.delayed);
                    }
                } else if (c.to.node.empty() && outB.count(c.to.port) > 0) {
                    const Connection& o = fromG[c.to.port][0];
                    put(innerSlots[c.name], c.name, from, o.to.toString(), c.delayed || o.delayed);
                } else if (!c.to.node.empty()) {
                    put(innerSlots[c.name], c.name, from, to, c.delayed);
                }
            }
        };
        bool blockDone = false;
        for (const auto& c : conns) {
            const bool touches = c.from.node == gName || c.to.node == gName;
            if (touches && !blockDone) {
                emitBlock();
                blockDone = true;
            }
            if (!touches) {
                ++index;
            } else if (c.from.node == gName && outA.count(outerKey("out", c.from.port)) > 0) {
                const Connection& i = toOut[outerKey("out", c.from.port)][0];
                put(outerSlots[c.name], c.name, renamedEnd(i.from, rename), c.to.toString(), c.delayed || i.delayed);
            }
        }
        if (!blockDone) {
            emitBlock();
        }
    } catch (const Error& e) {
        throw Error("cannot ungroup '" + gName + "': " + e.what());
    }
}

// ---- copy and paste ----------------------------------------------------------------------

nlohmann::json copyFragment(const GraphDocument& doc, const std::vector<NodeId>& nodes)
{
    if (nodes.empty()) {
        throw Error("nothing to copy");
    }
    const NodeId parent = doc.parentOf(nodes.front());
    const Network* net = doc.network(parent);
    std::set<std::string> selected;
    for (const NodeId id : nodes) {
        if (net == nullptr || doc.parentOf(id) != parent ||
            doc.nodeData(id, NodeRole::IsProjection).toBool()) {
            throw Error("cannot copy: the nodes must all be nodes of one Network");
        }
        selected.insert(doc.module(id)->name());
    }
    nlohmann::json list = nlohmann::json::array();
    nlohmann::json layout = nlohmann::json::object();
    const std::string base = doc.path(parent);
    for (const auto& [name, m] : net->nodes()) {
        if (selected.count(name) == 0) {
            continue;
        }
        nlohmann::json j = engine::modelToJson(*m)["model"];
        j["name"] = name;
        list.push_back(std::move(j));
        for (const auto& [sub, module] : m->namedModules()) {
            if (const auto p = doc.position(doc.nodeId(*module))) {
                layout[sub.empty() ? name : name + "." + sub] = {p->x(), p->y()};
            }
        }
    }
    nlohmann::json wires = nlohmann::json::array();
    for (const auto& c : net->connections()) {
        if (selected.count(c.from.node) > 0 && selected.count(c.to.node) > 0) {
            nlohmann::json j{{"name", c.name},
                             {"from", c.from.toString()},
                             {"to", c.to.toString()},
                             {"delayed", c.delayed}};
            if (c.hasProjection) {
                j["projection"] = engine::modelToJson(*net->projection(c.name))["model"];
            }
            wires.push_back(std::move(j));
        }
    }
    return {{"format", "spikestudio.fragment"},
            {"version", 1},
            {"nodes", std::move(list)},
            {"connections", std::move(wires)},
            {"layout", std::move(layout)}};
}

PasteCommand::PasteCommand(GraphDocument& doc, NodeId network, nlohmann::json fragment,
                           QPointF offset)
    : GraphCommand(doc, QStringLiteral("Paste")),
      m_network(network),
      m_fragment(std::move(fragment)),
      m_offset(offset)
{
}

void PasteCommand::apply()
{
    const Network* net = m_doc.network(m_network);
    if (net == nullptr) {
        throw Error("cannot paste: nodes can only be pasted into a Network");
    }
    if (!m_fragment.is_object() || m_fragment.value("format", "") != "spikestudio.fragment" ||
        !m_fragment.contains("nodes") || !m_fragment.at("nodes").is_array()) {
        throw Error("cannot paste: not a SpikeStudio fragment (expected \"format\": "
                    "\"spikestudio.fragment\" and a \"nodes\" list)");
    }
    nlohmann::json model{{"type", "Network"}, {"children", m_fragment.at("nodes")}};
    if (m_fragment.contains("connections")) {
        model["connections"] = m_fragment.at("connections");
    }
    const nlohmann::json doc{{"format", "spikestudio.model"}, {"version", 1}, {"model", model}};
    engine::ModelDocument built = engine::modelFromJson(doc, "pasted fragment", ".");
    auto& temp = dynamic_cast<Network&>(*built.root);

    std::set<std::string> taken = namesOf(*net);
    std::map<std::string, std::string> rename;
    for (const auto& [n, m] : temp.nodes()) {
        rename[n] = claim(taken, n);
    }
    std::vector<std::pair<Connection, std::unique_ptr<engine::Projection>>> wires;
    const std::vector<Connection> conns = temp.connections();
    for (const auto& c : conns) {
        wires.emplace_back(c, temp.disconnect(c.name));
    }
    m_nodes.clear();
    for (const auto& [n, m] : temp.nodes()) {
        auto slot = std::make_shared<EditJournal::NodeSlot>();
        slot->held.module = temp.removeNode(n);
        m_nodes.push_back(m_journal.putNode(slot, m_network, net->nodes().size(), rename.at(n)));
    }
    for (auto& [c, projection] : wires) {
        auto slot = std::make_shared<EditJournal::ConnectionSlot>();
        slot->held.projection.module = std::move(projection);
        m_journal.putConnection(slot, m_network, net->connections().size(), claim(taken, c.name),
                                renamedEnd(c.from, rename), renamedEnd(c.to, rename), c.delayed);
    }
    if (m_fragment.contains("layout") && m_fragment.at("layout").is_object()) {
        const std::string base = m_doc.path(m_network);
        for (const auto& [path, xy] : m_fragment.at("layout").items()) {
            if (!xy.is_array() || xy.size() != 2 || !xy[0].is_number() || !xy[1].is_number()) {
                throw Error("cannot paste: layout '" + path + "': expected [x, y]");
            }
            const auto dot = path.find('.');
            const auto it = rename.find(path.substr(0, dot));
            if (it == rename.end()) {
                continue;
            }
            const std::string rel = it->second + (dot == std::string::npos ? "" : path.substr(dot));
            const NodeId id = m_doc.findNode(base.empty() ? rel : base + "." + rel);
            if (id.valid()) {
                m_journal.setPosition(id, QPointF(xy[0].get<double>(), xy[1].get<double>()) + m_offset);
            }
        }
    }
}

}  // namespace spike::ui
