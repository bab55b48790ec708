// SimulationController under concurrency: step(N) / run / pause sent from other threads landing
// exactly on N and on chunk boundaries; real-time pacing (ordering, progress and data only, no
// timing assertions) and commands waking a sleeping worker; the destructor while running and
// while pacing; and a hammer test with several threads sending commands while it runs, checking
// that every row is received or counted as dropped and every bad command gives one Error event.
#include "tests/controller_test_helpers.hpp"

#include "engine/tensor/random.hpp"

#include <QtTest/QtTest>

#include <atomic>
#include <thread>

using namespace spike::engine;  // NOLINT: test file
using namespace spike::tests;   // NOLINT: test file

class TestControllerThreads : public QObject {
    Q_OBJECT

private slots:
    void stepAndPauseFromOtherThreads()
    {
        SimulationController c(makeNet(), chunked(50));
        const ProbeId v = c.addProbe(kVmem, 100000);
        CommandId stepCommand;
        std::thread([&] { stepCommand = c.step(137); }).join();
        QVERIFY(c.waitIdle(kWait));
        QCOMPARE(c.currentStep(), std::int64_t{137});
        auto events = c.takeEvents();
        const ControllerEvent* done = findEvent(events, Kind::StepsDone);
        QVERIFY(done != nullptr);
        QCOMPARE(done->step, std::int64_t{137});
        QVERIFY(findEvent(events, Kind::Running, stepCommand) != nullptr);
        Trace t = take(c, v);
        QCOMPARE(t.first, std::int64_t{0});
        QCOMPARE(t.end, std::int64_t{137});

        std::thread([&] { c.run(); }).join();
        QVERIFY(waitFor([&] { return c.currentStep() > 600; }));
        std::thread([&] { c.pause(); }).join();
        QVERIFY(c.waitIdle(kWait));
        const std::int64_t paused = c.currentStep();
        QCOMPARE((paused - 137) % 50, std::int64_t{0});  // commands land between chunks
        QCOMPARE(c.runState(), RunState::Paused);
        std::thread([&] { c.step(5); }).join();
        QVERIFY(c.waitIdle(kWait));
        QCOMPARE(c.currentStep(), paused + 5);
        const std::optional<ProbeSnapshot> rest = c.takeProbe(v);
        QVERIFY(rest.has_value());
        t.add(*rest);
        QVERIFY(t.contiguous);
        QCOMPARE(t.end, paused + 5);

        const CommandId zero = c.step(0);
        QVERIFY(c.waitIdle(kWait));
        QVERIFY(findEvent(c.takeEvents(), Kind::Error, zero) != nullptr);
        QCOMPARE(c.currentStep(), paused + 5);
    }

    void realTimePacing()
    {
        ControllerOptions options = chunked(256);
        options.speed = Speed::realTime(1.0);
        SimulationController c(makeNet(), options);
        const ProbeId v = c.addProbe(kVmem, 100000);
        c.run();
        std::int64_t last = 0;
        bool monotonic = true;
        QVERIFY(waitFor([&] {
            const std::int64_t now = c.currentStep();
            monotonic = monotonic && now >= last;
            last = now;
            return now >= 60;
        }));
        QVERIFY(monotonic);
        c.pause();
        QVERIFY(c.waitIdle(kWait));
        const Trace paced = take(c, v);
        QVERIFY(paced.contiguous);
        QCOMPARE(paced.end, c.currentStep());

        SimulationController fast(makeNet(), chunked(256));
        const ProbeId fv = fast.addProbe(kVmem, 100000);
        fast.step(paced.end);
        QVERIFY(fast.waitIdle(kWait));
        QVERIFY(bitEqual(take(fast, fv).values, paced.values));

        // One step per 10 s: a command must still wake the sleeping worker.
        c.setSpeed(Speed::realTime(1.0e-4));
        c.run();
        c.pause();
        QVERIFY(c.waitIdle(kWait));
        const CommandId negative = c.setSpeed(Speed::realTime(-2.0));
        const CommandId nan = c.setSpeed(Speed{std::nan("")});
        QVERIFY(c.waitIdle(kWait));
        const auto events = c.takeEvents();
        QVERIFY(findEvent(events, Kind::Error, negative) != nullptr);
        QVERIFY(findEvent(events, Kind::Error, nan) != nullptr);
    }

