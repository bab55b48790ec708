// TracePlot: the line view up to kMaxTraces traces, the density view above (cell counts, mean,
// envelope, columns per width), freeze, the cursor read-out, thresholds and CSV export.
#include "tests/trace_test_series.hpp"

#include "ui/plots/plot_export.hpp"
#include "ui/window/plot_sources.hpp"
#include "ui/plots/plot_style.hpp"
#include "ui/plots/trace_density.hpp"
#include "ui/plots/trace_plot.hpp"

#include "engine/neurons/lif.hpp"

#include <QApplication>
#include <QMouseEvent>
#include <QWheelEvent>
#include <QtTest/QtTest>

#include <algorithm>
#include <cmath>

using spike::engine::LIF;
using spike::engine::Tensor;
using spike::test::makeSeries;
using spike::ui::TracePlot;

namespace {

/// Traces that stay at value n (trace index) for every step.
double constantAtIndex(std::int64_t, std::int64_t n)
{
    return static_cast<double>(n);
}

/// A pane of a fixed size, so the density resolution is known.
struct Pane {
    TracePlot plot;
    Pane() { plot.resize(600, 400); }
};

}  // namespace

class TestTracePlot : public QObject {
    Q_OBJECT

private slots:
    void linesUpToMaxThenDensity();
    void densityCountsEqualTracesPerCell();
    void densityMeanIsTheAnalyticMean();
    void columnsFollowPaneWidth();
    void columnsCoverEveryStepOnce();
    void slidingWindowMatchesFreshMeasure();
    void countQuantilesOfNonEmptyCells();
    void oneSampleSpikeShowsInItsColumn();
    void freezeKeepsDataUntilUnfrozen();
    void readoutNamesNearestTrace();
    void readoutGivesDensityStatistics();
    void voltTracesReadInMillivolts();
    void mouseMoveShowsCursorReadout();
    void thresholdLinesPerMode();
    void userValueRangeSurvivesUpdates();
    void wheelZoomsTimeAndCtrlWheelTheValues();
    void csvOfDensityPaneHoldsEverySample();
    void csvPreparedOnItsOwnWhenUpdatesPause();
};

void TestTracePlot::wheelZoomsTimeAndCtrlWheelTheValues()
{
    LIF layer(4, 4);
    Pane pane;
    pane.plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&pane.plot));
    pane.plot.showTraces(spike::ui::traceSourceOf(layer), QStringLiteral("lif"), QStringLiteral("vmem"),
                         makeSeries(400, 4, constantAtIndex));
    pane.plot.replot();
    const QPointF centre = pane.plot.axisRect()->rect().center();
    const auto turn = [&](Qt::KeyboardModifiers modifiers) {
        QWheelEvent event(centre, pane.plot.mapToGlobal(centre), QPoint(), QPoint(0, 120), Qt::NoButton,
                          modifiers, Qt::NoScrollPhase, false);
        QApplication::sendEvent(&pane.plot, &event);
    };
    const QCPRange time = pane.plot.xAxis->range();
    const QCPRange value = pane.plot.yAxis->range();
    turn(Qt::NoModifier);
    QVERIFY(pane.plot.xAxis->range().size() < time.size());  // time zoomed in
    QCOMPARE(pane.plot.yAxis->range().lower, value.lower);   // the values stay
    QCOMPARE(pane.plot.yAxis->range().upper, value.upper);
    const QCPRange zoomedTime = pane.plot.xAxis->range();
    turn(Qt::ControlModifier);
    QVERIFY(pane.plot.yAxis->range().size() < value.size());  // values zoomed in
    QCOMPARE(pane.plot.xAxis->range().lower, zoomedTime.lower);
    QCOMPARE(pane.plot.xAxis->range().upper, zoomedTime.upper);
}

