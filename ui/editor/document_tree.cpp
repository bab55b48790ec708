// DocumentTree: item building and the incremental updates. See document_tree.hpp.
#include "ui/editor/document_tree.hpp"

#include "engine/network/network.hpp"

#include <QHeaderView>
#include <QItemSelection>
#include <QScrollBar>
#include <QTreeWidgetItemIterator>

#include <algorithm>
#include <string>
#include <unordered_set>

namespace spike::ui {

namespace {

/// "(8, 4)", or "(8,)" for a one-dimensional shape.
QString shapeText(const QVariantList& shape)
{
    if (shape.size() == 1) {
        return QStringLiteral("(%1,)").arg(shape.front().toLongLong());
    }
    QStringList parts;
    for (const QVariant& d : shape) {
        parts << QString::number(d.toLongLong());
    }
    return QStringLiteral("(") + parts.join(QStringLiteral(", ")) + QStringLiteral(")");
}

/// "in, out", "in", "out" or "no": which sides of the module carry spikes.
QString spikingText(const engine::Module& module)
{
    QStringList sides;
    if (module.spikingInput()) {
        sides << QStringLiteral("in");
    }
    if (module.spikingOutput()) {
        sides << QStringLiteral("out");
    }
    return sides.isEmpty() ? QStringLiteral("no") : sides.join(QStringLiteral(", "));
}

/// Names of the children of `module` that are connection projections (none unless a Network).
std::unordered_set<std::string> projectionNames(const engine::Module* module)
{
    std::unordered_set<std::string> names;
    if (const auto* net = dynamic_cast<const engine::Network*>(module)) {
        for (const auto& c : net->connections()) {
            if (c.hasProjection) {
                names.insert(c.name);
            }
        }
    }
    return names;
}

/// Increments a counter for the lifetime of the scope.
class Quiet {
public:
    explicit Quiet(int& counter) : m_counter(counter) { ++m_counter; }
    ~Quiet() { --m_counter; }
    Quiet(const Quiet&) = delete;
    Quiet& operator=(const Quiet&) = delete;

private:
    int& m_counter;
};

}  // namespace

DocumentTree::DocumentTree(QWidget* parent) : QTreeWidget(parent)
{
    setColumnCount(ColumnCount);
    setHeaderLabels({tr("Module"), tr("Type"), tr("Shape"), tr("Spiking")});
    headerItem()->setToolTip(NameColumn, tr("Name within the parent; the tooltip shows the path"));
    headerItem()->setToolTip(ShapeColumn, tr("(Nin, Nout), or (N,) when Nin equals Nout"));
    headerItem()->setToolTip(SpikingColumn, tr("Spiking in/out: whether the module takes spikes (in) and emits them (out)"));
    setSelectionMode(QAbstractItemView::ExtendedSelection);
    setUniformRowHeights(true);
    setAlternatingRowColors(true);
    header()->setStretchLastSection(false);
    header()->setSectionResizeMode(QHeaderView::ResizeToContents);

    connect(this, &QTreeWidget::itemSelectionChanged, this, [this] {
        if (m_quiet == 0) {
            Q_EMIT nodesSelected(selectedNodes());
        }
    });
    connect(this, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item, int) {
        const NodeId id = idOf(item);
        if (id.valid()) {
            Q_EMIT nodeActivated(id);
        }
    });
    connect(this, &QTreeWidget::itemCollapsed, this, [this](QTreeWidgetItem* item) {
        m_collapsed.insert(idOf(item));
    });
    connect(this, &QTreeWidget::itemExpanded, this, [this](QTreeWidgetItem* item) {
        m_collapsed.erase(idOf(item));
    });
}

void DocumentTree::setDocument(GraphDocument* doc)
{
    if (doc == m_doc && doc != nullptr) {
        return;
    }
    if (m_doc) {
        disconnect(m_doc, nullptr, this, nullptr);
    }
    m_doc = doc;
    if (doc != nullptr) {
        connect(doc, &GraphDocument::documentReset, this, &DocumentTree::rebuild);
        connect(doc, &GraphDocument::subtreeInserted, this, &DocumentTree::onSubtreeInserted);
        connect(doc, &GraphDocument::subtreeAboutToBeRemoved, this,
                &DocumentTree::onSubtreeAboutToBeRemoved);
        connect(doc, &GraphDocument::nodeRenamed, this, &DocumentTree::onNodeRenamed);
        connect(doc, &GraphDocument::attributeChanged, this,
                [this](NodeId id, const QString&) { onAttributeChanged(id); });
        connect(doc, &QObject::destroyed, this, [this] {
            const Quiet quiet(m_quiet);
            m_items.clear();
            m_collapsed.clear();
            clear();
        });
    }
    rebuild();
}

