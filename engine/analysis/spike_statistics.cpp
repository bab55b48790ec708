// spikeStatistics(): see spike_statistics.hpp. One pass over the rows per neuron column (or over
// a window's events sorted by neuron); the intervals are kept (their count is at most the
// spikes) for the pooled histogram. Both inputs feed one Accumulator, so they agree bit for bit.
#include "engine/analysis/spike_statistics.hpp"

#include "engine/tensor/error.hpp"

#include <algorithm>
#include <cmath>
#include <span>
#include <string>

namespace spike::engine {

namespace {

/// Mean and population variance of values[0..n).
void meanAndVariance(const std::vector<double>& values, double& mean, double& variance)
{
    mean = 0.0;
    for (const double v : values) {
        mean += v;
    }
    mean /= static_cast<double>(values.size());
    variance = 0.0;
    for (const double v : values) {
        variance += (v - mean) * (v - mean);
    }
    variance /= static_cast<double>(values.size());
}

Histogram histogramOf(const std::vector<double>& values, std::int64_t bins)
{
    Histogram h;
    double top = 0.0;
    for (const double v : values) {
        top = std::max(top, v);
    }
    if (top <= 0.0) {
        top = 1.0;  // all zero (or none): one unit wide, everything in the first bin
    }
    h.edges.resize(static_cast<std::size_t>(bins + 1));
    for (std::int64_t k = 0; k <= bins; ++k) {
        h.edges[static_cast<std::size_t>(k)] = top * static_cast<double>(k) / static_cast<double>(bins);
    }
    h.counts.assign(static_cast<std::size_t>(bins), 0.0);
    for (const double v : values) {
        auto k = static_cast<std::int64_t>(v / top * static_cast<double>(bins));
        k = std::clamp<std::int64_t>(k, 0, bins - 1);
        h.counts[static_cast<std::size_t>(k)] += 1.0;
    }
    return h;
}

/// The computation shared by both inputs: validated options, then spike() for one neuron's
/// spikes in step order between beginNeuron() and endNeuron(), neuron after neuron.
class Accumulator {
public:
    Accumulator(std::int64_t steps, std::int64_t neurons, double dt, const SpikeStatisticsOptions& options)
        : m_bins(options.bins), m_rateBins(options.rateBins > 0 ? options.rateBins : options.bins)
    {
        if (steps < 1 || neurons < 1) {
            throw Error("spike statistics: need at least one step and one neuron, got " +
                        std::to_string(steps) + " steps of " + std::to_string(neurons) + " neurons");
        }
        if (!(dt > 0.0) || !std::isfinite(dt)) {
            throw Error("spike statistics: the time step must be positive, got " + std::to_string(dt));
        }
        if (options.bins < 1 || options.bins > 100000) {
            throw Error("spike statistics: bins must be 1 to 100000, got " + std::to_string(options.bins));
        }
        if (options.rateBins < 0 || options.rateBins > 100000) {
            throw Error("spike statistics: rate bins must be 1 to 100000 (0: as many as bins), got " +
                        std::to_string(options.rateBins));
        }
        if (options.window < 0) {
            throw Error("spike statistics: the Fano window must not be negative, got " +
                        std::to_string(options.window));
        }
        m_s.neurons = neurons;
        m_s.steps = steps;
        m_s.dt = dt;
        m_s.window = options.window > 0 ? options.window
                                        : std::max<std::int64_t>(1, std::llround(0.1 / dt));
        m_windows = steps / m_s.window;
        m_duration = static_cast<double>(steps) * dt;
        m_s.rateHz.assign(static_cast<std::size_t>(neurons), 0.0);
    }

    void beginNeuron()
    {
        m_own.clear();
        m_windowCounts.assign(static_cast<std::size_t>(m_windows), 0.0);
        m_count = 0.0;
        m_last = -1.0;
    }

    /// `c` > 0 spikes of the current neuron in step t (0-based in the statistics' steps).
    void spike(std::int64_t t, double c)
    {
        const double dt = m_s.dt;
        const auto n = static_cast<std::int64_t>(std::ceil(c));
        for (std::int64_t k = 0; k < n; ++k) {
            const double at = (static_cast<double>(t) + static_cast<double>(k) / static_cast<double>(n)) * dt;
            if (m_last >= 0.0) {
                m_own.push_back(at - m_last);
            }
            m_last = at;
        }
        m_count += c;
        if (t / m_s.window < m_windows) {
            m_windowCounts[static_cast<std::size_t>(t / m_s.window)] += c;
        }
    }

