// SimulationController, one command at a time: probe data bit-identical whatever the chunk size;
// spikes and vmem against a direct LIF::evolve(); live attribute edits taking effect at a chunk
// boundary with the state carried over; bad values and unknown names refused with an Error event
// and the model unchanged; non-live attributes refused while running and applied by a rebuild
// while paused; the NaN / Inf pause naming module and state; resetState replaying the same data;
// withModel / readModel; a module that throws while the worker advances (out of memory) reported
// as an Error event with the controller still serving; backend switches and thread-count changes
// mid-run leaving the data bit-identical; probe errors and the probe overflow policy.
// Threads: test_controller_threads.cpp.
#include "tests/controller_test_helpers.hpp"

#include "engine/layers/linear.hpp"

#include <QtTest/QtTest>

#include <cmath>

using namespace spike::engine;  // NOLINT: test file
using namespace spike::tests;   // NOLINT: test file

class TestController : public QObject {
    Q_OBJECT

private slots:
    void constructionErrors()
    {
        QVERIFY_THROWS_EXCEPTION(Error, SimulationController(nullptr));
        QVERIFY_THROWS_EXCEPTION(Error, SimulationController(makeNet(), chunked(0)));
        ControllerOptions badSpeed;
        badSpeed.speed = Speed::realTime(-1.0);
        QVERIFY_THROWS_EXCEPTION(Error, SimulationController(makeNet(), badSpeed));
    }

    void deterministicWhateverTheChunking()
    {
        std::vector<Trace> vmem;
        std::vector<Trace> spikes;
        for (const std::int64_t chunk : {1, 7, 256}) {
            SimulationController c(makeNet(), chunked(chunk));
            const ProbeId v = c.addProbe(kVmem, 2000);
            const ProbeId s = c.addProbe(kSpikes, 100000);
            c.step(1000);
            QVERIFY(c.waitIdle(kWait));
            QCOMPARE(c.currentStep(), std::int64_t{1000});
            vmem.push_back(take(c, v));
            spikes.push_back(take(c, s));
            QCOMPARE(vmem.back().values.size(), std::size_t{1000 * kN});
            QCOMPARE(countEvents(c.takeEvents(), Kind::Error), 0);
        }
        QVERIFY(!spikes[0].events.empty());
        for (std::size_t k = 1; k < vmem.size(); ++k) {
            QVERIFY(bitEqual(vmem[k].values, vmem[0].values));
            QCOMPARE(spikes[k].events, spikes[0].events);
        }
    }

    void spikesMatchDirectEvolve()
    {
        SimulationController c(makeNet(), chunked(64));
        const ProbeId v = c.addProbe(kVmem, 1000);
        const ProbeId s = c.addProbe(kSpikes, 10000);
        c.step(300);
        QVERIFY(c.waitIdle(kWait));
        const Trace vt = take(c, v);
        const Trace st = take(c, s);

        LIF ref(kN, kN, false, lifInit(0.5F));
        const EvolveResult r = ref.evolve(inputRows(300, kAmps, kAmps, 300), RecordSpec{"vmem"});
        const std::vector<SpikeEvent> expected = eventsOf(r.output);
        QCOMPARE(st.events, expected);
        QVERIFY(std::any_of(expected.begin(), expected.end(),
                            [](const SpikeEvent& e) { return e.count > 1; }));
        const Tensor& refVmem = r.record.at("").at("vmem").data;
        QVERIFY(bitEqual(vt.values,
                         std::vector<float>(refVmem.data(), refVmem.data() + refVmem.numel())));
    }

