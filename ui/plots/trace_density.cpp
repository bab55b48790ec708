// TraceDensity. See trace_density.hpp.
#include "ui/plots/trace_density.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>

namespace spike::ui {

namespace {

/// One row of the envelope pass: widens the envelope [lo, hi] by `row` (n floats) and returns
/// the row's sum. Eight independent partial sums let the compiler keep the whole loop in vector
/// registers.
double scanRow(const float* __restrict row, std::int64_t n, float* __restrict lo, float* __restrict hi)
{
    std::array<float, 8> partial{};
    std::int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        for (std::int64_t j = 0; j < 8; ++j) {
            const float v = row[i + j];
            lo[i + j] = std::min(lo[i + j], v);
            hi[i + j] = std::max(hi[i + j], v);
            partial[static_cast<std::size_t>(j)] += v;
        }
    }
    double sum = 0.0;
    for (const float p : partial) {
        sum += static_cast<double>(p);
    }
    for (; i < n; ++i) {
        lo[i] = std::min(lo[i], row[i]);
        hi[i] = std::max(hi[i], row[i]);
        sum += static_cast<double>(row[i]);
    }
    return sum;
}

/// Floor of a / b for b > 0 (a window may start before step 0).
std::int64_t floorDiv(std::int64_t a, std::int64_t b)
{
    return a / b - (a % b < 0 ? 1 : 0);
}

}  // namespace

std::int64_t TraceDensity::stepsPerColumn(std::int64_t steps, int columns)
{
    if (steps <= 0) {
        return 1;
    }
    const std::int64_t c = std::clamp<std::int64_t>(columns, 1, steps);
    return (steps + c - 1) / c;
}

std::size_t TraceDensity::slot(std::int64_t column) const
{
    const std::int64_t capacity = m_capacity;
    return static_cast<std::size_t>(((column % capacity) + capacity) % capacity);
}

std::int64_t TraceDensity::firstStep(int column) const
{
    if (m_columns <= 0 || column <= 0) {
        return 0;
    }
    if (column >= m_columns) {
        return m_steps;
    }
    return (m_firstColumn + column) * m_perColumn - m_first;
}

int TraceDensity::columnOfStep(std::int64_t step) const
{
    if (m_columns <= 0 || m_steps <= 0) {
        return 0;
    }
    const std::int64_t s = std::clamp<std::int64_t>(step, 0, m_steps - 1);
    return static_cast<int>(floorDiv(m_first + s, m_perColumn) - m_firstColumn);
}

double TraceDensity::stepMean(std::int64_t step) const
{
    const std::int64_t absolute = m_first + step;
    const std::int64_t column = floorDiv(absolute, m_perColumn);
    const auto offset = static_cast<std::size_t>(absolute - column * m_perColumn);
    return m_stepMean[slot(column) * static_cast<std::size_t>(m_perColumn) + offset];
}

int TraceDensity::binOf(double v) const
{
    if (m_bins <= 0 || !(m_high > m_low)) {
        return 0;
    }
    const double at = (v - m_low) / (m_high - m_low) * static_cast<double>(m_bins);
    if (!(at >= 0.0)) {
        return 0;
    }
    return static_cast<int>(std::min(at, static_cast<double>(m_bins - 1)));
}

bool TraceDensity::tailMatches(const float* data, std::int64_t firstStep, std::int64_t steps,
                               std::int64_t traces) const
{
    if (m_tailStep == kNoColumn || m_tailStep < firstStep || m_tailStep >= firstStep + steps ||
        static_cast<std::int64_t>(m_tailRow.size()) != traces) {
        return false;
    }
    const float* row = data + (m_tailStep - firstStep) * traces;
    return std::memcmp(row, m_tailRow.data(), m_tailRow.size() * sizeof(float)) == 0;
}

