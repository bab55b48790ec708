// QuickAddPopup and its ranking of module types. See quick_add_popup.hpp.
// Thread: GUI thread only.
#include "ui/editor/quick_add_popup.hpp"

#include "ui/editor/palette_widget.hpp"

#include "engine/io/module_factory.hpp"
#include "engine/tensor/error.hpp"

#include <QGuiApplication>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QScreen>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <limits>

namespace spike::ui {

namespace {

constexpr int kWidth = 420;       ///< popup width [px]
constexpr int kVisibleRows = 10;  ///< rows the list shows without scrolling
constexpr int kDocLines = 3;      ///< lines kept for the doc / message under the list

/// Rank of `entry` for the filter `text` (lower is better); -1 when it does not match.
int rankOf(const QuickAddEntry& entry, const QString& text, const QStringList& words)
{
    if (entry.type.compare(text, Qt::CaseInsensitive) == 0) {
        return 0;
    }
    if (entry.type.startsWith(text, Qt::CaseInsensitive)) {
        return 1;
    }
    if (entry.type.contains(text, Qt::CaseInsensitive)) {
        return 2;
    }
    const bool all = std::all_of(words.begin(), words.end(), [&entry](const QString& word) {
        return entry.type.contains(word, Qt::CaseInsensitive) || entry.category.contains(word, Qt::CaseInsensitive)
               || entry.doc.contains(word, Qt::CaseInsensitive);
    });
    return all ? 3 : -1;
}

}  // namespace

std::pair<QString, std::optional<std::int64_t>> quickAddSize(const QString& text)
{
    QStringList words = text.simplified().split(QLatin1Char(' '), Qt::SkipEmptyParts);
    static const QRegularExpression whole(QStringLiteral("^[+-]?[0-9]+$"));
    if (words.size() < 2 || !whole.match(words.back()).hasMatch()) {
        return {text, std::nullopt};
    }
    const QString number = words.takeLast();
    bool ok = false;
    std::int64_t n = number.toLongLong(&ok);
    if (!ok) {
        n = number.startsWith(QLatin1Char('-')) ? std::numeric_limits<std::int64_t>::min()
                                                : std::numeric_limits<std::int64_t>::max();
    }
    return {words.join(QLatin1Char(' ')), n};
}

std::vector<QuickAddEntry> quickAddMatches(const QString& text)
{
    const QString needle = text.simplified();
    const QStringList words = needle.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    std::vector<std::pair<int, QuickAddEntry>> ranked;
    for (const engine::ModuleTypeInfo& info : engine::moduleTypes()) {
        QuickAddEntry entry{QString::fromStdString(info.type), QString::fromStdString(info.category),
                            QString::fromStdString(info.doc)};
        if (!PaletteWidget::isPaletteCategory(entry.category)) {
            continue;
        }
        const int rank = needle.isEmpty() ? 0 : rankOf(entry, needle, words);
        if (rank >= 0) {
            ranked.emplace_back(rank, std::move(entry));
        }
    }
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<QuickAddEntry> out;
    out.reserve(ranked.size());
    for (auto& [rank, entry] : ranked) {
        out.push_back(std::move(entry));
    }
    return out;
}

QuickAddPopup::QuickAddPopup(QWidget* parent) : QFrame(parent, Qt::Popup)
{
    setObjectName(QStringLiteral("quickAddPopup"));
    setFrameStyle(QFrame::StyledPanel | QFrame::Raised);
    setAttribute(Qt::WA_DeleteOnClose, false);

    m_edit = new QLineEdit(this);
    m_edit->setPlaceholderText(tr("Module type, category or word of its description"));
    m_edit->setToolTip(tr("Up/Down choose, Enter adds the module where you typed (a number after the name sets "
                          "its size: LIF 100), Escape closes"));
    m_edit->installEventFilter(this);

    m_list = new QTreeWidget(this);
    m_list->setColumnCount(2);
    m_list->setHeaderHidden(true);
    m_list->setRootIsDecorated(false);
    m_list->setUniformRowHeights(true);
    m_list->setSelectionMode(QAbstractItemView::SingleSelection);
    m_list->setFocusPolicy(Qt::NoFocus);  // the line edit keeps the keyboard
    m_list->setTextElideMode(Qt::ElideRight);
    m_list->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_list->header()->setStretchLastSection(true);
    m_rowHeight = m_list->fontMetrics().height() + 4;  // until a row tells its height

    m_doc = new QLabel(this);
    m_doc->setWordWrap(true);
    m_doc->setTextFormat(Qt::PlainText);
    m_doc->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    QPalette muted = m_doc->palette();
    muted.setColor(QPalette::WindowText, muted.color(QPalette::Disabled, QPalette::WindowText));
    m_doc->setPalette(muted);
    m_doc->setFixedHeight(kDocLines * m_doc->fontMetrics().lineSpacing() + 4);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(3);
    layout->addWidget(m_edit);
    layout->addWidget(m_list);
    layout->addWidget(m_doc);
    setFixedWidth(kWidth);

    connect(m_edit, &QLineEdit::textChanged, this, &QuickAddPopup::refilter);
    connect(m_list, &QTreeWidget::currentItemChanged, this, [this] { showDocOfCurrent(); });
    connect(m_list, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item) {
        m_list->setCurrentItem(item);
        choose();
    });
}

