// Every executor backend against one independent reference. Each test body is written once and
// runs once per backend ("cpu" always; "cuda" when kernels::queryCudaDevice() finds a usable
// device, else it skips with the reason). The reference runs an identical, separately built
// network one step at a time through the modules' own evolve() and the projections' own
// deliver(), wiring the connections in connection order (undelayed edges read this step's
// source output, delayed ones the previous step's), so it shares no code with either executor.
// Spikes must match exactly; traces and states within 1e-5 (they are bit-identical by design:
// the CUDA kernels use the CPU's float32 operations in the CPU's order, and every sparse
// scatter here delivers 0/1 spikes times one weight, which any summation order adds alike).
// Covered: a feed-forward LIF → LIFRefrac chain with dense and one-to-one projections and
// graded input, a recurrent LIF, a CUBALIF E/I network with sparse projections and delays (time-
// batched and all-lock-step schedules), host-run modules between device nodes (a Poisson source,
// a Linear layer, a noisy LIF), probes and their errors, storeStates/loadStates, health checks,
// and how a missing CUDA device is reported.
#include "engine/runtime/backend.hpp"
#include "engine/neurons/cuba_lif.hpp"
#include "engine/neurons/lif.hpp"
#include "engine/neurons/lif_refrac.hpp"
#include "engine/layers/linear.hpp"
#include "engine/network/network.hpp"
#include "engine/network/projections.hpp"
#include "tests/projection_test_helpers.hpp"
#include "engine/sources/sources.hpp"
#include "kernels/cuda_device.hpp"
#include "tests/layer_test_helpers.hpp"

#include <QtTest/QtTest>

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <tuple>

using namespace spike::engine;
using spike::tests::expectError;

