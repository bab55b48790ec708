// The CUDA executor's fused lock-step groups (engine/runtime/fused_groups.hpp,
// kernels/fused_group_cuda.hpp): a cycle of device populations (built-in or equations) that runs
// each chunk as one launch must give exactly what the per-launch path gives (spikes, traces and States bit for
// bit, delay rings and their heads included) and the CPU's spikes, whatever the chunking; a
// group that cannot fuse (a host module in it, more channels than the limit) keeps the
// per-launch path. Skips without a usable CUDA device; its _cuda_emulated twin runs everywhere.
#include "engine/runtime/backend.hpp"
#include "engine/neurons/cuba_lif.hpp"
#include "engine/neurons/lif.hpp"
#include "engine/neurons/lif_refrac.hpp"
#include "engine/network/network.hpp"
#include "engine/network/projections.hpp"
#include "engine/io/module_factory.hpp"
#include "engine/neurons/equation_neuron.hpp"
#include "engine/sources/sources.hpp"
#include "kernels/cuda_device.hpp"
#include "tests/layer_test_helpers.hpp"
#include "tests/projection_test_helpers.hpp"

#include <QtTest/QtTest>

#include <algorithm>
#include <cstring>
#include <functional>
#include <random>
#include <tuple>

using namespace spike::engine;

