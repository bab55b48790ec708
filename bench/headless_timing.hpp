// headless_timing: how the benchmarks time the product path, the code `spikesim run` runs
// (engine::HeadlessRun: chunks of 32 steps, spike counters, the NaN check per chunk): a fresh
// tree per repeat, the best run kept. bench/cuba (the CUBA model file) and bench/equations (the
// equation models) share it. Header-only; thread: main's.
#pragma once

#include "bench/bench_common.hpp"
#include "engine/core/module.hpp"
#include "engine/runtime/headless_run.hpp"

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>

namespace spike::bench {

/// Builds a fresh model tree (throws engine::Error on failure).
using Factory = std::function<std::unique_ptr<engine::Module>()>;

/// The best of a few product-path runs.
struct HeadlessTiming {
    double buildSeconds = 0.0;     ///< the factory: building the tree, drawing synapses
    double executorSeconds = 0.0;  ///< HeadlessRun construction (makeExecutor)
    double runSeconds = std::numeric_limits<double>::infinity();  ///< HeadlessRun::run()
    double cpuShare = 1.0;         ///< thread CPU time / wall time of the best run
    double spikes = 0.0;
    std::int64_t neurons = 0;
    std::int64_t chunk = 0;
    std::string backend;
    std::optional<std::string> nonReproducible;  ///< set when two runs counted differently
};

/// The product path `repeats` times: build the tree with `factory` (timed as build), construct
/// engine::HeadlessRun with `options` (timed as executor) and run `steps` steps (timed: what
/// `spikesim run` prints as wall), keeping the fastest run; a different spike count between
/// repeats is reported. Throws engine::Error (bad model, unusable backend, a NaN during the run;
/// `what` names the model in that message).
inline HeadlessTiming timeHeadless(const Factory& factory, engine::HeadlessRunOptions options,
                                   std::int64_t steps, int repeats, const std::string& what = {})
{
    HeadlessTiming best;
    std::optional<double> first;
    for (int r = 0; r < repeats; ++r) {
        auto start = Clock::now();
        std::unique_ptr<engine::Module> root = factory();
        const double build = secondsSince(start);
        options.steps = steps;
        start = Clock::now();
        engine::HeadlessRun run(*root, options);
        const double executor = secondsSince(start);
        const double cpu0 = threadCpuSeconds();
        const engine::HeadlessRunResult result = run.run(nullptr, steps);
        const double cpu = threadCpuSeconds() - cpu0;
        if (result.nonFinite) {
            throw engine::Error((what.empty() ? std::string() : what + ": ") + "step " + std::to_string(result.steps) + ": " +
                                result.nonFinite->path + "." + result.nonFinite->attribute +
                                " became non-finite");
        }
        if (first && *first != result.spikes) {
            best.nonReproducible = "run " + std::to_string(r) + " counted " +
                                   std::to_string(result.spikes) + " spikes, run 0 " +
                                   std::to_string(*first);
        }
        first = result.spikes;
        if (result.seconds < best.runSeconds) {
            best.buildSeconds = build;
            best.executorSeconds = executor;
            best.runSeconds = result.seconds;
            best.cpuShare = cpu / result.seconds;
            best.spikes = result.spikes;
            best.neurons = result.neurons;
            best.chunk = run.chunkSteps();
            best.backend = run.executor().backendName();
        }
    }
    return best;
}

}  // namespace spike::bench
