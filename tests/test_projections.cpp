// Projections: SparseProjection's CSR delivery against a dense matrix built from the CSR (every
// rule, several seeds, delays 0/1/5, spike counts and graded values), delays arriving exactly
// `delay` rows later across calls, chunked delivery bit-identical to one call for every type
// (strided buffers, accumulation), hand-computed evolve() of each type, batch semantics, the
// connectivity rules' invariants and statistics, seeding, state-dict and model-file round trips,
// rejected values naming their attribute, the factory entries, and a 10^5 x 10^5 in-degree build.
#include "engine/io/model_io.hpp"
#include "engine/io/module_factory.hpp"
#include "engine/network/projections.hpp"
#include "tests/projection_test_helpers.hpp"
#include "engine/tensor/random.hpp"
#include "tests/layer_test_helpers.hpp"
#include "tests/module_compare.hpp"

#include <QtTest/QtTest>

#include <QTemporaryDir>

#include <cmath>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

using namespace spike::engine;  // NOLINT: test file
using spike::tests::expectError;
using spike::tests::uniformTensor;

using spike::tests::spikeInput;

namespace {


/// The CSR as a dense (Nsrc, Ndst) matrix of weights; also checks the CSR's layout invariants.
Tensor denseFromCsr(const SparseProjection& sp)
{
    const std::int64_t nSrc = sp.sizeSource();
    const std::int64_t nDst = sp.sizeTarget();
    Tensor w(Shape{nSrc, nDst});
    const auto& rows = sp.rowStart();
    const auto& targets = sp.targets();
    if (static_cast<std::int64_t>(rows.size()) != nSrc + 1 || rows.front() != 0 ||
        rows.back() != sp.synapseCount()) {
        throw Error("rowStart does not frame the targets");
    }
    for (std::int64_t i = 0; i < nSrc; ++i) {
        for (std::int64_t s = rows[i]; s < rows[i + 1]; ++s) {
            if (targets[s] < 0 || targets[s] >= nDst ||
                (s > rows[i] && targets[s] <= targets[s - 1])) {
                throw Error("targets out of range or not ascending in row " + std::to_string(i));
            }
            w[i * nDst + targets[s]] = sp.weight();
        }
    }
    return w;
}

/// out[t + delay][j] = sum over i ascending of in[t][i] * W[i][j] (synapses only), from zero.
Tensor denseReference(const Tensor& w, const Tensor& in, std::int64_t delay)
{
    const std::int64_t steps = in.dim(0);
    const std::int64_t nSrc = w.dim(0);
    const std::int64_t nDst = w.dim(1);
    Tensor out(Shape{steps, nDst});
    for (std::int64_t t = 0; t + delay < steps; ++t) {
        for (std::int64_t j = 0; j < nDst; ++j) {
            float acc = 0.0F;
            for (std::int64_t i = 0; i < nSrc; ++i) {
                const float x = in[t * nSrc + i];
                if (x != 0.0F && w[i * nDst + j] != 0.0F) {
                    acc += x * w[i * nDst + j];
                }
            }
            out[(t + delay) * nDst + j] = acc;
        }
    }
    return out;
}

/// Rows [first, first + count) of a (T, N) tensor.
Tensor rows(const Tensor& t, std::int64_t first, std::int64_t count)
{
    const std::int64_t n = t.dim(1);
    std::vector<float> v(t.data() + first * n, t.data() + (first + count) * n);
    return Tensor(Shape{count, n}, v);
}

/// Evolves `m` over `in` in chunks whose lengths cycle through `chunks`; the concatenated output.
Tensor evolveInChunks(Module& m, const Tensor& in, const std::vector<std::int64_t>& chunks)
{
    const std::int64_t steps = in.dim(0);
    Tensor out(Shape{steps, m.sizeOut()});
    std::int64_t t = 0;
    for (std::size_t k = 0; t < steps; ++k) {
        const std::int64_t len = std::min(chunks[k % chunks.size()], steps - t);
        const Tensor part = m.evolve(rows(in, t, len)).output;
        std::copy(part.data(), part.data() + part.numel(), out.data() + t * m.sizeOut());
        t += len;
    }
    return out;
}

std::unique_ptr<SparseProjection> sparse(std::int64_t nSrc, std::int64_t nDst, AttributeMap attrs)
{
    return std::make_unique<SparseProjection>(nSrc, nDst, attrs);
}

Tensor scalar(float v)
{
    return Tensor::scalar(v);
}

/// A whole-number scalar attribute value: 3_f is Tensor::scalar(3.0F).
Tensor operator""_f(unsigned long long v)
{
    return Tensor::scalar(static_cast<float>(v));
}

const AttributeValue kProbability = std::string("probability");
const AttributeValue kInDegree = std::string("in_degree");

bool has(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

/// Sources of every target, from the CSR (target -> list of presynaptic channels).
std::vector<std::vector<std::int64_t>> sourcesPerTarget(const SparseProjection& sp)
{
    std::vector<std::vector<std::int64_t>> out(static_cast<std::size_t>(sp.sizeTarget()));
    for (std::int64_t i = 0; i < sp.sizeSource(); ++i) {
        for (std::int64_t s = sp.rowStart()[i]; s < sp.rowStart()[i + 1]; ++s) {
            out[static_cast<std::size_t>(sp.targets()[s])].push_back(i);
        }
    }
    return out;
}

bool sameCsr(const SparseProjection& a, const SparseProjection& b)
{
    return a.rowStart() == b.rowStart() && a.targets() == b.targets();
}

double absSum(const Tensor& t)
{
    double s = 0.0;
    for (std::int64_t i = 0; i < t.numel(); ++i) {
        s += std::abs(t[i]);
    }
    return s;
}

float absMax(const Tensor& t)
{
    float m = 0.0F;
    for (std::int64_t i = 0; i < t.numel(); ++i) {
        m = std::max(m, std::abs(t[i]));
    }
    return m;
}

}  // namespace

class TestProjections : public QObject {
    Q_OBJECT

private slots:
    void sparseDeliveryEqualsDenseReference()
    {
        struct Case {
            std::int64_t nSrc, nDst;
            AttributeMap attrs;
        };
        const std::vector<Case> cases{
            {37, 29, {{"rule", kProbability}, {"p", scalar(0.2F)}}},
            {37, 29, {{"rule", kInDegree}, {"in_degree", scalar(6.0F)}}},
            {31, 31, {{"rule", kProbability}, {"p", scalar(0.3F)}, {"autapses", scalar(0.0F)}}},
            {31, 31, {{"rule", kInDegree}, {"in_degree", scalar(30)}, {"autapses", scalar(0)}}},
        };
        for (const auto& c : cases) {
            for (const float seed : {1.0F, 2.0F, 3.0F}) {
                for (const float delay : {0.0F, 1.0F, 5.0F}) {
                    AttributeMap attrs = c.attrs;
                    attrs["seed"] = scalar(seed);
                    attrs["delay"] = scalar(delay);
                    attrs["weight"] = scalar(-0.7F);
                    auto sp = sparse(c.nSrc, c.nDst, attrs);
                    QVERIFY(sp->synapseCount() > 0);
                    const Tensor in = spikeInput(40, c.nSrc, static_cast<std::uint64_t>(seed) + 10);
                    const Tensor expected =
                        denseReference(denseFromCsr(*sp), in, static_cast<std::int64_t>(delay));
                    QVERIFY2(sp->evolve(in).output.identical(expected),
                             (sp->extraRepr() + " seed " + std::to_string(seed)).c_str());
                }
            }
        }
    }