void QuickAddPopup::popup(QPoint globalPos, const QString& text)
{
    m_anchor = globalPos;
    m_edit->setText(text);
    refilter(text);  // also when the text did not change; places the popup
    show();
    raise();
    activateWindow();
    m_edit->setFocus(Qt::PopupFocusReason);
    m_edit->end(false);
}

void QuickAddPopup::place()
{
    // The list is as tall as its entries (at least a few rows, at most kVisibleRows), so the
    // popup keeps a corner at the anchor: below and right of it, or left / above when it
    // would leave the screen there.
    if (m_list->topLevelItemCount() > 0 && m_list->sizeHintForRow(0) > 0) {
        m_rowHeight = m_list->sizeHintForRow(0);  // uniform rows: the first tells them all
    }
    const int rows = std::clamp(m_list->topLevelItemCount(), 3, kVisibleRows);
    m_list->setFixedHeight(rows * m_rowHeight + 2 * m_list->frameWidth());
    adjustSize();
    const QScreen* screen = QGuiApplication::screenAt(m_anchor);
    if (screen == nullptr && parentWidget() != nullptr) {
        screen = parentWidget()->screen();
    }
    QPoint topLeft = m_anchor;
    if (screen != nullptr) {
        const QRect area = screen->availableGeometry();
        if (topLeft.x() + width() > area.right() + 1) {
            topLeft.setX(std::max(area.left(), m_anchor.x() - width()));
        }
        if (topLeft.y() + height() > area.bottom() + 1) {
            topLeft.setY(std::max(area.top(), m_anchor.y() - height()));
        }
    }
    setGeometry(QRect(topLeft, size()));  // the client area at the point (move() places the frame)
}

QString QuickAddPopup::currentType() const
{
    const QTreeWidgetItem* item = m_list->currentItem();
    return item != nullptr ? item->text(0) : QString();
}

QString QuickAddPopup::message() const
{
    return m_doc->text();
}

void QuickAddPopup::refilter(const QString& text)
{
    m_list->clear();
    const QColor grey = palette().color(QPalette::Disabled, QPalette::Text);
    for (const QuickAddEntry& entry : quickAddMatches(quickAddSize(text).first)) {
        auto* item = new QTreeWidgetItem(m_list);
        const QString category = PaletteWidget::categoryTitle(entry.category);
        item->setText(0, entry.type);
        item->setText(1, category);
        item->setForeground(1, grey);
        item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
        const QString tip = tr("%1 (%2)\n%3").arg(entry.type, category, entry.doc);
        item->setToolTip(0, tip);
        item->setToolTip(1, tip);
        item->setStatusTip(0, entry.doc);
    }
    if (m_list->topLevelItemCount() > 0) {
        m_list->setCurrentItem(m_list->topLevelItem(0));
    }
    showDocOfCurrent();
    place();
}

