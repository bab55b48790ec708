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
}

QString RasterPlot::title() const
{
    return m_title->text();
}

std::int64_t RasterPlot::dotCount() const
{
    std::int64_t n = 0;
    for (int i = 0; i < graphCount(); ++i) {
        n += graph(i)->data()->size();
    }
    return n;
}

void RasterPlot::removeContents()
{
    clearGraphs();
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
    const std::int64_t stride = labelStride(rows, 24);
    double tMin = std::numeric_limits<double>::infinity();
    double tMax = -tMin;
    std::int64_t spikes = 0;
    for (int b = 0; b < count; ++b) {
        const Band& band = bands[static_cast<std::size_t>(b)];
        const engine::TimeSeries& s = *band.series;
        const double dtMs = s.dt * 1e3;
        const double t0Ms = s.tStart * 1e3;
        tMin = std::min(tMin, t0Ms);
        tMax = std::max(tMax, t0Ms + static_cast<double>(band.steps) * dtMs);

        QVector<QCPGraphData> dots;
        const float* d = s.data.data();
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
        const QColor colour = seriesColour(b, count);
        QCPGraph* graph = addGraph();
        graph->setName(band.label);
        graph->setLineStyle(QCPGraph::lsNone);
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, colour, colour, 3));
        graph->data()->set(dots, true);

        for (std::int64_t n = 0; n < band.neurons; n += stride) {
            m_neuronTicker->addTick(static_cast<double>(band.firstRow + n), QString::number(n));
        }
        const double centre = static_cast<double>(band.firstRow) +
                              static_cast<double>(band.neurons - 1) / 2.0;
        m_moduleTicker->addTick(centre, band.label);
        if (b % 2 == 1) {
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

}  // namespace spike::ui
