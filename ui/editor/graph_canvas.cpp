// GraphCanvas: scene upkeep from the document's signals, command-pushing interaction,
// navigation and the minimap overlay (GraphMinimap, private to this file). Default placement:
// graph_canvas_placement.cpp.
// Thread: GUI thread only.
#include "ui/editor/graph_canvas.hpp"

#include "ui/document/graph_commands.hpp"
#include "ui/editor/graph_node_item.hpp"
#include "ui/editor/graph_wire_item.hpp"

#include <QGraphicsPathItem>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsScene>
#include <QMouseEvent>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <utility>

namespace spike::ui {

/// Overlay in the canvas' bottom-right corner: every node as a small rectangle, scaled to fit,
/// and the viewport's rectangle; a click centres the view there.
class GraphMinimap : public QWidget {
public:
    explicit GraphMinimap(GraphCanvas* canvas) : QWidget(canvas), m_canvas(canvas)
    {
        setFixedSize(180, 120);
        setCursor(Qt::PointingHandCursor);
    }

    /// The scene rectangle shown (graph united with the visible area) and its scale.
    QRectF world(double& scale, QPointF& origin) const
    {
        QRectF graph;
        for (QGraphicsItem* item : m_canvas->scene()->items()) {
            if (item->type() == GraphNodeItem::kType) {
                graph = graph.united(item->sceneBoundingRect());
            }
        }
        const QRectF visible = m_canvas->mapToScene(m_canvas->viewport()->rect()).boundingRect();
        const QRectF all = graph.united(visible).adjusted(-20.0, -20.0, 20.0, 20.0);
        scale = std::min((width() - 4.0) / all.width(), (height() - 4.0) / all.height());
        origin = QPointF(2.0, 2.0) - all.topLeft() * scale;
        return all;
    }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        p.fillRect(rect(), QColor(255, 255, 255, 220));
        p.setPen(QColor(0x90, 0x90, 0x90));
        p.drawRect(rect().adjusted(0, 0, -1, -1));
        double s = 1.0;
        QPointF o;
        world(s, o);
        auto map = [&](const QRectF& r) { return QRectF(o + r.topLeft() * s, r.size() * s); };
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(0x2c, 0x5f, 0x8a));
        for (QGraphicsItem* item : m_canvas->scene()->items()) {
            if (item->type() == GraphNodeItem::kType) {
                p.drawRect(map(item->sceneBoundingRect()));
            }
        }
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(QColor(0xe0, 0x60, 0x00), 1.5));
        p.drawRect(map(m_canvas->mapToScene(m_canvas->viewport()->rect()).boundingRect()));
    }

    void mousePressEvent(QMouseEvent* event) override
    {
        double s = 1.0;
        QPointF o;
        world(s, o);
        m_canvas->panTo((event->position() - o) / s);
    }

private:
    GraphCanvas* m_canvas;
};

GraphCanvas::GraphCanvas(QWidget* parent) : QGraphicsView(parent)
{
    auto* scene = new QGraphicsScene(this);
    scene->setItemIndexMethod(QGraphicsScene::BspTreeIndex);
    setScene(scene);
    setRenderHint(QPainter::Antialiasing, true);
    setDragMode(QGraphicsView::RubberBandDrag);
    setRubberBandSelectionMode(Qt::IntersectsItemShape);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setTransformationAnchor(QGraphicsView::NoAnchor);
    setResizeAnchor(QGraphicsView::AnchorViewCenter);
    setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
    setFocusPolicy(Qt::StrongFocus);
    m_minimap = new GraphMinimap(this);
    m_minimap->hide();
    connect(scene, &QGraphicsScene::selectionChanged, this, [this] {
        if (!m_syncingSelection) {
            emitSelection();
        }
    });
}

GraphCanvas::~GraphCanvas()
{
    disconnect(scene(), nullptr, this, nullptr);
    clearItems();
}

