// scaling_bench: synaptic events per second of sparse random CUBA-like networks of 10^4, 10^5
// and 10^6 neurons, next to this machine's random-access rate measured in the same run.
//
// Network for N neurons: "E" CUBALIF(0.8 N) and "I" CUBALIF(0.2 N), the CUBA neuron parameters of
// bench/cuba (tau_mem 20 ms, tau_exc 5 ms, tau_inh 10 ms, v_rest -49 mV above v_th -50 mV, so the
// network drives itself, v_reset -60 mV, refractory 5 ms) at dt = --dt (1 ms by default, so the
// run is dominated by spike delivery rather than by the neuron update). Four SparseProjections
// with rule "in_degree": every neuron draws exactly --fan-in-exc excitatory and --fan-in-inh
// inhibitory sources, weights --we and --wi [mV], delay 0, all connections delayed by one step,
// so the input statistics of a neuron do not depend on N. v0 uniform in [v_reset, v_th). The
// defaults (80 + 20 sources, 0.5 and -2.5 mV) give asynchronous activity of about 6.5 Hz at every
// N; weaker inhibition (-1 mV) gives 16 Hz in synchronous population bursts, which is why the
// program prints the fewest and most spikes per step.
// Runs --steps steps after --warmup untimed steps (the initial transient), probing both
// populations' spikes and counting them per neuron; events = sum over neurons of spikes x
// out-degree, events/s = events / wall time of the timed steps.
//
// Random-access rate: y[idx[k]] += w over a float array y of 2 N values (the size of all input
// rows the deliveries scatter into) with a streamed int32 index array of uniform random indices
// (2^24 of them, or 16 N when larger), best of 3, in events/s: the rate of the same scattered
// adds the delivery does, at this array size, with nothing else to do. ratio = network events/s
// / random-access events/s. The neuron-update part is measured too (the same populations,
// unconnected, same executor), so "delivery events/s" = events / (run - neuron part) is printed.
//
// Memory (MemAvailable) is checked before each size; a size that would not fit is skipped.
// mem = the growth of the resident set (/proc/self/statm) from before the connected network is
// built to after its warm-up steps: synapses, neuron states, the executor's rows and spike lists;
// B/syn = mem / synapses (issue #22's target: at most 6 bytes per synapse at 10^6 neurons).
// Single-threaded. Owns only what main() builds. Targets: none (information for the lead).
#include "bench/bench_common.hpp"
#include "engine/runtime/backend.hpp"
#include "engine/neurons/cuba_lif.hpp"
#include "engine/network/network.hpp"
#include "engine/network/projections.hpp"

#include <CLI/CLI.hpp>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace {

namespace engine = spike::engine;
using engine::Tensor;
using spike::bench::Clock;
using spike::bench::fmt;
using spike::bench::secondsSince;
using spike::bench::SplitMix64;
using spike::bench::threadCpuSeconds;

struct Options {
    std::vector<std::int64_t> sizes{10000, 100000, 1000000};
    std::int64_t steps = 1000;
    std::int64_t warmup = 200;
    double dt = 1e-3;  ///< [s]
    std::int64_t fanInExc = 80;
    std::int64_t fanInInh = 20;
    int threads = 1;  ///< CPU executor threads (ExecutorOptions::threads; 0 = every core)
    float we = 0.5F;   ///< [mV]
    float wi = -2.5F;  ///< [mV]
    std::uint64_t seed = 1;
    std::string backend = "cpu";
    std::string jsonPath;
};

/// One size's results.
struct Row {
    std::int64_t n = 0;
    std::int64_t synapses = 0;
    double buildSeconds = 0.0;
    double runSeconds = 0.0;
    double neuronSeconds = 0.0;  ///< the unconnected populations, same steps
    double spikes = 0.0;
    double events = 0.0;
    double randomAccess = 0.0;   ///< events/s of the bare scattered adds
    double fewest = 0.0;         ///< fewest spikes in one step, over kSpreadSteps extra steps
    double most = 0.0;           ///< most spikes in one step, over the same steps
    double cpuShare = 1.0;
    double residentBase = 0.0;  ///< [B] resident set before the connected network was built
    double memoryBytes = 0.0;   ///< [B] its growth until after the warm-up
    std::string note;
};

