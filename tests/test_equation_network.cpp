// An equation population in a recurrent network, run by the CPU executor, against the same
// compiled population stepped by hand. The network is the Izhikevich benchmark's motif at a small
// size: 400 Izhikevich neurons (v an input state, a per-neuron drive I) projecting onto themselves
// through a SparseProjection delayed one step, so the population runs in a lock-step group on one
// reused input row, which its runner consumes (zeroes as it reads: NodeRunner::consumeInput())
// instead of the executor clearing it. The reference adds each step's synaptic input by hand from
// the projection's CSR; the weights are powers of two, so every sum is exact whatever the order
// of its terms and the comparison is bit for bit: spikes and v at every step, for 1 and 2
// threads (the deliveries split over targets), with and without spike lists, and with a second
// population (two inputs into one row: RS and FS as in the benchmark).
#include "engine/equations/population.hpp"
#include "engine/network/network.hpp"
#include "engine/network/projections.hpp"
#include "engine/neurons/equation_neuron.hpp"
#include "engine/runtime/backend.hpp"

#include <QtTest/QtTest>

#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace spike::engine;  // NOLINT: test file
namespace eq = spike::engine::equations;

namespace {

constexpr std::int64_t kN = 400;
constexpr float kDt = 1e-4F;
constexpr int kSteps = 3000;

const char* const kIzhikevich =
    "dv/dt = (0.04*v**2/mV + 5*v + 140*mV - u + I) / ms : volt (input)\n"
    "du/dt = a*(b*v - u) / ms : volt\n"
    "I = 0*mV : volt\na = 0.02 : 1\nb = 0.2 : 1\nc = -65*mV : volt\nd = 8*mV : volt\n"
    "v(0) = -65*mV\nu(0) = b*v\nthreshold: v >= 30*mV\nreset: v = c; u += d\nmethod: euler\n";

/// One population of the network and its hand-stepped twin.
struct Side {
    std::string name;
    std::vector<float> drive;   ///< I per neuron [V]
    std::unique_ptr<eq::Population> twin;
    std::vector<float> input;   ///< the twin's input row
    const EquationNeuron* module = nullptr;
};

std::vector<float> drawDrive(std::uint32_t seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(4e-3F, 8e-3F);
    std::vector<float> d(static_cast<std::size_t>(kN));
    for (float& x : d) {
        x = u(rng);
    }
    return d;
}

Tensor vectorOf(const std::vector<float>& v)
{
    return Tensor(Shape{static_cast<std::int64_t>(v.size())}, v);
}

/// Builds `populations` (1 or 2) Izhikevich populations, each projecting onto every one
/// (p = 0.1, delayed one step; weight +2^-11 V from the first, -2^-10 V from the second),
/// runs them through the executor and by hand, and compares every step. "" when equal.
std::string compare(int populations, const ExecutorOptions& options)
{
    Network net(0, 0);
    std::vector<Side> sides;
    for (int k = 0; k < populations; ++k) {
        Side s;
        s.name = k == 0 ? "RS" : "FS";
        s.drive = drawDrive(static_cast<std::uint32_t>(11 + k));
        s.module = &dynamic_cast<const EquationNeuron&>(net.addNode(s.name, std::make_unique<EquationNeuron>(
                                EquationNeuron::kCustomType, kIzhikevich, kN,
                                AttributeMap{{"I", vectorOf(s.drive)}, {"dt", Tensor::scalar(kDt)}})));
        sides.push_back(std::move(s));
    }
    std::vector<const SparseProjection*> projections;  // [from * populations + to]
    for (int from = 0; from < populations; ++from) {
        for (int to = 0; to < populations; ++to) {
            const float w = from == 0 ? 0x1p-11F : -0x1p-10F;
            auto proj = std::make_unique<SparseProjection>(
                kN, kN,
                AttributeMap{{"rule", std::string("probability")}, {"p", Tensor::scalar(0.1F)},
                             {"weight", Tensor::scalar(w)}, {"delay", Tensor::scalar(0.0F)},
                             {"seed", Tensor::scalar(static_cast<float>(5 + 3 * from + to))}});
            projections.push_back(proj.get());
            net.connect(sides[static_cast<std::size_t>(from)].name + ".spikes",
                        sides[static_cast<std::size_t>(to)].name + ".v", std::move(proj),
                        sides[static_cast<std::size_t>(from)].name + "_" + sides[static_cast<std::size_t>(to)].name,
                        true);
        }
    }
    for (Side& s : sides) {
        s.twin = std::make_unique<eq::Population>(s.module->population().compiled(), kN);
        s.twin->setParameter("I", s.drive.data(), kN);
        s.twin->parametersChanged();
        s.twin->initialise();
        s.input.assign(static_cast<std::size_t>(kN), 0.0F);
    }
    auto ex = makeExecutor(net, BackendKind::Cpu, options);
    std::vector<ProbeRequest> probes;
    for (const Side& s : sides) {
        probes.push_back({s.name, "spikes", {}});
        probes.push_back({s.name, "v", {}});
    }
    ex->setProbes(probes);
    const std::int64_t chunk = options.maxChunkSteps;
    std::vector<std::vector<float>> lastSpikes(sides.size(), std::vector<float>(static_cast<std::size_t>(kN), 0.0F));
    const auto bytes = static_cast<std::size_t>(kN) * sizeof(float);
    double spikes = 0.0;
    for (std::int64_t t0 = 0; t0 < kSteps; t0 += chunk) {
        ex->advance(chunk, nullptr, nullptr);
        for (std::int64_t t = 0; t < chunk; ++t) {
            // Each step's input: the spikes of the step before, through every projection.
            for (std::size_t to = 0; to < sides.size(); ++to) {
                std::fill(sides[to].input.begin(), sides[to].input.end(), 0.0F);
                for (std::size_t from = 0; from < sides.size(); ++from) {
                    const SparseProjection& p = *projections[from * sides.size() + to];
                    for (std::int64_t i = 0; i < kN; ++i) {
                        if (lastSpikes[from][static_cast<std::size_t>(i)] == 0.0F) {
                            continue;
                        }
                        for (auto s = p.rowStart()[static_cast<std::size_t>(i)];
                             s < p.rowStart()[static_cast<std::size_t>(i) + 1]; ++s) {
                            sides[to].input[static_cast<std::size_t>(p.targets()[static_cast<std::size_t>(s)])] +=
                                p.weight();
                        }
                    }
                }
            }
            for (std::size_t k = 0; k < sides.size(); ++k) {
                const float* row = sides[k].input.data();
                sides[k].twin->step(&row, static_cast<double>(t0 + t) * kDt);
                const float* gotSpikes = ex->probeData(2 * k) + t * kN;
                const float* gotV = ex->probeData(2 * k + 1) + t * kN;
                if (std::memcmp(gotSpikes, sides[k].twin->spikes(), bytes) != 0 ||
                    std::memcmp(gotV, sides[k].twin->state(0), bytes) != 0) {
                    for (std::int64_t i = 0; i < kN; ++i) {
                        if (gotV[i] != sides[k].twin->state(0)[i] || gotSpikes[i] != sides[k].twin->spikes()[i]) {
                            return sides[k].name + " step " + std::to_string(t0 + t) + " neuron " + std::to_string(i) +
                                   ": v " + std::to_string(gotV[i]) + " against " +
                                   std::to_string(sides[k].twin->state(0)[i]) + " by hand";
                        }
                    }
                }
                std::copy(sides[k].twin->spikes(), sides[k].twin->spikes() + kN, lastSpikes[k].begin());
                for (std::int64_t i = 0; i < kN; ++i) {
                    spikes += gotSpikes[i];
                }
            }
        }
    }
    // The comparison means something only when the coupling carries many spikes.
    const double perNeuronPerSecond = spikes / static_cast<double>(populations * kN) / (kSteps * kDt);
    if (perNeuronPerSecond < 5.0) {
        return "too few spikes: " + std::to_string(perNeuronPerSecond) + " Hz";
    }
    return {};
}

}  // namespace

