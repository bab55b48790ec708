// StartPage: what the main window's centre shows when SpikeStudio starts without a model. One
// sentence on what SpikeStudio is, "New network" and "Open…", the recent files (name and
// folder, the full path as tooltip; a file that was moved or deleted greyed with "(missing)")
// and the bundled examples as cards (thumbnail, title, one line on what it shows). A palette
// module dropped on the page asks for a new network holding it.
//
// Owns: its widgets only. It never opens a file: every choice is a signal, and the main window
// opens through the same path as its menus (MainWindow::openInteractively). The recent files
// come from a DocumentFile (read again on its recentFilesChanged and on refreshRecentFiles()),
// the examples from DocumentFile::examples().
// Layout: a scroll area (vertical only: cards shrink and wrap to the width, texts wrap or elide
// with the whole text as tooltip). Wide enough, the recent files make a column beside the
// examples; narrower, they sit above them.
// Keyboard: Tab walks New network, Open…, the recent files and the cards; Enter, Return or
// Space activates the one with the focus.
// Thread: GUI thread only.
#pragma once

#include <QAbstractButton>
#include <QLabel>
#include <QList>
#include <QString>
#include <QWidget>

class QBoxLayout;
class QGridLayout;
class QPushButton;
class QScrollArea;
class QVBoxLayout;

namespace spike::ui {

class DocumentFile;

/// A one-line label that elides its text to its width (the whole text stays in text()).
class ElidedLabel : public QLabel {
    Q_OBJECT

public:
    explicit ElidedLabel(const QString& text, Qt::TextElideMode mode, QWidget* parent = nullptr);
    /// Whether the text is cut at the current width.
    bool isElided() const;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    Qt::TextElideMode m_mode;
};

/// A clickable tile of the start page: an example card (thumbnail above title and summary) or
/// a recent-file row (name above folder). Activated by a click, Space, Enter or Return.
class StartTile : public QAbstractButton {
    Q_OBJECT

public:
    enum class Kind { Card, Row };

    /// `path` is what the tile opens; `title` its first line, `detail` the second (wrapped on
    /// a card, elided in the middle on a row).
    StartTile(Kind kind, const QString& path, const QString& title, const QString& detail,
              QWidget* parent = nullptr);

    Kind kind() const { return m_kind; }
    /// The file or resource the tile opens.
    const QString& path() const { return m_path; }
    QLabel* titleLabel() const { return m_title; }
    QLabel* detailLabel() const { return m_detail; }
    /// The card's thumbnail (nullptr on a row).
    QLabel* imageLabel() const { return m_image; }
    /// The thumbnail at full size (null when the card has none).
    const QPixmap& thumbnail() const { return m_thumbnail; }
    /// Shows `picture` above the title of a card, scaled to the card's width.
    void setThumbnail(const QPixmap& picture);
    /// Greys the row out (a recent file that no longer exists); it stays clickable.
    void setMissing(bool missing);
    bool isMissing() const { return m_missing; }
    /// Fixes a card's width (its thumbnail follows); the height follows the wrapped text.
    void setCardWidth(int width);

protected:
    void paintEvent(QPaintEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    Kind m_kind;
    QString m_path;
    QPixmap m_thumbnail;
    bool m_missing = false;
    QLabel* m_image = nullptr;
    QLabel* m_title = nullptr;
    QLabel* m_detail = nullptr;
};

/// The welcome page in the main window's centre; see the file comment.
class StartPage : public QWidget {
    Q_OBJECT

public:
    /// Lists the recent files of `file` (which must outlive the page) and the bundled examples.
    explicit StartPage(const DocumentFile* file, QWidget* parent = nullptr);

    QPushButton* newButton() const { return m_new; }
    QPushButton* openButton() const { return m_open; }
    /// One card per DocumentFile::examples() entry, in that order.
    const QList<StartTile*>& exampleCards() const { return m_cards; }
    /// One row per recent file, most recent first (missing ones included, greyed).
    const QList<StartTile*>& recentTiles() const { return m_recent; }
    QScrollArea* scrollArea() const { return m_scroll; }
    /// Whether the recent files stand in a column beside the examples (else above them).
    bool recentBesideExamples() const { return m_wide; }
    /// Reads the recent files again (whether each still exists included).
    void refreshRecentFiles();

Q_SIGNALS:
    /// "New network" was chosen.
    void newRequested();
    /// "Open…" was chosen (the caller asks which file).
    void openRequested();
    /// An example card or a recent file that exists was chosen: open `path`.
    void fileRequested(const QString& path);
    /// A recent file that no longer exists was chosen (the page stays as it is).
    void missingFileRequested(const QString& path);
    /// A palette module of `type` was dropped on the page.
    void moduleDropped(const QString& type);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dragMoveEvent(QDragMoveEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    QWidget* buildHeader();
    QWidget* buildExamples();
    /// Places the columns and the cards for the scroll area's current width.
    void relayout();

    const DocumentFile* m_file = nullptr;
    QScrollArea* m_scroll = nullptr;
    QWidget* m_content = nullptr;
    QBoxLayout* m_body = nullptr;       ///< recent files and examples: side by side or stacked
    QWidget* m_recentColumn = nullptr;
    QVBoxLayout* m_recentList = nullptr;
    QLabel* m_noRecent = nullptr;
    QGridLayout* m_grid = nullptr;      ///< the example cards
    QPushButton* m_new = nullptr;
    QPushButton* m_open = nullptr;
    QList<StartTile*> m_cards;
    QList<StartTile*> m_recent;
    int m_columns = 0;                  ///< card columns of the last relayout()
    int m_cardWidth = 0;                ///< [px] card width of the last relayout()
    bool m_wide = false;
};

}  // namespace spike::ui
