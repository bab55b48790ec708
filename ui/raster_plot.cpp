// RasterPlot. See raster_plot.hpp.
#include "raster_plot.hpp"

#include "plot_style.hpp"

#include "engine/module.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace spike::ui {

namespace {

/// One band of the raster: a spiking series and where its rows start.
struct Band {
    QString label;
    const engine::TimeSeries* series = nullptr;
    std::int64_t steps = 0;
    std::int64_t neurons = 0;
    std::int64_t firstRow = 0;
};

std::int64_t stepsOf(const engine::TimeSeries& s)
{
    return s.data.rank() >= 1 ? s.data.dim(0) : 0;
}

/// 1, 2, 5, 10, 20, 50... the smallest such step giving at most `maxLabels` labels over `rows`.
std::int64_t labelStride(std::int64_t rows, std::int64_t maxLabels)
{
    std::int64_t stride = 1;
    for (int i = 0; rows > stride * maxLabels; ++i) {
        stride = (i % 3 == 1) ? stride / 2 * 5 : stride * 2;
    }
    return stride;
}

}  // namespace

SpikeSummary summariseSpikes(const engine::Recording& recording)
{
    SpikeSummary out;
    for (const auto& [path, bySignal] : recording) {
        for (const auto& [attr, series] : bySignal) {
            if (!series.spikes) {
                continue;
            }
            ++out.series;
            const engine::Tensor& d = series.data;
            for (std::int64_t i = 0; i < d.numel(); ++i) {
                const float c = d[i];
                if (c > 0.0F) {
                    out.spikes += static_cast<std::int64_t>(std::llround(c));
                    ++out.events;
                    out.multi += c > 1.0F ? 1 : 0;
                }
            }
        }
    }
    return out;
}

RasterPlot::RasterPlot(QWidget* parent)
    : QCustomPlot(parent),
      m_neuronTicker(new QCPAxisTickerText),
      m_moduleTicker(new QCPAxisTickerText)
{
    m_title = setUpTimePlot(*this, tr("Spike raster"));
    yAxis->setLabel(tr("neuron"));
    yAxis->setRangeReversed(true);
    yAxis->setTicker(m_neuronTicker);
    yAxis->grid()->setVisible(false);
    yAxis2->setVisible(true);
    yAxis2->setRangeReversed(true);
    yAxis2->setTicker(m_moduleTicker);
    yAxis2->setTickLength(0, 0);
    yAxis2->setSubTicks(false);
    yAxis2->setTickLabelPadding(6);
    QFont moduleFont = font();
    moduleFont.setBold(true);
    yAxis2->setTickLabelFont(moduleFont);
    connect(yAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), yAxis2,
            qOverload<const QCPRange&>(&QCPAxis::setRange));

    // The population-rate strip: its own axis rect under the raster, same margins, time axis
    // following the raster's.
    m_rateRect = new QCPAxisRect(this);
    m_rateRect->setMaximumSize(QWIDGETSIZE_MAX, 80);
    m_rateRect->setMinimumSize(0, 60);
    m_rateRect->setAutoMargins(QCP::msTop | QCP::msBottom);
    m_rateRect->setMargins(QMargins(kPlotLeftMargin, 0, kPlotRightMargin, 0));
    m_rateRect->setRangeDrag(Qt::Horizontal);
    m_rateRect->setRangeZoom(Qt::Horizontal);
    const int rateRow = plotLayout()->rowCount();
    plotLayout()->addElement(rateRow, 0, m_rateRect);
    plotLayout()->setRowStretchFactor(rateRow, 0.25);
    auto* margins = new QCPMarginGroup(this);
    axisRect()->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    m_rateRect->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    QCPAxis* rateTime = m_rateRect->axis(QCPAxis::atBottom);
    QCPAxis* rateValue = m_rateRect->axis(QCPAxis::atLeft);
    rateValue->setLabel(tr("rate [Hz]"));
    rateValue->ticker()->setTickCount(3);
    rateTime->setTickLabels(false);
    m_rateRect->axis(QCPAxis::atRight)->setVisible(true);
    m_rateRect->axis(QCPAxis::atRight)->setTickLabels(false);
    m_rateRect->axis(QCPAxis::atRight)->setTicks(false);
    connect(xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), rateTime,
            qOverload<const QCPRange&>(&QCPAxis::setRange));
    connect(rateTime, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), xAxis,
            qOverload<const QCPRange&>(&QCPAxis::setRange));
    m_rate = addGraph(rateTime, rateValue);
    m_rate->setName(tr("population rate"));
    m_rate->setPen(QPen(QColor(0x33, 0x33, 0x33), 1.0));
    m_rate->setLineStyle(QCPGraph::lsStepCenter);
}

