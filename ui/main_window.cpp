// MainWindow. See main_window.hpp.
#include "main_window.hpp"

#include "attribute_table.hpp"
#include "model_loader.hpp"
#include "module_tree_widget.hpp"
#include "raster_plot.hpp"
#include "trace_plot.hpp"

#include "engine/error.hpp"

#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <QToolBar>

#include <algorithm>
#include <exception>
#include <new>

namespace spike::ui {

namespace {

/// The module's membrane-potential signal: the recordable State of family "membrane" ("vmem"
/// for LIF, "v" for LIFRefrac), or "" when it has none.
std::string membraneSignal(const engine::Module& module)
{
    const auto offered = module.recordableSignals();
    for (const auto& view : module.attributes()) {
        if (view.spec->kind == engine::AttributeKind::State && view.spec->family == "membrane" &&
            std::find(offered.begin(), offered.end(), view.spec->name) != offered.end()) {
            return view.spec->name;
        }
    }
    return {};
}


constexpr int kStatusTimeoutMs = 0;  // messages stay until the next one

QString describeModule(const engine::Module& module, const QString& path)
{
    const QString where = path.isEmpty() ? QObject::tr("root") : QStringLiteral("'%1'").arg(path);
    return QStringLiteral("%1 (%2)").arg(where, QString::fromStdString(module.className()));
}

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), m_lastDir(QDir::currentPath())
{
    setWindowTitle(tr("SpikeStudio"));
    buildActions();
    buildCentre();
    buildDocks();
    buildMenus();
    buildToolBar();
    m_clock = new QLabel(this);
    statusBar()->addPermanentWidget(m_clock);
    clearPlots(tr("open a model (File ▸ Open…)"));
    updateControls();
    statusBar()->showMessage(tr("Ready"), kStatusTimeoutMs);
}

MainWindow::~MainWindow() = default;

void MainWindow::buildActions()
{
    m_openAction = new QAction(tr("&Open…"), this);
    m_openAction->setShortcut(QKeySequence::Open);
    m_openAction->setStatusTip(tr("Open a SpikeStudio model file (.json)"));
    connect(m_openAction, &QAction::triggered, this, &MainWindow::promptOpen);

    m_quitAction = new QAction(tr("&Quit"), this);
    m_quitAction->setShortcut(QKeySequence::Quit);
    m_quitAction->setMenuRole(QAction::QuitRole);
    connect(m_quitAction, &QAction::triggered, this, &QWidget::close);

    m_runAction = new QAction(style()->standardIcon(QStyle::SP_MediaPlay), tr("Run"), this);
    m_runAction->setShortcut(Qt::Key_F5);
    m_runAction->setToolTip(tr("Evolve the model over the given number of steps of zero input "
                               "(F5); states carry over between runs"));
    connect(m_runAction, &QAction::triggered, this, &MainWindow::runInteractively);

    m_resetAction =
        new QAction(style()->standardIcon(QStyle::SP_BrowserReload), tr("Reset state"), this);
    m_resetAction->setToolTip(tr("Reset every module's state (membrane potentials, currents) "
                                 "to its initial value and restart time at zero"));
    connect(m_resetAction, &QAction::triggered, this, &MainWindow::resetState);
}

void MainWindow::buildMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_openAction);
    m_examplesMenu = file->addMenu(tr("&Examples"));
    const QStringList examples = bundledExamples();
    for (const QString& path : examples) {
        QAction* action = m_examplesMenu->addAction(QFileInfo(path).completeBaseName());
        action->setData(path);
        action->setStatusTip(tr("Open the bundled example %1").arg(QFileInfo(path).fileName()));
        connect(action, &QAction::triggered, this, [this, path] { openInteractively(path); });
    }
    if (examples.isEmpty()) {
        m_examplesMenu->addAction(tr("(none bundled)"))->setEnabled(false);
    }
    file->addSeparator();
    file->addAction(m_quitAction);

    QMenu* simulation = menuBar()->addMenu(tr("&Simulation"));
    simulation->addAction(m_runAction);
    simulation->addAction(m_resetAction);
}

