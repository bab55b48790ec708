// StartPage: the welcome page, its tiles and their layout. See start_page.hpp.
#include "ui/window/start_page.hpp"

#include "ui/document/document_file.hpp"
#include "ui/editor/palette_widget.hpp"

#include <QBoxLayout>
#include <QDir>
#include <QDragEnterEvent>
#include <QFileInfo>
#include <QGridLayout>
#include <QKeyEvent>
#include <QPainter>
#include <QPushButton>
#include <QScrollArea>
#include <QStyle>

#include <algorithm>

namespace spike::ui {

namespace {

constexpr int kMargin = 24;               // [px] around the page's content
constexpr int kCardSpacing = 16;          // [px] between cards
constexpr int kMinCardWidth = 200;        // [px] a card column is added when this much fits
constexpr int kMaxCardWidth = 300;        // [px]
constexpr int kNarrowestCard = 120;       // [px] below this the page is narrower than one card
constexpr int kRecentColumnWidth = 260;   // [px] the recent files beside the examples
constexpr int kColumnGap = 32;            // [px] between the recent files and the examples
constexpr int kTilePadding = 8;           // [px] inside a card
constexpr double kThumbnailAspect = 1.6;  // width / height of a thumbnail (320 x 200)

QColor mix(const QColor& a, const QColor& b, double t)
{
    return QColor::fromRgbF(static_cast<float>(a.redF() * (1 - t) + b.redF() * t),
                            static_cast<float>(a.greenF() * (1 - t) + b.greenF() * t),
                            static_cast<float>(a.blueF() * (1 - t) + b.blueF() * t));
}

QLabel* sectionTitle(const QString& text)
{
    auto* label = new QLabel(text);
    QFont font = label->font();
    font.setBold(true);
    font.setPointSizeF(font.pointSizeF() * 1.15);
    label->setFont(font);
    return label;
}

QLabel* wrapped(const QString& text)
{
    auto* label = new QLabel(text);
    label->setWordWrap(true);
    return label;
}

}  // namespace

// ---- ElidedLabel ------------------------------------------------------------------------------

ElidedLabel::ElidedLabel(const QString& text, Qt::TextElideMode mode, QWidget* parent)
    : QLabel(text, parent), m_mode(mode)
{
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
}

bool ElidedLabel::isElided() const
{
    return fontMetrics().horizontalAdvance(text()) > contentsRect().width();
}

QSize ElidedLabel::minimumSizeHint() const
{
    return {fontMetrics().horizontalAdvance(QStringLiteral("M…")), QLabel::minimumSizeHint().height()};
}

void ElidedLabel::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setPen(palette().color(foregroundRole()));
    const QRect r = contentsRect();
    p.drawText(r, Qt::AlignLeft | Qt::AlignVCenter, fontMetrics().elidedText(text(), m_mode, r.width()));
}

// ---- StartTile ----------------------------------------------------------------------------------

StartTile::StartTile(Kind kind, const QString& path, const QString& title, const QString& detail, QWidget* parent)
    : QAbstractButton(parent), m_kind(kind), m_path(path)
{
    setAttribute(Qt::WA_Hover);
    setCursor(Qt::PointingHandCursor);
    setFocusPolicy(Qt::StrongFocus);
    setAccessibleName(title);
    setAccessibleDescription(detail);
    auto* layout = new QVBoxLayout(this);
    QFont titleFont = font();
    titleFont.setBold(true);
    if (kind == Kind::Card) {
        layout->setContentsMargins(kTilePadding, kTilePadding, kTilePadding, kTilePadding);
        layout->setSpacing(6);
        m_image = new QLabel;
        m_image->setAlignment(Qt::AlignCenter);
        layout->addWidget(m_image);
        m_title = wrapped(title);
        m_detail = wrapped(detail);
        setToolTip(QStringLiteral("<b>%1</b><br>%2<br><i>%3</i>")
                       .arg(title.toHtmlEscaped(), detail.toHtmlEscaped(),
                            tr("Opens %1 as an untitled copy").arg(QFileInfo(path).fileName())));
    } else {
        layout->setContentsMargins(kTilePadding, 4, kTilePadding, 4);
        layout->setSpacing(0);
        m_title = new ElidedLabel(title, Qt::ElideRight);
        m_detail = new ElidedLabel(detail, Qt::ElideMiddle);
        QFont small = font();
        small.setPointSizeF(small.pointSizeF() * 0.9);
        m_detail->setFont(small);
        m_detail->setForegroundRole(QPalette::PlaceholderText);
        setToolTip(QDir::toNativeSeparators(path));
    }
    m_title->setFont(titleFont);
    for (QLabel* label : {m_title, m_detail}) {
        label->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    }
    // A card fills its grid cell (the row's tallest card), a row its column's width.
    setSizePolicy(kind == Kind::Card ? QSizePolicy::Fixed : QSizePolicy::Preferred, QSizePolicy::Preferred);
    layout->addWidget(m_title);
    layout->addWidget(m_detail);
    layout->addStretch(1);
}