    void singleSpikeArrivesDelayRowsLater()
    {
        for (const std::int64_t delay : {0, 1, 5}) {
            auto sp = sparse(6, 9, {{"in_degree", scalar(3.0F)}, {"weight", scalar(0.25F)},
                                    {"delay", scalar(static_cast<float>(delay))}});
            const std::int64_t channel = 4;
            const std::int64_t spikeAt = 3;
            Tensor in(Shape{12, 6});
            in[spikeAt * 6 + channel] = 1.0F;
            const Tensor out = sp->evolve(in).output;
            std::set<std::int64_t> fanOut;
            for (std::int64_t s = sp->rowStart()[channel]; s < sp->rowStart()[channel + 1]; ++s) {
                fanOut.insert(sp->targets()[s]);
            }
            for (std::int64_t t = 0; t < 12; ++t) {
                for (std::int64_t j = 0; j < 9; ++j) {
                    const float want = t == spikeAt + delay && fanOut.count(j) > 0 ? 0.25F : 0.0F;
                    QCOMPARE(out[t * 9 + j], want);
                }
            }
        }
        // A spike in the last rows of one call arrives in the next call, from the stored ring.
        auto sp = sparse(2, 2, {{"in_degree", scalar(2.0F)}, {"delay", scalar(5.0F)}});
        Tensor in(Shape{4, 2});
        in[3 * 2 + 1] = 2.0F;
        const Tensor first = sp->evolve(in).output;
        QCOMPARE(absSum(first), 0.0);
        QCOMPARE(absSum(sp->tensor("pending")), 4.0);
        const Tensor second = sp->evolve(Tensor(Shape{6, 2})).output;
        for (std::int64_t t = 0; t < 6; ++t) {
            QCOMPARE(second[t * 2 + 0], t == 4 ? 2.0F : 0.0F);  // row 3 + 5 = 8 overall
            QCOMPARE(second[t * 2 + 1], t == 4 ? 2.0F : 0.0F);
        }
        sp->evolve(in);
        QVERIFY(absSum(sp->tensor("pending")) > 0.0);
        sp->resetState();
        QCOMPARE(absSum(sp->tensor("pending")), 0.0);
        QCOMPARE(sp->tensor("pending_head")[0], 0.0F);
    }

