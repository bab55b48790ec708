// CPU executor: runs an ExecutionPlan through NodeRunners and Projection::deliver() over
// buffers allocated once. See backend.hpp.
//
// Buffers: per node an input block of maxChunk rows × sizeIn (one row for nodes of a lock-step
// group, which consume each input row as soon as it is gathered) and an output block of
// (maxChunk + 1) rows × sizeOut, whose row 0 holds the previous chunk's last output (what a
// delayed edge reads at the chunk's first step) and rows 1..steps this chunk's. Per chunk: the
// input node's rows take the caller's input; groups run in plan order (a time-batched group
// gathers and runs all rows at once, a lock-step group one row at a time across its nodes);
// the output node's rows go to the caller; probes copy their slices; row 0 takes the last row.
// Gathering rows of a node zeroes them, then adds each incoming edge in plan order (pass-through
// edges add, projections deliver); a time-batched node fed by one pass-through of a whole row
// gathers nothing and reads the source's rows in place (the caller's input rows themselves
// when the source is the input node and no delayed edge reads that), and the output node is
// not run when neither the caller nor an edge reads its rows. Spike lists
// (ExecutorOptions::spikeLists): a node whose runner listsSpikes() also has list rows parallel
// to its output rows (row 0 the previous chunk's last, rebuilt from the dense row by
// loadStates()), filled by runListing(); a projection reading such
// a node's whole output row delivers from the lists (deliverListed()), any other edge from the
// dense rows. A one-row input whose edges all deliver from lists is zeroed after its node ran by
// undoing those deliveries (Projection::clearListed()), so the next gather skips the memset;
// a one-row input whose runner consumes it (NodeRunner::consumeInput(): an equation population
// or a CUBALIF zeroes each input value in its update's own pass) is left zero by the run and not
// cleared at all.
// A trace that only probes of some of its channels read (the membranes of 1000 of 10^5
// neurons) is recorded by its runner for just the union of those channels when the runner can
// (NodeRunner::selectTraceChannels()), so the rows hold only what the probes copy.
// Threads (ExecutorOptions::threads): the executor owns a ThreadPool whose helpers run parts of
// one node's run() (disjoint neuron ranges, NeuronLayer::runsInRanges()), of one projection's
// delivery from spike lists (disjoint target ranges, Projection::deliverListedOn()), of all the
// deliveries from lists into one one-row input and of their clearing (NodeListedSplit), of one large
// pass-through edge's addition (disjoint channel ranges) or of a large copy or clear of rows,
// while the owner runs its own part and waits; groups, nodes and edges still run one after
// another in plan order, and each neuron is computed by exactly one thread with the 1-thread
// arithmetic, so the results do not depend on the thread count.
// Nothing here allocates after construction and setProbes().
// Thread: the thread that owns the module tree (and, inside one run(), the pool's helpers).
#include "engine/runtime/backend.hpp"
#include "engine/runtime/cpu_node_buffers.hpp"
#include "engine/core/graph.hpp"
#include "engine/core/thread_pool.hpp"
#include "engine/runtime/finite_scan.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace spike::engine {

