// MainWindow: the analyses of a neuron population - the node context menu's Analyse entries
// (GraphCanvas::analyseRequested) and View ▸ Analyse, which offers them for the one selected node
// with a "spikes" output and says in its entries' text why they are off otherwise - and of a
// layer: Weights and activations (LayerHistogramDialog), for a selected node with weights and no
// spikes; below them "CPU vs GPU divergence…" analyses the whole model (BackendDivergenceDialog).
// Each opens a non-modal dialog of its own (FiCurveDialog, SweepDialog, PhaseDialog,
// SpikeStatisticsDialog, LayerHistogramDialog, BackendDivergenceDialog) that deletes itself when
// closed. The phase portrait's live trajectory and the spike statistics follow the run session's run; the activation statistics
// (refreshActivations()) feed the canvas's composite view and the histogram dialogs from the
// run's ActivationMonitor.
// Thread: GUI thread. See main_window.hpp.
#include "ui/window/main_window.hpp"

#include "ui/editor/graph_canvas.hpp"
#include "ui/run/run_session.hpp"
#include "ui/window/backend_divergence_dialog.hpp"
#include "ui/window/fi_curve_dialog.hpp"
#include "ui/window/layer_histogram_dialog.hpp"
#include "ui/window/phase_dialog.hpp"
#include "ui/window/spike_statistics_dialog.hpp"
#include "ui/window/sweep_dialog.hpp"

#include <QAction>
#include <QTimer>
#include <QMenu>

#include <algorithm>

