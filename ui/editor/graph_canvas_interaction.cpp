// GraphCanvas, user interaction: selection sync, command-pushing mouse and key handling (with the
// keys that open the quick-add popup), zoom, pan, fit, grid background, the empty-state hint and
// context menus. Scene upkeep lives in graph_canvas.cpp.
// Thread: GUI thread only.
#include "ui/editor/graph_canvas.hpp"

#include "ui/document/graph_commands.hpp"
#include "ui/editor/graph_node_item.hpp"
#include "ui/editor/graph_wire_item.hpp"
#include "ui/editor/quick_add_popup.hpp"

#include <QContextMenuEvent>
#include <QCoreApplication>
#include <QGraphicsPathItem>
#include <QInputDialog>
#include <QKeyEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QUndoStack>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace spike::ui {

namespace {

/// The node item (and its port, when `portSide` matches) near `scenePos`.
GraphNodeItem* nodeNear(QGraphicsScene* scene, QPointF scenePos, const CanvasPort** port, int portSide)
{
    const QRectF probe(scenePos - QPointF(10.0, 10.0), QSizeF(20.0, 20.0));
    for (QGraphicsItem* item : scene->items(probe)) {
        if (item->type() != GraphNodeItem::kType) {
            continue;
        }
        auto* node = static_cast<GraphNodeItem*>(item);
        const CanvasPort* p = node->portAt(scenePos);
        if (p != nullptr && (portSide < 0 || p->input == (portSide == 1))) {
            *port = p;
            return node;
        }
    }
    *port = nullptr;
    return nullptr;
}

double snap(double v)
{
    return std::round(v / GraphCanvas::kGrid) * GraphCanvas::kGrid;
}

}  // namespace

QList<NodeId> GraphCanvas::selectedNodes() const
{
    QList<NodeId> out;
    for (const auto& [id, item] : m_nodes) {
        if (item->isSelected()) {
            out.push_back(id);
        }
    }
    return out;
}

void GraphCanvas::emitSelection()
{
    Q_EMIT selectionChanged(selectedNodes());
    Q_EMIT wireSelectionChanged(selectedWire());
}

void GraphCanvas::setSelection(const QList<NodeId>& nodes)
{
    m_syncingSelection = true;
    scene()->clearSelection();
    for (NodeId id : nodes) {
        if (GraphNodeItem* item = nodeItem(id)) {
            item->setSelected(true);
        }
    }
    m_syncingSelection = false;
}

void GraphCanvas::refuse(const QString& reason, QPoint viewportPos)
{
    m_lastRefusal = reason;
    QToolTip::showText(viewport()->mapToGlobal(viewportPos), reason, viewport());
    Q_EMIT editRefused(reason);
}

bool GraphCanvas::push(std::unique_ptr<GraphCommand> command, QPoint viewportPos)
{
    const engine::Status status = pushCommand(*m_doc, std::move(command));
    if (!status.ok) {
        refuse(QString::fromStdString(status.message), viewportPos);
    }
    return status.ok;
}

// ---- zoom, pan, fit -----------------------------------------------------------------------------

double GraphCanvas::zoom() const
{
    return transform().m11();
}

void GraphCanvas::zoomAt(QPoint anchor, double factor)
{
    const double target = std::clamp(zoom() * factor, kMinZoom, kMaxZoom);
    factor = target / zoom();
    if (factor == 1.0) {
        return;
    }
    const QPointF scenePoint = mapToScene(anchor) + QPointF(0.5, 0.5) / zoom();
    m_viewFitted = false;
    scale(factor, factor);
    const QPointF now = viewportTransform().map(scenePoint) - QPointF(0.5, 0.5);
    horizontalScrollBar()->setValue(horizontalScrollBar()->value() + static_cast<int>(std::lround(now.x() - anchor.x())));
    verticalScrollBar()->setValue(verticalScrollBar()->value() + static_cast<int>(std::lround(now.y() - anchor.y())));
    updateMinimap();
}

void GraphCanvas::fitToView()
{
    QRectF rect;
    for (QGraphicsItem* item : scene()->items()) {
        if (item != m_wirePreview && item->isVisible()) {
            rect = rect.united(item->sceneBoundingRect());
        }
    }
    if (rect.isNull()) {
        updateMinimap();
        return;
    }
    rect.adjust(-2.0 * kGrid, -2.0 * kGrid, 2.0 * kGrid, 2.0 * kGrid);
    updateSceneRect();
    fitInView(rect, Qt::KeepAspectRatio);
    const double clamped = std::clamp(zoom(), kMinZoom, 1.5);
    if (clamped != zoom()) {
        setTransform(QTransform::fromScale(clamped, clamped));
    }
    centerOn(rect.center());
    m_viewFitted = true;
    updateMinimap();
}

