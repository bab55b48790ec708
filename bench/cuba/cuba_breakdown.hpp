// cuba_breakdown: the parts of a CUBA run timed on their own, for cuba_bench's "where the time
// goes": the two CUBALIF runners stepped without an executor, the four projections'
// deliverListed() replaying a recorded raster (with the executor's clearListed()), and the
// lock-step executor over the unconnected populations. See bench/README.md.
//
// Header-only, one translation unit includes it. Owns nothing global; thread: main's.
#pragma once

#include "bench/bench_common.hpp"
#include "bench/cuba/cuba_network.hpp"
#include "engine/core/node_runner.hpp"
#include "engine/runtime/backend.hpp"

#include <array>
#include <cstdint>
#include <iostream>
#include <memory>
#include <utility>
#include <vector>

namespace spike::bench::cuba {

/// Parts of one run, each timed on its own [s].
struct Breakdown {
    double noProbes = 0.0;        ///< the full run without probes
    double neurons = 0.0;         ///< both CUBALIF runners, one step per call, no executor
    double neuronsBatched = 0.0;  ///< the same, --chunk steps per call (for the call overhead)
    double delivery = 0.0;        ///< deliver() of the four projections, replayed step by step
    double clearing = 0.0;        ///< of which: zeroing the input rows (clearListed())
    double lockStepNoEdges = 0.0; ///< executor, lock-step, populations unconnected, no probes
};

/// Steps both populations' runners directly, `perCall` steps per runListing() call (run() and
/// the listing of each step's spikes, as the executor calls them).
inline double timeNeurons(std::uint64_t seed, std::int64_t total, std::int64_t perCall)
{
    auto net = buildNetwork(seed, false);
    std::array<std::unique_ptr<engine::NodeRunner>, 2> runners{
        net->getSubmodule("E").makeRunner(), net->getSubmodule("I").makeRunner()};
    const std::array<std::int64_t, 2> sizes{kExcitatory, kInhibitory};
    std::array<std::vector<float>, 2> in;
    std::array<std::vector<float>, 2> out;
    std::array<std::vector<float*>, 2> traces;
    std::array<std::vector<std::int32_t>, 2> listed;
    std::array<std::vector<std::int32_t>, 2> counts;
    for (std::size_t k = 0; k < 2; ++k) {
        runners[k]->load();
        in[k].assign(static_cast<std::size_t>(perCall * 2 * sizes[k]), 0.0F);
        out[k].assign(static_cast<std::size_t>(perCall * sizes[k]), 0.0F);
        traces[k].assign(runners[k]->traces().size(), nullptr);
        listed[k].assign(static_cast<std::size_t>(perCall * sizes[k]), 0);
        counts[k].assign(static_cast<std::size_t>(perCall), 0);
    }
    const auto start = Clock::now();
    for (std::int64_t done = 0; done < total;) {
        const std::int64_t n = std::min(perCall, total - done);
        for (std::size_t k = 0; k < 2; ++k) {
            runners[k]->runListing(in[k].data(), n, out[k].data(), traces[k],
                                   {listed[k].data(), counts[k].data(), sizes[k]});
        }
        done += n;
    }
    return secondsSince(start);
}

/// Replays `raster` through the four projections one step at a time, as the executor does:
/// deliver EE, IE into E's input row and EI, II into I's from the step's spike lists (gather()),
/// then zero what they wrote (clearListed(), after the populations ran).
/// Returns {delivery with clearing, clearing alone} [s].
inline std::pair<double, double> timeDelivery(std::uint64_t seed,
                                       const std::vector<std::vector<std::int32_t>>& raster)
{
    auto net = buildNetwork(seed, true);
    std::vector<float> preE(static_cast<std::size_t>(kExcitatory), 0.0F);
    std::vector<float> preI(static_cast<std::size_t>(kInhibitory), 0.0F);
    std::vector<float> inE(static_cast<std::size_t>(2 * kExcitatory), 0.0F);
    std::vector<float> inI(static_cast<std::size_t>(2 * kInhibitory), 0.0F);
    engine::Projection* ee = net->projection("EE");
    engine::Projection* ei = net->projection("EI");
    engine::Projection* ie = net->projection("IE");
    engine::Projection* ii = net->projection("II");
    std::vector<std::int32_t> listE(preE.size(), 0);
    std::vector<std::int32_t> listI(preI.size(), 0);
    std::int32_t countE = 0;
    std::int32_t countI = 0;
    const engine::SpikeLists spikesE{listE.data(), &countE, kExcitatory};
    const engine::SpikeLists spikesI{listI.data(), &countI, kInhibitory};
    const auto setRows = [&](const std::vector<std::int32_t>& ids, float value) {
        countE = 0;
        countI = 0;
        for (const std::int32_t id : ids) {
            if (id < kExcitatory) {
                preE[static_cast<std::size_t>(id)] = value;
                listE[static_cast<std::size_t>(countE++)] = id;
            } else {
                preI[static_cast<std::size_t>(id - kExcitatory)] = value;
                listI[static_cast<std::size_t>(countI++)] = id - kExcitatory;
            }
        }
    };
    // The executor zeroes a consumed input row by undoing the listed deliveries into it.
    const auto clearRows = [&] {
        ee->clearListed(spikesE, 1, inE.data(), 2 * kExcitatory);
        ie->clearListed(spikesI, 1, inE.data() + kExcitatory, 2 * kExcitatory);
        ei->clearListed(spikesE, 1, inI.data(), 2 * kInhibitory);
        ii->clearListed(spikesI, 1, inI.data() + kInhibitory, 2 * kInhibitory);
    };
    auto start = Clock::now();
    for (const auto& ids : raster) {
        setRows(ids, 1.0F);
        ee->deliverListed(preE.data(), kExcitatory, spikesE, 1, inE.data(),
                          2 * kExcitatory);
        ie->deliverListed(preI.data(), kInhibitory, spikesI, 1,
                          inE.data() + kExcitatory, 2 * kExcitatory);
        ei->deliverListed(preE.data(), kExcitatory, spikesE, 1, inI.data(),
                          2 * kInhibitory);
        ii->deliverListed(preI.data(), kInhibitory, spikesI, 1,
                          inI.data() + kInhibitory, 2 * kInhibitory);
        clearRows();
        setRows(ids, 0.0F);
    }
    const double withDelivery = secondsSince(start);
    start = Clock::now();
    float sink = 0.0F;
    for (const auto& ids : raster) {
        setRows(ids, 1.0F);
        clearRows();
        sink += inE[static_cast<std::size_t>(ids.size()) % inE.size()];
        setRows(ids, 0.0F);
    }
    const double clearing = secondsSince(start);
    volatile float keep = sink;
    static_cast<void>(keep);
    return {withDelivery, clearing};
}

/// The lock-step executor over the two unconnected populations, no probes.
inline double timeLockStepWithoutEdges(std::uint64_t seed, std::int64_t total, std::int64_t chunk)
{
    auto net = buildNetwork(seed, false);
    engine::ExecutorOptions eo;
    eo.maxChunkSteps = chunk;
    eo.plan.lockStepAll = true;
    auto exec = engine::makeCpuExecutor(*net, eo);
    const auto start = Clock::now();
    for (std::int64_t done = 0; done < total;) {
        const std::int64_t n = std::min(chunk, total - done);
        exec->advance(n, nullptr, nullptr);
        done += n;
    }
    return secondsSince(start);
}

/// Prints the breakdown against the full run of `full` seconds.
inline void printBreakdown(const Breakdown& b, double full, double counting, std::int64_t steps)
{
    const auto line = [&](const char* what, double s) {
        std::cout << "  " << what << fmt(s, 9, 3) << " s " << fmt(s / static_cast<double>(steps) * 1e6, 8, 2)
                  << " us/step " << fmt(100.0 * s / full, 6, 1) << " %\n";
    };
    std::cout << "\nwhere the time goes (CPU, best of each; % of the full run " << fmt(full, 0, 3)
              << " s):\n";
    line("full run (probes + counting)            ", full);
    line("  probes: copy + counting (full - none) ", full - b.noProbes);
    line("    of which counting (this program)    ", counting);
    line("  run without probes                    ", b.noProbes);
    line("    neuron update + spike lists (1 step)", b.neurons);
    line("    delivery (4 x deliverListed, 1 step)", b.delivery - b.clearing);
    line("    clearing input rows (clearListed)   ", b.clearing);
    line("    executor overhead (the rest)        ", b.noProbes - b.neurons - b.delivery);
    line("  for reference: neuron update batched  ", b.neuronsBatched);
    line("  for reference: lock-step, no edges    ", b.lockStepNoEdges);
}

}  // namespace spike::bench::cuba
