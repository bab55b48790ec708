// SparseProjection's per-synapse weights (weight_dist, weight_spread, keep_sign): the constant
// distribution keeps the deliveries of before bit for bit (digests taken before the feature);
// uniform and normal draws have their moments over 10^5 synapses, uniform stays in its bounds,
// keep_sign zeroes exactly the draws of the other sign; draws are determined by the seed and
// never change which synapses exist; a change of weight or spread redraws only the weights;
// deliver() and deliverListed() equal a hand-computed sum over the drawn weights (delays 0 and
// 2); bad values are refused by name and change nothing; a model file keeps the distribution and
// gives the same weights; the device twin delivers like the CPU (an executor on both backends,
// run on the CUDA emulator as test_sparse_weights_cuda_emulated, skipped without a device).
#include "engine/io/model_io.hpp"
#include "engine/network/network.hpp"
#include "engine/network/projections.hpp"
#include "tests/projection_test_helpers.hpp"
#include "engine/neurons/lif.hpp"
#include "engine/runtime/backend.hpp"
#include "engine/tensor/random.hpp"
#include "kernels/cuda_device.hpp"

#include <QtTest/QtTest>

#include <QTemporaryDir>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace spike::engine;  // NOLINT: test file

using spike::tests::spikeInput;

namespace {


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

Tensor scalar(float v)
{
    return Tensor::scalar(v);
}

const AttributeValue kUniform = std::string("uniform");
const AttributeValue kNormal = std::string("normal");

/// 1000 x 1000, in_degree 100: 10^5 synapses.
std::unique_ptr<SparseProjection> large(AttributeMap attrs)
{
    attrs["in_degree"] = scalar(100.0F);
    attrs["seed"] = scalar(11.0F);
    return std::make_unique<SparseProjection>(1000, 1000, attrs);
}

struct Moments {
    double mean = 0.0;
    double std = 0.0;
    float min = 0.0F;
    float max = 0.0F;
};

Moments moments(const std::vector<float>& w)
{
    Moments m;
    double sum = 0.0;
    double sq = 0.0;
    for (const float v : w) {
        sum += v;
        sq += static_cast<double>(v) * v;
    }
    const auto n = static_cast<double>(w.size());
    m.mean = sum / n;
    m.std = std::sqrt(std::max(0.0, sq / n - m.mean * m.mean));
    m.min = *std::min_element(w.begin(), w.end());
    m.max = *std::max_element(w.begin(), w.end());
    return m;
}

/// out[t + delay][targets[s]] += in[t][i] * w[s] for every synapse s of every non-zero channel
/// i, channels ascending (the CPU's order), from zero.
Tensor handSum(const SparseProjection& sp, const Tensor& in, std::int64_t delay)
{
    const std::int64_t steps = in.dim(0);
    const std::int64_t nSrc = sp.sizeSource();
    const std::int64_t nDst = sp.sizeTarget();
    const std::vector<float>& w = sp.synapseWeights();
    Tensor out(Shape{steps, nDst});
    for (std::int64_t t = 0; t + delay < steps; ++t) {
        for (std::int64_t i = 0; i < nSrc; ++i) {
            const float x = in[t * nSrc + i];
            if (x == 0.0F) {
                continue;
            }
            for (std::int64_t s = sp.rowStart()[i]; s < sp.rowStart()[i + 1]; ++s) {
                out[(t + delay) * nDst + sp.targets()[s]] += x * w[static_cast<std::size_t>(s)];
            }
        }
    }
    return out;
}

/// Why the CUDA backend cannot run here ("" when it can).
std::string cudaUnavailable()
{
    const auto device = spike::kernels::queryCudaDevice();
    return device.available ? std::string() : "no usable CUDA device: " + device.reason;
}

/// in (30 graded) -> uniform sparse -> LIF E (50) with a normal, mixed-sign recurrent sparse
/// projection delayed 2 steps, and a uniform sparse projection out of E into LIF F (20).
std::unique_ptr<Network> weightedNetwork()
{
    auto net = std::make_unique<Network>(30, 20);
    net->addNode("E", std::make_unique<LIF>(50, 50, false,
                                            AttributeMap{{"threshold", scalar(0.5F)},
                                                         {"max_spikes_per_dt", scalar(1)}}));
    net->addNode("F", std::make_unique<LIF>(20, 20, false,
                                            AttributeMap{{"threshold", scalar(0.4F)},
                                                         {"max_spikes_per_dt", scalar(1)}}));
    net->connect("in", "E", std::make_unique<SparseProjection>(
                                30, 50, AttributeMap{{"in_degree", scalar(6)}, {"seed", scalar(1)},
                                                     {"weight", scalar(0.3F)},
                                                     {"weight_dist", kUniform},
                                                     {"weight_spread", scalar(0.25F)}}));
    net->connect("E", "E", std::make_unique<SparseProjection>(
                               50, 50, AttributeMap{{"in_degree", scalar(8)}, {"seed", scalar(2)},
                                                    {"weight", scalar(0.05F)},
                                                    {"weight_dist", kNormal},
                                                    {"weight_spread", scalar(0.2F)},
                                                    {"keep_sign", scalar(0)},
                                                    {"delay", scalar(2)}}));
    net->connect("E", "F", std::make_unique<SparseProjection>(
                               50, 20, AttributeMap{{"in_degree", scalar(10)}, {"seed", scalar(3)},
                                                    {"weight", scalar(0.2F)},
                                                    {"weight_dist", kUniform},
                                                    {"weight_spread", scalar(0.1F)},
                                                    {"delay", scalar(1)}}));
    net->connect("F", "out");
    return net;
}

/// An executor of weightedNetwork() on one backend, with its output and probes recorded.
struct Recorded {
    std::unique_ptr<Executor> ex;
    std::vector<ProbeInfo> infos;

