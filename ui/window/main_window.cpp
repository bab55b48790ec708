// MainWindow: construction, the centre and the docks, and the selection kept in agreement
// between the canvas, the Modules tree and the inspector. See main_window.hpp.
#include "ui/window/main_window.hpp"

#include "ui/document/document_file.hpp"
#include "ui/editor/document_tree.hpp"
#include "ui/editor/graph_breadcrumb.hpp"
#include "ui/editor/graph_canvas.hpp"
#include "ui/editor/graph_node_item.hpp"
#include "ui/inspector/equation_panel.hpp"
#include "ui/inspector/equation_view.hpp"
#include "ui/inspector/connection_panel.hpp"
#include "ui/inspector/inspector.hpp"
#include "ui/run/live_run.hpp"
#include "ui/run/run_session.hpp"
#include "ui/editor/palette_widget.hpp"
#include "ui/plots/plot_panes.hpp"
#include "ui/plots/raster_plot.hpp"
#include "ui/plots/trace_plot.hpp"

#include "engine/io/module_factory.hpp"

#include <QTimer>
#include <QDir>
#include <QDockWidget>
#include <QInputDialog>
#include <QLabel>
#include <QMessageBox>
#include <QScopedValueRollback>
#include <QScreen>
#include <QSettings>
#include <QMenu>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace spike::ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), m_lastDir(QDir::currentPath())
{
    m_wallClock.start();
    m_doc = new GraphDocument(this);
    m_file = new DocumentFile(*m_doc, this);
    // First, so that it sees each document signal before the views do (a run is dropped before
    // the window reopens the document's plots, an edit reaches the run before the redraw).
    m_session = new RunSession(*m_doc, this);
    m_session->setTracedPathSource([this] { return tracedPath(); });
    buildCentre();
    buildStartPage();  // the centre and the start page in one stack
    buildDocks();
    buildActions();
    buildMenus();
    buildToolBar();
    m_clock = new QLabel(this);
    statusBar()->addPermanentWidget(m_clock);
    buildPreparingIndicator();
    applySpeed();
    applyBackend();
    connect(m_session, &RunSession::started, this, &MainWindow::attachPlotRequests);
    connect(m_session, &RunSession::rebuilt, this, &MainWindow::attachPlotRequests);  // panes whose module came back
    connect(m_session, &RunSession::tracesChanged, this, &MainWindow::attachPlotRequests);
    connect(m_session, &RunSession::updated, this, &MainWindow::refreshPlots);
    connect(m_session, &RunSession::runningChanged, this, &MainWindow::updateRunControls);
    connect(m_session, &RunSession::dropped, this, &MainWindow::onRunDropped);
    connect(m_session, &RunSession::started, this, &MainWindow::growPlotsForRun);
    connect(m_session, &RunSession::dropped, this, &MainWindow::undoAutomaticRunLayout);
    // The inspector's States: the paused run's, the initial ones while it runs, the model's
    // when there is no run.
    connect(m_session, &RunSession::started, this, &MainWindow::refreshRunStates);
    connect(m_session, &RunSession::rebuilt, this, &MainWindow::refreshRunStates);
    connect(m_session, &RunSession::dropped, this, &MainWindow::refreshRunStates);
    connect(m_session, &RunSession::runningChanged, this, &MainWindow::refreshRunStates);
    connect(m_session, &RunSession::message, this, [this](const QString& text) { statusBar()->showMessage(text); });

    connect(m_file, &DocumentFile::windowTitleChanged, this, &MainWindow::updateTitle);
    connect(m_file, &DocumentFile::recentFilesChanged, this, &MainWindow::rebuildRecentMenu);
    connect(m_file, &DocumentFile::autosaveFailed, this, [this](const QString& message) {
        statusBar()->showMessage(tr("Autosave failed: %1").arg(message));
    });
    connect(m_doc, &GraphDocument::documentReset, this, &MainWindow::onDocumentReset);
    for (auto signal : {&GraphDocument::nodeAdded, &GraphDocument::nodeRemoved, &GraphDocument::nodeRenamed}) {
        connect(m_doc, signal, this, &MainWindow::onStructureChanged);
    }
    for (auto signal : {&GraphDocument::connectionAdded, &GraphDocument::connectionRemoved}) {
        connect(m_doc, signal, this, &MainWindow::onStructureChanged);
    }
    connect(m_doc, &GraphDocument::attributeChanged, this, &MainWindow::onAttributeChanged);
    connect(m_doc, &GraphDocument::nodeAboutToBeRemoved, this, [this](NodeId id) {
        for (NodeId n = m_inspected; n.valid(); n = m_doc->parentOf(n)) {
            if (n == id) {
                showInInspector({});
                return;
            }
        }
    });
    onDocumentReset();
    rebuildRecentMenu();
    statusBar()->showMessage(tr("Ready: drag modules from the palette onto the canvas, or open an example"));
}

