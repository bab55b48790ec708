// Spike lists: the scan that lists a row's non-zero channels. See spike_lists.hpp. Thread: the
// caller's.
#include "engine/tensor/spike_lists.hpp"

#include <bit>

namespace spike::engine {

namespace {

/// Channels tested together before a block is walked one by one.
constexpr std::int64_t kBlock = 64;

/// Whether any of x[0..kBlock) is non-zero (NaN counts): x != 0 exactly when its bits other
/// than the sign are not all zero, so one integer OR over the block decides (GCC vectorises it;
/// no compare per value).
bool blockActive(const float* __restrict x)
{
    std::uint32_t bits = 0;
    for (std::int64_t i = 0; i < kBlock; ++i) {
        bits |= std::bit_cast<std::uint32_t>(x[i]);
    }
    return (bits & 0x7FFFFFFFU) != 0;
}

/// Bit i set when x[i] != 0 (NaN counts), for i < kBlock. Branch-free, so the rare active block
/// costs no mispredicted branch per channel.
std::uint64_t blockMask(const float* __restrict x)
{
    std::uint64_t mask = 0;
    for (std::int64_t i = 0; i < kBlock; ++i) {
        const std::uint32_t bits = std::bit_cast<std::uint32_t>(x[i]) & 0x7FFFFFFFU;
        mask |= static_cast<std::uint64_t>(bits != 0) << i;
    }
    return mask;
}

}  // namespace

std::int32_t listNonZero(const float* row, std::int64_t n, std::int32_t* indices)
{
    std::int32_t count = 0;
    std::int64_t i0 = 0;
    for (; i0 + kBlock <= n; i0 += kBlock) {
        if (!blockActive(row + i0)) {
            continue;
        }
        for (std::uint64_t mask = blockMask(row + i0); mask != 0; mask &= mask - 1) {
            indices[count++] = static_cast<std::int32_t>(i0 + std::countr_zero(mask));
        }
    }
    for (std::int64_t i = i0; i < n; ++i) {
        if (row[i] != 0.0F) {
            indices[count++] = static_cast<std::int32_t>(i);
        }
    }
    return count;
}

void listNonZeroRows(const float* rows, std::int64_t rowStride, std::int64_t width,
                     std::int64_t steps, const SpikeListTargets& target)
{
    for (std::int64_t t = 0; t < steps; ++t) {
        target.counts[t] =
            listNonZero(rows + t * rowStride, width, target.indices + t * target.stride);
    }
}

}  // namespace spike::engine