void GraphCanvas::setDocument(GraphDocument* doc)
{
    if (m_doc != nullptr) {
        disconnect(m_doc, nullptr, this, nullptr);
    }
    m_doc = doc;
    m_network = doc != nullptr ? doc->rootId() : NodeId{};
    if (doc != nullptr) {
        connect(doc, &GraphDocument::documentReset, this, [this] {
            m_network = m_doc->rootId();
            rebuild();
            Q_EMIT networkChanged(m_network);
        });
        connect(doc, &GraphDocument::nodeAdded, this, &GraphCanvas::onNodeAdded);
        connect(doc, &GraphDocument::nodeAboutToBeRemoved, this, &GraphCanvas::onNodeAboutToBeRemoved);
        connect(doc, &GraphDocument::nodeMoved, this, &GraphCanvas::onNodeMoved);
        connect(doc, &GraphDocument::nodeRenamed, this, &GraphCanvas::onNodeRenamed);
        connect(doc, &GraphDocument::connectionAdded, this, &GraphCanvas::onConnectionAdded);
        connect(doc, &GraphDocument::connectionAboutToBeRemoved, this, &GraphCanvas::onConnectionAboutToBeRemoved);
        connect(doc, &GraphDocument::attributeChanged, this,
                [this](NodeId id, const QString&) { onAttributeChanged(id); });
        // Nodes whose position an undo cleared go back to the default layout once the whole
        // command is undone (placing them one by one would lay them out below the others).
        connect(doc->undoStack(), &QUndoStack::indexChanged, this, [this] {
            if (std::exchange(m_relayoutPending, false)) {
                for (const auto& [id, pos] : defaultLayout()) {
                    m_nodes[id]->setPos(pos);
                }
                updateSceneRect();
            }
        });
    }
    rebuild();
}

void GraphCanvas::setNetwork(NodeId network)
{
    if (m_doc == nullptr || (m_doc->network(network) == nullptr && !canEnter(network))) {
        return;
    }
    const bool changed = network != m_network;
    m_network = network;
    rebuild();
    if (changed) {
        Q_EMIT networkChanged(m_network);
    }
}

bool GraphCanvas::isEditable() const
{
    return m_doc != nullptr && m_doc->network(m_network) != nullptr;
}

bool GraphCanvas::canEnter(NodeId id) const
{
    const engine::Module* m = m_doc != nullptr ? m_doc->module(id) : nullptr;
    return m != nullptr && (dynamic_cast<const engine::Network*>(m) != nullptr || m->childCount() > 0);
}

std::vector<NodeId> GraphCanvas::shownNodes() const
{
    return isEditable() ? m_doc->graphNodes(m_network) : m_doc->children(m_network);
}

GraphNodeItem* GraphCanvas::nodeItem(NodeId id) const
{
    const auto it = m_nodes.find(id);
    return it == m_nodes.end() ? nullptr : it->second;
}

GraphWireItem* GraphCanvas::wireItem(ConnectionId id) const
{
    const auto it = m_wires.find(id);
    return it == m_wires.end() ? nullptr : it->second;
}

bool GraphCanvas::minimapVisible() const
{
    return m_minimap->isVisible();
}

// ---- scene upkeep -----------------------------------------------------------------------------

void GraphCanvas::clearItems()
{
    // Deleting selected items makes the scene emit selectionChanged: the maps are emptied first
    // so that no handler sees a deleted item.
    const bool hadSelection = !selectedNodes().isEmpty();
    m_syncingSelection = true;
    m_wiresOfNode.clear();
    m_wireEnds.clear();
    const auto wires = std::move(m_wires);
    const auto nodes = std::move(m_nodes);
    m_wires.clear();
    m_nodes.clear();
    for (const auto& [id, wire] : wires) {
        delete wire;
    }
    for (const auto& [id, node] : nodes) {
        delete node;
    }
    for (QGraphicsPathItem* arrow : m_flow) {
        delete arrow;
    }
    m_flow.clear();
    delete m_inItem;
    delete m_outItem;
    m_inItem = nullptr;
    m_outItem = nullptr;
    delete m_wirePreview;
    m_wirePreview = nullptr;
    m_drag = Drag::None;
    m_syncingSelection = false;
    if (hadSelection) {
        emitSelection();
    }
}

