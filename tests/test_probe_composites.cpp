// Probing inside a composite plan node: a DynamicsNetwork wired into a Network runs as one plan
// node through the generic runner, which offers its recorded "value_prefix" and every State
// below it ("lstm.h"); a probe path below the node ("dynamics.lstm", "h") reads the same trace.
// The samples equal evolving the same DynamicsNetwork directly, step by step, bit for bit, on
// every available backend, and through a SimulationController's probe buffers as the GUI plots
// them. Network::evolve records value_prefix through the same runner. The
// bundled demo resources/examples/dynamics_network_driven.json loads, runs at dt = 1 ms and its
// outputs stay finite and change over time.
#include "engine/runtime/backend.hpp"
#include "engine/composites/dynamics_network.hpp"
#include "engine/io/model_io.hpp"
#include "engine/network/network.hpp"
#include "tests/controller_test_helpers.hpp"
#include "tests/layer_test_helpers.hpp"

#include <QtTest/QtTest>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

using namespace spike::engine;  // NOLINT: test file
using spike::tests::expectError;

namespace {

const std::string kDemo =
    std::string(SPIKE_TEST_DATA_DIR) + "/../../resources/examples/dynamics_network_driven.json";

constexpr std::int64_t kSteps = 100;

/// Every backend this machine can run.
std::vector<BackendKind> backends()
{
    std::vector<BackendKind> out{BackendKind::Cpu};
    if (backendAvailable(BackendKind::Cuda)) {
        out.push_back(BackendKind::Cuda);
    }
    return out;
}

/// Runs `root` for kSteps steps in chunks with `probes`; returns each probe's (kSteps, width)
/// samples.
std::vector<Tensor> runProbed(Module& root, BackendKind kind, const std::vector<ProbeRequest>& probes)
{
    ExecutorOptions options;
    options.maxChunkSteps = 16;
    auto executor = makeExecutor(root, kind, options);
    const std::vector<ProbeInfo> infos = executor->setProbes(probes);
    std::vector<Tensor> out;
    for (const ProbeInfo& info : infos) {
        out.emplace_back(Shape{kSteps, info.width});
    }
    for (std::int64_t t0 = 0; t0 < kSteps; t0 += options.maxChunkSteps) {
        const std::int64_t n = std::min(options.maxChunkSteps, kSteps - t0);
        executor->advance(n, nullptr, nullptr);
        for (std::size_t k = 0; k < infos.size(); ++k) {
            const float* data = executor->probeData(k);
            std::copy(data, data + n * infos[k].width, out[k].data() + t0 * infos[k].width);
        }
    }
    executor->storeStates();
    return out;
}

/// Row t of a (T, W) tensor as (W,).
Tensor rowOf(const Tensor& t, std::int64_t r)
{
    const std::int64_t w = t.dim(1);
    return Tensor(Shape{w}, std::vector<float>(t.data() + r * w, t.data() + (r + 1) * w));
}

bool allFinite(const Tensor& t)
{
    for (std::int64_t i = 0; i < t.numel(); ++i) {
        if (!std::isfinite(t.data()[i])) {
            return false;
        }
    }
    return true;
}

}  // namespace

