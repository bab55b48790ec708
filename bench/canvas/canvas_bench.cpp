// canvas_bench: frame time of the node-graph canvas while a drag moves 50 of 500 nodes
// (2000 wires), rendered offscreen (QT_QPA_PLATFORM=offscreen) with viewport()->grab(). The
// drag is driven through the canvas' own mouse handlers; each frame is one mouse move plus one
// full repaint of the viewport. Reports mean / max frame time [ms] at the fit-to-view zoom and
// at 1:1, and the time to build the scene from the document. No assertions (see
// docs/editor-canvas.md for results). With --screenshot it instead renders a model file
// (--model) into a PNG, laying out nodes that have no stored position.
#include "ui/editor/graph_canvas.hpp"
#include "ui/document/graph_commands.hpp"
#include "ui/document/graph_document.hpp"
#include "ui/editor/graph_node_item.hpp"

#include <CLI/CLI.hpp>

#include <QApplication>
#include <QMouseEvent>
#include <QPixmap>
#include <QUndoStack>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>

using namespace spike::ui;
using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

double ms(Clock::time_point a, Clock::time_point b)
{
    return std::chrono::duration<double, std::milli>(b - a).count();
}

/// `nodes` Identity nodes on a grid and `wires` pass-through wires from lower to higher index
/// (acyclic, several wires summing into one port), seeded.
Json benchModel(int nodes, int wires)
{
    Json children = Json::array();
    Json layout = Json::object();
    for (int i = 0; i < nodes; ++i) {
        const std::string name = "n" + std::to_string(i);
        children.push_back({{"name", name}, {"type", "Identity"}, {"config", {{"shape", {1}}}}});
        layout[name] = {(i % 25) * 300.0, (i / 25) * 120.0};
    }
    Json connections = Json::array();
    std::mt19937 rng(1234);
    for (int w = 0; w < wires; ++w) {
        const int a = std::uniform_int_distribution<int>(0, nodes - 2)(rng);
        const int b = std::uniform_int_distribution<int>(a + 1, std::min(nodes - 1, a + 60))(rng);
        connections.push_back({{"name", "w" + std::to_string(w)}, {"from", "n" + std::to_string(a) + ".out"},
                               {"to", "n" + std::to_string(b) + ".in"}});
    }
    Json model{{"type", "Network"}, {"config", {{"input_size", 0}, {"output_size", 0}}},
               {"children", children}, {"connections", connections}};
    return Json{{"format", "spikestudio.model"}, {"version", 1}, {"model", model}, {"layout", layout}};
}

void send(QWidget* viewport, QEvent::Type type, QPoint pos, Qt::MouseButtons buttons)
{
    QMouseEvent event(type, QPointF(pos), QPointF(viewport->mapToGlobal(pos)), Qt::LeftButton, buttons, Qt::NoModifier);
    QApplication::sendEvent(viewport, &event);
}

/// Drags the selection by `steps` mouse moves, grabbing the viewport after each; prints stats.
void dragFrames(GraphCanvas& canvas, GraphDocument& doc, const char* label, int steps)
{
    const GraphNodeItem* grip = canvas.nodeItem(doc.findNode("n0"));
    const QPoint start = canvas.mapFromScene(grip->mapToScene(QPointF(GraphNodeItem::kWidth * 0.5, 8.0)));
    QWidget* vp = canvas.viewport();
    const int undoBefore = doc.undoStack()->count();
    send(vp, QEvent::MouseButtonPress, start, Qt::LeftButton);
    double sum = 0.0;
    double worst = 0.0;
    for (int k = 1; k <= steps; ++k) {
        const auto t0 = Clock::now();
        send(vp, QEvent::MouseMove, start + QPoint(2 * k, k), Qt::LeftButton);
        const QPixmap frame = vp->grab();
        const double t = ms(t0, Clock::now());
        sum += t;
        worst = std::max(worst, t);
        if (frame.isNull()) {
            std::printf("empty frame\n");
        }
    }
    const auto r0 = Clock::now();
    send(vp, QEvent::MouseButtonRelease, start + QPoint(2 * steps, steps), Qt::NoButton);
    const double release = ms(r0, Clock::now());
    std::printf("%-10s zoom %.3f  frames %d  mean %.2f ms  max %.2f ms  release (MoveNodes push) %.2f ms  undo steps +%d\n",
                label, canvas.zoom(), steps, sum / steps, worst, release, doc.undoStack()->count() - undoBefore);
}

}  // namespace

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    CLI::App cli{"Node-graph canvas frame times (offscreen)"};
    int nodes = 500;
    int wires = 2000;
    int steps = 60;
    std::string screenshot;
    std::string modelPath;
    cli.add_option("--nodes", nodes, "number of nodes")->check(CLI::Range(10, 100000));
    cli.add_option("--wires", wires, "number of wires")->check(CLI::Range(0, 1000000));
    cli.add_option("--steps", steps, "drag steps (frames)")->check(CLI::Range(1, 100000));
    cli.add_option("--screenshot", screenshot, "render --model into this PNG instead of benchmarking");
    cli.add_option("--model", modelPath, "model file for --screenshot");
    CLI11_PARSE(cli, argc, argv);
    QApplication app(argc, argv);

    GraphDocument doc;
    GraphCanvas canvas;
    if (!screenshot.empty()) {
        try {
            doc.load(modelPath);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "canvas_bench: %s\n", e.what());
            return 1;
        }
        canvas.resize(1000, 560);
        canvas.setDocument(&doc);
        canvas.show();
        canvas.fitToView();
        QApplication::processEvents();
        return canvas.grab().save(QString::fromStdString(screenshot)) ? 0 : 1;
    }

    const auto b0 = Clock::now();
    doc.fromJson(benchModel(nodes, wires));
    const auto b1 = Clock::now();
    canvas.resize(1280, 800);
    canvas.setDocument(&doc);
    canvas.show();
    const auto b2 = Clock::now();
    std::printf("%d nodes, %zu wires: document load %.1f ms, scene build %.1f ms\n", nodes,
                doc.connections(doc.rootId()).size(), ms(b0, b1), ms(b1, b2));
    QList<NodeId> selection;
    for (int i = 0; i < 50; ++i) {
        selection.push_back(doc.findNode("n" + std::to_string(i * 10)));
    }
    canvas.setSelection(selection);
    canvas.fitToView();
    QApplication::processEvents();
    dragFrames(canvas, doc, "fit", steps);
    canvas.zoomAt(canvas.mapFromScene(canvas.nodeItem(doc.findNode("n0"))->scenePos()), 1.0 / canvas.zoom());
    canvas.centerOn(canvas.nodeItem(doc.findNode("n0"))->scenePos() + QPointF(400.0, 250.0));
    QApplication::processEvents();
    dragFrames(canvas, doc, "1:1", steps);
    return 0;
}
