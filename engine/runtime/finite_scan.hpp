// finite_scan: finding the first NaN or infinity in a float array at memory speed, for the
// executors' per-chunk check of the working states (Executor::findNonFinite()).
//
// A float is non-finite exactly when its eight exponent bits are all set. The scan takes the
// maximum of (bits & exponent mask) over blocks of 256 values, a branch-free integer loop the
// compiler vectorises (and which no floating-point flag can optimise away), and looks at single
// values only in a block whose maximum says one is there. The index found is the same as that of
// a plain loop over !std::isfinite(). firstNonFiniteIn() and firstNonFiniteState() apply it to
// a runner's working arrays and to a module's State attributes (finite_scan.cpp), for both
// executors. Stateless; any thread (on data the caller's thread owns).
#pragma once

#include "engine/core/module.hpp"
#include "engine/core/node_runner.hpp"
#include "engine/runtime/backend.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <optional>
#include <vector>

namespace spike::engine {

/// Index of the first NaN or infinity in data[0, n), or -1 when every value is finite.
inline std::int64_t firstNonFinite(const float* data, std::int64_t n)
{
    constexpr std::uint32_t kExponent = 0x7F800000U;
    constexpr std::int64_t kBlock = 256;
    for (std::int64_t begin = 0; begin < n; begin += kBlock) {
        const std::int64_t end = std::min(n, begin + kBlock);
        std::uint32_t most = 0;
        for (std::int64_t i = begin; i < end; ++i) {
            most = std::max(most, std::bit_cast<std::uint32_t>(data[i]) & kExponent);
        }
        if (most != kExponent) {
            continue;
        }
        for (std::int64_t i = begin; i < end; ++i) {
            if ((std::bit_cast<std::uint32_t>(data[i]) & kExponent) == kExponent) {
                return i;
            }
        }
    }
    return -1;
}

/// The first NaN or infinity of the first array that has one (attribute, index, value; the path
/// left empty for the caller), or nothing.
std::optional<NonFinite> firstNonFiniteIn(const std::vector<StateArray>& arrays);
/// The same over `module`'s own State attributes, in registry order.
std::optional<NonFinite> firstNonFiniteState(const Module& module);

}  // namespace spike::engine
