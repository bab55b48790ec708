// SparseProjection's delivery: the scatter of active presynaptic channels through the CSR
// (deliver(), which scans the presynaptic row, and deliverListed(), fed the source's spike
// lists), the delay ring's turn around either (deliverSteps()), clearListed(), and
// deliverListedOn(), which splits one call's targets into slices run by a ThreadPool's threads.
// See projections.hpp for the equations, the ring layout and the cost per step; registration,
// validation and the connectivity draw are in projections.cpp. Compiled with -fno-trapping-math
// so GCC vectorises the any-non-zero test. Thread: owned by whichever thread runs the module;
// inside deliverListedOn() each of the pool's threads writes only its own targets' slice.
#include "engine/network/projections.hpp"

#include "engine/core/thread_pool.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace spike::engine {

namespace {

/// Whether any of x[0..n) is non-zero (NaN counts as non-zero). Branch-free so GCC vectorises it.
bool anyNonZero(const float* __restrict x, std::int64_t n)
{
    int any = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        any |= static_cast<int>(x[i] != 0.0F);
    }
    return any != 0;
}

/// Adds one active presynaptic value x through synapses [begin, end) of the CSR:
/// y[targets[s]] += x * weights[s], or x * w for every synapse when weights is null (the product
/// formed once, as before per-synapse weights existed, so those sums keep every bit).
template <typename Index>
inline void scatterSynapses(std::int64_t begin, std::int64_t end, const Index* __restrict targets,
                            const float* __restrict weights, float w, float x, float* y)
{
    if (weights == nullptr) {
        const float v = x * w;
        for (std::int64_t s = begin; s < end; ++s) {
            y[targets[s]] += v;
        }
        return;
    }
    for (std::int64_t s = begin; s < end; ++s) {
        y[targets[s]] += x * weights[s];
    }
}

/// How far ahead of the listed channel being delivered the walks below prefetch: its CSR bounds
/// and presynaptic value kFar channels ahead, its synapses kNear channels ahead (their bounds
/// arrived in between). Each channel's synapses start at a random place in a CSR far
/// larger than the caches for large networks; met channel after channel, those misses cost more
/// than the additions themselves (bench/README.md, "Threads").
constexpr std::int32_t kFar = 16;
constexpr std::int32_t kNear = 8;

/// Synapses from which the walks prefetch (64 KB of 16-bit targets). A CSR this size fits a
/// core's L2 cache by itself, but not beside the other projections, states and rows of a step
/// (the 10^4 Izhikevich network's four CSRs, 0.04 to 0.64 million synapses, 2 MB together): its
/// rows come from further out, and a step lists few spikes, so each walk waited for its row.
/// From 2^18 synapses down to 2^15 the Izhikevich delivery went from 1.17 to 0.87 times its
/// neuron update; CUBA-4000 (0.013 to 0.2 million) and the 10^5 network did not change.
constexpr std::size_t kPrefetchFrom = std::size_t{1} << 15;

/// Prefetches the first (up to) 8 cache lines of the synapses [b[0], b[1]) (targets, and weights
/// when not null): the hardware streams the rest of a row once it is being read.
template <typename Index>
inline void prefetchRow(const std::int64_t* b, const Index* targets, const float* weights)
{
    constexpr std::int64_t kLine = 64 / sizeof(Index);
    const std::int64_t stop = std::min(b[1], b[0] + 8 * kLine);
    for (std::int64_t s = b[0]; s < stop; s += kLine) {
        __builtin_prefetch(targets + s);
        if (weights != nullptr) {
            __builtin_prefetch(weights + s);
        }
    }
}

