// The executor path of `spikesim run`: networks, --backend and --realtime. The run itself is
// engine::HeadlessRun (engine/runtime/headless_run.hpp), the code bench/cuba times as the product
// path; this file turns the options into its requests, writes the recordings (only after the run
// succeeded) and prints the summary. See spikesim_commands.hpp. Runs on the main thread.
#include "engine/neurons/equation_neuron.hpp"
#include "engine/runtime/headless_run.hpp"
#include "engine/tensor/npy.hpp"
#include "app/spikesim_commands.hpp"

#include <filesystem>
#include <iomanip>
#include <map>

namespace spike::app {

using engine::Error;
using engine::Shape;
using engine::Tensor;

namespace {

/// "equations: RS, FS: native code": how the equation populations ran, on the CPU or, when they
/// ran on the CUDA backend, there ("device code (sm_90)"), one line per way (docs/equations.md);
/// nothing when there are none.
void printEquationExecution(const engine::Module& root, bool onDevice, std::ostream& out)
{
    std::map<std::string, std::string> byStatus;
    for (const auto& [path, module] : root.namedModules()) {
        if (const auto* eq = dynamic_cast<const engine::EquationNeuron*>(module)) {
            const std::string device = onDevice ? eq->deviceExecutionStatus() : std::string();
            std::string& names = byStatus[device.empty() ? eq->population().executionStatus() : device];
            names += (names.empty() ? "" : ", ") + (path.empty() ? std::string("(root)") : path);
        }
    }
    for (const auto& [status, names] : byStatus) {
        out << "equations: " << names << ": " << status << "\n";
    }
}

}  // namespace

void runOnExecutor(engine::Module& root, const RunOptions& options, const Tensor& input,
                   std::int64_t steps, const std::vector<std::string>& keys, std::ostream& out,
                   std::ostream& err)
{
    namespace fs = std::filesystem;
    if (!keys.empty() && options.outDir.empty()) {
        throw Error("--record needs --out DIR to write the recordings to");
    }
    if (steps <= 0) {
        throw Error(options.input + ": input " + input.shape().toString() +
                    " has no time steps to run");
    }
    engine::HeadlessRunOptions runOptions;
    runOptions.backend = engine::parseBackendKind(options.backend);
    runOptions.threads = options.threads;
    runOptions.speed = options.realtime > 0.0 ? engine::Speed::realTime(options.realtime)
                                              : engine::Speed::fastest();
    runOptions.progress = options.progress;
    runOptions.steps = steps;
    engine::HeadlessRun run(root, runOptions);
    if (!run.note().empty()) {
        err << "spikesim: " << run.note() << "\n";
    }
    if (const std::string conflict = root.timeStepConflict(); !conflict.empty()) {
        err << "spikesim: warning: " << options.model << ": " << conflict << "; " << engine::Module::kTimeStepAdvice
            << "\n";
    }

    std::vector<engine::ProbeRequest> requests;
    for (const auto& key : keys) {
        const auto dot = key.rfind('.');
        requests.push_back({dot == std::string::npos ? "" : key.substr(0, dot),
                            dot == std::string::npos ? key : key.substr(dot + 1), {}});
    }
    std::vector<engine::ProbeInfo> infos;
    try {
        infos = run.record(requests);
    } catch (const Error& e) {
        throw Error("--record: " + std::string(e.what()));
    }

    const engine::HeadlessRunResult result =
        run.run(input.data(), steps, [&](std::int64_t done) {
            if (options.progress) {
                err << "\rspikesim: step " << done << " / " << steps << " ("
                    << (100 * done) / steps << "%)" << std::flush;
            }
        });
    if (const auto& bad = result.nonFinite) {
        if (options.progress) {
            err << "\n";
        }
        std::string origin;
        try {
            origin = root.getSubmodule(bad->path).stateOrigin(bad->attribute);
        } catch (const Error&) {
            origin.clear();  // a path the tree no longer has: the message stands without it
        }
        throw Error("step " + std::to_string(result.steps) + ": " + bad->path + "." +
                    bad->attribute + "[" + std::to_string(bad->index) + "] became " +
                    std::to_string(bad->value) + (origin.empty() ? "" : ", set by " + origin) +
                    "; stopping (check weights, time constants and inputs)");
    }
    if (options.progress) {
        err << "\n";
    }
    run.storeStates();

    if (!keys.empty()) {
        std::error_code ec;
        fs::create_directories(options.outDir, ec);
        if (ec) {
            throw Error(options.outDir + ": cannot create folder: " + ec.message());
        }
        for (std::size_t k = 0; k < keys.size(); ++k) {
            const Tensor data(Shape{steps, infos[k].width}, result.recordings[k]);
            engine::npy::save((fs::path(options.outDir) / (keys[k] + ".npy")).string(), data);
        }
    }
    const double dt = root.timeStep();
    const double seconds = result.seconds;
    const double spikeCount = result.spikes;
    const std::int64_t neurons = result.neurons;
    const double neuronSteps = static_cast<double>(neurons) * static_cast<double>(steps);
    out << "steps " << steps << ", batch 1, neurons " << neurons << ", backend "
        << run.executor().backendName() << ", wall " << std::fixed << std::setprecision(4)
        << seconds << " s, " << std::scientific << std::setprecision(3)
        << (seconds > 0.0 ? neuronSteps / seconds : 0.0) << " neuron-steps/s, spikes "
        << std::fixed << std::setprecision(0) << spikeCount << ", rate " << std::setprecision(2)
        << (neurons > 0 ? spikeCount / (static_cast<double>(neurons) * steps * dt) : 0.0)
        << " Hz\n";
    printEquationExecution(root, run.executor().backendName() == "cuda", out);
}

}  // namespace spike::app
