// lif_layer: throughput of spike::engine::LIF against this machine's memory bandwidth and
// against a plain PyTorch loop of the same equations.
//
// For every N in --sizes and B in {1, 10} it builds a feed-forward LIF layer (N, N), one synapse
// per neuron, leak_mode taus, and times LIF::evolve() on a (B, T, N) input (a warm-up call, then
// the best of k calls, std::chrono::steady_clock). Reports neuron-steps per second and spikes
// per neuron-step, the ratio of the measured time to the memory-bandwidth floor of the update
// (kBytesPerNeuronStep bytes per neuron-step at the triad bandwidth measured in the same run),
// and, where /usr/bin/python3 can import torch, the ratio to bench/lif_torch_peer.py run with
// the same N, T, B and one thread. Targets are printed, never asserted: exit 0 means it ran.
//
// Single-threaded, like the engine. Owns only what main() builds; touches no shared state.
// Timing, the peer's popen and JSON reply, and the table formatting live in bench_common.hpp.
#include "bench/bench_common.hpp"
#include "bench/lif_layer_executor.hpp"
#include "engine/neurons/lif.hpp"
#include "engine/tensor/tensor.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#ifndef SPIKE_BENCH_DIR
#define SPIKE_BENCH_DIR "bench"
#endif

namespace {

using spike::bench::Clock;
using spike::bench::fmt;
using spike::bench::loadAverage;
using spike::bench::orNull;
using spike::bench::PeerReply;
using spike::bench::runPeer;
using spike::bench::secondsSince;
using spike::bench::shellQuoted;
using spike::bench::SplitMix64;
using spike::bench::threadCpuSeconds;
using spike::engine::LIF;
using spike::engine::Shape;
using spike::engine::Tensor;

/// Bytes the update must move per neuron-step when its state is streamed from memory: input x
/// read (4), isyn read + write (8), vmem read + write (8), float32 spike count written (4).
/// Per-neuron parameters (alpha, beta, bias, threshold) and the spikes-of-last-step state are
/// not counted: a layer with scalar parameters needs no per-neuron arrays for them, and the
/// spike state duplicates the output row. See bench/README.md.
constexpr double kBytesPerNeuronStep = 24.0;

// Input statistics: each entry is nonzero with probability kInputDensity, of magnitude
// kInputWeight, excitatory (+) with probability kExcitatoryFraction, inhibitory (-) otherwise.
// With the time constants below about 7 % of neuron-steps carry a spike (74 Hz at dt = 1 ms).
constexpr double kInputDensity = 0.05;
constexpr float kInputWeight = 0.5F;
constexpr double kExcitatoryFraction = 0.6;
constexpr float kTauMem = 0.02F;  // [s]
constexpr float kTauSyn = 0.01F;  // [s]
constexpr double kDt = 1e-3;      // [s], the engine's default

/// Command-line options.
struct Options {
    bool quick = false;
    bool torch = true;
    std::vector<std::int64_t> sizes;
    std::vector<std::int64_t> batches{1, 10};
    std::int64_t steps = 0;  ///< 0: 1000, or 100 with --quick
    std::string jsonPath;
    std::string python = "/usr/bin/python3";
    std::string peerScript = std::string(SPIKE_BENCH_DIR) + "/lif_torch_peer.py";
    std::uint64_t seed = 1;
    std::string backend;  ///< "": LIF::evolve() directly; "cpu"/"cuda": through that executor
    std::string device = "cpu";  ///< the torch peer's device (cuda with --backend cuda)
};

/// One row of the results table.
struct Row {
    std::int64_t n = 0;
    std::int64_t b = 0;
    std::int64_t t = 0;
    int repeats = 0;
    std::optional<double> engineSeconds;  ///< best of `repeats`; empty when skipped
    double engineSpikeRate = 0.0;         ///< spikes per neuron-step
    double engineCpuShare = 1.0;          ///< thread CPU time / wall time of the best call
    double floorSeconds = 0.0;
    std::optional<double> torchSeconds;
    double torchSpikeRate = 0.0;
    std::string note;  ///< skipped measurements and disturbances, for the table

