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
// shown while the graph does not fit the view. Double-clicking a node that has children enters
// it (networkChanged() tells the breadcrumb); a Network is edited there, any other module
// (Sequential, ResBlock, DynamicsNetwork, ...) shows its children read-only, laid out along its
// forward computation with dashed, labelled data-flow arrows (engine::Module::dataFlow: a
// Sequential's or an MLP's chain, conv1 -> conv2 -> act "+ x (residual)" in a ResBlock, the
// whole dynamics step in a DynamicsNetwork): their structure comes from the module's own
// configuration, so only moving them is allowed there and other edits are refused with the
// reason. The edit actions of the main window (clipboard, duplicate, group, ungroup, align,
// auto-layout, adding a module from the palette, also by dropping it) are public slots here,
// each one undo step (graph_canvas_actions.cpp). Wires (graph_canvas_wires.cpp): a drag between
// ports of different sizes offers the projection kinds in a menu at the drop point instead of
// refusing; a wire's context menu switches its projection kind and delayed flag; a wire that a
// command takes out and puts back (same ConnectionId) stays selected. Quick-add: a printable
// key (not 'F') or Tab
// opens a QuickAddPopup at the pointer; the type chosen there is added at that point by
// addModule(), the path of a palette drop. An empty editable network shows a hint saying so.
// Invariants: one node item per graph node of the shown network (plus its "in" / "out" boundary
// when it has external channels), one wire item per connection; nodes without a stored
// position get a view-only layered layout (column: longest path over the wires once a
// depth-first search's back edges are dropped) until a drag stores a position.
// Thread: GUI thread only.
#pragma once

#include "ui/document/graph_document.hpp"
#include "ui/editor/graph_layout.hpp"

#include "engine/analysis/layer_statistics.hpp"

#include <QGraphicsView>
#include <QList>
#include <QPointer>

#include <map>
#include <optional>
#include <string>
#include <vector>

class QGraphicsPathItem;

class QMenu;

namespace spike::ui {

class GraphNodeItem;
class GraphWireItem;
class GraphMinimap;
class QuickAddPopup;

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
    /// Shows a nested module of the document: a Network (editable) or any module with children
    /// (read-only structure); ignored for other ids. Emits networkChanged() when it changes.
    void setNetwork(NodeId network);
    /// The module shown (a Network, or a container/composite module shown read-only).
    NodeId network() const { return m_network; }
    /// Whether the shown module is a Network, whose nodes and wires the canvas may edit.
    bool isEditable() const;
    /// Whether `id` can be entered (a module of the document with child modules).
    bool canEnter(NodeId id) const;
    /// MIME type of the clipboard fragments (copyFragment() JSON in UTF-8).
    static QString fragmentMimeType();

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
    /// The selected wire when exactly one wire and no node is selected; invalid otherwise.
    ConnectionId selectedWire() const;
    /// Whether the minimap overlay is showing.
    bool minimapVisible() const;
    /// What can be plotted from node `id`, as (menu text, signal) pairs: its output port
    /// `port` first when `port` names a non-spiking output ("out" or a named port), then every
    /// recordable State (membrane potential, synaptic currents, refractory counter...), then
    /// for a spiking module "spikes" (the raster shows chosen neurons of it). plotRequested()
    /// carries the signal.
    QList<QPair<QString, QString>> plotEntries(NodeId id, const QString& port = {}) const;
    /// Fills `menu` with what right-clicking viewport position `viewPos` offers (a node or one
    /// of its ports, a wire, the background); contextMenuEvent() shows it.
    void fillContextMenu(QMenu& menu, QPoint viewPos);
    /// Opens the quick-add popup at viewport position `viewPos` (default: the pointer when it is
    /// over the canvas, else the view's centre) with `text` typed; the type chosen there is
    /// added with addModule() at that point (one undo step, selected). Typing a printable
    /// character (except 'F', which fits the view) or Tab on the canvas does this. False without
    /// a document, and in a read-only view (refused with the reason, as a drop would be).
    bool openQuickAdd(const QString& text = {}, std::optional<QPoint> viewPos = std::nullopt);
    /// The quick-add popup (nullptr before the first openQuickAdd()).
    QuickAddPopup* quickAddPopup() const { return m_quickAdd; }

public Q_SLOTS:
    /// Frames every item (also on the 'F' key).
    void fitToView();
    /// Centres the view on `scenePoint` (the minimap's click): the user's view, which later
    /// resizes keep instead of fitting again.
    void panTo(const QPointF& scenePoint);
    /// Selects exactly these nodes (those not in the shown network are ignored); does not emit
    /// selectionChanged().
    void setSelection(const QList<spike::ui::NodeId>& nodes);
    /// Enters `id` when canEnter(id) (double-click does this); false otherwise.
    bool enter(spike::ui::NodeId id);
    /// Shows the parent of the shown module; false at the root.
    bool leave();
    /// Selects every node of the shown module.
    void selectAll();
    /// Selects exactly wire `id` (ignored when it is not shown); emits the selection signals.
    void selectWire(spike::ui::ConnectionId id);