void DocumentTree::rebuild()
{
    const Quiet quiet(m_quiet);
    ++m_rebuilds;
    m_items.clear();
    m_collapsed.clear();
    clear();
    if (!m_doc) {
        return;
    }
    QTreeWidgetItem* top = buildSubtree(m_doc->rootId(), nullptr, 0, false);
    restoreExpansion(top);
}

QTreeWidgetItem* DocumentTree::buildSubtree(NodeId id, QTreeWidgetItem* parent, int index,
                                            bool projection)
{
    // Built detached, then inserted in one go: one row insertion for the whole subtree.
    auto build = [this](auto& self, NodeId node, bool isProjection) -> QTreeWidgetItem* {
        auto* item = new QTreeWidgetItem();
        fillItem(item, node, isProjection);
        m_items[node] = item;
        const engine::Module* module = m_doc->module(node);
        const auto projections = projectionNames(module);
        for (const NodeId child : m_doc->children(node)) {
            const engine::Module* c = m_doc->module(child);
            item->addChild(self(self, child, c != nullptr && projections.count(c->name()) > 0));
        }
        return item;
    };
    QTreeWidgetItem* item = build(build, id, projection);
    if (parent != nullptr) {
        parent->insertChild(index, item);
    } else {
        insertTopLevelItem(index, item);
    }
    return item;
}

void DocumentTree::fillItem(QTreeWidgetItem* item, NodeId id, bool projection) const
{
    const engine::Module* module = m_doc->module(id);
    if (module == nullptr) {
        return;
    }
    const bool isRoot = module->parent() == nullptr;
    item->setData(NameColumn, IdRole, QVariant::fromValue(id));
    item->setData(NameColumn, kProjectionRole, projection);
    item->setText(NameColumn, isRoot ? tr("(root)") : QString::fromStdString(module->name()));
    item->setToolTip(NameColumn, displayPath(id));
    item->setText(TypeColumn, QString::fromStdString(module->className()));
    item->setText(ShapeColumn, shapeText(m_doc->nodeData(id, NodeRole::Shape).toList()));
    item->setText(SpikingColumn, spikingText(*module));
    if (projection) {
        item->setToolTip(TypeColumn, tr("Projection of the connection '%1'")
                                         .arg(QString::fromStdString(module->name())));
        const QColor grey = palette().color(QPalette::Disabled, QPalette::Text);
        for (int c = 0; c < ColumnCount; ++c) {
            QFont font = item->font(c);
            font.setItalic(true);
            item->setFont(c, font);
            item->setForeground(c, grey);
        }
    }
}

void DocumentTree::refreshPaths(QTreeWidgetItem* item)
{
    item->setToolTip(NameColumn, displayPath(idOf(item)));
    for (int i = 0; i < item->childCount(); ++i) {
        refreshPaths(item->child(i));
    }
}

void DocumentTree::restoreExpansion(QTreeWidgetItem* item)
{
    if (item->childCount() == 0) {
        return;
    }
    if (m_collapsed.count(idOf(item)) == 0) {
        item->setExpanded(true);
    }
    for (int i = 0; i < item->childCount(); ++i) {
        restoreExpansion(item->child(i));
    }
}

void DocumentTree::forgetSubtree(QTreeWidgetItem* item)
{
    m_items.erase(idOf(item));
    for (int i = 0; i < item->childCount(); ++i) {
        forgetSubtree(item->child(i));
    }
}

// ---- document signals --------------------------------------------------------------------

