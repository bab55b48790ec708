// MainWindow: the plot area. The raster and the selection pane (key 0: the membrane potential of
// the selected neuron layer, LiveRun's primary trace) are always there; Plot ▸ (plotSignal(), or
// a model file's "plots" entry) opens one more trace pane per request. A request outlives runs:
// each new run, and each rebuild after a structural edit, records it again (attachPlotRequests);
// a request whose module left the model keeps its pane with the reason until it is closed or the
// module comes back. Plots redraw when LiveRun's timer has drained new samples, never per step.
// See main_window.hpp. Thread: GUI thread only.
#include "ui/window/main_window.hpp"
#include "ui/window/plot_sources.hpp"

#include "ui/run/live_run.hpp"
#include "ui/plots/neuron_selection.hpp"
#include "ui/plots/plot_panes.hpp"
#include "ui/plots/raster_plot.hpp"
#include "ui/plots/trace_plot.hpp"

#include "engine/tensor/error.hpp"
#include "engine/network/network.hpp"
#include "engine/core/node_runner.hpp"

#include <QMenu>
#include <QScopedValueRollback>
#include <QStatusBar>

#include <algorithm>

namespace spike::ui {

namespace {

/// The channels of `signal` of `module` (a State, "out", an output port or a signal its runner
/// records); 0 with `why` when it has no such signal or only spikes there.
std::int64_t signalWidth(engine::Module& module, const std::string& signal, const QString& path, QString* why)
{
    const auto spikes = [&] {
        *why = MainWindow::tr("the spikes of %1 are in the raster already").arg(path);
        return 0;
    };
    for (const auto& view : module.attributes()) {
        if (view.spec->name == signal && view.spec->kind == engine::AttributeKind::State) {
            if (const auto* tensor = std::get_if<engine::Tensor>(view.value); tensor != nullptr && signal != "spikes") {
                return tensor->numel();
            }
        }
    }
    for (const engine::PortSpec& port : module.outputPorts()) {
        if (port.name == signal) {
            return port.spiking ? spikes() : port.size;
        }
    }
    if (signal == "out" || signal == "output") {
        return module.spikingOutput() ? spikes() : module.sizeOut();
    }
    const auto offered = module.recordableSignals();
    if (std::find(offered.begin(), offered.end(), signal) != offered.end()) {
        for (const engine::TraceInfo& trace : module.makeRunner()->traces()) {
            if (trace.name == signal) {
                return trace.width;
            }
        }
    }
    *why = MainWindow::tr("%1 records no signal '%2'").arg(path, QString::fromStdString(signal));
    return 0;
}

}  // namespace

bool MainWindow::plotSignal(const QString& path, const QString& signal, const QString& neurons, QString* error,
                            int* key)
{
    const auto fail = [this, error](const QString& why) {
        statusBar()->showMessage(tr("Cannot plot: %1").arg(why));
        if (error != nullptr) {
            *error = why;
        }
        return false;
    };
    const NodeId id = m_doc->findNode(path.toStdString());
    engine::Module* module = m_doc->module(id);
    if (module == nullptr) {
        return fail(tr("no module '%1'").arg(path));
    }
    QString why;
    if (signal == QLatin1String("spikes") && module->spikingOutput()) {
        // Spikes are in the raster: it shows only the chosen neurons of this module ("all" again
        // shows every neuron).
        const auto chosen = parseNeuronSelection(neurons, module->sizeOut(), &why);
        if (!chosen) {
            return fail(why);
        }
        m_rasterPlot->setNeuronSelection(path.toStdString(), *chosen);
        m_panes->setRasterShown(true);
        selectModule(path);
        refreshPlots();
        statusBar()->showMessage(chosen->empty() ? tr("The raster shows every neuron of %1").arg(path)
                                                 : tr("The raster shows %L1 chosen neurons of %2").arg(chosen->size()).arg(path));
        return true;
    }
    const std::int64_t width = signalWidth(*module, signal.toStdString(), path, &why);
    if (width <= 0) {
        return fail(why);
    }
    const auto selection = parseNeuronSelection(neurons, width, &why);
    if (!selection) {
        return fail(why);
    }
    // A module inside a composite (not a node of a Network) is recorded through the nearest
    // ancestor the run probes: "dynamics.lstm" / "h" becomes "dynamics" / "lstm.h".
    PlotRequest request;
    request.key = m_nextPaneKey++;
    request.path = path;
    request.label = signal;
    request.neurons = *selection;
    request.neuronsText = neurons.trimmed().isEmpty() ? QStringLiteral("all") : neurons.trimmed();
    std::string probePath = path.toStdString();
    std::string probeSignal = signal.toStdString();
    for (NodeId n = id; n.valid() && n != m_doc->rootId();) {
        const NodeId parent = m_doc->parentOf(n);
        const engine::Module* up = m_doc->module(parent);
        if (up == nullptr || parent == m_doc->rootId() || dynamic_cast<const engine::Network*>(up) != nullptr) {
            break;
        }
        const std::string name = m_doc->path(n).substr(m_doc->path(parent).size() + 1);
        probeSignal = name + "." + probeSignal;
        probePath = m_doc->path(parent);
        n = parent;
    }
    request.probePath = QString::fromStdString(probePath);
    request.signal = probeSignal;
    if (run()) {
        const QScopedValueRollback<bool> guard(m_attaching, true);
        request.traceId = run()->addTrace(request.probePath, request.signal, request.neurons, &why);
        if (request.traceId == 0) {
            return fail(why);
        }
    }
    TracePlot* pane = m_panes->addTracePane(request.key);
    installPlotMenu(pane);
    pane->showEmpty(tr("%1 of '%2'").arg(signal, path), tr("%1 — recorded from the next samples on").arg(m_panes->timeAxis().label()),
                    signal);
    m_plotRequests.push_back(std::move(request));
    storePlotRequests();
    showUsefulPanes();
    if (key != nullptr) {
        *key = m_plotRequests.back().key;
    }
    selectModule(path);
    refreshPlots();
    statusBar()->showMessage(tr("Plotting %1 of %2 from the next samples on").arg(signal, path));
    return true;
}

void MainWindow::closePlotPane(int key)
{
    const auto found = std::find_if(m_plotRequests.begin(), m_plotRequests.end(),
                                    [key](const PlotRequest& r) { return r.key == key; });
    if (found == m_plotRequests.end()) {
        return;
    }
    if (run() && found->traceId != 0) {
        const QScopedValueRollback<bool> guard(m_attaching, true);
        run()->removeTrace(found->traceId);
    }
    m_plotRequests.erase(found);
    storePlotRequests();
    m_panes->removeTracePane(key);
    showUsefulPanes();
}

void MainWindow::attachPlotRequests()
{
    if (!run() || m_attaching) {
        return;
    }
    const QScopedValueRollback<bool> guard(m_attaching, true);
    const std::vector<int> live = run()->traceIds();
    for (PlotRequest& request : m_plotRequests) {
        if (request.traceId != 0 && std::find(live.begin(), live.end(), request.traceId) != live.end()) {
            continue;
        }
        request.traceId = run()->addTrace(request.probePath, request.signal, request.neurons, &request.why);
    }
}

void MainWindow::storePlotRequests()
{
    if (m_openingDocumentPlots) {
        return;
    }
    // The panes a person opened are part of the model file ("plots"), so they come back with it.
    nlohmann::json plots = nlohmann::json::array();
    for (const PlotRequest& request : m_plotRequests) {
        plots.push_back({{"path", request.path.toStdString()},
                         {"signal", request.label.toStdString()},
                         {"neurons", request.neuronsText.toStdString()}});
    }
    m_doc->setExtra("plots", plots.empty() ? nlohmann::json() : plots);
}

void MainWindow::openDocumentPlots()
{
    for (const PlotRequest& request : m_plotRequests) {
        m_panes->removeTracePane(request.key);
    }
    m_plotRequests.clear();
    m_rasterPlot->clearNeuronSelections();
    chooseDefaultSpan();
    showUsefulPanes();
    // A model file may name the panes to open with it: "plots": [{"path", "signal", "neurons"}].
    const nlohmann::json& extras = m_doc->extras();
    if (!extras.contains("plots")) {
        openOutputPane();
        return;
    }
    // A copy: the file's entry stays as it is while its panes open (storePlotRequests() waits),
    // so an entry that cannot open now is not dropped from the file.
    const nlohmann::json requested = extras.at("plots");
    const auto* plots = &requested;
    const QScopedValueRollback<bool> loading(m_openingDocumentPlots, true);
    QStringList problems;
    if (!plots->is_array()) {
        problems << tr("\"plots\" must be a list of {\"path\", \"signal\", \"neurons\"} entries");
    } else {
        for (std::size_t i = 0; i < plots->size(); ++i) {
            const nlohmann::json& entry = (*plots)[i];
            const auto text = [&](const char* name, const char* fallback) {
                const auto it = entry.is_object() ? entry.find(name) : entry.end();
                return it != entry.end() && it->is_string() ? QString::fromStdString(it->get<std::string>())
                                                            : QString::fromLatin1(fallback);
            };
            QString why;
            if (!entry.is_object() || !entry.contains("signal") ||
                !plotSignal(text("path", ""), text("signal", ""), text("neurons", "all"), &why)) {
                problems << tr("plots[%1]: %2").arg(i).arg(why.isEmpty() ? tr("needs \"path\" and \"signal\" strings") : why);
            }
        }
    }
    if (!problems.isEmpty()) {
        statusBar()->showMessage(tr("Some plots of the model file were not opened: %1").arg(problems.join(QStringLiteral("; "))));
    }
}

void MainWindow::installPlotMenu(QCustomPlot* plot)
{
    // Double-click: back to the whole recorded window after dragging or zooming.
    connect(plot, &QCustomPlot::mouseDoubleClick, this, &MainWindow::showWholeRun);
    // Right-click: export the plot.
    plot->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(plot, &QWidget::customContextMenuRequested, this, [this, plot](const QPoint& pos) {
        QMenu menu(this);
        for (const auto& [format, suffix] : {std::pair{tr("PNG image"), QStringLiteral("png")},
                                             {tr("PDF document"), QStringLiteral("pdf")},
                                             {tr("CSV table"), QStringLiteral("csv")}}) {
            menu.addAction(tr("Export as %1…").arg(format), this,
                           [this, plot, suffix = suffix] { exportPlotInteractively(plot, suffix); });
        }
        menu.exec(plot->mapToGlobal(pos));
    });
}

void MainWindow::openOutputPane()
{
    // A model with neither spikes nor a membrane (a pure ANN) opens with a pane of what it
    // computes: the first recordable signal in tree order (a DynamicsNetwork's value_prefix),
    // instead of an empty raster and an empty membrane pane. Not written to the file.
    if (!tracedPath().isEmpty()) {
        return;
    }
    for (const auto& [path, module] : m_doc->root().namedModules()) {
        if (module->spikingOutput() && module->childCount() == 0) {
            return;
        }
    }
    for (const auto& [path, module] : m_doc->root().namedModules()) {
        const std::vector<std::string> names = module->recordableSignals();
        if (!names.empty()) {
            const QScopedValueRollback<bool> loading(m_openingDocumentPlots, true);
            plotSignal(QString::fromStdString(path), QString::fromStdString(names.front()), QStringLiteral("all"));
            return;
        }
    }
}

void MainWindow::showUsefulPanes()
{
    // The raster when the model has a spiking module; the selection pane when it has a membrane
    // (a NIR graph of leaky integrators shows their v, not an empty raster). With neither, and
    // no pane asked for, both stay to say so.
    bool spiking = false;
    for (const auto& [path, module] : m_doc->root().namedModules()) {
        spiking = spiking || (module->spikingOutput() && module->childCount() == 0);
    }
    const bool membrane = !tracedPath().isEmpty();
    m_panes->setRasterShown(spiking || (m_plotRequests.empty() && !membrane));
    m_panes->setPaneShown(0, membrane || m_plotRequests.empty());
}

void MainWindow::refreshPlots()
{
    updateRunControls();
    if (!run() || run()->currentStep() == 0) {
        return;
    }
    // Spikes as events (never the dense recording), traces by id: a refresh costs what changed.
    const engine::Module& root = run()->plotModel();
    m_rasterPlot->showSpikes(rasterModulesOf(root), run()->spikeWindows(), run()->timeStep());
    const auto moduleAt = [&root](const QString& path) -> const engine::Module* {
        try {
            return path.isNull() ? nullptr : &root.getSubmodule(path.toStdString());
        } catch (const engine::Error&) {
            return nullptr;
        }
    };

    // The selection pane: the primary trace.
    const QString path = run()->tracedPath();
    const engine::Module* module = moduleAt(path);
    const std::string signal = run()->tracedSignal().toStdString();
    const engine::TimeSeries* series = run()->primaryTraceId() != 0 ? run()->traceSeries(run()->primaryTraceId()) : nullptr;
    if (series == nullptr || module == nullptr) {
        m_tracePlot->showEmpty(tr("Membrane potential"),
                               tr("%1 — select a neuron layer to see its membrane potential").arg(m_panes->timeAxis().label()));
    } else {
        m_tracePlot->showTraces(traceSourceOf(*module), path, QString::fromStdString(signal), *series,
                                signal == module->membraneSignal(), run()->tracedNeurons());
    }

    // One pane per request.
    for (const PlotRequest& request : m_plotRequests) {
        TracePlot* pane = m_panes->tracePane(request.key);
        const engine::TimeSeries* data = request.traceId != 0 ? run()->traceSeries(request.traceId) : nullptr;
        const engine::Module* target = moduleAt(request.path);
        if (pane == nullptr) {
            continue;
        }
        if (request.traceId == 0 || target == nullptr) {
            pane->showEmpty(tr("%1 of '%2'").arg(request.label, request.path),
                            tr("%1 — not recorded: %2").arg(m_panes->timeAxis().label(), request.why.isEmpty() ? tr("the module left the model") : request.why),
                            request.label);
        } else if (data != nullptr) {
            const std::string name = request.label.toStdString();
            pane->showTraces(traceSourceOf(*target), request.path, request.label, *data, name == target->membraneSignal(),
                             request.neurons);
        }
    }
    // The last span of it, scrolling like an oscilloscope (or all of it for "whole run").
    const double dtMs = run()->timeStep() * m_panes->timeAxis().perSecond;  // one step on the axis
    const std::int64_t end = run()->currentStep();
    const std::int64_t start = std::max<std::int64_t>(0, end - run()->window());
    m_panes->showLive(static_cast<double>(start) * dtMs, static_cast<double>(end) * dtMs);
    m_panes->replotAll();
}

void MainWindow::clearPlots(const QString& explanation)
{
    m_rasterPlot->showEmpty(tr("Spike raster"), tr("%1 — %2").arg(m_panes->timeAxis().label(), explanation));
    m_tracePlot->showEmpty(tr("Membrane potential"), tr("%1 — %2").arg(m_panes->timeAxis().label(), explanation));
    for (const PlotRequest& request : m_plotRequests) {
        if (TracePlot* pane = m_panes->tracePane(request.key)) {
            pane->showEmpty(tr("%1 of '%2'").arg(request.label, request.path), tr("%1 — %2").arg(m_panes->timeAxis().label(), explanation),
                            request.label);
        }
    }
    const double dtMs = m_doc->root().timeStep() * m_panes->timeAxis().perSecond;
    m_panes->setTimeRange(0.0, m_panes->span() > 0.0 ? m_panes->span()
                                                     : (m_steps != nullptr ? m_steps->value() : kDefaultSteps) * dtMs);
    m_panes->replotAll();
}

void MainWindow::showWholeRun()
{
    // Everything kept, whatever the span (the next update of a running simulation scrolls on).
    if (run() && run()->currentStep() > 0) {
        refreshPlots();
        const double dtMs = run()->timeStep() * m_panes->timeAxis().perSecond;  // one step on the axis
        const std::int64_t end = run()->currentStep();
        const std::int64_t start = std::max<std::int64_t>(0, end - run()->window());
        m_panes->setTimeRange(static_cast<double>(start) * dtMs, static_cast<double>(end) * dtMs);
    }
}

void MainWindow::chooseDefaultSpan()
{
    // 25 of the model's slowest time constants (any attribute named tau…, in seconds); a
    // model without dt (a pure ANN) counts time in steps: 200 of them.
    double slowest = 0.0;
    bool hasDt = false;
    for (const auto& [path, module] : m_doc->root().namedModules()) {
        for (const auto& view : module->attributes()) {
            const auto* t = std::get_if<engine::Tensor>(view.value);
            if (t == nullptr || t->numel() == 0) {
                continue;
            }
            hasDt = hasDt || view.spec->name == "dt";
            if (view.spec->name.rfind("tau", 0) == 0 && view.spec->units == "s") {
                slowest = std::max(slowest, static_cast<double>(*std::max_element(t->data(), t->data() + t->numel())));
            }
        }
    }
    constexpr double kAnnSpanSteps = 200.0;
    m_panes->setTimeAxis(hasDt ? TimeAxis::milliseconds() : TimeAxis::stepsOf(m_doc->root().timeStep()));
    m_panes->setSpan(hasDt ? PlotPanes::defaultSpan(slowest) : kAnnSpanSteps);
    if (!run() || run()->currentStep() == 0) {
        m_panes->setTimeRange(0.0, m_panes->span());  // the empty plots show the span a run will
        m_panes->replotAll();
    }
}

}  // namespace spike::ui
