// PaletteWidget. See palette_widget.hpp.
#include "ui/editor/palette_widget.hpp"

#include "engine/io/module_factory.hpp"

#include <QDrag>
#include <QHash>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace spike::ui {

/// The palette's tree: its drags and its model's mimeData carry a palette payload for the
/// dragged entry, and a drag offers the copy action only. GUI thread only.
class PaletteTree : public QTreeWidget {
public:
    using QTreeWidget::QTreeWidget;

protected:
    QStringList mimeTypes() const override { return {PaletteWidget::mimeType()}; }

    QMimeData* mimeData(const QList<QTreeWidgetItem*>& items) const override
    {
        for (const QTreeWidgetItem* item : items) {
            const QString type = item->data(0, PaletteWidget::TypeRole).toString();
            if (!type.isEmpty()) {
                return PaletteWidget::mimeDataFor(type);
            }
        }
        return nullptr;
    }

    void startDrag(Qt::DropActions) override
    {
        QTreeWidgetItem* item = currentItem();
        if (item == nullptr || item->data(0, PaletteWidget::TypeRole).toString().isEmpty()) {
            return;
        }
        auto* drag = new QDrag(this);
        drag->setMimeData(PaletteWidget::mimeDataFor(item->data(0, PaletteWidget::TypeRole).toString()));
        const QRect rect = visualItemRect(item);
        if (rect.isValid()) {
            drag->setPixmap(viewport()->grab(rect));
            drag->setHotSpot(QPoint(rect.width() / 2, rect.height() / 2));
        }
        drag->exec(Qt::CopyAction, Qt::CopyAction);
    }
};

namespace {

/// Whether `field` contains `word`, ignoring case.
bool containsWord(const QString& field, const QString& word)
{
    return field.contains(word, Qt::CaseInsensitive);
}

}  // namespace

QString PaletteWidget::mimeType()
{
    return QStringLiteral("application/x-spikestudio-module-type");
}

QMimeData* PaletteWidget::mimeDataFor(const QString& type)
{
    auto* mime = new QMimeData;
    mime->setData(mimeType(), type.toUtf8());
    return mime;
}

QString PaletteWidget::typeFromMime(const QMimeData* mime)
{
    if (mime == nullptr || !mime->hasFormat(mimeType())) {
        return {};
    }
    const QString type = QString::fromUtf8(mime->data(mimeType()));
    const engine::ModuleTypeInfo* info = engine::findModuleType(type.toStdString());
    if (info == nullptr || !isPaletteCategory(QString::fromStdString(info->category))) {
        return {};
    }
    return type;
}

bool PaletteWidget::isPaletteCategory(const QString& category)
{
    return category != QLatin1String("projections");
}

QString PaletteWidget::categoryTitle(const QString& category)
{
    if (category.isEmpty()) {
        return category;
    }
    return category.left(1).toUpper() + category.mid(1);
}

PaletteWidget::PaletteWidget(QWidget* parent) : QWidget(parent)
{
    m_search = new QLineEdit(this);
    m_search->setPlaceholderText(tr("Search modules…"));
    m_search->setClearButtonEnabled(true);
    m_search->setToolTip(tr("Filter by name, category or description; Enter adds the only match, "
                            "Down moves to the list"));
    m_search->installEventFilter(this);

    m_tree = new PaletteTree(this);
    m_tree->setColumnCount(1);
    m_tree->setHeaderHidden(true);
    m_tree->setRootIsDecorated(true);
    m_tree->setUniformRowHeights(true);
    m_tree->setSelectionMode(QAbstractItemView::SingleSelection);
    m_tree->setDragEnabled(true);
    m_tree->setDragDropMode(QAbstractItemView::DragOnly);
    m_tree->setDefaultDropAction(Qt::CopyAction);
    m_tree->setTextElideMode(Qt::ElideNone);
    m_tree->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_tree->header()->setStretchLastSection(false);
    m_tree->installEventFilter(this);

    m_doc = new QLabel(this);
    m_doc->setWordWrap(true);
    m_doc->setTextFormat(Qt::PlainText);
    QPalette muted = m_doc->palette();
    muted.setColor(QPalette::WindowText, muted.color(QPalette::Disabled, QPalette::WindowText));
    m_doc->setPalette(muted);
    m_doc->setMargin(2);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_search);
    layout->addWidget(m_tree, 1);
    layout->addWidget(m_doc);

    populate();

    connect(m_search, &QLineEdit::textChanged, this, &PaletteWidget::applyFilter);
    connect(m_search, &QLineEdit::returnPressed, this, [this] {
        const QStringList types = visibleTypes();
        if (types.size() == 1) {
            Q_EMIT moduleRequested(types.front());
        }
    });
    connect(m_tree, &QTreeWidget::itemDoubleClicked, this,
            [this](QTreeWidgetItem* item, int) { request(item); });
    connect(m_tree, &QTreeWidget::currentItemChanged, this,
            [this](QTreeWidgetItem* current, QTreeWidgetItem*) { showDocOf(current); });
}

QLineEdit* PaletteWidget::searchField() const
{
    return m_search;
}

QTreeWidget* PaletteWidget::tree() const
{
    return m_tree;
}