namespace {

constexpr float kTol = 1e-5F;

Tensor scalar(float v)
{
    return Tensor::scalar(v);
}

/// Why `backend` cannot run here ("" when it can).
std::string unavailable(const QString& backend)
{
    if (backend == "cuda") {
        const auto device = spike::kernels::queryCudaDevice();
        return device.available ? std::string() : "no usable CUDA device: " + device.reason;
    }
    return {};
}

#define SKIP_IF_UNAVAILABLE(backend)                   \
    do {                                               \
        const std::string why_ = unavailable(backend); \
        if (!why_.empty()) {                           \
            QSKIP(why_.c_str());                       \
        }                                              \
    } while (false)

void addBackendRows()
{
    QTest::addColumn<QString>("backend");
    QTest::newRow("cpu") << QString("cpu");
    QTest::newRow("cuda") << QString("cuda");
}

std::unique_ptr<Executor> makeOn(const QString& backend, Module& root, std::int64_t chunk,
                                 bool lockStepAll = false)
{
    ExecutorOptions options;
    options.maxChunkSteps = chunk;
    options.plan.lockStepAll = lockStepAll;
    auto ex = makeExecutor(root, parseBackendKind(backend.toStdString()), options);
    if (ex->backendName() != backend.toStdString()) {
        throw std::runtime_error("asked for " + backend.toStdString() + ", got " +
                                 ex->backendName());
    }
    return ex;
}

/// Samples of one executor run, concatenated over chunks.
struct Run {
    std::vector<float> output;               ///< (T, sizeOut)
    std::vector<std::vector<float>> probes;  ///< per probe (T, width)
    std::vector<ProbeInfo> infos;
};

/// Advances `ex` over `steps` steps in uneven pieces (chunk, 1, chunk - 3, ...).
Run advanceAll(Executor& ex, const std::vector<ProbeRequest>& probes, const Tensor* input,
               std::int64_t nIn, std::int64_t nOut, std::int64_t steps)
{
    Run r;
    r.infos = ex.setProbes(probes);
    r.probes.resize(probes.size());
    r.output.assign(static_cast<std::size_t>(steps * nOut), 0.0F);
    const std::int64_t chunk = ex.maxChunkSteps();
    const std::int64_t pieces[] = {chunk, 1, std::max<std::int64_t>(chunk - 3, 1)};
    for (std::int64_t t0 = 0, k = 0; t0 < steps; ++k) {
        const std::int64_t n = std::min(pieces[k % 3], steps - t0);
        ex.advance(n, input != nullptr ? input->data() + t0 * nIn : nullptr,
                   r.output.data() + t0 * nOut);
        for (std::size_t p = 0; p < probes.size(); ++p) {
            const float* d = ex.probeData(p);
            r.probes[p].insert(r.probes[p].end(), d, d + n * r.infos[p].width);
        }
        t0 += n;
    }
    return r;
}

/// Step-by-step reference of a flat network; see the file comment.
struct Reference {
    std::vector<float> output;                         ///< (T, sizeOut)
    std::map<std::string, std::vector<float>> values;  ///< "node.spikes" / "node.<trace>" rows
};

Reference referenceRun(Network& net, const std::vector<std::string>& order, const Tensor* input,
                       std::int64_t steps,
                       const std::map<std::string, std::vector<std::string>>& traces)
{
    Reference ref;
    std::map<std::string, std::vector<float>> prev;
    std::map<std::string, std::vector<float>> cur;
    for (const std::string& name : order) {
        prev[name].assign(static_cast<std::size_t>(net.getSubmodule(name).sizeOut()), 0.0F);
    }
    const auto gatherInto = [&](const std::string& target, std::int64_t t,
                                std::vector<float>& row) {
        for (const Connection& c : net.connections()) {
            if (c.to.node != target) {
                continue;
            }
            const PortSpec to = net.resolve(c.to.toString(), false).second;
            const float* src = input != nullptr ? input->data() + t * net.inputSize() : nullptr;
            std::int64_t offset = 0;
            if (!c.from.node.empty()) {
                src = (c.delayed ? prev : cur).at(c.from.node).data();
                offset = net.resolve(c.from.toString(), true).second.offset;
            }
            if (c.hasProjection) {
                net.projection(c.name)->deliver(src + offset, 0, 1, row.data() + to.offset, 0);
            } else {
                for (std::int64_t k = 0; k < to.size; ++k) {
                    row[static_cast<std::size_t>(to.offset + k)] += src[offset + k];
                }
            }
        }
    };
    for (std::int64_t t = 0; t < steps; ++t) {
        for (const std::string& name : order) {
            Module& m = net.getSubmodule(name);
            std::vector<float> row(static_cast<std::size_t>(m.sizeIn()), 0.0F);
            gatherInto(name, t, row);
            std::set<std::string> keys;
            const auto wanted = traces.find(name);
            if (wanted != traces.end()) {
                keys.insert(wanted->second.begin(), wanted->second.end());
            }
            const EvolveResult r = m.evolve(Tensor(Shape{1, m.sizeIn()}, row), RecordSpec(keys));
            cur[name].assign(r.output.data(), r.output.data() + r.output.numel());
            auto& spikes = ref.values[name + ".spikes"];
            spikes.insert(spikes.end(), r.output.data(), r.output.data() + r.output.numel());
            for (const std::string& key : keys) {
                const Tensor& d = r.record.at("").at(key).data;
                ref.values[name + "." + key].insert(ref.values[name + "." + key].end(), d.data(),
                                                    d.data() + d.numel());
            }
        }
        std::vector<float> out(static_cast<std::size_t>(net.outputSize()), 0.0F);
        gatherInto("", t, out);
        ref.output.insert(ref.output.end(), out.begin(), out.end());
        prev = cur;
    }
    return ref;
}

/// `got` equals `want` exactly (spikes) or within kTol relative-and-absolute (traces).
void expectValues(const std::vector<float>& got, const std::vector<float>& want, bool exact,
                  const std::string& what)
{
    QVERIFY2(got.size() == want.size(), (what + ": " + std::to_string(got.size()) +
                                         " values, expected " + std::to_string(want.size()))
                                            .c_str());
    for (std::size_t i = 0; i < got.size(); ++i) {
        const bool ok = exact ? got[i] == want[i]
                              : std::abs(got[i] - want[i]) <= kTol * (1.0F + std::abs(want[i]));
        QVERIFY2(ok, (what + " [" + std::to_string(i) + "]: " + std::to_string(got[i]) +
                      ", expected " + std::to_string(want[i]))
                         .c_str());
    }
}

/// Rows `cols` of (T, width) rows.
std::vector<float> columns(const std::vector<float>& rows, std::int64_t width,
                           const std::vector<std::int64_t>& cols)
{
    std::vector<float> out;
    for (std::size_t r = 0; r < rows.size() / static_cast<std::size_t>(width); ++r) {
        for (const std::int64_t c : cols) {
            out.push_back(rows[r * static_cast<std::size_t>(width) + static_cast<std::size_t>(c)]);
        }
    }
    return out;
}

/// Every numeric State of two trees with the same structure agrees (within kTol).
void expectSameStates(const Module& got, const Module& want)
{
    const NestedAttributes a = got.state();
    const NestedAttributes b = want.state();
    QCOMPARE(a.size(), b.size());
    for (const auto& [path, attrs] : b) {
        for (const auto& [name, value] : attrs) {
            const auto* w = std::get_if<Tensor>(&value);
            if (w == nullptr) {
                continue;
            }
            const Tensor& g = std::get<Tensor>(a.at(path).at(name));
            expectValues(std::vector<float>(g.data(), g.data() + g.numel()),
                         std::vector<float>(w->data(), w->data() + w->numel()), false,
                         "state " + path + "." + name);
        }
    }
}

Tensor randomInput(std::int64_t steps, std::int64_t n, std::uint32_t seed, float lo, float hi,
                   float zeroFraction)
{
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> value(lo, hi);
    std::uniform_real_distribution<float> coin(0.0F, 1.0F);
    Tensor t(Shape{steps, n});
    for (std::int64_t i = 0; i < t.numel(); ++i) {
        t[i] = coin(gen) < zeroFraction ? 0.0F : value(gen);
    }
    return t;
}

/// 0/1 spikes with probability `p` per step and channel.
Tensor randomSpikes(std::int64_t steps, std::int64_t n, std::uint32_t seed, float p)
{
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> coin(0.0F, 1.0F);
    Tensor t(Shape{steps, n});
    for (std::int64_t i = 0; i < t.numel(); ++i) {
        t[i] = coin(gen) < p ? 1.0F : 0.0F;
    }
    return t;
}

/// in (6, graded) → dense → LIF a (20 → 10, 2 synapses per neuron) → one-to-one → LIFRefrac b.
std::unique_ptr<Network> chainNetwork()
{
    auto net = std::make_unique<Network>(6, 10);
    net->addNode(
        "a", std::make_unique<LIF>(
                 20, 10, false,
                 AttributeMap{{"tau_mem", spike::tests::uniformTensor(Shape{10}, 1, 0.005, 0.03)},
                              {"bias", scalar(0.01F)},
                              {"threshold", scalar(0.4F)}}));
    net->addNode("b", std::make_unique<LIFRefrac>(
                          10, AttributeMap{{"v_th", scalar(0.3F)}, {"rho_reset", scalar(3.0F)}}));
    auto dense = std::make_unique<DenseProjection>(6, 20);
    spike::tests::randomize(*dense, 21);
    net->connect("in", "a", std::move(dense));
    net->connect(
        "a", "b",
        std::make_unique<OneToOneProjection>(
            10, AttributeMap{{"weight", spike::tests::uniformTensor(Shape{10}, 2, 1.0, 4.0)}}));
    net->connect("b", "out");
    return net;
}

constexpr std::int64_t kExc = 80;
constexpr std::int64_t kInh = 20;
constexpr std::int64_t kDrive = 40;


/// Brian2's CUBA network in small: 0/1 input spikes drive E (80) and I (20) CUBALIF
/// populations coupled by sparse projections with delays 0, 1 and 2; E → I is undelayed, the
/// back projections close cycles (delayed one step by the network).
std::unique_ptr<Network> cubaNetwork()
{
    auto net = std::make_unique<Network>(kDrive, 0);
    for (const auto& [name, n, seed] : {std::tuple{"E", kExc, 31}, {"I", kInh, 32}}) {
        auto pop = std::make_unique<CUBALIF>(n);
        // Scattered starting potentials between v_reset and v_th, set by hand.
        const Tensor v =
            spike::tests::uniformTensor(Shape{n}, static_cast<std::uint64_t>(seed), -60.0, -50.0);
        if (Status s = pop->setAttribute("v", v); !s.ok) {
            throw std::runtime_error(s.message);
        }
        net->addNode(name, std::move(pop));
    }
    net->connect("in", "E.exc", spike::tests::sparseProjection(kDrive, kExc, 1.62F, 4, 0, 1));
    net->connect("in", "I.exc", spike::tests::sparseProjection(kDrive, kInh, 1.62F, 4, 1, 2));
    net->connect("E", "E.exc", spike::tests::sparseProjection(kExc, kExc, 1.62F, 8, 2, 3));
    net->connect("E", "I.exc", spike::tests::sparseProjection(kExc, kInh, 1.62F, 8, 0, 4));
    net->connect("I", "E.inh", spike::tests::sparseProjection(kInh, kExc, -9.0F, 4, 1, 5));
    net->connect("I", "I.inh", spike::tests::sparseProjection(kInh, kInh, -9.0F, 4, 0, 6));
    return net;
}

/// A Poisson source and a Linear layer (host modules), LIF a on the device, a noisy LIF b (host
/// on CUDA: its noise comes from the CPU's generator), in a cycle closed by a dense projection.
std::unique_ptr<Network> mixedNetwork()
{
    auto net = std::make_unique<Network>(0, 6);
    net->addNode("drive", std::make_unique<PoissonSource>(
                              8, AttributeMap{{"rate", scalar(300.0F)}, {"seed", scalar(3.0F)}}));
    net->addNode("a", std::make_unique<LIF>(8, 8, false,
                                            AttributeMap{{"tau_mem", scalar(0.01F)},
                                                         {"threshold", scalar(0.5F)},
                                                         {"max_spikes_per_dt", scalar(1.0F)}}));
    auto mix = std::make_unique<Linear>(8, 6);
    spike::tests::randomize(*mix, 41);
    net->addNode("mix", std::move(mix));
    net->addNode("b", std::make_unique<LIF>(6, 6, false,
                                            AttributeMap{{"threshold", scalar(0.3F)},
                                                         {"noise_std", scalar(0.2F)},
                                                         {"seed", scalar(7.0F)}}));
    net->connect("drive", "a",
                 std::make_unique<OneToOneProjection>(8, AttributeMap{{"weight", scalar(2.0F)}}));
    net->connect("a", "mix");
    net->connect("mix", "b");
    net->connect("a", "b", spike::tests::sparseProjection(8, 6, 0.7F, 3, 2, 5));
    auto back = std::make_unique<DenseProjection>(6, 8);
    spike::tests::randomize(*back, 11);
    net->connect("b", "a", std::move(back));
    net->connect("b", "out");
    return net;
}

}  // namespace