namespace {

using cpu_executor::NodeBuffers;
using cpu_executor::ResolvedProbe;

class CpuExecutor final : public Executor {
public:
    CpuExecutor(Module& root, const ExecutorOptions& options)
        : Executor(options.maxChunkSteps), m_plan(compilePlan(root, options.plan))
    {
        if (options.maxChunkSteps < 1 || options.maxChunkSteps > 1000000) {
            throw Error("executor: maxChunkSteps must be in [1, 1000000], got " +
                        std::to_string(options.maxChunkSteps));
        }
        if (options.threads < 0 || options.threads > kMaxThreads) {
            throw Error("executor: threads must be in [0, " + std::to_string(kMaxThreads) +
                        "] (0 = every core), got " + std::to_string(options.threads));
        }
        if (const int threads = options.threads == 0 ? ThreadPool::hardwareThreads()
                                                     : options.threads;
            threads > 1) {
            m_pool = std::make_unique<ThreadPool>(threads);
        }
        m_minWork = options.threadMinWork;
        m_listedSplitFrom.assign(m_plan.edges.size(), std::numeric_limits<std::int64_t>::max());
        if (m_pool) {
            for (std::size_t ei = 0; ei < m_plan.edges.size(); ++ei) {
                if (const Projection* projection = m_plan.edges[ei].projection) {
                    m_listedSplitFrom[ei] = projection->listedSplitFrom(m_pool->threads(), scatterMinWork());
                }
            }
        }
        const auto rows = static_cast<std::size_t>(maxChunkSteps());
        m_nodes.resize(m_plan.nodes.size());
        for (std::size_t i = 0; i < m_plan.nodes.size(); ++i) {
            const PlanNode& p = m_plan.nodes[i];
            NodeBuffers& b = m_nodes[i];
            b.oneRow = m_plan.groups[static_cast<std::size_t>(p.group)].lockStep;
            b.inPlaceEdge = wholeRowEdge(m_plan, static_cast<int>(i));
            const std::size_t inRows = b.inPlaceEdge >= 0 ? 0 : b.oneRow ? 1 : rows;
            b.in.assign(inRows * static_cast<std::size_t>(p.sizeIn), 0.0F);
            b.out.assign((rows + 1) * static_cast<std::size_t>(p.sizeOut), 0.0F);
            if (p.role == PlanNode::Role::Module) {
                b.runner = p.module->makeRunner();
                b.runner->setThreadPool(m_pool.get(), maxChunkSteps(), options.threadMinWork);
                b.traces = b.runner->traces();
                b.traceRows.resize(b.traces.size());
                b.traceWidth.resize(b.traces.size());
                b.traceTargets.assign(b.traces.size(), nullptr);
                b.lists = options.spikeLists && b.runner->listsSpikes();
                b.consumes = b.oneRow && p.sizeIn > 0 && b.runner->consumeInput();
            }
            if (b.lists) {
                b.listIndices.assign((rows + 1) * static_cast<std::size_t>(p.sizeOut), 0);
                b.listCounts.assign(rows + 1, 0);
            }
        }
        for (std::size_t i = 0; m_pool && i < m_nodes.size(); ++i) {
            std::vector<NodeListedSplit::Edge> edges;
            for (int ei : m_plan.incoming[i]) {
                const PlanEdge& e = m_plan.edges[static_cast<std::size_t>(ei)];
                if (edgeLists(e, 0)) {
                    edges.push_back({e.projection, e.toOffset, m_listedSplitFrom[static_cast<std::size_t>(ei)]});
                }
            }
            if (m_nodes[i].oneRow && edges.size() == m_plan.incoming[i].size() && NodeListedSplit::possible(edges)) {
                m_nodes[i].split = std::make_unique<NodeListedSplit>(std::move(edges));
            }
        }
        for (const PlanEdge& e : m_plan.edges) {
            m_outputRead = m_outputRead || e.from == m_plan.outputNode;
            m_inputDelayed = m_inputDelayed || (e.from == m_plan.inputNode && e.delayed);
        }
        loadStates(true);
    }

    std::string backendName() const override { return "cpu"; }
    const ExecutionPlan& plan() const override { return m_plan; }

