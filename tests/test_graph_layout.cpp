// Align and layered auto-layout geometry (ui/editor/graph_layout.hpp): every alignment against edges
// and centres worked out by hand, equal gaps of the distributions, chains, diamonds, cycles,
// crossing removal, components stacked in order, spacing options, and on random graphs: no
// overlaps, grid multiples, the selection's top-left kept, determinism and a 500-node run.
#include "ui/editor/graph_layout.hpp"

#include <QtTest/QtTest>

#include <cmath>
#include <random>

using namespace spike::ui;

namespace {

NodeId id(std::uint64_t v)
{
    return NodeId{v};
}

/// The boxes with the moves of `moved` applied.
std::map<NodeId, QRectF> applied(const std::vector<LayoutBox>& boxes, const std::map<NodeId, QPointF>& moved)
{
    std::map<NodeId, QRectF> out;
    for (const LayoutBox& b : boxes) {
        QRectF r = b.rect;
        if (const auto it = moved.find(b.id); it != moved.end()) {
            r.moveTopLeft(it->second);
        }
        out[b.id] = r;
    }
    return out;
}

/// Four boxes of different sizes: A (10,20 100x40), B (50,70 60x80), C (-30,150 140x30),
/// D (200,5 80x60).
std::vector<LayoutBox> fourBoxes()
{
    return {{id(1), QRectF(10, 20, 100, 40)},
            {id(2), QRectF(50, 70, 60, 80)},
            {id(3), QRectF(-30, 150, 140, 30)},
            {id(4), QRectF(200, 5, 80, 60)}};
}

bool isGridMultiple(double v, double grid)
{
    return std::abs(std::remainder(v, grid)) < 1e-9;
}

/// Random boxes (widths 100..240, heights 40..160, positions on a 20 grid) joined by random
/// edges; `acyclic` keeps only edges from a lower to a higher index.
void randomGraph(std::uint32_t seed, int nodes, int edgeCount, bool acyclic, std::vector<LayoutBox>& boxes,
                 std::vector<LayoutEdge>& edges)
{
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> width(100, 240);
    std::uniform_int_distribution<int> height(40, 160);
    std::uniform_int_distribution<int> cell(-50, 50);
    std::uniform_int_distribution<int> pick(0, nodes - 1);
    boxes.clear();
    edges.clear();
    for (int i = 0; i < nodes; ++i) {
        boxes.push_back({id(static_cast<std::uint64_t>(1000 + i)), QRectF(20.0 * cell(rng), 20.0 * cell(rng), width(rng), height(rng))});
    }
    while (static_cast<int>(edges.size()) < edgeCount) {
        int a = pick(rng);
        int b = pick(rng);
        if (acyclic) {
            if (a == b) {
                continue;
            }
            if (a > b) {
                std::swap(a, b);
            }
        }
        edges.push_back({boxes[static_cast<std::size_t>(a)].id, boxes[static_cast<std::size_t>(b)].id});
    }
}

/// Fails when two laid-out boxes share any area.
void verifyNoOverlap(const std::vector<LayoutBox>& boxes, const std::map<NodeId, QPointF>& positions)
{
    const std::map<NodeId, QRectF> placed = applied(boxes, positions);
    for (auto a = placed.begin(); a != placed.end(); ++a) {
        for (auto b = std::next(a); b != placed.end(); ++b) {
            QVERIFY2(!a->second.intersects(b->second),
                     qPrintable(QStringLiteral("nodes %1 and %2 overlap").arg(a->first.value).arg(b->first.value)));
        }
    }
}

QRectF boundingBox(const std::map<NodeId, QRectF>& rects)
{
    QRectF out;
    for (const auto& [key, r] : rects) {
        out = out.isNull() ? r : out.united(r);
    }
    return out;
}

std::vector<LayoutBox> sameSizeBoxes(int count, double width = 190, double height = 80)
{
    std::vector<LayoutBox> out;
    for (int i = 0; i < count; ++i) {
        out.push_back({id(static_cast<std::uint64_t>(i + 1)), QRectF(37.0 * i, 400.0 - 53.0 * i, width, height)});
    }
    return out;
}

} // namespace

