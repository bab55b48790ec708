// TracePlot: construction, updates, thresholds, the line view, freeze and the cursor. The
// density view's members live in trace_plot_density.cpp. See trace_plot.hpp.
#include "ui/plots/trace_plot.hpp"

#include "ui/plots/plot_style.hpp"

#include "engine/core/recording.hpp"

#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>
#include <variant>

namespace spike::ui {

namespace {

/// Traces above this many points per trace, or more than this many traces, draw without
/// antialiasing.
constexpr int kDenseTraces = 16;

}  // namespace

TracePlot::TracePlot(QWidget* parent) : QCustomPlot(parent)
{
    m_title = setUpTimePlot(*this, tr("Membrane potential"));
    m_baseTitle = m_title->text();
    axisRect()->setRangeDrag(Qt::Horizontal | Qt::Vertical);
    // The wheel zooms time (the axis every pane shares); with Ctrl held, the value axis.
    axisRect()->setRangeZoom(Qt::Horizontal);
    connect(this, &QCustomPlot::mouseWheel, this, [this](QWheelEvent* event) {
        axisRect()->setRangeZoom((event->modifiers() & Qt::ControlModifier) != 0 ? Qt::Vertical : Qt::Horizontal);
    });
    // Solid 1 px polylines without join handling: an order of magnitude faster on dense data.
    setPlottingHint(QCP::phFastPolylines, true);
    setAutoAddPlottableToLegend(false);
    axisRect()->insetLayout()->take(legend);
    legend->setVisible(false);
    legend->setBorderPen(Qt::NoPen);
    legend->setBrush(Qt::NoBrush);
    legend->setIconSize(18, 8);
    legend->setRowSpacing(0);
    legend->setColumnSpacing(10);
    legend->setWrap(kMaxLegendEntries / 2);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    yAxis->setLabel(tr("membrane potential"));
    m_valueTicker = QSharedPointer<ScaledTicker>::create();
    yAxis->setTicker(m_valueTicker);
    // As many legend columns as whole entries fit across the pane (never squeezed to "n n n").
    connect(this, &QCustomPlot::beforeReplot, this, [this] {
        if (!m_legendInLayout || legend->itemCount() == 0) {
            return;
        }
        const QFontMetrics metrics(legend->font());
        int widest = 0;
        for (int i = 0; i < legend->itemCount(); ++i) {
            if (auto* entry = qobject_cast<QCPPlottableLegendItem*>(legend->item(i))) {
                widest = std::max(widest, metrics.horizontalAdvance(entry->plottable()->name()));
            }
        }
        const QMargins m = legend->margins();
        const int entry = legend->iconSize().width() + legend->iconTextPadding() + widest +
                          legend->columnSpacing() + 8;  // 8: the entry's own margins
        const int columns = std::clamp((width() - m.left() - m.right()) / std::max(entry, 1), 1, kMaxLegendEntries / 2);
        if (columns != legend->wrap()) {
            legend->setWrap(columns);
            legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
        }
    });
    // Clicking a legend entry hides or shows that neuron's trace (dense layers overlap).
    connect(this, &QCustomPlot::legendClick, this,
            [this](QCPLegend*, QCPAbstractLegendItem* item, QMouseEvent*) {
                auto* entry = qobject_cast<QCPPlottableLegendItem*>(item);
                if (entry == nullptr) {
                    return;
                }
                QCPAbstractPlottable* trace = entry->plottable();
                trace->setVisible(!trace->visible());
                entry->setTextColor(trace->visible() ? QColor(Qt::black) : QColor(Qt::gray));
                replot();
            });
    // A value range the user zoomed or dragged to is kept by later updates.
    connect(yAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, [this] {
        if (!m_settingValueRange) {
            m_userValueRange = true;
        }
    });

    // The cursor lives on the overlay layer, which is buffered on its own and replotted alone.
    QCPLayer* overlay = layer(QStringLiteral("overlay"));
    overlay->setMode(QCPLayer::lmBuffered);
    m_cursorLine = new QCPItemStraightLine(this);
    m_cursorLine->setLayer(overlay);
    m_cursorLine->setPen(QPen(QColor(90, 90, 90), 1.0));
    m_cursorLine->setVisible(false);
    m_cursorText = new QCPItemText(this);
    m_cursorText->setLayer(overlay);
    m_cursorText->position->setType(QCPItemPosition::ptAbsolute);
    m_cursorText->setTextAlignment(Qt::AlignLeft);
    m_cursorText->setPadding(QMargins(5, 3, 5, 3));
    m_cursorText->setBrush(QColor(255, 255, 255, 225));
    m_cursorText->setPen(QPen(QColor(150, 150, 150)));
    m_cursorText->setVisible(false);
    setMouseTracking(true);

    m_idleExport.setSingleShot(true);
    m_idleExport.setInterval(400);
    connect(&m_idleExport, &QTimer::timeout, this, &TracePlot::prepareExport);
}

QString TracePlot::title() const
{
    return m_title->text();
}

void TracePlot::setLegendShown(bool shown)
{
    if (shown && !m_legendInLayout) {
        plotLayout()->insertRow(1);
        plotLayout()->addElement(1, 0, legend);
        plotLayout()->setRowStretchFactor(1, 0.001);
        m_legendInLayout = true;
    } else if (!shown && m_legendInLayout) {
        plotLayout()->take(legend);
        plotLayout()->simplify();
        m_legendInLayout = false;
    }
    legend->setVisible(shown);
}

void TracePlot::removeThresholds()
{
    for (QCPAbstractItem* item : m_thresholdLines) {
        removeItem(item);
    }
    for (QCPAbstractItem* item : m_thresholdLabels) {
        removeItem(item);
    }
    m_thresholdLines.clear();
    m_thresholdLabels.clear();
}

void TracePlot::removeLineGraphs()
{
    for (QCPGraph* graph : m_lines) {
        removeGraph(graph);
    }
    m_lines.clear();
}

void TracePlot::setValueRange(double low, double high)
{
    m_settingValueRange = true;
    yAxis->setRange(low, high);
    m_settingValueRange = false;
}

QString TracePlot::unitsSuffix() const
{
    return m_displayUnits.isEmpty() ? QString() : QLatin1Char(' ') + m_displayUnits;
}

void TracePlot::showEmpty(const QString& title, const QString& explanation, const QString& valueLabel)
{
    removeThresholds();
    removeLineGraphs();
    removeDensity();
    setLegendShown(false);
    hideCursor();
    m_traces = 0;
    m_steps = 0;
    m_userValueRange = false;
    m_baseTitle = title;
    updateTitle();
    xAxis->setLabel(explanation);
    yAxis->setLabel(valueLabel.isEmpty() ? tr("membrane potential") : valueLabel);
    setValueRange(0.0, 1.0);
    replot();
}

void TracePlot::addThresholdLine(double value, const QColor& colour, const QString& label)
{
    auto* line = new QCPItemStraightLine(this);
    line->setPen(QPen(colour, 1.2, Qt::DashLine));
    line->point1->setCoords(0.0, value);
    line->point2->setCoords(1.0, value);
    m_thresholdLines.push_back(line);
    if (label.isEmpty()) {
        return;
    }
    auto* text = new QCPItemText(this);
    text->setClipToAxisRect(false);
    text->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
    text->position->setTypeY(QCPItemPosition::ptPlotCoords);
    text->position->setCoords(1.0, value);
    text->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    text->setPadding(QMargins(4, 0, 0, 0));
    text->setColor(colour);
    text->setText(label);
    m_thresholdLabels.push_back(text);
}

QCPRange TracePlot::drawThresholds(const TraceSource& source, int neurons, bool* drawn,
                                   const std::vector<std::int64_t>& selection, bool summary)
{
    *drawn = false;
    const engine::Tensor* threshold = &source.threshold;
    if (threshold->numel() == 0) {
        return {};
    }
    const QColor grey(60, 60, 60);
    const auto valueOf = [&](int i) {
        const std::int64_t neuron = selection.empty() ? i : selection[static_cast<std::size_t>(i)];
        return static_cast<double>((*threshold)[neuron]);
    };
    const auto [lo, hi] = std::minmax_element(threshold->data(),
                                              threshold->data() + threshold->numel());
    if (threshold->numel() == 1 || *lo == *hi) {
        addThresholdLine(*lo, grey, tr("threshold %1").arg(static_cast<double>(*lo), 0, 'g', 4));
        *drawn = true;
        return {*lo, *hi};
    }
    if (threshold->numel() != source.size) {
        return {};
    }
    double shownLow = std::numeric_limits<double>::infinity();
    double shownHigh = -shownLow;
    for (int i = 0; i < neurons; ++i) {
        shownLow = std::min(shownLow, valueOf(i));
        shownHigh = std::max(shownHigh, valueOf(i));
    }
    if (neurons == 0) {
        return {};
    }
    if (summary || shownLow == shownHigh) {
        // Many traces: the lowest and highest threshold of the shown neurons.
        addThresholdLine(shownLow, grey, tr("min thr. %1").arg(shownLow, 0, 'g', 4));
        if (shownHigh > shownLow) {
            addThresholdLine(shownHigh, grey, tr("max thr. %1").arg(shownHigh, 0, 'g', 4));
        }
    } else {
        for (int i = 0; i < neurons; ++i) {
            QColor colour = seriesColour(i, neurons);
            colour.setAlpha(170);
            addThresholdLine(valueOf(i), colour, QString());
        }
    }
    *drawn = true;
    return {shownLow, shownHigh};
}

QCPRange TracePlot::showLines(const float* data, std::int64_t steps, std::int64_t width,
                              const std::vector<std::int64_t>& neurons)
{
    const int shown = static_cast<int>(std::min<std::int64_t>(width, kMaxTraces));
    while (static_cast<int>(m_lines.size()) > shown) {
        removeGraph(m_lines.back());
        m_lines.pop_back();
    }
    while (static_cast<int>(m_lines.size()) < shown) {
        QCPGraph* graph = addGraph();
        graph->setAdaptiveSampling(true);
        graph->addToLegend();
        m_lines.push_back(graph);
    }
    double vmin = std::numeric_limits<double>::infinity();
    double vmax = -vmin;
    for (int n = 0; n < shown; ++n) {
        QCPGraph* graph = m_lines[static_cast<std::size_t>(n)];
        graph->setName(tr("n%1").arg(neurons.empty() ? n : neurons[static_cast<std::size_t>(n)]));
        graph->setPen(QPen(seriesColour(n, shown), 1.0));
        const auto container = graph->data();
        // Same length as last time: overwrite in place (keys stay sorted), no allocation.
        if (container->size() == steps) {
            auto it = container->begin();
            for (std::int64_t t = 0; t < steps; ++t, ++it) {
                const double v = data[t * width + n];
                it->key = m_t0Ms + static_cast<double>(t) * m_dtMs;
                it->value = v;
                vmin = std::min(vmin, v);
                vmax = std::max(vmax, v);
            }
            continue;
        }
        m_points.resize(static_cast<qsizetype>(steps));
        for (std::int64_t t = 0; t < steps; ++t) {
            const double v = data[t * width + n];
            m_points[static_cast<qsizetype>(t)] = QCPGraphData(m_t0Ms + static_cast<double>(t) * m_dtMs, v);
            vmin = std::min(vmin, v);
            vmax = std::max(vmax, v);
        }
        container->set(m_points, true);
    }
    const bool dense = shown > kDenseTraces || steps > 2 * std::max(axisRect()->width(), QWidget::width());
    setNotAntialiasedElements(dense ? QCP::aePlottables : QCP::aeNone);
    return {vmin, vmax};
}

void TracePlot::showTraces(const TraceSource& source, const QString& path,
                           const QString& signal, const engine::TimeSeries& series, bool thresholds,
                           const std::vector<std::int64_t>& neurons)
{
    if (m_frozen) {
        return;
    }
    const engine::Tensor& data = series.data;
    const std::int64_t steps = data.rank() >= 1 ? data.dim(0) : 0;
    const std::int64_t width = steps > 0 ? data.numel() / steps : 0;
    const double previousDtMs = m_dtMs;
    const int previousTraces = m_traces;
    m_steps = steps;
    m_traces = static_cast<int>(width);
    m_dtMs = series.dt * m_time.perSecond;
    m_t0Ms = series.tStart * m_time.perSecond;
    m_firstStep = series.dt > 0.0 ? std::llround(series.tStart / series.dt) : 0;
    m_units = QString::fromStdString(series.units);
    std::tie(m_displayUnits, m_displayScale) = displayUnit(m_units);
    m_valueTicker->setScale(m_displayScale);
    const bool dense = width > kMaxTraces;

    removeThresholds();
    QCPRange values;
    int shown = 0;
    if (dense) {
        removeLineGraphs();
        setLegendShown(false);
        // The same series as last time (a live window that moved on): keep what it measured.
        const QString source = path + QLatin1Char('\n') + signal;
        const bool reuse = densityMode() && source == m_densitySource && neurons == m_densityNeurons &&
                           m_dtMs == previousDtMs && m_traces == previousTraces;
        if (!reuse) {
            m_densitySource = source;
            m_densityNeurons = neurons;
            m_names.resize(static_cast<std::size_t>(width));
            for (std::int64_t n = 0; n < width; ++n) {
                m_names[static_cast<std::size_t>(n)] =
                    tr("n%1").arg(neurons.empty() ? n : neurons[static_cast<std::size_t>(n)]);
            }
        }
        keepSamples(data.data(), reuse);
        values = measureDensity(data.data(), reuse);
        shown = static_cast<int>(width);
    } else {
        removeDensity();
        values = showLines(data.data(), steps, width, neurons);
        shown = static_cast<int>(m_lines.size());
        setLegendShown(shown > 0 && shown <= kMaxLegendEntries);
    }

    bool hasThreshold = false;
    const QCPRange th = thresholds ? drawThresholds(source, shown, &hasThreshold, neurons, dense) : QCPRange();
    double vmin = values.lower;
    double vmax = values.upper;
    if (hasThreshold) {
        vmin = std::min(vmin, th.lower);
        vmax = std::max(vmax, th.upper);
    }
    if (!(vmin <= vmax)) {
        vmin = 0.0;
        vmax = 1.0;
    }
    const double pad = vmax > vmin ? 0.06 * (vmax - vmin) : 0.5;
    if (dense) {
        fillDensityMap(vmin - pad, vmax + pad);
    }
    if (!m_userValueRange) {
        setValueRange(vmin - pad, vmax + pad);
    }
    xAxis->setRange(m_t0Ms, endTimeMs());

    const QString where = path.isEmpty() ? tr("root") : QStringLiteral("'%1'").arg(path);
    // Short enough for a narrow pane: the class is in the tooltip, the canvas and the tree.
    // Neuron layers (a membrane State) have neurons, other modules channels.
    const bool neuronLayer = source.neuronLayer;
    m_baseTitle = tr("%1\n%2 · %3 %4%5%6")
                      .arg(thresholds ? tr("Membrane potential") : signal, where)
                      .arg(width)
                      .arg(neuronLayer ? tr("neurons") : tr("channels"),
                           neurons.empty() ? QString() : tr(" selected"),
                           dense ? tr(", density view") : QString());
    setToolTip(tr("%1 of %2 (%3)").arg(signal, where, source.className));
    updateTitle();
    xAxis->setLabel(m_time.label());
    yAxis->setLabel(m_displayUnits.isEmpty() ? signal : tr("%1 [%2]").arg(signal, m_displayUnits));
    replot(rpQueuedReplot);
}

void TracePlot::setTimeAxis(const TimeAxis& axis)
{
    retitleTimeAxis(*xAxis, m_time, axis);
    m_time = axis;
}

void TracePlot::setFrozen(bool frozen)
{
    if (frozen == m_frozen) {
        return;
    }
    m_frozen = frozen;
    updateTitle();
    if (frozen && densityMode() && keptSamples() != nullptr) {
        m_idleExport.start();
    }
    replot(rpQueuedReplot);
    emit frozenChanged(frozen);
}

void TracePlot::updateTitle()
{
    if (m_frozen && m_steps > 0) {
        m_title->setText(m_baseTitle + tr(" — frozen at %1").arg(m_time.at(endTimeMs())));
    } else {
        m_title->setText(m_baseTitle);
    }
}

QString TracePlot::readoutAt(double timeMs, double value) const
{
    if (m_steps <= 0 || m_traces <= 0 || !(m_dtMs > 0.0)) {
        return {};
    }
    const double at = (timeMs - m_t0Ms) / m_dtMs;
    if (!(at >= -0.5 && at <= static_cast<double>(m_steps) - 0.5)) {
        return {};
    }
    const auto step = std::clamp<std::int64_t>(std::llround(at), 0, m_steps - 1);
    QString text = m_time.at(m_t0Ms + static_cast<double>(step) * m_dtMs);
    const QString units = unitsSuffix();
    if (densityMode()) {
        const int column = m_density.columnOfStep(step);
        text += tr("\nmean %1%2\nmin %3, max %4%2")
                    .arg(m_density.columnMean(column) * m_displayScale, 0, 'g', 4)
                    .arg(units)
                    .arg(m_density.columnMin(column) * m_displayScale, 0, 'g', 4)
                    .arg(m_density.columnMax(column) * m_displayScale, 0, 'g', 4);
        return text;
    }
    const QCPGraph* nearest = nullptr;
    double nearestValue = 0.0;
    for (const QCPGraph* graph : m_lines) {
        if (!graph->visible() || graph->data()->size() <= step) {
            continue;
        }
        const double v = graph->data()->at(static_cast<int>(step))->value;
        if (nearest == nullptr || std::abs(v - value) < std::abs(nearestValue - value)) {
            nearest = graph;
            nearestValue = v;
        }
    }
    if (nearest != nullptr) {
        text += tr("\n%1: %2%3").arg(nearest->name()).arg(nearestValue * m_displayScale, 0, 'g', 5).arg(units);
    }
    return text;
}

void TracePlot::hideCursor()
{
    if (!m_cursorLine->visible()) {
        return;
    }
    m_cursorLine->setVisible(false);
    m_cursorText->setVisible(false);
    layer(QStringLiteral("overlay"))->replot();
}

void TracePlot::updateCursor(const QPointF& pixel)
{
    const QRect rect = axisRect()->rect();
    if (!rect.contains(pixel.toPoint())) {
        hideCursor();
        return;
    }
    const double timeMs = xAxis->pixelToCoord(pixel.x());
    const QString text = readoutAt(timeMs, yAxis->pixelToCoord(pixel.y()));
    if (text.isEmpty()) {
        hideCursor();
        return;
    }
    m_cursorLine->point1->setCoords(timeMs, 0.0);
    m_cursorLine->point2->setCoords(timeMs, 1.0);
    m_cursorText->setText(text);
    // Beside the mouse, on the side with room.
    const bool left = pixel.x() > rect.center().x();
    const bool above = pixel.y() > rect.center().y();
    m_cursorText->setPositionAlignment((left ? Qt::AlignRight : Qt::AlignLeft) |
                                       (above ? Qt::AlignBottom : Qt::AlignTop));
    m_cursorText->position->setCoords(pixel.x() + (left ? -10.0 : 10.0), pixel.y() + (above ? -10.0 : 10.0));
    m_cursorLine->setVisible(true);
    m_cursorText->setVisible(true);
    layer(QStringLiteral("overlay"))->replot();
}

void TracePlot::mouseMoveEvent(QMouseEvent* event)
{
    QCustomPlot::mouseMoveEvent(event);
    updateCursor(event->position());
}

void TracePlot::leaveEvent(QEvent* event)
{
    QCustomPlot::leaveEvent(event);
    hideCursor();
}

void TracePlot::mouseDoubleClickEvent(QMouseEvent* event)
{
    // Back to the automatic value range at the next update.
    m_userValueRange = false;
    QCustomPlot::mouseDoubleClickEvent(event);
}

}  // namespace spike::ui