void GraphCanvas::panTo(const QPointF& scenePoint)
{
    centerOn(scenePoint);
    m_viewFitted = false;
    updateMinimap();
}

void GraphCanvas::wheelEvent(QWheelEvent* event)
{
    zoomAt(event->position().toPoint(), std::pow(1.0015, event->angleDelta().y()));
    event->accept();
}

void GraphCanvas::drawBackground(QPainter* painter, const QRectF& rect)
{
    painter->fillRect(rect, QColor(0xf4, 0xf5, 0xf7));
    painter->setRenderHint(QPainter::Antialiasing, false);
    const double step = zoom() >= 0.5 ? kGrid : 5.0 * kGrid;
    QPen minor(QColor(0xe4, 0xe6, 0xea), 0.0);
    QPen major(QColor(0xd2, 0xd5, 0xdb), 0.0);
    for (double x = std::floor(rect.left() / step) * step; x <= rect.right(); x += step) {
        painter->setPen(std::fmod(std::abs(x), 5.0 * kGrid) < 1e-6 ? major : minor);
        painter->drawLine(QPointF(x, rect.top()), QPointF(x, rect.bottom()));
    }
    for (double y = std::floor(rect.top() / step) * step; y <= rect.bottom(); y += step) {
        painter->setPen(std::fmod(std::abs(y), 5.0 * kGrid) < 1e-6 ? major : minor);
        painter->drawLine(QPointF(rect.left(), y), QPointF(rect.right(), y));
    }
}

void GraphCanvas::drawForeground(QPainter* painter, const QRectF& rect)
{
    QGraphicsView::drawForeground(painter, rect);
    if (m_doc == nullptr || !m_nodes.empty() || !isEditable()) {
        return;
    }
    painter->save();
    painter->resetTransform();  // viewport pixels: the hint keeps its size whatever the zoom
    painter->setPen(QColor(0x6b, 0x72, 0x80));
    painter->drawText(viewport()->rect().adjusted(40, 40, -40, -40), Qt::AlignCenter | Qt::TextWordWrap,
                      tr("This network is empty.\n\nDrag a module from the palette onto the canvas, or click "
                         "here and type the start of its name (LIF, Poisson…); Tab lists every type."));
    painter->restore();
}

void GraphCanvas::resizeEvent(QResizeEvent* event)
{
    QGraphicsView::resizeEvent(event);
    if (m_viewFitted) {  // untouched since the last fit: fit again to the new size
        fitToView();
    } else {
        updateMinimap();
    }
}

void GraphCanvas::scrollContentsBy(int dx, int dy)
{
    QGraphicsView::scrollContentsBy(dx, dy);
    if (m_minimap != nullptr) {
        updateMinimap();
    }
}

// ---- mouse --------------------------------------------------------------------------------------

void GraphCanvas::mousePressEvent(QMouseEvent* event)
{
    const QPoint pos = event->position().toPoint();
    if (event->button() == Qt::MiddleButton || (event->button() == Qt::LeftButton && m_spaceHeld)) {
        m_drag = Drag::Pan;
        m_lastPanPos = pos;
        viewport()->setCursor(Qt::ClosedHandCursor);
        event->accept();
        return;
    }
    if (event->button() == Qt::LeftButton && m_doc != nullptr) {
        const CanvasPort* port = nullptr;
        if (GraphNodeItem* node = nodeNear(scene(), mapToScene(pos), &port, 0)) {
            if (refuseReadOnly(tr("Connecting"))) {
                event->accept();
                return;
            }
            m_drag = Drag::Wire;
            m_wireSource = node;
            m_wireSourceEnd = node->endpoint(*port);
            QPointF from;
            node->portScenePos(port->name, false, from);
            m_wirePreview = scene()->addPath(GraphWireItem::curve(from, from), QPen(QColor(0xe0, 0x60, 0x00), 2.0, Qt::DashLine));
            m_wirePreview->setZValue(2.0);
            event->accept();
            return;
        }
    }
    QGraphicsView::mousePressEvent(event);
    m_dragStart.clear();
    QGraphicsItem* under = itemAt(pos);
    if (event->button() == Qt::LeftButton && under != nullptr && under->type() == GraphNodeItem::kType && under->isSelected()) {
        m_drag = Drag::Nodes;
        for (const auto& [id, item] : m_nodes) {
            if (item->isSelected()) {
                m_dragStart[id] = item->pos();
            }
        }
    }
}

