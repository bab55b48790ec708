// PhaseDialog (phase_dialog.hpp): fields, the worker-thread computation (AnalysisRunner), the
// drawing and starting the neuron at a clicked point. Thread: GUI thread; only
// engine::phasePlane and engine::phaseTrajectory on the Job's own copy run on the worker, which
// shares nothing else with the dialog; the result is read after the worker ended.
#include "ui/window/phase_dialog.hpp"

#include "ui/document/graph_commands.hpp"
#include "ui/plots/plot_export.hpp"

#include "engine/io/model_clone.hpp"
#include "engine/tensor/error.hpp"

#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPushButton>
#include <QUndoStack>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <cmath>
#include <limits>

namespace spike::ui {

/// One computation: the copy, the options, and the outcome (written by the worker before it ends).
struct PhaseDialog::Job {
    std::unique_ptr<engine::Module> copy;
    engine::PhasePlaneOptions options;
    std::int64_t steps = 0;
    std::optional<engine::PhasePlane> plane;
    std::vector<std::array<double, 2>> trajectory;
    QString error;
};

namespace {

QString phaseNumber(double v)
{
    return QString::number(v, 'g', 6);
}

/// "v [mV]", or the name alone without units.
QString axisText(const QString& name, const std::string& units)
{
    return units.empty() ? name : QStringLiteral("%1 [%2]").arg(name, QString::fromStdString(units));
}

/// Neuron `k`'s value of state `name` (one value per neuron, shape (N,) or (N, 1)).
double stateOf(const engine::Module& m, const std::string& name, std::int64_t k)
{
    const engine::Tensor& t = m.tensor(name);
    return k < t.numel() ? static_cast<double>(t[k]) : 0.0;
}

/// The segments as one curve with a NaN point between pieces (QCPCurve leaves a gap there).
void drawSegments(QCPCurve* curve, const std::vector<engine::PhaseSegment>& segments)
{
    QVector<double> x;
    QVector<double> y;
    x.reserve(static_cast<int>(3 * segments.size()));
    y.reserve(static_cast<int>(3 * segments.size()));
    const double gap = std::numeric_limits<double>::quiet_NaN();
    for (const auto& s : segments) {
        x << s.a.x << s.b.x << gap;
        y << s.a.y << s.b.y << gap;
    }
    curve->setData(x, y);
}

}  // namespace

PhaseDialog::PhaseDialog(GraphDocument& doc, NodeId id, QWidget* parent)
    : QDialog(parent), m_doc(doc), m_id(id)
{
    const engine::Module* module = m_doc.module(id);
    const QString path = QString::fromStdString(m_doc.path(id));
    const QString type = module != nullptr ? QString::fromStdString(module->className()) : QString();
    setWindowTitle(tr("Phase portrait of %1 (%2)").arg(path.isEmpty() ? tr("(root)") : path, type));
    setObjectName(QStringLiteral("phaseDialog"));

    std::vector<std::string> states;
    if (module != nullptr) {
        states = engine::phaseStates(*module);
    }
    const auto field = [this](const QString& name, const QString& tip) {
        return analysisField(this, name, QString(), tip);
    };
    m_x = new QComboBox(this);
    m_x->setObjectName(QStringLiteral("phaseX"));
    m_y = new QComboBox(this);
    m_y->setObjectName(QStringLiteral("phaseY"));
    for (const std::string& s : states) {
        m_x->addItem(QString::fromStdString(s), QString::fromStdString(s));
        m_y->addItem(QString::fromStdString(s), QString::fromStdString(s));
    }
    const QStringList rangeNames{QStringLiteral("phaseXMin"), QStringLiteral("phaseXMax"),
                                 QStringLiteral("phaseYMin"), QStringLiteral("phaseYMax")};
    for (int k = 0; k < 4; ++k) {
        m_range[k] = field(rangeNames[k], k % 2 == 0 ? tr("Lower end of the axis") : tr("Upper end of the axis"));
    }
    m_neuron = field(QStringLiteral("phaseNeuron"), tr("The neuron whose parameters and other states are used"));
    m_neuron->setText(QStringLiteral("0"));
    m_current = field(QStringLiteral("phaseCurrent"), tr("Constant input per step on every input channel"));
    m_current->setText(QStringLiteral("0"));
    m_grid = field(QStringLiteral("phaseGrid"), tr("Arrows per axis (2 to %1)").arg(engine::kPhaseMaxGrid));
    m_grid->setText(QStringLiteral("21"));
    m_steps = field(QStringLiteral("phaseSteps"),
                    tr("Steps of the trajectory drawn from the neuron's state (0 to %1)")
                        .arg(engine::kPhaseMaxTrajectorySteps));
    m_steps->setText(QStringLiteral("500"));

    auto* grid = new QGridLayout;
    m_x->setMinimumWidth(fontMetrics().horizontalAdvance(QStringLiteral("M")) * 9);
    m_y->setMinimumWidth(m_x->minimumWidth());
    grid->setColumnStretch(1, 1);
    grid->setColumnStretch(2, 2);
    grid->setColumnStretch(3, 2);
    grid->addWidget(new QLabel(tr("State"), this), 0, 1);
    grid->addWidget(new QLabel(tr("From"), this), 0, 2);
    grid->addWidget(new QLabel(tr("To"), this), 0, 3);
    grid->addWidget(new QLabel(tr("Horizontal"), this), 1, 0);
    grid->addWidget(m_x, 1, 1);
    grid->addWidget(m_range[0], 1, 2);
    grid->addWidget(m_range[1], 1, 3);
    grid->addWidget(new QLabel(tr("Vertical"), this), 2, 0);
    grid->addWidget(m_y, 2, 1);
    grid->addWidget(m_range[2], 2, 2);
    grid->addWidget(m_range[3], 2, 3);
    auto* row = new QHBoxLayout;
    for (const auto& [label, edit] : {std::pair{tr("Neuron"), m_neuron}, std::pair{tr("Input current"), m_current},
                                      std::pair{tr("Arrows"), m_grid}, std::pair{tr("Trajectory steps"), m_steps}}) {
        row->addWidget(new QLabel(label, this));
        row->addWidget(edit, 1);
    }

    m_message = analysisMessageLabel(this, QStringLiteral("phaseMessage"));
    m_summary = analysisSummaryLabel(
        this, QStringLiteral("phaseSummary"),
        tr("Compute (Enter) steps the model once from every point of the plane and draws the field, the "
           "nullclines and the fixed points; click the plane to start the neuron there; "
                          "while the model runs, the teal path is the neuron as the run records it."));

    m_plot = new QCustomPlot(this);
    m_plot->setObjectName(QStringLiteral("phasePlot"));
    m_plot->setMinimumSize(420, 260);
    m_plot->legend->setVisible(false);
    connect(m_plot, &QCustomPlot::mousePress, this, &PhaseDialog::plotClicked);

    m_compute = new QPushButton(tr("Compute"), this);
    m_compute->setObjectName(QStringLiteral("phaseCompute"));
    m_compute->setDefault(true);
    m_compute->setEnabled(states.size() >= 2);
    m_export = new QPushButton(tr("Export…"), this);
    m_export->setEnabled(false);
    m_runner = new AnalysisRunner(m_compute, nullptr, nullptr, this);
    auto* close = new QPushButton(tr("Close"), this);
    connect(m_compute, &QPushButton::clicked, this, [this] { compute(); });
    connect(m_export, &QPushButton::clicked, this, &PhaseDialog::exportPlane);
    connect(close, &QPushButton::clicked, this, &QDialog::close);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_compute);
    buttons->addWidget(m_export);
    buttons->addStretch(1);
    buttons->addWidget(close);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(grid);
    layout->addLayout(row);
    layout->addWidget(m_message);
    layout->addWidget(m_plot, 1);
    layout->addWidget(m_summary);
    layout->addLayout(buttons);
    fitToScreen(this, 760, 720);

