// Shared by the canvas tests (test_graph_canvas, test_graph_canvas_placement): the sample
// models, real mouse events on the viewport, scene/viewport positions of nodes and ports, and a
// document shown on a 1000 x 700 canvas.
#pragma once

#include "tests/graph_test_models.hpp"
#include "ui/document/graph_commands.hpp"
#include "ui/document/graph_document.hpp"
#include "ui/editor/graph_canvas.hpp"
#include "ui/editor/graph_node_item.hpp"
#include "ui/editor/graph_wire_item.hpp"

#include <QApplication>
#include <QMouseEvent>
#include <QtTest/QtTest>

namespace spike::tests::canvas {

using namespace spike::ui;
using Json = nlohmann::json;


inline Json sampleModel()
{
    return spike::tests::sampleGraphModel();
}

/// A Network holding "stack": Sequential(Linear 3 -> 4, ReLU, LIF 4 -> 2).
inline Json stackModel()
{
    return Json::parse(R"({"format": "spikestudio.model", "version": 1, "model": {"type": "Network",
        "children": [{"name": "stack", "type": "Sequential", "children": [
            {"type": "Linear", "config": {"in_features": 3, "out_features": 4}},
            {"type": "ReLU", "config": {"shape": [4]}},
            {"type": "LIF", "config": {"shape": [4, 2]}}]}]}})");
}

inline void push(GraphDocument& doc, std::unique_ptr<GraphCommand> command)
{
    spike::tests::pushOk(doc, std::move(command));
}

inline void mouse(QWidget* viewport, QEvent::Type type, QPoint pos, Qt::MouseButton button, Qt::MouseButtons buttons,
           Qt::KeyboardModifiers modifiers = Qt::NoModifier)
{
    QMouseEvent event(type, QPointF(pos), QPointF(viewport->mapToGlobal(pos)), button, buttons, modifiers);
    QApplication::sendEvent(viewport, &event);
}

/// Viewport position of a scene point.
inline QPoint at(const GraphCanvas& canvas, QPointF scenePos)
{
    return canvas.mapFromScene(scenePos);
}

/// Scene position of a node's header (a point that grabs the node).
inline QPointF header(const GraphNodeItem* item)
{
    return item->mapToScene(QPointF(GraphNodeItem::kWidth * 0.5, 8.0));
}

inline QPointF port(const GraphNodeItem* item, const char* name, bool input)
{
    QPointF p;
    if (!item->portScenePos(QString::fromLatin1(name), input, p)) {
        qFatal("no port %s", name);
    }
    return p;
}

/// `model` (default: the sample model) shown on a 1000 x 700 canvas, fitted.
struct Fixture {
    GraphDocument doc;
    GraphCanvas canvas;
    explicit Fixture(const Json& model = sampleModel())
    {
        doc.fromJson(model);
        canvas.resize(1000, 700);
        canvas.setDocument(&doc);
        canvas.show();
        canvas.fitToView();
    }
    GraphNodeItem* item(const char* name) const { return canvas.nodeItem(doc.findNode(name)); }
    GraphWireItem* wire(const char* name) const
    {
        return canvas.wireItem(doc.findConnection(doc.rootId(), name));
    }
};

}  // namespace spike::tests::canvas
