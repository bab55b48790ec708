// NeuronLayer: base of the neuron populations that carry per-neuron state from one time step to
// the next (LIF, LIFRefrac).
//
// Owns what those populations share: the batch loop of evolve() (each batch element starts from
// the stored states; afterwards the stored states are batch element 0's, as in Rockpool), the
// (B, T, ...) recording of per-step traces and of the output spikes (a population that does not
// spike, NIR's LI and Integrator, outputs a trace on the port "out" and records no "spikes"), the
// "scalar or per-neuron" shape alternatives with their expansion into per-neuron arrays, and the
// time-step attribute.
// A subclass declares which States it carries (each with a working array), which traces it
// offers, and runs the steps of one batch element in runBatch(). Invariants: the working arrays
// hold one batch element's state only during evolveImpl(); stored States change only after the
// whole batch has run. Thread: owned by whichever thread evolves it; evolve() allocates per call,
// never per step. A population whose runsInRanges() is true may have its runner's run() split
// into neuron ranges run by the helpers of the owner's ThreadPool (engine/core/thread_pool.hpp)
// while the owner waits; each neuron then belongs to exactly one of them.
#pragma once

#include "engine/core/module.hpp"

#include <Eigen/Core>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace spike::engine {

/// A population of stateful neurons evolved step by step, batch element by batch element.
class NeuronLayer : public Module {
public:
    /// The traces() names in order, then "spikes" (the output) when the output spikes.
    std::vector<std::string> recordableSignals() const override;
    /// One output port covering all neurons: "spikes", or "out" when the output does not spike.
    std::vector<PortSpec> outputPorts() const override;
    /// An allocation-free runner over this layer's working arrays (carriedStates(),
    /// prepareEvolve(), runBatch()); its traces are traces().
    std::unique_ptr<NodeRunner> makeRunner() override;

protected:
    friend class NeuronRunner;

    /// Default time step [s] of every neuron population.
    static constexpr float kDefaultTimeStep = 1e-3F;

    NeuronLayer(std::vector<std::int64_t> shape, bool spikingInput, bool spikingOutput);

    /// A State carried across steps: before each batch element its stored value is copied into
    /// `work` (sized to the State's element count); after batch element 0, `work` is kept as the
    /// new stored value.
    struct CarriedState {
        AttributeId state;
        Eigen::ArrayXf* work = nullptr;
    };
    /// A signal recorded at every step into a (B, T, step...) tensor.
    struct Trace {
        std::string name;  ///< recordable signal name ("vmem", "v", ...)
        Shape step;        ///< shape of one step's values, e.g. (N,) or (N, n_synapses)
        std::string units;
    };
    /// Where one batch element's trace goes: per step t, either all step.numel() values at
    /// data + t * step.numel() (channels == nullptr), or only channels[0..count) of them, in that
    /// order, at data + t * count (a probe of a few neurons of a large population). data ==
    /// nullptr: not recorded.
    struct TraceTarget {
        float* data = nullptr;
        const std::int64_t* channels = nullptr;
        std::int64_t count = 0;

        explicit operator bool() const { return data != nullptr; }
        /// Writes step t's values (`width` floats at `row`).
        void write(std::int64_t t, const float* row, std::int64_t width) const
        {
            if (channels == nullptr) {
                std::copy(row, row + width, data + t * width);
                return;
            }
            float* dst = data + t * count;
            for (std::int64_t k = 0; k < count; ++k) {
                dst[k] = row[channels[k]];
            }
        }
        /// write() for the channels in [begin, end) only (a neuron range of runRange()).
        void writeRange(std::int64_t t, const float* row, std::int64_t width, std::int64_t begin,
                        std::int64_t end) const
        {
            if (channels == nullptr) {
                std::copy(row + begin, row + end, data + t * width + begin);
                return;
            }
            float* dst = data + t * count;
            for (std::int64_t k = 0; k < count; ++k) {
                if (channels[k] >= begin && channels[k] < end) {
                    dst[k] = row[channels[k]];
                }
            }
        }
    };
    /// One entry per traces() entry.
    using TraceTargets = std::vector<TraceTarget>;

