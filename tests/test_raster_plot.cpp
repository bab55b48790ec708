// RasterPlot drawn from spike events. For the same (seeded, random) spikes, showSpikes() from
// SpikeWindows and showRecording() from the dense series draw the same thing: the same dots (one
// per event, at the event's time and row), bands and rate, or in density mode the same cell
// values, whose sums equal each module's spike total (and the rate strip's sum the spikes of all
// modules). A density raster redrawn with data of the same size keeps its colour maps and shows
// the new data; a live window redrawn after it slid draws what a fresh raster draws (the bins it
// remembers are still right); its bins keep every spike wherever the window starts (also before step 0).
// Density cells follow the widget's size: at most one per pixel of the axis rect either way.
// Windows of modules the model does not have, or that cover no step, are left out.
// Offscreen.
#include "ui/plots/raster_plot.hpp"
#include "ui/window/plot_sources.hpp"

#include "engine/neurons/lif.hpp"
#include "engine/network/network.hpp"

#include <QtTest/QtTest>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

using spike::engine::SpikeEvent;
using spike::engine::NamedSpikeWindow;
using spike::ui::RasterPlot;
using spike::engine::SpikeWindow;
using spike::engine::SpikeWindows;

namespace {

constexpr double kDt = 1e-3;

/// LIF layers "a" (`a` neurons) and "b" (`b` neurons) in a Network.
std::unique_ptr<spike::engine::Network> twoLayers(std::int64_t a, std::int64_t b)
{
    auto net = std::make_unique<spike::engine::Network>();
    net->addNode("a", std::make_unique<spike::engine::LIF>(a, a));
    net->addNode("b", std::make_unique<spike::engine::LIF>(b, b));
    return net;
}

/// Steps [first, first + steps) of `width` neurons, each firing with probability `p` per step
/// (counts 1 or 2), seeded.
SpikeWindow randomWindow(std::int64_t width, std::int64_t first, std::int64_t steps, double p,
                         unsigned seed)
{
    std::mt19937 rng(seed);
    std::bernoulli_distribution fires(p);
    std::bernoulli_distribution twice(0.1);
    std::vector<SpikeEvent> events;
    for (std::int64_t s = first; s < first + steps; ++s) {
        for (std::int32_t n = 0; n < width; ++n) {
            if (fires(rng)) {
                events.push_back({s, n, twice(rng) ? 2 : 1});
            }
        }
    }
    SpikeWindow window(width);
    window.restart(first);
    window.append(events, first + steps);
    return window;
}

/// The recording the windows stand for.
spike::engine::Recording denseOf(const SpikeWindows& windows)
{
    spike::engine::Recording out;
    for (const NamedSpikeWindow& named : windows) {
        out[named.path][named.signal] = named.window->toDense(kDt);
    }
    return out;
}

std::vector<QCPColorMap*> colourMaps(RasterPlot& plot)
{
    std::vector<QCPColorMap*> maps;
    for (int i = 0; i < plot.plottableCount(); ++i) {
        if (auto* map = qobject_cast<QCPColorMap*>(plot.plottable(i))) {
            maps.push_back(map);
        }
    }
    return maps;
}

std::vector<double> cellsOf(const QCPColorMap& map)
{
    std::vector<double> cells;
    for (int x = 0; x < map.data()->keySize(); ++x) {
        for (int y = 0; y < map.data()->valueSize(); ++y) {
            cells.push_back(map.data()->cell(x, y));
        }
    }
    return cells;
}

/// What a density map should be fully coloured at: the 98th percentile of its filled cells, 1 at
/// least.
double colourPeak(const QCPColorMap& map)
{
    std::vector<double> filled;
    for (const double value : cellsOf(map)) {
        if (value > 0.0) {
            filled.push_back(value);
        }
    }
    if (filled.empty()) {
        return 1.0;
    }
    std::sort(filled.begin(), filled.end());
    return std::max(filled[static_cast<std::size_t>(0.98 * static_cast<double>(filled.size() - 1))], 1.0);
}

double sum(const std::vector<double>& values)
{
    double total = 0.0;
    for (const double v : values) {
        total += v;
    }
    return total;
}

/// (key, value) of every point of `graph`.
std::vector<std::pair<double, double>> pointsOf(const QCPGraph& graph)
{
    std::vector<std::pair<double, double>> points;
    for (auto it = graph.data()->constBegin(); it != graph.data()->constEnd(); ++it) {
        points.emplace_back(it->key, it->value);
    }
    return points;
}

/// Spikes of all modules from the rate strip: rate x neurons x bin width, summed.
double spikesOfRate(const RasterPlot& plot, std::int64_t neurons, double binSeconds)
{
    double total = 0.0;
    for (const auto& [key, rate] : pointsOf(*plot.rateGraph())) {
        total += rate * static_cast<double>(neurons) * binSeconds;
    }
    return total;
}

}  // namespace

