// The CPU executor's in-place rows (engine/runtime/cpu_executor.cpp): a time-batched node fed by
// one pass-through of a whole row reads its source's rows (the caller's input rows when the
// source is the network input) instead of a gathered copy, and the output node is not run when
// nothing reads it. Checked against the modules evolved one after another, for 1 and 2 threads,
// in chunks, with the output taken in some chunks only, beside nodes that still gather (two
// inputs summed, a projection, a delayed edge from the input); and a pass-through keeps every
// bit on the CPU and on the CUDA executor alike (which copies those rows; run here as
// test_executor_in_place_cuda_emulated).
#include "engine/layers/linear.hpp"
#include "engine/network/network.hpp"
#include "engine/network/projections.hpp"
#include "engine/neurons/lif.hpp"
#include "engine/runtime/backend.hpp"
#include "kernels/cuda_device.hpp"
#include "tests/layer_test_helpers.hpp"

#include <QtTest/QtTest>

#include <bit>
#include <cmath>
#include <cstring>

using namespace spike::engine;
using spike::tests::uniformTensor;

namespace {

constexpr std::int64_t kSteps = 45;

AttributeMap lifInit(float threshold)
{
    return {{"tau_mem", Tensor::scalar(0.01F)}, {"threshold", Tensor::scalar(threshold)}};
}

/// in (16) → LIF "a" → Linear "lin" (16 → 12) → LIF "b" → out, every edge a whole-row
/// pass-through: "a" reads the caller's input in place, "lin" a's rows, "b" lin's rows.
std::unique_ptr<Network> chain()
{
    auto net = std::make_unique<Network>(16, 12);
    net->addNode("a", std::make_unique<LIF>(16, 16, false, lifInit(0.4F)));
    net->addNode("lin", std::make_unique<Linear>(16, 12, true));
    net->addNode("b", std::make_unique<LIF>(12, 12, false, lifInit(0.3F)));
    spike::tests::randomize(net->getSubmodule("lin"), 21);
    net->connect("in", "a");
    net->connect("a", "lin");
    net->connect("lin", "b");
    net->connect("b", "out");
    return net;
}

/// What chain() computes, module by module: the definition the executor must reproduce.
Tensor chainByModules(const Tensor& x)
{
    LIF a(16, 16, false, lifInit(0.4F));
    Linear lin(16, 12, true);
    LIF b(12, 12, false, lifInit(0.3F));
    spike::tests::randomize(lin, 21);
    return b.evolve(lin.evolve(a.evolve(x).output).output).output;
}

struct Run {
    Tensor output;                 ///< rows of the chunks whose output was taken, else zero
    std::vector<float> bSpikes;    ///< probe of b's spikes, every chunk
};

/// Runs `net` over x in chunks of `chunk` steps with `threads` threads (helpers for any size),
/// lock-step everywhere or not, taking the output only in chunks k with takeOutput(k).
template <typename Take>
Run runChunks(Network& net, const Tensor& x, std::int64_t chunk, int threads, bool lockStep,
              Take takeOutput)
{
    ExecutorOptions options;
    options.plan.lockStepAll = lockStep;
    options.maxChunkSteps = chunk;
    options.threads = threads;
    options.threadMinWork = 1;
    auto ex = makeCpuExecutor(net, options);
    ex->setProbes({{"b", "spikes", {}}});
    Run r{Tensor(Shape{kSteps, net.sizeOut()}), {}};
    const std::int64_t width = x.shape()[1];
    for (std::int64_t t0 = 0, k = 0; t0 < kSteps; t0 += chunk, ++k) {
        const std::int64_t n = std::min(chunk, kSteps - t0);
        ex->advance(n, x.data() + t0 * width, takeOutput(k) ? r.output.data() + t0 * net.sizeOut() : nullptr);
        const float* spikes = ex->probeData(0);
        r.bSpikes.insert(r.bSpikes.end(), spikes, spikes + n * 12);
    }
    return r;
}

bool sameRows(const Tensor& a, const Tensor& b, std::int64_t t0, std::int64_t n)
{
    const std::int64_t w = a.shape()[1];
    return std::memcmp(a.data() + t0 * w, b.data() + t0 * w, static_cast<std::size_t>(n * w) * sizeof(float)) == 0;
}

}  // namespace

