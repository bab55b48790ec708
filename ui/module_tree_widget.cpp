// ModuleTreeWidget. See module_tree_widget.hpp.
#include "module_tree_widget.hpp"

#include "engine/module.hpp"

#include <QHash>
#include <QHeaderView>
#include <QScrollBar>

#include <algorithm>

namespace spike::ui {

namespace {

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

}  // namespace

ModuleTreeWidget::ModuleTreeWidget(QWidget* parent) : QTreeWidget(parent)
{
    setColumnCount(ColumnCount);
    setHeaderLabels({tr("Module"), tr("Type"), tr("Shape"), tr("Spiking")});
    headerItem()->setToolTip(NameColumn, tr("Name within the parent; the tooltip shows the path"));
    headerItem()->setToolTip(ShapeColumn, tr("(Nin, Nout), or (N,) when Nin equals Nout"));
    headerItem()->setToolTip(SpikingColumn, tr("Spiking in/out: whether the module takes spikes (in) and emits them (out)"));
    setSelectionMode(QAbstractItemView::SingleSelection);
    setUniformRowHeights(true);
    setAlternatingRowColors(true);
    header()->setStretchLastSection(false);
    header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    connect(this, &QTreeWidget::currentItemChanged, this,
            [this](QTreeWidgetItem* current, QTreeWidgetItem*) {
                if (current != nullptr) {
                    Q_EMIT moduleSelected(current->data(NameColumn, PathRole).toString());
                }
            });
}

QString ModuleTreeWidget::shapeText(const engine::Module& module)
{
    const auto& shape = module.shape();
    if (shape.size() == 1) {
        return QStringLiteral("(%1,)").arg(shape.front());
    }
    QStringList parts;
    for (const auto d : shape) {
        parts << QString::number(d);
    }
    return QStringLiteral("(") + parts.join(QStringLiteral(", ")) + QStringLiteral(")");
}

void ModuleTreeWidget::showModel(const engine::Module* root)
{
    clear();
    if (root == nullptr) {
        return;
    }
    QHash<QString, QTreeWidgetItem*> byPath;
    for (const auto& [pathStd, module] : root->namedModules()) {
        const QString path = QString::fromStdString(pathStd);
        const qsizetype dot = path.lastIndexOf(QLatin1Char('.'));
        QTreeWidgetItem* parentItem = path.isEmpty() ? nullptr : byPath.value(dot < 0 ? QString() : path.left(dot));
        auto* item = parentItem != nullptr ? new QTreeWidgetItem(parentItem)
                                           : new QTreeWidgetItem(this);
        const QString name = path.isEmpty() ? tr("(root)") : QString::fromStdString(module->name());
        item->setText(NameColumn, name);
        item->setData(NameColumn, PathRole, path);
        item->setToolTip(NameColumn, path.isEmpty() ? tr("root module") : tr("path: %1").arg(path));
        item->setText(TypeColumn, QString::fromStdString(module->className()));
        item->setText(ShapeColumn, shapeText(*module));
        item->setText(SpikingColumn, spikingText(*module));
        byPath.insert(path, item);
    }
    expandAll();
}

QTreeWidgetItem* ModuleTreeWidget::itemForPath(const QString& path) const
{
    for (QTreeWidgetItemIterator it(const_cast<ModuleTreeWidget*>(this)); *it != nullptr; ++it) {
        if ((*it)->data(NameColumn, PathRole).toString() == path) {
            return *it;
        }
    }
    return nullptr;
}

bool ModuleTreeWidget::selectPath(const QString& path)
{
    QTreeWidgetItem* item = itemForPath(path);
    if (item == nullptr) {
        return false;
    }
    setCurrentItem(item);
    return true;
}

QString ModuleTreeWidget::selectedPath() const
{
    const QTreeWidgetItem* item = currentItem();
    return item != nullptr ? item->data(NameColumn, PathRole).toString() : QString();
}

int ModuleTreeWidget::naturalWidth() const
{
    int width = 2 * frameWidth() + verticalScrollBar()->sizeHint().width() + 8;
    for (int c = 0; c < columnCount(); ++c) {
        width += std::max(sizeHintForColumn(c), header()->sectionSizeHint(c));
    }
    return width;
}

}  // namespace spike::ui
