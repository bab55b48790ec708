// The phase portrait dialog (ui/window/phase_dialog.hpp) by real input in the main window:
// resources/examples/fi_curve.json opened, the LIF node right-clicked, Analyse ▸ Phase portrait…
// chosen with the keyboard; the suggested axes are the membrane and the synaptic current; an
// arrow grid of 1 is refused under the fields with the engine's message (nothing drawn); Return
// computes, and the plot draws engine::phasePlane's field, both nullclines and its one fixed point
// (a stable node: LIF is linear below threshold); a click in the plane sets neuron 0's vmem and
// isyn in the document to the point clicked as one undo step and draws the trajectory from there,
// which runs towards the fixed point; Ctrl+Z on the canvas takes the state back.
// SPIKE_SCREENSHOT_DIR=dir saves phase_dialog.png.
#include "ui/document/graph_document.hpp"
#include "ui/editor/graph_canvas.hpp"
#include "ui/editor/graph_node_item.hpp"
#include "ui/window/main_window.hpp"
#include "ui/window/phase_dialog.hpp"

#include "engine/analysis/phase_plane.hpp"

#include "analysis_gui_helpers.hpp"
#include "real_input.hpp"

#include <QComboBox>
#include <QLineEdit>
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

class TestPhaseGui : public QObject {
    Q_OBJECT

private slots:
    void phasePortraitFromTheNodeMenu()
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
        PhaseDialog* dialog = nullptr;
        openAnalysisDialog(w, onNode, QStringLiteral("Phase portrait…"), dialog);
        if (QTest::currentTestFailed()) {
            return;
        }
        QCOMPARE(dialog->xBox()->currentData().toString(), QString("vmem"));
        QCOMPARE(dialog->yBox()->currentData().toString(), QString("isyn"));
        QVERIFY(dialog->rangeEdit(0)->text().toDouble() < dialog->rangeEdit(1)->text().toDouble());

        // Bad input: refused with the engine's message, nothing drawn.
        typeInto(dialog->gridEdit(), "1");
        QTest::keyClick(dialog->gridEdit(), Qt::Key_Return);
        QTRY_VERIFY(!dialog->computing());
        QVERIFY2(!dialog->message().isEmpty(), "an arrow grid of 1 accepted");
        QVERIFY(!dialog->plane().has_value());
        QCOMPARE(dialog->plot()->graphCount(), 0);

        // Input 0.008: one stable fixed point; 11 arrows per axis.
        typeInto(dialog->gridEdit(), "11");
        typeInto(dialog->currentEdit(), "0.008");
        typeInto(dialog->rangeEdit(0), "-0.5");
        typeInto(dialog->rangeEdit(1), "1.5");
        typeInto(dialog->rangeEdit(2), "-0.05");
        typeInto(dialog->rangeEdit(3), "0.2");
        QTest::keyClick(dialog->rangeEdit(3), Qt::Key_Return);
        QTRY_VERIFY(!dialog->computing());
        QVERIFY2(dialog->message().isEmpty(), qPrintable(dialog->message()));
        QVERIFY(dialog->plane().has_value());
        spike::engine::PhasePlaneOptions options;
        options.x = "vmem";
        options.y = "isyn";
        options.xMin = -0.5;
        options.xMax = 1.5;
        options.yMin = -0.05;
        options.yMax = 0.2;
        options.grid = 11;
        options.current = 0.008;
        const auto want = spike::engine::phasePlane(*doc.module(lif), options);
        QCOMPARE(want.fixedPoints.size(), std::size_t{1});
        QCOMPARE(QString::fromStdString(want.fixedPoints[0].stability), QString("stable"));
        QCOMPARE(dialog->plot()->graphCount(), 1);  // the fixed point
        const auto point = dialog->plot()->graph(0)->data()->at(0);
        QCOMPARE(point->key, want.fixedPoints[0].x);
        QCOMPARE(point->value, want.fixedPoints[0].y);
        QCOMPARE(dialog->plot()->graph(0)->name(), QString("stable"));
        QCOMPARE(dialog->plane()->field.size(), want.field.size());
        QCOMPARE(dialog->plane()->xNullcline.size(), want.xNullcline.size());
        QCOMPARE(dialog->plane()->yNullcline.size(), want.yNullcline.size());
        if (qEnvironmentVariableIsSet("SPIKE_SCREENSHOT_DIR")) {
            dialog->grab().save(qEnvironmentVariable("SPIKE_SCREENSHOT_DIR") + "/phase_dialog.png");
        }

        // Click at (0.2, 0.15): neuron 0 starts there (one undo step), the trajectory begins
        // there and ends near the fixed point.
        QCustomPlot* plot = dialog->plot();
        const QPoint at(static_cast<int>(std::lround(plot->xAxis->coordToPixel(0.2))),
                        static_cast<int>(std::lround(plot->yAxis->coordToPixel(0.15))));
        const double x = plot->xAxis->pixelToCoord(at.x());
        const double y = plot->yAxis->pixelToCoord(at.y());
        const int steps = doc.undoStack()->count();
        QTest::mouseClick(plot, Qt::LeftButton, Qt::NoModifier, at);
        QVERIFY2(dialog->message().isEmpty(), qPrintable(dialog->message()));
        QCOMPARE(doc.module(lif)->tensor("vmem")[0], static_cast<float>(x));
        QCOMPARE(doc.module(lif)->tensor("isyn")[0], static_cast<float>(y));
        QCOMPARE(doc.undoStack()->count(), steps + 1);
        const auto& path = dialog->trajectory();
        QCOMPARE(path.size(), std::size_t{501});
        QCOMPARE(path.front()[0], static_cast<double>(static_cast<float>(x)));
        QVERIFY(std::abs(path.back()[0] - want.fixedPoints[0].x) < 0.05);

        dialog->close();
        QTRY_VERIFY(w.findChildren<PhaseDialog*>().isEmpty());
        w.activateWindow();
        QTRY_VERIFY(w.isActiveWindow());
        canvas->setFocus();
        QTest::keyClick(canvas, Qt::Key_Z, Qt::ControlModifier);
        QTRY_COMPARE(doc.toJson().dump(), before);
    }
};

QTEST_MAIN(TestPhaseGui)
#include "test_phase_gui.moc"