    std::vector<ProbeInfo> setProbes(const std::vector<ProbeRequest>& requests) override
    {
        // The traces gathered once, not per request (a copy per probe made a probe per node of a
        // network of n nodes cost n^2).
        std::vector<std::vector<TraceInfo>> traces;
        traces.reserve(m_nodes.size());
        for (const NodeBuffers& b : m_nodes) {
            traces.push_back(b.traces);
        }
        std::vector<ResolvedProbe> resolved;
        for (const ProbeRequest& r : requests) {
            ResolvedProbe p;
            static_cast<ProbeTarget&>(p) = resolveProbeTarget(m_plan, traces, r);
            resolved.push_back(std::move(p));
        }
        for (auto& b : m_nodes) {
            for (auto& rows : b.traceRows) {
                rows.clear();
                rows.shrink_to_fit();
            }
            for (std::size_t k = 0; k < b.traces.size(); ++k) {
                b.runner->selectTraceChannels(k, {});
                b.traceWidth[k] = b.traces[k].width;
            }
        }
        std::vector<ProbeTarget*> targets;
        for (ResolvedProbe& p : resolved) {
            targets.push_back(&p);
        }
        narrowTraceProbes(targets, [this](int node, int trace, const std::vector<std::int64_t>& channels) {
            return m_nodes[static_cast<std::size_t>(node)].runner->selectTraceChannels(
                static_cast<std::size_t>(trace), channels);
        });
        std::vector<ProbeInfo> infos;
        const auto rows = static_cast<std::size_t>(maxChunkSteps());
        for (auto& p : resolved) {
            NodeBuffers& b = m_nodes[static_cast<std::size_t>(p.node)];
            if (p.trace >= 0) {
                auto& buffer = b.traceRows[static_cast<std::size_t>(p.trace)];
                if (buffer.empty()) {  // shared by every probe of this trace; never reallocated
                    buffer.assign(rows * static_cast<std::size_t>(p.rowWidth), 0.0F);
                    b.traceWidth[static_cast<std::size_t>(p.trace)] = p.rowWidth;
                }
            }
            // A probe of whole rows reads the rows in place (valid until the next advance()).
            if (p.indices.empty() && p.offset == 0 && p.info.width == p.rowWidth) {
                p.direct = p.trace >= 0 ? b.traceRows[static_cast<std::size_t>(p.trace)].data()
                                        : b.out.data() + p.rowWidth;
            } else {
                p.data.assign(rows * static_cast<std::size_t>(p.info.width), 0.0F);
            }
            infos.push_back(p.info);
        }
        m_probes = std::move(resolved);
        return infos;
    }

    void advance(std::int64_t steps, const float* input, float* output) override
    {
        if (steps < 1 || steps > maxChunkSteps()) {
            throw Error("executor: advance() takes 1 to " + std::to_string(maxChunkSteps()) +
                        " steps, got " + std::to_string(steps));
        }
        for (NodeBuffers& b : m_nodes) {  // left by an advance() an exception cut short
            b.inClear = b.inClear && !b.clearPending;
            b.clearPending = false;
        }
        // The caller's rows are read in place unless a delayed edge reads the input node's rows
        // (row 0, the last chunk's); probes read modules only. Copying them was a quarter of a
        // LIF layer's time (bench/README.md, "Threads").
        m_input = m_inputDelayed ? nullptr : input;
        if (m_input == nullptr) {
            const PlanNode& p = m_plan.nodes[static_cast<std::size_t>(m_plan.inputNode)];
            float* rows = m_nodes[static_cast<std::size_t>(m_plan.inputNode)].out.data() + p.sizeOut;
            const std::size_t count = static_cast<std::size_t>(steps * p.sizeOut);
            copyOrZero(rows, input, count);
        }
        // Nothing reads the output node's rows when the caller takes no output and no edge reads
        // them (probes read modules only): it is not run (its gather and copy were 3 of the 8
        // passes over the rows of a feed-forward LIF layer, bench/README.md "Threads").
        const bool skipOutput = output == nullptr && !m_outputRead;
        forEachScheduled(m_plan, steps, [this, skipOutput](int n, std::int64_t t0, std::int64_t len) {
            if (skipOutput && n == m_plan.outputNode) {
                return;
            }
            gather(n, t0, len);
            runNode(n, t0, len);
            clearInput(n, t0);
        });
        if (output != nullptr) {
            const PlanNode& p = m_plan.nodes[static_cast<std::size_t>(m_plan.outputNode)];
            const float* rows = m_nodes[static_cast<std::size_t>(m_plan.outputNode)].out.data() + p.sizeOut;
            if (p.sizeOut > 0) {
                std::memcpy(output, rows, static_cast<std::size_t>(steps * p.sizeOut) * sizeof(float));
            }
        }
        m_input = nullptr;  // the caller's rows are theirs again
        copyProbes(steps);
        for (NodeBuffers& b : m_nodes) {
            flushClear(b);  // its lists are this chunk's rows, rewritten from the next on
        }
        for (std::size_t i = 0; i < m_nodes.size(); ++i) {
            const std::int64_t w = m_plan.nodes[i].sizeOut;
            NodeBuffers& b = m_nodes[i];
            float* out = b.out.data();
            if (w > 0) {  // a node without outputs has no buffer (data() may be null)
                std::memcpy(out, out + steps * w, static_cast<std::size_t>(w) * sizeof(float));
            }
            if (b.lists) {
                const std::int32_t count = b.listCounts[static_cast<std::size_t>(steps)];
                std::copy_n(b.listIndices.begin() + steps * w, count, b.listIndices.begin());
                b.listCounts[0] = count;
            }
        }
    }