void MainWindow::buildToolBar()
{
    QToolBar* bar = addToolBar(tr("Run"));
    bar->setObjectName(QStringLiteral("runToolBar"));
    bar->setMovable(false);
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    bar->addAction(m_runAction);
    auto* label = new QLabel(tr(" Steps: "), bar);
    m_steps = new QSpinBox(bar);
    m_steps->setRange(1, kMaxSteps);
    m_steps->setValue(kDefaultSteps);
    m_steps->setGroupSeparatorShown(true);
    m_steps->setToolTip(tr("Number of time steps one Run evolves (1 to %L1)").arg(kMaxSteps));
    m_steps->setMinimumWidth(110);
    label->setBuddy(m_steps);
    bar->addWidget(label);
    bar->addWidget(m_steps);
    // Before a run the plots show the window the next Run will cover; keep it current.
    connect(m_steps, &QSpinBox::valueChanged, this, [this] {
        if (!m_recording) {
            clearPlots(m_model ? tr("press Run to simulate") : tr("open a model (File ▸ Open…)"));
        }
    });
    bar->addSeparator();
    bar->addAction(m_resetAction);
}

void MainWindow::buildDocks()
{
    m_tree = new ModuleTreeWidget;
    m_modulesDock = new QDockWidget(tr("Modules"), this);
    m_modulesDock->setObjectName(QStringLiteral("modulesDock"));
    m_modulesDock->setWidget(m_tree);
    m_modulesDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::LeftDockWidgetArea, m_modulesDock);
    connect(m_tree, &ModuleTreeWidget::moduleSelected, this, &MainWindow::showSelectedModule);

    m_attributes = new AttributeTable;
    m_attributesDock = new QDockWidget(tr("Attributes"), this);
    m_attributesDock->setObjectName(QStringLiteral("attributesDock"));
    m_attributesDock->setWidget(m_attributes);
    m_attributesDock->setFeatures(QDockWidget::DockWidgetMovable |
                                  QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::RightDockWidgetArea, m_attributesDock);
}

void MainWindow::showEvent(QShowEvent* event)
{
    QMainWindow::showEvent(event);
    if (!m_docksSized) {
        // Dock widths only take once the window has its size. The tree gets its natural
        // width, the table enough to show values (bounds may need a scroll), both capped so
        // the plots keep at least kMinPlotShare of the window.
        constexpr double kMaxTreeShare = 0.18;
        constexpr double kMinPlotShare = 0.40;
        const int treeWidth = std::min(m_tree->naturalWidth(),
                                       static_cast<int>(kMaxTreeShare * width()));
        const int tableWidth =
            std::min(m_attributes->naturalWidth(AttributeTable::ValueColumn),
                     width() - treeWidth - static_cast<int>(kMinPlotShare * width()));
        resizeDocks({m_modulesDock, m_attributesDock}, {treeWidth, tableWidth}, Qt::Horizontal);
    }
}

void MainWindow::buildCentre()
{
    m_tracePlot = new TracePlot;
    m_rasterPlot = new RasterPlot;
    m_plotSplitter = new QSplitter(Qt::Vertical, this);
    m_plotSplitter->addWidget(m_tracePlot);
    m_plotSplitter->addWidget(m_rasterPlot);
    m_plotSplitter->setChildrenCollapsible(false);
    m_plotSplitter->setStretchFactor(0, 1);
    m_plotSplitter->setStretchFactor(1, 1);
    setCentralWidget(m_plotSplitter);

    // One time axis for both plots: dragging or zooming either moves the other.
    // QCPAxis::setRange emits only on change, so the pair settles after one round trip.
    connect(m_tracePlot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged),
            m_rasterPlot->xAxis, qOverload<const QCPRange&>(&QCPAxis::setRange));
    connect(m_rasterPlot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged),
            m_tracePlot->xAxis, qOverload<const QCPRange&>(&QCPAxis::setRange));
    connect(m_tracePlot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged),
            m_rasterPlot, [this] { m_rasterPlot->replot(QCustomPlot::rpQueuedReplot); });
    connect(m_rasterPlot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged),
            m_tracePlot, [this] { m_tracePlot->replot(QCustomPlot::rpQueuedReplot); });
    // Double-click on either plot: back to the whole run after dragging or zooming.
    connect(m_tracePlot, &QCustomPlot::mouseDoubleClick, this, &MainWindow::showWholeRun);
    connect(m_rasterPlot, &QCustomPlot::mouseDoubleClick, this, &MainWindow::showWholeRun);
}

bool MainWindow::openModel(const QString& path, QString* error)
{
    return adopt(loadModelFrom(path), path, error);
}

