// LiveRun: the GUI side of a live run. The rolling recording it drains from the controller must
// equal what Module::evolve() records for a fresh copy of the model (spikes of every spiking
// module and the traced membrane, bit for bit) over the same steps: for the two-layer LIF
// example (a Sequential, run as a chain network), the CUBA example and a small network with a
// Poisson source; across several step() calls; for the last window of steps only when the window
// is capped, also when the probe buffers dropped data; after switching the traced module and
// after a state reset, also one made while running; after every poll of resets racing steps
// (every series ends at currentStep() and holds the model's data). Also: NaN / Inf pauses
// reported through failed() with module and state, running / paused / steps-done / updated
// signals, and the raster drawing the live recording. Several traces (addTrace): two States of
// different modules with a neuron selection and the whole output of a non-spiking Linear record
// exactly what an engine-only SimulationController probes; removeTrace drops its series and
// leaves the others alone; a trace shared with the primary one; refusals with a reason; 1000
// traced channels shrink the window as maxWindowValues says.
// Offscreen; no timing assertions (waits have generous timeouts only).
#include "tests/live_run_test_helpers.hpp"
#include "ui/run/live_run.hpp"
#include "ui/window/plot_sources.hpp"
#include "ui/plots/raster_plot.hpp"

#include "engine/tensor/error.hpp"
#include "engine/neurons/lif.hpp"
#include "engine/layers/linear.hpp"
#include "engine/io/model_io.hpp"
#include "engine/network/network.hpp"
#include "engine/sources/sources.hpp"

#include <QFile>
#include <QSignalSpy>
#include <QtTest/QtTest>

#include <algorithm>
#include <cmath>
#include <cstring>

using spike::engine::AttributeMap;
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

/// "" when `live` holds rows [from, to) of every spiking series of `ref` and of the traced
/// `tracePath.traceSignal` series (when given), and nothing else.
QString compareRecording(const Recording& live, const Recording& ref, std::int64_t from,
                         std::int64_t to, const std::string& tracePath = {},
                         const std::string& traceSignal = {})
{
    std::size_t expected = 0;
    for (const auto& [path, bySignal] : ref) {
        for (const auto& [signal, series] : bySignal) {
            const bool traced = !traceSignal.empty() && path == tracePath && signal == traceSignal;
            if (!series.spikes && !traced) {
                continue;
            }
            ++expected;
            const QString key = QString::fromStdString(path + "." + signal);
            const auto byPath = live.find(path);
            if (byPath == live.end() || byPath->second.count(signal) == 0) {
                return key + QStringLiteral(" missing");
            }
            const QString diff = compareSeries(byPath->second.at(signal), series, from, to);
            if (!diff.isEmpty()) {
                return key + QStringLiteral(": ") + diff;
            }
        }
    }
    const std::size_t got = spike::engine::flatten(live).size();
    return got == expected ? QString()
                           : QStringLiteral("%1 series, expected %2").arg(got).arg(expected);
}

/// Poisson "src" (6) drives LIF "a" (6); "a" drives LIF "b" (6 inputs onto 3 neurons, two
/// synapses each) and Linear "lin" (6 -> 2), in a Network.
std::unique_ptr<Module> branchedNetwork()
{
    auto net = std::make_unique<spike::engine::Network>();
    net->addNode("src", std::make_unique<spike::engine::PoissonSource>(
                            6, AttributeMap{{"rate", Tensor::scalar(400.0F)},
                                            {"seed", Tensor::scalar(5.0F)}}));
    net->addNode("a", std::make_unique<spike::engine::LIF>(
                          6, 6, false, AttributeMap{{"tau_syn", Tensor::scalar(0.005F)}}));
    net->addNode("b", std::make_unique<spike::engine::LIF>(6, 3));
    net->addNode("lin", std::make_unique<spike::engine::Linear>(6, 2));
    net->connect("src", "a");
    net->connect("a", "b");
    net->connect("a", "lin");
    return net;
}