    if (states.size() < 2) {
        showMessage(states.empty() ? tr("%1 has no state variables; a phase portrait needs two.").arg(type)
                                   : tr("%1 has one state variable (%2); a phase portrait needs two.")
                                         .arg(type, QString::fromStdString(states.front())));
    } else {
        suggest();
    }
    connect(m_x, &QComboBox::currentIndexChanged, this, &PhaseDialog::suggest);
    connect(m_y, &QComboBox::currentIndexChanged, this, &PhaseDialog::suggest);
    connect(&m_doc, &GraphDocument::documentReset, this, &QDialog::close);
}

QString PhaseDialog::message() const
{
    return m_message->text();
}

void PhaseDialog::showMessage(const QString& text)
{
    showAnalysisMessage(m_message, text);
}

void PhaseDialog::suggest()
{
    const engine::Module* module = m_doc.module(m_id);
    if (module == nullptr) {
        return;
    }
    bool ok = false;
    const std::int64_t neuron = m_neuron->text().toLongLong(&ok);
    try {
        // The first time: both axes suggested; afterwards the axes chosen, their ranges suggested.
        const bool first = m_range[0]->text().isEmpty();
        const engine::PhasePlaneOptions o = engine::suggestedPhasePlane(
            *module, ok ? neuron : 0, first ? std::string() : m_x->currentData().toString().toStdString(),
            first ? std::string() : m_y->currentData().toString().toStdString());
        const QSignalBlocker bx(m_x);
        const QSignalBlocker by(m_y);
        m_x->setCurrentIndex(m_x->findData(QString::fromStdString(o.x)));
        m_y->setCurrentIndex(m_y->findData(QString::fromStdString(o.y)));
        m_range[0]->setText(phaseNumber(o.xMin));
        m_range[1]->setText(phaseNumber(o.xMax));
        m_range[2]->setText(phaseNumber(o.yMin));
        m_range[3]->setText(phaseNumber(o.yMax));
        if (!m_plane) {  // the empty plot's axes show what Compute will draw
            m_plot->xAxis->setLabel(QString::fromStdString(o.x));
            m_plot->yAxis->setLabel(QString::fromStdString(o.y));
            m_plot->xAxis->setRange(o.xMin, o.xMax);
            m_plot->yAxis->setRange(o.yMin, o.yMax);
            m_plot->replot();
        }
        showMessage(QString());
    } catch (const std::exception& e) {
        showMessage(QString::fromStdString(e.what()));
    }
}