MainWindow::~MainWindow()
{
    m_session->shutdown();  // joins the worker before the widgets it reports to go away
    // The views let go of the document before it is destroyed with the window's children.
    m_inspector->setDocument(nullptr);
    m_connectionPanel->setDocument(nullptr);
    m_tree->setDocument(nullptr);
    m_canvas->setDocument(nullptr);
    // The children (document, file, canvas, docks...) are destroyed after this body, and some
    // signal on the way (the undo stack clearing itself: indexChanged, cleanChanged, which the
    // file turns into windowTitleChanged) must not reach a MainWindow that is already gone
    // (found by the AddressSanitizer build's Qt object-type assertion): cut them all here.
    disconnect(m_doc->undoStack(), nullptr, this, nullptr);
    for (QObject* child : findChildren<QObject*>()) {
        disconnect(child, nullptr, this, nullptr);
    }
}

const engine::Module* MainWindow::model() const
{
    return &m_doc->root();
}

QString MainWindow::selectedModulePath() const
{
    return m_doc->contains(m_inspected) ? QString::fromStdString(m_doc->path(m_inspected)) : QString();
}

void MainWindow::buildCentre()
{
    m_canvas = new GraphCanvas;
    m_canvas->setDocument(m_doc);
    m_breadcrumb = new GraphBreadcrumb(m_canvas);
    auto* editor = new QWidget;
    auto* layout = new QVBoxLayout(editor);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_breadcrumb);
    layout->addWidget(m_canvas, 1);

    // The plot area: the raster first, then the selection pane (key 0, the membrane of the
    // selected layer; it cannot be closed), then one pane per Plot ▸, time axes linked.
    m_panes = new PlotPanes;
    m_rasterPlot = new RasterPlot;
    m_panes->setRaster(m_rasterPlot);
    m_tracePlot = m_panes->addTracePane(0);
    m_panes->closeButton(0)->hide();
    connect(m_panes, &PlotPanes::closeRequested, this, &MainWindow::closePlotPane);

    m_centre = new QSplitter(Qt::Vertical, this);
    m_centre->addWidget(editor);
    m_centre->addWidget(m_panes);
    m_centre->setChildrenCollapsible(false);
    m_centre->setStretchFactor(0, 3);
    m_centre->setStretchFactor(1, 2);
    setCentralWidget(m_centre);

    installPlotMenu(m_rasterPlot);
    installPlotMenu(m_tracePlot);

    connect(m_canvas, &GraphCanvas::selectionChanged, this, &MainWindow::onCanvasSelection);
    // Emitted right after selectionChanged: one wire selected shows its panel instead.
    connect(m_canvas, &GraphCanvas::wireSelectionChanged, this, [this](ConnectionId id) {
        if (id.valid()) {
            showConnection(id);
        }
    });
    connect(m_canvas, &GraphCanvas::plotRequested, this, [this](NodeId id, const QString& signal) {
        // Which neurons: all by default; the dialog offers ranges, lists and random picks.
        bool ok = false;
        const QString neurons = QInputDialog::getText(
            this, tr("Plot %1").arg(signal),
            tr("Neurons to plot: all, a range (0-99), a list (1, 5, 7-9) or random 20:"), QLineEdit::Normal,
            QStringLiteral("all"), &ok);
        QString error;
        if (ok && !plotSignal(QString::fromStdString(m_doc->path(id)), signal, neurons, &error)) {
            QMessageBox::warning(this, tr("Cannot plot %1").arg(signal), error);
        }
    });
    connect(m_canvas, &GraphCanvas::analyseRequested, this, &MainWindow::openAnalysis);
    connect(m_canvas, &GraphCanvas::editRefused, this,
            [this](const QString& reason) { statusBar()->showMessage(tr("Refused: %1").arg(reason)); });
}