/// The process's resident set [B] (Linux /proc/self/statm), 0 when unreadable.
double residentBytes()
{
    std::ifstream in("/proc/self/statm");
    double pages = 0.0;
    double resident = 0.0;
    if (!(in >> pages >> resident)) {
        return 0.0;
    }
    return resident * static_cast<double>(sysconf(_SC_PAGESIZE));
}

/// Untimed steps after the timed ones whose spike totals show whether activity is asynchronous.
constexpr std::int64_t kSpreadSteps = 100;

std::optional<double> availableMemory()
{
    std::ifstream in("/proc/meminfo");
    std::string key;
    double kib = 0.0;
    std::string unit;
    while (in >> key >> kib >> unit) {
        if (key == "MemAvailable:") {
            return kib * 1024.0;
        }
    }
    return std::nullopt;
}

/// Scattered float adds y[idx[k]] += w into `targets` floats, best of 3 [events/s].
double randomAccessRate(std::int64_t targets, std::uint64_t seed)
{
    const std::int64_t count = std::max<std::int64_t>(std::int64_t{1} << 24, 16 * targets);
    std::vector<std::int32_t> idx(static_cast<std::size_t>(count));
    SplitMix64 rng(seed);
    for (auto& i : idx) {
        i = static_cast<std::int32_t>((static_cast<unsigned __int128>(rng.next()) *
                                       static_cast<std::uint64_t>(targets)) >> 64U);
    }
    std::vector<float> y(static_cast<std::size_t>(targets), 0.0F);
    float* __restrict py = y.data();
    const std::int32_t* __restrict pi = idx.data();
    const float w = 0.5F;
    double best = std::numeric_limits<double>::infinity();
    for (int r = 0; r < 3; ++r) {
        const auto start = Clock::now();
        for (std::int64_t k = 0; k < count; ++k) {
            py[pi[k]] += w;
        }
        best = std::min(best, secondsSince(start));
    }
    volatile float sink = y[static_cast<std::size_t>(targets / 2)];
    static_cast<void>(sink);
    return static_cast<double>(count) / best;
}

std::unique_ptr<engine::CUBALIF> population(const Options& opt, std::int64_t n, SplitMix64& rng)
{
    auto pop = std::make_unique<engine::CUBALIF>(
        n, engine::AttributeMap{{"tau_mem", Tensor::scalar(20e-3F)},
                                {"tau_exc", Tensor::scalar(5e-3F)},
                                {"tau_inh", Tensor::scalar(10e-3F)},
                                {"v_rest", Tensor::scalar(-49.0F)},
                                {"v_reset", Tensor::scalar(-60.0F)},
                                {"v_th", Tensor::scalar(-50.0F)},
                                {"refractory_time", Tensor::scalar(5e-3F)},
                                {"dt", Tensor::scalar(static_cast<float>(opt.dt))}});
    Tensor v(engine::Shape{n});
    for (std::int64_t i = 0; i < n; ++i) {
        v[i] = static_cast<float>(-60.0 + 10.0 * static_cast<double>(rng.next() >> 11U) * 0x1.0p-53);
    }
    if (const engine::Status s = pop->setAttribute("v", v); !s.ok) {
        throw engine::Error(s.message);
    }
    return pop;
}

struct Built {
    std::unique_ptr<engine::Network> net;
    std::vector<double> degree;  ///< out-degree per neuron, E then I
    std::int64_t synapses = 0;
};

