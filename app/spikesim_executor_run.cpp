// The executor path of `spikesim run`: networks, --backend and --realtime, through the run loop
// (engine/runtime/run_loop.hpp). See spikesim_commands.hpp. Runs on the main thread; recordings
// are collected per chunk from the executor's probes and written only after the run succeeded.
#include "engine/runtime/backend.hpp"
#include "engine/runtime/run_loop.hpp"
#include "engine/tensor/npy.hpp"
#include "app/spikesim_commands.hpp"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <iomanip>

namespace spike::app {

using engine::Error;
using engine::Shape;
using engine::Tensor;

void runOnExecutor(engine::Module& root, const RunOptions& options, const Tensor& input,
                   std::int64_t steps, const std::vector<std::string>& keys, std::ostream& out,
                   std::ostream& err)
{
    namespace fs = std::filesystem;
    if (!keys.empty() && options.outDir.empty()) {
        throw Error("--record needs --out DIR to write the recordings to");
    }
    const engine::BackendKind kind = engine::parseBackendKind(options.backend);
    const double dt = root.timeStep();

    // Chunks: at most 32 steps (1024 when paced: the run loop sizes paced chunks for about
    // 15 ms of wall time); 1 % of the run with progress.
    std::int64_t chunk = options.realtime > 0.0 ? 1024 : 32;
    if (options.progress) {
        chunk = std::clamp<std::int64_t>(steps / 100, 1, chunk);
    }
    engine::ExecutorOptions executorOptions;
    executorOptions.maxChunkSteps = std::min(chunk, steps);
    std::string note;
    auto executor = engine::makeExecutor(root, kind, executorOptions, &note);
    if (!note.empty()) {
        err << "spikesim: " << note << "\n";
    }

    // Requested recordings, then one spike counter per neuron population (spiking leaves that
    // take input; stimulus sources have none).
    std::vector<engine::ProbeRequest> requests;
    for (const auto& key : keys) {
        const auto dot = key.rfind('.');
        requests.push_back({dot == std::string::npos ? "" : key.substr(0, dot),
                            dot == std::string::npos ? key : key.substr(dot + 1), {}});
    }
    std::int64_t neurons = 0;
    for (const engine::PlanNode& node : executor->plan().nodes) {
        if (node.role == engine::PlanNode::Role::Module && node.module->spikingOutput() &&
            node.sizeIn > 0) {
            requests.push_back({node.path, "out", {}});
            neurons += node.sizeOut;
        }
    }
    std::vector<engine::ProbeInfo> infos;
    try {
        infos = executor->setProbes(requests);
    } catch (const Error& e) {
        throw Error("--record: " + std::string(e.what()));
    }

    std::vector<std::vector<float>> recorded(keys.size());
    double spikeCount = 0.0;
    const std::int64_t nIn = root.sizeIn();
    engine::RunLoopOptions loopOptions;
    loopOptions.speed = options.realtime > 0.0 ? engine::Speed::realTime(options.realtime)
                                               : engine::Speed::fastest();
    loopOptions.checkFinite = true;
    engine::RunLoop loop(loopOptions);
    const auto start = std::chrono::steady_clock::now();
    const engine::RunOutcome outcome = loop.runTo(
        *executor, 0, steps, engine::RunRows{nIn > 0 ? input.data() : nullptr, nIn, nullptr, 0},
        [&](std::int64_t t0, std::int64_t n) {
            for (std::size_t k = 0; k < requests.size(); ++k) {
                const float* data = executor->probeData(k);
                const std::int64_t count = n * infos[k].width;
                if (k < keys.size()) {
                    recorded[k].insert(recorded[k].end(), data, data + count);
                } else {
                    for (std::int64_t i = 0; i < count; ++i) {
                        spikeCount += data[i];
                    }
                }
            }
            if (options.progress) {
                err << "\rspikesim: step " << t0 + n << " / " << steps << " ("
                    << (100 * (t0 + n)) / steps << "%)" << std::flush;
            }
        });
    if (const auto& bad = outcome.nonFinite) {
        if (options.progress) {
            err << "\n";
        }
        throw Error("step " + std::to_string(outcome.steps) + ": " + bad->path + "." +
                    bad->attribute + "[" + std::to_string(bad->index) + "] became " +
                    std::to_string(bad->value) +
                    "; stopping (check weights, time constants and inputs)");
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (options.progress) {
        err << "\n";
    }
    executor->storeStates();

    if (!keys.empty()) {
        std::error_code ec;
        fs::create_directories(options.outDir, ec);
        if (ec) {
            throw Error(options.outDir + ": cannot create folder: " + ec.message());
        }
        for (std::size_t k = 0; k < keys.size(); ++k) {
            const Tensor data(Shape{steps, infos[k].width}, recorded[k]);
            engine::npy::save((fs::path(options.outDir) / (keys[k] + ".npy")).string(), data);
        }
    }
    const double neuronSteps = static_cast<double>(neurons) * static_cast<double>(steps);
    out << "steps " << steps << ", batch 1, neurons " << neurons << ", backend "
        << executor->backendName() << ", wall " << std::fixed << std::setprecision(4) << seconds
        << " s, " << std::scientific << std::setprecision(3)
        << (seconds > 0.0 ? neuronSteps / seconds : 0.0) << " neuron-steps/s, spikes "
        << std::fixed << std::setprecision(0) << spikeCount << ", rate " << std::setprecision(2)
        << (neurons > 0 ? spikeCount / (static_cast<double>(neurons) * steps * dt) : 0.0)
        << " Hz\n";
}

}  // namespace spike::app
