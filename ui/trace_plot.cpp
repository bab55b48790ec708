// TracePlot. See trace_plot.hpp.
#include "trace_plot.hpp"

#include "plot_style.hpp"

#include "engine/module.hpp"
#include "engine/recording.hpp"

#include <algorithm>
#include <limits>
#include <variant>

namespace spike::ui {

namespace {

/// The module's threshold tensor (first attribute of family "thresholds"), or nullptr.
const engine::Tensor* findThreshold(const engine::Module& module)
{
    for (const auto& view : module.attributes()) {
        if (view.spec->family == "thresholds") {
            return std::get_if<engine::Tensor>(view.value);
        }
    }
    return nullptr;
}

/// Dashed horizontal line at `value` with a label in the right margin when `label` is set.
void addThresholdLine(QCustomPlot& plot, double value, const QColor& colour, const QString& label)
{
    auto* line = new QCPItemStraightLine(&plot);
    line->setPen(QPen(colour, 1.2, Qt::DashLine));
    line->point1->setCoords(0.0, value);
    line->point2->setCoords(1.0, value);
    if (label.isEmpty()) {
        return;
    }
    auto* text = new QCPItemText(&plot);
    text->setClipToAxisRect(false);
    text->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
    text->position->setTypeY(QCPItemPosition::ptPlotCoords);
    text->position->setCoords(1.0, value);
    text->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    text->setPadding(QMargins(4, 0, 0, 0));
    text->setColor(colour);
    text->setText(label);
}

}  // namespace

TracePlot::TracePlot(QWidget* parent) : QCustomPlot(parent)
{
    m_title = setUpTimePlot(*this, tr("Membrane potential"));
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

void TracePlot::removeContents()
{
    clearGraphs();
    clearItems();
    legend->clearItems();
    m_thresholdLines = 0;
}

void TracePlot::showEmpty(const QString& title, const QString& explanation)
{
    removeContents();
    setLegendShown(false);
    m_title->setText(title);
    xAxis->setLabel(explanation);
    yAxis->setLabel(tr("membrane potential"));
    yAxis->setRange(0.0, 1.0);
    replot();
}

QCPRange TracePlot::drawThresholds(const engine::Module& module, int neurons, bool* drawn,
                                   const std::vector<std::int64_t>& selection)
{
    *drawn = false;
    const engine::Tensor* threshold = findThreshold(module);
    if (threshold == nullptr || threshold->numel() == 0) {
        return {};
    }
    const auto [lo, hi] = std::minmax_element(threshold->data(),
                                              threshold->data() + threshold->numel());
    const bool uniform = *lo == *hi;
    if (threshold->numel() == 1 || uniform) {
        addThresholdLine(*this, *lo, QColor(60, 60, 60),
                         tr("threshold %1").arg(static_cast<double>(*lo), 0, 'g', 4));
        m_thresholdLines = 1;
    } else if (threshold->numel() == module.sizeOut()) {
        for (int i = 0; i < neurons; ++i) {
            QColor colour = seriesColour(i, neurons);
            colour.setAlpha(170);
            const std::int64_t neuron = selection.empty() ? i : selection[static_cast<std::size_t>(i)];
            addThresholdLine(*this, (*threshold)[neuron], colour, QString());
        }
        m_thresholdLines = neurons;
    } else {
        return {};
    }
    *drawn = true;
    return {*lo, *hi};
}

void TracePlot::showTraces(const engine::Module& module, const QString& path,
                           const QString& signal, const engine::TimeSeries& series, bool thresholds,
                           const std::vector<std::int64_t>& neurons)
{
    removeContents();
    const engine::Tensor& data = series.data;
    const std::int64_t steps = data.rank() >= 1 ? data.dim(0) : 0;
    const std::int64_t width = steps > 0 ? data.numel() / steps : 0;
    const int shown = static_cast<int>(std::min<std::int64_t>(width, kMaxTraces));
    const double dtMs = series.dt * 1e3;
    const double t0Ms = series.tStart * 1e3;

    double vmin = std::numeric_limits<double>::infinity();
    double vmax = -vmin;
    for (int n = 0; n < shown; ++n) {
        QVector<QCPGraphData> points(static_cast<qsizetype>(steps));
        for (std::int64_t t = 0; t < steps; ++t) {
            const double v = data[t * width + n];
            points[static_cast<qsizetype>(t)] = QCPGraphData(t0Ms + static_cast<double>(t) * dtMs, v);
            vmin = std::min(vmin, v);
            vmax = std::max(vmax, v);
        }
        QCPGraph* graph = addGraph();
        graph->setName(tr("n%1").arg(neurons.empty() ? n : neurons[static_cast<std::size_t>(n)]));
        graph->setPen(QPen(seriesColour(n, shown), 1.0));
        graph->data()->set(points, true);
    }
    setLegendShown(shown > 0 && shown <= kMaxLegendEntries);

    bool hasThreshold = false;
    const QCPRange th = thresholds ? drawThresholds(module, shown, &hasThreshold, neurons) : QCPRange();
    if (hasThreshold) {
        vmin = std::min(vmin, th.lower);
        vmax = std::max(vmax, th.upper);
    }
    if (!(vmin <= vmax)) {
        vmin = 0.0;
        vmax = 1.0;
    }
    const double pad = vmax > vmin ? 0.06 * (vmax - vmin) : 0.5;
    yAxis->setRange(vmin - pad, vmax + pad);
    xAxis->setRange(t0Ms, t0Ms + static_cast<double>(steps) * dtMs);

    const QString where = path.isEmpty() ? tr("root") : QStringLiteral("'%1'").arg(path);
    QString title = tr("%1\n%2 (%3, %4 neurons%5)")
                        .arg(thresholds ? tr("Membrane potential") : signal, where,
                             QString::fromStdString(module.className()))
                        .arg(width)
                        .arg(neurons.empty() ? QString() : tr(" selected"));
    if (shown < width) {
        title += tr(", first %1 shown").arg(shown);
    }
    m_title->setText(title);
    xAxis->setLabel(tr("time [ms]"));
    yAxis->setLabel(series.units.empty()
                        ? signal
                        : tr("%1 [%2]").arg(signal, QString::fromStdString(series.units)));
    replot();
}

}  // namespace spike::ui
