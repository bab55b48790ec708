// LiveRun: construction, the run commands, draining probe data into the spike windows and the
// rolling trace series (staging, committing, windows, gaps, resets), and the dense spike series
// of recording(). Traces are in live_run_traces.cpp, model preparation and rebuilds in
// live_run_rebuild.cpp. See live_run.hpp. GUI thread only.
#include "ui/run/live_run.hpp"

#include "ui/document/off_thread.hpp"

#include "engine/tensor/error.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace spike::ui {

namespace {

std::int64_t rowsOf(const engine::Tensor& data)
{
    return data.rank() >= 1 ? data.dim(0) : 0;
}

}  // namespace

QString LiveRun::describePath(const std::string& path)
{
    return path.empty() ? tr("the root") : QStringLiteral("'%1'").arg(QString::fromStdString(path));
}

LiveRun::LiveRun(std::unique_ptr<engine::Module> model, const QString& tracedPath,
                 LiveRunOptions options, QObject* parent)
    : QObject(parent), m_options(options), m_tracedPath(tracedPath)
{
    if (!model) {
        throw engine::Error("LiveRun: no model to run");
    }
    m_currentStep = model->stepsElapsed();
    // Preparing (a copy for the plots, the plan) and the controller's first build take a while
    // for a large model: off the GUI thread, the window keeps drawing.
    Prepared prepared;
    runOffThread(tr("Building the run"), [&] {
        prepared = prepare(std::move(model));
        m_controller = makeController(std::move(prepared.running));
    });
    m_probePaths = std::move(prepared.probePaths);
    m_tracks = std::move(prepared.spikeTracks);
    m_plotModel = std::move(prepared.plot);
    m_dt = m_plotModel->timeStep();

    applyPrimary(false);  // before the window is computed: its channels count too
    computeWindow();
    for (Track& track : m_tracks) {
        attachProbe(track);
    }

    m_timer.setInterval(std::max(1, m_options.refreshIntervalMs));
    m_timer.setTimerType(Qt::PreciseTimer);  // a coarse timer may stretch 16 ms to 20
    connect(&m_timer, &QTimer::timeout, this, &LiveRun::poll);
    m_timer.start();
}

LiveRun::~LiveRun()
{
    m_timer.stop();
    m_controller.reset();  // joins the worker
}

void LiveRun::run()
{
    m_freeRunning = true;
    m_controller->run();
}

void LiveRun::pause()
{
    m_freeRunning = false;
    m_controller->pause();
}

void LiveRun::step(std::int64_t steps)
{
    m_freeRunning = false;
    m_controller->step(steps);
}

void LiveRun::resetState()
{
    m_controller->resetState();
}

void LiveRun::setSpeed(engine::Speed speed)
{
    if (std::isfinite(speed.factor) && speed.factor >= 0.0) {
        m_options.speed = speed;  // the controller refuses anything else
    }
    m_controller->setSpeed(speed);
}

void LiveRun::setBackend(engine::BackendKind kind)
{
    m_controller->setBackend(kind);
}

void LiveRun::setThreads(int threads)
{
    if (threads >= 0) {
        m_options.threads = threads;  // the controller refuses anything else
    }
    m_controller->setThreads(threads);
}

void LiveRun::setAttribute(const QString& path, const std::string& name, const engine::AttributeValue& value)
{
    const std::string p = path.toStdString();
    m_controller->setAttribute(p, name, value);
    // A refusal here is the controller's refusal too; its Error event reports it.
    (void)m_plotModel->setAttributes(engine::NestedAttributes{{p, engine::AttributeMap{{name, value}}}});
}

void LiveRun::computeWindow()
{
    std::int64_t channels = 0;
    for (const Track& track : m_tracks) {
        channels += track.spikes ? 0 : track.width;
    }
    std::int64_t window = std::max<std::int64_t>(1, m_options.maxWindowSteps);
    if (channels > 0) {
        window = std::min(window, std::max<std::int64_t>(1, m_options.maxWindowValues) / channels);
    }
    m_window = std::max<std::int64_t>(1, window);
}

engine::TimeSeries* LiveRun::seriesOf(const Track& track)
{
    return const_cast<engine::TimeSeries*>(std::as_const(*this).seriesOf(track));
}

const engine::TimeSeries* LiveRun::seriesOf(const Track& track) const
{
    const auto byPath = m_recording.find(track.path);
    if (byPath == m_recording.end()) {
        return nullptr;
    }
    const auto found = byPath->second.find(track.signal);
    return found == byPath->second.end() ? nullptr : &found->second;
}

