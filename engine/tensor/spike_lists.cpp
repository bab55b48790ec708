// Spike lists: the scan that lists a row's non-zero channels. See spike_lists.hpp. Thread: the
// caller's.
#include "engine/tensor/spike_lists.hpp"

#include <bit>

#if defined(__SSE2__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace spike::engine {

namespace {

/// Channels tested together before a block is walked one by one.
constexpr std::int64_t kBlock = 64;

/// Whether any of x[0..kBlock) is non-zero (NaN counts): x != 0 exactly when its bits other
/// than the sign are not all zero, so one integer OR over the block decides (no compare per
/// value, and no floating-point compare that a denormals-are-zero mode could change).
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

/// Appends i0 + (the positions of mask's set bits), ascending.
std::int32_t appendBits(std::uint64_t mask, std::int64_t i0, std::int32_t* indices, std::int32_t count)
{
    for (; mask != 0; mask &= mask - 1) {
        indices[count++] = static_cast<std::int32_t>(i0 + std::countr_zero(mask));
    }
    return count;
}

/// The channels from i0 on, one at a time (the tail after the last whole block).
std::int32_t listTail(const float* row, std::int64_t i0, std::int64_t n, std::int32_t* indices,
                      std::int32_t count)
{
    for (std::int64_t i = i0; i < n; ++i) {
        if ((std::bit_cast<std::uint32_t>(row[i]) & 0x7FFFFFFFU) != 0) {
            indices[count++] = static_cast<std::int32_t>(i);
        }
    }
    return count;
}

}  // namespace

namespace detail {

std::int32_t listNonZeroPortable(const float* row, std::int64_t n, std::int32_t* indices)
{
    std::int32_t count = 0;
    std::int64_t i0 = 0;
    for (; i0 + kBlock <= n; i0 += kBlock) {
        if (blockActive(row + i0)) {
            count = appendBits(blockMask(row + i0), i0, indices, count);
        }
    }
    return listTail(row, i0, n, indices, count);
}

#if defined(__SSE2__)
// A block of 64 channels is 16 vectors of 4: their OR, masked to the non-sign bits and compared
// with zero as integers, decides whether the block is quiet; an active block's mask is built
// from one movemask per vector (integer compares again, so denormals count under any MXCSR).
std::int32_t listNonZeroSse2(const float* row, std::int64_t n, std::int32_t* indices)
{
    const __m128i nonSign = _mm_set1_epi32(0x7FFFFFFF);
    const __m128i zero = _mm_setzero_si128();
    std::int32_t count = 0;
    std::int64_t i0 = 0;
    for (; i0 + kBlock <= n; i0 += kBlock) {
        __m128i v[16];
        __m128i any = zero;
        for (int j = 0; j < 16; ++j) {
            v[j] = _mm_and_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + i0 + 4 * j)), nonSign);
            any = _mm_or_si128(any, v[j]);
        }
        if (_mm_movemask_epi8(_mm_cmpeq_epi32(any, zero)) == 0xFFFF) {
            continue;
        }
        std::uint64_t mask = 0;
        for (int j = 0; j < 16; ++j) {
            const auto zeros = static_cast<unsigned>(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(v[j], zero))));
            mask |= static_cast<std::uint64_t>(~zeros & 0xFU) << (4 * j);
        }
        count = appendBits(mask, i0, indices, count);
    }
    return listTail(row, i0, n, indices, count);
}
#endif

#if defined(__AVX2__)
// The same with 8 vectors of 8 per block.
std::int32_t listNonZeroAvx2(const float* row, std::int64_t n, std::int32_t* indices)
{
    const __m256i nonSign = _mm256_set1_epi32(0x7FFFFFFF);
    const __m256i zero = _mm256_setzero_si256();
    std::int32_t count = 0;
    std::int64_t i0 = 0;
    for (; i0 + kBlock <= n; i0 += kBlock) {
        __m256i v[8];
        __m256i any = zero;
        for (int j = 0; j < 8; ++j) {
            v[j] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + i0 + 8 * j));
            any = _mm256_or_si256(any, v[j]);
        }
        if (_mm256_testz_si256(any, nonSign) != 0) {
            continue;
        }
        std::uint64_t mask = 0;
        for (int j = 0; j < 8; ++j) {
            const __m256i isZero = _mm256_cmpeq_epi32(_mm256_and_si256(v[j], nonSign), zero);
            const auto zeros = static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(isZero)));
            mask |= static_cast<std::uint64_t>(~zeros & 0xFFU) << (8 * j);
        }
        count = appendBits(mask, i0, indices, count);
    }
    return listTail(row, i0, n, indices, count);
}
#endif

#if defined(__AVX512F__)
// A block of 64 channels is 4 vectors of 16, each tested against the non-sign bits into a 16-bit
// mask; an active block's indices are compressed out of an index vector by each mask and stored
// with a store masked to their count, so nothing past the count is written and no branch depends
// on where the spikes fall.
std::int32_t listNonZeroAvx512(const float* row, std::int64_t n, std::int32_t* indices)
{
    const __m512i nonSign = _mm512_set1_epi32(0x7FFFFFFF);
    const __m512i lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i sixteen = _mm512_set1_epi32(16);
    std::int32_t count = 0;
    std::int64_t i0 = 0;
    for (; i0 + kBlock <= n; i0 += kBlock) {
        __mmask16 m[4];
        for (int j = 0; j < 4; ++j) {
            m[j] = _mm512_test_epi32_mask(_mm512_loadu_si512(row + i0 + 16 * j), nonSign);
        }
        if ((m[0] | m[1] | m[2] | m[3]) == 0) {
            continue;
        }
        __m512i index = _mm512_add_epi32(_mm512_set1_epi32(static_cast<std::int32_t>(i0)), lanes);
        for (int j = 0; j < 4; ++j) {
            const int c = std::popcount(static_cast<unsigned>(m[j]));
            _mm512_mask_storeu_epi32(indices + count, static_cast<__mmask16>((1U << c) - 1U),
                                     _mm512_maskz_compress_epi32(m[j], index));
            count += c;
            index = _mm512_add_epi32(index, sixteen);
        }
    }
    return listTail(row, i0, n, indices, count);
}
#endif

}  // namespace detail

std::int32_t listNonZero(const float* row, std::int64_t n, std::int32_t* indices)
{
#if defined(__AVX512F__)
    return detail::listNonZeroAvx512(row, n, indices);
#elif defined(__AVX2__)
    return detail::listNonZeroAvx2(row, n, indices);
#elif defined(__SSE2__)
    return detail::listNonZeroSse2(row, n, indices);
#else
    return detail::listNonZeroPortable(row, n, indices);
#endif
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
