// SpikeWindow: the rolling spike events of one module. Random (seeded) appends and trims,
// thousands of them so that the buffer compacts many times, always hold what a dense reference
// of the same steps holds: toDense() equals it bit for bit, eventCount() and spikeCount() equal
// its non-zero entries and its sum, firstStep() / endStep() follow the trims. Also: bad events are
// refused and leave the window as it was; trimToEvents() drops whole steps only and keeps the
// newest one; fromDense() and toDense() are inverse; toDense() with fewer steps keeps the last.
#include "engine/runtime/spike_window.hpp"

#include "engine/tensor/error.hpp"

#include <QtTest/QtTest>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <vector>

using spike::engine::SpikeEvent;
using spike::engine::TimeSeries;
using spike::engine::SpikeWindow;

namespace {

/// The dense reference: step -> row of counts, over [first, end).
struct Dense {
    std::int64_t width = 0;
    std::int64_t first = 0;
    std::int64_t end = 0;
    std::map<std::int64_t, std::vector<float>> rows;

    void trimBefore(std::int64_t step)
    {
        first = std::clamp(step, first, end);
        rows.erase(rows.begin(), rows.lower_bound(first));
    }
    std::int64_t events() const
    {
        std::int64_t n = 0;
        for (const auto& [step, row] : rows) {
            n += std::count_if(row.begin(), row.end(), [](float c) { return c > 0.0F; });
        }
        return n;
    }
    std::int64_t spikes() const
    {
        double n = 0.0;
        for (const auto& [step, row] : rows) {
            for (const float c : row) {
                n += c;
            }
        }
        return static_cast<std::int64_t>(n);
    }
};

/// "" when `window` holds exactly what `ref` holds; else what differs.
QString compare(const SpikeWindow& window, const Dense& ref, double dt)
{
    if (window.firstStep() != ref.first || window.endStep() != ref.end) {
        return QStringLiteral("window [%1, %2), expected [%3, %4)")
            .arg(window.firstStep())
            .arg(window.endStep())
            .arg(ref.first)
            .arg(ref.end);
    }
    if (window.eventCount() != ref.events() || window.spikeCount() != ref.spikes()) {
        return QStringLiteral("%1 events / %2 spikes, expected %3 / %4")
            .arg(window.eventCount())
            .arg(window.spikeCount())
            .arg(ref.events())
            .arg(ref.spikes());
    }
    const TimeSeries dense = window.toDense(dt);
    const std::int64_t steps = ref.end - ref.first;
    if (dense.data.rank() != 2 || dense.data.dim(0) != steps || dense.data.dim(1) != ref.width ||
        !dense.spikes || dense.dt != dt || dense.tStart != static_cast<double>(ref.first) * dt) {
        return QStringLiteral("dense shape or time base differ");
    }
    std::vector<float> expected(static_cast<std::size_t>(steps * ref.width), 0.0F);
    for (const auto& [step, row] : ref.rows) {
        std::copy(row.begin(), row.end(), expected.begin() + (step - ref.first) * ref.width);
    }
    if (!expected.empty() &&
        std::memcmp(expected.data(), dense.data.data(), expected.size() * sizeof(float)) != 0) {
        return QStringLiteral("dense values differ");
    }
    return {};
}

}  // namespace

class TestSpikeWindow : public QObject {
    Q_OBJECT

private slots:
    void randomAppendsAndTrimsMatchADenseReference()
    {
        constexpr std::int64_t kWidth = 37;
        constexpr double kDt = 1e-3;
        std::mt19937 rng(12345);
        SpikeWindow window(kWidth);
        Dense ref;
        ref.width = kWidth;
        window.restart(5);
        ref.first = ref.end = 5;
        for (int op = 0; op < 4000; ++op) {
            const int kind = std::uniform_int_distribution<int>(0, 9)(rng);
            if (kind < 6) {
                // Append 0..6 steps, some of them empty, with random neurons and counts.
                const std::int64_t steps = std::uniform_int_distribution<std::int64_t>(0, 6)(rng);
                std::vector<SpikeEvent> events;
                for (std::int64_t s = ref.end; s < ref.end + steps; ++s) {
                    std::vector<float> row(kWidth, 0.0F);
                    const double p = std::uniform_real_distribution<double>(0.0, 0.5)(rng);
                    for (std::int32_t n = 0; n < kWidth; ++n) {
                        if (std::bernoulli_distribution(p)(rng)) {
                            const int count = std::uniform_int_distribution<int>(1, 3)(rng);
                            events.push_back({s, n, count});
                            row[static_cast<std::size_t>(n)] = static_cast<float>(count);
                        }
                    }
                    ref.rows[s] = row;
                }
                ref.end += steps;
                window.append(events, ref.end);
            } else if (kind < 8) {
                // Keep the last 0..40 steps.
                const std::int64_t keep = std::uniform_int_distribution<std::int64_t>(0, 40)(rng);
                window.trimBefore(ref.end - keep);
                ref.trimBefore(ref.end - keep);
            } else {
                // Keep at most 0..300 events, whole steps.
                const std::int64_t cap = std::uniform_int_distribution<std::int64_t>(0, 300)(rng);
                window.trimToEvents(cap);
                while (ref.events() > cap) {
                    ref.trimBefore(ref.rows.begin()->first + 1);
                }
                QVERIFY(window.eventCount() <= cap);
            }
            const QString diff = compare(window, ref, kDt);
            QVERIFY2(diff.isEmpty(), qPrintable(QStringLiteral("after op %1: %2").arg(op).arg(diff)));
        }
    }

