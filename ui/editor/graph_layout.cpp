// Align and layered auto-layout of node boxes (see graph_layout.hpp for the contract).
//
// Owns nothing beyond each call: every function builds its working graph from its arguments and
// returns positions. The layered layout runs per weakly connected component: depth-first cycle
// breaking, longest-path layers, virtual nodes on long edges, barycentre sweeps whose crossings
// are counted per pair of adjacent layers with a Fenwick tree (O(E log V) per count), then grid
// coordinates. Invariants: all indices are box indices in input order after dropping repeated
// ids, and every tie is broken by those indices, so results never depend on addresses or hashing.
// Thread: any; no shared state.
#include "ui/editor/graph_layout.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <set>
#include <span>
#include <utility>

namespace spike::ui {

namespace {

/// Coordinates closer than this count as unchanged by alignBoxes() [scene units].
constexpr double kUnchanged = 1e-9;
/// Slack for rounding noise when snapping a value that is meant to be a grid multiple.
constexpr double kSnapSlack = 1e-9;

double snapUp(double v, double grid)
{
    return grid > 0.0 ? std::ceil(v / grid - kSnapSlack) * grid : v;
}

double snapDown(double v, double grid)
{
    return grid > 0.0 ? std::floor(v / grid + kSnapSlack) * grid : v;
}

double snapNearest(double v, double grid)
{
    return grid > 0.0 ? std::round(v / grid) * grid : v;
}

/// The boxes without repeated ids (first kept), with normalised rects.
std::vector<LayoutBox> uniqueBoxes(const std::vector<LayoutBox>& boxes)
{
    std::vector<LayoutBox> out;
    out.reserve(boxes.size());
    std::set<NodeId> seen;
    for (const LayoutBox& b : boxes) {
        if (seen.insert(b.id).second) {
            out.push_back({b.id, b.rect.normalized()});
        }
    }
    return out;
}

double leadEdge(const QRectF& r, bool horizontal)
{
    return horizontal ? r.left() : r.top();
}

double extent(const QRectF& r, bool horizontal)
{
    return horizontal ? r.width() : r.height();
}

/// Moves all but the first and the last box (by leading edge, ties by id) so that the gaps
/// between consecutive boxes along the axis are equal.
void distribute(const std::vector<LayoutBox>& boxes, bool horizontal, std::vector<QPointF>& target)
{
    std::vector<std::size_t> order(boxes.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const double la = leadEdge(boxes[a].rect, horizontal);
        const double lb = leadEdge(boxes[b].rect, horizontal);
        return la != lb ? la < lb : boxes[a].id < boxes[b].id;
    });
    const QRectF& first = boxes[order.front()].rect;
    const QRectF& last = boxes[order.back()].rect;
    double inner = 0.0;
    for (std::size_t k = 1; k + 1 < order.size(); ++k) {
        inner += extent(boxes[order[k]].rect, horizontal);
    }
    const double start = leadEdge(first, horizontal) + extent(first, horizontal);
    const double gap = (leadEdge(last, horizontal) - start - inner) / static_cast<double>(order.size() - 1);
    double cursor = start + gap;
    for (std::size_t k = 1; k + 1 < order.size(); ++k) {
        QPointF& p = target[order[k]];
        (horizontal ? p.rx() : p.ry()) = cursor;
        cursor += extent(boxes[order[k]].rect, horizontal) + gap;
    }
}

/// The edges with back edges of a depth-first search reversed (sorted, without repeats) and a
/// topological order of the result (reverse post-order of that search).
struct AcyclicGraph {
    std::vector<std::pair<int, int>> edges;
    std::vector<int> topo;
};

AcyclicGraph breakCycles(const std::vector<std::vector<int>>& out)
{
    const int n = static_cast<int>(out.size());
    std::vector<char> state(out.size(), 0);  // 0 unvisited, 1 on the stack, 2 done
    AcyclicGraph g;
    g.topo.reserve(out.size());
    std::vector<std::pair<int, std::size_t>> stack;
    for (int root = 0; root < n; ++root) {
        if (state[root] != 0) {
            continue;
        }
        state[root] = 1;
        stack.emplace_back(root, 0);
        while (!stack.empty()) {
            const int node = stack.back().first;
            std::size_t& k = stack.back().second;
            if (k < out[node].size()) {
                const int to = out[node][k++];
                if (state[to] == 1) {
                    g.edges.emplace_back(to, node);
                } else {
                    g.edges.emplace_back(node, to);
                }
                if (state[to] == 0) {
                    state[to] = 1;
                    stack.emplace_back(to, 0);
                }
            } else {
                state[node] = 2;
                g.topo.push_back(node);
                stack.pop_back();
            }
        }
    }
    std::reverse(g.topo.begin(), g.topo.end());
    std::sort(g.edges.begin(), g.edges.end());
    g.edges.erase(std::unique(g.edges.begin(), g.edges.end()), g.edges.end());
    return g;
}

/// Longest-path layer of every node of an acyclic graph (sources on layer 0).
std::vector<int> longestPathLayers(const AcyclicGraph& g, std::size_t n)
{
    std::vector<std::vector<int>> next(n);
    for (const auto& [a, b] : g.edges) {
        next[a].push_back(b);
    }
    std::vector<int> layer(n, 0);
    for (int a : g.topo) {
        for (int b : next[a]) {
            layer[b] = std::max(layer[b], layer[a] + 1);
        }
    }
    return layer;
}

/// Component index of every node: weakly connected components numbered by first appearance.
std::vector<int> components(const std::vector<std::pair<int, int>>& edges, std::size_t n, int& count)
{
    std::vector<int> parent(n);
    std::iota(parent.begin(), parent.end(), 0);
    const auto find = [&parent](int v) {
        while (parent[v] != v) {
            parent[v] = parent[parent[v]];
            v = parent[v];
        }
        return v;
    };
    for (const auto& [a, b] : edges) {
        parent[find(a)] = find(b);
    }
    std::vector<int> indexOfRoot(n, -1);
    std::vector<int> comp(n, 0);
    count = 0;
    for (std::size_t v = 0; v < n; ++v) {
        int& index = indexOfRoot[find(static_cast<int>(v))];
        if (index < 0) {
            index = count++;
        }
        comp[v] = index;
    }
    return comp;
}

/// Neighbour lists of every node in one flat array (compressed rows): node v's neighbours are
/// list[start[v]] .. list[start[v + 1] - 1], in the order the links were made.
struct Adjacency {
    std::vector<int> start;
    std::vector<int> list;

