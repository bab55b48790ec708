// MainWindow: opening the bundled example fills the module tree and the attribute table from
// the engine's registry; a run plots exactly what the engine records (vmem traces of the selected
// module, one raster dot per (step, neuron) with at least one spike); failed loads keep the
// previous model; the API never opens a dialog. Runs with QT_QPA_PLATFORM=offscreen.
#include "ui/attribute_table.hpp"
#include "ui/main_window.hpp"
#include "ui/model_loader.hpp"
#include "ui/module_tree_widget.hpp"
#include "ui/raster_plot.hpp"
#include "ui/trace_plot.hpp"

#include "engine/attribute.hpp"
#include "engine/model_io.hpp"

#include <QFile>
#include <QSpinBox>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <algorithm>

using spike::engine::Module;
using spike::engine::RecordSpec;
using spike::engine::Shape;
using spike::engine::Tensor;
using spike::ui::MainWindow;

namespace {

const QString kExample = QStringLiteral(":/examples/two_layer_lif.json");

int treeItemCount(const QTreeWidget& tree)
{
    int n = 0;
    for (QTreeWidgetItemIterator it(const_cast<QTreeWidget*>(&tree)); *it != nullptr; ++it) {
        ++n;
    }
    return n;
}

/// A second, independent copy of the bundled example, built straight from the engine.
std::unique_ptr<Module> freshExample()
{
    QFile file(kExample);
    if (!file.open(QIODevice::ReadOnly)) {
        return nullptr;
    }
    const QByteArray text = file.readAll();
    return spike::engine::modelFromJson(nlohmann::json::parse(text.constBegin(), text.constEnd()),
                                        kExample.toStdString(), ".")
        .root;
}

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& text)
{
    const QString path = dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size()) {
        return {};
    }
    return path;
}

}  // namespace

