// equations_bench: equation-defined neuron models (EquationNeuron, docs/equations.md) in
// SpikeStudio against Brian2's C++ standalone device (brian2_equations.py, one thread, no
// OpenMP), side by side in one run (issue #17, Speed). Cases (equations_models.hpp), each
// --duration of biological time (default 1 s):
//
//   1. izhikevich  10^4 Izhikevich neurons (8000 RS, 2000 FS), constant per-neuron drive
//                  uniform in [4, 8] mV, sparse random coupling p = 0.01, on_pre 'v += w'
//                  (we 0.5 mV, wi -1 mV), euler, dt 0.1 ms. Connectivity differs between the
//                  sides (different generators): rates are compared, not spikes.
//      uncoupled   the same populations and drives with p = 0 on both sides (a breakdown row,
//                  no targets): the neuron update, threshold and reset alone.
//   2. hh          10^3 uncoupled HodgkinHuxley (library model, exponential_euler, dt 0.01 ms),
//                  constant drive uniform in [5, 15] uA/cm^2 (0.05 to 0.15 A/m^2).
//   3. cuba        bench/cuba's CUBA network (4000 CUBALIF, the model file) against the same
//                  network with both populations an EquationNeuron running CUBA's neuron as
//                  equations (method exact). SpikeStudio only.
//   4. lifrefrac   10^5 of Norse's LIFRefrac, built in, against the same neuron as equations
//                  (resources/examples/lifrefrac_as_equations.json), a current step into
//                  every neuron, dt 1 ms. SpikeStudio only.
//
// The drives are drawn here (seeded), written to a temporary text file and passed to the peer,
// so both sides use the same numbers. SpikeStudio side: the product path (equations_run.hpp:
// engine::HeadlessRun on --backend, default cpu, one thread), best of --repeats fresh builds;
// per-population rates from one more, untimed run. Brian2 side: the standalone binary's own
// timer around the network run, best of --repeats runs of the compiled binary.
//
// Printed: a table with both run times, Brian2 / SpikeStudio, both mean rates and their relative
// difference; the targets (>= 2x Brian2 on one core, rates within 5 %, equations within
// 1.5x of the hand-written neuron), reported, never asserted; and one line "JSON {...}" with
// everything (also written to --json). Single-threaded. Owns only what main() builds.
#include "bench/bench_common.hpp"
#include "bench/equations/equations_models.hpp"
#include "bench/equations/equations_run.hpp"
#include "engine/io/model_io.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#ifndef SPIKE_BENCH_DIR
#define SPIKE_BENCH_DIR "bench"
#endif