class TestBackends : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void feedForwardChainMatchesReference_data() { addBackendRows(); }
    void feedForwardChainMatchesReference()
    {
        QFETCH(QString, backend);
        SKIP_IF_UNAVAILABLE(backend);
        constexpr std::int64_t kSteps = 150;
        const Tensor input = randomInput(kSteps, 6, 5, -0.5F, 1.5F, 0.3F);
        auto net = chainNetwork();
        auto ex = makeOn(backend, *net, 32);
        const std::vector<ProbeRequest> probes{{"a", "spikes", {}},
                                               {"a", "vmem", {}},
                                               {"a", "isyn", {}},
                                               {"b", "v", {1, 3, 7}},
                                               {"b", "rho", {}}};
        const Run run = advanceAll(*ex, probes, &input, 6, 10, kSteps);
        QCOMPARE(run.infos[0].width, std::int64_t(10));
        QVERIFY(run.infos[0].spikes);
        QCOMPARE(run.infos[2].width, std::int64_t(20));
        QCOMPARE(run.infos[3].width, std::int64_t(3));
        QVERIFY(!run.infos[3].spikes);

        auto ref = chainNetwork();
        const Reference want = referenceRun(*ref, {"a", "b"}, &input, kSteps,
                                            {{"a", {"vmem", "isyn"}}, {"b", {"v", "rho"}}});
        std::int64_t spikes = 0;
        for (float s : want.values.at("a.spikes")) {
            spikes += s != 0.0F ? 1 : 0;
        }
        QVERIFY2(spikes > 20, "the chain must be active for the comparison to mean anything");
        expectValues(run.output, want.output, true, "output (b spikes)");
        expectValues(run.probes[0], want.values.at("a.spikes"), true, "a.spikes");
        expectValues(run.probes[1], want.values.at("a.vmem"), false, "a.vmem");
        expectValues(run.probes[2], want.values.at("a.isyn"), false, "a.isyn");
        expectValues(run.probes[3], columns(want.values.at("b.v"), 10, {1, 3, 7}), false, "b.v");
        expectValues(run.probes[4], want.values.at("b.rho"), false, "b.rho");

        ex->storeStates();
        expectSameStates(*net, *ref);
        QCOMPARE(net->getSubmodule("a").stepsElapsed(), kSteps);
    }

    void recurrentLifMatchesEvolve_data() { addBackendRows(); }
    void recurrentLifMatchesEvolve()
    {
        QFETCH(QString, backend);
        SKIP_IF_UNAVAILABLE(backend);
        constexpr std::int64_t kSteps = 90;
        // Recurrent weights k / 256: every partial sum of spikes @ w_rec is exact in any order.
        const auto build = [] {
            auto lif =
                std::make_unique<LIF>(16, 8, true, AttributeMap{{"threshold", scalar(0.6F)}});
            Tensor w(Shape{8, 16});
            std::mt19937 gen(9);
            std::uniform_int_distribution<int> k(-16, 24);
            for (std::int64_t i = 0; i < w.numel(); ++i) {
                w[i] = static_cast<float>(k(gen)) / 256.0F;
            }
            if (Status s = lif->setAttribute("w_rec", w); !s.ok) {
                throw std::runtime_error(s.message);
            }
            return lif;
        };
        const Tensor input = randomInput(kSteps, 16, 6, 0.0F, 0.5F, 0.5F);
        auto lif = build();
        auto ex = makeOn(backend, *lif, 16);
        const Run run =
            advanceAll(*ex, {{"", "irec", {}}, {"", "vmem", {}}}, &input, 16, 8, kSteps);
        auto ref = build();
        const EvolveResult want = ref->evolve(input, RecordSpec({"irec", "vmem"}));
        const auto flat = [](const Tensor& t) {
            return std::vector<float>(t.data(), t.data() + t.numel());
        };
        expectValues(run.output, flat(want.output), true, "spikes");
        expectValues(run.probes[0], flat(want.record.at("").at("irec").data), false, "irec");
        expectValues(run.probes[1], flat(want.record.at("").at("vmem").data), false, "vmem");
        ex->storeStates();
        expectSameStates(*lif, *ref);
    }

    void cubaNetworkMatchesReference_data()
    {
        QTest::addColumn<QString>("backend");
        QTest::addColumn<bool>("lockStepAll");
        for (const char* b : {"cpu", "cuda"}) {
            QTest::newRow((std::string(b) + " batched").c_str()) << QString(b) << false;
            QTest::newRow((std::string(b) + " lock-step").c_str()) << QString(b) << true;
        }
    }
    void cubaNetworkMatchesReference()
    {
        QFETCH(QString, backend);
        QFETCH(bool, lockStepAll);
        SKIP_IF_UNAVAILABLE(backend);
        constexpr std::int64_t kSteps = 200;
        const Tensor drive = randomSpikes(kSteps, kDrive, 8, 0.1F);
        auto net = cubaNetwork();
        auto ex = makeOn(backend, *net, 48, lockStepAll);
        const std::vector<ProbeRequest> probes{{"E", "spikes", {}},
                                               {"I", "spikes", {}},
                                               {"E", "v", {0, 17, 79}},
                                               {"I", "i_inh", {}},
                                               {"E", "refrac", {}}};
        const Run run = advanceAll(*ex, probes, &drive, kDrive, 0, kSteps);
        auto ref = cubaNetwork();
        const Reference want = referenceRun(*ref, {"E", "I"}, &drive, kSteps,
                                            {{"E", {"v", "refrac"}}, {"I", {"i_inh"}}});
        std::int64_t inhSpikes = 0;
        for (float s : want.values.at("I.spikes")) {
            inhSpikes += s != 0.0F ? 1 : 0;
        }
        QVERIFY2(inhSpikes > 10,
                 "the inhibitory population must fire for the test to mean anything");
        expectValues(run.probes[0], want.values.at("E.spikes"), true, "E.spikes");
        expectValues(run.probes[1], want.values.at("I.spikes"), true, "I.spikes");
        expectValues(run.probes[2], columns(want.values.at("E.v"), kExc, {0, 17, 79}), false,
                     "E.v");
        expectValues(run.probes[3], want.values.at("I.i_inh"), false, "I.i_inh");
        expectValues(run.probes[4], want.values.at("E.refrac"), true, "E.refrac");
        // The delayed deliveries still in flight (pending rings and heads) are stored too.
        ex->storeStates();
        expectSameStates(*net, *ref);
    }

    void hostModulesBetweenDeviceNodes_data() { addBackendRows(); }
    void hostModulesBetweenDeviceNodes()
    {
        QFETCH(QString, backend);
        SKIP_IF_UNAVAILABLE(backend);
        constexpr std::int64_t kSteps = 120;
        auto net = mixedNetwork();
        auto ex = makeOn(backend, *net, 40);
        const Run run =
            advanceAll(*ex, {{"a", "vmem", {}}, {"b", "vmem", {2, 4}}, {"mix", "out", {}}}, nullptr,
                       0, 6, kSteps);
        auto ref = mixedNetwork();
        const Reference want = referenceRun(*ref, {"drive", "a", "mix", "b"}, nullptr, kSteps,
                                            {{"a", {"vmem"}}, {"b", {"vmem"}}});
        expectValues(run.output, want.output, true, "output (b spikes)");
        expectValues(run.probes[0], want.values.at("a.vmem"), false, "a.vmem");
        expectValues(run.probes[1], columns(want.values.at("b.vmem"), 6, {2, 4}), false, "b.vmem");
        expectValues(run.probes[2], want.values.at("mix.spikes"), false, "mix.out");
        ex->storeStates();
        expectSameStates(*net, *ref);
    }

    void statesStoreAndReload_data() { addBackendRows(); }
    void statesStoreAndReload()
    {
        QFETCH(QString, backend);
        SKIP_IF_UNAVAILABLE(backend);
        constexpr std::int64_t kSteps = 60;
        const Tensor drive = randomSpikes(2 * kSteps, kDrive, 12, 0.1F);
        const Tensor second(
            Shape{kSteps, kDrive},
            std::vector<float>(drive.data() + kSteps * kDrive, drive.data() + 2 * kSteps * kDrive));
        const std::vector<ProbeRequest> probes{{"E", "spikes", {}}, {"E", "v", {}}};

        // One uninterrupted run of 2 × kSteps steps.
        auto whole = cubaNetwork();
        auto exWhole = makeOn(backend, *whole, 32);
        const Run all = advanceAll(*exWhole, probes, &drive, kDrive, 0, 2 * kSteps);

        // The same, with a store, an attribute round trip and a reload (delayed values kept).
        auto net = cubaNetwork();
        auto ex = makeOn(backend, *net, 32);
        advanceAll(*ex, probes, &drive, kDrive, 0, kSteps);
        ex->storeStates();
        const NestedAttributes stored = net->state();
        if (Status s = net->setAttributes(stored); !s.ok) {
            QFAIL(s.message.c_str());
        }
        ex->loadStates(false);
        const Run rest = advanceAll(*ex, probes, &second, kDrive, 0, kSteps);
        for (std::size_t p = 0; p < probes.size(); ++p) {
            const std::size_t half = all.probes[p].size() / 2;
            expectValues(
                rest.probes[p],
                std::vector<float>(all.probes[p].begin() + static_cast<std::ptrdiff_t>(half),
                                   all.probes[p].end()),
                true, "continued " + probes[p].signal);
        }

        // A state reset, reloaded with the delayed values cleared, replays the first half.
        net->resetState();
        const Tensor v = cubaNetwork()->getSubmodule("E").tensor("v");
        if (Status s = net->getSubmodule("E").setAttribute("v", v); !s.ok) {
            QFAIL(s.message.c_str());
        }
        const Tensor vi = cubaNetwork()->getSubmodule("I").tensor("v");
        if (Status s = net->getSubmodule("I").setAttribute("v", vi); !s.ok) {
            QFAIL(s.message.c_str());
        }
        ex->loadStates(true);
        const Run again = advanceAll(*ex, probes, &drive, kDrive, 0, kSteps);
        for (std::size_t p = 0; p < probes.size(); ++p) {
            const std::size_t half = all.probes[p].size() / 2;
            expectValues(
                again.probes[p],
                std::vector<float>(all.probes[p].begin(),
                                   all.probes[p].begin() + static_cast<std::ptrdiff_t>(half)),
                true, "replayed " + probes[p].signal);
        }
    }

    void probesOfSomeNeuronsEqualThoseColumns_data()
    {
        QTest::addColumn<QString>("backend");
        QTest::addColumn<bool>("lockStep");
        for (const char* b : {"cpu", "cuda"}) {
            QTest::addRow("%s batched", b) << QString(b) << false;
            QTest::addRow("%s lock-step", b) << QString(b) << true;
        }
    }
    void probesOfSomeNeuronsEqualThoseColumns()
    {
        // Probes that read only some channels of a trace (the CPU then records just those) give
        // exactly those columns of the whole trace, overlapping, repeated and unordered alike,
        // under both schedules.
        QFETCH(QString, backend);
        QFETCH(bool, lockStep);
        SKIP_IF_UNAVAILABLE(backend);
        constexpr std::int64_t kSteps = 90;
        const Tensor drive = randomInput(kSteps, 6, 14, -1.0F, 3.0F, 0.3F);
        auto wholeNet = chainNetwork();
        auto wholeEx = makeOn(backend, *wholeNet, 16, lockStep);
        const Run whole = advanceAll(
            *wholeEx, {{"a", "vmem", {}}, {"a", "isyn", {}}, {"b", "v", {}}}, &drive, 6, 10, kSteps);
        auto net = chainNetwork();
        auto ex = makeOn(backend, *net, 16, lockStep);
        const std::vector<ProbeRequest> some{{"a", "vmem", {7, 3, 3, 9}}, {"a", "vmem", {3, 0}},
                                             {"a", "isyn", {19, 2}}, {"b", "v", {4}},
                                             {"b", "i", {}}};
        const Run part = advanceAll(*ex, some, &drive, 6, 10, kSteps);
        expectValues(part.probes[0], columns(whole.probes[0], 10, {7, 3, 3, 9}), true,
                     "vmem 7 3 3 9");
        expectValues(part.probes[1], columns(whole.probes[0], 10, {3, 0}), true, "vmem 3 0");
        expectValues(part.probes[2], columns(whole.probes[1], 20, {19, 2}), true, "isyn 19 2");
        expectValues(part.probes[3], columns(whole.probes[2], 10, {4}), true, "b.v 4");
        QCOMPARE(part.probes[4].size(), static_cast<std::size_t>(kSteps * 10));
        QVERIFY(std::any_of(part.probes[0].begin(), part.probes[0].end(),
                            [](float v) { return v != 0.0F; }));
        // The whole-row probe set again: whole rows again.
        const Run again = advanceAll(*ex, {{"a", "vmem", {}}}, &drive, 6, 10, 20);
        QCOMPARE(again.probes[0].size(), static_cast<std::size_t>(20 * 10));
    }

    void probeErrorsNameWhatExists_data() { addBackendRows(); }
    void probeErrorsNameWhatExists()
    {
        QFETCH(QString, backend);
        SKIP_IF_UNAVAILABLE(backend);
        auto net = chainNetwork();
        auto ex = makeOn(backend, *net, 8);
        const auto infos = ex->setProbes({{"b", "v", {}}});
        expectError(
            [&] {
                ex->setProbes({{"c", "spikes", {}}});
            },
            "probe 'c.spikes': no module at path 'c' that runs in this network (modules: 'a', "
            "'b')");
        expectError(
            [&] {
                ex->setProbes({{"a", "volts", {}}});
            },
            "LIF has no signal 'volts' (signals: spikes, vmem, isyn)");
        expectError([&] { ex->setProbes({{"b", "v", {10}}}); }, "index 10 is outside [0, 10)");
        // The old set stays after a refused change.
        ex->advance(4, randomInput(4, 6, 1, 0.0F, 1.0F, 0.0F).data(), nullptr);
        QCOMPARE(infos.size(), std::size_t(1));
        QCOMPARE(infos[0].units, std::string("V"));
        QVERIFY(ex->probeData(0) != nullptr);
    }

    void nonFiniteStatesAreFound_data() { addBackendRows(); }
    void nonFiniteStatesAreFound()
    {
        QFETCH(QString, backend);
        SKIP_IF_UNAVAILABLE(backend);
        Network net(2, 2);
        net.addNode("a", std::make_unique<LIF>(2, 2));
        net.connect("in", "a");
        net.connect("a", "out");
        auto ex = makeOn(backend, net, 8);
        ex->advance(3, randomInput(3, 2, 2, 0.0F, 1.0F, 0.0F).data(), nullptr);
        QVERIFY(!ex->findNonFinite().has_value());
        // Two inputs at the float32 limit overflow the synaptic current, then the membrane.
        const Tensor huge(Shape{2, 2}, std::numeric_limits<float>::max());
        ex->advance(2, huge.data(), nullptr);
        const auto bad = ex->findNonFinite();
        QVERIFY(bad.has_value());
        QCOMPARE(bad->path, std::string("a"));
        QCOMPARE(bad->attribute, std::string("vmem"));
        QVERIFY(!std::isfinite(bad->value));
    }

    void missingCudaIsReported()
    {
        Network net(1, 1);
        net.addNode("x", std::make_unique<Identity>(1));
        net.connect("in", "x");
        net.connect("x", "out");
        const auto device = spike::kernels::queryCudaDevice();
        std::string note;
        auto autoEx = makeExecutor(net, BackendKind::Auto, {}, &note);
        if (device.available) {
            // One channel: far below the size from which a GPU is faster, so Auto takes the CPU.
            QCOMPARE(autoEx->backendName(), std::string("cpu"));
            QCOMPARE(note, std::string("using the CPU backend: the network has 1 channels, fewer than "
                                       "the 20000 from which a GPU is faster (choose the CUDA "
                                       "backend to use it anyway)"));
            ExecutorOptions large;
            large.autoCudaMinChannels = 1;
            note.clear();
            autoEx = makeExecutor(net, BackendKind::Auto, large, &note);
            QCOMPARE(autoEx->backendName(), std::string("cuda"));
            QVERIFY(note.empty());
            return;
        }
        QCOMPARE(autoEx->backendName(), std::string("cpu"));
        QCOMPARE(note, "using the CPU backend: " + device.reason);
        expectError([&] { makeExecutor(net, BackendKind::Cuda); }, "CUDA backend: ");
        expectError([&] { makeCudaExecutor(net); },
                    spike::kernels::builtWithCuda() ? device.reason : "built without CUDA");
    }
};

QTEST_GUILESS_MAIN(TestBackends)
#include "test_backends.moc"
