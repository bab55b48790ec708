// equations_run: how bench/equations runs a SpikeStudio model and what it measures.
//
//   timeHeadless()      the product path: build the tree (a factory, timed as setup), then
//                       engine::HeadlessRun on the named backend (makeExecutor, timed as setup)
//                       and HeadlessRun::run() over all steps (timed: what `spikesim run` prints
//                       as wall), counting every population's spikes. Best of `repeats` fresh
//                       builds; a different spike count between repeats is reported.
//   populationSpikes()  untimed: the same tree run once more with one spike probe per named
//                       population, counted from the executor's spike lists (or dense rows), for
//                       the per-population rates the table prints.
//
// Header-only, one translation unit includes it. Owns nothing global; thread: main's.
#pragma once

#include "bench/bench_common.hpp"
#include "bench/headless_timing.hpp"
#include "engine/core/module.hpp"
#include "engine/runtime/backend.hpp"
#include "engine/runtime/headless_run.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace spike::bench::equations {

using Factory = spike::bench::Factory;
using Timing = spike::bench::HeadlessTiming;

/// See the file comment. Throws engine::Error (bad model, backend, a NaN during the run).
inline Timing timeHeadless(const Factory& factory, engine::BackendKind kind, std::int64_t steps,
                           int repeats)
{
    engine::HeadlessRunOptions options;
    options.backend = kind;
    options.threads = 1;  // one core, as the Brian2 side runs
    return spike::bench::timeHeadless(factory, options, steps, repeats);
}

/// Spikes of each of `populations` (node names of the root network) over `steps` steps.
inline std::vector<double> populationSpikes(engine::Module& root, engine::BackendKind kind,
                                            const std::vector<std::string>& populations,
                                            std::int64_t steps)
{
    engine::ExecutorOptions eo;
    auto exec = engine::makeExecutor(root, kind, eo);
    std::vector<engine::ProbeRequest> requests;
    for (const std::string& p : populations) {
        requests.push_back({p, "spikes", {}});
    }
    const std::vector<engine::ProbeInfo> infos = exec->setProbes(requests);
    std::vector<double> counts(populations.size(), 0.0);
    for (std::int64_t done = 0; done < steps;) {
        const std::int64_t n = std::min(exec->maxChunkSteps(), steps - done);
        exec->advance(n, nullptr, nullptr);
        for (std::size_t k = 0; k < populations.size(); ++k) {
            const float* rows = exec->probeData(k);
            if (const auto lists = exec->probeSpikeLists(k)) {
                for (std::int64_t t = 0; t < n; ++t) {
                    const std::int32_t* listed = lists->indices + t * lists->stride;
                    for (std::int32_t j = 0; j < lists->counts[t]; ++j) {
                        counts[k] += rows[t * infos[k].width + listed[j]];
                    }
                }
            } else {
                for (std::int64_t i = 0; i < n * infos[k].width; ++i) {
                    counts[k] += rows[i];
                }
            }
        }
        done += n;
    }
    return counts;
}

}  // namespace spike::bench::equations
