// Threads (issue #22): the ThreadPool (deterministic split, every part run once, exceptions
// rethrown on the caller) and the CPU executor with 1, 2 and 3 threads giving bit-identical
// spikes, traces (whole rows and selected channels), outputs and states: LIF, LIFRefrac and
// CUBALIF populations with per-neuron parameters (against evolve() too), and the CUBA network
// (bench/cuba/cuba_network_4000.json, 4000 neurons, sparse projections with delays) for 300
// steps; equation populations (Izhikevich, HodgkinHuxley; interpreted and native code) and
// Brian2's COBA network as equations for 200 steps. The executor's minimum work per part is lowered so that every run really splits. A
// sparse projection's listed delivery and clearing split by target range equal the serial ones.
// .ci/tsan runs this test under ThreadSanitizer.
#include "engine/core/thread_pool.hpp"
#include "engine/equations/native.hpp"
#include "engine/io/model_io.hpp"
#include "engine/network/network.hpp"
#include "engine/network/projections.hpp"
#include "engine/neurons/cuba_lif.hpp"
#include "engine/neurons/equation_neuron.hpp"
#include "engine/neurons/lif.hpp"
#include "engine/neurons/lif_refrac.hpp"
#include "engine/runtime/backend.hpp"
#include "engine/runtime/listed_split.hpp"
#include "engine/tensor/random.hpp"

#include <QtTest/QtTest>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

using namespace spike::engine;  // NOLINT: test file

