// Kernels of kernels/spike_lists_cuda.hpp. No barriers and no atomics, so the lists are
// deterministic and cheap to run on the CUDA emulator too: a row is cut into tiles of 32 channels
// (one thread each) and tiles into groups of 32 (one thread each); four launches count the tiles,
// scan each group's tile counts, scan each row's group counts, and write each tile's entries in
// channel order at its offset. Scratch: tile counts (rows × tiles), then group counts.
#include "kernels/spike_lists_cuda.hpp"

#include <cuda_runtime.h>

#include "kernels/cuda_compat.hpp"
#include "kernels/cuda_helpers.cuh"

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <string>

namespace spike::kernels {

namespace {

constexpr long long kTile = 32;   ///< channels per tile (one thread)
constexpr long long kGroup = 32;  ///< tiles per group (one thread)

long long tilesOf(long long width)
{
    return (width + kTile - 1) / kTile;
}

long long groupsOf(long long tiles)
{
    return (tiles + kGroup - 1) / kGroup;
}

/// The channels [first, last) of tile k = row * tiles + tile.
struct TileSpan {
    long long row;
    long long first;
    long long last;
};

__device__ TileSpan tileSpan(long long k, long long width, long long tiles)
{
    const long long first = (k % tiles) * kTile;
    return {k / tiles, first, first + kTile < width ? first + kTile : width};
}

/// Thread = (row, tile): tileCounts[row * tiles + tile] = non-zero channels of the tile.
__global__ void tileCountKernel(const float* src, long long rows, long long width, long long tiles,
                                int* tileCounts)
{
    const long long k = globalIndex();
    if (k >= rows * tiles) {
        return;
    }
    const TileSpan span = tileSpan(k, width, tiles);
    const float* x = src + span.row * width;
    int n = 0;
    for (long long c = span.first; c < span.last; ++c) {
        n += x[c] != 0.0F ? 1 : 0;
    }
    tileCounts[k] = n;
}

/// Thread = (row, group): the group's tile counts become offsets within the group;
/// groupCounts[row * groups + group] = the group's total.
__global__ void groupScanKernel(int* tileCounts, long long rows, long long tiles, long long groups,
                                int* groupCounts)
{
    const long long k = globalIndex();
    if (k >= rows * groups) {
        return;
    }
    const long long row = k / groups;
    const long long first = (k % groups) * kGroup;
    const long long last = first + kGroup < tiles ? first + kGroup : tiles;
    int* tile = tileCounts + row * tiles;
    int sum = 0;
    for (long long t = first; t < last; ++t) {
        const int n = tile[t];
        tile[t] = sum;
        sum += n;
    }
    groupCounts[k] = sum;
}

/// Thread = row: the row's group counts become offsets within the row; counts[row] = total.
__global__ void rowScanKernel(int* groupCounts, long long rows, long long groups, int* counts)
{
    const long long row = globalIndex();
    if (row >= rows) {
        return;
    }
    int* group = groupCounts + row * groups;
    int sum = 0;
    for (long long g = 0; g < groups; ++g) {
        const int n = group[g];
        group[g] = sum;
        sum += n;
    }
    counts[row] = sum;
}

/// Thread = (row, tile): writes the tile's non-zero channels and values, in channel order, at
/// the tile's offset in the row.
__global__ void tileWriteKernel(const float* src, long long rows, long long width, long long tiles,
                                long long groups, const int* tileOffsets, const int* groupOffsets,
                                int* indices, float* values)
{
    const long long k = globalIndex();
    if (k >= rows * tiles) {
        return;
    }
    const TileSpan span = tileSpan(k, width, tiles);
    const float* x = src + span.row * width;
    long long at = span.row * width + groupOffsets[span.row * groups + (k % tiles) / kGroup] +
                   tileOffsets[k];
    for (long long c = span.first; c < span.last; ++c) {
        const float v = x[c];
        if (v != 0.0F) {
            indices[at] = static_cast<int>(c);
            values[at] = v;
            ++at;
        }
    }
}

}  // namespace

std::size_t spikeListScratchSize(std::int64_t rows, std::int64_t width)
{
    requireNonNegative(rows, "spike list rows");
    requireNonNegative(width, "spike list width");
    const long long tiles = tilesOf(width);
    return static_cast<std::size_t>(rows) * static_cast<std::size_t>(tiles + groupsOf(tiles));
}

void listNonZeroRowsCuda(const float* src, std::int64_t rows, std::int64_t width,
                         std::int32_t* counts, std::int32_t* indices, float* values,
                         std::int32_t* scratch)
{
    requireNonNegative(rows, "spike list rows");
    requireNonNegative(width, "spike list width");
    if (rows == 0) {
        return;
    }
    if (width > INT_MAX) {
        throw std::invalid_argument("CUDA kernels: spike list width " + std::to_string(width) +
                                    " does not fit an int32 index");
    }
    const long long tiles = tilesOf(width);
    const long long groups = groupsOf(tiles);
    int* tileCounts = scratch;
    int* groupCounts = scratch + rows * tiles;
    if (tiles > 0) {
        SPIKE_LAUNCH(tileCountKernel, blocksFor(rows * tiles), kBlock, 0)
        (src, rows, width, tiles, tileCounts);
        checkLaunch("tileCountKernel");
        SPIKE_LAUNCH(groupScanKernel, blocksFor(rows * groups), kBlock, 0)
        (tileCounts, rows, tiles, groups, groupCounts);
        checkLaunch("groupScanKernel");
    }
    SPIKE_LAUNCH(rowScanKernel, blocksFor(rows), kBlock, 0)(groupCounts, rows, groups, counts);
    checkLaunch("rowScanKernel");
    if (tiles > 0) {
        SPIKE_LAUNCH(tileWriteKernel, blocksFor(rows * tiles), kBlock, 0)
        (src, rows, width, tiles, groups, tileCounts, groupCounts, indices, values);
        checkLaunch("tileWriteKernel");
    }
}

std::int64_t copySpikeListsToHost(const std::int32_t* counts, const std::int32_t* indices,
                                  const float* values, std::int64_t rows, std::int64_t width,
                                  std::int32_t* hostCounts, std::int32_t* hostIndices,
                                  float* hostValues)
{
    requireNonNegative(rows, "spike list rows");
    if (rows == 0) {
        return 0;
    }
    check(cudaMemcpy(hostCounts, counts, static_cast<std::size_t>(rows) * sizeof(std::int32_t),
                     cudaMemcpyDeviceToHost),
          "copying " + std::to_string(rows) + " spike counts");
    std::int64_t total = 0;
    std::int32_t longest = 0;
    for (std::int64_t t = 0; t < rows; ++t) {
        total += hostCounts[t];
        longest = std::max(longest, hostCounts[t]);
    }
    if (longest == 0) {
        return 0;
    }
    const std::size_t pitch = static_cast<std::size_t>(width) * 4;
    const std::size_t used = static_cast<std::size_t>(longest) * 4;
    check(cudaMemcpy2D(hostIndices, pitch, indices, pitch, used, static_cast<std::size_t>(rows),
                       cudaMemcpyDeviceToHost),
          "copying " + std::to_string(total) + " listed spikes");
    check(cudaMemcpy2D(hostValues, pitch, values, pitch, used, static_cast<std::size_t>(rows),
                       cudaMemcpyDeviceToHost),
          "copying the values of " + std::to_string(total) + " listed spikes");
    return total;
}

}  // namespace spike::kernels