Built build(const Options& opt, std::int64_t n, bool connected)
{
    const std::int64_t nE = n * 4 / 5;
    const std::int64_t nI = n - nE;
    Built b;
    b.net = std::make_unique<engine::Network>(0, 0);
    SplitMix64 rng(opt.seed * 7919U + static_cast<std::uint64_t>(n));
    b.net->addNode("E", population(opt, nE, rng));
    b.net->addNode("I", population(opt, nI, rng));
    b.degree.assign(static_cast<std::size_t>(n), 0.0);
    if (!connected) {
        return b;
    }
    struct Spec {
        const char* name;
        const char* from;
        const char* to;
        std::int64_t nSrc, nDst, k, first;
        float w;
    };
    const Spec specs[] = {{"EE", "E.spikes", "E.exc", nE, nE, opt.fanInExc, 0, opt.we},
                          {"EI", "E.spikes", "I.exc", nE, nI, opt.fanInExc, 0, opt.we},
                          {"IE", "I.spikes", "E.inh", nI, nE, opt.fanInInh, nE, opt.wi},
                          {"II", "I.spikes", "I.inh", nI, nI, opt.fanInInh, nE, opt.wi}};
    float seed = static_cast<float>(opt.seed % 100000U) * 4.0F;
    for (const Spec& s : specs) {
        auto proj = std::make_unique<engine::SparseProjection>(
            s.nSrc, s.nDst,
            engine::AttributeMap{{"rule", std::string("in_degree")},
                                 {"in_degree", Tensor::scalar(static_cast<float>(s.k))},
                                 {"weight", Tensor::scalar(s.w)},
                                 {"delay", Tensor::scalar(0.0F)},
                                 {"autapses", Tensor::scalar(0.0F)},
                                 {"seed", Tensor::scalar(seed)}});
        seed += 1.0F;
        const auto& rows = proj->rowStart();
        for (std::int64_t i = 0; i < s.nSrc; ++i) {
            b.degree[static_cast<std::size_t>(s.first + i)] += static_cast<double>(
                rows[static_cast<std::size_t>(i + 1)] - rows[static_cast<std::size_t>(i)]);
        }
        b.synapses += proj->synapseCount();
        b.net->connect(s.from, s.to, std::move(proj), s.name, true);
    }
    return b;
}

/// Steps per advance(): probe and input buffers of about 2^22 floats per population at most.
std::int64_t chunkFor(std::int64_t n)
{
    return std::clamp<std::int64_t>((std::int64_t{1} << 22) / n, 1, 256);
}

/// Runs `built`'s network: warm-up, then the timed steps. Fills spikes (and events when
/// `count`) for the timed steps; returns the wall time of the timed steps.
double run(const Options& opt, engine::BackendKind kind, Built& built, bool count, Row& row)
{
    engine::ExecutorOptions eo;
    eo.maxChunkSteps = chunkFor(static_cast<std::int64_t>(built.degree.size()));
    eo.plan.lockStepAll = true;  // the unconnected twin must step like the connected network
    eo.threads = opt.threads;
    auto exec = engine::makeExecutor(*built.net, kind, eo);
    const std::int64_t nE = static_cast<std::int64_t>(built.degree.size()) * 4 / 5;
    const std::int64_t nI = static_cast<std::int64_t>(built.degree.size()) - nE;
    if (count) {
        exec->setProbes({{"E", "spikes", {}}, {"I", "spikes", {}}});
    }
    std::vector<double> counts(built.degree.size(), 0.0);
    const auto advance = [&](std::int64_t total, bool tally) {
        for (std::int64_t done = 0; done < total;) {
            const std::int64_t n = std::min(eo.maxChunkSteps, total - done);
            exec->advance(n, nullptr, nullptr);
            if (count && tally) {
                for (std::size_t k = 0; k < 2; ++k) {
                    spike::bench::accumulateSpikes(*exec, k, n, k == 0 ? nE : nI,
                                                   counts.data() + (k == 0 ? 0 : nE));
                }
            }
            done += n;
        }
    };
    advance(opt.warmup, false);
    if (count) {
        row.memoryBytes = residentBytes() - row.residentBase;
    }
    const double cpu0 = threadCpuSeconds();
    const auto start = Clock::now();
    advance(opt.steps, true);
    const double wall = secondsSince(start);
    if (count) {
        row.cpuShare = (threadCpuSeconds() - cpu0) / wall;
        row.fewest = std::numeric_limits<double>::infinity();
        for (std::int64_t t = 0; t < kSpreadSteps; ++t) {
            exec->advance(1, nullptr, nullptr);
            double sum = 0.0;
            for (std::size_t k = 0; k < 2; ++k) {
                const float* rowData = exec->probeData(k);
                for (std::int64_t i = 0; i < (k == 0 ? nE : nI); ++i) {
                    sum += static_cast<double>(rowData[i]);
                }
            }
            row.fewest = std::min(row.fewest, sum);
            row.most = std::max(row.most, sum);
        }
        for (std::size_t i = 0; i < counts.size(); ++i) {
            row.spikes += counts[i];
            row.events += counts[i] * built.degree[i];
        }
    }
    return wall;
}

