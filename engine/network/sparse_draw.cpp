// SparseProjection's seeded draws: connectivity (rules "probability" and "in_degree") and the
// per-synapse weights. See sparse_draw.hpp; the rules' costs are in projections.hpp.
#include "engine/network/sparse_draw.hpp"

#include "engine/tensor/error.hpp"
#include "engine/tensor/random.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace spike::engine {

namespace {

/// Uniform integer in [0, n) by multiply-shift (Lemire); bias below n / 2^64.
std::int64_t boundedIndex(Random& rng, std::uint64_t n)
{
    return static_cast<std::int64_t>((static_cast<unsigned __int128>(rng.next()) * n) >> 64U);
}

/// Generator key of a connectivity draw: one stream per (seed, rule).
std::uint64_t connectivityKey(std::uint64_t seed, std::uint64_t rule)
{
    return (seed * 0x9E3779B97F4A7C15ULL) ^ (0x535041525345ULL + rule);  // "SPARSE"
}

/// Generator key of the weight draw: a stream of its own, apart from both connectivity streams.
std::uint64_t weightKey(std::uint64_t seed)
{
    return (seed * 0xD1B54A32D192ED03ULL) ^ 0x574549474854ULL;  // "WEIGHT"
}

}  // namespace

/// Per presynaptic row the gaps between successive targets are geometric,
/// gap = floor(log(u) / log(1 - p)), u in (0, 1], so targets come out ascending.
void drawByProbability(std::int64_t nSrc, std::int64_t nDst, double p, bool exclude,
                       std::uint64_t seed, std::vector<std::int64_t>& rowStart,
                       std::vector<std::int32_t>& targets)
{
    rowStart.assign(static_cast<std::size_t>(nSrc + 1), 0);
    if (p <= 0.0) {
        return;
    }
    const double pairs = static_cast<double>(nSrc) * static_cast<double>(nDst) -
                         (exclude ? static_cast<double>(nSrc) : 0.0);
    const double mean = p * pairs;
    targets.reserve(static_cast<std::size_t>(std::min(static_cast<double>(kMaxSparseSynapses),
                                                      mean + 6.0 * std::sqrt(mean) + 16.0)));
    Random rng(connectivityKey(seed, 0));
    const double logQ = p < 1.0 ? std::log1p(-p) : 0.0;
    for (std::int64_t i = 0; i < nSrc; ++i) {
        std::int64_t j = -1;
        for (;;) {
            if (p < 1.0) {
                const double gap = std::floor(std::log(1.0 - rng.uniform()) / logQ);
                if (gap >= static_cast<double>(nDst - 1 - j)) {
                    break;
                }
                j += 1 + static_cast<std::int64_t>(gap);
            } else if (++j >= nDst) {
                break;
            }
            if (exclude && j == i) {
                continue;
            }
            if (static_cast<std::int64_t>(targets.size()) >= kMaxSparseSynapses) {
                throw Error("SparseProjection: the draw exceeded 2^31 - 1 synapses; lower 'p'");
            }
            targets.push_back(static_cast<std::int32_t>(j));
        }
        rowStart[static_cast<std::size_t>(i + 1)] = static_cast<std::int64_t>(targets.size());
    }
}

/// Floyd's algorithm over a pool of Nsrc sources, or Nsrc - 1 when autapses are excluded (pool
/// index s >= j stands for s + 1). The draw is replayed twice from the same key, once to count
/// synapses per source and once to place them; targets come out ascending because j is the
/// outer loop. Time O(Nsrc + synapses).
void drawByInDegree(std::int64_t nSrc, std::int64_t nDst, std::int64_t k, bool exclude,
                    std::uint64_t seed, std::vector<std::int64_t>& rowStart,
                    std::vector<std::int32_t>& targets)
{
    const std::uint64_t key = connectivityKey(seed, 1);
    const std::int64_t pool = nSrc - (exclude ? 1 : 0);
    std::vector<std::uint32_t> stamp(static_cast<std::size_t>(std::max<std::int64_t>(pool, 0)));
    const auto replay = [&](auto&& visit) {
        Random rng(key);
        std::fill(stamp.begin(), stamp.end(), 0U);
        std::uint32_t generation = 0;
        for (std::int64_t j = 0; j < nDst; ++j) {
            ++generation;
            for (std::int64_t r = pool - k; r < pool; ++r) {
                std::int64_t s = boundedIndex(rng, static_cast<std::uint64_t>(r + 1));
                if (stamp[static_cast<std::size_t>(s)] == generation) {
                    s = r;
                }
                stamp[static_cast<std::size_t>(s)] = generation;
                visit(exclude && s >= j ? s + 1 : s, j);
            }
        }
    };
    rowStart.assign(static_cast<std::size_t>(nSrc + 1), 0);
    replay([&](std::int64_t s, std::int64_t) { ++rowStart[static_cast<std::size_t>(s + 1)]; });
    for (std::size_t i = 1; i < rowStart.size(); ++i) {
        rowStart[i] += rowStart[i - 1];
    }
    targets.resize(static_cast<std::size_t>(rowStart.back()));
    std::vector<std::int64_t> cursor(rowStart.begin(), rowStart.end() - 1);
    replay([&](std::int64_t s, std::int64_t j) {
        targets[static_cast<std::size_t>(cursor[static_cast<std::size_t>(s)]++)] =
            static_cast<std::int32_t>(j);
    });
}

const std::vector<std::string>& weightDistributions()
{
    static const std::vector<std::string> names{"constant", "uniform", "normal"};
    return names;
}

std::vector<float> drawSynapseWeights(const WeightDistribution& d, std::int64_t count)
{
    if (d.dist == "constant" || count <= 0) {
        return {};
    }
    std::vector<float> w(static_cast<std::size_t>(count));
    Random rng(weightKey(d.seed));
    const double mean = d.mean;
    const double spread = d.spread;
    const bool uniform = d.dist == "uniform";
    constexpr double kLargest = std::numeric_limits<float>::max();
    for (float& out : w) {
        const double z = uniform ? 2.0 * rng.uniform() - 1.0 : rng.normal();
        const double v = std::clamp(mean + spread * z, -kLargest, kLargest);
        out = static_cast<float>(v);
    }
    if (d.keepSign && mean != 0.0) {
        const bool positive = mean > 0.0;
        for (float& out : w) {
            if (positive ? out < 0.0F : out > 0.0F) {
                out = 0.0F;
            }
        }
    }
    return w;
}

}  // namespace spike::engine
