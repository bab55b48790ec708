// The CPU executor's buffers per plan node and per probe (engine/runtime/cpu_executor.cpp, whose
// file comment says how they are used). Thread: the executor's owner.
#pragma once

#include "engine/core/node_runner.hpp"
#include "engine/runtime/listed_split.hpp"
#include "engine/runtime/probe_target.hpp"

#include <cstdint>
#include <memory>
#include <vector>

namespace spike::engine::cpu_executor {

struct NodeBuffers {
    std::unique_ptr<NodeRunner> runner;  ///< Role::Module only
    std::vector<float> in;               ///< maxChunk × sizeIn (one row in a lock-step group)
    bool oneRow = false;                 ///< lock-step: each input row is used at once, so one
                                         ///< row is reused every step (stays in cache)
    bool inClear = false;                ///< oneRow: `in` is all zero (cleared after its use)
    bool consumes = false;               ///< oneRow: the runner zeroes `in` as it reads it
                                         ///< (NodeRunner::consumeInput())
    int inPlaceEdge = -1;                ///< time-batched, fed by one pass-through of a whole
                                         ///< row: that edge, whose source rows are read in
                                         ///< place (`in` stays empty; wholeRowEdge())
    std::unique_ptr<NodeListedSplit> split;  ///< oneRow with a pool: all incoming edges in one
                                             ///< fork-join, when they all deliver from lists
    bool splitDelivered = false;         ///< this step's gather() went through `split`
    bool clearPending = false;           ///< `in` holds the last split delivery, to be zeroed by
                                         ///< the next one's threads (or at the chunk's end)
    std::vector<float> out;              ///< (maxChunk + 1) × sizeOut
    std::vector<TraceInfo> traces;
    std::vector<std::vector<float>> traceRows;  ///< per trace: maxChunk × traceWidth, or empty
    std::vector<std::int64_t> traceWidth;       ///< per trace: values per row (its width, or the
                                                ///< number of channels selected)
    std::vector<float*> traceTargets;           ///< scratch passed to run()
    bool lists = false;                    ///< spike lists kept for the output rows
    std::vector<std::int32_t> listIndices; ///< (maxChunk + 1) × sizeOut, rows as in `out`
    std::vector<std::int32_t> listCounts;  ///< maxChunk + 1

    /// The spike lists of output rows r = 0 .. maxChunk (lists only).
    SpikeListTargets listRows(std::int64_t width)
    {
        return {listIndices.data(), listCounts.data(), width};
    }
};

struct ResolvedProbe : ProbeTarget {
    std::vector<float> data;        ///< maxChunk × width (unused when `direct`)
    const float* direct = nullptr;  ///< whole rows: the source rows themselves, no copy
};

}  // namespace spike::engine::cpu_executor