void TraceDensity::measureColumn(const float* data, std::int64_t column, std::int64_t from, std::int64_t to,
                                 std::int64_t entry)
{
    const std::int64_t n = m_traces;
    const std::size_t at = slot(column);
    float* lo = m_min.data() + at * static_cast<std::size_t>(n);
    float* hi = m_max.data() + at * static_cast<std::size_t>(n);
    // Start from the entry sample: the segment entering the column belongs to it.
    const float* entryRow = data + (entry - m_first) * n;
    std::copy(entryRow, entryRow + n, lo);
    std::copy(entryRow, entryRow + n, hi);
    double* means = m_stepMean.data() + at * static_cast<std::size_t>(m_perColumn);
    const std::int64_t columnStart = column * m_perColumn;
    double sum = 0.0;
    for (std::int64_t s = from; s < to; ++s) {
        const double rowTotal = scanRow(data + (s - m_first) * n, n, lo, hi);
        means[s - columnStart] = n > 0 ? rowTotal / static_cast<double>(n) : 0.0;
        sum += rowTotal;
    }
    float cmin = std::numeric_limits<float>::infinity();
    float cmax = -cmin;
    for (std::int64_t k = 0; k < n; ++k) {
        if (std::isfinite(lo[k])) {
            cmin = std::min(cmin, lo[k]);
        }
        if (std::isfinite(hi[k])) {
            cmax = std::max(cmax, hi[k]);
        }
    }
    m_columnMin[at] = cmin;
    m_columnMax[at] = cmax;
    const auto samples = static_cast<double>((to - from) * n);
    m_columnMean[at] = samples > 0.0 ? sum / samples : 0.0;
    m_slotColumn[at] = column;
    m_slotFrom[at] = from;
    m_slotTo[at] = to;
    m_slotEntry[at] = entry;
}

void TraceDensity::update(const float* data, std::int64_t firstStep, std::int64_t steps, std::int64_t traces,
                          int columns, bool reuse)
{
    steps = std::max<std::int64_t>(steps, 0);
    traces = std::max<std::int64_t>(traces, 0);
    const std::int64_t perColumn = stepsPerColumn(steps, columns);
    bool keep = reuse && perColumn == m_perColumn && traces == m_traces && tailMatches(data, firstStep, steps, traces);
    m_first = firstStep;
    m_steps = steps;
    m_traces = traces;
    m_perColumn = perColumn;
    m_bins = 0;
    m_peak = 0;
    m_remeasured = 0;
    m_counts.clear();
    m_histogram.clear();
    m_dataMin = std::numeric_limits<double>::infinity();
    m_dataMax = -m_dataMin;
    if (steps == 0) {
        m_columns = 0;
        m_firstColumn = 0;
        m_tailStep = kNoColumn;
        return;
    }
    m_firstColumn = floorDiv(firstStep, perColumn);
    m_columns = static_cast<int>(floorDiv(firstStep + steps - 1, perColumn) - m_firstColumn + 1);
    if (!keep || m_columns > m_capacity) {
        // New slots (room for a window growing by a quarter); nothing kept.
        keep = false;
        m_capacity = m_columns + m_columns / 4 + 8;
        const auto slots = static_cast<std::size_t>(m_capacity);
        m_slotColumn.assign(slots, kNoColumn);
        m_slotFrom.resize(slots);
        m_slotTo.resize(slots);
        m_slotEntry.resize(slots);
        m_min.resize(slots * static_cast<std::size_t>(traces));
        m_max.resize(slots * static_cast<std::size_t>(traces));
        m_columnMin.resize(slots);
        m_columnMax.resize(slots);
        m_columnMean.resize(slots);
        m_stepMean.resize(slots * static_cast<std::size_t>(perColumn));
    }
    const std::int64_t end = firstStep + steps;
    for (int c = 0; c < m_columns; ++c) {
        const std::int64_t column = m_firstColumn + c;
        const std::int64_t from = std::max(column * perColumn, firstStep);
        const std::int64_t to = std::min((column + 1) * perColumn, end);
        const std::int64_t entry = from > firstStep ? from - 1 : from;
        const std::size_t at = slot(column);
        if (!keep || m_slotColumn[at] != column || m_slotFrom[at] != from || m_slotTo[at] != to ||
            m_slotEntry[at] != entry) {
            measureColumn(data, column, from, to, entry);
            ++m_remeasured;
        }
        m_dataMin = std::min(m_dataMin, m_columnMin[at]);
        m_dataMax = std::max(m_dataMax, m_columnMax[at]);
    }
    m_tailStep = end - 1;
    const float* tail = data + (steps - 1) * traces;
    m_tailRow.assign(tail, tail + traces);
}

