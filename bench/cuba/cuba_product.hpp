// cuba_product: the CUBA network run the way users run it, for cuba_bench's "product path" row.
//
// The model file (default bench/cuba/cuba_network_4000.json, written by
// `cuba_bench --write-model` from cuba_network.hpp's network with seed 1, so the same synapses and
// initial v) is loaded with engine::loadModel() and run through engine::HeadlessRun, the code
// `spikesim run MODEL --steps N` runs (app/spikesim_executor_run.cpp): its chunk size (32 steps),
// its spike counters, its NaN check after every chunk. Timed: HeadlessRun::run() (what spikesim
// prints as "wall"); apart: loading the file and building the executor. Best of `repeats` fresh
// loads.
//
// Header-only, one translation unit includes it. Owns nothing global; thread: main's.
#pragma once

#include "bench/bench_common.hpp"
#include "engine/io/model_io.hpp"
#include "engine/runtime/headless_run.hpp"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace spike::bench::cuba {

/// One product-path measurement (the best run).
struct ProductResult {
    double loadSeconds = 0.0;      ///< loadModel(): parsing and building, synapse draw included
    double executorSeconds = 0.0;  ///< HeadlessRun construction (makeExecutor)
    double runSeconds = std::numeric_limits<double>::infinity();  ///< HeadlessRun::run()
    double cpuShare = 1.0;         ///< thread CPU time / wall time of the best run
    double spikes = 0.0;
    std::int64_t neurons = 0;
    std::int64_t chunk = 0;
    std::string backend;
    std::optional<std::string> nonReproducible;  ///< set when two runs counted differently
};

/// Loads `modelPath` and runs it `steps` steps on `kind`, `repeats` times (`spikeLists` false:
/// the executor without spike lists, as cuba_bench --no-spike-lists). Throws engine::Error (bad
/// file, unusable backend, a NaN during the run).
inline ProductResult timeProductPath(const std::string& modelPath, engine::BackendKind kind,
                                     std::int64_t steps, int repeats, bool spikeLists = true)
{
    ProductResult best;
    std::optional<double> first;
    for (int r = 0; r < repeats; ++r) {
        auto start = Clock::now();
        auto root = engine::loadModel(modelPath);
        const double load = secondsSince(start);
        engine::HeadlessRunOptions options;
        options.backend = kind;
        options.steps = steps;
        options.spikeLists = spikeLists;
        start = Clock::now();
        engine::HeadlessRun run(*root, options);
        const double executor = secondsSince(start);
        const double cpu0 = threadCpuSeconds();
        const engine::HeadlessRunResult result = run.run(nullptr, steps);
        const double cpu = threadCpuSeconds() - cpu0;
        if (result.nonFinite) {
            throw engine::Error(modelPath + ": step " + std::to_string(result.steps) + ": " +
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
            best.loadSeconds = load;
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

}  // namespace spike::bench::cuba
