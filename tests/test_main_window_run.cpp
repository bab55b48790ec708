// MainWindow, the simulation side: a run (on the controller's worker) plots exactly what the
// engine records (traces of the selected module, one raster dot per (step, neuron) with at least
// one spike, density cells for large networks, the rate strip), attribute edits reach the run
// and structural edits rebuild it and continue, Plot ▸ with neuron selections, exports and the
// teaching demos (run controls, time and the live window: test_main_window_live.cpp). Runs with
// QT_QPA_PLATFORM=offscreen.
#include "tests/main_window_test_helpers.hpp"
#include "ui/document/document_file.hpp"
#include "ui/window/plot_sources.hpp"
#include "ui/editor/document_tree.hpp"
#include "ui/document/graph_commands.hpp"
#include "ui/editor/graph_breadcrumb.hpp"
#include "ui/editor/graph_canvas.hpp"
#include "ui/editor/graph_node_item.hpp"
#include "ui/inspector/inspector.hpp"
#include "ui/window/main_window.hpp"
#include "ui/plots/neuron_selection.hpp"
#include "ui/editor/palette_widget.hpp"
#include "ui/plots/plot_export.hpp"
#include "ui/plots/plot_panes.hpp"
#include "ui/plots/raster_plot.hpp"
#include "ui/plots/trace_plot.hpp"

#include "engine/core/attribute.hpp"
#include "engine/runtime/backend.hpp"
#include "engine/neurons/cuba_lif.hpp"
#include "engine/io/model_io.hpp"
#include "engine/io/module_factory.hpp"
#include "engine/network/network.hpp"
#include "engine/tensor/npy.hpp"

#include <QAction>
#include <QClipboard>
#include <QFile>
#include <QDoubleSpinBox>
#include <QImage>
#include <QPlainTextEdit>
#include <QStandardItemModel>
#include <QMessageBox>
#include <QPushButton>
#include <QTimer>
#include <QProcess>
#include <QSpinBox>
#include <QUndoStack>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <algorithm>
#include <random>

using spike::engine::Module;
using spike::engine::RecordSpec;
using spike::engine::Shape;
using spike::engine::Tensor;
using spike::ui::MainWindow;
using spike::ui::NodeId;
using spike::tests::answerNextDialog;
using spike::tests::freshExample;
using spike::tests::kCuba;
using spike::tests::kExample;
using spike::tests::treeItemCount;
using spike::tests::writeFile;