void TraceDensity::bin(int bins, double valueLow, double valueHigh)
{
    m_bins = std::max(bins, 1);
    m_low = valueLow;
    m_high = valueHigh;
    m_peak = 0;
    m_counts.assign(static_cast<std::size_t>(m_columns) * static_cast<std::size_t>(m_bins), 0);
    // Difference counts, plus one spare slot that collects the +1 and -1 of a non-finite envelope.
    m_edges.resize(static_cast<std::size_t>(m_bins) + 2);
    m_binLo.resize(static_cast<std::size_t>(m_traces));
    m_binHi.resize(static_cast<std::size_t>(m_traces));
    m_histogram.assign(static_cast<std::size_t>(m_traces) + 1, 0);
    const auto scale = static_cast<float>(m_high > m_low ? static_cast<double>(m_bins) / (m_high - m_low) : 0.0);
    const auto low = static_cast<float>(m_low);
    const auto top = static_cast<float>(m_bins - 1);
    const int spare = m_bins + 1;
    int* binLo = m_binLo.data();
    int* binHi = m_binHi.data();
    for (int c = 0; c < m_columns; ++c) {
        const std::size_t at = slotOfColumn(c);
        const float* lo = m_min.data() + at * static_cast<std::size_t>(m_traces);
        const float* hi = m_max.data() + at * static_cast<std::size_t>(m_traces);
        // Bin indices first (a loop the compiler vectorises), then the scattered counts.
        for (std::int64_t k = 0; k < m_traces; ++k) {
            const float a = std::clamp((lo[k] - low) * scale, 0.0F, top);
            const float b = std::clamp((hi[k] - low) * scale, 0.0F, top);
            const bool finite = std::abs(lo[k]) <= std::numeric_limits<float>::max() &&
                                std::abs(hi[k]) <= std::numeric_limits<float>::max();
            binLo[k] = finite ? static_cast<int>(a) : spare;
            binHi[k] = finite ? static_cast<int>(b) + 1 : spare;
        }
        std::fill(m_edges.begin(), m_edges.end(), 0);
        for (std::int64_t k = 0; k < m_traces; ++k) {
            ++m_edges[static_cast<std::size_t>(binLo[k])];
            --m_edges[static_cast<std::size_t>(binHi[k])];
        }
        int running = 0;
        int* cell = m_counts.data() + static_cast<std::size_t>(c) * static_cast<std::size_t>(m_bins);
        for (int b = 0; b < m_bins; ++b) {
            running += m_edges[static_cast<std::size_t>(b)];
            cell[b] = running;
            ++m_histogram[static_cast<std::size_t>(running)];
            m_peak = std::max(m_peak, running);
        }
    }
}

int TraceDensity::countQuantile(double q) const
{
    std::int64_t filled = 0;
    for (std::size_t k = 1; k < m_histogram.size(); ++k) {
        filled += m_histogram[k];
    }
    if (filled == 0) {
        return 0;
    }
    const auto wanted = static_cast<std::int64_t>(std::clamp(q, 0.0, 1.0) * static_cast<double>(filled - 1));
    std::int64_t seen = 0;
    for (std::size_t k = 1; k < m_histogram.size(); ++k) {
        seen += m_histogram[k];
        if (seen > wanted) {
            return static_cast<int>(k);
        }
    }
    return m_peak;
}

}  // namespace spike::ui