    const float* probeData(std::size_t k) const override
    {
        const ResolvedProbe& p = m_probes.at(k);
        return p.direct != nullptr ? p.direct : p.data.data();
    }

    std::optional<SpikeLists> probeSpikeLists(std::size_t k) const override
    {
        const ResolvedProbe& p = m_probes.at(k);
        const NodeBuffers& b = m_nodes[static_cast<std::size_t>(p.node)];
        if (p.direct == nullptr || p.trace >= 0 || !b.lists) {
            return std::nullopt;
        }
        return SpikeLists{b.listIndices.data(), b.listCounts.data(), p.rowWidth}.from(1);
    }

    void storeStates() override
    {
        for (auto& b : m_nodes) {
            if (b.runner) {
                b.runner->store();
            }
        }
        for (const PlanEdge& e : m_plan.edges) {
            if (e.delayed && e.graph != nullptr) {
                const float* row = m_nodes[static_cast<std::size_t>(e.from)].out.data() + e.fromOffset;
                e.graph->setDelayedValue(e.connection, std::vector<float>(row, row + e.fromSize));
            }
        }
    }

    void loadStates(bool clearDelayed) override
    {
        for (std::size_t i = 0; i < m_nodes.size(); ++i) {
            if (m_nodes[i].runner) {
                m_nodes[i].runner->load();
            }
            if (clearDelayed) {
                std::fill_n(m_nodes[i].out.begin(), m_plan.nodes[i].sizeOut, 0.0F);
            }
        }
        for (const PlanEdge& e : m_plan.edges) {
            const std::vector<float>* kept =
                e.delayed && e.graph != nullptr ? e.graph->delayedValue(e.connection) : nullptr;
            if (kept != nullptr && static_cast<std::int64_t>(kept->size()) == e.fromSize) {
                std::copy(kept->begin(), kept->end(),
                          m_nodes[static_cast<std::size_t>(e.from)].out.begin() + e.fromOffset);
            }
        }
        for (std::size_t i = 0; i < m_nodes.size(); ++i) {
            NodeBuffers& b = m_nodes[i];
            if (b.lists) {
                const std::int64_t w = m_plan.nodes[i].sizeOut;
                listNonZeroRows(b.out.data(), w, w, 1, b.listRows(w));
            }
        }
    }

    std::optional<NonFinite> findNonFinite() const override
    {
        for (std::size_t i = 0; i < m_nodes.size(); ++i) {
            if (!m_nodes[i].runner) {
                continue;
            }
            if (auto bad = firstNonFiniteIn(m_nodes[i].runner->workingStates())) {
                bad->path = m_plan.nodes[i].path;
                return bad;
            }
        }
        for (const PlanEdge& e : m_plan.edges) {
            if (e.projection == nullptr) {
                continue;
            }
            if (auto bad = firstNonFiniteState(*e.projection)) {
                bad->path = e.path;
                return bad;
            }
        }
        return std::nullopt;
    }

private:
    /// Least synaptic additions worth one thread's part of a delivery from spike lists: a
    /// scattered addition into a row larger than the caches costs several times a streamed
    /// element operation, so a quarter of threadMinWork (the 10^5-neuron network's E -> I, I -> E
    /// and I -> I deliveries split too; bench/README.md "Threads").
    std::int64_t scatterMinWork() const { return std::max<std::int64_t>(1, m_minWork / kScatterCost); }
    static constexpr std::int64_t kScatterCost = 4;

