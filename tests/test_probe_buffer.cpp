// ProbeBuffer: continuous rows in order, the drop-oldest overflow policy with exact drop counts
// (chunks smaller and larger than the capacity, wrap-around), spikes as (step, neuron, count)
// events, span restarts and clear(), a randomised run against a plain deque model, and a
// producer thread pushing while a consumer thread takes (every row or event is either received
// or counted as dropped, in step order).
#include "engine/tensor/error.hpp"
#include "engine/runtime/probe_buffer.hpp"
#include "engine/tensor/random.hpp"

#include <QtTest/QtTest>

#include <atomic>
#include <cstdint>
#include <deque>
#include <thread>
#include <vector>

using namespace spike::engine;  // NOLINT: test file

namespace {

/// The value the tests store at (step, channel): unique, exact in float32 for step < 2^20.
float valueAt(std::int64_t step, std::int64_t channel)
{
    return static_cast<float>(step * 8 + channel);
}

/// Rows [first, first + steps) of `width` channels filled with valueAt().
std::vector<float> rowsFor(std::int64_t first, std::int64_t steps, std::int64_t width)
{
    std::vector<float> rows;
    for (std::int64_t t = first; t < first + steps; ++t) {
        for (std::int64_t j = 0; j < width; ++j) {
            rows.push_back(valueAt(t, j));
        }
    }
    return rows;
}

/// Dense spike counts for `steps` steps: neuron j fires (t + j) % 3 times in step t, so silent,
/// single and double spikes all occur.
std::vector<float> spikeRows(std::int64_t first, std::int64_t steps, std::int64_t width)
{
    std::vector<float> rows;
    for (std::int64_t t = first; t < first + steps; ++t) {
        for (std::int64_t j = 0; j < width; ++j) {
            rows.push_back(static_cast<float>((t + j) % 3));
        }
    }
    return rows;
}

/// The events spikeRows() holds.
std::vector<SpikeEvent> spikeEvents(std::int64_t first, std::int64_t steps, std::int64_t width)
{
    std::vector<SpikeEvent> events;
    for (std::int64_t t = first; t < first + steps; ++t) {
        for (std::int64_t j = 0; j < width; ++j) {
            const auto count = static_cast<std::int32_t>((t + j) % 3);
            if (count > 0) {
                events.push_back({t, static_cast<std::int32_t>(j), count});
            }
        }
    }
    return events;
}

void checkRows(const ProbeSnapshot& snap, std::int64_t first, std::int64_t steps)
{
    QCOMPARE(snap.firstStep, first);
    QCOMPARE(snap.steps, steps);
    QCOMPARE(snap.values, rowsFor(first, steps, snap.width));
    QVERIFY(snap.events.empty());
}

}  // namespace

class TestProbeBuffer : public QObject {
    Q_OBJECT

private slots:
    void rejectsBadSizes()
    {
        QVERIFY_THROWS_EXCEPTION(Error, ProbeBuffer(0, false, 10));
        QVERIFY_THROWS_EXCEPTION(Error, ProbeBuffer(3, true, 0));
    }

    void continuousRowsInOrder()
    {
        ProbeBuffer buffer(3, false, 100);
        const auto a = rowsFor(5, 4, 3);
        const auto b = rowsFor(9, 6, 3);
        buffer.push(5, 4, a.data());
        buffer.push(9, 6, b.data());
        const ProbeSnapshot snap = buffer.take();
        QCOMPARE(snap.width, std::int64_t{3});
        QCOMPARE(snap.dropped, std::int64_t{0});
        checkRows(snap, 5, 10);
        // Taken: the next snapshot is empty and starts where this one ended.
        const ProbeSnapshot empty = buffer.take();
        checkRows(empty, 15, 0);
        const auto c = rowsFor(15, 2, 3);
        buffer.push(15, 2, c.data());
        checkRows(buffer.take(), 15, 2);
        QCOMPARE(buffer.totalDropped(), std::int64_t{0});
    }

