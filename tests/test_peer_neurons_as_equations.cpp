// Norse's LIFRefracCell written as equations (docs/equations.md, "The peers' neurons as
// equations") against Norse's own recorded cases (tests/data/reference/lif_refrac_*), the cases
// the hand-written LIFRefrac passes: the same spikes at every step and neuron, and v, i and the
// refractory counter within the cases' tolerance; interpreted and as native code. And the example
// resources/examples/lifrefrac_as_equations.json, which holds the same text beside a built-in
// LIFRefrac fed the same current steps: both give the same spikes in a network run.
#include "engine/equations/native.hpp"
#include "engine/equations/population.hpp"
#include "engine/io/model_io.hpp"
#include "engine/runtime/backend.hpp"
#include "tests/reference_case.hpp"

#include <QtTest/QtTest>

#include <algorithm>
#include <string>
#include <vector>

using namespace spike::engine;  // NOLINT: test file
namespace eq = spike::engine::equations;
using spike::tests::ReferenceCase;

namespace {

/// Norse's LIFRefracCell: Euler steps of dv/dt = tau_mem_inv ((v_leak - v) + i) and
/// di/dt = -tau_syn_inv i (i is a reserved name here, Brian2's neuron index: isyn), the input
/// jumping i at the start of a step; a spike when v passes
/// v_th, v to v_reset, then v held for rho_reset steps (refractory counts the spike step too);
/// v starts at v_leak, as in Norse.
const char* const kNorseLifRefrac =
    "dv/dt = tau_mem_inv * ((v_leak - v) + isyn) : volt (unless refractory)\n"
    "disyn/dt = -tau_syn_inv * isyn : volt (input)\n"
    "tau_mem_inv = 100*Hz : hertz\n"
    "tau_syn_inv = 200*Hz : hertz\n"
    "v_leak = 0*volt : volt\n"
    "v_th = 1*volt : volt\n"
    "v_reset = 0*volt : volt\n"
    "rho_reset = 5 : 1\n"
    "v(0) = v_leak\n"
    "isyn(0) = 0*volt\n"
    "threshold: v > v_th\n"
    "reset: v = v_reset\n"
    "refractory: (rho_reset + 1) * dt\n"
    "method: euler\n";

}  // namespace

class TestPeerNeuronsAsEquations : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QTemporaryDir* cache = new QTemporaryDir;  // lives as long as the process
        qputenv("SPIKE_EQ_CACHE", cache->path().toUtf8());
    }

    void norseLifRefracCases_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("native");
        for (const char* n : {"lif_refrac_defaults", "lif_refrac_custom"}) {
            QTest::newRow((std::string(n) + " interpreted").c_str()) << QString(n) << false;
            QTest::newRow((std::string(n) + " native").c_str()) << QString(n) << true;
        }
    }
    void norseLifRefracCases()
    {
        QFETCH(QString, name);
        QFETCH(bool, native);
        const auto c = ReferenceCase::load(name.toStdString());
        QCOMPARE(c.json.at("module").get<std::string>(), std::string("LIFRefrac"));
        const auto& p = c.json.at("params");
        const auto n = p.at("n").get<std::int64_t>();
        eq::Population pop(eq::compileModel(eq::parseModel(kNorseLifRefrac), p.at("dt").get<double>()), n);
        for (const char* key : {"tau_syn_inv", "tau_mem_inv", "v_leak", "v_th", "v_reset", "rho_reset"}) {
            const float value = p.at(key).get<float>();
            pop.setParameter(key, &value, 1);
        }
        pop.parametersChanged();
        pop.initialise();
        eq::setNativeMode(native ? eq::NativeMode::Sync : eq::NativeMode::Off);

        const Tensor input = c.array(c.json.at("input").get<std::string>());
        const std::int64_t steps = input.shape()[0];
        QCOMPARE(input.shape()[1], n);
        Tensor spikes(Shape{steps, n});
        Tensor v(Shape{steps, n});
        Tensor i(Shape{steps, n});
        Tensor rho(Shape{steps, n});
        for (std::int64_t t = 0; t < steps; ++t) {
            const float* row = input.data() + t * n;
            pop.step(&row, static_cast<double>(t) * p.at("dt").get<double>());
            for (std::int64_t k = 0; k < n; ++k) {
                spikes[t * n + k] = pop.spikes()[k];
                v[t * n + k] = pop.state(0)[k];
                i[t * n + k] = pop.state(1)[k];
                // Norse counts the steps still held after this one; the equations' counter
                // includes the step that is running, so it is one more while held.
                rho[t * n + k] = std::max(pop.refractory()[k] - 1.0F, 0.0F);
            }
        }
        QCOMPARE(QString::fromStdString(pop.executionStatus()).startsWith("native code"), native);
        eq::setNativeMode(eq::NativeMode::Async);

        QCOMPARE(spike::tests::countDifferent(spikes, c.named("expected", "spikes")), std::int64_t{0});
        QCOMPARE(static_cast<double>(spikes.flat().cast<double>().sum()), c.json.at("total_output_spikes").get<double>());
        QVERIFY(c.json.at("total_output_spikes").get<double>() > 0.0);
        const std::pair<const char*, const Tensor*> traces[] = {{"v", &v}, {"i", &i}, {"rho", &rho}};
        for (const auto& [key, got] : traces) {
            const double excess = spike::tests::toleranceExcess(*got, c.named("expected", key), c.atol(), c.rtol());
            QVERIFY2(excess <= 0.0, (std::string(key) + " exceeds tolerance by " + std::to_string(excess)).c_str());
            qInfo("%s: largest difference from Norse %.3g", key,
                  spike::tests::toleranceExcess(*got, c.named("expected", key), 0.0, 0.0));
        }
    }

    void exampleRunsBothSpikeForSpike()
    {
        auto root = loadModel(SPIKE_TEST_DATA_DIR "/../../resources/examples/lifrefrac_as_equations.json");
        ExecutorOptions options;
        options.maxChunkSteps = 32;
        auto ex = makeExecutor(*root, BackendKind::Cpu, options);
        ex->setProbes({{"refrac", "spikes", {}}, {"equations", "spikes", {}}, {"refrac", "v", {}}, {"equations", "v", {}}});
        std::vector<double> counts(4, 0.0);
        double largest = 0.0;
        for (int chunk = 0; chunk < 40; ++chunk) {
            ex->advance(32, nullptr, nullptr);
            for (std::int64_t k = 0; k < 32 * 4; ++k) {
                const float a = ex->probeData(0)[k];
                QCOMPARE(ex->probeData(1)[k], a);
                counts[static_cast<std::size_t>(k % 4)] += a;
                largest = std::max(largest, static_cast<double>(std::abs(ex->probeData(2)[k] - ex->probeData(3)[k])));
            }
        }
        // The weakest step stays below threshold, the others fire faster the stronger they are.
        QCOMPARE(counts[0], 0.0);
        QVERIFY(counts[1] > 0.0 && counts[1] < counts[2] && counts[2] < counts[3]);
        QVERIFY2(largest < 1e-5, std::to_string(largest).c_str());
    }
};

QTEST_GUILESS_MAIN(TestPeerNeuronsAsEquations)
#include "test_peer_neurons_as_equations.moc"