    void liveEditAtChunkBoundary()
    {
        SimulationController c(makeNet(0.0F), chunked(16));
        const ProbeId src = c.addProbe(kSource, 10000000);
        const ProbeId s = c.addProbe(kSpikes, 10000000);
        const std::vector<float> newAmps{0.05F, 0.0F, 0.02F, 0.003F};
        c.run();
        QVERIFY(waitFor([&] { return c.currentStep() > 100; }));
        c.setAttribute("src", "amplitude", Tensor(Shape{kN}, newAmps));
        const std::int64_t sent = c.currentStep();  // applied within one chunk after this
        QVERIFY(waitFor([&] { return c.currentStep() > sent + 200; }));
        c.pause();
        QVERIFY(c.waitIdle(kWait));
        const Trace in = take(c, src);
        const Trace out = take(c, s);
        QCOMPARE(countEvents(c.takeEvents(), Kind::Error), 0);
        // The source output switches cleanly, at a chunk boundary.
        std::int64_t switchAt = -1;
        for (std::int64_t t = 0; t < in.end; ++t) {
            const bool isNew =
                std::equal(newAmps.begin(), newAmps.end(), in.values.begin() + t * kN);
            const bool isOld = std::equal(kAmps.begin(), kAmps.end(), in.values.begin() + t * kN);
            QVERIFY(isNew != isOld);
            if (isNew && switchAt < 0) {
                switchAt = t;
            }
            QCOMPARE(isNew, switchAt >= 0);
        }
        QVERIFY(switchAt > 100);
        QCOMPARE(switchAt % 16, std::int64_t{0});
        // The LIF carried its state across the edit: same spikes as one evolve over both inputs.
        LIF ref(kN, kN, false, lifInit(0.0F));
        const EvolveResult r = ref.evolve(inputRows(in.end, kAmps, newAmps, switchAt));
        QCOMPARE(out.events, eventsOf(r.output));
    }

    void badValuesAreRefusedAndChangeNothing()
    {
        SimulationController c(makeNet(), chunked(16));
        c.run();
        const CommandId negative = c.setAttribute("lif", "tau_mem", Tensor::scalar(-1.0F));
        const CommandId nan = c.setAttribute("lif", "bias", Tensor::scalar(std::nanf("")));
        const CommandId unknown = c.setAttribute("lif", "no_such", Tensor::scalar(1.0F));
        const CommandId nowhere = c.setAttribute("nowhere", "bias", Tensor::scalar(1.0F));
        NestedAttributes mixed;
        mixed["lif"]["bias"] = Tensor::scalar(0.5F);
        mixed["lif"]["threshold"] = Tensor::scalar(-2.0F);
        const CommandId half = c.setAttributes(mixed);
        c.pause();
        QVERIFY(c.waitIdle(kWait));
        const auto events = c.takeEvents();
        for (const CommandId id : {negative, nan, unknown, nowhere, half}) {
            const ControllerEvent* e = findEvent(events, Kind::Error, id);
            QVERIFY(e != nullptr);
            QVERIFY(!e->message.empty());
            QVERIFY(!e->commandText.empty());
        }
        QVERIFY(findEvent(events, Kind::Error, negative)->commandText.find("tau_mem") !=
                std::string::npos);
        QVERIFY(findEvent(events, Kind::Error, negative)->message.find("tau_mem") !=
                std::string::npos);
        QVERIFY(findEvent(events, Kind::Error, nowhere)->message.find("nowhere") !=
                std::string::npos);
        QCOMPARE(lifTensor(c, "tau_mem"), std::vector<float>{0.02F});
        QCOMPARE(lifTensor(c, "bias"), std::vector<float>{0.0F});  // all or nothing
        QCOMPARE(lifTensor(c, "threshold"), std::vector<float>{1.0F});
        QCOMPARE(countEvents(events, Kind::NonFinitePause), 0);
    }