class TestRasterPlot : public QObject {
    Q_OBJECT

private slots:
    void dotsFromEventsEqualDotsFromTheRecording()
    {
        const auto root = twoLayers(40, 25);
        const SpikeWindow a = randomWindow(40, 100, 300, 0.05, 1);
        const SpikeWindow b = randomWindow(25, 100, 300, 0.08, 2);
        const SpikeWindows windows{{"a", "spikes", &a}, {"b", "spikes", &b}};
        RasterPlot events;
        events.resize(800, 600);
        events.showSpikes(spike::ui::rasterModulesOf(*root), windows, kDt);
        QVERIFY(!events.densityMode());
        QCOMPARE(events.bandCount(), 2);
        QCOMPARE(events.dotCount(), a.eventCount() + b.eventCount());

        RasterPlot dense;
        dense.resize(800, 600);
        dense.showRecording(spike::ui::rasterModulesOf(*root), denseOf(windows));
        QVERIFY(!dense.densityMode());
        QCOMPARE(dense.bandCount(), 2);
        QCOMPARE(dense.dotCount(), events.dotCount());
        QCOMPARE(dense.title(), events.title());
        QVERIFY(pointsOf(*dense.rateGraph()) == pointsOf(*events.rateGraph()));
        // Each dot at its event's time [ms] and row ("b" below the 40 rows of "a").
        const auto* graphB = qobject_cast<QCPGraph*>(events.plottable(2));
        QVERIFY(graphB != nullptr);
        const SpikeEvent& first = b.events().front();
        QCOMPARE(graphB->data()->constBegin()->key, static_cast<double>(first.step) * kDt * 1e3);
        QCOMPARE(graphB->data()->constBegin()->value, static_cast<double>(40 + first.neuron));
        const auto spikes = static_cast<double>(a.spikeCount() + b.spikeCount());
        QVERIFY(std::abs(spikesOfRate(events, 65, kDt) - spikes) < 1e-6 * spikes);
    }

    void densityCellsFromEventsEqualCellsFromTheRecording()
    {
        const auto root = twoLayers(3000, 500);  // more rows than kMaxDotRows
        const SpikeWindow a = randomWindow(3000, 0, 1500, 0.01, 3);   // 1500 steps: 2 per column
        const SpikeWindow b = randomWindow(500, 200, 1300, 0.02, 4);  // starts later
        const SpikeWindows windows{{"a", "spikes", &a}, {"b", "output", &b}};
        // Wide enough for kMaxColumns time bins: more pixels than cells.
        RasterPlot events;
        events.resize(1400, 900);
        events.showSpikes(spike::ui::rasterModulesOf(*root), windows, kDt);
        QVERIFY(events.densityMode());
        QCOMPARE(events.dotCount(), std::int64_t{0});
        QCOMPARE(events.bandCount(), 2);
        RasterPlot dense;
        dense.resize(1400, 900);
        dense.showRecording(spike::ui::rasterModulesOf(*root), denseOf(windows));
        QVERIFY(dense.densityMode());

        const auto fromEvents = colourMaps(events);
        const auto fromDense = colourMaps(dense);
        QCOMPARE(fromEvents.size(), std::size_t{2});
        QCOMPARE(fromDense.size(), std::size_t{2});
        const SpikeWindow* bands[] = {&a, &b};
        for (std::size_t i = 0; i < 2; ++i) {
            QCOMPARE(fromEvents[i]->data()->keySize(), fromDense[i]->data()->keySize());
            QCOMPARE(fromEvents[i]->data()->valueSize(), fromDense[i]->data()->valueSize());
            QVERIFY(cellsOf(*fromEvents[i]) == cellsOf(*fromDense[i]));
            QCOMPARE(sum(cellsOf(*fromEvents[i])), static_cast<double>(bands[i]->spikeCount()));
            QVERIFY(fromEvents[i]->data()->keySize() <= RasterPlot::kMaxColumns);
        }
        QCOMPARE(fromEvents[0]->data()->keySize(), 751);  // 1500 steps, 2 per column, room for 751
        QVERIFY(fromEvents[0]->data()->valueSize() + fromEvents[1]->data()->valueSize() <= RasterPlot::kMaxRows);
        QVERIFY(pointsOf(*dense.rateGraph()) == pointsOf(*events.rateGraph()));
        const auto spikes = static_cast<double>(a.spikeCount() + b.spikeCount());
        QVERIFY(std::abs(spikesOfRate(events, 3500, 2 * kDt) - spikes) < 1e-6 * spikes);
    }