void GraphCanvas::rebuild()
{
    ++m_rebuilds;
    clearItems();
    viewport()->update();  // the empty-state hint follows the new content (drawForeground)
    scene()->setSceneRect(QRectF());
    if (m_doc == nullptr || !m_doc->contains(m_network)) {
        updateMinimap();
        return;
    }
    for (NodeId id : shownNodes()) {
        addNodeItem(id);
    }
    refreshNodeStatistics();  // before the layout: the rows make nodes taller
    for (const auto& [id, pos] : defaultLayout()) {
        m_nodes[id]->setPos(pos);
    }
    const engine::Network* net = m_doc->network(m_network);
    if (net == nullptr) {
        routeFlow();
        updateSceneRect();
        fitToView();
        return;
    }
    if (net->sizeIn() > 0) {
        m_inItem = new GraphNodeItem(*m_doc, m_network, GraphNodeItem::Kind::NetworkInput);
        m_inItem->setMoveObserver([this](GraphNodeItem* n) { routeWiresOf(n); });
        scene()->addItem(m_inItem);
    }
    if (net->sizeOut() > 0) {
        m_outItem = new GraphNodeItem(*m_doc, m_network, GraphNodeItem::Kind::NetworkOutput);
        m_outItem->setMoveObserver([this](GraphNodeItem* n) { routeWiresOf(n); });
        scene()->addItem(m_outItem);
    }
    placeBoundaries();
    for (ConnectionId id : m_doc->connections(m_network)) {
        addWireItem(id);
    }
    updateSceneRect();
    fitToView();
}

GraphNodeItem* GraphCanvas::addNodeItem(NodeId id)
{
    auto* item = new GraphNodeItem(*m_doc, id);
    if (const auto pos = m_doc->position(id)) {
        item->setPos(*pos);
    }
    item->setMoveObserver([this](GraphNodeItem* n) {
        routeWiresOf(n);
        if (!m_flow.empty()) {
            routeFlow();
        }
        if (m_minimap->isVisible()) {
            m_minimap->update();
        }
    });
    scene()->addItem(item);
    m_nodes[id] = item;
    if (m_nodes.size() == 1) {
        viewport()->update();  // the empty-state hint goes (drawForeground)
    }
    return item;
}

GraphNodeItem* GraphCanvas::endpointItem(const engine::Endpoint& end, bool source) const
{
    if (end.node.empty()) {
        return source ? m_inItem : m_outItem;
    }
    const std::string prefix = m_doc->path(m_network);
    return nodeItem(m_doc->findNode(prefix.empty() ? end.node : prefix + "." + end.node));
}

void GraphCanvas::addWireItem(ConnectionId id)
{
    const auto info = m_doc->connection(id);
    if (!info || info->network != m_network || m_wires.count(id) != 0) {
        return;
    }
    auto* wire = new GraphWireItem(*m_doc, id);
    GraphNodeItem* src = endpointItem(info->from, true);
    GraphNodeItem* dst = endpointItem(info->to, false);
    m_wires[id] = wire;
    m_wireEnds[wire] = {src, dst};
    if (src != nullptr) {
        m_wiresOfNode.emplace(src->id(), wire);
    }
    if (dst != nullptr && dst != src) {
        m_wiresOfNode.emplace(dst->id(), wire);
    }
    routeWire(wire);
    scene()->addItem(wire);
    wireArrived(wire, id);
}

void GraphCanvas::removeWireItem(ConnectionId id)
{
    const auto it = m_wires.find(id);
    if (it == m_wires.end()) {
        return;
    }
    GraphWireItem* wire = it->second;
    for (auto w = m_wiresOfNode.begin(); w != m_wiresOfNode.end();) {
        w = w->second == wire ? m_wiresOfNode.erase(w) : std::next(w);
    }
    m_wireEnds.erase(wire);
    m_wires.erase(it);
    const bool syncing = m_syncingSelection;
    m_syncingSelection = wireLeaving(wire, id) || syncing;  // no selection change while it comes back
    delete wire;
    m_syncingSelection = syncing;
}

void GraphCanvas::routeWire(GraphWireItem* wire)
{
    const auto ends = m_wireEnds.find(wire);
    const auto info = m_doc->connection(wire->id());
    QPointF a;
    QPointF b;
    const bool ok = ends != m_wireEnds.end() && info && ends->second.first != nullptr && ends->second.second != nullptr
                    && ends->second.first->portScenePos(QString::fromStdString(info->from.port), false, a)
                    && ends->second.second->portScenePos(QString::fromStdString(info->to.port), true, b);
    wire->setVisible(ok);
    if (ok) {
        wire->setEnds(a, b);
    }
}

