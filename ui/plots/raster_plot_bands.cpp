// RasterPlot's drawing of one band (dots or density cells) and of the rate strip, all binned from
// spike events: the cost is the events plus the cells or bins, never steps x neurons. See
// raster_plot.hpp. GUI thread only.
#include "ui/plots/raster_plot.hpp"

#include "ui/plots/plot_style.hpp"

#include <algorithm>
#include <limits>
#include <vector>

namespace spike::ui {

void RasterPlot::drawDots(const Band& band, int index, int count, double dtMs)
{
    const std::span<const engine::SpikeEvent> events = band.window->events();
    QVector<QCPGraphData> dots;
    dots.reserve(static_cast<int>(events.size()));
    const auto firstRow = static_cast<double>(band.firstRow);
    for (const engine::SpikeEvent& e : events) {
        dots.append(QCPGraphData(static_cast<double>(e.step) * dtMs,
                                 firstRow + static_cast<double>(e.neuron)));
    }
    const QColor colour = seriesColour(index, count);
    QCPGraph* graph = addGraph();
    graph->setName(band.label);
    graph->setLineStyle(QCPGraph::lsNone);
    graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, colour, colour, 3));
    graph->setAdaptiveSampling(true);
    graph->data()->set(dots, true);
    m_bands.push_back(graph);
}

void RasterPlot::drawDensity(const Band& band, int index, int count, double dtMs, QCPColorMap* map)
{
    const engine::SpikeWindow& window = *band.window;
    const std::int64_t neurons = window.width();
    const std::int64_t columns = band.columns;
    const std::int64_t cellRows = band.cellRows;
    const std::int64_t perColumn = band.stepsPerColumn;
    if (map == nullptr) {
        map = new QCPColorMap(xAxis, yAxis);
        map->data()->setSize(static_cast<int>(columns), static_cast<int>(cellRows));
        map->setInterpolate(false);
        m_bands.push_back(map);
    }
    map->setName(band.label);
    // Floor division: a recording may start before step 0.
    const std::int64_t firstStep = window.firstStep();
    const std::int64_t firstColumn = firstStep / perColumn - (firstStep % perColumn < 0 ? 1 : 0);
    const double t0Ms = static_cast<double>(firstColumn * perColumn) * dtMs;
    const double columnMs = static_cast<double>(perColumn) * dtMs;
    const double rowHeight = static_cast<double>(neurons) / static_cast<double>(cellRows);
    const double top = static_cast<double>(band.firstRow) - 0.5;
    map->data()->setRange(
        QCPRange(t0Ms + 0.5 * columnMs, t0Ms + (static_cast<double>(columns) - 0.5) * columnMs),
        QCPRange(top + 0.5 * rowHeight, top + (static_cast<double>(cellRows) - 0.5) * rowHeight));

    // Bins whose steps the last frame binned are copied from it (same window content, same
    // sizes); the others are binned from their events, the column found once per step and the
    // row from a table. Cells are stored row by row, as the colour map stores them, so every
    // pass over them is sequential. The scratch spans and cells are members swapped with the
    // cache: a frame allocates nothing once the sizes settle.
    DensityCache& cache = m_densityCache[static_cast<std::size_t>(index)];
    const bool sameBasis = cache.windowId == window.id() && cache.stepsPerColumn == perColumn &&
                           cache.cellRows == cellRows;
    if (static_cast<std::int64_t>(m_rowOf.size()) != neurons || !sameBasis) {
        m_rowOf.resize(static_cast<std::size_t>(neurons));
        for (std::int64_t n = 0; n < neurons; ++n) {
            m_rowOf[static_cast<std::size_t>(n)] = static_cast<std::int32_t>(n * cellRows / neurons);
        }
    }
    const auto cached = static_cast<std::int64_t>(cache.spans.size());
    m_spans.assign(static_cast<std::size_t>(columns), {0, 0});
    m_keptColumn.assign(static_cast<std::size_t>(columns), -1);
    for (std::int64_t k = 0; k < columns; ++k) {
        const std::int64_t c = firstColumn + k;
        const std::int64_t from = std::max(c * perColumn, window.firstStep());
        const std::int64_t to = std::min((c + 1) * perColumn, window.endStep());
        if (from >= to) {
            continue;
        }
        m_spans[static_cast<std::size_t>(k)] = {from, to};
        const std::int64_t old = c - cache.firstColumn;
        if (sameBasis && old >= 0 && old < cached &&
            cache.spans[static_cast<std::size_t>(old)] == std::make_pair(from, to)) {
            m_keptColumn[static_cast<std::size_t>(k)] = old;
        }
    }
    m_cells.resize(static_cast<std::size_t>(columns * cellRows));
    const std::int64_t* keptColumn = m_keptColumn.data();
    for (std::int64_t y = 0; y < cellRows; ++y) {
        double* row = m_cells.data() + y * columns;
        const double* oldRow = sameBasis ? cache.cells.data() + y * cached : nullptr;
        for (std::int64_t k = 0; k < columns; ++k) {
            row[k] = keptColumn[k] >= 0 ? oldRow[keptColumn[k]] : 0.0;
        }
    }
    const std::int32_t* rowOf = m_rowOf.data();
    for (std::int64_t k = 0; k < columns; ++k) {
        const auto [from, to] = m_spans[static_cast<std::size_t>(k)];
        if (from >= to || keptColumn[k] >= 0) {
            continue;
        }
        double* column = m_cells.data() + k;
        const auto bin = [&](std::int64_t, std::span<const engine::SpikeEvent> events, std::int64_t) {
            for (const engine::SpikeEvent& e : events) {
                column[static_cast<std::int64_t>(rowOf[e.neuron]) * columns] += static_cast<double>(e.count);
            }
        };
        window.forEachStepIn(from, to, bin);
    }
    cache.windowId = window.id();
    cache.stepsPerColumn = perColumn;
    cache.cellRows = cellRows;
    cache.firstColumn = firstColumn;
    cache.spans.swap(m_spans);
    cache.cells.swap(m_cells);

    // Full colour at the 98th percentile of the filled cells, so a few busy cells do not wash
    // out the rest. Cells hold whole spike counts: a histogram of the counts below
    // kPeakHistogram (one increment per cell, no sort) finds it exactly; the rare cells above
    // are kept aside and only they are partially sorted when the percentile falls among them.
    m_peakHistogram.assign(static_cast<std::size_t>(kPeakHistogram), 0);
    m_largeCells.clear();
    std::int64_t filled = 0;
    std::int64_t* histogram = m_peakHistogram.data();
    QCPColorMapData* data = map->data();
    const double* cell = cache.cells.data();
    for (std::int64_t y = 0; y < cellRows; ++y) {
        for (std::int64_t x = 0; x < columns; ++x, ++cell) {
            const double value = *cell;
            data->setCell(static_cast<int>(x), static_cast<int>(y), value);
            if (value <= 0.0) {
                continue;
            }
            ++filled;
            if (value < static_cast<double>(kPeakHistogram)) {
                ++histogram[static_cast<std::size_t>(value)];
            } else {
                m_largeCells.push_back(value);
            }
        }
    }
    double peak = 1.0;
    if (filled > 0) {
        auto rank = static_cast<std::int64_t>(0.98 * static_cast<double>(filled - 1));
        std::int64_t spikes = 0;
        for (; spikes < kPeakHistogram && rank >= histogram[static_cast<std::size_t>(spikes)]; ++spikes) {
            rank -= histogram[static_cast<std::size_t>(spikes)];
        }
        if (spikes < kPeakHistogram) {
            peak = static_cast<double>(spikes);
        } else {
            const auto at = m_largeCells.begin() + static_cast<std::ptrdiff_t>(rank);
            std::nth_element(m_largeCells.begin(), at, m_largeCells.end());
            peak = *at;
        }
        peak = std::max(peak, 1.0);
    }
    QCPColorGradient gradient;
    gradient.clearColorStops();
    gradient.setColorStopAt(0.0, Qt::white);
    gradient.setColorStopAt(1.0, seriesColour(index, count));
    map->setGradient(gradient);
    map->setDataRange(QCPRange(0.0, peak));
}