void StartTile::setThumbnail(const QPixmap& picture)
{
    m_thumbnail = picture;
    if (m_kind == Kind::Card && width() > 0) {
        setCardWidth(width());
    }
}

void StartTile::setMissing(bool missing)
{
    if (m_kind != Kind::Row || missing == m_missing) {
        return;
    }
    m_missing = missing;
    m_title->setText(missing ? tr("%1 (missing)").arg(QFileInfo(m_path).fileName()) : QFileInfo(m_path).fileName());
    m_title->setForegroundRole(missing ? QPalette::PlaceholderText : QPalette::WindowText);
    setToolTip(missing ? tr("%1\nMissing: moved or deleted since it was opened").arg(QDir::toNativeSeparators(m_path))
                       : QDir::toNativeSeparators(m_path));
    update();
}

void StartTile::setCardWidth(int width)
{
    setFixedWidth(width);
    if (m_image == nullptr) {
        return;
    }
    const int inner = width - 2 * kTilePadding;
    const int height = static_cast<int>(inner / kThumbnailAspect);
    m_image->setFixedSize(inner, height);
    if (m_thumbnail.isNull()) {
        m_image->setText(tr("(no picture)"));
        m_image->setStyleSheet(QStringLiteral("background: palette(midlight)"));
        return;
    }
    const qreal dpr = devicePixelRatioF();
    QPixmap scaled = m_thumbnail.scaled(QSize(inner, height) * dpr, Qt::KeepAspectRatio, Qt::SmoothTransformation);
    scaled.setDevicePixelRatio(dpr);
    m_image->setPixmap(scaled);
}

void StartTile::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QPalette& pal = palette();
    const bool hot = underMouse() || isDown();
    const QColor highlight = pal.color(QPalette::Highlight);
    QColor fill = m_kind == Kind::Card ? pal.color(QPalette::Base) : QColor(Qt::transparent);
    if (hot) {
        fill = mix(pal.color(QPalette::Base), highlight, isDown() ? 0.25 : 0.1);
    }
    QColor edge = m_kind == Kind::Card ? pal.color(QPalette::Mid) : QColor(Qt::transparent);
    if (hasFocus()) {
        edge = highlight;
    } else if (hot) {
        edge = mix(pal.color(QPalette::Mid), highlight, 0.6);
    }
    const qreal pen = hasFocus() ? 2.0 : 1.0;
    p.setPen(QPen(edge, pen));
    p.setBrush(fill);
    p.drawRoundedRect(QRectF(rect()).adjusted(pen / 2, pen / 2, -pen / 2, -pen / 2), 6, 6);
}

void StartTile::keyPressEvent(QKeyEvent* event)
{
    if ((event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter) && event->modifiers() == Qt::NoModifier) {
        click();
        return;
    }
    QAbstractButton::keyPressEvent(event);
}

// ---- StartPage ----------------------------------------------------------------------------------

