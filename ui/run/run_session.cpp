// RunSession: starting, editing, rebuilding and ending the run of one document, and its blocking
// runs. See run_session.hpp.
#include "ui/run/run_session.hpp"

#include "ui/document/off_thread.hpp"

#include "ui/run/live_run.hpp"
#include "engine/runtime/spike_window.hpp"

#include "engine/io/model_clone.hpp"
#include "engine/tensor/error.hpp"

#include <algorithm>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QLocale>
#include <QTimer>

#include <chrono>

namespace spike::ui {

namespace {

constexpr std::chrono::milliseconds kRunWait{60'000};

}  // namespace

RunSession::RunSession(GraphDocument& document, QObject* parent) : QObject(parent), m_doc(document)
{
    connect(&m_doc, &GraphDocument::documentReset, this, [this] { drop(tr("press Run to simulate")); });
    for (auto signal : {&GraphDocument::nodeAdded, &GraphDocument::nodeRemoved, &GraphDocument::nodeRenamed}) {
        connect(&m_doc, signal, this, [this] {
            if (m_live) {
                scheduleRebuild();
            }
        });
    }
    connect(&m_doc, &GraphDocument::attributeChanged, this, &RunSession::onAttributeChanged);
}

RunSession::~RunSession()
{
    shutdown();
}

void RunSession::setBackend(engine::BackendKind kind)
{
    m_backend = kind;
    if (m_live) {
        m_live->setBackend(kind);
    }
}

void RunSession::setThreads(int threads)
{
    m_threads = std::max(0, threads);
    if (m_live) {
        m_live->setThreads(m_threads);
    }
}

void RunSession::setSpeed(engine::Speed speed)
{
    m_speed = speed;
    applySpeed();
}

void RunSession::applySpeed()
{
    if (m_live) {
        m_live->setSpeed(m_speed);
    }
}

bool RunSession::ensure(QString* error)
{
    rebuildNow();
    if (m_live) {
        return true;
    }
    try {
        // The worker owns its own copy: the document stays editable and keeps initial states.
        LiveRunOptions options;
        options.backend = m_backend;
        options.threads = m_threads;
        options.speed = m_speed;
        // Copying a large model takes a while: off the GUI thread, the window keeps drawing.
        std::unique_ptr<engine::Module> copy;
        runOffThread(tr("Copying the model for the run"), [&] { copy = engine::cloneModule(m_doc.root()); });
        m_live = std::make_unique<LiveRun>(std::move(copy), m_tracedPath ? m_tracedPath() : QString(), options);
    } catch (const engine::Error& e) {
        const QString text = QString::fromUtf8(e.what());
        Q_EMIT message(tr("Cannot run: %1").arg(text));
        if (error != nullptr) {
            *error = text;
        }
        return false;
    }
    connect(m_live.get(), &LiveRun::updated, this, &RunSession::updated);
    connect(m_live.get(), &LiveRun::tracesChanged, this, &RunSession::tracesChanged);
    connect(m_live.get(), &LiveRun::runningChanged, this, &RunSession::runningChanged);
    connect(m_live.get(), &LiveRun::failed, this, [this](const QString& text) {
        Q_EMIT message(tr("Simulation: %1").arg(text));
    });
    Q_EMIT started();
    return true;
}

void RunSession::onAttributeChanged(NodeId id, const QString& name)
{
    const engine::Module* module = m_doc.module(id);
    if (!m_live || module == nullptr) {
        return;
    }
    const engine::AttributeSpec& spec = module->spec(name.toStdString());
    if (spec.liveEditable || !m_live->isRunning()) {
        m_live->setAttribute(QString::fromStdString(m_doc.path(id)), spec.name, module->attribute(spec.name));
    } else {
        scheduleRebuild();
    }
}

void RunSession::scheduleRebuild()
{
    if (!m_rebuildPending) {
        m_rebuildPending = true;
        QTimer::singleShot(0, this, &RunSession::rebuildNow);
    }
}

void RunSession::rebuildNow()
{
    if (!m_rebuildPending) {
        return;
    }
    m_rebuildPending = false;
    if (!m_live) {
        return;
    }
    QString why;
    try {
        std::unique_ptr<engine::Module> copy;
        runOffThread(tr("Copying the edited model"), [&] { copy = engine::cloneModule(m_doc.root()); });
        if (m_live->replaceModel(std::move(copy), &why)) {
            const double tMs = static_cast<double>(m_live->currentStep()) * m_live->timeStep() * 1e3;
            Q_EMIT rebuilt();
            Q_EMIT message(tr("Model rebuilt after the edit — continuing at t = %1 ms")
                               .arg(QLocale().toString(tMs, 'f', 1)));
            Q_EMIT updated();
            return;
        }
    } catch (const engine::Error& e) {
        why = QString::fromUtf8(e.what());
    }
    drop(tr("the edited model cannot run: %1").arg(why));
    Q_EMIT message(tr("The edited model cannot run: %1").arg(why));
}

void RunSession::drop(const QString& reason)
{
    m_rebuildPending = false;
    m_live.reset();
    Q_EMIT dropped(reason);
}

void RunSession::shutdown()
{
    m_rebuildPending = false;
    m_live.reset();  // joins the worker
}

void RunSession::reset()
{
    drop(tr("reset: Run starts at t = 0"));
    Q_EMIT message(tr("State reset: the next run starts at t = 0 from the initial states"));
}

bool RunSession::runSteps(int steps, QString* error)
{
    const auto fail = [this, error](const QString& text) {
        Q_EMIT message(tr("Run failed: %1").arg(text));
        if (error != nullptr) {
            *error = text;
        }
        return false;
    };
    if (steps < 1 || steps > kMaxSteps) {
        return fail(tr("the number of steps must be between 1 and %L1, got %L2").arg(kMaxSteps).arg(steps));
    }
    QString why;
    if (!ensure(&why)) {
        return fail(why);
    }
    QString failure;
    const QMetaObject::Connection watch =
        connect(m_live.get(), &LiveRun::failed, this, [&failure](const QString& m) { failure = m; });
    QElapsedTimer timer;
    timer.start();
    m_live->setSpeed(engine::Speed::fastest());  // the caller waits: no pacing
    m_live->step(steps);
    const bool idle = m_live->waitIdle(kRunWait);
    applySpeed();
    const double elapsedMs = static_cast<double>(timer.nsecsElapsed()) * 1e-6;
    disconnect(watch);
    if (!idle) {
        return fail(tr("the simulation did not finish %L1 steps within %2 s").arg(steps).arg(kRunWait.count() / 1000));
    }
    Q_EMIT updated();
    if (!failure.isEmpty()) {
        return fail(failure);
    }
    const engine::SpikeSummary spikes = engine::summariseSpikes(m_live->spikeWindows());
    QString text = tr("Ran %L1 steps in %2 ms — %L3 spikes in the plotted window")
                       .arg(steps)
                       .arg(QLocale().toString(elapsedMs, 'f', elapsedMs < 10.0 ? 2 : 1))
                       .arg(spikes.spikes);
    if (spikes.multi > 0) {
        text += tr(" (%L1 steps where a neuron fired several spikes are drawn as one dot)").arg(spikes.multi);
    }
    Q_EMIT message(text);
    return true;
}

bool RunSession::runFor(double seconds, QString* error)
{
    QString why;
    if (!(seconds > 0.0) || seconds > 3600.0) {
        why = tr("the run time must be between 0 and 3600 s, got %1").arg(seconds);
    } else if (ensure(&why)) {
        QString failure;
        const QMetaObject::Connection watch =
            connect(m_live.get(), &LiveRun::failed, this, [&failure](const QString& m) { failure = m; });
        applySpeed();
        m_live->run();
        QEventLoop loop;
        QTimer::singleShot(static_cast<int>(seconds * 1000.0), &loop, &QEventLoop::quit);
        loop.exec();  // the plots redraw from LiveRun's timer meanwhile
        // An edit during the wait may have dropped the run (a model that cannot run).
        const bool idle = !m_live || (m_live->pause(), m_live->waitIdle(kRunWait));
        disconnect(watch);
        Q_EMIT updated();
        Q_EMIT runningChanged();
        why = !idle ? tr("the simulation did not pause") : failure;
        if (why.isEmpty()) {
            return true;
        }
    }
    Q_EMIT message(tr("Run failed: %1").arg(why));
    if (error != nullptr) {
        *error = why;
    }
    return false;
}

void RunSession::toggle()
{
    if (m_live && m_live->isRunning()) {
        m_live->pause();
        return;
    }
    if (ensure()) {
        applySpeed();  // a Step before ran unpaced
        m_live->run();
    }
}

void RunSession::step(int steps)
{
    if (ensure()) {
        // A Step runs as fast as it can (1000 steps at x0.01 would take 100 s); Run paces again.
        m_live->setSpeed(engine::Speed::fastest());
        m_live->step(steps);
    }
}

bool RunSession::isRunning() const
{
    return m_live && m_live->isRunning();
}

std::int64_t RunSession::currentStep() const
{
    return m_live ? m_live->currentStep() : 0;
}

double RunSession::timeStep() const
{
    return m_live ? m_live->timeStep() : m_doc.root().timeStep();
}

bool RunSession::readStates(const QString& path, RunStates* out, bool whileRunning) const
{
    return m_live && (whileRunning || !m_live->isRunning()) && m_live->readStates(path, out);
}

bool RunSession::readActivations(const QString& path,
                                 std::map<std::string, engine::ActivationSnapshot>* out) const
{
    return m_live && m_live->readActivations(path, out);
}

void RunSession::stopActivations() const
{
    if (m_live) {
        m_live->stopActivations();
    }
}

QString RunSession::editRefusal(const engine::AttributeSpec& spec) const
{
    if (isRunning() && !spec.liveEditable) {
        return tr("Pause to change %1: it needs a rebuild of the simulation").arg(QString::fromStdString(spec.name));
    }
    return {};
}

}  // namespace spike::ui
