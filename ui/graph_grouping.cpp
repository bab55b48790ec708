// GroupCommand, UngroupCommand, copyFragment and PasteCommand. See graph_commands.hpp and
// docs/editor-model.md.
//
// Bit-identical grouping. A Network has one input port "in" and one output port "out", and the
// executor sums the wires into a port in connection order, starting from zero. A cut wire can
// therefore be routed through the group's boundary without changing a single float only in two
// shapes, on each side:
//   shared source: every wire crossing the boundary leaves the same port. The boundary carries
//     that port's values unchanged (one pass-through wire to "in", or from the group's inner
//     source to "out"); the projections and delays stay on the wires that reach the targets.
//   single target: every crossing wire reaches the same port, and those wires come first among
//     that port's inputs. The projections stay on the crossing wires, which now sum into the
//     boundary (in the same order, from zero); one pass-through wire adds that sum to the port.
// Anything else (several sources reaching several targets) would need to sum or slice channels
// differently, so Group refuses it and says why. Ungroup inverts the same two shapes.
#include "graph_commands.hpp"

#include "engine/model_io.hpp"

#include <algorithm>
#include <set>

namespace spike::ui {

using engine::Connection;
using engine::Error;
using engine::Network;

namespace {

using ConnSlot = std::shared_ptr<EditJournal::ConnectionSlot>;

std::string endpointList(const std::vector<Connection>& conns, bool sources)
{
    std::set<std::string> names;
    for (const auto& c : conns) {
        names.insert((sources ? c.from : c.to).toString());
    }
    std::string out;
    for (const auto& n : names) {
        out += (out.empty() ? "'" : ", '") + n + "'";
    }
    return out;
}

bool allSame(const std::vector<Connection>& conns, bool sources)
{
    return std::all_of(conns.begin(), conns.end(), [&](const Connection& c) {
        return (sources ? c.from : c.to) == (sources ? conns.front().from : conns.front().to);
    });
}

bool allDelayed(const std::vector<Connection>& conns)
{
    return std::all_of(conns.begin(), conns.end(), [](const Connection& c) { return c.delayed; });
}

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
    std::vector<Connection> cutIn;
    std::vector<Connection> cutOut;
    for (const auto& c : conns) {
        if (inside(c.to) && !inside(c.from)) {
            cutIn.push_back(c);
        } else if (inside(c.from) && !inside(c.to)) {
            cutOut.push_back(c);
        }
    }
    auto isCut = [&](const std::vector<Connection>& cut) {
        return [&cut](const Connection& c) {
            return std::any_of(cut.begin(), cut.end(), [&](const Connection& k) { return k.name == c.name; });
        };
    };
    // Input side: shared source, else single target whose crossing inputs come first.
    const bool inShared = !cutIn.empty() && allSame(cutIn, true);
    if (!cutIn.empty() && !inShared &&
        !(allSame(cutIn, false) && crossingFirst(conns, cutIn.front().to, isCut(cutIn)))) {
        throw Error("cannot group: the wires into the selection come from " +
                    endpointList(cutIn, true) + " and reach " + endpointList(cutIn, false) +
                    "; a group has one input port, so the wires into it must share their source "
                    "or their target (and then be that target's first inputs) to simulate "
                    "identically");
    }
    const bool outShared = !cutOut.empty() && allSame(cutOut, true);
    if (!cutOut.empty() && !outShared &&
        !(allSame(cutOut, false) && crossingFirst(conns, cutOut.front().to, isCut(cutOut)))) {
        throw Error("cannot group: the wires out of the selection come from " +
                    endpointList(cutOut, true) + " and reach " + endpointList(cutOut, false) +
                    "; a group has one output port, so the wires out of it must share their "
                    "source or their target (and then be that target's first inputs) to "
                    "simulate identically");
    }
    const std::int64_t inSize =
        cutIn.empty() ? 0
                      : net->resolve(inShared ? cutIn.front().from.toString() : cutIn.front().to.toString(),
                                     inShared).second.size;
    const std::int64_t outSize =
        cutOut.empty() ? 0
                       : net->resolve(outShared ? cutOut.front().from.toString()
                                                : cutOut.front().to.toString(),
                                      outShared).second.size;
    // A shared-source input whose wires are all delayed carries the delay on the boundary wire,
    // so the parent sees it (and likewise a single-target output).
    const bool inDelayOutside = inShared && allDelayed(cutIn);
    const bool outDelayOutside = !outShared && !cutOut.empty() && allDelayed(cutOut);

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
        groupSlot->held.module = std::make_unique<Network>(inSize, outSize);
        m_group = m_journal.putNode(groupSlot, parent, groupIndex, group);
        for (std::size_t k = 0; k < moved.size(); ++k) {
            m_journal.putNode(moved[k].second, m_group, k, moved[k].first);
        }
        // Inner wires, in the parent's order.
        std::size_t inner = 0;
        bool firstIn = true;
        bool firstOut = true;
        for (const auto& c : conns) {
            const bool internal = inside(c.from) && inside(c.to);
            const bool in = inside(c.to) && !inside(c.from);
            const bool out = inside(c.from) && !inside(c.to);
            if (internal) {
                m_journal.putConnection(wireSlots[c.name], m_group, inner++, c.name, c.from.toString(),
                                        c.to.toString(), c.delayed);
            } else if (in && inShared) {
                m_journal.putConnection(wireSlots[c.name], m_group, inner++, c.name, "in",
                                        c.to.toString(), inDelayOutside ? false : c.delayed);
            } else if (in && firstIn) {
                m_journal.putConnection(std::make_shared<EditJournal::ConnectionSlot>(), m_group,
                                        inner++, claim(innerNames, "in_to_" + c.to.node), "in",
                                        c.to.toString(), false);
            } else if (out && !outShared) {
                m_journal.putConnection(wireSlots[c.name], m_group, inner++, c.name, c.from.toString(),
                                        "out", outDelayOutside ? false : c.delayed);
            } else if (out && firstOut) {
                m_journal.putConnection(std::make_shared<EditJournal::ConnectionSlot>(), m_group,
                                        inner++, claim(innerNames, c.from.node + "_to_out"),
                                        c.from.toString(), "out", false);
            }
            firstIn = firstIn && !in;
            firstOut = firstOut && !out;
        }
        // Outer wires, where the crossing wires were.
        std::size_t outer = 0;
        firstIn = true;
        firstOut = true;
        for (const auto& c : conns) {
            const bool in = inside(c.to) && !inside(c.from);
            const bool out = inside(c.from) && !inside(c.to);
            if (!in && !out) {
                outer += inside(c.from) ? 0 : 1;
                continue;
            }
            if (in && !inShared) {
                m_journal.putConnection(wireSlots[c.name], parent, outer++, c.name, c.from.toString(),
                                        group + ".in", c.delayed);
            } else if (in && firstIn) {
                const std::string from = c.from.node.empty() ? "in" : c.from.node;
                m_journal.putConnection(std::make_shared<EditJournal::ConnectionSlot>(), parent,
                                        outer++, claim(parentNames, from + "_to_" + group),
                                        c.from.toString(), group + ".in", inDelayOutside);
            } else if (out && outShared) {
                m_journal.putConnection(wireSlots[c.name], parent, outer++, c.name, group + ".out",
                                        c.to.toString(), c.delayed);
            } else if (out && firstOut) {
                const std::string to = c.to.node.empty() ? "out" : c.to.node;
                m_journal.putConnection(std::make_shared<EditJournal::ConnectionSlot>(), parent,
                                        outer++, claim(parentNames, group + "_to_" + to),
                                        group + ".out", c.to.toString(), outDelayOutside);
            }
            firstIn = firstIn && !in;
            firstOut = firstOut && !out;
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
    std::vector<Connection> fromIn, toOut, intoG, fromG;
    for (const auto& c : innerConns) {
        if (c.from.node.empty() && c.to.node.empty()) {
            throw Error("cannot ungroup '" + gName + "': connection '" + c.name +
                        "' wires its input straight to its output");
        }
        if (c.from.node.empty()) {
            fromIn.push_back(c);
        }
        if (c.to.node.empty()) {
            toOut.push_back(c);
        }
    }
    for (const auto& c : conns) {
        if (c.to.node == gName) {
            intoG.push_back(c);
        }
        if (c.from.node == gName) {
            fromG.push_back(c);
        }
    }
    const std::string why = "; only a boundary crossed by one pass-through wire on one side can "
                            "be dissolved without changing the simulation";
    if (fromIn.empty() != intoG.empty() || toOut.empty() != fromG.empty()) {
        throw Error("cannot ungroup '" + gName + "': its " +
                    (fromIn.empty() != intoG.empty() ? "input" : "output") +
                    " is wired on one side only (dissolving it would drop connections)");
    }
    // Input side: A = one outer pass-through wire; B = one inner pass-through wire, first
    // into its target.
    const bool inA = intoG.size() == 1 && !intoG[0].hasProjection &&
                     !(intoG[0].delayed && anyDelayed(fromIn));
    const bool inB = !inA && fromIn.size() == 1 && !fromIn[0].hasProjection &&
                     !(fromIn[0].delayed && anyDelayed(intoG)) &&
                     crossingFirst(innerConns, fromIn[0].to,
                                   [](const Connection& c) { return c.from.node.empty(); });
    if (!intoG.empty() && !inA && !inB) {
        throw Error("cannot ungroup '" + gName + "': its input joins " +
                    std::to_string(intoG.size()) + " outer and " + std::to_string(fromIn.size()) +
                    " inner wires" + why);
    }
    const bool outA = toOut.size() == 1 && !toOut[0].hasProjection &&
                      !(toOut[0].delayed && anyDelayed(fromG));
    const bool outB = !outA && fromG.size() == 1 && !fromG[0].hasProjection &&
                      !(fromG[0].delayed && anyDelayed(toOut)) &&
                      crossingFirst(conns, fromG[0].to,
                                    [&](const Connection& c) { return c.from.node == gName; });
    if (!fromG.empty() && !outA && !outB) {
        throw Error("cannot ungroup '" + gName + "': its output joins " +
                    std::to_string(toOut.size()) + " inner and " + std::to_string(fromG.size()) +
                    " outer wires" + why);
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
                if (c.from.node.empty() && inA) {
                    put(innerSlots[c.name], c.name, intoG[0].from.toString(), to,
                        c.delayed || intoG[0].delayed);
                } else if (c.from.node.empty()) {
                    for (const auto& o : intoG) {
                        put(outerSlots[o.name], o.name, o.from.toString(), to,
                            o.delayed || c.delayed);
                    }
                } else if (c.to.node.empty() && outB) {
                    put(innerSlots[c.name], c.name, from, fromG[0].to.toString(),
                        c.delayed || fromG[0].delayed);
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
            } else if (c.from.node == gName && outA) {
                put(outerSlots[c.name], c.name, renamedEnd(toOut[0].from, rename), c.to.toString(),
                    c.delayed || toOut[0].delayed);
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