    void chunkedDeliveryIsBitIdentical()
    {
        const Tensor in = spikeInput(50, 23, 77);
        std::vector<std::function<std::unique_ptr<Module>()>> makers{
            [] { return std::make_unique<DenseProjection>(23, 600, AttributeMap{{"seed", 4_f}}); },
            [] {
                const Tensor w = uniformTensor(Shape{23}, 3, -1, 1);
                return std::make_unique<OneToOneProjection>(23, AttributeMap{{"weight", w}});
            },
            [] { return std::make_unique<OneToOneProjection>(23, AttributeMap{{"weight", 3_f}}); },
        };
        for (const float delay : {0.0F, 1.0F, 5.0F}) {
            makers.emplace_back([delay] {
                return sparse(23, 17, {{"rule", kProbability}, {"p", scalar(0.3F)},
                                       {"delay", scalar(delay)}, {"weight", scalar(0.3F)}});
            });
        }
        for (const auto& make : makers) {
            auto whole = make();
            const Tensor expected = whole->evolve(in).output;
            QVERIFY(absSum(expected) > 0.0);
            using Chunks = std::vector<std::int64_t>;
            for (const Chunks& chunks : {Chunks{1}, Chunks{3}, Chunks{7}, Chunks{1, 3, 7}}) {
                auto chunked = make();
                QVERIFY2(evolveInChunks(*chunked, in, chunks).identical(expected),
                         (chunked->className() + " " + chunked->extraRepr()).c_str());
                spike::tests::compareAttributes(*whole, *chunked);
            }
        }
    }