/// Calls visit(i, begin, end) for each listed channel i = list[k], k = 0 .. count, in order,
/// where bounds(i) points at its synapses' [begin, end) (a CSR row, or a part's slice of it),
/// with kAhead prefetching what later channels read (targets, weights and x may be null: not
/// read).
template <bool kAhead, typename Index, typename Bounds, typename Visit>
inline void walkListedAs(const std::int32_t* list, std::int32_t count, Bounds&& bounds,
                         const Index* targets, const float* weights, const float* x, Visit&& visit)
{
    if constexpr (kAhead) {
        // What no earlier iteration prefetches: the first kFar channels' bounds, then the first
        // kNear channels' rows, all asked for at once, so a short list (a few spikes per step,
        // the usual case) waits for its misses together instead of one after another.
        for (std::int32_t k = 0; k < std::min(count, kFar); ++k) {
            __builtin_prefetch(bounds(list[k]));
        }
        for (std::int32_t k = 0; k < std::min(count, kNear); ++k) {
            prefetchRow(bounds(list[k]), targets, weights);
        }
    }
    for (std::int32_t k = 0; k < count; ++k) {
        if constexpr (!kAhead) {
            const std::int64_t* b = bounds(list[k]);
            visit(list[k], b[0], b[1]);
            continue;
        }
        if (k + kFar < count) {
            __builtin_prefetch(bounds(list[k + kFar]));
            if (x != nullptr) {
                __builtin_prefetch(x + list[k + kFar]);
            }
        }
        if (k + kNear < count) {
            prefetchRow(bounds(list[k + kNear]), targets, weights);
        }
        const std::int64_t* b = bounds(list[k]);
        visit(list[k], b[0], b[1]);
    }
}

/// walkListedAs(), prefetching for a CSR of `synapses` from kPrefetchFrom on.
template <typename... Args>
inline void walkListed(std::size_t synapses, Args&&... args)
{
    if (synapses >= kPrefetchFrom) {
        walkListedAs<true>(std::forward<Args>(args)...);
    } else {
        walkListedAs<false>(std::forward<Args>(args)...);
    }
}

/// Part p's share of one row's listed channels: each channel's synapses onto part p's targets,
/// [bounds[i * (parts + 1) + p], ... + 1) (the slices cut by listedParts()), scattered as
/// scatterSynapses() does, or zeroed when x is null.
template <typename Index>
void listedPartRow(const std::int64_t* bounds, int parts, int p, const std::int32_t* list,
                   std::int32_t count, std::size_t synapses, const Index* __restrict targets,
                   const float* __restrict weights, float w, const float* x, float* y)
{
    const auto slice = [&](std::int32_t i) {
        return bounds + static_cast<std::int64_t>(i) * (parts + 1) + p;
    };
    if (x == nullptr) {
        walkListed(synapses, list, count, slice, targets, static_cast<const float*>(nullptr),
                   static_cast<const float*>(nullptr),
                   [&](std::int32_t, std::int64_t b, std::int64_t e) {
                       for (std::int64_t s = b; s < e; ++s) {
                           y[targets[s]] = 0.0F;
                       }
                   });
        return;
    }
    walkListed(synapses, list, count, slice, targets, weights, x,
               [&](std::int32_t i, std::int64_t b, std::int64_t e) {
                   scatterSynapses(b, e, targets, weights, w, x[i], y);
               });
}

/// Calls f(targets) with the CSR's targets as the 16-bit copy when the projection keeps one
/// (fewer than 65537 targets: half the bytes read per synapse, bench/README.md), else as the
/// 32-bit ones; the same synapses in the same order either way.
template <typename F>
inline void withTargets(const std::vector<std::uint16_t>& narrow, const std::vector<std::int32_t>& wide,
                        F&& f)
{
    if (!narrow.empty()) {
        f(narrow.data());
    } else {
        f(wide.data());
    }
}

}  // namespace

template <typename F>
void SparseProjection::withPartTargets(int part, int parts, F&& f) const
{
    if (!m_partTargets16.empty()) {
        f(m_partTargets16.data(), ThreadPool::splitRange(sizeTarget(), parts, part, 64).first);
        return;
    }
    withTargets(m_targets16, m_targets, [&](const auto* targets) { f(targets, std::int64_t{0}); });
}

