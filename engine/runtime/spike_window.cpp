// SpikeWindow. See spike_window.hpp.
#include "engine/runtime/spike_window.hpp"

#include "engine/tensor/error.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <string>

namespace spike::engine {

namespace {

std::uint64_t nextId()
{
    static std::atomic<std::uint64_t> counter{0};
    return ++counter;
}

}  // namespace

SpikeWindow::SpikeWindow(std::int64_t width) : m_width(width), m_id(nextId()) {}

void SpikeWindow::restart(std::int64_t step)
{
    m_id = nextId();
    m_events.clear();  // keeps its capacity
    m_head = 0;
    m_eventBase = 0;
    m_marks.clear();
    m_markHead = 0;
    m_appendedSpikes = 0;
    m_first = step;
    m_end = step;
    m_spikes = 0;
}

void SpikeWindow::append(std::span<const engine::SpikeEvent> events, std::int64_t newEnd)
{
    if (newEnd < m_end) {
        throw engine::Error("SpikeWindow: the new end step " + std::to_string(newEnd) +
                            " lies before the window's end " + std::to_string(m_end));
    }
    // Step by step: a step's events end where the first later step begins (a binary search);
    // each run is checked without branches (same step, neuron and count in range) and summed,
    // and the next run must start at a later step, so the events are in step order exactly when
    // every run passes. Then one block copy. A bad event takes the new marks back out.
    const std::size_t marksBefore = m_marks.size();
    const std::size_t n = events.size();
    const std::int64_t width = m_width;
    std::int64_t event = m_eventBase + static_cast<std::int64_t>(m_events.size());
    std::int64_t spikes = m_appendedSpikes;
    std::int64_t previous = m_end - 1;
    bool bad = false;
    for (std::size_t i = 0; i < n && !bad;) {
        const std::int64_t step = events[i].step;
        const auto runEnd =
            std::upper_bound(events.begin() + static_cast<std::ptrdiff_t>(i), events.end(), step,
                             [](std::int64_t s, const engine::SpikeEvent& e) { return s < e.step; });
        const auto j = static_cast<std::size_t>(runEnd - events.begin());
        bool runBad = step <= previous || step >= newEnd;
        std::int64_t runSpikes = 0;
        for (std::size_t k = i; k < j; ++k) {
            const engine::SpikeEvent& e = events[k];
            runBad |= (e.step != step) | (e.neuron < 0) | (e.neuron >= width) | (e.count < 1);
            runSpikes += e.count;
        }
        bad = runBad;
        m_marks.push_back({step, event, spikes});
        event += static_cast<std::int64_t>(j - i);
        spikes += runSpikes;
        previous = step;
        i = j;
    }
    if (bad) {
        m_marks.resize(marksBefore);
        throw engine::Error("SpikeWindow: events out of step order, outside steps [" + std::to_string(m_end) +
                            ", " + std::to_string(newEnd) + "), with a neuron outside [0, " +
                            std::to_string(m_width) + ") or a count below 1");
    }
    m_events.insert(m_events.end(), events.data(), events.data() + n);  // pointers: one memmove
    m_spikes += spikes - m_appendedSpikes;
    m_appendedSpikes = spikes;
    m_end = newEnd;
}

void SpikeWindow::trimBefore(std::int64_t step)
{
    if (step <= m_first) {
        return;
    }
    m_first = std::min(step, m_end);
    while (m_markHead < m_marks.size() && m_marks[m_markHead].step < m_first) {
        ++m_markHead;
    }
    if (m_markHead < m_marks.size()) {
        const StepMark& mark = m_marks[m_markHead];
        m_head = static_cast<std::size_t>(mark.event - m_eventBase);
        m_spikes = m_appendedSpikes - mark.spikesBefore;
    } else {
        m_head = m_events.size();
        m_spikes = 0;
    }
    compact();
}

void SpikeWindow::trimToEvents(std::int64_t maxEvents)
{
    const std::int64_t excess = eventCount() - std::max<std::int64_t>(0, maxEvents);
    if (excess <= 0) {
        return;
    }
    const std::int64_t lastDropped = m_events[m_head + static_cast<std::size_t>(excess) - 1].step;
    trimBefore(lastDropped + 1);
}

void SpikeWindow::compact()
{
    if (m_head > m_events.size() / 2) {
        m_events.erase(m_events.begin(), m_events.begin() + static_cast<std::ptrdiff_t>(m_head));
        m_eventBase += static_cast<std::int64_t>(m_head);
        m_head = 0;
    }
    if (m_markHead > m_marks.size() / 2) {
        m_marks.erase(m_marks.begin(), m_marks.begin() + static_cast<std::ptrdiff_t>(m_markHead));
        m_markHead = 0;
    }
}

engine::TimeSeries SpikeWindow::toDense(double dt, std::int64_t maxSteps) const
{
    const std::int64_t rows = std::clamp<std::int64_t>(maxSteps, 0, steps());
    const std::int64_t from = m_end - rows;
    engine::TimeSeries out;
    out.data = engine::Tensor(engine::Shape{rows, m_width});
    out.dt = dt;
    out.tStart = static_cast<double>(from) * dt;
    out.spikes = true;
    float* d = out.data.data();
    const std::span<const engine::SpikeEvent> live = events();
    const auto begin = std::partition_point(live.begin(), live.end(),
                                            [from](const engine::SpikeEvent& e) { return e.step < from; });
    for (auto e = begin; e != live.end(); ++e) {
        d[(e->step - from) * m_width + e->neuron] = static_cast<float>(e->count);
    }
    return out;
}

SpikeWindow SpikeWindow::fromDense(const engine::TimeSeries& series)
{
    const engine::Tensor& data = series.data;
    const std::int64_t rows = data.rank() >= 1 ? data.dim(0) : 0;
    const std::int64_t width = rows > 0 ? data.numel() / rows : 0;
    const std::int64_t first =
        series.dt > 0.0 ? static_cast<std::int64_t>(std::llround(series.tStart / series.dt)) : 0;
    std::vector<engine::SpikeEvent> events;
    const float* d = data.data();
    for (std::int64_t t = 0; t < rows; ++t) {
        for (std::int64_t n = 0; n < width; ++n) {
            const float c = d[t * width + n];
            if (c > 0.0F) {
                const auto count = std::max<std::int64_t>(1, std::llround(c));
                events.push_back({first + t, static_cast<std::int32_t>(n), static_cast<std::int32_t>(count)});
            }
        }
    }
    SpikeWindow out(width);
    out.restart(first);
    out.append(events, first + rows);
    return out;
}

SpikeSummary summariseSpikes(const Recording& recording)
{
    SpikeSummary out;
    for (const auto& [path, bySignal] : recording) {
        for (const auto& [attr, series] : bySignal) {
            if (!series.spikes) {
                continue;
            }
            ++out.series;
            const Tensor& d = series.data;
            for (std::int64_t i = 0; i < d.numel(); ++i) {
                const float c = d[i];
                if (c > 0.0F) {
                    out.spikes += static_cast<std::int64_t>(std::llround(c));
                    ++out.events;
                    out.multi += c > 1.0F ? 1 : 0;
                }
            }
        }
    }
    return out;
}

SpikeSummary summariseSpikes(const SpikeWindows& windows)
{
    SpikeSummary out;
    for (const NamedSpikeWindow& named : windows) {
        const SpikeWindow& window = *named.window;
        ++out.series;
        out.spikes += window.spikeCount();
        out.events += window.eventCount();
        if (window.spikeCount() > window.eventCount()) {
            for (const SpikeEvent& e : window.events()) {
                out.multi += e.count > 1 ? 1 : 0;
            }
        }
    }
    return out;
}

}  // namespace spike::engine