void LiveRun::eraseSeries(const Track& track)
{
    const auto byPath = m_recording.find(track.path);
    if (byPath == m_recording.end()) {
        return;
    }
    byPath->second.erase(track.signal);
    if (byPath->second.empty()) {
        m_recording.erase(byPath);
    }
}

std::int64_t LiveRun::eventCap(std::int64_t width) const
{
    return std::max(m_options.maxWindowEvents, width);  // a step always fits
}

const engine::Recording& LiveRun::recording() const
{
    if (m_denseStale) {
        refreshDenseSpikes();
    }
    return m_recording;
}

void LiveRun::refreshDenseSpikes() const
{
    for (const auto& [path, signal] : m_denseKeys) {
        const auto byPath = m_recording.find(path);
        if (byPath != m_recording.end()) {
            byPath->second.erase(signal);
            if (byPath->second.empty()) {
                m_recording.erase(byPath);
            }
        }
    }
    m_denseKeys.clear();
    for (const Track& track : m_tracks) {
        if (!track.spikes || track.spikeWindow->steps() <= 0) {
            continue;
        }
        const engine::SpikeWindow& window = *track.spikeWindow;
        const std::int64_t maxSteps =
            std::max<std::int64_t>(1, m_options.maxWindowValues / std::max<std::int64_t>(1, window.width()));
        engine::TimeSeries& series = m_recording[track.path][track.signal];
        series = window.toDense(m_dt, maxSteps);
        series.units = track.units;
        m_denseKeys.emplace_back(track.path, track.signal);
    }
    m_denseStale = false;
}

engine::SpikeWindows LiveRun::spikeWindows() const
{
    engine::SpikeWindows out;
    for (const auto& [path, module] : m_plotModel->namedModules()) {
        for (const Track& track : m_tracks) {
            if (track.spikes && track.path == path && track.spikeWindow->steps() > 0) {
                out.push_back({track.path, track.signal, track.spikeWindow.get()});
            }
        }
    }
    return out;
}

void LiveRun::clearTrack(Track& track)
{
    track.started = false;
    track.resetByData = false;
    track.stagedStart = 0;
    track.stagedRows = 0;
    track.staged.clear();  // keeps its capacity
    track.stagedEvents.clear();
    track.windowEnd = 0;
    if (track.spikes) {
        track.spikeWindow->restart(0);
        m_denseStale = true;
    } else {
        eraseSeries(track);
    }
}

bool LiveRun::stage(Track& track, engine::ProbeSnapshot& snapshot)
{
    m_dropped += snapshot.dropped;
    if (snapshot.steps <= 0) {
        return false;
    }
    if (snapshot.width != track.width) {  // the engine's count is the truth
        track.width = snapshot.width;
        if (track.spikes) {
            *track.spikeWindow = engine::SpikeWindow(track.width);
        }
        clearTrack(track);
    }
    const std::int64_t width = track.width;
    const std::int64_t end = snapshot.firstStep + snapshot.steps;
    std::int64_t from = snapshot.firstStep;
    if (track.spikes && snapshot.dropped > 0 && !snapshot.events.empty()) {
        // The oldest events went: a step is complete when it follows the oldest kept event's
        // step, or when it lies in the last capacity / width steps (which always fit).
        const std::int64_t complete =
            std::min(snapshot.events.front().step + 1, end - track.capacity / width);
        from = std::max(from, complete);
    }
    bool wentBack = false;
    const std::int64_t expected = track.stagedStart + track.stagedRows;
    if (!track.started || from != expected) {
        wentBack = track.started && from < expected;
        track.started = true;
        track.stagedStart = from;
        track.stagedRows = 0;
        track.staged.clear();
        track.stagedEvents.clear();
    }
    if (from >= end) {
        return wentBack;
    }
    const std::int64_t rows = end - from;
    if (track.spikes) {
        const auto kept = std::partition_point(
            snapshot.events.begin(), snapshot.events.end(),
            [from](const engine::SpikeEvent& e) { return e.step < from; });
        if (track.stagedEvents.empty() && kept == snapshot.events.begin()) {
            track.stagedEvents.swap(snapshot.events);  // the usual case: no copy
        } else {
            track.stagedEvents.insert(track.stagedEvents.end(), kept, snapshot.events.end());
        }
    } else {
        const auto offset = static_cast<std::size_t>(track.stagedRows * width);
        track.staged.resize(offset + static_cast<std::size_t>(rows * width));
        const float* in = snapshot.values.data() + (from - snapshot.firstStep) * width;
        std::copy(in, in + rows * width, track.staged.data() + offset);
    }
    track.stagedRows += rows;
    return wentBack;
}

