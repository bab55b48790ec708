// layers: forward-pass throughput of spike::engine::Linear, Conv2d (3x3, padding 1) and LSTM
// against torch.nn run by bench/layers_torch_peer.py, both on one thread.
//
// First, where /usr/bin/python3 can import torch, one small case per layer is checked: the
// engine's weights, input and output (for LSTM also the final h and c) are written as .npy
// files to a temporary directory, the peer loads the weights into the torch module, runs it, and
// the largest |engine - torch| must be at most kCheckTolerance ("check ok", or a MISMATCH line
// per case). Then every case is timed: Layer::forward (Linear, Conv2d) or
// LSTM::forwardWithState, two warm-up calls, then the best of k calls
// (std::chrono::steady_clock), k = clamp(budget / warm-up time, 3, 50). The peer times the same
// shapes the same way. Reported: GFLOP/s counting 2 x multiply-accumulates (bias additions and
// LSTM gate nonlinearities not counted), and engine/torch = torch time / engine time (above 1:
// the engine is faster). A line says which BLAS torch runs and how many threads each side uses.
// Nothing is asserted: exit 0 means it ran.
//
// Single-threaded, like the engine. Owns only what main() builds and its temporary directory.
#include "bench/bench_common.hpp"
#include "engine/layers/conv2d.hpp"
#include "engine/layers/linear.hpp"
#include "engine/layers/lstm.hpp"
#include "engine/tensor/npy.hpp"
#include "engine/tensor/tensor.hpp"

#include <CLI/CLI.hpp>
#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#ifndef SPIKE_BENCH_DIR
#define SPIKE_BENCH_DIR "bench"
#endif

namespace {

using spike::bench::fmt;
using spike::bench::loadAverage;
using spike::bench::orNull;
using spike::bench::PeerReply;
using spike::bench::processCpuSeconds;
using spike::bench::runPeer;
using spike::bench::secondsSince;
using spike::bench::shellQuoted;
using spike::bench::SplitMix64;
using spike::engine::Conv2d;
using spike::engine::LSTM;
using spike::engine::Shape;
using spike::engine::Tensor;
using Clock = spike::bench::Clock;

/// Largest |engine - torch| accepted by the correctness check (outputs are O(1) there).
constexpr double kCheckTolerance = 1e-4;

/// Command-line options.
struct Options {
    bool quick = false;
    bool torch = true;
    double budget = 0.0;  ///< seconds of timed calls per case; 0: 0.5, or 0.05 with --quick
    std::string jsonPath;
    std::string python = "/usr/bin/python3";
    std::string peerScript = std::string(SPIKE_BENCH_DIR) + "/layers_torch_peer.py";
    std::uint64_t seed = 1;
};

/// One benchmark configuration. `spec` is the case string the peer understands:
/// linear:B:IN:OUT, conv2d:N:CIN:COUT:H:W, lstm:L:N:IN:H:LAYERS.
struct Case {
    std::string kind;  ///< "linear", "conv2d", "lstm"
    std::vector<std::int64_t> d;
    std::string note;  ///< where the shape comes from, for the table

    std::string spec() const
    {
        std::string s = kind;
        for (const std::int64_t v : d) {
            s += ":" + std::to_string(v);
        }
        return s;
    }

    /// Human-readable shape.
    std::string label() const
    {
        std::ostringstream os;
        if (kind == "linear") {
            os << "B=" << d[0] << " " << d[1] << "->" << d[2];
        } else if (kind == "conv2d") {
            os << "N=" << d[0] << " " << d[1] << "->" << d[2] << " " << d[3] << "x" << d[4];
        } else {
            os << "L=" << d[0] << " N=" << d[1] << " " << d[2] << "->" << d[3] << " x" << d[4];
        }
        return os.str();
    }

