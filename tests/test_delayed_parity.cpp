// Delayed connections across storeStates() and a fresh executor, on both backends. A Poisson
// source drives a population E (LIF or CUBALIF) that feeds itself through a sparse projection
// with a 2-step delay ring on a connection the network delays by one step (it closes a cycle).
// One executor runs N steps and stores its States; a fresh executor of either backend, built on
// the same tree, runs M more. Each of the four hand-overs (cpu → cpu, cpu → cuda, cuda → cpu,
// cuda → cuda) must give, bit for bit, the last M steps of one uninterrupted N + M-step CPU run:
// the delayed connection's value of step N (Graph::delayedValue) and the projection's "pending"
// ring both travel through the tree. The same executor reloaded in place (the live-edit path)
// must too. Every sparse delivery here is 0/1 spikes times one weight, so the CUDA rows are exact
// (docs/backends.md). The CUDA rows run on the CUDA emulator as test_delayed_parity_cuda_emulated
// and skip without a usable device otherwise.
#include "engine/network/network.hpp"
#include "engine/network/projections.hpp"
#include "tests/projection_test_helpers.hpp"
#include "engine/neurons/cuba_lif.hpp"
#include "engine/neurons/lif.hpp"
#include "engine/runtime/backend.hpp"
#include "engine/sources/sources.hpp"
#include "kernels/cuda_device.hpp"

#include <QtTest/QtTest>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

using namespace spike::engine;  // NOLINT: test file