bool PhaseDialog::readOptions(engine::PhasePlaneOptions& o, std::int64_t& steps, QString& error) const
{
    const auto real = [&error](const QLineEdit* edit, const QString& name, double& out) {
        return readNumber(edit, name, out, error);
    };
    const auto whole = [&error](const QLineEdit* edit, const QString& name, std::int64_t& out) {
        return readWhole(edit, name, out, error);
    };
    o.x = m_x->currentData().toString().toStdString();
    o.y = m_y->currentData().toString().toStdString();
    return real(m_range[0], tr("Horizontal from"), o.xMin) && real(m_range[1], tr("Horizontal to"), o.xMax) &&
           real(m_range[2], tr("Vertical from"), o.yMin) && real(m_range[3], tr("Vertical to"), o.yMax) &&
           whole(m_neuron, tr("Neuron"), o.neuron) && real(m_current, tr("Input current"), o.current) &&
           whole(m_grid, tr("Arrows"), o.grid) && whole(m_steps, tr("Trajectory steps"), steps);
}

bool PhaseDialog::compute()
{
    if (computing()) {
        return false;
    }
    const engine::Module* module = m_doc.module(m_id);
    if (module == nullptr) {
        showMessage(tr("The node is no longer in the document."));
        return false;
    }
    auto job = std::make_shared<Job>();
    QString error;
    if (!readOptions(job->options, job->steps, error)) {
        showMessage(error);
        return false;
    }
    try {
        job->copy = engine::cloneModule(*module);
    } catch (const std::exception& e) {
        showMessage(QString::fromStdString(e.what()));
        return false;
    }
    showMessage(QString());
    m_runner->start(
        [job] {
            try {
                job->plane = engine::phasePlane(*job->copy, job->options);
                const std::int64_t k = job->options.neuron;
                job->trajectory = engine::phaseTrajectory(*job->copy, job->options, stateOf(*job->copy, job->options.x, k),
                                                          stateOf(*job->copy, job->options.y, k), job->steps);
            } catch (const std::exception& e) {
                job->plane.reset();
                job->error = QString::fromStdString(e.what());
            }
        },
        [this, job] { finishJob(job); });
    return true;
}