    /// Floating-point operations of one forward pass: 2 per multiply-accumulate.
    double flops() const
    {
        const auto f = [this](std::size_t i) { return static_cast<double>(d[i]); };
        if (kind == "linear") {
            return 2.0 * f(0) * f(1) * f(2);
        }
        if (kind == "conv2d") {
            return 2.0 * f(0) * f(2) * f(3) * f(4) * f(1) * 9.0;
        }
        // Per layer and step: (N, in_k + H) x (in_k + H, 4H).
        double total = 0.0;
        for (std::int64_t k = 0; k < d[4]; ++k) {
            const double in = k == 0 ? f(2) : f(3);
            total += 2.0 * f(0) * f(1) * 4.0 * f(3) * (in + f(3));
        }
        return total;
    }
};

/// One row of the results table.
struct Row {
    Case c;
    int repeats = 0;
    std::optional<double> engineSeconds;
    double engineCpuShare = 1.0;  ///< process CPU time / wall time of the best call
    std::optional<double> torchSeconds;
    int torchRepeats = 0;
    double torchCpuShare = 1.0;
    std::string torchOp;  ///< the aten op that did most of torch's work
    std::string note;

    std::optional<double> engineGflops() const
    {
        return engineSeconds ? std::optional<double>(c.flops() / *engineSeconds / 1e9)
                             : std::nullopt;
    }
    std::optional<double> torchGflops() const
    {
        return torchSeconds ? std::optional<double>(c.flops() / *torchSeconds / 1e9)
                            : std::nullopt;
    }
    std::optional<double> ratio() const
    {
        return engineSeconds && torchSeconds
                   ? std::optional<double>(*torchSeconds / *engineSeconds)
                   : std::nullopt;
    }
};

/// The timed configurations. Linear: the square GEMM sizes of an MLP at a training-size batch
/// and at batch 1 (a matrix-vector product). Conv2d: a residual tower's 64 channels at 8x8 and
/// 16x16, and the 8-channel 4x4 convolution of the DynamicsNetwork. LSTM: a sequence of 50.
std::vector<Case> timedCases()
{
    return {
        {"linear", {256, 512, 512}, ""},
        {"linear", {256, 1024, 1024}, ""},
        {"linear", {1, 512, 512}, "matrix-vector"},
        {"linear", {1, 1024, 1024}, "matrix-vector"},
        {"conv2d", {32, 64, 64, 8, 8}, ""},
        {"conv2d", {32, 64, 64, 16, 16}, ""},
        {"conv2d", {32, 8, 8, 4, 4}, "DynamicsNetwork"},
        {"lstm", {50, 32, 128, 128, 1}, ""},
        {"lstm", {50, 32, 128, 128, 2}, ""},
    };
}

/// The small cases the correctness check runs, one per layer.
std::vector<Case> checkCases()
{
    return {
        {"linear", {8, 64, 32}, ""},
        {"conv2d", {2, 8, 8, 5, 4}, ""},
        {"lstm", {5, 3, 16, 16, 2}, ""},
    };
}

/// Uniform [-1, 1) tensor.
Tensor randomTensor(const Shape& shape, std::uint64_t seed)
{
    Tensor t(shape);
    SplitMix64 rng(seed);
    for (std::int64_t i = 0; i < t.numel(); ++i) {
        t[i] = rng.symmetric();
    }
    return t;
}

/// An engine layer built for a case, its input, and one forward call on that input.
struct EngineCase {
    std::unique_ptr<spike::engine::Module> module;
    Tensor input;
    /// Runs the forward pass on an input; returns the output (for LSTM also the final h and c).
    std::function<std::vector<Tensor>(const Tensor&)> forward;

