// AttributeTable. See attribute_table.hpp.
#include "attribute_table.hpp"

#include "engine/attribute.hpp"
#include "engine/module.hpp"

#include <QHeaderView>
#include <QScrollBar>

#include <algorithm>

#include <variant>

namespace spike::ui {

namespace {

QString shapeOf(const engine::AttributeValue& value)
{
    if (const auto* t = std::get_if<engine::Tensor>(&value)) {
        return QString::fromStdString(t->shape().toString());
    }
    return QStringLiteral("enum");
}

QString boundsOf(const engine::AttributeSpec& spec)
{
    if (spec.type == engine::ValueType::Enum) {
        QStringList choices;
        for (const auto& c : spec.choices) {
            choices << QString::fromStdString(c);
        }
        return QStringLiteral("one of ") + choices.join(QStringLiteral(", "));
    }
    QString text = QString::fromStdString(spec.bounds.toString());
    if (spec.type == engine::ValueType::Integer) {
        text = text.isEmpty() ? QStringLiteral("integer") : QStringLiteral("integer ") + text;
    } else if (spec.type == engine::ValueType::Boolean) {
        text = QStringLiteral("0 or 1");
    }
    return text;
}

}  // namespace

AttributeTable::AttributeTable(QWidget* parent) : QTableWidget(parent)
{
    setColumnCount(ColumnCount);
    setHorizontalHeaderLabels(
        {tr("Name"), tr("Kind"), tr("Family"), tr("Shape"), tr("Units"), tr("Value"), tr("Bounds")});
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setAlternatingRowColors(true);
    setWordWrap(false);
    verticalHeader()->setVisible(false);
    verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    horizontalHeader()->setStretchLastSection(true);
}

void AttributeTable::showModule(const engine::Module* module)
{
    clearContents();
    if (module == nullptr) {
        setRowCount(0);
        return;
    }
    const auto views = module->attributes();
    setRowCount(static_cast<int>(views.size()));
    const QBrush derivedBrush(QColor(128, 128, 128));  // mid grey: readable on light and dark
    for (int row = 0; row < rowCount(); ++row) {
        const engine::AttributeView& view = views[static_cast<std::size_t>(row)];
        const engine::AttributeSpec& spec = *view.spec;
        QString kind = QString::fromStdString(engine::toString(spec.kind));
        if (view.derived) {
            kind += QStringLiteral(" (derived)");
        }
        const QString texts[ColumnCount] = {
            QString::fromStdString(spec.name),
            kind,
            QString::fromStdString(spec.family),
            shapeOf(*view.value),
            QString::fromStdString(spec.units),
            QString::fromStdString(engine::describeValue(*view.value)),
            boundsOf(spec),
        };
        QString tip = QString::fromStdString(spec.doc);
        if (view.derived) {
            tip += tr("\nDerived from other attributes in the current mode (read-only).");
        }
        if (!spec.liveEditable) {
            tip += tr("\nCannot change while a simulation runs.");
        }
        for (int col = 0; col < ColumnCount; ++col) {
            auto* item = new QTableWidgetItem(texts[col]);
            item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
            item->setToolTip(tip);
            if (view.derived) {
                QFont font = item->font();
                font.setItalic(true);
                item->setFont(font);
                item->setForeground(derivedBrush);
            }
            setItem(row, col, item);
        }
        item(row, NameColumn)->setData(DerivedRole, view.derived);
    }
}

int AttributeTable::naturalWidth(int last) const
{
    int width = 2 * frameWidth() + verticalScrollBar()->sizeHint().width() + 8;
    for (int c = 0; c <= std::min(last, columnCount() - 1); ++c) {
        width += std::max(sizeHintForColumn(c), horizontalHeader()->sectionSizeHint(c));
    }
    return width;
}

}  // namespace spike::ui
