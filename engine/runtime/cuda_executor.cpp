// CUDA executor: runs an ExecutionPlan with node buffers, neuron States and projections resident
// on the GPU. See backend.hpp; the schedule is the CPU executor's (cpu_executor.cpp), step for
// step, so both give the same spikes (docs/backends.md states the exact guarantees).
//
// Buffers: per node a device input block of maxChunk rows × sizeIn and a device output block of
// (maxChunk + 1) rows × sizeOut, whose row 0 holds the previous chunk's last output (read by
// delayed edges at the chunk's first step). Per chunk: the input node's rows 1..steps take the
// caller's input (or zeros); groups run in plan order (a time-batched group gathers and runs all
// rows at once, a lock-step group one row at a time across its nodes, or as one fused launch for
// the whole chunk when it fuses: fused_groups.hpp); the output node's rows go
// to the caller; probes are gathered on the device and copied back (a large probe of a spiking
// module's whole output as spike lists built on the device, its dense rows only when
// probeData() asks; see ExecutorOptions::spikeLists and deviceSpikeListMinValues); row 0 takes
// row `steps`.
// Gathering rows of a node zeroes them, then adds each incoming edge in plan order (pass-through
// edges add rows, projections deliver through their device twin).
//
// Placement: a node whose module has a device twin (Module::makeDeviceNeuron(): LIF, LIFRefrac,
// CUBALIF) runs on it when the kernels support its current attributes (decided at every
// loadStates(); a LIF with membrane noise runs on the host). Every other module runs on the host
// through its NodeRunner: its input rows are copied device → host and its output rows host →
// device per run. Projections without a device twin (Projection::makeDeviceProjection()) deliver
// on the host the same way. Device States are the truth between loadStates() and
// storeStates(); storeStates() also keeps each delayed connection's next value in the tree
// (Graph::setDelayedValue) and loadStates() puts it back in row 0, as the CPU executor does, so a
// fresh executor of either backend continues a stored run. Errors from the CUDA layer become
// Error("CUDA backend: ..."). Nothing allocates in advance() but host modules' own runners.
// Thread: the thread that owns the module tree.
#include "engine/runtime/backend.hpp"
#include "engine/core/device_runner.hpp"
#include "engine/core/graph.hpp"
#include "engine/core/node_runner.hpp"
#include "engine/runtime/finite_scan.hpp"
#include "engine/runtime/fused_groups.hpp"
#include "engine/runtime/probe_target.hpp"

#include "kernels/cuda_device.hpp"
#include "kernels/network_cuda.hpp"
#include "kernels/spike_lists_cuda.hpp"

#include <algorithm>
#include <cstring>

