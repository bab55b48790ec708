// `spikesim analyse MODEL fi`: the f-I curve of one module of a model file as CSV
// (engine::fiCurve, engine/analysis/fi_curve.hpp; the same numbers the GUI plots). Main thread;
// throws engine::Error with a one-line message. The CSV is written to a temporary file beside
// the target and renamed into place, so a failure leaves no partial file.
#include "app/spikesim_commands.hpp"

#include "engine/analysis/fi_curve.hpp"
#include "engine/io/model_io.hpp"
#include "engine/tensor/error.hpp"

#include <unistd.h>

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

    const auto root = engine::loadModel(options.model);
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

}  // namespace spike::app