    void endNeuron(std::int64_t i)
    {
        m_s.spikes += m_count;
        m_s.rateHz[static_cast<std::size_t>(i)] = m_count / m_duration;
        if (m_own.size() >= 2) {
            double mean = 0.0;
            double variance = 0.0;
            meanAndVariance(m_own, mean, variance);
            m_cvSum += std::sqrt(variance) / mean;
            ++m_s.cvNeurons;
        }
        if (m_windows >= 2) {
            double mean = 0.0;
            double variance = 0.0;
            meanAndVariance(m_windowCounts, mean, variance);
            if (mean > 0.0) {
                m_fanoSum += variance / mean;
                ++m_s.fanoNeurons;
            }
        }
        m_pooled.insert(m_pooled.end(), m_own.begin(), m_own.end());
    }

    SpikeStatistics finish()
    {
        m_s.meanRateHz = m_s.spikes / (static_cast<double>(m_s.neurons) * m_duration);
        m_s.meanCv = m_s.cvNeurons > 0 ? m_cvSum / static_cast<double>(m_s.cvNeurons) : 0.0;
        m_s.meanFano = m_s.fanoNeurons > 0 ? m_fanoSum / static_cast<double>(m_s.fanoNeurons) : 0.0;
        m_s.intervals = static_cast<std::int64_t>(m_pooled.size());
        if (!m_pooled.empty()) {
            double variance = 0.0;
            meanAndVariance(m_pooled, m_s.isiMean, variance);
            m_s.isiCv = std::sqrt(variance) / m_s.isiMean;
        }
        m_s.isiHistogram = histogramOf(m_pooled, m_bins);
        m_s.rateHistogram = histogramOf(m_s.rateHz, m_rateBins);
        return std::move(m_s);
    }

private:
    SpikeStatistics m_s;
    std::int64_t m_bins = 0;
    std::int64_t m_rateBins = 0;
    std::int64_t m_windows = 0;
    double m_duration = 0.0;
    std::vector<double> m_pooled;
    std::vector<double> m_own;
    std::vector<double> m_windowCounts;
    double m_cvSum = 0.0;
    double m_fanoSum = 0.0;
    double m_count = 0.0;
    double m_last = -1.0;  ///< time of the neuron's previous spike [s]; < 0: none yet
};

}  // namespace

SpikeStatistics spikeStatistics(const float* rows, std::int64_t steps, std::int64_t neurons,
                                double dt, const SpikeStatisticsOptions& options)
{
    Accumulator acc(steps, neurons, dt, options);
    for (std::int64_t i = 0; i < neurons; ++i) {
        acc.beginNeuron();
        for (std::int64_t t = 0; t < steps; ++t) {
            const float c = rows[t * neurons + i];
            if (c == 0.0F) {
                continue;
            }
            if (!(c > 0.0F) || !std::isfinite(c)) {
                throw Error("spike statistics: step " + std::to_string(t) + ", neuron " +
                            std::to_string(i) + " has " + std::to_string(c) +
                            " spikes; expected a count >= 0");
            }
            acc.spike(t, c);
        }
        acc.endNeuron(i);
    }
    return acc.finish();
}

SpikeStatistics spikeStatistics(const SpikeWindow& window, double dt, const SpikeStatisticsOptions& options)
{
    Accumulator acc(window.steps(), window.width(), dt, options);
    // The events by neuron, each neuron's in step order (a stable counting sort).
    const std::span<const SpikeEvent> events = window.events();
    std::vector<std::int64_t> start(static_cast<std::size_t>(window.width() + 1), 0);
    for (const SpikeEvent& e : events) {
        ++start[static_cast<std::size_t>(e.neuron) + 1];
    }
    for (std::size_t i = 1; i < start.size(); ++i) {
        start[i] += start[i - 1];
    }
    std::vector<const SpikeEvent*> byNeuron(events.size());
    std::vector<std::int64_t> next(start.begin(), start.end() - 1);
    for (const SpikeEvent& e : events) {
        byNeuron[static_cast<std::size_t>(next[static_cast<std::size_t>(e.neuron)]++)] = &e;
    }
    for (std::int64_t i = 0; i < window.width(); ++i) {
        acc.beginNeuron();
        for (std::int64_t k = start[static_cast<std::size_t>(i)]; k < start[static_cast<std::size_t>(i) + 1]; ++k) {
            const SpikeEvent& e = *byNeuron[static_cast<std::size_t>(k)];
            acc.spike(e.step - window.firstStep(), static_cast<double>(static_cast<float>(e.count)));
        }
        acc.endNeuron(i);
    }
    return acc.finish();
}

}  // namespace spike::engine
