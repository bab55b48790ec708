// RasterPlot: the widget, its axes and rate strip, and the assembly of bands (tree order, labels,
// ticks, dots or density) from spike windows; the drawing of each band and of the rate is in
// raster_plot_bands.cpp. See raster_plot.hpp. GUI thread only.
#include "ui/plots/raster_plot.hpp"

#include "ui/plots/plot_style.hpp"


#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace spike::ui {

namespace {

/// A band's label in the right margin (`room` px): "E (CUBALIF)" when it fits, else the name
/// alone, else the name wrapped and elided; never past the pane's edge.
QString fitModuleLabel(const QString& full, const QString& name, const QFont& font, int room)
{
    const QFontMetrics metrics(font);
    if (metrics.horizontalAdvance(full) <= room) {
        return full;
    }
    if (metrics.horizontalAdvance(name) <= room) {
        return name;
    }
    return wrapToWidth(name, font, room);
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

QSize RasterPlot::cellPixels()
{
    // The layout runs on replot; a hidden widget's resize() reaches no resizeEvent, so the
    // viewport may lag the widget.
    if (viewport() != rect() || axisRect()->width() <= 0 || axisRect()->height() <= 0) {
        setViewport(rect());
        updateLayout();
    }
    return axisRect()->rect().size();
}

void RasterPlot::removeContents(bool keepBands)
{
    if (!keepBands) {
        for (QCPAbstractPlottable* band : m_bands) {
            removePlottable(band);
        }
        m_bands.clear();
        m_density = false;
    }
    m_rate->data()->clear();
    clearItems();
    m_neuronTicker->clear();
    m_moduleTicker->clear();
}

void RasterPlot::setTimeAxis(const TimeAxis& axis)
{
    retitleTimeAxis(*xAxis, m_time, axis);
    m_time = axis;
}

void RasterPlot::showEmpty(const QString& title, const QString& explanation)
{
    removeContents();
    m_title->setText(title);
    xAxis->setLabel(explanation);
    yAxis->setRange(-0.5, 0.5);
    replot();
}

void RasterPlot::showRecording(const std::vector<RasterModule>& modules, const engine::Recording& recording)
{
    std::vector<engine::SpikeWindow> converted;
    engine::SpikeWindows windows;
    double dt = 0.0;
    for (const auto& [path, bySignal] : recording) {
        for (const auto& [signal, series] : bySignal) {
            if (series.spikes && series.data.rank() >= 1 && series.data.dim(0) > 0) {
                dt = dt > 0.0 ? dt : series.dt;
                windows.push_back({path, signal, nullptr});
            }
        }
    }
    converted.reserve(windows.size());
    for (engine::NamedSpikeWindow& named : windows) {
        converted.push_back(engine::SpikeWindow::fromDense(recording.at(named.path).at(named.signal)));
        named.window = &converted.back();
    }
    showSpikes(modules, windows, dt);
}

void RasterPlot::setNeuronSelection(const std::string& path, std::vector<std::int64_t> neurons)
{
    if (neurons.empty()) {
        m_selections.erase(path);
    } else {
        m_selections[path] = std::move(neurons);
    }
}

std::vector<std::int64_t> RasterPlot::neuronSelection(const std::string& path) const
{
    const auto found = m_selections.find(path);
    return found == m_selections.end() ? std::vector<std::int64_t>{} : found->second;
}

void RasterPlot::showSpikes(const std::vector<RasterModule>& modules, const engine::SpikeWindows& windows, double dt)
{
    std::vector<Band> bands;
    std::int64_t rows = 0;
    std::int64_t events = 0;
    std::int64_t spikes = 0;
    // A module with chosen neurons is drawn from a window of their events only (rows renumbered
    // 0..k-1, labelled with the neurons' own indices); rebuilt per frame, O(its events).
    m_selected.clear();
    m_selected.reserve(windows.size());
    for (const RasterModule& module : modules) {
        const std::string& pathStd = module.path;
        for (const engine::NamedSpikeWindow& named : windows) {
            if (named.path != pathStd || named.window == nullptr || named.window->steps() <= 0 ||
                named.window->width() <= 0) {
                continue;
            }
            Band band;
            QString label = pathStd.empty() ? tr("root") : QString::fromStdString(pathStd);
            if (named.signal != "spikes") {
                label += QLatin1Char('.') + QString::fromStdString(named.signal);
            }
            band.label = QStringLiteral("%1 (%2)").arg(label, module.className);
            band.name = label;
            band.window = named.window;
            if (const auto chosen = m_selections.find(pathStd); chosen != m_selections.end()) {
                const engine::SpikeWindow& all = *named.window;
                m_selectedRow.assign(static_cast<std::size_t>(all.width()), -1);
                for (std::size_t k = 0; k < chosen->second.size(); ++k) {
                    if (chosen->second[k] >= 0 && chosen->second[k] < all.width()) {
                        m_selectedRow[static_cast<std::size_t>(chosen->second[k])] = static_cast<std::int32_t>(k);
                    }
                }
                m_selectedEvents.clear();
                for (const engine::SpikeEvent& e : all.events()) {
                    if (const std::int32_t row = m_selectedRow[static_cast<std::size_t>(e.neuron)]; row >= 0) {
                        engine::SpikeEvent moved = e;
                        moved.neuron = row;
                        m_selectedEvents.push_back(moved);
                    }
                }
                engine::SpikeWindow& only = m_selected.emplace_back(static_cast<std::int64_t>(chosen->second.size()));
                only.restart(all.firstStep());
                only.append(m_selectedEvents, all.endStep());
                band.window = &only;
                band.neurons = &chosen->second;
                band.label = tr("%1 · %2/%3").arg(label).arg(chosen->second.size()).arg(all.width());
            }
            band.firstRow = rows;
            rows += band.window->width();
            events += band.window->eventCount();
            spikes += band.window->spikeCount();
            bands.push_back(band);
        }
    }
    if (bands.empty()) {
        showEmpty(tr("Spike raster"), tr("%1 — this model has no spiking module").arg(m_time.label()));
        return;
    }

    const bool density = events > kMaxDots || rows > kMaxDotRows;
    // The title and labels first: they take part in the layout that sizes the cells.
    const auto bandCount = static_cast<int>(bands.size());
    m_title->setText(tr("Spike raster\n%1 spikes from %2 neurons in %3 spiking module%4")
                         .arg(spikes)
                         .arg(rows)
                         .arg(bandCount)
                         .arg(bandCount == 1 ? QString() : QStringLiteral("s")));
    xAxis->setLabel(m_time.label());
    // Cells: aligned time bins of whole steps, as many as a window of these steps can touch
    // (at most one per pixel of the axis rect's width); neuron bins sharing its height by band
    // size.
    if (density) {
        const QSize pixels = cellPixels();
        const std::int64_t maxColumns =
            std::clamp<std::int64_t>(pixels.width(), kMinCellPixels, kMaxColumns);
        const std::int64_t maxRows = std::clamp<std::int64_t>(pixels.height(), kMinCellPixels, kMaxRows);
        for (Band& band : bands) {
            const std::int64_t steps = band.window->steps();
            const std::int64_t neurons = band.window->width();
            const auto touched = [steps](std::int64_t w) { return (steps + 2 * w - 2) / w; };
            band.stepsPerColumn = (steps + maxColumns - 1) / maxColumns;
            while (touched(band.stepsPerColumn) > maxColumns) {
                ++band.stepsPerColumn;
            }
            band.columns = touched(band.stepsPerColumn);
            band.cellRows = std::clamp<std::int64_t>(maxRows * neurons / rows, 1, neurons);
        }
    }
    m_densityCache.resize(density ? bands.size() : 0);
    // The colour maps of the last call are refilled when every band keeps its cell counts.
    bool reuse = density && m_density && m_bands.size() == bands.size();
    for (std::size_t b = 0; reuse && b < bands.size(); ++b) {
        auto* map = qobject_cast<QCPColorMap*>(m_bands[b]);
        reuse = map != nullptr && map->data()->keySize() == bands[b].columns &&
                map->data()->valueSize() == bands[b].cellRows;
    }
    removeContents(reuse);
    m_density = density;

    const int count = bandCount;
    const std::int64_t stride = labelStride(rows, std::clamp<std::int64_t>(axisRect()->height() / 18, 4, 24));
    const double dtMs = dt * m_time.perSecond;  // one step on the time axis
    double tMin = std::numeric_limits<double>::infinity();
    double tMax = -tMin;
    for (int b = 0; b < count; ++b) {
        const Band& band = bands[static_cast<std::size_t>(b)];
        const std::int64_t neurons = band.window->width();
        tMin = std::min(tMin, static_cast<double>(band.window->firstStep()) * dtMs);
        tMax = std::max(tMax, static_cast<double>(band.window->endStep()) * dtMs);
        if (m_density) {
            drawDensity(band, b, count, dtMs,
                        reuse ? static_cast<QCPColorMap*>(m_bands[static_cast<std::size_t>(b)]) : nullptr);
        } else {
            drawDots(band, b, count, dtMs);
        }

        for (std::int64_t n = 0; n < neurons; n += stride) {
            const std::int64_t shown = band.neurons != nullptr ? (*band.neurons)[static_cast<std::size_t>(n)] : n;
            m_neuronTicker->addTick(static_cast<double>(band.firstRow + n), QString::number(shown));
        }
        const double centre = static_cast<double>(band.firstRow) + static_cast<double>(neurons - 1) / 2.0;
        m_moduleTicker->addTick(centre, fitModuleLabel(band.label, band.name, yAxis2->tickLabelFont(),
                                                       kPlotRightMargin - yAxis2->tickLabelPadding() - 2));
        if (b % 2 == 1 && !m_density) {
            auto* shade = new QCPItemRect(this);
            shade->setLayer(QStringLiteral("grid"));
            shade->setPen(Qt::NoPen);
            shade->setBrush(QColor(0, 0, 0, 14));
            shade->topLeft->setTypeX(QCPItemPosition::ptAxisRectRatio);
            shade->bottomRight->setTypeX(QCPItemPosition::ptAxisRectRatio);
            shade->topLeft->setCoords(0.0, static_cast<double>(band.firstRow) - 0.5);
            shade->bottomRight->setCoords(1.0, static_cast<double>(band.firstRow + neurons) - 0.5);
        }
        if (b > 0) {
            auto* separator = new QCPItemStraightLine(this);
            separator->setPen(QPen(QColor(150, 150, 150), 1.0, Qt::DashLine));
            separator->point1->setCoords(0.0, static_cast<double>(band.firstRow) - 0.5);
            separator->point2->setCoords(1.0, static_cast<double>(band.firstRow) - 0.5);
        }
    }
    showRate(bands, rows, dt);

    yAxis->setRange(-0.5, static_cast<double>(rows) - 0.5);
    xAxis->setRange(tMin, tMax);
    replot(rpQueuedReplot);  // the caller's replot or the event loop draws it, once
}

}  // namespace spike::ui
