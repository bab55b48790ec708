// NodeRunner: how the runtime advances one module of an execution plan, chunk after chunk.
//
// A runner works on the module it was made from (Module::makeRunner()); the executor owns it and
// calls it only on the simulation thread (a runner given a ThreadPool may hand parts of one run()
// to the pool's helpers, and returns only when they are done). Protocol: load() before the first run() and again after
// anything changed the module's attributes; run() any number of times; store() before anyone
// reads or saves the module's States. Between load() and store() the module's stored States may
// be stale (the working copy is the truth). run() must be allocation-free for neuron populations;
// the generic runner (any other module) calls forwardBatched() and allocates per call.
// runListing() is run() that also lists each step's spiking channels (spike_lists.hpp); the
// executor calls it for runners whose listsSpikes() is true, so event-driven consumers of their
// output need not scan the dense rows.
#pragma once

#include "engine/core/module.hpp"
#include "engine/tensor/spike_lists.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace spike::engine {

class ThreadPool;

/// A per-step signal a runner can write while it runs, besides the module's output.
struct TraceInfo {
    std::string name;        ///< recordable signal name ("vmem", "v", "isyn", "h")
    std::int64_t width = 0;  ///< values per step
    std::string units;       ///< "" when dimensionless
};

/// A working state array, for health checks (NaN / Inf detection).
struct StateArray {
    std::string attribute;  ///< State attribute name within the runner's module (or below it,
                            ///< as "child.attr" for generic runners of containers)
    const float* data = nullptr;
    std::int64_t size = 0;
};

/// Advances one module step by step or chunk by chunk. See the file comment for the protocol.
class NodeRunner {
public:
    explicit NodeRunner(Module& module) : m_module(&module) {}
    virtual ~NodeRunner() = default;
    NodeRunner(const NodeRunner&) = delete;
    NodeRunner& operator=(const NodeRunner&) = delete;

    Module& module() const { return *m_module; }

    /// Lets run() and runListing() split their work over `pool`'s threads (nullptr: run on the
    /// caller alone) for calls of at most `maxSteps` steps, each part at least `minWork` units
    /// (neuron-steps); call before load(), which sizes any scratch. The pool must outlive the
    /// runner's use of it. Runners that cannot split ignore it.
    void setThreadPool(ThreadPool* pool, std::int64_t maxSteps, std::int64_t minWork)
    {
        m_pool = pool;
        m_poolMaxSteps = maxSteps;
        m_poolMinWork = minWork;
    }

    /// Signals run() can write per step, in order (fixed for the runner's lifetime).
    virtual std::vector<TraceInfo> traces() const = 0;
    /// Copies the module's stored States (and derived caches) into working memory.
    virtual void load() = 0;
    /// Advances `steps` steps: `in` holds (steps, sizeIn) rows, `out` receives (steps, sizeOut)
    /// rows, and each non-null traceTargets[k] receives (steps, traces()[k].width) rows.
    /// Advances the module's elapsed-step counter. `traceTargets` has traces().size() entries.
    virtual void run(const float* in, std::int64_t steps, float* out,
                     const std::vector<float*>& traceTargets) = 0;
    /// From the next run() on, trace `trace` writes only `channels` (indices into its width, in
    /// this order): traceTargets[trace] then receives (steps, channels.size()) rows. An empty
    /// list restores whole rows. Returns false, changing nothing, when this runner writes whole
    /// rows only (the default; an empty list is always accepted).
    virtual bool selectTraceChannels(std::size_t trace, const std::vector<std::int64_t>& channels)
    {
        static_cast<void>(trace);
        return channels.empty();
    }
    /// Whether the output is sparse spikes worth listing per step (neuron populations).
    virtual bool listsSpikes() const { return false; }
    /// run(), and besides writes step t's non-zero output channels, ascending, to list row t of
    /// `lists` (room for sizeOut entries per row). The output rows are those run() writes.
    /// Default: run(), then a scan of each output row. Allocation-free when run() is.
    virtual void runListing(const float* in, std::int64_t steps, float* out,
                            const std::vector<float*>& traceTargets,
                            const SpikeListTargets& lists);
    /// Asks run() and runListing() to leave every input row they are given all zero, each value
    /// zeroed once read (in the update's own pass where the runner can), so that an owner that
    /// reuses its input rows need not clear them; the outputs do not change. Returns whether this
    /// runner does so from now on. The owner must then pass writable rows that nobody reads after
    /// the call. Default: false (run() never writes its input).
    virtual bool consumeInput() { return false; }
    /// Copies working memory back into the module's stored States.
    virtual void store() = 0;
    /// The working state arrays (valid until the next load()).
    virtual std::vector<StateArray> workingStates() const = 0;

protected:
    ThreadPool* threadPool() const { return m_pool; }
    std::int64_t threadPoolMaxSteps() const { return m_poolMaxSteps; }
    std::int64_t threadPoolMinWork() const { return m_poolMinWork; }

private:
    Module* m_module;
    ThreadPool* m_pool = nullptr;
    std::int64_t m_poolMaxSteps = 0;
    std::int64_t m_poolMinWork = 1;
};

/// Runner of any module through Module::forwardBatched() over a (1, steps, sizeIn) view.
/// Offers as traces, in this order: each of the module's own numeric States ("h"), each numeric
/// State of its descendants under its dotted path ("lstm.h", "resblocks.0.conv1.0.seed"), then
/// the signals the module records through its Recorder that its maker declared ("value_prefix").
/// When any trace is requested it advances one step per forwardBatched() call and samples the
/// States after every step, and the requested recorded signals from that step's recording. Its
/// States are the module's own (load() and store() do nothing).
class GenericRunner : public NodeRunner {
public:
    /// `recorded`: signals the module records at its own level during forwardBatched() (not
    /// States), each with its width per step; run() throws Error when a recording has another.
    explicit GenericRunner(Module& module, std::vector<TraceInfo> recorded = {});

    std::vector<TraceInfo> traces() const override { return m_traces; }
    void load() override {}
    void run(const float* in, std::int64_t steps, float* out,
             const std::vector<float*>& traceTargets) override;
    void store() override {}
    std::vector<StateArray> workingStates() const override;

private:
    /// Where trace k's samples come from.
    struct TraceSource {
        const Module* module = nullptr;  ///< owner of the State; nullptr for a recorded signal
        std::string name;                ///< State attribute, or recorded signal name
    };

    std::vector<TraceInfo> m_traces;
    std::vector<TraceSource> m_sources;  ///< parallel to m_traces
};

}  // namespace spike::engine
