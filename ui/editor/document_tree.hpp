// DocumentTree: the "Modules" dock, a tree view of a GraphDocument with one item per module of
// the document in Module::namedModules() order (root on top, connection projections included,
// drawn in grey italics). It observes the document and never edits it: structural edits arrive
// as the document's fine-grained signals and change only the items they touch, so the
// expansion state of the rest survives; the whole tree is rebuilt only on setDocument() and
// documentReset().
//
// Owns: the items and the NodeId -> item map. Items hold their module's NodeId (IdRole of
// column 0), never a pointer into the engine tree.
// Invariants (between document signals): the items in tree order are exactly the document's
// modules in namedModules() order; m_items maps every item's id to that item and nothing else;
// m_collapsed holds the ids the user collapsed, so a subtree taken out and put back (undo,
// group/ungroup) comes back folded as it was.
// Selection: user changes emit nodesSelected; selectNodes() and document updates do not.
// Thread: GUI thread only.
#pragma once

#include "ui/document/graph_document.hpp"

#include <QList>
#include <QPointer>
#include <QTreeWidget>

#include <map>
#include <set>

namespace spike::ui {

/// Tree view of a GraphDocument's modules; see the file comment.
class DocumentTree : public QTreeWidget {
    Q_OBJECT

public:
    /// Column indices.
    enum Column { NameColumn = 0, TypeColumn, ShapeColumn, SpikingColumn, ColumnCount };
    /// Item data role (column 0) holding the module's NodeId (QVariant::fromValue).
    static constexpr int IdRole = Qt::UserRole;

    explicit DocumentTree(QWidget* parent = nullptr);

    /// Shows `doc` (not owned; nullptr clears the tree). Rebuilds the items, expanded.
    void setDocument(GraphDocument* doc);
    /// The document shown, or nullptr.
    GraphDocument* document() const { return m_doc; }

    /// Width [px] that shows every column without eliding (frame and scroll bar included).
    int naturalWidth() const;
    /// The item of module `id`, or nullptr when it has none.
    QTreeWidgetItem* itemFor(NodeId id) const;
    /// The module id of `item` (invalid for nullptr).
    NodeId idOf(const QTreeWidgetItem* item) const;
    /// Selected nodes in tree order.
    QList<NodeId> selectedNodes() const;
    /// Selects exactly these nodes (unknown ids ignored), expands their ancestors and scrolls
    /// to the first; does not emit nodesSelected.
    void selectNodes(const QList<NodeId>& ids);
    /// Tooltip text of a module: its dotted path, or the root's type for the root ("" path);
    /// an empty string for an id not in the document.
    QString displayPath(NodeId id) const;
    /// How many times the whole tree was rebuilt (setDocument, documentReset); edits never
    /// rebuild.
    int rebuildCount() const { return m_rebuilds; }

Q_SIGNALS:
    /// The user changed the selection (not emitted by selectNodes or by document updates).
    /// GUI thread.
    void nodesSelected(const QList<spike::ui::NodeId>& ids);
    /// The user activated a module (double-click, or Enter); the main window opens it on the
    /// canvas. GUI thread.
    void nodeActivated(spike::ui::NodeId id);

private:
    /// Item data role (column 0): whether the module is a connection's projection.
    static constexpr int kProjectionRole = Qt::UserRole + 1;

    /// Clears and rebuilds every item from the document.
    void rebuild();
    /// Creates the items of `id`'s subtree under `parent` at child `index` (a top-level item
    /// when `parent` is null) and returns the subtree's root item.
    QTreeWidgetItem* buildSubtree(NodeId id, QTreeWidgetItem* parent, int index, bool projection);
    /// Sets the columns, tooltip and style of one item from the document.
    void fillItem(QTreeWidgetItem* item, NodeId id, bool projection) const;
    /// Rewrites the tooltips of `item`'s subtree (paths changed by a rename).
    void refreshPaths(QTreeWidgetItem* item);
    /// Expands the items of `item`'s subtree that the user has not collapsed.
    void restoreExpansion(QTreeWidgetItem* item);
    /// Forgets the ids of `item`'s subtree in m_items.
    void forgetSubtree(QTreeWidgetItem* item);

    void onSubtreeInserted(NodeId parent, NodeId root);
    void onSubtreeAboutToBeRemoved(NodeId parent, NodeId root);
    void onNodeRenamed(NodeId id);
    void onAttributeChanged(NodeId id);

    QPointer<GraphDocument> m_doc;
    std::map<NodeId, QTreeWidgetItem*> m_items;
    std::set<NodeId> m_collapsed;
    int m_quiet = 0;  ///< > 0 while the view itself changes the selection or the items
    int m_rebuilds = 0;
};

}  // namespace spike::ui
