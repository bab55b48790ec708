// GraphCanvas: items for every node and wire of a document, item-by-item updates from pushed
// commands and undo (no rebuilds), a mouse drag as one MoveNodes undo step snapped to the grid,
// connecting by dragging between ports (different sizes offer the projection kinds; Escape pushes
// nothing), Delete as one undo step, selection sync both ways with ctrl-click toggling, zoom
// around the cursor, the minimap and nested networks; the edit actions: double-click entering
// nested modules (a Sequential shown read-only, refusing structural edits), dropping a palette
// entry, clipboard copy/paste with the paste landing in view (placement and layout: test_graph_canvas_placement).
#include "tests/graph_canvas_test_helpers.hpp"
#include "tests/graph_test_models.hpp"
#include "ui/editor/graph_canvas.hpp"
#include "ui/document/graph_commands.hpp"
#include "ui/document/graph_document.hpp"
#include "ui/editor/graph_node_item.hpp"
#include "ui/editor/graph_wire_item.hpp"
#include "ui/editor/palette_widget.hpp"

#include <QApplication>
#include <QClipboard>
#include <QGraphicsPathItem>
#include <QMenu>
#include <QMimeData>
#include <QSignalSpy>
#include <QtTest/QtTest>

#include <cmath>

using namespace spike::ui;
using Json = nlohmann::json;

using namespace spike::tests::canvas;


