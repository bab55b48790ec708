// GraphCanvas: where nodes stand when the document gives no position (the default layered
// layout, view-only until a drag pins it) and where the network's in / out boundary items go.
// Thread: GUI thread only.
#include "ui/editor/graph_canvas.hpp"

#include "ui/editor/graph_node_item.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <vector>

namespace spike::ui {

namespace {
/// Columns of a read-only container's data-flow layout before it wraps into the next row.
constexpr int kFlowColumns = 4;
}  // namespace

std::vector<GraphCanvas::FlowArrow> GraphCanvas::flowArrows() const
{
    std::vector<FlowArrow> arrows;
    const engine::Module* container = isEditable() ? nullptr : m_doc->module(m_network);
    if (container == nullptr) {
        return arrows;
    }
    const std::string prefix = m_doc->path(m_network);
    for (const engine::FlowStep& step : container->dataFlow()) {
        const NodeId from = m_doc->findNode(prefix.empty() ? step.from : prefix + "." + step.from);
        const NodeId to = m_doc->findNode(prefix.empty() ? step.to : prefix + "." + step.to);
        if (m_nodes.count(from) != 0 && m_nodes.count(to) != 0) {
            arrows.push_back({from, to, QString::fromStdString(step.label)});
        }
    }
    return arrows;
}

std::map<NodeId, QPointF> GraphCanvas::defaultLayout() const
{
    std::map<NodeId, QPointF> out;
    std::map<NodeId, int> rank;
    std::vector<NodeId> unplaced;
    double placedBottom = -1e300;
    for (const auto& [id, item] : m_nodes) {
        rank[id] = 0;
        if (m_doc->position(id)) {
            placedBottom = std::max(placedBottom, item->sceneBoundingRect().bottom());
        }
    }
    const std::vector<NodeId> shown = shownNodes();
    for (NodeId id : shown) {
        if (!m_doc->position(id)) {
            unplaced.push_back(id);
        }
    }
    if (unplaced.empty()) {
        return out;
    }
    // Columns: longest path over the wires once the back edges of a depth-first search (in
    // node order) are dropped, so a cycle reads left to right from its first node.
    std::map<NodeId, std::vector<NodeId>> next;
    for (const FlowArrow& arrow : flowArrows()) {  // a read-only container's computation
        next[arrow.from].push_back(arrow.to);
    }
    for (ConnectionId c : m_doc->connections(m_network)) {
        const auto info = m_doc->connection(c);
        GraphNodeItem* a = endpointItem(info->from, true);
        GraphNodeItem* b = endpointItem(info->to, false);
        if (a != nullptr && b != nullptr && a->kind() == GraphNodeItem::Kind::Node
            && b->kind() == GraphNodeItem::Kind::Node && a != b) {
            next[a->id()].push_back(b->id());
        }
    }
    std::map<NodeId, int> state;  // 0 unvisited, 1 on the stack, 2 done
    std::vector<NodeId> order;    // reverse post-order: a topological order of the forward edges
    std::vector<std::pair<NodeId, NodeId>> forward;
    for (NodeId root : shown) {
        if (state[root] != 0) {
            continue;
        }
        std::vector<std::pair<NodeId, std::size_t>> stack{{root, 0}};
        state[root] = 1;
        while (!stack.empty()) {
            auto& [node, k] = stack.back();
            const std::vector<NodeId>& out = next[node];
            if (k < out.size()) {
                const NodeId to = out[k++];
                if (state[to] == 0) {
                    forward.emplace_back(node, to);
                    state[to] = 1;
                    stack.emplace_back(to, 0);
                } else if (state[to] == 2) {
                    forward.emplace_back(node, to);
                }
            } else {
                state[node] = 2;
                order.push_back(node);
                stack.pop_back();
            }
        }
    }
    std::reverse(order.begin(), order.end());
    std::map<NodeId, std::vector<NodeId>> forwardNext;
    for (const auto& [a, b] : forward) {
        forwardNext[a].push_back(b);
    }
    for (NodeId a : order) {
        for (NodeId b : forwardNext[a]) {
            rank[b] = std::max(rank[b], rank[a] + 1);
        }
    }
    const double top = placedBottom > -1e299 ? placedBottom + 4.0 * kGrid : 0.0;
    const bool wired = std::any_of(next.begin(), next.end(), [](const auto& kv) { return !kv.second.empty(); });
    if (!isEditable() && !wired) {
        // Children of a composite have no wires to order them: rows of kColumns in child order.
        constexpr int kColumns = 4;
        double y = top;
        double rowHeight = 0.0;
        for (std::size_t k = 0; k < unplaced.size(); ++k) {
            const int column = static_cast<int>(k % kColumns);
            if (column == 0 && k > 0) {
                y += std::ceil((rowHeight + 3.0 * kGrid) / kGrid) * kGrid;
                rowHeight = 0.0;
            }
            out[unplaced[k]] = QPointF(column * (GraphNodeItem::kWidth + 3.0 * kGrid), y);
            rowHeight = std::max(rowHeight, m_nodes.at(unplaced[k])->boundingRect().height());
        }
        return out;
    }
    // Nodes on a wire or an arrow first in their column, the others (a composite's shared
    // activation) below them.
    std::set<NodeId> linked;
    for (const auto& [a, targets] : next) {
        if (!targets.empty()) {
            linked.insert(a);
            linked.insert(targets.begin(), targets.end());
        }
    }
    std::stable_partition(unplaced.begin(), unplaced.end(), [&linked](NodeId id) { return linked.count(id) != 0; });
    std::map<int, double> columnY;
    for (NodeId id : unplaced) {
        const int r = rank[id];
        auto [it, fresh] = columnY.emplace(r, top);
        out[id] = QPointF(r * (GraphNodeItem::kWidth + 6.0 * kGrid), it->second);
        it->second += std::ceil((m_nodes.at(id)->boundingRect().height() + 3.0 * kGrid) / kGrid) * kGrid;
    }
    if (!isEditable() && !columnY.empty() && columnY.rbegin()->first >= kFlowColumns) {
        // A long computation (a DynamicsNetwork's eight steps) in one row would be drawn too small
        // to read: its columns wrap into rows of kFlowColumns, read like text, a little wider
        // apart than a network's so that the arrows' labels fit between the nodes.
        double band = 0.0;
        for (const auto& [r, bottom] : columnY) {
            band = std::max(band, bottom - top);
        }
        band += 3.0 * kGrid;
        for (auto& [id, pos] : out) {
            const int r = rank[id];
            pos = QPointF((r % kFlowColumns) * (GraphNodeItem::kWidth + 9.0 * kGrid), pos.y() + (r / kFlowColumns) * band);
        }
    }
    return out;
}

void GraphCanvas::placeBoundaries()
{
    QRectF nodes;
    for (const auto& [id, item] : m_nodes) {
        nodes = nodes.united(item->sceneBoundingRect());
    }
    if (nodes.isNull()) {
        nodes = QRectF(0.0, 0.0, 1.0, 1.0);
    }
    if (m_inItem != nullptr) {
        m_inItem->setPos(nodes.left() - GraphNodeItem::kWidth - 6.0 * kGrid, nodes.top());
    }
    if (m_outItem != nullptr) {
        m_outItem->setPos(nodes.right() + 6.0 * kGrid, nodes.top());
    }
}

}  // namespace spike::ui
