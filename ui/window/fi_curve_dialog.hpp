// FiCurveDialog: the f-I curve of one neuron node (a node's context menu ▸ Analyse ▸ f-I curve…).
// The user gives start, stop and count of the current range, the measured steps and a warm-up;
// Compute runs engine::fiCurve (engine/analysis/fi_curve.hpp) on a worker thread through
// runOffThread (the window repaints, the document cannot change meanwhile) and plots the mean
// rate and the first-ISI rate against the current with QCustomPlot, the analytic curve dashed
// and the rheobase as a vertical line; bad input is refused under the fields with the engine's
// message and leaves the plot as it was. Export… writes PNG, PDF or CSV (ui/plots/plot_export).
// The dialog holds the document and a NodeId, never a module pointer: a node deleted while it is
// open is reported when Compute is pressed. Thread: GUI thread only.
#pragma once

#include "engine/analysis/fi_curve.hpp"
#include "ui/document/graph_document.hpp"

#include <QDialog>

#include <optional>

class QCustomPlot;
class QLabel;
class QLineEdit;
class QPushButton;

namespace spike::ui {

/// Non-modal dialog computing and plotting one node's f-I curve.
class FiCurveDialog : public QDialog {
    Q_OBJECT

public:
    /// For node `id` of `doc` (which must outlive the dialog); the fields start from
    /// engine::suggestedFiOptions of its module.
    FiCurveDialog(GraphDocument& doc, NodeId id, QWidget* parent = nullptr);

    /// Reads the fields, computes off the GUI thread and plots. Returns false (the message shown
    /// under the fields, the plot unchanged) for bad input.
    bool compute();
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
    QCustomPlot* plot() const { return m_plot; }

private:
    /// The fields as options; false with a message naming the field.
    bool readOptions(engine::FiOptions& options, QString& error) const;
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
    QLabel* m_message = nullptr;
    QLabel* m_summary = nullptr;
    QCustomPlot* m_plot = nullptr;
    std::optional<engine::FiCurve> m_curve;
};

}  // namespace spike::ui
