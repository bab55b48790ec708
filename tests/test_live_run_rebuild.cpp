// LiveRun::replaceModel, the structural rebuild that continues a live run: rebuilding with an
// identical copy of the model gives recordings bit-identical to never rebuilding (paused, and
// while running); after a node is added downstream, time continues (no step 0), the unchanged
// module's membrane continues exactly and the new node's spikes start at the rebuild step; a
// trace of a removed module is dropped with tracesChanged() while the others keep their ids and
// series; a model that cannot be run is refused with the engine's message and the old run goes
// on running, its traces and plot model unchanged.
// Offscreen; no timing assertions (waits have generous timeouts only).
#include "tests/live_run_test_helpers.hpp"
#include "ui/run/live_run.hpp"
#include "ui/plots/raster_plot.hpp"

#include "engine/tensor/error.hpp"
#include "engine/neurons/lif.hpp"
#include "engine/io/model_io.hpp"
#include "engine/network/network.hpp"
#include "engine/core/node_runner.hpp"

#include <QFile>
#include <QSignalSpy>
#include <QtTest/QtTest>

#include <cstring>

using spike::engine::Module;
using spike::engine::Recording;
using spike::engine::Shape;
using spike::engine::Tensor;
using spike::engine::TimeSeries;
using spike::ui::LiveRun;
using spike::ui::LiveRunOptions;

namespace {

using namespace spike::tests;  // the shared helpers (live_run_test_helpers.hpp)
constexpr auto kWait = kLiveRunWait;

/// lif_current_step.json with a LIF "extra" (5) fed by "lif".
std::unique_ptr<Module> currentStepWithExtra()
{
    auto model = loadExample(QStringLiteral("lif_current_step.json"));
    auto* net = dynamic_cast<spike::engine::Network*>(model.get());
    if (net == nullptr) {
        return nullptr;
    }
    net->addNode("extra", std::make_unique<spike::engine::LIF>(5, 5));
    net->connect("lif", "extra");
    return model;
}

/// A module the runtime refuses to run: its runner cannot be made.
class Unrunnable : public Module {
public:
    Unrunnable() : Module({5}, false, false) { finishRegistration(); }
    std::string className() const override { return "Unrunnable"; }
    std::unique_ptr<spike::engine::NodeRunner> makeRunner() override
    {
        throw spike::engine::Error("Unrunnable: this module cannot run");
    }

protected:
    Tensor evolveImpl(const spike::engine::TensorView& input, const spike::engine::Recorder&) override
    {
        return Tensor(Shape{input.dim(0), input.dim(1), 5});
    }
};

/// "" when every series of `live` holds rows [0, steps) of the same series of `ref`.
QString compareAll(const Recording& live, const Recording& ref, std::int64_t steps)
{
    for (const auto& [key, series] : spike::engine::flatten(live)) {
        const auto dot = key.rfind('.');
        const auto byPath = ref.find(key.substr(0, dot));
        if (byPath == ref.end() || byPath->second.count(key.substr(dot + 1)) == 0) {
            return QString::fromStdString(key) + QStringLiteral(": no reference");
        }
        const QString diff =
            compareSeries(*series, byPath->second.at(key.substr(dot + 1)), 0, steps);
        if (!diff.isEmpty()) {
            return QString::fromStdString(key) + QStringLiteral(": ") + diff;
        }
    }
    return {};
}

}  // namespace

