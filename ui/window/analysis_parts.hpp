// What the analysis dialogs (FiCurveDialog, SweepDialog, PhaseDialog, the histograms of
// LayerHistogramDialog and SpikeStatisticsDialog) share: the histogram plots, the number fields
// and their parsing with a message naming the field, the red message and summary labels, a size
// that fits the screen, and AnalysisRunner, which runs one computation at a time on a QThread of
// its own and drives the Compute / Cancel buttons and the progress bar.
//
// AnalysisRunner: start() runs `work` on a new thread (work must own what it touches: the
// dialog's copy of the module, its options, where it writes its result) and, after that thread
// ended, `finished` on the GUI thread. cancelFlag() and progress() are atomics the work may hand
// to the engine (FiOptions::cancel, ::progress...); a timer shows progress() in the bar every
// 100 ms. Destroying the runner (with its dialog) raises the cancel flag, drops `finished` and
// waits for the work, so closing a dialog mid-computation is safe. Thread: GUI thread, except
// the atomics, which the work writes from its thread.
//
// AnalysisJob and launchAnalysisJob() / startAnalysisJob() / finishAnalysisJob(): one
// computation of FiCurveDialog, SweepDialog or BackendDivergenceDialog - the module copy it runs
// on, its options (given the runner's cancel flag and progress), its result, whether it was
// cancelled and its error - and what the dialog does with it when it ends.
#pragma once

#include "engine/core/module.hpp"
#include "engine/io/model_clone.hpp"

#include <QObject>
#include <QString>
#include <QWidget>

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>

class QColor;
class QCustomPlot;
class QDialog;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QThread;
class QTimer;


namespace spike::engine {
struct Histogram;
}

namespace spike::ui {

/// A histogram's plot named `name`: x labelled `xLabel`, y "count", drag and zoom.
QCustomPlot* histogramPlot(QWidget* parent, const QString& name, const QString& xLabel);
/// Draws `h` into `plot` as filled steps over the bin centres (bin edges times `scale`: 1e3 shows
/// seconds in ms), its graph named "count" so that a CSV export writes one row per bin.
void drawHistogram(QCustomPlot& plot, const engine::Histogram& h, const QColor& colour, double scale = 1.0);

/// A line edit named `objectName` holding `text`, with tool tip `tip`.
QLineEdit* analysisField(QWidget* parent, const QString& objectName, const QString& text, const QString& tip);
/// The field as a finite number; false with "<name> '<text>' is not a number" in `error`.
bool readNumber(const QLineEdit* edit, const QString& name, double& out, QString& error);
/// The field as a whole number; false with "<name> '<text>' is not a whole number" in `error`.
bool readWhole(const QLineEdit* edit, const QString& name, std::int64_t& out, QString& error);
/// The red line under the fields (hidden while empty).
QLabel* analysisMessageLabel(QWidget* parent, const QString& objectName);
/// The wrapped line under the plot, three lines high, starting with `text`.
QLabel* analysisSummaryLabel(QWidget* parent, const QString& objectName, const QString& text);
/// Sets `label`'s text and shows it only when there is one.
void showAnalysisMessage(QLabel* label, const QString& text);
/// Resizes `dialog` to width x height, or what its screen has room for (a 1024 x 700 display).
void fitToScreen(QDialog* dialog, int width, int height);

/// The row under an analysis plot; see analysisButtons().
struct AnalysisButtons {
    QPushButton* compute = nullptr;
    QPushButton* cancel = nullptr;
    QProgressBar* progress = nullptr;
    QPushButton* exportButton = nullptr;
    QHBoxLayout* row = nullptr;
};
/// Compute (the default button; clicks call `compute`), Cancel, a progress bar, Export… (off until
/// there is a result; clicks call `exportResult`), a stretch and Close (closes `dialog`). Compute,
/// Cancel and the bar are named `prefix` + "Compute", "Cancel", "Progress".
AnalysisButtons analysisButtons(QDialog* dialog, const QString& prefix, const std::function<void()>& compute,
                                const std::function<void()>& exportResult);

/// See the file comment.
class AnalysisRunner : public QObject {
    Q_OBJECT

public:
    /// `compute` is disabled while running; `cancel` and `progress` (either may be null) are
    /// shown only while running.
    AnalysisRunner(QPushButton* compute, QPushButton* cancel, QProgressBar* progress, QObject* parent);
    ~AnalysisRunner() override;