namespace {

constexpr std::int64_t kDrive = 40;
constexpr std::int64_t kE = 50;
constexpr std::int64_t kChunk = 7;  ///< N below is no multiple of it: row 0 of a partial chunk
constexpr std::int64_t kFirst = 45;   ///< N
constexpr std::int64_t kSecond = 40;  ///< M

Tensor scalar(float v)
{
    return Tensor::scalar(v);
}

/// Why `backend` cannot run here ("" when it can).
std::string unavailable(const std::string& backend)
{
    if (backend != "cuda") {
        return {};
    }
    const auto device = spike::kernels::queryCudaDevice();
    return device.available ? std::string() : "no usable CUDA device: " + device.reason;
}


/// Poisson (40) → E (50) → out, with E → E sparse, delay 2, on a delayed connection.
std::unique_ptr<Network> delayedNetwork(const std::string& neuron)
{
    auto net = std::make_unique<Network>(0, kE);
    net->addNode("drive", std::make_unique<PoissonSource>(
                              kDrive, AttributeMap{{"rate", scalar(100.0F)}, {"seed", scalar(4)}}));
    if (neuron == "LIF") {
        net->addNode("E", std::make_unique<LIF>(kE, kE, false,
                                                AttributeMap{{"threshold", scalar(0.5F)},
                                                             {"tau_mem", scalar(0.01F)},
                                                             {"tau_syn", scalar(0.005F)},
                                                             {"max_spikes_per_dt", scalar(1)}}));
        net->connect("drive", "E", spike::tests::sparseProjection(kDrive, kE, 0.03F, 6, 0, 1));
        net->connect("E", "E", spike::tests::sparseProjection(kE, kE, 0.006F, 8, 2, 2));
    } else {
        net->addNode("E", std::make_unique<CUBALIF>(kE));
        net->connect("drive", "E.exc", spike::tests::sparseProjection(kDrive, kE, 4.0F, 6, 0, 1));
        net->connect("E", "E.exc", spike::tests::sparseProjection(kE, kE, 3.0F, 8, 2, 2));
    }
    net->connect("E", "out");
    return net;
}

/// The probes: E's spikes and membrane.
std::vector<ProbeRequest> probesOf(const std::string& neuron)
{
    return {{"E", "spikes", {}}, {"E", neuron == "LIF" ? "vmem" : "v", {}}};
}

std::unique_ptr<Executor> makeOn(const std::string& backend, Module& root)
{
    ExecutorOptions options;
    options.maxChunkSteps = kChunk;
    auto ex = makeExecutor(root, parseBackendKind(backend), options);
    if (ex->backendName() != backend) {
        throw Error("asked for " + backend + ", got " + ex->backendName());
    }
    return ex;
}

/// The output rows, then each probe's rows, of `steps` steps in chunks of kChunk.
std::vector<std::vector<float>> advance(Executor& ex, const std::vector<ProbeRequest>& probes,
                                        std::int64_t steps)
{
    const std::vector<ProbeInfo> infos = ex.setProbes(probes);
    std::vector<std::vector<float>> rows(infos.size() + 1);
    rows[0].assign(static_cast<std::size_t>(steps * kE), 0.0F);
    for (std::int64_t t0 = 0; t0 < steps; t0 += kChunk) {
        const std::int64_t n = std::min(kChunk, steps - t0);
        ex.advance(n, nullptr, rows[0].data() + t0 * kE);
        for (std::size_t p = 0; p < infos.size(); ++p) {
            const float* d = ex.probeData(p);
            rows[p + 1].insert(rows[p + 1].end(), d, d + n * infos[p].width);
        }
    }
    return rows;
}

/// Steps [first, first + count) of rows of `total` steps (each row set has width values a step).
std::vector<std::vector<float>> slice(const std::vector<std::vector<float>>& rows,
                                      std::int64_t first, std::int64_t count, std::int64_t total)
{
    std::vector<std::vector<float>> out;
    for (const auto& r : rows) {
        const auto width = static_cast<std::int64_t>(r.size()) / total;
        out.emplace_back(r.begin() + first * width, r.begin() + (first + count) * width);
    }
    return out;
}

/// Every value of `got` equals `want` bit for bit; the first difference is named by its step.
void expectExact(const std::vector<std::vector<float>>& got,
                 const std::vector<std::vector<float>>& want, std::int64_t steps,
                 const std::string& when)
{
    const char* names[] = {"output", "E spikes", "E membrane"};
    QCOMPARE(got.size(), want.size());
    for (std::size_t k = 0; k < want.size(); ++k) {
        QCOMPARE(got[k].size(), want[k].size());
        const auto width = static_cast<std::int64_t>(want[k].size()) / steps;
        for (std::size_t i = 0; i < want[k].size(); ++i) {
            QVERIFY2(got[k][i] == want[k][i],
                     (when + ": " + names[k] + " differs at step " +
                      std::to_string(static_cast<std::int64_t>(i) / width + 1) + " of " +
                      std::to_string(steps) + ", channel " +
                      std::to_string(static_cast<std::int64_t>(i) % width) + ": " +
                      std::to_string(got[k][i]) + ", expected " + std::to_string(want[k][i]))
                         .c_str());
        }
    }
}

std::int64_t countSpikes(const std::vector<float>& rows)
{
    return std::count_if(rows.begin(), rows.end(), [](float v) { return v != 0.0F; });
}

void addRows()
{
    QTest::addColumn<QString>("neuron");
    QTest::addColumn<QString>("first");
    QTest::addColumn<QString>("second");
    for (const char* neuron : {"LIF", "CUBALIF"}) {
        for (const char* first : {"cpu", "cuda"}) {
            for (const char* second : {"cpu", "cuda"}) {
                QTest::addRow("%s %s->%s", neuron, first, second)
                    << QString(neuron) << QString(first) << QString(second);
            }
        }
    }
}

}  // namespace

