// Backends and executors: where and how a compiled plan runs.
//
// An Executor runs one ExecutionPlan on one backend in chunks of at most maxChunkSteps steps.
// The CPU executor (cpu_executor.cpp) advances each node through its NodeRunner and each
// projection through deliver(), over buffers it allocates once; the CUDA executor
// (cuda_executor.cpp) keeps neuron states and projections resident on the device and runs other
// modules on the host. Both read and write the same module trees, and give the same spikes.
// Probes name a module path and a signal; after every advance() the executor exposes each
// probe's samples of that chunk in host memory. Thread: an executor and the tree it was compiled
// from belong to one thread (the simulation worker's during a run).
#pragma once

#include "engine/runtime/execution_plan.hpp"
#include "engine/core/module.hpp"
#include "engine/tensor/spike_lists.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace spike::engine {

/// Which backend runs a plan.
enum class BackendKind {
    Auto,  ///< CUDA when this build has it and a device is present, else CPU
    Cpu,
    Cuda,
};

/// "auto" / "cpu" / "cuda". Throws Error listing the choices otherwise.
BackendKind parseBackendKind(const std::string& text);
std::string toString(BackendKind kind);

/// A signal to record per step.
struct ProbeRequest {
    std::string path;    ///< module path relative to the compiled root ("" = the root itself)
    std::string signal;  ///< an output port name, "out" (whole output), "spikes" (a spiking
                         ///< module's output), or a trace the module's runner offers ("vmem")
    std::vector<std::int64_t> indices;  ///< channels to keep; empty = all
};

/// What a resolved probe records.
struct ProbeInfo {
    std::int64_t width = 0;  ///< values per step (indices kept)
    bool spikes = false;     ///< spike counts (a spiking module's output), else continuous
    std::string units;
};

/// A non-finite working state value found by Executor::findNonFinite().
struct NonFinite {
    std::string path;       ///< module path
    std::string attribute;  ///< State attribute name
    std::int64_t index = 0; ///< element index
    float value = 0.0F;     ///< the NaN or infinity
};

/// Executor creation options.
struct ExecutorOptions {
    /// Most steps one advance() may take (buffers are sized once). Short chunks keep a cyclic
    /// network's output blocks in cache (bench/cuba: 16 steps beat 256 by 30 %).
    std::int64_t maxChunkSteps = 32;
    /// CUDA: a longer chunk to take instead of maxChunkSteps (0: none), shortened by
    /// deviceChunkSteps() to what the device's memory holds. A chunk on a GPU costs a fixed set
    /// of launches and copies beside its steps (the probes', the health check's, the row
    /// carry), which short chunks pay often; HeadlessRun asks for 256 when it runs unpaced.
    std::int64_t deviceMaxChunkSteps = 0;
    /// CPU: list the spikes of neuron populations per step (NodeRunner::listsSpikes()) and
    /// deliver them event-driven (Projection::deliverListed()) and to probeSpikeLists(). CUDA:
    /// list the spikes of spike probes on the device and copy those back instead of the dense
    /// rows (probeSpikeLists() with values). false scans the dense rows instead; the results
    /// are identical either way.
    bool spikeLists = true;
    /// CUDA: a spike probe is listed on the device only when maxChunkSteps × its width is at
    /// least this many values; for smaller probes copying the dense rows back costs less than
    /// the compaction's launches and copies (bench/README.md, GPU runs).
    std::int64_t deviceSpikeListMinValues = 131072;
    /// BackendKind::Auto picks CUDA only for a network with at least this many output
    /// channels over its modules (neurons, layer units, sources); below it a GPU loses to the
    /// CPU, since every step costs several kernel launches (docs/backends.md, "When CUDA is used").
    std::int64_t autoCudaMinChannels = 20000;
    /// CUDA: a lock-step group (a cycle) whose nodes' outputs total at most this many channels,
    /// and whose nodes and projections all have kernels that fuse, runs each chunk as one launch
    /// in one thread block (kernels/fused_group_cuda.hpp) instead of one launch per node, edge
    /// and step; 0 never fuses. Results are identical either way. Larger groups keep the
    /// per-launch path, which spreads each step over the whole GPU.
    std::int64_t fusedGroupMaxChannels = 32768;
    /// CPU: threads that run neuron populations and projections, the calling (simulation)
    /// thread included; 0 = every core (std::thread::hardware_concurrency()), 1 = no helpers.
    /// Results are bit-identical for any value (docs/runtime.md, "Threads"). CUDA ignores it.
    int threads = 0;
    /// CPU: least work (neuron-steps) worth one thread's part of a node's run(); less runs on
    /// the calling thread alone, since handing a part to a helper costs a few µs (CUBA's 3200
    /// and 800 neurons, one step at a time, stay on one thread; the 10^5 network's 20000-neuron
    /// inhibitory population splits, which 16384 kept serial). Tests lower it to force splits.
    std::int64_t threadMinWork = 8192;
    PlanOptions plan;
};

