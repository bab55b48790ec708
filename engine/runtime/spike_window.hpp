// SpikeWindow: the spike events of one spiking module over a rolling window of steps, as LiveRun
// keeps them and RasterPlot draws them, without ever holding a dense (steps, neurons) array.
//
// Owns one contiguous buffer of engine::SpikeEvent (step, neuron, count) with a head offset: the
// live events are buffer[head, size). Appending copies the new events to the back; trimming the
// front only advances the head, and the dead prefix is cut off (one move of the live events)
// when it grows past half the buffer, so trimming is O(1) amortised per event and a window that
// slides by a few steps per poll never moves the whole buffer. A second buffer of the same kind
// marks where each step with spikes starts (its first event and the spikes appended before it,
// both counted since the last restart), so trimming whole steps costs O(steps), not O(events).
//
// Invariants: the window covers the steps [firstStep(), endStep()) whether or not they hold
// spikes; the live events lie in that span, in step order and, within a step, in the order they
// were appended (the engine's: neuron order), each with neuron in [0, width()) and count >= 1;
// spikeCount() is the sum of their counts.
// Qt-free data in the runtime: the GUI's run (ui/run) fills windows, the raster (ui/plots) draws
// them, neither includes the other. Also the spike totals of windows and recordings.
// Thread: not thread-safe; LiveRun's (the GUI) thread owns the windows it keeps.
#pragma once

#include "engine/runtime/probe_buffer.hpp"
#include "engine/core/recording.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace spike::engine {

/// The spike events of one spiking module over a window of steps; see the file comment.
class SpikeWindow {
public:
    /// An empty window of `width` >= 0 neurons at step 0.
    explicit SpikeWindow(std::int64_t width = 0);

    /// Neurons (channels) of the module.
    std::int64_t width() const { return m_width; }
    /// First step of the window.
    std::int64_t firstStep() const { return m_first; }
    /// One past the last step of the window.
    std::int64_t endStep() const { return m_end; }
    /// Steps covered, spikes or not: endStep() - firstStep().
    std::int64_t steps() const { return m_end - m_first; }
    /// Identifies the window's content since its last restart (or construction): unique in the
    /// process, the same as long as events are only appended and trimmed from the front, so a
    /// cache of what the steps held stays valid while the id does (copies share it).
    std::uint64_t id() const { return m_id; }
    /// Live events ((step, neuron) pairs with at least one spike).
    std::int64_t eventCount() const { return static_cast<std::int64_t>(m_events.size() - m_head); }
    /// Sum of the live events' counts.
    std::int64_t spikeCount() const { return m_spikes; }
    /// The live events, in step order (valid until the next change of the window).
    std::span<const engine::SpikeEvent> events() const
    {
        return {m_events.data() + m_head, m_events.size() - m_head};
    }

    /// Calls `f(step, events, spikes)` for each step of the window that has spikes, in step
    /// order: `events` is that step's slice of events(), `spikes` the sum of their counts.
    /// O(steps with spikes), whatever the events.
    template <typename F>
    void forEachStep(F&& f) const
    {
        forEachStepIn(m_first, m_end, f);
    }
    /// forEachStep() over the steps in [from, to) only; O(log steps + steps there).
    template <typename F>
    void forEachStepIn(std::int64_t from, std::int64_t to, F&& f) const
    {
        const auto first = std::partition_point(
            m_marks.begin() + static_cast<std::ptrdiff_t>(m_markHead), m_marks.end(),
            [from](const StepMark& mark) { return mark.step < from; });
        for (auto k = static_cast<std::size_t>(first - m_marks.begin());
             k < m_marks.size() && m_marks[k].step < to; ++k) {
            const StepMark& mark = m_marks[k];
            const bool last = k + 1 == m_marks.size();
            const std::int64_t endEvent =
                last ? m_eventBase + static_cast<std::int64_t>(m_events.size()) : m_marks[k + 1].event;
            const std::int64_t endSpikes = last ? m_appendedSpikes : m_marks[k + 1].spikesBefore;
            const auto begin = static_cast<std::size_t>(mark.event - m_eventBase);
            f(mark.step,
              std::span<const engine::SpikeEvent>(m_events.data() + begin,
                                                  static_cast<std::size_t>(endEvent - mark.event)),
              endSpikes - mark.spikesBefore);
        }
    }

