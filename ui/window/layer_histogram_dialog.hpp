// LayerHistogramDialog: the weights and activations of one layer or composite (node context menu
// ▸ Analyse ▸ Weights and activations…). Top: the histogram of a Parameter tensor of the module's
// subtree chosen in a list ("weight [16, 8]", "resblocks.0.conv1.weight [...]", or every weight
// pooled), read from the document and again whenever an attribute changes, with its count, mean,
// std, mean |w|, min and max. Bottom: the histogram of the module's latest output while the model
// runs (every value since the previous update, the newest engine::kActivationKeep at most), with
// mean, std, fraction of zeros, min and max pooled since then (setActivation(), fed twice a second
// by MainWindow from the run's engine::ActivationMonitor); until the run reports it says how to
// get one. Export weights… / Export outputs… write either plot as PNG, PDF or CSV
// ("value" = bin centre, then the count). Non-modal; deletes
// itself when closed; closes when its node leaves the document.
// Thread: GUI thread only.
#pragma once

#include "engine/analysis/layer_statistics.hpp"
#include "ui/document/graph_document.hpp"

#include <QDialog>
#include <QString>

#include <string>

class QComboBox;
class QCPItemText;
class QCustomPlot;
class QLabel;

namespace spike::ui {

class LayerHistogramDialog : public QDialog {
    Q_OBJECT

public:
    /// For node `id` of `doc` (which must outlive the dialog).
    LayerHistogramDialog(GraphDocument& doc, NodeId id, QWidget* parent = nullptr);

    NodeId node() const { return m_id; }
    /// The module's path from the document's root ("" the root), as the activation keys use it.
    const std::string& modulePath() const { return m_path; }
    /// The run's latest statistics of this module's output; nullptr: no run reports it.
    void setActivation(const engine::ActivationSnapshot* snapshot);

    QComboBox* parameterBox() const { return m_parameter; }
    QCustomPlot* weightPlot() const { return m_weightPlot; }
    QCustomPlot* activationPlot() const { return m_activationPlot; }
    QLabel* weightSummary() const { return m_weightSummary; }
    QLabel* activationSummary() const { return m_activationSummary; }
    /// Writes the weights plot ("weights") or the activations plot to `path` (PNG, PDF, CSV);
    /// false with the message shown in the dialog (what the Export buttons do after asking).
    bool exportTo(const QString& which, const QString& path);

private:
    /// Re-reads the parameter list (keeping the choice by name) and draws the chosen one.
    void readWeights();
    void drawWeights();
    void exportChosen(bool weights);

    GraphDocument& m_doc;
    NodeId m_id;
    std::string m_path;
    QComboBox* m_parameter = nullptr;
    QCustomPlot* m_weightPlot = nullptr;
    QCustomPlot* m_activationPlot = nullptr;
    QLabel* m_weightSummary = nullptr;
    QLabel* m_activationSummary = nullptr;
    QLabel* m_message = nullptr;
    QCPItemText* m_waiting = nullptr;  ///< in the empty output plot until the run reports
};

}  // namespace spike::ui