    void overflowDropsOldestAndCountsThem()
    {
        ProbeBuffer buffer(3, false, 10);
        for (std::int64_t first = 0; first < 21; first += 7) {
            const auto rows = rowsFor(first, 7, 3);
            buffer.push(first, 7, rows.data());
        }
        // 21 rows pushed into 10: rows 11..20 kept, the 11 oldest dropped.
        const ProbeSnapshot snap = buffer.take();
        checkRows(snap, 11, 10);
        QCOMPARE(snap.dropped, std::int64_t{11});
        QCOMPARE(buffer.totalDropped(), std::int64_t{11});
        // The count restarts per take; the total keeps growing.
        const auto more = rowsFor(21, 4, 3);
        buffer.push(21, 4, more.data());
        const ProbeSnapshot next = buffer.take();
        checkRows(next, 21, 4);
        QCOMPARE(next.dropped, std::int64_t{0});
        QCOMPARE(buffer.totalDropped(), std::int64_t{11});
    }

    void chunkLargerThanCapacity()
    {
        ProbeBuffer buffer(2, false, 5);
        const auto first = rowsFor(0, 3, 2);
        buffer.push(0, 3, first.data());
        const auto big = rowsFor(3, 12, 2);
        buffer.push(3, 12, big.data());
        const ProbeSnapshot snap = buffer.take();
        checkRows(snap, 10, 5);
        QCOMPARE(snap.dropped, std::int64_t{10});  // 3 pending + the chunk's 7 oldest
    }

    void spikesBecomeEventsWithCounts()
    {
        ProbeBuffer buffer(4, true, 1000);
        const auto a = spikeRows(0, 5, 4);
        const auto b = spikeRows(5, 3, 4);
        buffer.push(0, 5, a.data());
        buffer.push(5, 3, b.data());
        const ProbeSnapshot snap = buffer.take();
        QCOMPARE(snap.firstStep, std::int64_t{0});
        QCOMPARE(snap.steps, std::int64_t{8});
        QVERIFY(snap.values.empty());
        QCOMPARE(snap.events, spikeEvents(0, 8, 4));
        QVERIFY(std::any_of(snap.events.begin(), snap.events.end(),
                            [](const SpikeEvent& e) { return e.count == 2; }));
        // A silent span still reports the steps it covered.
        const std::vector<float> silent(4 * 6, 0.0F);
        buffer.push(8, 6, silent.data());
        const ProbeSnapshot quiet = buffer.take();
        QCOMPARE(quiet.firstStep, std::int64_t{8});
        QCOMPARE(quiet.steps, std::int64_t{6});
        QVERIFY(quiet.events.empty());
    }

    void spikeOverflowKeepsNewestEvents()
    {
        ProbeBuffer buffer(4, true, 7);
        const auto all = spikeEvents(0, 20, 4);
        for (std::int64_t first = 0; first < 20; first += 3) {
            const std::int64_t steps = std::min<std::int64_t>(3, 20 - first);
            const auto rows = spikeRows(first, steps, 4);
            buffer.push(first, steps, rows.data());
        }
        const ProbeSnapshot snap = buffer.take();
        const std::vector<SpikeEvent> newest(all.end() - 7, all.end());
        QCOMPARE(snap.events, newest);
        QCOMPARE(snap.dropped, static_cast<std::int64_t>(all.size()) - 7);
        QCOMPARE(snap.firstStep, std::int64_t{0});
        QCOMPARE(snap.steps, std::int64_t{20});
    }

    void discontinuityAndClear()
    {
        ProbeBuffer buffer(1, false, 50);
        const auto a = rowsFor(0, 5, 1);
        buffer.push(0, 5, a.data());
        // A jump (here back to step 0, as after a state reset) drops the pending rows, counted.
        const auto b = rowsFor(0, 3, 1);
        buffer.push(0, 3, b.data());
        ProbeSnapshot snap = buffer.take();
        checkRows(snap, 0, 3);
        QCOMPARE(snap.dropped, std::int64_t{5});
        // clear() discards without counting.
        const auto c = rowsFor(3, 4, 1);
        buffer.push(3, 4, c.data());
        buffer.clear();
        buffer.push(0, 2, b.data());
        snap = buffer.take();
        checkRows(snap, 0, 2);
        QCOMPARE(snap.dropped, std::int64_t{0});
        QCOMPARE(buffer.totalDropped(), std::int64_t{5});
    }

