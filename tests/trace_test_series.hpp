// Synthetic recorded series for the trace-plot and plot-pane tests: (T, N) samples made by a
// function of (step, trace), 1 ms steps from t = 0, in mV.
#pragma once

#include "engine/core/recording.hpp"

#include <cmath>
#include <cstdint>

namespace spike::test {

/// A (steps, traces) series whose sample (t, n) is value(t, n); dt 1 ms, tStart 0, units mV.
template <typename F>
engine::TimeSeries makeSeries(std::int64_t steps, std::int64_t traces, F value, double tStartS = 0.0)
{
    engine::TimeSeries s;
    s.data = engine::Tensor(engine::Shape{steps, traces});
    float* d = s.data.data();
    for (std::int64_t t = 0; t < steps; ++t) {
        for (std::int64_t n = 0; n < traces; ++n) {
            d[t * traces + n] = static_cast<float>(value(t, n));
        }
    }
    s.dt = 1e-3;
    s.tStart = tStartS;
    s.units = "mV";
    return s;
}

/// Membrane-like sawtooth: trace n charges from 0 to 1 at its own rate (one cycle in 100 to
/// 330 steps) from its own phase, and resets.
inline double sawtooth(std::int64_t t, std::int64_t n)
{
    const double k = static_cast<double>(n);
    const double rate = 0.003 + 0.007 * std::fmod(k * 0.7548776662, 1.0);
    const double phase = std::fmod(k * 0.6180339887, 1.0);
    return std::fmod(static_cast<double>(t) * rate + phase, 1.0);
}

/// Membrane-like charging curve: trace n relaxes towards 1.2 at its own rate, fires at 1 and
/// resets to 0, so it lingers below threshold (a density with structure).
inline double charging(std::int64_t t, std::int64_t n)
{
    const double k = static_cast<double>(n);
    const double toThreshold = std::log(6.0);  // 1.2 (1 - e^-x) reaches 1 at x = ln 6
    const double rate = 0.01 + 0.03 * std::fmod(k * 0.7548776662, 1.0);
    const double x = std::fmod(static_cast<double>(t) * rate + toThreshold * std::fmod(k * 0.6180339887, 1.0), toThreshold);
    return 1.2 * (1.0 - std::exp(-x));
}

}  // namespace spike::test
