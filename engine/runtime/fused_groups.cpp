// FusedGroups: see fused_groups.hpp.
#include "engine/runtime/fused_groups.hpp"

#include <algorithm>
#include <cstring>

namespace spike::engine {

namespace kn = spike::kernels;

FusedGroups::FusedGroups(const ExecutionPlan& plan, std::int64_t maxChannels)
    : m_plan(&plan), m_maxChannels(maxChannels), m_groups(plan.groups.size())
{
}

bool FusedGroups::run(std::size_t g, std::int64_t steps, const NodeBuffers& node,
                      const EdgeTwin& edge)
{
    const StepGroup& group = m_plan->groups.at(g);
    Group& f = m_groups.at(g);
    f.ops.clear();
    if (!build(group, node, edge, f.ops)) {
        return false;
    }
    const auto count = static_cast<int>(f.ops.size());
    const std::size_t bytes = f.ops.size() * sizeof(kn::FusedOp);
    if (f.uploaded.size() != f.ops.size() ||
        std::memcmp(f.uploaded.data(), f.ops.data(), bytes) != 0) {
        if (f.device.size() < f.ops.size()) {
            f.device = kn::DeviceArray<kn::FusedOp>(f.ops.size(), "fused group operations");
        }
        kn::copyBytes(f.device.data(), f.ops.data(), bytes, kn::CopyKind::HostToDevice);
        f.uploaded = f.ops;
    }
    std::int64_t width = 0;
    for (const kn::FusedOp& op : f.ops) {
        width = std::max(width, kn::fusedOpWidth(op));
    }
    kn::fusedGroupStepsCuda(f.device.data(), count, steps, width);
    for (const int n : group.nodes) {
        if (DeviceNeuron* twin = node(n).twin) {
            twin->fusedStepsRan(steps);
        }
        for (const int e : m_plan->incoming[static_cast<std::size_t>(n)]) {
            if (DeviceProjection* twin = edge(e)) {
                twin->fusedDeliveriesRan(steps);
            }
        }
    }
    return true;
}

bool FusedGroups::build(const StepGroup& group, const NodeBuffers& node, const EdgeTwin& edge,
                        std::vector<kn::FusedOp>& ops) const
{
    std::int64_t channels = 0;
    for (const int n : group.nodes) {
        channels += m_plan->nodes[static_cast<std::size_t>(n)].sizeOut;
    }
    if (!group.lockStep || m_maxChannels <= 0 || channels > m_maxChannels) {
        return false;
    }
    for (const int n : group.nodes) {
        const PlanNode& p = m_plan->nodes[static_cast<std::size_t>(n)];
        const FusedNodeBuffers b = node(n);
        if (p.role == PlanNode::Role::Input) {
            continue;  // its rows are the caller's input, written before the groups run
        }
        // Gather: clear the input row, then add the incoming edges in plan order.
        if (p.sizeIn > 0) {
            kn::FusedOp zero = kn::makeFusedOp(kn::FusedKind::Zero);
            zero.dst = b.in;
            zero.dstStride = p.sizeIn;
            zero.width = p.sizeIn;
            ops.push_back(zero);
            for (const int e : m_plan->incoming[static_cast<std::size_t>(n)]) {
                const PlanEdge& pe = m_plan->edges[static_cast<std::size_t>(e)];
                const std::int64_t srcWidth =
                    m_plan->nodes[static_cast<std::size_t>(pe.from)].sizeOut;
                const float* src =
                    node(pe.from).out + (pe.delayed ? 0 : srcWidth) + pe.fromOffset;
                float* target = b.in + pe.toOffset;
                if (pe.projection == nullptr) {
                    kn::FusedOp add = kn::makeFusedOp(kn::FusedKind::AddRows);
                    add.dst = target;
                    add.dstStride = p.sizeIn;
                    add.src = src;
                    add.srcStride = srcWidth;
                    add.width = pe.fromSize;
                    ops.push_back(add);
                    continue;
                }
                DeviceProjection* twin = edge(e);
                if (twin == nullptr ||
                    !twin->appendFusedDelivery(src, srcWidth, target, p.sizeIn, ops)) {
                    return false;
                }
            }
        }
        if (p.role == PlanNode::Role::Module) {
            if (b.twin == nullptr ||
                !b.twin->appendFusedStep(b.in, b.out + p.sizeOut, *b.traceTargets, ops)) {
                return false;
            }
        } else {  // a junction or the output: its input rows become its output rows
            kn::FusedOp copy = kn::makeFusedOp(kn::FusedKind::CopyRows);
            copy.dst = b.out + p.sizeOut;
            copy.dstStride = p.sizeOut;
            copy.src = b.in;
            copy.srcStride = p.sizeIn;
            copy.width = p.sizeIn;
            ops.push_back(copy);
        }
    }
    return static_cast<int>(ops.size()) <= kn::kFusedMaxOps;
}

}  // namespace spike::engine
