// Population: the arrays a compiled model runs on for n neurons (states, parameters, the
// refractory counter, spikes, the exact method's propagators) bound to its programs. What the
// EquationNeuron module and the tests step. Invariant: every slot's binding points at storage
// this object owns, except the input slots, which step() points at the caller's rows for the
// duration of the call, and the states a caller bound to its own arrays (bindState()). step()
// runs the step program's native code (native.hpp) once it is ready for the current layout of
// per-neuron and shared slots, else interprets it; both give the same bits. Not thread-safe;
// owned by whichever thread evolves it; step() does not allocate (except on the rare step that
// asks for native code).
#pragma once

#include "engine/equations/compiler.hpp"
#include "engine/equations/native.hpp"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace spike::engine::equations {

class Population {
public:
    /// n > 0 neurons of `model`; parameters start at their declared values, states at zero
    /// until initialise().
    Population(CompiledModel model, std::int64_t n);

    const CompiledModel& compiled() const { return m_model; }
    std::int64_t size() const { return m_n; }

    /// Sets parameter `name` (not an input) to one value for all neurons (count 1) or one per
    /// neuron (count n) [SI]. Throws Error for an unknown name or a wrong count. Call
    /// parametersChanged() after a batch of changes.
    void setParameter(const std::string& name, const float* values, std::int64_t count);
    /// Recomputes what depends on parameters (the exact method's propagators).
    void parametersChanged();
    /// States to their initial values (in declaration order), refractoriness cleared.
    void initialise();
    /// Advances one step from time t [s]: inputs[k] holds model.inputs[k]'s n values for this
    /// step (nullptr: zero). Writes spikes(). While consuming (setConsumeInputs()), leaves each
    /// non-null inputs[k] all zero, which must then be writable.
    void step(const float* const* inputs, double t);
    /// What one thread needs to step a range of the neurons (stepRange()) while other threads
    /// step other ranges: its own copy of the slot bindings (the input rows, the time and the
    /// spike row change every step), the pointers handed to native code, this step's input rows
    /// and the interpreter's registers. Belongs to the caller; prepareFrame() fits it.
    struct Frame {
        std::vector<SlotBinding> bind;
        std::vector<float*> slotData;
        std::vector<const float*> inputRows;  ///< per model input: the caller sets them per step
        std::vector<float> registers;
        float time = 0.0F;
    };
    /// Copies the current bindings into `frame` (allocating only when it grows). Call on the
    /// owning thread after the last bind...() and setConsumeInputs() and before threads use it.
    void prepareFrame(Frame& frame) const;
    /// step() for neurons [begin, end) only, through `frame` (prepared since the last change of
    /// the bindings): reads frame.inputRows (nullptr: zero), writes spikes[begin, end) and the
    /// bound arrays' elements [begin, end), and changes nothing else, so threads with frames
    /// of their own may step disjoint ranges at once (steppableInRanges()). Native code runs if
    /// it is ready, else the interpreter, with the same bits as step(). Counts nothing toward
    /// native code: the owner calls countRangeSteps() afterwards.
    void stepRange(Frame& frame, float* spikes, double t, std::int64_t begin, std::int64_t end) const;
    /// Counts `steps` steps taken through stepRange() as step() counts its own (interpreted
    /// steps move toward native code). Owning thread.
    void countRangeSteps(std::int64_t steps);
    /// Whether disjoint ranges may be stepped at once: the step program stores into per-neuron
    /// arrays only (true of every compiled model; checked, not assumed).
    bool steppableInRanges() const { return m_storesPerNeuronOnly; }
    /// A rough cost of one neuron-step relative to a LIF neuron's (1): from the step program's
    /// instructions that native code runs per neuron (not those every neuron shares),
    /// transcendental functions weighing more; what decides how many threads a step is worth
    /// splitting over. Follows the layout as of the last parametersChanged().
    double costPerNeuronStep() const { return m_cost; }

    /// Whether step() zeroes its input rows after reading them (in the same pass over the neurons
    /// as the update when native code runs, so an owner that reuses one input row need not clear
    /// it; the states and spikes do not change). Returns whether this population does so from now
    /// on: false when asked to, only when !canConsumeInputs().
    bool setConsumeInputs(bool consume);
    /// Whether every input of the model has its slot, so that step() can zero all of them.
    bool canConsumeInputs() const { return m_inputSlots.size() == m_model.model.inputs.size(); }

    /// State i (model.states order), n values.
    float* state(std::size_t i) { return m_bind[static_cast<std::size_t>(m_model.stateSlots[i])].data; }
    const float* state(std::size_t i) const { return m_bind[static_cast<std::size_t>(m_model.stateSlots[i])].data; }
    /// Makes state i live in the caller's n floats (until bound again); nullptr: back to own
    /// storage.
    void bindState(std::size_t i, float* data);
    /// Refractory steps left (time refractoriness) or not_refractory (a condition); nullptr
    /// without refractoriness.
    float* refractory();
    /// Like bindState() for the refractory array (ignored without refractoriness).
    void bindRefractory(float* data);
    /// What the refractory array holds after initialise(): 0 steps left, or not_refractory = 1.
    float refractoryStart() const;
    /// Slot `s`'s array as the programs see it (n values when perNeuron, else 1).
    const SlotBinding& binding(std::size_t s) const { return m_bind[s]; }
    /// The last step's spikes, n values of 0 or 1.
    const float* spikes() const { return m_bind[static_cast<std::size_t>(m_model.spikeSlot)].data; }
    /// Makes the next steps write their spikes into the caller's n floats (until bound again);
    /// nullptr: back to own storage.
    void bindSpikes(float* data);
    /// How step() runs: "native code", "interpreted (native code compiling)", "interpreted (native
    /// code off)", "interpreted (until N neuron-steps)" or "interpreted: <why native code failed>".
    std::string executionStatus() const;

private:
    CompiledModel m_model;
    std::int64_t m_n;
    std::vector<std::vector<float>> m_arrays;  ///< per slot: n values, or 1 for a shared one
    std::vector<SlotBinding> m_bind;
    std::vector<float> m_registers;
    std::vector<float> m_zeros;  ///< an input nobody wires
    std::vector<std::size_t> m_inputSlots;  ///< slot of model.inputs[k]
    /// model.parameters' index by name, inputs left out (setParameter() once per parameter of
    /// a model with thousands of them would otherwise search them all each time).
    std::unordered_map<std::string, std::size_t> m_parameterIndex;
    // Native code of the step program (native.hpp) for the slot layout m_nativeLayout.
    bool nativeMatches() const;
    void considerNative();
    /// The step program for neurons [begin, end) over `bind`: native code through `slotData`,
    /// else interpreted with `registers`, inputs zeroed after when consuming.
    void runStep(const SlotBinding* bind, float** slotData, float* registers, std::int64_t begin,
                 std::int64_t end) const;
    /// Sets m_cost from the step program under the current layout (parametersChanged()).
    void estimateCost();
    bool m_storesPerNeuronOnly = true;
    double m_cost = 1.0;
    std::vector<float*> m_slotData;   ///< per slot, the pointer handed to native code
    std::vector<char> m_nativeLayout;  ///< per slot, per-neuron (1) or shared (0)
    bool m_consumeInputs = false;
    bool m_nativeConsumes = false;     ///< m_native zeroes the input slots (with m_nativeLayout)
    NativeCode m_native;
    std::string m_nativeSource;
    std::int64_t m_interpretedSteps = 0;
};

}  // namespace spike::engine::equations