void PaletteWidget::populate()
{
    QHash<QString, QTreeWidgetItem*> categoryItems;
    for (const engine::ModuleTypeInfo& info : engine::moduleTypes()) {
        const QString category = QString::fromStdString(info.category);
        if (!isPaletteCategory(category)) {
            continue;
        }
        QTreeWidgetItem*& categoryItem = categoryItems[category];
        if (categoryItem == nullptr) {
            categoryItem = new QTreeWidgetItem(m_tree);
            categoryItem->setText(0, categoryTitle(category));
            categoryItem->setData(0, CategoryRole, category);
            categoryItem->setFlags(Qt::ItemIsEnabled);
            QFont bold = categoryItem->font(0);
            bold.setBold(true);
            categoryItem->setFont(0, bold);
        }
        const QString type = QString::fromStdString(info.type);
        const QString doc = QString::fromStdString(info.doc);
        auto* item = new QTreeWidgetItem(categoryItem);
        item->setText(0, type);
        item->setData(0, TypeRole, type);
        item->setData(0, CategoryRole, category);
        QString tip = tr("%1 (%2)\n%3").arg(type, categoryTitle(category), doc);
        const QString starts = QString::fromStdString(engine::startValuesText(info.type));
        if (!starts.isEmpty()) {
            tip += QLatin1Char('\n') + starts;
        }
        for (const engine::ConfigSetting& setting : info.settings) {
            if (setting.size) {
                tip += tr("\nType '%1 100' on the canvas to add it with 100 %2.")
                           .arg(type, QString::fromStdString(setting.name));
            }
        }
        item->setToolTip(0, tip);
        item->setStatusTip(0, doc);
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsDragEnabled);
    }
    m_tree->expandAll();
}

void PaletteWidget::setFilter(const QString& text)
{
    if (m_search->text() != text) {
        const QSignalBlocker blocker(m_search);
        m_search->setText(text);
    }
    applyFilter(text);
}

void PaletteWidget::applyFilter(const QString& text)
{
    const QStringList words = text.simplified().split(QChar(' '), Qt::SkipEmptyParts);
    int shown = 0;
    for (int c = 0; c < m_tree->topLevelItemCount(); ++c) {
        QTreeWidgetItem* categoryItem = m_tree->topLevelItem(c);
        bool anyVisible = false;
        for (int i = 0; i < categoryItem->childCount(); ++i) {
            QTreeWidgetItem* item = categoryItem->child(i);
            const QString type = item->data(0, TypeRole).toString();
            const QString category = item->data(0, CategoryRole).toString();
            const QString doc = item->statusTip(0);
            bool match = true;
            for (const QString& word : words) {
                if (!containsWord(type, word) && !containsWord(category, word) && !containsWord(doc, word)) {
                    match = false;
                    break;
                }
            }
            item->setHidden(!match);
            anyVisible = anyVisible || match;
            shown += match ? 1 : 0;
        }
        categoryItem->setHidden(!anyVisible);
        if (anyVisible) {
            categoryItem->setExpanded(true);
        }
    }
    QTreeWidgetItem* current = m_tree->currentItem();
    if (current != nullptr && current->isHidden()) {
        m_tree->setCurrentItem(nullptr);
    }
    if (shown == 0) {
        m_doc->setText(tr("No module matches \u201c%1\u201d.").arg(text.simplified()));
    } else {
        showDocOf(m_tree->currentItem());
    }
}

QStringList PaletteWidget::visibleTypes() const
{
    QStringList types;
    for (int c = 0; c < m_tree->topLevelItemCount(); ++c) {
        const QTreeWidgetItem* categoryItem = m_tree->topLevelItem(c);
        if (categoryItem->isHidden()) {
            continue;
        }
        for (int i = 0; i < categoryItem->childCount(); ++i) {
            const QTreeWidgetItem* item = categoryItem->child(i);
            if (!item->isHidden()) {
                types << item->data(0, TypeRole).toString();
            }
        }
    }
    return types;
}

void PaletteWidget::showDocOf(const QTreeWidgetItem* item)
{
    const bool entry = item != nullptr && !item->data(0, TypeRole).toString().isEmpty();
    m_doc->setText(entry ? item->statusTip(0) : QString());
}

bool PaletteWidget::request(const QTreeWidgetItem* item)
{
    if (item == nullptr) {
        return false;
    }
    const QString type = item->data(0, TypeRole).toString();
    if (type.isEmpty()) {
        return false;
    }
    Q_EMIT moduleRequested(type);
    return true;
}

QTreeWidgetItem* PaletteWidget::firstVisibleEntry() const
{
    for (int c = 0; c < m_tree->topLevelItemCount(); ++c) {
        QTreeWidgetItem* categoryItem = m_tree->topLevelItem(c);
        if (categoryItem->isHidden()) {
            continue;
        }
        for (int i = 0; i < categoryItem->childCount(); ++i) {
            if (!categoryItem->child(i)->isHidden()) {
                return categoryItem->child(i);
            }
        }
    }
    return nullptr;
}

bool PaletteWidget::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() != QEvent::KeyPress) {
        return QWidget::eventFilter(watched, event);
    }
    const auto* key = static_cast<QKeyEvent*>(event);
    if (watched == m_search && key->key() == Qt::Key_Down && key->modifiers() == Qt::NoModifier) {
        if (QTreeWidgetItem* first = firstVisibleEntry()) {
            m_tree->setCurrentItem(first);
            m_tree->setFocus(Qt::TabFocusReason);
            return true;
        }
        return false;
    }
    if (watched == m_tree && (key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter)) {
        // Enter adds the current entry; on a category it does what the tree does (nothing or
        // toggling), never a request.
        return request(m_tree->currentItem());
    }
    return QWidget::eventFilter(watched, event);
}

}  // namespace spike::ui
