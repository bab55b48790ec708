// Compiling a checked model (model.hpp) into programs (program.hpp) that advance a whole
// population one step: inputs, refractoriness, the integration method, threshold, reset.
//
// One step, in the order the program runs it (Brian2's schedule within a step):
//     x += in_x                     for every state marked (input): the wires' values
//     refractory bookkeeping        time: refrac = max(refrac - 1, 0), not_refractory = refrac == 0
//                                   condition: not_refractory = not_refractory or not (condition)
//     integrate every state         the method's update from the values at the step's start;
//                                   states marked (unless refractory) keep their value while
//                                   refractory
//     spike = threshold (and not_refractory when the model is refractory)
//     reset statements, in order, where spike
//     where spike: refrac = floor(refractory / dt + 0.001) / not_refractory = 0
//
// Methods (Brian2's names and formulas): euler  x' = x + dt f(x); rk2 (midpoint); rk4;
// exponential_euler for equations linear in their own variable, f = A x + B:
// x' = -B/A + (x + B/A) exp(A dt); exact for linear systems dx/dt = M x + b with M made of
// parameters only: x' = exp(M dt) x + (integral of exp(M s) over [0, dt]) b, the two matrices
// computed per neuron in double whenever parameters change (propagators()). Without a method
// the compiler chooses as Brian2 does: exact when it applies, else euler.
// Pure functions; the result is immutable. Any thread.
#pragma once

#include "engine/equations/model.hpp"
#include "engine/equations/program.hpp"

#include <string>
#include <vector>

namespace spike::engine::equations {

/// What a slot holds.
enum class SlotKind {
    State,        ///< a state variable (per neuron)
    Parameter,    ///< a parameter (per neuron or one value)
    Input,        ///< an input port's values for this step (per neuron)
    Time,         ///< t [s] at the step's start (one value)
    Spike,        ///< the step's spikes, 0 or 1 (per neuron)
    Refractory,   ///< refractory steps left, or not_refractory (per neuron)
    Matrix,       ///< exact method: an entry of M (per neuron or one value)
    Propagator,   ///< exact method: an entry of exp(M dt) or of its integral
};

struct SlotInfo {
    std::string name;
    SlotKind kind = SlotKind::State;
};

/// The integration methods, by their Brian2 names.
const std::vector<std::string>& methodNames();

/// A model compiled for one time step.
struct CompiledModel {
    EquationModel model;
    double dt = 0.0;
    std::string method;  ///< the method used
    std::vector<SlotInfo> slotInfo;  ///< every array the programs use ("slots" is a Qt macro)
    std::vector<int> stateSlots;      ///< per model.states
    std::vector<int> parameterSlots;  ///< per model.parameters (inputs are SlotKind::Input)
    int timeSlot = -1;
    int spikeSlot = -1;
    int refractorySlot = -1;          ///< -1 without refractoriness
    Program init;   ///< stores every state's initial value, in declaration order
    Program step;   ///< one step, see the header comment
    /// exact method: evaluates M into matrixSlots (n x n row-major); the caller then fills
    /// phiSlots and gammaSlots with propagators().
    Program matrix;
    std::vector<int> matrixSlots;
    std::vector<int> phiSlots;
    std::vector<int> gammaSlots;

    std::vector<std::string> slotNames() const;
};

/// Methods that apply to `model` (euler, rk2, rk4 always; exponential_euler and exact when the
/// equations have the structure they need).
std::vector<std::string> applicableMethods(const EquationModel& model);

/// States that exact integration takes at most: it compiles and evaluates an n x n matrix (and
/// three n x n slot sets), so 5000 linear states once took 40 s and gigabytes before any step.
inline constexpr int kMaxExactStates = 32;

/// Why `method` does not apply to `model` ("" when it does).
std::string methodRefusal(const EquationModel& model, const std::string& method);

/// The method used when none is asked for: model.method when written, else exact when it
/// applies (a linear system of at most kMaxExactStates states), else euler.
std::string defaultMethod(const EquationModel& model);

/// Compiles `model` for time step `dt` [s] with `method` ("" = defaultMethod). Throws
/// EquationError (at the method line, or the equation that prevents the method).
CompiledModel compileModel(const EquationModel& model, double dt, const std::string& method = "");

}  // namespace spike::engine::equations
