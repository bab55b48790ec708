// PlotPanes: pane keys and order, the grid, linked time axes (frozen panes left out), Close and
// Freeze buttons, scrolling, and a screenshot of a raster + 20-trace + 1000-trace layout.
#include "tests/trace_test_series.hpp"

#include "ui/plots/plot_panes.hpp"
#include "ui/window/plot_sources.hpp"
#include "ui/plots/raster_plot.hpp"
#include "ui/plots/trace_plot.hpp"

#include "engine/neurons/lif.hpp"

#include <QApplication>
#include <QComboBox>
#include <QScrollArea>
#include <QWheelEvent>
#include <QScrollBar>
#include <QSignalSpy>
#include <QToolButton>
#include <QtTest/QtTest>

#include <cmath>

using spike::engine::LIF;
using spike::test::makeSeries;
using spike::ui::PlotPanes;
using spike::ui::RasterPlot;
using spike::ui::TracePlot;

namespace {

/// Top-left corner of `widget` in `panes`' coordinates.
QPoint placeOf(const QWidget* widget, const PlotPanes& panes)
{
    return widget->mapTo(&panes, QPoint(0, 0));
}

bool sameRange(const QCPRange& a, double lower, double upper)
{
    return std::abs(a.lower - lower) < 1e-9 && std::abs(a.upper - upper) < 1e-9;
}

/// A raster, a linked pane (key 1) and a pane frozen at [5, 6] ms (key 2).
struct LinkedAndFrozen {
    PlotPanes panes;
    TracePlot* linked = nullptr;
    TracePlot* frozen = nullptr;
    LinkedAndFrozen()
    {
        panes.setRaster(new RasterPlot);
        linked = panes.addTracePane(1);
        frozen = panes.addTracePane(2);
        frozen->xAxis->setRange(5.0, 6.0);
        frozen->setFrozen(true);
    }
};

}  // namespace

class TestPlotPanes : public QObject {
    Q_OBJECT

private slots:
    void keysInOrder();
    void gridColumnsForPaneCounts();
    void gridPlacesPanes();
    void gridNarrowsToTheWidth();
    void timeAxesFollowExceptFrozen();
    void setTimeRangeSkipsFrozen();
    void liveSpanScrollsLikeAnOscilloscope();
    void spanBoxAndWheelSetTheSpan();
    void closeButtonEmitsKey();
    void scrollsWhenPanesDoNotFit();
    void screenshotOfMixedPanes();
};

void TestPlotPanes::keysInOrder()
{
    PlotPanes panes;
    TracePlot* a = panes.addTracePane(7);
    TracePlot* b = panes.addTracePane(3);
    QVERIFY(a != nullptr && b != nullptr && a != b);
    QCOMPARE(panes.addTracePane(7), a);  // a taken key gives the existing pane
    QCOMPARE(panes.paneKeys(), (std::vector<int>{7, 3}));
    QCOMPARE(panes.tracePane(3), b);
    QVERIFY(panes.tracePane(4) == nullptr);
    panes.removeTracePane(7);
    QCOMPARE(panes.paneKeys(), (std::vector<int>{3}));
    QVERIFY(panes.tracePane(7) == nullptr);
    panes.removeTracePane(42);  // unknown: nothing happens
    QCOMPARE(panes.paneKeys().size(), std::size_t{1});
}

void TestPlotPanes::gridColumnsForPaneCounts()
{
    QCOMPARE(PlotPanes::gridColumns(1), 1);
    QCOMPARE(PlotPanes::gridColumns(2), 2);
    QCOMPARE(PlotPanes::gridColumns(3), 3);
    QCOMPARE(PlotPanes::gridColumns(4), 2);
    QCOMPARE(PlotPanes::gridColumns(5), 3);
    QCOMPARE(PlotPanes::gridColumns(7), 3);
}

