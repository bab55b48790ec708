// TraceDensity: the numbers behind TracePlot's density view of many traces, computed from the
// raw (T, N) samples (row t holds the N traces' samples of step t, as recorded).
// Columns split the T steps into C runs of consecutive steps: step s lies in column
// floor((s + 1/2) C / T), so on a time axis where step s sits at s, column c is exactly the
// interval [c T/C - 1/2, (c+1) T/C - 1/2) (equal cells, as a colour map draws them). Value bins
// split [valueLow, valueHigh] into `bins` equal bins.
// Envelope: in each column every trace covers the bins from its minimum to its maximum over the
// column's samples plus the last sample of the column before (the line segment entering the
// column), so a one-sample spike or a reset is never lost between columns. Every sample is read
// once by measure() (T x N reads), which keeps each column's per-trace envelope; bin() then
// fills the cells from the envelopes alone (C x (N + bins)), so a new value range costs no pass
// over the samples. The buffers are reused from one call to the next.
// Thread: whichever thread calls measure() and bin(); TracePlot calls them on the GUI thread.
#pragma once

#include <cstdint>
#include <vector>

namespace spike::ui {

/// Trace counts per (time column, value bin) cell, with per-column and per-step statistics.
class TraceDensity {
public:
    /// Reads `data` (`steps` x `traces` floats, row-major) into per-column envelopes, column
    /// statistics and per-step means. `columns` is clamped to [1, steps]. Clears the cells.
    /// When `copy` is given (room for steps x traces floats) the samples are copied there in the
    /// same pass (cheaper than a separate copy: the samples are read once).
    void measure(const float* data, std::int64_t steps, std::int64_t traces, int columns,
                 float* copy = nullptr);
    /// Fills the cells from the envelopes: `bins` (at least 1) bins over [valueLow, valueHigh].
    /// A trace whose envelope in a column is not finite is left out of that column.
    void bin(int bins, double valueLow, double valueHigh);

    /// Lowest and highest finite sample seen by measure() (low > high when there was none).
    double dataMin() const { return m_dataMin; }
    double dataMax() const { return m_dataMax; }

    int columns() const { return m_columns; }
    int bins() const { return m_bins; }
    /// Number of traces passing through cell (column, bin).
    int count(int column, int bin) const
    {
        return m_counts[static_cast<std::size_t>(column) * static_cast<std::size_t>(m_bins) +
                        static_cast<std::size_t>(bin)];
    }
    /// Bin of value `v` (clamped to the bin range).
    int binOf(double v) const;
    /// First step of `column`; column c spans [firstStep(c), firstStep(c + 1)).
    std::int64_t firstStep(int column) const;
    /// Column holding step `step`.
    int columnOfStep(std::int64_t step) const;
    /// Lowest and highest sample of any trace over `column`'s envelope, and the mean over
    /// traces and the column's steps.
    double columnMin(int column) const { return m_columnMin[static_cast<std::size_t>(column)]; }
    double columnMax(int column) const { return m_columnMax[static_cast<std::size_t>(column)]; }
    double columnMean(int column) const { return m_columnMean[static_cast<std::size_t>(column)]; }
    /// Mean over the traces at each step (T values).
    const std::vector<double>& stepMeans() const { return m_stepMean; }
    /// Largest cell count.
    int peakCount() const { return m_peak; }
    /// The count below which a share `q` (0..1) of the non-empty cells lie (0 when all are
    /// empty): colour ranges from it ignore a few extreme cells.
    int countQuantile(double q) const;

private:
    std::int64_t m_steps = 0;
    int m_columns = 0;
    int m_bins = 0;
    double m_low = 0.0;
    double m_high = 1.0;
    int m_peak = 0;
    std::int64_t m_traces = 0;
    double m_dataMin = 0.0;
    double m_dataMax = 0.0;
    std::vector<int> m_counts;       ///< columns x bins, column after column
    std::vector<float> m_min;        ///< columns x traces envelope minima, column after column
    std::vector<float> m_max;        ///< columns x traces envelope maxima
    std::vector<int> m_edges;        ///< bins + 2 difference counts, scratch for one column
    std::vector<std::int64_t> m_histogram;  ///< non-empty cells per count (0..traces)
    std::vector<int> m_binLo;        ///< per trace first bin, scratch for one column
    std::vector<int> m_binHi;        ///< per trace one past the last bin, scratch
    std::vector<double> m_columnMin;
    std::vector<double> m_columnMax;
    std::vector<double> m_columnMean;
    std::vector<double> m_stepMean;
};

}  // namespace spike::ui
