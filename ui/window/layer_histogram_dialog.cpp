// LayerHistogramDialog (layer_histogram_dialog.hpp): the two histograms and their summaries.
// Both are QCPGraphs drawn as filled steps over the bin centres, so that the CSV export writes
// one row per bin (value, count). Thread: GUI thread only.
#include "ui/window/layer_histogram_dialog.hpp"

#include "ui/plots/plot_export.hpp"
#include "ui/window/analysis_parts.hpp"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>

namespace spike::ui {

namespace {

constexpr std::int64_t kBins = 40;

QString shapeText(const engine::Shape& shape)
{
    QStringList dims;
    for (int k = 0; k < shape.rank(); ++k) {
        dims << QString::number(shape[k]);
    }
    return QStringLiteral("[%1]").arg(dims.join(QStringLiteral(", ")));
}

QString g4(double v)
{
    return QString::number(v, 'g', 4);
}

}  // namespace

LayerHistogramDialog::LayerHistogramDialog(GraphDocument& doc, NodeId id, QWidget* parent)
    : QDialog(parent), m_doc(doc), m_id(id), m_path(doc.path(id))
{
    setAttribute(Qt::WA_DeleteOnClose);
    const engine::Module* module = m_doc.module(id);
    const QString type = module != nullptr ? QString::fromStdString(module->className()) : QString();
    const QString shown = m_path.empty() ? tr("(root)") : QString::fromStdString(m_path);
    setWindowTitle(tr("Weights and activations of %1 (%2)").arg(shown, type));

    m_parameter = new QComboBox(this);
    m_parameter->setObjectName(QStringLiteral("histogramParameter"));
    m_parameter->setToolTip(tr("Which Parameter tensor of this module (or of a module inside it) the upper "
                               "histogram shows"));
    m_parameter->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_weightPlot = histogramPlot(this, QStringLiteral("weightHistogram"), tr("weight value"));
    m_weightSummary = analysisSummaryLabel(this, QStringLiteral("weightSummary"), QString());
    m_activationPlot = histogramPlot(this, QStringLiteral("activationHistogram"), tr("output value"));
    m_activationSummary = analysisSummaryLabel(this, QStringLiteral("activationSummary"), QString());
    // Said in the empty plot until the run reports (an empty frame alone says nothing).
    m_waiting = new QCPItemText(m_activationPlot);
    m_waiting->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_waiting->position->setCoords(0.5, 0.5);
    m_waiting->setText(tr("no outputs yet: Run or Step the model"));
    m_waiting->setColor(QColor(0x80, 0x80, 0x80));
    m_message = analysisMessageLabel(this, QStringLiteral("histogramMessage"));

    auto* exportWeights = new QPushButton(tr("Export weights…"), this);
    exportWeights->setToolTip(tr("The weight histogram as PNG, PDF or CSV (bin centre, count)"));
    auto* exportOutputs = new QPushButton(tr("Export outputs…"), this);
    exportOutputs->setToolTip(tr("The output histogram as PNG, PDF or CSV (bin centre, count)"));
    auto* closeButton = new QPushButton(tr("Close"), this);
    connect(exportWeights, &QPushButton::clicked, this, [this] { exportChosen(true); });
    connect(exportOutputs, &QPushButton::clicked, this, [this] { exportChosen(false); });
    connect(closeButton, &QPushButton::clicked, this, &QDialog::close);
    connect(m_parameter, &QComboBox::currentIndexChanged, this, [this] { drawWeights(); });

    auto* choose = new QHBoxLayout;
    choose->addWidget(new QLabel(tr("Weights of"), this));
    choose->addWidget(m_parameter, 1);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(exportWeights);
    buttons->addWidget(exportOutputs);
    buttons->addStretch(1);
    buttons->addWidget(closeButton);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(choose);
    layout->addWidget(m_weightPlot, 1);
    layout->addWidget(m_weightSummary);
    auto* outputs = new QLabel(tr("Outputs while the model runs"), this);
    QFont bold = outputs->font();
    bold.setBold(true);
    outputs->setFont(bold);
    layout->addWidget(outputs);
    layout->addWidget(m_activationPlot, 1);
    layout->addWidget(m_activationSummary);
    layout->addWidget(m_message);
    layout->addLayout(buttons);
    fitToScreen(this, 640, 720);

    readWeights();
    setActivation(nullptr);
    connect(&m_doc, &GraphDocument::documentReset, this, &QDialog::close);
    connect(&m_doc, &GraphDocument::nodeRemoved, this, [this] {
        if (!m_doc.contains(m_id)) {
            close();
        }
    });
    connect(&m_doc, &GraphDocument::attributeChanged, this, [this] { readWeights(); });
}

void LayerHistogramDialog::readWeights()
{
    const engine::Module* module = m_doc.module(m_id);
    if (module == nullptr) {
        return;
    }
    const QString chosen = m_parameter->currentData().toString();
    const QSignalBlocker block(m_parameter);
    m_parameter->clear();
    const auto params = engine::parameterTensors(*module);
    const auto weights = std::count_if(params.begin(), params.end(),
                                       [](const engine::NamedTensor& p) { return p.family == "weights"; });
    if (weights > 1) {
        m_parameter->addItem(tr("every weight (%1 tensors pooled)").arg(weights), QStringLiteral("*"));
    }
    for (const engine::NamedTensor& p : params) {
        const QString name = QString::fromStdString(p.name);
        m_parameter->addItem(QStringLiteral("%1 %2").arg(name, shapeText(p.tensor->shape())), name);
    }
    const int keep = m_parameter->findData(chosen);
    m_parameter->setCurrentIndex(keep >= 0 ? keep : 0);
    drawWeights();
}

void LayerHistogramDialog::drawWeights()
{
    const engine::Module* module = m_doc.module(m_id);
    if (module == nullptr || m_parameter->count() == 0) {
        return;
    }
    const QString chosen = m_parameter->currentData().toString();
    std::vector<float> values;
    for (const engine::NamedTensor& p : engine::parameterTensors(*module)) {
        const bool wanted = chosen == QLatin1String("*") ? p.family == "weights" : QString::fromStdString(p.name) == chosen;
        if (wanted) {
            values.insert(values.end(), p.tensor->data(), p.tensor->data() + p.tensor->numel());
        }
    }
    const auto n = static_cast<std::int64_t>(values.size());
    const engine::ValueSummary s = engine::summarize(values.data(), n);
    drawHistogram(*m_weightPlot, engine::valueHistogram(values.data(), n, kBins), QColor(0x1f, 0x6f, 0xc5));
    QString text = tr("%1 values: mean %2, std %3, mean |w| %4, min %5, max %6, zeros %7%")
                       .arg(QLocale().toString(static_cast<qlonglong>(s.count)), g4(s.mean()), g4(s.std()),
                            g4(s.meanAbs()), g4(s.min), g4(s.max), QString::number(100.0 * s.zeroFraction(), 'f', 1));
    if (s.nonFinite > 0) {
        text += tr("; %1 NaN or Inf (left out)").arg(s.nonFinite);
    }
    m_weightSummary->setText(text);
}

void LayerHistogramDialog::setActivation(const engine::ActivationSnapshot* snapshot)
{
    if (snapshot == nullptr) {
        if (m_activationPlot->graphCount() > 0 && m_activationPlot->graph(0)->dataCount() > 0) {
            return;  // keep the last values shown when the run pauses or ends
        }
        m_waiting->setVisible(true);
        m_activationPlot->replot();
        m_activationSummary->setText(tr("Run or Step the model: the values this module puts out appear here while it "
                                        "runs (their histogram, mean, std and fraction of zeros, twice a second)."));
        return;
    }
    m_waiting->setVisible(false);
    drawHistogram(*m_activationPlot, snapshot->histogram, QColor(0xd3, 0x54, 0x00));
    const engine::ValueSummary& a = snapshot->summary;
    QString text = tr("Latest output %1; since the previous update %2 calls, %3 values: mean %4, std %5, zeros %6%, "
                      "min %7, max %8")
                       .arg(shapeText(snapshot->lastShape))
                       .arg(snapshot->calls)
                       .arg(QLocale().toString(static_cast<qlonglong>(a.count)), g4(a.mean()), g4(a.std()),
                            QString::number(100.0 * a.zeroFraction(), 'f', 1), g4(a.min), g4(a.max));
    if (a.nonFinite > 0) {
        text += tr("; %1 NaN or Inf").arg(a.nonFinite);
    }
    m_activationSummary->setText(text);
}

bool LayerHistogramDialog::exportTo(const QString& which, const QString& path)
{
    QCustomPlot* plot = which == QLatin1String("weights") ? m_weightPlot : m_activationPlot;
    QString error;
    if (!exportPlot(*plot, path, &error, QStringLiteral("value"))) {
        showAnalysisMessage(m_message, error);
        return false;
    }
    showAnalysisMessage(m_message, QString());
    return true;
}

void LayerHistogramDialog::exportChosen(bool weights)
{
    const QString path = QFileDialog::getSaveFileName(
        this, weights ? tr("Export the weight histogram") : tr("Export the output histogram"),
        weights ? QStringLiteral("weights.png") : QStringLiteral("outputs.png"), tr("PNG (*.png);;PDF (*.pdf);;CSV (*.csv)"));
    if (!path.isEmpty()) {
        exportTo(weights ? QStringLiteral("weights") : QStringLiteral("outputs"), path);
    }
}

}  // namespace spike::ui
