// The phase portrait dialog (ui/window/phase_dialog.hpp) by real input in the main window:
// resources/examples/fi_curve.json opened, the LIF node right-clicked, Analyse ▸ Phase portrait…
// chosen with the keyboard; the suggested axes are the membrane and the synaptic current; an
// arrow grid of 1 is refused under the fields with the engine's message (nothing drawn); Return
// computes, and the plot draws engine::phasePlane's field, both nullclines and its one fixed point
// (a stable node: LIF is linear below threshold); a click in the plane sets neuron 0's vmem and
// isyn in the document to the point clicked as one undo step and draws the trajectory from there,
// which runs towards the fixed point; Ctrl+Z on the canvas takes the state back. While the model
// runs (F5), the live trajectory follows the run: it grows, it ends at the states the paused run
// holds, it does not change the window's own traces, and closing the dialog removes its traces.
// SPIKE_SCREENSHOT_DIR=dir saves phase_dialog.png and phase_live.png.
#include "ui/document/graph_document.hpp"
#include "ui/editor/graph_canvas.hpp"
#include "ui/editor/graph_node_item.hpp"
#include "ui/run/live_run.hpp"
#include "ui/run/run_session.hpp"
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

    void liveTrajectoryFollowsTheRun()
    {
        MainWindow w;
        QPoint onNode;
        openFiExample(w, onNode);
        if (QTest::currentTestFailed()) {
            return;
        }
        PhaseDialog* dialog = nullptr;
        openAnalysisDialog(w, onNode, QStringLiteral("Phase portrait…"), dialog);
        if (QTest::currentTestFailed()) {
            return;
        }
        typeInto(dialog->neuronEdit(), "4");  // 0.03 per step: well above the rheobase, it fires
        QTest::keyClick(dialog->neuronEdit(), Qt::Key_Return);
        QTRY_VERIFY(!dialog->computing());
        QVERIFY2(dialog->message().isEmpty(), qPrintable(dialog->message()));
        QVERIFY(dialog->liveTrajectory().empty());  // no run yet

        // F5 in the main window runs the model; the teal path grows with the run.
        w.activateWindow();
        QTRY_VERIFY(w.isActiveWindow());
        QTest::keyClick(&w, Qt::Key_F5);
        QTRY_VERIFY(w.isRunning());
        auto* session = w.findChild<RunSession*>();
        QVERIFY(session != nullptr && session->live() != nullptr);
        QTRY_VERIFY_WITH_TIMEOUT(dialog->liveTrajectory().size() > 50, 20000);
        QTest::keyClick(&w, Qt::Key_F5);  // pause
        QTRY_VERIFY(!w.isRunning());
        LiveRun* run = session->live();
        QTRY_VERIFY(run->waitIdle(std::chrono::seconds(10)));
        run->poll();
        // The last point is the neuron's state where the run paused.
        RunStates states;
        QString error;
        QVERIFY2(run->readStates(QStringLiteral("lif"), &states, &error), qPrintable(error));
        const auto& path = dialog->liveTrajectory();
        QVERIFY(path.size() <= PhaseDialog::kLivePoints);
        QCOMPARE(path.back()[0], static_cast<double>(std::get<spike::engine::Tensor>(states.values.at("vmem"))[4]));
        QCOMPARE(path.back()[1], static_cast<double>(std::get<spike::engine::Tensor>(states.values.at("isyn"))[4]));
        // The neuron fired: the membrane crossed the threshold's neighbourhood and was reset.
        const auto [low, high] = std::minmax_element(path.begin(), path.end(),
                                                     [](const auto& a, const auto& b) { return a[0] < b[0]; });
        QVERIFY2((*high)[0] > 0.8 && (*low)[0] < 0.2, "the live path spans a spike and its reset");
        if (qEnvironmentVariableIsSet("SPIKE_SCREENSHOT_DIR")) {
            settle();
            dialog->grab().save(qEnvironmentVariable("SPIKE_SCREENSHOT_DIR") + "/phase_live.png");
        }

        // The window's own traces are as they were (the selection pane's trace of lif, read by
        // the dialog when it keeps neuron 4); closing the dialog removes the dialog's.
        const int primary = run->primaryTraceId();
        const std::vector<std::int64_t> primaryNeurons = run->traceInfo(primary)->neurons;
        std::vector<int> ownIds;
        for (const int id : run->traceIds()) {
            const TraceInfo* info = run->traceInfo(id);
            if (info->path == QLatin1String("lif") && info->neurons == std::vector<std::int64_t>{4}) {
                ownIds.push_back(id);
            }
        }
        QVERIFY(!ownIds.empty());  // isyn at least: no pane plots it

        const std::size_t traces = run->traceIds().size();
        dialog->close();
        QTRY_VERIFY(w.findChildren<PhaseDialog*>().isEmpty());
        QCOMPARE(run->traceIds().size(), traces - ownIds.size());
        QCOMPARE(run->primaryTraceId(), primary);
        QCOMPARE(run->traceInfo(primary)->neurons, primaryNeurons);
    }
};

QTEST_MAIN(TestPhaseGui)
#include "test_phase_gui.moc"
