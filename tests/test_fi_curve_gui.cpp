// The f-I curve dialog (ui/window/fi_curve_dialog.hpp) by real input in the main window:
// resources/examples/fi_curve.json opened, the LIF node right-clicked on the canvas, Analyse ▸
// f-I curve… chosen with the keyboard, a count of 0 and a non-number typed and refused under the
// fields (plot and document unchanged), then 21 currents computed with Return on the worker: the
// plotted rate, first-ISI and dashed analytic curves equal engine::fiCurve of the document's
// module, and the rheobase line sits at the engine's rheobase; a long sweep cancelled by a click
// keeps that curve, and closing mid-computation cancels. The Izhikevich example's node is driven
// through its input "I" over a probed range. SPIKE_SCREENSHOT_DIR=dir saves fi_curve_dialog.png
// and fi_curve_izhikevich.png.
#include "ui/document/graph_document.hpp"
#include "ui/editor/graph_canvas.hpp"
#include "ui/editor/graph_node_item.hpp"
#include "ui/window/fi_curve_dialog.hpp"
#include "ui/window/main_window.hpp"

#include "engine/analysis/fi_curve.hpp"
#include "engine/io/model_io.hpp"

#include "analysis_gui_helpers.hpp"
#include "real_input.hpp"

#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPointer>
#include <QPushButton>
#include <QtTest/QtTest>

#include <qcustomplot.h>

using namespace spike::ui;  // NOLINT: test file
using spike::tests::settle;
using spike::tests::chooseFromContextMenu;
using spike::tests::openAnalysisDialog;
using spike::tests::openFiExample;
using spike::tests::typeInto;

class TestFiCurveGui : public QObject {
    Q_OBJECT

private slots:
    void fiCurveFromTheNodeMenu()
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
        const QByteArray before = doc.toJson().dump().c_str();

        // Right-click the LIF's header through the window (the path a person's click takes).
        FiCurveDialog* dialog = nullptr;
        openAnalysisDialog(w, onNode, QStringLiteral("f-I curve…"), dialog);
        if (QTest::currentTestFailed()) {
            return;
        }
        QVERIFY(dialog->windowTitle().contains("lif"));
        // The suggested range spans four times LIF's steady-state rheobase.
        const double xc = *spike::engine::steadyStateRheobase(*doc.module(lif));
        QCOMPARE(dialog->startEdit()->text(), QString("0"));
        QCOMPARE(dialog->stopEdit()->text().toDouble(), QString::number(4.0 * xc, 'g', 8).toDouble());
        QCOMPARE(dialog->stepsEdit()->text(), QString("1000"));

        // Bad input: refused under the fields, nothing plotted.
        typeInto(dialog->countEdit(), "0");
        QTest::mouseClick(dialog->computeButton(), Qt::LeftButton);
        QTRY_VERIFY(!dialog->computing());
        QVERIFY2(dialog->message().contains("count 0"), qPrintable(dialog->message()));
        QVERIFY(!dialog->curve().has_value());
        QCOMPARE(dialog->plot()->graphCount(), 0);
        typeInto(dialog->countEdit(), "many");
        QTest::mouseClick(dialog->computeButton(), Qt::LeftButton);
        QVERIFY2(dialog->message().contains("Count 'many' is not a whole number"),
                 qPrintable(dialog->message()));
        typeInto(dialog->stopEdit(), "-1");
        typeInto(dialog->countEdit(), "21");
        QTest::keyClick(dialog->countEdit(), Qt::Key_Return);
        QTRY_VERIFY(!dialog->computing());
        QVERIFY2(dialog->message().contains("empty"), qPrintable(dialog->message()));

        // 21 currents from 0 to 0.05, computed by Return in the Stop field.
        typeInto(dialog->stopEdit(), "0.05");
        QTest::keyClick(dialog->stopEdit(), Qt::Key_Return);
        QVERIFY(dialog->computing());
        QVERIFY(!dialog->computeButton()->isEnabled());
        QTRY_VERIFY(!dialog->computing());
        QVERIFY2(dialog->message().isEmpty(), qPrintable(dialog->message()));
        QVERIFY(dialog->curve().has_value());
        spike::engine::FiOptions options;
        options.start = 0.0;
        options.stop = 0.05;
        options.count = 21;
        const spike::engine::FiCurve expected = spike::engine::fiCurve(*doc.module(lif), options);
        QCustomPlot* plot = dialog->plot();
        QCOMPARE(plot->graphCount(), 3);
        const std::vector<double>* series[] = {&expected.rateHz, &expected.firstIsiRateHz,
                                               &expected.analyticHz};
        for (int g = 0; g < 3; ++g) {
            const auto data = plot->graph(g)->data();
            QCOMPARE(data->size(), 21);
            for (int k = 0; k < 21; ++k) {
                QCOMPARE(data->at(k)->key, expected.current[static_cast<std::size_t>(k)]);
                QCOMPARE(data->at(k)->value, (*series[g])[static_cast<std::size_t>(k)]);
            }
        }
        QCOMPARE(plot->graph(2)->pen().style(), Qt::DashLine);
        QVERIFY(expected.rheobase.has_value() && expected.rheobaseRefined);
        auto* line = qobject_cast<QCPItemStraightLine*>(plot->item(0));
        QVERIFY(line != nullptr);
        QCOMPARE(line->point1->coords().x(), *expected.rheobase);
        const QString summary = dialog->findChild<QLabel*>("fiSummary")->text();
        QVERIFY2(summary.contains("refined") && summary.contains("exact discrete"),
                 qPrintable(summary));
        QVERIFY(expected.rateHz.back() > 100.0);