    void deliverAccumulatesIntoStridedRows()
    {
        // Presynaptic rows are a slice of a wider source output, postsynaptic rows a slice of a
        // wider target input that already holds other connections' values: only the slice grows.
        const std::int64_t steps = 9;
        constexpr std::int64_t nSrc = 5;
        constexpr std::int64_t nDst = 4;
        const std::int64_t preStride = 8;
        const std::int64_t postStride = 7;
        const Tensor in = spikeInput(steps, nSrc, 5);
        std::vector<float> pre(static_cast<std::size_t>(steps * preStride), 9.0F);
        for (std::int64_t t = 0; t < steps; ++t) {
            for (std::int64_t i = 0; i < nSrc; ++i) {
                pre[static_cast<std::size_t>(t * preStride + 2 + i)] = in[t * nSrc + i];
            }
        }
        const std::vector<std::function<std::unique_ptr<Projection>()>> makers{
            [&] { return std::make_unique<DenseProjection>(nSrc, nDst); },
            [&] {
                return std::make_unique<OneToOneProjection>(nSrc, AttributeMap{{"weight", scalar(-2)}});
            },
            [&] {
                return std::make_unique<SparseProjection>(
                    nSrc, nDst, AttributeMap{{"in_degree", scalar(3.0F)}, {"delay", scalar(2.0F)}});
            },
        };
        for (const auto& make : makers) {
            auto p = make();
            const Tensor alone = make()->evolve(in).output;
            const std::int64_t width = p->sizeTarget();
            std::vector<float> post(static_cast<std::size_t>(steps * postStride), 0.5F);
            p->deliver(pre.data() + 2, preStride, 4, post.data() + 1, postStride);
            p->deliver(pre.data() + 2 + 4 * preStride, preStride, steps - 4,
                       post.data() + 1 + 4 * postStride, postStride);
            for (std::int64_t t = 0; t < steps; ++t) {
                for (std::int64_t c = 0; c < postStride; ++c) {
                    const float got = post[static_cast<std::size_t>(t * postStride + c)];
                    const bool inSlice = c >= 1 && c < 1 + width;
                    QCOMPARE(got, inSlice ? 0.5F + alone[t * width + c - 1] : 0.5F);
                }
            }
        }
    }

    void evolveMatchesHandComputation()
    {
        DenseProjection dense(2, 3, {{"weight", Tensor(Shape{2, 3}, {1, 2, 3, -1, 0.5F, 0})}});
        const Tensor x(Shape{2, 2}, {1, 0, 2, 3});
        const Tensor y = dense.evolve(x).output;
        QVERIFY(y.identical(Tensor(Shape{2, 3}, {1, 2, 3, -1, 5.5F, 6})));

        OneToOneProjection oneScalar(3, {{"weight", scalar(2.0F)}});
        QVERIFY(oneScalar.evolve(Tensor(Shape{1, 3}, {1, -2, 0.5F})).output
                    .identical(Tensor(Shape{1, 3}, {2, -4, 1})));
        OneToOneProjection oneEach(3, {{"weight", Tensor(Shape{3}, {1, -1, 4})}});
        QVERIFY(oneEach.evolve(Tensor(Shape{1, 3}, {1, -2, 0.5F})).output
                    .identical(Tensor(Shape{1, 3}, {1, 2, 2})));
        OneToOneProjection unit(2);
        QCOMPARE(unit.tensor("weight")[0], 1.0F);

        // in_degree = Nsrc connects every pair: post[t + 1][j] = 0.5 * sum_i pre[t][i].
        auto all = sparse(3, 2, {{"in_degree", 3_f}, {"weight", scalar(0.5F)}, {"delay", 1_f}});
        QCOMPARE(all->synapseCount(), 6);
        const Tensor out = all->evolve(Tensor(Shape{3, 3}, {1, 0, 2, 0, 0, 0, 1, 1, 1})).output;
        QVERIFY(out.identical(Tensor(Shape{3, 2}, {0, 0, 1.5F, 1.5F, 0, 0})));
        const Tensor next = all->evolve(Tensor(Shape{1, 3})).output;
        QVERIFY(next.identical(Tensor(Shape{1, 2}, {1.5F, 1.5F})));

        // Dense's default weights: Rockpool LinearTorch's bound sqrt(6 / Nsrc), seeded.
        DenseProjection init(24, 50);
        const float bound = std::sqrt(6.0F / 24.0F);
        QVERIFY(absMax(init.tensor("weight")) <= bound);
        QVERIFY(absMax(init.tensor("weight")) > 0.9F * bound);
        QVERIFY(DenseProjection(24, 50).tensor("weight").identical(init.tensor("weight")));
        const DenseProjection reseeded(24, 50, {{"seed", scalar(1.0F)}});
        QVERIFY(!reseeded.tensor("weight").identical(init.tensor("weight")));
    }

