// GraphCanvas, edit actions: entering and leaving nested modules, adding from the palette (also by
// drag and drop, or by typing its name on the canvas: the quick-add popup), the clipboard, duplicate, group/ungroup, align and auto-layout. Each action is
// one undo step pushed on the document; a refused one shows the engine's reason at the cursor
// and changes nothing. The clipboard holds a copyFragment() as MIME type fragmentMimeType() (and
// as text), so a fragment copied in one window pastes into any other SpikeStudio document.
// Thread: GUI thread only.
#include "ui/editor/graph_canvas.hpp"

#include "ui/document/graph_commands.hpp"
#include "ui/editor/graph_node_item.hpp"
#include "ui/editor/graph_wire_item.hpp"
#include "ui/editor/palette_widget.hpp"
#include "ui/editor/quick_add_popup.hpp"

#include "engine/tensor/error.hpp"
#include "engine/io/module_factory.hpp"

#include <QApplication>
#include <QClipboard>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QGraphicsScene>
#include <QMimeData>
#include <QMouseEvent>
#include <QUndoStack>

#include <cmath>
#include <limits>

namespace spike::ui {

namespace {

QPointF snapped(QPointF p)
{
    return {std::round(p.x() / GraphCanvas::kGrid) * GraphCanvas::kGrid,
            std::round(p.y() / GraphCanvas::kGrid) * GraphCanvas::kGrid};
}

/// Top-left of the top-level nodes' positions in a fragment's layout; nullopt when none.
std::optional<QPointF> fragmentOrigin(const nlohmann::json& fragment)
{
    if (!fragment.is_object() || !fragment.contains("layout") || !fragment.at("layout").is_object()) {
        return std::nullopt;
    }
    double x = std::numeric_limits<double>::infinity();
    double y = std::numeric_limits<double>::infinity();
    for (const auto& [path, xy] : fragment.at("layout").items()) {
        if (path.find('.') == std::string::npos && xy.is_array() && xy.size() == 2 && xy[0].is_number()
            && xy[1].is_number()) {
            x = std::min(x, xy[0].get<double>());
            y = std::min(y, xy[1].get<double>());
        }
    }
    if (!std::isfinite(x)) {
        return std::nullopt;
    }
    return QPointF(x, y);
}

}  // namespace

QString GraphCanvas::fragmentMimeType()
{
    return QStringLiteral("application/x-spikestudio-fragment");
}

QPoint GraphCanvas::cursorPos() const
{
    const QPoint p = mapFromGlobal(QCursor::pos());
    return rect().contains(p) ? p : rect().center();
}

bool GraphCanvas::refuseReadOnly(const QString& what)
{
    if (isEditable()) {
        return false;
    }
    const QString type = m_doc->nodeData(m_network, NodeRole::Type).toString();
    const QString path = m_doc->nodeData(m_network, NodeRole::Path).toString();
    // The root has no path: "the root Sequential", not "Sequential ''".
    const QString where = path.isEmpty() ? tr("the root %1").arg(type) : tr("%1 '%2'").arg(type, path);
    refuse(tr("%1 is not possible inside %2: its children are built from its configuration. "
              "Only Networks are edited on the canvas.")
               .arg(what, where),
           cursorPos());
    return true;
}

// ---- navigation ---------------------------------------------------------------------------------

bool GraphCanvas::enter(NodeId id)
{
    if (!canEnter(id)) {
        return false;
    }
    setNetwork(id);
    return true;
}

bool GraphCanvas::leave()
{
    if (m_doc == nullptr || m_network == m_doc->rootId()) {
        return false;
    }
    const NodeId from = m_network;
    setNetwork(m_doc->parentOf(m_network));
    setSelection({from});
    emitSelection();
    return true;
}

void GraphCanvas::selectAll()
{
    scene()->clearSelection();
    m_syncingSelection = true;
    for (const auto& [id, item] : m_nodes) {
        item->setSelected(true);
    }
    m_syncingSelection = false;
    emitSelection();
}

void GraphCanvas::mouseDoubleClickEvent(QMouseEvent* event)
{
    QGraphicsItem* under = itemAt(event->position().toPoint());
    if (event->button() == Qt::LeftButton && under != nullptr && under->type() == GraphNodeItem::kType
        && static_cast<GraphNodeItem*>(under)->kind() == GraphNodeItem::Kind::Node
        && enter(static_cast<GraphNodeItem*>(under)->id())) {
        event->accept();
        return;
    }
    QGraphicsView::mouseDoubleClickEvent(event);
}

// ---- adding from the palette --------------------------------------------------------------------

NodeId GraphCanvas::addModule(const QString& type, std::optional<QPointF> scenePos, std::optional<std::int64_t> size)
{
    if (m_doc == nullptr || refuseReadOnly(tr("Adding a module"))) {
        return {};
    }
    const engine::ModuleTypeInfo* info = engine::findModuleType(type.toStdString());
    if (info == nullptr) {
        refuse(tr("'%1' is not a module type of this SpikeStudio").arg(type), cursorPos());
        return {};
    }
    std::optional<QPointF> where;
    if (scenePos) {
        where = snapped(*scenePos);
    }
    nlohmann::json config = info->exampleConfig;
    if (size) {
        try {
            config = engine::configWithSize(info->type, *size);
        } catch (const engine::Error& e) {
            refuse(QString::fromStdString(e.what()), cursorPos());
            return {};
        }
    }
    // The values a circuit built from scratch should start with (engine/io/start_values.cpp).
    auto command = std::make_unique<AddNodeCommand>(*m_doc, m_network, info->type, config, std::string{}, where,
                                                    engine::startValues(info->type));
    AddNodeCommand* raw = command.get();
    if (!push(std::move(command), cursorPos())) {
        return {};
    }
    const NodeId node = raw->node();  // the stack owns the command now; it lives on
    setSelection({node});
    emitSelection();
    updateSceneRect();
    if (GraphNodeItem* item = nodeItem(node)) {
        ensureVisible(item);
    }
    return node;
}

void GraphCanvas::dragEnterEvent(QDragEnterEvent* event)
{
    if (!PaletteWidget::typeFromMime(event->mimeData()).isNull()) {
        event->acceptProposedAction();
        return;
    }
    event->ignore();  // no item of the scene takes drops
}

void GraphCanvas::dragMoveEvent(QDragMoveEvent* event)
{
    if (!PaletteWidget::typeFromMime(event->mimeData()).isNull()) {
        event->acceptProposedAction();
        return;
    }
    event->ignore();
}

void GraphCanvas::dropEvent(QDropEvent* event)
{
    const QString type = PaletteWidget::typeFromMime(event->mimeData());
    if (type.isNull()) {
        event->ignore();
        return;
    }
    event->acceptProposedAction();
    addModule(type, mapToScene(event->position().toPoint()));
}

bool GraphCanvas::openQuickAdd(const QString& text, std::optional<QPoint> viewPos)
{
    if (m_doc == nullptr || refuseReadOnly(tr("Adding a module"))) {
        return false;
    }
    QPoint at = viewPos.value_or(viewport()->mapFromGlobal(QCursor::pos()));
    if (!viewport()->rect().contains(at)) {
        at = viewport()->rect().center();
    }
    m_quickAddAt = mapToScene(at);
    m_quickAddNetwork = m_network;
    if (m_quickAdd == nullptr) {
        m_quickAdd = new QuickAddPopup(this);
        connect(m_quickAdd, &QuickAddPopup::typeChosen, this, [this](const QString& type, qint64 size) {
            setFocus(Qt::PopupFocusReason);
            if (m_network != m_quickAddNetwork) {
                refuse(tr("Not added: the canvas shows another network than when you started typing"), cursorPos());
                return;
            }
            // What a palette drop at that point does ("LIF 100": with that size).
            addModule(type, m_quickAddAt, size > 0 ? std::optional<std::int64_t>(size) : std::nullopt);
        });
    }
    m_quickAdd->popup(viewport()->mapToGlobal(at), text);
    return true;
}

// ---- clipboard ----------------------------------------------------------------------------------

bool GraphCanvas::copySelection()
{
    const QList<NodeId> selection = selectedNodes();
    if (m_doc == nullptr || selection.isEmpty()) {
        return false;
    }
    if (refuseReadOnly(tr("Copying"))) {
        return false;
    }
    nlohmann::json fragment;
    try {
        fragment = copyFragment(*m_doc, std::vector<NodeId>(selection.begin(), selection.end()));
    } catch (const engine::Error& e) {
        refuse(QString::fromUtf8(e.what()), cursorPos());
        return false;
    }
    // Nodes shown at a view-only default position travel with that position.
    for (NodeId id : selection) {
        const std::string name = m_doc->nodeData(id, NodeRole::Name).toString().toStdString();
        if (!fragment["layout"].contains(name)) {
            const QPointF p = nodeItem(id)->pos();
            fragment["layout"][name] = {p.x(), p.y()};
        }
    }
    const QByteArray bytes = QByteArray::fromStdString(fragment.dump(1));
    auto* mime = new QMimeData;
    mime->setData(fragmentMimeType(), bytes);
    mime->setText(QString::fromUtf8(bytes));
    QApplication::clipboard()->setMimeData(mime);
    return true;
}

bool GraphCanvas::cutSelection()
{
    if (!copySelection()) {
        return false;
    }
    m_doc->undoStack()->beginMacro(tr("Cut"));
    const bool ok = deleteSelection();
    m_doc->undoStack()->endMacro();
    return ok;
}

bool GraphCanvas::pasteClipboard()
{
    if (m_doc == nullptr || refuseReadOnly(tr("Pasting"))) {
        return false;
    }
    const QMimeData* mime = QApplication::clipboard()->mimeData();
    QByteArray bytes;
    if (mime != nullptr && mime->hasFormat(fragmentMimeType())) {
        bytes = mime->data(fragmentMimeType());
    } else if (mime != nullptr && mime->hasText()) {
        bytes = mime->text().toUtf8();
    }
    if (bytes.isEmpty()) {
        refuse(tr("Nothing to paste: the clipboard holds no SpikeStudio nodes"), cursorPos());
        return false;
    }
    const nlohmann::json fragment = nlohmann::json::parse(bytes.toStdString(), nullptr, false);
    if (fragment.is_discarded()) {
        refuse(tr("Cannot paste: the clipboard text is not JSON"), cursorPos());
        return false;
    }
    const QPointF centre = snapped(mapToScene(viewport()->rect().center()));
    const QPointF offset = centre - fragmentOrigin(fragment).value_or(centre);
    auto command = std::make_unique<PasteCommand>(*m_doc, m_network, fragment, offset);
    const PasteCommand* raw = command.get();
    if (!push(std::move(command), cursorPos())) {
        return false;
    }
    setSelection(QList<NodeId>(raw->nodes().begin(), raw->nodes().end()));
    emitSelection();
    updateSceneRect();
    return true;
}

bool GraphCanvas::duplicateSelection()
{
    const QList<NodeId> selection = selectedNodes();
    if (selection.isEmpty()) {
        return false;
    }
    const int before = m_doc->undoStack()->count();
    duplicate(selection);
    return m_doc->undoStack()->count() > before;
}

// ---- group / ungroup ----------------------------------------------------------------------------

bool GraphCanvas::groupSelection()
{
    const QList<NodeId> selection = selectedNodes();
    if (m_doc == nullptr || selection.isEmpty() || refuseReadOnly(tr("Grouping"))) {
        return false;
    }
    auto command = std::make_unique<GroupCommand>(*m_doc, std::vector<NodeId>(selection.begin(), selection.end()));
    const GroupCommand* raw = command.get();
    if (!push(std::move(command), cursorPos())) {
        return false;
    }
    setSelection({raw->group()});
    emitSelection();
    return true;
}

bool GraphCanvas::ungroupSelection()
{
    if (m_doc == nullptr || refuseReadOnly(tr("Ungrouping"))) {
        return false;
    }
    QList<NodeId> groups;
    for (NodeId id : selectedNodes()) {
        if (m_doc->network(id) != nullptr) {
            groups.push_back(id);
        }
    }
    if (groups.isEmpty()) {
        refuse(tr("Ungroup needs a selected group (a Network node)"), cursorPos());
        return false;
    }
    QList<NodeId> freed;
    bool ok = true;
    if (groups.size() > 1) {
        m_doc->undoStack()->beginMacro(tr("Ungroup"));
    }
    for (NodeId group : groups) {
        auto command = std::make_unique<UngroupCommand>(*m_doc, group);
        const UngroupCommand* raw = command.get();
        if (push(std::move(command), cursorPos())) {
            freed.append(QList<NodeId>(raw->nodes().begin(), raw->nodes().end()));
        } else {
            ok = false;
        }
    }
    if (groups.size() > 1) {
        m_doc->undoStack()->endMacro();
    }
    setSelection(freed);
    emitSelection();
    return ok;
}

// ---- align and auto-layout ----------------------------------------------------------------------

std::vector<LayoutBox> GraphCanvas::layoutBoxes(bool all) const
{
    std::vector<LayoutBox> boxes;
    for (NodeId id : shownNodes()) {
        const GraphNodeItem* item = nodeItem(id);
        if (item != nullptr && (all || item->isSelected())) {
            boxes.push_back({id, item->sceneBoundingRect()});
        }
    }
    return boxes;
}

bool GraphCanvas::applyPositions(const std::map<NodeId, QPointF>& positions, const QString& text)
{
    // The layout works on the items' scene boxes (port handles included), whose top-left sits a
    // little off the item's position: move each item by what its box moves.
    std::vector<std::pair<NodeId, QPointF>> targets;
    for (const auto& [id, boxTopLeft] : positions) {
        const GraphNodeItem* item = nodeItem(id);
        if (item == nullptr) {
            continue;
        }
        const QPointF p = boxTopLeft - (item->sceneBoundingRect().topLeft() - item->pos());
        if (item->pos() != p || !m_doc->position(id)) {
            targets.emplace_back(id, p);
        }
    }
    if (targets.empty()) {
        return false;
    }
    auto command = std::make_unique<MoveNodesCommand>(*m_doc, std::move(targets));
    command->setText(text);
    const bool ok = push(std::move(command), cursorPos());
    updateSceneRect();
    return ok;
}

bool GraphCanvas::alignSelection(Alignment how)
{
    if (m_doc == nullptr) {
        return false;
    }
    return applyPositions(alignBoxes(layoutBoxes(false), how), tr("Align"));
}

bool GraphCanvas::autoLayout()
{
    if (m_doc == nullptr) {
        return false;
    }
    const bool all = selectedNodes().size() < 2;
    const std::vector<LayoutBox> boxes = layoutBoxes(all);
    std::vector<LayoutEdge> edges;
    for (const auto& [id, wire] : m_wires) {
        const auto& ends = m_wireEnds.at(wire);
        if (ends.first != nullptr && ends.second != nullptr && ends.first->kind() == GraphNodeItem::Kind::Node
            && ends.second->kind() == GraphNodeItem::Kind::Node) {
            edges.push_back({ends.first->id(), ends.second->id()});
        }
    }
    if (!isEditable() && m_doc->nodeData(m_network, NodeRole::Type).toString() == QLatin1String("Sequential")) {
        const std::vector<NodeId> shown = shownNodes();
        for (std::size_t i = 1; i < shown.size(); ++i) {
            edges.push_back({shown[i - 1], shown[i]});
        }
    }
    LayeredLayoutOptions options;
    options.grid = kGrid;
    const bool ok = applyPositions(layeredLayout(boxes, edges, options), tr("Auto-layout"));
    if (ok && all) {
        placeBoundaries();
        for (GraphNodeItem* boundary : {m_inItem, m_outItem}) {
            if (boundary != nullptr) {
                routeWiresOf(boundary);
            }
        }
        fitToView();
    }
    return ok;
}

}  // namespace spike::ui
