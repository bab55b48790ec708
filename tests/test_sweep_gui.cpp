// The parameter sweep dialog (ui/window/sweep_dialog.hpp) by real input in the main window:
// resources/examples/fi_curve.json opened, the LIF node right-clicked on the canvas, Analyse ▸
// Parameter sweep… chosen with the keyboard; a count of 0 and a non-number refused under the
// fields (plot and document unchanged); a 1-D sweep of tau_mem computed with Return plots, point
// for point, engine::parameterSweep of the document's module; the second parameter switched on
// by a click gives a heat map whose cells are the engine's 2-D sweep; clicking a cell loads its
// two values into the node as one undo step (Ctrl+Z on the canvas restores both); View ▸ Analyse,
// clicked open on the menu bar, offers the same for the selected node. SPIKE_SCREENSHOT_DIR=dir
// saves sweep_dialog.png.
#include "ui/document/graph_document.hpp"
#include "ui/editor/graph_canvas.hpp"
#include "ui/editor/graph_node_item.hpp"
#include "ui/window/main_window.hpp"
#include "ui/window/sweep_dialog.hpp"

#include "engine/analysis/parameter_sweep.hpp"

#include "analysis_gui_helpers.hpp"
#include "real_input.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QPushButton>
#include <QUndoStack>
#include <QtTest/QtTest>

#include <qcustomplot.h>

#include <cmath>

using namespace spike::ui;  // NOLINT: test file
using spike::tests::chooseFromContextMenu;
using spike::tests::openAnalysisDialog;
using spike::tests::openFiExample;
using spike::tests::settle;
using spike::tests::typeInto;

namespace {

/// Moves `box` to the item whose data is `value` with arrow keys, as a person would.
void chooseByKeys(QComboBox* box, const QString& value)
{
    const int target = box->findData(value);
    QVERIFY2(target >= 0, qPrintable(value));
    box->setFocus(Qt::TabFocusReason);
    while (box->currentIndex() != target) {
        QTest::keyClick(box, box->currentIndex() < target ? Qt::Key_Down : Qt::Key_Up);
    }
}

}  // namespace

