// Plots stay readable in narrow panes: time-axis tick labels never overlap and never turn into
// exponents, whatever the width and the time (55 856 322 ms after a long run); titles and the
// time axis's label (also the long "time [ms] — press Run…" after Reset) wrap to the pane instead
// of being cut; legends use as many columns as whole entries fit; the raster's module names
// stay inside the right margin. Runs with QT_QPA_PLATFORM=offscreen.
#include "tests/trace_test_series.hpp"

#include "ui/plots/plot_style.hpp"
#include "ui/plots/raster_plot.hpp"
#include "ui/plots/trace_plot.hpp"
#include "ui/window/plot_sources.hpp"

#include "engine/network/network.hpp"
#include "engine/neurons/lif.hpp"
#include "engine/neurons/lif_refrac.hpp"
#include "engine/runtime/spike_window.hpp"

#include <QtTest/QtTest>

using spike::engine::LIF;
using spike::test::makeSeries;
using spike::ui::RasterPlot;
using spike::ui::ReadableTicker;
using spike::ui::TracePlot;
using spike::ui::wrapToWidth;

namespace {

/// Every line of `text` is at most `width` px wide in `font`.
bool fits(const QString& text, const QFont& font, int width)
{
    const QFontMetrics metrics(font);
    for (const QString& line : text.split(QLatin1Char('\n'))) {
        if (metrics.horizontalAdvance(line) > width) {
            return false;
        }
    }
    return true;
}

/// The words of `text` in order, whatever the line breaks.
QStringList words(const QString& text)
{
    return text.simplified().split(QLatin1Char(' '), Qt::SkipEmptyParts);
}

/// The time axis's tick labels after a replot: none empty, none in exponent form, and no two
/// overlapping (each label's box around its tick position, with 4 px to spare).
void checkTimeTicks(QCustomPlot& plot, const char* what)
{
    plot.replot();
    const QVector<double> ticks = plot.xAxis->tickVector();
    const QVector<QString> labels = plot.xAxis->tickVectorLabels();
    QVERIFY2(ticks.size() >= (plot.axisRect()->width() >= 150 ? 2 : 1), what);
    const QFontMetrics metrics(plot.xAxis->tickLabelFont());
    double previousRight = -1e300;
    for (int i = 0; i < ticks.size(); ++i) {
        QVERIFY2(!labels[i].isEmpty() && !labels[i].contains(QLatin1Char('e')) && !labels[i].contains(QChar(0x00B7)),
                 qPrintable(QStringLiteral("%1: label '%2'").arg(QLatin1String(what), labels[i])));
        const double centre = plot.xAxis->coordToPixel(ticks[i]);
        const double half = metrics.horizontalAdvance(labels[i]) / 2.0;
        QVERIFY2(centre - half >= previousRight + 4.0,
                 qPrintable(QStringLiteral("%1: '%2' runs into the label before it").arg(QLatin1String(what), labels[i])));
        previousRight = centre + half;
    }
}

}  // namespace