void DocumentTree::onSubtreeInserted(NodeId parent, NodeId root)
{
    QTreeWidgetItem* parentItem = itemFor(parent);
    if (parentItem == nullptr || itemFor(root) != nullptr || !m_doc->contains(root)) {
        // Never expected between consistent signals; a rebuild restores the invariant.
        rebuild();
        return;
    }
    const Quiet quiet(m_quiet);
    // Position among the siblings that already have items, in the document's child order.
    int index = 0;
    for (const NodeId child : m_doc->children(parent)) {
        if (child == root) {
            break;
        }
        const QTreeWidgetItem* sibling = itemFor(child);
        if (sibling != nullptr && sibling->parent() == parentItem) {
            ++index;
        }
    }
    const bool projection = m_doc->nodeData(root, NodeRole::IsProjection).toBool();
    QTreeWidgetItem* item = buildSubtree(root, parentItem, index, projection);
    if (m_collapsed.count(parent) == 0) {
        parentItem->setExpanded(true);
    }
    restoreExpansion(item);
}

void DocumentTree::onSubtreeAboutToBeRemoved(NodeId, NodeId root)
{
    QTreeWidgetItem* item = itemFor(root);
    if (item == nullptr) {
        return;
    }
    const Quiet quiet(m_quiet);
    forgetSubtree(item);
    delete item;
}

void DocumentTree::onNodeRenamed(NodeId id)
{
    QTreeWidgetItem* item = itemFor(id);
    const engine::Module* module = m_doc->module(id);
    if (item == nullptr || module == nullptr) {
        return;
    }
    item->setText(NameColumn, QString::fromStdString(module->name()));
    refreshPaths(item);
    if (item->data(NameColumn, kProjectionRole).toBool()) {
        item->setToolTip(TypeColumn, tr("Projection of the connection '%1'")
                                         .arg(QString::fromStdString(module->name())));
    }
}

void DocumentTree::onAttributeChanged(NodeId id)
{
    QTreeWidgetItem* item = itemFor(id);
    const engine::Module* module = m_doc->module(id);
    if (item == nullptr || module == nullptr) {
        return;
    }
    const QString shape = shapeText(m_doc->nodeData(id, NodeRole::Shape).toList());
    if (item->text(ShapeColumn) != shape) {
        item->setText(ShapeColumn, shape);
    }
    const QString spiking = spikingText(*module);
    if (item->text(SpikingColumn) != spiking) {
        item->setText(SpikingColumn, spiking);
    }
}

// ---- queries and selection ---------------------------------------------------------------

QTreeWidgetItem* DocumentTree::itemFor(NodeId id) const
{
    const auto it = m_items.find(id);
    return it == m_items.end() ? nullptr : it->second;
}

NodeId DocumentTree::idOf(const QTreeWidgetItem* item) const
{
    return item == nullptr ? NodeId{} : item->data(NameColumn, IdRole).value<NodeId>();
}

QString DocumentTree::displayPath(NodeId id) const
{
    const engine::Module* module = m_doc ? m_doc->module(id) : nullptr;
    if (module == nullptr) {
        return {};
    }
    return module->parent() == nullptr ? QString::fromStdString(module->className())
                                       : QString::fromStdString(module->fullName());
}

QList<NodeId> DocumentTree::selectedNodes() const
{
    QList<NodeId> out;
    for (QTreeWidgetItemIterator it(const_cast<DocumentTree*>(this), QTreeWidgetItemIterator::Selected);
         *it != nullptr; ++it) {
        out.push_back(idOf(*it));
    }
    return out;
}

void DocumentTree::selectNodes(const QList<NodeId>& ids)
{
    const Quiet quiet(m_quiet);
    QItemSelection selection;
    QTreeWidgetItem* first = nullptr;
    for (const NodeId id : ids) {
        QTreeWidgetItem* item = itemFor(id);
        if (item == nullptr) {
            continue;
        }
        for (QTreeWidgetItem* up = item->parent(); up != nullptr; up = up->parent()) {
            up->setExpanded(true);
        }
        const QModelIndex index = indexFromItem(item);
        selection.select(index, index);
        if (first == nullptr) {
            first = item;
        }
    }
    selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    if (first != nullptr) {
        selectionModel()->setCurrentIndex(indexFromItem(first), QItemSelectionModel::NoUpdate);
        scrollToItem(first);
    }
}

int DocumentTree::naturalWidth() const
{
    int width = 2 * frameWidth() + verticalScrollBar()->sizeHint().width() + 8;
    for (int c = 0; c < columnCount(); ++c) {
        width += std::max(sizeHintForColumn(c), header()->sectionSizeHint(c));
    }
    return width;
}

}  // namespace spike::ui