    /// dst[0 .. count) = src[0 .. count), or zeros when src is null; large blocks split into
    /// contiguous parts over the pool (copies, so the split changes no value). With count 0, dst
    /// may be null (an empty buffer's data()), which memset/memcpy must not be given.
    void copyOrZero(float* dst, const float* src, std::size_t count)
    {
        if (count == 0) {
            return;
        }
        const auto whole = static_cast<std::int64_t>(count);
        const int parts = m_pool ? m_pool->partsFor(whole, 4 * m_minWork) : 1;
        const auto part = [&](std::int64_t begin, std::int64_t end) {
            const auto bytes = static_cast<std::size_t>(end - begin) * sizeof(float);
            if (src != nullptr) {
                std::memcpy(dst + begin, src + begin, bytes);
            } else {
                std::memset(dst + begin, 0, bytes);
            }
        };
        if (parts == 1) {
            part(0, whole);
            return;
        }
        m_pool->run(parts, [&](int k) {
            const auto [begin, end] = ThreadPool::splitRange(whole, parts, k, 1024);
            part(begin, end);
        });
    }

    void gather(int node, std::int64_t t0, std::int64_t n)
    {
        const PlanNode& p = m_plan.nodes[static_cast<std::size_t>(node)];
        if (p.role == PlanNode::Role::Input || p.sizeIn == 0) {
            return;
        }
        NodeBuffers& b = m_nodes[static_cast<std::size_t>(node)];
        if (b.inPlaceEdge >= 0) {
            return;  // run() reads the source's rows (inputRows())
        }
        float* dst = b.in.data() + (b.oneRow ? 0 : t0) * p.sizeIn;
        if (!b.inClear && !b.clearPending) {
            copyOrZero(dst, nullptr, static_cast<std::size_t>(n * p.sizeIn));
        }
        b.inClear = false;
        const auto& incoming = m_plan.incoming[static_cast<std::size_t>(node)];
        b.splitDelivered = false;
        if (b.split && n == 1) {
            for (std::size_t k = 0; k < incoming.size(); ++k) {
                const PlanEdge& e = m_plan.edges[static_cast<std::size_t>(incoming[k])];
                b.split->set(k, sourceRows(e, t0), *edgeLists(e, t0));
            }
            if (b.split->deliver(*m_pool, dst, b.clearPending)) {
                b.splitDelivered = true;
                b.clearPending = false;
                return;
            }
        }
        flushClear(b);
        for (int ei : incoming) {
            const PlanEdge& e = m_plan.edges[static_cast<std::size_t>(ei)];
            const std::int64_t srcWidth = m_plan.nodes[static_cast<std::size_t>(e.from)].sizeOut;
            const float* src = sourceRows(e, t0);
            float* target = dst + e.toOffset;
            if (const std::optional<SpikeLists> lists = edgeLists(e, t0)) {
                if (mayShare(ei, *lists, n)) {
                    e.projection->deliverListedOn(*m_pool, scatterMinWork(), src, srcWidth, *lists, n,
                                                  target, p.sizeIn);
                } else {
                    e.projection->deliverListed(src, srcWidth, *lists, n, target, p.sizeIn);
                }
                continue;
            }
            if (e.projection != nullptr) {
                e.projection->deliver(src, srcWidth, n, target, p.sizeIn);
                continue;
            }
            // A pass-through edge: each channel's sum gets the same one term whichever thread
            // adds it, so large ones are split by channel range.
            const auto addRange = [&](std::int64_t c0, std::int64_t c1) {
                for (std::int64_t t = 0; t < n; ++t) {
                    const float* s = src + t * srcWidth;
                    float* d = target + t * p.sizeIn;
                    for (std::int64_t c = c0; c < c1; ++c) {
                        d[c] += s[c];
                    }
                }
            };
            const int parts = m_pool ? m_pool->partsFor(e.fromSize * n, m_minWork) : 1;
            if (parts == 1) {
                addRange(0, e.fromSize);
            } else {
                m_pool->run(parts, [&](int part) {
                    const auto [c0, c1] = ThreadPool::splitRange(e.fromSize, parts, part, 64);
                    addRange(c0, c1);
                });
            }
        }
    }

