// GraphCanvas: the statistics rows of a composite's nodes. Opening a read-only container (an
// MLP, a ResBlock, a DynamicsNetwork) gives each child node up to two rows under its ports:
//   w   μ 0.0012  σ 0.058            the pooled "weights"-family Parameters of its subtree
//   out  μ 0.21  σ 0.48  zero 61%     its output while the model runs (engine::ActivationMonitor)
// and the tooltip the same in full (counts, mean |w|, min, max, NaN). Without a run the "out"
// row says so; a child that is never called itself (a ModuleList of blocks) says its values are
// computed inside it. Thread: GUI thread only.
#include "ui/editor/graph_canvas.hpp"

#include "ui/editor/graph_node_item.hpp"

#include <QLocale>

namespace spike::ui {

namespace {

QString num(double v)
{
    return QString::number(v, 'g', 2);
}

QString rangeText(const engine::ValueSummary& s)
{
    return QObject::tr("min %1, max %2").arg(QString::number(s.min, 'g', 4), QString::number(s.max, 'g', 4));
}

}  // namespace

bool GraphCanvas::showsLayerStatistics() const
{
    return m_doc != nullptr && m_doc->contains(m_network) && m_doc->network(m_network) == nullptr;
}

void GraphCanvas::setActivationStatistics(const std::map<std::string, engine::ActivationSnapshot>& snapshots)
{
    if (snapshots.empty() && m_activations.empty()) {
        return;
    }
    m_activations = snapshots;
    refreshNodeStatistics();
}

QStringList GraphCanvas::nodeStatistics(NodeId id) const
{
    const GraphNodeItem* item = nodeItem(id);
    return item != nullptr ? item->statistics() : QStringList();
}

void GraphCanvas::refreshNodeStatistics()
{
    if (!showsLayerStatistics()) {
        return;
    }
    const QLocale locale;
    bool resized = false;
    for (const auto& [id, item] : m_nodes) {
        const engine::Module* module = m_doc->module(id);
        if (module == nullptr) {
            continue;
        }
        QStringList lines;
        QStringList tips;
        const engine::ValueSummary w = engine::weightSummary(*module);
        if (!w.empty()) {
            lines << tr("w   μ %1  σ %2").arg(num(w.mean()), num(w.std()));
            tips << tr("<b>Weights</b>: %1 values; mean %2, std %3, mean |w| %4, %5")
                        .arg(locale.toString(static_cast<qlonglong>(w.count)), QString::number(w.mean(), 'g', 4),
                             QString::number(w.std(), 'g', 4), QString::number(w.meanAbs(), 'g', 4), rangeText(w));
        }
        const std::string path = m_doc->path(id);
        const auto it = m_activations.find(path);
        if (it != m_activations.end()) {
            const engine::ValueSummary& a = it->second.summary;
            lines << tr("out  μ %1  σ %2  zero %3%")
                         .arg(num(a.mean()), num(a.std()), QString::number(100.0 * a.zeroFraction(), 'f', 0));
            QString tip = tr("<b>Output</b> while running (%1 calls since the last update, %2 values): mean %3, "
                             "std %4, zeros %5%, %6")
                              .arg(it->second.calls)
                              .arg(locale.toString(static_cast<qlonglong>(a.count)), QString::number(a.mean(), 'g', 4),
                                   QString::number(a.std(), 'g', 4),
                                   QString::number(100.0 * a.zeroFraction(), 'f', 1), rangeText(a));
            if (a.nonFinite > 0) {
                tip += tr("; %1 NaN or Inf").arg(a.nonFinite);
            }
            tips << tip;
        } else if (m_activations.empty()) {
            lines << tr("out  (shown while running)");
        } else {
            const std::string prefix = path + ".";
            const auto inside = m_activations.lower_bound(prefix);
            const bool computedInside = inside != m_activations.end() && inside->first.starts_with(prefix);
            lines << (computedInside ? tr("out  (computed inside: open it)") : tr("out  (no values reported)"));
        }
        const double before = item->boundingRect().height();
        item->setStatistics(lines, tips.join(QStringLiteral("<br>")));
        resized = resized || item->boundingRect().height() != before;
    }
    if (resized && !m_flow.empty()) {
        routeFlow();
    }
}

}  // namespace spike::ui