class TestGraphLayout : public QObject {
    Q_OBJECT

private slots:
    void alignHorizontal()
    {
        const auto boxes = fourBoxes();
        // Left: every left edge on -30 (C's); C does not move.
        auto moved = alignBoxes(boxes, Alignment::Left);
        QCOMPARE(moved.size(), std::size_t{3});
        QVERIFY(moved.count(id(3)) == 0);
        auto r = applied(boxes, moved);
        for (const auto& [key, rect] : r) {
            QCOMPARE(rect.left(), -30.0);
        }
        QCOMPARE(r[id(2)].top(), 70.0);
        // Right: every right edge on 280 (D's).
        moved = alignBoxes(boxes, Alignment::Right);
        QCOMPARE(moved.size(), std::size_t{3});
        r = applied(boxes, moved);
        QCOMPARE(r[id(1)].left(), 180.0);
        QCOMPARE(r[id(2)].left(), 220.0);
        QCOMPARE(r[id(3)].left(), 140.0);
        QCOMPARE(r[id(4)].left(), 200.0);
        // HCenter: centres 60, 80, 40, 240 -> mean 105.
        moved = alignBoxes(boxes, Alignment::HCenter);
        QCOMPARE(moved.size(), std::size_t{4});
        r = applied(boxes, moved);
        QCOMPARE(r[id(1)].left(), 55.0);
        QCOMPARE(r[id(2)].left(), 75.0);
        QCOMPARE(r[id(3)].left(), 35.0);
        QCOMPARE(r[id(4)].left(), 65.0);
        for (const auto& [key, rect] : r) {
            QCOMPARE(rect.center().x(), 105.0);
        }
        QCOMPARE(r[id(3)].top(), 150.0);
    }

    void alignVertical()
    {
        const auto boxes = fourBoxes();
        // Top: every top edge on 5 (D's).
        auto moved = alignBoxes(boxes, Alignment::Top);
        QCOMPARE(moved.size(), std::size_t{3});
        QVERIFY(moved.count(id(4)) == 0);
        auto r = applied(boxes, moved);
        for (const auto& [key, rect] : r) {
            QCOMPARE(rect.top(), 5.0);
        }
        QCOMPARE(r[id(1)].left(), 10.0);
        // Bottom: every bottom edge on 180 (C's).
        moved = alignBoxes(boxes, Alignment::Bottom);
        QCOMPARE(moved.size(), std::size_t{3});
        r = applied(boxes, moved);
        QCOMPARE(r[id(1)].top(), 140.0);
        QCOMPARE(r[id(2)].top(), 100.0);
        QCOMPARE(r[id(3)].top(), 150.0);
        QCOMPARE(r[id(4)].top(), 120.0);
        // VCenter: centres 40, 110, 165, 35 -> mean 87.5.
        moved = alignBoxes(boxes, Alignment::VCenter);
        r = applied(boxes, moved);
        QCOMPARE(r[id(1)].top(), 67.5);
        QCOMPARE(r[id(2)].top(), 47.5);
        QCOMPARE(r[id(3)].top(), 72.5);
        QCOMPARE(r[id(4)].top(), 57.5);
        QCOMPARE(r[id(4)].left(), 200.0);
    }

    void alignSkipsBoxesAlreadyInPlace()
    {
        const std::vector<LayoutBox> boxes{{id(1), QRectF(0, 0, 50, 50)}, {id(2), QRectF(0, 100, 80, 20)}};
        QVERIFY(alignBoxes(boxes, Alignment::Left).empty());
        QCOMPARE(alignBoxes(boxes, Alignment::Right).size(), std::size_t{1});
    }

