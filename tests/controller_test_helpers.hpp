// Shared fixtures of the controller tests (test_controller, test_controller_threads): a
// ConstantCurrent driving a LIF inside a Network, probe data gathered over several takes with a
// contiguity check, event look-ups, reference LIF inputs and a wait-with-timeout for progress.
#pragma once

#include "engine/neurons/lif.hpp"
#include "engine/network/network.hpp"
#include "engine/runtime/simulation_controller.hpp"
#include "engine/sources/sources.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace spike::tests {

using engine::AttributeMap;
using engine::CommandId;
using engine::ControllerEvent;
using engine::ControllerOptions;
using engine::ProbeId;
using engine::ProbeRequest;
using engine::ProbeSnapshot;
using engine::SimulationController;
using engine::SpikeEvent;
using engine::Tensor;
using engine::Shape;
using Kind = engine::ControllerEvent::Kind;

constexpr std::int64_t kN = 4;
constexpr auto kWait = std::chrono::seconds(120);
inline const std::vector<float> kAmps{0.0002F, 0.002F, 0.01F, 0.1F};

inline AttributeMap lifInit(float noise)
{
    return {{"noise_std", Tensor::scalar(noise)}, {"seed", Tensor::scalar(11.0F)}};
}

/// ConstantCurrent "src" (kAmps) driving LIF "lif" through a pass-through connection.
inline std::unique_ptr<engine::Network> makeNet(float noise = 0.5F)
{
    auto net = std::make_unique<engine::Network>();
    net->addNode("src", std::make_unique<engine::ConstantCurrent>(
                            kN, AttributeMap{{"amplitude", Tensor(Shape{kN}, kAmps)}}));
    net->addNode("lif", std::make_unique<engine::LIF>(kN, kN, false, lifInit(noise)));
    net->connect("src", "lif");
    return net;
}

inline ControllerOptions chunked(std::int64_t maxChunk)
{
    ControllerOptions options;
    options.executor.maxChunkSteps = maxChunk;
    return options;
}

inline const ProbeRequest kVmem{"lif", "vmem", {}};
inline const ProbeRequest kSpikes{"lif", "spikes", {}};
inline const ProbeRequest kSource{"src", "out", {}};

/// A probe's data gathered over several takes; each take must resume where the last ended
/// (after the rows it reports dropped).
struct Trace {
    std::int64_t first = -1;
    std::int64_t end = 0;
    std::int64_t dropped = 0;
    std::vector<float> values;
    std::vector<SpikeEvent> events;
    bool contiguous = true;

    void add(const ProbeSnapshot& s)
    {
        if (s.steps > 0) {
            first = first < 0 ? s.firstStep : first;
            // Dropped rows are the oldest: a continuous take resumes right after them.
            contiguous = contiguous && s.firstStep == end + (s.values.empty() ? 0 : s.dropped);
            end = s.firstStep + s.steps;
        }
        values.insert(values.end(), s.values.begin(), s.values.end());
        events.insert(events.end(), s.events.begin(), s.events.end());
        dropped += s.dropped;
    }
};

inline Trace take(SimulationController& c, ProbeId id)
{
    Trace t;
    const std::optional<ProbeSnapshot> s = c.takeProbe(id);
    if (s) {
        t.add(*s);
    }
    return t;
}

inline bool bitEqual(const std::vector<float>& a, const std::vector<float>& b)
{
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

template <typename Pred>
bool waitFor(Pred pred)
{
    const auto until = std::chrono::steady_clock::now() + kWait;
    while (!pred()) {
        if (std::chrono::steady_clock::now() > until) {
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

inline const ControllerEvent* findEvent(const std::vector<ControllerEvent>& events, Kind kind,
                                 CommandId command = {})
{
    for (const ControllerEvent& e : events) {
        if (e.kind == kind && (!command.valid() || e.command == command)) {
            return &e;
        }
    }
    return nullptr;
}

inline int countEvents(const std::vector<ControllerEvent>& events, Kind kind)
{
    return static_cast<int>(std::count_if(
        events.begin(), events.end(), [kind](const ControllerEvent& e) { return e.kind == kind; }));
}

/// Every nonzero count of a (T, N) spike tensor as events.
inline std::vector<SpikeEvent> eventsOf(const Tensor& spikes)
{
    std::vector<SpikeEvent> out;
    for (std::int64_t t = 0; t < spikes.dim(0); ++t) {
        for (std::int64_t j = 0; j < spikes.dim(1); ++j) {
            const float v = spikes[t * spikes.dim(1) + j];
            if (v != 0.0F) {
                out.push_back({t, static_cast<std::int32_t>(j), static_cast<std::int32_t>(v)});
            }
        }
    }
    return out;
}

/// (T, kN) input rows: `before` up to step `switchAt`, `after` from there.
inline Tensor inputRows(std::int64_t steps, const std::vector<float>& before,
                 const std::vector<float>& after, std::int64_t switchAt)
{
    Tensor in(Shape{steps, kN});
    for (std::int64_t t = 0; t < steps; ++t) {
        for (std::int64_t j = 0; j < kN; ++j) {
            in[t * kN + j] = (t < switchAt ? before : after)[static_cast<std::size_t>(j)];
        }
    }
    return in;
}

inline std::vector<float> lifTensor(SimulationController& c, const std::string& name)
{
    std::vector<float> out;
    const engine::Status s = c.readModel([&](const engine::Module& m) {
        const Tensor& t = m.getSubmodule("lif").tensor(name);
        out.assign(t.data(), t.data() + t.numel());
    });
    return s.ok ? out : std::vector<float>{};
}

}  // namespace spike::tests