    /// Edge e's source rows read at chunk row t0: the source's output row t0 + 1 (t0 when
    /// delayed) from the port's first channel on.
    const float* sourceRows(const PlanEdge& e, std::int64_t t0) const
    {
        const std::int64_t srcWidth = m_plan.nodes[static_cast<std::size_t>(e.from)].sizeOut;
        if (m_input != nullptr && e.from == m_plan.inputNode) {
            return m_input + t0 * srcWidth + e.fromOffset;  // never delayed (m_inputDelayed)
        }
        return m_nodes[static_cast<std::size_t>(e.from)].out.data() +
               (t0 + (e.delayed ? 0 : 1)) * srcWidth + e.fromOffset;
    }

    /// A node's input rows from chunk row t0: in place (inPlaceEdge) or its gathered block.
    const float* inputRows(const PlanNode& p, NodeBuffers& b, std::int64_t t0)
    {
        if (b.inPlaceEdge >= 0) {
            return sourceRows(m_plan.edges[static_cast<std::size_t>(b.inPlaceEdge)], t0);
        }
        return b.in.data() + (b.oneRow ? 0 : t0) * p.sizeIn;
    }

    /// Whether edge ei's listed delivery (or clearing) goes to the projection's pool-sharing
    /// variant (which decides again): not without a pool, nor below Projection::listedSplitFrom().
    bool mayShare(int ei, const SpikeLists& lists, std::int64_t steps) const
    {
        return m_pool && lists.total(steps) >= m_listedSplitFrom[static_cast<std::size_t>(ei)];
    }

    /// The spike lists an edge delivers from at chunk row t0 (the source's row t0 + 1, or t0
    /// when delayed): a projection reading the whole output row of a node with lists.
    std::optional<SpikeLists> edgeLists(const PlanEdge& e, std::int64_t t0)
    {
        NodeBuffers& from = m_nodes[static_cast<std::size_t>(e.from)];
        const std::int64_t width = m_plan.nodes[static_cast<std::size_t>(e.from)].sizeOut;
        if (e.projection == nullptr || !from.lists || e.fromOffset != 0 || e.fromSize != width) {
            return std::nullopt;
        }
        return from.listRows(width).view().from(t0 + (e.delayed ? 0 : 1));
    }

    /// Zeroes what b's last split delivery left in its input row, if that is still pending.
    void flushClear(NodeBuffers& b)
    {
        if (b.clearPending) {
            b.split->clear(*m_pool, b.in.data());
            b.clearPending = false;
            b.inClear = true;
        }
    }

    /// After a one-row node consumed its input row: zeroes what gather() delivered into it, in
    /// O(events), when every incoming edge delivered from lists and can undo its writes
    /// (Projection::clearListed()); then the next gather() skips its memset.
    void clearInput(int node, std::int64_t t0)
    {
        const PlanNode& p = m_plan.nodes[static_cast<std::size_t>(node)];
        NodeBuffers& b = m_nodes[static_cast<std::size_t>(node)];
        if (!b.oneRow || p.role == PlanNode::Role::Input || p.sizeIn == 0) {
            return;
        }
        if (b.consumes) {
            b.inClear = true;  // the runner left it zero (runNode() returned)
            return;
        }
        if (b.splitDelivered) {
            b.clearPending = true;  // by the next split delivery's threads, or flushClear()
            return;
        }
        for (int ei : m_plan.incoming[static_cast<std::size_t>(node)]) {
            const PlanEdge& e = m_plan.edges[static_cast<std::size_t>(ei)];
            const std::optional<SpikeLists> lists = edgeLists(e, t0);
            float* row = b.in.data() + e.toOffset;
            const bool cleared =
                lists && (mayShare(ei, *lists, 1) ? e.projection->clearListedOn(*m_pool, scatterMinWork(), *lists, 1, row, p.sizeIn)
                                 : e.projection->clearListed(*lists, 1, row, p.sizeIn));
            if (!cleared) {
                return;  // what was cleared so far stays zero; gather() memsets the whole row
            }
        }
        b.inClear = true;
    }

