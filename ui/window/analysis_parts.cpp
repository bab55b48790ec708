// What the analysis dialogs share; see analysis_parts.hpp.
#include "ui/window/analysis_parts.hpp"

#include "engine/analysis/spike_statistics.hpp"

#include <QDialog>
#include <QLabel>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QThread>
#include <QTimer>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace spike::ui {

QCustomPlot* histogramPlot(QWidget* parent, const QString& name, const QString& xLabel)
{
    auto* plot = new QCustomPlot(parent);
    plot->setObjectName(name);
    plot->setMinimumSize(380, 170);
    plot->xAxis->setLabel(xLabel);
    plot->yAxis->setLabel(QObject::tr("count"));
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    return plot;
}

void drawHistogram(QCustomPlot& plot, const engine::Histogram& h, const QColor& colour, double scale)
{
    QCPGraph* graph = plot.graphCount() > 0 ? plot.graph(0) : plot.addGraph();
    graph->setName(QStringLiteral("count"));
    graph->setLineStyle(QCPGraph::lsStepCenter);
    graph->setPen(QPen(colour.darker(130), 1.2));
    graph->setBrush(QColor(colour.red(), colour.green(), colour.blue(), 110));
    QVector<double> keys;
    QVector<double> counts;
    double top = 1.0;
    for (std::size_t k = 0; k < h.counts.size(); ++k) {
        keys << 0.5 * (h.edges[k] + h.edges[k + 1]) * scale;
        counts << h.counts[k];
        top = std::max(top, h.counts[k]);
    }
    graph->setData(keys, counts, true);
    if (!h.counts.empty()) {
        const double half = 0.5 * (h.edges[1] - h.edges[0]) * scale;
        plot.xAxis->setRange(h.edges.front() * scale - half, h.edges.back() * scale + half);
        plot.yAxis->setRange(0.0, top * 1.08);
    }
    plot.replot();
}

QLineEdit* analysisField(QWidget* parent, const QString& objectName, const QString& text, const QString& tip)
{
    auto* edit = new QLineEdit(text, parent);
    edit->setObjectName(objectName);
    edit->setToolTip(tip);
    return edit;
}

bool readNumber(const QLineEdit* edit, const QString& name, double& out, QString& error)
{
    bool ok = false;
    out = edit->text().trimmed().toDouble(&ok);
    if (!ok || !std::isfinite(out)) {
        error = QObject::tr("%1 '%2' is not a number").arg(name, edit->text());
        return false;
    }
    return true;
}

bool readWhole(const QLineEdit* edit, const QString& name, std::int64_t& out, QString& error)
{
    bool ok = false;
    const qlonglong v = edit->text().trimmed().toLongLong(&ok);
    if (!ok) {
        error = QObject::tr("%1 '%2' is not a whole number").arg(name, edit->text());
        return false;
    }
    out = v;
    return true;
}

QLabel* analysisMessageLabel(QWidget* parent, const QString& objectName)
{
    auto* label = new QLabel(parent);
    label->setObjectName(objectName);
    label->setWordWrap(true);
    label->setStyleSheet(QStringLiteral("color: #b00020;"));
    label->setVisible(false);
    return label;
}

QLabel* analysisSummaryLabel(QWidget* parent, const QString& objectName, const QString& text)
{
    auto* label = new QLabel(text, parent);
    label->setObjectName(objectName);
    label->setWordWrap(true);
    label->setMinimumHeight(3 * label->fontMetrics().lineSpacing());
    return label;
}

void showAnalysisMessage(QLabel* label, const QString& text)
{
    label->setText(text);
    label->setVisible(!text.isEmpty());
}