    double neuronSteps() const { return static_cast<double>(n * b * t); }
};

/// Sustained single-thread memory bandwidth [GB/s] (1 GB = 1e9 bytes).
struct Bandwidth {
    double triad = 0.0;  ///< a[i] = b[i] + s * c[i], counted as 3 x 4 bytes per element
    double copy = 0.0;   ///< memcpy(a, b), counted as 2 x 4 bytes per element
};

/// Random sparse input of the given shape with the statistics described above.
Tensor makeInput(const Shape& shape, std::uint64_t seed)
{
    Tensor x(shape);
    SplitMix64 rng(seed);
    // Top 32 bits decide "nonzero", the low 32 bits decide the sign.
    const auto nonzeroBelow = static_cast<std::uint64_t>(kInputDensity * 4294967296.0);
    const auto positiveBelow = static_cast<std::uint64_t>(kExcitatoryFraction * 4294967296.0);
    float* data = x.data();
    for (std::int64_t i = 0; i < x.numel(); ++i) {
        const std::uint64_t r = rng.next();
        const bool nonzero = (r >> 32U) < nonzeroBelow;
        const bool positive = (r & 0xFFFFFFFFULL) < positiveBelow;
        data[i] = nonzero ? (positive ? kInputWeight : -kInputWeight) : 0.0F;
    }
    return x;
}

/// Best-of-`repeats` STREAM-like triad and copy over three arrays of `bytesPerArray` each.
/// Counts follow STREAM: the write-allocate read of the destination is not counted.
Bandwidth measureBandwidth(std::size_t bytesPerArray, int repeats)
{
    const std::size_t n = bytesPerArray / sizeof(float);
    std::vector<float> a(n, 0.0F);
    std::vector<float> b(n, 1.0F);
    std::vector<float> c(n, 2.0F);
    float* __restrict pa = a.data();
    const float* __restrict pb = b.data();
    const float* __restrict pc = c.data();
    const float s = 3.0F;
    double bestTriad = std::numeric_limits<double>::infinity();
    double bestCopy = std::numeric_limits<double>::infinity();
    for (int r = 0; r < repeats; ++r) {
        auto start = Clock::now();
        for (std::size_t i = 0; i < n; ++i) {
            pa[i] = pb[i] + s * pc[i];
        }
        bestTriad = std::min(bestTriad, secondsSince(start));
        // GCC turns a plain copy loop into memcpy anyway; say so by calling it.
        start = Clock::now();
        std::memcpy(pa, pb, n * sizeof(float));
        bestCopy = std::min(bestCopy, secondsSince(start));
    }
    // Keep the stores observable.
    volatile float sink = a[n / 2];
    static_cast<void>(sink);
    const auto elements = static_cast<double>(n);
    return {3.0 * 4.0 * elements / bestTriad / 1e9, 2.0 * 4.0 * elements / bestCopy / 1e9};
}

/// MemAvailable from /proc/meminfo [bytes]; nullopt where it cannot be read.
std::optional<double> availableMemory()
{
    std::ifstream in("/proc/meminfo");
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        std::string key;
        double kib = 0.0;
        if (fields >> key >> kib && key == "MemAvailable:") {
            return kib * 1024.0;
        }
    }
    return std::nullopt;
}

/// Whether `bytes` may be allocated without pushing the machine into swap or the OOM killer.
bool fitsInMemory(double bytes, Row& row, const char* who)
{
    const auto avail = availableMemory();
    if (!avail || bytes < 0.85 * *avail) {
        return true;
    }
    std::ostringstream os;
    os.precision(3);
    os << who << " skipped: needs ~" << bytes / 1073741824.0 << " GiB, "
       << *avail / 1073741824.0 << " GiB available";
    row.note += (row.note.empty() ? "" : "; ") + os.str();
    return false;
}