void TestTracePlot::linesUpToMaxThenDensity()
{
    LIF layer(200, 200);
    Pane pane;
    pane.plot.showTraces(spike::ui::traceSourceOf(layer), QStringLiteral("lif"), QStringLiteral("vmem"),
                         makeSeries(40, TracePlot::kMaxTraces, constantAtIndex));
    QVERIFY(!pane.plot.densityMode());
    QCOMPARE(pane.plot.graphCount(), TracePlot::kMaxTraces);
    QCOMPARE(pane.plot.graph(3)->data()->size(), 40);
    QCOMPARE(pane.plot.graph(3)->data()->at(10)->value, 3.0);
    // Many dense lines: no antialiasing.
    QVERIFY(pane.plot.notAntialiasedElements().testFlag(QCP::aePlottables));

    pane.plot.showTraces(spike::ui::traceSourceOf(layer), QStringLiteral("lif"), QStringLiteral("vmem"),
                         makeSeries(40, TracePlot::kMaxTraces + 1, constantAtIndex));
    QVERIFY(pane.plot.densityMode());
    QVERIFY(pane.plot.densityMap() != nullptr);
    QCOMPARE(pane.plot.graphCount(), 1);  // the mean line
    QCOMPARE(pane.plot.meanGraph(), pane.plot.graph(0));
    QCOMPARE(pane.plot.traceCount(), TracePlot::kMaxTraces + 1);
    QVERIFY2(pane.plot.title().contains(QStringLiteral("65 neurons, density view")), qPrintable(pane.plot.title()));

    // And back to lines: the density view is gone.
    pane.plot.showTraces(spike::ui::traceSourceOf(layer), QStringLiteral("lif"), QStringLiteral("vmem"), makeSeries(40, 3, constantAtIndex));
    QVERIFY(!pane.plot.densityMode());
    QVERIFY(pane.plot.densityMap() == nullptr);
    QCOMPARE(pane.plot.graphCount(), 3);
}

void TestTracePlot::densityCountsEqualTracesPerCell()
{
    LIF layer(100, 100);
    Pane pane;
    pane.plot.showTraces(spike::ui::traceSourceOf(layer), QString(), QStringLiteral("vmem"), makeSeries(50, 100, constantAtIndex), false);
    const auto& density = pane.plot.density();
    QCOMPARE(density.columns(), 50);  // fewer steps than pixels: one column per step
    QVERIFY(density.bins() >= 16);
    QCPColorMapData* cells = pane.plot.densityMap()->data();
    QCOMPARE(cells->keySize(), density.columns());
    QCOMPARE(cells->valueSize(), density.bins());
    for (int c = 0; c < density.columns(); ++c) {
        int total = 0;
        for (int b = 0; b < density.bins(); ++b) {
            int expected = 0;
            for (int k = 0; k < 100; ++k) {
                expected += density.binOf(k) == b ? 1 : 0;
            }
            QCOMPARE(density.count(c, b), expected);
            const double cell = cells->cell(c, b);
            QCOMPARE(std::isnan(cell) ? 0 : static_cast<int>(cell), expected);
            total += density.count(c, b);
        }
        QCOMPARE(total, 100);  // every constant trace in exactly one bin of every column
    }
    // The map draws trace 40 at t = 20 ms in the cell of its column and bin.
    int key = 0;
    int value = 0;
    cells->coordToCell(20.0, 40.0, &key, &value);
    QCOMPARE(key, density.columnOfStep(20));
    QCOMPARE(value, density.binOf(40.0));
    QVERIFY(cells->cell(key, value) >= 1.0);
}

