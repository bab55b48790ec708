// MainWindow: actions, menus and toolbar (standard shortcuts from QKeySequence::StandardKey
// wherever one exists), the window title and the edit actions' enabled state. The file commands
// they trigger, the close prompt and the recovery offer are in main_window_files.cpp. See
// main_window.hpp.
#include "ui/window/main_window.hpp"

#include "ui/run/run_session.hpp"

#include "ui/document/document_file.hpp"
#include "ui/editor/graph_canvas.hpp"
#include "ui/editor/palette_widget.hpp"

#include "engine/runtime/backend.hpp"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QStandardItemModel>
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QSpinBox>
#include <QStatusBar>
#include <QStyle>
#include <QToolBar>
#include <QUndoStack>

namespace spike::ui {

QAction* MainWindow::makeAction(const QString& name, const QString& text, const QKeySequence& key,
                                const QString& tip)
{
    auto* a = new QAction(text, this);
    a->setObjectName(name);
    if (!key.isEmpty()) {
        a->setShortcut(key);
    }
    a->setStatusTip(tip);
    a->setToolTip(key.isEmpty() ? tip : QStringLiteral("%1 (%2)").arg(tip, key.toString(QKeySequence::NativeText)));
    addAction(a);  // shortcuts work whichever dock has the focus
    return a;
}

QAction* MainWindow::action(const QString& objectName) const
{
    return findChild<QAction*>(objectName);
}

void MainWindow::buildActions()
{
    // File
    connect(makeAction(QStringLiteral("action.new"), tr("&New"), QKeySequence::New, tr("Start an empty network")),
            &QAction::triggered, this, &MainWindow::newInteractively);
    connect(makeAction(QStringLiteral("action.open"), tr("&Open…"), QKeySequence::Open, tr("Open a SpikeStudio model (.json) or a NIR graph (.nir)")),
            &QAction::triggered, this, &MainWindow::promptOpen);
    connect(makeAction(QStringLiteral("action.save"), tr("&Save"), QKeySequence::Save, tr("Save the model to its file")),
            &QAction::triggered, this, &MainWindow::saveInteractively);
    connect(makeAction(QStringLiteral("action.saveAs"), tr("Save &As…"), QKeySequence::SaveAs, tr("Save the model to a new file")),
            &QAction::triggered, this, &MainWindow::saveAsInteractively);
    connect(makeAction(QStringLiteral("action.exportRecordings"), tr("&Recordings (.npy)…"), {},
                       tr("Write every recorded series of the run as .npy files into a folder")),
            &QAction::triggered, this, &MainWindow::exportRecordingsInteractively);
    connect(makeAction(QStringLiteral("action.exportNir"), tr("&NIR…"), {},
                       tr("Write the model as a NIR graph (.nir) for other simulators and neuromorphic hardware")),
            &QAction::triggered, this, &MainWindow::exportNirInteractively);
    QAction* quit = makeAction(QStringLiteral("action.quit"), tr("&Quit"), QKeySequence::Quit, tr("Quit SpikeStudio"));
    quit->setMenuRole(QAction::QuitRole);
    connect(quit, &QAction::triggered, this, &QWidget::close);

    // Edit
    QUndoStack* undo = m_doc->undoStack();
    QAction* undoAction = undo->createUndoAction(this, tr("&Undo"));
    undoAction->setObjectName(QStringLiteral("action.undo"));
    undoAction->setShortcut(QKeySequence::Undo);
    addAction(undoAction);
    QAction* redoAction = undo->createRedoAction(this, tr("&Redo"));
    redoAction->setObjectName(QStringLiteral("action.redo"));
    redoAction->setShortcut(QKeySequence::Redo);
    addAction(redoAction);
    const auto canvasAction = [this](const QString& name, const QString& text, const QKeySequence& key,
                                     const QString& tip, auto slot) {
        QAction* a = makeAction(name, text, key, tip);
        connect(a, &QAction::triggered, m_canvas, slot);
        return a;
    };
    canvasAction(QStringLiteral("action.cut"), tr("Cu&t"), QKeySequence::Cut, tr("Cut the selected nodes"), &GraphCanvas::cutSelection);
    canvasAction(QStringLiteral("action.copy"), tr("&Copy"), QKeySequence::Copy,
                 tr("Copy the selected nodes and the wires among them"), &GraphCanvas::copySelection);
    canvasAction(QStringLiteral("action.paste"), tr("&Paste"), QKeySequence::Paste,
                 tr("Paste nodes copied in this or another SpikeStudio window"), &GraphCanvas::pasteClipboard);
    canvasAction(QStringLiteral("action.duplicate"), tr("D&uplicate"), QKeySequence(Qt::CTRL | Qt::Key_D),
                 tr("Duplicate the selected nodes"), &GraphCanvas::duplicateSelection);
    canvasAction(QStringLiteral("action.delete"), tr("&Delete"), QKeySequence::Delete,
                 tr("Delete the selected nodes and wires"), &GraphCanvas::deleteSelection);
    canvasAction(QStringLiteral("action.selectAll"), tr("Select &All"), QKeySequence::SelectAll,
                 tr("Select every node shown"), &GraphCanvas::selectAll);
    canvasAction(QStringLiteral("action.group"), tr("&Group"), QKeySequence(Qt::CTRL | Qt::Key_G),
                 tr("Move the selected nodes into a child network"), &GraphCanvas::groupSelection);
    canvasAction(QStringLiteral("action.ungroup"), tr("U&ngroup"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_G),
                 tr("Replace the selected child networks by their nodes"), &GraphCanvas::ungroupSelection);
    canvasAction(QStringLiteral("action.autoLayout"), tr("Auto-&layout"), QKeySequence(Qt::CTRL | Qt::Key_L),
                 tr("Lay out the selection (or everything) in layers, left to right"), &GraphCanvas::autoLayout);
    const std::pair<Alignment, std::pair<QString, QString>> aligns[] = {
        {Alignment::Left, {QStringLiteral("left"), tr("Align &left edges")}},
        {Alignment::HCenter, {QStringLiteral("hcenter"), tr("Align &horizontal centres")}},
        {Alignment::Right, {QStringLiteral("right"), tr("Align &right edges")}},
        {Alignment::Top, {QStringLiteral("top"), tr("Align &top edges")}},
        {Alignment::VCenter, {QStringLiteral("vcenter"), tr("Align &vertical centres")}},
        {Alignment::Bottom, {QStringLiteral("bottom"), tr("Align &bottom edges")}},
        {Alignment::DistributeH, {QStringLiteral("distributeH"), tr("Distribute h&orizontally")}},
        {Alignment::DistributeV, {QStringLiteral("distributeV"), tr("Distribute v&ertically")}}};
    for (const auto& [how, names] : aligns) {
        QAction* a = makeAction(QStringLiteral("action.align.") + names.first, names.second, {},
                                tr("Align or distribute the selected nodes"));
        connect(a, &QAction::triggered, m_canvas, [this, how = how] { m_canvas->alignSelection(how); });
    }
    connect(makeAction(QStringLiteral("action.startPage"), tr("Start &Page"), QKeySequence(),
                       tr("Show the examples, the recent files and New network (the model stays open behind it)")),
            &QAction::triggered, this, &MainWindow::showStartPage);
    connect(makeAction(QStringLiteral("action.addModule"), tr("&Add Module…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_A),
                       tr("Type a module's name and add it to the canvas (on the canvas, typing or Tab does this too)")),
            &QAction::triggered, this, [this] {
                leaveStartPage();
                m_canvas->setFocus(Qt::ShortcutFocusReason);
                m_canvas->openQuickAdd();
            });
    connect(makeAction(QStringLiteral("action.find"), tr("&Find Module…"), QKeySequence::Find,
                       tr("Search the palette")),
            &QAction::triggered, this, [this] {
                m_paletteDock->show();
                m_palette->searchField()->setFocus(Qt::ShortcutFocusReason);
                m_palette->searchField()->selectAll();
            });

    // View
    connect(makeAction(QStringLiteral("action.resetLayout"), tr("&Reset Layout"), QKeySequence(),
                       tr("Put every dock back where a new installation has it")),
            &QAction::triggered, this, &MainWindow::resetLayout);
    canvasAction(QStringLiteral("action.fit"), tr("&Fit to View"), QKeySequence(Qt::CTRL | Qt::Key_0),
                 tr("Frame every node"), &GraphCanvas::fitToView);
    connect(makeAction(QStringLiteral("action.zoomIn"), tr("Zoom &In"), QKeySequence::ZoomIn, tr("Zoom in around the view centre")),
            &QAction::triggered, this, [this] { m_canvas->zoomAt(m_canvas->viewport()->rect().center(), 1.25); });
    connect(makeAction(QStringLiteral("action.zoomOut"), tr("Zoom &Out"), QKeySequence::ZoomOut, tr("Zoom out around the view centre")),
            &QAction::triggered, this, [this] { m_canvas->zoomAt(m_canvas->viewport()->rect().center(), 0.8); });
    canvasAction(QStringLiteral("action.up"), tr("&Up to Parent"), QKeySequence(Qt::ALT | Qt::Key_Up),
                 tr("Leave the module shown for the one that holds it"), &GraphCanvas::leave);

    // Simulation
    m_runAction = makeAction(QStringLiteral("action.run"), tr("Run"), QKeySequence(Qt::Key_F5),
                             tr("Run the simulation until paused; plots update live"));
    m_runAction->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
    connect(m_runAction, &QAction::triggered, m_session, &RunSession::toggle);
    QAction* step = makeAction(QStringLiteral("action.step"), tr("Step"), QKeySequence(Qt::Key_F10),
                               tr("Run the number of steps in the Steps box, then pause"));
    step->setIcon(style()->standardIcon(QStyle::SP_MediaSeekForward));
    connect(step, &QAction::triggered, this, [this] { m_session->step(m_steps->value()); });
    for (const int n : {1, 10, 100}) {
        QAction* quick = makeAction(QStringLiteral("action.step%1").arg(n), tr("Step %1").arg(n), {},
                                    tr("Run %n step(s), then pause", nullptr, n));
        quick->setIconText(QString::number(n));  // the toolbar button: just the number
        connect(quick, &QAction::triggered, m_session, [this, n] { m_session->step(n); });
    }
    QAction* reset = makeAction(QStringLiteral("action.reset"), tr("Reset"), QKeySequence(Qt::CTRL | Qt::Key_R),
                                tr("Reset every state and restart time at zero"));
    reset->setIcon(style()->standardIcon(QStyle::SP_BrowserReload));
    connect(reset, &QAction::triggered, this, &MainWindow::resetState);

    connect(undo, &QUndoStack::indexChanged, this, &MainWindow::updateEditActions);
    connect(undo, &QUndoStack::indexChanged, this, &MainWindow::reportEdit);
    connect(m_canvas, &GraphCanvas::selectionChanged, this, &MainWindow::updateEditActions);
    connect(m_canvas, &GraphCanvas::networkChanged, this, &MainWindow::updateEditActions);
}

void MainWindow::buildMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(action(QStringLiteral("action.new")));
    file->addAction(action(QStringLiteral("action.open")));
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    m_examplesMenu = file->addMenu(tr("&Examples"));
    for (const ExampleModel& example : DocumentFile::examples()) {
        QAction* a = m_examplesMenu->addAction(example.title);
        a->setData(example.path);
        a->setStatusTip(example.summary.isEmpty()
                            ? tr("Open the bundled example %1").arg(QFileInfo(example.path).fileName())
                            : example.summary);
        connect(a, &QAction::triggered, this, [this, path = example.path] { openInteractively(path); });
    }
    file->addAction(action(QStringLiteral("action.startPage")));
    file->addSeparator();
    file->addAction(action(QStringLiteral("action.save")));
    file->addAction(action(QStringLiteral("action.saveAs")));
    file->addSeparator();
    QMenu* exportMenu = file->addMenu(tr("E&xport"));
    exportMenu->setObjectName(QStringLiteral("menu.export"));
    exportMenu->addAction(action(QStringLiteral("action.exportNir")));
    exportMenu->addAction(action(QStringLiteral("action.exportRecordings")));
    file->addSeparator();
    file->addAction(action(QStringLiteral("action.quit")));

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    for (const char* name : {"undo", "redo", "", "cut", "copy", "paste", "duplicate", "delete", "selectAll", "",
                             "group", "ungroup", ""}) {
        if (*name == '\0') {
            edit->addSeparator();
        } else {
            edit->addAction(action(QStringLiteral("action.") + QLatin1String(name)));
        }
    }
    QMenu* align = edit->addMenu(tr("&Align"));
    for (const char* name : {"left", "hcenter", "right", "top", "vcenter", "bottom", "distributeH", "distributeV"}) {
        align->addAction(action(QStringLiteral("action.align.") + QLatin1String(name)));
    }
    edit->addAction(action(QStringLiteral("action.autoLayout")));
    edit->addSeparator();
    edit->addAction(action(QStringLiteral("action.addModule")));
    edit->addAction(action(QStringLiteral("action.find")));

    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (const char* name : {"fit", "zoomIn", "zoomOut", "up"}) {
        view->addAction(action(QStringLiteral("action.") + QLatin1String(name)));
    }
    view->addSeparator();
    for (QDockWidget* d : {m_paletteDock, m_modulesDock, m_attributesDock, m_equationsDock}) {
        view->addAction(d->toggleViewAction());
    }
    view->addSeparator();
    buildAnalyseMenu(view);
    buildLayoutMenu(view);
    view->addAction(action(QStringLiteral("action.resetLayout")));

    QMenu* simulation = menuBar()->addMenu(tr("&Simulation"));
    for (const char* name : {"run", "step", "step1", "step10", "step100", "reset"}) {
        simulation->addAction(action(QStringLiteral("action.") + QLatin1String(name)));
    }
    simulation->addSeparator();
    buildThreadsMenu(simulation);
    buildHelpMenu();
}

void MainWindow::buildToolBar()
{
    QToolBar* bar = addToolBar(tr("Run"));
    bar->setObjectName(QStringLiteral("runToolBar"));
    bar->setMovable(false);
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    bar->addAction(m_runAction);
    bar->addAction(action(QStringLiteral("action.step")));
    m_steps = new QSpinBox(bar);
    m_steps->setRange(1, kMaxSteps);
    m_steps->setValue(kDefaultSteps);
    m_steps->setGroupSeparatorShown(true);
    m_steps->setSuffix(tr(" steps"));
    m_steps->setToolTip(tr("Steps one Step runs (1 to %L1)").arg(kMaxSteps));
    m_steps->setMinimumWidth(120);
    bar->addWidget(m_steps);
    for (const char* name : {"action.step1", "action.step10", "action.step100"}) {
        bar->addAction(action(QLatin1String(name)));
    }
    bar->addAction(action(QStringLiteral("action.reset")));
    bar->addSeparator();
    bar->addWidget(new QLabel(tr(" Speed: "), bar));
    m_speed = new QComboBox(bar);
    m_speed->setObjectName(QStringLiteral("speedBox"));
    m_speed->addItem(tr("real time"), 1.0);
    m_speed->addItem(tr("× 0.1"), 0.1);
    m_speed->addItem(tr("× 0.01"), 0.01);
    m_speed->addItem(tr("as fast as possible"), 0.0);
    connect(m_speed, &QComboBox::currentIndexChanged, this, &MainWindow::applySpeed);
    bar->addWidget(m_speed);

    bar->addWidget(new QLabel(tr("  dt: "), bar));
    m_dt = new QDoubleSpinBox(bar);
    m_dt->setDecimals(3);
    m_dt->setRange(kMinTimeStepMs, 1000.0);
    m_dt->setSuffix(tr(" ms"));
    m_dt->setSpecialValueText(tr("no dt"));  // shown at 0: no module has a time step
    m_dt->setKeyboardTracking(false);
    // Its tooltip comes from showTimeStep(), which adds a warning when the modules disagree.
    connect(m_dt, &QDoubleSpinBox::valueChanged, this, &MainWindow::applyTimeStep);
    bar->addWidget(m_dt);

    bar->addWidget(new QLabel(tr("  Backend: "), bar));
    m_backend = new QComboBox(bar);
    m_backend->addItem(tr("CPU"), static_cast<int>(engine::BackendKind::Cpu));
    m_backend->addItem(tr("CUDA"), static_cast<int>(engine::BackendKind::Cuda));
    std::string why;
    if (!engine::backendAvailable(engine::BackendKind::Cuda, &why)) {
        auto* model = qobject_cast<QStandardItemModel*>(m_backend->model());
        QStandardItem* cuda = model->item(1);
        cuda->setEnabled(false);
        cuda->setToolTip(tr("Not available here: %1").arg(QString::fromStdString(why)));
        m_backend->setToolTip(tr("CUDA is not available here: %1").arg(QString::fromStdString(why)));
    } else {
        m_backend->setToolTip(tr("Where the simulation runs"));
    }
    connect(m_backend, &QComboBox::currentIndexChanged, this, &MainWindow::applyBackend);
    bar->addWidget(m_backend);

    m_rate = new QLabel(bar);
    m_rate->setMinimumWidth(140);
    m_rate->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_rate->setToolTip(tr("While running: simulation steps per second of wall time, and how fast that is "
                          "against real time (simulated seconds per wall second)"));
    statusBar()->addPermanentWidget(m_rate);
}

void MainWindow::updateTitle()
{
    setWindowTitle(m_file->windowTitle());
    setWindowModified(m_file->isModified());
}

void MainWindow::reportEdit(int index)
{
    // Every edit, undo and redo says what happened (merged slider moves change no index).
    const QUndoStack* undo = m_doc->undoStack();
    const int previous = m_undoIndex;
    m_undoIndex = index;
    const auto keys = [this](const char* name) {
        return action(QLatin1String(name))->shortcut().toString(QKeySequence::NativeText);
    };
    if (index > previous && index <= undo->count()) {
        statusBar()->showMessage(tr("%1 — %2 undoes it").arg(undo->text(index - 1), keys("action.undo")));
    } else if (index < previous && index < undo->count()) {
        statusBar()->showMessage(tr("Undone: %1 — %2 redoes it").arg(undo->text(index), keys("action.redo")));
    }
}

void MainWindow::updateEditActions()
{
    const bool editable = m_canvas->isEditable();
    const int selected = static_cast<int>(m_canvas->selectedNodes().size());
    for (const char* name : {"cut", "copy", "duplicate", "delete", "group"}) {
        action(QStringLiteral("action.") + QLatin1String(name))->setEnabled(editable && selected > 0);
    }
    bool groupSelected = false;
    for (NodeId id : m_canvas->selectedNodes()) {
        groupSelected = groupSelected || m_doc->network(id) != nullptr;
    }
    action(QStringLiteral("action.ungroup"))->setEnabled(editable && groupSelected);
    action(QStringLiteral("action.paste"))->setEnabled(editable);
    for (const char* name : {"left", "hcenter", "right", "top", "vcenter", "bottom", "distributeH", "distributeV"}) {
        action(QStringLiteral("action.align.") + QLatin1String(name))
            ->setEnabled(selected >= (QLatin1String(name).startsWith(QLatin1String("distribute")) ? 3 : 2));
    }
    action(QStringLiteral("action.up"))->setEnabled(m_canvas->network() != m_doc->rootId());
}

}  // namespace spike::ui