void printRow(const Row& r, double dt, std::int64_t steps)
{
    const double rate = r.spikes / (static_cast<double>(r.n) * static_cast<double>(steps) * dt);
    const double eps = r.runSeconds > 0.0 ? r.events / r.runSeconds : 0.0;
    const double delivery = r.runSeconds - r.neuronSeconds;
    const std::optional<double> perSynapse =
        r.synapses > 0 ? std::optional<double>(r.memoryBytes / static_cast<double>(r.synapses)) : std::nullopt;
    std::cout << fmt(static_cast<double>(r.n), 9, 0) << fmt(static_cast<double>(r.synapses), 12, 0)
              << fmt(r.memoryBytes / 1048576.0, 9, 0) << fmt(perSynapse, 7, 2)
              << fmt(r.buildSeconds, 9, 2) << fmt(r.runSeconds, 9, 3) << fmt(r.neuronSeconds, 10, 3)
              << fmt(rate, 9, 2) << fmt(r.fewest, 8, 0) << fmt(r.most, 8, 0)
              << fmt(r.events / static_cast<double>(steps) / 1e3, 13, 1)
              << fmt(eps / 1e6, 11, 1)
              << fmt(delivery > 0.0 ? std::optional<double>(r.events / delivery / 1e6) : std::nullopt, 13, 1)
              << fmt(r.randomAccess / 1e6, 12, 1) << fmt(eps / r.randomAccess, 8, 3);
    if (!r.note.empty()) {
        std::cout << "   (" << r.note << ")";
    }
    std::cout << std::endl;
}

}  // namespace