namespace {

namespace eqb = spike::bench::equations;
namespace engine = spike::engine;
using spike::bench::fmt;
using spike::bench::orNull;
using spike::bench::shellQuoted;

struct Options {
    std::string backend = "cpu";
    double duration = 1.0;  ///< biological time [s]
    std::uint64_t seed = 1;
    int repeats = 3;
    bool brian = true;
    std::vector<std::string> cases{"izhikevich", "uncoupled", "hh", "cuba", "lifrefrac"};
    eqb::IzhikevichCoupling coupling;
    std::string cubaModel = std::string(SPIKE_BENCH_DIR) + "/cuba/cuba_network_4000.json";
    std::string lifRefracModel = std::string(SPIKE_BENCH_DIR) + "/../resources/examples/lifrefrac_as_equations.json";
    std::int64_t lifRefracNeurons = 100000;
    std::string jsonPath;
    std::string python = "/usr/bin/python3";
    std::string peerScript = std::string(SPIKE_BENCH_DIR) + "/equations/brian2_equations.py";
};

/// One row of the table: a SpikeStudio run and, where there is one, Brian2's.
struct Row {
    std::string name;
    std::int64_t neurons = 0;
    eqb::Timing ours;
    std::vector<std::string> populations;
    std::vector<std::int64_t> sizes;
    std::vector<double> populationSpikes;
    std::optional<nlohmann::json> brian;
    std::string brianError;
    bool target = true;  ///< an issue case (its targets are printed); false: a breakdown row
};

double rateOf(double spikes, std::int64_t neurons, double duration)
{
    return spikes / (static_cast<double>(neurons) * duration);
}

/// Runs the peer on `case_` with the drive file; the reply or why there is none.
std::optional<nlohmann::json> runBrian(const Options& opt, const std::string& caseName,
                                       const std::string& drivePath,
                                       const eqb::IzhikevichCoupling& coupling, std::string& error)
{
    std::ostringstream cmd;
    cmd << shellQuoted(opt.python) << ' ' << shellQuoted(opt.peerScript) << " --case " << caseName
        << " --drive " << shellQuoted(drivePath) << " --duration " << opt.duration << " --seed "
        << opt.seed << " --repeats " << opt.repeats << " --p " << coupling.p << " --we "
        << coupling.we << " --wi " << coupling.wi << " 2>/dev/null";
    const spike::bench::PeerReply reply = spike::bench::runPeer(cmd.str(), "run_seconds");
    if (!reply.json) {
        error = reply.error;
    }
    return reply.json;
}

/// Times `factory`, counts its populations' spikes in one more run, and asks Brian2 when
/// `brianCase` is not empty (with `coupling` for the izhikevich case).
Row measure(const Options& opt, engine::BackendKind kind, const std::string& name,
            const eqb::Factory& factory, const std::vector<std::string>& populations,
            double dt, const std::string& brianCase, const std::string& drivePath,
            const eqb::IzhikevichCoupling& coupling = {})
{
    Row row;
    row.name = name;
    const std::int64_t steps = std::llround(opt.duration / dt);
    row.ours = eqb::timeHeadless(factory, kind, steps, opt.repeats);
    row.neurons = row.ours.neurons;
    row.populations = populations;
    auto root = factory();
    for (const std::string& p : populations) {
        row.sizes.push_back(root->getSubmodule(p).sizeOut());
    }
    row.populationSpikes = eqb::populationSpikes(*root, kind, populations, steps);
    std::cout << name << ": SpikeStudio (" << row.ours.backend << ", chunk " << row.ours.chunk
              << ") run " << fmt(row.ours.runSeconds, 0, 3) << " s, setup "
              << fmt(row.ours.buildSeconds + row.ours.executorSeconds, 0, 3) << " s, "
              << row.ours.spikes << " spikes" << std::endl;
    if (row.ours.cpuShare < 0.9) {
        std::cout << "NOTE: the best run got " << static_cast<int>(100 * row.ours.cpuShare)
                  << " % of a core (busy machine)\n";
    }
    if (row.ours.nonReproducible) {
        std::cout << "WARNING: " << name << ": " << *row.ours.nonReproducible << "\n";
    }
    if (opt.brian && !brianCase.empty()) {
        row.brian = runBrian(opt, brianCase, drivePath, coupling, row.brianError);
        if (row.brian) {
            std::cout << name << ": Brian2 run " << fmt((*row.brian)["run_seconds"].get<double>(), 0, 3)
                      << " s, " << (*row.brian)["spikes"].get<double>() << " spikes" << std::endl;
        } else {
            std::cout << name << ": Brian2 peer failed: " << row.brianError << std::endl;
        }
    }
    return row;
}

std::optional<double> brianRun(const Row& r)
{
    return r.brian ? std::optional<double>((*r.brian)["run_seconds"].get<double>()) : std::nullopt;
}

std::optional<double> brianRate(const Row& r)
{
    return r.brian ? std::optional<double>((*r.brian)["mean_rate_hz"].get<double>()) : std::nullopt;
}

void printRow(const Row& r, double duration)
{
    const double rate = rateOf(r.ours.spikes, r.neurons, duration);
    const auto bRun = brianRun(r);
    const auto bRate = brianRate(r);
    std::cout << r.name;
    for (std::size_t pad = r.name.size(); pad < 26; ++pad) {
        std::cout << ' ';
    }
    std::cout << fmt(static_cast<double>(r.neurons), 8, 0) << fmt(r.ours.runSeconds, 10, 3)
              << fmt(bRun, 10, 3)
              << fmt(bRun ? std::optional<double>(*bRun / r.ours.runSeconds) : std::nullopt, 9, 2)
              << fmt(rate, 11, 3) << fmt(bRate, 11, 3)
              << fmt(bRate ? std::optional<double>(100.0 * (rate - *bRate) / *bRate) : std::nullopt, 9, 2)
              << "\n";
    for (std::size_t k = 0; k < r.populations.size() && r.populations.size() > 1; ++k) {
        std::cout << "  " << r.populations[k] << " rate: SpikeStudio "
                  << fmt(rateOf(r.populationSpikes[k], r.sizes[k], duration), 0, 3) << " Hz";
        if (r.brian && (*r.brian)["groups"].contains(r.populations[k])) {
            std::cout << ", Brian2 "
                      << fmt((*r.brian)["groups"][r.populations[k]]["rate_hz"].get<double>(), 0, 3)
                      << " Hz";
        }
        std::cout << "\n";
    }
}

nlohmann::json rowJson(const Row& r, double duration)
{
    nlohmann::json pops = nlohmann::json::object();
    for (std::size_t k = 0; k < r.populations.size(); ++k) {
        pops[r.populations[k]] = {{"neurons", r.sizes[k]},
                                  {"spikes", r.populationSpikes[k]},
                                  {"rate_hz", rateOf(r.populationSpikes[k], r.sizes[k], duration)}};
    }
    const auto bRun = brianRun(r);
    return {{"name", r.name},
            {"neurons", r.neurons},
            {"backend", r.ours.backend},
            {"chunk", r.ours.chunk},
            {"run_seconds", r.ours.runSeconds},
            {"build_seconds", r.ours.buildSeconds},
            {"executor_seconds", r.ours.executorSeconds},
            {"cpu_share", r.ours.cpuShare},
            {"spikes", r.ours.spikes},
            {"mean_rate_hz", rateOf(r.ours.spikes, r.neurons, duration)},
            {"populations", pops},
            {"brian2", r.brian ? *r.brian : nlohmann::json(nullptr)},
            {"brian2_error", r.brianError},
            {"brian2_over_spikestudio",
             orNull(bRun ? std::optional<double>(*bRun / r.ours.runSeconds) : std::nullopt)}};
}

std::string verdict(std::optional<double> value, bool met, int precision, const char* unit)
{
    if (!value) {
        return "not measured";
    }
    return std::string(met ? "met" : "NOT met") + " (" + fmt(value, 0, precision) + unit + ")";
}

bool wanted(const Options& opt, const std::string& name)
{
    return std::find(opt.cases.begin(), opt.cases.end(), name) != opt.cases.end();
}

}  // namespace