void GraphCanvas::routeWiresOf(GraphNodeItem* node)
{
    // Boundary items share the network's id, so they are matched by item, not by id alone.
    const auto [first, last] = m_wiresOfNode.equal_range(node->id());
    for (auto it = first; it != last; ++it) {
        const auto& ends = m_wireEnds[it->second];
        if (ends.first == node || ends.second == node) {
            routeWire(it->second);
        }
    }
}

void GraphCanvas::routeFlow()
{
    const std::vector<FlowArrow> arrows = flowArrows();
    while (m_flow.size() > arrows.size()) {
        delete m_flow.back();  // its label is a child item
        m_flow.pop_back();
    }
    const QPen pen(QColor(0x6b, 0x72, 0x80), 1.6, Qt::DashLine);
    while (m_flow.size() < arrows.size()) {
        QGraphicsPathItem* arrow = scene()->addPath(QPainterPath(), pen);
        arrow->setZValue(-1.0);
        auto* label = new QGraphicsSimpleTextItem(arrow);
        label->setBrush(QColor(0x37, 0x41, 0x51));
        QFont font = label->font();  // as large as the nodes' titles: read at the same zoom
        font.setPointSizeF(font.pointSizeF() * 1.3);
        label->setFont(font);
        m_flow.push_back(arrow);
    }
    const QString container = m_doc->nodeData(m_network, NodeRole::Type).toString();
    // From the first port on that side; a node without one (a ModuleList, an MLP whose ports
    // are its children's) at the middle of its side.
    const auto firstPort = [](const GraphNodeItem* item, bool input, QPointF& out) {
        for (const CanvasPort& port : item->ports()) {
            if (port.input == input) {
                return item->portScenePos(port.name, input, out);
            }
        }
        const QRectF box = item->sceneBoundingRect();
        out = QPointF(input ? box.left() : box.right(), box.center().y());
        return true;
    };
    for (std::size_t i = 0; i < arrows.size(); ++i) {
        const GraphNodeItem* a = nodeItem(arrows[i].from);
        const GraphNodeItem* b = nodeItem(arrows[i].to);
        QPointF from;
        QPointF to;
        const bool ok = a != nullptr && b != nullptr && firstPort(a, false, from) && firstPort(b, true, to);
        QGraphicsPathItem* arrow = m_flow[i];
        arrow->setVisible(ok);
        if (!ok) {
            continue;
        }
        const QPainterPath path = GraphWireItem::curve(from, to);
        arrow->setPath(path);
        auto* label = static_cast<QGraphicsSimpleTextItem*>(arrow->childItems().front());
        label->setText(arrows[i].label);
        const QRectF box = label->boundingRect();
        label->setPos(path.pointAtPercent(0.5) - QPointF(box.width() / 2.0, box.height() + 2.0));
        arrow->setToolTip(arrows[i].label.isEmpty()
                              ? tr("Data flow of the %1: %2 feeds %3").arg(container, a->name(), b->name())
                              : tr("Data flow of the %1: %2 feeds %3 (%4)").arg(container, a->name(), b->name(), arrows[i].label));
    }
}

QStringList GraphCanvas::flowArrowTexts() const
{
    QStringList out;
    for (const FlowArrow& arrow : flowArrows()) {
        const GraphNodeItem* a = nodeItem(arrow.from);
        const GraphNodeItem* b = nodeItem(arrow.to);
        if (a == nullptr || b == nullptr) {
            continue;
        }
        QString text = a->name() + QStringLiteral(" → ") + b->name();
        if (!arrow.label.isEmpty()) {
            text += QStringLiteral(": ") + arrow.label;
        }
        out << text;
    }
    return out;
}

void GraphCanvas::updateSceneRect()
{
    // Generous margins so that zooming around any point and panning never hit the scroll limits.
    const QRectF items = scene()->itemsBoundingRect();
    const double margin = std::max(width(), height()) / kMinZoom;
    scene()->setSceneRect(scene()->sceneRect().united(items.adjusted(-margin, -margin, margin, margin)));
    updateMinimap();
}