/// Timed calls per configuration: enough that the best of them is not one unlucky call (short
/// runs are cheap to repeat), at least 3, and 2 for the largest (10^9 neuron-steps and more).
int repeatsFor(double neuronSteps, bool quick)
{
    if (quick) {
        return 1;
    }
    if (neuronSteps >= 1e9) {
        return 2;
    }
    return static_cast<int>(std::clamp(2e8 / neuronSteps, 3.0, 20.0));
}

/// Times the layer through the --backend executor (B = 1; see lif_layer_executor.hpp).
void timeOnExecutor(const Options& opt, Row& row, std::uint64_t seed)
{
    if (!fitsInMemory(2.0 * 4.0 * row.neuronSteps(), row, "engine")) {
        return;
    }
    const Tensor input = makeInput(Shape{row.t, row.n}, seed);
    const spike::engine::AttributeMap attributes{{"tau_mem", Tensor::scalar(kTauMem)},
                                                 {"tau_syn", Tensor::scalar(kTauSyn)},
                                                 {"dt", Tensor::scalar(static_cast<float>(kDt))}};
    const spike::bench::ExecutorTiming timing = spike::bench::timeLifOnExecutor(
        spike::engine::parseBackendKind(opt.backend), row.n, row.t, attributes, input.data(),
        row.repeats);
    row.engineSeconds = timing.seconds;
    row.engineSpikeRate = timing.spikes / row.neuronSteps();
}

/// Times LIF::evolve for row.n neurons, row.b batch elements and row.t steps.
void timeEngine(Row& row, std::uint64_t seed)
{
    // Input, evolve()'s internal copy of it, and the output, all float32 of the same size.
    const double tensorBytes = 4.0 * row.neuronSteps();
    if (!fitsInMemory(3.0 * tensorBytes, row, "engine")) {
        return;
    }
    LIF lif(row.n, row.n, false,
            {{"tau_mem", Tensor::scalar(kTauMem)}, {"tau_syn", Tensor::scalar(kTauSyn)},
             {"dt", Tensor::scalar(static_cast<float>(kDt))}});
    const Shape shape = row.b == 1 ? Shape{row.t, row.n} : Shape{row.b, row.t, row.n};
    const Tensor input = makeInput(shape, seed);

    static_cast<void>(lif.evolve(input));  // warm-up: caches, allocator, page tables
    double best = std::numeric_limits<double>::infinity();
    double spikes = 0.0;
    for (int r = 0; r < row.repeats; ++r) {
        const double cpuStart = threadCpuSeconds();
        const auto start = Clock::now();
        const auto result = lif.evolve(input);
        const double wall = secondsSince(start);
        if (wall < best) {
            best = wall;
            row.engineCpuShare = (threadCpuSeconds() - cpuStart) / wall;
        }
        if (r + 1 == row.repeats) {
            const Tensor& out = result.output;
            for (std::int64_t i = 0; i < out.numel(); ++i) {
                spikes += out[i];
            }
        }
    }
    row.engineSeconds = best;
    row.engineSpikeRate = spikes / row.neuronSteps();
    if (row.engineCpuShare < 0.9) {
        std::ostringstream os;
        os << "busy machine: the best engine call got "
           << static_cast<int>(100 * row.engineCpuShare) << " % of a core";
        row.note += (row.note.empty() ? "" : "; ") + os.str();
    }
}

/// Runs bench/lif_torch_peer.py for the row's N, B and T; fills the torch fields.
void timeTorch(const Options& opt, Row& row, std::uint64_t seed)
{
    // x and the spike raster, float32 (T, B, N) each, plus generation temporaries.
    if (!fitsInMemory(2.5 * 4.0 * row.neuronSteps(), row, "torch")) {
        return;
    }
    std::ostringstream cmd;
    cmd << shellQuoted(opt.python) << ' ' << shellQuoted(opt.peerScript) << " --n " << row.n
        << " --b " << row.b << " --t " << row.t << " --repeats " << row.repeats << " --seed "
        << seed << " --threads 1 --density " << kInputDensity << " --weight " << kInputWeight
        << " --excitatory " << kExcitatoryFraction << " --tau-mem " << kTauMem << " --tau-syn "
        << kTauSyn << " --dt " << kDt << " --device " << opt.device;
    // The peer prints one JSON object on its last non-empty line.
    const PeerReply reply = runPeer(cmd.str(), "seconds");
    if (!reply.json) {
        row.note += (row.note.empty() ? "" : "; ") + ("torch peer failed: " + reply.error);
        return;
    }
    const nlohmann::json& parsed = *reply.json;
    row.torchSeconds = parsed["seconds"].get<double>();
    row.torchSpikeRate = parsed.value("spikes_per_neuron_step", 0.0);
}

