// GraphCanvas, where nodes stand: undoing a Delete puts a node back where it stood, a drag pins
// the nodes the default layout placed (so a saved file reopens as it was seen, and undo returns
// to the default layout), align and auto-layout are one undo step each.
#include "tests/graph_canvas_test_helpers.hpp"

#include <QtTest/QtTest>

#include <map>

using namespace spike::tests::canvas;

namespace {

/// The sample model without its "layout": every node placed by the default layout.
Json unplacedModel()
{
    Json model = sampleModel();
    model.erase("layout");
    return model;
}

}  // namespace

class TestGraphCanvasPlacement : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void undoOfADeletePutsANodeBackWhereItStood()
    {
        // A node placed by the default layout (the document has no position for it) comes back
        // where it stood, not beside the others.
        Fixture f(unplacedModel());
        GraphDocument& doc = f.doc;
        GraphCanvas& canvas = f.canvas;
        const NodeId e = doc.findNode("E");
        QVERIFY(!doc.position(e).has_value());
        const QPointF before = canvas.nodeItem(e)->pos();
        push(doc, std::make_unique<DeleteNodesCommand>(doc, std::vector<NodeId>{e}));
        QVERIFY(canvas.nodeItem(e) == nullptr);
        doc.undoStack()->undo();
        QVERIFY(canvas.nodeItem(e) != nullptr);
        QCOMPARE(canvas.nodeItem(e)->pos(), before);
    }

    void draggingOneNodeKeepsTheOthersWhereTheyStand()
    {
        // In a model without a layout, dragging one node writes every node's position, so the
        // saved file reopens with all nodes where they stood (the default layout would put the
        // undragged ones below the dragged one); undo returns to the default layout.
        Fixture f(unplacedModel());
        GraphDocument& doc = f.doc;
        GraphCanvas& canvas = f.canvas;
        canvas.fitToView();
        std::map<NodeId, QPointF> before;
        for (NodeId id : doc.graphNodes(doc.rootId())) {
            before[id] = canvas.nodeItem(id)->pos();
        }
        GraphNodeItem* e = canvas.nodeItem(doc.findNode("E"));
        canvas.setSelection({e->id()});
        const QPoint start = at(canvas, header(e));
        QWidget* vp = canvas.viewport();
        mouse(vp, QEvent::MouseButtonPress, start, Qt::LeftButton, Qt::LeftButton);
        for (int k = 1; k <= 10; ++k) {
            mouse(vp, QEvent::MouseMove, start + QPoint(0, 15 * k), Qt::NoButton, Qt::LeftButton);
        }
        mouse(vp, QEvent::MouseButtonRelease, start + QPoint(0, 150), Qt::LeftButton, Qt::NoButton);
        QVERIFY(e->pos() != before[e->id()]);
        GraphDocument reopened;
        reopened.fromJson(doc.toJson());
        GraphCanvas again;
        again.resize(1000, 700);
        again.setDocument(&reopened);
        again.show();
        for (const auto& [id, p] : before) {
            const QString name = doc.nodeData(id, NodeRole::Path).toString();
            const NodeId other = reopened.findNode(name.toStdString());
            const QPointF expected = id == e->id() ? e->pos() : p;
            QCOMPARE(again.nodeItem(other)->pos(), expected);
        }
        doc.undoStack()->undo();
        for (const auto& [id, p] : before) {
            QVERIFY(!doc.position(id).has_value());
            QCOMPARE(canvas.nodeItem(id)->pos(), p);
        }
    }

    void alignAndAutoLayoutAreOneStepEach()
    {
        Fixture f;
        const Json saved = f.doc.toJson();
        const NodeId drive = f.doc.findNode("drive");
        const NodeId e = f.doc.findNode("E");
        const NodeId bias = f.doc.findNode("bias");
        f.canvas.setSelection({drive, e, bias});
        const int before = f.doc.undoStack()->count();
        QVERIFY(f.canvas.alignSelection(Alignment::Left));
        QCOMPARE(f.doc.undoStack()->count(), before + 1);
        QCOMPARE(f.doc.position(e)->x(), 0.0);
        QCOMPARE(f.doc.position(bias)->x(), 0.0);
        f.doc.undoStack()->undo();
        QCOMPARE(f.doc.toJson(), saved);
        // Auto-layout of everything: sources left of E, E left of I and L, one undo step.
        f.canvas.setSelection({});
        QVERIFY(f.canvas.autoLayout());
        QCOMPARE(f.doc.undoStack()->count(), before + 1);
        QVERIFY(f.doc.position(drive)->x() < f.doc.position(e)->x());
        QVERIFY(f.doc.position(e)->x() < f.doc.position(f.doc.findNode("I"))->x());
        QVERIFY(f.doc.position(e)->x() < f.doc.position(f.doc.findNode("L"))->x());
        for (NodeId a : f.doc.graphNodes(f.doc.rootId())) {
            for (NodeId b : f.doc.graphNodes(f.doc.rootId())) {
                QVERIFY(a == b || !f.canvas.nodeItem(a)->sceneBoundingRect().intersects(f.canvas.nodeItem(b)->sceneBoundingRect()));
            }
        }
        f.doc.undoStack()->undo();
        QCOMPARE(f.doc.toJson(), saved);
    }

};

QTEST_MAIN(TestGraphCanvasPlacement)
#include "test_graph_canvas_placement.moc"
