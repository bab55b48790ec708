// SpikeStatisticsDialog: how often and how regularly one spiking population fires while the model
// runs (node context menu or View ▸ Analyse ▸ Spike statistics…). Top: the histogram of the pooled
// inter-spike intervals [ms] (its axis at first up to where 99.5 % of them lie); below: the histogram of the neurons' rates [Hz]; under them one line
// with the spikes, the mean rate, the mean ISI and its CV, the mean per-neuron CV and the mean Fano
// factor (engine::spikeStatistics of the spike events, engine/analysis/spike_statistics.hpp).
//
// What it counts: every spike of the population from the oldest step the run's spike window held
// when the dialog opened (the raster's span) or the run (re)started, not only the raster's window.
// Each refreshLive() (MainWindow connects it to the run session's
// updates) appends the steps the run's spike window (LiveRun::spikeWindows()) gained since the last
// call to a window of its own, which keeps at most kKeepEvents events (older whole steps are
// dropped, and the line says from which time it counts). The numbers are recomputed at most twice
// a second (a change held back is shown when the half second is over, so a paused run's last
// steps are counted too), from events, never from dense rows. A reset of the run (time goes back), a gap the
// run's window could not bridge, another population size after a rebuild, or Start again begins a
// new count. Paused or ended: the last numbers stay. Export ISI… / Export rates… write either plot
// as PNG, PDF or CSV (bin centre, count). Non-modal; deletes itself when closed; closes when its
// node leaves the document. Thread: GUI thread only.
#pragma once

#include "engine/analysis/spike_statistics.hpp"
#include "engine/runtime/spike_window.hpp"
#include "ui/document/graph_document.hpp"

#include <QDialog>
#include <QElapsedTimer>
#include <QString>

#include <functional>
#include <optional>
#include <string>

class QCustomPlot;
class QLabel;
class QTimer;

namespace spike::ui {

class LiveRun;

class SpikeStatisticsDialog : public QDialog {
    Q_OBJECT

public:
    /// Spike events the dialog keeps at most (about 32 MB with the statistics' intervals).
    static constexpr std::int64_t kKeepEvents = 2000000;
    /// The histograms' bins: fine for the intervals (whose axis shows 99.5 % of them), coarse
    /// for the neurons' rates.
    static constexpr std::int64_t kIsiBins = 400;
    static constexpr std::int64_t kRateBins = 40;
    /// Fewest milliseconds between two recomputations while the run goes on.
    static constexpr int kRecomputeMs = 500;

    /// For node `id` of `doc` (which must outlive the dialog).
    SpikeStatisticsDialog(GraphDocument& doc, NodeId id, QWidget* parent = nullptr);

    /// Where refreshLive() finds the run (nullptr: none); calls refreshLive() once.
    void setLiveSource(std::function<LiveRun*()> source);
    /// Takes the steps the run gained and, at most every kRecomputeMs, redraws.
    void refreshLive();
    /// Forgets what was counted: the count starts again at the run's current step.
    void startAgain();

    /// The module's path from the document's root ("" the root), as the run names its window.
    const std::string& modulePath() const { return m_path; }
    /// The spikes counted so far.
    const engine::SpikeWindow& counted() const { return m_kept; }
    /// The statistics shown; nullopt before the first spike step was counted.
    const std::optional<engine::SpikeStatistics>& statistics() const { return m_stats; }
    QCustomPlot* isiPlot() const { return m_isiPlot; }
    QCustomPlot* ratePlot() const { return m_ratePlot; }
    QLabel* summary() const { return m_summary; }
    /// Writes the ISI plot ("isi") or the rate plot to `path` (PNG, PDF, CSV); false with the
    /// message shown in the dialog (what the Export buttons do after asking).
    bool exportTo(const QString& which, const QString& path);

private:
    void recompute();
    void showWaiting(const QString& why);
    void exportChosen(bool isi);

    GraphDocument& m_doc;
    NodeId m_id;
    std::string m_path;
    std::function<LiveRun*()> m_liveSource;
    const LiveRun* m_liveRun = nullptr;  ///< the run m_kept follows (compared, never used)
    double m_dt = 0.0;
    engine::SpikeWindow m_kept;
    bool m_counting = false;             ///< m_kept follows a run's window
    bool m_fromNow = false;              ///< Start again: the next count starts at the run's newest step
    std::optional<engine::SpikeStatistics> m_stats;
    QElapsedTimer m_sinceRecompute;
    QTimer* m_recomputeTimer = nullptr;  ///< a recompute held back by kRecomputeMs, so the last
                                         ///< steps before a pause are shown too
    bool m_dirty = false;                ///< m_kept changed since the last recompute()
    QCustomPlot* m_isiPlot = nullptr;
    QCustomPlot* m_ratePlot = nullptr;
    QLabel* m_summary = nullptr;
    QLabel* m_message = nullptr;
};

}  // namespace spike::ui
