// The start page (ui/window/start_page.hpp) in a MainWindow: one card per bundled example with
// its thumbnail and its file's one-line "description" (which the loader keeps and saves back);
// real clicks and keys on the cards, "New network" and the recent files; a missing recent file is
// marked and clicking it only says so; whatever changes the document leaves the page; at 1024x700
// and 1600x1000 nothing is cut (wrapped, or elided with a tooltip) and nothing scrolls sideways;
// `spikestudio --grab` pictures the canvas or the plots. Runs with QT_QPA_PLATFORM=offscreen.
#include "tests/real_input.hpp"
#include "ui/document/document_file.hpp"
#include "ui/editor/graph_canvas.hpp"
#include "ui/editor/graph_node_item.hpp"
#include "ui/editor/palette_widget.hpp"
#include "ui/editor/quick_add_popup.hpp"
#include "ui/window/main_window.hpp"
#include "ui/window/start_page.hpp"

#include "engine/io/model_io.hpp"

#include <QAction>
#include <QFile>
#include <QImage>
#include <QLineEdit>
#include <QMenuBar>
#include <QMimeData>
#include <QProcess>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest/QtTest>

#include <memory>

using spike::ui::DocumentFile;
using spike::ui::ExampleModel;
using spike::ui::GraphNodeItem;
using spike::ui::MainWindow;
using spike::ui::NodeId;
using spike::ui::StartPage;
using spike::ui::StartTile;
using spike::tests::bringIntoView;
using spike::tests::settle;

namespace {

/// A window of `size` on the screen, active, showing the start page since before it was shown
/// (the canvas has never been laid out).
std::unique_ptr<MainWindow> windowWithStartPage(QSize size = {1024, 700})
{
    auto w = std::make_unique<MainWindow>();
    w->documentFile()->setAutosaveInterval(0);
    w->resize(size);
    w->showStartPage();  // before the window is first shown, as spikestudio does
    w->show();
    w->activateWindow();
    if (!QTest::qWaitForWindowActive(w.get())) {
        return nullptr;
    }
    settle();
    return w;
}

/// A real left click at the middle of `w`, delivered to the child under that point as a
/// person's click is (a card's label passes it on to the card).
void clickMiddle(QWidget* w)
{
    bringIntoView(w);
    const QPoint centre = w->rect().center();
    QWidget* target = w->childAt(centre);
    if (target == nullptr) {
        target = w;
    }
    QTest::mouseClick(target, Qt::LeftButton, Qt::NoModifier, target->mapFrom(w, centre));
    settle();
}

QString copyExample(const QTemporaryDir& dir, const QString& name)
{
    const QString path = dir.filePath(name);
    QFile::remove(path);
    return QFile::copy(QStringLiteral(":/examples/lif_current_step.json"), path) &&
                   QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner)
               ? path
               : QString();
}

/// Whether the word-wrapped `label` shows all its text: every word fits its width and its
/// height holds every line.
bool showsAllText(const QLabel* label)
{
    const int width = label->contentsRect().width();
    for (const QString& word : label->text().split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        if (label->fontMetrics().horizontalAdvance(word) > width) {
            return false;
        }
    }
    return label->height() >= label->heightForWidth(label->width());
}

}  // namespace