void TestPlotPanes::gridNarrowsToTheWidth()
{
    // Three cells side by side need 3 x kMinPaneWidth; narrower, the grid drops columns and
    // the cells keep a readable width (the area scrolls down instead).
    QCOMPARE(PlotPanes::gridColumns(3, 3 * PlotPanes::kMinPaneWidth), 3);
    QCOMPARE(PlotPanes::gridColumns(3, 3 * PlotPanes::kMinPaneWidth - 1), 2);
    QCOMPARE(PlotPanes::gridColumns(3, 100), 1);
    QCOMPARE(PlotPanes::gridColumns(1, 5000), 1);
    PlotPanes panes;
    panes.setRaster(new RasterPlot);
    panes.addTracePane(0);
    panes.addTracePane(1);
    panes.resize(1000, 700);
    panes.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panes));
    QTRY_COMPARE(panes.columnCount(), 3);
    panes.resize(640, 700);
    QTRY_COMPARE(panes.columnCount(), 2);
    panes.resize(400, 700);
    QTRY_COMPARE(panes.columnCount(), 1);
    for (QWidget* cell : {static_cast<QWidget*>(panes.raster()), static_cast<QWidget*>(panes.tracePane(1))}) {
        QTRY_VERIFY(cell->width() >= PlotPanes::kMinPaneWidth - 20);
    }
    QTRY_VERIFY(placeOf(panes.tracePane(1), panes).y() > placeOf(panes.raster(), panes).y());
    panes.resize(1000, 700);
    QTRY_COMPARE(panes.columnCount(), 3);
}

void TestPlotPanes::gridPlacesPanes()
{
    PlotPanes panes;
    panes.resize(1200, 900);
    panes.setRaster(new RasterPlot);
    for (int k = 0; k < 4; ++k) {
        panes.addTracePane(k);
    }
    panes.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panes));
    // The raster and four panes are five cells: three columns, the raster first.
    QCOMPARE(panes.columnCount(), 3);
    const QPoint r = placeOf(panes.raster(), panes);
    const QPoint p0 = placeOf(panes.tracePane(0), panes);
    const QPoint p1 = placeOf(panes.tracePane(1), panes);
    const QPoint p2 = placeOf(panes.tracePane(2), panes);
    const QPoint p3 = placeOf(panes.tracePane(3), panes);
    QVERIFY(r.x() < p0.x() && p0.x() < p1.x());
    QVERIFY(p2.y() > p0.y());
    QCOMPARE(p3.y(), p2.y());
    QVERIFY(p3.x() > p2.x());

    // Hidden cells take no place: without the raster, four panes are 2 x 2.
    panes.setRasterShown(false);
    QCOMPARE(panes.columnCount(), 2);
    QTRY_VERIFY(!panes.raster()->isVisible());
    QTRY_COMPARE(placeOf(panes.tracePane(1), panes).y(), placeOf(panes.tracePane(0), panes).y());
    QTRY_VERIFY(placeOf(panes.tracePane(2), panes).y() > placeOf(panes.tracePane(0), panes).y());
    panes.setPaneShown(3, false);
    QVERIFY(!panes.isPaneShown(3));
    QVERIFY(panes.isPaneShown(2));
    QCOMPARE(panes.columnCount(), 3);
    panes.setPaneShown(3, true);
    panes.setRasterShown(true);

    // Seven panes and the raster: three columns; one pane and the raster: side by side.
    for (int k = 4; k < 7; ++k) {
        panes.addTracePane(k);
    }
    QCOMPARE(panes.columnCount(), 3);
    for (int k = 1; k < 7; ++k) {
        panes.removeTracePane(k);
    }
    QCOMPARE(panes.columnCount(), 2);
    QTRY_COMPARE(placeOf(panes.tracePane(0)->parentWidget(), panes).y(), placeOf(panes.raster(), panes).y());
}

void TestPlotPanes::timeAxesFollowExceptFrozen()
{
    PlotPanes panes;
    panes.setRaster(new RasterPlot);
    TracePlot* a = panes.addTracePane(1);
    TracePlot* b = panes.addTracePane(2);
    TracePlot* frozen = panes.addTracePane(3);
    frozen->xAxis->setRange(0.0, 1.0);
    panes.freezeButton(3)->click();
    QVERIFY(frozen->isFrozen());

    // A zoom of one pane (as the wheel does, through the axis) moves the others and the raster.
    a->xAxis->setRange(10.0, 20.0);
    QVERIFY(sameRange(b->xAxis->range(), 10.0, 20.0));
    QVERIFY(sameRange(panes.raster()->xAxis->range(), 10.0, 20.0));
    QVERIFY(sameRange(frozen->xAxis->range(), 0.0, 1.0));

    // The raster leads too.
    panes.raster()->xAxis->setRange(30.0, 40.0);
    QVERIFY(sameRange(a->xAxis->range(), 30.0, 40.0));
    QVERIFY(sameRange(b->xAxis->range(), 30.0, 40.0));

    // A frozen pane zooms alone.
    frozen->xAxis->setRange(100.0, 200.0);
    QVERIFY(sameRange(a->xAxis->range(), 30.0, 40.0));
    QVERIFY(sameRange(panes.raster()->xAxis->range(), 30.0, 40.0));

    // Unfrozen, it rejoins the others.
    panes.freezeButton(3)->click();
    QVERIFY(!frozen->isFrozen());
    QVERIFY(sameRange(frozen->xAxis->range(), 30.0, 40.0));
}

