// TracePlot's density view: the colour map, its colour scale, the mean graph and the hidden
// per-trace graphs for CSV export. See trace_plot.hpp. Thread: GUI thread only.
#include "ui/plots/trace_plot.hpp"

#include "ui/plots/plot_style.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace spike::ui {

namespace {

/// Pale to deep blue: empty cells stay white (transparent), the red mean line stands out.
QCPColorGradient densityGradient()
{
    QCPColorGradient gradient;
    gradient.clearColorStops();
    gradient.setColorStopAt(0.0, QColor(0xd6, 0xe6, 0xf4));
    gradient.setColorStopAt(0.35, QColor(0x8c, 0xbf, 0xdd));
    gradient.setColorStopAt(0.7, QColor(0x3a, 0x85, 0xc0));
    gradient.setColorStopAt(1.0, QColor(0x08, 0x3d, 0x7f));
    gradient.setNanHandling(QCPColorGradient::nhTransparent);
    return gradient;
}

}  // namespace

int TracePlot::densityColumns(int paneWidth, std::int64_t steps)
{
    if (steps <= 0) {
        return 0;
    }
    const int axisWidth = std::max(paneWidth - kPlotLeftMargin - kPlotRightMargin, 1);
    return static_cast<int>(std::min<std::int64_t>(axisWidth, steps));
}

int TracePlot::densityBins(int paneHeight)
{
    // Title, time axis and colour scale take about 110 px; about one bin per 2 px of the rest.
    return std::clamp((paneHeight - 110) / 2, 16, 400);
}

void TracePlot::setColourScaleShown(bool shown)
{
    if (shown && !m_scaleInLayout) {
        m_scale = new QCPColorScale(this);
        m_scale->setType(QCPAxis::atBottom);
        m_scale->setBarWidth(7);
        m_scale->setAutoMargins(QCP::msTop | QCP::msBottom);
        m_scale->setMargins(QMargins(kPlotLeftMargin, 0, kPlotRightMargin, 0));
        m_scale->setGradient(densityGradient());
        m_scale->axis()->setLabel(tr("traces per cell"));
        m_scale->axis()->setTicker(QSharedPointer<ReadableTicker>::create(m_scale->axis()));
        m_scale->setRangeDrag(false);
        m_scale->setRangeZoom(false);
        const int row = plotLayout()->rowCount();
        plotLayout()->addElement(row, 0, m_scale);
        plotLayout()->setRowStretchFactor(row, 0.001);
        m_scaleInLayout = true;
    } else if (!shown && m_scaleInLayout) {
        plotLayout()->remove(m_scale);
        plotLayout()->simplify();
        m_scale = nullptr;
        m_scaleInLayout = false;
    }
}

void TracePlot::removeSampleGraphs()
{
    m_idleExport.stop();
    for (QCPGraph* graph : m_sampleGraphs) {
        removeGraph(graph);
    }
    m_sampleGraphs.clear();
}

void TracePlot::removeDensity()
{
    removeSampleGraphs();
    if (m_mean != nullptr) {
        removeGraph(m_mean);
        m_mean = nullptr;
    }
    if (m_map != nullptr) {
        removePlottable(m_map);
        m_map = nullptr;
    }
    setColourScaleShown(false);
    m_samples.clear();
    m_samples.shrink_to_fit();
    m_keptOffset = 0;
    m_keptSteps = 0;
    m_densitySource.clear();
    m_densityNeurons.clear();
    m_names.clear();
    m_density = TraceDensity();
}

void TracePlot::keepSamples(const float* samples, bool reuse)
{
    const auto traces = static_cast<std::int64_t>(m_traces);
    const auto rowFloats = static_cast<std::size_t>(traces);
    if (m_steps * traces > kMaxKeptSamples || m_steps == 0) {
        m_samples.clear();
        m_keptOffset = 0;
        m_keptSteps = 0;
        return;
    }
    const std::int64_t keptEnd = m_keptFirst + m_keptSteps;
    const std::int64_t end = m_firstStep + m_steps;
    // The copy's last row must still be there, unchanged, for the copy to be kept.
    bool extend = reuse && m_keptSteps > 0 && m_firstStep >= m_keptFirst && keptEnd <= end && keptEnd > m_firstStep;
    if (extend) {
        const float* lastKept = keptSamples() + static_cast<std::size_t>(m_keptSteps - 1) * rowFloats;
        const float* lastNew = samples + (keptEnd - 1 - m_firstStep) * traces;
        extend = std::memcmp(lastKept, lastNew, rowFloats * sizeof(float)) == 0;
    }
    if (!extend) {
        m_samples.assign(samples, samples + m_steps * traces);
        m_keptOffset = 0;
    } else {
        // Drop the rows that left the window (compacted once they outnumber the rows kept),
        // then append the new ones.
        m_keptOffset += static_cast<std::size_t>(m_firstStep - m_keptFirst) * rowFloats;
        if (m_keptOffset > m_samples.size() - m_keptOffset) {
            m_samples.erase(m_samples.begin(), m_samples.begin() + static_cast<std::ptrdiff_t>(m_keptOffset));
            m_keptOffset = 0;
        }
        m_samples.insert(m_samples.end(), samples + (keptEnd - m_firstStep) * traces, samples + m_steps * traces);
    }
    m_keptFirst = m_firstStep;
    m_keptSteps = m_steps;
}