void QuickAddPopup::showDocOfCurrent()
{
    const QTreeWidgetItem* item = m_list->currentItem();
    const auto size = quickAddSize(m_edit->text()).second;
    if (item != nullptr && size) {
        const QString why = sizeRefusal();
        if (!why.isEmpty()) {
            m_doc->setText(why);
            return;
        }
        const engine::ModuleTypeInfo* info = engine::findModuleType(item->text(0).toStdString());
        QString setting;
        for (const engine::ConfigSetting& s : info->settings) {
            if (s.size) {
                setting = QString::fromStdString(s.name);
            }
        }
        m_doc->setText(tr("Enter adds %1 with %2 %3").arg(item->text(0)).arg(*size).arg(setting));
        return;
    }
    if (item != nullptr) {
        m_doc->setText(item->statusTip(0));
        return;
    }
    m_doc->setText(tr("No module type matches \u201c%1\u201d: try part of a type name (LIF, Linear), a category "
                      "(sources) or a word of a description. Escape closes.")
                       .arg(m_edit->text().simplified()));
}

QString QuickAddPopup::sizeRefusal() const
{
    const auto size = quickAddSize(m_edit->text()).second;
    const engine::ModuleTypeInfo* info = engine::findModuleType(currentType().toStdString());
    if (!size || info == nullptr) {
        return {};
    }
    const bool sized = std::any_of(info->settings.begin(), info->settings.end(),
                                   [](const engine::ConfigSetting& s) { return s.size; });
    if (!sized) {
        return tr("%1 has no size to set: Enter adds nothing. Remove the number to add it as it is, or set "
                  "its settings in the Inspector.")
            .arg(currentType());
    }
    try {
        (void)engine::configWithSize(info->type, *size);
    } catch (const engine::Error& e) {
        return tr("%1. Enter adds nothing.").arg(QString::fromStdString(e.what()));
    }
    return {};
}

void QuickAddPopup::choose()
{
    const QString type = currentType();
    if (type.isEmpty() || !sizeRefusal().isEmpty()) {
        showDocOfCurrent();  // says why nothing was added; the popup stays for another try
        return;
    }
    const auto size = quickAddSize(m_edit->text()).second;
    hide();
    Q_EMIT typeChosen(type, size.value_or(0));
}

bool QuickAddPopup::eventFilter(QObject* watched, QEvent* event)
{
    if (watched != m_edit || event->type() != QEvent::KeyPress) {
        return QFrame::eventFilter(watched, event);
    }
    const auto* key = static_cast<QKeyEvent*>(event);
    const int count = m_list->topLevelItemCount();
    const int row = m_list->currentItem() != nullptr ? m_list->indexOfTopLevelItem(m_list->currentItem()) : -1;
    const auto moveTo = [this, count](int target) {
        if (count > 0) {
            m_list->setCurrentItem(m_list->topLevelItem(std::clamp(target, 0, count - 1)));
        }
        return true;
    };
    switch (key->key()) {
    case Qt::Key_Down:
    case Qt::Key_Tab: return moveTo(row + 1);
    case Qt::Key_Up:
    case Qt::Key_Backtab: return moveTo(row - 1);
    case Qt::Key_PageDown: return moveTo(row + kVisibleRows);
    case Qt::Key_PageUp: return moveTo(row - kVisibleRows);
    case Qt::Key_Return:
    case Qt::Key_Enter: choose(); return true;
    case Qt::Key_Escape: hide(); return true;
    default: return QFrame::eventFilter(watched, event);
    }
}

}  // namespace spike::ui