class TestEquationNetwork : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { eq::setNativeMode(eq::NativeMode::Sync); }

    void recurrentPopulationMatchesItsTwinSteppedByHand_data()
    {
        QTest::addColumn<int>("populations");
        QTest::addColumn<int>("threads");
        QTest::addColumn<bool>("lists");
        QTest::addColumn<bool>("native");
        for (const int populations : {1, 2}) {
            for (const int threads : {1, 2}) {
                for (const bool lists : {true, false}) {
                    const std::string name = std::to_string(populations) + " population(s), " +
                                             std::to_string(threads) + " thread(s), " +
                                             (lists ? "spike lists" : "dense rows");
                    QTest::newRow((name + ", native").c_str()) << populations << threads << lists << true;
                }
            }
        }
        QTest::newRow("2 populations, 1 thread, spike lists, interpreted") << 2 << 1 << true << false;
    }
    void recurrentPopulationMatchesItsTwinSteppedByHand()
    {
        QFETCH(int, populations);
        QFETCH(int, threads);
        QFETCH(bool, lists);
        QFETCH(bool, native);
        eq::setNativeMode(native ? eq::NativeMode::Sync : eq::NativeMode::Off);
        ExecutorOptions options;
        options.threads = threads;
        options.threadMinWork = 64;  // split the deliveries of these small populations
        options.spikeLists = lists;
        const std::string diff = compare(populations, options);
        eq::setNativeMode(eq::NativeMode::Sync);
        QVERIFY2(diff.empty(), diff.c_str());
    }
};

QTEST_GUILESS_MAIN(TestEquationNetwork)
#include "test_equation_network.moc"