namespace {

/// Random per-neuron values in [lo, hi).
Tensor perNeuron(std::int64_t n, double lo, double hi, std::uint64_t seed)
{
    Random rng(seed);
    Tensor t(Shape{n});
    for (std::int64_t i = 0; i < n; ++i) {
        t[i] = static_cast<float>(rng.uniform(lo, hi));
    }
    return t;
}

/// (steps, width) input rows: mostly zero, some pulses of either sign.
std::vector<float> inputRows(std::int64_t steps, std::int64_t width, float scale, std::uint64_t seed)
{
    Random rng(seed);
    std::vector<float> rows(static_cast<std::size_t>(steps * width), 0.0F);
    for (float& x : rows) {
        const double u = rng.uniform();
        x = u < 0.1 ? scale : u < 0.15 ? -0.5F * scale : 0.0F;
    }
    return rows;
}

/// Everything one run produced: every probe's samples of every chunk, then the stored States.
struct RunResult {
    std::vector<std::vector<float>> probes;
    std::vector<std::vector<float>> states;
};

bool sameBits(const std::vector<float>& a, const std::vector<float>& b)
{
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

/// Runs `root` (built fresh by `make`) through the CPU executor for `steps` steps in chunks of
/// `chunk`, with the input rows `input` (or none), recording `probes`.
template <typename Make>
RunResult runWith(Make&& make, int threads, const std::vector<ProbeRequest>& probes,
                  std::int64_t steps, std::int64_t chunk, const std::vector<float>* input,
                  std::int64_t inputWidth)
{
    std::unique_ptr<Module> root = make();
    ExecutorOptions options;
    options.threads = threads;
    options.threadMinWork = 64;
    options.maxChunkSteps = chunk;
    auto ex = makeCpuExecutor(*root, options);
    const std::vector<ProbeInfo> infos = ex->setProbes(probes);
    RunResult r;
    r.probes.resize(infos.size());
    for (std::int64_t t0 = 0; t0 < steps; t0 += chunk) {
        const std::int64_t n = std::min(chunk, steps - t0);
        ex->advance(n, input != nullptr ? input->data() + t0 * inputWidth : nullptr, nullptr);
        for (std::size_t k = 0; k < infos.size(); ++k) {
            const float* d = ex->probeData(k);
            r.probes[k].insert(r.probes[k].end(), d, d + n * infos[k].width);
        }
    }
    ex->storeStates();
    for (const auto& [name, tensor] : root->stateDict()) {
        r.states.emplace_back(tensor.data(), tensor.data() + tensor.numel());
    }
    return r;
}

template <typename Make>
void checkIdentical(Make&& make, const std::vector<ProbeRequest>& probes, std::int64_t steps,
                    std::int64_t chunk, const std::vector<float>* input, std::int64_t inputWidth,
                    RunResult* one = nullptr)
{
    const RunResult base = runWith(make, 1, probes, steps, chunk, input, inputWidth);
    for (int threads : {2, 3}) {
        const RunResult r = runWith(make, threads, probes, steps, chunk, input, inputWidth);
        QCOMPARE(r.probes.size(), base.probes.size());
        for (std::size_t k = 0; k < base.probes.size(); ++k) {
            QVERIFY2(sameBits(r.probes[k], base.probes[k]),
                     (std::to_string(threads) + " threads: probe " + probes[k].path + "." +
                      probes[k].signal + " differs").c_str());
        }
        QCOMPARE(r.states.size(), base.states.size());
        for (std::size_t k = 0; k < base.states.size(); ++k) {
            QVERIFY2(sameBits(r.states[k], base.states[k]),
                     (std::to_string(threads) + " threads: state " + std::to_string(k) +
                      " differs").c_str());
        }
    }
    if (one != nullptr) {
        *one = base;
    }
}

/// The spikes in a "spikes" probe's samples, summed in order in double.
double spikeCount(const std::vector<float>& samples)
{
    double spikes = 0;
    for (float s : samples) {
        spikes += s;
    }
    return spikes;
}

/// A one-population network: input of the population's size → population → output.
std::unique_ptr<Module> wrap(std::unique_ptr<Module> population)
{
    const std::int64_t nIn = population->sizeIn();
    const std::int64_t nOut = population->sizeOut();
    if (dynamic_cast<const CUBALIF*>(population.get()) != nullptr) {  // ports exc and inh
        auto net = std::make_unique<Network>(
            std::vector<BoundaryPort>{{"exc", nOut}, {"inh", nOut}},
            std::vector<BoundaryPort>{{"spikes", nOut}});
        net->addNode("pop", std::move(population));
        net->connect("in.exc", "pop.exc");
        net->connect("in.inh", "pop.inh");
        net->connect("pop", "out.spikes");
        return net;
    }
    const std::string port = "pop." + population->inputPorts().at(0).name;  // "in", or a model's input
    auto net = std::make_unique<Network>(nIn, nOut);
    net->addNode("pop", std::move(population));
    net->connect("in", port);
    net->connect("pop", "out");
    return net;
}

}  // namespace

class TestThreads : public QObject {
    Q_OBJECT

private slots:
    void splitIsFixedAndCoversTheRange()
    {
        for (std::int64_t count : {0, 1, 63, 64, 65, 1000, 100000}) {
            for (int parts = 1; parts <= 5; ++parts) {
                std::int64_t next = 0;
                for (int p = 0; p < parts; ++p) {
                    const auto [b, e] = ThreadPool::splitRange(count, parts, p, 64);
                    QCOMPARE(b, next);
                    QVERIFY(e >= b);
                    QVERIFY(e == count || e % 64 == 0);
                    next = e;
                }
                QCOMPARE(next, count);
            }
        }
    }

    void poolRunsEveryPartOnceAndRethrows()
    {
        ThreadPool pool(3);
        QCOMPARE(pool.threads(), 3);
        std::vector<int> hits(3, 0);
        for (int round = 0; round < 2000; ++round) {
            pool.run(3, [&](int p) { ++hits[static_cast<std::size_t>(p)]; });
            pool.run(2, [&](int p) { ++hits[static_cast<std::size_t>(p)]; });
        }
        QCOMPARE(hits, (std::vector<int>{4000, 4000, 2000}));
        auto partsFromOneThrow = [](int p) {
            if (p >= 1) {
                throw std::runtime_error("part " + std::to_string(p));
            }
        };
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, pool.run(3, partsFromOneThrow));
        try {
            pool.run(3, partsFromOneThrow);
        } catch (const std::runtime_error& e) {
            QCOMPARE(std::string(e.what()), std::string("part 1"));  // the lowest part's
        }
        int after = 0;
        pool.run(1, [&](int) { ++after; });
        QCOMPARE(after, 1);
        QVERIFY_THROWS_EXCEPTION(Error, ThreadPool(-1));
    }

    void executorRejectsBadThreadCounts()
    {
        auto net = wrap(std::make_unique<CUBALIF>(10));
        ExecutorOptions options;
        options.threads = -2;
        QVERIFY_THROWS_EXCEPTION(Error, makeCpuExecutor(*net, options));
    }