    std::span<const int> of(int v) const
    {
        return {list.data() + start[static_cast<std::size_t>(v)],
                static_cast<std::size_t>(start[static_cast<std::size_t>(v) + 1] - start[static_cast<std::size_t>(v)])};
    }
    /// Rows of `links` by their first (forward) or second (backward) node.
    void build(std::size_t nodes, const std::vector<std::pair<int, int>>& links, bool backward)
    {
        start.assign(nodes + 1, 0);
        for (const auto& [a, b] : links) {
            ++start[static_cast<std::size_t>(backward ? b : a) + 1];
        }
        std::partial_sum(start.begin(), start.end(), start.begin());
        list.resize(links.size());
        std::vector<int> cursor(start.begin(), start.end() - 1);
        for (const auto& [a, b] : links) {
            list[static_cast<std::size_t>(cursor[static_cast<std::size_t>(backward ? b : a)]++)] = backward ? a : b;
        }
    }
};

/// The proper layered graph of one component: real nodes first (in box order), then the
/// virtual nodes of long edges in creation order; every link joins adjacent layers.
struct LayeredGraph {
    std::vector<int> box;                 ///< box index, -1 for a virtual node
    std::vector<int> layerOf;
    std::vector<std::pair<int, int>> links;
    Adjacency up;                         ///< neighbours in the previous layer
    Adjacency down;                       ///< neighbours in the next layer
    std::vector<std::vector<int>> layers; ///< node order within each layer

