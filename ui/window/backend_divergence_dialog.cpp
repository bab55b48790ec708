// BackendDivergenceDialog (backend_divergence_dialog.hpp): sides, steps and the change of side B,
// the worker-thread computation (AnalysisRunner) and the log plot. Thread: GUI thread; only
// engine::backendDivergence on the Job's own copy runs on the worker, which shares nothing else
// with the dialog but the runner's atomics and the Job's result (read after the worker ended).
#include "ui/window/backend_divergence_dialog.hpp"

#include "ui/plots/plot_export.hpp"
#include "ui/plots/plot_style.hpp"

#include "engine/tensor/error.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QStandardItemModel>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <thread>

namespace spike::ui {

namespace {

QString divergenceNumber(double v)
{
    return QString::number(v, 'g', 6);
}

/// A module's numeric Parameters and States a change of side B may set.
QStringList changeableAttributes(const engine::Module& m)
{
    QStringList names;
    for (const engine::AttributeView& view : m.attributes()) {
        if (view.spec->kind != engine::AttributeKind::SimulationParameter && !view.derived &&
            std::holds_alternative<engine::Tensor>(*view.value)) {
            names << QString::fromStdString(view.spec->name);
        }
    }
    return names;
}

}  // namespace

BackendDivergenceDialog::BackendDivergenceDialog(GraphDocument& doc, QWidget* parent)
    : QDialog(parent), m_doc(doc)
{
    setWindowTitle(tr("CPU vs GPU divergence"));
    setObjectName(QStringLiteral("backendDivergenceDialog"));

    m_sideA = new QComboBox(this);
    fillSide(m_sideA, QStringLiteral("divergenceSideA"));
    m_sideB = new QComboBox(this);
    fillSide(m_sideB, QStringLiteral("divergenceSideB"));
    // B: CUDA when it can run, else a second CPU thread count (the comparison that always works).
    const int cuda = m_sideB->findData(QStringLiteral("cuda"));
    const auto* items = qobject_cast<QStandardItemModel*>(m_sideB->model());
    m_sideB->setCurrentIndex(items->item(cuda)->isEnabled() ? cuda : 1);
    m_steps = analysisField(this, QStringLiteral("divergenceSteps"), QStringLiteral("1000"),
                            tr("Steps both sides run, 1 to %1").arg(engine::kDivergenceMaxSteps));

    m_change = new QCheckBox(tr("Change side B:"), this);
    m_change->setObjectName(QStringLiteral("divergenceChange"));
    m_change->setToolTip(tr("Give side B's copy one different value, to see a small change grow"));
    m_node = new QComboBox(this);
    m_node->setObjectName(QStringLiteral("divergenceNode"));
    for (const auto& [path, module] : m_doc.root().namedModules()) {
        if (!changeableAttributes(*module).isEmpty()) {
            m_node->addItem(path.empty() ? tr("(root)") : QString::fromStdString(path),
                            QString::fromStdString(path));
        }
    }
    m_attribute = new QComboBox(this);
    m_attribute->setObjectName(QStringLiteral("divergenceAttribute"));
    m_neuron = analysisField(this, QStringLiteral("divergenceNeuron"), QStringLiteral("0"),
                             tr("Element (neuron) changed; empty changes every element"));
    m_value = analysisField(this, QStringLiteral("divergenceValue"), QString(), tr("Side B's value"));
    auto* changeRow = new QHBoxLayout;
    changeRow->addWidget(m_node, 2);
    changeRow->addWidget(m_attribute, 2);
    changeRow->addWidget(new QLabel(tr("neuron"), this));
    changeRow->addWidget(m_neuron, 1);
    changeRow->addWidget(new QLabel(tr("="), this));
    changeRow->addWidget(m_value, 2);
    const auto enableChange = [this](bool on) {
        for (QWidget* w : std::initializer_list<QWidget*>{m_node, m_attribute, m_neuron, m_value}) {
            w->setEnabled(on);
        }
    };
    enableChange(false);
    connect(m_change, &QCheckBox::toggled, this, enableChange);
    connect(m_node, &QComboBox::currentIndexChanged, this, [this] { fillAttributes(); });
    connect(m_attribute, &QComboBox::currentIndexChanged, this, [this] { fillValue(); });
    connect(m_neuron, &QLineEdit::editingFinished, this, [this] { fillValue(); });
    fillAttributes();

    auto* form = new QFormLayout;
    form->addRow(tr("Side A"), m_sideA);
    form->addRow(tr("Side B"), m_sideB);
    form->addRow(tr("Steps (dt %1 s)").arg(divergenceNumber(m_doc.root().timeStep())), m_steps);
    form->addRow(m_change, changeRow);

    m_message = analysisMessageLabel(this, QStringLiteral("divergenceMessage"));
    m_summary = analysisSummaryLabel(
        this, QStringLiteral("divergenceSummary"),
        tr("Compute (Enter) runs two copies of the model, one per side, step by step with zero "
           "input and plots the largest |A − B| of every state after each step."));

    m_plot = new QCustomPlot(this);
    m_plot->setObjectName(QStringLiteral("divergencePlot"));
    m_plot->setMinimumSize(480, 300);
    m_plot->xAxis->setLabel(tr("time [ms]"));
    m_plot->yAxis->setLabel(tr("max |A − B| per state"));
    m_plot->yAxis->setScaleType(QCPAxis::stLogarithmic);
    m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    m_plot->yAxis->setNumberFormat(QStringLiteral("eb"));
    m_plot->yAxis->setNumberPrecision(0);
    m_plot->legend->setVisible(false);
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);

