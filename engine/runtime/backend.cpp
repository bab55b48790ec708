// Backend selection: parsing --backend values and choosing CPU or CUDA. See backend.hpp.
#include "engine/runtime/backend.hpp"

#include "kernels/cuda_device.hpp"

#include <algorithm>

namespace spike::engine {

BackendKind parseBackendKind(const std::string& text)
{
    if (text == "auto") {
        return BackendKind::Auto;
    }
    if (text == "cpu") {
        return BackendKind::Cpu;
    }
    if (text == "cuda") {
        return BackendKind::Cuda;
    }
    throw Error("backend '" + text + "': expected one of 'auto', 'cpu', 'cuda'");
}

std::string toString(BackendKind kind)
{
    switch (kind) {
    case BackendKind::Auto: return "auto";
    case BackendKind::Cpu: return "cpu";
    case BackendKind::Cuda: return "cuda";
    }
    return "auto";
}

std::int64_t deviceChunkSteps(const ExecutionPlan& plan, const ExecutorOptions& options,
                              std::size_t deviceMemoryBytes)
{
    if (options.deviceMaxChunkSteps <= options.maxChunkSteps) {
        return options.maxChunkSteps;
    }
    std::int64_t floatsPerStep = 1;
    for (const PlanNode& n : plan.nodes) {
        floatsPerStep += n.sizeIn + 4 * n.sizeOut;
    }
    const auto budget = static_cast<std::int64_t>(deviceMemoryBytes / 8 / sizeof(float));
    return std::clamp(budget / floatsPerStep, options.maxChunkSteps, options.deviceMaxChunkSteps);
}

bool backendAvailable(BackendKind kind, std::string* why)
{
    if (kind != BackendKind::Cuda) {
        return true;
    }
    const kernels::CudaDeviceInfo device = kernels::queryCudaDevice();
    if (!device.available && why != nullptr) {
        *why = device.reason;
    }
    return device.available;
}

std::unique_ptr<Executor> makeExecutor(Module& root, BackendKind kind,
                                       const ExecutorOptions& options, std::string* note)
{
    switch (kind) {
    case BackendKind::Cpu:
        return makeCpuExecutor(root, options);
    case BackendKind::Cuda:
        return makeCudaExecutor(root, options);
    case BackendKind::Auto:
        break;
    }
    const kernels::CudaDeviceInfo device = kernels::queryCudaDevice();
    if (!device.available) {
        if (note != nullptr) {
            *note = "using the CPU backend: " + device.reason;
        }
        return makeCpuExecutor(root, options);
    }
    std::int64_t channels = 0;
    for (const PlanNode& n : compilePlan(root, options.plan).nodes) {
        channels += n.role == PlanNode::Role::Module ? n.sizeOut : 0;
    }
    if (channels < options.autoCudaMinChannels) {
        if (note != nullptr) {
            *note = "using the CPU backend: the network has " + std::to_string(channels) +
                    " channels, fewer than the " + std::to_string(options.autoCudaMinChannels) +
                    " from which a GPU is faster (choose the CUDA backend to use it anyway)";
        }
        return makeCpuExecutor(root, options);
    }
    return makeCudaExecutor(root, options);
}

}  // namespace spike::engine