    void lifPopulationIdenticalForAnyThreadCount()
    {
        const std::int64_t n = 1000;  // not a multiple of 64: the last part is short
        const auto makeLif = [n] {
            AttributeMap init;
            init["tau_mem"] = perNeuron(n, 0.005, 0.05, 1);
            init["tau_syn"] = perNeuron(n, 0.002, 0.02, 2);
            init["bias"] = perNeuron(n, -0.01, 0.05, 3);
            init["threshold"] = perNeuron(n, 0.5, 1.5, 4);
            return std::make_unique<LIF>(n, n, false, init);
        };
        const auto make = [&makeLif] { return wrap(makeLif()); };
        const std::vector<float> input = inputRows(200, n, 0.6F, 11);
        const std::vector<ProbeRequest> probes{{"pop", "spikes", {}},
                                               {"pop", "vmem", {}},
                                               {"pop", "isyn", {3, 500, 999}}};
        RunResult one;
        checkIdentical(make, probes, 200, 32, &input, n, &one);
        // And the executor's 1-thread run equals evolve() (what the reference tests check).
        auto lif = makeLif();
        const Tensor x(Shape{200, n}, input);
        const auto result = lif->evolve(x, RecordSpec(false));
        QVERIFY(sameBits(one.probes[0], std::vector<float>(result.output.data(),
                                                            result.output.data() + result.output.numel())));
        QVERIFY2(spikeCount(one.probes[0]) > 100, "the population spikes");
    }

    void lifRefracPopulationIdenticalForAnyThreadCount()
    {
        const std::int64_t n = 777;
        const auto make = [n] {
            AttributeMap init;
            init["v_th"] = perNeuron(n, 0.5, 1.5, 5);
            return wrap(std::make_unique<LIFRefrac>(n, init));
        };
        const std::vector<float> input = inputRows(150, n, 3.0F, 12);
        checkIdentical(make, {{"pop", "spikes", {}}, {"pop", "v", {}}, {"pop", "rho", {0, 700}}},
                       150, 16, &input, n);
    }

    void cubaPopulationIdenticalForAnyThreadCount()
    {
        const std::int64_t n = 1300;
        const auto make = [n] {
            AttributeMap init;
            init["tau_mem"] = perNeuron(n, 0.01, 0.03, 6);
            return wrap(std::make_unique<CUBALIF>(n, init));
        };
        const std::vector<float> input = inputRows(200, 2 * n, 4.0F, 13);
        checkIdentical(make,
                       {{"pop", "spikes", {}}, {"pop", "v", {}}, {"pop", "i_exc", {1, 2, 1299}}},
                       200, 32, &input, 2 * n);
    }

    void equationPopulationsIdenticalForAnyThreadCount()
    {
        // Library models run as equations (EquationNeuron::runRange(), a frame per part):
        // Izhikevich (per-neuron a and d, no refractoriness) and HodgkinHuxley (exponential
        // Euler, exp and exprel, a refractory condition), interpreted and as native code, with
        // whole and selected-channel traces of every kind, in chunks the split runs whole.
        const auto library = [](const std::string& type, std::int64_t n, std::uint64_t seed) {
            auto module = createModule(type, {{"shape", {n}}});
            NestedAttributes change;
            if (type == "Izhikevich") {
                change[""]["a"] = perNeuron(n, 0.02, 0.1, seed);
                change[""]["d"] = perNeuron(n, 2e-3, 8e-3, seed + 1);
            }
            if (!module->setAttributes(change).ok) {
                throw std::runtime_error("bad test attributes for " + type);
            }
            return module;
        };
        const equations::NativeMode mode = equations::nativeMode();
        for (const equations::NativeMode m : {equations::NativeMode::Off, equations::NativeMode::Sync}) {
            equations::setNativeMode(m);
            const std::int64_t n = 1000;
            const auto izh = [&library] { return wrap(library("Izhikevich", 1000, 21)); };
            const std::vector<float> drive = inputRows(300, n, 0.15F, 22);
            RunResult izhOne;
            checkIdentical(izh, {{"pop", "spikes", {}}, {"pop", "v", {}}, {"pop", "u", {5, 640, 999}}},
                           300, 16, &drive, n, &izhOne);
            QVERIFY2(spikeCount(izhOne.probes[0]) > 100, "the Izhikevich population spikes");
            const std::int64_t nHH = 300;  // the split needs HH's weight: 300 x 1 neuron-steps would not
            const auto hh = [&library] { return wrap(library("HodgkinHuxley", 300, 23)); };
            const std::vector<float> current = inputRows(400, nHH, 2.0F, 24);
            RunResult one;
            checkIdentical(hh, {{"pop", "spikes", {}}, {"pop", "v", {}}, {"pop", "m", {0, 299}},
                                {"pop", "not_refractory", {}}},
                           400, 32, &current, nHH, &one);
            QVERIFY2(spikeCount(one.probes[0]) > 10, "the HH population spikes");
            const auto cost = [&library](const std::string& type) {
                return dynamic_cast<EquationNeuron&>(*library(type, 300, 0)).population().costPerNeuronStep();
            };
            QVERIFY(cost("HodgkinHuxley") > 4.0 * cost("Izhikevich"));
        }
        equations::setNativeMode(mode);
    }