class TestDelayedParity : public QObject {
    Q_OBJECT
private slots:
    void freshExecutorContinuesTheRun_data() { addRows(); }
    void freshExecutorContinuesTheRun()
    {
        QFETCH(QString, neuron);
        QFETCH(QString, first);
        QFETCH(QString, second);
        for (const QString& b : {first, second}) {
            if (const std::string why = unavailable(b.toStdString()); !why.empty()) {
                QSKIP(why.c_str());
            }
        }
        const std::string kind = neuron.toStdString();
        const std::vector<ProbeRequest> probes = probesOf(kind);

        // The reference: one uninterrupted CPU run of N + M steps.
        auto whole = delayedNetwork(kind);
        const auto all = advance(*makeOn("cpu", *whole), probes, kFirst + kSecond);
        const auto want = slice(all, kFirst, kSecond, kFirst + kSecond);
        QVERIFY2(countSpikes(want[1]) > 30, "E must fire after the hand-over for the test to "
                                            "mean anything");

        auto net = delayedNetwork(kind);
        {
            auto ex = makeOn(first.toStdString(), *net);
            const auto head = advance(*ex, probes, kFirst);
            expectExact(head, slice(all, 0, kFirst, kFirst + kSecond), kFirst, "the first N steps");
            if (QTest::currentTestFailed()) {
                return;
            }
            ex->storeStates();
        }
        // What the hand-over carries is not trivially zero: E spiked at step N (the value the
        // delayed connection delivers next) and the ring holds deliveries still in flight.
        const auto* graph = dynamic_cast<const Graph*>(net.get());
        QVERIFY(graph != nullptr);
        const std::vector<float>* carried = graph->delayedValue("E_to_E");
        QVERIFY2(carried != nullptr, "storeStates() must keep the delayed connection's value");
        QCOMPARE(static_cast<std::int64_t>(carried->size()), kE);
        QVERIFY2(countSpikes(*carried) > 0, "E must spike at step N for the test to mean anything");
        const Tensor ring = net->getSubmodule("E_to_E").tensor("pending");
        QVERIFY2(countSpikes(std::vector<float>(ring.data(), ring.data() + ring.numel())) > 0,
                 "the delay ring must hold deliveries at step N");

        auto fresh = makeOn(second.toStdString(), *net);
        expectExact(advance(*fresh, probes, kSecond), want, kSecond,
                    first.toStdString() + " then a fresh " + second.toStdString() + " executor");
    }

    void reloadedExecutorContinuesTheRun_data()
    {
        QTest::addColumn<QString>("neuron");
        QTest::addColumn<QString>("backend");
        for (const char* neuron : {"LIF", "CUBALIF"}) {
            for (const char* backend : {"cpu", "cuda"}) {
                QTest::addRow("%s %s", neuron, backend) << QString(neuron) << QString(backend);
            }
        }
    }
    void reloadedExecutorContinuesTheRun()
    {
        // The live-edit path: storeStates() and loadStates(false) on the same executor.
        QFETCH(QString, neuron);
        QFETCH(QString, backend);
        if (const std::string why = unavailable(backend.toStdString()); !why.empty()) {
            QSKIP(why.c_str());
        }
        const std::string kind = neuron.toStdString();
        const std::vector<ProbeRequest> probes = probesOf(kind);
        auto whole = delayedNetwork(kind);
        const auto all = advance(*makeOn("cpu", *whole), probes, kFirst + kSecond);

        auto net = delayedNetwork(kind);
        auto ex = makeOn(backend.toStdString(), *net);
        advance(*ex, probes, kFirst);
        ex->storeStates();
        ex->loadStates(false);
        expectExact(advance(*ex, probes, kSecond), slice(all, kFirst, kSecond, kFirst + kSecond),
                    kSecond, backend.toStdString() + " reloaded in place");
    }

    void stateResetClearsTheCarriedValue_data()
    {
        QTest::addColumn<QString>("backend");
        QTest::newRow("cpu") << QString("cpu");
        QTest::newRow("cuda") << QString("cuda");
    }
    void stateResetClearsTheCarriedValue()
    {
        // After resetState() a fresh executor starts like the first one did: nothing delayed.
        QFETCH(QString, backend);
        if (const std::string why = unavailable(backend.toStdString()); !why.empty()) {
            QSKIP(why.c_str());
        }
        const std::vector<ProbeRequest> probes = probesOf("LIF");
        auto whole = delayedNetwork("LIF");
        const auto want = advance(*makeOn("cpu", *whole), probes, kFirst);

        auto net = delayedNetwork("LIF");
        {
            auto ex = makeOn(backend.toStdString(), *net);
            advance(*ex, probes, kFirst);
            ex->storeStates();
        }
        QVERIFY(dynamic_cast<const Graph*>(net.get())->delayedValue("E_to_E") != nullptr);
        net->resetState();
        QVERIFY(dynamic_cast<const Graph*>(net.get())->delayedValue("E_to_E") == nullptr);
        auto fresh = makeOn(backend.toStdString(), *net);
        expectExact(advance(*fresh, probes, kFirst), want, kFirst,
                    "a fresh " + backend.toStdString() + " executor after a reset");
    }
};

QTEST_GUILESS_MAIN(TestDelayedParity)
#include "test_delayed_parity.moc"