class TestMainWindow : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void examplesAreBundled()
    {
        QVERIFY(QFile::exists(kExample));
        QVERIFY(spike::ui::bundledExamples().contains(kExample));
    }

    void treeMirrorsModuleTree()
    {
        MainWindow w;
        QString error;
        QVERIFY2(w.openModel(kExample, &error), qPrintable(error));
        QVERIFY(w.model() != nullptr);
        QCOMPARE(w.windowTitle(), QStringLiteral("SpikeStudio — two_layer_lif.json"));

        const auto modules = w.model()->namedModules();
        QCOMPARE(treeItemCount(*w.moduleTree()), static_cast<int>(modules.size()));
        QCOMPARE(static_cast<int>(modules.size()), 3);
        const std::map<std::string, std::pair<QString, QString>> expected{
            {"", {"Sequential", "(8, 4)"}}, {"0", {"LIF", "(8, 8)"}}, {"1", {"LIF", "(8, 4)"}}};
        for (const auto& [path, module] : modules) {
            QTreeWidgetItem* item = w.moduleTree()->itemForPath(QString::fromStdString(path));
            QVERIFY2(item != nullptr, path.c_str());
            using Tree = spike::ui::ModuleTreeWidget;
            QCOMPARE(item->text(Tree::TypeColumn), expected.at(path).first);
            QCOMPARE(item->text(Tree::TypeColumn), QString::fromStdString(module->className()));
            QCOMPARE(item->text(Tree::ShapeColumn), expected.at(path).second);
            QCOMPARE(item->text(Tree::SpikingColumn), QStringLiteral("in, out"));
        }
        // Children sit under their parent.
        QCOMPARE(w.moduleTree()->itemForPath(QStringLiteral("1"))->parent(),
                 w.moduleTree()->itemForPath(QString()));
        // The first module with a membrane trace starts selected.
        QCOMPARE(w.selectedModulePath(), QStringLiteral("0"));
    }

    void attributeTableShowsRegistry()
    {
        MainWindow w;
        QVERIFY(w.openModel(kExample));
        using Table = spike::ui::AttributeTable;
        for (const QString& path : {QStringLiteral("0"), QStringLiteral("1")}) {
            // Select through the tree widget, as a click does.
            w.moduleTree()->setCurrentItem(w.moduleTree()->itemForPath(path));
            const Module& module = w.model()->getSubmodule(path.toStdString());
            const auto views = module.attributes();
            const QTableWidget& table = *w.attributeTable();
            QCOMPARE(table.rowCount(), static_cast<int>(views.size()));
            int derived = 0;
            for (int row = 0; row < table.rowCount(); ++row) {
                const auto& view = views[static_cast<std::size_t>(row)];
                QCOMPARE(table.item(row, Table::NameColumn)->text(),
                         QString::fromStdString(view.spec->name));
                QCOMPARE(table.item(row, Table::ValueColumn)->text(),
                         QString::fromStdString(spike::engine::describeValue(*view.value)));
                QCOMPARE(table.item(row, Table::FamilyColumn)->text(),
                         QString::fromStdString(view.spec->family));
                QCOMPARE(table.item(row, Table::UnitsColumn)->text(),
                         QString::fromStdString(view.spec->units));
                QVERIFY(table.item(row, Table::NameColumn)->toolTip().startsWith(
                    QString::fromStdString(view.spec->doc)));
                const bool flagged =
                    table.item(row, Table::KindColumn)->text().contains(QStringLiteral("derived"));
                QCOMPARE(flagged, view.derived);
                QCOMPARE(table.item(row, Table::NameColumn)->font().italic(), view.derived);
                QCOMPARE(table.item(row, Table::NameColumn)->data(Table::DerivedRole).toBool(),
                         view.derived);
                derived += view.derived ? 1 : 0;
            }
            QVERIFY(derived > 0);  // leak_mode 'taus': alpha, beta, dash_* are derived
        }
        // Module "1" is recurrent: its registry has w_rec, module "0"'s does not.
        QVERIFY(!w.attributeTable()->findItems(QStringLiteral("w_rec"), Qt::MatchExactly).isEmpty());
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
        QCOMPARE(w.rasterPlot()->graphCount(), spikingLeaves);
        QCOMPARE(spike::ui::summariseSpikes(*w.lastRecording()).spikes, spikes);

        const QString status = w.statusBar()->currentMessage();
        QVERIFY2(status.startsWith(QStringLiteral("Ran 500 steps in ")), qPrintable(status));
        QVERIFY2(status.endsWith(QStringLiteral("— %1 spikes").arg(QLocale().toString(spikes))),
                 qPrintable(status));

        // The time axes are linked both ways.
        QCOMPARE(w.rasterPlot()->xAxis->range(), w.tracePlot()->xAxis->range());
        w.tracePlot()->xAxis->setRange(100.0, 200.0);
        QCOMPARE(w.rasterPlot()->xAxis->range(), QCPRange(100.0, 200.0));
        w.rasterPlot()->xAxis->setRange(50.0, 60.0);
        QCOMPARE(w.tracePlot()->xAxis->range(), QCPRange(50.0, 60.0));
    }

    void runsContinueInTime()
    {
        MainWindow w;
        QVERIFY(w.openModel(kExample));
        QVERIFY(w.runSteps(500));
        QVERIFY(w.runSteps(100));
        auto copy = freshExample();
        copy->evolve(Tensor(Shape{500, copy->sizeIn()}));
        const auto second = copy->evolve(Tensor(Shape{100, copy->sizeIn()}), RecordSpec(true));
        const auto& vmem = second.record.at("0").at("vmem");
        QCOMPARE(w.tracePlot()->graph(2)->data()->size(), 100);
        QVERIFY(w.tracePlot()->graph(2)->data()->at(10)->value ==
                static_cast<double>(vmem.data[10 * 8 + 2]));
        QCOMPARE(w.tracePlot()->graph(0)->data()->at(0)->key, 500.0 * vmem.dt * 1e3);

        w.resetState();
        QVERIFY(w.lastRecording() == nullptr);
        QCOMPARE(w.model()->stepsElapsed(), std::int64_t{0});
        QCOMPARE(w.tracePlot()->graphCount(), 0);
        QCOMPARE(w.rasterPlot()->dotCount(), std::int64_t{0});
    }

    void moduleWithoutTraceClearsPlot()
    {
        MainWindow w;
        QVERIFY(w.openModel(kExample));
        QVERIFY(w.runSteps(50));
        QVERIFY(w.selectModule(QString()));  // the Sequential root records no vmem
        QCOMPARE(w.tracePlot()->graphCount(), 0);
        QCOMPARE(w.tracePlot()->thresholdLineCount(), 0);
        QVERIFY2(w.tracePlot()->xAxis->label().contains(QStringLiteral("no membrane potential")),
                 qPrintable(w.tracePlot()->xAxis->label()));
        QVERIFY(w.selectModule(QStringLiteral("1")));  // re-plotted from the same recording
        QCOMPARE(w.tracePlot()->graphCount(), 4);
        QCOMPARE(w.tracePlot()->graph(0)->data()->size(), 50);
        QVERIFY(!w.selectModule(QStringLiteral("nope")));
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
        const auto summary = spike::ui::summariseSpikes(*w.lastRecording());
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
        QCOMPARE(w.windowTitle(), QStringLiteral("SpikeStudio — thresholds.json"));
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
        QCOMPARE(w.tracePlot()->yAxis->label(), QStringLiteral("v [V]"));
        const auto& v = w.lastRecording()->at("1").at("v");
        QCOMPARE(w.tracePlot()->graph(2)->data()->at(7)->value, static_cast<double>(v.data[7 * 3 + 2]));
        QCOMPARE(w.tracePlot()->thresholdLineCount(), 1);
        QVERIFY(spike::ui::summariseSpikes(*w.lastRecording()).events > 0);
    }

    void wideLayerShowsFirst64Traces()
    {
        const QByteArray text = R"({"format": "spikestudio.model", "version": 1,
            "model": {"type": "LIF", "config": {"shape": [100, 100], "has_rec": false},
                      "attributes": {"bias": 0.3}}})";
        MainWindow w;
        QVERIFY(w.openModelFromJson(text, QStringLiteral("wide.json")));
        QVERIFY(w.runSteps(30));
        QCOMPARE(w.tracePlot()->graphCount(), spike::ui::TracePlot::kMaxTraces);
        QVERIFY2(w.tracePlot()->title().contains(QStringLiteral("first 64 shown")),
                 qPrintable(w.tracePlot()->title()));
        const auto summary = spike::ui::summariseSpikes(*w.lastRecording());
        QVERIFY(summary.events > 0);
        QCOMPARE(w.rasterPlot()->dotCount(), summary.events);  // the raster keeps every neuron
    }

    void malformedFileKeepsModel()
    {
        MainWindow w;
        QVERIFY(w.openModel(kExample));
        const Module* before = w.model();
        const QString title = w.windowTitle();
        QTemporaryDir dir;
        QVERIFY(dir.isValid());

        const QString broken = writeFile(dir, QStringLiteral("broken.json"),
                                         R"({"format": "spikestudio.model", "version": 1,)");
        QVERIFY(!broken.isEmpty());
        QString error;
        QVERIFY(!w.openModel(broken, &error));
        QVERIFY2(error.contains(broken), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("invalid JSON")), qPrintable(error));
        QCOMPARE(w.model(), before);
        QCOMPARE(w.windowTitle(), title);
        QCOMPARE(treeItemCount(*w.moduleTree()), 3);
        QVERIFY(w.statusBar()->currentMessage().contains(broken));

        // Valid JSON, invalid model: the engine's message names the file and the JSON path.
        const QString invalid = writeFile(
            dir, QStringLiteral("invalid.json"),
            R"({"format": "spikestudio.model", "version": 1, "model": {"type": "LIF",
                "config": {"shape": [2, 2]}, "attributes": {"tau_mem": -1}}})");
        QVERIFY(!w.openModel(invalid, &error));
        QVERIFY2(error.startsWith(invalid), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("tau_mem")), qPrintable(error));
        QCOMPARE(w.model(), before);

        // Bad text from memory (as for bundled models) is named after its source.
        QVERIFY(!w.openModelFromJson("[1, 2", QStringLiteral("memory.json"), &error));
        QVERIFY2(error.startsWith(QStringLiteral("memory.json: invalid JSON at line 1")),
                 qPrintable(error));
        QCOMPARE(w.model(), before);
    }

    void missingFileKeepsModel()
    {
        MainWindow w;
        QVERIFY(w.openModel(kExample));
        QVERIFY(w.runSteps(20));
        const Module* before = w.model();
        QTemporaryDir dir;
        const QString missing = dir.filePath(QStringLiteral("missing.json"));
        QString error;
        QVERIFY(!w.openModel(missing, &error));
        QVERIFY2(error.contains(missing), qPrintable(error));
        QCOMPARE(w.model(), before);
        QVERIFY(w.lastRecording() != nullptr);  // the last run's plots stay too
        QCOMPARE(w.tracePlot()->graphCount(), 8);

        QVERIFY(!w.openModel(QStringLiteral(":/examples/missing.json"), &error));
        QVERIFY2(error.contains(QStringLiteral(":/examples/missing.json")), qPrintable(error));
        QCOMPARE(w.model(), before);
    }

    void runNeedsModelAndValidSteps()
    {
        MainWindow w;
        QString error;
        QVERIFY(!w.runSteps(10, &error));
        QVERIFY(!error.isEmpty());
        QVERIFY(w.openModel(kExample));
        QVERIFY(!w.runSteps(0, &error));
        QVERIFY(!w.runSteps(MainWindow::kMaxSteps + 1, &error));
        QCOMPARE(w.model()->stepsElapsed(), std::int64_t{0});
        QCOMPARE(w.stepsSpinBox()->value(), MainWindow::kDefaultSteps);
        QCOMPARE(w.stepsSpinBox()->maximum(), MainWindow::kMaxSteps);
    }
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