    void nonLiveAttributeNeedsPause()
    {
        SimulationController c(makeNet(), chunked(16));
        const ProbeId v = c.addProbe(kVmem, 100000);
        c.run();
        QVERIFY(waitFor([&] { return c.currentStep() > 0; }));
        const CommandId refused = c.setAttribute("lif", "seed", Tensor::scalar(5.0F));
        c.pause();
        QVERIFY(c.waitIdle(kWait));
        auto events = c.takeEvents();
        const ControllerEvent* e = findEvent(events, Kind::Error, refused);
        QVERIFY(e != nullptr);
        QVERIFY(e->message.find("pause to change 'seed'") != std::string::npos);
        QCOMPARE(lifTensor(c, "seed"), std::vector<float>{11.0F});

        const std::int64_t before = c.currentStep();
        const CommandId applied = c.setAttribute("lif", "seed", Tensor::scalar(5.0F));
        c.step(20);
        QVERIFY(c.waitIdle(kWait));
        events = c.takeEvents();
        QVERIFY(findEvent(events, Kind::Error) == nullptr);
        QVERIFY(findEvent(events, Kind::ExecutorRebuilt, applied) != nullptr);
        QCOMPARE(lifTensor(c, "seed"), std::vector<float>{5.0F});
        QCOMPARE(c.probes().size(), std::size_t{1});
        QCOMPARE(c.probes()[0].id, v);
        const Trace t = take(c, v);
        QVERIFY(t.contiguous);
        QCOMPARE(t.end, before + 20);
    }

    void nonFiniteStatePauses()
    {
        SimulationController c(makeNet(0.0F), chunked(8));
        c.run();
        QVERIFY(waitFor([&] { return c.currentStep() > 20; }));
        c.setAttribute("lif", "bias", Tensor::scalar(3.0e38F));  // vmem overflows to +inf
        QVERIFY(c.waitIdle(kWait));                              // paused by itself
        const auto events = c.takeEvents();
        const ControllerEvent* e = findEvent(events, Kind::NonFinitePause);
        QVERIFY(e != nullptr);
        QVERIFY(e->nonFinite.has_value());
        QCOMPARE(e->nonFinite->path, std::string("lif"));
        QCOMPARE(e->nonFinite->attribute, std::string("vmem"));
        QVERIFY(!std::isfinite(e->nonFinite->value));
        QVERIFY(e->message.find("'lif'") != std::string::npos);
        QVERIFY(e->message.find("vmem") != std::string::npos);
        QCOMPARE(e->step, c.currentStep());
        QCOMPARE(c.runState(), RunState::Paused);
    }

    void throwOnTheWorkerIsReportedAndTheControllerServesOn()
    {
        // ConstantCurrent -> Linear -> LIF. The Linear runs through the generic runner
        // (forwardBatched, once per chunk); its forward hook throws std::bad_alloc in the third
        // chunk, as an allocation that fails for a huge model would.
        auto net = std::make_unique<Network>();
        net->addNode("src", std::make_unique<ConstantCurrent>(
                                kN, AttributeMap{{"amplitude", Tensor(Shape{kN}, kAmps)}}));
        net->addNode("dense", std::make_unique<Linear>(kN, kN));
        net->addNode("lif", std::make_unique<LIF>(kN, kN, false, lifInit(0.0F)));
        net->connect("src", "dense");
        net->connect("dense", "lif");
        int chunks = 0;
        net->getSubmodule("dense").registerForwardHook(
            [&chunks](Module&, const Tensor&, const Tensor&) -> std::optional<Tensor> {
                if (++chunks == 3) {
                    throw std::bad_alloc();
                }
                return std::nullopt;
            });
        SimulationController c(std::move(net), chunked(8));
        const ProbeId v = c.addProbe(kVmem, 100000);
        c.run();
        QVERIFY(c.waitIdle(kWait));  // paused by itself, not hung, not crashed
        QCOMPARE(c.runState(), RunState::Paused);
        QCOMPARE(c.currentStep(), std::int64_t{16});  // the failed chunk is not counted
        const auto events = c.takeEvents();
        const ControllerEvent* e = findEvent(events, Kind::Error);
        QVERIFY(e != nullptr);
        QCOMPARE(e->message, std::string("advancing from step 16 failed: std::bad_alloc"));
        QVERIFY(e->commandText.empty());  // the run's own failure, not a command's
        QCOMPARE(e->step, std::int64_t{16});
        const Trace before = take(c, v);
        QCOMPARE(before.end, std::int64_t{16});  // nothing of the failed chunk reached the probe

        // The worker still serves: the model can be read, and once the fault is gone (the hook
        // passes from now on) the run continues from step 16.
        QVERIFY(c.readModel([](const Module& m) { QCOMPARE(m.getSubmodule("lif").sizeOut(), kN); }).ok);
        c.step(24);
        QVERIFY(c.waitIdle(kWait));
        QCOMPARE(c.currentStep(), std::int64_t{40});
        QCOMPARE(countEvents(c.takeEvents(), Kind::Error), 0);
        const Trace after = take(c, v);
        QCOMPARE(after.first, std::int64_t{16});
        QCOMPARE(after.end, std::int64_t{40});
    }

