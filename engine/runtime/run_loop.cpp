// RunLoop: chunk sizing, real-time pacing, advancing and the non-finite check. See run_loop.hpp.
#include "engine/runtime/run_loop.hpp"

#include <algorithm>
#include <cmath>
#include <thread>

namespace spike::engine {

namespace {

/// Wall time one paced chunk aims for [s].
constexpr double kPacedChunkSeconds = 0.015;
/// Lag behind the pacing schedule after which the schedule restarts from now [s].
constexpr double kMaxPacingLag = 0.25;

}  // namespace

RunLoop::RunLoop(RunLoopOptions options) : m_options(options)
{
    if (!std::isfinite(m_options.speed.factor) || m_options.speed.factor < 0.0) {
        throw Error("speed factor " + std::to_string(m_options.speed.factor) +
                    " is invalid; expected a finite value >= 0 (0: as fast as possible)");
    }
}

void RunLoop::setSpeed(Speed speed, std::int64_t step)
{
    m_options.speed = speed;
    anchor(step);
}

void RunLoop::anchor(std::int64_t step)
{
    m_anchorWall = Clock::now();
    m_anchorStep = step;
}

std::int64_t RunLoop::chunkSteps(const Executor& executor, std::optional<std::int64_t> left) const
{
    std::int64_t steps = executor.maxChunkSteps();
    if (left) {
        steps = std::min(steps, *left);
    }
    if (m_options.maxChunkSeconds > 0.0 && m_stepSeconds > 0.0) {
        // Slow steps: fewer per chunk.
        const double fit = std::floor(m_options.maxChunkSeconds / m_stepSeconds);
        steps = std::min(steps, static_cast<std::int64_t>(std::clamp(fit, 1.0, static_cast<double>(steps))));
    }
    if (m_options.speed.paced()) {
        const double wanted =
            std::ceil(m_options.speed.factor * kPacedChunkSeconds / executor.plan().dt);
        steps = std::min(steps, static_cast<std::int64_t>(
                                    std::clamp(wanted, 1.0, static_cast<double>(steps))));
    }
    return std::max<std::int64_t>(steps, 1);
}

std::optional<RunLoop::Clock::time_point> RunLoop::deadline(const Executor& executor,
                                                           std::int64_t step, std::int64_t steps)
{
    if (!m_options.speed.paced()) {
        return std::nullopt;
    }
    // The chunk may end once wall time since the anchor covers its simulated time / f.
    const auto due = [&] {
        const double wall = static_cast<double>(step + steps - m_anchorStep) *
                            executor.plan().dt / m_options.speed.factor;
        return m_anchorWall +
               std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(wall));
    };
    const Clock::time_point now = Clock::now();
    Clock::time_point at = due();
    if (now >= at) {
        if (now - at <= std::chrono::duration<double>(kMaxPacingLag)) {
            return std::nullopt;
        }
        anchor(step);
        at = due();
    }
    return at;
}

void RunLoop::advance(Executor& executor, std::int64_t steps, const float* input, float* output)
{
    const auto started = Clock::now();
    executor.advance(steps, input, output);
    // Wall time per step, smoothed over chunks, sizes the next chunks (chunkSteps()).
    const double perStep =
        std::chrono::duration<double>(Clock::now() - started).count() / static_cast<double>(steps);
    m_stepSeconds = m_stepSeconds > 0.0 ? 0.7 * m_stepSeconds + 0.3 * perStep : perStep;
}

RunOutcome RunLoop::runTo(Executor& executor, std::int64_t first, std::int64_t steps,
                          const RunRows& rows, const ChunkDone& done)
{
    const std::int64_t nIn = rows.inputWidth;
    const std::int64_t nOut = rows.outputWidth;
    RunOutcome outcome;
    anchor(first);
    while (outcome.steps < steps) {
        const std::int64_t n = chunkSteps(executor, steps - outcome.steps);
        if (const auto at = deadline(executor, first + outcome.steps, n)) {
            std::this_thread::sleep_until(*at);
        }
        const std::int64_t t0 = outcome.steps;
        advance(executor, n, rows.input != nullptr && nIn > 0 ? rows.input + t0 * nIn : nullptr,
                rows.output != nullptr && nOut > 0 ? rows.output + t0 * nOut : nullptr);
        outcome.steps += n;
        if (done) {
            done(first + t0, n);
        }
        if (m_options.checkFinite) {
            if (std::optional<NonFinite> bad = executor.findNonFinite()) {
                outcome.nonFinite = std::move(bad);
                break;
            }
        }
    }
    return outcome;
}

}  // namespace spike::engine
