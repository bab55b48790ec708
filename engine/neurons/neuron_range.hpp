// Internal to engine/neurons: NeuronRange, the bookkeeping that the CPU runRange() loops of LIF,
// LIFRefrac and CUBALIF share, so each keeps only its model's update. It points into the neuron
// range [begin, end) of a population's working arrays, of each step's input and output rows and
// of the trace rows, and keeps the last step's spikes as the carried spike state. Everything is
// inline and allocation-free, so the hot loops compile as when they did this by hand. Thread:
// whichever thread runs the range (ranges run at once are disjoint). Not part of the engine's
// interface.
#pragma once

#include <Eigen/Core>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

namespace spike::engine::neurons_detail {

/// Neurons [begin, end) of a population of n, as one runRange() call sees them.
struct NeuronRange {
    std::int64_t n;      ///< neurons in the whole population (the width of a row)
    std::int64_t begin;  ///< first neuron of the range
    std::int64_t end;    ///< one past the last neuron of the range

    /// Neurons in the range.
    std::int64_t count() const { return end - begin; }
    /// Whether the range holds no neuron (nothing to run).
    bool empty() const { return end <= begin; }

    /// The range's first element of a per-neuron working array.
    float* at(Eigen::ArrayXf& perNeuron) const { return perNeuron.data() + begin; }
    /// The range's first element of a per-neuron parameter array.
    const float* at(const Eigen::ArrayXf& perNeuron) const { return perNeuron.data() + begin; }

    /// The range's first element of step t in a (steps, rows, n) block, e.g. the input
    /// (steps, Nin) with rows = Nin / n, or the output spikes (steps, n) with rows = 1; the
    /// range's part of row r is r * n further on.
    template <typename T>
    T* step(T* block, std::int64_t t, std::int64_t rows = 1) const
    {
        return block + t * rows * n + begin;
    }

    /// Writes step t of the range's channels of each recorded trace: traces[k] (a TraceTarget of
    /// NeuronLayer) takes the whole-population row rows[k].
    template <typename Targets, std::size_t K>
    void writeTraces(const Targets& traces, std::int64_t t,
                     const std::array<const float*, K>& rows) const
    {
        for (std::size_t k = 0; k < K; ++k) {
            if (traces[k]) {
                traces[k].writeRange(t, rows[k], n, begin, end);
            }
        }
    }

    /// After `steps` steps into `spikesOut` (steps, n): copies the range's spikes of the last
    /// step into the carried spike state `s`. Nothing when steps == 0.
    void keepLastSpikes(const float* spikesOut, std::int64_t steps, Eigen::ArrayXf& s) const
    {
        if (steps > 0) {
            std::copy(spikesOut + (steps - 1) * n + begin, spikesOut + (steps - 1) * n + end,
                      s.data() + begin);
        }
    }
};

}  // namespace spike::engine::neurons_detail