    void cobaNetworkIdenticalForAnyThreadCount()
    {
        // Brian2's COBA network (resources/examples/coba_network.json: COBALIF equation
        // populations of 3200 and 800 neurons, sparse projections delivering into the
        // conductances, which the populations zero as they read them), 200 steps one at a time.
        const std::string path = std::string(SPIKE_SOURCE_DIR) + "/resources/examples/coba_network.json";
        const auto make = [&path] { return loadModel(path); };
        std::unique_ptr<Module> probe = make();
        std::vector<ProbeRequest> probes;
        for (const auto& [name, child] : probe->namedModules()) {
            if (dynamic_cast<const EquationNeuron*>(child) != nullptr) {
                probes.push_back({name, "spikes", {}});
                probes.push_back({name, "v", {1, 99, 799}});
                probes.push_back({name, "ge", {}});
            }
        }
        QCOMPARE(probes.size(), std::size_t{6});
        RunResult one;
        checkIdentical(make, probes, 200, 32, nullptr, 0, &one);
        QVERIFY2(spikeCount(one.probes[0]) > 0, "the network spikes within 200 steps");
    }

    void sparseDelaysIdenticalForAnyThreadCount()
    {
        // Driven E → I with a delay of 3 steps (the ring split by target range too), I → E
        // without delay, E → E with delay 1; time-batched and lock-step nodes both.
        const std::int64_t nE = 1500;
        const std::int64_t nI = 700;
        const auto sparse = [](std::int64_t from, std::int64_t to, float weight, float delay,
                               float inDegree, float seed) {
            AttributeMap a;
            a["weight"] = Tensor::scalar(weight);
            a["delay"] = Tensor::scalar(delay);
            a["in_degree"] = Tensor::scalar(inDegree);
            a["seed"] = Tensor::scalar(seed);
            return std::make_unique<SparseProjection>(from, to, a);
        };
        const auto make = [&] {
            auto net = std::make_unique<Network>(std::vector<BoundaryPort>{{"drive", nE}},
                                                 std::vector<BoundaryPort>{});
            net->addNode("E", std::make_unique<CUBALIF>(nE));
            net->addNode("I", std::make_unique<CUBALIF>(nI));
            net->connect("in.drive", "E.exc");
            net->connect("E.spikes", "I.exc", sparse(nE, nI, 3.0F, 3.0F, 60.0F, 1.0F));
            net->connect("I.spikes", "E.inh", sparse(nI, nE, -4.0F, 0.0F, 30.0F, 2.0F), "", true);
            net->connect("E.spikes", "E.exc", sparse(nE, nE, 1.0F, 1.0F, 40.0F, 3.0F), "", true);
            return std::unique_ptr<Module>(std::move(net));
        };
        const std::vector<float> input = inputRows(300, nE, 25.0F, 14);
        RunResult one;
        checkIdentical(make, {{"E", "spikes", {}}, {"I", "spikes", {}}, {"I", "v", {}}}, 300, 32,
                       &input, nE, &one);
        QVERIFY2(spikeCount(one.probes[1]) > 100, "I spikes");
    }