    void resetReplaysTheSameData()
    {
        SimulationController c(makeNet(), chunked(32));
        const ProbeId v = c.addProbe(kVmem, 100000);
        const ProbeId s = c.addProbe(kSpikes, 100000);
        c.step(100);
        QVERIFY(c.waitIdle(kWait));
        const Trace v1 = take(c, v);
        const Trace s1 = take(c, s);
        c.step(50);  // left in the buffers: the reset discards it
        QVERIFY(c.waitIdle(kWait));
        const CommandId reset = c.resetState();
        QVERIFY(c.waitIdle(kWait));
        QCOMPARE(c.currentStep(), std::int64_t{0});
        QVERIFY(findEvent(c.takeEvents(), Kind::StateReset, reset) != nullptr);
        c.step(100);
        QVERIFY(c.waitIdle(kWait));
        const Trace v2 = take(c, v);
        const Trace s2 = take(c, s);
        QCOMPARE(v2.first, std::int64_t{0});
        QCOMPARE(v2.end, std::int64_t{100});
        QCOMPARE(v2.dropped, std::int64_t{0});
        QVERIFY(bitEqual(v2.values, v1.values));
        QCOMPARE(s2.events, s1.events);
    }

    void modelAccess()
    {
        SimulationController c(makeNet(0.0F), chunked(32));
        const ProbeId v = c.addProbe(kVmem, 100000);
        c.step(40);
        QVERIFY(c.waitIdle(kWait));
        const Trace t = take(c, v);
        // readModel sees the working states stored: vmem equals the probe's last row.
        QCOMPARE(lifTensor(c, "vmem"), std::vector<float>(t.values.end() - kN, t.values.end()));

        c.setSpeed(Speed::realTime(1.0e-6));  // running, but the first chunk waits for hours
        c.run();
        QVERIFY(!c.withModel([](Module&) {}).ok);  // refused while running
        c.pause();
        c.setSpeed(Speed::fastest());
        QVERIFY(c.waitIdle(kWait));
        QCOMPARE(c.currentStep(), std::int64_t{40});

        Status nested = Status::success();
        QVERIFY(c.readModel([&](const Module&) { nested = c.withModel([](Module&) {}); }).ok);
        QVERIFY(!nested.ok);  // from the worker itself: refused, not deadlocked

        const Status thrown = c.withModel([](Module&) { throw Error("boom"); });
        QVERIFY(!thrown.ok);
        QVERIFY(thrown.message.find("boom") != std::string::npos);

        const Status added = c.withModel([](Module& m) {
            auto& net = dynamic_cast<Network&>(m);
            net.addNode("lif2", std::make_unique<LIF>(kN, kN));
            net.connect("src", "lif2");
        });
        QVERIFY2(added.ok, added.message.c_str());
        const ProbeId s2 = c.addProbe({"lif2", "spikes", {}});
        c.step(20);
        QVERIFY(c.waitIdle(kWait));
        QCOMPARE(c.probes().size(), std::size_t{2});
        QCOMPARE(take(c, s2).end, std::int64_t{60});
        const Trace more = take(c, v);
        QCOMPARE(more.first, std::int64_t{40});
        QCOMPARE(more.end, std::int64_t{60});

        const Status removed =
            c.withModel([](Module& m) { dynamic_cast<Network&>(m).removeNode("lif"); });
        QVERIFY2(removed.ok, removed.message.c_str());
        const auto events = c.takeEvents();
        QVERIFY(std::any_of(events.begin(), events.end(), [v](const ControllerEvent& e) {
            return e.kind == Kind::Error && e.probe == v;
        }));
        QVERIFY(!c.takeProbe(v).has_value());
        QCOMPARE(c.probes().size(), std::size_t{1});
    }

