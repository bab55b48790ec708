// TracePlot: one pane of recorded traces (membrane potentials, currents...) of one module, time
// in [ms], with the module's firing threshold as dashed horizontal lines (items, not graphs).
// Line view: up to kMaxTraces traces, one QCPGraph per neuron (graphCount() is the number of
// traces), graphs and their buffers reused from one update to the next, adaptive sampling on
// and no antialiasing once the data is dense.
// Density view: above kMaxTraces traces, a QCPColorMap of how many traces pass through each
// (time column, value bin) cell: columns of k = ceil(T / densityColumns()) steps aligned to
// absolute step multiples, so at most about one per pixel of the axis rect (trace_density.hpp
// gives the alignment and the envelope rule). A cell holds its count, or NaN (transparent)
// when empty; the colours span the 10 % to 99.5 % quantiles of the non-empty cells, so the busy
// cells stand out over the full-height resets of every column and a lone trace keeps at least
// the palest colour. A colour scale sits under the axis rect and the mean over the traces is
// one graph on top (graph(0)).
// Cost: every sample is read (no stride sampling, so a one-sample spike is never skipped), but
// only once: an update of the same series (same path, signal, selection and dt) re-reads only
// the density columns whose steps changed and copies only the new steps (trace_density.hpp), so
// a live window that slides or grows costs about the new steps x N plus the columns x (N + bins)
// of binning. A different series, or new steps per column, is measured afresh: 1000 traces x
// 16000 steps take about 11 ms (memory bound: 64 MB read once).
// Line view: 64 line traces of 16000 steps take about 75 ms to replot (QPainter polylines after
// QCustomPlot's adaptive sampling, ~1 ms per trace).
// CSV export: a density pane keeps a copy of up to kMaxKeptSamples samples (made in the same
// pass); prepareExport() adds one hidden graph per trace after the mean, so plotCsv() writes
// "time_ms, mean, n0, n1, ..." with every sample. It also runs on its own once updates pause
// (400 ms) or the pane is frozen.
// Freeze: a frozen pane ignores showTraces(), keeps what it shows and says "frozen at t = ...".
// Both axes zoom (wheel) and drag on every pane; showTraces() keeps a value range the user
// chose until showEmpty() or a double click.
// Cursor: moving the mouse over the axis rect draws a vertical line and a read-out box (see
// readoutAt()) on the "overlay" layer, which is replotted alone.
// When the module recorded no trace the pane is empty and says why on its time axis label.
// Thread: GUI thread only; the plot copies what it needs, so the recording may go away afterwards.
#pragma once

#include "ui/plots/plot_style.hpp"
#include "ui/plots/trace_density.hpp"

#include "engine/tensor/tensor.hpp"

#include <qcustomplot.h>

#include <QString>
#include <QTimer>

#include <cstdint>
#include <vector>

namespace spike::engine {
struct TimeSeries;
}  // namespace spike::engine

namespace spike::ui {

/// What a trace pane shows of the module that recorded the series, read from the model by the
/// caller (ui/window/plot_sources.hpp: traceSourceOf()).
struct TraceSource {
    QString className;          ///< "LIF" (tooltip)
    bool neuronLayer = false;   ///< columns are neurons (it has a membrane State), else channels
    engine::Tensor threshold;   ///< its Role::Threshold attribute, scalar or per neuron (empty: none)
    std::int64_t size = 0;      ///< its output size (a per-neuron threshold has this many values)
};

/// Plot of the recorded traces of one module.
class TracePlot : public QCustomPlot {
    Q_OBJECT

public:
    /// Most traces drawn as lines; more switch to the density view.
    static constexpr int kMaxTraces = 64;
    /// A per-neuron legend is shown up to this many traces.
    static constexpr int kMaxLegendEntries = 16;
    /// Most samples (steps x traces) a density pane keeps a copy of, for CSV export and for
    /// re-binning on resize. A larger pane keeps none: it exports its mean only (the recording
    /// export writes every sample as .npy) and re-bins at its next update.
    static constexpr std::int64_t kMaxKeptSamples = 4'000'000;

    explicit TracePlot(QWidget* parent = nullptr);

    /// Plots `series` ((T, N) samples) recorded by the module `source` describes, at `path`;
    /// draws its threshold (scalar or per neuron) when it has one.
    /// `signal` names the plotted series (e.g. "vmem", "v", "i_exc"); it labels the value axis.
    /// `thresholds` false (a current, a counter) draws no threshold lines. `neurons` names the
    /// neuron of each column of `series` when it holds a selection (empty: column k is neuron k).
    /// Ignored while frozen. Queues a replot.
    void showTraces(const TraceSource& source, const QString& path, const QString& signal,
                    const engine::TimeSeries& series, bool thresholds = true,
                    const std::vector<std::int64_t>& neurons = {});
    /// Removes every trace and explains why with `explanation` on the time axis label; the value
    /// axis reads `valueLabel` ("" = "membrane potential", the default pane's signal).
    void showEmpty(const QString& title, const QString& explanation, const QString& valueLabel = {});

    /// Freezes (ignores showTraces(), title says so) or unfreezes the pane.
    void setFrozen(bool frozen);
    /// Milliseconds (the default) or steps on the time axis, from the next showTraces() on.
    void setTimeAxis(const TimeAxis& axis);
    bool isFrozen() const { return m_frozen; }