    void aSlidingDensityRasterKeepsItsColourMaps()
    {
        const auto root = twoLayers(3000, 10);
        SpikeWindow a = randomWindow(3000, 0, 400, 0.01, 5);
        SpikeWindow b = randomWindow(10, 0, 400, 0.2, 6);
        RasterPlot plot;
        plot.showSpikes(spike::ui::rasterModulesOf(*root), {{"a", "spikes", &a}, {"b", "spikes", &b}}, kDt);
        const auto before = colourMaps(plot);
        QCOMPARE(before.size(), std::size_t{2});
        // The same sizes, other spikes (the window slid along): the maps stay, the cells change.
        a = randomWindow(3000, 50, 400, 0.02, 7);
        b = randomWindow(10, 50, 400, 0.1, 8);
        plot.showSpikes(spike::ui::rasterModulesOf(*root), {{"a", "spikes", &a}, {"b", "spikes", &b}}, kDt);
        const auto after = colourMaps(plot);
        QVERIFY(after == before);
        QCOMPARE(plot.bandCount(), 2);
        QCOMPARE(sum(cellsOf(*after[0])), static_cast<double>(a.spikeCount()));
        QCOMPARE(sum(cellsOf(*after[1])), static_cast<double>(b.spikeCount()));
        QCOMPARE(after[0]->data()->keyRange().lower, 50.5);  // the first column's centre [ms]

        // Another size: new maps, still two bands and the right totals.
        a = randomWindow(3000, 50, 200, 0.02, 9);
        plot.showSpikes(spike::ui::rasterModulesOf(*root), {{"a", "spikes", &a}, {"b", "spikes", &b}}, kDt);
        const auto resized = colourMaps(plot);
        QCOMPARE(resized.size(), std::size_t{2});
        QCOMPARE(sum(cellsOf(*resized[0])), static_cast<double>(a.spikeCount()));
    }

    void aLiveWindowRedrawnDrawsWhatAFreshRasterDraws()
    {
        // One window sliding along as LiveRun slides it (appended at the back, trimmed at the
        // front by an odd number of steps, 2 steps per bin): the bins the raster remembers plus
        // the ones it bins again equal what a raster that never saw it draws.
        const auto root = twoLayers(3000, 10);
        SpikeWindow live = randomWindow(3000, 0, 1500, 0.01, 14);
        RasterPlot plot;
        plot.showSpikes(spike::ui::rasterModulesOf(*root), {{"a", "spikes", &live}}, kDt);
        for (int frame = 0; frame < 6; ++frame) {
            const std::int64_t steps = 1 + frame * 7;
            const auto seed = 20 + static_cast<unsigned>(frame);
            const SpikeWindow more = randomWindow(3000, live.endStep(), steps, 0.01, seed);
            live.append(more.events(), more.endStep());
            live.trimBefore(live.endStep() - 1500 + (frame % 2));
            plot.showSpikes(spike::ui::rasterModulesOf(*root), {{"a", "spikes", &live}}, kDt);
            const SpikeWindow copy = SpikeWindow::fromDense(live.toDense(kDt));  // a new id
            RasterPlot fresh;
            fresh.showSpikes(spike::ui::rasterModulesOf(*root), {{"a", "spikes", &copy}}, kDt);
            const auto drawn = colourMaps(plot);
            const auto expected = colourMaps(fresh);
            QCOMPARE(drawn.size(), std::size_t{1});
            QCOMPARE(expected.size(), std::size_t{1});
            QVERIFY2(cellsOf(*drawn[0]) == cellsOf(*expected[0]),
                     qPrintable(QStringLiteral("frame %1").arg(frame)));
            QCOMPARE(drawn[0]->data()->keyRange().lower, expected[0]->data()->keyRange().lower);
            QCOMPARE(sum(cellsOf(*drawn[0])), static_cast<double>(live.spikeCount()));
        }
    }

    void densityBinsKeepEverySpikeWhereverTheWindowStarts()
    {
        // Bins are aligned on multiples of their width: starts at an odd step, before step 0.
        const auto root = twoLayers(3000, 10);
        for (const std::int64_t first : {std::int64_t{-7}, std::int64_t{3}, std::int64_t{1201}}) {
            const SpikeWindow a = randomWindow(3000, first, 1300, 0.01, 12);
            RasterPlot plot;
            plot.showSpikes(spike::ui::rasterModulesOf(*root), {{"a", "spikes", &a}}, kDt);
            QVERIFY(plot.densityMode());
            const auto maps = colourMaps(plot);
            QCOMPARE(maps.size(), std::size_t{1});
            QCOMPARE(sum(cellsOf(*maps[0])), static_cast<double>(a.spikeCount()));
            QVERIFY(maps[0]->data()->keySize() <= RasterPlot::kMaxColumns);
        }
    }

