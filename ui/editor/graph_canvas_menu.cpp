// GraphCanvas: the context menu of what is under the pointer - a node (Open, Plot ▸ its outputs
// and States, Analyse ▸ the analyses of a neuron population or the weights and activations of a
// layer, the edits, Align), a wire (graph_canvas_wires.cpp) or the background (Paste, Select all,
// Auto-layout, Fit, Up to parent). Thread: GUI thread only.
#include "ui/editor/graph_canvas.hpp"

#include "ui/editor/graph_node_item.hpp"
#include "ui/editor/graph_wire_item.hpp"

#include <QContextMenuEvent>
#include <QMenu>

#include <algorithm>

namespace spike::ui {

void GraphCanvas::contextMenuEvent(QContextMenuEvent* event)
{
    if (m_doc == nullptr) {
        return;
    }
    QMenu menu(this);
    fillContextMenu(menu, event->pos());
    menu.exec(event->globalPos());
}

void GraphCanvas::fillContextMenu(QMenu& menu, QPoint viewPos)
{
    if (m_doc == nullptr) {
        return;
    }
    QGraphicsItem* under = itemAt(viewPos);
    const bool editable = isEditable();
    if (under != nullptr && under->type() == GraphNodeItem::kType
        && static_cast<GraphNodeItem*>(under)->kind() == GraphNodeItem::Kind::Node) {
        auto* node = static_cast<GraphNodeItem*>(under);
        const NodeId id = node->id();
        if (!under->isSelected()) {
            scene()->clearSelection();
            under->setSelected(true);
        }
        const QList<NodeId> selection = selectedNodes();
        if (canEnter(id)) {
            menu.addAction(tr("Open"), this, [this, id] { enter(id); });
            menu.addSeparator();
        }
        // Plot ▸ the port under the cursor, then every recordable State.
        const CanvasPort* port = node->portAt(mapToScene(viewPos));
        const auto entries = plotEntries(id, port != nullptr ? port->name : QString());
        if (!entries.isEmpty()) {
            QMenu* plot = menu.addMenu(tr("Plot"));
            for (const auto& [text, signal] : entries) {
                plot->addAction(text, this, [this, id, signal = signal] { Q_EMIT plotRequested(id, signal); });
            }
            menu.addSeparator();
        }
        const engine::Module* m = m_doc->module(id);
        const auto ports = m != nullptr ? m->outputPorts() : std::vector<engine::PortSpec>{};
        const bool spiking =
            std::any_of(ports.begin(), ports.end(), [](const engine::PortSpec& p) { return p.name == "spikes"; });
        const bool layer = m != nullptr && !spiking && !engine::weightSummary(*m).empty();
        if (layer) {
            // A layer or composite: its weights, and its outputs while the model runs.
            QMenu* analyse = menu.addMenu(tr("Analyse"));
            analyse->addAction(tr("Weights and activations…"), this, [this, id] {
                Q_EMIT analyseRequested(id, QStringLiteral("histogram"));
            });
            menu.addSeparator();
        }
        if (spiking) {
            QMenu* analyse = menu.addMenu(tr("Analyse"));
            analyse->addAction(tr("f-I curve…"), this, [this, id] {
                Q_EMIT analyseRequested(id, QStringLiteral("fi"));
            });
            analyse->addAction(tr("Parameter sweep…"), this, [this, id] {
                Q_EMIT analyseRequested(id, QStringLiteral("sweep"));
            });
            analyse->addAction(tr("Phase portrait…"), this, [this, id] {
                Q_EMIT analyseRequested(id, QStringLiteral("phase"));
            });
            analyse->addAction(tr("Spike statistics…"), this, [this, id] {
                Q_EMIT analyseRequested(id, QStringLiteral("isi"));
            });
            menu.addSeparator();
        }
        if (editable) {
            menu.addAction(tr("Rename…"), this, [this, id] { rename(id); });
            menu.addAction(tr("Cut"), this, &GraphCanvas::cutSelection);
            menu.addAction(tr("Copy"), this, &GraphCanvas::copySelection);
            menu.addAction(tr("Duplicate"), this, [this, selection] { duplicate(selection); });
            menu.addAction(tr("Delete"), this, &GraphCanvas::deleteSelection);
            menu.addSeparator();
            menu.addAction(tr("Group"), this, &GraphCanvas::groupSelection);
            if (std::any_of(selection.begin(), selection.end(), [this](NodeId n) { return m_doc->network(n) != nullptr; })) {
                menu.addAction(tr("Ungroup"), this, &GraphCanvas::ungroupSelection);
            }
        }
        if (selection.size() >= 2) {
            QMenu* align = menu.addMenu(tr("Align"));
            const std::pair<Alignment, QString> entries[] = {
                {Alignment::Left, tr("Left edges")},        {Alignment::HCenter, tr("Horizontal centres")},
                {Alignment::Right, tr("Right edges")},      {Alignment::Top, tr("Top edges")},
                {Alignment::VCenter, tr("Vertical centres")}, {Alignment::Bottom, tr("Bottom edges")},
                {Alignment::DistributeH, tr("Distribute horizontally")},
                {Alignment::DistributeV, tr("Distribute vertically")}};
            for (const auto& [how, text] : entries) {
                align->addAction(text, this, [this, how = how] { alignSelection(how); });
            }
            menu.addAction(tr("Auto-layout selection"), this, &GraphCanvas::autoLayout);
        }
    } else if (under != nullptr && under->type() == GraphWireItem::kType) {
        if (!under->isSelected()) {
            scene()->clearSelection();
            under->setSelected(true);
        }
        fillWireMenu(menu, static_cast<GraphWireItem*>(under)->id());
    } else {
        if (editable) {
            menu.addAction(tr("Paste"), this, &GraphCanvas::pasteClipboard);
        }
        menu.addAction(tr("Select all"), this, &GraphCanvas::selectAll);
        menu.addAction(tr("Auto-layout"), this, &GraphCanvas::autoLayout);
        menu.addAction(tr("Fit to view"), this, &GraphCanvas::fitToView);
        if (m_network != m_doc->rootId()) {
            menu.addAction(tr("Up to parent"), this, &GraphCanvas::leave);
        }
    }
}

}  // namespace spike::ui