void RasterPlot::showRate(const std::vector<Band>& bands, std::int64_t neurons, double dt)
{
    // Bins of whole steps from the earliest window start; every event adds its count by step.
    std::int64_t first = std::numeric_limits<std::int64_t>::max();
    std::int64_t end = std::numeric_limits<std::int64_t>::min();
    for (const Band& band : bands) {
        first = std::min(first, band.window->firstStep());
        end = std::max(end, band.window->endStep());
    }
    const std::int64_t steps = end - first;
    if (steps <= 0 || neurons <= 0 || dt <= 0.0) {
        m_rate->data()->clear();
        return;
    }
    const std::int64_t stepsPerBin = (steps + kMaxColumns - 1) / kMaxColumns;
    const std::int64_t bins = (steps + stepsPerBin - 1) / stepsPerBin;
    std::vector<double> counts(static_cast<std::size_t>(bins), 0.0);
    for (const Band& band : bands) {
        const auto add = [&](std::int64_t step, std::span<const engine::SpikeEvent>, std::int64_t spikes) {
            counts[static_cast<std::size_t>((step - first) / stepsPerBin)] += static_cast<double>(spikes);
        };
        band.window->forEachStep(add);
    }
    const double binSeconds = static_cast<double>(stepsPerBin) * dt;
    const double t0 = static_cast<double>(first) * dt;
    QVector<QCPGraphData> points;
    points.reserve(static_cast<int>(bins));
    double peak = 0.0;
    for (std::int64_t b = 0; b < bins; ++b) {
        const double rate = counts[static_cast<std::size_t>(b)] / (static_cast<double>(neurons) * binSeconds);
        peak = std::max(peak, rate);
        points.append(QCPGraphData((t0 + (static_cast<double>(b) + 0.5) * binSeconds) * m_time.perSecond, rate));
    }
    m_rate->data()->set(points, true);
    m_rate->valueAxis()->setRange(0.0, peak > 0.0 ? peak * 1.1 : 1.0);
}

}  // namespace spike::ui
