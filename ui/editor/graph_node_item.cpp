// GraphNodeItem: layout and painting of one canvas node from the document's roles, and the
// tooltips of its ports (set while the pointer hovers one).
// Thread: GUI thread only.
#include "ui/editor/graph_node_item.hpp"

#include "engine/io/module_factory.hpp"

#include <QFontMetricsF>
#include <QGraphicsSceneHoverEvent>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <algorithm>
#include <cmath>

namespace spike::ui {

namespace {

constexpr double kHeaderRows = 2.0;
/// Zoom below which the 8 pt header and port texts (under 5 px high) give way to the name alone.
constexpr double kDetailLod = 0.5;
/// Zoom below which not even the name is drawn.
constexpr double kNameOnlyLod = 0.12;
/// Height the name alone is drawn at on screen, when the header holds it [px].
constexpr double kNamePixels = 10.0;
constexpr double kPortRadius = 5.0;
constexpr double kPortHit = 9.0;
constexpr int kMaxWiresListed = 8;  ///< wires a port tooltip names before "and N more"

/// Header tint per module category (neurons, sources, layers, ...), readable with white text.
QColor categoryColour(const QString& type)
{
    const engine::ModuleTypeInfo* info = engine::findModuleType(type.toStdString());
    const std::string category = info != nullptr ? info->category : std::string();
    if (category == "neurons") return QColor(0x2c, 0x5f, 0x8a);
    if (category == "sources") return QColor(0x3b, 0x7d, 0x3b);
    if (category == "containers" || category == "templates") return QColor(0x6a, 0x4c, 0x93);
    if (category == "projections") return QColor(0x8a, 0x5a, 0x2c);
    return QColor(0x4a, 0x55, 0x60);
}

}  // namespace

GraphNodeItem::GraphNodeItem(const GraphDocument& doc, NodeId id, Kind kind)
    : m_doc(&doc), m_id(id), m_kind(kind)
{
    setFlag(ItemSendsGeometryChanges);
    if (kind == Kind::Node) {
        setFlag(ItemIsMovable);
        setFlag(ItemIsSelectable);
    }
    setZValue(1.0);
    setAcceptHoverEvents(true);  // a port's own tooltip while it is hovered
    // Text dominates the cost of a node: a drag only translates the cached pixmap.
    setCacheMode(DeviceCoordinateCache);
    refresh();
}

void GraphNodeItem::refresh()
{
    prepareGeometryChange();
    m_ports.clear();
    auto addPorts = [this](const QVariantList& list, bool input) {
        for (const QVariant& v : list) {
            const QVariantMap p = v.toMap();
            m_ports.push_back({p["name"].toString(), p["size"].toLongLong(), p["spiking"].toBool(), input, {},
                               p["offset"].toLongLong()});
        }
    };
    if (m_kind == Kind::Node) {
        m_type = m_doc->nodeData(m_id, NodeRole::Type).toString();
        m_name = m_doc->nodeData(m_id, NodeRole::Name).toString();
        const QVariantList shape = m_doc->nodeData(m_id, NodeRole::Shape).toList();
        QStringList dims;
        for (const QVariant& d : shape) {
            dims << QString::number(d.toLongLong());
        }
        m_shape = QStringLiteral("[%1]").arg(dims.join(QStringLiteral(", ")));
        if (!shape.isEmpty()) {
            m_shape += QStringLiteral("  %1 \u2192 %2").arg(shape.front().toLongLong()).arg(shape.back().toLongLong());
        }
        addPorts(m_doc->nodeData(m_id, NodeRole::InputPorts).toList(), true);
        addPorts(m_doc->nodeData(m_id, NodeRole::OutputPorts).toList(), false);
        m_header = categoryColour(m_type);
    } else {
        const engine::Module* net = m_doc->module(m_id);
        const bool input = m_kind == Kind::NetworkInput;
        const qint64 size = net == nullptr ? 0 : (input ? net->sizeIn() : net->sizeOut());
        m_type = input ? QStringLiteral("network input") : QStringLiteral("network output");
        m_name = input ? QStringLiteral("in") : QStringLiteral("out");
        m_shape = QStringLiteral("%1 channels").arg(size);
        // One port per named boundary port ("in.exc"), or the whole side ("in").
        const std::vector<engine::PortSpec> ports =
            net == nullptr ? std::vector<engine::PortSpec>{} : (input ? net->inputPorts() : net->outputPorts());
        if (ports.size() == 1 && ports.front().name == m_name.toStdString()) {
            m_ports.push_back({m_name, size, false, !input, {}});
        } else {
            for (const engine::PortSpec& p : ports) {
                m_ports.push_back({m_name + QLatin1Char('.') + QString::fromStdString(p.name), p.size, false, !input, {},
                                   p.offset});
            }
        }
        m_header = QColor(0x55, 0x55, 0x55);
    }
    int inRow = 0;
    int outRow = 0;
    for (CanvasPort& p : m_ports) {
        const int row = p.input ? inRow++ : outRow++;
        p.pos = QPointF(p.input ? 0.0 : kWidth, (kHeaderRows + 0.5 + row) * kRow + 6.0);
    }
    m_baseHeight = (kHeaderRows + std::max(std::max(inRow, outRow), 1)) * kRow + 10.0;
    m_height = m_baseHeight + static_cast<double>(m_statistics.size()) * kRow;
    // What the node shows elided, in full: name, type, path, shape and every port.
    QStringList ins;
    QStringList outs;
    for (const CanvasPort& p : m_ports) {
        (p.input ? ins : outs) << QStringLiteral("%1 [%2]").arg(p.name).arg(p.size);
    }
    const QString path = m_kind == Kind::Node ? m_doc->nodeData(m_id, NodeRole::Path).toString() : QString();
    QString tip = QStringLiteral("<b>%1</b> (%2)").arg(m_name.toHtmlEscaped(), m_type.toHtmlEscaped());
    if (!path.isEmpty() && path != m_name) {
        tip += QStringLiteral("<br>%1").arg(path.toHtmlEscaped());
    }
    tip += QStringLiteral("<br>%1").arg(m_shape.toHtmlEscaped());
    if (!ins.isEmpty()) {
        tip += QObject::tr("<br>in: %1").arg(ins.join(QStringLiteral(", ")).toHtmlEscaped());
    }
    if (!outs.isEmpty()) {
        tip += QObject::tr("<br>out: %1").arg(outs.join(QStringLiteral(", ")).toHtmlEscaped());
    }
    m_baseTip = tip;
    m_nodeTip = m_statisticsTip.isEmpty() ? tip : tip + QStringLiteral("<br>") + m_statisticsTip;
    setToolTip(m_nodeTip);
    update();
}

void GraphNodeItem::setStatistics(const QStringList& lines, const QString& tip)
{
    if (lines == m_statistics && tip == m_statisticsTip) {
        return;
    }
    if (lines.size() != m_statistics.size()) {
        prepareGeometryChange();
    }
    m_statistics = lines;
    m_statisticsTip = tip;
    m_height = m_baseHeight + static_cast<double>(m_statistics.size()) * kRow;
    m_nodeTip = tip.isEmpty() ? m_baseTip : m_baseTip + QStringLiteral("<br>") + tip;
    setToolTip(m_nodeTip);
    update();
}

bool GraphNodeItem::portScenePos(const QString& name, bool input, QPointF& out) const
{
    for (const CanvasPort& p : m_ports) {
        if (p.input == input && p.name == name) {
            out = mapToScene(p.pos);
            return true;
        }
    }
    return false;
}

const CanvasPort* GraphNodeItem::portAt(QPointF scenePos) const
{
    const QPointF local = mapFromScene(scenePos);
    for (const CanvasPort& p : m_ports) {
        const QPointF d = local - p.pos;
        if (d.x() * d.x() + d.y() * d.y() <= kPortHit * kPortHit) {
            return &p;
        }
    }
    return nullptr;
}

const CanvasPort* GraphNodeItem::portHoveredAt(QPointF scenePos) const
{
    if (const CanvasPort* handle = portAt(scenePos)) {
        return handle;
    }
    // The label row: the half of the body on the port's side (where paint() writes the label).
    const QPointF local = mapFromScene(scenePos);
    for (const CanvasPort& p : m_ports) {
        const bool row = std::abs(local.y() - p.pos.y()) <= kRow * 0.5;
        const bool side = p.input ? local.x() >= 0.0 && local.x() < kWidth * 0.5 : local.x() >= kWidth * 0.5 && local.x() <= kWidth;
        if (row && side) {
            return &p;
        }
    }
    return nullptr;
}

QString GraphNodeItem::portToolTip(const CanvasPort& port) const
{
    const QString name = port.name.toHtmlEscaped();
    const engine::Module* module = m_doc->module(m_id);
    QString tip;
    qint64 total = 0;  // channels of the whole side the port is a slice of
    if (m_kind == Kind::Node) {
        tip = QObject::tr("<b>%1</b> — %2 port of %3 (%4)")
                  .arg(name, port.input ? QObject::tr("input") : QObject::tr("output"), m_name.toHtmlEscaped(),
                       m_type.toHtmlEscaped());
        total = module == nullptr ? 0 : (port.input ? module->sizeIn() : module->sizeOut());
    } else {
        const bool input = m_kind == Kind::NetworkInput;
        tip = input ? QObject::tr("<b>%1</b> — the network's input: what comes in here feeds the nodes wired from it").arg(name)
                    : QObject::tr("<b>%1</b> — the network's output: what the nodes wired to it give goes out here").arg(name);
        total = module == nullptr ? 0 : (input ? module->sizeIn() : module->sizeOut());
    }
    tip += QStringLiteral("<br>")
           + (port.size == 1 ? QObject::tr("1 channel") : QObject::tr("%1 channels").arg(port.size));
    if (total > port.size && port.size > 0) {
        tip += QObject::tr(" (channels %1–%2 of %3)").arg(port.offset).arg(port.offset + port.size - 1).arg(total);
    }
    const bool takes = m_kind == Kind::Node ? port.input : m_kind == Kind::NetworkOutput;
    if (port.spiking) {
        tip += QStringLiteral("<br>") + (takes ? QObject::tr("Takes spikes: a count per channel each step")
                                                : QObject::tr("Gives spikes: a count per channel each step (0 or 1 per neuron)"));
    } else {
        tip += QStringLiteral("<br>") + (takes ? QObject::tr("Takes values: a number per channel each step (a current, a rate or an activation)")
                                                : QObject::tr("Gives values: a number per channel each step"));
    }
    // The registry's doc of the module's attribute of the same name ("spikes": a State).
    if (m_kind == Kind::Node && module != nullptr) {
        for (const engine::AttributeView& view : module->attributes()) {
            if (view.spec->name == port.name.toStdString() && !view.spec->doc.empty()) {
                tip += QStringLiteral("<br><i>%1</i>").arg(QString::fromStdString(view.spec->doc).toHtmlEscaped());
                break;
            }
        }
    }
    // Its wires, read now (the item is not refreshed when wires change).
    const NodeId network = m_kind == Kind::Node ? m_doc->parentOf(m_id) : m_id;
    const bool source = !port.input;  // an output handle (a boundary "in" draws outputs)
    const std::string node = m_kind == Kind::Node ? m_name.toStdString() : std::string();
    QStringList wires;
    for (ConnectionId id : m_doc->connections(network)) {
        const auto info = m_doc->connection(id);
        if (!info) {
            continue;
        }
        const engine::Endpoint& here = source ? info->from : info->to;
        if (here.node != node || QString::fromStdString(here.port) != port.name) {
            continue;
        }
        QString text = QString::fromStdString((source ? info->to : info->from).toString()).toHtmlEscaped();
        if (info->projection.valid()) {
            text += QObject::tr(" through %1 '%2'")
                        .arg(m_doc->nodeData(info->projection, NodeRole::Type).toString().toHtmlEscaped(),
                             QString::fromStdString(info->name).toHtmlEscaped());
        }
        if (info->delayed) {
            text += QObject::tr(" (delayed one step)");
        }
        wires << text;
    }
    if (wires.isEmpty()) {
        tip += QStringLiteral("<br>") + QObject::tr("Not connected: drag from an output port to an input port to wire it");
    } else {
        const qsizetype more = wires.size() - kMaxWiresListed;
        if (more > 0) {
            wires = wires.mid(0, kMaxWiresListed);
            wires << QObject::tr("and %1 more").arg(more);
        }
        tip += QStringLiteral("<br>") + (source ? QObject::tr("To: ") : QObject::tr("From: "))
               + wires.join(QStringLiteral("<br>&nbsp;&nbsp;&nbsp;&nbsp;"));
    }
    // One line per fact: the tooltip's word wrap would otherwise break them at a narrow width.
    return QStringLiteral("<p style='white-space:pre'>%1</p>").arg(tip);
}

std::string GraphNodeItem::endpoint(const CanvasPort& port) const
{
    if (m_kind != Kind::Node) {
        return port.name.toStdString();
    }
    return (m_name + QLatin1Char('.') + port.name).toStdString();
}

QRectF GraphNodeItem::boundingRect() const
{
    return QRectF(-kPortRadius - 1.0, -1.0, kWidth + 2.0 * kPortRadius + 2.0, m_height + 2.0);
}

void GraphNodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*)
{
    const QRectF body(0.0, 0.0, kWidth, m_height);
    const bool selected = (option->state & QStyle::State_Selected) != 0;
    painter->setRenderHint(QPainter::Antialiasing, true);
    painter->setPen(QPen(selected ? QColor(0xff, 0xa5, 0x00) : QColor(0x30, 0x30, 0x30), selected ? 2.5 : 1.0));
    painter->setBrush(QColor(0xfa, 0xfa, 0xfa));
    painter->drawRoundedRect(body, 5.0, 5.0);
    const QRectF header(0.0, 0.0, kWidth, kHeaderRows * kRow + 4.0);
    painter->setPen(Qt::NoPen);
    painter->setBrush(m_header);
    QPainterPath headerPath;
    headerPath.addRoundedRect(header, 5.0, 5.0);
    painter->drawPath(headerPath);

    const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
    QFont font = painter->font();
    font.setPointSizeF(8.0);
    const bool detailed = lod >= kDetailLod;
    if (!detailed && lod >= kNameOnlyLod) {
        // Zoomed out so far that 8 pt would be a few pixels high (a long NIR chain fitted into
        // a 1024 px window): the name alone, as large as the header holds, so every box still
        // says what it is; type, shape and ports are in the tooltip.
        QFont big = font;
        big.setBold(true);
        big.setPixelSize(static_cast<int>(std::min(header.height() * 0.8, kNamePixels / lod)));
        painter->setFont(big);
        painter->setPen(Qt::white);
        painter->drawText(header.adjusted(6.0, 0.0, -6.0, 0.0), Qt::AlignLeft | Qt::AlignVCenter,
                          QFontMetricsF(big).elidedText(m_name, Qt::ElideRight, kWidth - 12.0));
    }
    if (detailed) {
        QFont bold = font;
        bold.setBold(true);
        painter->setFont(bold);
        painter->setPen(Qt::white);
        // The type takes what it needs up to 45 % of the header, the name the rest; both are
        // elided when too long (the tooltip has them in full).
        const QFontMetricsF fmBold(bold);
        const QFontMetricsF fm(font);
        const double typeWidth = std::min(fm.horizontalAdvance(m_type), kWidth * 0.45);
        const double nameWidth = kWidth - 12.0 - typeWidth - 6.0;
        painter->drawText(QRectF(6.0, 2.0, nameWidth, kRow), Qt::AlignLeft | Qt::AlignVCenter,
                          fmBold.elidedText(m_name, Qt::ElideRight, nameWidth));
        painter->setFont(font);
        painter->drawText(QRectF(kWidth - 6.0 - typeWidth, 2.0, typeWidth, kRow), Qt::AlignRight | Qt::AlignVCenter,
                          fm.elidedText(m_type, Qt::ElideRight, typeWidth));
        painter->setPen(QColor(0xe8, 0xe8, 0xe8));
        painter->drawText(QRectF(6.0, kRow + 2.0, kWidth - 12.0, kRow), Qt::AlignLeft | Qt::AlignVCenter,
                          fm.elidedText(m_shape, Qt::ElideRight, kWidth - 12.0));
    }
    if (detailed && !m_statistics.isEmpty()) {
        // Statistics rows under the ports, set off by a thin rule, a little smaller than the
        // port labels.
        painter->setPen(QPen(QColor(0xd0, 0xd0, 0xd0), 1.0));
        painter->drawLine(QPointF(4.0, m_baseHeight - 4.0), QPointF(kWidth - 4.0, m_baseHeight - 4.0));
        QFont small = font;
        small.setPointSizeF(7.5);
        painter->setFont(small);
        painter->setPen(QColor(0x30, 0x30, 0x30));
        const QFontMetricsF fmSmall(small);
        for (qsizetype k = 0; k < m_statistics.size(); ++k) {
            const QRectF row(6.0, m_baseHeight - 4.0 + static_cast<double>(k) * kRow, kWidth - 12.0, kRow);
            painter->drawText(row, Qt::AlignLeft | Qt::AlignVCenter,
                              fmSmall.elidedText(m_statistics[k], Qt::ElideRight, row.width()));
        }
    }
    for (const CanvasPort& p : m_ports) {
        const QColor colour = p.spiking ? QColor(0xd3, 0x54, 0x00) : QColor(0x1f, 0x6f, 0xc5);
        painter->setPen(QPen(colour.darker(130), 1.0));
        painter->setBrush(colour);
        if (p.spiking) {
            const QPointF c = p.pos;
            const QPointF tri[3] = {c + QPointF(-kPortRadius, -kPortRadius), c + QPointF(kPortRadius, 0.0),
                                    c + QPointF(-kPortRadius, kPortRadius)};
            painter->drawPolygon(tri, 3);
        } else {
            painter->drawEllipse(p.pos, kPortRadius, kPortRadius);
        }
        if (detailed) {
            painter->setPen(QColor(0x20, 0x20, 0x20));
            painter->setFont(font);
            const QString label = QStringLiteral("%1 [%2]").arg(p.name).arg(p.size);
            const QRectF r = p.input ? QRectF(kPortRadius + 4.0, p.pos.y() - kRow * 0.5, kWidth * 0.5 - 8.0, kRow)
                                     : QRectF(kWidth * 0.5, p.pos.y() - kRow * 0.5, kWidth * 0.5 - kPortRadius - 4.0, kRow);
            painter->drawText(r, (p.input ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter,
                              QFontMetricsF(font).elidedText(label, Qt::ElideMiddle, r.width()));
        }
    }
}

void GraphNodeItem::hoverEnterEvent(QGraphicsSceneHoverEvent* event)
{
    hoverMoveEvent(event);  // no repaint: hovering changes nothing drawn
}

void GraphNodeItem::hoverMoveEvent(QGraphicsSceneHoverEvent* event)
{
    const CanvasPort* port = portHoveredAt(event->scenePos());
    const QString tip = port != nullptr ? portToolTip(*port) : m_nodeTip;
    if (toolTip() != tip) {
        setToolTip(tip);
    }
}

void GraphNodeItem::hoverLeaveEvent(QGraphicsSceneHoverEvent*)
{
    if (toolTip() != m_nodeTip) {
        setToolTip(m_nodeTip);
    }
}

QVariant GraphNodeItem::itemChange(GraphicsItemChange change, const QVariant& value)
{
    if (change == ItemPositionHasChanged && m_observer) {
        m_observer(this);
    }
    return QGraphicsItem::itemChange(change, value);
}

}  // namespace spike::ui