template <typename ScatterStep>
void SparseProjection::deliverSteps(std::int64_t steps, float* post, std::int64_t postStride,
                                    ScatterStep&& scatterStep)
{
    const std::int64_t nDst = sizeTarget();
    const std::int64_t delay = delaySteps();
    if (delay == 0) {
        for (std::int64_t t = 0; t < steps; ++t) {
            scatterStep(t, post + t * postStride);
        }
        return;
    }
    float* ring = stateRef(m_pending).data();
    Tensor& headState = stateRef(m_pendingHead);
    auto head = static_cast<std::int64_t>(headState[0]);
    for (std::int64_t t = 0; t < steps; ++t) {
        // The head row holds what was scattered `delay` steps ago: deliver it, then reuse it for
        // this step's spikes, which come round to the head again after `delay` steps.
        float* __restrict slot = ring + head * nDst;
        float* __restrict y = post + t * postStride;
        for (std::int64_t j = 0; j < nDst; ++j) {
            y[j] += slot[j];
            slot[j] = 0.0F;
        }
        scatterStep(t, slot);
        head = head + 1 == delay ? 0 : head + 1;
    }
    headState[0] = static_cast<float>(head);
}

void SparseProjection::deliver(const float* pre, std::int64_t preStride, std::int64_t steps,
                               float* post, std::int64_t postStride)
{
    const std::int64_t nSrc = sizeSource();
    const float w = weight();
    const std::int64_t* rows = rowStart().data();
    withTargets(m_targets16, m_targets, [&](const auto* targets) {
        // One pass over the presynaptic row; only non-zero channels touch their synapses, in
        // ascending channel order. Spikes are sparse, so the row is tested a block at a time (a
        // vectorised any-non-zero) and only blocks holding activity are walked channel by channel.
        const float* weights = synapseWeights().empty() ? nullptr : synapseWeights().data();
        const auto scatterChannel = [&](std::int64_t i, float xi, float* y) {
            scatterSynapses(rows[i], rows[i + 1], targets, weights, w, xi, y);
        };
        deliverSteps(steps, post, postStride, [&](std::int64_t t, float* y) {
            const float* x = pre + t * preStride;
            constexpr std::int64_t kBlock = 64;
            std::int64_t i0 = 0;
            for (; i0 + kBlock <= nSrc; i0 += kBlock) {
                if (!anyNonZero(x + i0, kBlock)) {
                    continue;
                }
                for (std::int64_t i = i0; i < i0 + kBlock; ++i) {
                    if (x[i] != 0.0F) {
                        scatterChannel(i, x[i], y);
                    }
                }
            }
            for (std::int64_t i = i0; i < nSrc; ++i) {
                if (x[i] != 0.0F) {
                    scatterChannel(i, x[i], y);
                }
            }
        });
    });
}

void SparseProjection::deliverListed(const float* pre, std::int64_t preStride,
                                     const SpikeLists& spikes, std::int64_t steps, float* post,
                                     std::int64_t postStride)
{
    const float w = weight();
    const std::int64_t* rows = rowStart().data();
    const std::size_t nSynapses = this->targets().size();
    const auto csrRow = [rows](std::int32_t i) { return rows + i; };
    const float* weights = synapseWeights().empty() ? nullptr : synapseWeights().data();
    // The listed channels in their (ascending) order: the same additions in the same order as
    // deliver()'s scan, without visiting the quiet channels.
    withTargets(m_targets16, m_targets, [&](const auto* targets) {
        deliverSteps(steps, post, postStride, [&](std::int64_t t, float* y) {
            const float* x = pre + t * preStride;
            walkListed(nSynapses, spikes.indices + t * spikes.stride, spikes.counts[t], csrRow,
                       targets, weights, x, [&](std::int32_t i, std::int64_t b, std::int64_t e) {
                           scatterSynapses(b, e, targets, weights, w, x[i], y);
                       });
        });
    });
}