    void densityCellsFollowTheWidgetSize()
    {
        // One cell per pixel at most: time bins within the axis rect's width, neuron bins (shared
        // by the bands by size) within its height; a resized raster re-bins, every spike kept.
        const auto root = twoLayers(3000, 500);
        const SpikeWindow a = randomWindow(3000, 0, 1500, 0.01, 30);
        const SpikeWindow b = randomWindow(500, 0, 1500, 0.02, 31);
        const SpikeWindows windows{{"a", "spikes", &a}, {"b", "spikes", &b}};
        RasterPlot plot;
        std::vector<std::int64_t> cellCounts;
        for (const QSize size : {QSize(500, 400), QSize(1000, 800)}) {
            plot.resize(size);
            plot.showSpikes(spike::ui::rasterModulesOf(*root), windows, kDt);
            QVERIFY(plot.densityMode());
            const auto maps = colourMaps(plot);
            QCOMPARE(maps.size(), std::size_t{2});
            const int width = plot.axisRect()->width();
            const int height = plot.axisRect()->height();
            QVERIFY(width > 0 && height > 0);
            const int rows = maps[0]->data()->valueSize() + maps[1]->data()->valueSize();
            QVERIFY2(rows <= height && 2 * rows > height,
                     qPrintable(QStringLiteral("%1 rows, %2 px").arg(rows).arg(height)));
            QVERIFY(maps[0]->data()->valueSize() > 4 * maps[1]->data()->valueSize());
            std::int64_t cells = 0;
            for (const QCPColorMap* map : maps) {
                const int columns = map->data()->keySize();
                QVERIFY2(columns <= width && 2 * columns > width,
                         qPrintable(QStringLiteral("%1 columns, %2 px").arg(columns).arg(width)));
                cells += std::int64_t{columns} * map->data()->valueSize();
            }
            QCOMPARE(sum(cellsOf(*maps[0])), static_cast<double>(a.spikeCount()));
            QCOMPARE(sum(cellsOf(*maps[1])), static_cast<double>(b.spikeCount()));
            QCOMPARE(maps[0]->dataRange().upper, colourPeak(*maps[0]));
            QCOMPARE(maps[1]->dataRange().upper, colourPeak(*maps[1]));
            cellCounts.push_back(cells);
        }
        QVERIFY(cellCounts[1] > 2 * cellCounts[0]);
    }

    void busyCellsSetTheColourScaleToo()
    {
        // A tiny raster: 16 x 16 cells of thousands of spikes each, past the counts the peak's
        // histogram holds one by one.
        const auto root = twoLayers(3000, 10);
        const SpikeWindow a = randomWindow(3000, 0, 1200, 0.3, 41);
        RasterPlot plot;
        plot.resize(120, 120);
        plot.showSpikes(spike::ui::rasterModulesOf(*root), {{"a", "spikes", &a}}, kDt);
        const auto maps = colourMaps(plot);
        QCOMPARE(maps.size(), std::size_t{1});
        QCOMPARE(maps[0]->data()->keySize(), int{RasterPlot::kMinCellPixels});
        QCOMPARE(maps[0]->data()->valueSize(), int{RasterPlot::kMinCellPixels});
        QCOMPARE(sum(cellsOf(*maps[0])), static_cast<double>(a.spikeCount()));
        QVERIFY(colourPeak(*maps[0]) > 4096.0);
        QCOMPARE(maps[0]->dataRange().upper, colourPeak(*maps[0]));
    }

    void windowsWithoutStepsOrModuleAreLeftOut()
    {
        const auto root = twoLayers(5, 5);
        const SpikeWindow a = randomWindow(5, 0, 20, 0.3, 10);
        const SpikeWindow empty(5);
        const SpikeWindow stranger = randomWindow(5, 0, 20, 0.3, 11);
        RasterPlot plot;
        plot.showSpikes(spike::ui::rasterModulesOf(*root), {{"a", "spikes", &a}, {"b", "spikes", &empty}, {"zz", "spikes", &stranger}},
                        kDt);
        QCOMPARE(plot.bandCount(), 1);
        QCOMPARE(plot.dotCount(), a.eventCount());
        plot.showSpikes(spike::ui::rasterModulesOf(*root), {}, kDt);
        QCOMPARE(plot.bandCount(), 0);
        QCOMPARE(plot.dotCount(), std::int64_t{0});

        const auto summary = spike::engine::summariseSpikes(SpikeWindows{{"a", "spikes", &a}});
        const auto fromDense = spike::engine::summariseSpikes(denseOf(SpikeWindows{{"a", "spikes", &a}}));
        QCOMPARE(summary.spikes, fromDense.spikes);
        QCOMPARE(summary.events, fromDense.events);
        QCOMPARE(summary.multi, fromDense.multi);
        QCOMPARE(summary.series, 1);
    }
};

QTEST_MAIN(TestRasterPlot)
#include "test_raster_plot.moc"
