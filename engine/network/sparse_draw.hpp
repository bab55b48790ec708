// The seeded draws behind SparseProjection (projections.hpp): its connectivity, as CSR by
// presynaptic channel, and its per-synapse weights, in CSR order. Each draw has its own
// generator stream keyed by the projection's seed, so the weights never change which synapses
// exist, and the same settings always give the same synapses and the same weights on every
// machine (engine::Random: xoshiro256**, own Box-Muller). Stateless; any thread (each call owns
// its generator).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace spike::engine {

/// Most synapses one SparseProjection may hold: 2^31 - 1, about 8 GiB of targets.
inline constexpr std::int64_t kMaxSparseSynapses = 2147483647;

/// Rule "probability": each pair (i, j) independently with probability p (geometric gaps per
/// presynaptic row; O(Nsrc + synapses)). `exclude` forbids i -> i. Throws Error past
/// kMaxSparseSynapses.
void drawByProbability(std::int64_t nSrc, std::int64_t nDst, double p, bool exclude,
                       std::uint64_t seed, std::vector<std::int64_t>& rowStart,
                       std::vector<std::int32_t>& targets);

/// Rule "in_degree": every target draws k distinct sources (Floyd's algorithm), transposed to
/// CSR without a list of pairs (memory: the CSR plus O(Nsrc)).
void drawByInDegree(std::int64_t nSrc, std::int64_t nDst, std::int64_t k, bool exclude,
                    std::uint64_t seed, std::vector<std::int64_t>& rowStart,
                    std::vector<std::int32_t>& targets);

/// How per-synapse weights are drawn around the mean "weight".
struct WeightDistribution {
    std::string dist = "constant";  ///< "constant", "uniform" or "normal"
    float mean = 1.0F;              ///< the "weight" attribute
    float spread = 0.0F;            ///< uniform: half-width; normal: standard deviation (>= 0)
    bool keepSign = true;           ///< drawn weights of the other sign than mean become 0
    std::uint64_t seed = 0;
    bool operator==(const WeightDistribution&) const = default;
};

/// Names accepted by the "weight_dist" attribute: constant, uniform, normal.
const std::vector<std::string>& weightDistributions();

/// `count` weights, synapse s's at index s (CSR order): uniform w = mean + spread * (2u - 1),
/// u in [0, 1) (53-bit), normal w = mean + spread * z (Box-Muller), each computed in double and
/// rounded to float32 (clamped to the largest finite float). With keepSign, a weight whose sign
/// differs from mean's is set to 0 (mean 0 keeps every weight). Empty for "constant". O(count).
std::vector<float> drawSynapseWeights(const WeightDistribution& d, std::int64_t count);

}  // namespace spike::engine