/// A copy of `model` with every value (random initial weights included) through the format.
std::unique_ptr<Module> copyOf(const Module& model)
{
    spike::engine::SaveOptions inlineAll;
    inlineAll.inlineLimit = -1;
    return spike::engine::modelFromJson(spike::engine::modelToJson(model, inlineAll), "copy", ".")
        .root;
}

/// What an engine-only controller running `model` for `steps` steps records for `request`:
/// (steps, width) rows.
Tensor engineProbe(std::unique_ptr<Module> model, const spike::engine::ProbeRequest& request,
                   std::int64_t steps)
{
    spike::engine::SimulationController controller(std::move(model));
    const spike::engine::ProbeId probe = controller.addProbe(request, steps);
    controller.step(steps);
    if (!controller.waitIdle(kWait)) {
        return {};
    }
    const auto snapshot = controller.takeProbe(probe);
    if (!snapshot || snapshot->steps != steps) {
        return {};
    }
    Tensor out(Shape{steps, snapshot->width});
    std::copy(snapshot->values.begin(), snapshot->values.end(), out.data());
    return out;
}

/// "" when `series` holds the last rows of `ref` (the engine's rows for steps [0, end)).
QString compareTail(const TimeSeries* series, const Tensor& ref, std::int64_t end)
{
    if (series == nullptr) {
        return QStringLiteral("no series");
    }
    if (ref.rank() != 2 || ref.dim(0) != end) {
        return QStringLiteral("no reference");
    }
    const std::int64_t rows = series->data.rank() == 2 ? series->data.dim(0) : 0;
    TimeSeries wanted;
    wanted.data = ref;
    wanted.dt = series->dt;
    return compareSeries(*series, wanted, end - rows, end);
}

std::int64_t spikeTotal(const Recording& rec)
{
    return spike::engine::summariseSpikes(rec).spikes;
}

}  // namespace

class TestLiveRun : public QObject {
    Q_OBJECT

private slots:
    void membraneSignalNames()
    {
        const auto lif = loadExample(QStringLiteral("two_layer_lif.json"));
        const auto cuba = loadExample(QStringLiteral("cuba_network.json"));
        QVERIFY(lif && cuba);
        // The State each model declares Role::Membrane, never a name or family match.
        QCOMPARE(lif->getSubmodule("0").membraneSignal(), std::string("vmem"));
        QCOMPARE(cuba->getSubmodule("E").membraneSignal(), std::string("v"));
        // A container and a stimulus source declare none: no default trace, no threshold.
        QCOMPARE(lif->membraneSignal(), std::string());
        const auto step = loadExample(QStringLiteral("lif_current_step.json"));
        QVERIFY(step);
        QCOMPARE(step->getSubmodule("step").membraneSignal(), std::string());
        QVERIFY(!step->getSubmodule("step").attributeWithRole(spike::engine::Role::Threshold));
        const auto threshold = cuba->getSubmodule("E").attributeWithRole(spike::engine::Role::Threshold);
        QVERIFY(threshold.has_value());
        QCOMPARE(threshold->spec->name, std::string("v_th"));
    }

    void constructionErrors()
    {
        QVERIFY_THROWS_EXCEPTION(spike::engine::Error, LiveRun(nullptr, QString()));
    }

    void stepMatchesEvolveForTheSequentialExample()
    {
        LiveRun live(loadExample(QStringLiteral("two_layer_lif.json")), QStringLiteral("0"));
        QCOMPARE(live.tracedSignal(), QStringLiteral("vmem"));
        QCOMPARE(live.plotModel().className(), std::string("Sequential"));
        live.step(400);
        QVERIFY(live.waitIdle(kWait));
        QCOMPARE(live.currentStep(), std::int64_t{400});
        const Recording ref = evolveAll(loadExample(QStringLiteral("two_layer_lif.json")), 400);
        QVERIFY(spikeTotal(ref) > 0);
        const QString diff = compareRecording(live.recording(), ref, 0, 400, "0", "vmem");
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        QVERIFY(live.recording().count("1") == 1);  // each layer has its own spike series
        QCOMPARE(live.droppedSamples(), std::int64_t{0});

        // The raster draws the live recording as it draws an evolve() recording.
        spike::ui::RasterPlot raster;
        raster.showRecording(spike::ui::rasterModulesOf(live.plotModel()), live.recording());
        QCOMPARE(raster.dotCount(), spike::engine::summariseSpikes(ref).events);
    }