StartPage::StartPage(const DocumentFile* file, QWidget* parent) : QWidget(parent), m_file(file)
{
    setAcceptDrops(true);
    m_scroll = new QScrollArea;
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    m_content = new QWidget;
    m_content->setBackgroundRole(QPalette::Window);
    auto* content = new QVBoxLayout(m_content);
    content->setContentsMargins(kMargin, kMargin, kMargin, kMargin);
    content->setSpacing(20);
    content->addWidget(buildHeader());

    m_recentColumn = new QWidget;
    auto* recent = new QVBoxLayout(m_recentColumn);
    recent->setContentsMargins(0, 0, 0, 0);
    recent->setSpacing(6);
    recent->addWidget(sectionTitle(tr("Recent files")));
    m_noRecent = wrapped(tr("None yet: the models you open or save appear here."));
    m_noRecent->setForegroundRole(QPalette::PlaceholderText);
    recent->addWidget(m_noRecent);
    m_recentList = new QVBoxLayout;
    m_recentList->setSpacing(2);
    recent->addLayout(m_recentList);
    recent->addStretch(1);

    m_body = new QBoxLayout(QBoxLayout::TopToBottom);
    m_body->setSpacing(20);
    m_body->addWidget(m_recentColumn);
    m_body->addWidget(buildExamples(), 1);
    content->addLayout(m_body);
    content->addStretch(1);

    m_scroll->setWidget(m_content);
    m_scroll->viewport()->installEventFilter(this);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_scroll);

    if (m_file != nullptr) {
        connect(m_file, &DocumentFile::recentFilesChanged, this, &StartPage::refreshRecentFiles);
    }
    relayout();
    refreshRecentFiles();
}

QWidget* StartPage::buildHeader()
{
    auto* header = new QWidget;
    auto* layout = new QVBoxLayout(header);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(10);
    auto* title = new QLabel(tr("Welcome to SpikeStudio"));
    QFont big = title->font();
    big.setBold(true);
    big.setPointSizeF(big.pointSizeF() * 1.8);
    title->setFont(big);
    layout->addWidget(title);
    layout->addWidget(wrapped(tr("SpikeStudio builds spiking neural networks from neurons, layers and synapses on a "
                                 "canvas, runs them live and shows every spike and membrane potential as it happens.")));

    auto* buttons = new QHBoxLayout;
    buttons->setSpacing(8);
    m_new = new QPushButton(style()->standardIcon(QStyle::SP_FileIcon), tr("New network"));
    m_new->setToolTip(tr("Start an empty network: drag modules from the Palette onto the canvas"));
    m_open = new QPushButton(style()->standardIcon(QStyle::SP_DialogOpenButton), tr("Open…"));
    m_open->setToolTip(tr("Open a SpikeStudio model file (.json)"));
    for (QPushButton* b : {m_new, m_open}) {
        b->setAutoDefault(true);  // Enter and Return press it, as Space does
        b->setMinimumHeight(b->sizeHint().height() + 8);
        buttons->addWidget(b);
    }
    buttons->addStretch(1);
    connect(m_new, &QPushButton::clicked, this, &StartPage::newRequested);
    connect(m_open, &QPushButton::clicked, this, &StartPage::openRequested);
    layout->addLayout(buttons);
    return header;
}

QWidget* StartPage::buildExamples()
{
    auto* box = new QWidget;
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(6);
    layout->addWidget(sectionTitle(tr("Examples")));
    auto* hint = wrapped(tr("Each opens as an untitled copy: press Run (F5), change a parameter in the Inspector "
                            "and watch the plots answer."));
    hint->setForegroundRole(QPalette::PlaceholderText);
    layout->addWidget(hint);
    layout->addSpacing(4);
    m_grid = new QGridLayout;
    m_grid->setSpacing(kCardSpacing);
    m_grid->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    for (const ExampleModel& example : DocumentFile::examples()) {
        auto* card = new StartTile(StartTile::Kind::Card, example.path, example.title, example.summary, box);
        card->setObjectName(QStringLiteral("example.") + QFileInfo(example.path).completeBaseName());
        card->setThumbnail(QPixmap(example.thumbnail));
        connect(card, &StartTile::clicked, this, [this, path = example.path] { Q_EMIT fileRequested(path); });
        m_cards << card;
    }
    layout->addLayout(m_grid);
    layout->addStretch(1);
    return box;
}

