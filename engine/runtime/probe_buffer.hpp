// ProbeBuffer: the bounded hand-off of one probe's recorded samples from the simulation worker
// (producer) to the consumer (the GUI's plot timer, a headless runner).
//
// Continuous signals are kept as rows of `width` floats, one row per step, over one contiguous
// span of steps. Spiking signals are kept as events (step, neuron, count), one per nonzero entry
// of the probe's rows: a neuron that fires k > 1 times in one step is one event with count k,
// never k events and never a dense array.
//
// Capacity is counted in rows (continuous) or events (spiking). Overflow policy: when the
// consumer falls behind, the OLDEST rows or events are dropped to make room for the newest, and
// every dropped row or event is counted; the count since the last take comes with each snapshot
// (ProbeSnapshot::dropped) and the running total is totalDropped().
//
// Invariants: the pending rows always cover the contiguous steps [firstStep, firstStep + rows);
// at most `capacity` rows or events are pending; pending + taken + dropped = pushed.
//
// Threads: push*() and clear() are called by ONE producer thread (the simulation worker); take()
// and totalDropped() by any thread (take() calls are serialised among themselves). The producer
// writes into the front store under a mutex per chunk; take() swaps the front store with an empty
// spare in O(1) under that mutex and unpacks the swapped-out store after releasing it, so neither
// side locks per sample and the producer never waits for more than that swap. Both stores keep
// their memory, so the producer allocates only while a store first grows to its working size.
#pragma once

#include "engine/tensor/spike_lists.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace spike::engine {

/// One spike record: neuron `neuron` (index among the probe's kept channels) fired `count`
/// times in step `step`.
struct SpikeEvent {
    std::int64_t step = 0;
    std::int32_t neuron = 0;
    std::int32_t count = 1;

    bool operator==(const SpikeEvent& o) const
    {
        return step == o.step && neuron == o.neuron && count == o.count;
    }
};

/// What the consumer receives from one take().
struct ProbeSnapshot {
    std::int64_t firstStep = 0;  ///< first step covered (continuous: the step of values' row 0)
    std::int64_t steps = 0;      ///< steps covered: rows of `values`, or the span the events
                                 ///< were gathered over (steps without spikes included)
    std::int64_t width = 0;      ///< values per row (the probe's channel count)
    std::vector<float> values;   ///< continuous: (steps, width) rows, C order; empty for spikes
    std::vector<SpikeEvent> events;  ///< spiking: in step order, then neuron order
    std::int64_t dropped = 0;    ///< rows (continuous) or events (spiking) dropped since the
                                 ///< previous take(), oldest first
};

/// Bounded producer-consumer buffer of one probe; see the file comment.
class ProbeBuffer {
public:
    /// `width` channels per step; `capacity` rows (continuous) or events (spiking), >= 1.
    /// Throws Error when width < 1 or capacity < 1.
    ProbeBuffer(std::int64_t width, bool spikes, std::int64_t capacity);
    ProbeBuffer(const ProbeBuffer&) = delete;
    ProbeBuffer& operator=(const ProbeBuffer&) = delete;

    std::int64_t width() const { return m_width; }
    bool spikes() const { return m_spikes; }
    std::int64_t capacity() const { return m_capacity; }

    /// Producer: appends `steps` rows of `width` floats (C order) recorded at steps
    /// [firstStep, firstStep + steps). Continuous data are copied; spiking data become one event
    /// per nonzero entry (count = the entry rounded to the nearest integer, at least 1). A
    /// first step that does not continue the pending span (a jump back after a state reset, a
    /// gap) discards the pending data, counted as dropped. Producer thread only.
    void push(std::int64_t firstStep, std::int64_t steps, const float* rows);
    /// Producer: push() of a spiking probe's rows whose non-zero entries `lists` names (row t's
    /// list, see spike_lists.hpp, as Executor::probeSpikeLists() gives it): the same events,
    /// found in O(spikes) instead of a scan of every entry. Continuous buffers ignore `lists`.
    void push(std::int64_t firstStep, std::int64_t steps, const float* rows,
              const SpikeLists& lists);
    /// Producer: discards pending data without counting it as dropped; the next push starts a
    /// new span (used when the simulation restarts from step 0). Producer thread only.
    void clear();

    /// Consumer: everything pending since the last take(), and the drops in between; the buffer
    /// is then empty. Any thread.
    ProbeSnapshot take();
    /// Rows or events dropped since construction. Any thread.
    std::int64_t totalDropped() const { return m_totalDropped.load(std::memory_order_relaxed); }

private:
    /// A ring of records (a row of `width` floats, or one event).
    template <typename T>
    struct Ring {
        std::vector<T> data;     ///< grows to capacity * recordSize, then wraps
        std::int64_t head = 0;   ///< record index of the oldest pending record
        std::int64_t size = 0;   ///< pending records

        void reset()
        {
            head = 0;
            size = 0;
        }
    };
    /// The front store the producer fills, or the spare the consumer unpacks.
    struct Store {
        Ring<float> rows;
        Ring<SpikeEvent> events;
        std::int64_t firstStep = 0;  ///< continuous: step of the oldest pending row; spiking:
                                     ///< first step of the gathered span
        std::int64_t endStep = 0;    ///< one past the last step pushed
        bool open = false;           ///< a span has started (endStep is meaningful)
        std::int64_t dropped = 0;    ///< since the store was last taken
    };

    void startSpan(std::int64_t firstStep);
    void pushRows(std::int64_t steps, const float* rows);
    /// push() with optional lists (nullptr: scan the rows).
    void pushImpl(std::int64_t firstStep, std::int64_t steps, const float* rows,
                  const SpikeLists* lists);
    /// One event per non-zero entry, in row order; `lists` (may be nullptr) names them.
    void pushEvents(std::int64_t firstStep, std::int64_t steps, const float* rows,
                    const SpikeLists* lists);
    /// Appends one event for entry value x of neuron j at step `step`.
    void pushEvent(std::int64_t step, std::int64_t j, float x);
    void dropFront(std::int64_t records);
    void addDropped(std::int64_t records);
    /// Floats in `rows` rows.
    std::ptrdiff_t floats(std::int64_t rows) const
    {
        return static_cast<std::ptrdiff_t>(rows * m_width);
    }

    const std::int64_t m_width;
    const bool m_spikes;
    const std::int64_t m_capacity;

    std::mutex m_mutex;      ///< guards m_front (held per pushed chunk and for the swap)
    Store m_front;           ///< producer side
    std::mutex m_takeMutex;  ///< serialises take() callers; never taken by the producer
    Store m_spare;           ///< consumer side: empty between take() calls
    std::atomic<std::int64_t> m_totalDropped{0};
};

}  // namespace spike::engine
