// ModuleTreeWidget: the "Modules" dock's tree of a model's modules (name, type, shape, spiking
// in/out), one item per entry of Module::namedModules(). Items hold the module's dotted path
// (Qt::UserRole of column 0), never a pointer, so a stale item can't reach a deleted module.
// Thread: GUI thread only.
#pragma once

#include <QString>
#include <QTreeWidget>

namespace spike::engine {
class Module;
}

namespace spike::ui {

/// Tree view of a module tree; emits the dotted path of the selected module.
class ModuleTreeWidget : public QTreeWidget {
    Q_OBJECT

public:
    /// Column indices.
    enum Column { NameColumn = 0, TypeColumn, ShapeColumn, SpikingColumn, ColumnCount };
    /// Item data role holding the module's dotted path ("" for the root).
    static constexpr int PathRole = Qt::UserRole;

    explicit ModuleTreeWidget(QWidget* parent = nullptr);

    /// Width [px] that shows every column without eliding (frame and scroll bar included).
    int naturalWidth() const;
    /// Rebuilds the tree from `root` (nullptr clears it). Selects nothing.
    void showModel(const engine::Module* root);
    /// Selects the item of the module at `path`; false when no such item exists.
    bool selectPath(const QString& path);
    /// Path of the selected module, or a null QString when nothing is selected.
    QString selectedPath() const;
    /// The item of the module at `path`, or nullptr.
    QTreeWidgetItem* itemForPath(const QString& path) const;

    /// "(8, 4)" for a module shape.
    static QString shapeText(const engine::Module& module);

Q_SIGNALS:
    /// The selection moved to the module at `path` ("" is the root). Emitted on the GUI thread.
    void moduleSelected(const QString& path);
};

}  // namespace spike::ui