class TestExecutorInPlace : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void chainReadInPlaceEqualsTheModulesOneAfterAnother()
    {
        const Tensor x = uniformTensor(Shape{kSteps, 16}, 5, -0.2, 0.9);
        const Tensor untouched = x;
        const Tensor expected = chainByModules(x);
        const auto spiking = (expected.flat() != 0.0F).count();
        QVERIFY2(spiking > 20 && spiking < expected.numel() / 2, "the chain must spike, not saturate");
        // Lock-step, every node gathers one row at a time, the first from the caller's rows.
        for (const auto& [threads, lockStep] : {std::pair{1, false}, {2, false}, {1, true}, {2, true}}) {
            for (const std::int64_t chunk : {kSteps, std::int64_t{8}, std::int64_t{1}}) {
                const QByteArray label = QByteArray::number(threads) + " threads, chunk " +
                                         QByteArray::number(chunk) + (lockStep ? ", lock-step" : "");
                auto net = chain();
                const Run all = runChunks(*net, x, chunk, threads, lockStep, [](std::int64_t) { return true; });
                QVERIFY2(all.output.identical(expected), label.constData());
                QVERIFY2(x.identical(untouched), (label + ": the caller's input rows are read, never written").constData());
                // Output taken in odd chunks only: those rows still equal the modules' (the output
                // node skipped in the others leaves nothing behind), and the probe sees every step.
                auto again = chain();
                const Run some =
                    runChunks(*again, x, chunk, threads, lockStep, [](std::int64_t k) { return k % 2 == 1; });
                QCOMPARE(some.bSpikes, all.bSpikes);
                for (std::int64_t t0 = 0, k = 0; t0 < kSteps; t0 += chunk, ++k) {
                    const std::int64_t n = std::min(chunk, kSteps - t0);
                    if (k % 2 == 1) {
                        QVERIFY2(sameRows(some.output, expected, t0, n), (label + ", chunk at " + QByteArray::number(t0)).constData());
                    }
                }
            }
        }
    }

    void gatheredNodesBesideInPlaceOnesKeepTheirSums()
    {
        // in → "a" and in → "c" through a projection; "a" and "c" both into "sum" (two inputs:
        // gathered and summed in connection order), "sum" → out in place.
        const Tensor x = uniformTensor(Shape{kSteps, 6}, 9, 0.0, 0.8);
        AttributeMap w{{"weight", Tensor::scalar(0.75F)}};
        Network net(6, 6);
        net.addNode("a", std::make_unique<LIF>(6, 6, false, lifInit(0.3F)));
        net.addNode("c", std::make_unique<LIF>(6, 6, false, lifInit(0.5F)));
        net.addNode("sum", std::make_unique<LIF>(6, 6, false, lifInit(0.6F)));
        net.connect("in", "a");
        net.connect("in", "c", std::make_unique<OneToOneProjection>(6, w));
        net.connect("a", "sum");
        net.connect("c", "sum");
        net.connect("sum", "out");
        LIF a(6, 6, false, lifInit(0.3F));
        LIF c(6, 6, false, lifInit(0.5F));
        LIF sum(6, 6, false, lifInit(0.6F));
        const Tensor ya = a.evolve(x).output;
        Tensor scaled = x;
        for (float& v : scaled.flat()) {
            v = 0.0F + v * 0.75F;
        }
        const Tensor yc = c.evolve(scaled).output;
        Tensor both(Shape{kSteps, 6});
        for (std::int64_t i = 0; i < both.numel(); ++i) {
            both.flat()[i] = 0.0F + ya.flat()[i] + yc.flat()[i];
        }
        const Tensor expected = sum.evolve(both).output;
        QVERIFY(expected.flat().sum() > 5.0F);
        for (const int threads : {1, 2}) {
            ExecutorOptions options;
            options.maxChunkSteps = 10;
            options.threads = threads;
            options.threadMinWork = 1;
            auto ex = makeCpuExecutor(net, options);
            Tensor out(Shape{kSteps, 6});
            for (std::int64_t t0 = 0; t0 < kSteps; t0 += 10) {
                ex->advance(std::min<std::int64_t>(10, kSteps - t0), x.data() + t0 * 6, out.data() + t0 * 6);
            }
            QVERIFY2(out.identical(expected), (QByteArray::number(threads) + " threads").constData());
        }
    }

    void delayedEdgeFromTheInputReadsTheLastChunksRow()
    {
        // A delayed edge reads the input node's row 0 (the last chunk's last row), so the input
        // is copied there: "a" sees x one step late across every chunk boundary.
        const Tensor x = uniformTensor(Shape{kSteps, 5}, 13, 0.0, 0.9);
        Network net(5, 5);
        net.addNode("a", std::make_unique<LIF>(5, 5, false, lifInit(0.3F)));
        net.connect("in", "a", nullptr, {}, true);
        net.connect("a", "out");
        Tensor late(Shape{kSteps, 5});
        for (std::int64_t t = 1; t < kSteps; ++t) {
            for (std::int64_t j = 0; j < 5; ++j) {
                late.flat()[t * 5 + j] = x.flat()[(t - 1) * 5 + j];
            }
        }
        LIF a(5, 5, false, lifInit(0.3F));
        const Tensor expected = a.evolve(late).output;
        QVERIFY(expected.flat().sum() > 5.0F);
        ExecutorOptions options;
        options.maxChunkSteps = 4;
        auto ex = makeCpuExecutor(net, options);
        Tensor out(Shape{kSteps, 5});
        for (std::int64_t t0 = 0; t0 < kSteps; t0 += 4) {
            ex->advance(std::min<std::int64_t>(4, kSteps - t0), x.data() + t0 * 5, out.data() + t0 * 5);
        }
        QVERIFY(out.identical(expected));
    }

    void aPassThroughKeepsEveryBit_data()
    {
        QTest::addColumn<QString>("backend");
        QTest::newRow("cpu") << QString("cpu");
        QTest::newRow("cuda") << QString("cuda");
    }

    void aPassThroughKeepsEveryBit()
    {
        // in → a nested network's boundary → out: the values come out as they went in, -0,
        // subnormals and a NaN's payload included (gathering used to add them to +0), on
        // either backend (CPU/CUDA parity).
        QFETCH(QString, backend);
        if (backend == "cuda") {
            if (const auto device = spike::kernels::queryCudaDevice(); !device.available) {
                QSKIP(("no usable CUDA device: " + device.reason).c_str());
            }
        }
        auto inner = std::make_unique<Network>(4, 4);
        inner->connect("in", "out");
        Network net(4, 4);
        net.addNode("sub", std::move(inner));
        net.connect("in", "sub");
        net.connect("sub", "out");
        const std::vector<float> x{-0.0F, 1e-40F, -3.5F, std::bit_cast<float>(0x7fc00123U),
                                   0.0F, -1e-40F, 2.0F, -0.0F};
        auto ex = makeExecutor(net, parseBackendKind(backend.toStdString()), ExecutorOptions{});
        QCOMPARE(QString::fromStdString(ex->backendName()), backend);
        std::vector<float> out(8, 1.0F);
        ex->advance(2, x.data(), out.data());
        QVERIFY(std::memcmp(out.data(), x.data(), x.size() * sizeof(float)) == 0);
        QVERIFY(std::signbit(out[0]));
    }
};

QTEST_APPLESS_MAIN(TestExecutorInPlace)
#include "test_executor_in_place.moc"