bool SparseProjection::clearListed(const SpikeLists& spikes, std::int64_t steps, float* post,
                                   std::int64_t postStride)
{
    if (delaySteps() != 0) {
        return false;
    }
    const std::int64_t* rows = rowStart().data();
    const std::size_t nSynapses = this->targets().size();
    const auto csrRow = [rows](std::int32_t i) { return rows + i; };
    withTargets(m_targets16, m_targets, [&](const auto* targets) {
        for (std::int64_t t = 0; t < steps; ++t) {
            float* y = post + t * postStride;
            walkListed(nSynapses, spikes.indices + t * spikes.stride, spikes.counts[t], csrRow,
                       targets, static_cast<const float*>(nullptr), static_cast<const float*>(nullptr),
                       [&](std::int32_t, std::int64_t b, std::int64_t e) {
                           for (std::int64_t s = b; s < e; ++s) {
                               y[targets[s]] = 0.0F;
                           }
                       });
        }
    });
    return true;
}

std::int64_t SparseProjection::listedSplitFrom(int parts, std::int64_t minWork) const
{
    constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();
    if (delaySteps() > 0) {
        return 0;
    }
    const std::int64_t perChannel = fanOut();
    if (parts < 2 || sizeTarget() < parts * 64 || perChannel == 0) {
        return kNever;
    }
    // listedParts(): work = listed * fanOut, split from parts * minWork on.
    return (parts * minWork + perChannel - 1) / perChannel;
}

int SparseProjection::listedParts(const ThreadPool& pool, std::int64_t minWork, const SpikeLists& spikes,
                                  std::int64_t steps)
{
    // Called for every delivery and clearing of a run with threads, nearly always to answer 1:
    // kept to a sum, a multiply and a compare (the fan-out is computed when the synapses are
    // drawn, not divided out per call).
    const int parts = pool.threads();
    if (parts < 2) {
        return 1;
    }
    const std::int64_t listed = spikes.total(steps);
    const std::int64_t nDst = sizeTarget();
    const std::int64_t delay = delaySteps();
    // The additions this call makes: the listed channels' synapses, plus the ring's rows.
    const std::int64_t work = listed * fanOut() + (delay > 0 ? steps * nDst : 0);
    // All of the pool's threads or none, so the slices are cut once, not per count of spikes.
    if (work < parts * minWork || nDst < parts * 64) {
        return 1;
    }
    cutSlices(parts);
    return parts;
}

void SparseProjection::cutSlices(int parts) const
{
    if (m_sliceParts == parts) {
        return;
    }
    const std::int64_t nSrc = sizeSource();
    const std::int64_t nDst = sizeTarget();
    const std::int64_t* rows = rowStart().data();
    const std::int32_t* targets = this->targets().data();
    const std::int64_t width = parts + 1;
    m_sliceBounds.assign(static_cast<std::size_t>(nSrc * width), 0);
    for (std::int64_t i = 0; i < nSrc; ++i) {
        for (int p = 0; p <= parts; ++p) {
            const std::int64_t first = p == parts ? nDst : ThreadPool::splitRange(nDst, parts, p, 64).first;
            m_sliceBounds[static_cast<std::size_t>(i * width + p)] =
                std::lower_bound(targets + rows[i], targets + rows[i + 1],
                                 static_cast<std::int32_t>(std::min<std::int64_t>(first, INT32_MAX))) -
                targets;
        }
    }
    m_partTargets16.clear();
    if (m_targets16.empty() && ThreadPool::splitRange(nDst, parts, 0, 64).second <= (std::int64_t{1} << 16)) {
        m_partTargets16.resize(m_targets.size());
        for (std::int64_t i = 0; i < nSrc; ++i) {
            for (int p = 0; p < parts; ++p) {
                const std::int64_t first = ThreadPool::splitRange(nDst, parts, p, 64).first;
                for (std::int64_t s = m_sliceBounds[static_cast<std::size_t>(i * width + p)];
                     s < m_sliceBounds[static_cast<std::size_t>(i * width + p + 1)]; ++s) {
                    m_partTargets16[static_cast<std::size_t>(s)] =
                        static_cast<std::uint16_t>(targets[s] - first);
                }
            }
        }
    }
    m_sliceParts = parts;
}