    void batchElementsStartFromStoredState()
    {
        const AttributeMap settings{{"in_degree", scalar(4.0F)}, {"delay", scalar(3.0F)}};
        auto warm = sparse(8, 6, settings);
        warm->evolve(spikeInput(5, 8, 1));  // leaves deliveries pending
        const StateDict before = warm->stateDict();
        const auto fromBefore = [&] {
            auto m = sparse(8, 6, settings);
            if (!m->loadStateDict(before).status.ok) {
                throw Error("state dict refused");
            }
            return m;
        };
        Tensor batch(Shape{3, 10, 8});
        std::vector<Tensor> alone;
        std::unique_ptr<SparseProjection> first;
        for (std::int64_t b = 0; b < 3; ++b) {
            const Tensor part = spikeInput(10, 8, 20 + static_cast<std::uint64_t>(b));
            std::copy(part.data(), part.data() + part.numel(), batch.data() + b * 80);
            auto twin = fromBefore();
            alone.push_back(twin->evolve(part).output);
            if (b == 0) {
                first = std::move(twin);
            }
        }
        auto batched = fromBefore();
        const Tensor out = batched->evolve(batch).output;
        for (std::int64_t b = 0; b < 3; ++b) {
            std::vector<float> v(out.data() + b * 60, out.data() + (b + 1) * 60);
            QVERIFY(Tensor(Shape{10, 6}, v).identical(alone[static_cast<std::size_t>(b)]));
        }
        // Afterwards the stored States are batch element 0's.
        spike::tests::compareAttributes(*batched, *first);
        QVERIFY(absSum(batched->tensor("pending")) > 0.0);
    }

    void inDegreeRuleDrawsExactlyKDistinctSources()
    {
        for (const bool autapses : {true, false}) {
            for (const float k : {0.0F, 1.0F, 7.0F, 39.0F, 40.0F}) {
                if (!autapses && k == 40.0F) {
                    continue;  // only 39 other sources
                }
                auto sp = sparse(
                    40, 40, {{"in_degree", scalar(k)}, {"autapses", scalar(autapses)}});
                QCOMPARE(sp->synapseCount(), static_cast<std::int64_t>(k) * 40);
                const auto sources = sourcesPerTarget(*sp);
                std::int64_t autapseCount = 0;
                for (std::size_t j = 0; j < sources.size(); ++j) {
                    const std::set<std::int64_t> distinct(sources[j].begin(), sources[j].end());
                    QCOMPARE(static_cast<float>(distinct.size()), k);
                    autapseCount += distinct.count(static_cast<std::int64_t>(j)) > 0 ? 1 : 0;
                }
                if (!autapses) {
                    QCOMPARE(autapseCount, 0);
                } else if (k == 40.0F) {
                    QCOMPARE(autapseCount, 40);  // every source, itself included
                } else if (k == 39.0F) {
                    QVERIFY(autapseCount > 30);  // each target misses itself with chance 1/40
                }
            }
        }
        // Rectangular: k of Nsrc, and every source is about equally likely.
        auto sp = sparse(50, 4000, {{"in_degree", scalar(10.0F)}, {"seed", scalar(9.0F)}});
        QCOMPARE(sp->synapseCount(), 40000);
        for (std::int64_t i = 0; i < 50; ++i) {
            const double fanOut = static_cast<double>(sp->rowStart()[i + 1] - sp->rowStart()[i]);
            // Binomial(4000, 0.2): mean 800, sd about 25.3.
            QVERIFY2(std::abs(fanOut - 800.0) < 5.0 * 25.3, std::to_string(fanOut).c_str());
        }
    }

