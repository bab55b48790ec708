// GraphCanvas quick-add and port tooltips, with real key and mouse events: typing on the canvas
// opens the popup at the pointer with the best match current (type prefix before substring
// before doc words), Down/Enter adds the chosen type at that point as one undo step and selects
// it, Escape, a click outside and an unknown name add nothing (the last says so), Tab opens the
// whole list while F, Delete and Ctrl chords keep their meaning, a read-only view refuses, a
// group adds into itself, a running simulation is rebuilt as after a palette drop, the popup
// stays on the screen, an empty network shows a hint; hovering a port shows its own tooltip;
// "LIF 100" adds 100 neurons with the start values, a size out of bounds or for a type without
// one adds nothing and says why.
#include "tests/graph_canvas_test_helpers.hpp"

#include "ui/editor/quick_add_popup.hpp"
#include "ui/run/live_run.hpp"
#include "ui/run/run_session.hpp"

#include "engine/io/module_factory.hpp"

#include <QHelpEvent>
#include <QLineEdit>
#include <QScreen>
#include <QSignalSpy>
#include <QToolTip>
#include <QTreeWidget>
#include <QtTest/QtTest>

#include <cmath>

using namespace spike::tests::canvas;

namespace {

QPointF snapped(QPointF p)
{
    return {std::round(p.x() / GraphCanvas::kGrid) * GraphCanvas::kGrid,
            std::round(p.y() / GraphCanvas::kGrid) * GraphCanvas::kGrid};
}

/// Puts the pointer on viewport position `pos` of `canvas` (where the popup opens).
void pointAt(GraphCanvas& canvas, QPoint pos)
{
    QCursor::setPos(canvas.viewport()->mapToGlobal(pos));
    QCOMPARE(canvas.viewport()->mapFromGlobal(QCursor::pos()), pos);
}

QuickAddPopup* shownPopup(const GraphCanvas& canvas)
{
    QuickAddPopup* popup = canvas.quickAddPopup();
    return popup != nullptr && popup->isVisible() ? popup : nullptr;
}

/// Pixels in `image` with the hint's grey text colour, or darker (not grid, not background).
int darkPixels(const QImage& image, const QRect& area)
{
    int n = 0;
    for (int y = area.top(); y <= area.bottom(); ++y) {
        for (int x = area.left(); x <= area.right(); ++x) {
            n += qRed(image.pixel(x, y)) < 0xa0 ? 1 : 0;
        }
    }
    return n;
}

}  // namespace

