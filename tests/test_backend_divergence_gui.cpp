// The CPU vs GPU divergence dialog (ui/window/backend_divergence_dialog.hpp) by real input in the
// main window: resources/examples/cuba_network.json opened, View ▸ Analyse ▸ CPU vs GPU
// divergence… chosen with the keyboard; without a usable CUDA device its CUDA entries are
// disabled with the reason as tool tip. Bad steps and a bad change are refused under the fields
// (plot and document unchanged). CPU against CPU with 2 threads, chosen by keys and computed on
// the worker, plots one graph per State, all 0, with the "identical" note and no marker; a change
// of side B (E.v of neuron 5) plots exactly engine::backendDivergence's series and puts the
// marker and its label at the engine's first spike difference; the CSV export holds the plotted
// numbers and PNG and PDF are written. A long run is cancelled by a click and keeps the plot.
// SPIKE_SCREENSHOT_DIR=dir saves backend_divergence_dialog.png.
#include "ui/document/graph_document.hpp"
#include "ui/window/backend_divergence_dialog.hpp"
#include "ui/window/main_window.hpp"

#include "engine/analysis/backend_divergence.hpp"

#include "real_input.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QPushButton>
#include <QStandardItemModel>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

using namespace spike::ui;  // NOLINT: test file
using spike::tests::settle;
using spike::tests::typeInto;

namespace {

/// Gives `combo` the focus and walks it by keys (Home, then Down, which skips disabled entries) to
/// the entry `text`.
void chooseByKeys(QComboBox* combo, const QString& text)
{
    combo->setFocus();
    QTest::keyClick(combo, Qt::Key_Home);
    for (int k = 0; k < combo->count() && combo->currentText() != text; ++k) {
        QTest::keyClick(combo, Qt::Key_Down);
    }
    QCOMPARE(combo->currentText(), text);
}

constexpr int kSteps = 150;

}  // namespace