    const AnalysisButtons row = analysisButtons(this, QStringLiteral("divergence"), [this] { compute(); },
                                                [this] { exportPlotDialog(); });
    m_compute = row.compute;
    m_cancel = row.cancel;
    m_progress = row.progress;
    m_export = row.exportButton;
    m_runner = new AnalysisRunner(m_compute, m_cancel, m_progress, this);
    QHBoxLayout* buttons = row.row;

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_message);
    layout->addWidget(m_plot, 1);
    layout->addWidget(m_summary);
    layout->addLayout(buttons);
    fitToScreen(this, 760, 680);
    // Another model opened: the nodes offered for a change mean nothing any more.
    connect(&m_doc, &GraphDocument::documentReset, this, &QDialog::close);
}

void BackendDivergenceDialog::fillSide(QComboBox* combo, const QString& objectName)
{
    combo->setObjectName(objectName);
    std::vector<int> counts{1, 2, 4, static_cast<int>(std::thread::hardware_concurrency())};
    std::sort(counts.begin(), counts.end());
    counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
    for (int n : counts) {
        if (n < 1) {
            continue;
        }
        combo->addItem(n == 1 ? tr("CPU, 1 thread") : tr("CPU, %1 threads").arg(n),
                       n == 1 ? QStringLiteral("cpu") : QStringLiteral("cpu:%1").arg(n));
    }
    combo->addItem(tr("CUDA"), QStringLiteral("cuda"));
    std::string why;
    if (!engine::backendAvailable(engine::BackendKind::Cuda, &why)) {
        auto* items = qobject_cast<QStandardItemModel*>(combo->model());
        QStandardItem* item = items->item(combo->count() - 1);
        item->setEnabled(false);
        item->setText(tr("CUDA (not available)"));
        item->setToolTip(tr("CUDA is not available here: %1").arg(QString::fromStdString(why)));
    }
}

void BackendDivergenceDialog::fillAttributes()
{
    m_attribute->clear();
    const std::string path = m_node->currentData().toString().toStdString();
    if (m_node->count() > 0) {
        m_attribute->addItems(changeableAttributes(m_doc.root().getSubmodule(path)));
    }
    fillValue();
}

void BackendDivergenceDialog::fillValue()
{
    if (m_attribute->count() == 0) {
        m_value->clear();
        return;
    }
    const engine::Module& m = m_doc.root().getSubmodule(m_node->currentData().toString().toStdString());
    const engine::Tensor& t = m.tensor(m_attribute->currentText().toStdString());
    bool ok = false;
    const qlonglong k = m_neuron->text().toLongLong(&ok);
    const std::int64_t i = ok && k >= 0 && k < t.numel() ? k : 0;
    // The float's shortest exact text, so that an untouched value changes nothing.
    std::array<char, 32> text{};
    const auto end = t.numel() > 0 ? std::to_chars(text.data(), text.data() + text.size(), t.data()[i]).ptr
                                   : text.data();
    m_value->setText(QString::fromLatin1(text.data(), static_cast<int>(end - text.data())));
}

