// `spikesim analyse MODEL fi`: the f-I curve of one module of a model file as CSV
// (engine::fiCurve, engine/analysis/fi_curve.hpp; the same numbers the GUI plots),
// `spikesim analyse MODEL sweep`: a measure of one module over a grid of one or two of its
// parameters as CSV (engine::parameterSweep, engine/analysis/parameter_sweep.hpp), and
// `spikesim analyse MODEL isi`: the spike statistics of one recorded population
// (engine::spikeStatistics, engine/analysis/spike_statistics.hpp), and
// `spikesim analyse MODEL divergence`: the largest difference per State between two backends
// run in lock-step, step by step (engine::backendDivergence, backend_divergence.hpp). Main thread;
// throws engine::Error with a one-line message. The CSV is written to a temporary file beside
// the target and renamed into place (spikesim_files.hpp), so a failure leaves no partial file.
// `spikesim analyse MODEL phase` lives in spikesim_phase.cpp.
#include "app/spikesim_commands.hpp"
#include "app/spikesim_files.hpp"

#include "engine/analysis/backend_divergence.hpp"
#include "engine/analysis/fi_curve.hpp"
#include "engine/analysis/parameter_sweep.hpp"
#include "engine/analysis/spike_statistics.hpp"
#include "engine/runtime/headless_run.hpp"
#include "engine/io/model_io.hpp"
#include "engine/nir/nir_import.hpp"
#include "engine/tensor/error.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <sstream>

namespace spike::app {

using engine::Error;

namespace {

/// The shortest text that reads back as exactly `v`.
std::string exact(double v)
{
    std::array<char, 32> buf{};
    const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v);
    return std::string(buf.data(), r.ptr);
}

std::string csvOf(const engine::FiCurve& c)
{
    std::ostringstream s;
    const bool analytic = !c.analyticHz.empty();
    s << "current,rate_hz,first_isi_rate_hz" << (analytic ? ",analytic_hz" : "") << "\n";
    for (std::size_t k = 0; k < c.current.size(); ++k) {
        s << exact(c.current[k]) << ',' << exact(c.rateHz[k]) << ',' << exact(c.firstIsiRateHz[k]);
        if (analytic) {
            s << ',' << exact(c.analyticHz[k]);
        }
        s << '\n';
    }
    return s.str();
}

/// The CSV column of a sweep's measure: rate_hz, cv, spikes, peak_<state>.
std::string measureColumn(const engine::SweepResult& r)
{
    if (r.measure == "rate") {
        return "rate_hz";
    }
    return r.measure == "peak" ? "peak_" + r.state : r.measure;
}

std::string csvOf(const engine::SweepResult& r)
{
    std::ostringstream s;
    s << r.axes[0].attribute << (r.y.empty() ? "" : "," + r.axes[1].attribute) << ','
      << measureColumn(r) << "\n";
    const std::size_t ny = std::max<std::size_t>(1, r.y.size());
    for (std::size_t i = 0; i < r.x.size(); ++i) {
        for (std::size_t j = 0; j < ny; ++j) {
            s << exact(r.x[i]) << ',';
            if (!r.y.empty()) {
                s << exact(r.y[j]) << ',';
            }
            s << exact(r.values[i * ny + j]) << '\n';
        }
    }
    return s.str();
}

/// The module at `node` (dotted path, "" the root) of `root`; throws Error naming --node.
const engine::Module& nodeOf(const engine::Module& root, const std::string& node)
{
    try {
        return root.getSubmodule(node);
    } catch (const Error& e) {
        throw Error("--node " + node + ": " + e.what());
    }
}

}  // namespace