void TestTracePlot::densityMeanIsTheAnalyticMean()
{
    LIF layer(100, 100);
    Pane pane;
    // Ramps: trace k is k + 0.5 t, so the mean over the traces at step t is 49.5 + 0.5 t.
    pane.plot.showTraces(spike::ui::traceSourceOf(layer), QString(), QStringLiteral("vmem"),
                         makeSeries(300, 100, [](std::int64_t t, std::int64_t k) { return static_cast<double>(k) + 0.5 * static_cast<double>(t); }),
                         false);
    QCPGraph* mean = pane.plot.meanGraph();
    QVERIFY(mean != nullptr);
    QCOMPARE(mean->data()->size(), 300);
    for (int t = 0; t < 300; t += 13) {
        QCOMPARE(mean->data()->at(t)->key, static_cast<double>(t));
        QVERIFY(std::abs(mean->data()->at(t)->value - (49.5 + 0.5 * t)) < 1e-4);
    }
    // Each ramp crosses its bins monotonically: every trace is in at least one bin per column,
    // and the column envelope spans the ramps' values over the column.
    const auto& density = pane.plot.density();
    const int c = density.columnOfStep(150);
    QVERIFY(density.columnMin(c) <= 0.5 * static_cast<double>(density.firstStep(c)) + 1e-4);
    QVERIFY(density.columnMax(c) >= 99.0 + 0.5 * static_cast<double>(density.firstStep(c + 1) - 1) - 1e-4);
}

void TestTracePlot::columnsFollowPaneWidth()
{
    using spike::ui::kPlotLeftMargin;
    using spike::ui::kPlotRightMargin;
    QCOMPARE(TracePlot::densityColumns(600, 16000), 600 - kPlotLeftMargin - kPlotRightMargin);
    QCOMPARE(TracePlot::densityColumns(1200, 16000), 1200 - kPlotLeftMargin - kPlotRightMargin);
    QCOMPARE(TracePlot::densityColumns(1200, 100), 100);
    QCOMPARE(TracePlot::densityColumns(10, 100), 1);
    QCOMPARE(TracePlot::densityColumns(600, 0), 0);

    LIF layer(100, 100);
    Pane pane;
    pane.plot.showTraces(spike::ui::traceSourceOf(layer), QString(), QStringLiteral("vmem"), makeSeries(2000, 100, spike::test::sawtooth), false);
    // 452 pixels over 2000 steps: 5 steps per column, 400 columns (at most one per pixel).
    QCOMPARE(TracePlot::densityColumns(600, 2000), 452);
    QCOMPARE(pane.plot.density().stepsPerColumn(), std::int64_t{5});
    QCOMPARE(pane.plot.density().columns(), 400);
    // A wider pane re-bins its kept samples into more columns: 752 pixels, 3 steps per column.
    pane.plot.show();
    pane.plot.resize(900, 400);
    QTRY_COMPARE(pane.plot.density().stepsPerColumn(), std::int64_t{3});
    QCOMPARE(pane.plot.density().columns(), 667);
    QCOMPARE(pane.plot.densityMap()->data()->keySize(), 667);
}

void TestTracePlot::columnsCoverEveryStepOnce()
{
    spike::ui::TraceDensity density;
    const std::vector<float> samples(1000 * 3, 0.0F);
    for (const std::int64_t start : {std::int64_t{0}, std::int64_t{1234}, std::int64_t{-7}}) {
        for (const int columns : {1, 7, 452, 999, 1000}) {
            density.update(samples.data(), start, 1000, 3, columns, false);
            const std::int64_t k = (1000 + columns - 1) / columns;
            QCOMPARE(density.stepsPerColumn(), k);
            QVERIFY(density.columns() <= columns + 1);
            QCOMPARE(density.firstStep(0), std::int64_t{0});
            QCOMPARE(density.firstStep(density.columns()), std::int64_t{1000});
            for (int c = 0; c < density.columns(); ++c) {
                QVERIFY(density.firstStep(c + 1) > density.firstStep(c));  // never empty
                if (c > 0) {
                    // Boundaries sit on absolute multiples of k.
                    QCOMPARE(((start + density.firstStep(c)) % k + k) % k, std::int64_t{0});
                }
            }
            for (std::int64_t s = 0; s < 1000; ++s) {
                const int c = density.columnOfStep(s);
                QVERIFY(density.firstStep(c) <= s && s < density.firstStep(c + 1));
            }
        }
    }
}