    /// The States the dynamics carry from step to step, with their working arrays.
    virtual std::vector<CarriedState> carriedStates() = 0;
    /// The per-step traces this layer offers (the output spikes are recorded by the base).
    virtual std::vector<Trace> traces() const = 0;
    /// Sizes scratch arrays before the batch loop of one evolve() call (working arrays of the
    /// carried states are sized by the base). Default: nothing.
    virtual void prepareEvolve();
    /// Runs `steps` steps of one batch element from the working arrays: `input` is (steps, Nin),
    /// `spikesOut` receives (steps, Nout), and each non-null trace target (steps, step...).
    virtual void runBatch(const float* input, std::int64_t steps, float* spikesOut,
                          const TraceTargets& traces) = 0;
    /// Whether the next runBatch() may instead run as runRange() over disjoint neuron ranges
    /// on different threads at once: each neuron's step reads and writes only its own elements
    /// (no recurrence, no shared random stream). Default: false.
    virtual bool runsInRanges() const { return false; }
    /// runBatch() for neurons [begin, end) only, with the same arithmetic per neuron: the
    /// pointers are the whole rows, and only those neurons' states, output channels and trace
    /// channels are touched. Called only when runsInRanges(). Default: runBatch() (unreachable).
    virtual void runRange(const float* input, std::int64_t steps, float* spikesOut,
                          const TraceTargets& traces, std::int64_t begin, std::int64_t end);
    /// Called on the owning thread before `parts` runRange() calls run at once (one per part,
    /// each exactly once), and endRanges() after all of them returned: what a layer needs to
    /// set up and take down around a split run. Default: nothing.
    virtual void beginRanges(int parts);
    virtual void endRanges(std::int64_t steps);
    /// The cost of one neuron-step relative to a LIF neuron's (1, the default): a split needs
    /// ExecutorOptions::threadMinWork neuron-steps times this per part.
    virtual double workPerNeuronStep() const { return 1.0; }

    /// Whether this layer's runBatch() (and runRange(), for its neurons' inputs) can leave its
    /// input rows all zero when consumingInput() (NodeRunner::consumeInput()). Default: false.
    virtual bool canConsumeInput() const { return false; }
    /// Whether the runBatch() under way must zero every input value it reads (its runner was asked
    /// to by its executor; never inside evolve(), whose input is the caller's).
    bool consumingInput() const { return m_consumingInput; }

    /// The batch loop: loads, runs, keeps batch element 0's final state, records.
    Tensor evolveImpl(const TensorView& input, const Recorder& recorder) final;

    /// Shapes of a scalar-or-per-neuron attribute: (), (1,) or (Nout,).
    std::vector<Shape> perNeuronShapes() const;
    /// The "dt" simulation parameter: time step [s], > 0, default 1 ms.
    static AttributeBuilder timeStepAttribute();

    /// Expands a scalar / (1,) / (n,) / (n, nsyn) tensor to n * nsyn values (neuron-major).
    static void expandTo(const Tensor& t, std::int64_t n, std::int64_t nsyn, Eigen::ArrayXf& out);
    /// time / dt as a whole number of steps, when it is one up to the float32 rounding of the two
    /// values: the ratio is taken in double and may miss the whole number by 4 float32 ulps
    /// relative (0.005F / 0.001F is 4.99999965, which gives 5). nullopt otherwise.
    static std::optional<float> wholeSteps(float time, float dt);
    /// A number as messages print it ("0.0055").
    static std::string number(double v);
    /// Whether every element equals the first (true when empty).
    static bool allEqual(const Eigen::ArrayXf& a);
    /// Tensor of the same shape with f applied element-wise.
    template <typename F>
    static Tensor mapped(const Tensor& t, F f)
    {
        Tensor out(t.shape());
        for (std::int64_t i = 0; i < t.numel(); ++i) {
            out[i] = f(t[i]);
        }
        return out;
    }

private:
    bool m_consumingInput = false;  ///< set by NeuronRunner around its runBatch() calls only
};

}  // namespace spike::engine