void PhaseDialog::finishJob(const std::shared_ptr<Job>& job)
{
    if (!job->plane) {
        showMessage(job->error);
        return;
    }
    m_plane = std::move(job->plane);
    m_trajectory = std::move(job->trajectory);
    showPlane(*m_plane);
    refreshLive();
    m_export->setEnabled(true);
}

void PhaseDialog::showPlane(const engine::PhasePlane& p)
{
    m_plot->clearPlottables();
    m_plot->clearItems();
    m_path = nullptr;
    m_liveCurve = nullptr;  // drawn again by refreshLive()
    const engine::PhasePlaneOptions& o = p.options;
    m_plot->xAxis->setLabel(axisText(QString::fromStdString(o.x), p.xUnits));
    m_plot->yAxis->setLabel(axisText(QString::fromStdString(o.y), p.yUnits));
    m_plot->xAxis->setRange(o.xMin, o.xMax);
    m_plot->yAxis->setRange(o.yMin, o.yMax);

    // Arrows of one length (0.8 of a grid cell, in axis-fraction terms): the direction of the flow.
    const double cellX = (o.xMax - o.xMin) / static_cast<double>(o.grid - 1);
    const double cellY = (o.yMax - o.yMin) / static_cast<double>(o.grid - 1);
    for (const engine::PhaseArrow& a : p.field) {
        const double ux = a.dx / cellX;
        const double uy = a.dy / cellY;
        const double n = std::hypot(ux, uy);
        if (!(n > 0.0) || !std::isfinite(n)) {
            continue;
        }
        auto* arrow = new QCPItemLine(m_plot);
        arrow->setPen(QPen(a.spiked ? QColor(230, 120, 120) : QColor(140, 140, 140), 1.0));
        arrow->setHead(QCPLineEnding(QCPLineEnding::esSpikeArrow, 5, 6));
        const double hx = 0.4 * cellX * ux / n;
        const double hy = 0.4 * cellY * uy / n;
        arrow->start->setCoords(a.x - hx, a.y - hy);
        arrow->end->setCoords(a.x + hx, a.y + hy);
    }
    const auto nullcline = [this](const std::vector<engine::PhaseSegment>& segments, const QColor& colour,
                                  const QString& name) {
        auto* c = new QCPCurve(m_plot->xAxis, m_plot->yAxis);
        c->setName(name);
        c->setPen(QPen(colour, 2.0));
        drawSegments(c, segments);
    };
    nullcline(p.xNullcline, QColor(31, 119, 180), tr("%1-nullcline").arg(QString::fromStdString(o.x)));
    nullcline(p.yNullcline, QColor(255, 127, 14), tr("%1-nullcline").arg(QString::fromStdString(o.y)));
    const auto line = [this](double at, bool vertical, const QColor& colour, const QString& label) {
        auto* l = new QCPItemStraightLine(m_plot);
        l->setPen(QPen(colour, 1.5, Qt::DashLine));
        l->point1->setCoords(vertical ? at : 0.0, vertical ? 0.0 : at);
        l->point2->setCoords(vertical ? at : 1.0, vertical ? 1.0 : at);
        auto* text = new QCPItemText(m_plot);
        text->setText(label);
        text->setColor(colour);
        text->position->setType(QCPItemPosition::ptPlotCoords);
        text->position->setCoords(vertical ? at : m_plot->xAxis->range().lower,
                                  vertical ? m_plot->yAxis->range().upper : at);
        text->setPositionAlignment(vertical ? (Qt::AlignLeft | Qt::AlignTop) : (Qt::AlignLeft | Qt::AlignBottom));
        text->setPadding(QMargins(3, 1, 3, 1));
    };
    if (p.xThreshold) {
        line(*p.xThreshold, true, QColor(214, 39, 40), tr("threshold"));
    }
    if (p.yThreshold) {
        line(*p.yThreshold, false, QColor(214, 39, 40), tr("threshold"));
    }
    if (p.xReset) {
        line(*p.xReset, true, QColor(44, 160, 44), tr("reset"));
    }
    if (p.yReset) {
        line(*p.yReset, false, QColor(44, 160, 44), tr("reset"));
    }
    QStringList points;
    for (const engine::PhaseFixedPoint& f : p.fixedPoints) {
        auto* g = m_plot->addGraph();
        g->setLineStyle(QCPGraph::lsNone);
        QCPScatterStyle style(QCPScatterStyle::ssDisc, QColor(20, 20, 20), 10.0);
        if (f.stability == "unstable") {
            style = QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(QColor(20, 20, 20), 2.0), Qt::white, 10.0);
        } else if (f.stability == "saddle") {
            style = QCPScatterStyle(QCPScatterStyle::ssCross, QPen(QColor(20, 20, 20), 2.5), Qt::NoBrush, 11.0);
        } else if (f.stability == "marginal") {
            style = QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(QColor(20, 20, 20), 2.0), Qt::white, 10.0);
        }
        g->setScatterStyle(style);
        g->setName(QString::fromStdString(f.stability));
        g->setData(QVector<double>{f.x}, QVector<double>{f.y});
        points << tr("(%1, %2) %3")
                      .arg(phaseNumber(f.x), phaseNumber(f.y), QString::fromStdString(f.stability));
    }
    m_path = new QCPCurve(m_plot->xAxis, m_plot->yAxis);
    m_path->setName(tr("trajectory"));
    m_path->setPen(QPen(QColor(120, 40, 160), 1.5));
    showTrajectory();
    m_plot->replot();
    m_summary->setText(tr("%1 from neuron %2 with input %3 on port '%4', one step of %5 s per arrow; fixed points: %6. "
                          "Blue: %7 stays put, orange: %8 stays put; click the plane to start the neuron there; "
                          "while the model runs, the teal path is the neuron as the run records it.")
                           .arg(QString::fromStdString(p.type))
                           .arg(o.neuron)
                           .arg(phaseNumber(o.current))
                           .arg(QString::fromStdString(p.port))
                           .arg(phaseNumber(p.dt))
                           .arg(points.isEmpty() ? tr("none in this range") : points.join(QStringLiteral(", ")))
                           .arg(QString::fromStdString(o.x), QString::fromStdString(o.y)));
}