    void distributeHorizontal()
    {
        // Sorted by left edge: A (0, w40), C (100, w20), B (300, w100), D (500, w60).
        // Free span 500 - 40 - 20 - 100 = 340 over 3 gaps.
        const std::vector<LayoutBox> boxes{{id(4), QRectF(500, 0, 60, 10)},
                                           {id(1), QRectF(0, 0, 40, 10)},
                                           {id(2), QRectF(300, 50, 100, 20)},
                                           {id(3), QRectF(100, 30, 20, 10)}};
        const auto moved = alignBoxes(boxes, Alignment::DistributeH);
        QVERIFY(moved.count(id(1)) == 0);
        QVERIFY(moved.count(id(4)) == 0);
        const auto r = applied(boxes, moved);
        const double gap = 340.0 / 3.0;
        QCOMPARE(r.at(id(3)).left(), 40.0 + gap);
        QCOMPARE(r.at(id(2)).left(), 40.0 + gap + 20.0 + gap);
        QCOMPARE(r.at(id(3)).left() - r.at(id(1)).right(), gap);
        QCOMPARE(r.at(id(2)).left() - r.at(id(3)).right(), gap);
        QCOMPARE(r.at(id(4)).left() - r.at(id(2)).right(), gap);
        QCOMPARE(r.at(id(2)).top(), 50.0);
        QCOMPARE(r.at(id(3)).top(), 30.0);
    }

    void distributeVertical()
    {
        // Sorted by top edge: 1 (0, h20), 3 (10, h60), 2 (200, h40), 4 (400, h30); free span
        // 400 - 20 - 60 - 40 = 280 over 3 gaps.
        const std::vector<LayoutBox> boxes{{id(1), QRectF(5, 0, 10, 20)},
                                           {id(2), QRectF(7, 200, 10, 40)},
                                           {id(3), QRectF(9, 10, 10, 60)},
                                           {id(4), QRectF(11, 400, 10, 30)}};
        const auto r = applied(boxes, alignBoxes(boxes, Alignment::DistributeV));
        const double gap = 280.0 / 3.0;
        QCOMPARE(r.at(id(1)).top(), 0.0);
        QCOMPARE(r.at(id(4)).top(), 400.0);
        QCOMPARE(r.at(id(3)).top() - r.at(id(1)).bottom(), gap);
        QCOMPARE(r.at(id(2)).top() - r.at(id(3)).bottom(), gap);
        QCOMPARE(r.at(id(4)).top() - r.at(id(2)).bottom(), gap);
        QCOMPARE(r.at(id(2)).left(), 7.0);
    }

    void alignNeedsEnoughBoxes()
    {
        const std::vector<LayoutBox> one{{id(1), QRectF(3, 4, 10, 10)}};
        const std::vector<LayoutBox> two{{id(1), QRectF(3, 4, 10, 10)}, {id(2), QRectF(50, 60, 20, 30)}};
        for (Alignment how : {Alignment::Left, Alignment::HCenter, Alignment::Right, Alignment::Top,
                              Alignment::VCenter, Alignment::Bottom, Alignment::DistributeH, Alignment::DistributeV}) {
            QVERIFY(alignBoxes({}, how).empty());
            QVERIFY(alignBoxes(one, how).empty());
        }
        QVERIFY(alignBoxes(two, Alignment::DistributeH).empty());
        QVERIFY(alignBoxes(two, Alignment::DistributeV).empty());
        QVERIFY(!alignBoxes(two, Alignment::Left).empty());
    }

    void chainRunsLeftToRightOnOneRow()
    {
        const auto boxes = sameSizeBoxes(3);
        const auto pos = layeredLayout(boxes, {{id(1), id(2)}, {id(2), id(3)}});
        QCOMPARE(pos.size(), std::size_t{3});
        QVERIFY(pos.at(id(1)).x() < pos.at(id(2)).x());
        QVERIFY(pos.at(id(2)).x() < pos.at(id(3)).x());
        QCOMPARE(pos.at(id(1)).y(), pos.at(id(2)).y());
        QCOMPARE(pos.at(id(2)).y(), pos.at(id(3)).y());
    }

    void spacingFollowsOptions()
    {
        const auto boxes = sameSizeBoxes(2);
        LayeredLayoutOptions options;
        options.columnGap = 100;
        auto pos = layeredLayout(boxes, {{id(1), id(2)}}, options);
        QCOMPARE(pos.at(id(2)).x() - pos.at(id(1)).x(), 300.0);  // 190 + 100 rounded up to 20
        options.grid = 0;
        pos = layeredLayout(boxes, {{id(1), id(2)}}, options);
        QCOMPARE(pos.at(id(2)).x() - pos.at(id(1)).x(), 290.0);
        // Unconnected boxes form one component each, stacked 2 * rowGap apart.
        options = {};
        pos = layeredLayout(boxes, {});
        QCOMPARE(pos.at(id(1)).x(), pos.at(id(2)).x());
        QCOMPARE(pos.at(id(2)).y() - pos.at(id(1)).y(), 80.0 + 2 * options.rowGap);
    }

