// SweepDialog (sweep_dialog.hpp): fields, the worker-thread computation (AnalysisRunner), the
// line plot or heat map, and loading a clicked point into the node. Thread: GUI thread; only
// engine::parameterSweep on the Job's own copy runs on the worker, which shares nothing else with
// the dialog but the runner's atomics and the Job's result (read after the worker ended).
#include "ui/window/sweep_dialog.hpp"

#include "ui/document/graph_commands.hpp"
#include "ui/plots/plot_export.hpp"

#include "engine/analysis/fi_curve.hpp"
#include "engine/io/model_clone.hpp"
#include "engine/tensor/error.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QProgressBar>
#include <QPushButton>
#include <QUndoStack>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <cmath>

namespace spike::ui {

namespace {

QString sweepNumber(double v)
{
    return QString::number(v, 'g', 8);
}

QString measureTitle(const QString& measure)
{
    if (measure == QLatin1String("rate")) {
        return QObject::tr("mean rate");
    }
    if (measure == QLatin1String("cv")) {
        return QObject::tr("ISI CV");
    }
    if (measure == QLatin1String("spikes")) {
        return QObject::tr("spike count");
    }
    if (measure == QLatin1String("peak")) {
        return QObject::tr("peak of a state");
    }
    return measure;
}

/// "tau_mem [s]", or the name alone when the attribute has no units.
QString withUnits(const engine::Module& m, const std::string& name)
{
    const std::string& units = m.spec(name).units;
    return units.empty() ? QString::fromStdString(name)
                         : QStringLiteral("%1 [%2]").arg(QString::fromStdString(name),
                                                        QString::fromStdString(units));
}

}  // namespace

SweepDialog::SweepDialog(GraphDocument& doc, NodeId id, QWidget* parent)
    : QDialog(parent), m_doc(doc), m_id(id)
{
    const engine::Module* module = m_doc.module(id);
    const QString path = QString::fromStdString(m_doc.path(id));
    const QString type = module != nullptr ? QString::fromStdString(module->className()) : QString();
    setWindowTitle(tr("Parameter sweep of %1 (%2)").arg(path.isEmpty() ? tr("(root)") : path, type));
    setObjectName(QStringLiteral("sweepDialog"));

    std::vector<std::string> sweepable;
    double dt = 1e-3;
    double current = 0.0;
    if (module != nullptr) {
        sweepable = engine::sweepableAttributes(*module);
        dt = module->timeStep();
        current = 0.5 * engine::suggestedFiOptions(*module).stop;
    }
    const auto field = [this](const QString& name, const QString& text, const QString& tip) {
        return analysisField(this, name, text, tip);
    };

    auto* grid = new QGridLayout;
    grid->addWidget(new QLabel(tr("Parameter"), this), 0, 1);
    grid->addWidget(new QLabel(tr("Start"), this), 0, 2);
    grid->addWidget(new QLabel(tr("Stop"), this), 0, 3);
    grid->addWidget(new QLabel(tr("Count"), this), 0, 4);
    m_second = new QCheckBox(tr("and"), this);
    m_second->setObjectName(QStringLiteral("sweepSecond"));
    m_second->setToolTip(tr("Sweep a second parameter too: every pair of values, shown as a heat map"));
    grid->addWidget(new QLabel(tr("Sweep"), this), 1, 0);
    grid->addWidget(m_second, 2, 0);
    for (int axis = 0; axis < 2; ++axis) {
        const QString suffix = QString::number(axis + 1);
        m_param[axis] = new QComboBox(this);
        m_param[axis]->setObjectName(QStringLiteral("sweepParam") + suffix);
        for (const std::string& name : sweepable) {
            m_param[axis]->addItem(withUnits(*module, name), QString::fromStdString(name));
        }
        m_param[axis]->setCurrentIndex(std::min<int>(axis, m_param[axis]->count() - 1));
        m_start[axis] = field(QStringLiteral("sweepStart") + suffix, QString(), tr("First value"));
        m_stop[axis] = field(QStringLiteral("sweepStop") + suffix, QString(), tr("Last value"));
        m_count[axis] = field(QStringLiteral("sweepCount") + suffix, axis == 0 ? QStringLiteral("21") : QStringLiteral("15"),
                              tr("Values, evenly spaced; the grid has at most %1 points")
                                  .arg(engine::kSweepMaxPoints));
        grid->addWidget(m_param[axis], axis + 1, 1);
        grid->addWidget(m_start[axis], axis + 1, 2);
        grid->addWidget(m_stop[axis], axis + 1, 3);
        grid->addWidget(m_count[axis], axis + 1, 4);
        suggestRange(axis);
        connect(m_param[axis], &QComboBox::currentIndexChanged, this, [this, axis] {
            suggestRange(axis);
            updateFields();
        });
    }
    grid->setColumnStretch(1, 2);
    for (int c = 2; c <= 4; ++c) {
        grid->setColumnStretch(c, 1);
    }

    m_measure = new QComboBox(this);
    m_measure->setObjectName(QStringLiteral("sweepMeasure"));
    for (const std::string& name : engine::sweepMeasures()) {
        const QString m = QString::fromStdString(name);
        m_measure->addItem(measureTitle(m), m);
    }
    m_state = new QComboBox(this);
    m_state->setObjectName(QStringLiteral("sweepState"));
    if (module != nullptr) {
        const std::string membrane = module->membraneSignal();
        for (const auto& view : module->attributes()) {
            if (view.spec->kind == engine::AttributeKind::State &&
                view.spec->type == engine::ValueType::Real) {
                m_state->addItem(QString::fromStdString(view.spec->name), QString::fromStdString(view.spec->name));
            }
        }
        m_state->setCurrentIndex(std::max(0, m_state->findData(QString::fromStdString(membrane))));
    }
    m_current = field(QStringLiteral("sweepCurrent"), sweepNumber(current),
                      tr("Constant input per step on every input channel, as the f-I curve drives it"));
    m_steps = field(QStringLiteral("sweepSteps"), QString::number(std::max<long long>(1, std::llround(1.0 / dt))),
                    tr("Measured steps per point (default 1 s)"));
    m_warmup = field(QStringLiteral("sweepWarmup"), QStringLiteral("0"), tr("Steps run first and not measured"));
    auto* form = new QFormLayout;
    auto* measureRow = new QHBoxLayout;
    measureRow->addWidget(m_measure, 1);
    measureRow->addWidget(new QLabel(tr("state"), this));
    measureRow->addWidget(m_state, 1);
    form->addRow(tr("Measure"), measureRow);
    form->addRow(tr("Input current"), m_current);
    form->addRow(tr("Steps (dt %1 s)").arg(sweepNumber(dt)), m_steps);
    form->addRow(tr("Warm-up steps"), m_warmup);

    m_message = analysisMessageLabel(this, QStringLiteral("sweepMessage"));
    m_summary = analysisSummaryLabel(
        this, QStringLiteral("sweepSummary"),
        tr("Compute (Enter) runs every point of the grid on copies of the module and plots the measure; "
           "click a point to load its values into the node (Ctrl+Z undoes)."));

    m_plot = new QCustomPlot(this);
    m_plot->setObjectName(QStringLiteral("sweepPlot"));
    m_plot->setMinimumSize(420, 240);
    m_plot->yAxis->setLabel(tr("measure"));
    connect(m_plot, &QCustomPlot::mousePress, this, &SweepDialog::plotClicked);

    const AnalysisButtons row = analysisButtons(this, QStringLiteral("sweep"), [this] { compute(); },
                                                [this] { exportResult(); });
    m_compute = row.compute;
    m_cancel = row.cancel;
    m_progress = row.progress;
    m_export = row.exportButton;
    m_runner = new AnalysisRunner(m_compute, m_cancel, m_progress, this);
    m_compute->setEnabled(!sweepable.empty());
    connect(m_second, &QCheckBox::toggled, this, &SweepDialog::updateFields);
    connect(m_measure, &QComboBox::currentIndexChanged, this, &SweepDialog::updateFields);
    QHBoxLayout* buttons = row.row;

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(grid);
    layout->addLayout(form);
    layout->addWidget(m_message);
    layout->addWidget(m_plot, 1);
    layout->addWidget(m_summary);
    layout->addLayout(buttons);
    fitToScreen(this, 760, 720);
    updateFields();
    if (sweepable.empty()) {
        showMessage(tr("%1 has no parameter a sweep can vary.").arg(type));
    }
    connect(&m_doc, &GraphDocument::documentReset, this, &QDialog::close);
}

QString SweepDialog::message() const
{
    return m_message->text();
}

void SweepDialog::showMessage(const QString& text)
{
    showAnalysisMessage(m_message, text);
}

void SweepDialog::updateFields()
{
    const bool two = m_second->isChecked();
    m_param[1]->setEnabled(two);
    m_start[1]->setEnabled(two);
    m_stop[1]->setEnabled(two);
    m_count[1]->setEnabled(two);
    m_state->setEnabled(m_measure->currentData().toString() == QLatin1String("peak"));
    if (!m_result) {  // the empty plot's axes say what Compute will draw
        m_plot->xAxis->setLabel(m_param[0]->currentText());
        m_plot->yAxis->setLabel(two ? m_param[1]->currentText() : m_measure->currentText());
        m_plot->replot();
    }
}

void SweepDialog::suggestRange(int axis)
{
    const engine::Module* module = m_doc.module(m_id);
    const QString name = m_param[axis]->currentData().toString();
    if (module == nullptr || name.isEmpty()) {
        return;
    }
    const engine::Tensor& t = module->tensor(name.toStdString());
    // The float's shortest decimal (0.01, not 0.0099999998), so the range reads as typed.
    const double v = t.numel() > 0 ? QString::number(t[0], 'g', 7).toDouble() : 0.0;
    double lo = 0.0;
    double hi = 1.0;
    if (v > 0.0) {
        lo = 0.5 * v;
        hi = 2.0 * v;
    } else if (v < 0.0) {
        lo = 2.0 * v;
        hi = 0.5 * v;
    }
    m_start[axis]->setText(sweepNumber(lo));
    m_stop[axis]->setText(sweepNumber(hi));
}

bool SweepDialog::readOptions(engine::SweepOptions& options, QString& error) const
{
    const auto real = [&error](const QLineEdit* edit, const QString& name, double& out) {
        return readNumber(edit, name, out, error);
    };
    const auto whole = [&error](const QLineEdit* edit, const QString& name, std::int64_t& out) {
        return readWhole(edit, name, out, error);
    };
    const int axes = m_second->isChecked() ? 2 : 1;
    for (int a = 0; a < axes; ++a) {
        engine::SweepAxis axis;
        axis.attribute = m_param[a]->currentData().toString().toStdString();
        const QString which = axes == 2 ? tr(" (parameter %1)").arg(a + 1) : QString();
        if (!real(m_start[a], tr("Start") + which, axis.start) ||
            !real(m_stop[a], tr("Stop") + which, axis.stop) ||
            !whole(m_count[a], tr("Count") + which, axis.count)) {
            return false;
        }
        options.axes.push_back(axis);
    }
    options.measure = m_measure->currentData().toString().toStdString();
    if (options.measure == "peak") {
        options.state = m_state->currentData().toString().toStdString();
    }
    std::int64_t steps = 0;
    if (!real(m_current, tr("Input current"), options.current) || !whole(m_steps, tr("Steps"), steps) ||
        !whole(m_warmup, tr("Warm-up"), options.warmupSteps)) {
        return false;
    }
    options.steps = steps;
    return true;
}

bool SweepDialog::compute()
{
    if (computing()) {
        return false;
    }
    const engine::Module* module = m_doc.module(m_id);
    if (module == nullptr) {
        showMessage(tr("The node is no longer in the document."));
        return false;
    }
    engine::SweepOptions options;
    QString error;
    if (!readOptions(options, error)) {
        showMessage(error);
        return false;
    }
    return launchAnalysisJob<engine::SweepCancelled, Job>(
        *m_runner, *module, std::move(options), m_export, [this](const QString& text) { showMessage(text); },
        [](const engine::Module& copy, const engine::SweepOptions& o) { return engine::parameterSweep(copy, o); },
        [this](const std::shared_ptr<Job>& done) { finishJob(done); });
}

void SweepDialog::cancel()
{
    m_runner->cancel();
}

void SweepDialog::finishJob(const std::shared_ptr<Job>& job)
{
    finishAnalysisJob(*job, m_result, m_export, tr("Cancelled; the plot shows the previous sweep, if any."),
                      [this](const engine::SweepResult& r) { showResult(r); }, [this](const QString& text) { showMessage(text); });
}

void SweepDialog::showResult(const engine::SweepResult& r)
{
    m_plot->clearGraphs();
    m_plot->clearItems();
    if (m_map != nullptr) {
        m_plot->removePlottable(m_map);
        m_map = nullptr;
    }
    if (m_scale != nullptr) {
        m_plot->plotLayout()->remove(m_scale);
        m_scale = nullptr;
    }
    const engine::Module* module = m_doc.module(m_id);
    const auto axisLabel = [&](std::size_t a) {
        const std::string& name = r.axes[a].attribute;
        return module != nullptr && module->hasAttribute(name) ? withUnits(*module, name)
                                                                 : QString::fromStdString(name);
    };
    QString measure = measureTitle(QString::fromStdString(r.measure));
    if (r.measure == "peak") {
        measure = tr("peak of %1").arg(QString::fromStdString(r.state));
    }
    if (!r.unit.empty()) {
        measure += QStringLiteral(" [%1]").arg(QString::fromStdString(r.unit));
    }
    m_plot->xAxis->setLabel(axisLabel(0));
    m_plot->axisRect()->setBackground(QBrush(Qt::white));
    if (r.y.empty()) {
        QCPGraph* g = m_plot->addGraph();
        g->setName(measure);
        g->setPen(QPen(QColor(31, 119, 180), 2.0));
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5.0));
        g->setData(QVector<double>(r.x.begin(), r.x.end()), QVector<double>(r.values.begin(), r.values.end()));
        m_plot->yAxis->setLabel(measure);
        m_plot->rescaleAxes();
        const QCPRange xr = m_plot->xAxis->range();
        const double pad = xr.size() > 0.0 ? xr.size() * 0.03 : 1.0;
        m_plot->xAxis->setRange(xr.lower - pad, xr.upper + pad);
        const QCPRange yr = m_plot->yAxis->range();
        m_plot->yAxis->setRange(std::min(0.0, yr.lower), yr.upper + std::max(1e-9, yr.size() * 0.08));
    } else {
        m_plot->yAxis->setLabel(axisLabel(1));
        m_map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
        const int nx = static_cast<int>(r.x.size());
        const int ny = static_cast<int>(r.y.size());
        m_map->data()->setSize(nx, ny);
        m_map->data()->setRange(QCPRange(r.x.front(), r.x.back()), QCPRange(r.y.front(), r.y.back()));
        for (int i = 0; i < nx; ++i) {
            for (int j = 0; j < ny; ++j) {
                m_map->data()->setCell(i, j, r.values[static_cast<std::size_t>(i * ny + j)]);
            }
        }
        m_scale = new QCPColorScale(m_plot);
        m_plot->plotLayout()->addElement(0, 1, m_scale);
        m_scale->setType(QCPAxis::atRight);
        m_scale->axis()->setLabel(measure);
        m_map->setColorScale(m_scale);
        // Dark to light yellow (the inferno map's stops), never white: a point without a value
        // (a CV where nothing fired twice) is transparent over the grey background.
        QCPColorGradient gradient;
        gradient.clearColorStops();
        gradient.setColorStopAt(0.0, QColor(0, 0, 4));
        gradient.setColorStopAt(0.25, QColor(87, 16, 110));
        gradient.setColorStopAt(0.5, QColor(188, 55, 84));
        gradient.setColorStopAt(0.75, QColor(249, 142, 9));
        gradient.setColorStopAt(1.0, QColor(252, 255, 164));
        gradient.setColorInterpolation(QCPColorGradient::ciRGB);
        gradient.setNanHandling(QCPColorGradient::nhTransparent);
        m_plot->axisRect()->setBackground(QBrush(QColor(200, 200, 200)));
        m_map->setGradient(gradient);
        m_map->rescaleDataRange(true);
        m_map->setInterpolate(false);
        auto* margins = new QCPMarginGroup(m_plot);
        m_plot->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
        m_scale->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
        m_plot->rescaleAxes();
        // Whole cells: the outer points' cells reach half a spacing beyond them.
        const double hx = nx > 1 ? 0.5 * (r.x.back() - r.x.front()) / (nx - 1) : 0.5;
        const double hy = ny > 1 ? 0.5 * (r.y.back() - r.y.front()) / (ny - 1) : 0.5;
        m_plot->xAxis->setRange(std::min(r.x.front(), r.x.back()) - std::abs(hx),
                                std::max(r.x.front(), r.x.back()) + std::abs(hx));
        m_plot->yAxis->setRange(std::min(r.y.front(), r.y.back()) - std::abs(hy),
                                std::max(r.y.front(), r.y.back()) + std::abs(hy));
    }
    m_plot->replot();
    m_summary->setText(tr("%1 of %2 neuron(s) per point, input %3 on port '%4', %5 steps of %6 s%7; %8. "
                          "Click a point to load its values into the node (Ctrl+Z undoes).")
                           .arg(measure)
                           .arg(r.neurons)
                           .arg(sweepNumber(m_current->text().toDouble()))
                           .arg(QString::fromStdString(r.port))
                           .arg(r.steps)
                           .arg(sweepNumber(r.dt))
                           .arg(r.warmupSteps > 0 ? tr(" after %1 warm-up steps").arg(r.warmupSteps) : QString())
                           .arg(r.widePopulation ? tr("run as one wide population")
                                                 : tr("run as one copy per point")));
}