void GraphCanvas::mouseMoveEvent(QMouseEvent* event)
{
    const QPoint pos = event->position().toPoint();
    if (m_drag == Drag::Pan) {
        const QPoint d = pos - m_lastPanPos;
        m_lastPanPos = pos;
        horizontalScrollBar()->setValue(horizontalScrollBar()->value() - d.x());
        verticalScrollBar()->setValue(verticalScrollBar()->value() - d.y());
        m_viewFitted = false;
        event->accept();
        return;
    }
    if (m_drag == Drag::Wire && m_wirePreview != nullptr) {
        QPointF from;
        const CanvasPort* port = nullptr;
        for (const CanvasPort& p : m_wireSource->ports()) {
            if (!p.input && m_wireSource->endpoint(p) == m_wireSourceEnd) {
                port = &p;
            }
        }
        if (port != nullptr && m_wireSource->portScenePos(port->name, false, from)) {
            m_wirePreview->setPath(GraphWireItem::curve(from, mapToScene(pos)));
        }
        event->accept();
        return;
    }
    QGraphicsView::mouseMoveEvent(event);
}

void GraphCanvas::mouseReleaseEvent(QMouseEvent* event)
{
    const QPoint pos = event->position().toPoint();
    const Drag drag = m_drag;
    m_drag = Drag::None;
    if (drag == Drag::Pan) {
        viewport()->unsetCursor();
        event->accept();
        return;
    }
    if (drag == Drag::Wire) {
        delete m_wirePreview;
        m_wirePreview = nullptr;
        const CanvasPort* port = nullptr;
        if (GraphNodeItem* target = nodeNear(scene(), mapToScene(pos), &port, 1)) {
            connectDropped(target->endpoint(*port), pos);
        }
        m_wireSource = nullptr;
        event->accept();
        return;
    }
    QGraphicsView::mouseReleaseEvent(event);
    if (drag != Drag::Nodes || m_doc == nullptr) {
        return;
    }
    std::vector<std::pair<NodeId, QPointF>> targets;
    bool moved = false;
    for (const auto& [id, start] : m_dragStart) {
        GraphNodeItem* item = nodeItem(id);
        if (item == nullptr) {
            continue;
        }
        moved = moved || item->pos() != start;
        targets.emplace_back(id, QPointF(snap(item->pos().x()), snap(item->pos().y())));
    }
    const std::map<NodeId, QPointF> starts = std::move(m_dragStart);
    m_dragStart.clear();
    if (!moved) {
        return;
    }
    // The other nodes of this network that stand where the default layout put them are pinned
    // there by the same command: the default layout places unplaced nodes below placed ones, so
    // without this, saving and reopening would move every node the user did not drag.
    for (const auto& [id, item] : m_nodes) {
        if (starts.count(id) == 0 && !m_doc->position(id)) {
            targets.emplace_back(id, item->pos());
        }
    }
    if (!push(std::make_unique<MoveNodesCommand>(*m_doc, targets), pos)) {
        for (const auto& [id, start] : starts) {
            if (GraphNodeItem* item = nodeItem(id)) {
                item->setPos(start);
            }
        }
    }
    updateSceneRect();
}

// ---- keys and menus -----------------------------------------------------------------------------

bool GraphCanvas::opensQuickAdd(const QKeyEvent& event) const
{
    // Keys with a meaning of their own keep it: Space (pan), F (fit), Delete / Backspace, the
    // arrows and every Ctrl / Alt / Meta chord (the window's shortcuts).
    const QString text = event.text();
    return m_doc != nullptr && m_drag == Drag::None && !m_spaceHeld && text.size() == 1 && text.front().isPrint()
           && !text.front().isSpace() && event.key() != Qt::Key_F
           && (event.modifiers() & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier)) == 0;
}

bool GraphCanvas::event(QEvent* event)
{
    // Tab opens the quick-add popup (as in Nuke); QWidget::event would move the focus instead.
    // Shift+Tab still leaves the canvas for keyboard users.
    if (event->type() == QEvent::KeyPress && m_doc != nullptr && m_drag == Drag::None) {
        auto* key = static_cast<QKeyEvent*>(event);
        if (key->key() == Qt::Key_Tab && (key->modifiers() & ~Qt::KeypadModifier) == Qt::NoModifier) {
            if (m_quickAdd != nullptr && m_quickAdd->isVisible()) {
                QCoreApplication::sendEvent(m_quickAdd->lineEdit(), event);
            } else {
                openQuickAdd();
            }
            event->accept();
            return true;
        }
    }
    return QGraphicsView::event(event);
}

