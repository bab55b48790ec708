// cuba_bench: the Vogels-Abbott CUBA network (Brian2's examples/CUBA.py, see cuba_network.hpp)
// in SpikeStudio against Brian2's C++ standalone device (brian2_cuba.py, one thread).
//
// SpikeStudio side: build the network, makeExecutor() on --backend, probe "E.spikes" and
// "I.spikes", advance --duration / dt steps (100000 for 10 s) in chunks of --chunk steps and
// count every neuron's spikes after each chunk, from the probes' spike lists
// (Executor::probeSpikeLists(), O(spikes)) or, where the executor has none, the dense rows.
// Timed: the advance loop with its spike counting (std::chrono::steady_clock), best of
// --repeats fresh builds of the same network. --no-spike-lists runs the executor without spike
// lists (dense delivery and counting, the engine before them). Synaptic events = sum over
// neurons of spikes x out-degree. Brian2 side: the peer prints the standalone binary's own timer
// around the network run (best of --repeats runs of the compiled binary). Printed: both run
// times, Brian2/SpikeStudio, both mean rates and their relative difference, setup times, and the
// targets (>= 3x Brian2, rates within 10 %), never asserted.
//
// Product path (cuba_product.hpp, unless --no-product): the same network as a model file
// (--model, default cuba_network_4000.json, written by --write-model) loaded and run through
// engine::HeadlessRun, the code `spikesim run` uses, best of --repeats; printed beside the
// engine-only run and Brian2 with the ratios, and the target: within 10 % of engine only.
//
// The breakdown (CPU backend, unless --no-breakdown) times the parts of a run on their own: the
// same run without probes, the two CUBALIF runners stepped one step per runListing() call with
// no executor, the four projections' deliverListed() replaying the run's recorded spikes one
// step at a time (with the clearing of the input rows the executor does, clearListed()), and the
// lock-step executor over the unconnected populations. Executor overhead is what remains of the
// probe-free run. See bench/README.md.
//
// Single-threaded. Owns only what main() builds.
#include "bench/bench_common.hpp"
#include "bench/cuba/cuba_breakdown.hpp"
#include "bench/cuba/cuba_network.hpp"
#include "bench/cuba/cuba_product.hpp"
#include "engine/runtime/backend.hpp"
#include "engine/core/node_runner.hpp"
#include "engine/io/model_io.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#ifndef SPIKE_BENCH_DIR
#define SPIKE_BENCH_DIR "bench"
#endif

namespace {

namespace cuba = spike::bench::cuba;
namespace engine = spike::engine;
using spike::bench::Clock;
using spike::bench::fmt;
using spike::bench::secondsSince;
using spike::bench::shellQuoted;
using spike::bench::threadCpuSeconds;

struct Options {
    std::string backend = "cpu";
    double duration = 10.0;  ///< biological time [s]
    std::uint64_t seed = 1;
    std::int64_t chunk = 16;
    int repeats = 3;
    bool brian = true;
    bool breakdown = true;
    bool spikeLists = true;  ///< ExecutorOptions::spikeLists (false: dense rows, as before)
    bool product = true;     ///< also time the product path (cuba_product.hpp)
    /// ExecutorOptions::fusedGroupMaxChannels (CUDA: the E/I cycle as one launch per chunk)
    std::int64_t fusedMax = engine::ExecutorOptions{}.fusedGroupMaxChannels;
    std::string modelPath = std::string(SPIKE_BENCH_DIR) + "/cuba/cuba_network_4000.json";
    std::string jsonPath;
    std::string python = "/usr/bin/python3";
    std::string peerScript = std::string(SPIKE_BENCH_DIR) + "/cuba/brian2_cuba.py";

