// Delay: NIR's Delay node. Channel j's output is its input d_j steps earlier, zero until the
// first delayed value arrives:
//
//     d_j = floor(delay_j / dt + 1/2)       nearest whole step, halves up; the quotient is taken
//                                           in double from the decimals delay_j and dt were set
//                                           to (0.0025 / 0.001 is 2.5, not float32's 2.4999998),
//                                           and one within 1e-9 below a half counts as the half
//     D = max_j d_j                         rows of the ring "buffer" (D, N)
//
// The ring holds the last D inputs, x[t - D] in row h = "buffer_head", x[t - D + 1] in row
// h + 1, ... (mod D). Per step t, per channel j, in this order (values are copied, never
// computed, so float32 rounding does not arise):
//
//     y[t][j] = x[t][j]                                 where d_j = 0
//     y[t][j] = buffer[(h + D - d_j) mod D][j]          else: x[t - d_j], 0 before step d_j
//     buffer[h][j] = x[t][j]                            (x[t - D] is no longer needed)
//     h = (h + 1) mod D                                 after every channel
//
// Why a Module and not a Layer: Layer's contract is a pure function of each step (evolve()
// applies it to every step independently), while a delay carries the last D inputs from one
// step, and one evolve() call, to the next. Not a NeuronLayer either: that base is the neuron
// room's (layers may not include it) and models populations with spike ports and membrane
// traces. So Delay is a plain Module with its own evolveImpl(), like LSTM's carried h and c:
// the ring is a State, so it is saved and restored with the module's state (evolving in two
// calls equals one), carried into rebuilt runs, and emptied by resetState(). With a batch,
// each batch element starts from the stored ring and the stored ring afterwards is batch
// element 0's (as the neuron layers do).
//
// Attributes: "delay" (N,) [s] >= 0 Parameter, "dt" [s] > 0 SimulationParameter (1 ms, as the
// neurons), "buffer" (D, N) and "buffer_head" () States. Bounded: d_j at most 10^6 steps and the
// ring at most 2^27 values (512 MiB); a larger delay is refused naming the module and
// attribute. Changing "delay" or "dt" reshapes the ring, emptied, unless the same change gives a
// "buffer" of the new shape; a change that keeps the ring's shape keeps its contents. Neither
// may change while a run goes on (the ring's shape would): the run is rebuilt, and carrying its
// States (state_carry.hpp) copies the leading block of a ring of another shape as it is, not
// re-timed, so for up to D steps after such an edit the values in flight may come out at other
// steps (SparseProjection's ring behaves the same). forward() is evolve() over (T, N) or
// (B, T, N). Allocation: one scratch ring per call when B > 1, none per step; the runtime runs
// it through the generic runner (one evolve per chunk). Thread: owned by whichever thread
// evolves it.
#pragma once

#include "engine/core/module.hpp"

#include <cstdint>
#include <vector>

namespace spike::engine {

/// Per-channel delay line; see the file comment.
class Delay : public Module {
public:
    /// Longest delay in steps a channel may have.
    static constexpr std::int64_t kMaxSteps = 1000000;
    /// Most values the ring may hold (D x N): 2^27 floats, 512 MiB.
    static constexpr std::int64_t kMaxRingValues = std::int64_t{1} << 27;

    /// `channels` N >= 1 (throws Error otherwise); `initial` may give any attribute. Every delay
    /// starts at 0 (a pass-through) and dt at 1 ms.
    explicit Delay(std::int64_t channels = 1, const AttributeMap& initial = {});

    std::string className() const override { return "Delay"; }
    nlohmann::json config() const override;
    /// "shape=(4,), steps=3": the channels and the longest delay D in steps.
    std::string extraRepr() const override;
    std::vector<std::string> recordableSignals() const override { return {"output"}; }

    std::int64_t channels() const { return sizeIn(); }
    /// d_j of every channel, as the file comment computes them from "delay" and "dt".
    const std::vector<std::int64_t>& delaySteps() const { return m_delaySteps; }
    /// D, the longest delay in steps (the ring's rows).
    std::int64_t longestDelay() const { return m_longest; }

protected:
    Status validateChange(const Lookup& proposed) const override;
    void attributesChanged() override;
    Tensor evolveImpl(const TensorView& input, const Recorder& recorder) override;

private:
    /// Runs `steps` steps of one batch element over the ring `ring` from row `head`; returns the
    /// head afterwards.
    std::int64_t runSteps(const float* x, float* y, std::int64_t steps, float* ring,
                          std::int64_t head) const;

    AttributeId m_delay, m_dt, m_buffer, m_head;
    std::vector<std::int64_t> m_delaySteps;  ///< d_j
    std::vector<std::int64_t> m_rowOffset;   ///< D - d_j, or -1 where d_j = 0
    std::int64_t m_longest = 0;              ///< D
};

}  // namespace spike::engine
