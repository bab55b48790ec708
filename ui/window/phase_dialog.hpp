// PhaseDialog: the phase portrait of one neuron node (a node's context menu ▸ Analyse ▸ Phase
// portrait…, or View ▸ Analyse). The user picks two of the module's state variables
// (engine::phaseStates), their ranges (first engine::suggestedPhasePlane's), the neuron whose
// parameters and other states are used, the constant input, the arrow grid and the trajectory's
// steps. Compute copies the node's module (engine::cloneModule, GUI thread) and runs
// engine::phasePlane and engine::phaseTrajectory (engine/analysis/phase_plane.hpp) on that copy
// on a thread of its own; the plot (QCustomPlot) shows the one-step vector field as arrows of
// equal length (red where the step spiked), the x- and y-nullclines, the fixed points (filled:
// stable, open: unstable, a cross: saddle, a diamond: marginal), the threshold and reset lines
// when the model declares them on an axis, and the neuron's trajectory from its current state.
// Clicking in the plane sets that neuron's two states in the document to the point clicked (one
// undoable edit: SetAttributeCommands in one undo macro) and draws the trajectory from there at
// once. Bad input is refused under the fields with the engine's message; the plot and document
// stay as they were. Export… writes PNG, PDF or CSV (the arrows). While the document runs
// (setLiveSource), the neuron's two states as the run records them are drawn over the plane and
// follow the run (phase_live.cpp). The dialog holds the document and a NodeId, never a module
// pointer. Thread: GUI thread; the computation owns its copy.
#pragma once

#include "engine/analysis/phase_plane.hpp"
#include "ui/document/graph_document.hpp"
#include "ui/window/analysis_parts.hpp"

#include <QDialog>

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

class QComboBox;
class QCPCurve;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QMouseEvent;
class QPushButton;

namespace spike::ui {

class LiveRun;

/// Non-modal dialog computing and drawing one node's phase portrait.
class PhaseDialog : public QDialog {
    Q_OBJECT

public:
    /// For node `id` of `doc` (which must outlive the dialog).
    PhaseDialog(GraphDocument& doc, NodeId id, QWidget* parent = nullptr);
    /// Waits for a computation in flight (AnalysisRunner; one step of a wide copy: short).
    ~PhaseDialog() override = default;

    /// Where the live trajectory comes from: `source` returns the document's running copy, or
    /// nullptr while there is none (MainWindow passes its run session's). Called again on every
    /// refreshLive(); the dialog never keeps the LiveRun beyond a call but for comparing it.
    void setLiveSource(std::function<LiveRun*()> source);
    /// Redraws the live trajectory: while a run exists and a portrait is shown, the portrait's
    /// neuron's two states over the run's recorded steps (at most kLivePoints, the newest last),
    /// from traces of the run (an existing trace of that state is read as it is; a missing one is
    /// added for that neuron alone and removed when the dialog closes or the axes change). Call
    /// when the run has new data (RunSession::updated) or was replaced.
    void refreshLive();
    /// The live trajectory drawn ((x, y) per recorded step, oldest first); empty without a run.
    const std::vector<std::array<double, 2>>& liveTrajectory() const { return m_live; }
    /// The live trajectory shows at most this many of the newest steps.
    static constexpr std::size_t kLivePoints = 5000;

    /// Reads the fields and starts the computation on a worker thread; false with the message
    /// under the fields when it cannot start. The engine's refusals arrive as the message.
    bool compute();
    bool computing() const { return m_runner->busy(); }
    /// The last portrait computed, if any.
    const std::optional<engine::PhasePlane>& plane() const { return m_plane; }
    /// The trajectory drawn ((x, y) per step, the start first).
    const std::vector<std::array<double, 2>>& trajectory() const { return m_trajectory; }
    QString message() const;
    /// Sets the chosen neuron's two states to (x, y) in the document (one undo step) and draws
    /// its trajectory from there; false with the message shown when the module refuses.
    bool startAt(double x, double y);

    QComboBox* xBox() const { return m_x; }
    QComboBox* yBox() const { return m_y; }
    QLineEdit* rangeEdit(int k) const { return m_range[k]; }  ///< xMin, xMax, yMin, yMax
    QLineEdit* neuronEdit() const { return m_neuron; }
    QLineEdit* currentEdit() const { return m_current; }
    QLineEdit* gridEdit() const { return m_grid; }
    QLineEdit* stepsEdit() const { return m_steps; }
    QPushButton* computeButton() const { return m_compute; }
    QCustomPlot* plot() const { return m_plot; }

private:
    struct Job;

    bool readOptions(engine::PhasePlaneOptions& options, std::int64_t& steps, QString& error) const;
    void suggest();
    void finishJob(const std::shared_ptr<Job>& job);
    void showMessage(const QString& text);
    void showPlane(const engine::PhasePlane& p);
    void showTrajectory();
    void plotClicked(QMouseEvent* event);
    void exportPlane();
    /// Removes the traces this dialog added to the run it added them to (if still the current one).
    void releaseLiveTraces(LiveRun* current);
    void drawLive();

    GraphDocument& m_doc;
    NodeId m_id;
    QComboBox* m_x = nullptr;
    QComboBox* m_y = nullptr;
    QLineEdit* m_range[4] = {nullptr, nullptr, nullptr, nullptr};
    QLineEdit* m_neuron = nullptr;
    QLineEdit* m_current = nullptr;
    QLineEdit* m_grid = nullptr;
    QLineEdit* m_steps = nullptr;
    QLabel* m_message = nullptr;
    QLabel* m_summary = nullptr;
    QCustomPlot* m_plot = nullptr;
    QCPCurve* m_path = nullptr;
    QPushButton* m_compute = nullptr;
    QPushButton* m_export = nullptr;
    AnalysisRunner* m_runner = nullptr;
    std::optional<engine::PhasePlane> m_plane;
    std::vector<std::array<double, 2>> m_trajectory;
    // Live trajectory (phase_live.cpp).
    std::function<LiveRun*()> m_liveSource;
    LiveRun* m_liveRun = nullptr;          ///< the run m_liveIds belong to (compared, never kept)
    QString m_liveKey;                     ///< "path|x|y|neuron" the traces were made for
    std::array<int, 2> m_liveIds{0, 0};    ///< trace ids of x and y in m_liveRun; 0: none
    std::array<bool, 2> m_liveOwned{false, false};  ///< added by this dialog (removed on close)
    QCPCurve* m_liveCurve = nullptr;
    std::vector<std::array<double, 2>> m_live;
    bool m_liveRefreshing = false;  ///< refreshLive() is on the stack
};

}  // namespace spike::ui