    /// Whether the traces are drawn as density cells rather than lines.
    bool densityMode() const { return m_map != nullptr; }
    /// Density columns requested for a pane `paneWidth` pixels wide showing `steps` steps: one
    /// per pixel of the axis rect, at most one per step, at least one (the view uses
    /// TraceDensity::stepsPerColumn() of it, so it may draw a few fewer).
    static int densityColumns(int paneWidth, std::int64_t steps);
    /// Density value bins for a pane `paneHeight` pixels high (about one per 2 pixels).
    static int densityBins(int paneHeight);
    /// The density cells (nullptr in the line view). Cell values are trace counts.
    QCPColorMap* densityMap() const { return m_map; }
    /// The numbers behind the density view (empty in the line view).
    const TraceDensity& density() const { return m_density; }
    /// The mean-over-traces graph of the density view (nullptr in the line view).
    QCPGraph* meanGraph() const { return m_mean; }
    /// Traces in the series shown (all of them, also in the density view).
    int traceCount() const { return m_traces; }

    /// What the cursor read-out shows at (`timeMs`, `value`): the time and, in the line view,
    /// the label and value of the visible trace nearest to `value` at that time; in the density
    /// view the mean and the min/max over traces of the column holding that time. Empty when
    /// nothing is shown or the time lies outside the data.
    QString readoutAt(double timeMs, double value) const;

    /// Dashed threshold lines currently drawn (1 for a scalar threshold).
    int thresholdLineCount() const { return static_cast<int>(m_thresholdLines.size()); }
    /// Current title text.
    QString title() const;

signals:
    /// The pane was frozen (true) or unfrozen (false).
    void frozenChanged(bool frozen);

public slots:
    /// In the density view, adds the hidden per-trace graphs CSV export reads (no-op when
    /// already there or in the line view). Invokable by name before exporting.
    void prepareExport();

protected:
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;

private:
    void removeThresholds();
    void removeLineGraphs();
    void removeDensity();
    void removeSampleGraphs();
    void setLegendShown(bool shown);
    void setColourScaleShown(bool shown);
    /// Draws the threshold of `source` for the shown neurons; returns [min, max] drawn.
    QCPRange drawThresholds(const TraceSource& source, int neurons, bool* drawn,
                            const std::vector<std::int64_t>& selection, bool summary);
    void addThresholdLine(double value, const QColor& colour, const QString& label);
    /// Line view of the first min(N, kMaxTraces) columns; returns the value range.
    QCPRange showLines(const float* data, std::int64_t steps, std::int64_t width,
                       const std::vector<std::int64_t>& neurons);
    /// Measures the density of `samples` (m_steps x m_traces, row 0 = absolute step
    /// m_firstStep), keeping the columns measured last time when `reuse`; returns the data's
    /// value range.
    QCPRange measureDensity(const float* samples, bool reuse);
    /// Keeps a copy of `samples` (m_steps x m_traces from m_firstStep) when small enough; with
    /// `reuse` only the steps the copy lacks are copied.
    void keepSamples(const float* samples, bool reuse);
    /// The kept copy (m_steps x m_traces), or nullptr when none is kept.
    const float* keptSamples() const
    {
        return m_keptSteps > 0 ? m_samples.data() + m_keptOffset : nullptr;
    }
    /// Bins the measured density over [low, high] into the colour map.
    void fillDensityMap(double low, double high);
    void setValueRange(double low, double high);
    void updateTitle();
    void updateCursor(const QPointF& pixel);
    void hideCursor();
    QString unitsSuffix() const;
    double endTimeMs() const { return m_t0Ms + static_cast<double>(m_steps) * m_dtMs; }

    QCPTextElement* m_title = nullptr;
    QString m_baseTitle;
    std::vector<QCPAbstractItem*> m_thresholdLines;
    std::vector<QCPAbstractItem*> m_thresholdLabels;
    bool m_legendInLayout = false;
    bool m_frozen = false;
    bool m_userValueRange = false;
    bool m_settingValueRange = false;

    // What is shown.
    int m_traces = 0;
    std::int64_t m_steps = 0;
    std::int64_t m_firstStep = 0;  ///< absolute step of the first sample
    double m_t0Ms = 0.0;
    TimeAxis m_time;
    double m_dtMs = 1.0;  ///< one step on the time axis (ms, or 1 for steps)
    QString m_units;         ///< the series' units (SI for equation models)
    QString m_displayUnits;  ///< what the value axis and the readout say (mV for volt)
    double m_displayScale = 1.0;  ///< stored value -> displayed value
    QSharedPointer<ScaledTicker> m_valueTicker;

    // Line view.
    std::vector<QCPGraph*> m_lines;
    QVector<QCPGraphData> m_points;  ///< reused staging buffer

    // Density view.
    QCPColorMap* m_map = nullptr;
    QCPColorScale* m_scale = nullptr;
    bool m_scaleInLayout = false;
    QCPGraph* m_mean = nullptr;
    std::vector<QCPGraph*> m_sampleGraphs;
    std::vector<float> m_samples;  ///< kept samples: m_keptOffset dropped floats, then (T, N)
    std::size_t m_keptOffset = 0;
    std::int64_t m_keptFirst = 0;  ///< absolute step of the first kept row
    std::int64_t m_keptSteps = 0;  ///< rows kept (0: no copy)
    QString m_densitySource;       ///< path and signal of the series measured last
    std::vector<std::int64_t> m_densityNeurons;  ///< its selection
    std::vector<QString> m_names;  ///< label of each trace
    TraceDensity m_density;
    double m_binLow = 0.0;   ///< value range of the density bins
    double m_binHigh = 1.0;
    QTimer m_idleExport;

    // Cursor.
    QCPItemStraightLine* m_cursorLine = nullptr;
    QCPItemText* m_cursorText = nullptr;
};

}  // namespace spike::ui
