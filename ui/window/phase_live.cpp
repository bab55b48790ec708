// PhaseDialog's live trajectory (phase_dialog.hpp): the portrait's neuron's two states as the
// document's run records them, drawn over the plane and following the run. The states come from
// traces of the LiveRun: a trace of that (path, state) that already exists (the window's
// selection pane, a pane the user opened) is read as it is when it keeps the neuron, so the
// dialog never changes what another pane shows; otherwise the dialog adds a trace of that neuron
// alone and removes it when it closes or the axes change. The two series are aligned by step
// (they may have started at different steps). Thread: GUI thread only (LiveRun is GUI-thread).
#include "ui/window/phase_dialog.hpp"

#include "ui/run/live_run.hpp"

#include <QScopedValueRollback>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace spike::ui {

namespace {

/// Where neuron `neuron` of (path, signal) is in `run`'s traces: the trace id and its column,
/// or {0, -1} when no trace of that pair keeps that neuron.
std::pair<int, std::int64_t> findColumn(const LiveRun& run, const QString& path, const std::string& signal,
                                        std::int64_t neuron)
{
    for (const int id : run.traceIds()) {
        const TraceInfo* info = run.traceInfo(id);
        if (info == nullptr || info->path != path || info->signal != signal) {
            continue;
        }
        if (info->neurons.empty()) {
            return {id, neuron};
        }
        const auto at = std::find(info->neurons.begin(), info->neurons.end(), neuron);
        if (at != info->neurons.end()) {
            return {id, static_cast<std::int64_t>(at - info->neurons.begin())};
        }
    }
    return {0, -1};
}

/// The first step a series holds.
std::int64_t firstStep(const engine::TimeSeries& s)
{
    return s.dt > 0.0 ? std::llround(s.tStart / s.dt) : 0;
}

}  // namespace

void PhaseDialog::setLiveSource(std::function<LiveRun*()> source)
{
    m_liveSource = std::move(source);
    connect(this, &QDialog::finished, this, [this] {
        // Source first: removing a trace makes the run report an update, which calls refreshLive().
        const std::function<LiveRun*()> source = std::exchange(m_liveSource, {});
        releaseLiveTraces(source ? source() : nullptr);
    });
    refreshLive();
}

void PhaseDialog::releaseLiveTraces(LiveRun* current)
{
    if (current != nullptr && current == m_liveRun) {
        for (int k = 0; k < 2; ++k) {
            if (m_liveOwned[k] && m_liveIds[k] > 0) {
                current->removeTrace(m_liveIds[k]);
            }
        }
    }
    m_liveRun = nullptr;
    m_liveKey.clear();
    m_liveIds = {0, 0};
    m_liveOwned = {false, false};
}

void PhaseDialog::refreshLive()
{
    // Adding a trace makes the run report an update at once, which calls this again: ignored.
    if (m_liveRefreshing) {
        return;
    }
    const QScopedValueRollback<bool> guard(m_liveRefreshing, true);
    LiveRun* run = m_liveSource ? m_liveSource() : nullptr;
    m_live.clear();
    if (run == nullptr || !m_plane) {
        if (run != m_liveRun) {
            releaseLiveTraces(run);
        }
        drawLive();
        return;
    }
    const engine::PhasePlaneOptions& o = m_plane->options;
    const QString path = QString::fromStdString(m_doc.path(m_id));
    const QString key = QStringLiteral("%1|%2|%3|%4")
                            .arg(path, QString::fromStdString(o.x), QString::fromStdString(o.y))
                            .arg(o.neuron);
    if (run != m_liveRun || key != m_liveKey) {
        releaseLiveTraces(run);
        m_liveRun = run;
        m_liveKey = key;
    }
    std::array<std::int64_t, 2> column{-1, -1};
    const std::array<std::string, 2> signal{o.x, o.y};
    for (int k = 0; k < 2; ++k) {
        // A trace of ours may have been dropped by a rebuild; another pane's may have appeared.
        auto [id, col] = findColumn(*run, path, signal[k], o.neuron);
        if (id == 0) {
            QString why;
            id = run->addTrace(path, signal[k], {o.neuron}, &why);
            if (id == 0) {
                showMessage(tr("No live trajectory: %1").arg(why));
                drawLive();
                return;
            }
            col = 0;
            m_liveOwned[k] = true;
        } else if (id != m_liveIds[k]) {
            m_liveOwned[k] = false;  // someone else's trace: read, never removed
        }
        m_liveIds[k] = id;
        column[k] = col;
    }
    const engine::TimeSeries* xs = run->traceSeries(m_liveIds[0]);
    const engine::TimeSeries* ys = run->traceSeries(m_liveIds[1]);
    if (xs != nullptr && ys != nullptr && xs->data.rank() == 2 && ys->data.rank() == 2 &&
        column[0] < xs->data.dim(1) && column[1] < ys->data.dim(1)) {
        const std::int64_t x0 = firstStep(*xs);
        const std::int64_t y0 = firstStep(*ys);
        const std::int64_t from = std::max(x0, y0);
        const std::int64_t to = std::min(x0 + xs->data.dim(0), y0 + ys->data.dim(0));  // exclusive
        const std::int64_t start = std::max(from, to - static_cast<std::int64_t>(kLivePoints));
        const std::int64_t wx = xs->data.dim(1);
        const std::int64_t wy = ys->data.dim(1);
        for (std::int64_t step = start; step < to; ++step) {
            m_live.push_back({static_cast<double>(xs->data[(step - x0) * wx + column[0]]),
                              static_cast<double>(ys->data[(step - y0) * wy + column[1]])});
        }
    }
    drawLive();
}

void PhaseDialog::drawLive()
{
    if (m_liveCurve == nullptr) {
        if (m_live.empty() || !m_plane) {
            return;
        }
        m_liveCurve = new QCPCurve(m_plot->xAxis, m_plot->yAxis);
        m_liveCurve->setName(tr("live"));
        m_liveCurve->setPen(QPen(QColor(0, 150, 136), 2.0));
        auto* head = new QCPItemTracer(m_plot);
        head->setObjectName(QStringLiteral("liveHead"));
        head->setStyle(QCPItemTracer::tsCircle);
        head->setSize(10.0);
        head->setPen(QPen(QColor(0, 150, 136), 2.0));
        head->setBrush(QColor(0, 150, 136));
    }
    QVector<double> t;
    QVector<double> x;
    QVector<double> y;
    t.reserve(static_cast<int>(m_live.size()));
    x.reserve(static_cast<int>(m_live.size()));
    y.reserve(static_cast<int>(m_live.size()));
    for (std::size_t k = 0; k < m_live.size(); ++k) {
        t << static_cast<double>(k);
        x << m_live[k][0];
        y << m_live[k][1];
    }
    m_liveCurve->setData(t, x, y);
    for (int k = 0; k < m_plot->itemCount(); ++k) {
        if (auto* head = qobject_cast<QCPItemTracer*>(m_plot->item(k));
            head != nullptr && head->objectName() == QLatin1String("liveHead")) {
            head->setVisible(!m_live.empty());
            if (!m_live.empty()) {
                head->position->setCoords(m_live.back()[0], m_live.back()[1]);
            }
        }
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace spike::ui