void MainWindow::buildDocks()
{
    const auto dock = [this](const QString& title, const QString& name, QWidget* widget, Qt::DockWidgetArea area) {
        auto* d = new QDockWidget(title, this);
        d->setObjectName(name);
        d->setWidget(widget);
        d->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                       QDockWidget::DockWidgetClosable);
        addDockWidget(area, d);
        return d;
    };
    m_palette = new PaletteWidget;
    m_paletteDock = dock(tr("Palette"), QStringLiteral("paletteDock"), m_palette, Qt::LeftDockWidgetArea);
    connect(m_palette, &PaletteWidget::moduleRequested, this, [this](const QString& type) {
        if (m_canvas->addModule(type).valid()) {
            statusBar()->showMessage(tr("Added a %1").arg(type));
        }
    });

    m_tree = new DocumentTree;
    m_tree->setDocument(m_doc);
    m_modulesDock = dock(tr("Modules"), QStringLiteral("modulesDock"), m_tree, Qt::LeftDockWidgetArea);
    connect(m_tree, &DocumentTree::nodesSelected, this, &MainWindow::onTreeSelection);
    connect(m_tree, &DocumentTree::nodeActivated, this, [this](NodeId id) {
        if (m_canvas->enter(id)) {
            m_tree->selectNodes({id});
        }
    });

    m_inspector = new Inspector;
    m_inspector->setDocument(m_doc);
    // While the simulation runs, attributes that need a rebuild are refused with the reason.
    m_inspector->setEditGate([this](NodeId, const engine::AttributeSpec& spec) {
        return m_session->editRefusal(spec);
    });
    // A settings change rebuilds the node under the same id (taken out and put back): select it
    // again, so the canvas, the Modules tree and the dock titles name it as before.
    connect(m_inspector, &Inspector::configured, this, [this](NodeId id) {
        if (m_doc->contains(id)) {
            m_canvas->setSelection({id});
            onCanvasSelection({id});
        }
    });
    m_connectionPanel = new ConnectionPanel;
    m_connectionPanel->setDocument(m_doc);
    m_connectionPanel->setEditGate([this](NodeId, const engine::AttributeSpec& spec) {
        return m_session->editRefusal(spec);
    });
    m_inspectorStack = new QStackedWidget;
    m_inspectorStack->addWidget(m_inspector);
    m_inspectorStack->addWidget(m_connectionPanel);
    m_attributesDock = dock(tr("Inspector"), QStringLiteral("inspectorDock"), m_inspectorStack, Qt::RightDockWidgetArea);

    // The selected model's equations for users, from the registry; a symbol clicked there
    // shows its Inspector row.
    m_equationPanel = new EquationPanel;
    m_equations = m_equationPanel->view();
    m_equations->setGraphDocument(m_doc);
    connect(m_equations, &EquationView::symbolActivated, this, [this](const QString& name) {
        m_attributesDock->show();
        m_attributesDock->raise();
        m_inspector->focusRow(name);
    });
    m_equationsDock = dock(tr("Equations"), QStringLiteral("equationsDock"), m_equationPanel, Qt::RightDockWidgetArea);
    // The values follow the run four times a second while the tab shows (a tabbed dock's
    // hidden tab has an empty visible region), and at once when the neuron or the module
    // changes.
    m_equationTimer = new QTimer(this);
    m_equationTimer->setInterval(250);
    connect(m_equationTimer, &QTimer::timeout, this, [this] {
        if (!m_equations->visibleRegion().isEmpty()) {
            refreshEquationValues();
        }
    });
    connect(m_equationPanel, &EquationPanel::valuesWanted, this, &MainWindow::refreshEquationValues);
    m_equationTimer->start();
    m_activationTimer = new QTimer(this);
    m_activationTimer->setInterval(500);
    connect(m_activationTimer, &QTimer::timeout, this, &MainWindow::refreshActivations);
    connect(m_activationTimer, &QTimer::timeout, this, &MainWindow::reportNativeFailure);
    m_activationTimer->start();
    tabifyDockWidget(m_attributesDock, m_equationsDock);
    m_attributesDock->raise();
}