    void runNode(int node, std::int64_t t0, std::int64_t n)
    {
        const PlanNode& p = m_plan.nodes[static_cast<std::size_t>(node)];
        NodeBuffers& b = m_nodes[static_cast<std::size_t>(node)];
        switch (p.role) {
        case PlanNode::Role::Input:
            return;
        case PlanNode::Role::Output:
        case PlanNode::Role::Junction:
            copyOrZero(b.out.data() + (t0 + 1) * p.sizeOut, inputRows(p, b, t0),
                       static_cast<std::size_t>(n * p.sizeIn));
            return;
        case PlanNode::Role::Module:
            break;
        }
        for (std::size_t k = 0; k < b.traces.size(); ++k) {
            b.traceTargets[k] = b.traceRows[k].empty()
                                    ? nullptr
                                    : b.traceRows[k].data() + t0 * b.traceWidth[k];
        }
        const float* in = inputRows(p, b, t0);
        float* out = b.out.data() + (t0 + 1) * p.sizeOut;
        if (b.lists) {
            b.runner->runListing(in, n, out, b.traceTargets, b.listRows(p.sizeOut).from(t0 + 1));
        } else {
            b.runner->run(in, n, out, b.traceTargets);
        }
    }

    void copyProbes(std::int64_t steps)
    {
        for (ResolvedProbe& probe : m_probes) {
            if (probe.direct != nullptr) {
                continue;
            }
            const NodeBuffers& b = m_nodes[static_cast<std::size_t>(probe.node)];
            const float* rows = probe.trace >= 0
                                    ? b.traceRows[static_cast<std::size_t>(probe.trace)].data()
                                    : b.out.data() + probe.rowWidth;
            const std::int64_t w = probe.info.width;
            for (std::int64_t t = 0; t < steps; ++t) {
                const float* row = rows + t * probe.rowWidth;
                float* dst = probe.data.data() + t * w;
                if (probe.indices.empty()) {
                    std::memcpy(dst, row + probe.offset, static_cast<std::size_t>(w) * sizeof(float));
                } else {
                    for (std::int64_t k = 0; k < w; ++k) {
                        dst[k] = row[probe.indices[static_cast<std::size_t>(k)]];
                    }
                }
            }
        }
    }

    static constexpr int kMaxThreads = 1024;

    /// Per plan edge: Projection::listedSplitFrom() for this pool (int64 max without one).
    std::vector<std::int64_t> m_listedSplitFrom;
    std::unique_ptr<ThreadPool> m_pool;  ///< helpers of this (the owner's) thread; null for 1
    std::int64_t m_minWork = 1;          ///< ExecutorOptions::threadMinWork
    ExecutionPlan m_plan;
    std::vector<NodeBuffers> m_nodes;
    std::vector<ResolvedProbe> m_probes;
    bool m_outputRead = false;    ///< an edge reads the output node's rows
    bool m_inputDelayed = false;  ///< a delayed edge reads the input node's rows
    const float* m_input = nullptr;  ///< in advance(): the caller's input rows, read in place
                                     ///< (sourceRows()) instead of the input node's copy
};

}  // namespace

std::unique_ptr<Executor> makeCpuExecutor(Module& root, const ExecutorOptions& options)
{
    return std::make_unique<CpuExecutor>(root, options);
}

}  // namespace spike::engine
