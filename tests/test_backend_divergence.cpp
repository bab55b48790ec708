// engine::backendDivergence (engine/analysis/backend_divergence.hpp): two executors in lock-step.
// CPU against CUDA on a driven LIF population and a Poisson → CUBALIF E/I network with sparse and
// delayed projections must give the same spikes and States within docs/backends.md's parity
// tolerance (1e-5); the CUDA rows run here as test_backend_divergence_cuda_emulated and skip
// without a usable device otherwise. CPU with 1 thread against 2 threads (work split forced) must
// be exactly 0 everywhere. A perturbation of side B (one neuron's bias) must be flagged at the
// step and neuron found independently by evolving two copies with Module::evolve and comparing
// their spikes. Bad input must be refused with messages naming what is wrong.
#include "engine/analysis/backend_divergence.hpp"
#include "engine/io/model_clone.hpp"
#include "engine/layers/linear.hpp"
#include "engine/network/network.hpp"
#include "engine/network/projections.hpp"
#include "engine/neurons/cuba_lif.hpp"
#include "engine/neurons/lif.hpp"
#include "engine/sources/sources.hpp"
#include "kernels/cuda_device.hpp"
#include "tests/layer_test_helpers.hpp"
#include "tests/projection_test_helpers.hpp"

#include <QtTest/QtTest>

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>

using namespace spike::engine;  // NOLINT: test file
using spike::tests::expectError;

namespace {

constexpr double kParityTolerance = 1e-5;  ///< docs/backends.md: States within 1e-5

Tensor scalar(float v)
{
    return Tensor::scalar(v);
}

/// 20 LIF neurons with biases 0.02 .. 0.21 per step: each fires regularly at its own rate.
std::unique_ptr<Module> biasedLif()
{
    Tensor bias(Shape{20});
    for (std::int64_t i = 0; i < 20; ++i) {
        bias.data()[i] = 0.02F + 0.01F * static_cast<float>(i);
    }
    return std::make_unique<LIF>(20, 20, false,
                                 AttributeMap{{"threshold", scalar(1.0F)}, {"tau_mem", scalar(0.02F)},
                                              {"tau_syn", scalar(0.01F)}, {"bias", bias}});
}

/// Poisson (40) → E (60, CUBALIF) ⇄ I (15, CUBALIF), sparse, E → E delayed by one step with a
/// 2-step delay ring: the CUBA shape at test size.
std::unique_ptr<Module> cubaNetwork()
{
    using spike::tests::sparseProjection;
    auto net = std::make_unique<Network>(0, 60);
    net->addNode("drive", std::make_unique<PoissonSource>(
                              40, AttributeMap{{"rate", scalar(120.0F)}, {"seed", scalar(7)}}));
    net->addNode("E", std::make_unique<CUBALIF>(60));
    net->addNode("I", std::make_unique<CUBALIF>(15));
    net->connect("drive", "E.exc", sparseProjection(40, 60, 4.0F, 6, 0, 1));
    net->connect("E", "I.exc", sparseProjection(60, 15, 3.0F, 8, 0, 2));
    net->connect("I", "E.inh", sparseProjection(15, 60, 2.0F, 4, 0, 3));
    net->connect("E", "E.exc", sparseProjection(60, 60, 3.0F, 6, 2, 4));
    net->connect("E", "out");
    return net;
}

bool cudaUsable(std::string& why)
{
    const auto device = spike::kernels::queryCudaDevice();
    why = device.available ? std::string() : "no usable CUDA device: " + device.reason;
    return device.available;
}

std::unique_ptr<Module> modelNamed(const QString& name)
{
    return name == "lif" ? biasedLif() : cubaNetwork();
}

}  // namespace