int analyseFi(const FiCommandOptions& options, std::ostream& out)
{
    engine::FiOptions fi;
    if (!options.current.empty()) {
        engine::parseCurrentRange(options.current, fi);
    }
    fi.steps = options.steps;
    fi.warmupSteps = options.warmupSteps;
    if (!options.outPath.empty() && std::filesystem::is_directory(options.outPath)) {
        throw Error("--out " + options.outPath + " is a folder; give a file name (fi.csv)");
    }

    const auto root = engine::nir::loadAnyModel(options.model, options.nir);
    const engine::Module* node = &nodeOf(*root, options.node);
    const std::string name = options.node.empty() ? std::string("(root)") : options.node;
    engine::FiCurve curve;
    try {
        if (options.current.empty()) {  // the range the GUI's dialog starts with
            const engine::FiOptions suggested = engine::suggestedFiOptions(*node);
            fi.start = suggested.start;
            fi.stop = suggested.stop;
            fi.count = suggested.count;
        }
        curve = engine::fiCurve(*node, fi);
    } catch (const Error& e) {
        throw Error("--node " + name + ": " + e.what() +
                    (options.node.empty() ? " (choose a neuron module with --node PATH)" : ""));
    }

    const std::string csv = csvOf(curve);
    if (options.outPath.empty()) {
        out << csv;
        return 0;
    }
    writeAtomically(options.outPath, csv);
    std::ostringstream summary;
    summary << "f-I curve of " << node->className() << " '" << name << "' (" << curve.neurons
            << (curve.neurons == 1 ? " neuron" : " neurons") << ", port " << curve.port
            << (curve.portUnits.empty() ? "" : " [" + curve.portUnits + "]") << ", "
            << curve.steps << " steps of " << curve.dt << " s";
    if (curve.warmupSteps > 0) {
        summary << " after " << curve.warmupSteps << " warm-up steps";
    }
    summary << "): " << curve.current.size() << " currents from " << curve.current.front() << " to "
            << curve.current.back() << (options.current.empty() ? " (suggested)" : "") << ", rheobase ";
    if (curve.rheobase) {
        summary << *curve.rheobase << (curve.rheobaseRefined ? " (refined)" : " (grid point)");
    } else {
        summary << "none in range";
    }
    summary << ", analytic "
            << (curve.analyticKind.empty() ? "none (" + curve.analyticNote + ")"
                                           : curve.analyticKind)
            << " -> " << options.outPath << "\n";
    out << summary.str();
    return 0;
}

int analyseSweep(const SweepCommandOptions& options, std::ostream& out)
{
    if (options.params.empty() || options.params.size() > 2) {
        throw Error("--param: give one or two, as NAME=START:STOP:COUNT (got " +
                    std::to_string(options.params.size()) + ")");
    }
    engine::SweepOptions sweep;
    for (const std::string& text : options.params) {
        engine::SweepAxis axis;
        engine::parseSweepAxis(text, axis);
        sweep.axes.push_back(axis);
    }
    sweep.measure = options.measure;
    sweep.state = options.state;
    sweep.current = options.current;
    sweep.steps = options.steps;
    sweep.warmupSteps = options.warmupSteps;
    if (!options.outPath.empty() && std::filesystem::is_directory(options.outPath)) {
        throw Error("--out " + options.outPath + " is a folder; give a file name (sweep.csv)");
    }

    const auto root = engine::nir::loadAnyModel(options.model, options.nir);
    const engine::Module& node = nodeOf(*root, options.node);
    const std::string name = options.node.empty() ? std::string("(root)") : options.node;
    engine::SweepResult result;
    try {
        result = engine::parameterSweep(node, sweep);
    } catch (const Error& e) {
        throw Error("--node " + name + ": " + e.what() +
                    (options.node.empty() ? " (choose a neuron module with --node PATH)" : ""));
    }

    const std::string csv = csvOf(result);
    if (options.outPath.empty()) {
        out << csv;
        return 0;
    }
    writeAtomically(options.outPath, csv);
    double lo = 0.0;
    double hi = 0.0;
    bool any = false;
    for (double v : result.values) {
        if (std::isfinite(v)) {
            lo = any ? std::min(lo, v) : v;
            hi = any ? std::max(hi, v) : v;
            any = true;
        }
    }
    std::ostringstream summary;
    summary << "parameter sweep of " << node.className() << " '" << name << "' ("
            << result.neurons << (result.neurons == 1 ? " neuron" : " neurons") << ", port "
            << result.port << ", " << result.steps << " steps of " << result.dt << " s";
    if (result.warmupSteps > 0) {
        summary << " after " << result.warmupSteps << " warm-up steps";
    }
    summary << ", input " << options.current << "): " << result.x.size();
    if (!result.y.empty()) {
        summary << " x " << result.y.size();
    }
    summary << " points of " << result.axes[0].attribute
            << (result.y.empty() ? "" : " x " + result.axes[1].attribute) << ", "
            << measureColumn(result);
    if (any) {
        summary << " " << lo << " to " << hi << (result.unit.empty() ? "" : " " + result.unit);
    } else {
        summary << " undefined everywhere";
    }
    summary << (result.widePopulation ? ", one wide population" : ", one copy per point")
            << " -> " << options.outPath << "\n";
    out << summary.str();
    return 0;
}