    void listedClearingSplitsLikeTheDelivery_data()
    {
        QTest::addColumn<qint64>("nDst");
        QTest::addColumn<int>("threads");
        // 3000 targets: the 16-bit CSR copy; 70000: 32-bit targets, read by the parts as 16-bit
        // offsets from their first target (each part is at most 65536 wide); 140000 on two
        // threads: parts too wide for that, the 32-bit targets themselves.
        QTest::newRow("3000 targets, 2 threads") << qint64{3000} << 2;
        QTest::newRow("3000 targets, 3 threads") << qint64{3000} << 3;
        QTest::newRow("70000 targets, 2 threads") << qint64{70000} << 2;
        QTest::newRow("70000 targets, 3 threads") << qint64{70000} << 3;
        QTest::newRow("140000 targets, 2 threads") << qint64{140000} << 2;
    }

    void listedClearingSplitsLikeTheDelivery()
    {
        // Two steps of listed spikes: the delivery split over the pool's threads equals the
        // serial one bit for bit (constant and drawn weights, with and without a delay ring),
        // and the split clearing zeroes every entry it wrote.
        QFETCH(qint64, nDst);
        QFETCH(int, threads);
        const std::int64_t nSrc = 1000;
        AttributeMap a;
        a["weight"] = Tensor::scalar(0.75F);
        a["in_degree"] = Tensor::scalar(nDst > 10000 ? 4.0F : 50.0F);
        a["seed"] = Tensor::scalar(4.0F);
        ThreadPool pool(threads);
        std::vector<float> pre(static_cast<std::size_t>(2 * nSrc), 0.0F);
        std::vector<std::int32_t> indices(static_cast<std::size_t>(2 * nSrc), 0);
        std::vector<std::int32_t> counts(2, 0);
        for (std::int64_t t = 0; t < 2; ++t) {
            for (std::int64_t i = t; i < nSrc; i += 7) {
                pre[static_cast<std::size_t>(t * nSrc + i)] = 1.0F + static_cast<float>(i % 3) * 0.25F;
                indices[static_cast<std::size_t>(t * nSrc + counts[static_cast<std::size_t>(t)]++)] =
                    static_cast<std::int32_t>(i);
            }
        }
        const SpikeLists lists{indices.data(), counts.data(), nSrc};
        for (const char* dist : {"constant", "normal"}) {
            a["weight_dist"] = std::string(dist);
            a["weight_spread"] = Tensor::scalar(0.5F);
            SparseProjection proj(nSrc, nDst, a);
            std::vector<float> split(static_cast<std::size_t>(2 * nDst), 0.0F);
            std::vector<float> serial = split;
            proj.deliverListedOn(pool, 1, pre.data(), nSrc, lists, 2, split.data(), nDst);
            proj.deliverListed(pre.data(), nSrc, lists, 2, serial.data(), nDst);
            QVERIFY2(sameBits(split, serial), dist);
            QCOMPARE(proj.synapseWeights().empty(), dist == std::string("constant"));
            const auto written = std::count_if(split.begin(), split.end(), [](float v) { return v != 0.0F; });
            QVERIFY(written > static_cast<std::ptrdiff_t>(nSrc * 4));
            // The last target part too: the list reaches every part.
            QVERIFY(std::any_of(split.end() - nDst / threads, split.end(), [](float v) { return v != 0.0F; }));
            QVERIFY(proj.clearListedOn(pool, 1, lists, 2, split.data(), nDst));
            QCOMPARE(std::count(split.begin(), split.end(), 0.0F), static_cast<std::ptrdiff_t>(split.size()));

            // The node-level split (deliverListedPart(), clearListedPart()), one step: the same
            // row, also when it clears the last delivery first; then clearing zeroes it.
            NodeListedSplit node({{&proj, 0, 1}});
            node.set(0, pre.data(), lists);
            std::vector<float> row(static_cast<std::size_t>(nDst), 0.0F);
            std::vector<float> rowSerial = row;
            proj.deliverListed(pre.data(), nSrc, lists, 1, rowSerial.data(), nDst);
            QVERIFY(node.deliver(pool, row.data(), false));
            QVERIFY2(sameBits(row, rowSerial), dist);
            QVERIFY(node.deliver(pool, row.data(), true));
            QVERIFY2(sameBits(row, rowSerial), dist);
            node.clear(pool, row.data());
            QCOMPARE(std::count(row.begin(), row.end(), 0.0F), static_cast<std::ptrdiff_t>(nDst));

            // A delay ring: the split delivery turns each part's columns of the ring; it cannot
            // clear by lists, split or not.
            AttributeMap d = a;
            d["delay"] = Tensor::scalar(2.0F);
            SparseProjection delayedSplit(nSrc, nDst, d);
            SparseProjection delayedSerial(nSrc, nDst, d);
            std::vector<float> ringSplit(static_cast<std::size_t>(2 * nDst), 0.0F);
            std::vector<float> ringSerial = ringSplit;
            for (int round = 0; round < 3; ++round) {
                delayedSplit.deliverListedOn(pool, 1, pre.data(), nSrc, lists, 2, ringSplit.data(), nDst);
                delayedSerial.deliverListed(pre.data(), nSrc, lists, 2, ringSerial.data(), nDst);
            }
            QVERIFY2(sameBits(ringSplit, ringSerial), dist);
            QVERIFY(std::count(ringSplit.begin(), ringSplit.end(), 0.0F) < static_cast<std::ptrdiff_t>(ringSplit.size()));
            QVERIFY(!delayedSplit.clearListedOn(pool, 1, lists, 2, split.data(), nDst));
        }
    }