    Recorded(const std::string& backend, Module& net)
    {
        ExecutorOptions options;
        options.maxChunkSteps = 7;
        ex = makeExecutor(net, parseBackendKind(backend), options);
        infos = ex->setProbes({{"E", "isyn", {}}, {"E", "spikes", {}}, {"F", "isyn", {}}});
    }

    /// Rows of `steps` steps from `in` (steps, 30), in chunks of 7: output, then each probe.
    std::vector<std::vector<float>> advance(const Tensor& in, std::int64_t steps)
    {
        std::vector<std::vector<float>> rows(infos.size() + 1);
        rows[0].assign(static_cast<std::size_t>(steps * 20), 0.0F);
        for (std::int64_t t0 = 0; t0 < steps; t0 += 7) {
            const std::int64_t n = std::min<std::int64_t>(7, steps - t0);
            ex->advance(n, in.data() + t0 * 30, rows[0].data() + t0 * 20);
            for (std::size_t p = 0; p < infos.size(); ++p) {
                const float* d = ex->probeData(p);
                rows[p + 1].insert(rows[p + 1].end(), d, d + n * infos[p].width);
            }
        }
        return rows;
    }
};

/// Every row of `got` equals `want` within float32 rounding (exact on the emulator, whose
/// scatter adds in the CPU's order; a GPU's atomicAdd order may round apart).
void expectAgree(const std::vector<std::vector<float>>& got,
                 const std::vector<std::vector<float>>& want, const char* when)
{
    for (std::size_t k = 0; k < want.size(); ++k) {
        QCOMPARE(got[k].size(), want[k].size());
        for (std::size_t i = 0; i < want[k].size(); ++i) {
            const float tol = 1e-5F * (1.0F + std::abs(want[k][i]));
            QVERIFY2(std::abs(got[k][i] - want[k][i]) <= tol,
                     (std::string(when) + ": row set " + std::to_string(k) + " [" +
                      std::to_string(i) + "]: " + std::to_string(got[k][i]) + ", expected " +
                      std::to_string(want[k][i]))
                         .c_str());
        }
    }
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

    void constantStoresNoWeightsWhateverTheSpread()
    {
        const Tensor in = spikeInput(30, 40, 4);
        SparseProjection plain(40, 30, {{"in_degree", scalar(5)}, {"weight", scalar(0.7F)}});
        SparseProjection spread(40, 30, {{"in_degree", scalar(5)}, {"weight", scalar(0.7F)},
                                         {"weight_dist", std::string("constant")},
                                         {"weight_spread", scalar(0.5F)},
                                         {"keep_sign", scalar(0)}});
        QVERIFY(spread.synapseWeights().empty());
        QCOMPARE(digest(spread.evolve(in).output), digest(plain.evolve(in).output));
        QCOMPARE(std::get<std::string>(plain.attribute("weight_dist")), std::string("constant"));
        QCOMPARE(plain.tensor("weight_spread")[0], 0.0F);
        QCOMPARE(plain.tensor("keep_sign")[0], 1.0F);
    }

    void uniformWeightsHaveTheirMomentsAndBounds()
    {
        auto sp = large({{"weight", scalar(0.5F)}, {"weight_dist", kUniform},
                         {"weight_spread", scalar(0.2F)}, {"keep_sign", scalar(0)}});
        const auto& w = sp->synapseWeights();
        QCOMPARE(static_cast<std::int64_t>(w.size()), sp->synapseCount());
        QCOMPARE(sp->synapseCount(), std::int64_t(100000));
        const Moments m = moments(w);
        // Standard error of the mean 0.2 / sqrt(3 * 10^5) = 3.7e-4: 5 of them.
        QVERIFY2(std::abs(m.mean - 0.5) < 0.0019, std::to_string(m.mean).c_str());
        QVERIFY2(std::abs(m.std - 0.2 / std::sqrt(3.0)) < 0.002, std::to_string(m.std).c_str());
        QVERIFY(m.min >= 0.3F - 1e-7F && m.max <= 0.7F + 1e-7F);
        QVERIFY(m.min < 0.301F && m.max > 0.699F);  // the whole interval is used
    }

    void normalWeightsHaveTheirMoments()
    {
        auto sp = large({{"weight", scalar(-1.0F)}, {"weight_dist", kNormal},
                         {"weight_spread", scalar(0.3F)}, {"keep_sign", scalar(0)}});
        const auto& w = sp->synapseWeights();
        const Moments m = moments(w);
        QVERIFY2(std::abs(m.mean + 1.0) < 0.005, std::to_string(m.mean).c_str());
        QVERIFY2(std::abs(m.std - 0.3) < 0.006, std::to_string(m.std).c_str());
        const auto within = std::count_if(w.begin(), w.end(), [](float v) {
            return std::abs(v + 1.0F) < 0.3F;
        });
        QVERIFY2(std::abs(static_cast<double>(within) / 1e5 - 0.6827) < 0.008,
                 std::to_string(within).c_str());
        QVERIFY(m.max > -0.1F);  // tails reach 3 std
    }

    void keepSignZeroesTheOtherSign()
    {
        for (const float mean : {0.1F, -0.1F}) {
            auto free = large({{"weight", scalar(mean)}, {"weight_dist", kNormal},
                               {"weight_spread", scalar(0.3F)}, {"keep_sign", scalar(0)}});
            auto dale = large({{"weight", scalar(mean)}, {"weight_dist", kNormal},
                               {"weight_spread", scalar(0.3F)}});
            const auto& a = free->synapseWeights();
            const auto& b = dale->synapseWeights();
            QCOMPARE(a.size(), b.size());
            std::int64_t zeroed = 0;
            for (std::size_t s = 0; s < a.size(); ++s) {
                const bool otherSign = mean > 0 ? a[s] < 0.0F : a[s] > 0.0F;
                QCOMPARE(b[s], otherSign ? 0.0F : a[s]);
                zeroed += otherSign ? 1 : 0;
            }
            // P(z < -1/3) = 0.3694.
            QVERIFY2(std::abs(static_cast<double>(zeroed) / 1e5 - 0.3694) < 0.008,
                     std::to_string(zeroed).c_str());
        }
        // Weight 0 has no sign to keep: every draw stays.
        auto zero = large({{"weight", scalar(0.0F)}, {"weight_dist", kUniform},
                           {"weight_spread", scalar(1.0F)}});
        const Moments m = moments(zero->synapseWeights());
        QVERIFY(m.min < -0.99F && m.max > 0.99F);
    }

    void drawsAreDeterminedBySeedAndKeepTheSynapses()
    {
        for (const AttributeValue& rule : {AttributeValue(std::string("probability")),
                                           AttributeValue(std::string("in_degree"))}) {
            const auto make = [&](const AttributeValue& dist, float seed) {
                return std::make_unique<SparseProjection>(
                    200, 150, AttributeMap{{"rule", rule}, {"p", scalar(0.05F)},
                                           {"in_degree", scalar(7)}, {"seed", scalar(seed)},
                                           {"weight", scalar(0.4F)}, {"weight_dist", dist},
                                           {"weight_spread", scalar(0.3F)}});
            };
            auto constant = make(std::string("constant"), 4);
            auto uniform = make(kUniform, 4);
            auto normal = make(kNormal, 4);
            for (const auto* sp : {uniform.get(), normal.get()}) {
                QVERIFY(sp->rowStart() == constant->rowStart());
                QVERIFY(sp->targets() == constant->targets());
                QCOMPARE(static_cast<std::int64_t>(sp->synapseWeights().size()),
                         constant->synapseCount());
            }
            QVERIFY(make(kUniform, 4)->synapseWeights() == uniform->synapseWeights());
            QVERIFY(make(kNormal, 4)->synapseWeights() == normal->synapseWeights());
            QVERIFY(make(kNormal, 5)->synapseWeights() != normal->synapseWeights());
            QVERIFY(uniform->synapseWeights() != normal->synapseWeights());
        }
    }

    void changingTheDistributionRedrawsOnlyTheWeights()
    {
        auto sp = large({{"weight", scalar(0.5F)}, {"weight_dist", kUniform},
                         {"weight_spread", scalar(0.2F)}});
        const std::vector<std::int32_t> targets = sp->targets();
        const std::vector<float> before = sp->synapseWeights();
        QVERIFY(sp->weightsDrawn());
        QVERIFY(sp->setAttribute("weight_spread", scalar(0.1F)).ok);
        QVERIFY(sp->synapsesDrawn());  // the CSR stays
        // Asking for the synapses (the editor's wire label does) draws no weights.
        QCOMPARE(sp->synapseCount(), std::int64_t(100000));
        QVERIFY(!sp->weightsDrawn());
        const std::vector<float>& after = sp->synapseWeights();
        QCOMPARE(after.size(), before.size());
        // The same uniform draws u, half the spread: w - mean halves.
        for (std::size_t s = 0; s < after.size(); s += 997) {
            QVERIFY(std::abs((after[s] - 0.5F) - (before[s] - 0.5F) / 2) < 1e-6F);
        }
        QVERIFY(sp->setAttribute("weight", scalar(0.6F)).ok);
        QVERIFY(sp->synapsesDrawn());
        QVERIFY(std::abs(moments(sp->synapseWeights()).mean - 0.6) < 0.002);
        QVERIFY(sp->setAttribute("weight_dist", std::string("constant")).ok);
        QVERIFY(sp->synapseWeights().empty());
        QVERIFY(sp->targets() == targets);
        // The weights' settings may change while a simulation runs; the connectivity's may not.
        for (const char* name : {"weight", "weight_dist", "weight_spread", "keep_sign"}) {
            QVERIFY2(sp->spec(name).liveEditable, name);
        }
    }

    void deliveryEqualsTheSumOverDrawnWeights()
    {
        for (const AttributeValue& dist : {kUniform, kNormal}) {
            for (const float delay : {0.0F, 2.0F}) {
                const AttributeMap attrs{{"rule", std::string("probability")},
                                         {"p", scalar(0.15F)}, {"seed", scalar(9)},
                                         {"weight", scalar(-0.4F)}, {"weight_dist", dist},
                                         {"weight_spread", scalar(0.5F)},
                                         {"keep_sign", scalar(0)}, {"delay", scalar(delay)}};
                SparseProjection sp(64 + 13, 41, attrs);  // a block of 64 and a tail
                const Tensor in = spikeInput(25, sp.sizeSource(), 12);
                const Tensor want = handSum(sp, in, static_cast<std::int64_t>(delay));
                QVERIFY(std::any_of(sp.synapseWeights().begin(), sp.synapseWeights().end(),
                                    [](float v) { return v > 0.0F; }));
                QVERIFY(sp.evolve(in).output.identical(want));

                // From spike lists: the listed channels give the same sums.
                SparseProjection listed(sp.sizeSource(), sp.sizeTarget(), attrs);
                const std::int64_t n = sp.sizeSource();
                std::vector<std::int32_t> indices(static_cast<std::size_t>(25 * n), -1);
                std::vector<std::int32_t> counts(25, 0);
                for (std::int64_t t = 0; t < 25; ++t) {
                    for (std::int64_t i = 0; i < n; ++i) {
                        if (in[t * n + i] != 0.0F) {
                            indices[static_cast<std::size_t>(t * n + counts[t]++)] =
                                static_cast<std::int32_t>(i);
                        }
                    }
                }
                Tensor out(Shape{25, sp.sizeTarget()});
                listed.deliverListed(in.data(), n, SpikeLists{indices.data(), counts.data(), n},
                                     25, out.data(), sp.sizeTarget());
                QVERIFY(out.identical(want));
            }
        }
    }

    void badValuesAreRefusedByName()
    {
        auto sp = large({{"weight", scalar(0.5F)}, {"weight_dist", kUniform},
                         {"weight_spread", scalar(0.2F)}});
        const std::vector<float> before = sp->synapseWeights();
        const Status negative = sp->setAttribute("weight_spread", scalar(-0.1F));
        QVERIFY(!negative.ok);
        QVERIFY2(negative.message.find("weight_spread") != std::string::npos,
                 negative.message.c_str());
        const Status unknown = sp->setAttribute("weight_dist", std::string("lognormal"));
        QVERIFY(!unknown.ok);
        QVERIFY2(unknown.message.find("weight_dist") != std::string::npos &&
                     unknown.message.find("normal") != std::string::npos,
                 unknown.message.c_str());
        const Status nan = sp->setAttribute("weight_spread", scalar(std::nanf("")));
        QVERIFY(!nan.ok);
        QVERIFY(sp->synapseWeights() == before);
        QCOMPARE(sp->tensor("weight_spread")[0], 0.2F);
        // A huge spread is allowed and clamped to finite floats, never infinity.
        QVERIFY(sp->setAttribute("weight_spread", scalar(3e38F)).ok);
        for (const float v : sp->synapseWeights()) {
            QVERIFY(std::isfinite(v));
        }
    }

    void modelFileKeepsTheDistribution()
    {
        QTemporaryDir dir;
        for (const AttributeValue& dist : {kUniform, kNormal}) {
            SparseProjection original(
                120, 80, {{"in_degree", scalar(9)}, {"seed", scalar(6)}, {"weight", scalar(-0.3F)},
                          {"weight_dist", dist}, {"weight_spread", scalar(0.15F)},
                          {"keep_sign", scalar(0)}});
            const std::string path = dir.filePath("sparse.json").toStdString();
            saveModel(path, original, SaveOptions{-1});
            auto loaded = loadModel(path);
            auto& sp = dynamic_cast<SparseProjection&>(*loaded);
            QVERIFY(!sp.synapsesDrawn() && !sp.weightsDrawn());
            QCOMPARE(std::get<std::string>(sp.attribute("weight_dist")), std::get<std::string>(dist));
            QCOMPARE(sp.tensor("weight_spread")[0], 0.15F);
            QCOMPARE(sp.tensor("keep_sign")[0], 0.0F);
            QVERIFY(sp.targets() == original.targets());
            QVERIFY(!sp.synapseWeights().empty());
            QVERIFY(sp.synapseWeights() == original.synapseWeights());
        }
    }

    void deviceDeliversLikeTheCpu_data()
    {
        QTest::addColumn<QString>("backend");
        QTest::newRow("cpu") << QString("cpu");
        QTest::newRow("cuda") << QString("cuda");
    }
    void deviceDeliversLikeTheCpu()
    {
        // The same network on the backend and on the CPU executor (the reference; test_backends
        // checks the CPU executor against the modules' own evolve()).
        QFETCH(QString, backend);
        if (backend == "cuda") {
            const std::string why = cudaUnavailable();
            if (!why.empty()) {
                QSKIP(why.c_str());
            }
        }
        constexpr std::int64_t kSteps = 60;
        Tensor in(Shape{kSteps, 30});
        Random rng(21);
        for (std::int64_t i = 0; i < in.numel(); ++i) {
            in[i] = rng.uniform() < 0.3 ? static_cast<float>(rng.uniform(0.0, 2.0)) : 0.0F;
        }
        auto cpuNet = weightedNetwork();
        auto net = weightedNetwork();
        Recorded reference("cpu", *cpuNet);
        Recorded run(backend.toStdString(), *net);
        const auto want = reference.advance(in, kSteps);
        double spikes = 0.0;
        for (const float v : want[2]) {
            spikes += v;
        }
        QVERIFY2(spikes > 20.0, "E must fire for the comparison to mean anything");
        expectAgree(run.advance(in, kSteps), want, "first run");
        // A live edit, as the simulation controller makes it: store, change the spread (the
        // weights are redrawn), reload; the device twin uploads the new weights.
        for (Recorded* r : {&reference, &run}) {
            r->ex->storeStates();
        }
        for (Module* m : {static_cast<Module*>(cpuNet.get()), static_cast<Module*>(net.get())}) {
            QVERIFY(m->getSubmodule("E_to_F").setAttribute("weight_spread", scalar(0.3F)).ok);
        }
        for (Recorded* r : {&reference, &run}) {
            r->ex->loadStates(false);
        }
        const auto want2 = reference.advance(in, kSteps);
        expectAgree(run.advance(in, kSteps), want2, "after the live edit");
        // The edit mattered: the same run without it differs.
        auto unedited = weightedNetwork();
        Recorded plain("cpu", *unedited);
        plain.advance(in, kSteps);
        QVERIFY(plain.advance(in, kSteps)[3] != want2[3]);
    }
};

QTEST_GUILESS_MAIN(TestSparseWeights)
#include "test_sparse_weights.moc"
