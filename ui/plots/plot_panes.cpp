// PlotPanes. See plot_panes.hpp.
#include "ui/plots/plot_panes.hpp"

#include "ui/plots/raster_plot.hpp"
#include "ui/plots/trace_plot.hpp"

#include <QComboBox>
#include <QEvent>
#include <QLabel>
#include <QLocale>
#include <QSignalBlocker>
#include <QTimer>
#include <QWheelEvent>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QScrollArea>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace spike::ui {

PlotPanes::PlotPanes(QWidget* parent) : QWidget(parent)
{
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    m_scroll = new QScrollArea;
    m_scroll->setObjectName(QStringLiteral("plotPanesScroll"));
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setWidgetResizable(true);
    m_content = new QWidget;
    m_grid = new QGridLayout(m_content);
    m_grid->setContentsMargins(0, 0, 0, 0);
    m_grid->setSpacing(4);
    m_scroll->setWidget(m_content);
    m_scroll->viewport()->installEventFilter(this);
    outer->addWidget(m_scroll);
}

int PlotPanes::gridColumns(int panes)
{
    if (panes <= kMaxColumns) {
        return std::max(panes, 1);
    }
    return panes == 4 ? 2 : kMaxColumns;
}

int PlotPanes::gridColumns(int cells, int width)
{
    return std::clamp(width / kMinPaneWidth, 1, gridColumns(cells));
}

int PlotPanes::shownCells() const
{
    const int panes = static_cast<int>(std::count_if(m_panes.begin(), m_panes.end(), [](const Pane& p) { return p.shown; }));
    return panes + (isRasterShown() ? 1 : 0);
}

int PlotPanes::gridWidth() const
{
    return m_scroll->viewport()->width();
}

bool PlotPanes::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_scroll->viewport() && event->type() == QEvent::Resize &&
        gridColumns(std::max(1, shownCells()), gridWidth()) != m_columns) {
        relayout();
    }
    return QWidget::eventFilter(watched, event);
}

const PlotPanes::Pane* PlotPanes::find(int key) const
{
    const auto it = std::find_if(m_panes.begin(), m_panes.end(), [key](const Pane& p) { return p.key == key; });
    return it == m_panes.end() ? nullptr : &*it;
}

TracePlot* PlotPanes::tracePane(int key) const
{
    const Pane* pane = find(key);
    return pane == nullptr ? nullptr : pane->plot;
}

QToolButton* PlotPanes::freezeButton(int key) const
{
    const Pane* pane = find(key);
    return pane == nullptr ? nullptr : pane->freeze;
}

QToolButton* PlotPanes::closeButton(int key) const
{
    const Pane* pane = find(key);
    return pane == nullptr ? nullptr : pane->close;
}

std::vector<int> PlotPanes::paneKeys() const
{
    std::vector<int> keys;
    keys.reserve(m_panes.size());
    for (const Pane& pane : m_panes) {
        keys.push_back(pane.key);
    }
    return keys;
}

void PlotPanes::setRaster(RasterPlot* raster)
{
    if (raster == m_raster) {
        return;
    }
    if (m_raster != nullptr) {
        disconnect(m_raster->xAxis, nullptr, this, nullptr);
        m_grid->removeWidget(m_raster);
        m_raster->hide();
        m_raster->deleteLater();
    }
    m_raster = raster;
    if (m_raster != nullptr) {
        m_raster->setParent(m_content);
        m_raster->setMinimumSize(kMinPaneWidth - 20, kMinPaneHeight + 60);
        m_raster->setTimeAxis(m_time);
        watchTimeAxis(m_raster);
        m_raster->show();
    }
    relayout();
}

