// MainWindow, what stays put: the selection of the canvas, the Modules tree and the inspector
// agree after every real click (plain and ctrl, on nodes, tree rows and empty space, across
// nesting levels); the window's geometry and dock arrangement come back in the next session
// (QSettings) and View ▸ Reset Layout restores the default; the first start fits the screen;
// the work layouts (Edit / Run / Analyse) give the plots room at a laptop's 1024x700, a run
// grows them and Reset gives the canvas back; `spikestudio --size WxH --screenshot` takes that
// size. Runs with QT_QPA_PLATFORM=offscreen.
#include "tests/graph_test_models.hpp"
#include "tests/real_input.hpp"
#include "ui/editor/document_tree.hpp"
#include "ui/editor/graph_canvas.hpp"
#include "ui/editor/graph_node_item.hpp"
#include "ui/inspector/inspector.hpp"
#include "ui/plots/plot_panes.hpp"
#include "ui/plots/raster_plot.hpp"
#include "ui/plots/trace_plot.hpp"
#include "ui/window/main_window.hpp"

#include <QDockWidget>
#include <QImage>
#include <QLabel>
#include <QScrollArea>
#include <QProcess>
#include <QScrollBar>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QToolButton>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <random>

using spike::ui::MainWindow;
using spike::ui::NodeId;

namespace {

/// A root network holding "A" (LIF) and "inner" (the sample graph: drive, E, I, bias, L).
QByteArray nestedModel()
{
    nlohmann::json inner = spike::tests::sampleGraphModel()["model"];
    inner["name"] = "inner";
    nlohmann::json model{{"type", "Network"}};
    model["children"] = nlohmann::json::array(
        {inner, {{"name", "A"}, {"type", "LIF"}, {"config", {{"shape", {3, 3}}}}}});
    const nlohmann::json root{{"format", "spikestudio.model"}, {"version", 1}, {"model", model}};
    return QByteArray::fromStdString(root.dump());
}

QList<NodeId> sorted(QList<NodeId> nodes)
{
    std::sort(nodes.begin(), nodes.end());
    return nodes;
}

void clickNode(MainWindow& w, NodeId id, Qt::KeyboardModifiers modifiers = Qt::NoModifier)
{
    spike::ui::GraphCanvas* canvas = w.canvas();
    const spike::ui::GraphNodeItem* item = canvas->nodeItem(id);
    QVERIFY(item != nullptr);
    canvas->ensureVisible(item);
    const QPointF header = item->mapToScene(QPointF(spike::ui::GraphNodeItem::kWidth * 0.5, 8.0));
    QTest::mouseClick(canvas->viewport(), Qt::LeftButton, modifiers, canvas->mapFromScene(header));
}

void clickRow(MainWindow& w, NodeId id, Qt::KeyboardModifiers modifiers = Qt::NoModifier)
{
    spike::ui::DocumentTree* tree = w.moduleTree();
    QTreeWidgetItem* item = tree->itemFor(id);
    QVERIFY(item != nullptr);
    tree->scrollToItem(item);
    QTest::mouseClick(tree->viewport(), Qt::LeftButton, modifiers, tree->visualItemRect(item).center());
}

/// A point of the canvas with no node under it.
void clickEmptyCanvas(MainWindow& w)
{
    spike::ui::GraphCanvas* canvas = w.canvas();
    const QRect r = canvas->viewport()->rect();
    for (int y = r.bottom() - 4; y > r.top(); y -= 7) {
        for (int x = r.right() - 4; x > r.left(); x -= 7) {
            if (canvas->itemAt(QPoint(x, y)) == nullptr) {
                QTest::mouseClick(canvas->viewport(), Qt::LeftButton, Qt::NoModifier, QPoint(x, y));
                return;
            }
        }
    }
    QFAIL("no empty point on the canvas");
}

/// Canvas, tree and inspector agree: the same nodes selected, and the inspector shows one of
/// them (`expected` when given), or the canvas's network when none is selected.
void checkAgreement(MainWindow& w, NodeId expected = {})
{
    const QList<NodeId> canvas = sorted(w.canvas()->selectedNodes());
    QCOMPARE(sorted(w.moduleTree()->selectedNodes()), canvas);
    const NodeId shown = w.inspector()->node();
    if (canvas.isEmpty()) {
        QCOMPARE(shown, w.canvas()->network());
    } else {
        QVERIFY(canvas.contains(shown));
    }
    if (expected.valid()) {
        QCOMPARE(shown, expected);
    }
}

}  // namespace