// ---- selection ----------------------------------------------------------------------------------

void MainWindow::onCanvasSelection(const QList<NodeId>& nodes)
{
    if (m_syncingSelection) {
        return;
    }
    m_syncingSelection = true;
    m_tree->selectNodes(nodes);
    m_syncingSelection = false;
    showInInspector(inspectedFor(nodes));
}

NodeId MainWindow::inspectedFor(const QList<NodeId>& nodes)
{
    // The node the user picked last: one that joined the selection (a click, a ctrl-click);
    // when none joined, the one shown so far if still selected, else the most recently picked
    // of those left (a ctrl-click took the shown one away). Nothing selected: the network the
    // canvas shows, so the inspector never shows a node that is not selected.
    QList<NodeId> order;  // the selection in the order it was picked
    for (NodeId n : m_lastSelection) {
        if (nodes.contains(n)) {
            order.push_back(n);
        }
    }
    const bool joined = order.size() < nodes.size();
    for (NodeId n : nodes) {
        if (!order.contains(n)) {
            order.push_back(n);
        }
    }
    m_lastSelection = order;
    if (order.isEmpty()) {
        return m_canvas->network();
    }
    return joined || !order.contains(m_inspected) ? order.back() : m_inspected;
}

void MainWindow::onTreeSelection(const QList<NodeId>& nodes)
{
    if (m_syncingSelection) {
        return;
    }
    const NodeId inspected = inspectedFor(nodes);
    m_syncingSelection = true;
    // Show the module that holds the picked node, then select what of the selection it shows;
    // the tree keeps only that (a selection spanning two levels cannot be shown on one canvas).
    const NodeId parent = m_doc->parentOf(inspected);
    if (!nodes.isEmpty() && parent.valid() && parent != m_canvas->network() && m_canvas->canEnter(parent)) {
        m_canvas->setNetwork(parent);
    }
    m_canvas->setSelection(nodes);
    if (GraphNodeItem* item = m_canvas->nodeItem(inspected)) {
        m_canvas->ensureVisible(item);
        const QList<NodeId> shown = m_canvas->selectedNodes();
        if (shown != nodes) {
            m_tree->selectNodes(shown);
            m_lastSelection.removeIf([&shown](NodeId n) { return !shown.contains(n); });
        }
    }
    m_syncingSelection = false;
    showInInspector(nodes.isEmpty() ? m_canvas->network() : inspected);
}

bool MainWindow::selectModule(const QString& path)
{
    const NodeId id = m_doc->findNode(path.toStdString());
    if (!id.valid()) {
        return false;
    }
    m_tree->selectNodes({id});
    onTreeSelection({id});
    return true;
}

bool MainWindow::showsConnectionPanel() const
{
    return m_inspectorStack->currentWidget() == m_connectionPanel;
}

void MainWindow::showConnection(ConnectionId id)
{
    const auto info = m_doc->connection(id);
    if (!info) {
        return;
    }
    m_connectionPanel->showConnection(id);
    m_inspectorStack->setCurrentWidget(m_connectionPanel);
    if (info->projection.valid() && !m_syncingSelection) {  // the tree shows the wire's projection row
        const QScopedValueRollback<bool> guard(m_syncingSelection, true);
        m_tree->selectNodes({info->projection});
    }
    // The Equations tab shows the projection's delivery rule (nothing for an identity wire).
    const engine::Module* projection = m_doc->module(info->projection);
    m_equations->showNode(info->projection);
    refreshEquationValues();
    m_equationsDock->setWindowTitle(projection != nullptr
                                        ? tr("Equations — %1").arg(QString::fromStdString(projection->className()))
                                        : tr("Equations"));
    m_attributesDock->setWindowTitle(tr("Inspector — wire %1").arg(QString::fromStdString(info->name)));
}