bool LiveRun::commit()
{
    std::int64_t upTo = std::numeric_limits<std::int64_t>::max();
    bool any = false;
    for (const Track& track : m_tracks) {
        if (track.started) {
            upTo = std::min(upTo, track.stagedStart + track.stagedRows);
            any = true;
        }
    }
    if (!any) {
        return false;
    }
    bool changed = false;
    for (Track& track : m_tracks) {
        if (!track.started) {
            continue;
        }
        if (track.stagedStart >= upTo) {
            const bool present =
                track.spikes ? track.spikeWindow->steps() > 0 : seriesOf(track) != nullptr;
            if (track.windowEnd != upTo && present) {
                // Restarts after a gap once the others catch up.
                if (track.spikes) {
                    track.spikeWindow->restart(upTo);
                    m_denseStale = true;
                } else {
                    eraseSeries(track);
                }
                changed = true;
            }
            continue;
        }
        const std::int64_t rows = upTo - track.stagedStart;
        if (track.spikes) {
            const auto done = std::partition_point(
                track.stagedEvents.begin(), track.stagedEvents.end(),
                [upTo](const engine::SpikeEvent& e) { return e.step < upTo; });
            const auto count = static_cast<std::size_t>(done - track.stagedEvents.begin());
            appendToWindow(track, track.stagedStart,
                           std::span<const engine::SpikeEvent>(track.stagedEvents.data(), count), upTo);
            track.stagedEvents.erase(track.stagedEvents.begin(), done);
        } else {
            appendToSeries(track, track.stagedStart, track.staged.data(), rows);
            const auto done = track.staged.begin() + static_cast<std::ptrdiff_t>(rows * track.width);
            const auto kept = track.staged.begin() +
                              static_cast<std::ptrdiff_t>(track.stagedRows * track.width);
            std::copy(done, kept, track.staged.begin());
            track.staged.resize(static_cast<std::size_t>((track.stagedRows - rows) * track.width));
        }
        track.stagedRows -= rows;
        track.stagedStart = upTo;
        changed = true;
    }
    m_currentStep = upTo;
    return changed;
}

void LiveRun::appendToSeries(Track& track, std::int64_t firstStep, const float* rows,
                             std::int64_t count)
{
    const std::int64_t width = track.width;
    engine::TimeSeries* series = seriesOf(track);
    if (series == nullptr) {
        series = &m_recording[track.path][track.signal];
        series->dt = m_dt;
        series->units = track.units;
        series->spikes = track.spikes;
    }
    const std::int64_t have = rowsOf(series->data);
    const std::int64_t old = track.windowEnd == firstStep ? have : 0;  // else: restart
    const std::int64_t total = std::min(old + count, m_window);
    const std::int64_t keepNew = std::min(count, total);
    const std::int64_t keepOld = total - keepNew;
    const float* newRows = rows + (count - keepNew) * width;
    if (have == total) {
        // Steady state: slide in place, no allocation.
        float* d = series->data.data();
        std::copy(d + (old - keepOld) * width, d + old * width, d);
        std::copy(newRows, newRows + keepNew * width, d + keepOld * width);
    } else {
        engine::Tensor grown(engine::Shape{total, width});
        const float* d = series->data.data();
        std::copy(d + (old - keepOld) * width, d + old * width, grown.data());
        std::copy(newRows, newRows + keepNew * width, grown.data() + keepOld * width);
        series->data = std::move(grown);
    }
    track.windowEnd = firstStep + count;
    series->tStart = static_cast<double>(track.windowEnd - total) * m_dt;
}

void LiveRun::appendToWindow(Track& track, std::int64_t firstStep,
                             std::span<const engine::SpikeEvent> events, std::int64_t end)
{
    engine::SpikeWindow& window = *track.spikeWindow;
    if (window.steps() <= 0 || window.endStep() != firstStep) {
        window.restart(firstStep);
    }
    window.append(events, end);
    window.trimBefore(end - m_window);
    window.trimToEvents(eventCap(window.width()));
    track.windowEnd = end;
    m_denseStale = true;
}

void LiveRun::trimAll()
{
    for (Track& track : m_tracks) {
        if (track.spikes) {
            if (track.spikeWindow->steps() > m_window) {
                track.spikeWindow->trimBefore(track.spikeWindow->endStep() - m_window);
                m_denseStale = true;
            }
            continue;
        }
        engine::TimeSeries* series = seriesOf(track);
        if (series == nullptr || rowsOf(series->data) <= m_window) {
            continue;
        }
        const std::int64_t have = rowsOf(series->data);
        engine::Tensor kept(engine::Shape{m_window, track.width});
        const float* d = series->data.data() + (have - m_window) * track.width;
        std::copy(d, d + m_window * track.width, kept.data());
        series->data = std::move(kept);
        series->tStart = static_cast<double>(track.windowEnd - m_window) * m_dt;
    }
}