    void eventsComeBackInStepOrder()
    {
        SpikeWindow window(4);
        const std::vector<SpikeEvent> events{{0, 3, 1}, {0, 1, 2}, {2, 0, 1}};
        window.append(events, 3);
        const auto live = window.events();
        QCOMPARE(static_cast<std::int64_t>(live.size()), std::int64_t{3});
        QVERIFY(std::equal(live.begin(), live.end(), events.begin()));
        QCOMPARE(window.spikeCount(), std::int64_t{4});
        window.trimBefore(1);
        QCOMPARE(window.eventCount(), std::int64_t{1});
        QCOMPARE(window.events().front(), (SpikeEvent{2, 0, 1}));
        QCOMPARE(window.steps(), std::int64_t{2});  // steps 1 and 2, one of them empty
    }

    void badEventsAreRefusedAndChangeNothing()
    {
        SpikeWindow window(4);
        window.append(std::vector<SpikeEvent>{{0, 1, 1}, {1, 2, 1}}, 2);
        const std::vector<std::vector<SpikeEvent>> bad{
            {{1, 0, 1}},             // before the window's end
            {{3, 0, 1}, {2, 0, 1}},  // out of step order
            {{2, 4, 1}},             // neuron out of range
            {{2, -1, 1}},
            {{2, 0, 0}},             // no spike
            {{5, 0, 1}},             // at or past the new end
        };
        for (const auto& events : bad) {
            QVERIFY_THROWS_EXCEPTION(spike::engine::Error, window.append(events, 5));
            QCOMPARE(window.endStep(), std::int64_t{2});
            QCOMPARE(window.eventCount(), std::int64_t{2});
            QCOMPARE(window.spikeCount(), std::int64_t{2});
        }
        QVERIFY_THROWS_EXCEPTION(spike::engine::Error, window.append({}, 1));  // end going back
    }

    void trimToEventsDropsWholeStepsAndKeepsTheNewest()
    {
        SpikeWindow window(3);
        // Step 10: 3 events, 11: none, 12: 2, 13: 3.
        window.restart(10);
        window.append(std::vector<SpikeEvent>{{10, 0, 1}, {10, 1, 1}, {10, 2, 1}, {12, 0, 2},
                                              {12, 2, 1}, {13, 0, 1}, {13, 1, 1}, {13, 2, 1}},
                      14);
        window.trimToEvents(7);  // one event too many: step 10 goes whole
        QCOMPARE(window.firstStep(), std::int64_t{11});
        QCOMPARE(window.eventCount(), std::int64_t{5});
        QCOMPARE(window.spikeCount(), std::int64_t{6});
        window.trimToEvents(3);
        QCOMPARE(window.firstStep(), std::int64_t{13});
        QCOMPARE(window.eventCount(), std::int64_t{3});
        window.trimToEvents(0);
        QCOMPARE(window.firstStep(), std::int64_t{14});
        QCOMPARE(window.steps(), std::int64_t{0});
    }

    void denseRoundTrip()
    {
        std::mt19937 rng(99);
        TimeSeries series;
        series.dt = 1e-4;
        series.tStart = 7 * series.dt;
        series.spikes = true;
        series.data = spike::engine::Tensor(spike::engine::Shape{50, 11});
        for (std::int64_t i = 0; i < series.data.numel(); ++i) {
            series.data[i] = static_cast<float>(std::uniform_int_distribution<int>(0, 6)(rng) / 3);
        }
        const SpikeWindow window = SpikeWindow::fromDense(series);
        QCOMPARE(window.firstStep(), std::int64_t{7});
        QCOMPARE(window.endStep(), std::int64_t{57});
        QCOMPARE(window.width(), std::int64_t{11});
        const TimeSeries back = window.toDense(series.dt);
        QCOMPARE(back.data.shape(), series.data.shape());
        QVERIFY(std::memcmp(back.data.data(), series.data.data(),
                            static_cast<std::size_t>(series.data.numel()) * sizeof(float)) == 0);
        QCOMPARE(back.tStart, series.tStart);

        // The last 20 steps only.
        const TimeSeries tail = window.toDense(series.dt, 20);
        QCOMPARE(tail.data.dim(0), std::int64_t{20});
        QCOMPARE(tail.tStart, 37 * series.dt);
        QVERIFY(std::memcmp(tail.data.data(), series.data.data() + 30 * 11,
                            static_cast<std::size_t>(20 * 11) * sizeof(float)) == 0);
    }
};

QTEST_MAIN(TestSpikeWindow)
#include "test_spike_window.moc"