    // ---- edits: each pushes one undo step (or refuses with editRefused) -------------------
    /// Adds a module of registry type `type` (its example config, or with `size` its size
    /// setting set to it: engine::configWithSize) with engine::startValues(type) at `scenePos`
    /// (snapped), or right of the existing nodes when none; selects it. Returns the new node or
    /// invalid (a refused size says why at the cursor).
    NodeId addModule(const QString& type, std::optional<QPointF> scenePos = std::nullopt,
                     std::optional<std::int64_t> size = std::nullopt);
    /// Puts the selected nodes (and the wires among them) on the clipboard as a fragment.
    bool copySelection();
    /// copySelection(), then deletes the selection (one undo step).
    bool cutSelection();
    /// Pastes a clipboard fragment (from any document) into the shown network, shifted so
    /// that it lands at the view centre; selects the pasted nodes.
    bool pasteClipboard();
    /// Copies and pastes the selection next to itself.
    bool duplicateSelection();
    /// Deletes the selected wires and nodes (Delete / Backspace).
    bool deleteSelection();
    /// Groups the selected nodes into a child Network (GroupCommand) and selects it.
    bool groupSelection();
    /// Ungroups the selected child Networks (UngroupCommand) and selects their nodes.
    bool ungroupSelection();
    /// Aligns or distributes the selected nodes (alignBoxes()).
    bool alignSelection(spike::ui::Alignment how);
    /// Layered layout (layeredLayout()) of the selection, or of every node when fewer than
    /// two are selected.
    bool autoLayout();
    /// Whether the shown module's nodes carry statistics rows: a read-only container (a
    /// composite such as Sequential, MLP, ResBlock, DynamicsNetwork), not a Network.
    bool showsLayerStatistics() const;
    /// The run's activation statistics, keyed by module path from the document's root
    /// (engine::ActivationMonitor on the root; empty: no run is reporting). Each shown node's
    /// "out" row says its output's mean, std and fraction of zeros.
    void setActivationStatistics(const std::map<std::string, engine::ActivationSnapshot>& snapshots);
    /// The statistics rows node `id` draws ("w   μ 0.0012  σ 0.058", "out  μ 0.21  σ 0.48  zero
    /// 61%"); empty for nodes without (for tests and accessibility).
    QStringList nodeStatistics(NodeId id) const;
    /// The data-flow arrows drawn, "conv → norm_common", "norm_common → resblocks: + state,
    /// activation", in the container's order (for tests and accessibility).
    QStringList flowArrowTexts() const;

Q_SIGNALS:
    /// The shown module changed (entering, leaving, a document reset).
    void networkChanged(spike::ui::NodeId network);
    /// The user changed the node selection.
    void selectionChanged(const QList<spike::ui::NodeId>& nodes);
    /// Emitted right after selectionChanged(): selectedWire() (invalid unless exactly one wire
    /// and no node is selected).
    void wireSelectionChanged(spike::ui::ConnectionId wire);
    /// An edit was refused by the engine; `reason` is its message.
    void editRefused(const QString& reason);
    /// The user asked to plot `signal` (a State, or an output port) of module `id` (node or
    /// port context menu ▸ Plot).
    void plotRequested(spike::ui::NodeId id, const QString& signal);
    /// The user asked for an analysis of module `id`: "fi" (node context menu ▸ Analyse ▸
    /// f-I curve…), "sweep" (▸ Parameter sweep…), "phase" (▸ Phase portrait…) or "isi" (▸ Spike
    /// statistics…), offered for
    /// modules with a "spikes" output port; "histogram" (▸ Weights and activations…) for the
    /// others that hold weights (a "weights"-family Parameter: layers and composites).
    void analyseRequested(spike::ui::NodeId id, const QString& analysis);

protected:
    bool event(QEvent* event) override;
    void drawBackground(QPainter* painter, const QRectF& rect) override;
    /// The empty-state hint of an editable network without nodes.
    void drawForeground(QPainter* painter, const QRectF& rect) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dragMoveEvent(QDragMoveEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void keyReleaseEvent(QKeyEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;

private:
    void rebuild();
    void clearItems();
    /// The nodes shown: a Network's graph nodes, or another module's children.
    std::vector<NodeId> shownNodes() const;
    /// One data-flow arrow of a read-only container (engine::Module::dataFlow), between two of
    /// the shown nodes.
    struct FlowArrow {
        NodeId from;
        NodeId to;
        QString label;  ///< what happens on the way ("+ state, activation"), "" for nothing
    };
    /// The arrows of the shown container's forward computation: a Sequential's chain, a
    /// ResBlock's, an MLP's, a DynamicsNetwork's (none for a Network: its wires are its own).
    std::vector<FlowArrow> flowArrows() const;
    /// Dashed data-flow arrows (flowArrows()), each with its label at its middle.
    void routeFlow();
    /// Sets the statistics rows of every shown node (showsLayerStatistics()) from the document's
    /// weights and m_activations (graph_canvas_statistics.cpp); reroutes the flow arrows when a
    /// node's height changed.
    void refreshNodeStatistics();
    /// Refuses a structural edit in a read-only view; true when refused.
    bool refuseReadOnly(const QString& what);
    QPoint cursorPos() const;
    /// Boxes of the selected nodes (or all nodes when `all`).
    std::vector<LayoutBox> layoutBoxes(bool all) const;
    bool applyPositions(const std::map<NodeId, QPointF>& positions, const QString& text);
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
    void duplicate(const QList<NodeId>& nodes);
    void rename(NodeId node);
    void emitSelection();
    /// A wire dragged from m_wireSourceEnd to `to` was dropped at `viewPos`: equal sizes connect
    /// as identity, different sizes open the projection-kind menu there (graph_canvas_wires.cpp).
    void connectDropped(const std::string& to, QPoint viewPos);
    /// The wire entries of the context menu: Projection ▸ kinds, Delayed, Delete wire.
    void fillWireMenu(QMenu& menu, ConnectionId id);
    /// A wire is about to go: when selected, remembers it (true), so that putting it back (same
    /// id) in the same event-loop turn selects it again without a selection change.
    bool wireLeaving(GraphWireItem* wire, ConnectionId id);
    /// A wire item was made: selects it again when wireLeaving() remembered it.
    void wireArrived(GraphWireItem* wire, ConnectionId id);
    /// The wire of projection `id` re-reads its summary (an attribute of it changed).
    void refreshProjectionWire(NodeId id);
    /// Whether `event` opens the quick-add popup (a printable character without Ctrl/Alt/Meta
    /// that means nothing else on the canvas).
    bool opensQuickAdd(const QKeyEvent& event) const;

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
    bool m_relayoutPending = false;  ///< an undo cleared positions: lay those nodes out again
    std::map<NodeId, QPointF> m_removedAt;  ///< last scene position of nodes taken out (undo)
    std::map<ConnectionId, GraphWireItem*> m_wires;
    std::multimap<NodeId, GraphWireItem*> m_wiresOfNode;  ///< key: source and target node ids
    std::map<GraphWireItem*, std::pair<GraphNodeItem*, GraphNodeItem*>> m_wireEnds;
    GraphNodeItem* m_inItem = nullptr;
    GraphNodeItem* m_outItem = nullptr;
    std::vector<QGraphicsPathItem*> m_flow;  ///< data-flow arrows of a read-only container
    std::map<std::string, engine::ActivationSnapshot> m_activations;  ///< setActivationStatistics()
    GraphMinimap* m_minimap = nullptr;
    /// The view is the one fitToView() left: no zoom or pan since. While it is, a resize fits
    /// again (the window's layouts grow and shrink the canvas).
    bool m_viewFitted = false;
    int m_rebuilds = 0;
    QString m_lastRefusal;
    QuickAddPopup* m_quickAdd = nullptr;  ///< child popup, created on first use
    QPointF m_quickAddAt;                 ///< scene point the open popup adds at
    NodeId m_quickAddNetwork;             ///< the network shown when it opened
    bool m_syncingSelection = false;
    std::vector<ConnectionId> m_reselectWires;  ///< selected wires taken out this turn

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