QString BackendDivergenceDialog::message() const
{
    return m_message->text();
}

bool BackendDivergenceDialog::readOptions(engine::DivergenceOptions& options, QString& error) const
{
    if (!readWhole(m_steps, tr("Steps"), options.steps, error)) {
        return false;
    }
    options.a = engine::parseDivergenceSide(m_sideA->currentData().toString().toStdString());
    options.b = engine::parseDivergenceSide(m_sideB->currentData().toString().toStdString());
    if (!m_change->isChecked()) {
        return true;
    }
    double value = 0.0;
    if (m_attribute->count() == 0) {
        error = tr("Change side B: the model has no attribute to change");
        return false;
    }
    if (!readNumber(m_value, tr("Value"), value, error)) {
        return false;
    }
    QString target = m_node->currentData().toString();
    target += (target.isEmpty() ? QString() : QStringLiteral(".")) + m_attribute->currentText();
    const QString neuron = m_neuron->text().trimmed();
    if (!neuron.isEmpty()) {
        target += QStringLiteral("[%1]").arg(neuron);
    }
    const std::string text = (target + QLatin1Char('=') + QString::number(value, 'g', 17)).toStdString();
    try {
        options.perturbB = engine::parsePerturbation(m_doc.root(), text);
    } catch (const engine::Error& e) {
        // "--set 'E.v[9]=1': index 9 is out of range..." without the CLI's option name.
        QString why = QString::fromStdString(e.what());
        why.remove(0, why.indexOf(QStringLiteral("': ")) + 3);
        error = tr("Change side B (%1): %2").arg(target, why);
        return false;
    }
    return true;
}

bool BackendDivergenceDialog::computing() const
{
    return m_runner->busy();
}

void BackendDivergenceDialog::showMessage(const QString& text)
{
    showAnalysisMessage(m_message, text);
}

bool BackendDivergenceDialog::compute()
{
    if (computing()) {
        return false;
    }
    engine::DivergenceOptions options;
    QString error;
    if (!readOptions(options, error)) {
        showMessage(error);
        return false;
    }
    return launchAnalysisJob<engine::DivergenceCancelled, Job>(
        *m_runner, m_doc.root(), std::move(options), m_export, [this](const QString& text) { showMessage(text); },
        [](const engine::Module& copy, const engine::DivergenceOptions& o) { return engine::backendDivergence(copy, o); },
        [this](const std::shared_ptr<Job>& done) { finishJob(done); });
}

void BackendDivergenceDialog::cancel()
{
    m_runner->cancel();
}

void BackendDivergenceDialog::finishJob(const std::shared_ptr<Job>& job)
{
    finishAnalysisJob(*job, m_divergence, m_export, tr("Cancelled; the plot shows the previous result, if any."),
                      [this](const engine::Divergence& r) { showDivergence(r); }, [this](const QString& text) { showMessage(text); });
}