int analyseIsi(const IsiCommandOptions& options, std::ostream& out)
{
    if (options.steps < 1) {
        throw Error("--steps must be at least 1, got " + std::to_string(options.steps));
    }
    const auto dot = options.record.rfind('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 == options.record.size()) {
        throw Error("--record " + options.record + ": expected PATH.spikes, e.g. E.spikes");
    }
    if (!options.outPath.empty() && std::filesystem::is_directory(options.outPath)) {
        throw Error("--out " + options.outPath + " is a folder; give a file name (isi.csv)");
    }
    engine::SpikeStatisticsOptions statOptions;
    statOptions.bins = options.bins;
    statOptions.window = options.window;
    if (options.bins < 1 || options.bins > 100000) {
        throw Error("--bins must be 1 to 100000, got " + std::to_string(options.bins));
    }
    if (options.window < 0) {
        throw Error("--window must not be negative, got " + std::to_string(options.window));
    }

    const auto root = engine::nir::loadAnyModel(options.model, options.nir);
    engine::HeadlessRunOptions runOptions;
    runOptions.backend = engine::parseBackendKind(options.backend);
    runOptions.steps = options.steps;
    engine::HeadlessRun run(*root, runOptions);
    std::vector<engine::ProbeInfo> infos;
    try {
        infos = run.record({{options.record.substr(0, dot), options.record.substr(dot + 1), {}}});
    } catch (const Error& e) {
        throw Error("--record: " + std::string(e.what()));
    }
    if (!infos[0].spikes) {
        throw Error("--record " + options.record + " is not a spiking output; record a population's spikes");
    }
    const engine::HeadlessRunResult result = run.run(nullptr, options.steps);
    if (result.nonFinite) {
        throw Error("the run stopped at step " + std::to_string(result.steps) +
                    ": a state became NaN or infinite");
    }
    const double dt = root->timeStep();
    const engine::SpikeStatistics s = engine::spikeStatistics(
        result.recordings[0].data(), result.steps, infos[0].width, dt, statOptions);

    std::ostringstream csv;
    csv << "isi_start_s,isi_end_s,count\n";
    for (std::size_t k = 0; k < s.isiHistogram.counts.size(); ++k) {
        csv << exact(s.isiHistogram.edges[k]) << ',' << exact(s.isiHistogram.edges[k + 1]) << ','
            << exact(s.isiHistogram.counts[k]) << '\n';
    }
    if (options.outPath.empty()) {
        out << csv.str();
        return 0;
    }
    writeAtomically(options.outPath, csv.str());
    std::vector<double> rates = s.rateHz;
    std::sort(rates.begin(), rates.end());
    std::ostringstream summary;
    summary << "spike statistics of " << options.record << " (" << s.neurons << " neurons, "
            << s.steps << " steps of " << dt << " s): " << s.spikes << " spikes, mean rate "
            << s.meanRateHz << " Hz (per neuron " << rates.front() << " to " << rates.back()
            << ", median " << rates[rates.size() / 2] << "), " << s.intervals << " intervals, ISI mean "
            << s.isiMean << " s, CV " << s.isiCv << " (pooled), " << s.meanCv << " (mean of "
            << s.cvNeurons << " neurons), Fano factor " << s.meanFano << " (windows of " << s.window
            << " steps, " << s.fanoNeurons << " neurons) -> " << options.outPath << "\n";
    out << summary.str();
    return 0;
}