void PhaseDialog::showTrajectory()
{
    if (m_path == nullptr) {
        return;
    }
    QVector<double> t;
    QVector<double> x;
    QVector<double> y;
    for (std::size_t k = 0; k < m_trajectory.size(); ++k) {
        t << static_cast<double>(k);
        x << m_trajectory[k][0];
        y << m_trajectory[k][1];
    }
    m_path->setData(t, x, y);
    // The start: a small ring.
    for (int k = m_plot->itemCount() - 1; k >= 0; --k) {
        if (m_plot->item(k)->objectName() == QLatin1String("trajectoryStart")) {
            m_plot->removeItem(k);
        }
    }
    if (!m_trajectory.empty()) {
        auto* start = new QCPItemTracer(m_plot);
        start->setObjectName(QStringLiteral("trajectoryStart"));
        start->setStyle(QCPItemTracer::tsCircle);
        start->setSize(9.0);
        start->setPen(QPen(QColor(120, 40, 160), 2.0));
        start->position->setCoords(m_trajectory.front()[0], m_trajectory.front()[1]);
    }
    m_plot->replot();
}

void PhaseDialog::plotClicked(QMouseEvent* event)
{
    if (!m_plane || event->button() != Qt::LeftButton || !m_plot->axisRect()->rect().contains(event->pos())) {
        return;
    }
    startAt(m_plot->xAxis->pixelToCoord(event->pos().x()), m_plot->yAxis->pixelToCoord(event->pos().y()));
}