int main(int argc, char** argv)
{
    Options opt;
    CLI::App app{"Equation-defined models: SpikeStudio against Brian2 cpp_standalone"};
    app.add_option("--backend", opt.backend, "auto, cpu or cuda")->capture_default_str();
    app.add_option("--duration", opt.duration, "Biological time per case [s]")
        ->capture_default_str()->check(CLI::PositiveNumber);
    app.add_option("--seed", opt.seed, "Seed of the drives and the connectivity")->capture_default_str();
    app.add_option("--repeats", opt.repeats, "Runs per side; the best is reported")
        ->capture_default_str()->check(CLI::Range(1, 100));
    app.add_option("--cases", opt.cases,
                   "Cases to run: izhikevich, uncoupled (the Izhikevich populations with p = 0, "
                   "where the neuron update's share of the time shows), hh, cuba")
        ->capture_default_str()->check(CLI::IsMember({"izhikevich", "uncoupled", "hh", "cuba", "lifrefrac"}));
    app.add_option("--p", opt.coupling.p, "Izhikevich: connection probability")
        ->capture_default_str()->check(CLI::Range(0.0, 1.0));
    app.add_option("--we", opt.coupling.we, "Izhikevich: RS weight [V]")->capture_default_str();
    app.add_option("--wi", opt.coupling.wi, "Izhikevich: FS weight [V]")->capture_default_str();
    app.add_option("--cuba-model", opt.cubaModel, "CUBA model file (CUBALIF populations)")
        ->capture_default_str();
    app.add_option("--lifrefrac-model", opt.lifRefracModel, "The LIFRefrac-as-equations example")
        ->capture_default_str();
    app.add_option("--lifrefrac-neurons", opt.lifRefracNeurons, "Neurons of the lifrefrac case")
        ->capture_default_str()->check(CLI::Range(std::int64_t{1}, std::int64_t{100000000}));
    bool noBrian = false;
    app.add_flag("--no-brian", noBrian, "Skip the Brian2 peer");
    app.add_option("--json", opt.jsonPath, "Also write the results to this JSON file");
    app.add_option("--python", opt.python, "Interpreter for the Brian2 peer")->capture_default_str();
    app.add_option("--peer", opt.peerScript, "Path of brian2_equations.py")->capture_default_str();
    CLI11_PARSE(app, argc, argv);
    opt.brian = !noBrian;

    engine::BackendKind kind{};
    try {
        kind = engine::parseBackendKind(opt.backend);
    } catch (const engine::Error& e) {
        std::cerr << "equations_bench: " << e.what() << "\n";
        return 2;
    }
    std::cout << "load average at start: " << spike::bench::loadAverage() << "\n";
    std::cout << "equations: " << opt.duration << " s per case, seed " << opt.seed << ", best of "
              << opt.repeats << ", backend " << opt.backend << std::endl;

    std::error_code ec;
    char dirTemplate[] = "/tmp/equations_bench_XXXXXX";
    const char* tmp = mkdtemp(dirTemplate);
    if (tmp == nullptr) {
        std::cerr << "equations_bench: cannot create a temporary directory\n";
        return 2;
    }
    const std::string tmpDir = tmp;

    std::vector<Row> rows;
    std::vector<std::pair<Row, Row>> handVsEquations;  ///< (hand-written, as equations)
    int status = 0;
    try {
        const std::vector<float> izhikevichDrive =
            eqb::uniformDrive(eqb::kRegular + eqb::kFast, 4e-3, 8e-3, opt.seed);
        const std::string izhikevichPath = tmpDir + "/izhikevich_drive.txt";
        eqb::writeDrive(izhikevichPath, izhikevichDrive);
        if (wanted(opt, "izhikevich")) {
            rows.push_back(measure(
                opt, kind, "Izhikevich 8000 RS+2000 FS",
                [&] { return eqb::buildIzhikevich(izhikevichDrive, opt.coupling, opt.seed); },
                {"RS", "FS"}, eqb::kIzhikevichDt, "izhikevich", izhikevichPath, opt.coupling));
        }
        if (wanted(opt, "uncoupled")) {
            eqb::IzhikevichCoupling none = opt.coupling;
            none.p = 0.0;
            rows.push_back(measure(
                opt, kind, "  same, uncoupled (p = 0)",
                [&] { return eqb::buildIzhikevich(izhikevichDrive, none, opt.seed); },
                {"RS", "FS"}, eqb::kIzhikevichDt, "izhikevich", izhikevichPath, none));
            rows.back().target = false;
        }
        if (wanted(opt, "hh")) {
            const std::vector<float> drive =
                eqb::uniformDrive(eqb::kHodgkinHuxley, 0.05, 0.15, opt.seed + 1);
            const std::string path = tmpDir + "/hh_drive.txt";
            eqb::writeDrive(path, drive);
            rows.push_back(measure(opt, kind, "HodgkinHuxley 1000", [&] {
                return eqb::buildHodgkinHuxley(drive);
            }, {"HH"}, eqb::kHodgkinHuxleyDt, "hh", path));
        }
        if (wanted(opt, "cuba")) {
            std::ifstream in(opt.cubaModel);
            const auto doc = nlohmann::json::parse(in, nullptr, false);
            if (doc.is_discarded()) {
                throw engine::Error(opt.cubaModel + ": not a readable JSON model file");
            }
            const auto asEquations = eqb::cubaAsEquations(doc);
            const std::string base = std::filesystem::path(opt.cubaModel).parent_path().string();
            Row hand = measure(opt, kind, "CUBA 4000 CUBALIF", [&] {
                return engine::modelFromJson(doc, opt.cubaModel, base).root;
            }, {"E", "I"}, eqb::kCubaDt, "", "");
            Row equations = measure(opt, kind, "CUBA 4000 EquationNeuron", [&] {
                return engine::modelFromJson(asEquations, "cuba as equations", base).root;
            }, {"E", "I"}, eqb::kCubaDt, "", "");
            handVsEquations.emplace_back(std::move(hand), std::move(equations));
        }
        if (wanted(opt, "lifrefrac")) {
            std::ifstream in(opt.lifRefracModel);
            const auto doc = nlohmann::json::parse(in, nullptr, false);
            if (doc.is_discarded()) {
                throw engine::Error(opt.lifRefracModel + ": not a readable JSON model file");
            }
            const std::int64_t n = opt.lifRefracNeurons;
            const std::string label = "LIFRefrac " + std::to_string(n);
            Row hand = measure(opt, kind, label + " built in", [&] {
                return engine::modelFromJson(eqb::lifRefracVariant(doc, "refrac", n, 0.5), "lifrefrac", "").root;
            }, {"refrac"}, 1e-3, "", "");
            Row equations = measure(opt, kind, label + " as equations", [&] {
                return engine::modelFromJson(eqb::lifRefracVariant(doc, "equations", n, 0.5), "lifrefrac", "").root;
            }, {"equations"}, 1e-3, "", "");
            handVsEquations.emplace_back(std::move(hand), std::move(equations));
        }
    } catch (const std::exception& e) {
        std::cerr << "equations_bench: " << e.what() << "\n";
        status = 2;
    }
    std::filesystem::remove_all(tmpDir, ec);
    if (status != 0) {
        return status;
    }

    std::cout << "\ncase                       neurons  SS run [s] B2 run [s]  B2/SS  SS rate [Hz] "
                 "B2 rate [Hz] diff [%]\n";
    for (const Row& r : rows) {
        printRow(r, opt.duration);
    }
    for (const auto& [hand, equations] : handVsEquations) {
        printRow(hand, opt.duration);
        printRow(equations, opt.duration);
    }
    std::cout << "(SS: SpikeStudio product path, HeadlessRun on " << opt.backend
              << "; B2: Brian2 cpp_standalone, 1 thread, binary's own timer; best of "
              << opt.repeats << ")\n";
    nlohmann::json cases = nlohmann::json::array();
    for (const Row& r : rows) {
        const auto bRun = brianRun(r);
        const auto bRate = brianRate(r);
        const std::optional<double> ratio =
            bRun ? std::optional<double>(*bRun / r.ours.runSeconds) : std::nullopt;
        const double rate = rateOf(r.ours.spikes, r.neurons, opt.duration);
        const std::optional<double> diff =
            bRate ? std::optional<double>(100.0 * (rate - *bRate) / *bRate) : std::nullopt;
        cases.push_back(rowJson(r, opt.duration));
        cases.back()["target_case"] = r.target;
        if (!r.target) {
            continue;
        }
        std::cout << "target " << r.name << ": >= 2x Brian2: "
                  << verdict(ratio, ratio && *ratio >= 2.0, 2, "x")
                  << "; rates within 5 %: " << verdict(diff, diff && std::abs(*diff) <= 5.0, 2, " %")
                  << "\n";
    }
    nlohmann::json j{{"benchmark", "equations"},
                     {"duration_s", opt.duration},
                     {"seed", opt.seed},
                     {"repeats", opt.repeats},
                     {"cases", cases}};
    nlohmann::json pairs = nlohmann::json::array();
    for (const auto& [hand, equations] : handVsEquations) {
        const double over = equations.ours.runSeconds / hand.ours.runSeconds;
        std::cout << equations.name << " / " << hand.name << " run time: " << fmt(over, 0, 3) << "; spikes "
                  << equations.ours.spikes << " vs " << hand.ours.spikes
                  << "\ntarget equations within 1.5x of the hand-written neuron: " << verdict(over, over <= 1.5, 3, "x")
                  << "\n";
        pairs.push_back({{"hand_written", rowJson(hand, opt.duration)},
                         {"equations", rowJson(equations, opt.duration)},
                         {"equations_over_hand_written", over}});
    }
    j["hand_written_vs_equations"] = pairs;
    std::cout << "load average at end: " << spike::bench::loadAverage() << "\n";
    std::cout << "JSON " << j.dump() << "\n";
    if (!opt.jsonPath.empty()) {
        std::ofstream out(opt.jsonPath);
        out << j.dump(2) << "\n";
        if (!out) {
            std::cerr << "equations_bench: cannot write " << opt.jsonPath << "\n";
            return 1;
        }
    }
    return 0;
}