namespace spike::engine {

namespace {

namespace kn = spike::kernels;

using Floats = kn::DeviceFloats;

/// Runs `body`, turning errors of the CUDA layer (std::exception other than Error) into Error.
template <typename F>
auto guarded(const char* what, F&& body) -> decltype(body())
{
    try {
        return body();
    } catch (const Error&) {
        throw;
    } catch (const std::exception& e) {
        throw Error(std::string("CUDA backend: ") + what + ": " + e.what());
    }
}

std::size_t count(std::int64_t rows, std::int64_t width)
{
    return static_cast<std::size_t>(rows) * static_cast<std::size_t>(width);
}

struct NodeState {
    Floats in;                           ///< device, maxChunk × sizeIn
    Floats out;                          ///< device, (maxChunk + 1) × sizeOut
    std::unique_ptr<NodeRunner> runner;  ///< Role::Module only
    std::unique_ptr<DeviceNeuron> twin;  ///< a module with device kernels, else nullptr
    bool onDevice = false;               ///< runs on `twin` (else on `runner`)
    std::vector<TraceInfo> traces;
    std::vector<Floats> traceRows;                  ///< per trace: device maxChunk × width
    std::vector<std::vector<float>> hostTraceRows;  ///< per trace: host maxChunk × width
    std::vector<float*> traceTargets;               ///< scratch passed to run()
    std::vector<float> hostIn;   ///< host staging, maxChunk × sizeIn (host placement)
    std::vector<float> hostOut;  ///< host staging, maxChunk × sizeOut (host placement)
};

/// A projection edge: its device twin, or host staging for one without.
struct EdgeState {
    std::unique_ptr<DeviceProjection> twin;
    std::vector<float> hostPre;   ///< maxChunk × source sizeOut
    std::vector<float> hostPost;  ///< maxChunk × target sizeIn
};

struct ProbeState {
    ProbeTarget target;
    std::vector<std::int64_t> channels;     ///< the kept channels of a row
    kn::DeviceArray<std::int64_t> columns;  ///< the same, on the device
    Floats rows;                            ///< device maxChunk × width (gathered probes)
    /// Every channel in order: the probe reads its source rows where they are, no gather.
    bool whole = false;
    const float* source = nullptr;          ///< the last chunk's dense device rows
    mutable std::vector<float> data;        ///< host maxChunk × width
    /// A spike probe of a whole device population lists its spikes on the device
    /// (kernels/spike_lists_cuda.hpp) and copies only those back; its dense rows follow only
    /// when probeData() asks (dataCurrent false until then).
    bool lists = false;
    mutable bool dataCurrent = true;
    std::int64_t steps = 0;  ///< rows of the last chunk
    kn::DeviceArray<std::int32_t> listCounts;   ///< device maxChunk
    kn::DeviceArray<std::int32_t> listIndices;  ///< device maxChunk × width
    Floats listValues;                          ///< device maxChunk × width
    kn::DeviceArray<std::int32_t> listScratch;
    std::vector<std::int32_t> hostCounts;   ///< maxChunk
    std::vector<std::int32_t> hostIndices;  ///< maxChunk × width
    std::vector<float> hostValues;          ///< maxChunk × width
};

class CudaExecutor final : public Executor {
public:
    CudaExecutor(Module& root, const ExecutorOptions& options)
        : Executor(options.maxChunkSteps),
          m_plan(compilePlan(root, options.plan)),
          m_spikeLists(options.spikeLists),
          m_listMinValues(options.deviceSpikeListMinValues),
          m_fused(m_plan, options.fusedGroupMaxChannels)
    {
        if (options.maxChunkSteps < 1 || options.maxChunkSteps > 1000000) {
            throw Error("executor: maxChunkSteps must be in [1, 1000000], got " +
                        std::to_string(options.maxChunkSteps));
        }
        if (options.deviceMaxChunkSteps > 1000000) {
            throw Error("executor: deviceMaxChunkSteps must be at most 1000000, got " +
                        std::to_string(options.deviceMaxChunkSteps));
        }
        setMaxChunkSteps(deviceChunkSteps(m_plan, options, kn::queryCudaDevice().memoryBytes));
        guarded("allocating the network's device buffers", [&] { allocate(); });
        loadStates(true);
    }

    std::string backendName() const override { return "cuda"; }
    const ExecutionPlan& plan() const override { return m_plan; }

