// MainWindow: the window's layout. Its size on first start, the geometry, dock arrangement and
// editor/plots split kept per user (QSettings "window/..."), View ▸ Reset Layout, and the work
// layouts (View ▸ Layout): Edit (palette, modules and inspector beside a large canvas), Run (the
// plots take most of the centre, the inspector stays for live edits) and Analyse (plots only).
// Starting a run in Edit switches to Run when "Grow Plots When a Run Starts" is on (the
// default); Reset, or a new document, switches back if the switch was automatic. The split of
// each layout is remembered while the program runs, the current layout across sessions.
// Thread: GUI thread only. See main_window.hpp.
#include "ui/window/main_window.hpp"

#include "ui/editor/document_tree.hpp"

#include <QAction>
#include <QActionGroup>
#include <QDockWidget>
#include <QMenu>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QToolBar>

#include <algorithm>
#include <utility>

namespace spike::ui {

namespace {
constexpr int kDefaultWidth = 1400;   // [px]
constexpr int kDefaultHeight = 900;   // [px]
constexpr int kLayoutVersion = 1;     // restoreState() refuses a state saved by another layout
const char* const kGeometryKey = "window/geometry";
const char* const kDocksKey = "window/docks";
const char* const kSplitKey = "window/split";
const char* const kWorkLayoutKey = "window/layout";
const char* const kGrowPlotsKey = "window/growPlotsOnRun";
/// The canvas's share of the centre's height in each layout (the plots get the rest).
constexpr double kCanvasShare[] = {0.6, 0.28, 0.12};
/// Fewest pixels the canvas keeps (the breadcrumb and a strip of the network).
constexpr int kMinCanvasHeight = 90;

QString layoutName(MainWindow::WorkLayout layout)
{
    switch (layout) {
    case MainWindow::WorkLayout::Run: return QStringLiteral("run");
    case MainWindow::WorkLayout::Analyse: return QStringLiteral("analyse");
    case MainWindow::WorkLayout::Edit: break;
    }
    return QStringLiteral("edit");
}

MainWindow::WorkLayout layoutNamed(const QString& name)
{
    if (name == QLatin1String("run")) {
        return MainWindow::WorkLayout::Run;
    }
    return name == QLatin1String("analyse") ? MainWindow::WorkLayout::Analyse : MainWindow::WorkLayout::Edit;
}
}  // namespace

void MainWindow::showEvent(QShowEvent* event)
{
    QMainWindow::showEvent(event);
    if (!m_docksSized) {
        m_docksSized = true;
        applyDefaultSizes();
    }
}

void MainWindow::applyDefaultSizes()
{
    // Dock sizes only take once the window has its size: the left column gets the tree's
    // natural width (capped), the inspector a fixed share up to 560 px, the canvas the rest.
    constexpr double kMaxLeftShare = 0.2;
    constexpr double kMaxRightShare = 0.28;
    constexpr int kMaxRightWidth = 560;  // [px] wider rows only stretch the sliders (4K screens)
    const int left = std::min(m_tree->naturalWidth(), static_cast<int>(kMaxLeftShare * width()));
    const int right = std::min(static_cast<int>(kMaxRightShare * width()), kMaxRightWidth);
    resizeDocks({m_paletteDock, m_attributesDock}, {left, right}, Qt::Horizontal);
    resizeDocks({m_paletteDock, m_modulesDock}, {height() / 2, height() / 2}, Qt::Vertical);
    applySplit(m_workLayout);
}

// ---- window layout ------------------------------------------------------------------------------

QSize MainWindow::defaultSize() const
{
    QSize size(kDefaultWidth, kDefaultHeight);
    if (const QScreen* s = screen()) {
        // The frame (title bar, borders) comes on top of the size asked for.
        const QSize frame = frameGeometry().size() - geometry().size();
        size = size.boundedTo(s->availableGeometry().size() - frame);
    }
    return size;
}

bool MainWindow::restoreWindowState()
{
    const QSettings settings;
    const QByteArray geometry = settings.value(QLatin1String(kGeometryKey)).toByteArray();
    const QByteArray docks = settings.value(QLatin1String(kDocksKey)).toByteArray();
    if (geometry.isEmpty() || docks.isEmpty() || !restoreGeometry(geometry)) {
        return false;
    }
    if (!restoreState(docks, kLayoutVersion)) {
        return false;
    }
    m_centre->restoreState(settings.value(QLatin1String(kSplitKey)).toByteArray());
    m_workLayout = layoutNamed(settings.value(QLatin1String(kWorkLayoutKey)).toString());
    syncLayoutActions();
    m_docksSized = true;  // the user's sizes, not the defaults
    return true;
}

void MainWindow::saveWindowState() const
{
    QSettings settings;
    settings.setValue(QLatin1String(kGeometryKey), saveGeometry());
    settings.setValue(QLatin1String(kDocksKey), saveState(kLayoutVersion));
    settings.setValue(QLatin1String(kSplitKey), m_centre->saveState());
    settings.setValue(QLatin1String(kWorkLayoutKey), layoutName(m_workLayout));
    settings.setValue(QLatin1String(kGrowPlotsKey), m_growPlotsOnRun);
}

void MainWindow::resetLayout()
{
    // Dock by dock rather than restoreState() of the state as built: Qt 6.4 crashes restoring
    // a state saved before the window was first shown once docks have floated or been tabbed
    // (found by the GUI monkey).
    if (auto* bar = findChild<QToolBar*>(QStringLiteral("runToolBar"))) {
        addToolBar(Qt::TopToolBarArea, bar);
        bar->show();
    }
    const std::pair<QDockWidget*, Qt::DockWidgetArea> docks[] = {
        {m_paletteDock, Qt::LeftDockWidgetArea}, {m_modulesDock, Qt::LeftDockWidgetArea},
        {m_attributesDock, Qt::RightDockWidgetArea}, {m_equationsDock, Qt::RightDockWidgetArea}};
    for (const auto& [d, area] : docks) {
        removeDockWidget(d);
    }
    for (const auto& [d, area] : docks) {
        d->setFloating(false);
        addDockWidget(area, d, Qt::Vertical);
        d->show();
    }
    tabifyDockWidget(m_attributesDock, m_equationsDock);
    m_attributesDock->raise();
    m_workLayout = WorkLayout::Edit;
    m_autoRunLayout = false;
    m_splits = {};
    syncLayoutActions();
    applyDefaultSizes();
    statusBar()->showMessage(tr("Layout reset: docks and plots where a new installation has them"));
}

// ---- work layouts -------------------------------------------------------------------------------

void MainWindow::buildLayoutMenu(QMenu* view)
{
    QMenu* menu = view->addMenu(tr("&Layout"));
    auto* group = new QActionGroup(this);
    const std::pair<WorkLayout, QString> entries[] = {
        {WorkLayout::Edit, tr("&Edit — palette, modules, inspector and a large canvas")},
        {WorkLayout::Run, tr("&Run — plots take most of the window, inspector for live edits")},
        {WorkLayout::Analyse, tr("&Analyse — plots only")}};
    int index = 0;
    for (const auto& [layout, text] : entries) {
        QAction* a = menu->addAction(text);
        a->setObjectName(QStringLiteral("action.layout.") + layoutName(layout));
        a->setCheckable(true);
        a->setShortcut(QKeySequence(Qt::CTRL | static_cast<Qt::Key>(Qt::Key_1 + index++)));
        group->addAction(a);
        connect(a, &QAction::triggered, this, [this, layout = layout] { setWorkLayout(layout); });
    }
    menu->addSeparator();
    QAction* grow = menu->addAction(tr("&Grow Plots When a Run Starts"));
    grow->setObjectName(QStringLiteral("action.layout.growPlots"));
    grow->setCheckable(true);
    grow->setToolTip(tr("Starting a run in the Edit layout switches to Run; Reset switches back"));
    m_growPlotsOnRun = QSettings().value(QLatin1String(kGrowPlotsKey), true).toBool();
    connect(grow, &QAction::toggled, this, [this](bool on) { m_growPlotsOnRun = on; });
    syncLayoutActions();
}

void MainWindow::syncLayoutActions()
{
    if (QAction* a = findChild<QAction*>(QStringLiteral("action.layout.") + layoutName(m_workLayout))) {
        a->setChecked(true);
    }
    if (QAction* a = findChild<QAction*>(QStringLiteral("action.layout.growPlots"))) {
        a->setChecked(m_growPlotsOnRun);
    }
}

void MainWindow::setWorkLayout(WorkLayout layout)
{
    m_autoRunLayout = false;
    if (layout == m_workLayout) {
        applySplit(layout);
        return;
    }
    m_splits[static_cast<int>(m_workLayout)] = m_centre->sizes();
    m_workLayout = layout;
    const bool edit = layout == WorkLayout::Edit;
    const bool analyse = layout == WorkLayout::Analyse;
    for (QDockWidget* d : {m_paletteDock, m_modulesDock}) {
        d->setVisible(edit);
    }
    m_attributesDock->setVisible(!analyse);
    m_equationsDock->setVisible(!analyse);
    if (!analyse) {
        m_attributesDock->raise();
    }
    applySplit(layout);
    syncLayoutActions();
    statusBar()->showMessage(
        edit ? tr("Edit layout: palette, modules and inspector around the canvas (View ▸ Layout)")
             : layout == WorkLayout::Run ? tr("Run layout: the plots take most of the window; Ctrl+1 returns to Edit")
                                         : tr("Analyse layout: plots only; Ctrl+1 returns to Edit"));
}

void MainWindow::applySplit(WorkLayout layout)
{
    const int total = m_centre->height();
    QList<int> sizes = m_splits[static_cast<int>(layout)];
    if (sizes.size() != 2 || sizes[0] + sizes[1] <= 0) {
        const int canvas = std::max(kMinCanvasHeight, static_cast<int>(kCanvasShare[static_cast<int>(layout)] * total));
        sizes = {canvas, std::max(0, total - canvas)};
    }
    m_centre->setSizes(sizes);
}

void MainWindow::growPlotsForRun()
{
    if (m_growPlotsOnRun && m_workLayout == WorkLayout::Edit) {
        setWorkLayout(WorkLayout::Run);
        m_autoRunLayout = true;
    }
}

void MainWindow::undoAutomaticRunLayout()
{
    if (m_autoRunLayout && m_workLayout == WorkLayout::Run) {
        setWorkLayout(WorkLayout::Edit);
    }
    m_autoRunLayout = false;
}

}  // namespace spike::ui