/// Runs one compiled plan; see the file comment.
class Executor {
public:
    virtual ~Executor() = default;

    /// "cpu" or "cuda".
    virtual std::string backendName() const = 0;
    virtual const ExecutionPlan& plan() const = 0;
    std::int64_t maxChunkSteps() const { return m_maxChunk; }

    /// Replaces the probe set (from the next advance() on). Throws Error naming the path, signal
    /// (listing the available ones) or index at fault; the old set then stays.
    virtual std::vector<ProbeInfo> setProbes(const std::vector<ProbeRequest>& probes) = 0;
    /// Advances 1 ≤ steps ≤ maxChunkSteps() steps. `input`: (steps, plan input size) host rows,
    /// or nullptr for zeros; `output`: (steps, plan output size) host rows, or nullptr.
    virtual void advance(std::int64_t steps, const float* input, float* output) = 0;
    /// Probe k's samples from the last advance(): (steps, width) host rows, valid until the next
    /// advance() or setProbes().
    virtual const float* probeData(std::size_t k) const = 0;
    /// Probe k's spikes from the last advance() as lists (spike_lists.hpp), row t naming the
    /// non-zero values of probeData(k) row t, when k records a spiking module's whole output
    /// and this executor lists that module's spikes; nullopt otherwise (read probeData()).
    /// Valid as long as probeData(k). When the lists carry their values (CUDA), a reader of
    /// spikes need not call probeData(k), which then copies nothing from the device.
    virtual std::optional<SpikeLists> probeSpikeLists(std::size_t k) const
    {
        static_cast<void>(k);
        return std::nullopt;
    }

    /// Copies working states back into the modules' States (before reading or saving them).
    virtual void storeStates() = 0;
    /// Reloads working states and parameters from the modules (after setAttributes or
    /// resetState() on the tree). Delayed-edge values of the previous step are kept unless
    /// `clearDelayed` (a state reset clears them).
    virtual void loadStates(bool clearDelayed) = 0;
    /// The first NaN or infinity in any working state, if any.
    virtual std::optional<NonFinite> findNonFinite() const = 0;
    /// How many lock-step groups ran the last advance() as one fused launch each (CUDA,
    /// ExecutorOptions::fusedGroupMaxChannels); 0 on the CPU.
    virtual int fusedGroupCount() const { return 0; }

protected:
    explicit Executor(std::int64_t maxChunk) : m_maxChunk(maxChunk) {}
    /// A chunk length chosen after the plan is compiled (before any advance()).
    void setMaxChunkSteps(std::int64_t steps) { m_maxChunk = steps; }

private:
    std::int64_t m_maxChunk;
};

/// The CUDA executor's chunk: options.deviceMaxChunkSteps when every node's rows for that many
/// steps (inputs, outputs, and three times the outputs again for probes and spike lists) take at
/// most an eighth of `deviceMemoryBytes`, else as many steps as do, but never fewer than
/// options.maxChunkSteps (also the result when deviceMaxChunkSteps is not larger).
std::int64_t deviceChunkSteps(const ExecutionPlan& plan, const ExecutorOptions& options,
                              std::size_t deviceMemoryBytes);

/// Whether an executor of `kind` can be made on this machine (Cpu and Auto always; Cuda when
/// the build has CUDA and a usable device). When not, `why` (when given) says why.
bool backendAvailable(BackendKind kind, std::string* why = nullptr);

/// Compiles `root` and builds an executor on `kind`. Auto picks CUDA when available, else CPU
/// (then `note`, when given, says why). Cuda without a usable device throws Error with the
/// reason. Loads the states, so the executor is ready to advance.
std::unique_ptr<Executor> makeExecutor(Module& root, BackendKind kind,
                                       const ExecutorOptions& options = {},
                                       std::string* note = nullptr);
/// The CPU executor directly.
std::unique_ptr<Executor> makeCpuExecutor(Module& root, const ExecutorOptions& options = {});
/// The CUDA executor; throws Error when the build has no CUDA or no device is usable.
std::unique_ptr<Executor> makeCudaExecutor(Module& root, const ExecutorOptions& options = {});

}  // namespace spike::engine
