// GraphCanvas: where nodes stand when the document gives no position (the default layered
// layout, view-only until a drag pins it) and where the network's in / out boundary items go.
// Thread: GUI thread only.
#include "ui/editor/graph_canvas.hpp"

#include "ui/editor/graph_node_item.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

namespace spike::ui {

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
    if (!isEditable() && m_doc->nodeData(m_network, NodeRole::Type).toString() == QLatin1String("Sequential")) {
        for (std::size_t i = 1; i < shown.size(); ++i) {
            next[shown[i - 1]].push_back(shown[i]);
        }
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
    std::map<int, double> columnY;
    for (NodeId id : unplaced) {
        const int r = rank[id];
        auto [it, fresh] = columnY.emplace(r, top);
        out[id] = QPointF(r * (GraphNodeItem::kWidth + 6.0 * kGrid), it->second);
        it->second += std::ceil((m_nodes.at(id)->boundingRect().height() + 3.0 * kGrid) / kGrid) * kGrid;
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
