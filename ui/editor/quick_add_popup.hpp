// QuickAddPopup: the canvas's quick-add list, opened by typing on the canvas (as in the node
// editors of Blender, Nuke or Unreal). A line edit over a two-column list of the engine's module
// types (registry order, the palette's categories: projections sit on wires, never as nodes):
// the type, then its category in grey; each entry's tooltip is its one-line doc, and a wrapped
// line under the list shows the current entry's doc, or why nothing can be added. Typing
// filters (quickAddMatches()), the best match is current; Up/Down (also Page Up/Down, Home/End
// of the list) move it, Enter or a click chooses it (typeChosen(), then the popup closes),
// Escape or a click outside closes it without a choice. Enter with no match keeps it open and
// says so. It is a Qt::Popup: it takes the keyboard while shown and never edits the document
// (the canvas adds the chosen type).
// A size: text ending in a whole number after the type words ("LIF 100") filters by the words
// and chooses the type with that size (its size setting, engine::ConfigSetting::size); the line
// under the list then says what Enter adds ("Enter adds LIF with 100 neurons"), or why it adds
// nothing (a size out of the setting's bounds, a type without a size setting).
// Invariants: the list shows exactly quickAddMatches(lineEdit text), in that order; an entry is
// current whenever the list is not empty.
// Thread: GUI thread only.
#pragma once

#include <QFrame>
#include <QString>

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

class QLabel;
class QLineEdit;
class QTreeWidget;

namespace spike::ui {

/// One module type the quick-add list can offer.
struct QuickAddEntry {
    QString type;      ///< "LIF"
    QString category;  ///< registry category, "neurons"
    QString doc;       ///< the registry's one-line doc
};

/// The palette's module types (PaletteWidget::isPaletteCategory) that match `text`, best first:
/// type names equal to it (ignoring case), then type names starting with it, then type names
/// containing it, then entries whose type, category or doc contain every whitespace-separated
/// word of it; registry order within each rank. Empty text: every type, in registry order.
std::vector<QuickAddEntry> quickAddMatches(const QString& text);

/// `text` split into the filter words and a trailing size: "LIF 100" -> ("LIF", 100). No size
/// (nullopt) when the last word is not a whole number or it is the only word; a number too large
/// for 64 bits reads as the largest one (refused by the type's bounds).
std::pair<QString, std::optional<std::int64_t>> quickAddSize(const QString& text);

/// The quick-add popup; see the file comment.
class QuickAddPopup : public QFrame {
    Q_OBJECT

public:
    /// A hidden popup (a Qt::Popup window of `parent`); popup() shows it.
    explicit QuickAddPopup(QWidget* parent = nullptr);

    /// Shows the popup with its top-left corner at global position `globalPos` (its right or
    /// bottom edge there instead when it would leave the screen), filtered by `text` (the key
    /// typed). The list is as tall as its entries (3 to 10 rows); the corner stays put.
    void popup(QPoint globalPos, const QString& text);
    /// The type of the current entry ("" when nothing matches).
    QString currentType() const;
    /// The line under the list: the current entry's doc, or why Enter added nothing.
    QString message() const;
    /// The filter field and the list (for tests).
    QLineEdit* lineEdit() const { return m_edit; }
    QTreeWidget* list() const { return m_list; }

Q_SIGNALS:
    /// The user chose `type` (Enter or a click), with `size` > 0 the size typed after it
    /// ("LIF 100"; already checked against the type's size setting), 0 for none; the popup has
    /// closed already.
    void typeChosen(const QString& type, qint64 size);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void refilter(const QString& text);
    void place();
    void choose();
    void showDocOfCurrent();
    /// With a size typed: "" when the current type takes it, else why not.
    QString sizeRefusal() const;

    QLineEdit* m_edit = nullptr;
    QTreeWidget* m_list = nullptr;
    QLabel* m_doc = nullptr;
    QPoint m_anchor;  ///< global point the popup opened at
    int m_rowHeight = 20;  ///< [px] one list row
};

}  // namespace spike::ui