class TestCanvasQuickAdd : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void typingOpensTheListAndEnterAddsAtThePointer()
    {
        Fixture f;
        QWidget* vp = f.canvas.viewport();
        const QPoint where = at(f.canvas, QPointF(320.0, 240.0));  // empty canvas between E and L
        pointAt(f.canvas, where);
        const int steps = f.doc.undoStack()->count();
        QTest::keyClicks(vp, QStringLiteral("lif"));  // 'f' goes to the popup: no fit
        QuickAddPopup* popup = shownPopup(f.canvas);
        QVERIFY(popup != nullptr);
        QCOMPARE(popup->geometry().topLeft(), vp->mapToGlobal(where));
        QCOMPARE(popup->lineEdit()->text(), QStringLiteral("lif"));
        // The exact name first, then names starting with it, then names containing it.
        QTreeWidget* list = popup->list();
        QVERIFY(list->topLevelItemCount() >= 3);
        QCOMPARE(list->topLevelItem(0)->text(0), QStringLiteral("LIF"));
        QCOMPARE(list->topLevelItem(1)->text(0), QStringLiteral("LIFRefrac"));
        QCOMPARE(list->topLevelItem(2)->text(0), QStringLiteral("CUBALIF"));
        QCOMPARE(popup->currentType(), QStringLiteral("LIF"));
        // Each entry: a grey category and its doc as tooltip.
        const spike::engine::ModuleTypeInfo* refrac = spike::engine::findModuleType("LIFRefrac");
        QCOMPARE(list->topLevelItem(1)->text(1), QStringLiteral("Neurons"));
        QVERIFY(list->topLevelItem(1)->toolTip(0).contains(QString::fromStdString(refrac->doc)));
        QVERIFY(list->topLevelItem(1)->foreground(1).color() != list->topLevelItem(1)->foreground(0).color());
        QVERIFY(popup->message().contains(QStringLiteral("Leaky integrate-and-fire")));
        // Down, Enter: the second entry, at the pointer, one undo step, selected.
        QTest::keyClick(popup->lineEdit(), Qt::Key_Down);
        QCOMPARE(popup->currentType(), QStringLiteral("LIFRefrac"));
        QSignalSpy selection(&f.canvas, &GraphCanvas::selectionChanged);
        QTest::keyClick(popup->lineEdit(), Qt::Key_Return);
        QVERIFY(shownPopup(f.canvas) == nullptr);
        QCOMPARE(f.doc.undoStack()->count(), steps + 1);
        QCOMPARE(f.canvas.nodeItemCount(), std::size_t{6});
        const NodeId added = f.canvas.selectedNodes().value(0);
        QCOMPARE(f.doc.nodeData(added, NodeRole::Type).toString(), QStringLiteral("LIFRefrac"));
        QCOMPARE(f.doc.position(added).value(), snapped(f.canvas.mapToScene(where)));
        QCOMPARE(selection.count(), 1);
        f.doc.undoStack()->undo();
        QCOMPARE(f.canvas.nodeItemCount(), std::size_t{5});
        QVERIFY(!f.doc.contains(added));
    }

    void typingPoisSelectsPoissonSourceAndEscapeAddsNothing()
    {
        Fixture f;
        pointAt(f.canvas, QPoint(40, 40));
        const int steps = f.doc.undoStack()->count();
        QTest::keyClicks(f.canvas.viewport(), QStringLiteral("pois"));
        QuickAddPopup* popup = shownPopup(f.canvas);
        QVERIFY(popup != nullptr);
        QCOMPARE(popup->currentType(), QStringLiteral("PoissonSource"));
        QCOMPARE(popup->list()->topLevelItem(0)->text(1), QStringLiteral("Sources"));
        QTest::keyClick(popup->lineEdit(), Qt::Key_Escape);
        QVERIFY(shownPopup(f.canvas) == nullptr);
        QCOMPARE(f.doc.undoStack()->count(), steps);
        QCOMPARE(f.canvas.nodeItemCount(), std::size_t{5});
        // Words of the doc match too, after the names: "spikes rate" finds the spike sources.
        const auto bySource = quickAddMatches(QStringLiteral("spikes rate"));
        QVERIFY(!bySource.empty());
        QCOMPARE(bySource.front().type, QStringLiteral("PoissonSource"));
        // Projections sit on wires: never offered.
        QVERIFY(quickAddMatches(QStringLiteral("DenseProjection")).empty());
    }

    void typingASizeAfterTheNameAddsThatMany()
    {
        Fixture f;
        pointAt(f.canvas, QPoint(40, 40));
        const int steps = f.doc.undoStack()->count();
        QTest::keyClicks(f.canvas.viewport(), QStringLiteral("LIF 100"));
        QuickAddPopup* popup = shownPopup(f.canvas);
        QVERIFY(popup != nullptr);
        QCOMPARE(popup->currentType(), QStringLiteral("LIF"));  // filtered by the words only
        QCOMPARE(popup->message(), QStringLiteral("Enter adds LIF with 100 neurons"));
        QTest::keyClick(popup->lineEdit(), Qt::Key_Return);
        QVERIFY(shownPopup(f.canvas) == nullptr);
        QCOMPARE(f.doc.undoStack()->count(), steps + 1);
        const NodeId added = f.canvas.selectedNodes().value(0);
        QCOMPARE(f.doc.nodeData(added, NodeRole::Type).toString(), QStringLiteral("LIF"));
        QCOMPARE(f.doc.module(added)->shape().back(), std::int64_t{100});
        // With the start values a circuit built from scratch needs.
        const auto& start = spike::engine::startValues("LIF");
        const auto& tau = std::get<spike::engine::Tensor>(f.doc.module(added)->attribute("tau_mem"));
        QCOMPARE(tau.data()[0], start.at("tau_mem").get<float>());
        // Out of bounds, negative, and a type without a size: said, nothing added.
        for (const QString& text : {QStringLiteral("LIF 0"), QStringLiteral("LIF -5"),
                                    QStringLiteral("LIF 1000000000000"), QStringLiteral("Sequential 3")}) {
            pointAt(f.canvas, QPoint(40, 40));
            QTest::keyClicks(f.canvas.viewport(), text);
            popup = shownPopup(f.canvas);
            QVERIFY(popup != nullptr);
            QVERIFY2(popup->message().contains(QStringLiteral("Enter adds nothing")), qPrintable(popup->message()));
            QTest::keyClick(popup->lineEdit(), Qt::Key_Return);
            QVERIFY(shownPopup(f.canvas) != nullptr);  // stays for another try
            QCOMPARE(f.doc.undoStack()->count(), steps + 1);
            QTest::keyClick(popup->lineEdit(), Qt::Key_Escape);
        }
        // The split: a trailing whole number after words; a lone number is a filter.
        QCOMPARE(quickAddSize(QStringLiteral("poisson source 20")).first, QStringLiteral("poisson source"));
        QCOMPARE(quickAddSize(QStringLiteral("poisson source 20")).second.value_or(0), std::int64_t{20});
        QVERIFY(!quickAddSize(QStringLiteral("100")).second.has_value());
        QVERIFY(!quickAddSize(QStringLiteral("LIF 1.5")).second.has_value());
    }

    void anUnknownNameAddsNothingAndSaysSo()
    {
        Fixture f;
        pointAt(f.canvas, QPoint(40, 40));
        const int steps = f.doc.undoStack()->count();
        QTest::keyClicks(f.canvas.viewport(), QStringLiteral("zqxw"));
        QuickAddPopup* popup = shownPopup(f.canvas);
        QVERIFY(popup != nullptr);
        QCOMPARE(popup->list()->topLevelItemCount(), 0);
        QTest::keyClick(popup->lineEdit(), Qt::Key_Return);
        QVERIFY(shownPopup(f.canvas) != nullptr);  // stays for another try
        QVERIFY(popup->message().contains(QStringLiteral("No module type matches \u201czqxw\u201d")));
        QCOMPARE(f.doc.undoStack()->count(), steps);
        // Backspacing to a known name adds it after all.
        for (int k = 0; k < 4; ++k) {
            QTest::keyClick(popup->lineEdit(), Qt::Key_Backspace);
        }
        QTest::keyClicks(popup->lineEdit(), QStringLiteral("sine"));
        QTest::keyClick(popup->lineEdit(), Qt::Key_Enter);
        QCOMPARE(f.doc.undoStack()->count(), steps + 1);
        QCOMPARE(f.doc.nodeData(f.canvas.selectedNodes().value(0), NodeRole::Type).toString(),
                 QStringLiteral("SineCurrent"));
    }

    void aClickOutsideClosesIt()
    {
        Fixture f;
        pointAt(f.canvas, QPoint(40, 40));
        QTest::keyClicks(f.canvas.viewport(), QStringLiteral("lin"));
        QuickAddPopup* popup = shownPopup(f.canvas);
        QVERIFY(popup != nullptr);
        QVERIFY(QTest::qWaitForWindowExposed(popup));
        // The popup grabs the mouse: the window system delivers the click to its window.
        QTest::mouseClick(popup->windowHandle(), Qt::LeftButton, Qt::NoModifier, QPoint(-30, popup->height() + 30));
        QTRY_VERIFY(shownPopup(f.canvas) == nullptr);
        QCOMPARE(f.canvas.nodeItemCount(), std::size_t{5});
    }

    void tabOpensEverythingAndTheCanvasKeysKeepTheirMeaning()
    {
        Fixture f;
        pointAt(f.canvas, QPoint(40, 40));
        // Tab (sent to the canvas, the focus widget the viewport forwards to) lists every type.
        QTest::keyClick(&f.canvas, Qt::Key_Tab);
        QuickAddPopup* popup = shownPopup(f.canvas);
        QVERIFY(popup != nullptr);
        QVERIFY(popup->lineEdit()->text().isEmpty());
        int nodeTypes = 0;
        for (const auto& info : spike::engine::moduleTypes()) {
            nodeTypes += info.category != "projections" ? 1 : 0;
        }
        QCOMPARE(popup->list()->topLevelItemCount(), nodeTypes);
        QTest::keyClick(popup->lineEdit(), Qt::Key_Escape);
        // F fits, Delete deletes, Ctrl chords are the window's: none opens the popup.
        f.canvas.zoomAt(QPoint(10, 10), 3.0);
        const double zoomed = f.canvas.zoom();
        QTest::keyClick(f.canvas.viewport(), Qt::Key_F);
        QVERIFY(f.canvas.zoom() != zoomed);
        QTest::keyClick(f.canvas.viewport(), Qt::Key_L, Qt::ControlModifier);
        QTest::keyClick(f.canvas.viewport(), Qt::Key_Space);
        QVERIFY(shownPopup(f.canvas) == nullptr);
        f.canvas.setSelection({f.doc.findNode("bias")});
        QTest::keyClick(f.canvas.viewport(), Qt::Key_Delete);
        QVERIFY(!f.doc.findNode("bias").valid());
        QVERIFY(shownPopup(f.canvas) == nullptr);
    }

    void aReadOnlyViewRefusesAndAGroupAddsIntoItself()
    {
        GraphDocument doc;
        doc.fromJson(stackModel());
        GraphCanvas canvas;
        canvas.resize(800, 500);
        canvas.setDocument(&doc);
        canvas.show();
        QVERIFY(canvas.enter(doc.findNode("stack")));
        pointAt(canvas, QPoint(40, 40));
        QTest::keyClicks(canvas.viewport(), QStringLiteral("l"));
        QVERIFY(shownPopup(canvas) == nullptr);
        QVERIFY(canvas.lastRefusal().contains(QStringLiteral("Adding a module")));
        QVERIFY(canvas.lastRefusal().contains(QStringLiteral("inside Sequential 'stack'")));
        QCOMPARE(doc.undoStack()->count(), 0);
        // A Sequential at the root has no path: the message says so rather than quoting ''.
        Fixture root(nlohmann::json{{"format", "spikestudio.model"}, {"version", 1},
                                    {"model", {{"type", "Sequential"}, {"children", {{{"name", "0"}, {"type", "ReLU"}}}}}}});
        pointAt(root.canvas, QPoint(40, 40));
        QTest::keyClicks(root.canvas.viewport(), QStringLiteral("l"));
        QVERIFY2(root.canvas.lastRefusal().contains(QStringLiteral("inside the root Sequential:")),
                 qPrintable(root.canvas.lastRefusal()));

        Fixture f;
        push(f.doc, std::make_unique<GroupCommand>(f.doc, std::vector<NodeId>{f.doc.findNode("E"), f.doc.findNode("I")}));
        const NodeId group = f.doc.findNode("group");
        QVERIFY(f.canvas.enter(group));
        pointAt(f.canvas, QPoint(60, 60));
        QTest::keyClicks(f.canvas.viewport(), QStringLiteral("ConstantCurrent"));
        QTest::keyClick(shownPopup(f.canvas)->lineEdit(), Qt::Key_Return);
        const NodeId added = f.canvas.selectedNodes().value(0);
        QCOMPARE(f.doc.parentOf(added), group);
        QCOMPARE(f.doc.nodeData(added, NodeRole::Type).toString(), QStringLiteral("ConstantCurrent"));
    }

    void whileRunningTheRunIsRebuiltAsAfterADrop()
    {
        GraphDocument doc;
        doc.load(std::string(SPIKE_TEST_DATA_DIR) + "/../../resources/examples/lif_current_step.json");
        GraphCanvas canvas;
        canvas.resize(800, 500);
        canvas.setDocument(&doc);
        canvas.show();
        RunSession session(doc);
        QSignalSpy rebuilt(&session, &RunSession::rebuilt);
        session.toggle();
        QTRY_VERIFY(session.isRunning() && session.currentStep() > 0);
        pointAt(canvas, QPoint(40, 40));
        QTest::keyClicks(canvas.viewport(), QStringLiteral("lif"));
        QTest::keyClick(shownPopup(canvas)->lineEdit(), Qt::Key_Return);
        const NodeId added = canvas.selectedNodes().value(0);
        QVERIFY(added.valid());
        QSignalSpy messages(&session, &RunSession::message);
        QTRY_COMPARE(rebuilt.count(), 1);
        QVERIFY(messages.last().at(0).toString().contains(QStringLiteral("continuing at")));
        QTRY_VERIFY(session.isRunning());  // the worker takes up the run again
        const std::string path = doc.path(added);
        QVERIFY(session.live()->plotModel().findChild(path) != nullptr);
        session.toggle();
        QTRY_VERIFY(!session.isRunning());
    }

    void thePopupStaysOnTheScreen()
    {
        Fixture f;
        const QRect screen = f.canvas.screen()->availableGeometry();
        // A pointer near the bottom-right corner of what is seen of the canvas on the screen: the
        // popup opens left of / above it.
        const QWidget* vp = f.canvas.viewport();
        const QRect seen = screen.intersected(QRect(vp->mapToGlobal(QPoint(0, 0)), vp->size()));
        const QPoint corner = seen.bottomRight() - QPoint(20, 20);
        const QPoint local = f.canvas.viewport()->mapFromGlobal(corner);
        QVERIFY(f.canvas.viewport()->rect().contains(local));
        pointAt(f.canvas, local);
        QTest::keyClicks(f.canvas.viewport(), QStringLiteral("s"));
        QuickAddPopup* popup = shownPopup(f.canvas);
        QVERIFY(popup != nullptr);
        QVERIFY2(screen.contains(popup->frameGeometry()), "popup leaves the screen");
        QCOMPARE(popup->geometry().right(), corner.x() - 1);
        QCOMPARE(popup->geometry().bottom(), corner.y() - 1);
        // Fewer matches, a shorter list: the corner stays at the pointer.
        const int tall = popup->height();
        QTest::keyClicks(popup->lineEdit(), QStringLiteral("ine"));
        QCOMPARE(popup->currentType(), QStringLiteral("SineCurrent"));
        QVERIFY(popup->height() < tall);
        QCOMPARE(popup->geometry().bottomRight(), corner - QPoint(1, 1));
        QTest::keyClick(popup->lineEdit(), Qt::Key_Escape);
    }

    void anEmptyNetworkShowsAHint()
    {
        GraphDocument doc;  // an empty Network
        GraphCanvas canvas;
        canvas.resize(700, 500);
        canvas.setDocument(&doc);
        canvas.show();
        const QRect band(0, canvas.viewport()->height() / 2 - 50, canvas.viewport()->width(), 100);
        QVERIFY(darkPixels(canvas.viewport()->grab().toImage(), band) > 50);
        QVERIFY(canvas.openQuickAdd(QStringLiteral("Const"), QPoint(20, 20)));
        QTest::keyClick(canvas.quickAddPopup()->lineEdit(), Qt::Key_Return);
        QCOMPARE(canvas.nodeItemCount(), std::size_t{1});
        QRect node = canvas.mapFromScene(canvas.nodeItem(canvas.selectedNodes().value(0))->sceneBoundingRect()).boundingRect();
        QImage image = canvas.viewport()->grab().toImage();
        QPainter(&image).fillRect(node.adjusted(-2, -2, 2, 2), Qt::white);
        QCOMPARE(darkPixels(image, band), 0);
    }

    void hoveringAPortShowsItsTooltip()
    {
        Fixture f;
        QWidget* vp = f.canvas.viewport();
        const auto tipAt = [&](QPoint pos) {
            mouse(vp, QEvent::MouseMove, pos, Qt::NoButton, Qt::NoButton);
            QHelpEvent help(QEvent::ToolTip, pos, vp->mapToGlobal(pos));
            QApplication::sendEvent(vp, &help);
            return QToolTip::text();
        };
        // E's "exc" input: name, size, spikes, and the wire from drive through its projection.
        const QPoint exc = at(f.canvas, port(f.item("E"), "exc", true));
        QString tip = tipAt(exc);
        QVERIFY2(tip.contains(QStringLiteral("<b>exc</b>")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("input port of E")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("4 channels (channels 0–3 of 8)")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("Takes spikes")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("From: drive.out through OneToOneProjection 'drive_to_E'")), qPrintable(tip));
        // Its label (right of the handle) shows the same; "inh" below it is another port.
        QCOMPARE(tipAt(exc + QPoint(40, 0)), tip);
        const QString inh = tipAt(at(f.canvas, port(f.item("E"), "inh", true)));
        QVERIFY2(inh.contains(QStringLiteral("<b>inh</b>")) && inh.contains(QStringLiteral("(delayed one step)")), qPrintable(inh));
        // L's spikes output: the registry's doc of the State of that name, wired to "out".
        const QString spikes = tipAt(at(f.canvas, port(f.item("L"), "spikes", false)));
        QVERIFY2(spikes.contains(QStringLiteral("Gives spikes")) && spikes.contains(QStringLiteral("To: out")), qPrintable(spikes));
        bool documented = false;
        for (const auto& view : f.doc.module(f.doc.findNode("L"))->attributes()) {
            documented = documented || (view.spec->name == "spikes" && spikes.contains(QString::fromStdString(view.spec->doc).toHtmlEscaped()));
        }
        QVERIFY2(documented, qPrintable(spikes));
        // The node's header keeps the node's own tooltip.
        const QString node = tipAt(at(f.canvas, header(f.item("E"))));
        QVERIFY2(node.startsWith(QStringLiteral("<b>E</b> (CUBALIF)")), qPrintable(node));
        // An unwired input says how to wire it.
        pointAt(f.canvas, QPoint(40, 40));
        QTest::keyClicks(vp, QStringLiteral("lifref"));
        QTest::keyClick(shownPopup(f.canvas)->lineEdit(), Qt::Key_Return);
        GraphNodeItem* fresh = f.canvas.nodeItem(f.canvas.selectedNodes().value(0));
        f.canvas.centerOn(fresh);
        const QString unwired = tipAt(at(f.canvas, port(fresh, "in", true)));
        QVERIFY2(unwired.contains(QStringLiteral("Not connected")), qPrintable(unwired));
    }
};

QTEST_MAIN(TestCanvasQuickAdd)
#include "test_canvas_quick_add.moc"
