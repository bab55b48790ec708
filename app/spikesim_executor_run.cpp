// The executor path of `spikesim run`: networks, --backend and --realtime. See
// spikesim_commands.hpp. Runs on the main thread; recordings are collected per chunk from the
// executor's probes and written only after the run has succeeded.
#include "engine/runtime/backend.hpp"
#include "engine/tensor/npy.hpp"
#include "app/spikesim_commands.hpp"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <thread>

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

    // Chunks: about 20 ms of wall time when pacing, else large; 1 % of the run with progress.
    std::int64_t chunk = 32;
    if (options.realtime > 0.0) {
        chunk = std::clamp<std::int64_t>(std::llround(0.02 * options.realtime / dt), 1, 1024);
    }
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
    const auto start = std::chrono::steady_clock::now();
    for (std::int64_t t0 = 0; t0 < steps; t0 += executor->maxChunkSteps()) {
        const std::int64_t n = std::min(executor->maxChunkSteps(), steps - t0);
        executor->advance(n, nIn > 0 ? input.data() + t0 * nIn : nullptr, nullptr);
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
        if (const auto bad = executor->findNonFinite()) {
            throw Error("step " + std::to_string(t0 + n) + ": " + bad->path + "." + bad->attribute +
                        "[" + std::to_string(bad->index) + "] became " + std::to_string(bad->value) +
                        "; stopping (check weights, time constants and inputs)");
        }
        if (options.realtime > 0.0) {
            const double simulated = static_cast<double>(t0 + n) * dt;
            std::this_thread::sleep_until(
                start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(simulated / options.realtime)));
        }
        if (options.progress) {
            err << "\rspikesim: step " << t0 + n << " / " << steps << " (" << (100 * (t0 + n)) / steps
                << "%)" << std::flush;
        }
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