void GraphCanvas::updateMinimap()
{
    QRectF graph;
    for (const auto& [id, item] : m_nodes) {
        graph = graph.united(item->sceneBoundingRect());
    }
    const QRectF visible = mapToScene(viewport()->rect()).boundingRect();
    // Only where it leaves most of the view free: on a strip of canvas it would hide the nodes.
    const bool room = width() >= 3 * m_minimap->width() && height() >= 3 * m_minimap->height();
    const bool show = room && !graph.isNull() && !visible.contains(graph);
    m_minimap->move(width() - m_minimap->width() - 8, height() - m_minimap->height() - 8);
    m_minimap->setVisible(show);
    if (show) {
        m_minimap->raise();
        m_minimap->update();
    }
}

// ---- document signals -------------------------------------------------------------------------

void GraphCanvas::onNodeAdded(NodeId id)
{
    if (m_doc->parentOf(id) != m_network || m_nodes.count(id) != 0) {
        return;
    }
    GraphNodeItem* item = addNodeItem(id);
    if (const auto before = m_removedAt.find(id); !m_doc->position(id) && before != m_removedAt.end()) {
        item->setPos(before->second);  // a node put back (undo of a delete) returns where it was
    } else if (!m_doc->position(id)) {
        QRectF others;
        for (const auto& [other, it] : m_nodes) {
            if (other != id) {
                others = others.united(it->sceneBoundingRect());
            }
        }
        item->setPos(others.isNull() ? QPointF() : QPointF(std::ceil((others.right() + 3.0 * kGrid) / kGrid) * kGrid, others.top()));
    }
    updateSceneRect();
}

void GraphCanvas::onNodeAboutToBeRemoved(NodeId id)
{
    for (NodeId n = m_network; n.valid(); n = m_doc->parentOf(n)) {
        if (n == id) {
            clearItems();
            QMetaObject::invokeMethod(this, [this] { setNetwork(m_doc->rootId()); }, Qt::QueuedConnection);
            return;
        }
    }
    const auto it = m_nodes.find(id);
    if (it == m_nodes.end()) {
        return;
    }
    std::vector<ConnectionId> attached;
    const auto [first, last] = m_wiresOfNode.equal_range(id);
    for (auto w = first; w != last; ++w) {
        attached.push_back(w->second->id());
    }
    for (ConnectionId c : attached) {
        removeWireItem(c);
    }
    GraphNodeItem* item = it->second;
    // Where it stood, for an undo that puts it back (nodes placed by the default layout have
    // no position in the document).
    m_removedAt[id] = item->pos();
    m_nodes.erase(it);
    delete item;
    if (m_nodes.empty()) {
        viewport()->update();  // the empty-state hint comes back (drawForeground)
    }
    updateMinimap();
}

void GraphCanvas::onNodeMoved(NodeId id)
{
    GraphNodeItem* item = nodeItem(id);
    if (const auto pos = m_doc->position(id); item != nullptr && pos) {
        item->setPos(*pos);
    } else if (item != nullptr) {
        m_relayoutPending = true;
    }
}

void GraphCanvas::onNodeRenamed(NodeId id)
{
    if (GraphNodeItem* item = nodeItem(id)) {
        item->refresh();
    }
}

void GraphCanvas::onConnectionAdded(ConnectionId id)
{
    addWireItem(id);
}

void GraphCanvas::onConnectionAboutToBeRemoved(ConnectionId id)
{
    removeWireItem(id);
}

void GraphCanvas::onAttributeChanged(NodeId id)
{
    GraphNodeItem* item = nodeItem(id);
    if (id == m_network) {
        for (GraphNodeItem* b : {m_inItem, m_outItem}) {
            if (b != nullptr) {
                b->refresh();
                routeWiresOf(b);
            }
        }
    }
    if (item != nullptr) {
        item->refresh();
        routeWiresOf(item);
    } else {
        refreshProjectionWire(id);
    }
    refreshNodeStatistics();  // a weight of the shown composite's subtree may have changed
}

}  // namespace spike::ui
