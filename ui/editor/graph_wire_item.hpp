// GraphWireItem: one connection of the canvas, a cubic curve from an output port to an input
// port. It holds the document and a ConnectionId only; refresh() re-reads the wire's summary
// (summarizeWire(): the delayed flag, drawn dashed; the projection's kind and size, a small label
// at the curve's middle, "Sparse 100→50"; the sign of its weights, the colour: all >= 0
// excitatory red, all <= 0 inhibitory blue, mixed grey-violet, identity neutral grey; a tooltip
// with shape, synapses and weights) from the document. The canvas calls refresh() when the
// projection's attributes change, so painting reads only the cached summary (a dense matrix is
// scanned once per change, never per paint). setEnds() reroutes the curve (the canvas calls it
// when an attached node moves).
// Invariants: shape() and boundingRect() match the last setEnds() (the outline is stroked
// lazily, only when hit-testing asks for it); the item never edits the document.
// Thread: GUI thread only.
#pragma once

#include "ui/document/graph_document.hpp"
#include "ui/document/graph_projection.hpp"

#include <QColor>
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
    /// Re-reads the wire's summary (flag, kind, sizes, weight sign) from the document.
    void refresh();
    /// Routes the curve from `from` (an output port) to `to` (an input port) [scene units].
    void setEnds(QPointF from, QPointF to);
    QPointF from() const { return m_from; }
    QPointF to() const { return m_to; }
    bool delayed() const { return m_delayed; }
    /// The label drawn on the wire: wireLabel() ("Sparse 100→50", "1:1 ×100"); "" for identity.
    QString label() const { return m_label; }
    /// The cached summary the wire is drawn from.
    const WireSummary& summary() const { return m_summary; }
    /// The wire's colour when not selected (by weight sign; see the file comment).
    QColor colour() const;

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
    WireSummary m_summary;
    QPointF m_from, m_to;
    QPainterPath m_path;
    QPointF m_mid;                 ///< label centre: the curve's middle
    mutable QPainterPath m_shape;  ///< stroked outline, built on first use after setEnds()
    QRectF m_bounds;
};

}  // namespace spike::ui
