// TracePlot: membrane potential traces of one module from the last run's recording, one graph
// per neuron (at most kMaxTraces), time in [ms], and the module's firing threshold as dashed
// horizontal lines (items, not graphs: graphCount() is always the number of traces). When the
// module recorded no trace it is empty and says why on its time axis label.
// Thread: GUI thread only; the plot copies the samples, so the recording may go away afterwards.
#pragma once

#include <qcustomplot.h>

#include <QString>

#include <cstdint>
#include <vector>

namespace spike::engine {
class Module;
struct TimeSeries;
}  // namespace spike::engine

namespace spike::ui {

/// Membrane potential plot of the selected module.
class TracePlot : public QCustomPlot {
    Q_OBJECT

public:
    /// Most neurons drawn; the rest of a wider layer is left out (the title says so).
    static constexpr int kMaxTraces = 64;
    /// A per-neuron legend is shown up to this many traces.
    static constexpr int kMaxLegendEntries = 16;

    explicit TracePlot(QWidget* parent = nullptr);

    /// Plots `series` ((T, N) samples) recorded by `module` at `path`; draws the module's
    /// threshold (attribute of family "thresholds", scalar or per neuron) when it has one.
    /// `signal` names the plotted series (e.g. "vmem", "v", "i_exc"); it labels the value axis.
    /// `thresholds` false (a current, a counter) draws no threshold lines. `neurons` names the
    /// neuron of each column of `series` when it holds a selection (empty: column k is neuron k).
    void showTraces(const engine::Module& module, const QString& path, const QString& signal,
                    const engine::TimeSeries& series, bool thresholds = true,
                    const std::vector<std::int64_t>& neurons = {});
    /// Removes every trace and explains why with `explanation` on the time axis label.
    void showEmpty(const QString& title, const QString& explanation);

    /// Dashed threshold lines currently drawn (1 for a scalar threshold).
    int thresholdLineCount() const { return m_thresholdLines; }
    /// Current title text.
    QString title() const;

private:
    void removeContents();
    void setLegendShown(bool shown);
    /// Draws the threshold of `module` for its first `neurons` neurons; returns [min, max] drawn.
    QCPRange drawThresholds(const engine::Module& module, int neurons, bool* drawn,
                            const std::vector<std::int64_t>& selection);

    QCPTextElement* m_title = nullptr;
    int m_thresholdLines = 0;
    bool m_legendInLayout = false;
};

}  // namespace spike::ui
