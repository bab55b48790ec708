// GraphWireItem: one connection of the canvas, a cubic curve from an output port to an input
// port. It holds the document and a ConnectionId only; refresh() re-reads the delayed flag
// (drawn dashed) and the projection's type (a small label at the curve's middle) from the
// document, setEnds() reroutes the curve (the canvas calls it when an attached node moves).
// Invariants: shape() and boundingRect() match the last setEnds() (the outline is stroked
// lazily, only when hit-testing asks for it); the item never edits the document.
// Thread: GUI thread only.
#pragma once

#include "ui/document/graph_document.hpp"

#include <QGraphicsItem>
#include <QPainterPath>

namespace spike::ui {

/// A wire of the canvas; see the file comment.
class GraphWireItem : public QGraphicsItem {
public:
    static constexpr int kType = UserType + 2;

    GraphWireItem(const GraphDocument& doc, ConnectionId id);

    int type() const override { return kType; }
    ConnectionId id() const { return m_id; }
    /// Re-reads the delayed flag and the projection label from the document.
    void refresh();
    /// Routes the curve from `from` (an output port) to `to` (an input port) [scene units].
    void setEnds(QPointF from, QPointF to);
    QPointF from() const { return m_from; }
    QPointF to() const { return m_to; }
    bool delayed() const { return m_delayed; }
    /// The label drawn on the wire: the projection type without "Projection" ("" when none).
    QString label() const { return m_label; }

    /// The curve for ends `from` → `to` (also used for the wire being dragged).
    static QPainterPath curve(QPointF from, QPointF to);

    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    const GraphDocument* m_doc;
    ConnectionId m_id;
    bool m_delayed = false;
    QString m_label;
    QPointF m_from, m_to;
    QPainterPath m_path;
    QPointF m_mid;                 ///< label centre: the curve's middle
    mutable QPainterPath m_shape;  ///< stroked outline, built on first use after setEnds()
    QRectF m_bounds;
};

}  // namespace spike::ui