    void nodeSplitDeliversEveryEdgeLikeTheSerialOrder()
    {
        // Three projections into one 6000-entry input row: A and B onto entries [0, 3000) (the
        // same entries: each gets A's terms, then B's), C onto [3000, 6000). One fork-join of 2
        // or 3 threads gives the serial deliveries' row bit for bit, and its clearing zeroes it.
        const auto sparse = [](std::int64_t nSrc, float weight, float seed, float delay) {
            AttributeMap a;
            a["weight"] = Tensor::scalar(weight);
            a["in_degree"] = Tensor::scalar(40.0F);
            a["seed"] = Tensor::scalar(seed);
            a["delay"] = Tensor::scalar(delay);
            return std::make_unique<SparseProjection>(nSrc, 3000, a);
        };
        auto a = sparse(1000, 0.1F, 1.0F, 0.0F);
        auto b = sparse(500, -0.3F, 2.0F, 0.0F);
        auto c = sparse(800, 0.7F, 3.0F, 0.0F);
        std::vector<std::vector<float>> pre;
        std::vector<std::vector<std::int32_t>> indices;
        std::vector<std::int32_t> counts;
        for (const std::int64_t n : {1000, 500, 800}) {
            pre.emplace_back(static_cast<std::size_t>(n), 0.0F);
            indices.emplace_back();
            for (std::int64_t i = n % 7; i < n; i += 9) {
                pre.back()[static_cast<std::size_t>(i)] = 1.0F + static_cast<float>(i % 5) * 0.1F;
                indices.back().push_back(static_cast<std::int32_t>(i));
            }
            counts.push_back(static_cast<std::int32_t>(indices.back().size()));
        }
        std::vector<SpikeLists> lists;
        for (std::size_t k = 0; k < 3; ++k) {
            lists.push_back({indices[k].data(), &counts[k], 1});
        }
        std::vector<float> serial(6000, 0.0F);
        a->deliverListed(pre[0].data(), 0, lists[0], 1, serial.data(), 6000);
        b->deliverListed(pre[1].data(), 0, lists[1], 1, serial.data(), 6000);
        c->deliverListed(pre[2].data(), 0, lists[2], 1, serial.data() + 3000, 6000);
        for (const int threads : {2, 3}) {
            ThreadPool pool(threads);
            // Each edge alone is 0.4 of a split; together 1.2: one fork-join for the three.
            std::vector<NodeListedSplit::Edge> edges{{a.get(), 0, counts[0] * 5 / 2},
                                                     {b.get(), 0, counts[1] * 5 / 2},
                                                     {c.get(), 3000, counts[2] * 5 / 2}};
            QVERIFY(NodeListedSplit::possible(edges));
            NodeListedSplit split(edges);
            const std::vector<const float*> rows{pre[0].data(), pre[1].data(), pre[2].data()};
            for (std::size_t k = 0; k < 3; ++k) {
                split.set(k, rows[k], lists[k]);
            }
            std::vector<float> row(6000, 0.0F);
            QVERIFY(split.deliver(pool, row.data(), false));
            QVERIFY2(sameBits(row, serial), (std::to_string(threads) + " threads").c_str());
            QVERIFY(std::count(row.begin(), row.end(), 0.0F) < 3000);
            // Again, clearing the first delivery's entries in the same fork-join: the same row.
            QVERIFY(split.deliver(pool, row.data(), true));
            QVERIFY2(sameBits(row, serial), (std::to_string(threads) + " threads, cleared first").c_str());
            split.clear(pool, row.data());
            QCOMPARE(std::count(row.begin(), row.end(), 0.0F), std::ptrdiff_t{6000});

            // Below one split's work together: nothing touched, the caller goes edge by edge.
            NodeListedSplit small({{a.get(), 0, counts[0] * 4}, {b.get(), 0, counts[1] * 4},
                                   {c.get(), 3000, counts[2] * 4}});
            for (std::size_t k = 0; k < 3; ++k) {
                small.set(k, rows[k], lists[k]);
            }
            QVERIFY(!small.deliver(pool, row.data(), false));
            QCOMPARE(std::count(row.begin(), row.end(), 0.0F), std::ptrdiff_t{6000});
        }
        // Entries [1500, 4500) overlap A's [0, 3000) without being the same: two threads could
        // write one entry, so the node is not split; nor with a delay ring (splitFrom 0).
        QVERIFY(!NodeListedSplit::possible({{a.get(), 0, 1}, {c.get(), 1500, 1}}));
        auto delayed = sparse(1000, 0.1F, 1.0F, 2.0F);
        QVERIFY(!NodeListedSplit::possible({{a.get(), 0, 1}, {delayed.get(), 3000, 0}}));
        QVERIFY(!delayed->listedPartsReady(2));
    }