    void stepMatchesEvolveForTheCubaExample()
    {
        LiveRun live(loadExample(QStringLiteral("cuba_network.json")), QStringLiteral("E"));
        QCOMPARE(live.tracedSignal(), QStringLiteral("v"));
        live.step(300);
        QVERIFY(live.waitIdle(kWait));
        const Recording ref = evolveAll(loadExample(QStringLiteral("cuba_network.json")), 300);
        QVERIFY(spikeTotal(ref) > 0);
        const QString diff = compareRecording(live.recording(), ref, 0, 300, "E", "v");
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    void sourcesAreRecordedAsSpikesToo()
    {
        LiveRun live(poissonNetwork(), QStringLiteral("lif"));
        live.step(500);
        QVERIFY(live.waitIdle(kWait));
        const Recording ref = evolveAll(poissonNetwork(), 500);
        QVERIFY(ref.at("src").at("output").spikes);
        QVERIFY(spikeTotal(ref) > 0);
        const QString diff = compareRecording(live.recording(), ref, 0, 500, "lif", "vmem");
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    void stepCallsContinueInTime()
    {
        LiveRun live(loadExample(QStringLiteral("two_layer_lif.json")), QStringLiteral("1"));
        const Recording ref = evolveAll(loadExample(QStringLiteral("two_layer_lif.json")), 300);
        live.step(120);
        QVERIFY(live.waitIdle(kWait));
        QString diff = compareRecording(live.recording(), ref, 0, 120, "1", "vmem");
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        live.step(100);
        live.step(80);  // queued behind the first: 180 more steps in all
        QVERIFY(live.waitIdle(kWait));
        QCOMPARE(live.currentStep(), std::int64_t{300});
        diff = compareRecording(live.recording(), ref, 0, 300, "1", "vmem");
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    void windowKeepsTheLastSteps()
    {
        LiveRunOptions options;
        options.maxWindowSteps = 100;
        LiveRun live(loadExample(QStringLiteral("two_layer_lif.json")), QStringLiteral("0"),
                     options);
        QCOMPARE(live.window(), std::int64_t{100});
        const Recording ref = evolveAll(loadExample(QStringLiteral("two_layer_lif.json")), 625);
        // Growing (60, 90), growing past the cap (120), sliding in place (125), then more steps
        // than the probe buffers hold (the oldest are dropped, the window restarts after the gap).
        std::int64_t done = 0;
        for (const std::int64_t steps : {60, 30, 30, 5, 250, 150}) {
            live.step(steps);
            QVERIFY(live.waitIdle(kWait));
            done += steps;
            const std::int64_t from = std::max<std::int64_t>(0, done - 100);
            const QString diff = compareRecording(live.recording(), ref, from, done, "0", "vmem");
            QVERIFY2(diff.isEmpty(),
                     qPrintable(QStringLiteral("after %1 steps: %2").arg(done).arg(diff)));
        }
        QCOMPARE(live.recording().at("0").at("vmem").tStart, 425 * live.timeStep());
        QVERIFY(live.droppedSamples() > 0);
    }

    void windowRespectsTheValueCap()
    {
        LiveRunOptions options;
        options.maxWindowValues = 8 * 50;  // 8 traced channels; spike channels do not count
        LiveRun live(loadExample(QStringLiteral("two_layer_lif.json")), QStringLiteral("0"),
                     options);
        QCOMPARE(live.window(), std::int64_t{50});
        live.step(80);
        QVERIFY(live.waitIdle(kWait));
        const Recording ref = evolveAll(loadExample(QStringLiteral("two_layer_lif.json")), 80);
        const QString diff = compareRecording(live.recording(), ref, 30, 80, "0", "vmem");
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    void switchingTheTracedModule()
    {
        LiveRun live(loadExample(QStringLiteral("two_layer_lif.json")), QStringLiteral("0"));
        const Recording ref = evolveAll(loadExample(QStringLiteral("two_layer_lif.json")), 120);
        live.step(50);
        QVERIFY(live.waitIdle(kWait));
        QSignalSpy updated(&live, &LiveRun::updated);
        live.setTracedPath(QStringLiteral("1"));
        QCOMPARE(updated.count(), 1);
        QCOMPARE(live.tracedPath(), QStringLiteral("1"));
        QVERIFY(live.recording().count("0") == 1 && live.recording().at("0").count("vmem") == 0);
        live.step(70);
        QVERIFY(live.waitIdle(kWait));
        const auto& byPath = live.recording().at("1");
        QVERIFY(byPath.count("vmem") == 1);
        QString diff = compareSeries(byPath.at("vmem"), ref.at("1").at("vmem"), 50, 120);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        diff = compareSeries(byPath.at("spikes"), ref.at("1").at("spikes"), 0, 120);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));

        // The root Sequential has no membrane: no trace, spikes go on.
        live.setTracedPath(QString(""));
        QCOMPARE(live.tracedSignal(), QString());
        live.step(10);
        QVERIFY(live.waitIdle(kWait));
        QCOMPARE(spike::engine::flatten(live.recording()).size(), std::size_t{2});
        QCOMPARE(live.recording().at("0").at("spikes").data.dim(0), std::int64_t{130});
    }

    void severalTracesRecordWhatTheEngineProbes()
    {
        const auto model = branchedNetwork();
        LiveRun live(copyOf(*model), QStringLiteral("a"));
        QSignalSpy changed(&live, &LiveRun::tracesChanged);
        QString error;
        const int isyn = live.addTrace(QStringLiteral("b"), "isyn", {5, 0, 2}, &error);
        QVERIFY2(isyn > 0, qPrintable(error));
        const int out = live.addTrace(QStringLiteral("lin"), "out", {}, &error);
        QVERIFY2(out > 0, qPrintable(error));
        QCOMPARE(changed.count(), 2);
        const int primary = live.primaryTraceId();
        QVERIFY(primary > 0 && primary != isyn && primary != out && isyn != out);
        QCOMPARE(live.traceIds(), (std::vector<int>{primary, isyn, out}));
        QCOMPARE(live.traceInfo(primary)->signal, std::string("vmem"));
        QVERIFY(live.traceInfo(primary)->membrane);
        QVERIFY(!live.traceInfo(isyn)->membrane);
        QCOMPARE(live.traceInfo(isyn)->neurons, (std::vector<std::int64_t>{5, 0, 2}));
        QVERIFY(live.traceSeries(isyn) == nullptr);  // no data yet

        live.step(300);
        QVERIFY(live.waitIdle(kWait));
        const Tensor vmem = engineProbe(copyOf(*model), {"a", "vmem", {}}, 300);
        const Tensor currents = engineProbe(copyOf(*model), {"b", "isyn", {5, 0, 2}}, 300);
        const Tensor linear = engineProbe(copyOf(*model), {"lin", "out", {}}, 300);
        QString diff = compareTail(live.traceSeries(primary), vmem, 300);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        diff = compareTail(live.traceSeries(isyn), currents, 300);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        diff = compareTail(live.traceSeries(out), linear, 300);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        QCOMPARE(live.traceSeries(out)->data.dim(0), std::int64_t{300});
        QVERIFY(live.traceSeries(out) == &live.recording().at("lin").at("out"));
        // The Linear layer's output varies: the comparison is not between two empty signals.
        QVERIFY(std::any_of(linear.data(), linear.data() + linear.numel(),
                            [&](float v) { return v != linear.data()[0]; }));
    }

    void removeTraceDropsOnlyItsSeries()
    {
        LiveRun live(branchedNetwork(), QString());
        QCOMPARE(live.primaryTraceId(), 0);
        const int a = live.addTrace(QStringLiteral("a"), "vmem");
        const int lin = live.addTrace(QStringLiteral("lin"), "out");
        QVERIFY(a > 0 && lin > 0);
        live.step(80);
        QVERIFY(live.waitIdle(kWait));
        const Tensor before = live.traceSeries(a)->data;
        QSignalSpy changed(&live, &LiveRun::tracesChanged);
        live.removeTrace(lin);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(live.traceIds(), std::vector<int>{a});
        QVERIFY(live.traceInfo(lin) == nullptr && live.traceSeries(lin) == nullptr);
        QVERIFY(live.recording().count("lin") == 0);
        QCOMPARE(live.traceSeries(a)->data.dim(0), std::int64_t{80});
        QVERIFY(std::memcmp(live.traceSeries(a)->data.data(), before.data(),
                            static_cast<std::size_t>(before.numel()) * sizeof(float)) == 0);
        live.removeTrace(lin);  // unknown now: nothing happens
        QCOMPARE(changed.count(), 1);
        live.step(20);
        QVERIFY(live.waitIdle(kWait));
        QCOMPARE(live.traceSeries(a)->data.dim(0), std::int64_t{100});
        QVERIFY(live.recording().count("lin") == 0);
    }

    void addTraceRefusesWithAReason()
    {
        LiveRun live(branchedNetwork(), QString());
        QString error;
        QCOMPARE(live.addTrace(QStringLiteral("nowhere"), "vmem", {}, &error), 0);
        QVERIFY2(error.contains(QStringLiteral("nowhere")), qPrintable(error));
        error.clear();
        QCOMPARE(live.addTrace(QStringLiteral("a"), "nonsense", {}, &error), 0);
        QVERIFY2(error.contains(QStringLiteral("vmem")), qPrintable(error));  // lists the choices
        error.clear();
        QCOMPARE(live.addTrace(QStringLiteral("a"), "vmem", {6}, &error), 0);
        QVERIFY2(error.contains(QStringLiteral("6")), qPrintable(error));
        error.clear();
        QCOMPARE(live.addTrace(QStringLiteral("a"), "out", {}, &error), 0);  // spikes: raster
        QVERIFY(!error.isEmpty());
        QCOMPARE(live.addTrace(QStringLiteral("lin"), "vmem", {}, nullptr), 0);
        QVERIFY(live.traceIds().empty());
        QVERIFY(live.recording().empty());
    }

    void theSamePairIsOneTrace()
    {
        LiveRun live(branchedNetwork(), QStringLiteral("a"));
        const int primary = live.primaryTraceId();
        QVERIFY(primary > 0);
        QCOMPARE(live.addTrace(QStringLiteral("a"), "vmem", {1, 2}), primary);
        QCOMPARE(live.traceIds(), std::vector<int>{primary});
        QCOMPARE(live.tracedNeurons(), (std::vector<std::int64_t>{1, 2}));
        QCOMPARE(live.addTrace(QStringLiteral("a"), "", {1, 2}), primary);  // "" = the membrane
        live.step(30);
        QVERIFY(live.waitIdle(kWait));
        QCOMPARE(live.traceSeries(primary)->data.dim(1), std::int64_t{2});

        // Moving the primary trace keeps the trace addTrace() also made, with its series.
        live.setTracedPath(QStringLiteral("b"));
        QCOMPARE(live.tracedSignal(), QStringLiteral("vmem"));
        const int second = live.primaryTraceId();
        QVERIFY(second > 0 && second != primary);
        QCOMPARE(live.traceIds(), (std::vector<int>{primary, second}));
        QCOMPARE(live.traceSeries(primary)->data.dim(0), std::int64_t{30});
        // Removing the primary trace leaves no primary one.
        live.removeTrace(second);
        QCOMPARE(live.tracedSignal(), QString());
        QCOMPARE(live.primaryTraceId(), 0);
        QCOMPARE(live.traceIds(), std::vector<int>{primary});
        live.setTracedPath(QStringLiteral("b"));  // made again
        QVERIFY(live.primaryTraceId() > second);
    }

    void thousandTracedChannelsShrinkTheWindow()
    {
        constexpr std::int64_t n = 1000;
        auto net = std::make_unique<spike::engine::Network>();
        net->addNode("src", std::make_unique<spike::engine::PoissonSource>(
                                n, AttributeMap{{"rate", Tensor::scalar(100.0F)},
                                                {"seed", Tensor::scalar(9.0F)}}));
        net->addNode("lif", std::make_unique<spike::engine::LIF>(n, n));
        net->connect("src", "lif");
        const auto model = copyOf(*net);
        LiveRunOptions options;
        options.maxWindowSteps = 150;
        options.maxWindowValues = n * 100;
        LiveRun live(std::move(net), QString(), options);
        QCOMPARE(live.window(), std::int64_t{150});  // 2000 spike channels do not count
        const int id = live.addTrace(QStringLiteral("lif"), "vmem");
        QVERIFY(id > 0);
        QCOMPARE(live.window(), std::int64_t{100});  // and 1000 traced ones
        live.step(260);
        QVERIFY(live.waitIdle(kWait));
        for (const auto& [key, series] : spike::engine::flatten(live.recording())) {
            QCOMPARE(series->data.dim(0), std::int64_t{100});
        }
        QCOMPARE(live.traceSeries(id)->data.dim(1), n);
        const QString diff =
            compareTail(live.traceSeries(id), engineProbe(copyOf(*model), {"lif", "vmem", {}}, 260), 260);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        live.removeTrace(id);
        QCOMPARE(live.window(), std::int64_t{150});
    }

    void resetRestartsAtStepZero()
    {
        LiveRun live(loadExample(QStringLiteral("two_layer_lif.json")), QStringLiteral("0"));
        live.step(150);
        QVERIFY(live.waitIdle(kWait));
        QVERIFY(!live.recording().empty());
        QSignalSpy updated(&live, &LiveRun::updated);
        live.resetState();
        QVERIFY(live.waitIdle(kWait));
        QCOMPARE(updated.count(), 1);
        QVERIFY(live.recording().empty());
        QCOMPARE(live.currentStep(), std::int64_t{0});
        live.step(200);
        QVERIFY(live.waitIdle(kWait));
        const Recording ref = evolveAll(loadExample(QStringLiteral("two_layer_lif.json")), 200);
        const QString diff = compareRecording(live.recording(), ref, 0, 200, "0", "vmem");
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    void resetWhileRunning()
    {
        LiveRunOptions options;
        options.refreshIntervalMs = 2;
        options.speed = spike::engine::Speed::realTime(1.0);
        LiveRun live(loadExample(QStringLiteral("two_layer_lif.json")), QStringLiteral("1"),
                     options);
        live.run();
        QTRY_VERIFY_WITH_TIMEOUT(live.currentStep() > 100, 120000);
        live.resetState();
        live.step(60);  // from step 0 on, then pause; drained by the timer meanwhile
        QTRY_VERIFY_WITH_TIMEOUT(live.currentStep() == 60 && !live.isRunning(), 120000);
        QVERIFY(live.waitIdle(kWait));
        const std::int64_t steps = live.currentStep();
        const Recording ref = evolveAll(loadExample(QStringLiteral("two_layer_lif.json")), steps);
        const QString diff = compareRecording(live.recording(), ref, 0, steps, "1", "vmem");
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    void consistentWhateverTheInterleaving()
    {
        // Resets followed at once by steps and polls, so that a reset sometimes lands inside a
        // poll (between its event take and its probe takes). Whatever the interleaving, after
        // every poll each series ends at currentStep() and holds the model's data for its steps
        // (never pre-reset data after a reset); checked against evolve() afterwards.
        constexpr std::int64_t kSteps = 3000;
        LiveRunOptions options;
        options.maxWindowSteps = 64;
        LiveRun live(loadExample(QStringLiteral("two_layer_lif.json")), QStringLiteral("0"),
                     options);
        struct Seen {
            std::int64_t end = 0;
            Recording recording;
        };
        std::vector<Seen> seen;
        for (int cycle = 0; cycle < 150; ++cycle) {
            live.resetState();
            live.step(kSteps);
            for (int i = 0; i < 5; ++i) {
                live.poll();
                seen.push_back({live.currentStep(), live.recording()});
            }
            QVERIFY(live.waitIdle(kWait));
            QCOMPARE(live.currentStep(), kSteps);
            QCOMPARE(live.recording().at("0").at("vmem").data.dim(0), std::int64_t{64});
            seen.push_back({live.currentStep(), live.recording()});
        }
        const Recording ref = evolveAll(loadExample(QStringLiteral("two_layer_lif.json")), kSteps);
        for (std::size_t i = 0; i < seen.size(); ++i) {
            const std::int64_t end = seen[i].end;
            for (const auto& [key, series] : spike::engine::flatten(seen[i].recording)) {
                const std::int64_t rows = series->data.dim(0);
                const auto dot = key.rfind('.');
                const QString diff = compareSeries(
                    *series, ref.at(key.substr(0, dot)).at(key.substr(dot + 1)), end - rows, end);
                QVERIFY2(rows >= 1 && rows <= live.window() && diff.isEmpty(),
                         qPrintable(QStringLiteral("%1 after poll %2 (step %3): %4 rows, %5")
                                        .arg(QString::fromStdString(key))
                                        .arg(i)
                                        .arg(end)
                                        .arg(rows)
                                        .arg(diff)));
            }
        }
    }

    void nonFiniteStateIsReported()
    {
        auto net = poissonNetwork();
        spike::engine::NestedAttributes change;
        change["lif"]["bias"] = Tensor::scalar(3.0e38F);  // vmem overflows to +inf
        QVERIFY(net->setAttributes(change).ok);
        LiveRun live(std::move(net), QStringLiteral("lif"));
        QSignalSpy failed(&live, &LiveRun::failed);
        QSignalSpy done(&live, &LiveRun::stepsDone);
        live.step(1000);
        QVERIFY(live.waitIdle(kWait));
        QCOMPARE(failed.count(), 1);
        const QString message = failed.at(0).at(0).toString();
        QVERIFY2(message.contains(QStringLiteral("'lif'")), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("vmem")), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("inf")), qPrintable(message));
        QCOMPARE(done.count(), 0);  // paused before the target
        QVERIFY(live.currentStep() < 1000);
        QVERIFY(!live.isRunning());
    }

    void runningSignals()
    {
        LiveRun live(poissonNetwork(), QStringLiteral("lif"));
        QSignalSpy running(&live, &LiveRun::runningChanged);
        QSignalSpy done(&live, &LiveRun::stepsDone);
        live.run();
        live.pause();
        QVERIFY(live.waitIdle(kWait));
        QCOMPARE(running.count(), 2);
        QCOMPARE(running.at(0).at(0).toBool(), true);
        QCOMPARE(running.at(1).at(0).toBool(), false);
        QVERIFY(!live.isRunning());
        live.step(10);
        QVERIFY(live.waitIdle(kWait));
        QCOMPARE(done.count(), 1);
        QCOMPARE(running.count(), 4);
    }

    void updatedFollowsData()
    {
        LiveRunOptions options;
        options.refreshIntervalMs = 5;
        LiveRun live(poissonNetwork(), QStringLiteral("lif"), options);
        QSignalSpy updated(&live, &LiveRun::updated);
        live.poll();
        QCOMPARE(updated.count(), 0);  // nothing ran yet
        live.step(20);
        QVERIFY(live.waitIdle(kWait));
        QCOMPARE(updated.count(), 1);  // one poll, one signal
        live.poll();
        QCOMPARE(updated.count(), 1);  // no new data
        // The GUI timer drains by itself.
        live.step(20);
        QTRY_VERIFY_WITH_TIMEOUT(live.currentStep() == 40, 120000);
        QVERIFY(updated.count() >= 2);
    }
};

QTEST_MAIN(TestLiveRun)
#include "test_live_run.moc"
