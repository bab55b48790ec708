// SweepDialog: a parameter sweep of one neuron node (a node's context menu ▸ Analyse ▸ Parameter
// sweep…). The user picks one or two of the module's sweepable parameters
// (engine::sweepableAttributes) with a range each, a measure (mean rate, CV, spike count, peak
// of a state), the constant input current, the measured steps and a warm-up. Compute copies the
// node's module (engine::cloneModule, on the GUI thread) and runs engine::parameterSweep
// (engine/analysis/parameter_sweep.hpp) on that copy on a thread of its own, with a progress bar
// and Cancel (honoured between chunks). One parameter gives a line plot, two a heat map with a
// colour scale (QCustomPlot). Clicking a point or cell loads its parameter values into the node,
// as one undoable edit (SetAttributeCommands in one undo macro), so the Inspector shows them and
// Ctrl+Z takes them back. Bad input is refused under the fields with the engine's message and
// leaves the plot as it was. Export… writes PNG, PDF or CSV. The dialog holds the document and a
// NodeId, never a module pointer. Closing it while it computes cancels and waits for the chunk
// in flight. Thread: GUI thread; only the computation (which owns its copy) runs on the worker.
#pragma once

#include "engine/analysis/parameter_sweep.hpp"
#include "ui/document/graph_document.hpp"
#include "ui/window/analysis_parts.hpp"

#include <QDialog>

#include <memory>
#include <optional>

class QCheckBox;
class QComboBox;
class QCPColorMap;
class QCPColorScale;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QMouseEvent;
class QProgressBar;
class QPushButton;

namespace spike::ui {

/// Non-modal dialog computing and plotting one node's parameter sweep.
class SweepDialog : public QDialog {
    Q_OBJECT

public:
    /// For node `id` of `doc` (which must outlive the dialog). The first parameter starts at the
    /// module's first sweepable parameter, its range around the current value.
    SweepDialog(GraphDocument& doc, NodeId id, QWidget* parent = nullptr);
    /// Cancels a computation in flight and waits for its current chunk (AnalysisRunner).
    ~SweepDialog() override = default;

    /// Reads the fields and starts the computation on a worker thread; the plot follows when it
    /// ends (computing() turns false). Returns false, with the message shown under the fields,
    /// when it cannot start (a field that is not a number, the node gone, one already running);
    /// the engine's refusals arrive as the message at the end.
    bool compute();
    /// Asks the computation in flight to stop after its current chunk.
    void cancel();
    bool computing() const { return m_runner->busy(); }
    /// The last sweep computed, if any.
    const std::optional<engine::SweepResult>& result() const { return m_result; }
    /// The message under the fields ("" when none).
    QString message() const;
    /// Loads the parameter values of grid point (i, j) (j = 0 for one parameter) into the node as
    /// one undoable edit; false with the message shown when there is no such point or the module
    /// refuses a value.
    bool loadPoint(std::size_t i, std::size_t j);

    QComboBox* firstParameter() const { return m_param[0]; }
    QComboBox* secondParameter() const { return m_param[1]; }
    QCheckBox* secondEnabled() const { return m_second; }
    QLineEdit* startEdit(int axis) const { return m_start[axis]; }
    QLineEdit* stopEdit(int axis) const { return m_stop[axis]; }
    QLineEdit* countEdit(int axis) const { return m_count[axis]; }
    QComboBox* measureBox() const { return m_measure; }
    QComboBox* stateBox() const { return m_state; }
    QLineEdit* currentEdit() const { return m_current; }
    QLineEdit* stepsEdit() const { return m_steps; }
    QLineEdit* warmupEdit() const { return m_warmup; }
    QPushButton* computeButton() const { return m_compute; }
    QPushButton* cancelButton() const { return m_cancel; }
    QCustomPlot* plot() const { return m_plot; }

private:
    using Job = AnalysisJob<engine::SweepResult, engine::SweepOptions>;

    bool readOptions(engine::SweepOptions& options, QString& error) const;
    void finishJob(const std::shared_ptr<Job>& job);
    void showMessage(const QString& text);
    void showResult(const engine::SweepResult& r);
    void exportResult();
    /// Fills start and stop of `axis` around the chosen parameter's current value.
    void suggestRange(int axis);
    void updateFields();
    void plotClicked(QMouseEvent* event);

    GraphDocument& m_doc;
    NodeId m_id;
    QComboBox* m_param[2] = {nullptr, nullptr};
    QLineEdit* m_start[2] = {nullptr, nullptr};
    QLineEdit* m_stop[2] = {nullptr, nullptr};
    QLineEdit* m_count[2] = {nullptr, nullptr};
    QCheckBox* m_second = nullptr;
    QComboBox* m_measure = nullptr;
    QComboBox* m_state = nullptr;
    QLineEdit* m_current = nullptr;
    QLineEdit* m_steps = nullptr;
    QLineEdit* m_warmup = nullptr;
    QLabel* m_message = nullptr;
    QLabel* m_summary = nullptr;
    QCustomPlot* m_plot = nullptr;
    QCPColorMap* m_map = nullptr;
    QCPColorScale* m_scale = nullptr;
    QPushButton* m_compute = nullptr;
    QPushButton* m_export = nullptr;
    QPushButton* m_cancel = nullptr;
    QProgressBar* m_progress = nullptr;
    AnalysisRunner* m_runner = nullptr;
    std::optional<engine::SweepResult> m_result;
};

}  // namespace spike::ui