void TestTracePlot::slidingWindowMatchesFreshMeasure()
{
    // A live window: 1500 steps at most, a few steps appended per frame and the front dropped
    // once full, with steps per column changing while it grows. The pane measured frame by
    // frame must show exactly what a fresh pane shows for the last frame.
    LIF layer(100, 100);
    const auto value = [](std::int64_t t, std::int64_t n) {
        return spike::test::charging(t, n) + ((t % 97 == 0 && n == 3) ? 2.0 : 0.0);
    };
    const auto window = [&](std::int64_t from, std::int64_t to) {
        return makeSeries(to - from, 100, [&](std::int64_t t, std::int64_t n) { return value(from + t, n); },
                          static_cast<double>(from) * 1e-3);
    };
    Pane live;
    std::int64_t end = 0;
    int partialFrames = 0;
    for (int frame = 0; end < 2600; ++frame) {
        end += 3 + frame % 11;
        const std::int64_t from = std::max<std::int64_t>(0, end - 1500);
        live.plot.showTraces(spike::ui::traceSourceOf(layer), QStringLiteral("lif"), QStringLiteral("vmem"), window(from, end), false);
        const auto& d = live.plot.density();
        // Once the steps per column settle, a frame re-reads the new columns and the two edges.
        const int newColumns = static_cast<int>((13 + d.stepsPerColumn() - 1) / d.stepsPerColumn());
        partialFrames += d.remeasuredColumns() <= newColumns + 2 ? 1 : 0;
    }
    QVERIFY2(partialFrames > 100, qPrintable(QString::number(partialFrames)));
    Pane fresh;
    fresh.plot.showTraces(spike::ui::traceSourceOf(layer), QStringLiteral("lif"), QStringLiteral("vmem"), window(end - 1500, end), false);
    const auto& a = live.plot.density();
    const auto& b = fresh.plot.density();
    QCOMPARE(a.windowStart(), end - 1500);
    QCOMPARE(a.stepsPerColumn(), b.stepsPerColumn());
    QCOMPARE(a.columns(), b.columns());
    QCOMPARE(a.bins(), b.bins());
    QCOMPARE(a.dataMin(), b.dataMin());
    QCOMPARE(a.dataMax(), b.dataMax());
    QCOMPARE(a.peakCount(), b.peakCount());
    for (int c = 0; c < a.columns(); ++c) {
        QCOMPARE(a.firstStep(c), b.firstStep(c));
        QCOMPARE(a.columnMin(c), b.columnMin(c));
        QCOMPARE(a.columnMax(c), b.columnMax(c));
        QCOMPARE(a.columnMean(c), b.columnMean(c));
        for (int bin = 0; bin < a.bins(); ++bin) {
            QCOMPARE(a.count(c, bin), b.count(c, bin));
        }
    }
    for (std::int64_t t = 0; t < 1500; ++t) {
        QCOMPARE(a.stepMean(t), b.stepMean(t));
        QCOMPARE(live.plot.meanGraph()->data()->at(static_cast<int>(t))->value,
                 fresh.plot.meanGraph()->data()->at(static_cast<int>(t))->value);
    }
    QCPColorMapData* cellsA = live.plot.densityMap()->data();
    QCPColorMapData* cellsB = fresh.plot.densityMap()->data();
    QCOMPARE(cellsA->keyRange(), cellsB->keyRange());
    // The kept copy exports the same samples.
    live.plot.prepareExport();
    fresh.plot.prepareExport();
    QCOMPARE(spike::ui::plotCsv(live.plot), spike::ui::plotCsv(fresh.plot));

    // A restarted recording over the same steps (other samples) is measured afresh.
    const auto restarted = makeSeries(1500, 100, [&](std::int64_t t, std::int64_t n) { return -value(end - 1500 + t, n); },
                                      static_cast<double>(end - 1500) * 1e-3);
    live.plot.showTraces(spike::ui::traceSourceOf(layer), QStringLiteral("lif"), QStringLiteral("vmem"), restarted, false);
    fresh.plot.showTraces(spike::ui::traceSourceOf(layer), QStringLiteral("other"), QStringLiteral("vmem"), restarted, false);
    QCOMPARE(live.plot.density().remeasuredColumns(), live.plot.density().columns());
    for (int c = 0; c < a.columns(); ++c) {
        QCOMPARE(a.columnMean(c), b.columnMean(c));
        QCOMPARE(a.columnMin(c), b.columnMin(c));
    }
    // More traces from the same source: measured and kept afresh.
    live.plot.showTraces(spike::ui::traceSourceOf(layer), QStringLiteral("lif"), QStringLiteral("vmem"),
                         makeSeries(1510, 120, value, static_cast<double>(end - 1500) * 1e-3), false);
    QCOMPARE(live.plot.density().remeasuredColumns(), live.plot.density().columns());
    live.plot.prepareExport();
    QCOMPARE(live.plot.graphCount(), 1 + 120);
}