void SweepDialog::plotClicked(QMouseEvent* event)
{
    if (!m_result || event->button() != Qt::LeftButton ||
        !m_plot->axisRect()->rect().contains(event->pos())) {
        return;
    }
    const engine::SweepResult& r = *m_result;
    const auto nearest = [](const std::vector<double>& values, double at) {
        std::size_t best = 0;
        for (std::size_t k = 1; k < values.size(); ++k) {
            if (std::abs(values[k] - at) < std::abs(values[best] - at)) {
                best = k;
            }
        }
        return best;
    };
    const std::size_t i = nearest(r.x, m_plot->xAxis->pixelToCoord(event->pos().x()));
    const std::size_t j = r.y.empty() ? 0 : nearest(r.y, m_plot->yAxis->pixelToCoord(event->pos().y()));
    loadPoint(i, j);
}

bool SweepDialog::loadPoint(std::size_t i, std::size_t j)
{
    if (!m_result || i >= m_result->x.size() || (m_result->y.empty() ? j != 0 : j >= m_result->y.size())) {
        showMessage(tr("There is no such point in the last sweep."));
        return false;
    }
    const engine::Module* module = m_doc.module(m_id);
    if (module == nullptr) {
        showMessage(tr("The node is no longer in the document."));
        return false;
    }
    const engine::SweepResult& r = *m_result;
    engine::AttributeMap values;
    QStringList described;
    for (std::size_t a = 0; a < r.axes.size(); ++a) {
        const std::string& name = r.axes[a].attribute;
        const double v = a == 0 ? r.x[i] : r.y[j];
        engine::Tensor t(module->tensor(name).shape());
        t.flat().setConstant(static_cast<float>(v));
        values[name] = t;
        described << QStringLiteral("%1 = %2").arg(QString::fromStdString(name), sweepNumber(v));
    }
    // Checked on a copy first, so a refused value leaves no half-applied undo step.
    try {
        auto trial = engine::cloneModule(*module);
        if (const engine::Status s = trial->setAttributes(engine::NestedAttributes{{"", values}}); !s.ok) {
            showMessage(QString::fromStdString(s.message));
            return false;
        }
    } catch (const std::exception& e) {
        showMessage(QString::fromStdString(e.what()));
        return false;
    }
    m_doc.undoStack()->beginMacro(tr("Load sweep point %1").arg(described.join(QStringLiteral(", "))));
    for (const auto& [name, value] : values) {
        const engine::Status s = pushCommand(m_doc, std::make_unique<SetAttributeCommand>(m_doc, m_id, name, value));
        if (!s.ok) {
            m_doc.undoStack()->endMacro();
            showMessage(QString::fromStdString(s.message));
            return false;
        }
    }
    m_doc.undoStack()->endMacro();
    // A ring marks the point loaded (replacing an earlier one).
    for (int k = m_plot->itemCount() - 1; k >= 0; --k) {
        if (m_plot->item(k)->objectName() == QLatin1String("loadedPoint")) {
            m_plot->removeItem(k);
        }
    }
    auto* ring = new QCPItemTracer(m_plot);
    ring->setObjectName(QStringLiteral("loadedPoint"));
    ring->setStyle(QCPItemTracer::tsCircle);
    ring->setSize(14.0);
    ring->setPen(QPen(r.y.empty() ? QColor(214, 39, 40) : QColor(Qt::white), 2.0));
    ring->position->setCoords(r.x[i], r.y.empty() ? r.values[i] : r.y[j]);
    m_plot->replot();
    showMessage(QString());
    m_summary->setText(tr("Loaded %1 into the node (Ctrl+Z undoes).").arg(described.join(QStringLiteral(", "))));
    return true;
}

