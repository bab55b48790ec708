// NodeListedSplit: the CPU executor's node-level split of the deliveries from spike lists into
// one node's one-row input: one fork-join of the pool for all the node's incoming edges (and one
// for clearing what they added) instead of one per edge (docs/runtime.md, "Threads").
//
// Thread p delivers, edge after edge in plan order, each edge's synapses onto its own part of
// the targets (Projection::deliverListedPart()), so every input entry gets the terms of the
// serial delivery in the serial order from one thread: the rows do not depend on the thread
// count. Allocation-free after construction. Thread: the pool's owner (the parts on the pool).
#pragma once

#include "engine/core/projection.hpp"
#include "engine/tensor/spike_lists.hpp"

#include <cstdint>
#include <vector>

namespace spike::engine {

class ThreadPool;

class NodeListedSplit {
public:
    struct Edge {
        Projection* projection = nullptr;
        std::int64_t offset = 0;     ///< first entry of the input row it delivers into
        std::int64_t splitFrom = 0;  ///< Projection::listedSplitFrom() for the pool's threads
    };

    /// Whether `edges`, every edge into one node's input (each delivering from spike lists),
    /// can be split together: each may split (splitFrom > 0: no delay ring) and any two deliver
    /// into the same entries or into disjoint ones (so each entry has one thread).
    static bool possible(const std::vector<Edge>& edges);

    explicit NodeListedSplit(std::vector<Edge> edges);

    /// Edge k's presynaptic row and its one row of spike lists for the next deliver().
    void set(std::size_t k, const float* pre, const SpikeLists& lists)
    {
        m_pre[k] = pre;
        m_lists[k] = lists;
    }

    /// Adds every edge's set() row into `row` in one fork-join of all `pool`'s threads, when
    /// their listed spikes together reach one split's work (the sum over the edges of listed /
    /// splitFrom is at least 1) and every projection is ready to split now; returns whether it
    /// did. False: nothing was touched, and the caller delivers edge by edge. With
    /// `clearFirst`, each thread first zeroes its part of what the last deliver() that returned
    /// true added (whose lists must still be valid), before it adds.
    bool deliver(ThreadPool& pool, float* row, bool clearFirst);
    /// Zeroes, in one fork-join, every entry the last deliver() that returned true added to.
    void clear(ThreadPool& pool, float* row);

private:
    std::vector<Edge> m_edges;
    std::vector<double> m_perListed;  ///< per edge: 1 / splitFrom (0 for "never")
    std::vector<const float*> m_pre;
    std::vector<SpikeLists> m_lists;      ///< set() for the next deliver()
    std::vector<SpikeLists> m_delivered;  ///< what the last deliver() that returned true added
};

}  // namespace spike::engine
