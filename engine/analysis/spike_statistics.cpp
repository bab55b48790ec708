// spikeStatistics(): see spike_statistics.hpp. One pass over the rows per neuron column; the
// intervals are kept (their count is at most the spikes) for the pooled histogram.
#include "engine/analysis/spike_statistics.hpp"

#include "engine/tensor/error.hpp"

#include <algorithm>
#include <cmath>
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

}  // namespace

SpikeStatistics spikeStatistics(const float* rows, std::int64_t steps, std::int64_t neurons,
                                double dt, const SpikeStatisticsOptions& options)
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
    if (options.window < 0) {
        throw Error("spike statistics: the Fano window must not be negative, got " +
                    std::to_string(options.window));
    }
    SpikeStatistics s;
    s.neurons = neurons;
    s.steps = steps;
    s.dt = dt;
    s.window = options.window > 0 ? options.window
                                  : std::max<std::int64_t>(1, std::llround(0.1 / dt));
    const std::int64_t windows = steps / s.window;
    const double duration = static_cast<double>(steps) * dt;
    s.rateHz.assign(static_cast<std::size_t>(neurons), 0.0);

    std::vector<double> pooled;
    std::vector<double> own;
    std::vector<double> windowCounts;
    double cvSum = 0.0;
    double fanoSum = 0.0;
    for (std::int64_t i = 0; i < neurons; ++i) {
        own.clear();
        windowCounts.assign(static_cast<std::size_t>(windows), 0.0);
        double count = 0.0;
        double last = -1.0;  // time of the previous spike [s]; < 0: none yet
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
            const auto n = static_cast<std::int64_t>(std::ceil(c));
            for (std::int64_t k = 0; k < n; ++k) {
                const double at = (static_cast<double>(t) + static_cast<double>(k) / static_cast<double>(n)) * dt;
                if (last >= 0.0) {
                    own.push_back(at - last);
                }
                last = at;
            }
            count += c;
            if (t / s.window < windows) {
                windowCounts[static_cast<std::size_t>(t / s.window)] += c;
            }
        }
        s.spikes += count;
        s.rateHz[static_cast<std::size_t>(i)] = count / duration;
        if (own.size() >= 2) {
            double mean = 0.0;
            double variance = 0.0;
            meanAndVariance(own, mean, variance);
            cvSum += std::sqrt(variance) / mean;
            ++s.cvNeurons;
        }
        if (windows >= 2) {
            double mean = 0.0;
            double variance = 0.0;
            meanAndVariance(windowCounts, mean, variance);
            if (mean > 0.0) {
                fanoSum += variance / mean;
                ++s.fanoNeurons;
            }
        }
        pooled.insert(pooled.end(), own.begin(), own.end());
    }
    s.meanRateHz = s.spikes / (static_cast<double>(neurons) * duration);
    s.meanCv = s.cvNeurons > 0 ? cvSum / static_cast<double>(s.cvNeurons) : 0.0;
    s.meanFano = s.fanoNeurons > 0 ? fanoSum / static_cast<double>(s.fanoNeurons) : 0.0;
    s.intervals = static_cast<std::int64_t>(pooled.size());
    if (!pooled.empty()) {
        double variance = 0.0;
        meanAndVariance(pooled, s.isiMean, variance);
        s.isiCv = std::sqrt(variance) / s.isiMean;
    }
    s.isiHistogram = histogramOf(pooled, options.bins);
    s.rateHistogram = histogramOf(s.rateHz, options.bins);
    return s;
}

}  // namespace spike::engine