class TestBackendDivergenceGui : public QObject {
    Q_OBJECT

private slots:
    void divergenceFromTheViewMenu()
    {
        MainWindow w;
        w.resize(1200, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QString error;
        QVERIFY2(w.openModel(QStringLiteral(SPIKE_TEST_DATA_DIR "/../../resources/examples/cuba_network.json"), &error),
                 qPrintable(error));
        settle();
        GraphDocument& doc = *w.document();
        const std::string before = doc.toJson().dump();

        bool chosen = false;
        spike::tests::chooseFromContextMenu(QStringLiteral("&Analyse"), QStringLiteral("CPU vs GPU &divergence…"),
                                            chosen);
        QTest::keyClick(&w, Qt::Key_V, Qt::AltModifier);  // opens View
        QTRY_VERIFY(chosen);
        settle();
        auto* dialog = w.findChild<BackendDivergenceDialog*>();
        QVERIFY(dialog != nullptr);
        QTRY_VERIFY(dialog->isVisible());

        // CUDA: offered only where it runs; otherwise disabled, saying why.
        auto* items = qobject_cast<QStandardItemModel*>(dialog->sideBCombo()->model());
        const int cuda = dialog->sideBCombo()->findData(QStringLiteral("cuda"));
        QVERIFY(cuda >= 0);
        if (!spike::engine::backendAvailable(spike::engine::BackendKind::Cuda)) {
            QVERIFY(!items->item(cuda)->isEnabled());
            QVERIFY2(items->item(cuda)->toolTip().contains("CUDA is not available here: "),
                     qPrintable(items->item(cuda)->toolTip()));
            QCOMPARE(dialog->sideBCombo()->currentData().toString(), QString("cpu:2"));
        }

        // Bad input: refused under the fields, nothing plotted, the document untouched.
        typeInto(dialog->stepsEdit(), "0");
        QTest::mouseClick(dialog->computeButton(), Qt::LeftButton);
        QTRY_VERIFY(!dialog->computing());
        QVERIFY2(dialog->message().contains("steps must be between 1 and 1000000 (got 0)"), qPrintable(dialog->message()));
        typeInto(dialog->stepsEdit(), "lots");
        QTest::mouseClick(dialog->computeButton(), Qt::LeftButton);
        QVERIFY2(dialog->message().contains("Steps 'lots' is not a whole number"), qPrintable(dialog->message()));
        QCOMPARE(dialog->plot()->graphCount(), 0);

        // CPU, 1 thread against CPU, 2 threads: identical.
        chooseByKeys(dialog->sideACombo(), QStringLiteral("CPU, 1 thread"));
        chooseByKeys(dialog->sideBCombo(), QStringLiteral("CPU, 2 threads"));
        typeInto(dialog->stepsEdit(), QString::number(kSteps));
        QTest::keyClick(dialog->stepsEdit(), Qt::Key_Return);
        QTRY_VERIFY_WITH_TIMEOUT(dialog->divergence().has_value() && !dialog->computing(), 60000);
        QVERIFY2(dialog->message().isEmpty(), qPrintable(dialog->message()));
        const spike::engine::Divergence& same = *dialog->divergence();
        QCOMPARE(same.sideB, std::string("cpu:2"));
        QCOMPARE(dialog->plot()->graphCount(), static_cast<int>(same.states.size()));
        for (int g = 0; g < dialog->plot()->graphCount(); ++g) {
            const auto data = dialog->plot()->graph(g)->data();
            QCOMPARE(data->size(), kSteps);
            for (int t = 0; t < kSteps; ++t) {
                QCOMPARE(data->at(t)->value, 0.0);
            }
        }
        QVERIFY(dialog->identicalNote() != nullptr);
        QVERIFY(dialog->spikeMarker() == nullptr);

        // A change of side B: the engine's series, and the marker at its first spike difference.
        QTest::mouseClick(dialog->changeCheck(), Qt::LeftButton);
        QVERIFY(dialog->changeCheck()->isChecked());
        chooseByKeys(dialog->sideBCombo(), QStringLiteral("CPU, 1 thread"));
        chooseByKeys(dialog->nodeCombo(), QStringLiteral("E"));
        chooseByKeys(dialog->attributeCombo(), QStringLiteral("v"));
        typeInto(dialog->neuronEdit(), "800");
        typeInto(dialog->valueEdit(), "-50.5");
        QTest::mouseClick(dialog->computeButton(), Qt::LeftButton);
        QVERIFY2(dialog->message().contains("Change side B (E.v[800]): index 800 is out of range (v has 800 elements)"),
                 qPrintable(dialog->message()));
        typeInto(dialog->neuronEdit(), "5");
        typeInto(dialog->valueEdit(), "-50.5");
        QTest::mouseClick(dialog->computeButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!dialog->computing() && dialog->spikeMarker() != nullptr, 60000);

        spike::engine::DivergenceOptions options;
        options.steps = kSteps;
        options.perturbB = spike::engine::parsePerturbation(doc.root(), "E.v[5]=-50.5");
        const spike::engine::Divergence d = spike::engine::backendDivergence(doc.root(), options);
        QVERIFY(d.firstSpikeDifference.has_value());
        QCOMPARE(dialog->plot()->graphCount(), static_cast<int>(d.states.size()));
        for (int g = 0; g < dialog->plot()->graphCount(); ++g) {
            QCPGraph* graph = dialog->plot()->graph(g);
            QCOMPARE(graph->name().toStdString(), d.states[static_cast<std::size_t>(g)]);
            for (int t = 0; t < kSteps; ++t) {
                QCOMPARE(graph->data()->at(t)->value, d.maxAbs[static_cast<std::size_t>(g)][static_cast<std::size_t>(t)]);
                QCOMPARE(graph->data()->at(t)->key, (t + 1) * d.dt * 1000.0);
            }
        }
        const double at = (d.firstSpikeDifference->step + 1) * d.dt * 1000.0;
        QCOMPARE(dialog->spikeMarker()->point1->coords().x(), at);
        QCOMPARE(dialog->spikeMarker()->point2->coords().x(), at);
        QVERIFY(dialog->spikeLabel() != nullptr);
        const QString label = QString("spikes differ: step %1, E neuron %2")
                                  .arg(d.firstSpikeDifference->step)
                                  .arg(d.firstSpikeDifference->neuron);
        QCOMPARE(dialog->spikeLabel()->text(), label);
        QVERIFY(dialog->identicalNote() == nullptr);
        QVERIFY(dialog->plot()->yAxis->scaleType() == QCPAxis::stLogarithmic);
        if (const QByteArray dir = qgetenv("SPIKE_SCREENSHOT_DIR"); !dir.isEmpty()) {
            dialog->grab().save(QString::fromLocal8Bit(dir) + "/backend_divergence_dialog.png");
        }

        // Export: CSV with the plotted numbers, PNG and PDF.
        QTemporaryDir tmp;
        QVERIFY2(dialog->exportTo(tmp.filePath("div.csv"), &error), qPrintable(error));
        QFile csv(tmp.filePath("div.csv"));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(csv.readAll()).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), kSteps + 1);
        QVERIFY2(lines[0].startsWith("time_ms,\"E.v\",\"E.i_exc\","), qPrintable(lines[0]));
        const std::size_t ev = static_cast<std::size_t>(std::find(d.states.begin(), d.states.end(), "E.v") - d.states.begin());
        // Samples are written with 9 significant digits (plot_export.hpp).
        const double written = lines[1].split(',')[1].toDouble();
        QVERIFY(d.maxAbs[ev][0] > 0.0);
        QVERIFY2(std::abs(written - d.maxAbs[ev][0]) <= 1e-8 * d.maxAbs[ev][0], qPrintable(lines[1]));
        for (const char* suffix : {"png", "pdf"}) {
            const QString file = tmp.filePath(QString("div.") + suffix);
            QVERIFY2(dialog->exportTo(file, &error), qPrintable(error));
            QVERIFY(QFileInfo(file).size() > 1000);
        }

        // Cancel a long run by a click: the plot keeps the last result.
        typeInto(dialog->stepsEdit(), "500000");
        QTest::mouseClick(dialog->computeButton(), Qt::LeftButton);
        QTRY_VERIFY(dialog->computing() && dialog->cancelButton()->isVisible());
        QTest::mouseClick(dialog->cancelButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!dialog->computing(), 30000);
        QVERIFY2(dialog->message().startsWith("Cancelled"), qPrintable(dialog->message()));
        QCOMPARE(dialog->divergence()->steps, std::int64_t{kSteps});
        QVERIFY(dialog->spikeMarker() != nullptr);

        QCOMPARE(doc.toJson().dump(), before);
        dialog->close();
        settle();
    }
};

QTEST_MAIN(TestBackendDivergenceGui)
#include "test_backend_divergence_gui.moc"