class TestMainWindowRun : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        QStandardPaths::setTestModeEnabled(true);  // recent files and recovery stay in test dirs
    }

    void runPlotsWhatTheEngineRecords()
    {
        MainWindow w;
        QVERIFY(w.openModel(kExample));
        QVERIFY(w.selectModule(QStringLiteral("0")));
        QString error;
        QVERIFY2(w.runSteps(500, &error), qPrintable(error));
        QVERIFY(w.lastRecording() != nullptr);

        auto copy = freshExample();
        QVERIFY(copy != nullptr);
        const auto reference = copy->evolve(Tensor(Shape{500, copy->sizeIn()}), RecordSpec(true));
        const auto& vmem = reference.record.at("0").at("vmem");
        const std::int64_t nOut = copy->getSubmodule("0").sizeOut();

        const QCustomPlot& traces = *w.tracePlot();
        QCOMPARE(traces.graphCount(), static_cast<int>(std::min<std::int64_t>(64, nOut)));
        for (int n = 0; n < traces.graphCount(); ++n) {
            QCOMPARE(traces.graph(n)->data()->size(), 500);
        }
        for (const int t : {0, 1, 37, 250, 499}) {
            for (const int n : {0, 3, 7}) {
                const auto point = traces.graph(n)->data()->at(t);
                // Exact: the plot holds the engine's float32 samples widened to double.
                QVERIFY(point->value == static_cast<double>(vmem.data[t * nOut + n]));
                QVERIFY(point->key == (vmem.tStart + t * vmem.dt) * 1e3);
            }
        }
        QCOMPARE(w.tracePlot()->thresholdLineCount(), 1);  // scalar threshold: one line

        // Raster: one dot per spike. The example never fires twice in one step, so dots equal
        // spikes here (multiSpikeStepIsOneDot covers the other case).
        std::int64_t spikes = 0;
        std::int64_t events = 0;
        int spikingLeaves = 0;
        for (const auto& [path, module] : copy->namedModules()) {
            if (module->childCount() > 0 || !module->spikingOutput()) {
                continue;
            }
            ++spikingLeaves;
            const Tensor& s = reference.record.at(path).at("spikes").data;
            for (std::int64_t i = 0; i < s.numel(); ++i) {
                spikes += static_cast<std::int64_t>(s[i]);
                events += s[i] > 0.0F ? 1 : 0;
            }
        }
        QVERIFY(spikes > 0);
        QCOMPARE(events, spikes);
        QCOMPARE(w.rasterPlot()->dotCount(), spikes);
        QCOMPARE(w.rasterPlot()->bandCount(), spikingLeaves);
        QVERIFY(!w.rasterPlot()->densityMode());
        QCOMPARE(spike::engine::summariseSpikes(*w.lastRecording()).spikes, spikes);

        const QString status = w.statusBar()->currentMessage();
        QVERIFY2(status.startsWith(QStringLiteral("Ran 500 steps in ")), qPrintable(status));
        QVERIFY2(status.contains(QStringLiteral("— %1 spikes").arg(QLocale().toString(spikes))),
                 qPrintable(status));

        // The time axes are linked both ways.
        QCOMPARE(w.rasterPlot()->xAxis->range(), w.tracePlot()->xAxis->range());
        w.tracePlot()->xAxis->setRange(100.0, 200.0);
        QCOMPARE(w.rasterPlot()->xAxis->range(), QCPRange(100.0, 200.0));
        w.rasterPlot()->xAxis->setRange(50.0, 60.0);
        QCOMPARE(w.tracePlot()->xAxis->range(), QCPRange(50.0, 60.0));
    }

    void traceFollowsTheSelection()
    {
        MainWindow w;
        QVERIFY(w.openModel(kExample));
        QVERIFY(w.runSteps(50));
        QCOMPARE(w.tracePlot()->graphCount(), 8);
        // The root records no membrane potential: the traces of "0" stay.
        QVERIFY(w.selectModule(QString()));
        QCOMPARE(w.tracePlot()->graphCount(), 8);
        // Another layer: its trace starts with the next samples.
        QVERIFY(w.selectModule(QStringLiteral("1")));
        QVERIFY(w.runSteps(30));
        QCOMPARE(w.tracePlot()->graphCount(), 4);
        QCOMPARE(w.tracePlot()->graph(0)->data()->size(), 30);
        QVERIFY(!w.selectModule(QStringLiteral("nope")));
    }

    void structuralEditRebuildsAndContinues()
    {
        MainWindow w;
        QVERIFY(w.openModel(kCuba));
        QVERIFY(w.runSteps(100));
        QVERIFY(w.lastRecording() != nullptr);
        // Moving a node is layout only: the run stays as it is.
        const NodeId e = w.document()->findNode("E");
        w.canvas()->setSelection({e, w.document()->findNode("I")});
        QVERIFY(w.canvas()->alignSelection(spike::ui::Alignment::Left));
        QCOMPARE(w.simulatedSteps(), std::int64_t{100});
        // Adding a module changes the model: the run is rebuilt from the edited model and
        // continues from step 100, the raster keeping what it had and E's membrane continuing.
        const auto spikesBefore = spike::engine::summariseSpikes(*w.lastRecording()).spikes;
        QVERIFY(w.canvas()->addModule(QStringLiteral("PoissonSource")).valid());
        QVERIFY(w.windowTitle().contains(QLatin1Char('*')));
        QVERIFY(w.runSteps(10));
        QCOMPARE(w.simulatedSteps(), std::int64_t{110});
        QVERIFY(w.statusBar()->currentMessage().startsWith(QStringLiteral("Ran 10 steps")));
        QVERIFY(spike::engine::summariseSpikes(*w.lastRecording()).spikes >= spikesBefore);
        const spike::engine::TimeSeries& v = w.lastRecording()->at("E").at("v");
        QCOMPARE(v.data.dim(0), std::int64_t{110});
        QCOMPARE(v.tStart, 0.0);
        // The new source is in the rebuilt run: its spikes are in the raster from step 100 on.
        const NodeId added = w.canvas()->selectedNodes().value(0);
        const std::string path = w.document()->path(added);
        QVERIFY(w.lastRecording()->count(path) == 1);
        QVERIFY(std::abs(w.lastRecording()->at(path).begin()->second.tStart - 100 * 1e-4) < 1e-9);
        // While running: a deletion rebuilds and the run goes on running past the edit.
        QVERIFY(w.runFor(0.05));
        const std::int64_t before = w.simulatedSteps();
        w.document()->undoStack()->undo();  // the PoissonSource leaves again
        QCoreApplication::processEvents();
        QVERIFY(w.statusBar()->currentMessage().contains(QStringLiteral("continuing at t =")));
        QVERIFY(w.lastRecording()->count(path) == 0);
        QVERIFY(w.runSteps(5));
        QCOMPARE(w.simulatedSteps(), before + 5);
    }

    void attributeEditReachesTheRun()
    {
        MainWindow w;
        QVERIFY(w.openModel(kExample));
        QVERIFY(w.runSteps(100));
        // An edit while paused goes to the running copy: the run continues with the new value.
        const NodeId layer = w.document()->findNode("0");
        const auto status = spike::ui::pushCommand(
            *w.document(), std::make_unique<spike::ui::SetAttributeCommand>(*w.document(), layer, "threshold",
                                                                          Tensor::scalar(0.5F)));
        QVERIFY2(status.ok, status.message.c_str());
        QVERIFY(w.lastRecording() != nullptr);
        QVERIFY(w.runSteps(60));
        QCOMPARE(w.simulatedSteps(), std::int64_t{160});
        auto copy = freshExample();
        copy->evolve(Tensor(Shape{100, copy->sizeIn()}));
        QVERIFY(copy->setAttributes(spike::engine::NestedAttributes{{"0", {{"threshold", Tensor::scalar(0.5F)}}}}).ok);
        const auto after = copy->evolve(Tensor(Shape{60, copy->sizeIn()}), RecordSpec(true));
        const auto& vmem = after.record.at("0").at("vmem");
        for (const int t : {0, 7, 59}) {
            for (const int n : {0, 5}) {
                QVERIFY(w.tracePlot()->graph(n)->data()->at(100 + t)->value ==
                        static_cast<double>(vmem.data[t * 8 + n]));
            }
        }
        // The trace plot draws the new threshold.
        QCOMPARE(w.tracePlot()->thresholdLineCount(), 1);
    }

    void teachingDemosSpike()
    {
        // The current-step demo shows the rheobase: the two weakest steps stay below threshold,
        // the stronger ones fire, faster the stronger the step.
        MainWindow w;
        QVERIFY(w.openModel(QStringLiteral(":/examples/lif_current_step.json")));
        QCOMPARE(w.selectedModulePath(), QStringLiteral("lif"));
        QVERIFY(w.runSteps(500));
        const auto& spikes = w.lastRecording()->at("lif").at("spikes");
        std::vector<double> perNeuron(5, 0.0);
        for (std::int64_t i = 0; i < spikes.data.numel(); ++i) {
            perNeuron[static_cast<std::size_t>(i % 5)] += spikes.data[i];
        }
        QCOMPARE(perNeuron[0], 0.0);
        QCOMPARE(perNeuron[1], 0.0);
        QVERIFY(perNeuron[2] > 0.0 && perNeuron[2] < perNeuron[3] && perNeuron[3] < perNeuron[4]);
        QCOMPARE(w.tracePlot()->graphCount(), 5);
        // LIFRefrac's rate saturates (refractory period) where LIF's keeps growing.
        QVERIFY(w.openModel(QStringLiteral(":/examples/lif_vs_lifrefrac.json")));
        QVERIFY(w.runSteps(300));
        const auto count = [&](const char* path, int n, int k) {
            const auto& s = w.lastRecording()->at(path).at("spikes");
            double total = 0.0;
            for (std::int64_t t = 0; t < s.data.numel() / n; ++t) {
                total += s.data[t * n + k];
            }
            return total;
        };
        QVERIFY(count("lif", 4, 3) > 2.0 * count("refrac", 4, 3));
        QVERIFY(count("refrac", 4, 3) < 2.0 * count("refrac", 4, 0));
        // The Poisson-driven layer fires.
        QVERIFY(w.openModel(QStringLiteral(":/examples/poisson_feedforward.json")));
        QVERIFY(w.runSteps(1000));
        QVERIFY(spike::engine::summariseSpikes(*w.lastRecording()).spikes > 100);
    }

    void exportsMatchTheRecording()
    {
        MainWindow w;
        QVERIFY(w.openModel(kExample));
        QVERIFY(w.runSteps(50));
        const spike::engine::Recording& rec = *w.lastRecording();
        // The trace CSV holds exactly the recorded float samples.
        const QStringList lines = spike::ui::plotCsv(*w.tracePlot()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 51);
        QVERIFY(lines.front().startsWith(QStringLiteral("time_ms,")));
        const auto& vmem = rec.at("0").at("vmem");
        for (const int t : {0, 17, 49}) {
            const QStringList cells = lines[t + 1].split(QLatin1Char(','));
            QCOMPARE(cells.size(), 9);
            QCOMPARE(cells[0].toDouble(), (vmem.tStart + t * vmem.dt) * 1e3);
            for (int n = 0; n < 8; ++n) {
                QCOMPARE(cells[n + 1].toFloat(), vmem.data[t * 8 + n]);
            }
        }
        // Time is step x the decimal dt (1 ms), printed as such: no float32 drift in the column.
        QCOMPARE(vmem.dt, 0.001);
        QCOMPARE(lines[18].section(QLatin1Char(','), 0, 0), QStringLiteral("17"));
        QCOMPARE(lines[50].section(QLatin1Char(','), 0, 0), QStringLiteral("49"));
        // The raster CSV has one row per dot.
        const QStringList rows = spike::ui::plotCsv(*w.rasterPlot()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        const auto dots = std::count_if(rows.begin(), rows.end(), [](const QString& r) {
            return !r.startsWith(QStringLiteral("\"population rate\"")) && !r.startsWith(QStringLiteral("series,"));
        });
        QCOMPARE(static_cast<std::int64_t>(dots), w.rasterPlot()->dotCount());
        // Files: PNG (twice the pixels), PDF, CSV; an unknown suffix is refused with the reason.
        QTemporaryDir dir;
        QString error;
        QVERIFY2(spike::ui::exportPlot(*w.tracePlot(), dir.filePath(QStringLiteral("t.png")), &error), qPrintable(error));
        QCOMPARE(QImage(dir.filePath(QStringLiteral("t.png"))).width(), 2 * w.tracePlot()->width());
        QVERIFY(spike::ui::exportPlot(*w.rasterPlot(), dir.filePath(QStringLiteral("r.pdf")), &error));
        QVERIFY(QFileInfo(dir.filePath(QStringLiteral("r.pdf"))).size() > 0);
        QVERIFY(spike::ui::exportPlot(*w.rasterPlot(), dir.filePath(QStringLiteral("r.csv")), &error));
        QVERIFY(!spike::ui::exportPlot(*w.rasterPlot(), dir.filePath(QStringLiteral("r.bmpx")), &error));
        QVERIFY(error.contains(QStringLiteral("expected .png, .pdf or .csv")));
        // Recordings: one .npy per series, identical to the recording.
        const QStringList files = spike::ui::exportRecording(rec, dir.filePath(QStringLiteral("npy")), &error);
        QCOMPARE(static_cast<std::size_t>(files.size()), spike::engine::flatten(rec).size());
        for (const auto& [key, series] : spike::engine::flatten(rec)) {
            const Tensor back = spike::engine::npy::load(
                dir.filePath(QStringLiteral("npy/%1.npy").arg(QString::fromStdString(key))).toStdString());
            QVERIFY2(back.identical(series->data), key.c_str());
        }
    }

    void rasterAggregatesLargeRecordings()
    {
        // 3000 neurons x 400 steps of random spikes: too many rows for dots, so density cells;
        // every spike is in a cell, and the rate strip is spikes / (neurons x bin time).
        spike::engine::Network root;
        root.addNode("E", std::make_unique<spike::engine::CUBALIF>(3000));
        spike::engine::TimeSeries series;
        series.dt = 1e-4;
        series.tStart = 0.02;
        series.spikes = true;
        series.data = Tensor(Shape{400, 3000});
        std::mt19937 rng(5);
        std::int64_t total = 0;
        for (std::int64_t i = 0; i < series.data.numel(); ++i) {
            const bool spike = std::uniform_real_distribution<double>(0.0, 1.0)(rng) < 0.01;
            series.data.data()[i] = spike ? 1.0F : 0.0F;
            total += spike ? 1 : 0;
        }
        spike::engine::Recording rec;
        rec["E"]["spikes"] = series;
        spike::ui::RasterPlot plot;
        plot.resize(600, 400);
        plot.showRecording(spike::ui::rasterModulesOf(root), rec);
        QVERIFY(plot.densityMode());
        QCOMPARE(plot.dotCount(), std::int64_t{0});
        QCOMPARE(plot.bandCount(), 1);
        auto* map = qobject_cast<QCPColorMap*>(plot.plottable(1));
        QVERIFY(map != nullptr);
        double cells = 0.0;
        for (int x = 0; x < map->data()->keySize(); ++x) {
            for (int y = 0; y < map->data()->valueSize(); ++y) {
                cells += map->data()->cell(x, y);
            }
        }
        QCOMPARE(cells, static_cast<double>(total));
        QVERIFY(map->data()->valueSize() <= spike::ui::RasterPlot::kMaxRows);
        // One rate bin per step here (400 <= kMaxColumns): the mean rate is the overall rate.
        const auto rate = plot.rateGraph()->data();
        QCOMPARE(rate->size(), 400);
        double sum = 0.0;
        for (int i = 0; i < rate->size(); ++i) {
            sum += rate->at(i)->value;
        }
        QVERIFY(std::abs(sum / 400.0 - static_cast<double>(total) / (3000.0 * 400.0 * 1e-4)) < 1e-6);
        QCOMPARE(rate->at(0)->key, (0.02 + 0.5e-4) * 1e3);
    }

    void openedPanesAreSavedWithTheModel()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("with_panes.json"));
        {
            MainWindow w;
            QVERIFY(w.openModel(kCuba));
            int key = 0;
            QVERIFY(w.plotSignal(QStringLiteral("I"), QStringLiteral("i_exc"), QStringLiteral("0-9"), nullptr, &key));
            QVERIFY(w.plotSignal(QStringLiteral("E"), QStringLiteral("v"), QStringLiteral("random 5")));
            w.closePlotPane(key);
            QString error;
            QVERIFY2(w.documentFile()->saveAs(file, &error), qPrintable(error));
        }
        QFile saved(file);
        QVERIFY(saved.open(QIODevice::ReadOnly));
        const nlohmann::json doc = nlohmann::json::parse(saved.readAll().toStdString());
        QCOMPARE(QString::fromStdString(doc.at("plots").dump()),
                 QStringLiteral(R"([{"neurons":"random 5","path":"E","signal":"v"}])"));
        MainWindow again;
        QVERIFY(again.openModel(file));
        QCOMPARE(again.plotPanes()->paneKeys().size(), std::size_t{2});  // the selection pane + E's v
    }

    void plotAnyRecordedState()
    {
        MainWindow w;
        QVERIFY(w.openModel(kCuba));
        QVERIFY(w.runSteps(50));
        QVERIFY(!w.plotSignal(QStringLiteral("E"), QStringLiteral("nope")));
        QCOMPARE(w.plotPanes()->paneKeys().size(), std::size_t{1});  // a refusal opens no pane
        int key = 0;
        QVERIFY(w.plotSignal(QStringLiteral("I"), QStringLiteral("i_exc"), QStringLiteral("all"), nullptr, &key));
        QVERIFY(key > 0);
        QCOMPARE(w.plotPanes()->paneKeys(), (std::vector<int>{0, key}));
        QCOMPARE(w.selectedModulePath(), QStringLiteral("I"));
        QVERIFY(w.runSteps(40));
        spike::ui::TracePlot* pane = w.plotPanes()->tracePane(key);
        QVERIFY2(pane->title().startsWith(QStringLiteral("i_exc")), qPrintable(pane->title()));
        QCOMPARE(pane->thresholdLineCount(), 0);
        // 200 traces: drawn as a density view whose mean line is the mean over the neurons.
        QVERIFY(pane->densityMode());
        QCOMPARE(pane->traceCount(), 200);
        const auto& series = w.lastRecording()->at("I").at("i_exc");
        QCOMPARE(series.data.dim(0), std::int64_t{40});  // from the next samples on
        // The selection pane shows the selected layer's membrane meanwhile.
        QVERIFY(w.tracePlot()->title().startsWith(QStringLiteral("Membrane potential")));
        // A fresh run records the pane again; closing it stops recording it.
        w.resetState();
        QVERIFY(w.runSteps(10));
        QCOMPARE(w.lastRecording()->at("I").at("i_exc").data.dim(0), std::int64_t{10});
        w.closePlotPane(key);
        QVERIFY(w.plotPanes()->tracePane(key) == nullptr);
        QVERIFY(w.runSteps(5));
        QVERIFY(w.lastRecording()->at("I").count("i_exc") == 0);
    }

    void plotsInsideACompositeAndFromTheFile()
    {
        // The driven DynamicsNetwork demo opens with its panes: value_prefix, the LSTM's hidden
        // state (recorded through the DynamicsNetwork) and the drive.
        MainWindow w;
        QVERIFY(w.openModel(QStringLiteral(":/examples/dynamics_network_driven.json")));
        const std::vector<int> keys = w.plotPanes()->paneKeys();
        QCOMPARE(keys.size(), std::size_t{4});
        QVERIFY(w.runSteps(50));
        const spike::engine::Recording& rec = *w.lastRecording();
        QCOMPARE(rec.at("dynamics").at("value_prefix").data.dim(1), std::int64_t{21});
        QCOMPARE(rec.at("dynamics").at("lstm.h").data.dim(1), std::int64_t{32});
        QCOMPARE(w.plotPanes()->tracePane(keys[1])->traceCount(), 21);
        QCOMPARE(w.plotPanes()->tracePane(keys[2])->traceCount(), 32);
        QVERIFY(w.plotPanes()->tracePane(keys[2])->title().startsWith(QStringLiteral("h")));
        // What a pane draws is what was recorded: hidden unit 5 at step 49.
        const auto& h = rec.at("dynamics").at("lstm.h");
        QCOMPARE(w.plotPanes()->tracePane(keys[2])->graph(5)->data()->at(49)->value,
                 static_cast<double>(h.data[49 * 32 + 5]));
        // The same through the canvas' port menu: the stimulus output, 4 channels.
        int key = 0;
        QVERIFY(w.plotSignal(QStringLiteral("stimulus"), QStringLiteral("out"), QStringLiteral("0-3"), nullptr, &key));
        QVERIFY(w.runSteps(10));
        QCOMPARE(w.plotPanes()->tracePane(key)->traceCount(), 4);
        QCOMPARE(rec.at("stimulus").at("out").data.dim(1), std::int64_t{4});
    }

    void neuronSelections()
    {
        using spike::ui::parseNeuronSelection;
        QString error;
        QCOMPARE(parseNeuronSelection(QStringLiteral("all"), 10, &error).value(), std::vector<std::int64_t>{});
        QCOMPARE(parseNeuronSelection(QStringLiteral(" 2-4, 0, 3 "), 10, &error).value(),
                 (std::vector<std::int64_t>{0, 2, 3, 4}));
        const auto random = parseNeuronSelection(QStringLiteral("random 5 seed 3"), 100, &error).value();
        QCOMPARE(random.size(), std::size_t{5});
        QVERIFY(std::is_sorted(random.begin(), random.end()));
        QVERIFY(std::adjacent_find(random.begin(), random.end()) == random.end());
        QVERIFY(random.back() < 100);
        QCOMPARE(parseNeuronSelection(QStringLiteral("random 5 seed 3"), 100).value(), random);  // reproducible
        QVERIFY(!parseNeuronSelection(QStringLiteral("7-12"), 10, &error));
        QVERIFY2(error.contains(QStringLiteral("numbered 0 to 9")), qPrintable(error));
        QVERIFY(!parseNeuronSelection(QStringLiteral("five"), 10, &error));
        QVERIFY(error.contains(QStringLiteral("expected all")));
        QVERIFY(!parseNeuronSelection(QStringLiteral("random 11"), 10, &error));
        // Plotting a selection records exactly those neurons, labelled by their index.
        MainWindow w;
        QVERIFY(w.openModel(kCuba));
        QVERIFY(w.runSteps(20));
        QVERIFY(!w.plotSignal(QStringLiteral("E"), QStringLiteral("v"), QStringLiteral("0-900"), &error));
        int key = 0;
        QVERIFY(w.plotSignal(QStringLiteral("E"), QStringLiteral("v"), QStringLiteral("3, 700-701"), &error, &key));
        QVERIFY(w.runSteps(30));
        const spike::ui::TracePlot* pane = w.plotPanes()->tracePane(key);
        QCOMPARE(pane->graphCount(), 3);
        QCOMPARE(pane->graph(1)->name(), QStringLiteral("n700"));
        QVERIFY(pane->title().contains(QStringLiteral("selected")));
        const auto& v = w.lastRecording()->at("E").at("v");
        QCOMPARE(v.data.dim(1), std::int64_t{3});
    }

    void spikesOfChosenNeurons()
    {
        MainWindow w;
        QVERIFY(w.openModel(kCuba));
        // Plot ▸ Spikes for neurons 3, 700, 701 of E: the raster draws only those of E (rows
        // labelled by their own indices), every neuron of I, and nothing else.
        QString error;
        QVERIFY2(w.plotSignal(QStringLiteral("E"), QStringLiteral("spikes"), QStringLiteral("3, 700-701"), &error),
                 qPrintable(error));
        QCOMPARE(w.plotPanes()->paneKeys().size(), std::size_t{1});  // no pane: the raster shows them
        QVERIFY(w.runSteps(1500));
        const spike::engine::Recording& rec = *w.lastRecording();
        const auto& e = rec.at("E").at("spikes");
        const auto& i = rec.at("I").at("spikes");
        std::int64_t expected = 0;
        for (std::int64_t t = 0; t < e.data.dim(0); ++t) {
            for (const std::int64_t n : {3, 700, 701}) {
                expected += e.data[t * 800 + n] > 0.0F ? 1 : 0;
            }
        }
        QVERIFY(expected > 0);
        expected += spike::engine::summariseSpikes([&] {
                        spike::engine::Recording only;
                        only["I"]["spikes"] = i;
                        return only;
                    }()).events;
        QVERIFY(!w.rasterPlot()->densityMode());
        QCOMPARE(w.rasterPlot()->dotCount(), expected);
        QVERIFY2(w.rasterPlot()->yAxis->range().upper < 3 + 200, qPrintable(QString::number(w.rasterPlot()->yAxis->range().upper)));  // 3 rows of E, 200 of I
        // "all" shows every neuron again.
        QVERIFY(w.plotSignal(QStringLiteral("E"), QStringLiteral("spikes"), QStringLiteral("all")));
        QVERIFY(w.rasterPlot()->neuronSelection("E").empty());
        QVERIFY(w.rasterPlot()->yAxis->range().upper > 999);
        QVERIFY(!w.plotSignal(QStringLiteral("E"), QStringLiteral("spikes"), QStringLiteral("900")));
    }

    void multiSpikeStepIsOneDot()
    {
        // One LIF whose bias crosses the threshold 2.5 times per step: 2 spikes every step.
        const QByteArray text = R"({"format": "spikestudio.model", "version": 1,
            "model": {"type": "LIF", "config": {"shape": [3, 3], "has_rec": false},
                      "attributes": {"bias": 2.5, "threshold": [1.0, 1.0, 1.0]}}})";
        MainWindow w;
        QString error;
        QVERIFY2(w.openModelFromJson(text, QStringLiteral("multi.json"), &error),
                 qPrintable(error));
        QVERIFY(w.runSteps(10));
        const auto summary = spike::engine::summariseSpikes(*w.lastRecording());
        QVERIFY(summary.spikes > summary.events);
        QCOMPARE(w.rasterPlot()->dotCount(), summary.events);
        QCOMPARE(summary.events, std::int64_t{30});
        QVERIFY(w.statusBar()->currentMessage().contains(QStringLiteral("drawn as one dot")));
        // Per-neuron thresholds that are all equal draw one line, like a scalar one.
        QCOMPARE(w.tracePlot()->thresholdLineCount(), 1);
    }

    void perNeuronThresholdsDrawOneLineEach()
    {
        const QByteArray text = R"({"format": "spikestudio.model", "version": 1,
            "model": {"type": "LIF", "config": {"shape": [3, 3], "has_rec": false},
                      "attributes": {"bias": 0.2, "threshold": [0.5, 1.0, 1.5]}}})";
        MainWindow w;
        QVERIFY(w.openModelFromJson(text, QStringLiteral("thresholds.json")));
        QVERIFY(w.runSteps(20));
        QCOMPARE(w.tracePlot()->graphCount(), 3);
        QCOMPARE(w.tracePlot()->thresholdLineCount(), 3);
        QVERIFY(w.tracePlot()->yAxis->range().upper >= 1.5);  // every threshold is in view
    }

    void membraneTraceFollowsTheRegistry()
    {
        // LIFRefrac's membrane state is "v" (family "membrane"), not "vmem"; a source feeds it.
        const QByteArray text = R"({"format": "spikestudio.model", "version": 1,
            "model": {"type": "Sequential", "children": [
              {"type": "ConstantCurrent", "config": {"shape": [3]}, "attributes": {"amplitude": [1, 2, 3]}},
              {"type": "LIFRefrac", "config": {"shape": [3]}, "attributes": {"v_th": 0.5}}]}})";
        MainWindow w;
        QString error;
        QVERIFY2(w.openModelFromJson(text, QStringLiteral("refrac.json"), &error), qPrintable(error));
        QCOMPARE(w.selectedModulePath(), QStringLiteral("1"));  // first module with a membrane
        QVERIFY(w.runSteps(40));
        QCOMPARE(w.tracePlot()->graphCount(), 3);
        QCOMPARE(w.tracePlot()->yAxis->label(), QStringLiteral("v [mV]"));
        const auto& v = w.lastRecording()->at("1").at("v");
        QCOMPARE(w.tracePlot()->graph(2)->data()->at(7)->value, static_cast<double>(v.data[7 * 3 + 2]));
        QCOMPARE(w.tracePlot()->thresholdLineCount(), 1);
        QVERIFY(spike::engine::summariseSpikes(*w.lastRecording()).events > 0);
    }

    void wideLayerShowsADensityView()
    {
        const QByteArray text = R"({"format": "spikestudio.model", "version": 1,
            "model": {"type": "LIF", "config": {"shape": [100, 100], "has_rec": false},
                      "attributes": {"bias": 0.3}}})";
        MainWindow w;
        QVERIFY(w.openModelFromJson(text, QStringLiteral("wide.json")));
        QVERIFY(w.runSteps(30));
        QVERIFY(w.tracePlot()->densityMode());
        QCOMPARE(w.tracePlot()->traceCount(), 100);
        QVERIFY2(w.tracePlot()->title().contains(QStringLiteral("100 neurons, density view")),
                 qPrintable(w.tracePlot()->title()));
        const auto summary = spike::engine::summariseSpikes(*w.lastRecording());
        QVERIFY(summary.events > 0);
        QCOMPARE(w.rasterPlot()->dotCount(), summary.events);  // the raster keeps every neuron
    }

    void runNeedsValidSteps()
    {
        MainWindow w;
        QString error;
        QVERIFY(!w.runSteps(0, &error));
        QVERIFY(!error.isEmpty());
        QVERIFY(!w.runSteps(MainWindow::kMaxSteps + 1, &error));
        QCOMPARE(w.simulatedSteps(), std::int64_t{0});
        QCOMPARE(w.stepsSpinBox()->value(), MainWindow::kDefaultSteps);
        QCOMPARE(w.stepsSpinBox()->maximum(), MainWindow::kMaxSteps);
    }

};

QTEST_MAIN(TestMainWindowRun)
#include "test_main_window_run.moc"
