// GraphCanvas: the node-graph view of one Network of a GraphDocument. Nodes and wires are
// GraphNodeItem / GraphWireItem holding ids; they follow the document's fine-grained signals
// (a node or wire added, removed, moved, renamed, an attribute changed) item by item, and only
// documentReset() rebuilds the scene. Every edit is an undo command pushed with pushCommand():
// a drag is one MoveNodesCommand on release (positions snapped to the grid), dragging from an
// output port to an input port pushes a ConnectCommand (a refused one shows the engine's
// reason at the cursor and pushes nothing), Delete/Backspace pushes DisconnectCommand and
// DeleteNodesCommand for the selection, the context menu renames, deletes and duplicates.
// Navigation: wheel zoom around the cursor (clamped), pan with the middle button or
// space + left drag, fitToView() ('F'), rubber-band selection, ctrl-click toggling, a minimap
// shown while the graph does not fit the view.
// Invariants: one node item per graph node of the shown network (plus its "in" / "out" boundary
// when it has external channels), one wire item per connection; nodes without a stored
// position get a view-only layered layout (column: longest path over the wires once a
// depth-first search's back edges are dropped) until a drag stores a position.
// Thread: GUI thread only.
#pragma once

#include "graph_document.hpp"

#include <QGraphicsView>
#include <QList>
#include <QPointer>

#include <map>
#include <vector>

class QGraphicsPathItem;

namespace spike::ui {

class GraphNodeItem;
class GraphWireItem;
class GraphMinimap;

/// The node-graph canvas; see the file comment.
class GraphCanvas : public QGraphicsView {
    Q_OBJECT

public:
    /// Grid spacing [scene units]; dropped nodes snap to it.
    static constexpr double kGrid = 20.0;
    /// Zoom limits (view scale factor).
    static constexpr double kMinZoom = 0.1;
    static constexpr double kMaxZoom = 4.0;

    explicit GraphCanvas(QWidget* parent = nullptr);
    ~GraphCanvas() override;

    /// Shows `doc`'s root network (nullptr: shows nothing). The canvas does not own it.
    void setDocument(GraphDocument* doc);
    GraphDocument* document() const { return m_doc; }
    /// Shows a nested Network of the document (ignored unless `network` is a Network).
    void setNetwork(NodeId network);
    NodeId network() const { return m_network; }

    /// The item of a graph node of the shown network, or nullptr.
    GraphNodeItem* nodeItem(NodeId id) const;
    /// The item of a connection of the shown network, or nullptr.
    GraphWireItem* wireItem(ConnectionId id) const;
    std::size_t nodeItemCount() const { return m_nodes.size(); }
    std::size_t wireItemCount() const { return m_wires.size(); }
    /// How many times the scene was rebuilt from scratch (document resets, network changes).
    int rebuildCount() const { return m_rebuilds; }
    /// The engine's reason for the last refused edit ("" when none was refused).
    QString lastRefusal() const { return m_lastRefusal; }
    /// Current zoom (view scale factor).
    double zoom() const;
    /// Zooms by `factor` keeping the scene point under viewport position `anchor` fixed.
    void zoomAt(QPoint anchor, double factor);
    /// Selected graph nodes, in scene order.
    QList<NodeId> selectedNodes() const;
    /// Whether the minimap overlay is showing.
    bool minimapVisible() const;

public Q_SLOTS:
    /// Frames every item (also on the 'F' key).
    void fitToView();
    /// Selects exactly these nodes (those not in the shown network are ignored); does not emit
    /// selectionChanged().
    void setSelection(const QList<spike::ui::NodeId>& nodes);

Q_SIGNALS:
    /// The user changed the node selection.
    void selectionChanged(const QList<spike::ui::NodeId>& nodes);
    /// An edit was refused by the engine; `reason` is its message.
    void editRefused(const QString& reason);

protected:
    void drawBackground(QPainter* painter, const QRectF& rect) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void keyReleaseEvent(QKeyEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;

private:
    void rebuild();
    void clearItems();
    GraphNodeItem* addNodeItem(NodeId id);
    void addWireItem(ConnectionId id);
    void removeWireItem(ConnectionId id);
    void routeWire(GraphWireItem* wire);
    void routeWiresOf(GraphNodeItem* node);
    /// The item a connection endpoint of the shown network refers to.
    GraphNodeItem* endpointItem(const engine::Endpoint& end, bool source) const;
    /// Default positions for the nodes without one (see the file comment).
    std::map<NodeId, QPointF> defaultLayout() const;
    void placeBoundaries();
    void updateSceneRect();
    void updateMinimap();
    void refuse(const QString& reason, QPoint viewportPos);
    bool push(std::unique_ptr<class GraphCommand> command, QPoint viewportPos);
    void deleteSelection();
    void duplicate(const QList<NodeId>& nodes);
    void rename(NodeId node);
    void emitSelection();

    void onNodeAdded(NodeId id);
    void onNodeAboutToBeRemoved(NodeId id);
    void onNodeMoved(NodeId id);
    void onNodeRenamed(NodeId id);
    void onConnectionAdded(ConnectionId id);
    void onConnectionAboutToBeRemoved(ConnectionId id);
    void onAttributeChanged(NodeId id);

    QPointer<GraphDocument> m_doc;
    NodeId m_network;
    std::map<NodeId, GraphNodeItem*> m_nodes;
    std::map<ConnectionId, GraphWireItem*> m_wires;
    std::multimap<NodeId, GraphWireItem*> m_wiresOfNode;  ///< key: source and target node ids
    std::map<GraphWireItem*, std::pair<GraphNodeItem*, GraphNodeItem*>> m_wireEnds;
    GraphNodeItem* m_inItem = nullptr;
    GraphNodeItem* m_outItem = nullptr;
    GraphMinimap* m_minimap = nullptr;
    int m_rebuilds = 0;
    QString m_lastRefusal;
    bool m_syncingSelection = false;

    // interaction state
    enum class Drag { None, Nodes, Wire, Pan };
    Drag m_drag = Drag::None;
    bool m_spaceHeld = false;
    QPoint m_lastPanPos;
    std::map<NodeId, QPointF> m_dragStart;
    GraphNodeItem* m_wireSource = nullptr;
    std::string m_wireSourceEnd;
    QGraphicsPathItem* m_wirePreview = nullptr;
};

}  // namespace spike::ui
