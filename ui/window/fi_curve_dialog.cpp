// FiCurveDialog (fi_curve_dialog.hpp): fields, the worker-thread computation (AnalysisRunner)
// and the plot. Thread: GUI thread; only engine::fiCurve on the Job's own copy runs on the
// worker, which shares nothing else with the dialog but the runner's atomics and the Job's result
// (read after the worker ended).
#include "ui/window/fi_curve_dialog.hpp"

#include "ui/plots/plot_export.hpp"

#include "engine/tensor/error.hpp"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <cmath>

namespace spike::ui {

namespace {

QString fiNumber(double v)
{
    return QString::number(v, 'g', 8);
}

QVector<double> toVector(const std::vector<double>& v)
{
    return QVector<double>(v.begin(), v.end());
}

}  // namespace

FiCurveDialog::FiCurveDialog(GraphDocument& doc, NodeId id, QWidget* parent)
    : QDialog(parent), m_doc(doc), m_id(id)
{
    const engine::Module* module = m_doc.module(id);
    const QString path = QString::fromStdString(m_doc.path(id));
    const QString type = module != nullptr ? QString::fromStdString(module->className()) : QString();
    setWindowTitle(tr("f-I curve of %1 (%2)").arg(path.isEmpty() ? tr("(root)") : path, type));
    setObjectName(QStringLiteral("fiCurveDialog"));

    engine::FiOptions suggested;
    double dt = 1e-3;
    if (module != nullptr) {
        suggested = engine::suggestedFiOptions(*module);
        dt = module->timeStep();
    }
    const auto field = [this](const QString& name, const QString& text, const QString& tip) {
        return analysisField(this, name, text, tip);
    };
    m_start = field(QStringLiteral("fiStart"), fiNumber(suggested.start),
                    tr("First current, in the input port's units per step"));
    m_stop = field(QStringLiteral("fiStop"), fiNumber(suggested.stop), tr("Last current"));
    m_count = field(QStringLiteral("fiCount"), QString::number(suggested.count),
                    tr("Currents, evenly spaced (1 to %1), run as one batch").arg(engine::kFiMaxCount));
    m_steps = field(QStringLiteral("fiSteps"),
                    QString::number(std::max<long long>(1, std::llround(1.0 / dt))),
                    tr("Measured steps per current (default 1 s)"));
    m_warmup = field(QStringLiteral("fiWarmup"), QStringLiteral("0"),
                     tr("Steps run first and not counted"));

    auto* form = new QFormLayout;
    form->addRow(tr("Start"), m_start);
    form->addRow(tr("Stop"), m_stop);
    form->addRow(tr("Count"), m_count);
    form->addRow(tr("Steps (dt %1 s)").arg(fiNumber(dt)), m_steps);
    form->addRow(tr("Warm-up steps"), m_warmup);

    m_message = analysisMessageLabel(this, QStringLiteral("fiMessage"));
    m_summary = analysisSummaryLabel(
        this, QStringLiteral("fiSummary"),
        tr("Compute (Enter) runs every current as one batch of copies of the module and plots "
           "its mean and first-ISI rate against the current."));

    m_plot = new QCustomPlot(this);
    m_plot->setObjectName(QStringLiteral("fiPlot"));
    m_plot->setMinimumSize(420, 280);
    m_plot->xAxis->setLabel(tr("input current per step"));
    m_plot->yAxis->setLabel(tr("rate [Hz]"));
    m_plot->legend->setVisible(false);  // until a curve is shown (an empty legend box otherwise)
    // Bottom right: under a rising curve, away from the rheobase label at the top.
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);

    const AnalysisButtons row = analysisButtons(this, QStringLiteral("fi"), [this] { compute(); },
                                                [this] { exportCurve(); });
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
    resize(680, 620);
    // Another model opened: this node's id means nothing any more.
    connect(&m_doc, &GraphDocument::documentReset, this, &QDialog::close);
}

QString FiCurveDialog::message() const
{
    return m_message->text();
}

bool FiCurveDialog::readOptions(engine::FiOptions& options, QString& error) const
{
    std::int64_t steps = 0;
    if (!readNumber(m_start, tr("Start"), options.start, error) || !readNumber(m_stop, tr("Stop"), options.stop, error) ||
        !readWhole(m_count, tr("Count"), options.count, error) || !readWhole(m_steps, tr("Steps"), steps, error) ||
        !readWhole(m_warmup, tr("Warm-up"), options.warmupSteps, error)) {
        return false;
    }
    options.steps = steps;
    return true;
}

bool FiCurveDialog::computing() const
{
    return m_runner->busy();
}

void FiCurveDialog::showMessage(const QString& text)
{
    showAnalysisMessage(m_message, text);
}

