// Weights and activations of a composite's layers (issue #19) by real input on the driven
// DynamicsNetwork example: opening the network (a double-click) shows each child's weight row,
// equal to engine::weightSummary of the document's module, and an "out" row that says it is
// shown while running; after the toolbar's Step 10, a pause for the hooks to go on, and Step 1,
// the "out" rows are the running copy's outputs of that one step - equal to a SimulationController
// stepped the same way with an ActivationMonitor - and a ModuleList of blocks says its values are
// computed inside it. The LSTM's Analyse ▸ Weights and activations… (right-click, keys) draws
// every weight pooled, then the parameter picked with the keyboard, and after another step the
// histogram of its latest output; its CSV export writes one row per bin; after a structural edit
// rebuilds the run the dialog shows the new run's outputs.
#include "ui/document/graph_document.hpp"
#include "ui/editor/graph_canvas.hpp"
#include "ui/editor/graph_node_item.hpp"
#include "ui/window/layer_histogram_dialog.hpp"
#include "ui/window/main_window.hpp"

#include "engine/analysis/layer_statistics.hpp"
#include "engine/io/model_io.hpp"
#include "engine/runtime/simulation_controller.hpp"

#include "analysis_gui_helpers.hpp"
#include "inspector_input_helpers.hpp"
#include "real_input.hpp"

#include <QComboBox>
#include <QLabel>
#include <QTemporaryDir>
#include <QToolBar>
#include <QtTest/QtTest>

#include <qcustomplot.h>

#include <chrono>
#include <map>
#include <memory>

using namespace spike::ui;  // NOLINT: test file
namespace engine = spike::engine;

namespace {

const QString kExample = QStringLiteral(":/examples/dynamics_network_driven.json");
const std::string kExampleFile = SPIKE_TEST_DATA_DIR "/../../resources/examples/dynamics_network_driven.json";

QString num(double v)
{
    return QString::number(v, 'g', 2);
}

QString weightRow(const engine::Module& m)
{
    const engine::ValueSummary w = engine::weightSummary(m);
    return QStringLiteral("w   μ %1  σ %2").arg(num(w.mean()), num(w.std()));
}

QString outRow(const engine::ActivationSnapshot& s)
{
    return QStringLiteral("out  μ %1  σ %2  zero %3%")
        .arg(num(s.summary.mean()), num(s.summary.std()), QString::number(100.0 * s.summary.zeroFraction(), 'f', 0));
}

/// What the run's monitor reports for the step after `before` steps: the example stepped by a
/// controller of its own, the hooks put on after `before` steps.
std::map<std::string, engine::ActivationSnapshot> oneStepAfter(std::int64_t before)
{
    engine::SimulationController controller(engine::loadModel(kExampleFile));
    controller.step(before);
    if (!controller.waitIdle(std::chrono::seconds(30))) {
        return {};
    }
    std::unique_ptr<engine::ActivationMonitor> monitor;
    std::map<std::string, engine::ActivationSnapshot> out;
    static_cast<void>(controller.observeModel([&](engine::Module& m) { monitor = std::make_unique<engine::ActivationMonitor>(m); }));
    controller.step(1);
    if (!controller.waitIdle(std::chrono::seconds(30))) {
        return {};
    }
    static_cast<void>(controller.observeModel([&](engine::Module&) {
        out = monitor->take();
        monitor.reset();
    }));
    return out;
}

double histogramTotal(const QCustomPlot& plot)
{
    double total = 0.0;
    if (plot.graphCount() == 0) {
        return total;
    }
    const auto data = plot.graph(0)->data();
    for (int i = 0; i < data->size(); ++i) {
        total += data->at(i)->value;
    }
    return total;
}

}  // namespace