    bool busy() const { return m_thread != nullptr; }
    /// Starts `work` on a thread of its own; `finished` follows on the GUI thread. Refused
    /// (false) while busy.
    bool start(std::function<void()> work, std::function<void()> finished);
    /// Raises the cancel flag and disables Cancel; the work stops at its next cancel point.
    void cancel();
    std::atomic<bool>& cancelFlag() { return m_cancel; }
    std::atomic<double>& progress() { return m_progress; }

private:
    void setRunning(bool on);

    QPushButton* m_computeButton;
    QPushButton* m_cancelButton;
    QProgressBar* m_bar;
    QTimer* m_timer = nullptr;
    QThread* m_thread = nullptr;
    std::function<void()> m_finished;
    std::atomic<bool> m_cancel{false};
    std::atomic<double> m_progress{0.0};
};

/// One computation: the copy it runs on and its outcome (written by the worker before it ends;
/// the cancel flag and progress are the AnalysisRunner's).
template <typename Result, typename Options>
struct AnalysisJob {
    std::unique_ptr<engine::Module> copy;
    Options options;
    std::optional<Result> result;
    bool cancelled = false;
    QString error;
};

/// Gives the job's options the runner's cancel flag and progress and starts
/// `compute(*job->copy, job->options)` on the runner's thread; its result, a `Cancelled`
/// exception (the engine's for a raised cancel flag) or another exception's message go into the
/// job, and `finished(job)` follows on the GUI thread. Refused (false) while the runner is busy.
template <typename Cancelled, typename Job, typename Compute, typename Finished>
bool startAnalysisJob(AnalysisRunner& runner, std::shared_ptr<Job> job, Compute compute, Finished finished)
{
    AnalysisRunner* r = &runner;
    job->options.cancel = &runner.cancelFlag();
    job->options.progress = [r](double done) { r->progress() = done; };
    return runner.start(
        [job, compute] {
            try {
                job->result = compute(*job->copy, job->options);
            } catch (const Cancelled&) {
                job->cancelled = true;
            } catch (const std::exception& e) {
                job->error = QString::fromStdString(e.what());
            }
        },
        [job, finished] { finished(job); });
}

/// A new job on a copy of `source` (engine::cloneModule; a copy that fails is `message`d and
/// nothing starts) with `options`: the message cleared, Export disabled until the result, then
/// startAnalysisJob(). False when nothing started.
template <typename Cancelled, typename Job, typename Options, typename Message, typename Compute, typename Finished>
bool launchAnalysisJob(AnalysisRunner& runner, const engine::Module& source, Options options, QWidget* exportButton,
                       Message message, Compute compute, Finished finished)
{
    auto job = std::make_shared<Job>();
    try {
        job->copy = engine::cloneModule(source);
    } catch (const std::exception& e) {
        message(QString::fromStdString(e.what()));
        return false;
    }
    job->options = std::move(options);
    message(QString());
    exportButton->setEnabled(false);
    return startAnalysisJob<Cancelled>(runner, std::move(job), compute, finished);
}

/// A finished job: its result shown (`show(result)`) and kept in `kept`; Export enabled while a
/// result is kept; `message(cancelledText)` when cancelled, `message(error)` when it failed.
template <typename Job, typename Result, typename Show, typename Message>
void finishAnalysisJob(Job& job, std::optional<Result>& kept, QWidget* exportButton, const QString& cancelledText,
                       Show show, Message message)
{
    if (job.result) {
        show(*job.result);
        kept = std::move(job.result);
    }
    exportButton->setEnabled(kept.has_value());
    if (job.cancelled) {
        message(cancelledText);
    } else if (!job.result) {
        message(job.error);
    }
}

}  // namespace spike::ui
