// MainWindow, what a run shows while it goes on and when it pauses: runs continue in time, the
// run controls, --run-for's live plots, the clock and dt field in the model's units, the
// inspector's States of a paused run, and the panes' sliding window of the last span.
// Runs with QT_QPA_PLATFORM=offscreen.
#include "tests/main_window_test_helpers.hpp"
#include "ui/document/document_file.hpp"
#include "ui/inspector/inspector.hpp"
#include "ui/inspector/inspector_editors.hpp"
#include "ui/plots/plot_panes.hpp"
#include "ui/plots/raster_plot.hpp"
#include "ui/plots/trace_plot.hpp"
#include "ui/document/off_thread.hpp"
#include "ui/editor/graph_canvas.hpp"
#include "ui/window/main_window.hpp"

#include "engine/core/attribute.hpp"
#include "engine/io/model_io.hpp"
#include "engine/runtime/backend.hpp"
#include "engine/tensor/npy.hpp"

#include <QAction>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSpinBox>
#include <QStatusBar>
#include <QUndoStack>
#include <QFile>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest/QtTest>

using spike::engine::RecordSpec;
using spike::engine::Shape;
using spike::engine::Tensor;
using spike::ui::MainWindow;
using spike::tests::freshExample;
using spike::tests::kCuba;
using spike::tests::kExample;