    std::vector<ProbeInfo> setProbes(const std::vector<ProbeRequest>& requests) override
    {
        std::vector<std::vector<TraceInfo>> traces;
        for (const NodeState& n : m_nodes) {
            traces.push_back(n.traces);
        }
        std::vector<ProbeState> probes;
        for (const ProbeRequest& r : requests) {
            ProbeState p;
            p.target = resolveProbeTarget(m_plan, traces, r);
            probes.push_back(std::move(p));
        }
        return guarded("setting up probes", [&] {
            const std::int64_t rows = maxChunkSteps();
            for (NodeState& n : m_nodes) {
                for (std::size_t k = 0; k < n.traces.size(); ++k) {
                    n.traceRows[k] = Floats();
                    n.hostTraceRows[k] = std::vector<float>();
                }
            }
            std::vector<ProbeInfo> infos;
            for (ProbeState& p : probes) {
                const ProbeTarget& t = p.target;
                p.channels = t.channels();
                p.columns = kn::DeviceArray<std::int64_t>(p.channels.size(), "probe channels");
                kn::copyBytes(p.columns.data(), p.channels.data(), p.channels.size() * 8,
                              kn::CopyKind::HostToDevice);
                p.whole = t.indices.empty() && t.info.width == t.rowWidth;
                if (!p.whole) {
                    p.rows = Floats(count(rows, t.info.width), "probe rows");
                }
                p.data.assign(count(rows, t.info.width), 0.0F);
                p.lists = m_spikeLists && t.trace < 0 && t.info.spikes && p.whole &&
                          rows * t.info.width >= m_listMinValues;
                if (p.lists) {
                    const std::size_t cells = count(rows, t.info.width);
                    p.listCounts = kn::DeviceArray<std::int32_t>(static_cast<std::size_t>(rows), "spike counts");
                    p.listIndices = kn::DeviceArray<std::int32_t>(cells, "spike lists");
                    p.listValues = Floats(cells, "spike list values");
                    p.listScratch = kn::DeviceArray<std::int32_t>(
                        kn::spikeListScratchSize(rows, t.info.width), "spike list tiles");
                    p.hostCounts.assign(static_cast<std::size_t>(rows), 0);
                    p.hostIndices.assign(cells, 0);
                    p.hostValues.assign(cells, 0.0F);
                }
                if (t.trace >= 0) {
                    NodeState& n = m_nodes[static_cast<std::size_t>(t.node)];
                    const auto k = static_cast<std::size_t>(t.trace);
                    if (n.traceRows[k].size() == 0) {
                        n.traceRows[k] = Floats(count(rows, t.rowWidth), "trace rows");
                        n.hostTraceRows[k].assign(count(rows, t.rowWidth), 0.0F);
                    }
                }
                infos.push_back(t.info);
            }
            m_probes = std::move(probes);
            return infos;
        });
    }

    void advance(std::int64_t steps, const float* input, float* output) override
    {
        if (steps < 1 || steps > maxChunkSteps()) {
            throw Error("executor: advance() takes 1 to " + std::to_string(maxChunkSteps()) +
                        " steps, got " + std::to_string(steps));
        }
        guarded("advancing the network", [&] { advanceChunk(steps, input, output); });
    }

    const float* probeData(std::size_t k) const override
    {
        const ProbeState& p = m_probes.at(k);
        if (!p.dataCurrent) {
            guarded("copying probe rows", [&] {
                kn::copyBytes(p.data.data(), p.source, count(p.steps, p.target.info.width) * sizeof(float),
                              kn::CopyKind::DeviceToHost);
            });
            p.dataCurrent = true;
        }
        return p.data.data();
    }

    std::optional<SpikeLists> probeSpikeLists(std::size_t k) const override
    {
        const ProbeState& p = m_probes.at(k);
        if (!p.lists) {
            return std::nullopt;
        }
        return SpikeLists{p.hostIndices.data(), p.hostCounts.data(), p.target.info.width, p.hostValues.data()};
    }

    void storeStates() override
    {
        guarded("storing the working states", [&] {
            for (NodeState& n : m_nodes) {
                if (n.onDevice) {
                    n.twin->store(*n.runner);
                } else if (n.runner) {
                    n.runner->store();
                }
            }
            for (EdgeState& e : m_edges) {
                if (e.twin) {
                    e.twin->store();
                }
            }
            // What each delayed connection delivers next: its source's row 0, as the CPU keeps it.
            for (const PlanEdge& e : m_plan.edges) {
                if (e.delayed && e.graph != nullptr) {
                    std::vector<float> value(static_cast<std::size_t>(e.fromSize));
                    const float* row =
                        m_nodes[static_cast<std::size_t>(e.from)].out.data() + e.fromOffset;
                    kn::copyBytes(value.data(), row, value.size() * sizeof(float),
                                  kn::CopyKind::DeviceToHost);
                    e.graph->setDelayedValue(e.connection, std::move(value));
                }
            }
        });
    }