    void probabilityRuleCountIsBinomial()
    {
        for (const bool square : {false, true}) {
            const std::int64_t nSrc = 300;
            const std::int64_t nDst = square ? 300 : 400;
            const double p = 0.05;
            auto sp = sparse(nSrc, nDst,
                             {{"rule", kProbability}, {"p", scalar(0.05F)}, {"autapses", 0_f}});
            const double pairs = static_cast<double>(nSrc * nDst - (square ? nSrc : 0));
            const double mean = static_cast<double>(0.05F) * pairs;
            const double sigma = std::sqrt(mean * (1.0 - p));
            const double count = static_cast<double>(sp->synapseCount());
            QVERIFY2(std::abs(count - mean) < 5.0 * sigma, std::to_string(count).c_str());
            (void)denseFromCsr(*sp);  // layout invariants
            if (square) {
                for (std::int64_t i = 0; i < nSrc; ++i) {
                    for (std::int64_t s = sp->rowStart()[i]; s < sp->rowStart()[i + 1]; ++s) {
                        QVERIFY(sp->targets()[s] != i);
                    }
                }
            }
        }
        auto none = sparse(20, 30, {{"rule", kProbability}, {"p", scalar(0.0F)}});
        QCOMPARE(none->synapseCount(), 0);
        auto all = sparse(20, 20, {{"rule", kProbability}, {"p", 1_f}, {"autapses", 0_f}});
        QCOMPARE(all->synapseCount(), 380);
        auto full = sparse(20, 30, {{"rule", kProbability}, {"p", scalar(1.0F)}});
        QCOMPARE(full->synapseCount(), 600);
    }

    void seedsDecideTheSynapses()
    {
        const AttributeMap prob{{"rule", kProbability}, {"p", scalar(0.1F)}};
        for (const auto& base : {prob, AttributeMap{{"in_degree", scalar(5.0F)}}}) {
            AttributeMap a = base;
            a["seed"] = scalar(3.0F);
            AttributeMap b = base;
            b["seed"] = scalar(4.0F);
            auto x = sparse(60, 70, a);
            auto y = sparse(60, 70, a);
            auto z = sparse(60, 70, b);
            QVERIFY(sameCsr(*x, *y));
            QVERIFY(!sameCsr(*x, *z));
            // Changing the seed redraws; a weight change keeps the synapses; back again restores.
            QVERIFY(x->setAttribute("seed", scalar(4.0F)).ok);
            QVERIFY(sameCsr(*x, *z));
            QVERIFY(x->setAttribute("weight", scalar(2.0F)).ok);
            QVERIFY(sameCsr(*x, *z));
            QVERIFY(x->setAttribute("seed", scalar(3.0F)).ok);
            QVERIFY(sameCsr(*x, *y));
        }
        // Switching rule redraws with the other rule.
        auto s = sparse(30, 30, {{"in_degree", scalar(2.0F)}});
        QCOMPARE(s->synapseCount(), 60);
        QVERIFY(s->setAttributes({{"", {{"rule", kProbability}, {"p", scalar(1.0F)}}}}).ok);
        QCOMPARE(s->synapseCount(), 900);
    }

    void delayChangesReshapeTheRing()
    {
        auto sp = sparse(4, 3, {});
        QCOMPARE(sp->tensor("pending").shape(), Shape({0, 3}));
        QVERIFY(sp->setAttribute("delay", scalar(4.0F)).ok);
        QCOMPARE(sp->tensor("pending").shape(), Shape({4, 3}));
        QCOMPARE(sp->delaySteps(), 4);
        QVERIFY(!sp->spec("delay").liveEditable);
        for (const char* name : {"rule", "p", "in_degree", "seed", "autapses"}) {
            QVERIFY2(!sp->spec(name).liveEditable, name);
        }
        sp->evolve(spikeInput(3, 4, 2));
        QVERIFY(sp->setAttributes({{"", {{"delay", scalar(2)}, {"pending", Tensor(Shape{2, 3}, 1)},
                                          {"pending_head", scalar(1)}}}})
                    .ok);
        QVERIFY(sp->tensor("pending").identical(Tensor(Shape{2, 3}, 1.0F)));
        QCOMPARE(sp->tensor("pending_head")[0], 1.0F);
        sp->resetParameters();
        QCOMPARE(sp->tensor("pending").shape(), Shape({0, 3}));
        QCOMPARE(sp->tensor("pending_head")[0], 0.0F);
    }

