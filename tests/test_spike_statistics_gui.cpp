// The spike statistics dialog (ui/window/spike_statistics_dialog.hpp) by real input in the main
// window: resources/examples/fi_curve.json opened, the LIF node right-clicked, Analyse ▸ Spike
// statistics… chosen with the keyboard; before a run it says how to get numbers; F5 runs the
// model and, paused, the dialog has counted every step from 0 and its numbers equal, bit for bit,
// engine::spikeStatistics of the same steps run headless (HeadlessRun: the same model, its own
// copy), the plotted bars are the histograms, and LIF's neurons at constant currents fire
// regularly (per-neuron CV near 0); a click on Start again counts only from the step the run had
// reached; closing deletes it. SPIKE_SCREENSHOT_DIR=dir saves
// spike_statistics_dialog.png.
#include "ui/document/graph_document.hpp"
#include "ui/editor/graph_canvas.hpp"
#include "ui/run/live_run.hpp"
#include "ui/run/run_session.hpp"
#include "ui/window/main_window.hpp"
#include "ui/window/spike_statistics_dialog.hpp"

#include "engine/analysis/spike_statistics.hpp"
#include "engine/io/model_io.hpp"
#include "engine/runtime/headless_run.hpp"

#include "analysis_gui_helpers.hpp"
#include "real_input.hpp"
#include "spike_statistics_compare.hpp"

#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QtTest/QtTest>

#include <qcustomplot.h>

#include <QLocale>

#include <chrono>

using namespace spike::ui;  // NOLINT: test file
using spike::tests::openAnalysisDialog;
using spike::tests::openFiExample;
using spike::tests::settle;

namespace {

/// F5 in the main window, then waits until the run is paused and idle with its data drained.
void pauseRun(MainWindow& w, RunSession& session)
{
    w.activateWindow();
    QTRY_VERIFY(w.isActiveWindow());
    QTest::keyClick(&w, Qt::Key_F5);
    QTRY_VERIFY(!w.isRunning());
    LiveRun* run = session.live();
    QVERIFY(run != nullptr);
    QTRY_VERIFY(run->waitIdle(std::chrono::seconds(10)));
    run->poll();
}

}  // namespace