QCPRange TracePlot::measureDensity(const float* samples, bool reuse)
{
    removeSampleGraphs();
    if (m_map == nullptr) {
        // Created in this order so the mean line is drawn over the cells.
        m_map = new QCPColorMap(xAxis, yAxis);
        m_map->setName(tr("traces per cell"));
        m_map->setInterpolate(false);
        m_map->setTightBoundary(false);
        m_mean = addGraph();
        m_mean->setName(tr("mean"));
        m_mean->setPen(QPen(QColor(0xd6, 0x27, 0x28), 1.8));
        m_mean->setAdaptiveSampling(true);
        setColourScaleShown(true);
        m_map->setColorScale(m_scale);
    }
    const auto traces = static_cast<std::int64_t>(m_traces);
    m_density.update(samples, m_firstStep, m_steps, traces, densityColumns(width(), m_steps), reuse);

    // The mean line: one point per step, on the same time stamps as the samples.
    const auto container = m_mean->data();
    if (container->size() == m_steps) {
        auto it = container->begin();
        for (std::int64_t t = 0; t < m_steps; ++t, ++it) {
            it->key = m_t0Ms + static_cast<double>(t) * m_dtMs;
            it->value = m_density.stepMean(t);
        }
    } else {
        m_points.resize(static_cast<qsizetype>(m_steps));
        for (std::int64_t t = 0; t < m_steps; ++t) {
            m_points[static_cast<qsizetype>(t)] =
                QCPGraphData(m_t0Ms + static_cast<double>(t) * m_dtMs, m_density.stepMean(t));
        }
        container->set(m_points, true);
    }
    setNotAntialiasedElements(QCP::aePlottables);
    if (keptSamples() != nullptr) {
        m_idleExport.start();
    }
    return {m_density.dataMin(), m_density.dataMax()};
}

void TracePlot::fillDensityMap(double low, double high)
{
    m_binLow = low;
    m_binHigh = high;
    const int bins = densityBins(height());
    m_density.bin(bins, low, high);
    const int columns = m_density.columns();
    QCPColorMapData* cells = m_map->data();
    cells->setSize(columns, bins);
    // Column c holds the samples of absolute steps [j k, (j+1) k) for j = firstColumn + c,
    // drawn at t0 + (step - first) dt: its cell spans from half a step before step j k to half a
    // step before step (j+1) k (the partial first and last columns overhang the data).
    const auto perColumn = static_cast<double>(m_density.stepsPerColumn());
    const double columnMs = perColumn * m_dtMs;
    const auto firstColumnStep = static_cast<double>(m_density.firstColumn() * m_density.stepsPerColumn() - m_firstStep);
    const double firstCentre = m_t0Ms + (firstColumnStep + 0.5 * perColumn - 0.5) * m_dtMs;
    const double binHeight = (high - low) / static_cast<double>(bins);
    cells->setRange(QCPRange(firstCentre, firstCentre + (static_cast<double>(columns) - 1.0) * columnMs),
                    QCPRange(low + 0.5 * binHeight, high - 0.5 * binHeight));
    const double empty = std::numeric_limits<double>::quiet_NaN();
    for (int c = 0; c < columns; ++c) {
        for (int b = 0; b < bins; ++b) {
            const int count = m_density.count(c, b);
            cells->setCell(c, b, count > 0 ? static_cast<double>(count) : empty);
        }
    }
    m_map->setGradient(densityGradient());
    // Colours spread over the bulk of the non-empty cells (10 % to 99.5 %): when every column
    // holds a few full-height resets the busy cells still stand out; any non-empty cell keeps at
    // least the palest colour.
    const double lowest = std::max(0.9, 0.9 * static_cast<double>(m_density.countQuantile(0.1)));
    const double highest = std::max(static_cast<double>(m_density.countQuantile(0.995)), 2.0 * lowest);
    m_map->setDataRange(QCPRange(lowest, highest));
}

void TracePlot::prepareExport()
{
    const float* samples = keptSamples();
    if (!densityMode() || !m_sampleGraphs.empty() || samples == nullptr) {
        return;
    }
    const auto traces = static_cast<std::int64_t>(m_traces);
    m_points.resize(static_cast<qsizetype>(m_steps));
    for (std::int64_t n = 0; n < traces; ++n) {
        for (std::int64_t t = 0; t < m_steps; ++t) {
            m_points[static_cast<qsizetype>(t)] =
                QCPGraphData(m_t0Ms + static_cast<double>(t) * m_dtMs,
                             samples[t * traces + n]);
        }
        QCPGraph* graph = addGraph();
        graph->setName(m_names[static_cast<std::size_t>(n)]);
        graph->setVisible(false);
        graph->data()->set(m_points, true);
        m_sampleGraphs.push_back(graph);
    }
}

void TracePlot::resizeEvent(QResizeEvent* event)
{
    QCustomPlot::resizeEvent(event);
    // The density resolution follows the pane's size.
    if (!densityMode() || keptSamples() == nullptr) {
        return;
    }
    if (TraceDensity::stepsPerColumn(m_steps, densityColumns(width(), m_steps)) == m_density.stepsPerColumn() &&
        densityBins(height()) == m_density.bins()) {
        return;
    }
    const bool hadExport = !m_sampleGraphs.empty();
    measureDensity(keptSamples(), true);
    fillDensityMap(m_binLow, m_binHigh);
    if (hadExport) {
        prepareExport();
    }
    replot(rpQueuedReplot);
}

}  // namespace spike::ui
