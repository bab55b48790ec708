// float32 values as the decimals a person typed: 0.001F is stored as 0.0010000000474974513, and
// widening it to double keeps that error (a time axis of 10^7 steps of dt = 1 ms then reads
// 10,000,000.47 ms). shortestDecimal() gives the double nearest to the shortest decimal that
// reads back as the same float (0.001), which is what the value means. Locale-independent.
#pragma once

#include <charconv>
#include <cmath>

namespace spike::engine {

/// The double nearest to the shortest decimal representation of `f` (see the file comment);
/// NaN and infinities pass through.
inline double shortestDecimal(float f)
{
    if (!std::isfinite(f)) {
        return static_cast<double>(f);
    }
    char buffer[32];
    const auto written = std::to_chars(buffer, buffer + sizeof buffer, f);
    double value = static_cast<double>(f);
    std::from_chars(buffer, written.ptr, value);
    return value;
}

}  // namespace spike::engine
