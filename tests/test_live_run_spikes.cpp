// LiveRun's spike windows: the events it keeps per spiking module are exactly the events of what
// Module::evolve() records for a fresh copy of the model (the two-layer LIF example run as a
// chain network, a Poisson source driving a LIF layer), over the whole run or the last window of
// steps, listed in tree order with the signal evolve() uses. The events cap moves a window's
// first step forward (whole steps, as far as needed and no further) while the traces keep their
// steps; recording() then shows the spikes of the window's steps. A dense spike series in
// recording() is cut to maxWindowValues floats (its last steps) while its window keeps all.
// Offscreen; no timing assertions.
#include "tests/live_run_test_helpers.hpp"
#include "ui/run/live_run.hpp"

#include "engine/neurons/lif.hpp"
#include "engine/io/model_io.hpp"
#include "engine/network/network.hpp"
#include "engine/sources/sources.hpp"

#include <QFile>
#include <QtTest/QtTest>

#include <algorithm>
#include <cstring>

using spike::engine::AttributeMap;
using spike::engine::Module;
using spike::engine::Recording;
using spike::engine::Shape;
using spike::engine::SpikeEvent;
using spike::engine::Tensor;
using spike::engine::TimeSeries;
using spike::ui::LiveRun;
using spike::ui::LiveRunOptions;
using spike::engine::SpikeWindow;

namespace {

using namespace spike::tests;  // the shared helpers (live_run_test_helpers.hpp)
constexpr auto kWait = kLiveRunWait;

/// The events of `ref` (a dense spike series from step 0) in steps [from, to).
std::vector<SpikeEvent> eventsOf(const TimeSeries& ref, std::int64_t from, std::int64_t to)
{
    const SpikeWindow all = SpikeWindow::fromDense(ref);
    std::vector<SpikeEvent> out;
    for (const SpikeEvent& e : all.events()) {
        if (e.step >= from && e.step < to) {
            out.push_back(e);
        }
    }
    return out;
}

/// "" when `window` covers [from, to) and holds exactly the events of `ref` there.
QString compareWindow(const SpikeWindow& window, const TimeSeries& ref, std::int64_t from,
                      std::int64_t to)
{
    if (window.firstStep() != from || window.endStep() != to) {
        return QStringLiteral("window [%1, %2), expected [%3, %4)")
            .arg(window.firstStep())
            .arg(window.endStep())
            .arg(from)
            .arg(to);
    }
    const std::vector<SpikeEvent> expected = eventsOf(ref, from, to);
    const auto live = window.events();
    if (!std::equal(live.begin(), live.end(), expected.begin(), expected.end())) {
        return QStringLiteral("%1 events, expected %2 (or they differ)")
            .arg(live.size())
            .arg(expected.size());
    }
    return {};
}

}  // namespace

class TestLiveRunSpikes : public QObject {
    Q_OBJECT

private slots:
    void spikeWindowsHoldTheEngineEvents()
    {
        LiveRun live(loadExample(QStringLiteral("two_layer_lif.json")), QStringLiteral("0"));
        live.step(150);
        live.step(250);
        QVERIFY(live.waitIdle(kWait));
        const Recording ref = evolveAll(loadExample(QStringLiteral("two_layer_lif.json")), 400);
        const spike::engine::SpikeWindows windows = live.spikeWindows();
        QCOMPARE(windows.size(), std::size_t{2});
        QCOMPARE(windows[0].path, std::string("0"));
        QCOMPARE(windows[1].path, std::string("1"));
        for (const auto& named : windows) {
            QCOMPARE(named.signal, std::string("spikes"));
            QVERIFY(named.window->eventCount() > 0);
            const QString diff = compareWindow(*named.window, ref.at(named.path).at("spikes"), 0, 400);
            QVERIFY2(diff.isEmpty(), qPrintable(QString::fromStdString(named.path) + ": " + diff));
        }
    }