class TestBackendDivergence : public QObject {
    Q_OBJECT

private slots:
    void cpuAgainstCudaWithinParity_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<double>("input");
        QTest::newRow("lif driven") << QString("lif") << 0.05;
        QTest::newRow("cuba network") << QString("cuba") << 0.0;
    }

    void cpuAgainstCudaWithinParity()
    {
        QFETCH(QString, model);
        QFETCH(double, input);
        std::string why;
        if (!cudaUsable(why)) {
            QSKIP(why.c_str());
        }
        const auto m = modelNamed(model);
        DivergenceOptions options;
        options.steps = 120;
        options.input = input;
        options.b = parseDivergenceSide("cuda");
        const Divergence d = backendDivergence(*m, options);
        QCOMPARE(d.sideA, std::string("cpu"));
        QCOMPARE(d.sideB, std::string("cuda"));
        QCOMPARE(d.steps, std::int64_t{120});
        QVERIFY(!d.states.empty());
        QVERIFY2(!d.firstSpikeDifference,
                 d.firstSpikeDifference ? ("spikes differ at step " +
                                           std::to_string(d.firstSpikeDifference->step) + " in " +
                                           d.firstSpikeDifference->path).c_str()
                                        : "");
        for (std::size_t s = 0; s < d.states.size(); ++s) {
            QVERIFY2(d.overallMax[s] <= kParityTolerance,
                     (d.states[s] + " differs by " + std::to_string(d.overallMax[s])).c_str());
            QCOMPARE(d.maxAbs[s].size(), std::size_t{120});
        }
    }

    void cpuThreadCountsIdentical_data()
    {
        QTest::addColumn<QString>("model");
        QTest::newRow("lif") << QString("lif");
        QTest::newRow("cuba network") << QString("cuba");
    }

    void cpuThreadCountsIdentical()
    {
        QFETCH(QString, model);
        const auto m = modelNamed(model);
        DivergenceOptions options;
        options.steps = 150;
        options.b = parseDivergenceSide("cpu:2");
        options.threadMinWork = 1;  // split every node's work over both threads
        const Divergence d = backendDivergence(*m, options);
        QCOMPARE(d.sideB, std::string("cpu:2"));
        QVERIFY(!d.firstSpikeDifference);
        QVERIFY(!d.spikingPaths.empty());
        for (std::size_t s = 0; s < d.states.size(); ++s) {
            QCOMPARE(d.overallMax[s], 0.0);
            QVERIFY(std::all_of(d.maxAbs[s].begin(), d.maxAbs[s].end(), [](double v) { return v == 0.0; }));
        }
        if (model == "cuba") {
            QVERIFY(std::find(d.states.begin(), d.states.end(), "E.v") != d.states.end());
            QVERIFY(std::find(d.spikingPaths.begin(), d.spikingPaths.end(), "drive") != d.spikingPaths.end());
        }
    }

    void perturbationFlagsTheFirstSpikeDifference()
    {
        const auto m = biasedLif();
        const NestedAttributes change = parsePerturbation(*m, "bias[7]=0.0915");
        constexpr std::int64_t kSteps = 500;

        // Independently: two copies evolved by the modules themselves, spikes compared.
        auto plain = cloneModule(*m);
        auto perturbed = cloneModule(*m);
        QVERIFY(perturbed->setAttributes(change).ok);
        const Tensor zeros(Shape{kSteps, 20});
        const Tensor sa = plain->evolve(zeros).output;
        const Tensor sb = perturbed->evolve(zeros).output;
        std::int64_t step = -1;
        std::int64_t neuron = -1;
        for (std::int64_t t = 0; t < kSteps && step < 0; ++t) {
            for (std::int64_t i = 0; i < 20; ++i) {
                if (sa.data()[t * 20 + i] != sb.data()[t * 20 + i]) {
                    step = t;
                    neuron = i;
                    break;
                }
            }
        }
        QVERIFY2(step > 0, "the perturbation must move a spike within the run, after step 0");
        qInfo("first spike difference: step %lld, neuron %lld", static_cast<long long>(step), static_cast<long long>(neuron));

        DivergenceOptions options;
        options.steps = kSteps;
        options.perturbB = change;
        const Divergence d = backendDivergence(*m, options);
        QVERIFY(d.firstSpikeDifference.has_value());
        QCOMPARE(d.firstSpikeDifference->step, step);
        QCOMPARE(d.firstSpikeDifference->neuron, neuron);
        QCOMPARE(d.firstSpikeDifference->path, std::string());
        QCOMPARE(neuron, std::int64_t{7});
        // The membrane differs from the first step on (the bias enters every step).
        const auto vmem = std::find(d.states.begin(), d.states.end(), "vmem");
        QVERIFY(vmem != d.states.end());
        const auto& series = d.maxAbs[static_cast<std::size_t>(vmem - d.states.begin())];
        QVERIFY(series.front() > 0.0);
        QVERIFY(series.front() < 2e-3);
    }

    void progressAndCancel()
    {
        const auto m = cubaNetwork();
        std::atomic<bool> cancel{false};
        double last = 0.0;
        int calls = 0;
        DivergenceOptions options;
        options.steps = 400;
        options.progress = [&](double f) {
            QVERIFY(f > last);
            last = f;
            if (++calls == 3) {
                cancel = true;
            }
        };
        options.cancel = &cancel;
        bool cancelled = false;
        try {
            backendDivergence(*m, options);
        } catch (const DivergenceCancelled&) {
            cancelled = true;
        }
        QVERIFY(cancelled);
        QCOMPARE(calls, 3);
        QVERIFY(last < 0.1);
    }

    void badInput()
    {
        const auto m = biasedLif();
        DivergenceOptions options;
        options.steps = 0;
        expectError([&] { backendDivergence(*m, options); }, "steps must be between 1 and 1000000 (got 0)");
        options.steps = kDivergenceMaxSteps + 1;
        expectError([&] { backendDivergence(*m, options); }, "(got 1000001)");
        options.steps = 10;
        options.b.threads = 0;
        expectError([&] { backendDivergence(*m, options); }, "side B (cpu:0): CPU threads must be at least 1");
        options.b = DivergenceSide{BackendKind::Auto, 1};
        expectError([&] { backendDivergence(*m, options); }, "not auto");
        std::string why;
        if (!cudaUsable(why)) {
            options.b = parseDivergenceSide("cuda");
            expectError([&] { backendDivergence(*m, options); }, "side B (cuda): cuda is not available here: ");
        }
        options.b = {};
        options.perturbB = {{"", AttributeMap{{"tau_mem", scalar(-1.0F)}}}};
        expectError([&] { backendDivergence(*m, options); }, "perturbation of side B: ");
        options.perturbB = {};
        const Linear stateless(3, 2);
        expectError([&] { backendDivergence(stateless, options); }, "the model has no State attribute");

        expectError([] { parseDivergenceSide("gpu"); }, "backend 'gpu' is not known (use cpu, cpu:THREADS or cuda)");
        expectError([] { parseDivergenceSide("cpu:two"); }, "thread count 'two' is not a whole number >= 1");
        expectError([] { parseDivergenceSide("cpu:0"); }, "thread count '0'");
        QCOMPARE(parseDivergenceSide("cpu:3").threads, 3);

        expectError([&] { parsePerturbation(*m, "bias"); }, "expected PATH.NAME=VALUE");
        expectError([&] { parsePerturbation(*m, "bias=x"); }, "value 'x' is not a finite number");
        expectError([&] { parsePerturbation(*m, "nope=1"); }, "the root (LIF) has no attribute 'nope'");
        expectError([&] { parsePerturbation(*m, "bias[20]=1"); }, "index 20 is out of range (bias has 20 elements)");
        expectError([&] { parsePerturbation(*m, "bias[x]=1"); }, "index '[x]'");
        expectError([&] { parsePerturbation(*m, "E.bias=1"); }, "--set 'E.bias=1': ");
        const NestedAttributes all = parsePerturbation(*m, "bias=0.5");
        const Tensor& bias = std::get<Tensor>(all.at("").at("bias"));
        QCOMPARE(bias.numel(), std::int64_t{20});
        QCOMPARE(bias.data()[19], 0.5F);
    }
};

QTEST_GUILESS_MAIN(TestBackendDivergence)
#include "test_backend_divergence.moc"
