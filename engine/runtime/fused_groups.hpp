// The CUDA executor's fused lock-step groups: a cycle of small device populations runs each chunk
// as one kernel launch (kernels/fused_group_cuda.hpp) instead of one launch per node, edge and
// step. FusedGroups turns a group's schedule into the kernel's operation list, in exactly the
// order the executor would launch them (per step, per node in group order: clear its input rows,
// add each incoming edge in plan order, run the node), keeps the list on the device (uploaded
// again only when it changed, e.g. a delay ring's head), launches it and then tells the twins
// how many steps ran. A group fuses only when all its nodes run on the device with twins that
// fuse, all its projections have twins that fuse, and its nodes' outputs total at most
// ExecutorOptions::fusedGroupMaxChannels channels (one block is one streaming multiprocessor;
// a larger group uses the whole GPU through the per-launch path). Results are those of the
// per-launch path (the same per-element device code, the same order). Thread: the executor's.
#pragma once

#include "engine/core/device_runner.hpp"
#include "engine/runtime/execution_plan.hpp"

#include "kernels/fused_group_cuda.hpp"

#include <cstdint>
#include <functional>
#include <vector>

namespace spike::engine {

/// One node's device buffers as the executor holds them for a chunk.
struct FusedNodeBuffers {
    float* in = nullptr;                  ///< input rows (chunk row 0 first)
    float* out = nullptr;                 ///< output rows, row 0 = the previous chunk's last
    DeviceNeuron* twin = nullptr;         ///< the node's twin when it runs on the device
    const std::vector<float*>* traceTargets = nullptr;  ///< the twin's trace rows (row 0 first)
};

class FusedGroups {
public:
    /// Node `n`'s buffers, and edge `e`'s device twin (nullptr when it has none).
    using NodeBuffers = std::function<FusedNodeBuffers(int n)>;
    using EdgeTwin = std::function<DeviceProjection*(int e)>;

    FusedGroups(const ExecutionPlan& plan, std::int64_t maxChannels);

    /// Runs `steps` steps of group `g` (a lock-step group) as one launch and returns true, or
    /// returns false, having run nothing, when the group does not fuse (see the file comment).
    bool run(std::size_t g, std::int64_t steps, const NodeBuffers& node, const EdgeTwin& edge);

private:
    bool build(const StepGroup& group, const NodeBuffers& node, const EdgeTwin& edge,
               std::vector<kernels::FusedOp>& ops) const;

    struct Group {
        std::vector<kernels::FusedOp> ops;       ///< this chunk's list (host)
        std::vector<kernels::FusedOp> uploaded;  ///< what `device` holds
        kernels::DeviceArray<kernels::FusedOp> device;
    };
    const ExecutionPlan* m_plan;
    std::int64_t m_maxChannels;
    std::vector<Group> m_groups;
};

}  // namespace spike::engine
