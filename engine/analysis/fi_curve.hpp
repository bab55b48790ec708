// f-I curve: the firing rate of a spiking neuron population against a constant input current.
//
// fiCurve() copies the module (engine::cloneModule, States back to rest), drives every channel of
// the input port drivenInputPort() names ("in"; CUBALIF's "exc"; an equation model's "I") with
// one constant value per step, and runs the
// `count` currents of [start, stop] as the batch dimension of one evolve() call ((B, T, Nin);
// NeuronLayer starts every batch element from the same stored state, so element k is exactly a
// separate run at current k). The currents are split into about ten batches (fewer when there
// are fewer currents), each of at most kFiBatchFloats output values and run on a fresh copy,
// which changes no number and gives progress reports and a cancel point between batches.
//
// Per current, over the measured steps (after the warm-up):
//     rate_hz           = spikes / (neurons * steps * dt)                        (population mean)
//     first_isi_rate_hz = mean over neurons of 1 / (t2 - t1) for the first two spikes, 0 for a
//                         neuron with fewer than two; a first spiking step carrying n >= 2 spikes
//                         (LIF's max_spikes_per_dt) counts as an interval of dt / n
// and the rheobase: the smallest current with at least one spike in the measured steps, refined
// between the last silent and the first spiking grid point by two batched rounds of 15 interior
// points (a bracket 1/256 of the grid spacing wide; the spiking end is reported).
//
// The analytic curve, when the model has one and its parameters are uniform over the population
// (docs/analysis.md derives them):
//     LIF        exact discrete: the module's own recurrence for constant input (isyn_s <- (isyn_s
//                + x) beta_s, vmem <- vmem alpha + sum_s isyn_s + bias, subtractive reset) iterated
//                in double from rest over the same steps. Exact up to float32 rounding; no closed
//                form exists (the rate is the rotation number of a contracting circle map, a
//                devil's staircase). Not offered with noise or recurrence.
//     LIFRefrac  continuous: 1 / (t_ref + tau_mem ln((V - v_reset) / (V - v_th))) with
//                V = v_leak + x / (dt tau_syn_inv) (the synaptic current's fixed point),
//                t_ref = rho_reset dt; 0 for V <= v_th. Approximate: Euler steps, whole steps.
//     CUBALIF    continuous likewise with V = v_rest + x tau_exc / dt, t_ref = refractory_time.
//
// Engine only, no Qt. Thread: any; the argument is only read, so it may be a copy the caller
// owns on a worker thread (the GUI's document tree must be copied first).
#pragma once

#include "engine/core/module.hpp"
#include "engine/tensor/error.hpp"

#include <atomic>
#include <functional>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace spike::engine {

/// Largest current count one f-I curve accepts.
inline constexpr std::int64_t kFiMaxCount = 100000;
/// Output values (batch x steps x neurons) one evolve() call of fiCurve() may produce.
inline constexpr std::int64_t kFiBatchFloats = std::int64_t{1} << 24;

/// What fiCurve() sweeps.
struct FiOptions {
    double start = 0.0;                  ///< first current [the input port's units per step]
    double stop = 1.0;                   ///< last current, >= start
    std::int64_t count = 11;             ///< currents, evenly spaced, 1 .. kFiMaxCount
    std::optional<std::int64_t> steps;   ///< measured steps, >= 1; default round(1 s / dt)
    std::int64_t warmupSteps = 0;        ///< steps run first and not counted, >= 0
    bool refineRheobase = true;          ///< bisect between the grid points (extra batches)
    /// Set from any thread to stop between two batches: fiCurve() then throws FiCancelled.
    const std::atomic<bool>* cancel = nullptr;
    /// Called on fiCurve()'s thread after each batch of the sweep with the fraction of the
    /// currents done, in (0, 1] (the rheobase refinement comes after 1).
    std::function<void(double)> progress;
};

/// What fiCurve() throws when FiOptions::cancel was set.
class FiCancelled : public Error {
public:
    FiCancelled() : Error("f-I curve: cancelled") {}
};

/// The result of fiCurve(): one entry per current in each vector.
struct FiCurve {
    std::vector<double> current;         ///< the input values driven
    std::vector<double> rateHz;          ///< mean rate [Hz]
    std::vector<double> firstIsiRateHz;  ///< first-ISI (onset) rate [Hz]
    std::vector<double> analyticHz;      ///< analytic rate [Hz]; empty when there is none
    std::string analyticKind;            ///< "exact discrete", "continuous approximation" or ""
    std::string analyticNote;            ///< why there is no analytic curve, when there is none
    std::optional<double> rheobase;      ///< nullopt when no current of the range spikes
    bool rheobaseRefined = false;        ///< bisected below the grid (else a grid point)
    std::string port;                    ///< the input port driven ("in", "exc", "I", ...)
    std::string portUnits;               ///< its declared units (inputPortUnits: "volt"), or ""
    std::int64_t neurons = 0;            ///< population size
    std::int64_t steps = 0;              ///< measured steps per current
    std::int64_t warmupSteps = 0;
    double dt = 0.0;                     ///< time step [s]
};

/// The f-I curve of `neuron` (a module with an input port (driven_port.hpp) and a "spikes" output):
/// see the file comment. `neuron` is not changed. Throws Error with a message naming the bad
/// option (count 0 or over kFiMaxCount, start > stop, a non-finite bound, steps 0, a negative
/// warm-up, a run too large) or the module's missing port.
FiCurve fiCurve(const Module& neuron, const FiOptions& options);

/// The current at which the steady state reaches threshold (infinite-time rheobase) for LIF
/// ((1 - alpha) threshold - bias)(1 - beta) / (n_syn beta)), LIFRefrac ((v_th - v_leak) dt
/// tau_syn_inv) and CUBALIF ((v_th - v_rest) dt / tau_exc), from neuron 0's parameters; nullopt
/// for other modules.
std::optional<double> steadyStateRheobase(const Module& neuron);

/// A range that shows the curve's shape: [0, 4 x] around steadyStateRheobase x > 0, [2 x, -2 x]
/// for x < 0 (a neuron that fires without input); `count` 41. A spiking model without a formula
/// (the equation models, NIR's neurons) is probed instead: 115 copies of neuron 0 in one
/// population run 0.5 s (at most 20000 steps) at 0 and at +-10^(e/4) for e = -40..16, and x is
/// the smallest positive current that fires (or, when it fires at 0, minus the smallest magnitude
/// that silences it).
/// [0, 1] when neither gives an x.
FiOptions suggestedFiOptions(const Module& neuron);

/// Parses "START:STOP:COUNT" (the CLI's --current) into `options`; throws Error naming the part
/// that is not a number.
void parseCurrentRange(const std::string& text, FiOptions& options);

}  // namespace spike::engine