void TestTracePlot::countQuantilesOfNonEmptyCells()
{
    // One column, four traces: three at 0 and one at 9.5 in ten 1-wide bins over [0, 10].
    spike::ui::TraceDensity density;
    const std::vector<float> samples{0.0F, 0.0F, 0.0F, 9.5F};
    density.measure(samples.data(), 1, 4, 1);
    density.bin(10, 0.0, 10.0);
    QCOMPARE(density.count(0, 0), 3);
    QCOMPARE(density.count(0, 9), 1);
    QCOMPARE(density.count(0, 5), 0);
    QCOMPARE(density.peakCount(), 3);
    QCOMPARE(density.countQuantile(0.0), 1);
    QCOMPARE(density.countQuantile(1.0), 3);
    // A non-finite trace is left out.
    const std::vector<float> withNan{0.0F, std::nanf(""), 0.0F, 9.5F};
    density.measure(withNan.data(), 1, 4, 1);
    density.bin(10, 0.0, 10.0);
    QCOMPARE(density.count(0, 0), 2);
}

void TestTracePlot::oneSampleSpikeShowsInItsColumn()
{
    LIF layer(100, 100);
    Pane pane;
    // 1000 steps over ~452 columns: two or three steps per column. Trace 7 peaks at 10 mV
    // for the single step 537; all else stays at 0.
    pane.plot.showTraces(spike::ui::traceSourceOf(layer), QString(), QStringLiteral("vmem"),
                         makeSeries(1000, 100, [](std::int64_t t, std::int64_t n) { return (t == 537 && n == 7) ? 10.0 : 0.0; }),
                         false);
    const auto& density = pane.plot.density();
    QVERIFY(density.firstStep(density.columnOfStep(537) + 1) - density.firstStep(density.columnOfStep(537)) >= 2);
    const int column = density.columnOfStep(537);
    QCOMPARE(density.columnMax(column), 10.0);
    QCOMPARE(density.count(column, density.binOf(10.0)), 1);
    QCOMPARE(density.count(column, density.binOf(0.0)), 100);
    QCOMPARE(density.count(density.columnOfStep(100), density.binOf(10.0)), 0);
    int key = 0;
    int value = 0;
    pane.plot.densityMap()->data()->coordToCell(537.0, 10.0, &key, &value);
    QCOMPARE(pane.plot.densityMap()->data()->cell(key, value), 1.0);
}

void TestTracePlot::freezeKeepsDataUntilUnfrozen()
{
    LIF layer(4, 4);
    Pane pane;
    const auto at = [](double v) { return makeSeries(20, 4, [v](std::int64_t, std::int64_t) { return v; }); };
    pane.plot.showTraces(spike::ui::traceSourceOf(layer), QString(), QStringLiteral("vmem"), at(1.0));
    pane.plot.setFrozen(true);
    QVERIFY(pane.plot.isFrozen());
    QVERIFY2(pane.plot.title().contains(QStringLiteral("frozen at t = 20 ms")), qPrintable(pane.plot.title()));
    QVERIFY(pane.plot.axisRect()->rangeZoom().testFlag(Qt::Horizontal));  // the wheel still zooms time
    QVERIFY(pane.plot.axisRect()->rangeDrag().testFlag(Qt::Horizontal));

    pane.plot.showTraces(spike::ui::traceSourceOf(layer), QString(), QStringLiteral("vmem"), at(2.0));
    QCOMPARE(pane.plot.graph(0)->data()->at(5)->value, 1.0);

    pane.plot.setFrozen(false);
    QVERIFY(!pane.plot.title().contains(QStringLiteral("frozen")));
    pane.plot.showTraces(spike::ui::traceSourceOf(layer), QString(), QStringLiteral("vmem"), at(2.0));
    QCOMPARE(pane.plot.graph(0)->data()->at(5)->value, 2.0);
}