    void loadStates(bool clearDelayed) override
    {
        guarded("loading the working states", [&] {
            for (std::size_t i = 0; i < m_nodes.size(); ++i) {
                NodeState& n = m_nodes[i];
                n.onDevice = n.twin && n.twin->unsupportedReason().empty();
                if (n.onDevice) {
                    n.twin->load();
                } else if (n.runner) {
                    n.runner->load();
                    n.hostIn.resize(count(maxChunkSteps(), m_plan.nodes[i].sizeIn));
                    n.hostOut.resize(count(maxChunkSteps(), m_plan.nodes[i].sizeOut));
                }
                if (clearDelayed) {
                    kn::zeroFloats(n.out.data(), m_plan.nodes[i].sizeOut);
                }
            }
            for (EdgeState& e : m_edges) {
                if (e.twin) {
                    e.twin->load();
                }
            }
            // A delayed connection's kept value (Graph::delayedValue) becomes its source's row 0,
            // so a fresh executor delivers what the stored run would have (as the CPU does).
            for (const PlanEdge& e : m_plan.edges) {
                const std::vector<float>* kept =
                    e.delayed && e.graph != nullptr ? e.graph->delayedValue(e.connection) : nullptr;
                if (kept != nullptr && static_cast<std::int64_t>(kept->size()) == e.fromSize) {
                    float* row =
                        m_nodes[static_cast<std::size_t>(e.from)].out.data() + e.fromOffset;
                    kn::copyBytes(row, kept->data(), kept->size() * sizeof(float),
                                  kn::CopyKind::HostToDevice);
                }
            }
            kn::deviceSynchronize("loading the working states");
        });
    }

    int fusedGroupCount() const override { return m_fusedCount; }

    /// Every device array in one scan (DeviceStateScan); host nodes and edges on the host, in
    /// the same order, so the first found is the first in plan order, nodes before edges.
    std::optional<NonFinite> findNonFinite() const override
    {
        return guarded("scanning the working states", [&]() -> std::optional<NonFinite> {
            const int edgeOwner = static_cast<int>(m_nodes.size());
            m_scan.clear();
            for (std::size_t i = 0; i < m_nodes.size(); ++i) {
                if (m_nodes[i].onDevice) {
                    m_nodes[i].twin->listStates(m_scan, static_cast<int>(i));
                }
            }
            for (std::size_t k = 0; k < m_edges.size(); ++k) {
                if (m_edges[k].twin) {
                    m_edges[k].twin->listStates(m_scan, edgeOwner + static_cast<int>(k));
                }
            }
            const std::optional<DeviceStateScan::Found> onDevice = m_scan.run();
            const auto device = [&](int owner) -> std::optional<NonFinite> {
                if (onDevice && onDevice->owner == owner) {
                    const DeviceNonFinite& w = onDevice->where;
                    return NonFinite{{}, w.attribute, w.index, w.value};
                }
                return std::nullopt;
            };
            for (std::size_t i = 0; i < m_nodes.size(); ++i) {
                const NodeState& n = m_nodes[i];
                auto bad = n.onDevice ? device(static_cast<int>(i))
                           : n.runner ? firstNonFiniteIn(n.runner->workingStates())
                                      : std::nullopt;
                if (bad) {
                    bad->path = m_plan.nodes[i].path;
                    return bad;
                }
            }
            for (std::size_t k = 0; k < m_plan.edges.size(); ++k) {
                const PlanEdge& e = m_plan.edges[k];
                if (e.projection == nullptr) {
                    continue;
                }
                auto bad = m_edges[k].twin ? device(edgeOwner + static_cast<int>(k))
                                           : firstNonFiniteState(*e.projection);
                if (bad) {
                    bad->path = e.path;
                    return bad;
                }
            }
            return std::nullopt;
        });
    }

private:
    void allocate()
    {
        const std::int64_t rows = maxChunkSteps();
        m_nodes.resize(m_plan.nodes.size());
        for (std::size_t i = 0; i < m_plan.nodes.size(); ++i) {
            const PlanNode& p = m_plan.nodes[i];
            NodeState& n = m_nodes[i];
            n.in = Floats(count(rows, p.sizeIn), "node input rows");
            n.out = Floats(count(rows + 1, p.sizeOut), "node output rows");
            m_carried.push_back({n.out.data(), p.sizeOut});
            if (p.role != PlanNode::Role::Module) {
                continue;
            }
            n.runner = p.module->makeRunner();
            n.twin = p.module->makeDeviceNeuron();
            n.traces = n.runner->traces();
            n.traceRows.resize(n.traces.size());
            n.hostTraceRows.resize(n.traces.size());
            n.traceTargets.assign(n.traces.size(), nullptr);
        }
        m_edges.resize(m_plan.edges.size());
        for (std::size_t k = 0; k < m_plan.edges.size(); ++k) {
            const PlanEdge& e = m_plan.edges[k];
            if (e.projection == nullptr) {
                continue;
            }
            m_edges[k].twin = e.projection->makeDeviceProjection();
            if (!m_edges[k].twin) {
                const auto& from = m_plan.nodes[static_cast<std::size_t>(e.from)];
                const auto& to = m_plan.nodes[static_cast<std::size_t>(e.to)];
                m_edges[k].hostPre.assign(count(rows, from.sizeOut), 0.0F);
                m_edges[k].hostPost.assign(count(rows, to.sizeIn), 0.0F);
            }
        }
    }