class TestPlotReadability : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void tickLabelsNeverOverlap()
    {
        LIF layer(4, 4);
        for (const int width : {170, 240, 400, 900}) {
            for (const double startS : {0.0, 0.2, 55856.3227}) {
                TracePlot plot;
                plot.resize(width, 300);
                plot.show();
                QVERIFY(QTest::qWaitForWindowExposed(&plot));
                plot.showTraces(spike::ui::traceSourceOf(layer), QStringLiteral("lif"), QStringLiteral("vmem"),
                                makeSeries(300, 4, spike::test::sawtooth, startS));
                const QByteArray what = QStringLiteral("%1 px from %2 s").arg(width).arg(startS).toUtf8();
                checkTimeTicks(plot, what.constData());
            }
        }
        // The step: 1, 2 or 5 x 10^k, with the decimals it needs and no "-0".
        QCOMPARE(ReadableTicker::label(0.25, 0.05), QStringLiteral("0.25"));
        QCOMPARE(ReadableTicker::label(-1e-12, 0.1), QStringLiteral("0.0"));
        QCOMPARE(ReadableTicker::label(55856300.0, 100.0), QStringLiteral("55856300"));
        const QFontMetrics metrics(QApplication::font());
        const double step = ReadableTicker::stepFor(QCPRange(0.0, 300.0), 160, metrics);
        QVERIFY2(step == 100.0 || step == 200.0, qPrintable(QString::number(step)));
        QCOMPARE(ReadableTicker::stepFor(QCPRange(0.0, 300.0), 2000, metrics), 10.0);
    }

    void titlesAndAxisLabelsWrapInsteadOfBeingCut()
    {
        const QString explanation = QStringLiteral("time [ms] — press Run (F5) to simulate; the plots fill as it runs");
        for (const int width : {200, 320, 1200}) {
            TracePlot plot;
            plot.resize(width, 300);
            plot.show();
            QVERIFY(QTest::qWaitForWindowExposed(&plot));
            plot.showEmpty(QStringLiteral("Membrane potential of a layer with a long name"), explanation);
            plot.replot();
            const int axisWidth = plot.axisRect()->width();
            QVERIFY2(fits(plot.xAxis->label(), plot.xAxis->labelFont(), axisWidth),
                     qPrintable(QStringLiteral("%1 px: '%2'").arg(width).arg(plot.xAxis->label())));
            // Nothing lost: every word there, whole or (wider than the line) elided.
            const QStringList shown = words(plot.xAxis->label());
            const QStringList full = words(explanation);
            QCOMPARE(shown.size(), full.size());
            for (int i = 0; i < full.size(); ++i) {
                QVERIFY2(shown[i] == full[i] || (shown[i].endsWith(QChar(0x2026)) && full[i].startsWith(shown[i].chopped(1))),
                         qPrintable(shown[i]));
            }
            QVERIFY(plot.title().contains(QStringLiteral("Membrane")));
            if (width >= 1200) {
                QVERIFY(!plot.xAxis->label().contains(QLatin1Char('\n')));  // one line when it fits
            }
            // Setting the label again (as Run does) replaces the wrapped text.
            plot.xAxis->setLabel(QStringLiteral("time [ms]"));
            plot.replot();
            QCOMPARE(words(plot.xAxis->label()), (QStringList{QStringLiteral("time"), QStringLiteral("[ms]")}));
            if (width >= 320) {
                QCOMPARE(plot.xAxis->label(), QStringLiteral("time [ms]"));
            }
        }
        // A single word wider than the line is elided, not cut.
        const QFont font = QApplication::font();
        const QString one = wrapToWidth(QStringLiteral("supercalifragilisticexpialidocious"), font, 60);
        QVERIFY(fits(one, font, 60));
        QVERIFY(one.endsWith(QChar(0x2026)));
    }

    void legendColumnsFitThePane()
    {
        LIF layer(8, 8);
        for (const int width : {180, 300, 1200}) {
            TracePlot plot;
            plot.resize(width, 400);
            plot.show();
            QVERIFY(QTest::qWaitForWindowExposed(&plot));
            plot.showTraces(spike::ui::traceSourceOf(layer), QStringLiteral("lif"), QStringLiteral("vmem"),
                            makeSeries(100, 8, spike::test::sawtooth));
            plot.replot();
            plot.replot();  // the columns chosen before the first replot take effect in the next
            QCPLegend* legend = plot.legend;
            QVERIFY(legend->visible());
            QCOMPARE(legend->itemCount(), 8);
            const QFontMetrics metrics(legend->font());
            for (int i = 0; i < legend->itemCount(); ++i) {
                auto* entry = qobject_cast<QCPPlottableLegendItem*>(legend->item(i));
                QVERIFY(entry != nullptr);
                const int needed = legend->iconSize().width() + legend->iconTextPadding() +
                                   metrics.horizontalAdvance(entry->plottable()->name());
                QVERIFY2(entry->outerRect().width() >= needed,
                         qPrintable(QStringLiteral("%1 px: entry '%2' squeezed to %3 px")
                                        .arg(width)
                                        .arg(entry->plottable()->name())
                                        .arg(entry->outerRect().width())));
                QVERIFY2(entry->outerRect().right() <= plot.width(), "an entry off the pane");
            }
            if (width >= 1200) {
                QCOMPARE(legend->wrap(), 8);  // all in one row when they fit
            }
        }
    }

    void rasterModuleNamesStayInTheMargin()
    {
        // "a (LIF)" fits whole; "refrac (LIFRefrac)" does not, "refrac" does; a name longer than
        // the margin is wrapped and elided.
        spike::engine::Network net;
        net.addNode("a", std::make_unique<LIF>(4, 4));
        net.addNode("refrac", std::make_unique<spike::engine::LIFRefrac>(4));
        net.addNode("excitatory_population", std::make_unique<LIF>(4, 4));
        RasterPlot plot;
        plot.resize(400, 400);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        std::vector<spike::engine::SpikeWindow> windows(3, spike::engine::SpikeWindow(4));
        const std::vector<spike::engine::SpikeEvent> events{{3, 1, 1}};
        for (auto& window : windows) {
            window.restart(0);
            window.append(events, 10);
        }
        const spike::engine::SpikeWindows named{{"a", "spikes", &windows[0]},
                                                {"refrac", "spikes", &windows[1]},
                                                {"excitatory_population", "spikes", &windows[2]}};
        plot.showSpikes(spike::ui::rasterModulesOf(net), named, 1e-3);
        plot.replot();
        const QVector<QString> labels = plot.yAxis2->tickVectorLabels();
        QCOMPARE(labels.size(), 3);
        QCOMPARE(labels[0], QStringLiteral("a (LIF)"));
        QCOMPARE(labels[1], QStringLiteral("refrac"));
        QVERIFY(labels[2].startsWith(QStringLiteral("excit")));
        const int room = spike::ui::kPlotRightMargin - plot.yAxis2->tickLabelPadding();
        for (const QString& label : labels) {
            QVERIFY2(fits(label, plot.yAxis2->tickLabelFont(), room), qPrintable(label));
        }
    }
};

QTEST_MAIN(TestPlotReadability)
#include "test_plot_readability.moc"
