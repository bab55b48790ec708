// TraceDensity: the numbers behind TracePlot's density view of many traces, computed from the
// raw (T, N) samples of a window of T steps (row t holds the N traces' samples of absolute step
// first + t, as recorded).
// Columns: k = ceil(T / C) steps per column for C requested columns, aligned to absolute step
// multiples: column j covers the steps [j k, (j+1) k) that lie in the window, so the first and
// last column of a window may be partial. On a time axis where step s sits at s, column j is the
// interval [j k - 1/2, (j+1) k - 1/2) (equal cells, as a colour map draws them). Value bins
// split [valueLow, valueHigh] into `bins` equal bins.
// Envelope: in each column every trace covers the bins from its minimum to its maximum over the
// column's samples plus the last sample of the column before (the line segment entering the
// column; the window's first column starts from its own first sample), so a one-sample spike or
// a reset is never lost between columns. bin() fills the cells from the envelopes alone
// (C x (N + bins)), so a new value range costs no pass over the samples.
// Incremental: the envelopes, column statistics and per-step means live in slots keyed by the
// absolute column index, each tagged with the steps it was measured from. update() with `reuse`
// re-reads only the columns whose steps changed (new columns, the first and last partial ones):
// a sliding window costs about the new steps x N instead of T x N. A column depends only on its
// own steps, so the result is the same as a fresh measure of the same window. Reuse needs the
// same k and trace count and that the previous window's last row is in the new window with the
// same bits (a restarted recording is measured afresh).
// Thread: whichever thread calls update() and bin(); TracePlot calls them on the GUI thread.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace spike::ui {

/// Trace counts per (time column, value bin) cell, with per-column and per-step statistics.
class TraceDensity {
public:
    /// Steps per column for `columns` columns over `steps` steps: ceil(steps / columns), at
    /// least 1 (`columns` clamped to [1, steps]).
    static std::int64_t stepsPerColumn(std::int64_t steps, int columns);

    /// Measures the window of `steps` steps starting at absolute step 0 afresh.
    void measure(const float* data, std::int64_t steps, std::int64_t traces, int columns)
    {
        update(data, 0, steps, traces, columns, false);
    }
    /// Reads `data` (`steps` x `traces` floats, row-major, row t = absolute step `firstStep` + t)
    /// into per-column envelopes, column statistics and per-step means, stepsPerColumn(steps,
    /// columns) steps per column. With `reuse`, the columns measured by the previous call from
    /// the same steps are kept (the samples of steps both windows hold must be the same).
    /// Clears the cells.
    void update(const float* data, std::int64_t firstStep, std::int64_t steps, std::int64_t traces,
                int columns, bool reuse);
    /// Fills the cells from the envelopes: `bins` (at least 1) bins over [valueLow, valueHigh].
    /// A trace whose envelope in a column is not finite is left out of that column.
    void bin(int bins, double valueLow, double valueHigh);

    /// Lowest and highest finite sample in the window (low > high when there was none).
    double dataMin() const { return m_dataMin; }
    double dataMax() const { return m_dataMax; }

    int columns() const { return m_columns; }
    int bins() const { return m_bins; }
    /// Steps per column of the last update().
    std::int64_t stepsPerColumn() const { return m_perColumn; }
    /// Absolute index of column 0 (it covers absolute steps from firstColumn() x k on).
    std::int64_t firstColumn() const { return m_firstColumn; }
    /// Absolute step of the window's first row.
    std::int64_t windowStart() const { return m_first; }
    /// Columns the last update() read from the samples (the others were kept).
    int remeasuredColumns() const { return m_remeasured; }
    /// Number of traces passing through cell (column, bin).
    int count(int column, int bin) const
    {
        return m_counts[static_cast<std::size_t>(column) * static_cast<std::size_t>(m_bins) +
                        static_cast<std::size_t>(bin)];
    }
    /// Bin of value `v` (clamped to the bin range).
    int binOf(double v) const;
    /// First step (window relative) of `column`; column c spans [firstStep(c), firstStep(c + 1)).
    std::int64_t firstStep(int column) const;
    /// Column holding window step `step`.
    int columnOfStep(std::int64_t step) const;
    /// Lowest and highest sample of any trace over `column`'s envelope, and the mean over
    /// traces and the column's steps.
    double columnMin(int column) const { return m_columnMin[slotOfColumn(column)]; }
    double columnMax(int column) const { return m_columnMax[slotOfColumn(column)]; }
    double columnMean(int column) const { return m_columnMean[slotOfColumn(column)]; }
    /// Mean over the traces at window step `step` (0 <= step < T).
    double stepMean(std::int64_t step) const;
    /// Largest cell count.
    int peakCount() const { return m_peak; }
    /// The count below which a share `q` (0..1) of the non-empty cells lie (0 when all are
    /// empty): colour ranges from it ignore a few extreme cells.
    int countQuantile(double q) const;

private:
    static constexpr std::int64_t kNoColumn = std::numeric_limits<std::int64_t>::min();

    /// Slot of absolute column `column`.
    std::size_t slot(std::int64_t column) const;
    std::size_t slotOfColumn(int column) const { return slot(m_firstColumn + column); }
    /// Whether the previous window's last row lies in the new window with the same bits.
    bool tailMatches(const float* data, std::int64_t firstStep, std::int64_t steps, std::int64_t traces) const;
    /// Reads absolute column `column` (steps [from, to), entry step `entry`) into its slot.
    void measureColumn(const float* data, std::int64_t column, std::int64_t from, std::int64_t to,
                       std::int64_t entry);

    std::int64_t m_first = 0;
    std::int64_t m_steps = 0;
    std::int64_t m_perColumn = 0;
    std::int64_t m_firstColumn = 0;
    int m_columns = 0;
    int m_capacity = 0;  ///< slots
    int m_remeasured = 0;
    int m_bins = 0;
    double m_low = 0.0;
    double m_high = 1.0;
    int m_peak = 0;
    std::int64_t m_traces = 0;
    double m_dataMin = 0.0;
    double m_dataMax = 0.0;
    std::int64_t m_tailStep = kNoColumn;  ///< absolute step of the last window's last row
    std::vector<float> m_tailRow;         ///< its samples
    std::vector<std::int64_t> m_slotColumn;  ///< per slot: absolute column held, or kNoColumn
    std::vector<std::int64_t> m_slotFrom;    ///< per slot: first step measured
    std::vector<std::int64_t> m_slotTo;      ///< per slot: one past the last step measured
    std::vector<std::int64_t> m_slotEntry;   ///< per slot: step the envelope started from
    std::vector<int> m_counts;       ///< columns x bins, column after column
    std::vector<float> m_min;        ///< slots x traces envelope minima, slot after slot
    std::vector<float> m_max;        ///< slots x traces envelope maxima
    std::vector<int> m_edges;        ///< bins + 2 difference counts, scratch for one column
    std::vector<std::int64_t> m_histogram;  ///< non-empty cells per count (0..traces)
    std::vector<int> m_binLo;        ///< per trace first bin, scratch for one column
    std::vector<int> m_binHi;        ///< per trace one past the last bin, scratch
    std::vector<double> m_columnMin;   ///< per slot
    std::vector<double> m_columnMax;   ///< per slot
    std::vector<double> m_columnMean;  ///< per slot
    std::vector<double> m_stepMean;    ///< slots x k: the means of a slot's steps
};

}  // namespace spike::ui