bool MainWindow::openModelFromJson(const QByteArray& text, const QString& sourceName,
                                   QString* error)
{
    return adopt(loadModelFromJson(text, sourceName, QStringLiteral(".")), sourceName, error);
}

bool MainWindow::adopt(LoadedModel loaded, const QString& source, QString* error)
{
    if (!loaded.root) {
        statusBar()->showMessage(tr("Could not open %1: %2").arg(source, loaded.error),
                                 kStatusTimeoutMs);
        if (error != nullptr) {
            *error = loaded.error;
        }
        return false;
    }
    m_model = std::move(loaded.root);
    m_source = source;
    m_recording.reset();
    setWindowTitle(tr("SpikeStudio — %1").arg(QFileInfo(source).fileName()));

    // Start on the first module with a membrane trace, so a first Run shows something.
    QString initial;
    for (const auto& [path, module] : m_model->namedModules()) {
        if (!membraneSignal(*module).empty()) {
            initial = QString::fromStdString(path);
            break;
        }
    }
    {
        const QSignalBlocker quiet(m_tree);  // one refresh below, not one per rebuild step
        m_tree->showModel(m_model.get());
        m_tree->selectPath(initial);
    }
    clearPlots(tr("press Run to simulate"));
    showSelectedModule(m_tree->selectedPath());
    updateControls();
    statusBar()->showMessage(tr("Opened %1: %2 modules")
                                 .arg(source)
                                 .arg(m_model->namedModules().size()),
                             kStatusTimeoutMs);
    return true;
}

bool MainWindow::runSteps(int steps, QString* error)
{
    const auto fail = [this, error](const QString& message) {
        statusBar()->showMessage(tr("Run failed: %1").arg(message), kStatusTimeoutMs);
        if (error != nullptr) {
            *error = message;
        }
        return false;
    };
    if (!m_model) {
        return fail(tr("no model is loaded"));
    }
    if (steps < 1 || steps > kMaxSteps) {
        return fail(tr("the number of steps must be between 1 and %L1, got %L2")
                        .arg(kMaxSteps)
                        .arg(steps));
    }
    engine::EvolveResult result;
    QElapsedTimer timer;
    try {
        const engine::Tensor input(engine::Shape{steps, m_model->sizeIn()});
        timer.start();
        result = m_model->evolve(input, engine::RecordSpec(true));
    } catch (const engine::Error& e) {
        return fail(QString::fromStdString(e.what()));
    } catch (const std::bad_alloc&) {
        return fail(tr("not enough memory to record %L1 steps of this model").arg(steps));
    } catch (const std::exception& e) {
        return fail(QString::fromStdString(e.what()));
    }
    const double elapsedMs = static_cast<double>(timer.nsecsElapsed()) * 1e-6;

    m_recording = std::move(result.record);
    m_rasterPlot->showRecording(*m_model, *m_recording);
    m_runStartMs = m_rasterPlot->xAxis->range().lower;
    m_runEndMs = m_rasterPlot->xAxis->range().upper;
    refreshTraces();
    m_attributes->showModule(moduleAt(selectedModulePath()));  // states changed
    updateControls();

    const SpikeSummary spikes = summariseSpikes(*m_recording);
    QString message = tr("Ran %L1 steps in %2 ms — %L3 spikes")
                          .arg(steps)
                          .arg(QLocale().toString(elapsedMs, 'f', elapsedMs < 10.0 ? 2 : 1))
                          .arg(spikes.spikes);
    if (spikes.multi > 0) {
        message += tr(" (%L1 steps where a neuron fired several spikes are drawn as one dot)")
                       .arg(spikes.multi);
    }
    statusBar()->showMessage(message, kStatusTimeoutMs);
    return true;
}

void MainWindow::resetState()
{
    if (!m_model) {
        return;
    }
    m_model->resetState();
    m_recording.reset();
    clearPlots(tr("state reset — press Run to simulate from t = 0"));
    showSelectedModule(selectedModulePath());
    updateControls();
    statusBar()->showMessage(tr("State reset: every module is back at its initial state, t = 0"),
                             kStatusTimeoutMs);
}

bool MainWindow::selectModule(const QString& path)
{
    return m_tree->selectPath(path);
}

const engine::Recording* MainWindow::lastRecording() const
{
    return m_recording ? &*m_recording : nullptr;
}

QString MainWindow::selectedModulePath() const
{
    return m_tree->selectedPath();
}

