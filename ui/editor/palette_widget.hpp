// PaletteWidget: the editor's module palette. A search field above a tree with one top-level
// item per category and one child per module type, built once from engine::moduleTypes() in
// registry order (categories in order of first appearance). The "projections" category is left
// out: projections sit on connections, they are never graph nodes, so they cannot be added or
// dropped as one. An entry shows only its type name (never elided: the column sizes to its
// contents); its doc line is the tooltip (with the category), the status tip and the text of a
// word-wrapped label under the tree while the entry is current.
// Adding a module: double-click or Enter on an entry, Enter in the search field while exactly
// one entry is visible (quick-add), or dragging an entry, which carries mimeDataFor(type) with
// the copy action only (the palette never loses an entry to a drop).
// Invariants: every entry item holds its type name (TypeRole) and raw category (CategoryRole);
// category items hold only the category and are neither selectable-for-drag nor requestable;
// a category item is hidden exactly when all its entries are.
// Thread: GUI thread only.
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>

class QLabel;
class QLineEdit;
class QMimeData;
class QTreeWidget;
class QTreeWidgetItem;

namespace spike::ui {

class PaletteTree;

/// Searchable list of the engine's module types; see the file comment.
class PaletteWidget : public QWidget {
    Q_OBJECT

public:
    /// Item data role (column 0) holding an entry's module type name; empty on category items.
    static constexpr int TypeRole = Qt::UserRole;
    /// Item data role (column 0) holding the registry category ("neurons") on every item.
    static constexpr int CategoryRole = Qt::UserRole + 1;

    /// MIME type of a palette drag; the payload is the module type name in UTF-8 ("LIF").
    static QString mimeType();
    /// Drag payload for `type` (caller owns it).
    static QMimeData* mimeDataFor(const QString& type);
    /// The module type a drag carries, or a null QString when it is not a palette drag or names
    /// no registered type (or a projection, which is not a node).
    static QString typeFromMime(const QMimeData* mime);
    /// Whether the palette lists the registry category `category` (every one but "projections").
    static bool isPaletteCategory(const QString& category);
    /// Display name of a registry category: "neurons" -> "Neurons".
    static QString categoryTitle(const QString& category);

    explicit PaletteWidget(QWidget* parent = nullptr);

    /// The search field and the tree (for tests and focus handling).
    QLineEdit* searchField() const;
    QTreeWidget* tree() const;
    /// Shows only entries whose type, category or doc contains every whitespace-separated word
    /// of `text` (case-insensitive); categories without a visible entry are hidden; empty text
    /// shows all. Also what typing in the search field does (the field shows `text`).
    void setFilter(const QString& text);
    /// Type names currently visible, in display order.
    QStringList visibleTypes() const;

Q_SIGNALS:
    /// The user asked to add a module of `type` (double-click or Enter on an entry). GUI thread.
    void moduleRequested(const QString& type);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void populate();
    void applyFilter(const QString& text);
    void showDocOf(const QTreeWidgetItem* item);
    /// Emits moduleRequested for `item` when it is an entry; false for a category or nullptr.
    bool request(const QTreeWidgetItem* item);
    QTreeWidgetItem* firstVisibleEntry() const;

    QLineEdit* m_search = nullptr;
    PaletteTree* m_tree = nullptr;
    QLabel* m_doc = nullptr;
};

}  // namespace spike::ui
