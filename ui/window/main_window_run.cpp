// MainWindow: the run controls. The run policy (starting, live edits, rebuilds, blocking runs)
// is the RunSession's (ui/run/run_session.hpp); here the toolbar feeds it (speed, backend, time
// step) and shows where it stands (Run/Pause, clock, steps per second). See main_window.hpp.
#include "ui/window/main_window.hpp"

#include "ui/document/document_file.hpp"
#include "ui/document/off_thread.hpp"
#include "ui/document/graph_commands.hpp"
#include "ui/inspector/equation_panel.hpp"
#include "ui/inspector/inspector.hpp"
#include "ui/run/live_run.hpp"
#include "ui/run/run_session.hpp"

#include "engine/equations/native.hpp"
#include "engine/tensor/decimal.hpp"

#include <algorithm>

#include <QAction>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QSignalBlocker>
#include <QUndoStack>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QStatusBar>
#include <QStyle>
#include <QTimer>

namespace spike::ui {

LiveRun* MainWindow::run() const
{
    return m_session->live();
}

const engine::Recording* MainWindow::lastRecording() const
{
    return run() != nullptr && run()->currentStep() > 0 ? &run()->recording() : nullptr;
}

std::int64_t MainWindow::simulatedSteps() const
{
    return m_session->currentStep();
}

QString MainWindow::tracedPath() const
{
    if (const engine::Module* m = m_doc->module(m_inspected); m != nullptr && !m->membraneSignal().empty()) {
        return selectedModulePath();
    }
    for (const auto& [path, module] : m_doc->root().namedModules()) {
        if (!module->membraneSignal().empty()) {
            return QString::fromStdString(path);
        }
    }
    return {};
}

bool MainWindow::runSteps(int steps, QString* error)
{
    return m_session->runSteps(steps, error);
}

bool MainWindow::runFor(double seconds, QString* error)
{
    return m_session->runFor(seconds, error);
}

void MainWindow::resetState()
{
    m_session->reset();
}

bool MainWindow::isRunning() const
{
    return m_session->isRunning();
}

void MainWindow::onRunDropped(const QString& reason)
{
    for (PlotRequest& request : m_plotRequests) {
        request.traceId = 0;
    }
    clearPlots(reason);
    updateRunControls();
}

void MainWindow::applySpeed()
{
    // A model without a time step has no real time to keep pace with (its steps would be taken
    // as one second each): it runs as fast as it can, and the box says so.
    const bool timed = m_dt->isEnabled();
    m_speed->setEnabled(timed);
    m_speed->setToolTip(timed ? tr("Simulated time per wall-clock time while running")
                              : tr("This model has no time step: it runs as fast as possible"));
    const double factor = m_speed->currentData().toDouble();
    m_session->setSpeed(timed && factor > 0.0 ? engine::Speed::realTime(factor) : engine::Speed::fastest());
}

void MainWindow::applyBackend()
{
    m_session->setBackend(static_cast<engine::BackendKind>(m_backend->currentData().toInt()));
}

void MainWindow::showTimeStep()
{
    const std::string conflict = m_doc->root().timeStepConflict();
    const QString tip = tr("Time step of every module that has one (undoable; needs a rebuild while running)");
    if (conflict.empty()) {
        m_dt->setToolTip(tip);
    } else {
        m_dt->setToolTip(tip + QStringLiteral("\n\n") +
                         tr("Warning: %1. Every module advances by its own dt each step, so their times drift "
                            "apart; a value entered here gives every module the same dt.")
                             .arg(QString::fromStdString(conflict)));
        if (conflict != m_timeStepConflict) {
            statusBar()->showMessage(tr("Warning: %1 (the dt box gives every module one)").arg(QString::fromStdString(conflict)),
                                     30000);
        }
    }
    m_timeStepConflict = conflict;
    const QSignalBlocker quiet(m_dt);
    for (const auto& [path, module] : m_doc->root().namedModules()) {
        for (const auto& view : module->attributes()) {
            if (view.spec->name == "dt" && std::holds_alternative<engine::Tensor>(*view.value)) {
                m_dt->setEnabled(true);
                m_dt->setMinimum(kMinTimeStepMs);
                m_dt->setValue(engine::shortestDecimal(std::get<engine::Tensor>(*view.value)[0]) * 1e3);
                applySpeed();
                return;
            }
        }
    }
    // No module has a time step (an empty document): the field says so instead of showing its
    // minimum as if it were a value.
    m_dt->setMinimum(0.0);
    m_dt->setValue(0.0);
    m_dt->setEnabled(false);
    applySpeed();
}

void MainWindow::applyTimeStep()
{
    const engine::Tensor dt = engine::Tensor::scalar(static_cast<float>(m_dt->value() * 1e-3));
    std::vector<NodeId> targets;
    for (const auto& [path, module] : m_doc->root().namedModules()) {
        for (const auto& view : module->attributes()) {
            if (view.spec->name == "dt" && !view.derived && std::holds_alternative<engine::Tensor>(*view.value)
                && !std::get<engine::Tensor>(*view.value).identical(dt)) {
                targets.push_back(m_doc->findNode(path));
            }
        }
    }
    if (targets.empty()) {
        return;
    }
    QUndoStack* undo = m_doc->undoStack();
    undo->beginMacro(tr("Set dt to %1 ms").arg(m_dt->value()));
    for (NodeId id : targets) {
        const engine::Status status = pushCommand(*m_doc, std::make_unique<SetAttributeCommand>(*m_doc, id, "dt", dt));
        if (!status.ok) {
            statusBar()->showMessage(tr("dt refused: %1").arg(QString::fromStdString(status.message)));
        }
    }
    undo->endMacro();
    showTimeStep();
}

void MainWindow::measureRate()
{
    const qint64 now = m_wallClock.elapsed();
    const std::int64_t steps = simulatedSteps();
    if (!m_session->isRunning() || steps < m_rateSteps) {
        m_stepsPerSecond = 0.0;
        m_rateSteps = steps;
        m_rateStartMs = now;
    } else if (now - m_rateStartMs >= 500) {
        m_stepsPerSecond = static_cast<double>(steps - m_rateSteps) * 1e3 / static_cast<double>(now - m_rateStartMs);
        m_rateSteps = steps;
        m_rateStartMs = now;
    }
    m_rate->setText(m_stepsPerSecond > 0.0 ? rateText(m_stepsPerSecond, m_dt->isEnabled() ? m_session->timeStep() : 0.0)
                                           : QString());
}

void MainWindow::refreshRunStates()
{
    if (run() == nullptr) {
        m_inspector->showRunStates(tr("States"));
        return;
    }
    RunStates states;
    if (m_session->isRunning() || !m_doc->contains(m_inspected) || !m_session->readStates(selectedModulePath(), &states)) {
        m_inspector->showRunStates(tr("States — initial values"), {},
                                   tr("The simulation runs on its own copy of the model: these are the values it "
                                      "started from and Reset returns to. Its live values show here when it "
                                      "pauses, and in the plots"));
        return;
    }
    const QString when = m_dt->isEnabled()
                             ? tr("t = %1 ms").arg(QLocale().toString(static_cast<double>(states.step) * m_session->timeStep() * 1e3, 'f', 1))
                             : tr("step %L1").arg(states.step);
    m_inspector->showRunStates(tr("States — paused"), std::move(states.values),
                               tr("The paused simulation's values at %1. Editing one changes it in the simulation "
                                  "and as the model's initial value; Reset returns to the initial values")
                                   .arg(when));
}

void MainWindow::refreshEquationValues()
{
    const NodeId shown = m_equations->node();
    const engine::Module* module = m_doc->module(shown);
    if (module == nullptr || !m_equationPanel->valuesShown()) {
        m_equationPanel->setNeuronCount(module != nullptr ? neuronCountOf(*module) : 0);
        m_equationPanel->showValues(std::nullopt, {});
        return;
    }
    m_equationPanel->setNeuronCount(neuronCountOf(*module));
    const std::int64_t neuron = m_equationPanel->neuron();
    RunStates states;
    if (run() != nullptr && m_session->readStates(QString::fromStdString(m_doc->path(shown)), &states, true)) {
        const double t = static_cast<double>(states.step) * m_session->timeStep();
        const QString when = m_dt->isEnabled()
                                 ? tr("t = %1 ms").arg(QLocale().toString(t * 1e3, 'f', 1))
                                 : tr("step %L1").arg(states.step);
        m_equationPanel->showValues(equationValuesOf(*module, &states.values, neuron, t),
                                    m_session->isRunning() ? tr("%1, running").arg(when) : tr("%1, paused").arg(when));
        return;
    }
    m_equationPanel->showValues(equationValuesOf(*module, nullptr, neuron, 0.0),
                                tr("The model's initial values: Run or Step to follow the simulation"));
}

QString MainWindow::rateText(double stepsPerSecond, double dtS)
{
    QString text = tr("%L1 steps/s").arg(stepsPerSecond, 0, 'f', 0);
    if (dtS > 0.0) {
        // Simulated seconds per wall second: ×1 is real time, ×0.1 ten times slower.
        text += tr(" · ×%1 real time").arg(QLocale().toString(stepsPerSecond * dtS, 'g', 3));
    }
    return text;
}

QString MainWindow::clockText() const
{
    return m_clock->text();
}

bool MainWindow::isPreparingShown() const
{
    return m_preparing != nullptr && !m_preparing->isHidden();
}

void MainWindow::setPreparingDelay(int ms)
{
    buildPreparingIndicator();
    m_preparingTimer->setInterval(std::max(0, ms));
}

void MainWindow::buildPreparingIndicator()
{
    if (m_preparing != nullptr) {
        return;
    }
    constexpr int kDefaultDelayMs = 150;
    constexpr int kBarWidth = 90;  // [px]
    auto* bar = new QProgressBar(this);
    bar->setRange(0, 0);  // busy: how long the build takes is not known in advance
    bar->setTextVisible(false);
    bar->setFixedWidth(kBarWidth);
    bar->setToolTip(tr("The simulation thread is copying the model, drawing its synapses and "
                       "planning the steps; the window stays usable meanwhile"));
    m_preparing = bar;
    statusBar()->insertPermanentWidget(0, m_preparing);
    m_preparing->hide();
    m_preparingTimer = new QTimer(this);
    m_preparingTimer->setSingleShot(true);
    m_preparingTimer->setInterval(kDefaultDelayMs);
    connect(m_preparingTimer, &QTimer::timeout, this, [this] {
        // Not while a run that already reported paused (it failed, or was paused at once).
        if (run() != nullptr && simulatedSteps() == 0 && (!m_runReported || run()->isRunning())) {
            m_preparing->show();
            statusBar()->showMessage(tr("Preparing the run: copying the model, drawing synapses, planning the steps…"));
        }
    });
    // A new run is being built until its first steps arrive (the simulation thread reports it
    // running before it draws the synapses on its first step); a pause or failure reported
    // before that, or the run's end, ends the wait too.
    connect(m_session, &RunSession::started, this, [this] {
        m_runReported = false;
        m_preparingTimer->start();
    });
    connect(m_session, &RunSession::runningChanged, this, [this] {
        m_runReported = true;
        if (run() == nullptr || !run()->isRunning()) {
            endPreparing();
        }
    });
    connect(m_session, &RunSession::dropped, this, &MainWindow::endPreparing);

    // Work the window waits on off the GUI thread (opening a file, copying or building a run):
    // after the same delay the bar and "Opening NAME…" say so.
    auto* waitTimer = new QTimer(this);
    waitTimer->setSingleShot(true);
    connect(&OffThreadMonitor::instance(), &OffThreadMonitor::started, this, [this, waitTimer](const QString& what) {
        waitTimer->setProperty("text", what + QStringLiteral("…"));
        waitTimer->start(m_preparingTimer->interval());
    });
    connect(waitTimer, &QTimer::timeout, this, [this, waitTimer] {
        m_preparing->show();
        statusBar()->showMessage(waitTimer->property("text").toString());
    });
    connect(&OffThreadMonitor::instance(), &OffThreadMonitor::finished, this, [this, waitTimer] {
        waitTimer->stop();
        endPreparing();
    });
}

void MainWindow::reportNativeFailure()
{
    const std::string failure = engine::equations::lastNativeFailure();
    if (failure.empty() || failure == m_nativeFailureShown) {
        return;
    }
    m_nativeFailureShown = failure;
    statusBar()->showMessage(tr("Equation neurons run interpreted, 3 to 5 times slower, since their native code "
                                "could not be built: %1")
                                 .arg(QString::fromStdString(failure)),
                             30000);
}

void MainWindow::endPreparing()
{
    m_preparingTimer->stop();
    if (!m_preparing->isHidden()) {
        m_preparing->hide();
        statusBar()->clearMessage();
    }
}

void MainWindow::updateRunControls()
{
    measureRate();
    const bool running = m_session->isRunning();
    buildPreparingIndicator();
    if (simulatedSteps() > 0) {
        endPreparing();  // the first steps are in
    }

    m_runAction->setText(running ? tr("Pause") : tr("Run"));
    m_runAction->setIcon(style()->standardIcon(running ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
    const std::int64_t steps = simulatedSteps();
    const QString state = running ? tr(" — running") : QString();
    if (!m_dt->isEnabled()) {
        // No module has a time step (a pure ANN): its time is counted in steps only.
        m_clock->setText(tr("%L1 steps%2").arg(steps).arg(state));
        return;
    }
    const double dtMs = m_session->timeStep() * 1e3;
    m_clock->setText(tr("t = %1 ms (%L2 steps)%3")
                         .arg(QLocale().toString(static_cast<double>(steps) * dtMs, 'f', 1))
                         .arg(steps)
                         .arg(state));
}

}  // namespace spike::ui