    void listedSplitFromFollowsTheFanOutAndTheDelay()
    {
        // 1000 -> 3000 with 50 synapses onto each target: 150 per presynaptic channel. The
        // executor calls the serial delivery below listedSplitFrom() listed channels, so it
        // must be where deliverListedOn() starts to split: 2 threads x 1000 additions each
        // need 14 channels (13 x 150 = 1950 < 2000).
        AttributeMap a;
        a["in_degree"] = Tensor::scalar(50.0F);
        SparseProjection proj(1000, 3000, a);
        QCOMPARE(proj.listedSplitFrom(2, 1000), std::int64_t{14});
        QCOMPARE(proj.listedSplitFrom(4, 1000), std::int64_t{27});
        constexpr auto kNever = std::numeric_limits<std::int64_t>::max();
        QCOMPARE(proj.listedSplitFrom(1, 1000), kNever);  // one thread never splits
        SparseProjection narrow(1000, 100, a);              // fewer targets than 2 x 64
        QCOMPARE(narrow.listedSplitFrom(2, 1), kNever);
        // A delay ring adds whole rows per step whatever is listed: every call decides.
        a["delay"] = Tensor::scalar(3.0F);
        SparseProjection delayed(1000, 3000, a);
        QCOMPARE(delayed.listedSplitFrom(2, 1000), std::int64_t{0});
    }

    void cubaNetworkIdenticalForAnyThreadCount()
    {
        const std::string path = std::string(SPIKE_SOURCE_DIR) + "/bench/cuba/cuba_network_4000.json";
        const auto make = [&path] { return loadModel(path); };
        std::unique_ptr<Module> probe = make();
        std::vector<ProbeRequest> probes;
        for (const auto& [name, child] : probe->namedModules()) {
            if (dynamic_cast<const CUBALIF*>(child) != nullptr) {
                probes.push_back({name, "spikes", {}});
                probes.push_back({name, "v", {0, 17, 640}});
            }
        }
        QVERIFY(probes.size() >= 4);
        RunResult one;
        checkIdentical(make, probes, 300, 32, nullptr, 0, &one);
        QVERIFY2(spikeCount(one.probes[0]) > 0, "the network spikes within 300 steps");
        // Chunks of 1 and 7 steps: the last split delivery's clearing, left to the next step's
        // threads, is done at each chunk's end instead.
        checkIdentical(make, probes, 60, 1, nullptr, 0);
        checkIdentical(make, probes, 100, 7, nullptr, 0);
    }
};

QTEST_GUILESS_MAIN(TestThreads)
#include "test_threads.moc"
