// ProbeTarget: where an executor finds a probe's samples among its per-node rows, resolved from
// a ProbeRequest against a compiled plan and the traces each node's runner offers.
//
// Both backends keep, per node, output rows of sizeOut values and, per runner trace, rows of the
// trace's width; a probe reads one of them (a port slice or the whole output, or one trace) and
// keeps all channels or the requested ones. Resolving is the same on every backend, so the
// signal names, widths and error messages are too. Pure function of its arguments; any thread.
#pragma once

#include "engine/runtime/backend.hpp"
#include "engine/runtime/execution_plan.hpp"
#include "engine/core/node_runner.hpp"

#include <cstdint>
#include <functional>
#include <vector>

namespace spike::engine {

/// A resolved probe: which rows it reads and which channels of each row it keeps.
struct ProbeTarget {
    int node = -1;                      ///< plan node index (Role::Module)
    int trace = -1;                     ///< runner trace index, or -1 for the output rows
    std::int64_t offset = 0;            ///< first kept channel of a row (port or whole output)
    std::int64_t rowWidth = 0;          ///< values per source row
    std::vector<std::int64_t> indices;  ///< kept channels (absolute within a row); empty =
                                        ///< [offset, offset + info.width)
    ProbeInfo info;                     ///< width kept per step, spikes flag, units

    /// The kept channels, absolute within a row, in order (indices, or the whole range).
    std::vector<std::int64_t> channels() const;
};

/// Resolves `request` against `plan`; `traces[i]` lists node i's runner traces (empty for
/// nodes without a runner). A port name or "out"/"output" (or "spikes" on a spiking module)
/// reads the output rows, any other name a trace. A path below a plan node (a composite's child,
/// "dynamics.lstm") reads that node's trace named after the rest of the path and the signal
/// ("lstm.h"). Throws Error naming the probe and the module paths, signals or index range
/// available when the path, signal or an index does not fit.
ProbeTarget resolveProbeTarget(const ExecutionPlan& plan,
                               const std::vector<std::vector<TraceInfo>>& traces,
                               const ProbeRequest& request);

/// For each trace that only probes of some of its channels read (no probe reads its whole
/// row): asks `select(node, trace, channels)` whether the trace's runner can record just the
/// union of their channels (ascending), and when it can, re-expresses those probes in that
/// narrower row (rowWidth its size, indices positions within it; a probe reading all of it
/// becomes whole-row). Probes of output rows are left as they are.
void narrowTraceProbes(const std::vector<ProbeTarget*>& probes,
                       const std::function<bool(int node, int trace, const std::vector<std::int64_t>& channels)>& select);

}  // namespace spike::engine
