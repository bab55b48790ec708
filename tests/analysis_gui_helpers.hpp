// What the analysis dialogs' GUI tests (test_fi_curve_gui, test_sweep_gui, test_phase_gui) share:
// an example (the f-I one, or any) opened in a shown main window, and a node's Analyse ▸ entry chosen the way a
// person chooses it (a right-click through the window, the menu walked by keys). Helpers use
// QVERIFY: the caller checks QTest::currentTestFailed() after them.
#pragma once

#include "ui/document/graph_document.hpp"
#include "ui/editor/graph_canvas.hpp"
#include "ui/editor/graph_node_item.hpp"
#include "ui/window/main_window.hpp"

#include "real_input.hpp"

#include <QtTest/QtTest>

namespace spike::tests {

/// Opens resources/examples/`example` in `w` (shown, 1200 x 800, fitted) and sets `onNode` to a
/// point on the header of node `node`, in canvas viewport coordinates.
inline void openExampleAt(ui::MainWindow& w, const char* example, const char* node, QPoint& onNode)
{
    w.resize(1200, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QString error;
    QVERIFY2(w.openModel(QStringLiteral(SPIKE_TEST_DATA_DIR "/../../resources/examples/") +
                             QString::fromLatin1(example), &error),
             qPrintable(error));
    settle();
    ui::GraphCanvas* canvas = w.canvas();
    canvas->fitToView();
    settle();
    ui::GraphNodeItem* item = canvas->nodeItem(w.document()->findNode(node));
    QVERIFY(item != nullptr);
    onNode = canvas->mapFromScene(item->mapToScene(QPointF(ui::GraphNodeItem::kWidth * 0.5, 8.0)));
}

/// resources/examples/fi_curve.json opened in `w` (shown at 1200 x 800, the canvas framed);
/// `onNode` is a point on its "lif" node's header in canvas viewport coordinates.
inline void openFiExample(ui::MainWindow& w, QPoint& onNode)
{
    openExampleAt(w, "fi_curve.json", "lif", onNode);
}

/// Right-clicks `onNode` through the window, walks the node menu to Analyse ▸ `entry` by keys,
/// and sets `dialog` to the dialog of type Dialog it opened, once visible.
template <typename Dialog>
void openAnalysisDialog(ui::MainWindow& w, const QPoint& onNode, const QString& entry, Dialog*& dialog)
{
    bool chosen = false;
    chooseFromContextMenu(QStringLiteral("Analyse"), entry, chosen);
    QTest::mouseClick(w.windowHandle(), Qt::RightButton, Qt::NoModifier, w.canvas()->viewport()->mapTo(&w, onNode));
    QTRY_VERIFY(chosen);
    settle();
    dialog = w.findChild<Dialog*>();
    QVERIFY(dialog != nullptr);
    QTRY_VERIFY(dialog->isVisible());
}

}  // namespace spike::tests