bool PhaseDialog::startAt(double x, double y)
{
    const engine::Module* module = m_doc.module(m_id);
    if (module == nullptr || !m_plane) {
        showMessage(tr("The node is no longer in the document."));
        return false;
    }
    const engine::PhasePlaneOptions& o = m_plane->options;
    engine::AttributeMap values;
    for (const auto& [name, value] : {std::pair{o.x, x}, std::pair{o.y, y}}) {
        engine::Tensor t = module->tensor(name);
        if (o.neuron >= t.numel()) {
            showMessage(tr("Neuron %1 is no longer in %2.").arg(o.neuron).arg(QString::fromStdString(m_doc.path(m_id))));
            return false;
        }
        t[o.neuron] = static_cast<float>(value);
        values[name] = t;
    }
    try {
        auto trial = engine::cloneModule(*module);
        if (const engine::Status s = trial->setAttributes(engine::NestedAttributes{{"", values}}); !s.ok) {
            showMessage(QString::fromStdString(s.message));
            return false;
        }
        std::int64_t steps = 0;
        engine::PhasePlaneOptions ignored;
        QString error;
        if (!readOptions(ignored, steps, error)) {
            steps = static_cast<std::int64_t>(m_trajectory.empty() ? 0 : m_trajectory.size() - 1);
        }
        m_trajectory = engine::phaseTrajectory(*trial, o, x, y, steps);
    } catch (const std::exception& e) {
        showMessage(QString::fromStdString(e.what()));
        return false;
    }
    m_doc.undoStack()->beginMacro(tr("Start %1 neuron %2 at %3 = %4, %5 = %6")
                                      .arg(QString::fromStdString(m_doc.path(m_id)))
                                      .arg(o.neuron)
                                      .arg(QString::fromStdString(o.x), phaseNumber(x),
                                           QString::fromStdString(o.y), phaseNumber(y)));
    for (const auto& [name, value] : values) {
        if (const engine::Status s = pushCommand(m_doc, std::make_unique<SetAttributeCommand>(m_doc, m_id, name, value));
            !s.ok) {
            m_doc.undoStack()->endMacro();
            showMessage(QString::fromStdString(s.message));
            return false;
        }
    }
    m_doc.undoStack()->endMacro();
    showMessage(QString());
    showTrajectory();
    return true;
}

void PhaseDialog::exportPlane()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export the phase portrait"), QStringLiteral("phase.png"),
                                                      tr("PNG (*.png);;PDF (*.pdf);;CSV (*.csv)"));
    if (path.isEmpty() || !m_plane) {
        return;
    }
    if (!path.endsWith(QLatin1String(".csv"), Qt::CaseInsensitive)) {
        QString error;
        if (!exportPlot(*m_plot, path, &error)) {
            showMessage(error);
        }
        return;
    }
    // The field: one row per arrow (the nullclines and fixed points are `spikesim analyse … phase`'s JSON).
    const engine::PhasePlaneOptions& o = m_plane->options;
    QString text = QStringLiteral("%1,%2,d%1,d%2,spiked\n").arg(QString::fromStdString(o.x), QString::fromStdString(o.y));
    for (const engine::PhaseArrow& a : m_plane->field) {
        text += QStringLiteral("%1,%2,%3,%4,%5\n")
                    .arg(QString::number(a.x, 'g', 9), QString::number(a.y, 'g', 9), QString::number(a.dx, 'g', 9),
                         QString::number(a.dy, 'g', 9), a.spiked ? QStringLiteral("1") : QStringLiteral("0"));
    }
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(text.toUtf8()) < 0) {
        showMessage(tr("%1: cannot write the file").arg(path));
    }
}

}  // namespace spike::ui
