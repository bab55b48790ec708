// BackendDivergenceDialog: the whole model run on two backends in lock-step (View ▸ Analyse ▸
// CPU vs GPU divergence…), the largest absolute difference of every State plotted per step.
// The user picks side A and side B (CPU with 1, 2, 4... threads, or CUDA: its entries disabled,
// with the reason as tool tip, when this build or machine cannot run it), the steps, and
// optionally a change of side B only (a node, one of its numeric Parameters or States, one
// neuron or all, a value). Compute copies the document's root (engine::cloneModule, on the GUI
// thread, so the document stays free to change and a run's rebuild cannot touch the copy) and
// runs engine::backendDivergence (engine/analysis/backend_divergence.hpp) on it on a thread of
// its own, with a progress bar and Cancel (honoured after any step). The plot (QCustomPlot, log
// y axis) has one graph per State, time [ms] at the end of each step on x; a difference of 0 has
// no logarithm and is drawn below the axis, a State that never differs says "(identical)" in the
// legend, and when none differs a note says so. The first step at which spikes differ is a
// vertical line with a label naming the module and neuron. Bad input is refused under the fields
// with the engine's message and leaves the plot and the document as they were. Export… writes
// PNG, PDF or CSV (ui/plots/plot_export). Closing the dialog mid-computation cancels and waits
// for the step in flight. Thread: GUI thread; only the computation (which owns its copy) runs on
// the worker.
#pragma once

#include "engine/analysis/backend_divergence.hpp"
#include "ui/document/graph_document.hpp"
#include "ui/window/analysis_parts.hpp"

#include <QDialog>

#include <memory>
#include <optional>

class QCheckBox;
class QComboBox;
class QCPItemStraightLine;
class QCPItemText;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;

namespace spike::ui {

/// Non-modal dialog computing and plotting the divergence of two backends on the document's model.
class BackendDivergenceDialog : public QDialog {
    Q_OBJECT

public:
    /// For the model of `doc` (which must outlive the dialog).
    explicit BackendDivergenceDialog(GraphDocument& doc, QWidget* parent = nullptr);
    /// Cancels a computation in flight and waits for its current step (AnalysisRunner).
    ~BackendDivergenceDialog() override = default;

    /// Reads the fields and starts the computation on a worker thread; the plot follows when it
    /// ends (computing() turns false). Returns false, with the message shown under the fields,
    /// when it cannot start (a field that is not a number, a bad change, one already running);
    /// the engine's own refusals arrive as the message at the end.
    bool compute();
    /// Asks the computation in flight to stop after its current step.
    void cancel();
    /// Whether a computation is in flight.
    bool computing() const;
    /// The last divergence computed, if any.
    const std::optional<engine::Divergence>& divergence() const { return m_divergence; }
    /// The message under the fields ("" when none).
    QString message() const;
    /// Writes the plot to `path` as PNG, PDF or CSV (by suffix); false with a message in `error`.
    bool exportTo(const QString& path, QString* error = nullptr);

    QComboBox* sideACombo() const { return m_sideA; }
    QComboBox* sideBCombo() const { return m_sideB; }
    QLineEdit* stepsEdit() const { return m_steps; }
    QCheckBox* changeCheck() const { return m_change; }
    QComboBox* nodeCombo() const { return m_node; }
    QComboBox* attributeCombo() const { return m_attribute; }
    QLineEdit* neuronEdit() const { return m_neuron; }
    QLineEdit* valueEdit() const { return m_value; }
    QPushButton* computeButton() const { return m_compute; }
    QPushButton* cancelButton() const { return m_cancel; }
    QCustomPlot* plot() const { return m_plot; }
    /// The first-spike-difference line and its label (nullptr when spikes never differed).
    QCPItemStraightLine* spikeMarker() const { return m_marker; }
    QCPItemText* spikeLabel() const { return m_markerLabel; }
    /// The "identical" note (nullptr unless every State was equal at every step).
    QCPItemText* identicalNote() const { return m_identical; }

private:
    using Job = AnalysisJob<engine::Divergence, engine::DivergenceOptions>;

    /// Fills a side combo: CPU with 1, 2, 4... threads, and CUDA (disabled with the reason).
    void fillSide(QComboBox* combo, const QString& objectName);
    /// The node's numeric Parameters and States into the attribute combo.
    void fillAttributes();
    /// The chosen attribute's current value (of the neuron given, else element 0) as the value.
    void fillValue();
    /// The fields as options; false with a message naming the field.
    bool readOptions(engine::DivergenceOptions& options, QString& error) const;
    void finishJob(const std::shared_ptr<Job>& job);
    void showMessage(const QString& text);
    void showDivergence(const engine::Divergence& d);
    void exportPlotDialog();

    GraphDocument& m_doc;
    QComboBox* m_sideA = nullptr;
    QComboBox* m_sideB = nullptr;
    QLineEdit* m_steps = nullptr;
    QCheckBox* m_change = nullptr;
    QComboBox* m_node = nullptr;
    QComboBox* m_attribute = nullptr;
    QLineEdit* m_neuron = nullptr;
    QLineEdit* m_value = nullptr;
    QPushButton* m_compute = nullptr;
    QPushButton* m_export = nullptr;
    QPushButton* m_cancel = nullptr;
    QProgressBar* m_progress = nullptr;
    AnalysisRunner* m_runner = nullptr;
    QLabel* m_message = nullptr;
    QLabel* m_summary = nullptr;
    QCustomPlot* m_plot = nullptr;
    QCPItemStraightLine* m_marker = nullptr;
    QCPItemText* m_markerLabel = nullptr;
    QCPItemText* m_identical = nullptr;
    std::optional<engine::Divergence> m_divergence;
};

}  // namespace spike::ui