    void diamondSharesTheMiddleColumn()
    {
        const auto boxes = sameSizeBoxes(4);
        const auto pos = layeredLayout(boxes, {{id(1), id(2)}, {id(1), id(3)}, {id(2), id(4)}, {id(3), id(4)}});
        QCOMPARE(pos.at(id(2)).x(), pos.at(id(3)).x());
        QVERIFY(pos.at(id(1)).x() < pos.at(id(2)).x());
        QVERIFY(pos.at(id(2)).x() < pos.at(id(4)).x());
        QVERIFY(pos.at(id(2)).y() != pos.at(id(3)).y());
        verifyNoOverlap(boxes, pos);
    }

    void cycleGetsEveryNodePlaced()
    {
        const auto boxes = sameSizeBoxes(3);
        const std::vector<LayoutEdge> edges{{id(1), id(2)}, {id(2), id(3)}, {id(3), id(1)}, {id(2), id(2)}};
        const auto pos = layeredLayout(boxes, edges);
        QCOMPARE(pos.size(), std::size_t{3});
        // The cycle reads from its first node: 1, 2, 3 left to right.
        QVERIFY(pos.at(id(1)).x() < pos.at(id(2)).x());
        QVERIFY(pos.at(id(2)).x() < pos.at(id(3)).x());
        verifyNoOverlap(boxes, pos);
    }

    void crossingsAreRemoved()
    {
        // a1 -> b1, a1 -> b2, a2 -> b1: in input order a1 -> b2 crosses a2 -> b1.
        const auto boxes = sameSizeBoxes(4);
        const std::vector<LayoutEdge> edges{{id(1), id(3)}, {id(1), id(4)}, {id(2), id(3)}};
        LayeredLayoutOptions asGiven;
        asGiven.sweeps = 0;
        QCOMPARE(countCrossings(boxes, edges, layeredLayout(boxes, edges, asGiven)), 1);
        QCOMPARE(countCrossings(boxes, edges, layeredLayout(boxes, edges)), 0);

        // Three columns of three wired as a zigzag through the middle column in reverse order
        // (1 feeds 6 and 5, 2 feeds 5 and 4, 3 feeds 4; 6 feeds 7 and 8, ...): 6 + 6 crossings
        // as given, none once the middle column is flipped.
        const auto nine = sameSizeBoxes(9);
        const std::vector<LayoutEdge> zigzag{{id(1), id(6)}, {id(1), id(5)}, {id(2), id(5)}, {id(2), id(4)},
                                             {id(3), id(4)}, {id(6), id(7)}, {id(6), id(8)}, {id(5), id(8)},
                                             {id(5), id(9)}, {id(4), id(9)}};
        QCOMPARE(countCrossings(nine, zigzag, layeredLayout(nine, zigzag, asGiven)), 12);
        QCOMPARE(countCrossings(nine, zigzag, layeredLayout(nine, zigzag)), 0);
    }

    void countCrossingsGeometry()
    {
        const std::vector<LayoutBox> boxes{{id(1), QRectF(0, 0, 100, 40)}, {id(2), QRectF(0, 100, 100, 40)},
                                           {id(3), QRectF(300, 0, 100, 40)}, {id(4), QRectF(300, 100, 100, 40)}};
        QCOMPARE(countCrossings(boxes, {{id(1), id(4)}, {id(2), id(3)}}, {}), 1);
        QCOMPARE(countCrossings(boxes, {{id(1), id(3)}, {id(2), id(4)}}, {}), 0);
        QCOMPARE(countCrossings(boxes, {{id(1), id(4)}, {id(1), id(3)}}, {}), 0);  // shared source
        QCOMPARE(countCrossings(boxes, {{id(1), id(4)}, {id(2), id(3)}}, {{id(4), QPointF(300, 0)}, {id(3), QPointF(300, 100)}}), 0);
        QCOMPARE(countCrossings(boxes, {{id(1), id(4)}, {id(2), id(3)}, {id(7), id(1)}, {id(2), id(2)}}, {}), 1);
    }

