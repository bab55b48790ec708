// The one chunk loop (engine/runtime/run_loop.hpp): chunk sizes (executor limit, steps left,
// real-time pacing), runTo() covering a run in contiguous chunks with probe data bit-identical to
// one single advance, input rows following the chunks, pacing never running ahead of the wall
// clock, and the non-finite stop naming module, state and element.
#include "tests/controller_test_helpers.hpp"

#include "engine/runtime/run_loop.hpp"

#include <QtTest/QtTest>

#include <cmath>

using namespace spike::engine;  // NOLINT: test file
using namespace spike::tests;   // NOLINT: test file

namespace {

/// A CPU executor for `net` with chunks of at most `maxChunk` steps.
std::unique_ptr<Executor> cpuExecutor(Module& net, std::int64_t maxChunk)
{
    ExecutorOptions options;
    options.maxChunkSteps = maxChunk;
    return makeCpuExecutor(net, options);
}

/// The probe rows of `request` over `steps` steps of a fresh makeNet(), advanced by `run`.
template <typename Run>
std::vector<float> probeRows(std::int64_t maxChunk, const ProbeRequest& request, Run&& run)
{
    auto net = makeNet();
    auto executor = cpuExecutor(*net, maxChunk);
    const std::int64_t width = executor->setProbes({request}).front().width;
    std::vector<float> rows;
    run(*executor, [&](std::int64_t steps) {
        const float* data = executor->probeData(0);
        rows.insert(rows.end(), data, data + steps * width);
    });
    return rows;
}

}  // namespace

class TestRunLoop : public QObject {
    Q_OBJECT

private slots:
    void chunkSizes()
    {
        auto net = makeNet();
        auto executor = cpuExecutor(*net, 32);
        RunLoop fastest;
        QCOMPARE(fastest.chunkSteps(*executor, std::nullopt), std::int64_t{32});
        QCOMPARE(fastest.chunkSteps(*executor, 10), std::int64_t{10});
        QCOMPARE(fastest.chunkSteps(*executor, 0), std::int64_t{1});  // never an empty chunk
        QVERIFY(!fastest.deadline(*executor, 0, 32));                 // unpaced: never waits

        // Paced at f = 0.1 with dt = 1 ms: 15 ms of wall time hold 1.5 simulated ms, 2 steps.
        const double dt = executor->plan().dt;
        QCOMPARE(static_cast<float>(dt), 1e-3F);
        RunLoopOptions paced;
        paced.speed = Speed::realTime(0.1);
        RunLoop slow(paced);
        QCOMPARE(slow.chunkSteps(*executor, std::nullopt), std::int64_t{2});
        slow.anchor(0);
        const auto at = slow.deadline(*executor, 0, 2);
        QVERIFY(at.has_value());  // 2 steps at f = 0.1 may end 20 ms after the anchor
        QVERIFY(*at > RunLoop::Clock::now());

        RunLoopOptions bad;
        bad.speed = Speed::realTime(-1.0);
        QVERIFY_THROWS_EXCEPTION(Error, RunLoop{bad});
    }

    void runToCoversTheRunInContiguousChunks()
    {
        constexpr std::int64_t kSteps = 200;
        const auto whole = probeRows(kSteps, kVmem, [](Executor& executor, auto&& take) {
            executor.advance(kSteps, nullptr, nullptr);
            take(kSteps);
        });
        std::vector<std::pair<std::int64_t, std::int64_t>> chunks;
        const auto chunked = probeRows(32, kVmem, [&](Executor& executor, auto&& take) {
            RunLoop loop;
            const RunOutcome outcome = loop.runTo(executor, 500, kSteps, {},
                                                  [&](std::int64_t first, std::int64_t n) {
                                                      chunks.emplace_back(first, n);
                                                      take(n);
                                                  });
            QCOMPARE(outcome.steps, kSteps);
            QVERIFY(!outcome.nonFinite);
        });
        QCOMPARE(chunked.size(), whole.size());
        QVERIFY(std::memcmp(chunked.data(), whole.data(), whole.size() * sizeof(float)) == 0);
        std::int64_t next = 500;  // numbered from `first`
        for (const auto& [first, n] : chunks) {
            QCOMPARE(first, next);
            QVERIFY(n >= 1 && n <= 32);
            next += n;
        }
        QCOMPARE(next, 500 + kSteps);
    }