    int add(int boxIndex, int layer)
    {
        box.push_back(boxIndex);
        layerOf.push_back(layer);
        return static_cast<int>(box.size()) - 1;
    }
};

/// Crossings between all pairs of adjacent layers for the order given by `pos`: the edges are
/// visited by source position, then target position, and every earlier edge whose target lies
/// strictly below the current one crosses it.
long long layerCrossings(const LayeredGraph& g, const std::vector<int>& pos)
{
    long long total = 0;
    std::vector<int> targets;
    std::vector<int> tree;
    for (std::size_t l = 0; l + 1 < g.layers.size(); ++l) {
        tree.assign(g.layers[l + 1].size() + 1, 0);
        long long seen = 0;
        for (int a : g.layers[l]) {
            targets.clear();
            for (int b : g.down.of(a)) {
                targets.push_back(pos[b]);
            }
            std::sort(targets.begin(), targets.end());
            for (int to : targets) {
                long long notBelow = 0;
                for (int i = to + 1; i > 0; i -= i & -i) {
                    notBelow += tree[i];
                }
                total += seen - notBelow;
                for (int i = to + 1; i < static_cast<int>(tree.size()); i += i & -i) {
                    ++tree[i];
                }
                ++seen;
            }
        }
    }
    return total;
}

/// Sorts one layer by the barycentre of each node's neighbours (a node without any keeps its
/// index as key); ties by original order.
void reorderLayer(std::vector<int>& layer, const Adjacency& neighbours, std::vector<int>& pos,
                  std::vector<std::pair<double, int>>& keyed)
{
    keyed.clear();
    for (int v : layer) {
        const std::span<const int> ns = neighbours.of(v);
        double key = pos[v];
        if (!ns.empty()) {
            double sum = 0.0;
            for (int u : ns) {
                sum += pos[u];
            }
            key = sum / static_cast<double>(ns.size());
        }
        keyed.emplace_back(key, v);
    }
    std::sort(keyed.begin(), keyed.end());
    for (std::size_t i = 0; i < keyed.size(); ++i) {
        layer[i] = keyed[i].second;
        pos[layer[i]] = static_cast<int>(i);
    }
}

/// Alternating barycentre sweeps; leaves the best order seen in g.layers.
void reduceCrossings(LayeredGraph& g, int sweeps)
{
    std::vector<int> pos(g.box.size(), 0);
    for (const std::vector<int>& layer : g.layers) {
        for (std::size_t i = 0; i < layer.size(); ++i) {
            pos[layer[i]] = static_cast<int>(i);
        }
    }
    std::vector<std::pair<double, int>> keyed;
    long long best = layerCrossings(g, pos);
    std::vector<std::vector<int>> bestLayers = g.layers;
    const std::size_t count = g.layers.size();
    for (int s = 0; s < sweeps && best > 0; ++s) {
        if (s % 2 == 0) {
            for (std::size_t l = 1; l < count; ++l) {
                reorderLayer(g.layers[l], g.up, pos, keyed);
            }
        } else {
            for (std::size_t l = count - 1; l-- > 0;) {
                reorderLayer(g.layers[l], g.down, pos, keyed);
            }
        }
        const long long crossings = layerCrossings(g, pos);
        if (crossings < best) {
            best = crossings;
            bestLayers = g.layers;
        }
    }
    g.layers = std::move(bestLayers);
}

/// One component's box positions relative to its own bounding box's top-left, and its height.
struct ComponentLayout {
    std::vector<std::pair<int, QPointF>> positions;
    double height = 0.0;
};

/// Lays out the boxes `members` (box indices in box order) joined by `edges` (acyclic).
ComponentLayout layoutComponent(const std::vector<int>& members, const std::vector<std::pair<int, int>>& edges,
                                const std::vector<int>& layerOfBox, const std::vector<LayoutBox>& boxes,
                                const LayeredLayoutOptions& options, std::vector<int>& localOf)
{
    LayeredGraph g;
    int layerCount = 0;
    for (int b : members) {
        localOf[b] = g.add(b, layerOfBox[b]);
        layerCount = std::max(layerCount, layerOfBox[b] + 1);
    }
    for (const auto& [from, to] : edges) {
        int a = localOf[from];
        for (int l = layerOfBox[from] + 1; l < layerOfBox[to]; ++l) {
            const int v = g.add(-1, l);
            g.links.emplace_back(a, v);
            a = v;
        }
        g.links.emplace_back(a, localOf[to]);
    }
    g.up.build(g.box.size(), g.links, true);
    g.down.build(g.box.size(), g.links, false);
    g.layers.assign(static_cast<std::size_t>(layerCount), {});
    for (std::size_t v = 0; v < g.box.size(); ++v) {
        g.layers[static_cast<std::size_t>(g.layerOf[v])].push_back(static_cast<int>(v));
    }
    reduceCrossings(g, options.sweeps);

    const double grid = options.grid;
    const double columnGap = std::max(0.0, options.columnGap);
    const double rowGap = std::max(0.0, options.rowGap);
    std::vector<double> columnX(g.layers.size(), 0.0);
    std::vector<double> columnHeight(g.layers.size(), 0.0);
    std::vector<double> y(g.box.size(), 0.0);
    double x = 0.0;
    for (std::size_t l = 0; l < g.layers.size(); ++l) {
        columnX[l] = x;
        double width = 0.0;
        double bottom = 0.0;
        for (std::size_t k = 0; k < g.layers[l].size(); ++k) {
            const int v = g.layers[l][k];
            const QRectF rect = g.box[v] >= 0 ? boxes[g.box[v]].rect : QRectF();
            y[v] = k == 0 ? 0.0 : snapUp(bottom + rowGap, grid);
            bottom = y[v] + rect.height();
            width = std::max(width, rect.width());
        }
        columnHeight[l] = bottom;
        x = snapUp(x + width + columnGap, grid);
    }
    const double tallest = *std::max_element(columnHeight.begin(), columnHeight.end());
    ComponentLayout out;
    double top = 0.0;
    double bottom = 0.0;
    for (std::size_t l = 0; l < g.layers.size(); ++l) {
        const double offset = snapDown((tallest - columnHeight[l]) / 2.0, grid);
        for (int v : g.layers[l]) {
            if (g.box[v] < 0) {
                continue;
            }
            const QPointF p(columnX[l], offset + y[v]);
            top = out.positions.empty() ? p.y() : std::min(top, p.y());
            bottom = out.positions.empty() ? p.y() + boxes[g.box[v]].rect.height()
                                           : std::max(bottom, p.y() + boxes[g.box[v]].rect.height());
            out.positions.emplace_back(g.box[v], p);
        }
    }
    for (auto& [b, p] : out.positions) {
        p.ry() -= top;
    }
    out.height = bottom - top;
    return out;
}

/// Sign of the cross product (b - a) x (c - a).
int orientation(const QPointF& a, const QPointF& b, const QPointF& c)
{
    const double cross = (b.x() - a.x()) * (c.y() - a.y()) - (b.y() - a.y()) * (c.x() - a.x());
    return cross > 0.0 ? 1 : (cross < 0.0 ? -1 : 0);
}

} // namespace

