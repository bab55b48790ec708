// NodeListedSplit. See listed_split.hpp.
#include "engine/runtime/listed_split.hpp"

#include "engine/core/thread_pool.hpp"

#include <limits>
#include <utility>

namespace spike::engine {

bool NodeListedSplit::possible(const std::vector<Edge>& edges)
{
    if (edges.empty()) {
        return false;
    }
    for (std::size_t i = 0; i < edges.size(); ++i) {
        if (edges[i].projection == nullptr || edges[i].splitFrom <= 0) {
            return false;
        }
        const std::int64_t a0 = edges[i].offset;
        const std::int64_t a1 = a0 + edges[i].projection->sizeTarget();
        for (std::size_t j = 0; j < i; ++j) {
            const std::int64_t b0 = edges[j].offset;
            const std::int64_t b1 = b0 + edges[j].projection->sizeTarget();
            const bool same = a0 == b0 && a1 == b1;
            const bool apart = a1 <= b0 || b1 <= a0;
            if (!same && !apart) {
                return false;  // the parts of one would overlap another's: two threads per entry
            }
        }
    }
    return true;
}

NodeListedSplit::NodeListedSplit(std::vector<Edge> edges)
    : m_edges(std::move(edges)), m_pre(m_edges.size(), nullptr), m_lists(m_edges.size()),
      m_delivered(m_edges.size())
{
    for (const Edge& e : m_edges) {
        m_perListed.push_back(e.splitFrom == std::numeric_limits<std::int64_t>::max()
                                  ? 0.0
                                  : 1.0 / static_cast<double>(e.splitFrom));
    }
}

bool NodeListedSplit::deliver(ThreadPool& pool, float* row, bool clearFirst)
{
    const int parts = pool.threads();
    double share = 0.0;
    for (std::size_t k = 0; k < m_edges.size(); ++k) {
        share += static_cast<double>(m_lists[k].counts[0]) * m_perListed[k];
    }
    if (parts < 2 || share < 1.0) {
        return false;
    }
    for (const Edge& e : m_edges) {
        if (!e.projection->listedPartsReady(parts)) {
            return false;
        }
    }
    // Every edge's clearing before any edge's addition: a later edge's clearing would zero what
    // an earlier one just added to the same entries.
    pool.run(parts, [&](int p) {
        for (std::size_t k = 0; clearFirst && k < m_edges.size(); ++k) {
            m_edges[k].projection->clearListedPart(p, parts, m_delivered[k], row + m_edges[k].offset);
        }
        for (std::size_t k = 0; k < m_edges.size(); ++k) {
            m_edges[k].projection->deliverListedPart(p, parts, m_pre[k], m_lists[k], row + m_edges[k].offset);
        }
    });
    m_delivered = m_lists;  // same size: no allocation
    return true;
}

void NodeListedSplit::clear(ThreadPool& pool, float* row)
{
    const int parts = pool.threads();
    pool.run(parts, [&](int p) {
        for (std::size_t k = 0; k < m_edges.size(); ++k) {
            m_edges[k].projection->clearListedPart(p, parts, m_delivered[k], row + m_edges[k].offset);
        }
    });
}

}  // namespace spike::engine