    void advanceChunk(std::int64_t steps, const float* input, float* output)
    {
        {
            const PlanNode& p = m_plan.nodes[static_cast<std::size_t>(m_plan.inputNode)];
            float* rows =
                m_nodes[static_cast<std::size_t>(m_plan.inputNode)].out.data() + p.sizeOut;
            if (input != nullptr) {
                kn::copyBytes(rows, input, count(steps, p.sizeOut) * sizeof(float),
                              kn::CopyKind::HostToDevice);
                m_inputRowsZero = 0;
            } else if (m_inputRowsZero < steps) {
                kn::zeroFloats(rows, steps * p.sizeOut);
                m_inputRowsZero = steps;  // no one else writes them: zero until an input comes
            }
        }
        m_fusedCount = 0;
        for (std::size_t g = 0; g < m_plan.groups.size(); ++g) {
            if (m_plan.groups[g].lockStep && runFused(g, steps)) {
                ++m_fusedCount;
                continue;
            }
            forEachScheduledIn(m_plan.groups[g], steps,
                               [this](int n, std::int64_t t0, std::int64_t len) {
                                   gather(n, t0, len);
                                   runNode(n, t0, len);
                               });
        }
        if (output != nullptr) {
            const PlanNode& p = m_plan.nodes[static_cast<std::size_t>(m_plan.outputNode)];
            const float* rows =
                m_nodes[static_cast<std::size_t>(m_plan.outputNode)].out.data() + p.sizeOut;
            kn::copyBytes(output, rows, count(steps, p.sizeOut) * sizeof(float),
                          kn::CopyKind::DeviceToHost);
        }
        copyProbes(steps);
        kn::carryLastRows(m_carried.data(), m_carried.size(), steps);
        kn::deviceSynchronize("finishing the chunk");
    }

    /// A lock-step group's chunk as one launch when it fuses (fused_groups.hpp).
    bool runFused(std::size_t g, std::int64_t steps)
    {
        const auto node = [this](int n) {
            NodeState& b = m_nodes[static_cast<std::size_t>(n)];
            for (std::size_t k = 0; k < b.traces.size(); ++k) {
                b.traceTargets[k] = b.traceRows[k].size() == 0 ? nullptr : b.traceRows[k].data();
            }
            return FusedNodeBuffers{b.in.data(), b.out.data(), b.onDevice ? b.twin.get() : nullptr,
                                    &b.traceTargets};
        };
        const auto edge = [this](int e) { return m_edges[static_cast<std::size_t>(e)].twin.get(); };
        return m_fused.run(g, steps, node, edge);
    }