void TestTracePlot::readoutNamesNearestTrace()
{
    LIF layer(12, 12);
    Pane pane;
    // Three selected neurons (4, 9, 11) at 0, 5 and 10 mV.
    pane.plot.showTraces(spike::ui::traceSourceOf(layer), QString(), QStringLiteral("vmem"),
                         makeSeries(20, 3, [](std::int64_t, std::int64_t n) { return 5.0 * static_cast<double>(n); }),
                         true, {4, 9, 11});
    const QString near5 = pane.plot.readoutAt(3.0, 6.0);
    QVERIFY2(near5.contains(QStringLiteral("t = 3 ms")), qPrintable(near5));
    QVERIFY2(near5.contains(QStringLiteral("n9: 5 mV")), qPrintable(near5));
    QVERIFY2(pane.plot.readoutAt(3.2, 9.0).contains(QStringLiteral("n11: 10 mV")), qPrintable(pane.plot.readoutAt(3.2, 9.0)));
    // A hidden trace is not read out.
    pane.plot.graph(1)->setVisible(false);
    QVERIFY(pane.plot.readoutAt(3.0, 6.0).contains(QStringLiteral("n11: 10 mV")));
    // Outside the data: nothing.
    QVERIFY(pane.plot.readoutAt(-5.0, 0.0).isEmpty());
    QVERIFY(pane.plot.readoutAt(25.0, 0.0).isEmpty());
}

void TestTracePlot::readoutGivesDensityStatistics()
{
    LIF layer(100, 100);
    Pane pane;
    pane.plot.showTraces(spike::ui::traceSourceOf(layer), QString(), QStringLiteral("vmem"), makeSeries(50, 100, constantAtIndex), false);
    const QString text = pane.plot.readoutAt(10.0, 3.0);
    QVERIFY2(text.contains(QStringLiteral("t = 10 ms")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("mean 49.5 mV")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("min 0, max 99 mV")), qPrintable(text));
}

void TestTracePlot::voltTracesReadInMillivolts()
{
    // An equation model records v in SI: the stored values stay volts, the reading is mV.
    LIF layer(12, 12);
    Pane pane;
    auto series = makeSeries(20, 3, [](std::int64_t, std::int64_t n) { return -0.070 + 0.005 * static_cast<double>(n); });
    series.units = "volt";
    pane.plot.showTraces(spike::ui::traceSourceOf(layer), QString(), QStringLiteral("v"), series, false, {4, 9, 11});
    QCOMPARE(pane.plot.yAxis->label(), QStringLiteral("v [mV]"));
    QVERIFY(std::abs(pane.plot.graph(1)->data()->at(3)->value - (-0.065)) < 1e-7);  // data untouched
    const QString near = pane.plot.readoutAt(3.0, -0.0651);
    QVERIFY2(near.contains(QStringLiteral("n9: -65 mV")), qPrintable(near));
    pane.plot.yAxis->setRange(-0.0725, -0.0575);
    pane.plot.replot();
    const QVector<QString> labels = pane.plot.yAxis->tickVectorLabels();
    QVERIFY2(labels.contains(QStringLiteral("-70")) && labels.contains(QStringLiteral("-60")),
             qPrintable(QStringList(labels.begin(), labels.end()).join(',')));
    // Other units read as they are.
    series.units = "mV";
    pane.plot.showTraces(spike::ui::traceSourceOf(layer), QString(), QStringLiteral("vmem"), series, false, {4, 9, 11});
    QCOMPARE(pane.plot.yAxis->label(), QStringLiteral("vmem [mV]"));
    QVERIFY(pane.plot.readoutAt(3.0, -0.0651).contains(QStringLiteral("n9: -0.065 mV")));
}