QString RasterPlot::title() const
{
    return m_title->text();
}

std::int64_t RasterPlot::dotCount() const
{
    std::int64_t n = 0;
    for (QCPAbstractPlottable* band : m_bands) {
        if (auto* g = qobject_cast<QCPGraph*>(band)) {
            n += g->data()->size();
        }
    }
    return n;
}

void RasterPlot::removeContents()
{
    for (QCPAbstractPlottable* band : m_bands) {
        removePlottable(band);
    }
    m_bands.clear();
    m_density = false;
    m_rate->data()->clear();
    clearItems();
    m_neuronTicker->clear();
    m_moduleTicker->clear();
}

void RasterPlot::showEmpty(const QString& title, const QString& explanation)
{
    removeContents();
    m_title->setText(title);
    xAxis->setLabel(explanation);
    yAxis->setRange(-0.5, 0.5);
    replot();
}

void RasterPlot::showRecording(const engine::Module& root, const engine::Recording& recording)
{
    removeContents();

    std::vector<Band> bands;
    std::int64_t rows = 0;
    for (const auto& [pathStd, module] : root.namedModules()) {
        const auto found = recording.find(pathStd);
        if (found == recording.end()) {
            continue;
        }
        for (const auto& [attr, series] : found->second) {
            const std::int64_t steps = stepsOf(series);
            if (!series.spikes || steps == 0) {
                continue;
            }
            Band band;
            QString label = pathStd.empty() ? tr("root") : QString::fromStdString(pathStd);
            if (attr != "spikes") {
                label += QLatin1Char('.') + QString::fromStdString(attr);
            }
            band.label = QStringLiteral("%1 (%2)").arg(label, QString::fromStdString(module->className()));
            band.series = &series;
            band.steps = steps;
            band.neurons = series.data.numel() / steps;
            band.firstRow = rows;
            rows += band.neurons;
            bands.push_back(band);
        }
    }
    if (bands.empty()) {
        showEmpty(tr("Spike raster"), tr("time [ms] — this model has no spiking module"));
        return;
    }

    const int count = static_cast<int>(bands.size());
    const std::int64_t stride = labelStride(rows, std::clamp<std::int64_t>(axisRect()->height() / 18, 4, 24));
    std::int64_t events = 0;
    for (const Band& band : bands) {
        const float* d = band.series->data.data();
        for (std::int64_t i = 0; i < band.steps * band.neurons; ++i) {
            events += d[i] > 0.0F ? 1 : 0;
        }
    }
    m_density = events > kMaxDots || rows > kMaxDotRows;
    double tMin = std::numeric_limits<double>::infinity();
    double tMax = -tMin;
    std::int64_t spikes = 0;
    std::vector<const engine::TimeSeries*> all;
    for (int b = 0; b < count; ++b) {
        const Band& band = bands[static_cast<std::size_t>(b)];
        const engine::TimeSeries& s = *band.series;
        all.push_back(&s);
        const double dtMs = s.dt * 1e3;
        const double t0Ms = s.tStart * 1e3;
        tMin = std::min(tMin, t0Ms);
        tMax = std::max(tMax, t0Ms + static_cast<double>(band.steps) * dtMs);
        const QColor colour = seriesColour(b, count);
        const float* d = s.data.data();
        if (m_density) {
            // Cells: time bins of whole steps, neuron bins sharing kMaxRows by band size.
            const std::int64_t stepsPerColumn = (band.steps + kMaxColumns - 1) / kMaxColumns;
            const std::int64_t columns = (band.steps + stepsPerColumn - 1) / stepsPerColumn;
            const std::int64_t bandRows = std::clamp<std::int64_t>(kMaxRows * band.neurons / rows, 1, band.neurons);
            auto* map = new QCPColorMap(xAxis, yAxis);
            map->setName(band.label);
            map->data()->setSize(static_cast<int>(columns), static_cast<int>(bandRows));
            const double columnMs = static_cast<double>(stepsPerColumn) * dtMs;
            const double rowHeight = static_cast<double>(band.neurons) / static_cast<double>(bandRows);
            map->data()->setRange(
                QCPRange(t0Ms + 0.5 * columnMs, t0Ms + (static_cast<double>(columns) - 0.5) * columnMs),
                QCPRange(static_cast<double>(band.firstRow) - 0.5 + 0.5 * rowHeight,
                         static_cast<double>(band.firstRow) - 0.5 + (static_cast<double>(bandRows) - 0.5) * rowHeight));
            std::vector<double> cells(static_cast<std::size_t>(columns * bandRows), 0.0);
            for (std::int64_t t = 0; t < band.steps; ++t) {
                const std::int64_t column = t / stepsPerColumn;
                for (std::int64_t n = 0; n < band.neurons; ++n) {
                    const float c = d[t * band.neurons + n];
                    if (c > 0.0F) {
                        cells[static_cast<std::size_t>(column * bandRows + n * bandRows / band.neurons)] += c;
                        spikes += static_cast<std::int64_t>(std::llround(c));
                    }
                }
            }
            std::vector<double> filled;
            for (std::int64_t x = 0; x < columns; ++x) {
                for (std::int64_t y = 0; y < bandRows; ++y) {
                    const double v = cells[static_cast<std::size_t>(x * bandRows + y)];
                    map->data()->setCell(static_cast<int>(x), static_cast<int>(y), v);
                    if (v > 0.0) {
                        filled.push_back(v);
                    }
                }
            }
            // Full colour at the 98th percentile of the filled cells, so a few busy cells do not
            // wash out the rest.
            double peak = 1.0;
            if (!filled.empty()) {
                const auto at = filled.begin() + static_cast<std::ptrdiff_t>(0.98 * static_cast<double>(filled.size() - 1));
                std::nth_element(filled.begin(), at, filled.end());
                peak = std::max(*at, 1.0);
            }
            QCPColorGradient gradient;
            gradient.clearColorStops();
            gradient.setColorStopAt(0.0, Qt::white);
            gradient.setColorStopAt(1.0, colour);
            map->setGradient(gradient);
            map->setInterpolate(false);
            map->setDataRange(QCPRange(0.0, peak));
            m_bands.push_back(map);
        } else {
            QVector<QCPGraphData> dots;
            for (std::int64_t t = 0; t < band.steps; ++t) {
                const double x = t0Ms + static_cast<double>(t) * dtMs;
                for (std::int64_t n = 0; n < band.neurons; ++n) {
                    const float c = d[t * band.neurons + n];
                    if (c > 0.0F) {
                        dots.append(QCPGraphData(x, static_cast<double>(band.firstRow + n)));
                        spikes += static_cast<std::int64_t>(std::llround(c));
                    }
                }
            }
            QCPGraph* graph = addGraph();
            graph->setName(band.label);
            graph->setLineStyle(QCPGraph::lsNone);
            graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, colour, colour, 3));
            graph->setAdaptiveSampling(true);
            graph->data()->set(dots, true);
            m_bands.push_back(graph);
        }

        for (std::int64_t n = 0; n < band.neurons; n += stride) {
            m_neuronTicker->addTick(static_cast<double>(band.firstRow + n), QString::number(n));
        }
        const double centre = static_cast<double>(band.firstRow) +
                              static_cast<double>(band.neurons - 1) / 2.0;
        m_moduleTicker->addTick(centre, band.label);
        if (b % 2 == 1 && !m_density) {
            auto* shade = new QCPItemRect(this);
            shade->setLayer(QStringLiteral("grid"));
            shade->setPen(Qt::NoPen);
            shade->setBrush(QColor(0, 0, 0, 14));
            shade->topLeft->setTypeX(QCPItemPosition::ptAxisRectRatio);
            shade->bottomRight->setTypeX(QCPItemPosition::ptAxisRectRatio);
            shade->topLeft->setCoords(0.0, static_cast<double>(band.firstRow) - 0.5);
            shade->bottomRight->setCoords(1.0, static_cast<double>(band.firstRow + band.neurons) - 0.5);
        }
        if (b > 0) {
            auto* separator = new QCPItemStraightLine(this);
            separator->setPen(QPen(QColor(150, 150, 150), 1.0, Qt::DashLine));
            separator->point1->setCoords(0.0, static_cast<double>(band.firstRow) - 0.5);
            separator->point2->setCoords(1.0, static_cast<double>(band.firstRow) - 0.5);
        }
    }
    showRate(all, rows);

    m_title->setText(tr("Spike raster\n%1 spikes from %2 neurons in %3 spiking module%4")
                         .arg(spikes)
                         .arg(rows)
                         .arg(count)
                         .arg(count == 1 ? QString() : QStringLiteral("s")));
    xAxis->setLabel(tr("time [ms]"));
    yAxis->setRange(-0.5, static_cast<double>(rows) - 0.5);
    xAxis->setRange(tMin, tMax);
    replot();
}