std::optional<double> engineRate(const Row& r)
{
    return r.engineSeconds ? std::optional<double>(r.neuronSteps() / *r.engineSeconds / 1e6)
                           : std::nullopt;
}

std::optional<double> torchRate(const Row& r)
{
    return r.torchSeconds ? std::optional<double>(r.neuronSteps() / *r.torchSeconds / 1e6)
                          : std::nullopt;
}

std::optional<double> floorRatio(const Row& r)
{
    return r.engineSeconds ? std::optional<double>(*r.engineSeconds / r.floorSeconds)
                           : std::nullopt;
}

std::optional<double> torchRatio(const Row& r)
{
    return r.engineSeconds && r.torchSeconds
               ? std::optional<double>(*r.torchSeconds / *r.engineSeconds)
               : std::nullopt;
}

void printHeader()
{
    std::cout << "       N   B     T   k  engine [ms]  engine [Mneuron-steps/s]  spikes/n-step"
                 "  floor [ms]  floor ratio  torch [Mneuron-steps/s]  torch spikes  engine/torch\n";
}

void printRow(const Row& r)
{
    const auto ifEngine = [&r](double v) {
        return r.engineSeconds ? std::optional<double>(v) : std::nullopt;
    };
    const auto ifTorch = [&r](double v) {
        return r.torchSeconds ? std::optional<double>(v) : std::nullopt;
    };
    std::cout << fmt(static_cast<double>(r.n), 8, 0) << fmt(static_cast<double>(r.b), 4, 0)
              << fmt(static_cast<double>(r.t), 6, 0) << fmt(static_cast<double>(r.repeats), 4, 0)
              << fmt(ifEngine(r.engineSeconds.value_or(0.0) * 1e3), 13, 2)
              << fmt(engineRate(r), 26, 1) << fmt(ifEngine(r.engineSpikeRate), 15, 4)
              << fmt(r.floorSeconds * 1e3, 12, 2) << fmt(floorRatio(r), 13, 2)
              << fmt(torchRate(r), 25, 2) << fmt(ifTorch(r.torchSpikeRate), 14, 4)
              << fmt(torchRatio(r), 14, 1);
    if (!r.note.empty()) {
        std::cout << "   (" << r.note << ")";
    }
    std::cout << std::endl;
}

nlohmann::json toJson(const Options& opt, const Bandwidth& bw, const std::string& torchInfo,
                      const std::vector<Row>& rows)
{
    nlohmann::json results = nlohmann::json::array();
    for (const Row& r : rows) {
        results.push_back({{"n", r.n},
                           {"b", r.b},
                           {"t", r.t},
                           {"repeats", r.repeats},
                           {"engine_seconds", orNull(r.engineSeconds)},
                           {"engine_mneuron_steps_per_s", orNull(engineRate(r))},
                           {"engine_spikes_per_neuron_step", r.engineSpikeRate},
                           {"engine_cpu_share", r.engineCpuShare},
                           {"floor_seconds", r.floorSeconds},
                           {"floor_ratio", orNull(floorRatio(r))},
                           {"torch_seconds", orNull(r.torchSeconds)},
                           {"torch_mneuron_steps_per_s", orNull(torchRate(r))},
                           {"torch_spikes_per_neuron_step", r.torchSpikeRate},
                           {"engine_over_torch", orNull(torchRatio(r))},
                           {"note", r.note}});
    }
    return {{"benchmark", "lif_layer"},
            {"quick", opt.quick},
            {"threads", 1},
            {"bytes_per_neuron_step", kBytesPerNeuronStep},
            {"bandwidth_triad_gb_s", bw.triad},
            {"bandwidth_copy_gb_s", bw.copy},
            {"torch", torchInfo},
            {"params",
             {{"tau_mem_s", kTauMem},
              {"tau_syn_s", kTauSyn},
              {"dt_s", kDt},
              {"input_density", kInputDensity},
              {"input_weight", kInputWeight},
              {"excitatory_fraction", kExcitatoryFraction}}},
            {"results", results}};
}