void MainWindow::showInInspector(NodeId id)
{
    m_inspectorStack->setCurrentWidget(m_inspector);
    m_inspected = m_doc->contains(id) ? id : NodeId{};
    const engine::Module* module = m_doc->module(m_inspected);
    m_inspector->showNode(m_inspected);
    refreshRunStates();
    m_equations->showNode(m_inspected);
    refreshEquationValues();
    m_equationsDock->setWindowTitle(module != nullptr
                                        ? tr("Equations — %1").arg(QString::fromStdString(module->className()))
                                        : tr("Equations"));
    if (module != nullptr) {
        const QString path = QString::fromStdString(m_doc->path(id));
        m_attributesDock->setWindowTitle(tr("Inspector — %1 (%2)")
                                             .arg(path.isEmpty() ? tr("root") : path,
                                                  QString::fromStdString(module->className())));
    } else {
        m_attributesDock->setWindowTitle(tr("Inspector"));
    }
    // A projection picked in the Modules tree shows its wire's panel.
    if (module != nullptr && m_doc->nodeData(m_inspected, NodeRole::IsProjection).toBool()) {
        showConnection(m_doc->findConnection(m_doc->parentOf(m_inspected), module->name()));
    }
    if (module != nullptr && !module->membraneSignal().empty()) {
        if (run()) {
            run()->setTracedPath(selectedModulePath());
            // A pane that plots chosen neurons of this membrane shares its track: keep its choice.
            const QScopedValueRollback<bool> guard(m_attaching, true);
            for (PlotRequest& request : m_plotRequests) {
                if (request.probePath == selectedModulePath() && request.signal == module->membraneSignal()) {
                    request.traceId = run()->addTrace(request.probePath, request.signal, request.neurons, &request.why);
                }
            }
        }
    }
    refreshPlots();
}

// ---- document changes ---------------------------------------------------------------------------

void MainWindow::onDocumentReset()
{
    // The session has dropped the run (RunSession, connected first).
    openDocumentPlots();
    // Start on the first module with a membrane trace, so a first Run shows something.
    NodeId initial;
    for (const auto& [path, module] : m_doc->root().namedModules()) {
        if (!module->membraneSignal().empty()) {
            initial = m_doc->findNode(path);
            break;
        }
    }
    // The canvas stays on the root: a module nested deeper is represented by the root's node
    // that holds it (the trace still follows the first membrane, MainWindow::tracedPath()).
    while (initial.valid() && m_doc->parentOf(initial).valid() && m_doc->parentOf(initial) != m_canvas->network()) {
        initial = m_doc->parentOf(initial);
    }
    if (initial.valid() && m_canvas->nodeItem(initial) != nullptr) {
        m_lastSelection = {initial};
        m_syncingSelection = true;
        m_tree->selectNodes({initial});
        m_canvas->setSelection({initial});
        m_syncingSelection = false;
        showInInspector(initial);
    } else {
        m_lastSelection.clear();
        showInInspector(m_canvas->network());
    }
    showTimeStep();
    updateRunControls();  // the clock: "t = 0.0 ms (0 steps)", or steps only without a dt
    updateTitle();
    updateEditActions();
    // A new or opened model: typing goes to the canvas (quick-add) at once.
    m_canvas->setFocus(Qt::OtherFocusReason);
}

void MainWindow::onAttributeChanged(NodeId id, const QString& name)
{
    // The run took the new value already (RunSession: a live edit, or a rebuild).
    if (name == QLatin1String("dt")) {
        showTimeStep();
    }
    // The inspector updates its own editors in place (Inspector::onAttributeChanged); rebuilding
    // it here would delete the editor whose key, wheel or click event is still being handled.
    // Only what the plots show of the module (threshold lines) is read again.
    if (id == m_inspected) {
        refreshPlots();
    }
}

void MainWindow::onStructureChanged()
{
    // The run rebuilds itself (RunSession); the panes follow the new structure, and the time
    // step box the modules that have one (the first neuron added to a new network brings dt).
    showTimeStep();
    // The first module with a time step turns the plots' axes from steps to milliseconds (and the
    // last one leaving turns them back); a span the user chose on the same kind of axis stays.
    if (m_panes->timeAxis().steps == m_dt->isEnabled()) {
        chooseDefaultSpan();
        if (!run() || run()->currentStep() == 0) {
            clearPlots(tr("press Run to simulate"));  // the empty plots' axes and labels too
        }
    }
    showUsefulPanes();
    updateEditActions();
}

}  // namespace spike::ui