namespace {

constexpr std::int64_t kDrive = 40;
constexpr std::int64_t kExc = 80;
constexpr std::int64_t kInh = 20;

Tensor scalar(float v)
{
    return Tensor::scalar(v);
}

void set(Module& m, const std::string& name, const Tensor& value)
{
    if (Status s = m.setAttribute(name, value); !s.ok) {
        throw std::runtime_error(s.message);
    }
}

/// E (80) and I (20) CUBALIF populations driven by 0/1 input spikes, coupled by sparse
/// projections with delays 0, 1 and 2, and a nested network `relay` (its in and out are
/// junctions inside the cycle) whose LIFRefrac hears E through a dense projection and inhibits I
/// one to one, beside I's own sparse self-inhibition into the same port. `noisyRelay` makes the
/// relay a noisy LIF, which only the host runs.
std::unique_ptr<Network> eiNetwork(bool noisyRelay = false)
{
    auto net = std::make_unique<Network>(kDrive, 0);
    for (const auto& [name, n, seed] : {std::tuple{"E", kExc, 31}, {"I", kInh, 32}}) {
        auto pop = std::make_unique<CUBALIF>(n);
        set(*pop, "v",
            spike::tests::uniformTensor(Shape{n}, static_cast<std::uint64_t>(seed), -60.0, -50.0));
        net->addNode(name, std::move(pop));
    }
    auto relay = std::make_unique<Network>(kExc, kInh);
    if (noisyRelay) {
        relay->addNode("cell", std::make_unique<LIF>(kInh, kInh, false,
                                                     AttributeMap{{"noise_std", scalar(0.1F)},
                                                                  {"threshold", scalar(0.3F)}}));
    } else {
        relay->addNode("cell", std::make_unique<LIFRefrac>(
                                   kInh, AttributeMap{{"v_th", scalar(0.3F)},
                                                      {"rho_reset", scalar(2.0F)}}));
    }
    auto dense = std::make_unique<DenseProjection>(kExc, kInh);
    spike::tests::randomize(*dense, 17);
    relay->connect("in", "cell", std::move(dense));
    relay->connect("cell", "out");
    net->addNode("relay", std::move(relay));
    net->connect("in", "E.exc", spike::tests::sparseProjection(kDrive, kExc, 1.62F, 4, 0, 1));
    net->connect("in", "I.exc", spike::tests::sparseProjection(kDrive, kInh, 1.62F, 4, 1, 2));
    net->connect("E", "E.exc", spike::tests::sparseProjection(kExc, kExc, 1.62F, 8, 2, 3));
    net->connect("E", "I.exc", spike::tests::sparseProjection(kExc, kInh, 1.62F, 8, 0, 4));
    net->connect("I", "E.inh", spike::tests::sparseProjection(kInh, kExc, -9.0F, 4, 1, 5));
    net->connect("E", "relay");
    net->connect("relay", "I.inh",
                 std::make_unique<OneToOneProjection>(kInh, AttributeMap{{"weight", scalar(-3.0F)}}));
    net->connect("I", "I.inh", spike::tests::sparseProjection(kInh, kInh, -9.0F, 4, 0, 6));
    return net;
}

/// in (6, graded) → dense → recurrent LIF a (20 → 10, two synapses per neuron) → one-to-one →
/// LIFRefrac b → out; run with every node in one lock-step group (the input and output nodes
/// included). Recurrent weights k / 256, so spikes @ w_rec is exact in any order.
std::unique_ptr<Network> chainNetwork()
{
    auto net = std::make_unique<Network>(6, 10);
    auto a = std::make_unique<LIF>(20, 10, true, AttributeMap{{"threshold", scalar(0.4F)},
                                                               {"bias", scalar(0.01F)}});
    Tensor w(Shape{10, 20});
    std::mt19937 gen(9);
    std::uniform_int_distribution<int> k(-16, 24);
    for (std::int64_t i = 0; i < w.numel(); ++i) {
        w[i] = static_cast<float>(k(gen)) / 256.0F;
    }
    set(*a, "w_rec", w);
    net->addNode("a", std::move(a));
    net->addNode("b", std::make_unique<LIFRefrac>(
                          10, AttributeMap{{"v_th", scalar(0.3F)}, {"rho_reset", scalar(3.0F)}}));
    auto dense = std::make_unique<DenseProjection>(6, 20);
    spike::tests::randomize(*dense, 21);
    net->connect("in", "a", std::move(dense));
    net->connect("a", "b",
                 std::make_unique<OneToOneProjection>(
                     10, AttributeMap{{"weight", spike::tests::uniformTensor(Shape{10}, 2, 1.0, 4.0)}}));
    net->connect("b", "out");
    return net;
}

/// Izhikevich's model (the library's equations) driven by a constant current ramp and coupled
/// to itself through a sparse projection with a one-step delay: a one-node cycle.
std::unique_ptr<Network> equationNetwork()
{
    constexpr std::int64_t n = 50;
    auto neuron = createModule("Izhikevich", nlohmann::json{{"shape", {n}}});
    NestedAttributes dt;
    dt[""]["dt"] = scalar(1e-4F);
    if (Status s = neuron->setAttributes(dt); !s.ok) {
        throw std::runtime_error(s.message);
    }
    const std::string port = dynamic_cast<EquationNeuron&>(*neuron).model().inputs.front();
    Tensor amplitude(Shape{n});
    for (std::int64_t i = 0; i < n; ++i) {
        amplitude[i] = 0.012F * (0.5F + static_cast<float>(i) / n);
    }
    auto net = std::make_unique<Network>(1, 0);
    net->addNode("E", std::move(neuron));
    net->addNode("drive", std::make_unique<ConstantCurrent>(n, AttributeMap{{"amplitude", amplitude}}));
    net->connect("drive", "E." + port);
    net->connect("E", "E." + port, spike::tests::sparseProjection(n, n, 0.004F, 5, 1, 7));
    return net;
}

struct Case {
    std::function<std::unique_ptr<Network>()> build;
    bool lockStepAll = false;
    std::vector<ProbeRequest> probes;
    Tensor input;
    std::int64_t outWidth = 0;
};

Case eiCase(std::int64_t steps)
{
    Case c;
    c.build = [] { return eiNetwork(); };
    c.probes = {{"E", "spikes", {}}, {"I", "spikes", {}},      {"E", "v", {}},
                {"I", "i_inh", {}},  {"relay.cell", "v", {}}, {"E", "refrac", {0, 5, 79}}};
    c.input = Tensor(Shape{steps, kDrive});
    std::mt19937 gen(8);
    std::uniform_real_distribution<float> coin(0.0F, 1.0F);
    for (std::int64_t i = 0; i < c.input.numel(); ++i) {
        c.input[i] = coin(gen) < 0.1F ? 1.0F : 0.0F;
    }
    return c;
}

Case equationCase(std::int64_t steps)
{
    Case c;
    c.build = [] { return equationNetwork(); };
    c.probes = {{"E", "spikes", {}}, {"E", "v", {}}, {"E", "u", {}}};
    c.input = Tensor(Shape{steps, 1});
    return c;
}

Case chainCase(std::int64_t steps)
{
    Case c;
    c.build = [] { return chainNetwork(); };
    c.lockStepAll = true;
    c.probes = {{"a", "spikes", {}}, {"a", "vmem", {}}, {"a", "irec", {}}, {"b", "rho", {}}};
    c.input = spike::tests::uniformTensor(Shape{steps, 6}, 5, -0.5, 1.5);
    c.outWidth = 10;
    return c;
}

/// One run: the output rows and each probe's rows over all chunks, and the stored States.
struct Run {
    std::vector<float> output;
    std::vector<std::vector<float>> probes;
    NestedAttributes states;
    int fusedGroups = -1;  ///< fusedGroupCount() after the last chunk
};

/// Runs `c` for steps [from, to) on a fresh executor of `net` in uneven chunks (chunk, 1,
/// chunk - 3, ...), so delay rings start each chunk at a different head.
Run runCase(const Case& c, Module& net, const char* backend, std::int64_t maxChannels,
            std::int64_t from, std::int64_t to)
{
    ExecutorOptions options;
    options.maxChunkSteps = 16;
    options.plan.lockStepAll = c.lockStepAll;
    options.fusedGroupMaxChannels = maxChannels;
    auto ex = makeExecutor(net, parseBackendKind(backend), options);
    const std::vector<ProbeInfo> infos = ex->setProbes(c.probes);
    Run r;
    r.probes.resize(c.probes.size());
    const std::int64_t nIn = c.input.shape()[1];
    const std::int64_t pieces[] = {16, 1, 13};
    for (std::int64_t t0 = from, k = 0; t0 < to; ++k) {
        const std::int64_t n = std::min(pieces[k % 3], to - t0);
        std::vector<float> out(static_cast<std::size_t>(n * c.outWidth));
        ex->advance(n, c.input.data() + t0 * nIn, out.data());
        r.output.insert(r.output.end(), out.begin(), out.end());
        for (std::size_t p = 0; p < c.probes.size(); ++p) {
            const float* d = ex->probeData(p);
            r.probes[p].insert(r.probes[p].end(), d, d + n * infos[p].width);
        }
        t0 += n;
    }
    r.fusedGroups = ex->fusedGroupCount();
    ex->storeStates();
    r.states = net.state();
    return r;
}

bool identical(const std::vector<float>& a, const std::vector<float>& b)
{
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(), [](float x, float y) {
               return std::memcmp(&x, &y, sizeof(float)) == 0;
           });
}