    void stateDictAndModelFileRoundTrips()
    {
        QTemporaryDir dir;
        std::vector<std::unique_ptr<Module>> originals;
        originals.push_back(sparse(12, 9, {{"rule", kProbability}, {"p", scalar(0.4F)},
                                           {"delay", scalar(3)}, {"seed", scalar(5)},
                                           {"weight", scalar(0.6F)}}));
        originals.push_back(sparse(10, 10, {{"in_degree", scalar(4)}, {"autapses", scalar(0)}}));
        originals.push_back(std::make_unique<DenseProjection>(12, 9));
        originals.push_back(std::make_unique<OneToOneProjection>(
            9, AttributeMap{{"weight", uniformTensor(Shape{9}, 1, -1, 1)}}));
        int k = 0;
        for (auto& original : originals) {
            const Tensor warm = spikeInput(7, original->sizeIn(), 3);
            original->evolve(warm);
            const std::string path = dir.filePath(QString::number(k++) + ".json").toStdString();
            saveModel(path, *original, SaveOptions{-1});
            auto loaded = loadModel(path);
            QCOMPARE(loaded->config(), original->config());
            spike::tests::compareTrees(*original, *loaded);

            // State dict into a module built with the same settings (connectivity is not in it).
            auto twin = createModule(original->className(), original->config());
            if (auto* sp = dynamic_cast<SparseProjection*>(original.get())) {
                NestedAttributes settings;
                for (const char* name : {"rule", "p", "in_degree", "seed", "autapses", "delay"}) {
                    settings[""][name] = sp->attribute(name);
                }
                QVERIFY(twin->setAttributes(settings).ok);
                QVERIFY(sameCsr(*sp, dynamic_cast<SparseProjection&>(*loaded)));
            }
            // Through a folder of .npy files, as spikesim saves them (a (0, N) ring included).
            const std::string folder = dir.filePath(QString::number(k) + ".state").toStdString();
            saveStateDictFolder(folder, original->stateDict());
            const auto result = twin->loadStateDict(loadStateDictFolder(folder));
            QVERIFY2(result.status.ok, result.status.message.c_str());
            spike::tests::compareAttributes(*original, *twin);

            const Tensor more = spikeInput(11, original->sizeIn(), 4);
            const Tensor expected = original->evolve(more).output;
            QVERIFY(loaded->evolve(more).output.identical(expected));
            QVERIFY(twin->evolve(more).output.identical(expected));
        }
    }

    void badValuesAreRejectedNamingTheAttribute()
    {
        expectError([] { sparse(5, 5, {{"p", scalar(1.5F)}}); }, "'p'");
        expectError([] { sparse(5, 5, {{"p", scalar(-0.1F)}}); }, "'p'");
        expectError([] { sparse(5, 6, {{"in_degree", 6_f}}); }, "'in_degree': expected at most 5");
        expectError([] { sparse(5, 5, {{"in_degree", scalar(5.0F)}, {"autapses", scalar(0.0F)}}); },
                    "'in_degree': expected at most 4");
        expectError([] { sparse(5, 5, {{"rule", std::string("fixed")}}); }, "'rule'");
        expectError([] { sparse(5, 5, {{"delay", scalar(1.5F)}}); }, "'delay'");
        expectError([] { sparse(5, 5, {{"weight", Tensor(Shape{5})}}); }, "'weight'");
        expectError([] { sparse(100000, 100000, {{"rule", kProbability}, {"p", scalar(0.5F)}}); },
                    "'p'");
        expectError([] { sparse(100000, 100000, {{"in_degree", scalar(50000)}}); }, "'in_degree'");
        expectError([] { sparse(5, 100000000, {{"delay", scalar(100.0F)}}); }, "'delay'");
        expectError([] { DenseProjection(3, 4, {{"weight", Tensor(Shape{4, 3})}}); },
                    "'weight': expected shape (3, 4)");
        expectError([] { OneToOneProjection(3, {{"weight", Tensor(Shape{4})}}); }, "'weight'");

        // A rejected change leaves the module as it was.
        auto sp = sparse(20, 20, {{"in_degree", scalar(3.0F)}, {"delay", scalar(2.0F)}});
        const std::vector<std::int32_t> targets = sp->targets();
        const auto failed = sp->setAttributes({{"", {{"seed", 8_f}, {"in_degree", 21_f}}}});
        QVERIFY(!failed.ok);
        QVERIFY2(has(failed.message, "'in_degree'"), failed.message.c_str());
        QVERIFY(sp->targets() == targets);
        QCOMPARE(sp->tensor("seed")[0], 0.0F);
        const auto ring = sp->setAttribute("pending", Tensor(Shape{3, 20}));
        QVERIFY(!ring.ok);
        QVERIFY2(has(ring.message, "'pending': expected shape (2, 20)"), ring.message.c_str());
        const auto head = sp->setAttribute("pending_head", scalar(2.0F));
        QVERIFY(!head.ok);
        QVERIFY2(has(head.message, "'pending_head'"), head.message.c_str());
        expectError([&] { sp->evolve(Tensor(Shape{3, 19})); }, "expected 20");
    }

