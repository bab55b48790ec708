// MainWindow: running the document's model and drawing what it records. The simulation runs on
// a copy of the document's model inside a LiveRun (one SimulationController worker); the plots
// redraw when LiveRun's timer has drained new samples, never per step. See main_window.hpp.
#include "ui/window/main_window.hpp"

#include "ui/document/document_file.hpp"
#include "ui/document/graph_commands.hpp"
#include "ui/run/live_run.hpp"
#include "ui/plots/raster_plot.hpp"
#include "ui/plots/trace_plot.hpp"

#include "engine/tensor/error.hpp"
#include "engine/io/model_clone.hpp"

#include <QAction>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QSignalBlocker>
#include <QUndoStack>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QLabel>
#include <QLocale>
#include <QSpinBox>
#include <QStatusBar>
#include <QStyle>
#include <QTimer>

#include <chrono>

namespace spike::ui {

namespace {

constexpr std::chrono::milliseconds kRunWait{60'000};

}  // namespace

const engine::Recording* MainWindow::lastRecording() const
{
    return m_run && m_run->currentStep() > 0 ? &m_run->recording() : nullptr;
}

std::int64_t MainWindow::simulatedSteps() const
{
    return m_run ? m_run->currentStep() : 0;
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

bool MainWindow::ensureRun(QString* error)
{
    rebuildRun();
    if (m_run) {
        return true;
    }
    try {
        // The worker owns its own copy: the document stays editable and keeps initial states.
        LiveRunOptions options;
        options.backend = static_cast<engine::BackendKind>(m_backend->currentData().toInt());
        m_run = std::make_unique<LiveRun>(engine::cloneModule(m_doc->root()), tracedPath(), options);
    } catch (const engine::Error& e) {
        const QString message = QString::fromUtf8(e.what());
        statusBar()->showMessage(tr("Cannot run: %1").arg(message));
        if (error != nullptr) {
            *error = message;
        }
        return false;
    }
    connect(m_run.get(), &LiveRun::updated, this, &MainWindow::refreshPlots);
    connect(m_run.get(), &LiveRun::tracesChanged, this, &MainWindow::attachPlotRequests);
    attachPlotRequests();
    connect(m_run.get(), &LiveRun::runningChanged, this, &MainWindow::updateRunControls);
    connect(m_run.get(), &LiveRun::failed, this, [this](const QString& message) {
        statusBar()->showMessage(tr("Simulation: %1").arg(message));
    });
    applySpeed();
    return true;
}

void MainWindow::scheduleRebuild()
{
    if (!m_rebuildPending) {
        m_rebuildPending = true;
        QTimer::singleShot(0, this, &MainWindow::rebuildRun);
    }
}

void MainWindow::rebuildRun()
{
    if (!m_rebuildPending) {
        return;
    }
    m_rebuildPending = false;
    if (!m_run) {
        return;
    }
    QString message;
    try {
        if (m_run->replaceModel(engine::cloneModule(m_doc->root()), &message)) {
            const double tMs = static_cast<double>(m_run->currentStep()) * m_run->timeStep() * 1e3;
            attachPlotRequests();  // panes whose module came back record again
            statusBar()->showMessage(tr("Model rebuilt after the edit — continuing at t = %1 ms")
                                         .arg(QLocale().toString(tMs, 'f', 1)));
            refreshPlots();
            return;
        }
    } catch (const engine::Error& e) {
        message = QString::fromUtf8(e.what());
    }
    dropRun(tr("the edited model cannot run: %1").arg(message));
    statusBar()->showMessage(tr("The edited model cannot run: %1").arg(message));
}

void MainWindow::dropRun(const QString& reason)
{
    m_rebuildPending = false;
    m_run.reset();
    for (PlotRequest& request : m_plotRequests) {
        request.traceId = 0;
    }
    clearPlots(reason);
    updateRunControls();
}

bool MainWindow::runSteps(int steps, QString* error)
{
    const auto fail = [this, error](const QString& message) {
        statusBar()->showMessage(tr("Run failed: %1").arg(message));
        if (error != nullptr) {
            *error = message;
        }
        return false;
    };
    if (steps < 1 || steps > kMaxSteps) {
        return fail(tr("the number of steps must be between 1 and %L1, got %L2").arg(kMaxSteps).arg(steps));
    }
    QString message;
    if (!ensureRun(&message)) {
        return fail(message);
    }
    QString failure;
    const QMetaObject::Connection watch =
        connect(m_run.get(), &LiveRun::failed, this, [&failure](const QString& m) { failure = m; });
    QElapsedTimer timer;
    timer.start();
    m_run->setSpeed(engine::Speed::fastest());  // the caller waits: no pacing
    m_run->step(steps);
    const bool idle = m_run->waitIdle(kRunWait);
    applySpeed();
    const double elapsedMs = static_cast<double>(timer.nsecsElapsed()) * 1e-6;
    disconnect(watch);
    if (!idle) {
        return fail(tr("the simulation did not finish %L1 steps within %2 s").arg(steps).arg(kRunWait.count() / 1000));
    }
    refreshPlots();
    if (!failure.isEmpty()) {
        return fail(failure);
    }
    const engine::SpikeSummary spikes = engine::summariseSpikes(m_run->spikeWindows());
    QString text = tr("Ran %L1 steps in %2 ms — %L3 spikes in the plotted window")
                       .arg(steps)
                       .arg(QLocale().toString(elapsedMs, 'f', elapsedMs < 10.0 ? 2 : 1))
                       .arg(spikes.spikes);
    if (spikes.multi > 0) {
        text += tr(" (%L1 steps where a neuron fired several spikes are drawn as one dot)").arg(spikes.multi);
    }
    statusBar()->showMessage(text);
    return true;
}

bool MainWindow::runFor(double seconds, QString* error)
{
    QString message;
    if (!(seconds > 0.0) || seconds > 3600.0) {
        message = tr("the run time must be between 0 and 3600 s, got %1").arg(seconds);
    } else if (ensureRun(&message)) {
        QString failure;
        const QMetaObject::Connection watch =
            connect(m_run.get(), &LiveRun::failed, this, [&failure](const QString& m) { failure = m; });
        m_run->run();
        QEventLoop loop;
        QTimer::singleShot(static_cast<int>(seconds * 1000.0), &loop, &QEventLoop::quit);
        loop.exec();  // the plots redraw from LiveRun's timer meanwhile
        m_run->pause();
        const bool idle = m_run->waitIdle(kRunWait);
        disconnect(watch);
        refreshPlots();
        updateRunControls();
        message = !idle ? tr("the simulation did not pause") : failure;
        if (message.isEmpty()) {
            return true;
        }
    }
    statusBar()->showMessage(tr("Run failed: %1").arg(message));
    if (error != nullptr) {
        *error = message;
    }
    return false;
}

void MainWindow::resetState()
{
    dropRun(tr("state reset — press Run to simulate from t = 0"));
    statusBar()->showMessage(tr("State reset: the next run starts at t = 0 from the initial states"));
}

bool MainWindow::isRunning() const
{
    return m_run && m_run->isRunning();
}

void MainWindow::toggleRun()
{
    if (m_run && m_run->isRunning()) {
        m_run->pause();
        return;
    }
    QString error;
    if (ensureRun(&error)) {
        m_run->run();
    }
}

void MainWindow::stepInteractively()
{
    QString error;
    if (ensureRun(&error)) {
        m_run->step(m_steps->value());
    }
}

void MainWindow::applySpeed()
{
    if (m_run && m_speed != nullptr) {
        const double factor = m_speed->currentData().toDouble();
        m_run->setSpeed(factor > 0.0 ? engine::Speed::realTime(factor) : engine::Speed::fastest());
    }
}

void MainWindow::applyBackend()
{
    if (m_run) {
        m_run->setBackend(static_cast<engine::BackendKind>(m_backend->currentData().toInt()));
    }
}

void MainWindow::showTimeStep()
{
    const QSignalBlocker quiet(m_dt);
    for (const auto& [path, module] : m_doc->root().namedModules()) {
        for (const auto& view : module->attributes()) {
            if (view.spec->name == "dt" && std::holds_alternative<engine::Tensor>(*view.value)) {
                m_dt->setEnabled(true);
                m_dt->setValue(static_cast<double>(std::get<engine::Tensor>(*view.value)[0]) * 1e3);
                return;
            }
        }
    }
    m_dt->setEnabled(false);
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
    if (!m_run || !m_run->isRunning() || steps < m_rateSteps) {
        m_stepsPerSecond = 0.0;
        m_rateSteps = steps;
        m_rateStartMs = now;
    } else if (now - m_rateStartMs >= 500) {
        m_stepsPerSecond = static_cast<double>(steps - m_rateSteps) * 1e3 / static_cast<double>(now - m_rateStartMs);
        m_rateSteps = steps;
        m_rateStartMs = now;
    }
    m_rate->setText(m_stepsPerSecond > 0.0 ? tr("%L1 steps/s").arg(m_stepsPerSecond, 0, 'f', 0) : QString());
}

void MainWindow::updateRunControls()
{
    measureRate();
    const bool running = m_run && m_run->isRunning();
    m_runAction->setText(running ? tr("Pause") : tr("Run"));
    m_runAction->setIcon(style()->standardIcon(running ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
    const std::int64_t steps = simulatedSteps();
    const double dtMs = (m_run ? m_run->timeStep() : m_doc->root().timeStep()) * 1e3;
    m_clock->setText(tr("t = %1 ms (%L2 steps)%3")
                         .arg(QLocale().toString(static_cast<double>(steps) * dtMs, 'f', 1))
                         .arg(steps)
                         .arg(running ? tr(" — running") : QString()));
}

}  // namespace spike::ui