void RasterPlot::showRate(const std::vector<const engine::TimeSeries*>& series, std::int64_t neurons)
{
    // Bins of whole steps on the first series' time base; every series adds its spikes by time.
    const engine::TimeSeries& first = *series.front();
    double tMin = std::numeric_limits<double>::infinity();
    double tMax = -tMin;
    for (const engine::TimeSeries* s : series) {
        tMin = std::min(tMin, s->tStart);
        tMax = std::max(tMax, s->tStart + static_cast<double>(stepsOf(*s)) * s->dt);
    }
    const auto steps = static_cast<std::int64_t>(std::llround((tMax - tMin) / first.dt));
    if (steps <= 0 || neurons <= 0) {
        m_rate->data()->clear();
        return;
    }
    const std::int64_t stepsPerBin = (steps + kMaxColumns - 1) / kMaxColumns;
    const std::int64_t bins = (steps + stepsPerBin - 1) / stepsPerBin;
    std::vector<double> counts(static_cast<std::size_t>(bins), 0.0);
    for (const engine::TimeSeries* s : series) {
        const std::int64_t n = stepsOf(*s) > 0 ? s->data.numel() / stepsOf(*s) : 0;
        const auto offset = static_cast<std::int64_t>(std::llround((s->tStart - tMin) / first.dt));
        const float* d = s->data.data();
        for (std::int64_t t = 0; t < stepsOf(*s); ++t) {
            double sum = 0.0;
            for (std::int64_t k = 0; k < n; ++k) {
                sum += d[t * n + k];
            }
            const std::int64_t bin = std::clamp<std::int64_t>((t + offset) / stepsPerBin, 0, bins - 1);
            counts[static_cast<std::size_t>(bin)] += sum;
        }
    }
    const double binSeconds = static_cast<double>(stepsPerBin) * first.dt;
    QVector<QCPGraphData> points;
    points.reserve(static_cast<int>(bins));
    double peak = 0.0;
    for (std::int64_t b = 0; b < bins; ++b) {
        const double rate = counts[static_cast<std::size_t>(b)] / (static_cast<double>(neurons) * binSeconds);
        peak = std::max(peak, rate);
        points.append(QCPGraphData((tMin + (static_cast<double>(b) + 0.5) * binSeconds) * 1e3, rate));
    }
    m_rate->data()->set(points, true);
    m_rate->valueAxis()->setRange(0.0, peak > 0.0 ? peak * 1.1 : 1.0);
}

}  // namespace spike::ui