    void factoryBuildsEachProjection()
    {
        const auto* info = findModuleType("SparseProjection");
        QVERIFY(info != nullptr);
        QCOMPARE(info->category, std::string("projections"));
        for (const char* type : {"DenseProjection", "OneToOneProjection", "SparseProjection"}) {
            const auto* t = findModuleType(type);
            QVERIFY2(t != nullptr, type);
            auto m = createModule(type, t->exampleConfig);
            QCOMPARE(m->className(), std::string(type));
            QVERIFY(dynamic_cast<Projection*>(m.get()) != nullptr);
            QCOMPARE(m->config(), t->exampleConfig);
        }
        auto dense = createModule("DenseProjection", {{"shape", {3, 5}}});
        QCOMPARE(dense->shape(), (std::vector<std::int64_t>{3, 5}));
        auto one = createModule("OneToOneProjection", {{"shape", {4}}});
        QCOMPARE(one->shape(), (std::vector<std::int64_t>{4}));
        expectError([] { createModule("SparseProjection", {{"shape", {3}}}); }, "config 'shape'");
        expectError([] { createModule("OneToOneProjection", {{"shape", {3, 4}}}); }, "'shape'");
        expectError([] { createModule("DenseProjection", nlohmann::json::object()); }, "missing");
        expectError([] { createModule("SparseProjection", {{"shape", {3, 0}}}); }, "'Ndst'");
        expectError([] { createModule("DenseProjection", {{"shape", {100000, 100000}}}); },
                    "tensor limit");
        // The default connectivity is cheap at any size, so big models load before their settings.
        auto big = createModule("SparseProjection", {{"shape", {1000000, 2000000}}});
        QCOMPARE(dynamic_cast<SparseProjection&>(*big).synapseCount(), 2000000);
    }

    void delayRingIsBounded()
    {
        // A delay whose ring of pending deliveries would pass 2^27 values is refused with the
        // longest delay allowed, the module unchanged (a slider at the far end must not
        // allocate gigabytes).
        auto m = createModule("SparseProjection", {{"shape", {3200, 3200}}});
        const auto refused = m->setAttribute("delay", Tensor::scalar(50000.0F));
        QVERIFY(!refused.ok);
        QVERIFY2(refused.message.find("at most 41943 steps for 3200 targets") != std::string::npos, refused.message.c_str());
        QCOMPARE(m->tensor("delay")[0], 0.0F);
        QVERIFY(m->setAttribute("delay", Tensor::scalar(41943.0F)).ok);
        QCOMPARE(m->tensor("pending").numel(), std::int64_t(41943) * 3200);
    }

    void largeInDegreeBuild()
    {
        auto sp = sparse(100000, 100000, {{"in_degree", scalar(100.0F)}, {"seed", scalar(1.0F)}});
        QCOMPARE(sp->synapseCount(), 10000000);
        QCOMPARE(sp->rowStart().back(), 10000000);
        std::vector<std::int32_t> perTarget(100000, 0);
        bool ascending = true;
        for (std::int64_t i = 0; i < 100000; ++i) {
            for (std::int64_t s = sp->rowStart()[i]; s < sp->rowStart()[i + 1]; ++s) {
                const bool first = s == sp->rowStart()[i];
                ascending = ascending && (first || sp->targets()[s] > sp->targets()[s - 1]);
                ++perTarget[static_cast<std::size_t>(sp->targets()[s])];
            }
        }
        QVERIFY(ascending);
        QVERIFY(std::all_of(perTarget.begin(), perTarget.end(), [](auto c) { return c == 100; }));
    }
};

QTEST_GUILESS_MAIN(TestProjections)
#include "test_projections.moc"