    /// Empties the window and places it at [step, step).
    void restart(std::int64_t step);
    /// Appends `events` (steps in [endStep(), newEnd), in step order, neurons in [0, width()),
    /// counts >= 1) and moves endStep() to `newEnd` >= endStep(). Throws engine::Error, leaving
    /// the window as it was, when an event breaks those rules.
    void append(std::span<const engine::SpikeEvent> events, std::int64_t newEnd);
    /// Drops the steps before `step` (and their events); firstStep() becomes
    /// min(max(firstStep(), step), endStep()).
    void trimBefore(std::int64_t step);
    /// Drops whole steps from the front until at most `maxEvents` >= 0 events are left: the
    /// window then starts right after the step of the last event dropped.
    void trimToEvents(std::int64_t maxEvents);

    /// The window as dense spike counts: data (T, width()) with T = min(steps(), maxSteps)
    /// (the last T steps), dt = `dt`, tStart = (endStep() - T) x dt, spikes = true; `units`
    /// left empty. What evolve() records for the same steps.
    engine::TimeSeries toDense(double dt,
                               std::int64_t maxSteps = std::numeric_limits<std::int64_t>::max()) const;
    /// The events of a dense spike series (data (T, ...), neurons = numel / T): one event per
    /// entry > 0 with count = the entry rounded, at least 1; the window starts at step
    /// round(tStart / dt) (0 when dt <= 0).
    static SpikeWindow fromDense(const engine::TimeSeries& series);

private:
    /// Where a step with spikes starts.
    struct StepMark {
        std::int64_t step = 0;
        std::int64_t event = 0;         ///< its first event, counted since the last restart
        std::int64_t spikesBefore = 0;  ///< spikes appended before it since the last restart
    };

    /// Cuts the dead prefixes off when they exceed half their buffers.
    void compact();

    std::vector<engine::SpikeEvent> m_events;  ///< [0, m_head) dead, [m_head, size) live
    std::size_t m_head = 0;
    std::int64_t m_eventBase = 0;  ///< events before m_events[0] since the last restart
    std::vector<StepMark> m_marks;  ///< [0, m_markHead) dead; live ones in step order
    std::size_t m_markHead = 0;
    std::int64_t m_appendedSpikes = 0;  ///< spikes appended since the last restart
    std::int64_t m_width = 0;
    std::int64_t m_first = 0;
    std::int64_t m_end = 0;
    std::int64_t m_spikes = 0;
    std::uint64_t m_id = 0;
};

/// One spiking module's window as LiveRun hands it to the raster.
struct NamedSpikeWindow {
    std::string path;    ///< module path ("" = the root)
    std::string signal;  ///< the signal evolve() records its spikes under ("spikes", "output")
    const SpikeWindow* window = nullptr;
};

/// Every spiking module's window, in the model's tree order.
using SpikeWindows = std::vector<NamedSpikeWindow>;

/// Spike totals of a recording or of spike windows.
struct SpikeSummary {
    std::int64_t spikes = 0;  ///< sum of all spike counts
    std::int64_t events = 0;  ///< (time step, neuron) pairs with at least one spike
    std::int64_t multi = 0;   ///< events with more than one spike
    int series = 0;           ///< spiking series (one per spiking leaf module)
};

/// Totals over every series of `recording` flagged as spikes.
SpikeSummary summariseSpikes(const Recording& recording);
/// Totals over every window of `windows` (the same numbers for the same data, in O(windows)
/// for spikes and events; `multi` scans the events).
SpikeSummary summariseSpikes(const SpikeWindows& windows);

}  // namespace spike::engine
