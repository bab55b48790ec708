// GraphNodeItem: one node of the canvas (a graph node of the shown Network, or that network's
// own "in" / "out" boundary). It holds the document and an id only; refresh() re-reads the
// type, name, shape and ports from the document's roles and lays them out (header rows, then
// one row per port: inputs on the left edge, outputs on the right edge). Spiking ports are
// drawn as triangles, continuous ports as circles, each labelled with its name and size.
// Tooltips: hovering a port's handle or label shows that port's (portToolTip(): direction, size
// and channels, spikes or values, the registry's doc of a same-named attribute, its wires, read
// from the document when hovered); anywhere else the node's own (name, type, path, shape, ports).
// Invariants: the cached layout matches the document after every refresh(); the item never
// edits the document (the canvas pushes commands).
// Thread: GUI thread only.
#pragma once

#include "ui/document/graph_document.hpp"

#include <QGraphicsItem>
#include <QString>
#include <QStringList>

#include <functional>
#include <vector>

namespace spike::ui {

/// One port as the canvas draws it.
struct CanvasPort {
    QString name;
    qint64 size = 0;
    bool spiking = false;
    bool input = false;
    QPointF pos;  ///< centre in item coordinates
    qint64 offset = 0;  ///< first channel of the module's flat input or output
};

/// A node of the canvas; see the file comment.
class GraphNodeItem : public QGraphicsItem {
public:
    /// What the item stands for.
    enum class Kind {
        Node,           ///< a graph node (id: the node)
        NetworkInput,   ///< the shown network's "in" boundary (id: the network)
        NetworkOutput,  ///< the shown network's "out" boundary (id: the network)
    };
    static constexpr int kType = UserType + 1;
    /// Node width [scene units] and row height [scene units].
    static constexpr double kWidth = 190.0;
    static constexpr double kRow = 18.0;

    GraphNodeItem(const GraphDocument& doc, NodeId id, Kind kind = Kind::Node);

    int type() const override { return kType; }
    NodeId id() const { return m_id; }
    Kind kind() const { return m_kind; }
    /// Re-reads type, name, shape and ports from the document.
    void refresh();

    /// Centre of port `name` (input or output side) in scene coordinates; false when absent.
    bool portScenePos(const QString& name, bool input, QPointF& out) const;
    /// The port whose handle is within a few units of `scenePos`, or nullptr.
    const CanvasPort* portAt(QPointF scenePos) const;
    /// The connection endpoint string for one of this item's ports ("node.port", "in", "out").
    std::string endpoint(const CanvasPort& port) const;
    const std::vector<CanvasPort>& ports() const { return m_ports; }
    QString name() const { return m_name; }
    /// The port whose handle or label row is under `scenePos` (what hovering shows), or nullptr.
    const CanvasPort* portHoveredAt(QPointF scenePos) const;
    /// The tooltip of one of this item's ports (rich text): name, direction, size and channels,
    /// whether it carries spikes or values, the doc of the module's attribute of the same name
    /// when there is one, and what it is wired to.
    QString portToolTip(const CanvasPort& port) const;

    /// Lines drawn under the ports, one row each (a composite's weight and live activation
    /// statistics), with `tip` added to the node's tooltip; empty: none. The node grows by a row
    /// per line.
    void setStatistics(const QStringList& lines, const QString& tip = {});
    const QStringList& statistics() const { return m_statistics; }

    /// Called after every position change (the canvas reroutes the attached wires).
    void setMoveObserver(std::function<void(GraphNodeItem*)> observer) { m_observer = std::move(observer); }

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

protected:
    QVariant itemChange(GraphicsItemChange change, const QVariant& value) override;
    void hoverEnterEvent(QGraphicsSceneHoverEvent* event) override;
    void hoverMoveEvent(QGraphicsSceneHoverEvent* event) override;
    void hoverLeaveEvent(QGraphicsSceneHoverEvent* event) override;

private:
    const GraphDocument* m_doc;
    NodeId m_id;
    Kind m_kind;
    QString m_type, m_name, m_shape;
    QColor m_header;
    std::vector<CanvasPort> m_ports;
    QString m_nodeTip;  ///< the node's own tooltip (toolTip() shows a port's while one is hovered)
    QString m_baseTip;  ///< m_nodeTip without the statistics' part
    QStringList m_statistics;
    QString m_statisticsTip;
    double m_baseHeight = 0.0;  ///< header and port rows
    double m_height = 0.0;      ///< with the statistics rows
    std::function<void(GraphNodeItem*)> m_observer;
};

}  // namespace spike::ui
