// Shared by the projection and backend tests (test_projections, test_sparse_weights,
// test_backends, test_delayed_parity): presynaptic input with spikes, double spikes and graded
// values, and a SparseProjection with the settings those tests vary.
#pragma once

#include "engine/network/projections.hpp"
#include "engine/tensor/random.hpp"

#include <cstdint>
#include <memory>

namespace spike::tests {

/// (T, N) input: most entries 0, some 1, some 2 (two spikes in a step), some graded values.
inline engine::Tensor spikeInput(std::int64_t steps, std::int64_t n, std::uint64_t seed)
{
    engine::Random rng(seed);
    engine::Tensor t(engine::Shape{steps, n});
    for (std::int64_t i = 0; i < t.numel(); ++i) {
        const double u = rng.uniform();
        const auto graded = static_cast<float>(rng.uniform(-1.5, 1.5));
        t[i] = u < 0.75 ? 0.0F : u < 0.87 ? 1.0F : u < 0.93 ? 2.0F : graded;
    }
    return t;
}

/// A SparseProjection (from, to) drawing `inDegree` sources per target (the default rule) with
/// this shared weight, delay [steps] and seed.
inline std::unique_ptr<engine::SparseProjection> sparseProjection(std::int64_t from, std::int64_t to, float weight,
                                                                  float inDegree, float delay, float seed)
{
    using engine::Tensor;
    return std::make_unique<engine::SparseProjection>(
        from, to,
        engine::AttributeMap{{"weight", Tensor::scalar(weight)}, {"in_degree", Tensor::scalar(inDegree)},
                             {"delay", Tensor::scalar(delay)}, {"seed", Tensor::scalar(seed)}});
}

}  // namespace spike::tests