void LiveRun::handleEvents(bool* changed)
{
    for (const engine::ControllerEvent& e : m_controller->takeEvents()) {
        switch (e.kind) {
        case engine::ControllerEvent::Kind::Running:
        case engine::ControllerEvent::Kind::Paused: {
            const bool running = e.kind == engine::ControllerEvent::Kind::Running;
            if (running != m_running) {
                m_running = running;
                Q_EMIT runningChanged(running);
            }
            break;
        }
        case engine::ControllerEvent::Kind::StepsDone:
            Q_EMIT stepsDone();
            break;
        case engine::ControllerEvent::Kind::StateReset:
            for (Track& track : m_tracks) {
                if (track.resetByData) {
                    track.resetByData = false;  // already restarted at step 0
                } else {
                    clearTrack(track);
                }
            }
            m_currentStep = 0;
            *changed = true;
            break;
        case engine::ControllerEvent::Kind::NonFinitePause:
            if (e.nonFinite) {
                const engine::NonFinite& bad = *e.nonFinite;
                // An equation-defined population names the equation that sets the state.
                std::string origin;
                (void)m_controller->readModel([&](const engine::Module& running) {
                    for (const auto& [p, module] : running.namedModules()) {
                        if (p == bad.path) {
                            origin = module->stateOrigin(bad.attribute);
                        }
                    }
                });
                Q_EMIT failed(tr("The simulation paused: state '%1' of %2 became %3 at element "
                                 "%4 (found after step %5)%6. Check weights, time constants and "
                                 "inputs.")
                                  .arg(QString::fromStdString(bad.attribute),
                                       describePath(bad.path),
                                       QString::number(static_cast<double>(bad.value)))
                                  .arg(bad.index)
                                  .arg(e.step)
                                  .arg(origin.empty() ? QString() : tr(", set by %1").arg(QString::fromStdString(origin))));
            } else {
                Q_EMIT failed(QString::fromStdString(e.message));
            }
            break;
        case engine::ControllerEvent::Kind::Error: {
            for (std::size_t k = 0; e.probe.valid() && k < m_tracks.size(); ++k) {
                if (m_tracks[k].probe == e.probe) {
                    const int traceId = m_tracks[k].traceId;
                    removeTrack(k);  // never resolved, or gone: stop waiting for its data
                    if (traceId > 0) {
                        eraseTrace(traceId);
                        computeWindow();
                        Q_EMIT tracesChanged();
                    }
                    *changed = true;
                    break;
                }
            }
            // A command's failure names the command; the run's own ("advancing from step …
            // failed: …") says it all.
            Q_EMIT failed(e.commandText.empty()
                              ? QString::fromStdString(e.message)
                              : tr("%1 failed: %2").arg(QString::fromStdString(e.commandText),
                                                        QString::fromStdString(e.message)));
            break;
        }
        case engine::ControllerEvent::Kind::ProbesChanged:
        case engine::ControllerEvent::Kind::ExecutorRebuilt:
            break;
        }
    }
}

void LiveRun::poll()
{
    bool changed = false;
    handleEvents(&changed);
    for (Track& track : m_tracks) {
        track.resetByData = false;  // the reset's event, if any, was in these events
    }
    bool wentBack = false;
    for (Track& track : m_tracks) {
        std::optional<engine::ProbeSnapshot> snapshot = m_controller->takeProbe(track.probe);
        if (snapshot && stage(track, *snapshot)) {
            track.resetByData = true;
            wentBack = true;
        }
    }
    if (wentBack) {
        // A reset landed after this poll took the events: its event comes with the next poll.
        // Tracks taken before it still hold pre-reset data; restart them too, and let that
        // event keep what every track drains from step 0 on.
        for (Track& track : m_tracks) {
            if (!track.resetByData) {
                clearTrack(track);
                track.resetByData = true;
            }
        }
        changed = true;
    }
    changed = commit() || changed;
    if (m_tracks.empty()) {
        m_currentStep = m_controller->currentStep();
    }
    if (changed) {
        Q_EMIT updated();
    }
}

bool LiveRun::waitIdle(std::chrono::milliseconds timeout)
{
    const bool idle = m_controller->waitIdle(timeout);
    poll();
    return idle;
}

}  // namespace spike::ui
