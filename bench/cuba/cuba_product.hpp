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
#include "bench/headless_timing.hpp"
#include "engine/io/model_io.hpp"
#include "engine/runtime/headless_run.hpp"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace spike::bench::cuba {

/// One product-path measurement (the best run); buildSeconds is loadModel(): parsing and
/// building, synapse draw included.
using ProductResult = spike::bench::HeadlessTiming;

/// Loads `modelPath` and runs it `steps` steps on `kind`, `repeats` times (`spikeLists` false:
/// the executor without spike lists, as cuba_bench --no-spike-lists). Throws engine::Error (bad
/// file, unusable backend, a NaN during the run).
inline ProductResult timeProductPath(const std::string& modelPath, engine::BackendKind kind,
                                     std::int64_t steps, int repeats, bool spikeLists = true)
{
    engine::HeadlessRunOptions options;
    options.backend = kind;
    options.spikeLists = spikeLists;
    options.threads = 1;  // one core, as the engine-only path and Brian2 run
    return spike::bench::timeHeadless([&modelPath] { return engine::loadModel(modelPath); }, options, steps,
                                      repeats, modelPath);
}

}  // namespace spike::bench::cuba