class TestMainWindowLive : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        QStandardPaths::setTestModeEnabled(true);  // recent files and recovery stay in test dirs
    }

    void aModelWithoutSpikesOpensWithItsOutput()
    {
        // A pure ANN: no empty raster, no empty membrane pane, but what it computes.
        MainWindow w;
        QVERIFY(w.openModel(QStringLiteral(":/examples/dynamics_network.json")));
        auto* panes = w.findChild<spike::ui::PlotPanes*>();
        QVERIFY(!panes->isRasterShown());
        QVERIFY(!panes->isPaneShown(0));
        QCOMPARE(panes->paneKeys().size(), std::size_t{2});
        QVERIFY(w.runSteps(20));
        QTRY_COMPARE(w.simulatedSteps(), std::int64_t{20});
        spike::ui::TracePlot* output = panes->tracePane(panes->paneKeys().back());
        QTRY_VERIFY(output->title().startsWith(QStringLiteral("value_prefix")));
        // Its time is counted in steps: 20 steps fill [0, 200] of the 200-step span.
        QCOMPARE(output->xAxis->label(), QStringLiteral("step"));
        QCOMPARE(output->xAxis->range().upper, 200.0);
        QVERIFY(output->readoutAt(10.2, 0.0).startsWith(QStringLiteral("step 10\n")));
        QVERIFY(w.lastRecording()->at("").count("value_prefix") == 1);
        QVERIFY(!w.document()->extras().contains("plots"));  // a default, not written to the file
        QVERIFY(!w.documentFile()->isModified());
        // A spiking model keeps its raster and membrane pane.
        QVERIFY(w.openModel(kCuba));
        QVERIFY(panes->isRasterShown());
        QVERIFY(panes->isPaneShown(0));
        QCOMPARE(panes->paneKeys().size(), std::size_t{1});
    }

    void statusBarSaysTheSpeedAgainstRealTime()
    {
        const QLocale locale;
        QCOMPARE(MainWindow::rateText(1000.0, 1e-3),
                 locale.toString(1000.0, 'f', 0) + QStringLiteral(" steps/s · ×1 real time"));
        QCOMPARE(MainWindow::rateText(250.0, 1e-4),
                 QStringLiteral("250 steps/s · ×%1 real time").arg(locale.toString(0.025, 'g', 3)));
        QCOMPARE(MainWindow::rateText(30.0, 0.0), QStringLiteral("30 steps/s"));  // no dt: no real time
    }

    void aSlowStartSaysItIsPreparing()
    {
        // 10^7 synapses: the simulation thread draws them when the run starts (tenths of a
        // second); the window answers meanwhile and the status bar says what is happening.
        nlohmann::json model{{"type", "Network"}};
        model["children"] = nlohmann::json::array({{{"name", "E"}, {"type", "CUBALIF"}, {"config", {{"shape", {10000}}}}}});
        model["connections"] = nlohmann::json::array(
            {{{"name", "E_to_E"}, {"from", "E.spikes"}, {"to", "E.exc"}, {"delayed", true},
              {"projection", {{"type", "SparseProjection"}, {"config", {{"shape", {10000, 10000}}}},
                              {"attributes", {{"rule", "in_degree"}, {"in_degree", 1000}}}}}}});
        const nlohmann::json file{{"format", "spikestudio.model"}, {"version", 1}, {"model", model}};
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.setPreparingDelay(0);
        QVERIFY(w.openModelFromJson(QByteArray::fromStdString(file.dump()), QStringLiteral("big.json")));
        QVERIFY(!w.isPreparingShown());
        w.action(QStringLiteral("action.run"))->trigger();
        QCOMPARE(w.simulatedSteps(), std::int64_t{0});  // Run returned before the synapses were drawn
        QTRY_VERIFY(w.isPreparingShown() || w.simulatedSteps() > 0);
        QVERIFY2(w.isPreparingShown(), "shown while the synapses are drawn");
        QTRY_VERIFY_WITH_TIMEOUT(w.simulatedSteps() > 0, 20000);
        QTRY_VERIFY(!w.isPreparingShown());
        QTRY_VERIFY(w.isRunning());
        w.action(QStringLiteral("action.run"))->trigger();  // pause
        QTRY_VERIFY(!w.isRunning());
        QVERIFY(!w.isPreparingShown());
    }

    void openingALargeModelKeepsTheWindowDrawing()
    {
        // 2500 x 2500 weights in a .npy (25 MB): read and built on a worker thread while the
        // window's event loop turns (its timers fire, the status bar says what it waits for)
        // and input sent meanwhile is held back, so nothing changes under the reader.
        QTemporaryDir dir;
        constexpr std::int64_t n = 2500;
        Tensor weights(Shape{n, n});
        for (std::int64_t i = 0; i < weights.numel(); ++i) {
            weights[i] = 1e-3F * static_cast<float>(i % 7);
        }
        spike::engine::npy::save(dir.filePath(QStringLiteral("w.npy")).toStdString(), weights);
        nlohmann::json model{{"type", "Network"}};
        model["children"] = nlohmann::json::array({{{"name", "A"}, {"type", "LIF"}, {"config", {{"shape", {n, n}}}}},
                                                   {{"name", "B"}, {"type", "LIF"}, {"config", {{"shape", {n, n}}}}}});
        model["connections"] = nlohmann::json::array(
            {{{"name", "A_to_B"}, {"from", "A.spikes"}, {"to", "B.in"},
              {"projection", {{"type", "DenseProjection"}, {"config", {{"shape", {n, n}}}},
                              {"attributes", {{"weight", {{"npy", "w.npy"}}}}}}}}});
        const QString path = dir.filePath(QStringLiteral("dense.json"));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray::fromStdString(
                nlohmann::json{{"format", "spikestudio.model"}, {"version", 1}, {"model", model}}.dump()));
        }
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.setPreparingDelay(0);
        QStringList messages;
        connect(w.statusBar(), &QStatusBar::messageChanged, this, [&](const QString& m) { messages << m; });
        int beats = 0;
        bool sendDelete = false;
        int keysSent = 0;
        QTimer heartbeat;
        heartbeat.setInterval(1);
        connect(&heartbeat, &QTimer::timeout, this, [&] {
            ++beats;
            if (sendDelete && spike::ui::offThreadWorkRunning() && keysSent == 0) {
                // A Delete sent straight to the canvas while the run copies the model: held back.
                ++keysSent;
                QTest::keyClick(w.canvas(), Qt::Key_Delete);
            }
        });
        heartbeat.start();
        QVERIFY(w.openModel(path));
        QVERIFY2(beats > 0, "the event loop turned while the model was read");
        QVERIFY2(messages.contains(QStringLiteral("Opening dense.json…")), qPrintable(messages.join(QStringLiteral(" | "))));
        // Run copies the 25 MB model for the simulation thread, off the GUI thread too.
        QVERIFY(w.selectModule(QStringLiteral("A")));
        w.canvas()->setFocus();
        sendDelete = true;
        beats = 0;
        w.action(QStringLiteral("action.run"))->trigger();
        QVERIFY2(beats > 0, "the event loop turned while the run was built");
        QCOMPARE(keysSent, 1);
        QVERIFY2(messages.contains(QStringLiteral("Copying the model for the run…")), qPrintable(messages.join(QStringLiteral(" | "))));
        QVERIFY(w.document()->findNode("A").valid());  // the Delete did not reach the document
        QCOMPARE(w.document()->undoStack()->count(), 0);
        heartbeat.stop();
        QTRY_VERIFY(w.isRunning());
        w.action(QStringLiteral("action.run"))->trigger();
        QTRY_VERIFY(!w.isRunning());
        // The same Delete once nothing is read off the thread: it deletes (so it could have).
        QVERIFY(w.selectModule(QStringLiteral("A")));
        w.canvas()->setFocus();
        QTest::keyClick(w.canvas(), Qt::Key_Delete);
        QVERIFY(!w.document()->findNode("A").valid());
        QVERIFY(!w.isPreparingShown());
    }

    void liveWindowScrollsWithTheSpan()
    {
        // The LIF demo's slowest time constant is 20 ms: its panes show the last 500 ms.
        MainWindow w;
        w.resize(1400, 900);
        QVERIFY(w.openModel(QStringLiteral(":/examples/lif_current_step.json")));
        spike::ui::PlotPanes* panes = w.findChild<spike::ui::PlotPanes*>();
        QVERIFY(panes != nullptr);
        QCOMPARE(panes->span(), 500.0);
        QCOMPARE(panes->spanBox(0)->currentText(), QStringLiteral("500 ms"));
        QVERIFY(w.runSteps(300));
        QTRY_COMPARE(w.simulatedSteps(), std::int64_t{300});
        QTRY_COMPARE(w.tracePlot()->xAxis->range().upper, 500.0);  // filling from the left
        QCOMPARE(w.tracePlot()->xAxis->range().lower, 0.0);
        QVERIFY(w.runSteps(1200));
        QTRY_COMPARE(w.simulatedSteps(), std::int64_t{1500});
        QTRY_COMPARE(w.tracePlot()->xAxis->range().upper, 1500.0);
        QCOMPARE(w.tracePlot()->xAxis->range().lower, 1000.0);
        QCOMPARE(w.rasterPlot()->xAxis->range().lower, 1000.0);
        // The history beyond the span is kept: a double-click shows the whole run.
        QTest::mouseDClick(w.tracePlot(), Qt::LeftButton, Qt::NoModifier, w.tracePlot()->axisRect()->rect().center());
        QCOMPARE(w.tracePlot()->xAxis->range().lower, 0.0);
        QCOMPARE(w.tracePlot()->xAxis->range().upper, 1500.0);
        // The CUBA network (tau 20 ms, dt 0.1 ms) gets 500 ms too; a pure ANN 200 of its steps.
        QVERIFY(w.openModel(kCuba));
        QCOMPARE(panes->span(), 500.0);
        QVERIFY(w.openModel(QStringLiteral(":/examples/dynamics_network.json")));
        QCOMPARE(panes->span(), 200.0);
        QVERIFY(panes->timeAxis().steps);
        QCOMPARE(panes->spanBox(panes->paneKeys().back())->currentText(), QStringLiteral("200 steps"));
    }

    void runsContinueInTime()
    {
        MainWindow w;
        QVERIFY(w.openModel(kExample));
        QVERIFY(w.runSteps(500));
        QVERIFY(w.runSteps(100));
        QCOMPARE(w.simulatedSteps(), std::int64_t{600});
        auto copy = freshExample();
        copy->evolve(Tensor(Shape{500, copy->sizeIn()}));
        const auto second = copy->evolve(Tensor(Shape{100, copy->sizeIn()}), RecordSpec(true));
        const auto& vmem = second.record.at("0").at("vmem");
        // The plots hold the whole window since the reset: 600 samples, continuing in time.
        QCOMPARE(w.tracePlot()->graph(2)->data()->size(), 600);
        QVERIFY(w.tracePlot()->graph(2)->data()->at(510)->value ==
                static_cast<double>(vmem.data[10 * 8 + 2]));
        QCOMPARE(w.tracePlot()->graph(0)->data()->at(500)->key, 500.0 * vmem.dt * 1e3);

        w.resetState();
        QVERIFY(w.lastRecording() == nullptr);
        QCOMPARE(w.simulatedSteps(), std::int64_t{0});
        QCOMPARE(w.tracePlot()->graphCount(), 0);
        QCOMPARE(w.rasterPlot()->dotCount(), std::int64_t{0});
        // After a reset the run starts again at t = 0 from the initial states.
        QVERIFY(w.runSteps(20));
        QCOMPARE(w.tracePlot()->graph(0)->data()->at(0)->key, 0.0);
    }

    void runControls()
    {
        MainWindow w;
        QVERIFY(w.openModel(kExample));
        // Step 1 / 10 / 100 run exactly that many steps.
        w.action(QStringLiteral("action.step10"))->trigger();
        QTRY_COMPARE(w.simulatedSteps(), std::int64_t{10});
        w.action(QStringLiteral("action.step1"))->trigger();
        QTRY_COMPARE(w.simulatedSteps(), std::int64_t{11});
        // dt sets every module's dt as one undo step.
        QVERIFY(std::abs(w.timeStepSpinBox()->value() - w.model()->getSubmodule("0").timeStep() * 1e3) < 1e-4);
        const int before = w.document()->undoStack()->count();
        w.timeStepSpinBox()->setValue(0.5);
        QCOMPARE(w.document()->undoStack()->count(), before + 1);
        for (const char* path : {"0", "1"}) {
            QVERIFY(w.model()->getSubmodule(path).timeStep() == 0.5e-3);  // as typed, 0.5 ms
        }
        w.document()->undoStack()->undo();
        QVERIFY(std::abs(w.timeStepSpinBox()->value() - 1.0) < 1e-4);
        QVERIFY(std::abs(w.model()->getSubmodule("1").timeStep() - 1e-3) < 1e-9);
        // The backend choice offers CUDA only where a device is usable.
        std::string why;
        const bool cuda = spike::engine::backendAvailable(spike::engine::BackendKind::Cuda, &why);
        auto* items = qobject_cast<QStandardItemModel*>(w.backendComboBox()->model());
        QCOMPARE(items->item(1)->isEnabled(), cuda);
        if (!cuda) {
            QVERIFY(items->item(1)->toolTip().contains(QString::fromStdString(why)));
        }
    }

    void runForRunsLive()
    {
        MainWindow w;
        QVERIFY(w.openModel(kExample));
        QString error;
        QVERIFY2(w.runFor(0.3, &error), qPrintable(error));
        QVERIFY(w.simulatedSteps() > 0);
        QVERIFY(w.lastRecording() != nullptr);
        QVERIFY(w.rasterPlot()->dotCount() > 0);
        QVERIFY(w.tracePlot()->graphCount() > 0);
        QVERIFY(!w.runFor(-1.0, &error));
        QVERIFY(error.contains(QStringLiteral("run time")));
    }

    void timeStepFieldAndClockShowMillisecondsOrSayThereAreNone()
    {
        MainWindow w;  // a new, empty document: no module has a dt
        auto* text = w.timeStepSpinBox()->findChild<QLineEdit*>();
        QVERIFY(text != nullptr);
        QVERIFY(!w.timeStepSpinBox()->isEnabled());
        QCOMPARE(text->text(), QStringLiteral("no dt"));
        QVERIFY(w.openModel(QStringLiteral(":/examples/cuba_network.json")));
        QVERIFY(w.timeStepSpinBox()->isEnabled());
        QCOMPARE(text->text(), QLocale().toString(0.1, 'f', 3) + QStringLiteral(" ms"));  // dt = 0.1 ms
        QVERIFY(w.openModel(kExample));
        QCOMPARE(text->text(), QLocale().toString(1.0, 'f', 3) + QStringLiteral(" ms"));
        QVERIFY(w.runSteps(30));
        QCOMPARE(w.clockText(), QStringLiteral("t = %1 ms (30 steps)").arg(QLocale().toString(30.0, 'f', 1)));
        // A model without dt (a pure ANN) counts steps, not milliseconds.
        QVERIFY(w.openModel(QStringLiteral(":/examples/dynamics_network.json")));
        QVERIFY(!w.timeStepSpinBox()->isEnabled());
        QVERIFY(w.runSteps(30));
        QCOMPARE(w.clockText(), QStringLiteral("30 steps"));
        // It has no real time to keep pace with: Run goes as fast as it can (paced "real time"
        // took each step as one second), and the Speed box is greyed with the reason.
        auto* speed = w.findChild<QComboBox*>(QStringLiteral("speedBox"));
        QVERIFY(speed != nullptr);
        QVERIFY(!speed->isEnabled());
        QVERIFY(speed->toolTip().contains(QStringLiteral("no time step")));
        w.action(QStringLiteral("action.run"))->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(w.simulatedSteps() > 100, 3000);
        w.action(QStringLiteral("action.run"))->trigger();
        QTRY_VERIFY(!w.isRunning());
        QVERIFY(w.openModel(kExample));
        QVERIFY(speed->isEnabled());
    }

    void mixedTimeStepsWarnAndTheFieldUnifiesThem()
    {
        // A ConstantCurrent (1 ms) driving HodgkinHuxley neurons (0.01 ms): the status bar and
        // the dt field's tooltip name both; typing a dt into the field gives every module it.
        MainWindow w;
        QVERIFY(w.openModel(QStringLiteral(SPIKE_TEST_DATA_DIR "/models/mixed_time_steps.json")));
        const QString conflict = QStringLiteral("the model mixes time steps: 0.01 ms (hh), 1 ms (current)");
        const QString opened = w.statusBar()->currentMessage();
        QVERIFY2(opened.startsWith(QStringLiteral("Opened mixed_time_steps.json")) && opened.contains(QStringLiteral("Warning: ") + conflict),
                 qPrintable(opened));
        QVERIFY(w.timeStepSpinBox()->toolTip().contains(conflict));
        auto* text = w.timeStepSpinBox()->findChild<QLineEdit*>();
        text->setFocus();
        QTest::keyClick(text, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClicks(text, QLocale().toString(0.01, 'f', 3));
        QTest::keyClick(text, Qt::Key_Return);
        QTRY_VERIFY(w.document()->root().timeStepConflict().empty());
        QCOMPARE(w.document()->root().timeStep(), 1e-5);
        QVERIFY(!w.timeStepSpinBox()->toolTip().contains(QStringLiteral("mixes")));
        // One undo brings the mixture back, and the warning with it.
        w.document()->undoStack()->undo();
        QVERIFY(w.timeStepSpinBox()->toolTip().contains(conflict));
    }

    void inspectorShowsThePausedRunsStates()
    {
        MainWindow w;
        QVERIFY(w.openModel(kExample));
        QCOMPARE(w.selectedModulePath(), QStringLiteral("0"));
        QCOMPARE(w.inspector()->statesTitle(), QStringLiteral("States"));
        QVERIFY(w.runSteps(20));
        QTRY_COMPARE(w.simulatedSteps(), std::int64_t{20});
        // Paused after the steps: the States are the run's, equal to the last recorded sample.
        QTRY_COMPARE(w.inspector()->statesTitle(), QStringLiteral("States — paused"));
        QVERIFY2(w.inspector()->statesNote().contains(QStringLiteral("at t = %1 ms").arg(QLocale().toString(20.0, 'f', 1))),
                 qPrintable(w.inspector()->statesNote()));
        auto* vmem = qobject_cast<spike::ui::ArrayEditor*>(w.inspector()->editorFor(QStringLiteral("vmem")));
        QVERIFY(vmem != nullptr);
        const auto& series = w.lastRecording()->at("0").at("vmem");
        const std::int64_t width = series.data.dim(1);
        QCOMPARE(vmem->shownValue().numel(), width);
        bool moved = false;
        for (std::int64_t n = 0; n < width; ++n) {
            const float recorded = series.data.data()[(series.data.dim(0) - 1) * width + n];
            QCOMPARE(vmem->shownValue()[n], recorded);
            moved = moved || recorded != 0.0F;
        }
        QVERIFY2(moved, "the run moved the membranes away from their initial zeros");
        // The document keeps its initial values.
        QCOMPARE(std::get<spike::engine::Tensor>(w.document()->module(w.document()->findNode("0"))->attribute("vmem"))[0], 0.0F);
        // An edit while paused sets the run's value too: read back from the run, it is there.
        QVERIFY(vmem->applySetAll(0.25));
        QCOMPARE(vmem->shownValue()[width - 1], 0.25F);
        QVERIFY(w.selectModule(QStringLiteral("1")));
        QVERIFY(w.selectModule(QStringLiteral("0")));
        vmem = qobject_cast<spike::ui::ArrayEditor*>(w.inspector()->editorFor(QStringLiteral("vmem")));
        QCOMPARE(w.inspector()->statesTitle(), QStringLiteral("States — paused"));
        QCOMPARE(vmem->shownValue()[0], 0.25F);
        QCOMPARE(vmem->shownValue()[width - 1], 0.25F);
        // Running: the initial values, said so; Reset: no run, the model's values.
        w.action(QStringLiteral("action.run"))->trigger();
        QTRY_VERIFY(w.isRunning());
        QTRY_COMPARE(w.inspector()->statesTitle(), QStringLiteral("States — initial values"));
        w.resetState();
        QCOMPARE(w.inspector()->statesTitle(), QStringLiteral("States"));
        QCOMPARE(vmem->shownValue()[0], 0.25F);  // the edit became the initial value
    }

};

QTEST_MAIN(TestMainWindowLive)
#include "test_main_window_live.moc"
