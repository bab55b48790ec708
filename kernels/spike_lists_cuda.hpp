// Spike lists on the device (engine/tensor/spike_lists.hpp's layout): for each row of a block of
// device spike rows, the ascending indices of its non-zero values and those values, built by a
// four-launch stream compaction (count per tile of 32 channels, scan tile counts in groups of 32,
// scan each row's group counts, write each tile's entries at its offset) and copied back with
// only as many columns as the longest list. So a probe of a 10^6-neuron population moves its spikes, not its 10^6 floats per
// step, from the GPU (the CUDA executor's probeSpikeLists()). Plain C++ interface; the kernels are
// in spike_lists_cuda.cu, and cuda_unavailable.cpp throws "built without CUDA" for each function.
// Errors: std::invalid_argument for malformed sizes, std::runtime_error for CUDA failures. Thread:
// any, one caller at a time per buffer set.
#pragma once

#include <cstddef>
#include <cstdint>

namespace spike::kernels {

/// Device ints of scratch listNonZeroRowsCuda() needs for `rows` rows of `width` channels.
std::size_t spikeListScratchSize(std::int64_t rows, std::int64_t width);

/// For row t < rows of `src` (device, rows × width floats, pitch width): counts[t] = the number of
/// channels with src[t][c] != 0 (NaN counts), and indices[t * width + k], values[t * width + k] for
/// k < counts[t] = those channels in ascending order and their values. All pointers are device
/// memory; `scratch` holds at least spikeListScratchSize(rows, width) ints.
void listNonZeroRowsCuda(const float* src, std::int64_t rows, std::int64_t width,
                         std::int32_t* counts, std::int32_t* indices, float* values,
                         std::int32_t* scratch);

/// Copies the lists of listNonZeroRowsCuda() to host buffers of the same layout (counts: rows;
/// indices and values: rows × width): the counts, then, of indices and values, the first
/// max(counts) columns of every row. Waits for the device. Returns the total count.
std::int64_t copySpikeListsToHost(const std::int32_t* counts, const std::int32_t* indices,
                                  const float* values, std::int64_t rows, std::int64_t width,
                                  std::int32_t* hostCounts, std::int32_t* hostIndices,
                                  float* hostValues);

}  // namespace spike::kernels