/// checkAgreement() that stops the test at the line that found the disagreement.
#define AGREE(...)                                                                                 \
    do {                                                                                           \
        checkAgreement(__VA_ARGS__);                                                               \
        if (QTest::currentTestFailed()) {                                                          \
            QFAIL(qPrintable(QStringLiteral("disagreement found at line %1").arg(__LINE__)));     \
        }                                                                                          \
    } while (false)

class TestMainWindowLayout : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("SpikeStudioTests"));
        QCoreApplication::setApplicationName(QStringLiteral("test_main_window_layout"));
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settings.path());
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_settings.path());
    }

    void init() { QSettings().clear(); }

    void selectionAgreesAfterEveryClick()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QString error;
        QVERIFY2(w.openModelFromJson(nestedModel(), QStringLiteral("nested.json"), &error), qPrintable(error));
        const NodeId a = w.document()->findNode("A");
        const NodeId inner = w.document()->findNode("inner");
        const NodeId e = w.document()->findNode("inner.E");
        const NodeId i = w.document()->findNode("inner.I");
        const NodeId l = w.document()->findNode("inner.L");
        // Into the nested network from the tree: the canvas shows it with E selected.
        // A model opens on its root, with the node that holds the first membrane selected.
        QCOMPARE(w.canvas()->network(), w.document()->rootId());
        AGREE(w, inner);
        clickRow(w, e);
        QCOMPARE(w.canvas()->network(), inner);
        AGREE(w, e);
        // Ctrl-click adds a node, and the inspector follows the node just picked, whatever
        // its place in the document; a ctrl-click that takes one away keeps the other.
        clickNode(w, i, Qt::ControlModifier);
        QCOMPARE(sorted(w.canvas()->selectedNodes()), sorted({e, i}));
        AGREE(w, i);
        clickNode(w, l, Qt::ControlModifier);
        AGREE(w, l);
        clickNode(w, l, Qt::ControlModifier);
        AGREE(w, i);
        clickRow(w, e, Qt::ControlModifier);
        AGREE(w, i);
        // Clicking empty canvas selects nothing: the inspector shows the network itself.
        clickEmptyCanvas(w);
        QVERIFY(w.canvas()->selectedNodes().isEmpty());
        AGREE(w, inner);
        // A tree selection across two levels keeps what the canvas can show.
        clickRow(w, a);
        QCOMPARE(w.canvas()->network(), w.document()->rootId());
        AGREE(w, a);
        clickRow(w, l, Qt::ControlModifier);
        AGREE(w, l);
        QCOMPARE(w.canvas()->network(), inner);

        // Then a long random walk of clicks, checked after each one.
        std::mt19937 rng(16);
        const std::vector<NodeId> nodes{a, inner, e, i, l, w.document()->findNode("inner.drive"),
                                        w.document()->findNode("inner.bias")};
        for (int k = 0; k < 150; ++k) {
            const NodeId target = nodes[rng() % nodes.size()];
            const Qt::KeyboardModifiers mods = rng() % 3 == 0 ? Qt::ControlModifier : Qt::NoModifier;
            const NodeId before = w.inspector()->node();
            switch (rng() % 4) {
            case 0:
                clickEmptyCanvas(w);
                break;
            case 1:
                if (w.canvas()->nodeItem(target) != nullptr) {
                    clickNode(w, target, mods);
                    break;
                }
                [[fallthrough]];
            default:
                clickRow(w, target, mods);
                break;
            }
            checkAgreement(w);
            if (QTest::currentTestFailed()) {
                qWarning("after click %d (inspector showed node %llu before)", k,
                         static_cast<unsigned long long>(before.value));
                return;
            }
        }
    }

    void windowStateComesBackAndResetRestoresTheDefault()
    {
        QByteArray defaultDocks;
        {
            MainWindow first;
            QVERIFY(!first.restoreWindowState());  // first start: nothing saved
            first.resize(1200, 800);
            first.show();
            QVERIFY(QTest::qWaitForWindowExposed(&first));
            defaultDocks = first.saveState();
            // The user hides the palette, moves the inspector to the left and drags the split.
            first.findChild<QDockWidget*>(QStringLiteral("paletteDock"))->hide();
            first.addDockWidget(Qt::LeftDockWidgetArea, first.findChild<QDockWidget*>(QStringLiteral("inspectorDock")));
            auto* split = first.findChild<QSplitter*>();
            split->setSizes({200, 500});
            first.close();  // saves
        }
        MainWindow second;
        QVERIFY(second.restoreWindowState());
        second.show();
        QVERIFY(QTest::qWaitForWindowExposed(&second));
        auto* palette = second.findChild<QDockWidget*>(QStringLiteral("paletteDock"));
        auto* inspector = second.findChild<QDockWidget*>(QStringLiteral("inspectorDock"));
        QVERIFY(!palette->isVisible());
        QCOMPARE(second.dockWidgetArea(inspector), Qt::LeftDockWidgetArea);
        QCOMPARE(second.size(), QSize(1200, 800));
        const QList<int> sizes = second.findChild<QSplitter*>()->sizes();
        QVERIFY2(sizes[0] < sizes[1], "the plots keep the larger share the user gave them");

        // View ▸ Reset Layout, through the menu's action.
        second.action(QStringLiteral("action.resetLayout"))->trigger();
        QVERIFY(palette->isVisible());
        QCOMPARE(second.dockWidgetArea(inspector), Qt::RightDockWidgetArea);
        QVERIFY(!inspector->isFloating());
        const QList<int> reset = second.findChild<QSplitter*>()->sizes();
        QVERIFY2(reset[0] > reset[1], "the canvas has the larger share again");
    }

    void firstStartFitsTheScreen()
    {
        MainWindow w;
        const QSize size = w.defaultSize();
        QVERIFY(size.width() <= 1400 && size.height() <= 900);
        const QSize screen = w.screen()->availableGeometry().size();
        QVERIFY2(size.width() <= screen.width() && size.height() <= screen.height(),
                 qPrintable(QStringLiteral("%1x%2 on a %3x%4 screen")
                                .arg(size.width()).arg(size.height()).arg(screen.width()).arg(screen.height())));
    }

    void inspectorFitsItsDock()
    {
        // At a laptop's 1024x700 and at 1600x1000, every module of every example: the rows fit
        // the dock's width (no sideways scrolling, nothing cut), names elide, bounds wrap.
        for (const QSize size : {QSize(1024, 700), QSize(1600, 1000)}) {
            MainWindow w;
            w.resize(size);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            auto* scroll = w.inspector()->findChild<QScrollArea*>();
            QVERIFY(scroll != nullptr);
            for (const QString& example : spike::tests::bundledExamples()) {
                QVERIFY(w.openModel(example));
                for (const auto& [path, module] : w.model()->namedModules()) {
                    QVERIFY(w.selectModule(QString::fromStdString(path)));
                    QApplication::processEvents();
                    // Open every array's details (histogram or heat map, table, actions).
                    for (QToolButton* expand : scroll->widget()->findChildren<QToolButton*>()) {
                        if (expand->isCheckable() && expand->isVisible() && !expand->isChecked()) {
                            QTest::mouseClick(expand, Qt::LeftButton);
                        }
                    }
                    QApplication::processEvents();
                    const int needed = scroll->widget()->minimumSizeHint().width();
                    QVERIFY2(needed <= scroll->viewport()->width(),
                             qPrintable(QStringLiteral("%1x%2, %3 '%4': rows need %5 px, the dock gives %6")
                                            .arg(size.width()).arg(size.height()).arg(example)
                                            .arg(QString::fromStdString(path)).arg(needed)
                                            .arg(scroll->viewport()->width())));
                }
            }
            // Bounds read as numbers people write: 2^24, not 1.677722e+07.
            QVERIFY(w.openModel(QStringLiteral(":/examples/lif_current_step.json")));
            QVERIFY(w.selectModule(QStringLiteral("lif")));
            // Paused after a long run (the States title names the time): still no overflow.
            QVERIFY(w.runSteps(36000));
            QTRY_COMPARE(w.simulatedSteps(), std::int64_t{36000});
            QTRY_VERIFY(w.inspector()->statesTitle().contains(QStringLiteral("paused")));
            QApplication::processEvents();
            QVERIFY2(scroll->widget()->minimumSizeHint().width() <= scroll->viewport()->width(),
                     qPrintable(QStringLiteral("paused: rows need %1 px, the dock gives %2")
                                    .arg(scroll->widget()->minimumSizeHint().width())
                                    .arg(scroll->viewport()->width())));
            bool found = false;
            for (const QLabel* label : w.inspector()->findChildren<QLabel*>()) {
                found = found || label->text().startsWith(QStringLiteral("integer in [1, 16777216]"));
            }
            QVERIFY(found);
        }
    }

    void workLayoutsGiveThePlotsRoom()
    {
        using Layout = MainWindow::WorkLayout;
        const auto press = [](MainWindow& w, int key, Qt::KeyboardModifiers modifiers = Qt::NoModifier) {
            QTest::keyClick(&w, static_cast<Qt::Key>(key), modifiers);
            QApplication::processEvents();
        };
        const auto shares = [](MainWindow& w) {
            const QList<int> sizes = w.findChild<QSplitter*>()->sizes();
            return std::make_pair(sizes[0], sizes[1]);  // canvas, plots
        };
        // Every cell of the plot area (the raster, each trace pane) readable: at least the
        // minimum size, no sideways scrolling.
        const auto checkCells = [](MainWindow& w, const QString& when) {
            spike::ui::PlotPanes* panes = w.plotPanes();
            QList<QWidget*> cells;
            if (panes->isRasterShown()) {
                cells << panes->raster();
            }
            for (int key : panes->paneKeys()) {
                if (panes->isPaneShown(key)) {
                    cells << panes->tracePane(key);
                }
            }
            QVERIFY2(cells.size() >= 3, qPrintable(when));
            for (QWidget* cell : cells) {
                QVERIFY2(cell->width() >= spike::ui::PlotPanes::kMinPaneWidth - 20 &&
                             cell->height() >= spike::ui::PlotPanes::kMinPaneHeight,
                         qPrintable(QStringLiteral("%1: a %2x%3 cell").arg(when).arg(cell->width()).arg(cell->height())));
            }
            auto* scroll = panes->findChild<QScrollArea*>(QStringLiteral("plotPanesScroll"));
            QVERIFY2(!scroll->horizontalScrollBar()->isVisible(), qPrintable(when));
        };

        MainWindow w;
        w.resize(1024, 700);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QApplication::setActiveWindow(&w);
        QVERIFY(w.openModel(QStringLiteral(":/examples/lif_vs_lifrefrac.json")));
        QApplication::processEvents();
        auto* palette = w.findChild<QDockWidget*>(QStringLiteral("paletteDock"));
        auto* inspector = w.findChild<QDockWidget*>(QStringLiteral("inspectorDock"));
        QCOMPARE(w.workLayout(), Layout::Edit);
        QVERIFY(shares(w).first > shares(w).second);

        // F5 starts a run: the plots grow (Run layout), the inspector stays for live edits.
        press(w, Qt::Key_F5);
        QTRY_VERIFY(w.isRunning());
        QCOMPARE(w.workLayout(), Layout::Run);
        QTRY_VERIFY(w.simulatedSteps() > 50);
        QVERIFY(!palette->isVisible());
        QVERIFY(inspector->isVisible());
        QVERIFY2(shares(w).second > 2 * shares(w).first, "the plots have most of the centre");
        checkCells(w, QStringLiteral("running, 1024x700"));
        press(w, Qt::Key_F5);  // pause
        QTRY_VERIFY(!w.isRunning());

        // Reset (Ctrl+R) gives the canvas back: the switch was automatic.
        press(w, Qt::Key_R, Qt::ControlModifier);
        QCOMPARE(w.workLayout(), Layout::Edit);
        QVERIFY(palette->isVisible());
        QVERIFY(shares(w).first > shares(w).second);

        // Ctrl+3: plots only; Ctrl+1: back to editing.
        press(w, Qt::Key_3, Qt::ControlModifier);
        QCOMPARE(w.workLayout(), Layout::Analyse);
        QVERIFY(!palette->isVisible() && !inspector->isVisible());
        QVERIFY(shares(w).second > 5 * shares(w).first);
        checkCells(w, QStringLiteral("analyse, 1024x700"));
        press(w, Qt::Key_1, Qt::ControlModifier);
        QCOMPARE(w.workLayout(), Layout::Edit);
        QVERIFY(palette->isVisible() && inspector->isVisible());

        // A layout the user picks stays when a run starts and after Reset...
        press(w, Qt::Key_2, Qt::ControlModifier);
        const QList<int> picked{150, shares(w).first + shares(w).second - 150};
        w.findChild<QSplitter*>()->setSizes(picked);
        press(w, Qt::Key_F10);  // one step
        QTRY_VERIFY(w.simulatedSteps() > 0);
        press(w, Qt::Key_R, Qt::ControlModifier);
        QCOMPARE(w.workLayout(), Layout::Run);
        // ... and each layout's split comes back as the user left it.
        press(w, Qt::Key_1, Qt::ControlModifier);
        press(w, Qt::Key_2, Qt::ControlModifier);
        QCOMPARE(shares(w).first, 150);

        // With growing switched off, a run leaves the Edit layout alone.
        press(w, Qt::Key_1, Qt::ControlModifier);
        QAction* grow = w.findChild<QAction*>(QStringLiteral("action.layout.growPlots"));
        QVERIFY(grow != nullptr && grow->isChecked());
        grow->trigger();
        QVERIFY(!w.growsPlotsOnRun());
        press(w, Qt::Key_F10);
        QTRY_VERIFY(w.simulatedSteps() > 0);
        QCOMPARE(w.workLayout(), Layout::Edit);

        // The chosen layout and the option come back in the next session.
        press(w, Qt::Key_3, Qt::ControlModifier);
        w.close();
        MainWindow next;
        QVERIFY(next.restoreWindowState());
        QCOMPARE(next.workLayout(), Layout::Analyse);
        QVERIFY(!next.growsPlotsOnRun());
        QVERIFY(next.findChild<QAction*>(QStringLiteral("action.layout.analyse"))->isChecked());
    }

    void docksKeepAReadableWidthOnA4kScreen()
    {
        // The inspector takes a share of the window, but past 560 px wider rows only stretch
        // the sliders: on a 3840-px window the canvas and plots get the rest.
        MainWindow w;
        w.resize(3840, 2160);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QApplication::processEvents();
        auto* inspector = w.findChild<QDockWidget*>(QStringLiteral("inspectorDock"));
        QVERIFY2(inspector->width() <= 600, qPrintable(QString::number(inspector->width())));
        QVERIFY(w.plotPanes()->width() > 2500);
    }

    void screenshotTakesTheSizeAskedFor()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("small.png"));
        QProcess p;
        p.start(QStringLiteral(SPIKESTUDIO_PATH), {QStringLiteral("--size"), QStringLiteral("1024x700"),
                                                  QStringLiteral("--screenshot"), out,
                                                  QStringLiteral(":/examples/lif_current_step.json")});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        QCOMPARE(QImage(out).size(), QSize(1024, 700));
        for (const char* bad : {"1024", "1024x", "axb", "100x100", "1024x-5", "99999x700"}) {
            p.start(QStringLiteral(SPIKESTUDIO_PATH), {QStringLiteral("--size"), QString::fromLatin1(bad),
                                                      QStringLiteral("--screenshot"), out});
            QVERIFY(p.waitForFinished(60000));
            QVERIFY2(p.exitCode() != 0, bad);
            QVERIFY2(p.readAllStandardError().contains("--size expects WIDTHxHEIGHT"), bad);
        }
    }

private:
    QTemporaryDir m_settings;
};

QTEST_MAIN(TestMainWindowLayout)
#include "test_main_window_layout.moc"