    std::vector<Tensor> run() const { return forward(input); }
};

EngineCase buildEngine(const Case& c, std::uint64_t seed)
{
    EngineCase e;
    const auto& d = c.d;
    if (c.kind == "linear") {
        auto layer = std::make_unique<spike::engine::Linear>(d[1], d[2]);
        e.input = randomTensor(Shape{d[0], d[1]}, seed);
        auto* p = layer.get();
        e.forward = [p](const Tensor& x) { return std::vector<Tensor>{p->forward(x)}; };
        e.module = std::move(layer);
    } else if (c.kind == "conv2d") {
        auto layer = std::make_unique<Conv2d>(d[1], d[2], spike::engine::Size2{3, 3},
                                              spike::engine::Size2{1, 1},
                                              spike::engine::Size2{1, 1},
                                              spike::engine::Size2{1, 1}, 1, true,
                                              spike::engine::Size2{d[3], d[4]});
        e.input = randomTensor(Shape{d[0], d[1], d[3], d[4]}, seed);
        auto* p = layer.get();
        e.forward = [p](const Tensor& x) { return std::vector<Tensor>{p->forward(x)}; };
        e.module = std::move(layer);
    } else {
        auto layer = std::make_unique<LSTM>(d[2], d[3], d[4]);
        e.input = randomTensor(Shape{d[0], d[1], d[2]}, seed);
        auto* p = layer.get();
        e.forward = [p](const Tensor& x) {
            auto r = p->forwardWithState(x);
            return std::vector<Tensor>{std::move(r.output), std::move(r.h), std::move(r.c)};
        };
        e.module = std::move(layer);
    }
    return e;
}

/// Timed calls for a case whose warm-up call took `warm` seconds.
int repeatsFor(double warm, const Options& opt)
{
    const int minRepeats = opt.quick ? 1 : 3;
    const int maxRepeats = opt.quick ? 3 : 50;
    const double wanted = opt.budget / std::max(warm, 1e-9);
    return static_cast<int>(std::clamp(wanted, static_cast<double>(minRepeats),
                                       static_cast<double>(maxRepeats)));
}

void timeEngine(const Options& opt, Row& row, std::uint64_t seed)
{
    EngineCase e = buildEngine(row.c, seed);
    static_cast<void>(e.run());  // first call: allocator, page tables, caches
    auto start = Clock::now();
    static_cast<void>(e.run());
    row.repeats = repeatsFor(secondsSince(start), opt);
    double best = std::numeric_limits<double>::infinity();
    for (int r = 0; r < row.repeats; ++r) {
        const double cpuStart = processCpuSeconds();
        start = Clock::now();
        const auto out = e.run();
        const double wall = secondsSince(start);
        if (wall < best) {
            best = wall;
            row.engineCpuShare = (processCpuSeconds() - cpuStart) / wall;
        }
    }
    row.engineSeconds = best;
    // CPU time of calls under a millisecond is too coarse to flag anything.
    if (best >= 1e-3 && (row.engineCpuShare < 0.9 || row.engineCpuShare > 1.1)) {
        std::ostringstream os;
        os << "engine best call used " << static_cast<int>(100 * row.engineCpuShare)
           << " % of a core";
        row.note += (row.note.empty() ? "" : "; ") + os.str();
    }
}

/// Temporary directory for the check files, removed on destruction.
class TempDir {
public:
    TempDir()
    {
        std::string pattern =
            (std::filesystem::temp_directory_path() / "spike-layers-XXXXXX").string();
        if (mkdtemp(pattern.data()) != nullptr) {
            m_path = pattern;
        }
    }
    ~TempDir()
    {
        if (!m_path.empty()) {
            std::error_code ec;
            std::filesystem::remove_all(m_path, ec);
        }
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::string& path() const { return m_path; }

private:
    std::string m_path;
};

/// Writes one check case (weights, input, engine outputs) to `dir`.
void writeCheck(const Case& c, const std::string& dir, std::uint64_t seed)
{
    std::filesystem::create_directories(dir);
    EngineCase e = buildEngine(c, seed);
    const std::vector<Tensor> out = e.run();
    namespace npy = spike::engine::npy;
    for (const auto& [key, value] : e.module->stateDict()) {
        npy::save(dir + "/" + key + ".npy", value);
    }
    npy::save(dir + "/input.npy", e.input);
    npy::save(dir + "/expected.npy", out[0]);
    if (c.kind == "lstm") {
        npy::save(dir + "/expected_h.npy", out[1]);
        npy::save(dir + "/expected_c.npy", out[2]);
    }
    std::ofstream(dir + "/case.txt") << c.spec() << "\n";
}

/// What the peer said about itself and the checks.
struct PeerInfo {
    std::string blasLine;
    std::string threadsLine;
    nlohmann::json json;
};

/// Prints the check outcome; returns whether every case passed.
bool reportChecks(const nlohmann::json& checks, std::size_t expected)
{
    bool ok = checks.is_array() && checks.size() == expected;
    if (!ok) {
        std::cout << "check MISMATCH: the peer answered " << (checks.is_array() ? checks.size() : 0)
                  << " of " << expected << " checks\n";
    }
    for (const auto& ch : checks) {
        const double diff = ch.value("max_abs_diff", std::numeric_limits<double>::infinity());
        const bool pass = std::isfinite(diff) && diff <= kCheckTolerance;
        ok = ok && pass;
        std::ostringstream os;
        os.setf(std::ios::scientific);
        os.precision(1);
        os << diff << " (tolerance " << kCheckTolerance;
        std::cout << "  check " << ch.value("case", std::string("?")) << ": "
                  << (pass ? "ok" : "MISMATCH") << ", max |engine - torch| = " << os.str()
                  << ", max |torch| = "
                  << fmt(ch.value("max_abs_torch", 0.0), 0, 2) << ")\n";
    }
    std::cout << (ok ? "check ok" : "check MISMATCH: engine and torch disagree") << "\n";
    return ok;
}

/// One line on the BLAS torch runs, from the peer's "blas" object.
std::string blasLine(const nlohmann::json& blas)
{
    std::ostringstream os;
    os << "torch BLAS: " << blas.value("kind", std::string("?"));
    if (blas.contains("openblas_config")) {
        os << " (" << blas["openblas_config"].get<std::string>() << "; core "
           << blas.value("openblas_core", std::string("?")) << "; "
           << blas.value("openblas_threads", 0) << " thread(s))";
    }
    if (blas.contains("resolved") && blas["resolved"].is_array()) {
        os << ", loaded:";
        for (const auto& lib : blas["resolved"]) {
            os << " " << lib.get<std::string>();
        }
    }
    os << "; torch built with BLAS_INFO=" << blas.value("torch_blas_info", std::string("?"));
    return os.str();
}

void printHeader()
{
    std::cout << "layer   case                         k  engine [ms]  engine GFLOP/s   k  "
                 "torch [ms]  torch GFLOP/s  engine/torch  torch op\n";
}

void printRow(const Row& r)
{
    std::string kind = r.c.kind == "linear" ? "Linear" : r.c.kind == "conv2d" ? "Conv2d" : "LSTM";
    std::string label = r.c.label();
    std::cout << kind << std::string(8 - kind.size(), ' ') << label
              << std::string(label.size() < 25 ? 25 - label.size() : 1, ' ')
              << fmt(static_cast<double>(r.repeats), 4, 0)
              << fmt(r.engineSeconds ? std::optional<double>(*r.engineSeconds * 1e3) : std::nullopt,
                     13, 3)
              << fmt(r.engineGflops(), 16, 1)
              << fmt(r.torchSeconds ? std::optional<double>(r.torchRepeats) : std::nullopt, 4, 0)
              << fmt(r.torchSeconds ? std::optional<double>(*r.torchSeconds * 1e3) : std::nullopt,
                     12, 3)
              << fmt(r.torchGflops(), 15, 1) << fmt(r.ratio(), 14, 2) << "  "
              << (r.torchOp.empty() ? "-" : r.torchOp);
    std::string note = r.c.note;
    if (!r.note.empty()) {
        note += (note.empty() ? "" : "; ") + r.note;
    }
    if (!note.empty()) {
        std::cout << "   (" << note << ")";
    }
    std::cout << std::endl;
}

nlohmann::json toJson(const Options& opt, const std::string& torchInfo, const PeerInfo& peer,
                      std::optional<bool> checkOk, const std::vector<Row>& rows)
{
    nlohmann::json results = nlohmann::json::array();
    for (const Row& r : rows) {
        results.push_back({{"layer", r.c.kind},
                           {"case", r.c.spec()},
                           {"label", r.c.label()},
                           {"flops", r.c.flops()},
                           {"engine_repeats", r.repeats},
                           {"engine_seconds", orNull(r.engineSeconds)},
                           {"engine_gflops", orNull(r.engineGflops())},
                           {"engine_cpu_share", r.engineCpuShare},
                           {"torch_repeats", r.torchRepeats},
                           {"torch_seconds", orNull(r.torchSeconds)},
                           {"torch_gflops", orNull(r.torchGflops())},
                           {"torch_cpu_share", r.torchCpuShare},
                           {"torch_op", r.torchOp},
                           {"engine_over_torch", orNull(r.ratio())},
                           {"note", r.c.note + (r.c.note.empty() || r.note.empty() ? "" : "; ") +
                                        r.note}});
    }
    return {{"benchmark", "layers"},
            {"quick", opt.quick},
            {"budget_s", opt.budget},
            {"engine_threads", 1},
            {"eigen_simd", Eigen::SimdInstructionSetsInUse()},
            {"torch", torchInfo},
            {"torch_blas", peer.json.contains("blas") ? peer.json["blas"] : nlohmann::json()},
            {"torch_threads", peer.json.contains("threads") ? peer.json["threads"]
                                                            : nlohmann::json()},
            {"check_ok", checkOk ? nlohmann::json(*checkOk) : nlohmann::json(nullptr)},
            {"check_tolerance", kCheckTolerance},
            {"checks", peer.json.contains("checks") ? peer.json["checks"] : nlohmann::json()},
            {"results", results}};
}

}  // namespace

int main(int argc, char** argv)
{
    Options opt;
    CLI::App app{"Times Linear, Conv2d and LSTM forward passes against PyTorch, one thread"};
    app.add_flag("--quick", opt.quick, "Smoke run: short time budget, at most 3 timed calls");
    bool noTorch = false;
    app.add_flag("--no-torch", noTorch, "Skip the PyTorch peer (and the correctness check)");
    app.add_option("--budget", opt.budget,
                   "Seconds of timed calls per case and side (default 0.5, 0.05 with --quick)")
        ->check(CLI::PositiveNumber);
    app.add_option("--json", opt.jsonPath, "Also write the results to this JSON file");
    app.add_option("--python", opt.python, "Interpreter for the torch peer")
        ->capture_default_str();
    app.add_option("--peer", opt.peerScript, "Path of layers_torch_peer.py")
        ->capture_default_str();
    CLI11_PARSE(app, argc, argv);
    opt.torch = !noTorch;
    if (opt.budget <= 0.0) {
        opt.budget = opt.quick ? 0.05 : 0.5;
    }

    const auto wallStart = Clock::now();
    std::cout.setf(std::ios::fixed);
    std::cout.precision(2);
    std::cout << "load average at start: " << loadAverage() << " ("
              << std::thread::hardware_concurrency()
              << " hardware threads; other processes make every number below noisier)\n";
    std::cout << "engine: 1 thread (Eigen " << EIGEN_WORLD_VERSION << "." << EIGEN_MAJOR_VERSION
              << "." << EIGEN_MINOR_VERSION << " GEMM, Eigen::nbThreads() = " << Eigen::nbThreads()
              << ", SIMD " << Eigen::SimdInstructionSetsInUse() << ")\n";

    std::vector<Row> rows;
    for (const Case& c : timedCases()) {
        Row row;
        row.c = c;
        rows.push_back(row);
    }

    std::string torchInfo = "not requested (--no-torch)";
    PeerInfo peer;
    std::optional<bool> checkOk;
    if (opt.torch) {
        opt.torch = spike::bench::torchAvailable(opt.python, opt.peerScript, torchInfo);
        if (!opt.torch) {
            std::cout << "PyTorch peer unavailable: " << torchInfo
                      << "; continuing without it (no torch columns, no check)\n";
        }
    }
    if (opt.torch) {
        // One peer run does the checks and times every case; it runs before the engine is
        // timed, so the two never share the machine.
        TempDir tmp;
        std::ostringstream cmd;
        cmd << shellQuoted(opt.python) << ' ' << shellQuoted(opt.peerScript)
            << " --threads 1 --seed " << opt.seed << " --budget " << opt.budget
            << " --min-repeats " << (opt.quick ? 1 : 3) << " --max-repeats "
            << (opt.quick ? 3 : 50);
        const std::vector<Case> checks = checkCases();
        if (tmp.path().empty()) {
            std::cout << "check skipped: cannot create a temporary directory\n";
        } else {
            for (std::size_t i = 0; i < checks.size(); ++i) {
                const std::string dir = tmp.path() + "/" + checks[i].kind;
                writeCheck(checks[i], dir, opt.seed + 100 + i);
                cmd << " --check " << shellQuoted(dir);
            }
        }
        for (const Row& r : rows) {
            cmd << " --case " << r.c.spec();
        }
        const PeerReply reply = runPeer(cmd.str(), "results");
        if (!reply.json) {
            std::cout << "PyTorch peer failed: " << reply.error
                      << "; continuing without it (no torch columns, no check)\n";
            torchInfo += " (peer failed: " + reply.error + ")";
        } else {
            peer.json = *reply.json;
            std::cout << "PyTorch peer: " << torchInfo << ", torch.get_num_threads() = "
                      << peer.json.value("threads", 0)
                      << " (torch.set_num_threads(1); OMP/OPENBLAS/MKL_NUM_THREADS=1)\n";
            if (peer.json.contains("blas")) {
                std::cout << blasLine(peer.json["blas"]) << "\n";
            }
            if (peer.json.contains("mkldnn")) {
                std::cout << "torch oneDNN (mkldnn): "
                          << (peer.json["mkldnn"].value("available", false) ? "available"
                                                                            : "not available")
                          << (peer.json["mkldnn"].value("enabled", false) ? ", enabled"
                                                                          : ", disabled")
                          << " (torch uses it for Conv2d when 'torch op' says "
                             "aten::mkldnn_convolution)\n";
            }
            if (!tmp.path().empty()) {
                checkOk = reportChecks(peer.json.value("checks", nlohmann::json::array()),
                                       checks.size());
            }
            for (const auto& res : peer.json["results"]) {
                for (Row& r : rows) {
                    if (res.value("case", std::string()) == r.c.spec()) {
                        r.torchSeconds = res.value("seconds", 0.0);
                        r.torchRepeats = res.value("repeats", 0);
                        r.torchCpuShare = res.value("cpu_share", 1.0);
                        r.torchOp = res.value("op", std::string());
                        if (*r.torchSeconds >= 1e-3 &&
                            (r.torchCpuShare < 0.9 || r.torchCpuShare > 1.1)) {
                            std::ostringstream os;
                            os << "torch best call used " << static_cast<int>(100 * r.torchCpuShare)
                               << " % of a core";
                            r.note += (r.note.empty() ? "" : "; ") + os.str();
                        }
                    }
                }
            }
        }
    }

    std::cout << "\nGFLOP/s = 2 x multiply-accumulates / best time; engine/torch = torch time / "
                 "engine time (> 1: engine faster)\n";
    printHeader();
    std::uint64_t seed = opt.seed;
    for (Row& r : rows) {
        timeEngine(opt, r, seed++);
        printRow(r);
    }

    std::cout << "\nload average at end: " << loadAverage() << "; total "
              << fmt(secondsSince(wallStart), 0, 1) << " s\n";
    if (!opt.jsonPath.empty()) {
        std::ofstream out(opt.jsonPath);
        out << toJson(opt, torchInfo, peer, checkOk, rows).dump(2) << "\n";
        if (!out) {
            std::cerr << "layers: cannot write " << opt.jsonPath << "\n";
            return 1;
        }
        std::cout << "results written to " << opt.jsonPath << "\n";
    }
    return 0;
}