/// Prints whether the two stated targets are met (information only).
void printTargets(const std::vector<Row>& rows)
{
    std::optional<double> torchAt1k;
    std::optional<double> floorAt100k;
    for (const Row& r : rows) {
        if (r.n == 1000 && r.b == 1 && torchRatio(r)) {
            torchAt1k = torchRatio(r);
        }
        if (r.n == 100000 && floorRatio(r)) {
            floorAt100k = std::max(floorAt100k.value_or(0.0), *floorRatio(r));
        }
    }
    std::cout << "target: engine >= 50x the PyTorch loop at N = 1000, B = 1: ";
    if (torchAt1k) {
        std::cout << (*torchAt1k >= 50.0 ? "met" : "NOT met") << " (" << fmt(torchAt1k, 0, 1)
                  << "x)\n";
    } else {
        std::cout << "not measured\n";
    }
    std::cout << "target: engine within 3x of the bandwidth floor at N = 100000: ";
    if (floorAt100k) {
        std::cout << (*floorAt100k <= 3.0 ? "met" : "NOT met") << " (worst floor ratio "
                  << fmt(floorAt100k, 0, 2) << ")\n";
    } else {
        std::cout << "not measured\n";
    }
}

}  // namespace

int main(int argc, char** argv)
{
    Options opt;
    CLI::App app{"Times the LIF layer against memory bandwidth and a PyTorch loop"};
    app.add_flag("--quick", opt.quick, "Smoke run: T = 100, one timed call, N = 1000,10000");
    bool noTorch = false;
    app.add_flag("--no-torch", noTorch, "Skip the PyTorch peer");
    app.add_option("--sizes", opt.sizes,
                   "Neuron counts, comma separated (default 1000,10000,100000)")
        ->delimiter(',')
        ->check(CLI::PositiveNumber);
    app.add_option("--batches", opt.batches, "Batch sizes, comma separated (default 1,10)")
        ->delimiter(',')
        ->check(CLI::PositiveNumber);
    app.add_option("--steps", opt.steps, "Time steps T (default 1000, 100 with --quick)")
        ->check(CLI::PositiveNumber);
    app.add_option("--json", opt.jsonPath, "Also write the results to this JSON file");
    app.add_option("--python", opt.python, "Interpreter for the torch peer")
        ->capture_default_str();
    app.add_option("--peer", opt.peerScript, "Path of lif_torch_peer.py")->capture_default_str();
    app.add_option("--backend", opt.backend,
                   "cpu or cuda: run the layer through that executor, input and spikes crossing "
                   "to and from the host every 250 steps (B = 1 only; the torch peer then runs "
                   "on the same device); default: LIF::evolve() on the CPU");
    CLI11_PARSE(app, argc, argv);
    opt.torch = !noTorch;
    if (!opt.backend.empty()) {
        if (opt.backend != "cpu" && opt.backend != "cuda") {
            std::cerr << "lif_layer: --backend must be cpu or cuda, got '" << opt.backend << "'\n";
            return 2;
        }
        std::string why;
        if (!spike::engine::backendAvailable(spike::engine::parseBackendKind(opt.backend), &why)) {
            std::cerr << "lif_layer: backend " << opt.backend << " is not available: " << why << "\n";
            return 2;
        }
        opt.device = opt.backend;
        opt.batches = {1};
    }
    if (opt.sizes.empty()) {
        opt.sizes = opt.quick ? std::vector<std::int64_t>{1000, 10000}
                              : std::vector<std::int64_t>{1000, 10000, 100000};
    }
    if (opt.steps == 0) {
        opt.steps = opt.quick ? 100 : 1000;
    }

    // Bandwidth first: the floor of every row depends on it. 3 x 256 MiB is several times the
    // last-level cache of current server parts (105 MiB on the machine this was written on).
    const std::size_t arrayBytes = (opt.quick ? 64U : 256U) * 1024U * 1024U;
    const Bandwidth bw = measureBandwidth(arrayBytes, opt.quick ? 3 : 6);
    std::cout.setf(std::ios::fixed);
    std::cout.precision(2);
    std::cout << "load average at start: " << loadAverage() << " ("
              << std::thread::hardware_concurrency()
              << " hardware threads; other processes make every number below noisier)\n";
    std::cout << "memory bandwidth (1 thread, 3 x " << arrayBytes / 1048576U
              << " MiB): triad " << bw.triad << " GB/s, copy " << bw.copy << " GB/s\n";
    std::cout << "LIF feed-forward, n_synapses = 1, tau_mem = " << kTauMem * 1e3
              << " ms, tau_syn = " << kTauSyn * 1e3 << " ms, dt = " << kDt * 1e3
              << " ms; input " << kInputDensity * 100 << " % nonzero, +-" << kInputWeight
              << "; floor = " << kBytesPerNeuronStep << " B/neuron-step at the triad bandwidth\n";

    if (!opt.backend.empty()) {
        std::cout << "engine = the " << opt.backend << " executor, host input in and spikes out "
                  << "every 250 steps (transfers included); torch peer on " << opt.device
                  << " (its input and raster stay there); floor ratios are against this "
                  << "host's memory, not the device's\n";
    }
    std::string torchInfo = "not requested (--no-torch)";
    if (opt.torch) {
        opt.torch = spike::bench::torchAvailable(opt.python, opt.peerScript, torchInfo);
        if (opt.torch) {
            std::cout << "PyTorch peer: " << torchInfo << ", 1 thread\n";
        } else {
            std::cout << "PyTorch peer unavailable: " << torchInfo << "; continuing without it\n";
        }
    }
    std::cout << "\n";
    printHeader();

    std::vector<Row> rows;
    std::uint64_t seed = opt.seed;
    for (const std::int64_t n : opt.sizes) {
        for (const std::int64_t b : opt.batches) {
            Row row;
            row.n = n;
            row.b = b;
            row.t = opt.steps;
            row.repeats = repeatsFor(row.neuronSteps(), opt.quick);
            row.floorSeconds = row.neuronSteps() * kBytesPerNeuronStep / (bw.triad * 1e9);
            if (opt.backend.empty()) {
                timeEngine(row, seed);
            } else {
                timeOnExecutor(opt, row, seed);
            }
            if (opt.torch) {
                timeTorch(opt, row, seed);
            }
            printRow(row);
            rows.push_back(row);
            ++seed;
        }
    }

    std::cout << "\n";
    for (const Row& r : rows) {
        if (r.engineSeconds && r.engineSpikeRate <= 0.0) {
            std::cout << "WARNING: no spikes at N = " << r.n << ", B = " << r.b
                      << "; the input statistics are too weak to exercise the spike path\n";
        }
    }
    printTargets(rows);
    std::cout << "load average at end: " << loadAverage() << "\n";
    std::cout << "memory bandwidth: triad " << bw.triad << " GB/s, copy " << bw.copy
              << " GB/s (1 thread); LIF floor " << kBytesPerNeuronStep << " B/neuron-step = "
              << bw.triad * 1e3 / kBytesPerNeuronStep << " Mneuron-steps/s\n";

    if (!opt.jsonPath.empty()) {
        std::ofstream out(opt.jsonPath);
        out << toJson(opt, bw, torchInfo, rows).dump(2) << "\n";
        if (!out) {
            std::cerr << "lif_layer: cannot write " << opt.jsonPath << "\n";
            return 1;
        }
        std::cout << "results written to " << opt.jsonPath << "\n";
    }
    return 0;
}