TracePlot* PlotPanes::addTracePane(int key)
{
    if (TracePlot* existing = tracePane(key)) {
        return existing;
    }
    Pane pane;
    pane.key = key;
    pane.frame = new QWidget(m_content);
    auto* column = new QVBoxLayout(pane.frame);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(0);
    auto* header = new QHBoxLayout;
    header->setContentsMargins(4, 0, 4, 0);
    header->addStretch(1);
    pane.freeze = new QToolButton(pane.frame);
    pane.freeze->setText(tr("Freeze"));
    pane.freeze->setCheckable(true);
    pane.freeze->setAutoRaise(true);
    pane.freeze->setToolTip(tr("Stop updating this pane; zoom and drag it freely"));
    pane.close = new QToolButton(pane.frame);
    pane.close->setText(tr("Close"));
    pane.close->setAutoRaise(true);
    pane.close->setToolTip(tr("Close this pane"));
    pane.span = new QComboBox(pane.frame);
    pane.span->setToolTip(tr("Time span the panes show while the simulation runs (all panes scroll "
                             "together); the wheel over a pane's plot sets it too"));
    pane.span->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    connect(pane.span, &QComboBox::activated, this, [this, box = pane.span](int index) {
        setSpan(box->itemData(index).toDouble());
    });
    header->addWidget(new QLabel(tr("span"), pane.frame));
    header->addWidget(pane.span);
    header->addWidget(pane.freeze);
    header->addWidget(pane.close);
    column->addLayout(header);
    pane.plot = new TracePlot(pane.frame);
    pane.plot->setTimeAxis(m_time);
    pane.plot->setMinimumSize(kMinPaneWidth - 20, kMinPaneHeight);
    column->addWidget(pane.plot, 1);

    TracePlot* plot = pane.plot;
    QToolButton* freeze = pane.freeze;
    connect(freeze, &QToolButton::toggled, plot, &TracePlot::setFrozen);
    connect(plot, &TracePlot::frozenChanged, this, [this, plot, freeze](bool frozen) {
        freeze->setChecked(frozen);
        if (!frozen) {
            rejoin(plot);
        }
    });
    connect(pane.close, &QToolButton::clicked, this, [this, key] { emit closeRequested(key); });
    if (m_raster != nullptr) {
        plot->xAxis->setRange(m_raster->xAxis->range());  // a new pane joins the linked time range
    }
    watchTimeAxis(plot);
    m_panes.push_back(pane);
    syncSpanBoxes();
    relayout();
    return plot;
}

void PlotPanes::removeTracePane(int key)
{
    const auto it = std::find_if(m_panes.begin(), m_panes.end(), [key](const Pane& p) { return p.key == key; });
    if (it == m_panes.end()) {
        return;
    }
    disconnect(it->plot->xAxis, nullptr, this, nullptr);
    m_grid->removeWidget(it->frame);
    it->frame->hide();
    // Later: the request may come from this pane's own Close button, still in its click.
    it->frame->deleteLater();
    m_panes.erase(it);
    relayout();
}

void PlotPanes::relayout()
{
    while (QLayoutItem* item = m_grid->takeAt(0)) {
        delete item;
    }
    for (int c = 0; c < kMaxColumns; ++c) {
        m_grid->setColumnStretch(c, 0);
    }
    for (int r = 0; r < m_grid->rowCount(); ++r) {
        m_grid->setRowStretch(r, 0);
    }
    std::vector<QWidget*> cells;
    if (m_raster != nullptr) {
        m_raster->setVisible(m_rasterShown);
        if (m_rasterShown) {
            cells.push_back(m_raster);
        }
    }
    for (const Pane& pane : m_panes) {
        pane.frame->setVisible(pane.shown);
        if (pane.shown) {
            cells.push_back(pane.frame);
        }
    }
    m_columns = gridColumns(std::max<int>(1, static_cast<int>(cells.size())), gridWidth());
    for (std::size_t i = 0; i < cells.size(); ++i) {
        const int r = static_cast<int>(i) / m_columns;
        m_grid->addWidget(cells[i], r, static_cast<int>(i) % m_columns);
        m_grid->setRowStretch(r, 1);
    }
    for (int c = 0; c < m_columns; ++c) {
        m_grid->setColumnStretch(c, 1);
    }
}

void PlotPanes::setRasterShown(bool shown)
{
    if (shown != m_rasterShown) {
        m_rasterShown = shown;
        relayout();
    }
}

void PlotPanes::setPaneShown(int key, bool shown)
{
    for (Pane& pane : m_panes) {
        if (pane.key == key && pane.shown != shown) {
            pane.shown = shown;
            relayout();
        }
    }
}

bool PlotPanes::isPaneShown(int key) const
{
    const Pane* pane = find(key);
    return pane != nullptr && pane->shown;
}

void PlotPanes::rejoin(TracePlot* plot)
{
    const QCustomPlot* leader = m_raster;
    for (const Pane& other : m_panes) {
        if (leader == nullptr && other.plot != plot && !other.plot->isFrozen()) {
            leader = other.plot;
        }
    }
    if (leader != nullptr) {
        plot->xAxis->setRange(leader->xAxis->range());
        plot->replot(QCustomPlot::rpQueuedReplot);
    }
}

bool PlotPanes::isLinked(const QCustomPlot* plot) const
{
    if (plot == m_raster) {
        return plot != nullptr;
    }
    const auto it = std::find_if(m_panes.begin(), m_panes.end(), [plot](const Pane& p) { return p.plot == plot; });
    return it != m_panes.end() && !it->plot->isFrozen();
}

void PlotPanes::watchTimeAxis(QCustomPlot* plot)
{
    // A wheel turn (without Ctrl, which zooms values) on a linked plot zooms time: the width it
    // leaves becomes the span. QCustomPlot reports the wheel before it zooms.
    connect(plot, &QCustomPlot::mouseWheel, this, [this, plot](QWheelEvent* event) {
        if ((event->modifiers() & Qt::ControlModifier) == 0 && isLinked(plot)) {
            m_wheelSource = plot;
            QTimer::singleShot(0, this, [this] { m_wheelSource = nullptr; });
        }
    });
    connect(plot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
            [this, plot](const QCPRange& range) { followTime(plot, range); });
}

