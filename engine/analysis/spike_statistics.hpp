// Spike statistics of recorded spike rows: how often and how regularly a population fires.
//
// Input: (steps, neurons) rows of spike counts (0 silent; n >= 1 spikes in that step, as a
// population's "spikes" output records them) and the step dt. Per neuron i with counts c_i(t):
//     rate_hz[i]   = sum_t c_i(t) / (steps dt)
//     intervals    = the times between consecutive spikes of the neuron: a spike in step t sits
//                    at t dt; n >= 2 spikes in one step are spread evenly over it (at t dt + k
//                    dt / n), so they give n - 1 intervals of dt / n, as fiCurve's first ISI does
//     cv[i]        = std / mean of the neuron's intervals (population std, over >= 2 intervals)
//     fano[i]      = variance / mean of the neuron's spike counts in consecutive windows of
//                    `window` steps (the whole windows only; neurons with a zero mean left out)
// and for the population: the mean rate, the mean CV and mean Fano factor over the neurons that
// have one, the pooled intervals' mean, CV and histogram (`bins` equal bins from 0 to the
// largest interval), and the per-neuron rate histogram. A Poisson process of rate r gives
// exponential intervals of mean 1/r, CV 1 and Fano factor 1 (tests/test_spike_statistics.cpp).
//
// Input too: a SpikeWindow's events (the run's rolling window, as the raster draws it), with the
// same numbers as its dense rows. Engine only, no Qt; pure function of its arguments. Thread: any.
#pragma once

#include "engine/runtime/spike_window.hpp"

#include <cstdint>
#include <vector>

namespace spike::engine {

/// What spikeStatistics() computes besides the defaults.
struct SpikeStatisticsOptions {
    std::int64_t bins = 50;     ///< histogram bins (ISI and rate), 1 .. 100000
    std::int64_t rateBins = 0;  ///< the rate histogram's bins instead, 1 .. 100000; 0: `bins`
    std::int64_t window = 0;    ///< Fano factor window [steps]; 0: round(0.1 s / dt), at least 1
};

/// One histogram: counts[k] of values in [edges[k], edges[k + 1]) (the last bin closed).
struct Histogram {
    std::vector<double> edges;   ///< bins + 1 values
    std::vector<double> counts;  ///< bins values
};

/// The statistics of one population's spike rows; see the file comment.
struct SpikeStatistics {
    std::int64_t neurons = 0;
    std::int64_t steps = 0;
    double dt = 0.0;                 ///< [s]
    double spikes = 0.0;             ///< all spikes
    double meanRateHz = 0.0;         ///< spikes / (neurons steps dt)
    std::vector<double> rateHz;      ///< per neuron
    std::int64_t intervals = 0;      ///< pooled ISIs
    double isiMean = 0.0;            ///< [s] mean of the pooled intervals (0 without any)
    double isiCv = 0.0;              ///< std / mean of the pooled intervals
    double meanCv = 0.0;             ///< mean of the per-neuron CVs
    std::int64_t cvNeurons = 0;      ///< neurons with >= 2 intervals (a CV)
    double meanFano = 0.0;           ///< mean of the per-neuron Fano factors
    std::int64_t fanoNeurons = 0;    ///< neurons with a Fano factor (a spike in some window)
    std::int64_t window = 0;         ///< Fano window [steps]
    Histogram isiHistogram;          ///< of the pooled intervals [s]
    Histogram rateHistogram;         ///< of rateHz [Hz]
};

/// Statistics of `rows` (steps × neurons spike counts, row-major). Throws Error for steps or
/// neurons < 1, dt <= 0 or not finite, bins (or rate bins) outside 1 .. 100000, a negative window, or a
/// negative or non-finite count (naming the step and neuron).
SpikeStatistics spikeStatistics(const float* rows, std::int64_t steps, std::int64_t neurons,
                                double dt, const SpikeStatisticsOptions& options = {});

/// Statistics of the steps `window` covers (steps() steps of width() neurons, from its events),
/// equal bit for bit to spikeStatistics() of window.toDense(dt)'s rows, in O(events + neurons)
/// without the dense rows: what the GUI's live spike statistics compute twice a second. Throws
/// Error as above (an empty window has no steps).
SpikeStatistics spikeStatistics(const SpikeWindow& window, double dt, const SpikeStatisticsOptions& options = {});

}  // namespace spike::engine
