// Spike lists: per time step, the ascending indices of the non-zero channels of a row of spike
// values, kept next to the dense rows so that event-driven consumers (SparseProjection delivery,
// spike probes) cost O(spikes) per step instead of a scan of every channel.
//
// Layout: row t's list is indices[t * stride .. t * stride + counts[t]), strictly ascending,
// stride at least the row width. A list names every channel whose value is != 0 (NaN included,
// as `x != 0` counts it) and no other; the values themselves (spike counts, possibly above 1)
// stay in the dense row. The buffers belong to whoever allocated them (the CPU executor, sized
// once); nothing here allocates. Thread: whichever thread owns the rows.
#pragma once

#include <cstdint>

namespace spike::engine {

/// Read access to spike lists (see the file comment for the layout).
struct SpikeLists {
    const std::int32_t* indices = nullptr;  ///< row t starts at indices + t * stride
    const std::int32_t* counts = nullptr;   ///< counts[t]: entries of row t
    std::int64_t stride = 0;                ///< entries reserved per row (>= the row width)
    /// Where the lister also copied the listed values (same layout as indices: row t's k-th
    /// value at values[t * stride + k]), or nullptr: read them from the dense rows. The CUDA
    /// executor fills it, so a reader of spikes need not fetch the dense rows from the device.
    const float* values = nullptr;

    /// The lists from row t on.
    SpikeLists from(std::int64_t t) const
    {
        return {indices + t * stride, counts + t, stride, values != nullptr ? values + t * stride : nullptr};
    }
    /// Entries listed in rows [0, steps).
    std::int64_t total(std::int64_t steps) const
    {
        std::int64_t sum = 0;
        for (std::int64_t t = 0; t < steps; ++t) {
            sum += counts[t];
        }
        return sum;
    }
};

/// Where spike lists are written (the same layout as SpikeLists).
struct SpikeListTargets {
    std::int32_t* indices = nullptr;
    std::int32_t* counts = nullptr;
    std::int64_t stride = 0;

    /// The targets from row t on.
    SpikeListTargets from(std::int64_t t) const
    {
        return {indices + t * stride, counts + t, stride};
    }
    /// Read access to the same rows.
    SpikeLists view() const { return {indices, counts, stride}; }
};

/// Writes the ascending indices of the non-zero values of row[0 .. n) to `indices` (room for n)
/// and returns how many there are. A vectorised test of 64 channels at a time skips quiet blocks;
/// with AVX-512 an active block's indices are compressed out by one 16-bit mask per 16 channels
/// (no branch per spike), otherwise its channels are tested with one vector compare and movemask
/// per 8 (AVX2) or 4 (SSE2) channels and its bits walked. Values are tested by their bits
/// (x != 0 unless only the sign bit is set), so the floating-point environment
/// (denormals-are-zero) does not change the list.
std::int32_t listNonZero(const float* row, std::int64_t n, std::int32_t* indices);

/// The variants listNonZero() chooses from at compile time, each callable where the build's
/// instruction set has it, so a test can check every one the binary contains against the others.
namespace detail {
std::int32_t listNonZeroPortable(const float* row, std::int64_t n, std::int32_t* indices);
#if defined(__SSE2__)
std::int32_t listNonZeroSse2(const float* row, std::int64_t n, std::int32_t* indices);
#endif
#if defined(__AVX2__)
std::int32_t listNonZeroAvx2(const float* row, std::int64_t n, std::int32_t* indices);
#endif
#if defined(__AVX512F__)
std::int32_t listNonZeroAvx512(const float* row, std::int64_t n, std::int32_t* indices);
#endif
}  // namespace detail

/// listNonZero() for each of `steps` rows: row t at rows + t * rowStride into target row t.
void listNonZeroRows(const float* rows, std::int64_t rowStride, std::int64_t width,
                     std::int64_t steps, const SpikeListTargets& target);

}  // namespace spike::engine
