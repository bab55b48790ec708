// lif_layer's --backend path: the same LIF layer and input as LIF::evolve's timing, run as a
// one-node network through an engine executor (CPU or CUDA), in chunks of up to 250 steps, with
// the input rows passed from the host and the spike rows returned to it every chunk, so a CUDA
// time includes both transfers. Used by bench/lif_layer.cpp only (one translation unit).
#pragma once

#include "bench/bench_common.hpp"
#include "engine/network/network.hpp"
#include "engine/neurons/lif.hpp"
#include "engine/runtime/backend.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

namespace spike::bench {

struct ExecutorTiming {
    double seconds = std::numeric_limits<double>::infinity();  ///< best run, wall
    double spikes = 0.0;                                        ///< of the last run
};

/// Runs `steps` steps of an (n, n) feed-forward LIF with `attributes` on `kind`, `input` (steps, n)
/// row-major; best wall time of `repeats` runs, each on a fresh executor after one untimed run.
inline ExecutorTiming timeLifOnExecutor(engine::BackendKind kind, std::int64_t n, std::int64_t steps,
                                        const engine::AttributeMap& attributes, const float* input,
                                        int repeats)
{
    ExecutorTiming timing;
    std::vector<float> output(static_cast<std::size_t>(steps * n));
    engine::ExecutorOptions options;
    options.maxChunkSteps = std::min<std::int64_t>(steps, 250);
    for (int r = 0; r <= repeats; ++r) {
        engine::Network net(n, n);
        net.addNode("lif", std::make_unique<engine::LIF>(n, n, false, attributes));
        net.connect("in", "lif");
        net.connect("lif", "out");
        auto ex = engine::makeExecutor(net, kind, options);
        const auto start = Clock::now();
        for (std::int64_t t0 = 0; t0 < steps; t0 += options.maxChunkSteps) {
            const std::int64_t k = std::min(options.maxChunkSteps, steps - t0);
            ex->advance(k, input + t0 * n, output.data() + t0 * n);
        }
        const double wall = secondsSince(start);
        if (r > 0) {  // run 0 warms the device, the allocator and the page tables
            timing.seconds = std::min(timing.seconds, wall);
        }
    }
    timing.spikes = 0.0;
    for (const float s : output) {
        timing.spikes += static_cast<double>(s);
    }
    return timing;
}

}  // namespace spike::bench