void StartPage::refreshRecentFiles()
{
    // Rows go later, not now: this may run inside a row's own click (opening it moves it first).
    for (StartTile* row : std::as_const(m_recent)) {
        row->hide();
        m_recentList->removeWidget(row);
        row->deleteLater();
    }
    m_recent.clear();
    const QList<RecentFile> entries = m_file != nullptr ? m_file->recentFileEntries() : QList<RecentFile>{};
    for (const RecentFile& entry : entries) {
        const QFileInfo info(entry.path);
        auto* row = new StartTile(StartTile::Kind::Row, entry.path, info.fileName(),
                                  QDir::toNativeSeparators(info.absolutePath()), m_recentColumn);
        row->setMissing(!entry.exists);
        connect(row, &StartTile::clicked, this, [this, row] {
            if (!QFileInfo::exists(row->path())) {
                row->setMissing(true);
                Q_EMIT missingFileRequested(row->path());
                return;
            }
            Q_EMIT fileRequested(row->path());
        });
        m_recentList->addWidget(row);
        m_recent << row;
    }
    m_noRecent->setVisible(entries.isEmpty());
    // Tab walks the page top to bottom: the buttons, the recent files, the examples.
    QWidget* previous = m_open;
    for (StartTile* row : std::as_const(m_recent)) {
        setTabOrder(previous, row);
        previous = row;
    }
    for (StartTile* card : std::as_const(m_cards)) {
        setTabOrder(previous, card);
        previous = card;
    }
}

bool StartPage::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_scroll->viewport() && event->type() == QEvent::Resize) {
        relayout();
    }
    return QWidget::eventFilter(watched, event);
}

void StartPage::relayout()
{
    const int available = std::max(0, m_scroll->viewport()->width() - 2 * kMargin);
    // Beside the examples when they still get two card columns; above them otherwise.
    const int beside = available - kRecentColumnWidth - kColumnGap;
    const bool wide = (beside + kCardSpacing) / (kMinCardWidth + kCardSpacing) >= 2;
    const int gridWidth = wide ? beside : available;
    const int count = std::max(1, static_cast<int>(m_cards.size()));
    const int columns = std::clamp((gridWidth + kCardSpacing) / (kMinCardWidth + kCardSpacing), 1, count);
    const int cardWidth =
        std::clamp((gridWidth - (columns - 1) * kCardSpacing) / columns, kNarrowestCard, kMaxCardWidth);

    if (wide != m_wide) {
        m_wide = wide;
        m_body->setDirection(wide ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom);
        m_body->setSpacing(wide ? kColumnGap : 20);
        if (wide) {
            m_recentColumn->setFixedWidth(kRecentColumnWidth);
        } else {
            m_recentColumn->setMinimumWidth(0);
            m_recentColumn->setMaximumWidth(QWIDGETSIZE_MAX);
        }
    }
    if (columns == m_columns && cardWidth == m_cardWidth) {
        return;
    }
    m_columns = columns;
    m_cardWidth = cardWidth;
    for (StartTile* card : std::as_const(m_cards)) {
        m_grid->removeWidget(card);
    }
    for (int i = 0; i < m_cards.size(); ++i) {
        m_cards[i]->setCardWidth(cardWidth);
        m_grid->addWidget(m_cards[i], i / columns, i % columns);
    }
}

void StartPage::dragEnterEvent(QDragEnterEvent* event)
{
    if (!PaletteWidget::typeFromMime(event->mimeData()).isNull()) {
        event->acceptProposedAction();
    }
}

void StartPage::dragMoveEvent(QDragMoveEvent* event)
{
    if (!PaletteWidget::typeFromMime(event->mimeData()).isNull()) {
        event->acceptProposedAction();
    }
}

void StartPage::dropEvent(QDropEvent* event)
{
    const QString type = PaletteWidget::typeFromMime(event->mimeData());
    if (type.isNull()) {
        return;
    }
    event->acceptProposedAction();
    Q_EMIT moduleDropped(type);
}

}  // namespace spike::ui
