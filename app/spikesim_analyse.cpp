// `spikesim analyse MODEL fi`: the f-I curve of one module of a model file as CSV
// (engine::fiCurve, engine/analysis/fi_curve.hpp; the same numbers the GUI plots), and
// `spikesim analyse MODEL isi`: the spike statistics of one recorded population
// (engine::spikeStatistics, engine/analysis/spike_statistics.hpp). Main thread;
// throws engine::Error with a one-line message. The CSV is written to a temporary file beside
// the target and renamed into place, so a failure leaves no partial file.
#include "app/spikesim_commands.hpp"

#include "engine/analysis/fi_curve.hpp"
#include "engine/analysis/spike_statistics.hpp"
#include "engine/runtime/headless_run.hpp"
#include "engine/io/model_io.hpp"
#include "engine/nir/nir_import.hpp"
#include "engine/tensor/error.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <filesystem>
#include <fstream>
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

void writeAtomically(const std::string& path, const std::string& text)
{
    const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        f << text;
        f.flush();
        if (!f) {
            std::error_code ignored;
            std::filesystem::remove(tmp, ignored);
            throw Error("--out " + path + ": cannot write the file");
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        throw Error("--out " + path + ": cannot write the file");
    }
}

}  // namespace

int analyseFi(const FiCommandOptions& options, std::ostream& out)
{
    engine::FiOptions fi;
    engine::parseCurrentRange(options.current, fi);
    fi.steps = options.steps;
    fi.warmupSteps = options.warmupSteps;
    if (!options.outPath.empty() && std::filesystem::is_directory(options.outPath)) {
        throw Error("--out " + options.outPath + " is a folder; give a file name (fi.csv)");
    }

    const auto root = engine::nir::loadAnyModel(options.model, options.nir);
    const engine::Module* node = nullptr;
    try {
        node = &root->getSubmodule(options.node);
    } catch (const Error& e) {
        throw Error("--node " + options.node + ": " + e.what());
    }
    const std::string name = options.node.empty() ? std::string("(root)") : options.node;
    engine::FiCurve curve;
    try {
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
            << (curve.neurons == 1 ? " neuron" : " neurons") << ", port " << curve.port << ", "
            << curve.steps << " steps of " << curve.dt << " s";
    if (curve.warmupSteps > 0) {
        summary << " after " << curve.warmupSteps << " warm-up steps";
    }
    summary << "): " << curve.current.size() << " currents, rheobase ";
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

}  // namespace spike::app
