// SpikeStatisticsDialog (spike_statistics_dialog.hpp): the run's spike events of one population
// gathered into a window of the dialog's own, their statistics and two histograms. Thread: GUI.
#include "ui/window/spike_statistics_dialog.hpp"

#include "ui/plots/plot_export.hpp"
#include "ui/run/live_run.hpp"
#include "ui/window/analysis_parts.hpp"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <vector>

namespace spike::ui {

namespace {

constexpr double kShownIntervals = 0.995;  ///< of the pooled intervals, on the ISI axis at first

QString sig4(double v)
{
    return QString::number(v, 'g', 4);
}

}  // namespace

SpikeStatisticsDialog::SpikeStatisticsDialog(GraphDocument& doc, NodeId id, QWidget* parent)
    : QDialog(parent), m_doc(doc), m_id(id), m_path(doc.path(id))
{
    setAttribute(Qt::WA_DeleteOnClose);
    const engine::Module* module = m_doc.module(id);
    const QString type = module != nullptr ? QString::fromStdString(module->className()) : QString();
    const QString shown = m_path.empty() ? tr("(root)") : QString::fromStdString(m_path);
    setWindowTitle(tr("Spike statistics of %1 (%2)").arg(shown, type));

    m_isiPlot = histogramPlot(this, QStringLiteral("isiHistogram"), tr("inter-spike interval [ms]"));
    m_ratePlot = histogramPlot(this, QStringLiteral("rateHistogram"), tr("neuron's rate [Hz]"));
    m_summary = analysisSummaryLabel(this, QStringLiteral("spikeSummary"), QString());
    m_message = analysisMessageLabel(this, QStringLiteral("spikeMessage"));
    m_recomputeTimer = new QTimer(this);
    m_recomputeTimer->setSingleShot(true);
    connect(m_recomputeTimer, &QTimer::timeout, this, &SpikeStatisticsDialog::recompute);

    auto* again = new QPushButton(tr("Start again"), this);
    again->setObjectName(QStringLiteral("spikeStartAgain"));
    again->setToolTip(tr("Forget the spikes counted so far and count from the run's current step"));
    auto* exportIsi = new QPushButton(tr("Export ISI…"), this);
    exportIsi->setToolTip(tr("The interval histogram as PNG, PDF or CSV (bin centre in ms, count)"));
    auto* exportRates = new QPushButton(tr("Export rates…"), this);
    exportRates->setToolTip(tr("The rate histogram as PNG, PDF or CSV (bin centre in Hz, count)"));
    auto* closeButton = new QPushButton(tr("Close"), this);
    connect(again, &QPushButton::clicked, this, &SpikeStatisticsDialog::startAgain);
    connect(exportIsi, &QPushButton::clicked, this, [this] { exportChosen(true); });
    connect(exportRates, &QPushButton::clicked, this, [this] { exportChosen(false); });
    connect(closeButton, &QPushButton::clicked, this, &QDialog::close);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(again);
    buttons->addWidget(exportIsi);
    buttons->addWidget(exportRates);
    buttons->addStretch(1);
    buttons->addWidget(closeButton);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_isiPlot, 1);
    layout->addWidget(m_ratePlot, 1);
    layout->addWidget(m_summary);
    layout->addWidget(m_message);
    layout->addLayout(buttons);
    fitToScreen(this, 640, 680);

    showWaiting(tr("Run or Step the model: the intervals and rates of the spikes this population fires "
                   "appear here, counted from the oldest step the raster still shows and updated twice "
                   "a second."));
    connect(&m_doc, &GraphDocument::documentReset, this, &QDialog::close);
    connect(&m_doc, &GraphDocument::nodeRemoved, this, [this] {
        if (!m_doc.contains(m_id)) {
            close();
        }
    });
}

void SpikeStatisticsDialog::setLiveSource(std::function<LiveRun*()> source)
{
    m_liveSource = std::move(source);
    refreshLive();
}

void SpikeStatisticsDialog::startAgain()
{
    m_counting = false;
    m_fromNow = true;
    m_stats.reset();
    m_isiPlot->clearGraphs();
    m_isiPlot->replot();
    m_ratePlot->clearGraphs();
    m_ratePlot->replot();
    showWaiting(tr("Counting again from the run's current step: the statistics appear with the next update."));
    m_liveRun = nullptr;
    refreshLive();
}