class TestSweepGui : public QObject {
    Q_OBJECT

private slots:
    void sweepFromTheNodeMenu()
    {
        MainWindow w;
        QPoint onNode;
        openFiExample(w, onNode);
        if (QTest::currentTestFailed()) {
            return;
        }
        GraphDocument& doc = *w.document();
        GraphCanvas* canvas = w.canvas();
        const NodeId lif = doc.findNode("lif");
        const std::string before = doc.toJson().dump();
        SweepDialog* dialog = nullptr;
        openAnalysisDialog(w, onNode, QStringLiteral("Parameter sweep…"), dialog);
        if (QTest::currentTestFailed()) {
            return;
        }
        QVERIFY(dialog->windowTitle().contains("lif"));
        QVERIFY(dialog->firstParameter()->findData("tau_mem") >= 0);
        QVERIFY(dialog->firstParameter()->findData("vmem") < 0);  // a State does not sweep

        // Bad input: refused under the fields, nothing plotted, the document untouched.
        chooseByKeys(dialog->firstParameter(), QStringLiteral("tau_mem"));
        typeInto(dialog->countEdit(0), "0");
        QTest::mouseClick(dialog->computeButton(), Qt::LeftButton);
        QTRY_VERIFY(!dialog->computing());
        QVERIFY2(!dialog->message().isEmpty(), "count 0 accepted");
        QVERIFY(!dialog->result().has_value());
        typeInto(dialog->countEdit(0), "many");
        QTest::mouseClick(dialog->computeButton(), Qt::LeftButton);
        QVERIFY2(dialog->message().contains("Count 'many' is not a whole number"), qPrintable(dialog->message()));
        QCOMPARE(dialog->plot()->graphCount(), 0);
        QCOMPARE(doc.toJson().dump(), before);

        // 1-D: tau_mem from 10 to 40 ms, 7 points, 200 steps, input 0.03; Return computes.
        typeInto(dialog->startEdit(0), "0.01");
        typeInto(dialog->stopEdit(0), "0.04");
        typeInto(dialog->countEdit(0), "7");
        typeInto(dialog->currentEdit(), "0.03");
        typeInto(dialog->stepsEdit(), "200");
        QTest::keyClick(dialog->stepsEdit(), Qt::Key_Return);
        QTRY_VERIFY(!dialog->computing());
        QVERIFY2(dialog->message().isEmpty(), qPrintable(dialog->message()));
        QVERIFY(dialog->result().has_value());
        spike::engine::SweepOptions options;
        options.axes = {{"tau_mem", 0.01, 0.04, 7}};
        options.current = 0.03;
        options.steps = 200;
        const auto want1 = spike::engine::parameterSweep(*doc.module(lif), options);
        QCOMPARE(dialog->plot()->graphCount(), 1);
        const auto* data = dialog->plot()->graph(0)->data().data();
        QCOMPARE(data->size(), 7);
        double fired = 0.0;
        for (int k = 0; k < 7; ++k) {
            QCOMPARE(data->at(k)->key, want1.x[static_cast<std::size_t>(k)]);
            QCOMPARE(data->at(k)->value, want1.values[static_cast<std::size_t>(k)]);
            fired += want1.values[static_cast<std::size_t>(k)];
        }
        QVERIFY(fired > 0.0);
        QVERIFY(dialog->plot()->yAxis->label().contains("Hz"));

        // 2-D: tick "and", threshold 0.5 .. 2 in 5 values; a heat map of the engine's values.
        QTest::mouseClick(dialog->secondEnabled(), Qt::LeftButton, Qt::NoModifier, QPoint(5, dialog->secondEnabled()->height() / 2));
        QVERIFY(dialog->secondEnabled()->isChecked());
        chooseByKeys(dialog->secondParameter(), QStringLiteral("threshold"));
        typeInto(dialog->startEdit(1), "0.5");
        typeInto(dialog->stopEdit(1), "2");
        typeInto(dialog->countEdit(1), "5");
        QTest::mouseClick(dialog->computeButton(), Qt::LeftButton);
        QTRY_VERIFY(!dialog->computing());
        QVERIFY2(dialog->message().isEmpty(), qPrintable(dialog->message()));
        options.axes.push_back({"threshold", 0.5, 2.0, 5});
        const auto want2 = spike::engine::parameterSweep(*doc.module(lif), options);
        QCOMPARE(dialog->plot()->graphCount(), 0);
        auto* map = qobject_cast<QCPColorMap*>(dialog->plot()->plottable(0));
        QVERIFY(map != nullptr);
        QCOMPARE(map->data()->keySize(), 7);
        QCOMPARE(map->data()->valueSize(), 5);
        for (int i = 0; i < 7; ++i) {
            for (int j = 0; j < 5; ++j) {
                QCOMPARE(map->data()->cell(i, j), want2.values[static_cast<std::size_t>(i * 5 + j)]);
            }
        }
        if (qEnvironmentVariableIsSet("SPIKE_SCREENSHOT_DIR")) {
            dialog->grab().save(qEnvironmentVariable("SPIKE_SCREENSHOT_DIR") + "/sweep_dialog.png");
        }

        // Click the cell of tau_mem = x[5], threshold = y[1]: both load as one undo step.
        const double x = want2.x[5];
        const double y = want2.y[1];
        const QPoint cell(static_cast<int>(std::lround(dialog->plot()->xAxis->coordToPixel(x))),
                          static_cast<int>(std::lround(dialog->plot()->yAxis->coordToPixel(y))));
        const int steps = doc.undoStack()->count();
        QTest::mouseClick(dialog->plot(), Qt::LeftButton, Qt::NoModifier, cell);
        QVERIFY2(dialog->message().isEmpty(), qPrintable(dialog->message()));
        QCOMPARE(doc.module(lif)->tensor("tau_mem")[0], static_cast<float>(x));
        QCOMPARE(doc.module(lif)->tensor("threshold")[0], static_cast<float>(y));
        QCOMPARE(doc.undoStack()->count(), steps + 1);

        // Ctrl+Z on the canvas, as a person presses it there, takes both values back.
        dialog->close();
        QTRY_VERIFY(w.findChildren<SweepDialog*>().isEmpty());  // deleted on close
        w.activateWindow();
        QTRY_VERIFY(w.isActiveWindow());
        canvas->setFocus();
        QTest::keyClick(canvas, Qt::Key_Z, Qt::ControlModifier);
        QTRY_COMPARE(doc.toJson().dump(), before);

        // View ▸ Analyse offers the same for the selected node: clicked open on the menu bar,
        // walked by keys.
        QTest::mouseClick(canvas->viewport(), Qt::LeftButton, Qt::NoModifier, onNode);
        QCOMPARE(canvas->selectedNodes(), QList<NodeId>{lif});
        QMenuBar* bar = w.menuBar();
        QAction* viewMenu = nullptr;
        for (QAction* a : bar->actions()) {
            if (a->text() == QLatin1String("&View")) {
                viewMenu = a;
            }
        }
        QVERIFY(viewMenu != nullptr);
        bool viaMenu = false;
        chooseFromContextMenu(QStringLiteral("&Analyse"), QStringLiteral("Parameter sweep of lif…"), viaMenu);
        QTest::mouseClick(bar, Qt::LeftButton, Qt::NoModifier, bar->actionGeometry(viewMenu).center());
        QTRY_VERIFY(viaMenu);
        QTRY_COMPARE(w.findChildren<SweepDialog*>().size(), 1);
        w.findChild<SweepDialog*>()->close();
    }
};

QTEST_MAIN(TestSweepGui)
#include "test_sweep_gui.moc"
