// FiCurveDialog: the f-I curve of one neuron node (a node's context menu ▸ Analyse ▸ f-I curve…).
// The user gives start, stop and count of the current range, the measured steps and a warm-up;
// Compute copies the node's module (engine::cloneModule, on the GUI thread, so the document stays
// free to change) and runs engine::fiCurve (engine/analysis/fi_curve.hpp) on that copy on a
// thread of its own, with a progress bar and Cancel (honoured between two of the sweep's
// batches); the result is plotted with QCustomPlot: mean rate and first-ISI rate against the
// current, the analytic curve dashed and the rheobase as a vertical line. Bad input is refused
// under the fields with the engine's message and leaves the plot as it was. Export… writes PNG,
// PDF or CSV (ui/plots/plot_export). The dialog holds the document and a NodeId, never a module
// pointer: a node deleted while it is open is reported when Compute is pressed. Closing the
// dialog while it computes cancels and waits for the batch in flight. Thread: GUI thread; only
// the computation (which owns its copy) runs on the worker.
#pragma once

#include "engine/analysis/fi_curve.hpp"
#include "ui/document/graph_document.hpp"
#include "ui/window/analysis_parts.hpp"

#include <QDialog>

#include <memory>
#include <optional>

class QCustomPlot;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;

namespace spike::ui {

/// Non-modal dialog computing and plotting one node's f-I curve.
class FiCurveDialog : public QDialog {
    Q_OBJECT

public:
    /// For node `id` of `doc` (which must outlive the dialog); the fields start from
    /// engine::suggestedFiOptions of its module.
    FiCurveDialog(GraphDocument& doc, NodeId id, QWidget* parent = nullptr);
    /// Cancels a computation in flight and waits for its current batch (AnalysisRunner).
    ~FiCurveDialog() override = default;

    /// Reads the fields and starts the computation on a worker thread; the plot follows when it
    /// ends (computing() turns false). Returns false, with the message shown under the fields,
    /// when it cannot start (a field that is not a number, the node gone, one already running);
    /// the engine's own refusals (count 0, an empty range...) arrive as the message at the end.
    bool compute();
    /// Asks the computation in flight to stop after its current batch.
    void cancel();
    /// Whether a computation is in flight.
    bool computing() const;
    /// The last curve computed, if any.
    const std::optional<engine::FiCurve>& curve() const { return m_curve; }
    /// The message under the fields ("" when none).
    QString message() const;

    QLineEdit* startEdit() const { return m_start; }
    QLineEdit* stopEdit() const { return m_stop; }
    QLineEdit* countEdit() const { return m_count; }
    QLineEdit* stepsEdit() const { return m_steps; }
    QLineEdit* warmupEdit() const { return m_warmup; }
    QPushButton* computeButton() const { return m_compute; }
    QPushButton* cancelButton() const { return m_cancel; }
    QCustomPlot* plot() const { return m_plot; }

private:
    using Job = AnalysisJob<engine::FiCurve, engine::FiOptions>;

    /// The fields as options; false with a message naming the field.
    bool readOptions(engine::FiOptions& options, QString& error) const;
    /// The worker ended: plot its curve or show its message.
    void finishJob(const std::shared_ptr<Job>& job);
    void showMessage(const QString& text);
    void showCurve(const engine::FiCurve& curve);
    void exportCurve();

    GraphDocument& m_doc;
    NodeId m_id;
    QLineEdit* m_start = nullptr;
    QLineEdit* m_stop = nullptr;
    QLineEdit* m_count = nullptr;
    QLineEdit* m_steps = nullptr;
    QLineEdit* m_warmup = nullptr;
    QPushButton* m_compute = nullptr;
    QPushButton* m_export = nullptr;
    QPushButton* m_cancel = nullptr;
    QProgressBar* m_progress = nullptr;
    AnalysisRunner* m_runner = nullptr;
    QLabel* m_message = nullptr;
    QLabel* m_summary = nullptr;
    QCustomPlot* m_plot = nullptr;
    std::optional<engine::FiCurve> m_curve;
};

}  // namespace spike::ui