void SpikeStatisticsDialog::refreshLive()
{
    LiveRun* live = m_liveSource ? m_liveSource() : nullptr;
    const engine::SpikeWindow* window = nullptr;
    if (live != nullptr) {
        for (const engine::NamedSpikeWindow& w : live->spikeWindows()) {
            if (w.path == m_path && w.window != nullptr) {
                window = w.window;
            }
        }
    }
    if (window == nullptr) {
        return;  // no run, or it has not reached this population yet: keep what is shown
    }
    const bool restart = !m_counting || live != m_liveRun || window->width() != m_kept.width() ||
                         window->endStep() < m_kept.endStep() || window->firstStep() > m_kept.endStep();
    if (restart) {
        // A first count, another run, a reset, a rebuild that resized the population or a gap:
        // the count starts at the run's newest step (Start again) or where its window starts.
        m_kept = engine::SpikeWindow(window->width());
        m_kept.restart(m_fromNow ? window->endStep() : window->firstStep());
        m_fromNow = false;
        m_liveRun = live;
        m_counting = true;
        m_dirty = true;
    }
    m_dt = live->timeStep();
    if (window->endStep() > m_kept.endStep()) {
        std::vector<engine::SpikeEvent> fresh;
        window->forEachStepIn(m_kept.endStep(), window->endStep(),
                              [&fresh](std::int64_t, std::span<const engine::SpikeEvent> events, std::int64_t) {
                                  fresh.insert(fresh.end(), events.begin(), events.end());
                              });
        m_kept.append(fresh, window->endStep());
        m_kept.trimToEvents(kKeepEvents);
        m_dirty = true;
    }
    if (!m_dirty) {
        return;
    }
    const qint64 since = m_sinceRecompute.isValid() ? m_sinceRecompute.elapsed() : kRecomputeMs;
    if (since >= kRecomputeMs || !m_stats) {
        recompute();
    } else if (!m_recomputeTimer->isActive()) {
        m_recomputeTimer->start(static_cast<int>(kRecomputeMs - since));
    }
}

void SpikeStatisticsDialog::recompute()
{
    m_dirty = false;
    m_recomputeTimer->stop();
    m_sinceRecompute.start();
    if (m_kept.steps() < 1 || !(m_dt > 0.0)) {
        return;
    }
    engine::SpikeStatisticsOptions options;
    options.bins = kIsiBins;
    options.rateBins = kRateBins;
    try {
        m_stats = engine::spikeStatistics(m_kept, m_dt, options);
    } catch (const engine::Error& e) {
        showAnalysisMessage(m_message, QString::fromStdString(e.what()));
        return;
    }
    showAnalysisMessage(m_message, QString());
    const engine::SpikeStatistics& s = *m_stats;
    drawHistogram(*m_isiPlot, s.isiHistogram, QColor(0x1f, 0x6f, 0xc5), 1e3);
    // The axis ends where 99.5 % of the intervals lie: the few long pauses of a rarely firing
    // neuron would otherwise squeeze all the others into the first bar (drag or zoom to see them).
    double below = 0.0;
    for (std::size_t k = 0; k < s.isiHistogram.counts.size(); ++k) {
        below += s.isiHistogram.counts[k];
        if (below >= kShownIntervals * static_cast<double>(s.intervals) && k + 1 < s.isiHistogram.counts.size()) {
            m_isiPlot->xAxis->setRange(0.0, s.isiHistogram.edges[k + 1] * 1e3);
            m_isiPlot->replot();
            break;
        }
    }
    drawHistogram(*m_ratePlot, s.rateHistogram, QColor(0x2e, 0x8b, 0x57));
    const double fromMs = static_cast<double>(m_kept.firstStep()) * m_dt * 1e3;
    const double toMs = static_cast<double>(m_kept.endStep()) * m_dt * 1e3;
    QString text = tr("%1 neuron(s), t = %2 to %3 ms: %4 spikes, mean rate %5 Hz. ")
                       .arg(s.neurons)
                       .arg(QLocale().toString(fromMs, 'f', 1), QLocale().toString(toMs, 'f', 1),
                            QLocale().toString(static_cast<qlonglong>(s.spikes)), sig4(s.meanRateHz));
    if (s.intervals > 0) {
        text += tr("%1 intervals: mean %2 ms, CV %3; per-neuron CV %4 (mean of %5 neurons). ")
                    .arg(QLocale().toString(static_cast<qlonglong>(s.intervals)), sig4(s.isiMean * 1e3), sig4(s.isiCv),
                         sig4(s.meanCv))
                    .arg(s.cvNeurons);
    } else {
        text += tr("No neuron has fired twice yet: no intervals. ");
    }
    text += s.fanoNeurons > 0 ? tr("Fano factor %1 (windows of %2 ms, mean of %3 neurons).")
                                    .arg(sig4(s.meanFano), sig4(static_cast<double>(s.window) * m_dt * 1e3))
                                    .arg(s.fanoNeurons)
                              : tr("Fano factor: needs two windows of %1 ms with spikes.")
                                    .arg(sig4(static_cast<double>(s.window) * m_dt * 1e3));
    m_summary->setText(text);
}

void SpikeStatisticsDialog::showWaiting(const QString& why)
{
    m_summary->setText(why);
}

bool SpikeStatisticsDialog::exportTo(const QString& which, const QString& path)
{
    QCustomPlot* plot = which == QLatin1String("isi") ? m_isiPlot : m_ratePlot;
    QString error;
    if (!exportPlot(*plot, path, &error, which == QLatin1String("isi") ? QStringLiteral("isi_ms") : QStringLiteral("rate_hz"))) {
        showAnalysisMessage(m_message, error);
        return false;
    }
    showAnalysisMessage(m_message, QString());
    return true;
}

void SpikeStatisticsDialog::exportChosen(bool isi)
{
    const QString path = QFileDialog::getSaveFileName(
        this, isi ? tr("Export the interval histogram") : tr("Export the rate histogram"),
        isi ? QStringLiteral("isi.png") : QStringLiteral("rates.png"), tr("PNG (*.png);;PDF (*.pdf);;CSV (*.csv)"));
    if (!path.isEmpty()) {
        exportTo(isi ? QStringLiteral("isi") : QStringLiteral("rates"), path);
    }
}

}  // namespace spike::ui