void TestTracePlot::mouseMoveShowsCursorReadout()
{
    LIF layer(4, 4);
    Pane pane;
    pane.plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&pane.plot));
    pane.plot.showTraces(spike::ui::traceSourceOf(layer), QString(), QStringLiteral("vmem"), makeSeries(20, 4, constantAtIndex));
    pane.plot.replot();
    const QPointF pixel(pane.plot.xAxis->coordToPixel(7.0), pane.plot.yAxis->coordToPixel(2.1));
    QMouseEvent move(QEvent::MouseMove, pixel, pane.plot.mapToGlobal(pixel), Qt::NoButton, Qt::NoButton,
                     Qt::NoModifier);
    QApplication::sendEvent(&pane.plot, &move);
    const auto overlayText = [&]() -> QCPItemText* {
        for (int i = 0; i < pane.plot.itemCount(); ++i) {
            auto* text = qobject_cast<QCPItemText*>(pane.plot.item(i));
            if (text != nullptr && text->layer() == pane.plot.layer(QStringLiteral("overlay"))) {
                return text;
            }
        }
        return nullptr;
    };
    QCPItemText* box = overlayText();
    QVERIFY(box != nullptr);
    QVERIFY(box->visible());
    QVERIFY2(box->text().contains(QStringLiteral("t = 7 ms")), qPrintable(box->text()));
    QVERIFY2(box->text().contains(QStringLiteral("n2: 2 mV")), qPrintable(box->text()));
    // Leaving the plot hides it.
    QEvent leave(QEvent::Leave);
    QApplication::sendEvent(&pane.plot, &leave);
    QVERIFY(!box->visible());
}

void TestTracePlot::thresholdLinesPerMode()
{
    LIF layer(100, 100);
    Pane pane;
    // Default threshold: the same for every neuron, one line.
    pane.plot.showTraces(spike::ui::traceSourceOf(layer), QString(), QStringLiteral("vmem"), makeSeries(30, 100, spike::test::sawtooth));
    QCOMPARE(pane.plot.thresholdLineCount(), 1);

    std::vector<float> thresholds(100);
    for (std::size_t k = 0; k < thresholds.size(); ++k) {
        thresholds[k] = 1.0F + 0.01F * static_cast<float>(k);
    }
    QVERIFY(layer.setAttribute("threshold", Tensor(spike::engine::Shape{100}, thresholds)).ok);
    // Per-neuron thresholds, density view: the lowest and highest as two lines, in range.
    pane.plot.showTraces(spike::ui::traceSourceOf(layer), QString(), QStringLiteral("vmem"), makeSeries(30, 100, spike::test::sawtooth));
    QCOMPARE(pane.plot.thresholdLineCount(), 2);
    QVERIFY(pane.plot.yAxis->range().contains(1.99));
    // Line view: one line per shown neuron.
    pane.plot.showTraces(spike::ui::traceSourceOf(layer), QString(), QStringLiteral("vmem"), makeSeries(30, 5, spike::test::sawtooth), true,
                         {0, 1, 2, 3, 4});
    QCOMPARE(pane.plot.thresholdLineCount(), 5);
    // No thresholds for a current.
    pane.plot.showTraces(spike::ui::traceSourceOf(layer), QString(), QStringLiteral("isyn"), makeSeries(30, 100, spike::test::sawtooth), false);
    QCOMPARE(pane.plot.thresholdLineCount(), 0);
}