    void backendSwitchKeepsTheRunExact()
    {
        SimulationController ref(makeNet(), chunked(32));
        const ProbeId rv = ref.addProbe(kVmem, 100000);
        ref.step(200);
        QVERIFY(ref.waitIdle(kWait));

        SimulationController c(makeNet(), chunked(32));
        const ProbeId v = c.addProbe(kVmem, 100000);
        c.step(100);
        const CommandId cuda = c.setBackend(BackendKind::Cuda);
        const CommandId cpu = c.setBackend(BackendKind::Cpu);
        c.step(100);
        QVERIFY(c.waitIdle(kWait));
        const auto events = c.takeEvents();
        // Without a device the CUDA switch fails and the CPU executor stays.
        QVERIFY(findEvent(events, Kind::Error, cuda) != nullptr ||
                findEvent(events, Kind::ExecutorRebuilt, cuda) != nullptr);
        QVERIFY(findEvent(events, Kind::ExecutorRebuilt, cpu) != nullptr);
        QCOMPARE(c.backendName(), std::string("cpu"));
        const Trace t = take(c, v);
        QVERIFY(t.contiguous);
        QVERIFY(bitEqual(t.values, take(ref, rv).values));
    }

    void threadCountChangesKeepTheRunExact()
    {
        // 512 LIF neurons split into parts of 64 neurons (noise-free, so runsInRanges();
        // threadMinWork 1 forces the split): one thread throughout, against 1, then 3, then 2
        // threads set while the run goes on.
        static constexpr std::int64_t n = 512;
        const auto net = [] {
            std::vector<float> amps(n);
            for (std::int64_t i = 0; i < n; ++i) {
                amps[static_cast<std::size_t>(i)] = 0.0005F * static_cast<float>(i % 40);
            }
            auto network = std::make_unique<Network>();
            network->addNode("src", std::make_unique<ConstantCurrent>(
                                        n, AttributeMap{{"amplitude", Tensor(Shape{n}, amps)}}));
            network->addNode("lif", std::make_unique<LIF>(n, n, false, lifInit(0.0F)));
            network->connect("src", "lif");
            return network;
        };
        const auto options = [](int threads) {
            ControllerOptions o = chunked(32);
            o.executor.threads = threads;
            o.executor.threadMinWork = 1;
            return o;
        };
        SimulationController ref(net(), options(1));
        const ProbeId rv = ref.addProbe(kVmem, 100000);
        const ProbeId rs = ref.addProbe(kSpikes, 1000000);
        ref.step(300);
        QVERIFY(ref.waitIdle(kWait));

        SimulationController c(net(), options(1));
        const ProbeId v = c.addProbe(kVmem, 100000);
        const ProbeId s = c.addProbe(kSpikes, 1000000);
        // Each command lands at a chunk boundary of the pending 300 steps, wherever that is.
        c.step(100);
        const CommandId three = c.setThreads(3);
        const CommandId same = c.setThreads(3);
        const CommandId negative = c.setThreads(-1);
        c.step(100);
        const CommandId two = c.setThreads(2);
        c.step(100);
        QVERIFY(c.waitIdle(kWait));
        QCOMPARE(c.currentStep(), std::int64_t{300});
        const auto events = c.takeEvents();
        QVERIFY(findEvent(events, Kind::ExecutorRebuilt, three) != nullptr);
        QVERIFY(findEvent(events, Kind::ExecutorRebuilt, same) == nullptr);
        QVERIFY(findEvent(events, Kind::ExecutorRebuilt, two) != nullptr);
        const ControllerEvent* refused = findEvent(events, Kind::Error, negative);
        QVERIFY(refused != nullptr);
        QCOMPARE(QString::fromStdString(refused->message),
                 QString("setThreads: threads must be >= 0 (0: every core), got -1"));
        QVERIFY(bitEqual(take(c, v).values, take(ref, rv).values));
        const Trace want = take(ref, rs);
        QVERIFY(want.events.size() > 100);
        QCOMPARE(take(c, s).events, want.events);
    }