class TestGraphCanvas : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void itemsForEveryNodeAndWire()
    {
        Fixture f;
        QCOMPARE(f.canvas.nodeItemCount(), f.doc.graphNodes(f.doc.rootId()).size());
        QCOMPARE(f.canvas.wireItemCount(), f.doc.connections(f.doc.rootId()).size());
        for (NodeId id : f.doc.graphNodes(f.doc.rootId())) {
            QVERIFY(f.canvas.nodeItem(id) != nullptr);
            QCOMPARE(f.canvas.nodeItem(id)->pos(), f.doc.position(id).value());
        }
        // Ports from the document's roles: CUBALIF has exc and inh in, spikes out (spiking).
        const GraphNodeItem* e = f.item("E");
        QCOMPARE(e->ports().size(), std::size_t{3});
        QVERIFY(e->ports()[0].input && e->ports()[0].name == "exc" && e->ports()[0].size == 4);
        QVERIFY(!e->ports()[2].input && e->ports()[2].spiking);
        // Wires run from the output port to the input port, dashed when delayed, labelled.
        const GraphWireItem* ei = f.wire("E_to_I");
        QCOMPARE(ei->from(), port(e, "spikes", false));
        QCOMPARE(ei->to(), port(f.item("I"), "exc", true));
        QCOMPARE(ei->label(), QString("Dense 4→3"));  // kind and size (graph_projection.hpp)
        QVERIFY(!ei->delayed());
        QVERIFY(f.wire("I_to_E")->delayed());
        QCOMPARE(f.wire("bias_to_L")->label(), QString());
        // The root's output boundary is an item too, and the wire into it is routed.
        const GraphWireItem* out = f.wire("L_to_out");
        QVERIFY(out->isVisible());
        QCOMPARE(out->from(), port(f.item("L"), "spikes", false));
    }

    void editsUpdateItemsWithoutRebuild()
    {
        Fixture f;
        const int rebuilds = f.canvas.rebuildCount();
        const NodeId root = f.doc.rootId();
        auto add = std::make_unique<AddNodeCommand>(f.doc, root, "ConstantCurrent", Json{{"shape", {3}}}, "c3", QPointF(300, 400));
        push(f.doc, std::move(add));
        const NodeId c3 = f.doc.findNode("c3");
        QVERIFY(f.canvas.nodeItem(c3) != nullptr);
        QCOMPARE(f.canvas.nodeItem(c3)->pos(), QPointF(300, 400));
        push(f.doc, std::make_unique<ConnectCommand>(f.doc, root, "c3.out", "I.inh"));
        const ConnectionId wire = f.doc.findConnection(root, "c3_to_I");
        QVERIFY(f.canvas.wireItem(wire) != nullptr);
        QCOMPARE(f.canvas.wireItem(wire)->to(), port(f.item("I"), "inh", true));
        // Moving I through a command reroutes every wire touching it.
        push(f.doc, std::make_unique<MoveNodesCommand>(f.doc, std::vector<std::pair<NodeId, QPointF>>{{f.doc.findNode("I"), QPointF(700, 60)}}));
        QCOMPARE(f.item("I")->pos(), QPointF(700, 60));
        QCOMPARE(f.canvas.wireItem(wire)->to(), port(f.item("I"), "inh", true));
        QCOMPARE(f.wire("E_to_I")->to(), port(f.item("I"), "exc", true));
        // Deleting E removes its item and its four wires; undo brings all back.
        push(f.doc, std::make_unique<DeleteNodesCommand>(f.doc, std::vector<NodeId>{f.doc.findNode("E")}));
        QCOMPARE(f.canvas.nodeItemCount(), std::size_t{5});
        QCOMPARE(f.canvas.wireItemCount(), std::size_t{3});
        f.doc.undoStack()->undo();
        QCOMPARE(f.canvas.nodeItemCount(), std::size_t{6});
        QCOMPARE(f.canvas.wireItemCount(), std::size_t{7});
        QCOMPARE(f.wire("E_to_I")->from(), port(f.item("E"), "spikes", false));
        f.doc.undoStack()->undo();  // move
        QCOMPARE(f.item("I")->pos(), QPointF(600, 0));
        f.doc.undoStack()->undo();  // connect
        QVERIFY(f.canvas.wireItem(wire) == nullptr);
        f.doc.undoStack()->undo();  // add
        QVERIFY(f.canvas.nodeItem(c3) == nullptr);
        // Renames refresh the item in place.
        push(f.doc, std::make_unique<RenameCommand>(f.doc, f.doc.findNode("L"), "readout"));
        QCOMPARE(f.canvas.nodeItem(f.doc.findNode("readout"))->name(), QString("readout"));
        QCOMPARE(f.canvas.rebuildCount(), rebuilds);
        // Loading is the one edit that rebuilds.
        f.doc.fromJson(sampleModel());
        QCOMPARE(f.canvas.rebuildCount(), rebuilds + 1);
        QCOMPARE(f.canvas.wireItemCount(), std::size_t{6});
    }

    void dragIsOneUndoStep()
    {
        Fixture f;
        GraphNodeItem* e = f.item("E");
        GraphNodeItem* i = f.item("I");
        f.canvas.setSelection({e->id(), i->id()});
        const int steps = f.doc.undoStack()->count();
        const QPoint start = at(f.canvas, header(e));
        QWidget* vp = f.canvas.viewport();
        mouse(vp, QEvent::MouseButtonPress, start, Qt::LeftButton, Qt::LeftButton);
        for (int k = 1; k <= 10; ++k) {
            mouse(vp, QEvent::MouseMove, start + QPoint(7 * k, 4 * k), Qt::NoButton, Qt::LeftButton);
        }
        const QPointF ePos = e->pos();
        const QPointF iPos = i->pos();
        QVERIFY(ePos != QPointF(300, 0));
        QCOMPARE(iPos - QPointF(600, 0), ePos - QPointF(300, 0));
        QCOMPARE(f.doc.undoStack()->count(), steps);  // nothing pushed while dragging
        mouse(vp, QEvent::MouseButtonRelease, start + QPoint(70, 40), Qt::LeftButton, Qt::NoButton);
        QCOMPARE(f.doc.undoStack()->count(), steps + 1);
        auto snapped = [](QPointF p) {
            return QPointF(std::round(p.x() / GraphCanvas::kGrid) * GraphCanvas::kGrid,
                           std::round(p.y() / GraphCanvas::kGrid) * GraphCanvas::kGrid);
        };
        QCOMPARE(f.doc.position(e->id()).value(), snapped(ePos));
        QCOMPARE(f.doc.position(i->id()).value(), snapped(iPos));
        QCOMPARE(e->pos(), snapped(ePos));
        QCOMPARE(f.wire("E_to_I")->to(), port(i, "exc", true));
        f.doc.undoStack()->undo();
        QCOMPARE(e->pos(), QPointF(300, 0));
        QCOMPARE(i->pos(), QPointF(600, 0));
        // A click without movement pushes nothing.
        mouse(vp, QEvent::MouseButtonPress, at(f.canvas, header(e)), Qt::LeftButton, Qt::LeftButton);
        mouse(vp, QEvent::MouseButtonRelease, at(f.canvas, header(e)), Qt::LeftButton, Qt::NoButton);
        QCOMPARE(f.doc.undoStack()->count(), steps + 1);
        QCOMPARE(f.doc.undoStack()->index(), steps);
    }

    void connectByDragAndRefusal()
    {
        Fixture f;
        QWidget* vp = f.canvas.viewport();
        QSignalSpy refused(&f.canvas, &GraphCanvas::editRefused);
        const int steps = f.doc.undoStack()->count();
        // E.spikes (4 channels) → I.inh (3 channels): no identity wire fits, so the projection
        // kinds are offered at the drop point; Escape leaves everything as it was.
        const QPoint a = at(f.canvas, port(f.item("E"), "spikes", false));
        const QPoint b = at(f.canvas, port(f.item("I"), "inh", true));
        QString offered;
        QTimer::singleShot(0, [&offered] {
            if (auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget())) {
                for (QAction* action : menu->actions()) {
                    offered += action->text() + QLatin1Char('|');
                }
                QTest::keyClick(menu, Qt::Key_Escape);
            }
        });
        mouse(vp, QEvent::MouseButtonPress, a, Qt::LeftButton, Qt::LeftButton);
        mouse(vp, QEvent::MouseMove, (a + b) / 2, Qt::NoButton, Qt::LeftButton);
        mouse(vp, QEvent::MouseButtonRelease, b, Qt::LeftButton, Qt::NoButton);
        QVERIFY2(offered.contains(QStringLiteral("Dense (all-to-all)")), qPrintable(offered));
        QCOMPARE(f.doc.undoStack()->count(), steps);
        QCOMPARE(refused.count(), 0);
        QCOMPARE(f.canvas.wireItemCount(), std::size_t{6});
        QCOMPARE(f.item("E")->pos(), QPointF(300, 0));  // the port drag did not move the node
        // bias.out (4) → E.inh (4) fits: one Connect step and a new wire item.
        const QPoint c = at(f.canvas, port(f.item("bias"), "out", false));
        const QPoint d = at(f.canvas, port(f.item("E"), "inh", true));
        mouse(vp, QEvent::MouseButtonPress, c, Qt::LeftButton, Qt::LeftButton);
        mouse(vp, QEvent::MouseMove, d, Qt::NoButton, Qt::LeftButton);
        mouse(vp, QEvent::MouseButtonRelease, d, Qt::LeftButton, Qt::NoButton);
        QCOMPARE(f.doc.undoStack()->count(), steps + 1);
        const auto info = f.doc.connection(f.doc.connections(f.doc.rootId()).back());
        QCOMPARE(QString::fromStdString(info->from.toString()), QString("bias.out"));
        QCOMPARE(QString::fromStdString(info->to.toString()), QString("E.inh"));
        QCOMPARE(f.canvas.wireItemCount(), std::size_t{7});
        QCOMPARE(refused.count(), 0);
    }

    void deleteKeyIsOneStep()
    {
        Fixture f;
        f.canvas.setSelection({f.doc.findNode("bias")});
        f.wire("E_to_I")->setSelected(true);
        const int steps = f.doc.undoStack()->count();
        QTest::keyClick(&f.canvas, Qt::Key_Delete);
        QCOMPARE(f.doc.undoStack()->count(), steps + 1);
        QVERIFY(!f.doc.findNode("bias").valid());
        QVERIFY(!f.doc.findConnection(f.doc.rootId(), "E_to_I").valid());
        QCOMPARE(f.canvas.nodeItemCount(), std::size_t{4});
        QCOMPARE(f.canvas.wireItemCount(), std::size_t{4});  // E_to_I and bias_to_L gone
        f.doc.undoStack()->undo();
        QCOMPARE(f.canvas.nodeItemCount(), std::size_t{5});
        QCOMPARE(f.canvas.wireItemCount(), std::size_t{6});
    }

    void selectionSyncBothWays()
    {
        Fixture f;
        QSignalSpy changed(&f.canvas, &GraphCanvas::selectionChanged);
        const NodeId e = f.doc.findNode("E");
        const NodeId l = f.doc.findNode("L");
        f.canvas.setSelection({e, l});
        QVERIFY(f.item("E")->isSelected() && f.item("L")->isSelected() && !f.item("I")->isSelected());
        QCOMPARE(changed.count(), 0);  // programmatic selection is not echoed back
        QWidget* vp = f.canvas.viewport();
        // Ctrl-click adds I, ctrl-click again removes E.
        const QPoint pi = at(f.canvas, header(f.item("I")));
        mouse(vp, QEvent::MouseButtonPress, pi, Qt::LeftButton, Qt::LeftButton, Qt::ControlModifier);
        mouse(vp, QEvent::MouseButtonRelease, pi, Qt::LeftButton, Qt::NoButton, Qt::ControlModifier);
        QVERIFY(changed.count() >= 1);
        QCOMPARE(changed.last().at(0).value<QList<NodeId>>(), f.canvas.selectedNodes());
        QCOMPARE(f.canvas.selectedNodes().size(), 3);
        const QPoint pe = at(f.canvas, header(f.item("E")));
        mouse(vp, QEvent::MouseButtonPress, pe, Qt::LeftButton, Qt::LeftButton, Qt::ControlModifier);
        mouse(vp, QEvent::MouseButtonRelease, pe, Qt::LeftButton, Qt::NoButton, Qt::ControlModifier);
        QList<NodeId> expected{f.doc.findNode("I"), l};
        std::sort(expected.begin(), expected.end());
        QCOMPARE(changed.last().at(0).value<QList<NodeId>>(), expected);
        // Rubber band over drive and bias only (they sit in the left column).
        const QRectF left = f.item("drive")->sceneBoundingRect().united(f.item("bias")->sceneBoundingRect());
        const QPoint r0 = at(f.canvas, left.topLeft() - QPointF(30, 30));
        const QPoint r1 = at(f.canvas, left.bottomRight() + QPointF(20, 5));
        mouse(vp, QEvent::MouseButtonPress, r0, Qt::LeftButton, Qt::LeftButton);
        mouse(vp, QEvent::MouseMove, (r0 + r1) / 2, Qt::NoButton, Qt::LeftButton);
        mouse(vp, QEvent::MouseMove, r1, Qt::NoButton, Qt::LeftButton);
        mouse(vp, QEvent::MouseButtonRelease, r1, Qt::LeftButton, Qt::NoButton);
        QList<NodeId> band{f.doc.findNode("drive"), f.doc.findNode("bias")};
        std::sort(band.begin(), band.end());
        QCOMPARE(f.canvas.selectedNodes(), band);
        QCOMPARE(changed.last().at(0).value<QList<NodeId>>(), band);
    }

    void zoomKeepsPointUnderCursor()
    {
        Fixture f;
        for (const auto& [anchor, factor] : std::vector<std::pair<QPoint, double>>{
                 {QPoint(123, 456), 1.7}, {QPoint(900, 80), 0.6}, {QPoint(500, 350), 1.25}}) {
            const QPointF before = f.canvas.mapToScene(anchor);
            const double z0 = f.canvas.zoom();
            f.canvas.zoomAt(anchor, factor);
            QVERIFY(std::abs(f.canvas.zoom() - z0 * factor) < 1e-9);
            const QPointF after = f.canvas.mapToScene(anchor);
            const QPointF pixels = (after - before) * f.canvas.zoom();
            QVERIFY2(std::abs(pixels.x()) <= 1.0 && std::abs(pixels.y()) <= 1.0,
                     qPrintable(QString("moved by (%1, %2) px").arg(pixels.x()).arg(pixels.y())));
        }
        // The wheel zooms around the cursor too, and the zoom is clamped.
        const QPoint cursor(300, 200);
        const QPointF before = f.canvas.mapToScene(cursor);
        QWheelEvent wheel(QPointF(cursor), QPointF(f.canvas.viewport()->mapToGlobal(cursor)), QPoint(), QPoint(0, 240),
                          Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(f.canvas.viewport(), &wheel);
        QVERIFY(std::abs(((f.canvas.mapToScene(cursor) - before) * f.canvas.zoom()).x()) <= 1.0);
        f.canvas.zoomAt(cursor, 1e6);
        QCOMPARE(f.canvas.zoom(), GraphCanvas::kMaxZoom);
        f.canvas.zoomAt(cursor, 1e-9);
        QCOMPARE(f.canvas.zoom(), GraphCanvas::kMinZoom);
    }

    void panWithMiddleAndSpaceDrag()
    {
        Fixture f;
        QWidget* vp = f.canvas.viewport();
        const int steps = f.doc.undoStack()->count();
        const QPoint p0(500, 300);
        const QPointF before = f.canvas.mapToScene(p0);
        mouse(vp, QEvent::MouseButtonPress, p0, Qt::MiddleButton, Qt::MiddleButton);
        mouse(vp, QEvent::MouseMove, p0 + QPoint(40, -25), Qt::NoButton, Qt::MiddleButton);
        mouse(vp, QEvent::MouseButtonRelease, p0 + QPoint(40, -25), Qt::MiddleButton, Qt::NoButton);
        // The scene point grabbed follows the mouse.
        QCOMPARE(f.canvas.mapToScene(p0 + QPoint(40, -25)), before);
        // Space + left drag pans too, even when it starts on a node, and moves no node.
        const QPoint onNode = at(f.canvas, header(f.item("E")));
        const QPointF grabbed = f.canvas.mapToScene(onNode);
        QTest::keyPress(&f.canvas, Qt::Key_Space);
        mouse(vp, QEvent::MouseButtonPress, onNode, Qt::LeftButton, Qt::LeftButton);
        mouse(vp, QEvent::MouseMove, onNode + QPoint(-30, 20), Qt::NoButton, Qt::LeftButton);
        mouse(vp, QEvent::MouseButtonRelease, onNode + QPoint(-30, 20), Qt::LeftButton, Qt::NoButton);
        QTest::keyRelease(&f.canvas, Qt::Key_Space);
        QCOMPARE(f.canvas.mapToScene(onNode + QPoint(-30, 20)), grabbed);
        QCOMPARE(f.item("E")->pos(), QPointF(300, 0));
        QCOMPARE(f.doc.undoStack()->count(), steps);
    }

    void minimapAndFit()
    {
        Fixture f;
        QVERIFY(!f.canvas.minimapVisible());  // the whole graph fits
        f.canvas.zoomAt(QPoint(500, 350), 3.0);
        QVERIFY(f.canvas.minimapVisible());
        QTest::keyClick(&f.canvas, Qt::Key_F);
        QVERIFY(!f.canvas.minimapVisible());
        const QRectF visible = f.canvas.mapToScene(f.canvas.viewport()->rect()).boundingRect();
        for (NodeId id : f.doc.graphNodes(f.doc.rootId())) {
            QVERIFY(visible.contains(f.canvas.nodeItem(id)->sceneBoundingRect()));
        }
    }

    void aFittedViewStaysFittedWhenTheCanvasShrinks()
    {
        // The window's Run layout shrinks the canvas to a strip: a view the user has not moved
        // fits again, and the minimap does not cover the strip.
        Fixture f;
        const auto allVisible = [&f] {
            const QRectF visible = f.canvas.mapToScene(f.canvas.viewport()->rect()).boundingRect();
            for (NodeId id : f.doc.graphNodes(f.doc.rootId())) {
                if (!visible.contains(f.canvas.nodeItem(id)->sceneBoundingRect())) {
                    return false;
                }
            }
            return true;
        };
        QVERIFY(allVisible());
        f.canvas.resize(1000, 180);
        QTRY_VERIFY(allVisible());
        QVERIFY(!f.canvas.minimapVisible());
        f.canvas.resize(1000, 700);
        QTRY_VERIFY(allVisible());
        // Zoomed in by the user: a resize keeps the user's view.
        f.canvas.zoomAt(QPoint(500, 350), 3.0);
        const double zoomed = f.canvas.transform().m11();
        f.canvas.resize(900, 600);
        QApplication::processEvents();
        QCOMPARE(f.canvas.transform().m11(), zoomed);
        QVERIFY(!allVisible());
    }

    void nestedNetwork()
    {
        Fixture f;
        push(f.doc, std::make_unique<GroupCommand>(f.doc, std::vector<NodeId>{f.doc.findNode("E"), f.doc.findNode("I")}));
        const NodeId group = f.doc.findNode("group");
        QVERIFY(group.valid());
        QVERIFY(f.canvas.nodeItem(group) != nullptr);
        QVERIFY(f.canvas.nodeItem(f.doc.findNode("group.E")) == nullptr);
        f.canvas.setNetwork(group);
        QCOMPARE(f.canvas.nodeItemCount(), f.doc.graphNodes(group).size());
        QVERIFY(f.canvas.nodeItem(f.doc.findNode("group.E")) != nullptr);
        QCOMPARE(f.canvas.wireItemCount(), f.doc.connections(group).size());
        for (ConnectionId c : f.doc.connections(group)) {
            QVERIFY2(f.canvas.wireItem(c)->isVisible(), f.doc.connection(c)->name.c_str());
        }
        // Undoing the group removes the shown network: the canvas falls back to the root.
        f.doc.undoStack()->undo();
        QTRY_COMPARE(f.canvas.network(), f.doc.rootId());
        QCOMPARE(f.canvas.nodeItemCount(), std::size_t{5});
    }

    void doubleClickEntersAndSequentialIsReadOnly()
    {
        GraphDocument doc;
        doc.fromJson(stackModel());
        GraphCanvas canvas;
        canvas.resize(900, 600);
        canvas.setDocument(&doc);
        canvas.show();
        QSignalSpy changed(&canvas, &GraphCanvas::networkChanged);
        const NodeId stack = doc.findNode("stack");
        const QPoint where = canvas.mapFromScene(header(canvas.nodeItem(stack)));
        QMouseEvent press(QEvent::MouseButtonDblClick, QPointF(where), QPointF(canvas.viewport()->mapToGlobal(where)),
                          Qt::LeftButton, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(canvas.viewport(), &press);
        QCOMPARE(canvas.network(), stack);
        QCOMPARE(changed.count(), 1);
        QVERIFY(!canvas.isEditable());
        QCOMPARE(canvas.nodeItemCount(), std::size_t{3});
        // Children left to right in order, joined by two data-flow arrows.
        const NodeId l0 = doc.findNode("stack.0");
        const NodeId l1 = doc.findNode("stack.1");
        const NodeId l2 = doc.findNode("stack.2");
        QVERIFY(canvas.nodeItem(l0)->pos().x() < canvas.nodeItem(l1)->pos().x());
        QVERIFY(canvas.nodeItem(l1)->pos().x() < canvas.nodeItem(l2)->pos().x());
        int arrows = 0;
        for (QGraphicsItem* item : canvas.scene()->items()) {
            arrows += item->type() == QGraphicsPathItem::Type && item->isVisible() ? 1 : 0;
        }
        QCOMPARE(arrows, 2);
        // Structural edits are refused with the reason; moving is allowed.
        const int before = doc.undoStack()->count();
        canvas.setSelection({l1});
        QVERIFY(!canvas.deleteSelection());
        QVERIFY(canvas.lastRefusal().contains(QStringLiteral("Sequential")));
        QVERIFY(!canvas.groupSelection());
        QVERIFY(!canvas.addModule(QStringLiteral("LIF")).valid());
        QCOMPARE(doc.undoStack()->count(), before);
        canvas.setSelection({l0, l1, l2});
        QVERIFY(canvas.alignSelection(Alignment::Left));
        QCOMPARE(doc.undoStack()->count(), before + 1);
        // A leaf cannot be entered; leaving goes back up and selects where we came from.
        QVERIFY(!canvas.enter(l1));
        QVERIFY(canvas.leave());
        QCOMPARE(canvas.network(), doc.rootId());
        QCOMPARE(canvas.selectedNodes(), QList<NodeId>{stack});
        QVERIFY(!canvas.leave());
    }

    void dropFromPaletteAddsAtTheCursor()
    {
        Fixture f;
        const QPoint where = at(f.canvas, QPointF(1000.0, 400.0));
        const QPointF dropped = f.canvas.mapToScene(where);
        QMimeData* mime = PaletteWidget::mimeDataFor(QStringLiteral("LIFRefrac"));
        QDragEnterEvent enter(where, Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(f.canvas.viewport(), &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(where), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(f.canvas.viewport(), &drop);
        delete mime;
        QCOMPARE(f.canvas.nodeItemCount(), std::size_t{6});
        const NodeId added = f.canvas.selectedNodes().value(0);
        QCOMPARE(f.doc.nodeData(added, NodeRole::Type).toString(), QStringLiteral("LIFRefrac"));
        const QPointF pos = f.doc.position(added).value();
        QCOMPARE(pos.x(), std::round(dropped.x() / GraphCanvas::kGrid) * GraphCanvas::kGrid);
        QCOMPARE(pos.y(), std::round(dropped.y() / GraphCanvas::kGrid) * GraphCanvas::kGrid);
        f.doc.undoStack()->undo();
        QCOMPARE(f.canvas.nodeItemCount(), std::size_t{5});
        // Other drags are not taken.
        QMimeData text;
        text.setText(QStringLiteral("LIF"));
        QDragEnterEvent other(where, Qt::CopyAction, &text, Qt::LeftButton, Qt::NoModifier);
        other.setAccepted(false);
        QApplication::sendEvent(f.canvas.viewport(), &other);
        QVERIFY(!other.isAccepted());
    }

    void copyPasteLandsInView()
    {
        Fixture f;
        const Json saved = f.doc.toJson();
        f.canvas.setSelection({f.doc.findNode("E"), f.doc.findNode("I")});
        QVERIFY(f.canvas.copySelection());
        f.canvas.centerOn(QPointF(3000.0, 3000.0));
        QVERIFY(f.canvas.pasteClipboard());
        const QList<NodeId> pasted = f.canvas.selectedNodes();
        QCOMPARE(pasted.size(), 2);
        const QRectF visible = f.canvas.mapToScene(f.canvas.viewport()->rect()).boundingRect();
        for (NodeId id : pasted) {
            QVERIFY(visible.contains(f.doc.position(id).value()));
            QVERIFY(f.doc.nodeData(id, NodeRole::Name).toString().startsWith(QLatin1Char('E'))
                    || f.doc.nodeData(id, NodeRole::Name).toString().startsWith(QLatin1Char('I')));
        }
        // The E <-> I wires came along; relative placement is kept (I 300 right of E).
        QCOMPARE(f.doc.connections(f.doc.rootId()).size(), std::size_t{8});
        QCOMPARE(f.doc.position(pasted[1]).value() - f.doc.position(pasted[0]).value(),
                 f.doc.position(f.doc.findNode("I")).value() - f.doc.position(f.doc.findNode("E")).value());
        f.doc.undoStack()->undo();
        QCOMPARE(f.doc.toJson(), saved);
        // Clipboard text that is not a fragment is refused with a reason.
        QApplication::clipboard()->setText(QStringLiteral("hello"));
        QVERIFY(!f.canvas.pasteClipboard());
        QVERIFY(!f.canvas.lastRefusal().isEmpty());
        QCOMPARE(f.doc.toJson(), saved);
    }

    void contextMenuPlotsANodeOrAPort()
    {
        Fixture f;
        // The Plot submenu of a menu, as (text, action) pairs.
        const auto plotActions = [](QMenu& menu) {
            QList<QAction*> found;
            for (QAction* a : menu.actions()) {
                if (a->menu() != nullptr && a->text() == QLatin1String("Plot")) {
                    found = a->menu()->actions();
                }
            }
            return found;
        };
        QSignalSpy requests(&f.canvas, &GraphCanvas::plotRequested);
        // A neuron layer's header: every recordable State, the membrane first.
        {
            QMenu menu;
            f.canvas.fillContextMenu(menu, at(f.canvas, header(f.item("E"))));
            QStringList texts;
            for (QAction* a : plotActions(menu)) {
                texts << a->text();
            }
            QCOMPARE(texts, QStringList({"v [mV]", "i_exc [mV]", "i_inh [mV]", "refrac [steps]",
                                         "Spikes of chosen neurons (raster)"}));
            plotActions(menu)[1]->trigger();
            QCOMPARE(requests.size(), 1);
            QCOMPARE(requests[0][0].value<NodeId>(), f.doc.findNode("E"));
            QCOMPARE(requests[0][1].toString(), QString("i_exc"));
        }
        // The non-spiking output port of a source: its output, which has no States.
        {
            QMenu menu;
            f.canvas.fillContextMenu(menu, at(f.canvas, port(f.item("bias"), "out", false)));
            const QList<QAction*> actions = plotActions(menu);
            QCOMPARE(actions.size(), 1);
            QCOMPARE(actions[0]->text(), QString("Output 'out' [4]"));
            actions[0]->trigger();
            QCOMPARE(requests.size(), 2);
            QCOMPARE(requests[1][0].value<NodeId>(), f.doc.findNode("bias"));
            QCOMPARE(requests[1][1].toString(), QString("out"));
        }
        // A spiking output port: the States and the spikes of chosen neurons, nothing twice.
        {
            QMenu menu;
            f.canvas.fillContextMenu(menu, at(f.canvas, port(f.item("E"), "spikes", false)));
            QCOMPARE(plotActions(menu).size(), 5);
            QCOMPARE(f.canvas.plotEntries(f.doc.findNode("E"), "spikes").size(), 5);
            plotActions(menu).back()->trigger();
            QCOMPARE(requests.back()[1].toString(), QString("spikes"));
        }
        // The background offers no Plot.
        QMenu menu;
        f.canvas.fillContextMenu(menu, at(f.canvas, QPointF(-2000.0, -2000.0)));
        QVERIFY(plotActions(menu).isEmpty());
    }
};

QTEST_MAIN(TestGraphCanvas)
#include "test_graph_canvas.moc"