class TestStartPage : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_settings.isValid());
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("SpikeStudioTests"));
        QCoreApplication::setApplicationName(QStringLiteral("test_start_page"));
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settings.path());
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_settings.path());
    }

    void init() { QSettings().clear(); }

    void everyExampleHasACardWithThumbnailAndSummary()
    {
        const QList<ExampleModel> examples = DocumentFile::examples();
        QVERIFY2(examples.size() >= 7, "the bundled examples are missing from the resources");
        auto w = windowWithStartPage();
        QVERIFY(w);
        QVERIFY(w->startPageShown());
        const QList<StartTile*>& cards = w->startPage()->exampleCards();
        QCOMPARE(cards.size(), examples.size());
        for (int i = 0; i < examples.size(); ++i) {
            const ExampleModel& e = examples[i];
            QCOMPARE(cards[i]->path(), e.path);
            QVERIFY2(cards[i]->isVisible(), qPrintable(e.title));
            QCOMPARE(cards[i]->titleLabel()->text(), e.title);
            QVERIFY2(!e.summary.isEmpty(), qPrintable(e.path + QStringLiteral(" has no \"description\"")));
            QCOMPARE(cards[i]->detailLabel()->text(), e.summary);
            QVERIFY2(!e.summary.contains(QLatin1Char('\n')), qPrintable(e.summary));
            // The thumbnail: compiled in beside the example, 320x200, small, not blank.
            QCOMPARE(e.thumbnail, QStringLiteral(":/examples/thumbnails/%1.png")
                                      .arg(QFileInfo(e.path).completeBaseName()));
            QVERIFY2(!cards[i]->thumbnail().isNull(), qPrintable(e.thumbnail));
            QCOMPARE(cards[i]->thumbnail().size(), QSize(320, 200));
            QVERIFY2(!cards[i]->imageLabel()->pixmap().isNull(), qPrintable(e.title));
            QVERIFY2(QFileInfo(e.thumbnail).size() < 40 * 1024, qPrintable(e.thumbnail));
            const QImage image = cards[i]->thumbnail().toImage();
            QSet<QRgb> colours;
            for (int y = 0; y < image.height(); y += 4) {
                for (int x = 0; x < image.width(); x += 4) {
                    colours.insert(image.pixel(x, y));
                }
            }
            QVERIFY2(colours.size() > 8, qPrintable(e.thumbnail + QStringLiteral(" looks blank")));
        }
        // No thumbnail without an example.
        const QStringList thumbnails = QDir(QStringLiteral(":/examples/thumbnails")).entryList(QDir::Files);
        QCOMPARE(thumbnails.size(), examples.size());
    }

    void descriptionsAreKeptAndSavedBack()
    {
        // The top-level "description" is part of the model format: opened, saved and read again.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        for (const ExampleModel& e : DocumentFile::examples()) {
            spike::ui::GraphDocument doc;
            DocumentFile file(doc);
            file.setAutosaveInterval(0);
            QString error;
            QVERIFY2(file.open(e.path, &error), qPrintable(error));
            QCOMPARE(QString::fromStdString(doc.toJson().value("description", std::string())), e.summary);
            const QString saved = dir.filePath(QFileInfo(e.path).fileName());
            QVERIFY2(file.saveAs(saved, &error), qPrintable(error));
            const auto loaded = spike::engine::loadModelDocument(QFile::encodeName(saved).toStdString());
            QCOMPARE(QString::fromStdString(loaded.extras.value("description", std::string())), e.summary);
        }
        // File ▸ Examples says the same in the status bar.
        MainWindow w;
        int tips = 0;
        for (const ExampleModel& e : DocumentFile::examples()) {
            for (QAction* a : w.menuBar()->findChildren<QAction*>()) {
                if (a->data().toString() == e.path) {
                    QCOMPARE(a->statusTip(), e.summary);
                    ++tips;
                }
            }
        }
        QCOMPARE(tips, static_cast<int>(DocumentFile::examples().size()));
    }

    void clickingACardOpensItsExample()
    {
        for (const QString& name : {QStringLiteral("lif_current_step"), QStringLiteral("poisson_feedforward"),
                                    QStringLiteral("cuba_network")}) {
            auto w = windowWithStartPage();
            QVERIFY(w);
            QVERIFY(w->document()->children(w->document()->rootId()).empty());
            StartTile* card = w->startPage()->findChild<StartTile*>(QStringLiteral("example.") + name);
            QVERIFY(card != nullptr);
            clickMiddle(card);
            QVERIFY(!w->startPageShown());
            QVERIFY(w->canvas()->isVisible());
            QCOMPARE(w->modelSource(), QStringLiteral(":/examples/%1.json").arg(name));
            QVERIFY(!w->document()->children(w->document()->rootId()).empty());
            // The whole network in view, although it was loaded while the page hid the canvas.
            const QRect view = w->canvas()->viewport()->rect();
            int nodes = 0;
            for (const NodeId id : w->document()->children(w->document()->rootId())) {
                const GraphNodeItem* item = w->canvas()->nodeItem(id);
                if (item == nullptr) {
                    continue;  // a projection: drawn on its wire
                }
                ++nodes;
                const QRect shown = w->canvas()->mapFromScene(item->sceneBoundingRect()).boundingRect();
                QVERIFY2(view.contains(shown), qPrintable(QStringLiteral("%1: node at %2,%3 %4x%5 outside %6x%7")
                                                              .arg(name)
                                                              .arg(shown.x())
                                                              .arg(shown.y())
                                                              .arg(shown.width())
                                                              .arg(shown.height())
                                                              .arg(view.width())
                                                              .arg(view.height())));
            }
            QVERIFY(nodes >= 2);
        }
    }

    void cardsAnswerTheKeyboard()
    {
        auto w = windowWithStartPage();
        QVERIFY(w);
        StartPage* page = w->startPage();
        // Tab walks from Open… to the first card (no recent files here); Return opens it.
        page->openButton()->setFocus(Qt::TabFocusReason);
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
        QCOMPARE(QApplication::focusWidget(), page->exampleCards().front());
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
        QCOMPARE(QApplication::focusWidget(), page->exampleCards()[1]);
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Return);
        settle();
        QVERIFY(!w->startPageShown());
        QCOMPARE(w->modelSource(), page->exampleCards()[1]->path());
    }

    void newNetworkByClick()
    {
        auto w = windowWithStartPage();
        QVERIFY(w);
        QVERIFY(!w->canvas()->isVisible());
        clickMiddle(w->startPage()->newButton());
        QVERIFY(!w->startPageShown());
        QVERIFY(w->canvas()->isVisible());
        QVERIFY(w->document()->children(w->document()->rootId()).empty());
        QVERIFY(!w->documentFile()->isModified());
    }

    void afterNewNetworkTypingAddsAModule()
    {
        // The canvas has the keyboard once the page is left: typing a type's name and Enter
        // adds it (quick-add) without a click on the canvas first.
        auto w = windowWithStartPage();
        QVERIFY(w);
        QTest::keyClick(w->startPage()->newButton(), Qt::Key_Return);
        settle();
        QCOMPARE(QApplication::focusWidget(), static_cast<QWidget*>(w->canvas()));
        QTest::keyClicks(QApplication::focusWidget(), QStringLiteral("cuba"));
        settle();
        QVERIFY(w->canvas()->quickAddPopup() != nullptr && w->canvas()->quickAddPopup()->isVisible());
        QTest::keyClick(w->canvas()->quickAddPopup()->lineEdit(), Qt::Key_Return);
        settle();
        const auto children = w->document()->children(w->document()->rootId());
        QCOMPARE(children.size(), std::size_t{1});
        QCOMPARE(QString::fromStdString(w->document()->module(children.front())->className()), QStringLiteral("CUBALIF"));
        // File ▸ Start Page comes back to the page with the model kept behind it; Edit ▸ Add
        // Module… (Ctrl+Shift+A) leaves it for the quick-add list.
        w->action(QStringLiteral("action.startPage"))->trigger();
        QVERIFY(w->startPageShown());
        QCOMPARE(w->document()->children(w->document()->rootId()).size(), std::size_t{1});
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_A, Qt::ControlModifier | Qt::ShiftModifier);
        settle();
        QVERIFY(!w->startPageShown());
        QVERIFY(w->canvas()->quickAddPopup()->isVisible());
        QTest::keyClick(w->canvas()->quickAddPopup()->lineEdit(), Qt::Key_Escape);
        settle();
        QCOMPARE(w->document()->children(w->document()->rootId()).size(), std::size_t{1});
    }

    void newNetworkByKeyboard_data()
    {
        QTest::addColumn<int>("key");
        QTest::newRow("Return") << int(Qt::Key_Return);
        QTest::newRow("Enter") << int(Qt::Key_Enter);
        QTest::newRow("Space") << int(Qt::Key_Space);
    }

    void newNetworkByKeyboard()
    {
        QFETCH(int, key);
        auto w = windowWithStartPage();
        QVERIFY(w);
        StartPage* page = w->startPage();
        // The page opens with the focus on New network; Tab and Shift+Tab come back to it.
        QCOMPARE(QApplication::focusWidget(), page->newButton());
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
        QCOMPARE(QApplication::focusWidget(), page->openButton());
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Backtab, Qt::ShiftModifier);
        QCOMPARE(QApplication::focusWidget(), page->newButton());
        QTest::keyClick(QApplication::focusWidget(), static_cast<Qt::Key>(key));
        settle();
        QVERIFY(!w->startPageShown());
        QVERIFY(w->canvas()->isVisible());
        QVERIFY(w->document()->children(w->document()->rootId()).empty());
    }

    void recentFilesInOrderAndMissingOnesMarked()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString first = copyExample(dir, QStringLiteral("first.json"));
        const QString gone = copyExample(dir, QStringLiteral("gone.json"));
        const QString third = copyExample(dir, QStringLiteral("third.json"));
        QVERIFY(!first.isEmpty() && !gone.isEmpty() && !third.isEmpty());
        QSettings().setValue(QStringLiteral("recentFiles"), QStringList{first, gone, third});
        QVERIFY(QFile::remove(gone));

        auto w = windowWithStartPage();
        QVERIFY(w);
        const QList<StartTile*> rows = w->startPage()->recentTiles();
        QCOMPARE(rows.size(), 3);
        QCOMPARE(rows[0]->path(), first);
        QCOMPARE(rows[1]->path(), gone);
        QCOMPARE(rows[2]->path(), third);
        QVERIFY(!rows[0]->isMissing());
        QVERIFY(rows[1]->isMissing());
        QVERIFY(!rows[2]->isMissing());
        QCOMPARE(rows[1]->titleLabel()->text(), QStringLiteral("gone.json (missing)"));
        QCOMPARE(rows[0]->titleLabel()->text(), QStringLiteral("first.json"));
        QCOMPARE(rows[0]->detailLabel()->text(), QDir::toNativeSeparators(dir.path()));
        QVERIFY(rows[0]->toolTip().contains(QDir::toNativeSeparators(first)));
        QVERIFY(rows[1]->toolTip().contains(QStringLiteral("Missing")));
        // The File menu lists only the files that exist.
        QCOMPARE(w->documentFile()->recentFiles(), (QStringList{first, third}));

        // A missing one: the status bar says so, the page and the document stay.
        clickMiddle(rows[1]);
        QVERIFY(w->startPageShown());
        QVERIFY(w->statusBar()->currentMessage().contains(QStringLiteral("missing")));
        QVERIFY(w->statusBar()->currentMessage().contains(QDir::toNativeSeparators(gone)));
        QVERIFY(w->document()->children(w->document()->rootId()).empty());

        // One that went missing after the page was built: found out on the click.
        QVERIFY(QFile::remove(third));
        QVERIFY(!rows[2]->isMissing());
        clickMiddle(rows[2]);
        QVERIFY(w->startPageShown());
        QVERIFY(rows[2]->isMissing());

        // One that exists opens, through the menus' path (it moves first in the list).
        clickMiddle(rows[0]);
        QVERIFY(!w->startPageShown());
        QCOMPARE(w->documentFile()->filePath(), first);
        QVERIFY(!w->document()->children(w->document()->rootId()).empty());
        settle();  // the page's old rows go (later: one of them was being clicked)
        QCOMPARE(w->startPage()->recentTiles().size(), 3);
        QCOMPARE(w->startPage()->recentTiles().front()->path(), first);
    }

    void editsAndDropsLeaveThePage()
    {
        // A double-click in the palette adds a module: the canvas shows it.
        {
            auto w = windowWithStartPage();
            QVERIFY(w);
            QTreeWidget* tree = w->palette()->tree();
            const QList<QTreeWidgetItem*> items = tree->findItems(QStringLiteral("LIF"), Qt::MatchExactly | Qt::MatchRecursive);
            QVERIFY(!items.isEmpty());
            tree->scrollToItem(items.front());
            const QPoint at = tree->visualItemRect(items.front()).center();
            // What the window system sends for a double-click: press, release, double-click, release.
            QTest::mousePress(tree->viewport(), Qt::LeftButton, Qt::NoModifier, at);
            QTest::mouseRelease(tree->viewport(), Qt::LeftButton, Qt::NoModifier, at);
            QTest::mouseDClick(tree->viewport(), Qt::LeftButton, Qt::NoModifier, at);
            QTest::mouseRelease(tree->viewport(), Qt::LeftButton, Qt::NoModifier, at);
            settle();
            QVERIFY(!w->startPageShown());
            QCOMPARE(w->document()->children(w->document()->rootId()).size(), std::size_t{1});
        }
        // A palette module dropped on the page.
        {
            auto w = windowWithStartPage();
            QVERIFY(w);
            StartPage* page = w->startPage();
            std::unique_ptr<QMimeData> mime(spike::ui::PaletteWidget::mimeDataFor(QStringLiteral("LIF")));
            const QPointF at = QPointF(page->rect().center());
            QDragEnterEvent enter(at.toPoint(), Qt::CopyAction, mime.get(), Qt::LeftButton, Qt::NoModifier);
            QApplication::sendEvent(page, &enter);
            QVERIFY(enter.isAccepted());
            QDropEvent drop(at, Qt::CopyAction, mime.get(), Qt::LeftButton, Qt::NoModifier);
            QApplication::sendEvent(page, &drop);
            settle();
            QVERIFY(!w->startPageShown());
            QCOMPARE(w->document()->children(w->document()->rootId()).size(), std::size_t{1});
            // Something that is not a palette module is refused.
            w->showStartPage();
            QMimeData text;
            text.setText(QStringLiteral("LIF"));
            QDragEnterEvent other(at.toPoint(), Qt::CopyAction, &text, Qt::LeftButton, Qt::NoModifier);
            other.setAccepted(false);
            QApplication::sendEvent(page, &other);
            QVERIFY(!other.isAccepted());
        }
        // Opening a model through the API leaves it too.
        {
            auto w = windowWithStartPage();
            QVERIFY(w);
            QVERIFY(w->openModel(QStringLiteral(":/examples/two_layer_lif.json")));
            QVERIFY(!w->startPageShown());
        }
    }

    void nothingCutAtEitherSize_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1024x700") << QSize(1024, 700);
        QTest::newRow("1600x1000") << QSize(1600, 1000);
    }

    void nothingCutAtEitherSize()
    {
        QFETCH(QSize, size);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString longName =
            copyExample(dir, QStringLiteral("a_model_with_a_rather_long_file_name_that_cannot_fit_in_the_column.json"));
        QVERIFY(!longName.isEmpty());
        QSettings().setValue(QStringLiteral("recentFiles"), QStringList{longName});
        auto w = windowWithStartPage(size);
        QVERIFY(w);
        StartPage* page = w->startPage();
        QScrollArea* scroll = page->scrollArea();
        QVERIFY(!scroll->horizontalScrollBar()->isVisible());
        QWidget* content = scroll->widget();
        QVERIFY2(content->width() <= scroll->viewport()->width(), qPrintable(QStringLiteral("%1 > %2")
                                                                              .arg(content->width())
                                                                              .arg(scroll->viewport()->width())));
        for (StartTile* card : page->exampleCards()) {
            const QRect inContent(card->mapTo(content, QPoint(0, 0)), card->size());
            QVERIFY2(content->rect().contains(inContent), qPrintable(card->titleLabel()->text()));
            QVERIFY2(showsAllText(card->titleLabel()), qPrintable(card->titleLabel()->text()));
            QVERIFY2(showsAllText(card->detailLabel()), qPrintable(card->detailLabel()->text()));
            QVERIFY(card->toolTip().contains(card->titleLabel()->text().toHtmlEscaped()));
            // The thumbnail keeps the picture's proportions.
            const QSize shown = card->imageLabel()->size();
            QVERIFY(std::abs(shown.width() * 200 - shown.height() * 320) <= 320);
        }
        // A recent file's name is elided, and its row's tooltip has the whole path.
        QCOMPARE(page->recentTiles().size(), 1);
        StartTile* row = page->recentTiles().front();
        auto* name = qobject_cast<spike::ui::ElidedLabel*>(row->titleLabel());
        QVERIFY(name != nullptr);
        QVERIFY(name->isElided());
        QVERIFY(row->toolTip().contains(QDir::toNativeSeparators(longName)));
        const QRect rowInContent(row->mapTo(content, QPoint(0, 0)), row->size());
        QVERIFY(content->rect().contains(rowInContent));
        // Too many cards for the height: the page scrolls, and the last card can be reached.
        StartTile* last = page->exampleCards().back();
        bringIntoView(last);
        QVERIFY(last->visibleRegion().boundingRect().height() == last->height());
    }

    void screenshotPartsOfTheWindow()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString out = dir.filePath(QStringLiteral("plots.png"));
        QProcess p;
        p.start(QStringLiteral(SPIKESTUDIO_PATH), {QStringLiteral("--size"), QStringLiteral("1280x800"),
                                                   QStringLiteral("--grab"), QStringLiteral("plots"),
                                                   QStringLiteral("--screenshot"), out,
                                                   QStringLiteral(":/examples/lif_current_step.json")});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        const QImage plots(out);
        QVERIFY(!plots.isNull());
        QVERIFY(plots.width() < 1280 && plots.height() < 800);

        p.start(QStringLiteral(SPIKESTUDIO_PATH), {QStringLiteral("--grab"), QStringLiteral("inspector"),
                                                   QStringLiteral("--screenshot"), out});
        QVERIFY(p.waitForFinished(60000));
        QVERIFY(p.exitCode() != 0);
        QVERIFY(QString::fromUtf8(p.readAllStandardError()).contains(QStringLiteral("--grab expects window, canvas or plots")));
    }

private:
    QTemporaryDir m_settings;
};

QTEST_MAIN(TestStartPage)
#include "test_start_page.moc"