class TestSpikeStatisticsGui : public QObject {
    Q_OBJECT

private slots:
    void statisticsOfTheRunFromTheNodeMenu()
    {
        MainWindow w;
        QPoint onNode;
        openFiExample(w, onNode);
        if (QTest::currentTestFailed()) {
            return;
        }
        SpikeStatisticsDialog* dialog = nullptr;
        openAnalysisDialog(w, onNode, QStringLiteral("Spike statistics…"), dialog);
        if (QTest::currentTestFailed()) {
            return;
        }
        QVERIFY(dialog->windowTitle().contains("lif"));
        QVERIFY2(dialog->summary()->text().startsWith("Run or Step the model"), qPrintable(dialog->summary()->text()));
        QVERIFY(!dialog->statistics().has_value());

        // F5 runs the model; the dialog counts while it runs.
        w.activateWindow();
        QTRY_VERIFY(w.isActiveWindow());
        QTest::keyClick(&w, Qt::Key_F5);
        QTRY_VERIFY(w.isRunning());
        auto* session = w.findChild<RunSession*>();
        QVERIFY(session != nullptr);
        QTRY_VERIFY_WITH_TIMEOUT(dialog->statistics().has_value() && dialog->counted().endStep() > 1500, 30000);
        pauseRun(w, *session);
        if (QTest::currentTestFailed()) {
            return;
        }
        // Paused: the last steps are counted within half a second; every step from 0.
        const spike::engine::SpikeWindow& counted = dialog->counted();
        QTRY_VERIFY(dialog->statistics().has_value() && dialog->statistics()->steps == counted.steps() &&
                    counted.endStep() == session->live()->currentStep());
        QCOMPARE(counted.firstStep(), std::int64_t{0});
        const std::int64_t steps = counted.endStep();

        // The same steps run headless from the model file: the same numbers, bit for bit.
        const auto root = spike::engine::loadModel(SPIKE_TEST_DATA_DIR "/../../resources/examples/fi_curve.json");
        spike::engine::HeadlessRunOptions options;
        options.backend = spike::engine::BackendKind::Cpu;
        spike::engine::HeadlessRun headless(*root, options);
        const auto infos = headless.record({{"lif", "spikes", {}}});
        const spike::engine::HeadlessRunResult r = headless.run(nullptr, steps);
        spike::engine::SpikeStatisticsOptions statisticsOptions;
        statisticsOptions.bins = SpikeStatisticsDialog::kIsiBins;
        statisticsOptions.rateBins = SpikeStatisticsDialog::kRateBins;
        const spike::engine::SpikeStatistics expected = spike::engine::spikeStatistics(
            r.recordings[0].data(), steps, infos[0].width, root->timeStep(), statisticsOptions);
        const spike::engine::SpikeStatistics& got = *dialog->statistics();
        QCOMPARE(got.neurons, std::int64_t{6});
        spike::tests::compareSpikeStatistics(got, expected);
        if (QTest::currentTestFailed()) {
            return;
        }
        // Two neurons sit below the rheobase; the others, held at constant currents, fire
        // regularly: intervals of whole steps that differ by at most one.
        QCOMPARE(got.rateHz[0], 0.0);
        QCOMPARE(got.rateHz[1], 0.0);
        QVERIFY(got.cvNeurons >= 3);
        QVERIFY2(got.meanCv < 0.1, qPrintable(QString::number(got.meanCv)));
        // The bars are the histograms (the intervals' centres in ms).
        const auto isi = dialog->isiPlot()->graph(0)->data();
        QCOMPARE(isi->size(), static_cast<int>(SpikeStatisticsDialog::kIsiBins));
        for (int k = 0; k < isi->size(); ++k) {
            const auto uk = static_cast<std::size_t>(k);
            QCOMPARE(isi->at(k)->value, got.isiHistogram.counts[uk]);
            QCOMPARE(isi->at(k)->key, 0.5 * (got.isiHistogram.edges[uk] + got.isiHistogram.edges[uk + 1]) * 1e3);
        }
        QCOMPARE(dialog->ratePlot()->graph(0)->data()->size(), static_cast<int>(SpikeStatisticsDialog::kRateBins));
        const QString summary = dialog->summary()->text();
        QVERIFY2(summary.contains("6 neuron(s)") && summary.contains(QLocale().toString(static_cast<qlonglong>(got.spikes)) + " spikes"),
                 qPrintable(summary));
        if (const QByteArray dir = qgetenv("SPIKE_SCREENSHOT_DIR"); !dir.isEmpty()) {
            dialog->grab().save(QString::fromLocal8Bit(dir) + "/spike_statistics_dialog.png");
        }

        // Start again (a click): the count restarts at the step the run reached.
        auto* again = dialog->findChild<QPushButton*>(QStringLiteral("spikeStartAgain"));
        QVERIFY(again != nullptr);
        QTest::mouseClick(again, Qt::LeftButton);
        QVERIFY(!dialog->statistics().has_value());
        QCOMPARE(dialog->counted().firstStep(), steps);
        QVERIFY(dialog->summary()->text().startsWith("Counting again"));
        w.activateWindow();
        QTRY_VERIFY(w.isActiveWindow());
        QTest::keyClick(&w, Qt::Key_F5);
        QTRY_VERIFY(w.isRunning());
        QTRY_VERIFY_WITH_TIMEOUT(dialog->statistics().has_value() && dialog->counted().steps() > 300, 30000);
        pauseRun(w, *session);
        QCOMPARE(dialog->counted().firstStep(), steps);
        QTRY_VERIFY(dialog->statistics()->steps == dialog->counted().steps());
        QVERIFY(dialog->statistics()->spikes < got.spikes + 1.0);  // only the new steps' spikes

        QPointer<SpikeStatisticsDialog> guard(dialog);
        dialog->close();
        settle();
        QVERIFY(guard.isNull());
    }
};

QTEST_MAIN(TestSpikeStatisticsGui)
#include "test_spike_statistics_gui.moc"