void TestTracePlot::userValueRangeSurvivesUpdates()
{
    LIF layer(4, 4);
    Pane pane;
    pane.plot.showTraces(spike::ui::traceSourceOf(layer), QString(), QStringLiteral("vmem"), makeSeries(20, 4, constantAtIndex));
    const QCPRange automatic = pane.plot.yAxis->range();
    QVERIFY(automatic.contains(3.0));
    pane.plot.yAxis->setRange(1.0, 2.0);  // as a wheel zoom or drag would
    pane.plot.showTraces(spike::ui::traceSourceOf(layer), QString(), QStringLiteral("vmem"), makeSeries(20, 4, constantAtIndex));
    QCOMPARE(pane.plot.yAxis->range().lower, 1.0);
    QCOMPARE(pane.plot.yAxis->range().upper, 2.0);
    // showEmpty forgets it.
    pane.plot.showEmpty(QStringLiteral("Membrane potential"), QStringLiteral("nothing"));
    QCOMPARE(pane.plot.yAxis->label(), QStringLiteral("membrane potential"));
    // An empty pane of another signal says which (an Izhikevich's u is no membrane potential).
    pane.plot.showEmpty(QStringLiteral("u of 'izhikevich'"), QStringLiteral("nothing"), QStringLiteral("u"));
    QCOMPARE(pane.plot.yAxis->label(), QStringLiteral("u"));
    pane.plot.showTraces(spike::ui::traceSourceOf(layer), QString(), QStringLiteral("vmem"), makeSeries(20, 4, constantAtIndex));
    QVERIFY(pane.plot.yAxis->range().contains(3.0));
}

void TestTracePlot::csvOfDensityPaneHoldsEverySample()
{
    LIF layer(100, 100);
    Pane pane;
    const auto series = makeSeries(30, 100, [](std::int64_t t, std::int64_t n) { return 0.25 * static_cast<double>(n) - 0.5 * static_cast<double>(t); });
    pane.plot.showTraces(spike::ui::traceSourceOf(layer), QString(), QStringLiteral("vmem"), series);
    QVERIFY(pane.plot.densityMode());
    pane.plot.prepareExport();
    const QStringList lines = spike::ui::plotCsv(pane.plot).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 1 + 30);  // header + one row per step
    const QStringList header = lines.front().split(QLatin1Char(','));
    QCOMPARE(header.size(), 1 + 1 + 100);  // time, mean, every trace
    QCOMPARE(header[1], QStringLiteral("\"mean\""));
    QCOMPARE(header[2], QStringLiteral("\"n0\""));
    QCOMPARE(header[101], QStringLiteral("\"n99\""));
    for (const QString& line : lines) {
        QCOMPARE(line.count(QLatin1Char(',')), 101);
    }
    // Row of step 7: time 7 ms, trace 42 at 0.25 * 42 - 3.5 = 7.
    const QStringList row = lines[1 + 7].split(QLatin1Char(','));
    QCOMPARE(row[0].toDouble(), 7.0);
    QCOMPARE(row[2 + 42].toDouble(), 7.0);
    // The hidden graphs are not drawn, and a new update drops them until asked again.
    QVERIFY(!pane.plot.graph(1)->visible());
    pane.plot.showTraces(spike::ui::traceSourceOf(layer), QString(), QStringLiteral("vmem"), series);
    QCOMPARE(pane.plot.graphCount(), 1);
}

void TestTracePlot::csvPreparedOnItsOwnWhenUpdatesPause()
{
    LIF layer(100, 100);
    Pane pane;
    pane.plot.showTraces(spike::ui::traceSourceOf(layer), QString(), QStringLiteral("vmem"), makeSeries(30, 100, constantAtIndex));
    QCOMPARE(pane.plot.graphCount(), 1);
    QTRY_COMPARE(pane.plot.graphCount(), 101);
    const QStringList lines = spike::ui::plotCsv(pane.plot).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 31);
    QCOMPARE(lines.front().count(QLatin1Char(',')), 101);
}

QTEST_MAIN(TestTracePlot)
#include "test_trace_plot.moc"
