// HeadlessRun: the product path of a run without a GUI - what `spikesim run` does with a network
// (app/spikesim_executor_run.cpp), and what bench/cuba times as "product path", in one place.
//
//   HeadlessRun run(root, options);   // chunk size, makeExecutor() (Auto may fall back: note())
//   run.record(requests);             // the caller's recordings + one spike counter per population
//   HeadlessRunResult r = run.run(input, steps, onChunk);   // RunLoop::runTo, non-finite check
//
// Per chunk the cost is per spike or per chunk, never per neuron-step, unless the caller records:
//   * spike counters read the population's whole output rows in place (no copy) and add only the
//     entries its spike lists name (Executor::probeSpikeLists(), O(spikes)); an executor without
//     lists (CUDA, which copies the rows from the device anyway) has its dense rows tested 64
//     values at a time and only blocks with a spike added. Both add the same non-zero values in
//     the same order into a double, so the count is the same number either way;
//   * the non-finite check is Executor::findNonFinite() after every chunk (O(states) per chunk,
//     see finite_scan.hpp), so a NaN is reported at the end of the chunk that produced it;
//   * recordings (record()) are copied out per chunk: they are what the user asked for.
// Thread: the calling thread owns the tree, the executor and the run.
#pragma once

#include "engine/runtime/backend.hpp"
#include "engine/runtime/run_loop.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace spike::engine {

/// How a HeadlessRun runs.
struct HeadlessRunOptions {
    BackendKind backend = BackendKind::Auto;
    Speed speed;            ///< fastest, or paced to a real-time factor
    bool progress = false;  ///< chunks of about 1 % of the run, so progress can be shown
    std::int64_t steps = 0; ///< steps the run will take (sizes the chunks; 0: unknown)
    bool spikeLists = true; ///< ExecutorOptions::spikeLists (false: count from the dense rows)
    int threads = 0;        ///< ExecutorOptions::threads (0: every core)
};

/// What a HeadlessRun::run() did.
struct HeadlessRunResult {
    std::int64_t steps = 0;        ///< steps advanced (fewer than asked when a NaN stopped it)
    std::int64_t neurons = 0;      ///< neurons counted: spiking plan nodes that take input
    double spikes = 0.0;           ///< spikes of those neurons over the steps advanced
    double seconds = 0.0;          ///< [s] wall time of the run loop (no setup)
    std::vector<std::vector<float>> recordings;  ///< per record() request: (steps, width) rows
    std::optional<NonFinite> nonFinite;          ///< the first NaN / infinity, if one stopped it
};

/// See the file comment.
class HeadlessRun {
public:
    /// Chunks of at most 32 steps (256 on the CUDA backend as far as its memory allows,
    /// ExecutorOptions::deviceMaxChunkSteps; 1024 when paced: the run loop sizes paced chunks
    /// for about 15 ms of wall time), 1 % of the run with progress. Builds the executor (loads states).
    /// Throws Error when the backend cannot run the tree.
    HeadlessRun(Module& root, const HeadlessRunOptions& options);
    ~HeadlessRun();
    HeadlessRun(const HeadlessRun&) = delete;
    HeadlessRun& operator=(const HeadlessRun&) = delete;

    /// Why Auto did not pick CUDA ("" when it did, or when a backend was named).
    const std::string& note() const { return m_note; }
    /// The executor ("cpu" / "cuda" from backendName()).
    const Executor& executor() const { return *m_executor; }
    /// Steps per chunk.
    std::int64_t chunkSteps() const { return m_executor->maxChunkSteps(); }

    /// Sets the recordings (paths relative to the root, "E" + "spikes") plus the spike counters;
    /// returns what each recording records. Throws Error naming the path or signal at fault.
    /// Without a call, run() records nothing and only counts.
    std::vector<ProbeInfo> record(const std::vector<ProbeRequest>& requests);

    /// Called after each chunk with the steps done so far.
    using Progress = std::function<void(std::int64_t done)>;
    /// Runs `steps` steps from the executor's state. `input`: (steps, root sizeIn) rows, or
    /// nullptr for zeros. Stops early at the first non-finite working state (checked per chunk).
    HeadlessRunResult run(const float* input, std::int64_t steps, const Progress& progress = {});
    /// Copies the executor's working states back into the tree's States.
    void storeStates() { m_executor->storeStates(); }

private:
    Module& m_root;
    HeadlessRunOptions m_options;
    std::string m_note;
    std::unique_ptr<Executor> m_executor;
    std::vector<ProbeRequest> m_requests;  ///< record() requests, then the spike counters
    std::size_t m_recorded = 0;            ///< how many of m_requests are recordings
    std::vector<ProbeInfo> m_infos;
    std::int64_t m_neurons = 0;
    bool m_probesSet = false;
};

}  // namespace spike::engine
