// LiveRun's traces: resolving (path, signal) pairs against the plot model, the trace list, the
// primary trace of the single-trace API, and their tracks. See live_run.hpp. GUI thread only.
#include "ui/run/live_run.hpp"

#include "engine/core/node_runner.hpp"

#include <QStringList>

#include <algorithm>
#include <utility>

namespace spike::ui {

QString LiveRun::tracedSignal() const
{
    const TraceInfo* info = traceInfo(m_primaryId);
    return info == nullptr ? QString() : QString::fromStdString(info->signal);
}

QString LiveRun::resolveTrace(const std::string& path, const std::string& signal,
                              ResolvedSignal* out) const
{
    const auto modules = m_plotModel->namedModules();
    const auto named = std::find_if(modules.begin(), modules.end(),
                                    [&](const auto& entry) { return entry.first == path; });
    if (named == modules.end()) {
        return tr("There is no module %1 in the model.").arg(describePath(path));
    }
    if (std::find(m_probePaths.begin(), m_probePaths.end(), path) == m_probePaths.end()) {
        return tr("%1 runs inside another module and cannot be recorded on its own.")
            .arg(describePath(path));
    }
    engine::Module& module = *named->second;
    out->signal = signal.empty() ? module.membraneSignal() : signal;
    out->membrane = !out->signal.empty() && out->signal == module.membraneSignal();
    if (out->signal.empty()) {
        return tr("%1 has no membrane potential.").arg(describePath(path));
    }
    const auto spikingRefused = [&] {
        return tr("The spikes of %1 are recorded already (raster).").arg(describePath(path));
    };
    for (const engine::PortSpec& port : module.outputPorts()) {
        if (port.name == out->signal) {
            if (port.spiking) {
                return spikingRefused();
            }
            out->channels = port.size;
            return {};
        }
    }
    if (out->signal == "out" || out->signal == "output") {
        if (module.spikingOutput()) {
            return spikingRefused();
        }
        out->channels = module.sizeOut();
        return {};
    }
    QStringList offered;
    for (const engine::TraceInfo& trace : module.makeRunner()->traces()) {
        if (trace.name == out->signal) {
            out->channels = trace.width;
            out->units = module.hasAttribute(trace.name) ? module.spec(trace.name).units : trace.units;
            return {};
        }
        offered << QString::fromStdString(trace.name);
    }
    offered << QStringLiteral("out");
    return tr("%1 (%2) has no signal '%3' (signals: %4).")
        .arg(describePath(path), QString::fromStdString(module.className()),
             QString::fromStdString(out->signal), offered.join(QStringLiteral(", ")));
}

LiveRun::TraceEntry* LiveRun::findTrace(int id)
{
    const auto it = std::find_if(m_traces.begin(), m_traces.end(),
                                 [id](const TraceEntry& e) { return e.info.id == id; });
    return it == m_traces.end() ? nullptr : &*it;
}

LiveRun::TraceEntry* LiveRun::findTrace(const std::string& path, const std::string& signal)
{
    const auto it = std::find_if(m_traces.begin(), m_traces.end(), [&](const TraceEntry& e) {
        return e.info.path.toStdString() == path && e.info.signal == signal;
    });
    return it == m_traces.end() ? nullptr : &*it;
}

LiveRun::Track LiveRun::traceTrack(const TraceEntry& entry)
{
    Track track;
    track.path = entry.info.path.toStdString();
    track.signal = entry.info.signal;
    track.units = entry.info.units;
    track.neurons = entry.info.neurons;
    track.traceId = entry.info.id;
    track.width = entry.info.neurons.empty()
                      ? std::max<std::int64_t>(1, entry.channels)
                      : static_cast<std::int64_t>(entry.info.neurons.size());
    return track;
}

void LiveRun::attachProbe(Track& track)
{
    // Spikes: what the window could keep, in events (the probe never holds more than the
    // window would).
    track.capacity = track.spikes ? std::max<std::int64_t>(
                                        1, std::min(m_window * track.width, eventCap(track.width)))
                                  : m_window;
    track.probe = m_controller->addProbe({track.path, track.signal, track.neurons}, track.capacity);
}

void LiveRun::startTraceTrack(const TraceEntry& entry)
{
    m_tracks.push_back(traceTrack(entry));
    computeWindow();
    attachProbe(m_tracks.back());
    trimAll();
}

void LiveRun::stopTraceTrack(int id)
{
    for (std::size_t k = 0; k < m_tracks.size(); ++k) {
        if (m_tracks[k].traceId == id) {
            m_controller->removeProbe(m_tracks[k].probe);
            removeTrack(k);
            break;
        }
    }
    computeWindow();
}

void LiveRun::eraseTrace(int id)
{
    if (id == m_primaryId) {
        m_primaryId = 0;
    }
    m_traces.erase(std::remove_if(m_traces.begin(), m_traces.end(),
                                  [id](const TraceEntry& e) { return e.info.id == id; }),
                   m_traces.end());
}

bool LiveRun::applyPrimary(bool probe)
{
    bool changed = false;
    if (TraceEntry* old = findTrace(m_primaryId)) {
        old->primary = false;
        if (!old->added) {
            const int id = old->info.id;
            if (probe) {
                stopTraceTrack(id);
            }
            eraseTrace(id);
            changed = true;
        }
    }
    m_primaryId = 0;
    const std::string path = m_tracedPath.toStdString();
    ResolvedSignal resolved;
    if (m_tracedPath.isNull() || !resolveTrace(path, m_requestedSignal, &resolved).isEmpty()) {
        return changed;
    }
    if (std::any_of(m_traceNeurons.begin(), m_traceNeurons.end(), [&](std::int64_t i) {
            return i < 0 || i >= resolved.channels;
        })) {
        m_traceNeurons.clear();  // a selection made for another module: trace all
    }
    TraceEntry* entry = findTrace(path, resolved.signal);
    if (entry != nullptr) {
        entry->primary = true;
        m_primaryId = entry->info.id;
        if (entry->info.neurons != m_traceNeurons) {
            entry->info.neurons = m_traceNeurons;
            stopTraceTrack(entry->info.id);
            startTraceTrack(*entry);
            changed = true;
        }
        return changed;
    }
    TraceEntry created;
    created.info = {m_nextTraceId++, m_tracedPath, resolved.signal, m_traceNeurons,
                    resolved.units, resolved.membrane};
    created.channels = resolved.channels;
    created.primary = true;
    m_traces.push_back(std::move(created));
    m_primaryId = m_traces.back().info.id;
    if (probe) {
        startTraceTrack(m_traces.back());
    } else {
        m_tracks.push_back(traceTrack(m_traces.back()));
    }
    return true;
}

void LiveRun::setTracedPath(const QString& path)
{
    setTrace(path, {});
}

void LiveRun::setTrace(const QString& path, const std::string& signal, const std::vector<std::int64_t>& neurons)
{
    if (m_primaryId != 0 && path == m_tracedPath && path.isNull() == m_tracedPath.isNull() &&
        signal == m_requestedSignal && neurons == m_traceNeurons) {
        return;
    }
    m_tracedPath = path;
    m_requestedSignal = signal;
    m_traceNeurons = neurons;
    const bool changed = applyPrimary(true);
    computeWindow();
    trimAll();
    if (changed) {
        Q_EMIT tracesChanged();
    }
    Q_EMIT updated();
}

int LiveRun::addTrace(const QString& path, const std::string& signal,
                      const std::vector<std::int64_t>& neurons, QString* error)
{
    const std::string p = path.toStdString();
    ResolvedSignal resolved;
    QString why = resolveTrace(p, signal, &resolved);
    for (const std::int64_t i : neurons) {
        if (why.isEmpty() && (i < 0 || i >= resolved.channels)) {
            why = tr("Neuron %1 is outside %2 (%3 channels).")
                      .arg(i)
                      .arg(describePath(p))
                      .arg(resolved.channels);
        }
    }
    if (!why.isEmpty()) {
        if (error != nullptr) {
            *error = why;
        }
        return 0;
    }
    TraceEntry* entry = findTrace(p, resolved.signal);
    if (entry == nullptr) {
        TraceEntry created;
        created.info = {m_nextTraceId++, path, resolved.signal, neurons, resolved.units,
                        resolved.membrane};
        created.channels = resolved.channels;
        m_traces.push_back(std::move(created));
        entry = &m_traces.back();
        startTraceTrack(*entry);
    } else if (entry->info.neurons != neurons) {
        entry->info.neurons = neurons;
        stopTraceTrack(entry->info.id);
        startTraceTrack(*entry);
    }
    entry->added = true;
    if (entry->primary) {
        m_traceNeurons = neurons;
    }
    const int id = entry->info.id;
    Q_EMIT tracesChanged();
    Q_EMIT updated();
    return id;
}

void LiveRun::removeTrace(int id)
{
    if (id <= 0 || findTrace(id) == nullptr) {
        return;
    }
    stopTraceTrack(id);
    eraseTrace(id);
    Q_EMIT tracesChanged();
    Q_EMIT updated();
}

std::vector<int> LiveRun::traceIds() const
{
    std::vector<int> ids;
    for (const TraceEntry& entry : m_traces) {
        ids.push_back(entry.info.id);
    }
    return ids;
}

const TraceInfo* LiveRun::traceInfo(int id) const
{
    for (const TraceEntry& entry : m_traces) {
        if (entry.info.id == id) {
            return &entry.info;
        }
    }
    return nullptr;
}

const engine::TimeSeries* LiveRun::traceSeries(int id) const
{
    for (const Track& track : m_tracks) {
        if (track.traceId == id && id > 0) {
            return seriesOf(track);
        }
    }
    return nullptr;
}

void LiveRun::removeTrack(std::size_t index)
{
    eraseSeries(m_tracks[index]);
    m_denseStale = m_denseStale || m_tracks[index].spikes;
    m_tracks.erase(m_tracks.begin() + static_cast<std::ptrdiff_t>(index));
}

}  // namespace spike::ui