    void componentsStackInOrderOfAppearance()
    {
        // Boxes listed c, a, b, d, e: component {c, d} first, then {a, b}, then the lone e.
        const std::vector<LayoutBox> boxes{{id(3), QRectF(0, 0, 190, 60)}, {id(1), QRectF(0, 0, 190, 100)},
                                           {id(2), QRectF(0, 0, 190, 60)}, {id(4), QRectF(0, 0, 190, 60)},
                                           {id(5), QRectF(0, 0, 190, 60)}};
        const auto pos = layeredLayout(boxes, {{id(1), id(2)}, {id(3), id(4)}});
        const auto r = applied(boxes, pos);
        const double firstBottom = std::max(r.at(id(3)).bottom(), r.at(id(4)).bottom());
        const double secondTop = std::min(r.at(id(1)).top(), r.at(id(2)).top());
        const double secondBottom = std::max(r.at(id(1)).bottom(), r.at(id(2)).bottom());
        QVERIFY(firstBottom < secondTop);
        QVERIFY(secondBottom < r.at(id(5)).top());
        QCOMPARE(r.at(id(3)).left(), r.at(id(1)).left());
        verifyNoOverlap(boxes, pos);
    }

    void ignoresUnknownIdsAndSelfLoops()
    {
        QVERIFY(layeredLayout({}, {{id(1), id(2)}}).empty());
        const auto boxes = sameSizeBoxes(3);
        const std::vector<LayoutEdge> edges{{id(1), id(2)}, {id(2), id(3)}};
        const std::vector<LayoutEdge> noisy{{id(1), id(2)}, {id(42), id(1)}, {id(2), id(2)}, {id(2), id(3)}, {id(3), id(77)}};
        QCOMPARE(layeredLayout(boxes, noisy), layeredLayout(boxes, edges));
    }

    void randomDagLayoutIsClean()
    {
        std::vector<LayoutBox> boxes;
        std::vector<LayoutEdge> edges;
        randomGraph(2024, 60, 120, true, boxes, edges);
        const auto pos = layeredLayout(boxes, edges);
        QCOMPARE(pos.size(), boxes.size());
        verifyNoOverlap(boxes, pos);
        for (const auto& [key, p] : pos) {
            QVERIFY(isGridMultiple(p.x(), 20.0));
            QVERIFY(isGridMultiple(p.y(), 20.0));
        }
        // Every edge of a DAG runs left to right.
        for (const LayoutEdge& e : edges) {
            QVERIFY(pos.at(e.from).x() < pos.at(e.to).x());
        }
        // The selection stays where it was.
        QCOMPARE(boundingBox(applied(boxes, pos)).topLeft(), boundingBox(applied(boxes, {})).topLeft());
        // Deterministic.
        QCOMPARE(layeredLayout(boxes, edges), pos);
        // Fewer crossings than the same columns in input order.
        LayeredLayoutOptions asGiven;
        asGiven.sweeps = 0;
        QVERIFY(countCrossings(boxes, edges, pos) < countCrossings(boxes, edges, layeredLayout(boxes, edges, asGiven)));
    }

    void offGridSelectionKeepsItsCornerOnTheGrid()
    {
        std::vector<LayoutBox> boxes = sameSizeBoxes(3);
        boxes[1].rect.moveTopLeft(QPointF(-47.0, -133.0));
        const auto pos = layeredLayout(boxes, {{id(1), id(2)}, {id(1), id(3)}});
        QCOMPARE(boundingBox(applied(boxes, pos)).topLeft(), QPointF(-40.0, -140.0));
    }

    void largeGraphGetsEveryNodePlaced()
    {
        std::vector<LayoutBox> boxes;
        std::vector<LayoutEdge> edges;
        randomGraph(7, 500, 2000, false, boxes, edges);
        const auto pos = layeredLayout(boxes, edges);
        QCOMPARE(pos.size(), boxes.size());
        for (const LayoutBox& b : boxes) {
            QVERIFY(pos.count(b.id) == 1);
        }
        verifyNoOverlap(boxes, pos);
    }
};

QTEST_GUILESS_MAIN(TestGraphLayout)
#include "test_graph_layout.moc"