class TestLiveRunRebuild : public QObject {
    Q_OBJECT

private slots:
    void identicalRebuildIsSeamless()
    {
        const QString name = QStringLiteral("two_layer_lif.json");
        LiveRun live(loadExample(name), QStringLiteral("0"));
        const int second = live.addTrace(QStringLiteral("1"), "vmem");
        QVERIFY(second > 0);
        const std::vector<int> ids = live.traceIds();
        live.step(150);
        QVERIFY(live.waitIdle(kWait));
        QSignalSpy changed(&live, &LiveRun::tracesChanged);
        QString error;
        QVERIFY2(live.replaceModel(loadExample(name), &error), qPrintable(error));
        QCOMPARE(live.currentStep(), std::int64_t{150});
        QVERIFY(!live.isRunning());
        QCOMPARE(changed.count(), 0);
        QCOMPARE(live.traceIds(), ids);
        QCOMPARE(live.tracedSignal(), QStringLiteral("vmem"));
        QCOMPARE(live.recording().at("0").at("vmem").data.dim(0), std::int64_t{150});
        live.step(250);
        QVERIFY(live.waitIdle(kWait));
        QCOMPARE(live.currentStep(), std::int64_t{400});
        const Recording ref = evolveAll(loadExample(name), 400);
        QCOMPARE(spike::engine::flatten(live.recording()).size(), std::size_t{4});
        const QString diff = compareAll(live.recording(), ref, 400);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    void rebuildWhileRunningKeepsRunning()
    {
        const QString name = QStringLiteral("two_layer_lif.json");
        LiveRunOptions options;
        options.refreshIntervalMs = 2;
        options.speed = spike::engine::Speed::realTime(1.0);
        LiveRun live(loadExample(name), QStringLiteral("1"), options);
        live.run();
        QTRY_VERIFY_WITH_TIMEOUT(live.currentStep() > 50, 120000);
        QString error;
        QVERIFY2(live.replaceModel(loadExample(name), &error), qPrintable(error));
        const std::int64_t at = live.currentStep();
        QVERIFY(at > 50);
        QTRY_VERIFY_WITH_TIMEOUT(live.isRunning() && live.currentStep() > at + 50, 120000);
        live.pause();
        QVERIFY(live.waitIdle(kWait));
        const std::int64_t steps = live.currentStep();
        const Recording ref = evolveAll(loadExample(name), steps);
        const QString diff = compareAll(live.recording(), ref, steps);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    void addedNodeLetsTheOthersContinue()
    {
        LiveRun live(loadExample(QStringLiteral("lif_current_step.json")), QStringLiteral("lif"));
        live.step(100);
        QVERIFY(live.waitIdle(kWait));
        QString error;
        QVERIFY2(live.replaceModel(currentStepWithExtra(), &error), qPrintable(error));
        QVERIFY(live.plotModel().findChild("extra") != nullptr);
        QCOMPARE(live.currentStep(), std::int64_t{100});
        const int extra = live.addTrace(QStringLiteral("extra"), "vmem", {}, &error);
        QVERIFY2(extra > 0, qPrintable(error));
        live.step(200);
        QVERIFY(live.waitIdle(kWait));
        QCOMPARE(live.currentStep(), std::int64_t{300});

        // "extra" only listens to "lif": the rest evolves as if nothing had been added.
        const Recording ref = evolveAll(loadExample(QStringLiteral("lif_current_step.json")), 300);
        QVERIFY(spike::engine::summariseSpikes(ref).spikes > 0);
        QString diff = compareSeries(live.recording().at("lif").at("vmem"), ref.at("lif").at("vmem"), 0, 300);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        diff = compareSeries(live.recording().at("lif").at("spikes"), ref.at("lif").at("spikes"), 0, 300);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        // The new node's series begin at the rebuild (its spikes) and at the added trace.
        const TimeSeries& spikes = live.recording().at("extra").at("spikes");
        QCOMPARE(spikes.data.dim(0), std::int64_t{200});
        QCOMPARE(spikes.tStart, 100 * live.timeStep());
        QCOMPARE(live.traceSeries(extra)->data.dim(0), std::int64_t{200});
    }

    void removedModuleDropsItsTrace()
    {
        LiveRun live(currentStepWithExtra(), QStringLiteral("lif"));
        QString error;
        const int extra = live.addTrace(QStringLiteral("extra"), "vmem", {}, &error);
        QVERIFY2(extra > 0, qPrintable(error));
        const int primary = live.primaryTraceId();
        live.step(60);
        QVERIFY(live.waitIdle(kWait));
        QVERIFY(live.traceSeries(extra) != nullptr);
        QSignalSpy changed(&live, &LiveRun::tracesChanged);
        QVERIFY2(live.replaceModel(loadExample(QStringLiteral("lif_current_step.json")), &error),
                 qPrintable(error));
        QCOMPARE(changed.count(), 1);
        QVERIFY(live.traceInfo(extra) == nullptr && live.traceSeries(extra) == nullptr);
        QVERIFY(live.recording().count("extra") == 0);
        QCOMPARE(live.traceIds(), std::vector<int>{primary});
        live.step(40);
        QVERIFY(live.waitIdle(kWait));
        QVERIFY(live.recording().count("extra") == 0);
        QCOMPARE(live.traceSeries(primary)->data.dim(0), std::int64_t{100});
    }

    void failedRebuildLeavesTheRunGoing()
    {
        LiveRunOptions options;
        options.refreshIntervalMs = 2;
        options.speed = spike::engine::Speed::realTime(1.0);
        LiveRun live(loadExample(QStringLiteral("lif_current_step.json")), QStringLiteral("lif"),
                     options);
        const std::vector<int> ids = live.traceIds();
        live.run();
        QTRY_VERIFY_WITH_TIMEOUT(live.currentStep() > 20, 120000);

        auto broken = loadExample(QStringLiteral("lif_current_step.json"));
        dynamic_cast<spike::engine::Network&>(*broken).addNode("bad", std::make_unique<Unrunnable>());
        QString error;
        QVERIFY(!live.replaceModel(std::move(broken), &error));
        QVERIFY2(error.contains(QStringLiteral("Unrunnable")), qPrintable(error));
        QVERIFY(!live.replaceModel(nullptr, &error));
        QVERIFY(!error.isEmpty());

        QCOMPARE(live.traceIds(), ids);
        QVERIFY(live.plotModel().findChild("bad") == nullptr);
        const std::int64_t at = live.currentStep();
        QTRY_VERIFY_WITH_TIMEOUT(live.isRunning() && live.currentStep() > at + 30, 120000);
        live.pause();
        QVERIFY(live.waitIdle(kWait));
        const std::int64_t steps = live.currentStep();
        const Recording ref = evolveAll(loadExample(QStringLiteral("lif_current_step.json")), steps);
        const QString diff = compareAll(live.recording(), ref, steps);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }
};

QTEST_MAIN(TestLiveRunRebuild)
#include "test_live_run_rebuild.moc"