        // The document is untouched.
        QCOMPARE(QByteArray(doc.toJson().dump().c_str()), before);

        if (const QByteArray dir = qgetenv("SPIKE_SCREENSHOT_DIR"); !dir.isEmpty()) {
            dialog->grab().save(QString::fromLocal8Bit(dir) + "/fi_curve_dialog.png");
        }

        // A long sweep (41 currents x 2 000 000 steps, one batch each) cancelled by a click: the
        // worker stops after its batch, the previous curve stays, Compute is back.
        typeInto(dialog->countEdit(), "41");
        typeInto(dialog->stepsEdit(), "2000000");
        QTest::mouseClick(dialog->computeButton(), Qt::LeftButton);
        QVERIFY(dialog->computing());
        QTRY_VERIFY(dialog->cancelButton()->isVisible());
        if (const QByteArray dir = qgetenv("SPIKE_SCREENSHOT_DIR"); !dir.isEmpty()) {
            QTest::qWait(300);  // a progress tick or two
            dialog->grab().save(QString::fromLocal8Bit(dir) + "/fi_curve_dialog_computing.png");
        }
        QTest::mouseClick(dialog->cancelButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!dialog->computing(), 10000);
        QVERIFY2(dialog->message().contains("Cancelled"), qPrintable(dialog->message()));
        QCOMPARE(plot->graph(0)->data()->size(), 21);
        QCOMPARE(dialog->curve()->current.size(), std::size_t{21});
        QVERIFY(dialog->computeButton()->isEnabled());
        QVERIFY(!dialog->cancelButton()->isVisible());

        // Closing while computing cancels and waits; nothing is left running.
        QTest::mouseClick(dialog->computeButton(), Qt::LeftButton);
        QVERIFY(dialog->computing());
        QPointer<FiCurveDialog> guard(dialog);
        dialog->close();
        settle();
        QVERIFY(guard.isNull());

        // A source has no f-I curve: its menu offers no Analyse.
        QMenu menu;
        GraphNodeItem* source = canvas->nodeItem(doc.findNode("current"));
        canvas->fillContextMenu(menu, canvas->mapFromScene(
                                          source->mapToScene(QPointF(GraphNodeItem::kWidth * 0.5, 8.0))));
        for (QAction* a : menu.actions()) {
            QVERIFY(a->text() != QLatin1String("Analyse"));
        }
    }

    void izhikevichIsDrivenThroughI()
    {
        // The library's Izhikevich names its input "I": the dialog offers a probed range a few
        // times its rheobase and a click on Compute drives "I".
        MainWindow w;
        QPoint onNode;
        spike::tests::openExampleAt(w, "izhikevich_presets.json", "izhikevich", onNode);
        if (QTest::currentTestFailed()) {
            return;
        }
        const auto* module = w.document()->module(w.document()->findNode("izhikevich"));
        FiCurveDialog* dialog = nullptr;
        openAnalysisDialog(w, onNode, QStringLiteral("f-I curve…"), dialog);
        if (QTest::currentTestFailed()) {
            return;
        }
        const spike::engine::FiOptions suggested = spike::engine::suggestedFiOptions(*module);
        QCOMPARE(dialog->stopEdit()->text().toDouble(), QString::number(suggested.stop, 'g', 8).toDouble());
        QVERIFY(suggested.stop > 0.004 && suggested.stop < 0.05);  // volts: mV-sized, not 1 V
        QTest::mouseClick(dialog->computeButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!dialog->computing(), 20000);
        QVERIFY2(dialog->message().isEmpty(), qPrintable(dialog->message()));
        QVERIFY(dialog->curve().has_value());
        QCOMPARE(dialog->curve()->port, std::string("I"));
        QCOMPARE(dialog->curve()->rateHz.front(), 0.0);
        QVERIFY(dialog->curve()->rateHz.back() > 10.0);
        const QString summary = dialog->findChild<QLabel*>("fiSummary")->text();
        QVERIFY2(summary.contains("port 'I'") && summary.contains("5 neuron(s)"), qPrintable(summary));
        QCOMPARE(dialog->plot()->xAxis->label(), QStringLiteral("input on port 'I' [volt] per step"));
        if (const QByteArray dir = qgetenv("SPIKE_SCREENSHOT_DIR"); !dir.isEmpty()) {
            dialog->grab().save(QString::fromLocal8Bit(dir) + "/fi_curve_izhikevich.png");
        }
    }
};

QTEST_MAIN(TestFiCurveGui)
#include "test_fi_curve_gui.moc"
