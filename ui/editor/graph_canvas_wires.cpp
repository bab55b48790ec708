// GraphCanvas, wires: the projection-kind menu of a wire dropped between ports of different
// sizes, the wire context menu (Projection ▸ kinds, Delayed), the single-wire selection and
// keeping a wire selected while a command takes it out and puts it back with the same id.
// See graph_canvas.hpp and ui/document/graph_projection.hpp.
// Thread: GUI thread only.
#include "ui/editor/graph_canvas.hpp"

#include "ui/document/graph_commands.hpp"
#include "ui/document/graph_projection.hpp"
#include "ui/editor/graph_wire_item.hpp"

#include <QGraphicsScene>
#include <QMenu>
#include <QTimer>

#include <algorithm>

namespace spike::ui {

ConnectionId GraphCanvas::selectedWire() const
{
    ConnectionId found;
    int count = 0;
    for (const auto& [id, wire] : m_wires) {
        if (wire->isSelected()) {
            found = id;
            ++count;
        }
    }
    return count == 1 && selectedNodes().isEmpty() ? found : ConnectionId{};
}

void GraphCanvas::selectWire(ConnectionId id)
{
    GraphWireItem* wire = wireItem(id);
    if (wire == nullptr) {
        return;
    }
    m_syncingSelection = true;
    scene()->clearSelection();
    wire->setSelected(true);
    m_syncingSelection = false;
    emitSelection();
}

bool GraphCanvas::wireLeaving(GraphWireItem* wire, ConnectionId id)
{
    if (!wire->isSelected()) {
        return false;
    }
    if (m_reselectWires.empty()) {
        // Whatever did not come back by the next turn of the event loop is gone for good.
        QTimer::singleShot(0, this, [this] {
            if (!m_reselectWires.empty()) {
                m_reselectWires.clear();
                emitSelection();
            }
        });
    }
    m_reselectWires.push_back(id);
    return true;
}

void GraphCanvas::wireArrived(GraphWireItem* wire, ConnectionId id)
{
    const auto it = std::find(m_reselectWires.begin(), m_reselectWires.end(), id);
    if (it == m_reselectWires.end()) {
        return;
    }
    m_reselectWires.erase(it);
    const bool syncing = std::exchange(m_syncingSelection, true);
    wire->setSelected(true);
    m_syncingSelection = syncing;
}

void GraphCanvas::refreshProjectionWire(NodeId id)
{
    if (m_doc == nullptr || m_doc->parentOf(id) != m_network || !m_doc->nodeData(id, NodeRole::IsProjection).toBool()) {
        return;
    }
    if (GraphWireItem* wire = wireItem(m_doc->findConnection(m_network, m_doc->module(id)->name()))) {
        wire->refresh();
    }
}

void GraphCanvas::connectDropped(const std::string& to, QPoint viewPos)
{
    const std::string from = m_wireSourceEnd;
    std::pair<std::int64_t, std::int64_t> sizes{0, 0};
    try {
        sizes = wireSizes(*m_doc, m_network, from, to);
    } catch (const engine::Error&) {
        sizes = {0, 0};  // ConnectCommand names what does not resolve
    }
    if (sizes.first == sizes.second) {
        push(std::make_unique<ConnectCommand>(*m_doc, m_network, from, to), viewPos);
        return;
    }
    // Different sizes: the wire needs a projection; offer the kinds at the drop point.
    QMenu menu(this);
    menu.setObjectName(QStringLiteral("projectionKindMenu"));
    menu.setToolTipsVisible(true);
    menu.addSection(tr("Connect %1 → %2 channels through").arg(sizes.first).arg(sizes.second));
    QAction* sparse = menu.addAction(tr("Sparse random (%1)").arg(sparseStartText(sizes.first, sizes.second)));
    sparse->setToolTip(tr("Random synapses drawn from a seed; their rule, weight and delay are set on the wire "
                          "(select it)"));
    QAction* dense = menu.addAction(tr("Dense (all-to-all)"));
    dense->setToolTip(tr("A full %1 × %2 weight matrix").arg(sizes.first).arg(sizes.second));
    QAction* one = menu.addAction(tr("One-to-one"));
    one->setEnabled(false);
    one->setToolTip(projectionRefusal("OneToOneProjection", sizes.first, sizes.second));
    menu.addSeparator();
    menu.addAction(tr("Cancel"));
    QAction* chosen = menu.exec(viewport()->mapToGlobal(viewPos));
    const std::string type = chosen == sparse ? "SparseProjection" : chosen == dense ? "DenseProjection" : "";
    if (!type.empty() && m_doc != nullptr) {
        push(std::make_unique<ConnectWithProjectionCommand>(*m_doc, m_network, from, to, type), viewPos);
    }
}

void GraphCanvas::fillWireMenu(QMenu& menu, ConnectionId id)
{
    const auto info = m_doc->connection(id);
    if (!info) {
        return;
    }
    const engine::Module* projection = m_doc->module(info->projection);
    const std::string current = projection != nullptr ? projection->className() : std::string();
    std::pair<std::int64_t, std::int64_t> sizes{0, 0};
    try {
        sizes = wireSizes(*m_doc, info->network, info->from.toString(), info->to.toString());
    } catch (const engine::Error&) {
        sizes = {0, 0};
    }
    const QPoint at = cursorPos();
    QMenu* kinds = menu.addMenu(tr("Projection"));
    kinds->setToolTipsVisible(true);
    for (const ProjectionKind& kind : projectionKinds()) {
        QAction* action = kinds->addAction(kind.label);
        action->setCheckable(true);
        action->setChecked(kind.type == current);
        const QString why = projectionRefusal(kind.type, sizes.first, sizes.second);
        if (!why.isEmpty() && kind.type != current) {
            action->setEnabled(false);
            action->setToolTip(why);
        }
        connect(action, &QAction::triggered, this, [this, id, type = kind.type, current, at] {
            if (type != current && m_doc != nullptr) {
                push(std::make_unique<SetProjectionCommand>(*m_doc, id, type), at);
            }
        });
    }
    QAction* delayed = menu.addAction(tr("Delayed"));
    delayed->setCheckable(true);
    delayed->setChecked(info->delayed);
    delayed->setToolTip(tr("A delayed wire delivers its source's value of the previous step"));
    connect(delayed, &QAction::triggered, this, [this, id, at](bool on) {
        if (m_doc != nullptr) {
            push(std::make_unique<SetDelayedCommand>(*m_doc, id, on), at);
        }
    });
    menu.addSeparator();
    menu.addAction(tr("Delete wire"), this, &GraphCanvas::deleteSelection);
}

}  // namespace spike::ui