AnalysisButtons analysisButtons(QDialog* dialog, const QString& prefix, const std::function<void()>& compute,
                                const std::function<void()>& exportResult)
{
    AnalysisButtons b;
    b.compute = new QPushButton(QObject::tr("Compute"), dialog);
    b.compute->setObjectName(prefix + QStringLiteral("Compute"));
    b.compute->setDefault(true);
    b.exportButton = new QPushButton(QObject::tr("Export…"), dialog);
    b.exportButton->setEnabled(false);
    b.cancel = new QPushButton(QObject::tr("Cancel"), dialog);
    b.cancel->setObjectName(prefix + QStringLiteral("Cancel"));
    b.progress = new QProgressBar(dialog);
    b.progress->setObjectName(prefix + QStringLiteral("Progress"));
    auto* close = new QPushButton(QObject::tr("Close"), dialog);
    QObject::connect(b.compute, &QPushButton::clicked, dialog, compute);
    QObject::connect(b.exportButton, &QPushButton::clicked, dialog, exportResult);
    QObject::connect(close, &QPushButton::clicked, dialog, &QDialog::close);
    b.row = new QHBoxLayout;
    b.row->addWidget(b.compute);
    b.row->addWidget(b.cancel);
    b.row->addWidget(b.progress, 1);
    b.row->addWidget(b.exportButton);
    b.row->addStretch(1);
    b.row->addWidget(close);
    return b;
}

void fitToScreen(QDialog* dialog, int width, int height)
{
    const QRect room = dialog->screen() != nullptr ? dialog->screen()->availableGeometry() : QRect(0, 0, 1024, 700);
    dialog->resize(std::min(width, room.width() - 40), std::min(height, room.height() - 60));
}

AnalysisRunner::AnalysisRunner(QPushButton* compute, QPushButton* cancel, QProgressBar* progress, QObject* parent)
    : QObject(parent), m_computeButton(compute), m_cancelButton(cancel), m_bar(progress)
{
    m_timer = new QTimer(this);
    m_timer->setInterval(100);
    connect(m_timer, &QTimer::timeout, this, [this] {
        if (m_bar != nullptr) {
            m_bar->setValue(static_cast<int>(std::lround(100.0 * m_progress.load())));
        }
    });
    if (m_cancelButton != nullptr) {
        m_cancelButton->setVisible(false);
        connect(m_cancelButton, &QPushButton::clicked, this, &AnalysisRunner::cancel);
    }
    if (m_bar != nullptr) {
        m_bar->setRange(0, 100);
        m_bar->setVisible(false);
    }
}

AnalysisRunner::~AnalysisRunner()
{
    if (m_thread != nullptr) {
        disconnect(m_thread, nullptr, this, nullptr);
        m_cancel = true;
        m_thread->wait();
        delete m_thread;
    }
}

bool AnalysisRunner::start(std::function<void()> work, std::function<void()> finished)
{
    if (busy()) {
        return false;
    }
    m_cancel = false;
    m_progress = 0.0;
    m_finished = std::move(finished);
    m_thread = QThread::create(std::move(work));
    connect(m_thread, &QThread::finished, this, [this] {
        m_thread->wait();
        m_thread->deleteLater();
        m_thread = nullptr;
        setRunning(false);
        const std::function<void()> done = std::move(m_finished);
        m_finished = nullptr;
        if (done) {
            done();
        }
    });
    setRunning(true);
    m_thread->start();
    return true;
}

void AnalysisRunner::cancel()
{
    if (busy()) {
        m_cancel = true;
        if (m_cancelButton != nullptr) {
            m_cancelButton->setEnabled(false);
        }
    }
}

void AnalysisRunner::setRunning(bool on)
{
    m_computeButton->setEnabled(!on);
    if (m_cancelButton != nullptr) {
        m_cancelButton->setVisible(on);
        m_cancelButton->setEnabled(on);
    }
    if (m_bar != nullptr) {
        m_bar->setVisible(on);
        m_bar->setValue(0);
    }
    if (on) {
        m_timer->start();
    } else {
        m_timer->stop();
    }
}

}  // namespace spike::ui