bool FiCurveDialog::compute()
{
    if (computing()) {
        return false;
    }
    engine::FiOptions options;
    QString error;
    const engine::Module* module = m_doc.module(m_id);
    if (module == nullptr) {
        showMessage(tr("The node is no longer in the document."));
        return false;
    }
    if (!readOptions(options, error)) {
        showMessage(error);
        return false;
    }
    return launchAnalysisJob<engine::FiCancelled, Job>(
        *m_runner, *module, std::move(options), m_export, [this](const QString& text) { showMessage(text); },
        [](const engine::Module& copy, const engine::FiOptions& o) { return engine::fiCurve(copy, o); },
        [this](const std::shared_ptr<Job>& done) { finishJob(done); });
}

void FiCurveDialog::cancel()
{
    m_runner->cancel();
}

void FiCurveDialog::finishJob(const std::shared_ptr<Job>& job)
{
    finishAnalysisJob(*job, m_curve, m_export, tr("Cancelled; the plot shows the previous curve, if any."),
                      [this](const engine::FiCurve& r) { showCurve(r); }, [this](const QString& text) { showMessage(text); });
}

void FiCurveDialog::showCurve(const engine::FiCurve& c)
{
    m_plot->clearGraphs();
    m_plot->clearItems();
    m_plot->legend->setVisible(true);
    const QVector<double> x = toVector(c.current);
    QCPGraph* rate = m_plot->addGraph();
    rate->setName(tr("mean rate"));
    rate->setPen(QPen(QColor(31, 119, 180), 2.0));
    rate->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 4.0));
    rate->setData(x, toVector(c.rateHz), true);
    QCPGraph* isi = m_plot->addGraph();
    isi->setName(tr("first-ISI rate"));
    isi->setPen(QPen(QColor(255, 127, 14), 1.5));
    isi->setData(x, toVector(c.firstIsiRateHz), true);
    if (!c.analyticHz.empty()) {
        QCPGraph* analytic = m_plot->addGraph();
        analytic->setName(tr("analytic (%1)").arg(QString::fromStdString(c.analyticKind)));
        QPen dashed(QColor(90, 90, 90), 1.5, Qt::DashLine);
        analytic->setPen(dashed);
        analytic->setData(x, toVector(c.analyticHz), true);
    }
    QString rheobase = tr("none in this range");
    if (c.rheobase) {
        auto* line = new QCPItemStraightLine(m_plot);
        line->setPen(QPen(QColor(44, 160, 44), 1.5, Qt::DotLine));
        line->point1->setCoords(*c.rheobase, 0.0);
        line->point2->setCoords(*c.rheobase, 1.0);
        auto* label = new QCPItemText(m_plot);
        label->setText(tr("rheobase %1").arg(fiNumber(*c.rheobase)));
        label->setColor(QColor(44, 160, 44));
        label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        label->position->setCoords(*c.rheobase, 0.02);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        label->setPadding(QMargins(4, 0, 0, 0));
        rheobase = tr("%1 (%2)").arg(fiNumber(*c.rheobase),
                                     c.rheobaseRefined ? tr("refined between grid points")
                                                       : tr("a grid point"));
    }
    m_plot->rescaleAxes();
    const double span = c.current.back() - c.current.front();
    const double pad = span > 0.0 ? span * 0.02 : 1.0;
    m_plot->xAxis->setRange(c.current.front() - pad, c.current.back() + pad);
    double top = 1.0;
    for (int g = 0; g < m_plot->graphCount(); ++g) {
        bool found = false;
        const QCPRange r = m_plot->graph(g)->getValueRange(found);
        if (found) {
            top = std::max(top, r.upper);
        }
    }
    m_plot->yAxis->setRange(0.0, top * 1.08);
    m_plot->xAxis->setLabel(c.portUnits.empty()
                                ? tr("input on port '%1' per step").arg(QString::fromStdString(c.port))
                                : tr("input on port '%1' [%2] per step")
                                      .arg(QString::fromStdString(c.port), QString::fromStdString(c.portUnits)));
    m_plot->replot();
    const QString analytic = c.analyticKind.empty()
                                 ? tr("no analytic curve (%1)").arg(QString::fromStdString(c.analyticNote))
                                 : tr("analytic curve dashed: %1").arg(QString::fromStdString(c.analyticKind));
    m_summary->setText(tr("Rheobase %1. %2 neuron(s), port '%3', %4 steps of %5 s%6; %7.")
                           .arg(rheobase)
                           .arg(c.neurons)
                           .arg(QString::fromStdString(c.port))
                           .arg(c.steps)
                           .arg(fiNumber(c.dt))
                           .arg(c.warmupSteps > 0 ? tr(" after %1 warm-up steps").arg(c.warmupSteps)
                                                  : QString())
                           .arg(analytic));
}

void FiCurveDialog::exportCurve()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export the f-I curve"),
                                                      QStringLiteral("fi_curve.png"),
                                                      tr("PNG (*.png);;PDF (*.pdf);;CSV (*.csv)"));
    if (path.isEmpty()) {
        return;
    }
    QString error;
    if (!exportPlot(*m_plot, path, &error, QStringLiteral("current"))) {
        showMessage(error);
    }
}

}  // namespace spike::ui
