// RunLoop: the one chunk loop by which anything advances a compiled plan over many steps.
//
// Three callers, one loop: Network::evolve() (runTo, no pacing, no check), `spikesim run` on an
// executor (runTo, optional real-time pacing, non-finite check) and the simulation worker
// (chunkSteps / deadline / advance between its commands, because it must stay responsive while
// it waits). Per chunk:
//
//     n      = min(maxChunkSteps, steps left, pacing chunk, steps that fit maxChunkSeconds of
//                  wall time at the measured time per step)                        [steps]
//     wait   until wall time >= anchorWall + (step + n - anchorStep) * dt / f  (paced only)
//     executor.advance(n, input rows, output rows); the caller reads the probes
//     executor.findNonFinite() (when checked)
//
// Real-time pacing: with factor f (simulated seconds per wall second) a chunk is sized for about
// 15 ms of wall time, and the loop never lets simulated time run ahead of f times the wall time
// since the anchor (the (wall time, step) at which running started or the speed or state last
// changed), so waiting does not drift. A loop that falls more than 250 ms behind re-anchors
// instead of racing to catch up. Results never depend on the chunking (executor contract).
// Thread: a RunLoop belongs to the thread that owns its executor.
#pragma once

#include "engine/runtime/backend.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>

namespace spike::engine {

/// How fast to run.
struct Speed {
    double factor = 0.0;  ///< simulated seconds per wall second; 0: as fast as possible

    /// As fast as possible.
    static Speed fastest() { return {}; }
    /// Real time times `f` (f = 1: real time; f = 0.1: ten times slower). f must be > 0.
    static Speed realTime(double f) { return {f}; }
    bool paced() const { return factor > 0.0; }
};

/// Options of a RunLoop.
struct RunLoopOptions {
    Speed speed;
    /// Longest wall time one chunk should take [s] (0: no limit). The worker sets 8 ms so that
    /// probe data reach the plots at 60 fps even when one step takes milliseconds.
    double maxChunkSeconds = 0.0;
    /// Look for NaN / infinity in the working states after every chunk (runTo stops there).
    bool checkFinite = false;
};

/// Host rows a runTo() reads and writes: (steps, inputWidth) input rows, or nullptr for zeros;
/// (steps, outputWidth) output rows, or nullptr. The widths are the root's sizeIn() / sizeOut().
struct RunRows {
    const float* input = nullptr;
    std::int64_t inputWidth = 0;
    float* output = nullptr;
    std::int64_t outputWidth = 0;
};

/// How a runTo() ended.
struct RunOutcome {
    std::int64_t steps = 0;               ///< steps advanced
    std::optional<NonFinite> nonFinite;   ///< set when a chunk produced one (then stopped early)
};

/// See the file comment.
class RunLoop {
public:
    using Clock = std::chrono::steady_clock;
    /// Called after each chunk with its first step and length; the executor's probeData() hold
    /// the chunk's rows.
    using ChunkDone = std::function<void(std::int64_t first, std::int64_t steps)>;

    explicit RunLoop(RunLoopOptions options = {});

    const RunLoopOptions& options() const { return m_options; }
    /// Changes the pacing from now on (re-anchors at `step`).
    void setSpeed(Speed speed, std::int64_t step);
    Speed speed() const { return m_options.speed; }
    /// Restarts the pacing schedule at the wall time now and `step`.
    void anchor(std::int64_t step);

    /// Steps of the next chunk (at least 1): see the file comment. `left`: steps to a target.
    std::int64_t chunkSteps(const Executor& executor, std::optional<std::int64_t> left) const;
    /// Paced only: when a chunk of `steps` starting at `step` may run, or nullopt when it may
    /// run now (re-anchors when the loop fell too far behind).
    std::optional<Clock::time_point> deadline(const Executor& executor, std::int64_t step,
                                              std::int64_t steps);
    /// Advances one chunk and updates the measured wall time per step. `input`: (steps, plan
    /// input size) rows or nullptr for zeros; `output`: (steps, plan output size) or nullptr.
    void advance(Executor& executor, std::int64_t steps, const float* input, float* output);

    /// Runs `steps` steps from step `first` on the calling thread, chunk after chunk, sleeping
    /// when paced; `rows` cover all `steps` and advance with the chunks. `done` runs after each
    /// chunk. Stops early only at a non-finite state value when checkFinite is set.
    RunOutcome runTo(Executor& executor, std::int64_t first, std::int64_t steps,
                     const RunRows& rows = {}, const ChunkDone& done = {});

private:
    RunLoopOptions m_options;
    Clock::time_point m_anchorWall = Clock::now();
    std::int64_t m_anchorStep = 0;
    double m_stepSeconds = 0.0;  ///< [s] smoothed wall time per step (0 before the first chunk)
};

}  // namespace spike::engine