    void randomisedAgainstDequeModel()
    {
        Random rng(7);
        const std::int64_t width = 3;
        const std::int64_t capacity = 37;
        ProbeBuffer buffer(width, false, capacity);
        std::deque<std::int64_t> model;  // steps of the pending rows
        std::int64_t next = 0;
        std::int64_t modelDropped = 0;
        for (int iteration = 0; iteration < 2000; ++iteration) {
            if (rng.uniform(0.0, 1.0) < 0.7) {
                const auto steps = static_cast<std::int64_t>(rng.uniform(1.0, 60.0));
                const auto rows = rowsFor(next, steps, width);
                buffer.push(next, steps, rows.data());
                for (std::int64_t t = next; t < next + steps; ++t) {
                    model.push_back(t);
                }
                while (static_cast<std::int64_t>(model.size()) > capacity) {
                    model.pop_front();
                    ++modelDropped;
                }
                next += steps;
            } else {
                const ProbeSnapshot snap = buffer.take();
                const std::int64_t expectFirst = model.empty() ? next : model.front();
                checkRows(snap, expectFirst, static_cast<std::int64_t>(model.size()));
                QCOMPARE(snap.dropped, modelDropped);
                model.clear();
                modelDropped = 0;
            }
        }
    }

    void producerAndConsumerThreads()
    {
        const std::int64_t width = 5;
        const std::int64_t total = 60000;
        ProbeBuffer rows(width, false, 300);
        ProbeBuffer spikes(width, true, 200);
        std::atomic<bool> done{false};
        std::thread producer([&] {
            Random rng(3);
            std::int64_t first = 0;
            while (first < total) {
                const std::int64_t steps =
                    std::min(total - first, static_cast<std::int64_t>(rng.uniform(1.0, 40.0)));
                const auto dense = rowsFor(first, steps, width);
                const auto counts = spikeRows(first, steps, width);
                rows.push(first, steps, dense.data());
                spikes.push(first, steps, counts.data());
                first += steps;
            }
            done.store(true);
        });
        std::int64_t rowEnd = 0;
        std::int64_t rowsSeen = 0;
        std::int64_t rowsDropped = 0;
        std::int64_t eventsSeen = 0;
        std::int64_t eventsDropped = 0;
        std::int64_t spikeEnd = 0;
        bool finished = false;
        while (!finished) {
            finished = done.load();  // one last round after the producer is done
            const ProbeSnapshot r = rows.take();
            // Drops are the oldest rows: each snapshot resumes exactly after them.
            QCOMPARE(r.firstStep, rowEnd + r.dropped);
            QCOMPARE(r.values, rowsFor(r.firstStep, r.steps, width));
            rowEnd = r.firstStep + r.steps;
            rowsSeen += r.steps;
            rowsDropped += r.dropped;

            const ProbeSnapshot s = spikes.take();
            if (s.steps > 0) {
                QCOMPARE(s.firstStep, spikeEnd);
                spikeEnd = s.firstStep + s.steps;
            }
            for (std::size_t k = 1; k < s.events.size(); ++k) {
                const SpikeEvent& a = s.events[k - 1];
                const SpikeEvent& b = s.events[k];
                QVERIFY(a.step < b.step || (a.step == b.step && a.neuron < b.neuron));
            }
            for (const SpikeEvent& e : s.events) {
                QVERIFY(e.step >= s.firstStep && e.step < s.firstStep + s.steps);
                QCOMPARE(static_cast<std::int64_t>(e.count), (e.step + e.neuron) % 3);
            }
            eventsSeen += static_cast<std::int64_t>(s.events.size());
            eventsDropped += s.dropped;
        }
        producer.join();
        QCOMPARE(rowEnd, total);
        QCOMPARE(rowsSeen + rowsDropped, total);
        QCOMPARE(rowsDropped, rows.totalDropped());
        QCOMPARE(spikeEnd, total);
        QCOMPARE(eventsSeen + eventsDropped,
                 static_cast<std::int64_t>(spikeEvents(0, total, width).size()));
        QCOMPARE(eventsDropped, spikes.totalDropped());
    }
};

QTEST_GUILESS_MAIN(TestProbeBuffer)
#include "test_probe_buffer.moc"