class TestProbeComposites : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void probesInsideADynamicsNetworkMatchEvolvingItDirectly()
    {
        for (const BackendKind kind : backends()) {
            const std::string label = toString(kind);
            auto root = loadModel(kDemo);
            const std::vector<Tensor> got =
                runProbed(*root, kind,
                          {{"dynamics", "out", {}},
                           {"dynamics", "value_prefix", {}},
                           {"dynamics.lstm", "h", {}},
                           {"dynamics", "lstm.c", {}},
                           {"dynamics", "lstm.h", {}}});

            // The same model evolved directly: the source's rows, then the DynamicsNetwork
            // one step per evolve() call, reading its recording and the LSTM's States.
            auto reference = loadModel(kDemo);
            Module& source = reference->getSubmodule("stimulus");
            auto& dynamics = dynamic_cast<DynamicsNetwork&>(reference->getSubmodule("dynamics"));
            const Tensor input = source.evolve(Tensor(Shape{kSteps, 0})).output;
            const Module& lstm = dynamics.getSubmodule("lstm");
            for (std::int64_t t = 0; t < kSteps; ++t) {
                Tensor step(Shape{1, input.dim(1)});
                const Tensor inputRow = rowOf(input, t);
                std::copy(inputRow.data(), inputRow.data() + inputRow.numel(), step.data());
                const EvolveResult r = dynamics.evolve(step, RecordSpec({"value_prefix"}));
                const Tensor prefix = r.record.at("").at("value_prefix").data;
                const std::string at = label + " step " + std::to_string(t);
                QVERIFY2(rowOf(got[0], t).identical(r.output.reshaped(Shape{r.output.numel()})),
                         ("out, " + at).c_str());
                QVERIFY2(rowOf(got[1], t).identical(prefix.reshaped(Shape{prefix.numel()})),
                         ("value_prefix, " + at).c_str());
                const Tensor& h = lstm.tensor("h");
                const Tensor& c = lstm.tensor("c");
                QVERIFY2(rowOf(got[2], t).identical(h.reshaped(Shape{h.numel()})),
                         ("dynamics.lstm h, " + at).c_str());
                QVERIFY2(rowOf(got[3], t).identical(c.reshaped(Shape{c.numel()})),
                         ("lstm.c, " + at).c_str());
                QVERIFY2(rowOf(got[4], t).identical(rowOf(got[2], t)), ("lstm.h, " + at).c_str());
            }
            // After storeStates() the probed tree holds the same LSTM state.
            QVERIFY(root->getSubmodule("dynamics.lstm").tensor("h").identical(lstm.tensor("h")));
        }
    }

    void controllerProbesReadTheSameSamples()
    {
        auto direct = loadModel(kDemo);
        const std::vector<ProbeRequest> requests{{"dynamics", "value_prefix", {}},
                                                 {"dynamics.lstm", "h", {}}};
        const std::vector<Tensor> want = runProbed(*direct, BackendKind::Cpu, requests);

        ControllerOptions options;
        options.backend = BackendKind::Cpu;
        SimulationController controller(loadModel(kDemo), options);
        const std::vector<ProbeId> ids = controller.setProbes(requests);
        controller.step(kSteps);
        for (std::size_t k = 0; k < ids.size(); ++k) {
            // The samples arrive chunk by chunk: gather takes until all steps are in.
            spike::tests::Trace got;
            QVERIFY(spike::tests::waitFor([&] {
                if (const auto snapshot = controller.takeProbe(ids[k])) {
                    got.add(*snapshot);
                }
                return got.end >= kSteps;
            }));
            QVERIFY(got.contiguous);
            QCOMPARE(got.first, std::int64_t{0});
            QCOMPARE(got.end, kSteps);
            const std::vector<float> expected(want[k].data(), want[k].data() + want[k].numel());
            QVERIFY2(spike::tests::bitEqual(got.values, expected), requests[k].signal.c_str());
        }
    }

    void networkEvolveRecordsTheCompositesSignal()
    {
        auto root = loadModel(kDemo);
        const std::vector<Tensor> probed = runProbed(*root, BackendKind::Cpu,
                                                     {{"dynamics", "value_prefix", {}}});
        auto again = loadModel(kDemo);
        const EvolveResult r =
            again->evolve(Tensor(Shape{kSteps, 0}), RecordSpec({"dynamics.value_prefix"}));
        const Tensor& recorded = r.record.at("dynamics").at("value_prefix").data;
        QCOMPARE(recorded.numel(), probed[0].numel());
        QVERIFY(recorded.reshaped(probed[0].shape()).identical(probed[0]));
    }

    void badPathsAndSignalsBelowANodeAreNamed()
    {
        auto root = loadModel(kDemo);
        auto executor = makeExecutor(*root, BackendKind::Cpu);
        expectError([&] { executor->setProbes({{"dynamics.nope", "h", {}}}); },
                    "probe 'dynamics.nope.h': no module at path 'dynamics.nope'");
        expectError([&] { executor->setProbes({{"dynamics.lstm", "vmem", {}}}); },
                    "'lstm' in DynamicsNetwork 'dynamics' has no signal 'vmem' (signals: h, c)");
        expectError([&] { executor->setProbes({{"dynamics", "lstm.x", {}}}); },
                    "has no signal 'lstm.x'");
        // A width-checked index into a trace below the node.
        expectError([&] { executor->setProbes({{"dynamics.lstm", "h", {32}}}); },
                    "index 32 is outside [0, 32)");
        const std::vector<ProbeInfo> infos =
            executor->setProbes({{"dynamics.lstm", "h", {0, 5}}, {"dynamics", "value_prefix", {}}});
        QCOMPARE(infos[0].width, std::int64_t{2});
        QCOMPARE(infos[1].width, std::int64_t{21});
    }

    void drivenDemoRunsWithChangingFiniteOutputs()
    {
        auto root = loadModel(kDemo);
        QVERIFY(dynamic_cast<Network*>(root.get()) != nullptr);
        QCOMPARE(static_cast<float>(root->timeStep()), 1e-3F);
        const Module& dynamics = root->getSubmodule("dynamics");
        QCOMPARE(root->getSubmodule("stimulus").sizeOut(), dynamics.sizeIn());
        const std::vector<Tensor> got = runProbed(*root, BackendKind::Cpu,
                                                  {{"stimulus", "out", {}},
                                                   {"dynamics", "out", {}},
                                                   {"dynamics", "value_prefix", {}},
                                                   {"dynamics.lstm", "h", {}}});
        const char* names[] = {"stimulus.out", "dynamics.out", "dynamics.value_prefix",
                               "dynamics.lstm.h"};
        for (std::size_t k = 0; k < got.size(); ++k) {
            QVERIFY2(allFinite(got[k]), names[k]);
            // Over 100 steps every signal moves (a 5 Hz drive: half a period).
            double largestChange = 0.0;
            for (std::int64_t t = 1; t < kSteps; ++t) {
                const Tensor a = rowOf(got[k], t - 1);
                const Tensor b = rowOf(got[k], t);
                for (std::int64_t i = 0; i < a.numel(); ++i) {
                    largestChange = std::max(largestChange, std::abs(double(b[i]) - double(a[i])));
                }
            }
            QVERIFY2(largestChange > 1e-3, names[k]);
            QVERIFY2(!rowOf(got[k], 0).identical(rowOf(got[k], kSteps - 1)), names[k]);
        }
        QCOMPARE(dynamics.stepsElapsed(), kSteps);
    }
};

QTEST_GUILESS_MAIN(TestProbeComposites)
#include "test_probe_composites.moc"