const engine::Module* MainWindow::moduleAt(const QString& path) const
{
    if (!m_model || path.isNull()) {
        return nullptr;
    }
    try {
        return &m_model->getSubmodule(path.toStdString());
    } catch (const engine::Error&) {
        return nullptr;  // the tree mirrors the model, so this means "nothing selected"
    }
}

void MainWindow::showSelectedModule(const QString& path)
{
    const engine::Module* module = moduleAt(path);
    m_attributes->showModule(module);
    m_attributesDock->setWindowTitle(module != nullptr
                                         ? tr("Attributes — %1").arg(describeModule(*module, path))
                                         : tr("Attributes"));
    refreshTraces();
}

void MainWindow::refreshTraces()
{
    const QString path = selectedModulePath();
    const engine::Module* selected = moduleAt(path);
    if (selected == nullptr) {
        m_tracePlot->showEmpty(tr("Membrane potential"),
                               tr("time [ms] — select a module to see its membrane potential"));
        return;
    }
    const engine::Module& module = *selected;
    const QString title = tr("Membrane potential — %1").arg(describeModule(module, path));
    if (!m_recording) {
        m_tracePlot->showEmpty(title, tr("time [ms] — press Run to record membrane potentials"));
        return;
    }
    const std::string signal = membraneSignal(module);
    const auto byModule = m_recording->find(path.toStdString());
    const engine::TimeSeries* membrane = nullptr;
    if (byModule != m_recording->end() && !signal.empty()) {
        const auto found = byModule->second.find(signal);
        membrane = found != byModule->second.end() ? &found->second : nullptr;
    }
    if (membrane == nullptr) {
        m_tracePlot->showEmpty(title, tr("time [ms] — %1 records no membrane potential; "
                                         "select a neuron layer")
                                          .arg(describeModule(module, path)));
        return;
    }
    m_tracePlot->showTraces(module, path, QString::fromStdString(signal), *membrane);
    // Keep the time window the user is looking at (the raster always holds the whole run).
    m_tracePlot->xAxis->setRange(m_rasterPlot->xAxis->range());
    m_tracePlot->replot();
}

void MainWindow::clearPlots(const QString& explanation)
{
    m_rasterPlot->showEmpty(tr("Spike raster"), tr("time [ms] — %1").arg(explanation));
    refreshTraces();
    // Show the time window the next Run will cover (the trace plot follows through the link).
    const double dtMs = m_model ? m_model->timeStep() * 1e3 : 1.0;
    const double startMs = m_model ? static_cast<double>(m_model->stepsElapsed()) * dtMs : 0.0;
    m_rasterPlot->xAxis->setRange(startMs, startMs + m_steps->value() * dtMs);
    m_rasterPlot->replot();
    m_tracePlot->replot();
}

void MainWindow::showWholeRun()
{
    if (!m_recording) {
        return;
    }
    m_rasterPlot->xAxis->setRange(m_runStartMs, m_runEndMs);  // the trace plot follows
    m_rasterPlot->replot();
    m_tracePlot->replot();
}

void MainWindow::updateControls()
{
    const bool loaded = m_model != nullptr;
    m_runAction->setEnabled(loaded);
    m_resetAction->setEnabled(loaded);
    m_steps->setEnabled(loaded);
    if (!loaded) {
        m_clock->setText(tr("no model"));
        return;
    }
    const double tMs = static_cast<double>(m_model->stepsElapsed()) * m_model->timeStep() * 1e3;
    m_clock->setText(tr("t = %1 ms (%L2 steps)")
                         .arg(QLocale().toString(tMs, 'f', 1))
                         .arg(m_model->stepsElapsed()));
}

void MainWindow::promptOpen()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open model"), m_lastDir,
        tr("SpikeStudio models (*.json);;All files (*)"));
    if (path.isEmpty()) {
        return;
    }
    m_lastDir = QFileInfo(path).absolutePath();
    openInteractively(path);
}

void MainWindow::openInteractively(const QString& path)
{
    QString error;
    if (!openModel(path, &error)) {
        QMessageBox::warning(this, tr("Could not open model"), error);
    }
}

void MainWindow::runInteractively()
{
    QString error;
    QApplication::setOverrideCursor(Qt::WaitCursor);
    const bool ok = runSteps(m_steps->value(), &error);
    QApplication::restoreOverrideCursor();
    if (!ok) {
        QMessageBox::warning(this, tr("Run failed"), error);
    }
}

}  // namespace spike::ui