void SweepDialog::exportResult()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export the sweep"), QStringLiteral("sweep.png"),
                                                      tr("PNG (*.png);;PDF (*.pdf);;CSV (*.csv)"));
    if (path.isEmpty() || !m_result) {
        return;
    }
    if (!path.endsWith(QLatin1String(".csv"), Qt::CaseInsensitive) || m_result->y.empty()) {
        QString error;
        if (!exportPlot(*m_plot, path, &error, m_plot->xAxis->label())) {
            showMessage(error);
        }
        return;
    }
    // A heat map has no graph for plotCsv: one row per grid point, x-major.
    const engine::SweepResult& r = *m_result;
    QString text = QStringLiteral("%1,%2,%3\n").arg(QString::fromStdString(r.axes[0].attribute),
                                                   QString::fromStdString(r.axes[1].attribute),
                                                   QString::fromStdString(r.measure));
    for (std::size_t i = 0; i < r.x.size(); ++i) {
        for (std::size_t j = 0; j < r.y.size(); ++j) {
            text += QStringLiteral("%1,%2,%3\n")
                        .arg(QString::number(r.x[i], 'g', 17), QString::number(r.y[j], 'g', 17),
                             QString::number(r.values[i * r.y.size() + j], 'g', 17));
        }
    }
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(text.toUtf8()) < 0) {
        showMessage(tr("%1: cannot write the file").arg(path));
    }
}

}  // namespace spike::ui