void BackendDivergenceDialog::showDivergence(const engine::Divergence& d)
{
    m_plot->clearGraphs();
    m_plot->clearItems();
    m_marker = nullptr;
    m_markerLabel = nullptr;
    m_identical = nullptr;
    m_plot->legend->setVisible(true);
    const double msPerStep = d.dt * 1000.0;
    QVector<double> x(static_cast<int>(d.steps));
    for (int t = 0; t < x.size(); ++t) {
        x[t] = (t + 1) * msPerStep;
    }
    double lowest = 0.0;
    double highest = 0.0;
    QStringList identical;
    const int count = static_cast<int>(d.states.size());
    for (int s = 0; s < count; ++s) {
        const std::vector<double>& series = d.maxAbs[static_cast<std::size_t>(s)];
        QCPGraph* g = m_plot->addGraph();
        g->setName(QString::fromStdString(d.states[static_cast<std::size_t>(s)]));
        g->setData(x, QVector<double>(series.begin(), series.end()), true);
        QPen pen(seriesColour(s, count), 1.5);
        if (d.overallMax[static_cast<std::size_t>(s)] == 0.0) {
            identical << g->name();
            pen.setStyle(Qt::DotLine);
            g->removeFromLegend();
        }
        g->setPen(pen);
        for (double v : series) {
            if (v > 0.0 && std::isfinite(v)) {
                lowest = lowest > 0.0 ? std::min(lowest, v) : v;
                highest = std::max(highest, v);
            }
        }
    }
    m_plot->xAxis->setRange(0.0, std::max(x.isEmpty() ? 1.0 : x.back(), msPerStep));
    if (highest > 0.0) {
        m_plot->yAxis->setRange(lowest / 3.0, highest * 3.0);
    } else {
        m_plot->yAxis->setRange(1e-9, 1.0);
        m_plot->legend->setVisible(false);
        m_identical = new QCPItemText(m_plot);
        m_identical->setObjectName(QStringLiteral("divergenceIdentical"));
        m_identical->position->setType(QCPItemPosition::ptAxisRectRatio);
        m_identical->position->setCoords(0.5, 0.45);
        m_identical->setText(tr("identical: every state equal on both sides at every step"));
        m_identical->setColor(QColor(44, 120, 44));
    }
    if (d.firstSpikeDifference) {
        const engine::SpikeDifference& s = *d.firstSpikeDifference;
        const double at = static_cast<double>(s.step + 1) * msPerStep;
        m_marker = new QCPItemStraightLine(m_plot);
        m_marker->setPen(QPen(QColor(214, 39, 40), 1.5, Qt::DashLine));
        m_marker->point1->setTypeY(QCPItemPosition::ptAxisRectRatio);
        m_marker->point2->setTypeY(QCPItemPosition::ptAxisRectRatio);
        m_marker->point1->setCoords(at, 0.0);
        m_marker->point2->setCoords(at, 1.0);
        m_markerLabel = new QCPItemText(m_plot);
        m_markerLabel->setText(tr("spikes differ: step %1, %2 neuron %3")
                                   .arg(s.step)
                                   .arg(s.path.empty() ? tr("(root)") : QString::fromStdString(s.path))
                                   .arg(s.neuron));
        m_markerLabel->setColor(QColor(214, 39, 40));
        m_markerLabel->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        m_markerLabel->position->setCoords(at, 0.02);
        const bool rightHalf = at > m_plot->xAxis->range().center();
        m_markerLabel->setPositionAlignment((rightHalf ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignTop);
        m_markerLabel->setPadding(QMargins(4, 0, 4, 0));
    }
    m_plot->replot();

    QString spikes = tr("Spikes never differed.");
    if (d.firstSpikeDifference) {
        const engine::SpikeDifference& s = *d.firstSpikeDifference;
        spikes = tr("Spikes first differ at step %1 (t = %2 ms) in %3 neuron %4 (A %5, B %6).")
                     .arg(s.step)
                     .arg(divergenceNumber((s.step + 1) * msPerStep))
                     .arg(s.path.empty() ? tr("(root)") : QString::fromStdString(s.path))
                     .arg(s.neuron)
                     .arg(divergenceNumber(s.a), divergenceNumber(s.b));
    }
    const QString same = identical.isEmpty() ? QString()
                         : identical.size() == count
                             ? tr(" Every state identical.")
                             : tr(" Identical throughout (dotted, below the axis): %1.").arg(identical.join(QStringLiteral(", ")));
    m_summary->setText(tr("%1 against %2, %3 steps of %4 s. %5 Largest difference %6.%7 A difference of 0 "
                          "has no logarithm: it is drawn below the axis.")
                           .arg(QString::fromStdString(d.sideA), QString::fromStdString(d.sideB))
                           .arg(d.steps)
                           .arg(divergenceNumber(d.dt))
                           .arg(spikes)
                           .arg(divergenceNumber(highest))
                           .arg(same));
}

bool BackendDivergenceDialog::exportTo(const QString& path, QString* error)
{
    return exportPlot(*m_plot, path, error);
}

void BackendDivergenceDialog::exportPlotDialog()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export the divergence"),
                                                      QStringLiteral("backend_divergence.png"),
                                                      tr("PNG (*.png);;PDF (*.pdf);;CSV (*.csv)"));
    if (path.isEmpty()) {
        return;
    }
    QString error;
    if (!exportTo(path, &error)) {
        showMessage(error);
    }
}

}  // namespace spike::ui