void TestPlotPanes::setTimeRangeSkipsFrozen()
{
    LinkedAndFrozen f;
    PlotPanes& panes = f.panes;
    TracePlot* a = f.linked;
    TracePlot* frozen = f.frozen;
    QVERIFY(panes.freezeButton(2)->isChecked());  // the button follows the pane
    panes.setTimeRange(0.0, 250.0);
    QVERIFY(sameRange(a->xAxis->range(), 0.0, 250.0));
    QVERIFY(sameRange(panes.raster()->xAxis->range(), 0.0, 250.0));
    QVERIFY(sameRange(frozen->xAxis->range(), 5.0, 6.0));
    frozen->setFrozen(false);
    QVERIFY(!panes.freezeButton(2)->isChecked());
    QVERIFY(sameRange(frozen->xAxis->range(), 0.0, 250.0));
}

void TestPlotPanes::liveSpanScrollsLikeAnOscilloscope()
{
    LinkedAndFrozen f;
    PlotPanes& panes = f.panes;
    TracePlot* a = f.linked;
    TracePlot* frozen = f.frozen;
    panes.setSpan(500.0);
    // Filling from the left until the data are a span long, then the last span, all linked.
    panes.showLive(0.0, 120.0);
    QVERIFY(sameRange(a->xAxis->range(), 0.0, 500.0));
    for (const double end : {501.0, 2000.0, 55856322.5}) {
        panes.showLive(std::max(0.0, end - 10000.0), end);
        QVERIFY(sameRange(a->xAxis->range(), end - 500.0, end));
        QVERIFY(sameRange(panes.raster()->xAxis->range(), end - 500.0, end));
    }
    QVERIFY(sameRange(frozen->xAxis->range(), 5.0, 6.0));
    // "Whole run": everything kept.
    panes.setSpan(0.0);
    panes.showLive(1000.0, 3000.0);
    QVERIFY(sameRange(a->xAxis->range(), 1000.0, 3000.0));
    // Spans chosen from the model's slowest time constant: 25 of them, rounded up to 1-2-5.
    QCOMPARE(PlotPanes::defaultSpan(0.02), 500.0);
    QCOMPARE(PlotPanes::defaultSpan(0.01), 500.0);
    QCOMPARE(PlotPanes::defaultSpan(0.005), 200.0);
    QCOMPARE(PlotPanes::defaultSpan(1e-4), 100.0);
    QCOMPARE(PlotPanes::defaultSpan(3.0), 10000.0);
    QCOMPARE(PlotPanes::defaultSpan(0.0), 500.0);
}

void TestPlotPanes::spanBoxAndWheelSetTheSpan()
{
    PlotPanes panes;
    panes.resize(900, 400);
    TracePlot* a = panes.addTracePane(1);
    panes.addTracePane(2);
    panes.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panes));
    panes.setSpan(500.0);
    QComboBox* box1 = panes.spanBox(1);
    QComboBox* box2 = panes.spanBox(2);
    QVERIFY(box1 != nullptr && box2 != nullptr);
    QCOMPARE(box1->currentText(), PlotPanes::spanLabel(500.0));
    QCOMPARE(box1->count(), static_cast<int>(PlotPanes::spanChoices().size()));
    QCOMPARE(box1->itemText(box1->count() - 1), QStringLiteral("whole run"));
    // The keyboard on one pane's box (real key events): every box and the span follow.
    QSignalSpy changed(&panes, &PlotPanes::spanChanged);
    box1->setFocus();
    QTest::keyClick(box1, Qt::Key_Down);
    QCOMPARE(panes.span(), 1000.0);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(box2->currentText(), PlotPanes::spanLabel(1000.0));
    // The wheel over a plot zooms its time axis; that width becomes the span, listed in order.
    panes.showLive(0.0, 3000.0);
    QVERIFY(sameRange(a->xAxis->range(), 2000.0, 3000.0));
    const QPointF centre = a->axisRect()->rect().center();
    QWheelEvent turn(centre, a->mapToGlobal(centre), QPoint(), QPoint(0, 120), Qt::NoButton, Qt::NoModifier,
                     Qt::NoScrollPhase, false);
    QApplication::sendEvent(a, &turn);
    const double zoomed = a->xAxis->range().size();
    QVERIFY2(zoomed < 1000.0, qPrintable(QString::number(zoomed)));
    QCOMPARE(panes.span(), zoomed);
    QCOMPARE(box2->currentData().toDouble(), zoomed);
    const int at = box2->currentIndex();
    QVERIFY(box2->itemData(at - 1).toDouble() < zoomed && box2->itemData(at + 1).toDouble() > zoomed);
    panes.showLive(0.0, 5000.0);
    QVERIFY(sameRange(a->xAxis->range(), 5000.0 - zoomed, 5000.0));
    // Ctrl + wheel zooms the values and leaves the span alone.
    QWheelEvent ctrl(centre, a->mapToGlobal(centre), QPoint(), QPoint(0, 120), Qt::NoButton, Qt::ControlModifier,
                     Qt::NoScrollPhase, false);
    QApplication::sendEvent(a, &ctrl);
    QCOMPARE(panes.span(), zoomed);
}