int main(int argc, char** argv)
{
    Options opt;
    CLI::App app{"Synaptic events/s of sparse CUBA-like networks vs. random-access rate"};
    app.add_option("--sizes", opt.sizes, "Neuron counts (default 10000,100000,1000000)")
        ->delimiter(',')->check(CLI::Range(std::int64_t{10}, std::int64_t{100000000}));
    app.add_option("--steps", opt.steps, "Timed steps")->capture_default_str()->check(CLI::PositiveNumber);
    app.add_option("--warmup", opt.warmup, "Untimed steps first")->capture_default_str();
    app.add_option("--dt", opt.dt, "Time step [s]")->capture_default_str();
    app.add_option("--fan-in-exc", opt.fanInExc, "Excitatory sources per neuron")->capture_default_str();
    app.add_option("--fan-in-inh", opt.fanInInh, "Inhibitory sources per neuron")->capture_default_str();
    app.add_option("--we", opt.we, "Excitatory weight [mV]")->capture_default_str();
    app.add_option("--wi", opt.wi, "Inhibitory weight [mV]")->capture_default_str();
    app.add_option("--seed", opt.seed, "Seed")->capture_default_str();
    app.add_option("--backend", opt.backend, "auto, cpu or cuda")->capture_default_str();
    app.add_option("--threads", opt.threads, "CPU executor threads (0 = every core)")
        ->capture_default_str()->check(CLI::Range(0, 1024));
    app.add_option("--json", opt.jsonPath, "Also write the results to this JSON file");
    CLI11_PARSE(app, argc, argv);

    engine::BackendKind kind{};
    try {
        kind = engine::parseBackendKind(opt.backend);
    } catch (const engine::Error& e) {
        std::cerr << "scaling_bench: " << e.what() << "\n";
        return 2;
    }
    std::cout << "load average at start: " << spike::bench::loadAverage() << "\n";
    std::cout << "CUBA-like E/I (80/20) CUBALIF, in_degree " << opt.fanInExc << " exc ("
              << opt.we << " mV) + " << opt.fanInInh << " inh (" << opt.wi << " mV), dt = "
              << opt.dt * 1e3 << " ms, " << opt.warmup << " warm-up + " << opt.steps
              << " timed steps, backend " << opt.backend << ", threads " << opt.threads << "\n\n";
    std::cout << "        N    synapses  mem[MB]  B/syn  build[s]   run[s] neurons[s] rate[Hz] min/step max/step events/step[k]"
                 "  Mevents/s  delivery Mev/s  rand-acc M/s   ratio\n";

    std::vector<Row> rows;
    for (const std::int64_t n : opt.sizes) {
        Row row;
        row.n = n;
        // CSR (4 B per synapse, plus transient draw state), executor rows (about 5 N floats per
        // buffered step), the random-access index array; with a 1.5x margin.
        const double need = 1.5 * (4.0 * static_cast<double>(n * (opt.fanInExc + opt.fanInInh)) +
                                   4.0 * 5.0 * static_cast<double>(n * chunkFor(n)) +
                                   4.0 * static_cast<double>(std::max<std::int64_t>(1 << 24, 32 * n)));
        if (const auto avail = availableMemory(); avail && need > 0.8 * *avail) {
            row.note = "skipped: needs ~" + fmt(need / 1073741824.0, 0, 1) + " GiB, " +
                       fmt(*avail / 1073741824.0, 0, 1) + " GiB available";
            printRow(row, opt.dt, opt.steps);
            rows.push_back(row);
            continue;
        }
        try {
            row.randomAccess = randomAccessRate(2 * n, opt.seed + static_cast<std::uint64_t>(n));
            {
                Built twin = build(opt, n, false);
                row.neuronSeconds = run(opt, kind, twin, false, row);
            }
            row.residentBase = residentBytes();
            const auto start = Clock::now();
            Built built = build(opt, n, true);
            row.buildSeconds = secondsSince(start);
            row.synapses = built.synapses;
            row.runSeconds = run(opt, kind, built, true, row);
        } catch (const engine::Error& e) {
            row.note = std::string("failed: ") + e.what();
        }
        if (row.cpuShare < 0.9) {
            row.note += (row.note.empty() ? "" : "; ") + std::string("busy machine: ") +
                        std::to_string(static_cast<int>(100 * row.cpuShare)) + " % of a core";
        }
        printRow(row, opt.dt, opt.steps);
        rows.push_back(row);
    }
    std::cout << "\nrun = timed steps with probes and spike counting; neurons = the same populations "
                 "unconnected (lock-step, no probes);\nmin/step, max/step = fewest and most "
                 "spikes in one step over " << kSpreadSteps << " further steps (asynchronous "
                 "activity: both near rate x N x dt);\ndelivery Mev/s = events / (run - neurons); "
                 "ratio = Mevents/s / random-access M/s (scattered adds into 2N floats);\nmem = resident-set growth "
                 "from before the build to after the warm-up, B/syn = mem / synapses\n";
    std::cout << "load average at end: " << spike::bench::loadAverage() << "\n";

    if (!opt.jsonPath.empty()) {
        nlohmann::json results = nlohmann::json::array();
        for (const Row& r : rows) {
            results.push_back({{"n", r.n},
                               {"synapses", r.synapses},
                               {"build_seconds", r.buildSeconds},
                               {"run_seconds", r.runSeconds},
                               {"neuron_seconds", r.neuronSeconds},
                               {"spikes", r.spikes},
                               {"synaptic_events", r.events},
                               {"random_access_per_s", r.randomAccess},
                               {"fewest_spikes_per_step", r.fewest},
                               {"most_spikes_per_step", r.most},
                               {"cpu_share", r.cpuShare},
                               {"memory_bytes", r.memoryBytes},
                               {"note", r.note}});
        }
        std::ofstream out(opt.jsonPath);
        out << nlohmann::json{{"benchmark", "scaling"},
                              {"steps", opt.steps},
                              {"warmup", opt.warmup},
                              {"dt", opt.dt},
                              {"fan_in_exc", opt.fanInExc},
                              {"fan_in_inh", opt.fanInInh},
                              {"we_mv", opt.we},
                              {"wi_mv", opt.wi},
                              {"results", results}}
                   .dump(2)
            << "\n";
        if (!out) {
            std::cerr << "scaling_bench: cannot write " << opt.jsonPath << "\n";
            return 1;
        }
    }
    return 0;
}