    std::int64_t steps() const { return std::llround(duration / cuba::kDt); }
};

/// One simulated run of the network.
struct RunResult {
    double buildSeconds = 0.0;     ///< network construction with its synapse draw
    double executorSeconds = 0.0;  ///< makeExecutor (plan, buffers, state load)
    double runSeconds = 0.0;       ///< the advance loop with spike counting
    double countSeconds = 0.0;     ///< of which: counting spikes from the probe rows
    double cpuShare = 1.0;         ///< thread CPU time / wall time of the loop
    std::vector<double> counts;    ///< spikes per neuron (E, then I)
    double spikes = 0.0;
    double events = 0.0;           ///< sum of spikes x out-degree
    std::int64_t synapses = 0;
    std::int64_t autapses = 0;
    std::string backend;
};

/// Builds, compiles and runs the network once. `probes` false runs without any probe (no counts);
/// `raster`, when given, receives every step's spiking neuron indices (untimed use only).
RunResult simulate(const Options& opt, engine::BackendKind kind, bool probes,
                   std::vector<std::vector<std::int32_t>>* raster = nullptr)
{
    RunResult r;
    auto start = Clock::now();
    auto net = cuba::buildNetwork(opt.seed, true);
    r.buildSeconds = secondsSince(start);
    const std::vector<double> degree = cuba::outDegrees(*net);
    std::tie(r.synapses, r.autapses) = cuba::synapseCounts(*net);

    engine::ExecutorOptions eo;
    eo.maxChunkSteps = opt.chunk;
    eo.spikeLists = opt.spikeLists;
    eo.fusedGroupMaxChannels = opt.fusedMax;
    start = Clock::now();
    auto exec = engine::makeExecutor(*net, kind, eo);
    r.executorSeconds = secondsSince(start);
    r.backend = exec->backendName();
    if (probes) {
        exec->setProbes({{"E", "spikes", {}}, {"I", "spikes", {}}});
    }
    std::vector<float> counts(static_cast<std::size_t>(cuba::kNeurons), 0.0F);
    const std::int64_t total = opt.steps();
    const double cpu0 = threadCpuSeconds();
    start = Clock::now();
    for (std::int64_t done = 0; done < total;) {
        const std::int64_t n = std::min(opt.chunk, total - done);
        exec->advance(n, nullptr, nullptr);
        if (probes) {
            const auto countStart = Clock::now();
            for (std::size_t k = 0; k < 2; ++k) {
                const std::int64_t w = k == 0 ? cuba::kExcitatory : cuba::kInhibitory;
                float* c = counts.data() + (k == 0 ? 0 : cuba::kExcitatory);
                spike::bench::accumulateSpikes(*exec, k, n, w, c);
            }
            r.countSeconds += secondsSince(countStart);
            if (raster != nullptr) {
                for (std::int64_t t = 0; t < n; ++t) {
                    std::vector<std::int32_t> ids;
                    for (std::size_t k = 0; k < 2; ++k) {
                        const std::int64_t w = k == 0 ? cuba::kExcitatory : cuba::kInhibitory;
                        const float* row = exec->probeData(k) + t * w;
                        for (std::int64_t i = 0; i < w; ++i) {
                            if (row[i] != 0.0F) {
                                ids.push_back(static_cast<std::int32_t>(i + (k == 0 ? 0 : cuba::kExcitatory)));
                            }
                        }
                    }
                    raster->push_back(std::move(ids));
                }
            }
        }
        done += n;
    }
    r.runSeconds = secondsSince(start);
    r.cpuShare = (threadCpuSeconds() - cpu0) / r.runSeconds;
    r.counts.assign(counts.begin(), counts.end());
    for (std::size_t i = 0; i < r.counts.size(); ++i) {
        r.spikes += r.counts[i];
        r.events += r.counts[i] * degree[i];
    }
    return r;
}

double meanRate(double spikes, double duration)
{
    return spikes / (static_cast<double>(cuba::kNeurons) * duration);
}

cuba::Breakdown measureBreakdown(const Options& opt)
{
    cuba::Breakdown b;
    b.noProbes = std::numeric_limits<double>::infinity();
    b.neurons = b.noProbes;
    b.neuronsBatched = b.noProbes;
    b.delivery = b.noProbes;
    b.clearing = b.noProbes;
    b.lockStepNoEdges = b.noProbes;
    std::vector<std::vector<std::int32_t>> raster;
    raster.reserve(static_cast<std::size_t>(opt.steps()));
    static_cast<void>(simulate(opt, engine::BackendKind::Cpu, true, &raster));
    for (int r = 0; r < opt.repeats; ++r) {
        b.noProbes = std::min(b.noProbes, simulate(opt, engine::BackendKind::Cpu, false).runSeconds);
        b.neurons = std::min(b.neurons, cuba::timeNeurons(opt.seed, opt.steps(), 1));
        b.neuronsBatched = std::min(b.neuronsBatched, cuba::timeNeurons(opt.seed, opt.steps(), opt.chunk));
        const auto [delivery, clearing] = cuba::timeDelivery(opt.seed, raster);
        b.delivery = std::min(b.delivery, delivery);
        b.clearing = std::min(b.clearing, clearing);
        b.lockStepNoEdges = std::min(b.lockStepNoEdges, cuba::timeLockStepWithoutEdges(opt.seed, opt.steps(), opt.chunk));
    }
    return b;
}

}  // namespace