class TestLayerStatisticsGui : public QObject {
    Q_OBJECT

private slots:
    void compositeNodesShowWeightsAndLiveOutputs()
    {
        MainWindow w;
        spike::tests::showMainWindow(w);
        QString error;
        QVERIFY2(w.openModel(kExample, &error), qPrintable(error));
        spike::tests::settle();
        GraphDocument& doc = *w.document();
        GraphCanvas* canvas = w.canvas();
        QVERIFY(!canvas->showsLayerStatistics());  // a Network: its wires, no rows

        // Open the DynamicsNetwork as a person does: a double-click on its header.
        const NodeId dynamics = doc.findNode("dynamics");
        GraphNodeItem* item = canvas->nodeItem(dynamics);
        QVERIFY(item != nullptr);
        QTest::mouseDClick(canvas->viewport(), Qt::LeftButton, Qt::NoModifier,
                           canvas->mapFromScene(item->mapToScene(QPointF(GraphNodeItem::kWidth / 2.0, 8.0))));
        spike::tests::settle();
        QCOMPARE(canvas->network(), dynamics);
        QVERIFY(canvas->showsLayerStatistics());

        const NodeId conv = doc.findNode("dynamics.conv");
        const NodeId activation = doc.findNode("dynamics.activation");
        const NodeId lstm = doc.findNode("dynamics.lstm");
        const NodeId resblocks = doc.findNode("dynamics.resblocks");
        const QString notYet = QStringLiteral("out  (shown while running)");
        QCOMPARE(canvas->nodeStatistics(conv), QStringList({weightRow(*doc.module(conv)), notYet}));
        QCOMPARE(canvas->nodeStatistics(activation), QStringList({notYet}));  // a ReLU has no weights
        QVERIFY(canvas->nodeItem(conv)->toolTip().contains(QLatin1String("<b>Weights</b>")));

        // Step 10, let the refresh put the hooks on, then Step 1: that one step's outputs.
        spike::tests::clickToolButton(w, QStringLiteral("action.step10"));
        QTRY_COMPARE(w.simulatedSteps(), std::int64_t{10});
        QTest::qWait(1200);
        spike::tests::clickToolButton(w, QStringLiteral("action.step1"));
        QTRY_COMPARE(w.simulatedSteps(), std::int64_t{11});
        QTRY_VERIFY2(canvas->nodeStatistics(conv).value(1).startsWith(QStringLiteral("out  μ")),
                     qPrintable(canvas->nodeStatistics(conv).join(" | ")));
        const auto expected = oneStepAfter(10);
        QVERIFY(!expected.empty());
        QCOMPARE(canvas->nodeStatistics(conv).value(1), outRow(expected.at("dynamics.conv")));
        QCOMPARE(canvas->nodeStatistics(lstm).value(1), outRow(expected.at("dynamics.lstm")));
        QCOMPARE(canvas->nodeStatistics(activation).value(0), outRow(expected.at("dynamics.activation")));
        QCOMPARE(expected.at("dynamics.activation").calls, std::int64_t{3});
        QVERIFY(expected.at("dynamics.activation").summary.zeros > 0);  // a ReLU's zeros are counted
        QCOMPARE(canvas->nodeStatistics(resblocks).value(1), QStringLiteral("out  (computed inside: open it)"));
        QVERIFY(canvas->nodeItem(lstm)->toolTip().contains(QLatin1String("<b>Output</b> while running (1 calls")));

        // The LSTM's weights and activations, from its context menu.
        GraphNodeItem* lstmItem = canvas->nodeItem(lstm);
        canvas->centerOn(lstmItem);
        spike::tests::settle();
        const QPoint onLstm = canvas->mapFromScene(lstmItem->mapToScene(QPointF(GraphNodeItem::kWidth / 2.0, 8.0)));
        LayerHistogramDialog* dialog = nullptr;
        spike::tests::openAnalysisDialog(w, onLstm, QStringLiteral("Weights and activations…"), dialog);
        if (QTest::currentTestFailed()) {
            return;
        }
        QVERIFY(dialog->windowTitle().contains(QLatin1String("dynamics.lstm")));
        const engine::Module& lstmModule = *doc.module(lstm);
        const auto params = engine::parameterTensors(lstmModule);
        QCOMPARE(dialog->parameterBox()->count(), static_cast<int>(params.size()) + 1);  // + every weight pooled
        QCOMPARE(histogramTotal(*dialog->weightPlot()), static_cast<double>(engine::weightSummary(lstmModule).count));
        // The next entry, by keyboard: the first Parameter alone.
        dialog->parameterBox()->setFocus();
        QTest::keyClick(dialog->parameterBox(), Qt::Key_Down);
        QCOMPARE(dialog->parameterBox()->currentIndex(), 1);
        QCOMPARE(histogramTotal(*dialog->weightPlot()), static_cast<double>(params.front().tensor->numel()));
        QVERIFY2(dialog->weightSummary()->text().contains(QLocale().toString(static_cast<qlonglong>(params.front().tensor->numel()))),
                 qPrintable(dialog->weightSummary()->text()));
        QVERIFY(dialog->activationSummary()->text().startsWith(QLatin1String("Run or Step")));

        // Another step: the histogram of the LSTM's latest output (32 hidden values).
        spike::tests::clickToolButton(w, QStringLiteral("action.step1"));
        QTRY_COMPARE(w.simulatedSteps(), std::int64_t{12});
        QTRY_VERIFY2(dialog->activationSummary()->text().startsWith(QLatin1String("Latest output")),
                     qPrintable(dialog->activationSummary()->text()));
        QCOMPARE(histogramTotal(*dialog->activationPlot()), 32.0);

        // CSV: a header, then one row per bin.
        QTemporaryDir dir;
        const QString csv = dir.filePath(QStringLiteral("weights.csv"));
        QVERIFY(dialog->exportTo(QStringLiteral("weights"), csv));
        QFile file(csv);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(file.readAll()).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.front(), QStringLiteral("value,\"count\""));
        QCOMPARE(lines.size(), 41);
        QVERIFY(!dialog->exportTo(QStringLiteral("weights"), dir.filePath(QStringLiteral("weights.txt"))));

        // A structural edit rebuilds the run: the dialog goes on with the new run's outputs.
        QVERIFY(canvas->leave());
        QVERIFY(canvas->addModule(QStringLiteral("PoissonSource")).valid());
        spike::tests::clickToolButton(w, QStringLiteral("action.step10"));
        QTRY_COMPARE(w.simulatedSteps(), std::int64_t{22});
        QTRY_VERIFY2(dialog->activationSummary()->text().contains(QLatin1String("10 calls")),
                     qPrintable(dialog->activationSummary()->text()));
        dialog->close();
    }
};

QTEST_MAIN(TestLayerStatisticsGui)
#include "test_layer_statistics_gui.moc"