std::map<NodeId, QPointF> alignBoxes(const std::vector<LayoutBox>& input, Alignment how)
{
    std::map<NodeId, QPointF> out;
    const std::vector<LayoutBox> boxes = uniqueBoxes(input);
    const bool distributes = how == Alignment::DistributeH || how == Alignment::DistributeV;
    if (boxes.size() < (distributes ? 3u : 2u)) {
        return out;
    }
    std::vector<QPointF> target;
    target.reserve(boxes.size());
    double low = boxes.front().rect.left();
    double high = boxes.front().rect.right();
    double top = boxes.front().rect.top();
    double bottom = boxes.front().rect.bottom();
    double sumX = 0.0;
    double sumY = 0.0;
    for (const LayoutBox& b : boxes) {
        target.push_back(b.rect.topLeft());
        low = std::min(low, b.rect.left());
        high = std::max(high, b.rect.right());
        top = std::min(top, b.rect.top());
        bottom = std::max(bottom, b.rect.bottom());
        sumX += b.rect.center().x();
        sumY += b.rect.center().y();
    }
    const double n = static_cast<double>(boxes.size());
    for (std::size_t i = 0; i < boxes.size(); ++i) {
        const QRectF& r = boxes[i].rect;
        switch (how) {
        case Alignment::Left: target[i].setX(low); break;
        case Alignment::HCenter: target[i].setX(sumX / n - r.width() / 2.0); break;
        case Alignment::Right: target[i].setX(high - r.width()); break;
        case Alignment::Top: target[i].setY(top); break;
        case Alignment::VCenter: target[i].setY(sumY / n - r.height() / 2.0); break;
        case Alignment::Bottom: target[i].setY(bottom - r.height()); break;
        case Alignment::DistributeH:
        case Alignment::DistributeV: break;
        }
    }
    if (distributes) {
        distribute(boxes, how == Alignment::DistributeH, target);
    }
    for (std::size_t i = 0; i < boxes.size(); ++i) {
        const QPointF delta = target[i] - boxes[i].rect.topLeft();
        if (std::abs(delta.x()) > kUnchanged || std::abs(delta.y()) > kUnchanged) {
            out[boxes[i].id] = target[i];
        }
    }
    return out;
}

