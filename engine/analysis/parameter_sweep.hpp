// Parameter sweep: a measure of one spiking neuron population (rate, CV, spike count, peak of a
// state) over a grid of one or two of its parameters, driven by a constant input as fiCurve
// drives it (every channel of the input port drivenInputPort() names: "in", CUBALIF's "exc", an
// equation model's "I"; one value per step).
//
// parameterSweep() never changes the module it is given. A grid point's value is exactly what a
// separate run of a copy of the module, with that point's parameter values set and the same
// input, measures (tests/test_parameter_sweep.cpp compares bit for bit). Every copy starts at
// rest (cloneModule, States reset, as fiCurve's copies).
//
// For speed the grid runs as one wide population where it can: a copy with neurons x points
// neurons whose per-neuron parameters hold each point's values in its block of neurons, run
// once. The neurons of these element-wise models never interact and read only their own entry of
// each per-neuron parameter, so each block computes, operation for operation, what the separate
// copy computes. The wide copy is built at the larger size through the type's size setting
// (module_factory.hpp) with every settable attribute of the original tiled over the blocks.
// One copy per point runs instead (same numbers, slower) when a swept parameter cannot be per
// neuron, or when the neurons could tell the blocks apart: recurrence (LIF with has_rec, any
// matrix parameter), one random stream for all neurons (LIF with noise_std > 0), or a type not
// known to be element-wise (equation-defined populations, containers).
//
// The points are split into about ten chunks (fewer for small grids) of at most
// kSweepChunkFloats values each, which changes no number and gives progress and a cancel point
// between chunks. Each copy steps through its runner (node_runner.hpp: what evolve() runs) in
// short slices with cache-sized buffers, allocation-free per step.
//
// Measures per grid point, over the measured steps (after the warm-up), over the point's neurons:
//     rate    mean firing rate [Hz] = spikes / (neurons * steps * dt)
//     cv      mean over the neurons with >= 2 intervals of their ISI coefficient of variation
//             (spike_statistics.hpp); NaN when no neuron has two intervals
//     spikes  all spikes of the point's neurons (a count)
//     peak    the largest value of the recordable state `state` (default: the membrane,
//             Role::Membrane) over the measured steps and the point's neurons [its units]
// rate uses fiCurve's expression, spikes / (neurons * (steps * dt)), so a point's rate equals
// fiCurve's rate of that point's copy at the same current bit for bit.
//
// Engine only, no Qt. Thread: any; the argument is only read, so it may be a copy the caller
// owns on a worker thread.
#pragma once

#include "engine/core/module.hpp"
#include "engine/tensor/error.hpp"

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace spike::engine {

/// Most grid points (the product of the axes' counts) one sweep accepts.
inline constexpr std::int64_t kSweepMaxPoints = 100000;
/// Values (steps x channels, twice that for peak) one chunk of parameterSweep() may produce: what
/// bounds a chunk's time between progress reports and, for cv, the spike rows it keeps.
inline constexpr std::int64_t kSweepChunkFloats = std::int64_t{1} << 24;

/// One swept parameter: `count` values evenly spaced over [start, stop], exactly the doubles
/// numpy.linspace(start, stop, count) gives (start alone when count is 1; start > stop sweeps
/// downwards); each is rounded to float32 when set, as every attribute value is.
struct SweepAxis {
    std::string attribute;  ///< a Parameter of the module (sweepableAttributes())
    double start = 0.0;
    double stop = 1.0;
    std::int64_t count = 11;  ///< 1 .. kSweepMaxPoints
};

/// What parameterSweep() runs and measures.
struct SweepOptions {
    std::vector<SweepAxis> axes;         ///< one or two, different attributes
    std::string measure = "rate";        ///< one of sweepMeasures()
    std::string state;                   ///< for "peak": a recordable state; "" = the membrane
                                         ///< (ignored by the other measures)
    double current = 0.0;                ///< constant input per step on every input channel
    std::optional<std::int64_t> steps;   ///< measured steps, >= 1; default round(1 s / dt)
    std::int64_t warmupSteps = 0;        ///< steps run first and not measured, >= 0
    /// Set from any thread to stop between two chunks: parameterSweep() then throws
    /// SweepCancelled.
    const std::atomic<bool>* cancel = nullptr;
    /// Called on parameterSweep()'s thread after each chunk with the fraction done, in (0, 1].
    std::function<void(double)> progress;
};

/// What parameterSweep() throws when SweepOptions::cancel was set.
class SweepCancelled : public Error {
public:
    SweepCancelled() : Error("parameter sweep: cancelled") {}
};

/// The result of parameterSweep().
struct SweepResult {
    std::vector<SweepAxis> axes;      ///< as given
    std::vector<double> x;            ///< the first axis' values (axes[0].count)
    std::vector<double> y;            ///< the second axis' values; empty for one axis
    /// The measure at every point, x-major: values[i * max(1, y.size()) + j] at (x[i], y[j]).
    std::vector<double> values;
    std::string measure;              ///< as given
    std::string unit;                 ///< "Hz", "" (cv, spikes) or the state's units (peak)
    std::string state;                ///< the state "peak" read ("" for other measures)
    std::string port;                 ///< the input port driven ("in", "exc", "I", ...)
    std::int64_t neurons = 0;         ///< the module's population size (per grid point)
    std::int64_t steps = 0;           ///< measured steps
    std::int64_t warmupSteps = 0;
    double dt = 0.0;                  ///< time step [s]
    bool widePopulation = false;      ///< ran as one wide population (else one copy per point)
};

/// The measures parameterSweep() knows: "rate", "cv", "spikes", "peak".
const std::vector<std::string>& sweepMeasures();

/// The attributes of `neuron` a sweep may vary: its Parameters (not States or
/// SimulationParameters, not derived ones, not matrices such as w_rec) whose value is one
/// number or one per neuron, in registration order.
std::vector<std::string> sweepableAttributes(const Module& neuron);

/// The sweep of `neuron` (a module with an input port (driven_port.hpp) and a "spikes" output): see
/// the file comment. Throws Error, one line starting "parameter sweep: ", naming the bad option:
/// no axis or more than two, the same attribute twice, an attribute the module lacks or that
/// cannot vary (naming the sweepable ones), a count of 0 or a grid over kSweepMaxPoints (before
/// anything is allocated), a non-finite bound or one outside float32's range, a value the
/// attribute refuses (its own message, with the grid point), an unknown measure or state, steps
/// 0, a negative warm-up, a non-finite current, more than 10^8 step-channels per point, more than
/// 5 x 10^7 spikes in one point for cv; or the module's missing port.
SweepResult parameterSweep(const Module& neuron, const SweepOptions& options);

/// Parses "NAME=START:STOP:COUNT" (the CLI's --param) into `axis`; throws Error naming the part
/// that is missing or not a number.
void parseSweepAxis(const std::string& text, SweepAxis& axis);

}  // namespace spike::engine
