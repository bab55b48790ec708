// GraphWireItem: routing and painting of one canvas wire.
// Thread: GUI thread only.
#include "ui/editor/graph_wire_item.hpp"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPathStroker>
#include <QStyleOptionGraphicsItem>

#include <algorithm>
#include <cmath>

namespace spike::ui {

namespace {
constexpr double kLabelWidth = 120.0;
constexpr double kLabelHeight = 14.0;
}  // namespace

GraphWireItem::GraphWireItem(const GraphDocument& doc, ConnectionId id) : m_doc(&doc), m_id(id)
{
    setFlag(ItemIsSelectable);
    setZValue(0.0);
    refresh();
}

void GraphWireItem::refresh()
{
    m_summary = summarizeWire(*m_doc, m_id);
    m_delayed = m_summary.delayed;
    m_label = m_summary.type.empty() ? QString() : wireLabel(m_summary);
    setToolTip(wireDescription(m_summary));
    update();
}

QColor GraphWireItem::colour() const
{
    switch (m_summary.sign) {
    case WireSummary::Sign::Excitatory: return {0xc8, 0x3c, 0x2c};
    case WireSummary::Sign::Inhibitory: return {0x2c, 0x5f, 0xc8};
    case WireSummary::Sign::Mixed: return {0x85, 0x70, 0x9a};
    case WireSummary::Sign::Neutral: break;
    }
    return {0x45, 0x50, 0x60};
}

QPainterPath GraphWireItem::curve(QPointF from, QPointF to)
{
    QPainterPath path(from);
    const double span = std::abs(to.x() - from.x());
    if (to.x() >= from.x() + 40.0) {
        const double dx = std::max(50.0, span * 0.5);
        path.cubicTo(from + QPointF(dx, 0.0), to - QPointF(dx, 0.0), to);
    } else {
        // Backward wire (a cycle, a self-loop): loop out to the right, under both nodes and
        // back into the input from the left, instead of cutting through the nodes.
        const double dx = 80.0 + 0.25 * span;
        const double down = std::max(from.y(), to.y()) + 120.0 + 0.1 * span;
        path.cubicTo(QPointF(from.x() + dx, from.y()), QPointF(from.x() + dx, down), QPointF(from.x(), down));
        path.lineTo(QPointF(to.x(), down));
        path.cubicTo(QPointF(to.x() - dx, down), QPointF(to.x() - dx, to.y()), to);
    }
    return path;
}

void GraphWireItem::setEnds(QPointF from, QPointF to)
{
    if (from == m_from && to == m_to && !m_path.isEmpty()) {
        return;
    }
    prepareGeometryChange();
    m_from = from;
    m_to = to;
    m_path = curve(from, to);
    m_shape = QPainterPath();  // stroked lazily by shape(): a drag reroutes many wires per frame
    const QPointF mid = m_path.pointAtPercent(0.5);
    m_mid = mid;
    m_bounds = m_path.boundingRect().adjusted(-3.0, -3.0, 3.0, 3.0)
                   .united(QRectF(mid.x() - kLabelWidth * 0.5, mid.y() - kLabelHeight, kLabelWidth, 2.0 * kLabelHeight));
}

QRectF GraphWireItem::boundingRect() const
{
    return m_bounds;
}

QPainterPath GraphWireItem::shape() const
{
    if (m_shape.isEmpty() && !m_path.isEmpty()) {
        QPainterPathStroker stroker;
        stroker.setWidth(8.0);
        m_shape = stroker.createStroke(m_path);
    }
    return m_shape;
}

void GraphWireItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*)
{
    const bool selected = (option->state & QStyle::State_Selected) != 0;
    const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
    painter->setRenderHint(QPainter::Antialiasing, lod >= 0.5);
    // Unselected wires use a 1 px cosmetic pen: the raster engine's fast path for thin curves,
    // which keeps thousands of wires cheap to repaint while nodes are dragged.
    // A wire with a projection is drawn 1.5 px in its sign's colour, so kinds read at a glance.
    const bool projected = !m_summary.type.empty();
    QPen pen(selected ? QColor(0xff, 0x8c, 0x00) : colour(), selected ? 3.0 : projected ? 1.5 : 1.0);
    pen.setCosmetic(!selected && lod >= 0.5);
    if (m_delayed) {
        pen.setStyle(Qt::DashLine);
    }
    painter->setPen(pen);
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(m_path);
    if (!m_label.isEmpty() && lod >= 0.5) {
        QFont font = painter->font();
        font.setPointSizeF(7.0);
        painter->setFont(font);
        const double w = QFontMetricsF(font).horizontalAdvance(m_label) + 8.0;
        const QRectF r(m_mid.x() - w * 0.5, m_mid.y() - kLabelHeight * 0.5, w, kLabelHeight);
        painter->setPen(Qt::NoPen);
        painter->setBrush(QColor(255, 255, 255, 210));
        painter->drawRoundedRect(r, 3.0, 3.0);
        painter->setPen(projected ? colour().darker(130) : QColor(0x3a, 0x3a, 0x3a));
        painter->drawText(r, Qt::AlignCenter, m_label);
    }
}

}  // namespace spike::ui
