// Backend divergence: the same model run on two executors in lock-step, compared after every step.
//
// backendDivergence() clones the model twice (engine::cloneModule), applies the optional
// perturbation to the second copy (side B) only, and builds one executor per copy through
// makeExecutor() - the code a run in the GUI or `spikesim run` uses - on each side's backend
// (CPU with its thread count, or CUDA). Both advance one step at a time with the same input (a
// constant value on every input channel, 0 by default); after each step both store their working
// States into their trees and, for every State attribute of every module ("path.state", "E.v"),
// the largest absolute difference between the two sides is recorded:
//     maxAbs[s][t] = max_i |a_i - b_i|    over the elements i of state s after step t
// with two non-finite values that are equal (both NaN, or the same infinity) counting 0 and a
// non-finite value against a different one counting +infinity. Every spiking module's output row
// (probe "out") is compared too; the first step at which an element differs is reported with the
// module path and the neuron (output channel) index.
//
// One step per advance() is the price of exact per-step states; every executor gives results
// independent of the chunk size (docs/runtime.md), so nothing is lost by it. The comparison loop
// itself allocates nothing per step (it reads the stored tensors in place); what the executors'
// storeStates() does is theirs.
//
// Engine only, no Qt. Thread: any; the model is only read, so a GUI must pass its own copy when
// the document may change meanwhile. Progress and cancellation are reported / checked after
// every step.
#pragma once

#include "engine/core/module.hpp"
#include "engine/runtime/backend.hpp"
#include "engine/tensor/error.hpp"

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace spike::engine {

/// Most steps one divergence run accepts (the series hold one value per state per step).
inline constexpr std::int64_t kDivergenceMaxSteps = 1000000;

/// One side of the comparison: a backend and, on the CPU, its thread count.
struct DivergenceSide {
    BackendKind backend = BackendKind::Cpu;  ///< Cpu or Cuda (Auto is refused: name the side)
    int threads = 1;                         ///< CPU threads, >= 1 (ExecutorOptions::threads)

    /// "cpu", "cpu:4" (threads > 1) or "cuda".
    std::string label() const;
};

/// Parses "cpu", "cpu:THREADS" or "cuda" (the CLI's --a / --b); throws Error naming the text and
/// the accepted forms otherwise.
DivergenceSide parseDivergenceSide(const std::string& text);

/// What backendDivergence() runs.
struct DivergenceOptions {
    std::int64_t steps = 1000;  ///< steps to run, 1 .. kDivergenceMaxSteps
    DivergenceSide a;           ///< side A
    DivergenceSide b;           ///< side B
    double input = 0.0;         ///< value on every input channel of the root, every step
    /// Changes applied to side B's copy only (Module::setAttributes), before its executor is
    /// built: a tiny change shows how far it grows.
    NestedAttributes perturbB;
    /// CPU: ExecutorOptions::threadMinWork on both sides (tests lower it to force splits).
    std::int64_t threadMinWork = ExecutorOptions{}.threadMinWork;
    /// Set from any thread to stop after the current step: backendDivergence() then throws
    /// DivergenceCancelled.
    const std::atomic<bool>* cancel = nullptr;
    /// Called on backendDivergence()'s thread about every 1 % of the steps with the fraction
    /// done, in (0, 1].
    std::function<void(double)> progress;
};

/// What backendDivergence() throws when DivergenceOptions::cancel was set.
class DivergenceCancelled : public Error {
public:
    DivergenceCancelled() : Error("backend divergence: cancelled") {}
};

/// Where spikes first differed.
struct SpikeDifference {
    std::int64_t step = 0;   ///< 0-based step index
    std::string path;        ///< spiking module's path ("" for the root)
    std::int64_t neuron = 0; ///< output channel
    float a = 0.0F;          ///< side A's spike count there
    float b = 0.0F;          ///< side B's
};

/// The result of backendDivergence().
struct Divergence {
    std::vector<std::string> states;         ///< "path.state" ("vmem" for a root's own state)
    std::vector<std::vector<double>> maxAbs; ///< per state: max |a - b| after each step
    std::vector<double> overallMax;          ///< per state: max over the steps
    std::optional<SpikeDifference> firstSpikeDifference;  ///< nullopt: spikes never differed
    std::vector<std::string> spikingPaths;   ///< the spiking modules compared
    std::int64_t steps = 0;                  ///< steps run
    std::string sideA;                       ///< DivergenceSide::label() of each side
    std::string sideB;
    double dt = 0.0;                         ///< [s] the model's time step
};

/// Runs `model` on both sides in lock-step; see the file comment. `model` is not changed.
/// Throws Error when steps is < 1 or over kDivergenceMaxSteps, a side's backend is not available
/// here (naming the side and the reason) or is Auto, a CPU thread count is < 1, the
/// perturbation is refused (the module's message), or the model has no State attribute.
Divergence backendDivergence(const Module& model, const DivergenceOptions& options);

/// "PATH.NAME=VALUE" (the CLI's --set) as a one-entry change: the value is a number, set on
/// every element (a per-neuron attribute gets it everywhere) or, with "PATH.NAME[i]=VALUE", on
/// element i only of the attribute's current value. Throws Error naming the part at fault (no
/// '=', a value that is not a number, an unknown module or attribute, an index out of range).
NestedAttributes parsePerturbation(const Module& model, const std::string& text);

}  // namespace spike::engine