int main(int argc, char** argv)
{
    Options opt;
    CLI::App app{"CUBA network: SpikeStudio against Brian2 cpp_standalone"};
    app.add_option("--backend", opt.backend, "auto, cpu or cuda")->capture_default_str();
    app.add_option("--duration", opt.duration, "Biological time [s]")->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--seed", opt.seed, "Seed of initial v and connectivity")->capture_default_str();
    app.add_option("--chunk", opt.chunk, "Steps per advance()")->capture_default_str()
        ->check(CLI::Range(1, 1000000));
    app.add_option("--repeats", opt.repeats, "Runs per side; the best is reported")
        ->capture_default_str()->check(CLI::Range(1, 100));
    bool noBrian = false;
    bool noBreakdown = false;
    app.add_flag("--no-brian", noBrian, "Skip the Brian2 peer");
    app.add_flag("--no-breakdown", noBreakdown, "Skip the timing of the parts of a run");
    bool noLists = false;
    app.add_flag("--no-spike-lists", noLists,
                 "Executor without spike lists (dense delivery and counting, for comparison)");
    bool noProduct = false;
    app.add_flag("--no-product", noProduct,
                 "Skip the product path (the model file through spikesim's HeadlessRun)");
    app.add_option("--model", opt.modelPath, "Model file of the product path")
        ->capture_default_str();
    app.add_option("--fused-max-channels", opt.fusedMax,
                   "CUDA: largest cycle run as one launch per chunk (0: one launch per node, "
                   "edge and step; with cuda and > 0 that path is timed beside it)")
        ->capture_default_str();
    app.add_option("--json", opt.jsonPath, "Also write the results to this JSON file");
    app.add_option("--python", opt.python, "Interpreter for the Brian2 peer")->capture_default_str();
    app.add_option("--peer", opt.peerScript, "Path of brian2_cuba.py")->capture_default_str();
    std::string writeModel;
    app.add_option("--write-model", writeModel,
                   "Write the network of --seed as a model file (all arrays inline) and exit");
    CLI11_PARSE(app, argc, argv);
    if (!writeModel.empty()) {
        try {
            engine::SaveOptions so;
            so.inlineLimit = -1;
            engine::saveModel(
                writeModel, *cuba::buildNetwork(opt.seed, true), so,
                {{"description",
                  "Brian2's CUBA network (examples/CUBA.py): 3200 excitatory and 800 inhibitory "
                  "CUBALIF, p = 0.02, we = 1.62 mV, wi = -9 mV, dt = 0.1 ms, every connection "
                  "delayed one step; written by cuba_bench --write-model --seed " +
                      std::to_string(opt.seed) + " (bench/cuba)"}});
        } catch (const engine::Error& e) {
            std::cerr << "cuba_bench: " << e.what() << "\n";
            return 2;
        }
        std::cout << "wrote " << writeModel << "\n";
        return 0;
    }
    opt.brian = !noBrian;
    opt.breakdown = !noBreakdown;
    opt.spikeLists = !noLists;
    opt.product = !noProduct;

    engine::BackendKind kind{};
    try {
        kind = engine::parseBackendKind(opt.backend);
    } catch (const engine::Error& e) {
        std::cerr << "cuba_bench: " << e.what() << "\n";
        return 2;
    }
    std::cout << "load average at start: " << spike::bench::loadAverage() << "\n";
    std::cout << "CUBA: " << cuba::kExcitatory << " E + " << cuba::kInhibitory
              << " I CUBALIF, p = " << cuba::kP << ", we = " << cuba::kWe << " mV, wi = "
              << cuba::kWi << " mV, dt = " << cuba::kDt * 1e3 << " ms, " << opt.steps()
              << " steps (" << opt.duration << " s), chunk " << opt.chunk << ", best of "
              << opt.repeats << "\n";

    RunResult best;
    best.runSeconds = std::numeric_limits<double>::infinity();
    std::optional<double> firstSpikes;
    try {
        for (int r = 0; r < opt.repeats; ++r) {
            RunResult run = simulate(opt, kind, true);
            if (firstSpikes && *firstSpikes != run.spikes) {
                std::cout << "WARNING: run " << r << " gave " << run.spikes << " spikes, run 0 "
                          << *firstSpikes << ": the simulation is not reproducible\n";
            }
            firstSpikes = run.spikes;
            if (run.runSeconds < best.runSeconds) {
                best = std::move(run);
            }
        }
    } catch (const engine::Error& e) {
        std::cerr << "cuba_bench: " << e.what() << "\n";
        return 2;
    }
    const double rate = meanRate(best.spikes, opt.duration);
    std::cout << "SpikeStudio (" << best.backend << "): " << best.synapses << " synapses ("
              << best.autapses << " autapses), build " << fmt(best.buildSeconds, 0, 3)
              << " s, executor " << fmt(best.executorSeconds, 0, 3) << " s, run "
              << fmt(best.runSeconds, 0, 3) << " s, " << best.spikes << " spikes, "
              << fmt(rate, 0, 3) << " Hz, " << fmt(best.events / best.runSeconds / 1e6, 0, 1)
              << " M synaptic events/s\n";
    if (best.cpuShare < 0.9) {
        std::cout << "NOTE: the best run got " << static_cast<int>(100 * best.cpuShare)
                  << " % of a core (busy machine)\n";
    }

    if (best.backend == "cuda" && opt.fusedMax > 0) {
        // The same network with one launch per node, edge and step, for the ratio.
        Options perLaunch = opt;
        perLaunch.fusedMax = 0;
        RunResult launched;
        launched.runSeconds = std::numeric_limits<double>::infinity();
        for (int r = 0; r < opt.repeats; ++r) {
            RunResult run = simulate(perLaunch, kind, true);
            if (run.runSeconds < launched.runSeconds) {
                launched = std::move(run);
            }
        }
        std::cout << "CUDA per-launch path (--fused-max-channels 0): run "
                  << fmt(launched.runSeconds, 0, 3) << " s, " << launched.spikes
                  << " spikes (" << (launched.spikes == best.spikes ? "equal" : "DIFFER")
                  << "); the fused run is " << fmt(launched.runSeconds / best.runSeconds, 0, 2)
                  << "x faster\n";
    }

    std::optional<cuba::ProductResult> product;
    if (opt.product) {
        try {
            product = cuba::timeProductPath(opt.modelPath, kind, opt.steps(), opt.repeats,
                                              opt.spikeLists);
        } catch (const engine::Error& e) {
            std::cout << "product path failed: " << e.what() << "\n";
        }
    }
    if (product) {
        std::cout << "product path (" << product->backend << "): " << opt.modelPath << ", load "
                  << fmt(product->buildSeconds, 0, 3) << " s, executor "
                  << fmt(product->executorSeconds, 0, 3) << " s, run "
                  << fmt(product->runSeconds, 0, 3) << " s (chunk " << product->chunk << "), "
                  << product->spikes << " spikes, " << fmt(meanRate(product->spikes, opt.duration), 0, 3)
                  << " Hz; spikes " << (product->spikes == best.spikes ? "equal" : "DIFFER from")
                  << " the engine-only run's\n";
        if (product->cpuShare < 0.9) {
            std::cout << "NOTE: the best product-path run got "
                      << static_cast<int>(100 * product->cpuShare) << " % of a core (busy machine)\n";
        }
        if (product->nonReproducible) {
            std::cout << "WARNING: product path: " << *product->nonReproducible << "\n";
        }
    }

    std::optional<nlohmann::json> brian;
    if (opt.brian) {
        std::ostringstream cmd;
        cmd << shellQuoted(opt.python) << ' ' << shellQuoted(opt.peerScript) << " --duration "
            << opt.duration << " --seed " << opt.seed << " --repeats " << opt.repeats
            << " 2>/dev/null";
        const spike::bench::PeerReply reply = spike::bench::runPeer(cmd.str(), "run_seconds");
        if (reply.json) {
            brian = reply.json;
        } else {
            std::cout << "Brian2 peer failed: " << reply.error << "\n";
        }
    }

    std::cout << "\n                         run [s]  setup [s]    spikes  rate [Hz]  synapses  Mevents/s\n";
    if (product) {
        std::cout << "SpikeStudio product path" << fmt(product->runSeconds, 8, 3)
                  << fmt(product->buildSeconds + product->executorSeconds, 11, 3)
                  << fmt(product->spikes, 10, 0) << fmt(meanRate(product->spikes, opt.duration), 11, 3)
                  << fmt(static_cast<double>(best.synapses), 10, 0)
                  << fmt(product->spikes == best.spikes ? std::optional<double>(best.events / product->runSeconds / 1e6)
                                                        : std::nullopt, 11, 1)
                  << "\n";
    }
    std::cout << "SpikeStudio engine only " << fmt(best.runSeconds, 8, 3)
              << fmt(best.buildSeconds + best.executorSeconds, 11, 3) << fmt(best.spikes, 10, 0)
              << fmt(rate, 11, 3) << fmt(static_cast<double>(best.synapses), 10, 0)
              << fmt(best.events / best.runSeconds / 1e6, 11, 1) << "\n";
    std::optional<double> ratio;
    std::optional<double> rateDiff;
    if (brian) {
        const nlohmann::json& b = *brian;
        const double bRun = b["run_seconds"].get<double>();
        const double bRate = b["mean_rate_hz"].get<double>();
        std::cout << "Brian2                  " << fmt(bRun, 8, 3)
                  << fmt(b["codegen_seconds"].get<double>() + b["compile_seconds"].get<double>(), 11, 3)
                  << fmt(b["spikes"].get<double>(), 10, 0) << fmt(bRate, 11, 3)
                  << fmt(b["synapses"].get<double>(), 10, 0)
                  << fmt(b["synaptic_events"].get<double>() / bRun / 1e6, 11, 1) << "\n";
        ratio = bRun / best.runSeconds;
        rateDiff = (rate - bRate) / bRate;
        std::cout << "Brian2 / SpikeStudio run time: " << fmt(ratio, 0, 2) << "x engine only";
        if (product) {
            std::cout << ", " << fmt(bRun / product->runSeconds, 0, 2) << "x product path";
        }
        std::cout << "; rate difference (SpikeStudio - Brian2) / Brian2: "
                  << fmt(*rateDiff * 100.0, 0, 1) << " %\n";
        std::cout << "(Brian2 " << b["brian2"].get<std::string>()
                  << " setup = code generation + compilation; binary incl. synapse creation "
                  << fmt(b["binary_seconds"].get<double>(), 0, 3) << " s)\n";
    }
    std::cout << "target: SpikeStudio >= 3x faster than Brian2 standalone: "
              << (ratio ? (*ratio >= 3.0 ? "met" : "NOT met") + std::string(" (") +
                              fmt(ratio, 0, 2) + "x)"
                        : std::string("not measured"))
              << "\n";
    std::optional<double> productOverEngine;
    if (product) {
        productOverEngine = product->runSeconds / best.runSeconds;
        std::cout << "product path / engine only run time: " << fmt(productOverEngine, 0, 3)
                  << " (engine-only chunk " << opt.chunk << ", product chunk " << product->chunk
                  << ")\n";
    }
    std::cout << "target: product path within 10 % of engine only: "
              << (productOverEngine ? (*productOverEngine <= 1.1 ? "met" : "NOT met") +
                                          std::string(" (") + fmt(productOverEngine, 0, 3) + ")"
                                    : std::string("not measured"))
              << "\n";
    std::cout << "target: mean rates within 10 %: "
              << (rateDiff ? (std::abs(*rateDiff) <= 0.1 ? "met" : "NOT met") + std::string(" (") +
                                 fmt(*rateDiff * 100.0, 0, 1) + " %)"
                           : std::string("not measured"))
              << "\n";

    std::optional<cuba::Breakdown> breakdown;
    if (opt.breakdown && best.backend == "cpu") {
        breakdown = measureBreakdown(opt);
        cuba::printBreakdown(*breakdown, best.runSeconds, best.countSeconds, opt.steps());
    }
    std::cout << "load average at end: " << spike::bench::loadAverage() << "\n";

    if (!opt.jsonPath.empty()) {
        nlohmann::json j{{"benchmark", "cuba"},
                         {"backend", best.backend},
                         {"steps", opt.steps()},
                         {"chunk", opt.chunk},
                         {"run_seconds", best.runSeconds},
                         {"build_seconds", best.buildSeconds},
                         {"executor_seconds", best.executorSeconds},
                         {"count_seconds", best.countSeconds},
                         {"spikes", best.spikes},
                         {"mean_rate_hz", rate},
                         {"synapses", best.synapses},
                         {"synaptic_events", best.events},
                         {"cpu_share", best.cpuShare},
                         {"brian2", brian ? *brian : nlohmann::json(nullptr)},
                         {"brian2_over_spikestudio", spike::bench::orNull(ratio)},
                         {"rate_difference", spike::bench::orNull(rateDiff)}};
        if (product) {
            j["product_path"] = {{"model", opt.modelPath},
                                 {"backend", product->backend},
                                 {"chunk", product->chunk},
                                 {"run_seconds", product->runSeconds},
                                 {"load_seconds", product->buildSeconds},
                                 {"executor_seconds", product->executorSeconds},
                                 {"spikes", product->spikes},
                                 {"same_spikes_as_engine_only", product->spikes == best.spikes},
                                 {"over_engine_only", *productOverEngine},
                                 {"cpu_share", product->cpuShare}};
            if (brian) {
                j["brian2_over_product_path"] =
                    (*brian)["run_seconds"].get<double>() / product->runSeconds;
            }
        }
        if (breakdown) {
            j["breakdown_seconds"] = {{"no_probes", breakdown->noProbes},
                                      {"neurons", breakdown->neurons},
                                      {"neurons_batched", breakdown->neuronsBatched},
                                      {"delivery_with_clearing", breakdown->delivery},
                                      {"clearing", breakdown->clearing},
                                      {"lock_step_no_edges", breakdown->lockStepNoEdges}};
        }
        std::ofstream out(opt.jsonPath);
        out << j.dump(2) << "\n";
        if (!out) {
            std::cerr << "cuba_bench: cannot write " << opt.jsonPath << "\n";
            return 1;
        }
    }
    return 0;
}