std::map<NodeId, QPointF> layeredLayout(const std::vector<LayoutBox>& input, const std::vector<LayoutEdge>& edges,
                                        const LayeredLayoutOptions& options)
{
    std::map<NodeId, QPointF> out;
    const std::vector<LayoutBox> boxes = uniqueBoxes(input);
    if (boxes.empty()) {
        return out;
    }
    const std::size_t n = boxes.size();
    std::map<NodeId, int> indexOf;
    for (std::size_t i = 0; i < n; ++i) {
        indexOf.emplace(boxes[i].id, static_cast<int>(i));
    }
    std::vector<std::vector<int>> next(n);
    for (const LayoutEdge& e : edges) {
        const auto from = indexOf.find(e.from);
        const auto to = indexOf.find(e.to);
        if (from != indexOf.end() && to != indexOf.end() && from->second != to->second) {
            next[static_cast<std::size_t>(from->second)].push_back(to->second);
        }
    }
    const AcyclicGraph dag = breakCycles(next);
    const std::vector<int> layer = longestPathLayers(dag, n);
    int componentCount = 0;
    const std::vector<int> comp = components(dag.edges, n, componentCount);
    std::vector<std::vector<int>> members(static_cast<std::size_t>(componentCount));
    std::vector<std::vector<std::pair<int, int>>> componentEdges(static_cast<std::size_t>(componentCount));
    for (std::size_t v = 0; v < n; ++v) {
        members[static_cast<std::size_t>(comp[v])].push_back(static_cast<int>(v));
    }
    for (const auto& e : dag.edges) {
        componentEdges[static_cast<std::size_t>(comp[static_cast<std::size_t>(e.first)])].push_back(e);
    }

    // Components stacked top to bottom; every relative coordinate is a grid multiple.
    std::vector<QPointF> relative(n);
    std::vector<int> localOf(n, -1);
    double cursor = 0.0;
    for (int c = 0; c < componentCount; ++c) {
        const ComponentLayout part = layoutComponent(members[static_cast<std::size_t>(c)],
                                                     componentEdges[static_cast<std::size_t>(c)], layer,
                                                     boxes, options, localOf);
        for (const auto& [b, p] : part.positions) {
            relative[static_cast<std::size_t>(b)] = p + QPointF(0.0, cursor);
        }
        cursor = snapUp(cursor + part.height + 2.0 * std::max(0.0, options.rowGap), options.grid);
    }

    double left = boxes.front().rect.left();
    double top = boxes.front().rect.top();
    for (const LayoutBox& b : boxes) {
        left = std::min(left, b.rect.left());
        top = std::min(top, b.rect.top());
    }
    const QPointF origin(snapNearest(left, options.grid), snapNearest(top, options.grid));
    for (std::size_t v = 0; v < n; ++v) {
        const QPointF p = origin + relative[v];
        out[boxes[v].id] = QPointF(snapNearest(p.x(), options.grid), snapNearest(p.y(), options.grid));
    }
    return out;
}

int countCrossings(const std::vector<LayoutBox>& boxes, const std::vector<LayoutEdge>& edges,
                   const std::map<NodeId, QPointF>& positions)
{
    std::map<NodeId, QRectF> placed;
    for (const LayoutBox& b : uniqueBoxes(boxes)) {
        QRectF r = b.rect;
        if (const auto it = positions.find(b.id); it != positions.end()) {
            r.moveTopLeft(it->second);
        }
        placed.emplace(b.id, r);
    }
    struct Segment {
        NodeId from;
        NodeId to;
        QPointF start;
        QPointF end;
    };
    std::vector<Segment> segments;
    for (const LayoutEdge& e : edges) {
        const auto a = placed.find(e.from);
        const auto b = placed.find(e.to);
        if (a == placed.end() || b == placed.end() || e.from == e.to) {
            continue;
        }
        segments.push_back({e.from, e.to, QPointF(a->second.right(), a->second.center().y()),
                            QPointF(b->second.left(), b->second.center().y())});
    }
    int count = 0;
    for (std::size_t i = 0; i < segments.size(); ++i) {
        const Segment& s = segments[i];
        for (std::size_t j = i + 1; j < segments.size(); ++j) {
            const Segment& t = segments[j];
            if (s.from == t.from || s.from == t.to || s.to == t.from || s.to == t.to) {
                continue;
            }
            if (orientation(s.start, s.end, t.start) * orientation(s.start, s.end, t.end) < 0
                && orientation(t.start, t.end, s.start) * orientation(t.start, t.end, s.end) < 0) {
                ++count;
            }
        }
    }
    return count;
}

} // namespace spike::ui