void GraphCanvas::keyPressEvent(QKeyEvent* event)
{
    if (m_quickAdd != nullptr && m_quickAdd->isVisible()) {
        // Keys that reach the canvas while the popup is open (sent to it, not typed into the
        // popup's window) belong to the popup.
        QCoreApplication::sendEvent(m_quickAdd->lineEdit(), event);
        event->accept();
        return;
    }
    if (event->key() == Qt::Key_Space && !event->isAutoRepeat()) {
        m_spaceHeld = true;
        viewport()->setCursor(Qt::OpenHandCursor);
    } else if (event->key() == Qt::Key_F) {
        fitToView();
    } else if (event->key() == Qt::Key_Delete || event->key() == Qt::Key_Backspace) {
        deleteSelection();
    } else if (opensQuickAdd(*event)) {
        openQuickAdd(event->text());
    } else {
        QGraphicsView::keyPressEvent(event);
        return;
    }
    event->accept();
}

void GraphCanvas::keyReleaseEvent(QKeyEvent* event)
{
    if (event->key() == Qt::Key_Space && !event->isAutoRepeat()) {
        m_spaceHeld = false;
        viewport()->unsetCursor();
        event->accept();
        return;
    }
    QGraphicsView::keyReleaseEvent(event);
}

bool GraphCanvas::deleteSelection()
{
    if (m_doc == nullptr || (selectedNodes().isEmpty() && std::none_of(m_wires.begin(), m_wires.end(), [](const auto& w) { return w.second->isSelected(); }))) {
        return false;
    }
    if (refuseReadOnly(tr("Deleting"))) {
        return false;
    }
    std::vector<ConnectionId> wires;
    for (const auto& [id, wire] : m_wires) {
        if (wire->isSelected()) {
            wires.push_back(id);
        }
    }
    std::vector<NodeId> nodes;
    for (NodeId id : selectedNodes()) {
        nodes.push_back(id);
    }
    const bool both = !wires.empty() && !nodes.empty();
    if (both) {
        m_doc->undoStack()->beginMacro(tr("Delete selection"));
    }
    bool ok = true;
    if (!wires.empty()) {
        ok = push(std::make_unique<DisconnectCommand>(*m_doc, wires), cursorPos()) && ok;
    }
    if (!nodes.empty()) {
        ok = push(std::make_unique<DeleteNodesCommand>(*m_doc, nodes), cursorPos()) && ok;
    }
    if (both) {
        m_doc->undoStack()->endMacro();
    }
    return ok;
}

void GraphCanvas::duplicate(const QList<NodeId>& nodes)
{
    if (refuseReadOnly(tr("Duplicating"))) {
        return;
    }
    try {
        nlohmann::json fragment = copyFragment(*m_doc, std::vector<NodeId>(nodes.begin(), nodes.end()));
        push(std::make_unique<PasteCommand>(*m_doc, m_network, std::move(fragment), QPointF(2.0 * kGrid, 2.0 * kGrid)),
             cursorPos());
    } catch (const engine::Error& e) {
        refuse(QString::fromUtf8(e.what()), cursorPos());
    }
}

void GraphCanvas::rename(NodeId node)
{
    bool ok = false;
    const QString name = QInputDialog::getText(this, tr("Rename"), tr("Name:"), QLineEdit::Normal,
                                               m_doc->nodeData(node, NodeRole::Name).toString(), &ok);
    if (ok && !name.isEmpty()) {
        push(std::make_unique<RenameCommand>(*m_doc, node, name.toStdString()), cursorPos());
    }
}

QList<QPair<QString, QString>> GraphCanvas::plotEntries(NodeId id, const QString& port) const
{
    QList<QPair<QString, QString>> entries;
    const engine::Module* module = m_doc != nullptr ? m_doc->module(id) : nullptr;
    if (module == nullptr) {
        return entries;
    }
    if (GraphNodeItem* item = nodeItem(id); item != nullptr && !port.isEmpty()) {
        for (const CanvasPort& p : item->ports()) {
            if (p.name == port && !p.input && !p.spiking) {
                entries.append({tr("Output '%1' [%2]").arg(p.name).arg(p.size), p.name});
            }
        }
    }
    const auto offered = module->recordableSignals();
    for (const auto& view : module->attributes()) {
        if (view.spec->kind != engine::AttributeKind::State || view.spec->name == "spikes" ||
            std::find(offered.begin(), offered.end(), view.spec->name) == offered.end()) {
            continue;
        }
        const QString name = QString::fromStdString(view.spec->name);
        entries.append({view.spec->units.empty() ? name : QStringLiteral("%1 [%2]").arg(name, QString::fromStdString(view.spec->units)),
                        name});
    }
    if (module->spikingOutput()) {
        entries.append({tr("Spikes of chosen neurons (raster)"), QStringLiteral("spikes")});
    }
    return entries;
}

}  // namespace spike::ui