    void windowsFollowTheLastStepsInTreeOrder()
    {
        LiveRunOptions options;
        options.maxWindowSteps = 100;
        LiveRun live(poissonNetwork(), QStringLiteral("lif"), options);
        const Recording ref = evolveAll(poissonNetwork(), 250);
        for (const std::int64_t steps : {40, 90, 120}) {
            live.step(steps);
            QVERIFY(live.waitIdle(kWait));
            const spike::engine::SpikeWindows windows = live.spikeWindows();
            QCOMPARE(windows.size(), std::size_t{2});
            QCOMPARE(windows[0].path, std::string("src"));
            QCOMPARE(windows[0].signal, std::string("output"));
            QCOMPARE(windows[1].path, std::string("lif"));
            const std::int64_t end = live.currentStep();
            for (const auto& named : windows) {
                const QString diff = compareWindow(*named.window, ref.at(named.path).at(named.signal),
                                                   std::max<std::int64_t>(0, end - 100), end);
                QVERIFY2(diff.isEmpty(), qPrintable(QString::fromStdString(named.path) + ": " + diff));
            }
        }
    }

    void theEventsCapMovesTheWindowStart()
    {
        constexpr std::int64_t kCap = 40;
        LiveRunOptions options;
        options.maxWindowEvents = kCap;
        LiveRun live(poissonNetwork(), QStringLiteral("lif"), options);
        live.step(300);
        QVERIFY(live.waitIdle(kWait));
        const Recording ref = evolveAll(poissonNetwork(), 300);
        const Recording& recording = live.recording();
        const auto windows = live.spikeWindows();
        QCOMPARE(windows.size(), std::size_t{2});
        for (const auto& named : windows) {
            const SpikeWindow& window = *named.window;
            const TimeSeries& series = ref.at(named.path).at(named.signal);
            QVERIFY(window.eventCount() <= kCap);
            QVERIFY(window.firstStep() > 0);
            QString diff = compareWindow(window, series, window.firstStep(), 300);
            QVERIFY2(diff.isEmpty(), qPrintable(diff));
            // No further than needed: one more step would not fit.
            QVERIFY(static_cast<std::int64_t>(eventsOf(series, window.firstStep() - 1, 300).size()) > kCap);
            // recording() shows the same steps.
            const TimeSeries& dense = recording.at(named.path).at(named.signal);
            QCOMPARE(dense.data.dim(0), window.steps());
            QCOMPARE(dense.tStart, static_cast<double>(window.firstStep()) * live.timeStep());
            QVERIFY(std::memcmp(dense.data.data(), series.data.data() + window.firstStep() * 6,
                                static_cast<std::size_t>(dense.data.numel()) * sizeof(float)) == 0);
        }
        // The trace keeps every step of the window.
        const TimeSeries* vmem = live.traceSeries(live.primaryTraceId());
        QVERIFY(vmem != nullptr);
        QCOMPARE(vmem->data.dim(0), std::int64_t{300});
        QCOMPARE(vmem->tStart, 0.0);
    }

    void denseSpikesInTheRecordingAreCapped()
    {
        LiveRunOptions options;
        options.maxWindowValues = 60;  // one traced channel: a 60-step window; 6 spike channels
        LiveRun live(poissonNetwork(), QString(), options);
        const int trace = live.addTrace(QStringLiteral("lif"), "vmem", {0});
        QVERIFY(trace > 0);
        QCOMPARE(live.window(), std::int64_t{60});
        live.step(100);
        QVERIFY(live.waitIdle(kWait));
        const Recording ref = evolveAll(poissonNetwork(), 100);
        for (const auto& named : live.spikeWindows()) {
            QCOMPARE(named.window->steps(), std::int64_t{60});
            const TimeSeries& dense = live.recording().at(named.path).at(named.signal);
            QCOMPARE(dense.data.dim(0), std::int64_t{10});  // 60 floats of 6 channels
            QCOMPARE(dense.tStart, 90 * live.timeStep());
            QVERIFY(std::memcmp(dense.data.data(), ref.at(named.path).at(named.signal).data.data() + 90 * 6,
                                static_cast<std::size_t>(60) * sizeof(float)) == 0);
        }
        QCOMPARE(live.traceSeries(trace)->data.dim(0), std::int64_t{60});
    }
};

QTEST_MAIN(TestLiveRunSpikes)
#include "test_live_run_spikes.moc"