    void inputRowsFollowTheChunks()
    {
        // A LIF alone, driven through the plan's input: row t of the input reaches step t.
        auto lif = std::make_unique<LIF>(kN, kN, false, lifInit(0.0F));
        Network net(kN, kN);
        net.addNode("lif", std::move(lif));
        net.connect("in", "lif");
        net.connect("lif", "out");

        constexpr std::int64_t kSteps = 100;
        Tensor input(Shape{kSteps, kN});
        for (std::int64_t i = 0; i < input.numel(); ++i) {
            input.data()[i] = 0.05F * static_cast<float>((i * 7) % 13);
        }
        const Tensor expected = net.evolve(input).output;
        net.resetState();

        auto executor = cpuExecutor(net, 7);
        Tensor output(Shape{kSteps, kN});
        RunLoop loop;
        loop.runTo(*executor, 0, kSteps, RunRows{input.data(), kN, output.data(), kN});
        QVERIFY(output.identical(expected));
        QVERIFY(output.flat().sum() > 0.0F);  // the drive makes it spike: the test can fail
    }

    void pacingNeverRunsAheadOfTheWallClock()
    {
        auto net = makeNet();
        auto executor = cpuExecutor(*net, 1024);
        RunLoopOptions paced;
        paced.speed = Speed::realTime(1.0);  // 1 simulated ms per wall ms
        RunLoop loop(paced);
        const auto start = RunLoop::Clock::now();
        std::vector<std::pair<std::int64_t, RunLoop::Clock::time_point>> ends;
        loop.runTo(*executor, 0, 60, {}, [&](std::int64_t first, std::int64_t n) {
            ends.emplace_back(first + n, RunLoop::Clock::now());
        });
        QVERIFY(ends.size() >= 4);  // 60 ms in chunks of about 15 ms
        for (const auto& [end, when] : ends) {
            // A chunk ends no earlier than its simulated end time after the start (the chunk
            // itself may take any time; only the start of each chunk waits).
            const auto simulated = std::chrono::duration<double>(static_cast<double>(end) * 1e-3);
            QVERIFY2(when - start >= std::chrono::duration_cast<RunLoop::Clock::duration>(simulated) -
                                         std::chrono::milliseconds(16),
                     qPrintable(QStringLiteral("step %1 reached too early").arg(end)));
        }
    }

    void nonFiniteStopsTheRunNamingTheState()
    {
        auto net = makeNet(0.0F);
        // A finite but huge drive overflows the membrane to infinity within a few steps.
        QVERIFY(net->getSubmodule("src").setAttribute("amplitude", Tensor(Shape{kN}, 3.0e38F)).ok);
        auto executor = cpuExecutor(*net, 8);
        RunLoopOptions checked;
        checked.checkFinite = true;
        RunLoop loop(checked);
        const RunOutcome outcome = loop.runTo(*executor, 0, 1000, {});
        QVERIFY(outcome.nonFinite.has_value());
        QCOMPARE(outcome.nonFinite->path, std::string("lif"));
        QVERIFY(!std::isfinite(outcome.nonFinite->value));
        QVERIFY(outcome.steps < 1000);
        QCOMPARE(outcome.steps % 8, std::int64_t{0});  // stopped at the end of the chunk

        RunLoop unchecked;  // without the check the loop runs on (Network::evolve's choice)
        QCOMPARE(unchecked.runTo(*executor, outcome.steps, 100, {}).steps, std::int64_t{100});
    }
};

QTEST_GUILESS_MAIN(TestRunLoop)
#include "test_run_loop.moc"