bool SparseProjection::listedPartsReady(int parts)
{
    if (delaySteps() != 0 || parts < 2 || sizeTarget() < parts * 64) {
        return false;
    }
    ensureWeights();  // drawn here, on the owner, not by the parts
    cutSlices(parts);
    return true;
}

void SparseProjection::deliverListedPart(int part, int parts, const float* pre, const SpikeLists& spikes,
                                         float* post) const
{
    const float* weights = m_synapseWeights.empty() ? nullptr : m_synapseWeights.data();
    withPartTargets(part, parts, [&](const auto* targets, std::int64_t first) {
        listedPartRow(m_sliceBounds.data(), parts, part, spikes.indices, spikes.counts[0],
                      m_targets.size(), targets, weights, weight(), pre, post + first);
    });
}

void SparseProjection::clearListedPart(int part, int parts, const SpikeLists& spikes, float* post) const
{
    withPartTargets(part, parts, [&](const auto* targets, std::int64_t first) {
        listedPartRow(m_sliceBounds.data(), parts, part, spikes.indices, spikes.counts[0],
                      m_targets.size(), targets, static_cast<const float*>(nullptr), 0.0F, nullptr,
                      post + first);
    });
}

bool SparseProjection::clearListedOn(ThreadPool& pool, std::int64_t minWork, const SpikeLists& spikes,
                                     std::int64_t steps, float* post, std::int64_t postStride)
{
    if (delaySteps() != 0) {
        return false;
    }
    const int parts = listedParts(pool, minWork, spikes, steps);
    if (parts == 1) {
        return clearListed(spikes, steps, post, postStride);
    }
    pool.run(parts, [&](int p) {
        for (std::int64_t t = 0; t < steps; ++t) {
            clearListedPart(p, parts, spikes.from(t), post + t * postStride);
        }
    });
    return true;
}

void SparseProjection::deliverListedOn(ThreadPool& pool, std::int64_t minWork, const float* pre,
                                       std::int64_t preStride, const SpikeLists& spikes,
                                       std::int64_t steps, float* post, std::int64_t postStride)
{
    const int parts = listedParts(pool, minWork, spikes, steps);
    if (parts == 1) {
        deliverListed(pre, preStride, spikes, steps, post, postStride);
        return;
    }
    const std::int64_t nDst = sizeTarget();
    const std::int64_t delay = delaySteps();
    const float w = weight();
    const float* weights = synapseWeights().empty() ? nullptr : synapseWeights().data();
    const std::int64_t* bounds = m_sliceBounds.data();
    const std::size_t nSynapses = this->targets().size();
    float* ring = delay > 0 ? stateRef(m_pending).data() : nullptr;
    Tensor& headState = stateRef(m_pendingHead);
    const auto head0 = delay > 0 ? static_cast<std::int64_t>(headState[0]) : 0;
    // Part p: deliverSteps() and deliverListed()'s scatter restricted to targets [j0, j1).
    pool.run(parts, [&](int p) {
        const auto [j0, j1] = ThreadPool::splitRange(nDst, parts, p, 64);
        const auto scatter = [&](std::int64_t t, float* y) {
            withPartTargets(p, parts, [&](const auto* targets, std::int64_t first) {
                listedPartRow(bounds, parts, p, spikes.indices + t * spikes.stride, spikes.counts[t],
                              nSynapses, targets, weights, w, pre + t * preStride, y + first);
            });
        };
        std::int64_t head = head0;
        for (std::int64_t t = 0; t < steps; ++t) {
            float* __restrict y = post + t * postStride;
            if (delay == 0) {
                scatter(t, y);
                continue;
            }
            float* __restrict slot = ring + head * nDst;
            for (std::int64_t j = j0; j < j1; ++j) {
                y[j] += slot[j];
                slot[j] = 0.0F;
            }
            scatter(t, slot);
            head = head + 1 == delay ? 0 : head + 1;
        }
    });
    if (delay > 0) {
        headState[0] = static_cast<float>((head0 + steps) % delay);
    }
}

}  // namespace spike::engine