    void gather(int node, std::int64_t t0, std::int64_t n)
    {
        const PlanNode& p = m_plan.nodes[static_cast<std::size_t>(node)];
        if (p.role == PlanNode::Role::Input || p.sizeIn == 0) {
            return;
        }
        float* dst = m_nodes[static_cast<std::size_t>(node)].in.data() + t0 * p.sizeIn;
        const int whole = wholeRowEdge(m_plan, node);  // copied (the CPU reads them in place)
        kn::zeroFloats(dst, whole < 0 ? n * p.sizeIn : 0);
        for (int ei : m_plan.incoming[static_cast<std::size_t>(node)]) {
            const PlanEdge& e = m_plan.edges[static_cast<std::size_t>(ei)];
            const std::int64_t srcWidth = m_plan.nodes[static_cast<std::size_t>(e.from)].sizeOut;
            const float* src = m_nodes[static_cast<std::size_t>(e.from)].out.data() +
                               (t0 + (e.delayed ? 0 : 1)) * srcWidth + e.fromOffset;
            float* target = dst + e.toOffset;
            if (ei == whole) {
                kn::copyBytes(dst, src, static_cast<std::size_t>(n * p.sizeIn) * sizeof(float),
                              kn::CopyKind::DeviceToDevice);
                continue;
            }
            if (e.projection == nullptr) {
                kn::addRows(target, p.sizeIn, src, srcWidth, e.fromSize, n);
                continue;
            }
            EdgeState& edge = m_edges[static_cast<std::size_t>(ei)];
            if (edge.twin) {
                edge.twin->deliver(src, srcWidth, n, target, p.sizeIn);
            } else {
                deliverOnHost(e, edge, src, srcWidth, n, target, p.sizeIn);
            }
        }
    }

    /// A projection without a device twin: its source rows and the target rows it adds to go
    /// to the host and back (whole rows, so strides stay those of the device buffers).
    static void deliverOnHost(const PlanEdge& e, EdgeState& edge, const float* src,
                              std::int64_t srcWidth, std::int64_t n, float* target,
                              std::int64_t targetWidth)
    {
        const std::int64_t preWidth = e.projection->sizeSource();
        const std::int64_t postWidth = e.projection->sizeTarget();
        kn::copyRows(edge.hostPre.data(), srcWidth, src, srcWidth, preWidth, n,
                     kn::CopyKind::DeviceToHost);
        kn::copyRows(edge.hostPost.data(), targetWidth, target, targetWidth, postWidth, n,
                     kn::CopyKind::DeviceToHost);
        e.projection->deliver(edge.hostPre.data(), srcWidth, n, edge.hostPost.data(), targetWidth);
        kn::copyRows(target, targetWidth, edge.hostPost.data(), targetWidth, postWidth, n,
                     kn::CopyKind::HostToDevice);
    }

    void runNode(int node, std::int64_t t0, std::int64_t n)
    {
        const PlanNode& p = m_plan.nodes[static_cast<std::size_t>(node)];
        NodeState& b = m_nodes[static_cast<std::size_t>(node)];
        switch (p.role) {
        case PlanNode::Role::Input:
            return;
        case PlanNode::Role::Output:
        case PlanNode::Role::Junction:
            kn::copyBytes(b.out.data() + (t0 + 1) * p.sizeOut, b.in.data() + t0 * p.sizeIn,
                          count(n, p.sizeIn) * sizeof(float), kn::CopyKind::DeviceToDevice);
            return;
        case PlanNode::Role::Module:
            break;
        }
        const float* in = b.in.data() + t0 * p.sizeIn;
        float* out = b.out.data() + (t0 + 1) * p.sizeOut;
        for (std::size_t k = 0; k < b.traces.size(); ++k) {
            const std::int64_t offset = t0 * b.traces[k].width;
            if (b.onDevice) {
                b.traceTargets[k] =
                    b.traceRows[k].size() == 0 ? nullptr : b.traceRows[k].data() + offset;
            } else {
                b.traceTargets[k] =
                    b.hostTraceRows[k].empty() ? nullptr : b.hostTraceRows[k].data() + offset;
            }
        }
        if (b.onDevice) {
            b.twin->run(in, n, out, b.traceTargets);
            return;
        }
        kn::copyBytes(b.hostIn.data(), in, count(n, p.sizeIn) * sizeof(float),
                      kn::CopyKind::DeviceToHost);
        b.runner->run(b.hostIn.data(), n, b.hostOut.data(), b.traceTargets);
        kn::copyBytes(out, b.hostOut.data(), count(n, p.sizeOut) * sizeof(float),
                      kn::CopyKind::HostToDevice);
    }

