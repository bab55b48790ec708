// ProbeBuffer: ring stores, the oldest-first overflow policy and the O(1) swap hand-off. See
// probe_buffer.hpp for the threading contract.
#include "engine/runtime/probe_buffer.hpp"

#include "engine/tensor/error.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

namespace spike::engine {

ProbeBuffer::ProbeBuffer(std::int64_t width, bool spikes, std::int64_t capacity)
    : m_width(width), m_spikes(spikes), m_capacity(capacity)
{
    if (width < 1) {
        throw Error("ProbeBuffer: width " + std::to_string(width) + " is invalid; expected >= 1");
    }
    if (capacity < 1) {
        throw Error("ProbeBuffer: capacity " + std::to_string(capacity) +
                    " is invalid; expected >= 1 " + (spikes ? "event" : "row"));
    }
}

void ProbeBuffer::push(std::int64_t firstStep, std::int64_t steps, const float* rows)
{
    pushImpl(firstStep, steps, rows, nullptr);
}

void ProbeBuffer::push(std::int64_t firstStep, std::int64_t steps, const float* rows,
                       const SpikeLists& lists)
{
    pushImpl(firstStep, steps, rows, &lists);
}

void ProbeBuffer::pushImpl(std::int64_t firstStep, std::int64_t steps, const float* rows,
                           const SpikeLists* lists)
{
    if (steps <= 0) {
        return;
    }
    std::lock_guard<std::mutex> lock(m_mutex);
    if (!m_front.open || firstStep != m_front.endStep) {
        if (m_front.open) {
            addDropped(m_spikes ? m_front.events.size : m_front.rows.size);
        }
        startSpan(firstStep);
    }
    if (m_spikes) {
        pushEvents(firstStep, steps, rows, lists);
    } else {
        pushRows(steps, rows);
    }
    m_front.endStep = firstStep + steps;
}

void ProbeBuffer::clear()
{
    std::lock_guard<std::mutex> lock(m_mutex);
    m_front.rows.reset();
    m_front.events.reset();
    m_front.open = false;
}

void ProbeBuffer::startSpan(std::int64_t firstStep)
{
    m_front.rows.reset();
    m_front.events.reset();
    m_front.firstStep = firstStep;
    m_front.endStep = firstStep;
    m_front.open = true;
}

void ProbeBuffer::addDropped(std::int64_t records)
{
    if (records > 0) {
        m_front.dropped += records;
        m_totalDropped.fetch_add(records, std::memory_order_relaxed);
    }
}

void ProbeBuffer::dropFront(std::int64_t records)
{
    Ring<float>& ring = m_front.rows;
    ring.head = (ring.head + records) % m_capacity;
    ring.size -= records;
    m_front.firstStep += records;
    addDropped(records);
}

void ProbeBuffer::pushRows(std::int64_t steps, const float* rows)
{
    Ring<float>& ring = m_front.rows;
    if (steps >= m_capacity) {
        // The chunk alone fills the buffer: everything pending and the chunk's oldest rows go.
        const std::int64_t skip = steps - m_capacity;
        addDropped(ring.size + skip);
        ring.data.resize(static_cast<std::size_t>(floats(m_capacity)));
        std::copy(rows + floats(skip), rows + floats(steps), ring.data.begin());
        ring.head = 0;
        ring.size = m_capacity;
        m_front.firstStep = m_front.endStep + steps - m_capacity;
        return;
    }
    const std::int64_t overflow = ring.size + steps - m_capacity;
    if (overflow > 0) {
        dropFront(overflow);
    }
    const auto stored = static_cast<std::int64_t>(ring.data.size()) / m_width;
    if (stored < m_capacity && ring.head + ring.size + steps > stored) {
        // Not wrapped yet (head is 0 until the first drop, which needs a full store).
        const std::int64_t rowsNeeded = std::min(m_capacity, ring.head + ring.size + steps);
        ring.data.resize(static_cast<std::size_t>(floats(rowsNeeded)));
    }
    std::int64_t pos = (ring.head + ring.size) % m_capacity;
    std::int64_t done = 0;
    while (done < steps) {
        const std::int64_t run = std::min(steps - done, m_capacity - pos);
        std::copy(rows + floats(done), rows + floats(done + run), ring.data.begin() + floats(pos));
        done += run;
        pos = 0;
    }
    ring.size += steps;
}

void ProbeBuffer::pushEvents(std::int64_t firstStep, std::int64_t steps, const float* rows,
                             const SpikeLists* lists)
{
    for (std::int64_t t = 0; t < steps; ++t) {
        const float* row = rows + t * m_width;
        if (lists != nullptr) {
            const std::int32_t* listed = lists->indices + t * lists->stride;
            for (std::int32_t k = 0; k < lists->counts[t]; ++k) {
                pushEvent(firstStep + t, listed[k], row[listed[k]]);
            }
            continue;
        }
        for (std::int64_t j = 0; j < m_width; ++j) {
            if (row[j] != 0.0F) {
                pushEvent(firstStep + t, j, row[j]);
            }
        }
    }
}

void ProbeBuffer::pushEvent(std::int64_t step, std::int64_t j, float x)
{
    Ring<SpikeEvent>& ring = m_front.events;
    constexpr float kMaxCount = static_cast<float>(std::numeric_limits<std::int32_t>::max() / 2);
    const float rounded = std::nearbyint(x);
    SpikeEvent e{step, static_cast<std::int32_t>(j),
                 rounded >= 1.0F && rounded <= kMaxCount ? static_cast<std::int32_t>(rounded) : 1};
    if (ring.size == m_capacity) {
        ring.head = (ring.head + 1) % m_capacity;
        --ring.size;
        addDropped(1);
    }
    const std::int64_t pos = (ring.head + ring.size) % m_capacity;
    if (pos == static_cast<std::int64_t>(ring.data.size())) {
        ring.data.push_back(e);
    } else {
        ring.data[static_cast<std::size_t>(pos)] = e;
    }
    ++ring.size;
}

ProbeSnapshot ProbeBuffer::take()
{
    std::lock_guard<std::mutex> takeLock(m_takeMutex);
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        std::swap(m_front, m_spare);
        // The front continues the span the spare now holds, with empty rings of its own.
        m_front.open = m_spare.open;
        m_front.firstStep = m_spare.endStep;
        m_front.endStep = m_spare.endStep;
        m_front.dropped = 0;
    }
    ProbeSnapshot snap;
    snap.width = m_width;
    snap.dropped = m_spare.dropped;
    snap.firstStep = m_spare.open ? m_spare.firstStep : 0;
    if (m_spikes) {
        const Ring<SpikeEvent>& ring = m_spare.events;
        snap.steps = m_spare.open ? m_spare.endStep - m_spare.firstStep : 0;
        snap.events.reserve(static_cast<std::size_t>(ring.size));
        for (std::int64_t k = 0; k < ring.size; ++k) {
            snap.events.push_back(
                ring.data[static_cast<std::size_t>((ring.head + k) % m_capacity)]);
        }
    } else {
        // The pending rows are [head, capacity) then [0, rest) of the ring.
        const Ring<float>& ring = m_spare.rows;
        const std::int64_t firstRun = std::min(ring.size, m_capacity - ring.head);
        snap.steps = ring.size;
        snap.values.resize(static_cast<std::size_t>(floats(ring.size)));
        const auto head = ring.data.begin() + floats(ring.head);
        std::copy(head, head + floats(firstRun), snap.values.begin());
        std::copy(ring.data.begin(), ring.data.begin() + floats(ring.size - firstRun),
                  snap.values.begin() + floats(firstRun));
    }
    m_spare.rows.reset();
    m_spare.events.reset();
    m_spare.dropped = 0;
    return snap;
}

}  // namespace spike::engine