    void destructorWhileRunning()
    {
        std::atomic<bool> stop{false};
        auto c = std::make_unique<SimulationController>(makeNet(), chunked(4));
        const ProbeId v = c->addProbe(kVmem, 64);
        QVERIFY(c->waitIdle(kWait));
        std::atomic<std::int64_t> taken{0};
        std::thread consumer([&] {
            while (!stop.load()) {
                taken += c->takeProbe(v)->steps;
            }
        });
        c->run();
        // On a loaded machine the consumer may start late: wait for both sides to make progress.
        const bool progressed =
            waitFor([&] { return c->currentStep() > 200 && taken.load() > 0; });
        stop.store(true);
        consumer.join();
        QVERIFY(progressed);
        c.reset();  // joins the worker mid-run

        ControllerOptions slow = chunked(4);
        slow.speed = Speed::realTime(1.0e-6);  // sleeping for hours before each chunk
        auto sleeping = std::make_unique<SimulationController>(makeNet(), slow);
        sleeping->run();
        QVERIFY(waitFor([&] { return sleeping->runState() == RunState::Running; }));
        sleeping.reset();
    }

    void hammerFromSeveralThreads()
    {
        ControllerOptions options = chunked(16);
        options.maxPendingEvents = 0;  // keep every event: the errors are counted below
        SimulationController c(makeNet(), options);
        const ProbeId v = c.addProbe(kVmem, 64);
        const ProbeId s = c.addProbe(kSpikes, 32);
        QVERIFY(c.waitIdle(kWait));
        c.run();
        std::atomic<int> badSent{0};
        std::atomic<bool> stop{false};
        const auto commander = [&](std::uint64_t seed) {
            Random rng(seed);
            for (int i = 0; i < 300; ++i) {
                switch (static_cast<int>(rng.uniform(0.0, 7.0))) {
                case 0: c.run(); break;
                case 1: c.pause(); break;
                case 2: c.step(1 + static_cast<std::int64_t>(rng.uniform(0.0, 40.0))); break;
                case 3:
                    c.setSpeed(rng.uniform(0.0, 1.0) < 0.5 ? Speed::fastest()
                                                           : Speed::realTime(20.0));
                    break;
                case 4:
                    c.setAttribute("src", "amplitude",
                                   Tensor::scalar(static_cast<float>(rng.uniform(0.0, 0.05))));
                    break;
                case 5:
                    c.setAttribute("lif", "tau_mem", Tensor::scalar(-1.0F));
                    badSent.fetch_add(1);
                    break;
                default: {
                    const ProbeId extra = c.addProbe(kSource, 8);
                    c.takeProbe(extra);
                    c.removeProbe(extra);
                    (void)c.readModel(
                        [](const Module& m) { (void)m.getSubmodule("lif").tensor("vmem"); });
                }
                }
            }
        };
        std::vector<ProbeSnapshot> vSnaps;
        std::vector<ProbeSnapshot> sSnaps;
        std::vector<ControllerEvent> events;
        const auto consume = [&] {
            vSnaps.push_back(*c.takeProbe(v));
            sSnaps.push_back(*c.takeProbe(s));
            for (ControllerEvent& e : c.takeEvents()) {
                events.push_back(std::move(e));
            }
        };
        std::thread consumer([&] {
            while (!stop.load()) {
                consume();
            }
        });
        std::vector<std::thread> commanders;
        for (std::uint64_t seed = 1; seed <= 3; ++seed) {
            commanders.emplace_back(commander, seed);
        }
        for (std::thread& t : commanders) {
            t.join();
        }
        c.setSpeed(Speed::fastest());
        c.pause();
        QVERIFY(c.waitIdle(kWait));
        stop.store(true);
        consumer.join();
        consume();

        Trace tv;
        Trace ts;
        for (std::size_t k = 0; k < vSnaps.size(); ++k) {
            tv.add(vSnaps[k]);
            ts.add(sSnaps[k]);
        }
        const std::int64_t steps = c.currentStep();
        QVERIFY(steps > 0);
        QVERIFY(tv.contiguous);
        QVERIFY(ts.contiguous);
        QCOMPARE(tv.end, steps);
        QCOMPARE(ts.end, steps);
        QCOMPARE(static_cast<std::int64_t>(tv.values.size()) / kN + tv.dropped, steps);
        int tauErrors = 0;
        for (const ControllerEvent& e : events) {
            QVERIFY(e.kind != Kind::NonFinitePause);
            if (e.kind == Kind::Error) {
                QVERIFY2(e.command.valid(), e.message.c_str());
                tauErrors += e.commandText.find("tau_mem") != std::string::npos ? 1 : 0;
            }
        }
        QCOMPARE(tauErrors, badSent.load());
        QCOMPARE(lifTensor(c, "tau_mem"), std::vector<float>{0.02F});
    }
};

QTEST_GUILESS_MAIN(TestControllerThreads)
#include "test_controller_threads.moc"
