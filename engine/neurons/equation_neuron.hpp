// EquationNeuron: a population whose dynamics are a model text (engine/equations/model.hpp):
// a library model (engine/neurons/models/<name>.model, a module type of its own name such as
// Izhikevich) or the user's own ("EquationNeuron", the text in the config).
//
// What the text declares becomes the registry: every parameter a Parameter (scalar or per
// neuron, SI units, its bounds and family), every state a State of shape (N,) recorded as a
// trace, the refractory counter a State ("refrac" [steps] or "not_refractory"), plus "dt" and
// "method" (the integration methods that apply). Each input the text declares is an input port
// of N channels, in declaration order: the flat input row is [port 0 (N) | port 1 (N) | ...].
// A step is the compiled program of engine/equations/compiler.hpp, run on the working arrays of
// one batch element; t counts from the module's last reset. States start from the text's
// initial values (X(0) = ...), computed from the parameters at reset; until the first step a
// state still at its initial value follows parameter changes, one set by hand keeps its value.
// Thread: owned by whichever thread evolves it; evolve() allocates per call, never per step.
#pragma once

#include "engine/equations/population.hpp"
#include "engine/neurons/neuron_layer.hpp"

#include <Eigen/Core>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace spike::engine {

/// A neuron population defined by equations.
class EquationNeuron : public NeuronLayer {
public:
    /// The type name of user-written models (the text lives in the config).
    static constexpr const char* kCustomType = "EquationNeuron";

    /// `type`: a library model's name, or kCustomType with `text` the user's model. n > 0.
    /// Throws Error (an equations::EquationError for a text that does not parse or compile).
    EquationNeuron(std::string type, const std::string& text, std::int64_t n,
                   const AttributeMap& initial = {});

    std::string className() const override { return m_type; }
    /// {"shape": [N]}, plus "equations" for the user's own model.
    nlohmann::json config() const override;
    std::string extraRepr() const override;
    std::vector<PortSpec> inputPorts() const override;
    /// "dv/dt = ... (line L, column C of the equations)" for a state, the refractory line for
    /// the refractory counter.
    std::string stateOrigin(const std::string& state) const override;

    const equations::EquationModel& model() const { return m_model; }
    /// The model text as written.
    const std::string& text() const { return m_model.text; }
    /// The method in use.
    std::string method() const;
    std::int64_t nNeurons() const { return sizeOut(); }
    /// The compiled population the CPU steps (its program and parameter arrays), current with
    /// the attributes; what the device twin uploads.
    const equations::Population& population() const { return *m_population; }

    /// Its device twin (equation_neuron_device.cpp): device code compiled at run time
    /// (kernels/equation_jit.hpp), interpreted (kernels::equationStepsCuda) until it is ready.
    std::unique_ptr<DeviceNeuron> makeDeviceNeuron() override;
    /// How the CUDA backend last ran it ("device code (sm_90)", "interpreted on the device
    /// (device code compiling)", "interpreted on the device: <why device code failed>"); "" when
    /// it has not run there. Written by the device twin, read by anyone (spikesim's report).
    std::string deviceExecutionStatus() const;
    void setDeviceExecutionStatus(std::string status);

protected:
    Status validateChange(const Lookup& proposed) const override;
    void attributesChanged() override;
    std::vector<CarriedState> carriedStates() override;
    std::vector<Trace> traces() const override;
    void prepareEvolve() override;
    void runBatch(const float* input, std::int64_t steps, float* spikesOut,
                  const TraceTargets& traces) override;
    /// The population zeroes each input in its own pass (equations::Population::setConsumeInputs()).
    bool canConsumeInput() const override;
    /// Neurons are independent (no random streams; stores only into per-neuron arrays), so a
    /// population runs in ranges on the executor's threads: each range steps through a frame
    /// of its own (equations::Population::stepRange()), with the bits of runBatch().
    bool runsInRanges() const override;
    void beginRanges(int parts) override;
    void runRange(const float* input, std::int64_t steps, float* spikesOut, const TraceTargets& traces,
                  std::int64_t begin, std::int64_t end) override;
    void endRanges(std::int64_t steps) override;
    /// equations::Population::costPerNeuronStep(): HH's exponentials split a few hundred neurons.
    double workPerNeuronStep() const override;

private:
    void registerAttributes();
    /// Every state's initial value under the current parameters (runs the init program).
    std::vector<Tensor> initialStates() const;
    /// Recompiles when dt or the method changed, and loads the parameters into m_population.
    void refreshPopulation();
    /// Binds the working arrays into the population for runBatch() or a split run; unbind()
    /// undoes it (the arrays may be resized before the next run).
    void bindWork();
    void unbindWork();

    std::string m_type;
    equations::EquationModel m_model;
    std::unique_ptr<equations::Population> m_population;
    double m_compiledDt = 0.0;
    std::string m_compiledMethod;
    /// The initial states last computed: until the first step, a state still equal to them
    /// follows parameter changes (u(0) = b*v follows b), a state set by hand does not.
    std::vector<Tensor> m_lastInitial;

    std::vector<AttributeId> m_parameterIds;  ///< per model.parameters entry that is not an input
    std::vector<std::size_t> m_parameterIndex;  ///< its index in model.parameters
    std::vector<AttributeId> m_stateIds;      ///< per model.states
    AttributeId m_refractoryId{};
    AttributeId m_dt{};
    AttributeId m_method{};

    // Working state of one batch element during evolve (sized per call by NeuronLayer).
    std::vector<Eigen::ArrayXf> m_work;  ///< per state
    Eigen::ArrayXf m_refractoryWork;
    std::vector<const float*> m_inputRows;  ///< per model input, this step's row
    /// A split run's frames, one per part (grown by beginRanges(), never shrunk), and the next
    /// one a runRange() call takes.
    std::vector<equations::Population::Frame> m_frames;
    std::atomic<int> m_nextFrame{0};
    mutable std::mutex m_deviceStatusMutex;
    std::string m_deviceStatus;
};

}  // namespace spike::engine
