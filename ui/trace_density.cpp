// TraceDensity. See trace_density.hpp.
#include "trace_density.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace spike::ui {

namespace {

/// One row of the envelope pass: widens the envelope [lo, hi] by `row` (n floats), copies the
/// row to `copy` when given, and returns the row's sum. Eight independent partial sums let the
/// compiler keep the whole loop in vector registers.
double scanRow(const float* __restrict row, std::int64_t n, float* __restrict lo, float* __restrict hi,
               float* __restrict copy)
{
    std::array<float, 8> partial{};
    std::int64_t i = 0;
    if (copy != nullptr) {
        std::copy(row, row + n, copy);
    }
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

}  // namespace

std::int64_t TraceDensity::firstStep(int column) const
{
    // Smallest step s with column <= (s + 1/2) C / T, i.e. ceil(column T / C - 1/2).
    if (m_columns <= 0 || column <= 0) {
        return 0;
    }
    const std::int64_t c = std::min(column, m_columns);
    const std::int64_t twoC = 2 * static_cast<std::int64_t>(m_columns);
    return (2 * c * m_steps - m_columns + twoC - 1) / twoC;
}

int TraceDensity::columnOfStep(std::int64_t step) const
{
    if (m_columns <= 0 || m_steps <= 0) {
        return 0;
    }
    const std::int64_t s = std::clamp<std::int64_t>(step, 0, m_steps - 1);
    return static_cast<int>((2 * s + 1) * m_columns / (2 * m_steps));
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

void TraceDensity::measure(const float* data, std::int64_t steps, std::int64_t traces, int columns,
                           float* copy)
{
    m_steps = std::max<std::int64_t>(steps, 0);
    m_traces = std::max<std::int64_t>(traces, 0);
    m_columns = m_steps > 0 ? static_cast<int>(std::clamp<std::int64_t>(columns, 1, m_steps)) : 0;
    m_bins = 0;
    m_peak = 0;
    m_counts.clear();
    m_histogram.clear();
    const auto cells = static_cast<std::size_t>(m_columns) * static_cast<std::size_t>(m_traces);
    m_min.resize(cells);
    m_max.resize(cells);
    m_columnMin.resize(static_cast<std::size_t>(m_columns));
    m_columnMax.resize(static_cast<std::size_t>(m_columns));
    m_columnMean.resize(static_cast<std::size_t>(m_columns));
    m_stepMean.resize(static_cast<std::size_t>(m_steps));
    m_dataMin = std::numeric_limits<double>::infinity();
    m_dataMax = -m_dataMin;
    const std::int64_t n = m_traces;
    for (int c = 0; c < m_columns; ++c) {
        const std::int64_t begin = firstStep(c);
        const std::int64_t end = firstStep(c + 1);
        float* lo = m_min.data() + static_cast<std::size_t>(c) * static_cast<std::size_t>(n);
        float* hi = m_max.data() + static_cast<std::size_t>(c) * static_cast<std::size_t>(n);
        // Start from the sample before the column: the segment entering it belongs to it.
        const float* entry = data + std::max<std::int64_t>(begin - 1, 0) * n;
        std::copy(entry, entry + n, lo);
        std::copy(entry, entry + n, hi);
        double sum = 0.0;
        for (std::int64_t t = begin; t < end; ++t) {
            const double rowTotal = scanRow(data + t * n, n, lo, hi, copy == nullptr ? nullptr : copy + t * n);
            m_stepMean[static_cast<std::size_t>(t)] = n > 0 ? rowTotal / static_cast<double>(n) : 0.0;
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
        m_columnMin[static_cast<std::size_t>(c)] = cmin;
        m_columnMax[static_cast<std::size_t>(c)] = cmax;
        const auto samples = static_cast<double>((end - begin) * n);
        m_columnMean[static_cast<std::size_t>(c)] = samples > 0.0 ? sum / samples : 0.0;
        m_dataMin = std::min(m_dataMin, static_cast<double>(cmin));
        m_dataMax = std::max(m_dataMax, static_cast<double>(cmax));
    }
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
        const float* lo = m_min.data() + static_cast<std::size_t>(c) * static_cast<std::size_t>(m_traces);
        const float* hi = m_max.data() + static_cast<std::size_t>(c) * static_cast<std::size_t>(m_traces);
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