/// Every numeric State of `a` equals `b`'s bit for bit.
void expectSameStates(const NestedAttributes& a, const NestedAttributes& b)
{
    QCOMPARE(a.size(), b.size());
    for (const auto& [path, attrs] : b) {
        for (const auto& [name, value] : attrs) {
            if (const auto* want = std::get_if<Tensor>(&value)) {
                const Tensor& got = std::get<Tensor>(a.at(path).at(name));
                QVERIFY2(got.identical(*want), ("state " + path + "." + name).c_str());
            }
        }
    }
}

void expectSameRun(const Run& got, const Run& want)
{
    QVERIFY2(identical(got.output, want.output), "output rows");
    for (std::size_t p = 0; p < want.probes.size(); ++p) {
        QVERIFY2(identical(got.probes[p], want.probes[p]), ("probe " + std::to_string(p)).c_str());
    }
    expectSameStates(got.states, want.states);
}

std::int64_t countSpikes(const std::vector<float>& rows)
{
    return std::count_if(rows.begin(), rows.end(), [](float s) { return s != 0.0F; });
}

bool cudaUsable()
{
    return spike::kernels::queryCudaDevice().available;
}

}  // namespace

class TestFusedGroups : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        if (!cudaUsable()) {
            QSKIP("no usable CUDA device (the _cuda_emulated twin runs these)");
        }
    }

    void fusedRunEqualsPerLaunchRun_data()
    {
        QTest::addColumn<int>("network");
        QTest::newRow("E/I cycle with a nested relay") << 0;
        QTest::newRow("recurrent chain, all lock-step") << 1;
        QTest::newRow("Izhikevich equations with a self-projection") << 2;
    }
    void fusedRunEqualsPerLaunchRun()
    {
        QFETCH(int, network);
        constexpr std::int64_t kSteps = 150;
        const Case c = network == 0 ? eiCase(kSteps) : network == 1 ? chainCase(kSteps)
                                                                    : equationCase(kSteps);
        auto fusedNet = c.build();
        auto launchedNet = c.build();
        auto cpuNet = c.build();
        const Run fused = runCase(c, *fusedNet, "cuda", 32768, 0, kSteps);
        const Run launched = runCase(c, *launchedNet, "cuda", 0, 0, kSteps);
        const Run cpu = runCase(c, *cpuNet, "cpu", 0, 0, kSteps);
        QCOMPARE(fused.fusedGroups, 1);
        QCOMPARE(launched.fusedGroups, 0);
        expectSameRun(fused, launched);
        // The CPU's spikes, step for step (probe 0 is a spike row in every case).
        QVERIFY2(countSpikes(cpu.probes[0]) > 20, "the network must be active to compare");
        QVERIFY(identical(fused.probes[0], cpu.probes[0]));
        QVERIFY(identical(fused.output, cpu.output));
        if (network == 0) {
            QVERIFY2(countSpikes(cpu.probes[1]) > 0, "the inhibitory population too");
            QVERIFY(identical(fused.probes[1], cpu.probes[1]));
        } else if (network == 1) {
            QVERIFY2(countSpikes(cpu.output) > 0, "the second population too");
        }
        QCOMPARE(fusedNet->getSubmodule(network == 1 ? "b" : "E").stepsElapsed(), kSteps);
    }

    void storedFusedRunContinuesOnAFreshExecutor()
    {
        // 70 fused steps, stored (delay rings and heads included), then 80 more on a new
        // executor: the uninterrupted per-launch run's last 80 steps, bit for bit.
        constexpr std::int64_t kSteps = 150;
        const Case c = eiCase(kSteps);
        auto net = c.build();
        runCase(c, *net, "cuda", 32768, 0, 70);
        const Run second = runCase(c, *net, "cuda", 32768, 70, kSteps);
        auto whole = c.build();
        const Run want = runCase(c, *whole, "cuda", 0, 0, kSteps);
        QCOMPARE(second.fusedGroups, 1);
        for (std::size_t p = 0; p < want.probes.size(); ++p) {
            const std::vector<float>& w = want.probes[p];
            const std::vector<float> tail(w.end() - static_cast<std::ptrdiff_t>(second.probes[p].size()),
                                          w.end());
            QVERIFY2(identical(second.probes[p], tail), ("probe " + std::to_string(p)).c_str());
        }
        expectSameStates(second.states, want.states);
    }

    void groupsThatCannotFuseLaunchPerStep()
    {
        constexpr std::int64_t kSteps = 40;
        Case c = eiCase(kSteps);
        // 220 channels in the cycle (E 80, I 20, the relay's cell 20 and its junctions 80 + 20):
        // a limit below them keeps the per-launch path, with the same results.
        auto limited = c.build();
        const Run small = runCase(c, *limited, "cuda", 99, 0, kSteps);
        QCOMPARE(small.fusedGroups, 0);
        auto free = c.build();
        expectSameRun(small, runCase(c, *free, "cuda", 32768, 0, kSteps));
        // A noisy LIF runs on the host, so its cycle does not fuse.
        c.build = [] { return eiNetwork(true); };
        c.probes = {{"E", "spikes", {}}};
        auto noisy = c.build();
        QCOMPARE(runCase(c, *noisy, "cuda", 32768, 0, kSteps).fusedGroups, 0);
    }
};

QTEST_GUILESS_MAIN(TestFusedGroups)
#include "test_fused_groups.moc"