void TestPlotPanes::closeButtonEmitsKey()
{
    PlotPanes panes;
    panes.addTracePane(5);
    panes.addTracePane(9);
    QSignalSpy spy(&panes, &PlotPanes::closeRequested);
    panes.closeButton(9)->click();
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toInt(), 9);
    // The pane stays until the owner removes it.
    QCOMPARE(panes.paneKeys(), (std::vector<int>{5, 9}));
    panes.removeTracePane(9);
    QCOMPARE(panes.paneKeys(), (std::vector<int>{5}));
}

void TestPlotPanes::scrollsWhenPanesDoNotFit()
{
    PlotPanes panes;
    panes.resize(800, 400);
    panes.setRaster(new RasterPlot);
    for (int k = 0; k < 9; ++k) {
        panes.addTracePane(k);
    }
    panes.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panes));
    auto* scroll = panes.findChild<QScrollArea*>(QStringLiteral("plotPanesScroll"));
    QVERIFY(scroll != nullptr);
    QTRY_VERIFY(scroll->verticalScrollBar()->maximum() > 0);
    for (int k = 0; k < 9; ++k) {
        QVERIFY(panes.tracePane(k)->height() >= PlotPanes::kMinPaneHeight);
    }
}

void TestPlotPanes::screenshotOfMixedPanes()
{
    PlotPanes panes;
    panes.resize(1400, 900);

    // Raster: 200 neurons firing at random-ish steps.
    LIF spiking(200, 200);
    spike::engine::Recording recording;
    spike::engine::TimeSeries spikes = makeSeries(500, 200, [](std::int64_t t, std::int64_t n) {
        return ((t * 7 + n * 13) % 97 == 0) ? 1.0 : 0.0;
    });
    spikes.spikes = true;
    recording[""]["spikes"] = spikes;
    auto* raster = new RasterPlot;
    raster->showRecording(spike::ui::rasterModulesOf(spiking), recording);
    panes.setRaster(raster);

    LIF few(20, 20);
    panes.addTracePane(1)->showTraces(spike::ui::traceSourceOf(few), QStringLiteral("lif"), QStringLiteral("vmem"),
                                      makeSeries(500, 20, spike::test::charging));
    LIF many(1000, 1000);
    TracePlot* dense = panes.addTracePane(2);
    panes.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panes));
    dense->showTraces(spike::ui::traceSourceOf(many), QStringLiteral("big"), QStringLiteral("vmem"),
                      makeSeries(500, 1000, spike::test::charging));
    QVERIFY(dense->densityMode());
    panes.setTimeRange(0.0, 500.0);
    panes.replotAll();
    QCoreApplication::processEvents();
    const QImage shot = panes.grab().toImage();
    QVERIFY(!shot.isNull());
    QVERIFY(shot.save(QStringLiteral("/tmp/panes.png")));
    // The density pane paints its cells: some pixel inside its axis rect is not white.
    const QRect rect = dense->axisRect()->rect();
    const QImage densityShot = dense->grab().toImage();
    bool painted = false;
    for (int x = rect.left() + 2; x < rect.right() && !painted; x += 7) {
        for (int y = rect.top() + 2; y < rect.bottom() && !painted; y += 5) {
            const QColor c = densityShot.pixelColor(x, y);
            painted = c.blue() > c.red() + 40;  // the blue density colours
        }
    }
    QVERIFY(painted);
}

QTEST_MAIN(TestPlotPanes)
#include "test_plot_panes.moc"
