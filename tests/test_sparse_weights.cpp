// SparseProjection's per-synapse weights (weight_dist, weight_spread, keep_sign).
#include "engine/network/projections.hpp"
#include "engine/tensor/random.hpp"

#include <QtTest/QtTest>

#include <cstring>

using namespace spike::engine;  // NOLINT: test file

namespace {

Tensor spikeInput(std::int64_t steps, std::int64_t n, std::uint64_t seed)
{
    Random rng(seed);
    Tensor t(Shape{steps, n});
    for (std::int64_t i = 0; i < t.numel(); ++i) {
        const double u = rng.uniform();
        const auto graded = static_cast<float>(rng.uniform(-1.5, 1.5));
        t[i] = u < 0.75 ? 0.0F : u < 0.87 ? 1.0F : u < 0.93 ? 2.0F : graded;
    }
    return t;
}

std::uint64_t digest(const Tensor& t)
{
    std::uint64_t h = 1469598103934665603ULL;
    for (std::int64_t i = 0; i < t.numel(); ++i) {
        std::uint32_t bits = 0;
        std::memcpy(&bits, t.data() + i, 4);
        for (int b = 0; b < 4; ++b) {
            h = (h ^ ((bits >> (8 * b)) & 0xFFU)) * 1099511628211ULL;
        }
    }
    return h;
}

}  // namespace

class TestSparseWeights : public QObject {
    Q_OBJECT
private slots:
    void constantWeightsAreBitIdenticalToBefore()
    {
        // Digests of these deliveries taken before per-synapse weights existed: the default
        // distribution ("constant") must keep every bit of them.
        const Tensor in = spikeInput(60, 300, 9);
        const std::uint64_t want[2][2] = {{230798718728626635ULL, 12756153364698750436ULL},
                                          {14111195601122586650ULL, 5998445300330641444ULL}};
        int k = 0;
        for (const float delay : {0.0F, 3.0F}) {
            SparseProjection a(300, 200, {{"rule", std::string("in_degree")},
                                          {"in_degree", Tensor::scalar(20)},
                                          {"seed", Tensor::scalar(5)},
                                          {"weight", Tensor::scalar(-0.37F)},
                                          {"delay", Tensor::scalar(delay)}});
            SparseProjection b(300, 200, {{"rule", std::string("probability")},
                                          {"p", Tensor::scalar(0.05F)},
                                          {"seed", Tensor::scalar(7)},
                                          {"weight", Tensor::scalar(0.81F)},
                                          {"delay", Tensor::scalar(delay)}});
            QCOMPARE(digest(a.evolve(in).output), want[k][0]);
            QCOMPARE(digest(b.evolve(in).output), want[k][1]);
            ++k;
        }
    }
};

QTEST_GUILESS_MAIN(TestSparseWeights)
#include "test_sparse_weights.moc"