    void copyProbes(std::int64_t steps)
    {
        for (ProbeState& probe : m_probes) {
            const ProbeTarget& t = probe.target;
            const NodeState& b = m_nodes[static_cast<std::size_t>(t.node)];
            const std::int64_t w = t.info.width;
            if (t.trace >= 0 && !b.onDevice) {
                const float* rows = b.hostTraceRows[static_cast<std::size_t>(t.trace)].data();
                const std::vector<std::int64_t>& channels = probe.channels;
                for (std::int64_t r = 0; r < steps; ++r) {
                    for (std::int64_t k = 0; k < w; ++k) {
                        probe.data[count(r, w) + static_cast<std::size_t>(k)] =
                            rows[r * t.rowWidth + channels[static_cast<std::size_t>(k)]];
                    }
                }
                continue;
            }
            const float* rows = t.trace >= 0 ? b.traceRows[static_cast<std::size_t>(t.trace)].data()
                                             : b.out.data() + t.rowWidth;
            if (!probe.whole) {
                kn::gatherColumns(rows, t.rowWidth, steps, probe.columns.data(), w,
                                  probe.rows.data());
            }
            probe.source = probe.whole ? rows : probe.rows.data();
            probe.steps = steps;
            if (probe.lists) {
                kn::listNonZeroRowsCuda(probe.source, steps, w, probe.listCounts.data(),
                                        probe.listIndices.data(), probe.listValues.data(),
                                        probe.listScratch.data());
                kn::copySpikeListsToHost(probe.listCounts.data(), probe.listIndices.data(),
                                         probe.listValues.data(), steps, w, probe.hostCounts.data(),
                                         probe.hostIndices.data(), probe.hostValues.data());
                probe.dataCurrent = false;
                continue;
            }
            kn::copyBytes(probe.data.data(), probe.source, count(steps, w) * sizeof(float),
                          kn::CopyKind::DeviceToHost);
        }
    }

    ExecutionPlan m_plan;
    bool m_spikeLists = true;        ///< ExecutorOptions::spikeLists
    std::int64_t m_listMinValues = 0;  ///< ExecutorOptions::deviceSpikeListMinValues
    std::vector<NodeState> m_nodes;
    std::vector<EdgeState> m_edges;
    std::vector<ProbeState> m_probes;
    std::vector<kn::CarriedRows> m_carried;  ///< every node's output rows (advanceChunk's carry)
    mutable DeviceStateScan m_scan;          ///< findNonFinite()'s list and buffers
    FusedGroups m_fused;  ///< after m_plan, which it reads
    int m_fusedCount = 0;  ///< groups fused in the last chunk
    std::int64_t m_inputRowsZero = 0;  ///< leading input rows known to be zero
};

}  // namespace

std::unique_ptr<Executor> makeCudaExecutor(Module& root, const ExecutorOptions& options)
{
    if (!kn::builtWithCuda()) {
        throw Error(
            "CUDA backend: built without CUDA (configure with -DSPIKE_WITH_CUDA=ON and "
            "nvcc installed); use the CPU backend");
    }
    const kn::CudaDeviceInfo device = kn::queryCudaDevice();
    if (!device.available) {
        throw Error("CUDA backend: " + device.reason + "; use the CPU backend");
    }
    return std::make_unique<CudaExecutor>(root, options);
}

}  // namespace spike::engine