    void cudaStretchInTheMiddleOfARun()
    {
        // A noise-free LIF runs on the device under the CUDA backend. CPU, then CUDA, then CPU
        // again, States handed over at each switch: the recording equals an all-CPU run bit for
        // bit, spikes and membrane alike.
        SimulationController ref(makeNet(0.0F), chunked(32));
        const ProbeId rv = ref.addProbe(kVmem, 100000);
        const ProbeId rs = ref.addProbe(kSpikes, 100000);
        ref.step(240);
        QVERIFY(ref.waitIdle(kWait));

        SimulationController c(makeNet(0.0F), chunked(32));
        const ProbeId v = c.addProbe(kVmem, 100000);
        const ProbeId s = c.addProbe(kSpikes, 100000);
        c.step(60);
        const CommandId cuda = c.setBackend(BackendKind::Cuda);
        QVERIFY(c.waitIdle(kWait));
        const auto events = c.takeEvents();
        if (findEvent(events, Kind::ExecutorRebuilt, cuda) == nullptr) {
            const ControllerEvent* error = findEvent(events, Kind::Error, cuda);
            QVERIFY(error != nullptr);
            if (qEnvironmentVariableIsSet("SPIKE_EXPECT_GPU")) {
                QFAIL(error->message.c_str());
            }
            QSKIP(("no CUDA backend: " + error->message).c_str());
        }
        QCOMPARE(c.backendName(), std::string("cuda"));
        c.step(120);
        c.setBackend(BackendKind::Cpu);
        c.step(60);
        QVERIFY(c.waitIdle(kWait));
        QCOMPARE(c.backendName(), std::string("cpu"));
        const Trace tv = take(c, v);
        QVERIFY(tv.contiguous);
        QCOMPARE(tv.end, std::int64_t{240});
        QVERIFY(bitEqual(tv.values, take(ref, rv).values));
        const Trace want = take(ref, rs);
        QVERIFY(want.events.size() > 10);
        QCOMPARE(take(c, s).events, want.events);
    }

    void probeErrors()
    {
        SimulationController c(makeNet(), chunked(16));
        const ProbeId nowhere = c.addProbe({"nowhere", "spikes", {}});
        const ProbeId badSignal = c.addProbe({"lif", "no_signal", {}});
        const ProbeId negative = c.addProbe(kVmem, -5);
        const CommandId unknown = c.removeProbe(ProbeId{999});
        QVERIFY(c.waitIdle(kWait));
        const auto events = c.takeEvents();
        for (const ProbeId id : {nowhere, badSignal, negative}) {
            bool found = false;
            for (const ControllerEvent& e : events) {
                found = found || (e.kind == Kind::Error && e.probe == id);
            }
            QVERIFY(found);
            QVERIFY(!c.takeProbe(id).has_value());
        }
        QVERIFY(findEvent(events, Kind::Error, unknown) != nullptr);
        QVERIFY(c.probes().empty());

        const std::vector<ProbeId> ids = c.setProbes({kVmem, kSpikes}, 10);
        QVERIFY(c.waitIdle(kWait));
        const auto set = c.probes();
        QCOMPARE(set.size(), std::size_t{2});
        QCOMPARE(set[0].id, ids[0]);
        QCOMPARE(set[0].info.width, kN);
        QVERIFY(!set[0].info.spikes);
        QVERIFY(set[1].info.spikes);
        QCOMPARE(set[1].capacity, std::int64_t{10});
        c.step(30);  // 30 rows into 10: 20 dropped, oldest first
        QVERIFY(c.waitIdle(kWait));
        const std::optional<ProbeSnapshot> snap = c.takeProbe(ids[0]);
        QVERIFY(snap.has_value());
        QCOMPARE(snap->firstStep, std::int64_t{20});
        QCOMPARE(snap->dropped, std::int64_t{20});
    }
};

QTEST_GUILESS_MAIN(TestController)
#include "test_controller.moc"
