// Geometry for the node-graph editor's "Align" and "Auto-layout" actions: pure functions from
// node boxes (and wires) to new top-left positions, with no widgets and no document access, so
// the canvas can turn a result into one MoveNodes undo step and tests can check the geometry.
//
// Conventions (those of GraphCanvas): a position is a node's top-left corner in scene units,
// wires flow left to right (out ports on a box's right edge, in ports on its left edge).
// Invariants: every function is deterministic (equal inputs give equal outputs, independent of
// hash order or addresses); boxes repeating an id are ignored after the first.
// Thread: none of its own; callable from any thread (the editor calls it on the GUI thread).
#pragma once

#include "ui/document/graph_document.hpp"

#include <QPointF>
#include <QRectF>

#include <map>
#include <vector>

namespace spike::ui {

/// How alignBoxes() lines boxes up.
enum class Alignment {
    Left,        ///< left edges on the leftmost left edge
    HCenter,     ///< centres on the mean centre x
    Right,       ///< right edges on the rightmost right edge
    Top,         ///< top edges on the topmost top edge
    VCenter,     ///< centres on the mean centre y
    Bottom,      ///< bottom edges on the bottommost bottom edge
    DistributeH, ///< equal horizontal gaps, leftmost and rightmost kept in place
    DistributeV, ///< equal vertical gaps, topmost and bottommost kept in place
};

/// One node's box in scene coordinates (top-left position and size).
struct LayoutBox {
    NodeId id;
    QRectF rect;
};

/// New top-left positions aligning `boxes` (at least 2; fewer: empty result). Left aligns left
/// edges to the leftmost, Right to the rightmost, HCenter centres on the mean centre x;
/// Top/VCenter/Bottom likewise vertically. DistributeH sorts the boxes by left edge (ties by
/// id), keeps the first and the last in place and moves the others so that the gaps between
/// consecutive boxes are equal; DistributeV likewise vertically (both need 3+ boxes; fewer:
/// empty). Only the other coordinate is kept. Positions are not snapped to a grid. Only nodes
/// whose position changes appear in the result.
std::map<NodeId, QPointF> alignBoxes(const std::vector<LayoutBox>& boxes, Alignment how);

/// A directed wire between two laid-out nodes (edges naming other nodes are ignored).
struct LayoutEdge {
    NodeId from;
    NodeId to;
};

/// Spacing of layeredLayout() [scene units] and its crossing-reduction effort.
struct LayeredLayoutOptions {
    double columnGap = 80;  ///< least gap between a column's widest box and the next column
    double rowGap = 40;     ///< least gap between boxes stacked in one column
    double grid = 20;       ///< every coordinate of the result is a multiple of it (<= 0: none)
    int sweeps = 8;         ///< barycentre sweeps, alternately left-to-right and right-to-left
};

/// Layered (Sugiyama-style) layout of `boxes` with `edges`. Cycles are broken by reversing the
/// back edges of a depth-first search (in box order, each node's edges in the given order);
/// columns are longest-path layers; an edge spanning several columns gets a zero-size virtual
/// node in each column it passes (so it keeps a free lane of rowGap); crossings are reduced by
/// alternating barycentre sweeps (ties by original order, best order seen is kept). Coordinates:
/// a column's x is the previous column's x + its widest box + columnGap, rounded up to the grid;
/// boxes are left-aligned in their column and stacked with rowGap; columns are centred
/// vertically on each other. Weakly connected components are laid out on their own and stacked
/// top to bottom in order of first appearance in `boxes`, 2 * rowGap apart. The result is
/// translated so that its bounding box's top-left equals that of the input boxes (a selection
/// stays where it was; the corner is rounded to the grid when it is off it). Self loops, edges
/// naming unknown ids and repeated edges are ignored. Returns a position for every box (empty
/// input: empty result).
std::map<NodeId, QPointF> layeredLayout(const std::vector<LayoutBox>& boxes,
                                        const std::vector<LayoutEdge>& edges,
                                        const LayeredLayoutOptions& options = {});

/// Number of pairs of edges whose straight segments (source box's right-middle to target box's
/// left-middle) cross, with each box at `positions` (a box missing there stays at its rect).
/// Pairs sharing a node, touching or collinear segments, self loops and edges naming unknown
/// ids do not count. O(E^2): meant for tests and benchmark reports, not for interaction.
int countCrossings(const std::vector<LayoutBox>& boxes, const std::vector<LayoutEdge>& edges,
                   const std::map<NodeId, QPointF>& positions);

} // namespace spike::ui