namespace {

/// "step 30 (t = 0.031 s) in E neuron 7: A 1 B 0" or "none in 500 steps" (no commas: it is also
/// a comment line of the CSV).
std::string spikeDifferenceText(const engine::Divergence& d)
{
    if (!d.firstSpikeDifference) {
        return "none in " + std::to_string(d.steps) + " steps";
    }
    const engine::SpikeDifference& s = *d.firstSpikeDifference;
    std::ostringstream text;
    text << "step " << s.step << " (t = " << exact(static_cast<double>(s.step + 1) * d.dt) << " s) in "
         << (s.path.empty() ? std::string("(root)") : s.path) << " neuron " << s.neuron << ": A "
         << s.a << " B " << s.b;
    return text.str();
}

std::string csvOf(const engine::Divergence& d, const std::vector<std::string>& changes)
{
    std::ostringstream s;
    s << "# backend divergence: side A " << d.sideA << "; side B " << d.sideB;
    for (const std::string& change : changes) {
        s << "; B with " << change;
    }
    s << "; max |A - B| per State after each step\n";
    s << "# first spike difference: " << spikeDifferenceText(d) << "\n";
    s << "step,time_s";
    for (const std::string& name : d.states) {
        s << ',' << name;
    }
    s << '\n';
    for (std::int64_t t = 0; t < d.steps; ++t) {
        s << t << ',' << exact(static_cast<double>(t + 1) * d.dt);
        for (const std::vector<double>& series : d.maxAbs) {
            s << ',' << exact(series[static_cast<std::size_t>(t)]);
        }
        s << '\n';
    }
    return s.str();
}

}  // namespace

int analyseDivergence(const DivergenceCommandOptions& options, std::ostream& out)
{
    engine::DivergenceOptions divergence;
    divergence.steps = options.steps;
    try {
        divergence.a = engine::parseDivergenceSide(options.a);
    } catch (const Error& e) {
        throw Error(std::string("--a: ") + e.what());
    }
    try {
        divergence.b = engine::parseDivergenceSide(options.b);
    } catch (const Error& e) {
        throw Error(std::string("--b: ") + e.what());
    }
    divergence.input = options.input;
    if (!options.outPath.empty() && std::filesystem::is_directory(options.outPath)) {
        throw Error("--out " + options.outPath + " is a folder; give a file name (divergence.csv)");
    }

    const auto root = engine::nir::loadAnyModel(options.model, options.nir);
    for (const std::string& change : options.set) {
        for (auto& [path, values] : engine::parsePerturbation(*root, change)) {
            for (auto& [name, value] : values) {
                divergence.perturbB[path][name] = std::move(value);
            }
        }
    }
    const engine::Divergence d = engine::backendDivergence(*root, divergence);

    const std::string csv = csvOf(d, options.set);
    if (options.outPath.empty()) {
        out << csv;
        return 0;
    }
    writeAtomically(options.outPath, csv);
    std::size_t worst = 0;
    for (std::size_t k = 1; k < d.overallMax.size(); ++k) {
        if (!(d.overallMax[k] <= d.overallMax[worst])) {
            worst = k;
        }
    }
    std::ostringstream summary;
    summary << "backend divergence of " << d.sideA << " and " << d.sideB << " over " << d.steps
            << " steps of " << d.dt << " s, " << d.states.size() << " states: ";
    if (d.overallMax[worst] == 0.0) {
        summary << "identical";
    } else {
        summary << "largest |A - B| " << d.overallMax[worst] << " in " << d.states[worst];
    }
    summary << "; first spike difference: " << spikeDifferenceText(d) << " -> " << options.outPath
            << "\n";
    out << summary.str();
    return 0;
}

}  // namespace spike::app
