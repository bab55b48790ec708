// AttributeTable: the "Attributes" dock's read-only view of one module's attribute registry,
// one row per AttributeView in registration order (name, kind, family, shape, units, value,
// bounds). Derived attributes are grey italics with "derived" in the kind column; each row's
// tooltip is the spec's one-line doc. Holds no pointer to the module after showModule returns.
// Thread: GUI thread only.
#pragma once

#include <QTableWidget>

namespace spike::engine {
class Module;
}

namespace spike::ui {

/// Read-only table of a module's registered attributes.
class AttributeTable : public QTableWidget {
    Q_OBJECT

public:
    /// Column indices.
    enum Column {
        NameColumn = 0,
        KindColumn,
        FamilyColumn,
        ShapeColumn,
        UnitsColumn,
        ValueColumn,
        BoundsColumn,
        ColumnCount
    };
    /// Item data role (on the name column) that is true for derived attributes.
    static constexpr int DerivedRole = Qt::UserRole;

    explicit AttributeTable(QWidget* parent = nullptr);

    /// Width [px] that shows columns up to and including `last` without eliding (frame and
    /// scroll bar included); by default every column.
    int naturalWidth(int last = ColumnCount - 1) const;
    /// Fills the table from `module`'s registry; nullptr empties it.
    void showModule(const engine::Module* module);
};

}  // namespace spike::ui