void PlotPanes::followTime(QCustomPlot* source, const QCPRange& range)
{
    if (m_syncing || !isLinked(source)) {
        return;
    }
    if (source == m_wheelSource && range.size() > 0.0) {
        m_wheelSource = nullptr;
        m_span = range.size();
        syncSpanBoxes();
        emit spanChanged(m_span);
    }
    m_syncing = true;
    const auto follow = [&](QCustomPlot* plot) {
        if (plot != source && isLinked(plot) && plot->xAxis->range() != range) {
            plot->xAxis->setRange(range);
            plot->replot(QCustomPlot::rpQueuedReplot);
        }
    };
    follow(m_raster);
    for (const Pane& pane : m_panes) {
        follow(pane.plot);
    }
    m_syncing = false;
}

void PlotPanes::setTimeRange(double t0Ms, double t1Ms)
{
    const QCPRange range(t0Ms, t1Ms);
    m_syncing = true;
    const auto apply = [&](QCustomPlot* plot) {
        if (isLinked(plot)) {
            plot->xAxis->setRange(range);
        }
    };
    apply(m_raster);
    for (const Pane& pane : m_panes) {
        apply(pane.plot);
    }
    m_syncing = false;
    replotAll();
}

const std::vector<double>& PlotPanes::spanChoices()
{
    static const std::vector<double> kChoices{50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0,
                                              5000.0, 10000.0, 30000.0, 60000.0, 0.0};
    return kChoices;
}

QString PlotPanes::spanLabel(double ms)
{
    return ms <= 0.0 ? tr("whole run") : TimeAxis::milliseconds().width(ms);
}

void PlotPanes::setTimeAxis(const TimeAxis& axis)
{
    m_time = axis;
    if (m_raster != nullptr) {
        m_raster->setTimeAxis(axis);
    }
    for (const Pane& pane : m_panes) {
        pane.plot->setTimeAxis(axis);
    }
    syncSpanBoxes();
}

double PlotPanes::defaultSpan(double tauS)
{
    constexpr double kTaus = 25.0;
    constexpr double kMinMs = 100.0;
    constexpr double kMaxMs = 10000.0;
    if (!(tauS > 0.0) || !std::isfinite(tauS)) {
        return 500.0;
    }
    const double wanted = std::clamp(kTaus * tauS * 1e3, kMinMs, kMaxMs);
    for (double decade = 1.0;; decade *= 10.0) {
        for (const double m : {1.0, 2.0, 5.0}) {
            if (m * decade >= wanted * (1.0 - 1e-9)) {
                return std::min(m * decade, kMaxMs);
            }
        }
    }
}

void PlotPanes::setSpan(double ms)
{
    const double span = ms > 0.0 && std::isfinite(ms) ? ms : 0.0;
    if (span == m_span) {
        return;
    }
    m_span = span;
    syncSpanBoxes();
    emit spanChanged(m_span);
}

void PlotPanes::syncSpanBoxes()
{
    for (const Pane& pane : m_panes) {
        const QSignalBlocker quiet(pane.span);
        pane.span->clear();
        bool listed = false;
        for (const double choice : spanChoices()) {
            if (!listed && m_span > 0.0 && (choice == 0.0 || choice > m_span) &&
                std::abs(choice - m_span) > 1e-6 * m_span) {
                pane.span->addItem(m_time.width(m_span), m_span);  // a width the wheel left
                listed = true;
            }
            listed = listed || choice == m_span;
            pane.span->addItem(choice <= 0.0 ? spanLabel(0.0) : m_time.width(choice), choice);
        }
        pane.span->setCurrentIndex(pane.span->findData(m_span));
    }
}

QComboBox* PlotPanes::spanBox(int key) const
{
    const Pane* pane = find(key);
    return pane == nullptr ? nullptr : pane->span;
}

void PlotPanes::showLive(double historyStartMs, double endMs)
{
    if (m_span <= 0.0) {
        setTimeRange(historyStartMs, endMs);
    } else if (endMs <= m_span) {
        setTimeRange(0.0, m_span);  // filling from the left until the data are a span long
    } else {
        setTimeRange(endMs - m_span, endMs);
    }
}

void PlotPanes::replotAll()
{
    if (m_raster != nullptr) {
        m_raster->replot(QCustomPlot::rpQueuedReplot);
    }
    for (const Pane& pane : m_panes) {
        pane.plot->replot(QCustomPlot::rpQueuedReplot);
    }
}

}  // namespace spike::ui