namespace spike::ui {

void MainWindow::openAnalysis(NodeId id, const QString& analysis)
{
    QDialog* dialog = nullptr;
    if (analysis == QLatin1String("histogram")) {
        auto* histogram = new LayerHistogramDialog(*m_doc, id, this);
        m_histograms.append(histogram);
        dialog = histogram;
        QTimer::singleShot(0, this, &MainWindow::refreshActivations);
    } else if (analysis == QLatin1String("isi")) {
        auto* statistics = new SpikeStatisticsDialog(*m_doc, id, this);
        connect(m_session, &RunSession::updated, statistics, &SpikeStatisticsDialog::refreshLive);
        connect(m_session, &RunSession::started, statistics, &SpikeStatisticsDialog::refreshLive);
        connect(m_session, &RunSession::rebuilt, statistics, &SpikeStatisticsDialog::refreshLive);
        statistics->setLiveSource([this] { return run(); });
        dialog = statistics;
    } else if (analysis == QLatin1String("sweep")) {
        dialog = new SweepDialog(*m_doc, id, this);
    } else if (analysis == QLatin1String("phase")) {
        auto* phase = new PhaseDialog(*m_doc, id, this);
        // The live trajectory follows the session's run, whichever run that is now.
        phase->setLiveSource([this] { return run(); });
        connect(m_session, &RunSession::updated, phase, &PhaseDialog::refreshLive);
        connect(m_session, &RunSession::started, phase, &PhaseDialog::refreshLive);
        connect(m_session, &RunSession::rebuilt, phase, &PhaseDialog::refreshLive);
        connect(m_session, &RunSession::dropped, phase, &PhaseDialog::refreshLive);
        dialog = phase;
    } else {
        dialog = new FiCurveDialog(*m_doc, id, this);
    }
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
}

void MainWindow::buildAnalyseMenu(QMenu* view)
{
    QMenu* analyse = view->addMenu(tr("&Analyse"));
    analyse->setObjectName(QStringLiteral("analyseMenu"));
    // The one selected node, when it has a "spikes" output; invalid otherwise.
    const auto spikingSelection = [this] {
        const QList<NodeId> selected = m_canvas->selectedNodes();
        const engine::Module* m = selected.size() == 1 ? m_doc->module(selected.front()) : nullptr;
        if (m == nullptr) {
            return NodeId{};
        }
        const auto ports = m->outputPorts();
        const bool spiking = std::any_of(ports.begin(), ports.end(),
                                         [](const engine::PortSpec& p) { return p.name == "spikes"; });
        return spiking ? selected.front() : NodeId{};
    };
    const std::vector<std::pair<QString, QString>> entries{{QStringLiteral("fi"), tr("f-I curve")},
                                                           {QStringLiteral("sweep"), tr("Parameter sweep")},
                                                           {QStringLiteral("phase"), tr("Phase portrait")},
                                                           {QStringLiteral("isi"), tr("Spike statistics")}};
    std::vector<std::pair<QAction*, QString>> actions;
    for (const auto& [kind, text] : entries) {
        QAction* a = analyse->addAction(text);
        a->setObjectName(QStringLiteral("action.analyse.") + kind);
        actions.emplace_back(a, text);
        connect(a, &QAction::triggered, this, [this, kind = kind, spikingSelection] {
            if (const NodeId id = spikingSelection(); id.valid()) {
                openAnalysis(id, kind);
            }
        });
    }
    // A layer: the one selected node with weights and no spikes.
    const auto layerSelection = [this, spikingSelection] {
        const QList<NodeId> selected = m_canvas->selectedNodes();
        const engine::Module* m = selected.size() == 1 ? m_doc->module(selected.front()) : nullptr;
        const bool layer = m != nullptr && !spikingSelection().valid() && !engine::weightSummary(*m).empty();
        return layer ? selected.front() : NodeId{};
    };
    analyse->addSeparator();
    QAction* weights = analyse->addAction(tr("Weights and activations"));
    weights->setObjectName(QStringLiteral("action.analyse.histogram"));
    connect(weights, &QAction::triggered, this, [this, layerSelection] {
        if (const NodeId id = layerSelection(); id.valid()) {
            openAnalysis(id, QStringLiteral("histogram"));
        }
    });
    analyse->addSeparator();
    QAction* divergence = analyse->addAction(tr("CPU vs GPU &divergence…"));
    divergence->setObjectName(QStringLiteral("action.analyse.divergence"));
    divergence->setToolTip(tr("Run the whole model on two backends in lock-step and plot how far "
                              "their states drift apart"));
    connect(divergence, &QAction::triggered, this, [this] {
        auto* dialog = new BackendDivergenceDialog(*m_doc, this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->show();
    });
    // The entries name the node they analyse, or say what to select.
    connect(analyse, &QMenu::aboutToShow, this, [this, actions, spikingSelection, weights, layerSelection] {
        const NodeId id = spikingSelection();
        for (const auto& [action, text] : actions) {
            action->setEnabled(id.valid());
            action->setText(id.valid()
                                ? tr("%1 of %2…").arg(text, QString::fromStdString(m_doc->path(id)))
                                : tr("%1 (select one neuron population)").arg(text));
        }
        const NodeId layer = layerSelection();
        weights->setEnabled(layer.valid());
        weights->setText(layer.valid()
                             ? tr("Weights and activations of %1…").arg(QString::fromStdString(m_doc->path(layer)))
                             : tr("Weights and activations (select one layer)"));
    });
}

void MainWindow::refreshActivations()
{
    m_histograms.removeAll(nullptr);
    const bool wanted = m_canvas->showsLayerStatistics() || !m_histograms.isEmpty();
    if (!wanted) {
        if (m_activationsWatched) {
            m_session->stopActivations();  // nobody looks: the run goes on without hooks
            m_activationsWatched = false;
        }
        return;
    }
    std::map<std::string, engine::ActivationSnapshot> snapshots;
    if (run() == nullptr) {
        m_activationsWatched = false;
    } else {
        m_activationsWatched = m_session->readActivations(QString(), &snapshots);
        if (snapshots.empty()) {
            return;  // paused, or the hooks just went on: keep what is shown
        }
    }
    m_canvas->setActivationStatistics(snapshots);
    for (const QPointer<LayerHistogramDialog>& dialog : m_histograms) {
        const auto it = snapshots.find(dialog->modulePath());
        dialog->setActivation(it != snapshots.end() ? &it->second : nullptr);
    }
}

}  // namespace spike::ui
