// The CUDA kernel of equation-defined neuron populations (engine/neurons/equation_neuron.hpp),
// behind a plain C++ interface. One thread per neuron runs the compiled step program
// (engine/equations/program.hpp) instruction by instruction over a span of steps, with the same
// per-value arithmetic as the CPU executor (kernels/equation_ops.hpp); built with --fmad=false.
// Errors: std::invalid_argument for a program past the kernel's limits, std::runtime_error for a
// failed launch. Thread: any thread, one population's calls from one thread at a time.
#pragma once

#include "kernels/equation_ops.hpp"

#include <cstdint>

namespace spike::kernels {

/// What one thread can hold: registers of the program, slots (arrays), input ports, traces.
inline constexpr int kEqMaxRegisters = 64;
inline constexpr int kEqMaxSlots = 96;
inline constexpr int kEqMaxInputs = 8;
inline constexpr int kEqMaxTraces = 16;

/// A population on the device: its program and slots (every pointer a device pointer).
struct EquationDevice {
    std::int64_t n = 0;                       ///< neurons
    const EqInstruction* code = nullptr;      ///< the step program
    int length = 0;                           ///< its instructions
    int registers = 0;                        ///< registers it uses (<= kEqMaxRegisters)
    int slotCount = 0;                        ///< <= kEqMaxSlots
    float* const* table = nullptr;            ///< slotCount arrays (inputs and time: unused); not "slots", a Qt macro
    const std::uint8_t* perNeuron = nullptr;  ///< per slot: 1 = n values, 0 = one shared value
    int timeSlot = -1;                        ///< slot read as t [s]
    int spikeSlot = -1;                       ///< slot whose values are the step's output
    int inputSlots[kEqMaxInputs] = {};        ///< slot of input port k (row k * n .. of `in`)
    int inputCount = 0;
    int traceSlots[kEqMaxTraces] = {};        ///< slot recorded as trace k
    int traceCount = 0;
    double dt = 0.0;                          ///< [s]
    std::int64_t firstStep = 0;               ///< steps before this span (t = step * dt)
};

/// Trace targets of one launch: device rows (steps, n) per trace, or nullptr.
struct EquationTraces {
    float* rows[kEqMaxTraces] = {};
};

/// Runs `steps` steps: `in` holds (steps, inputCount * n) rows ([port 0 | port 1 | ...]), `out`
/// receives (steps, n) spikes, each non-null traces.rows[k] (steps, n) values of trace k.
void equationStepsCuda(const EquationDevice& population, const float* in, std::int64_t steps,
                       float* out, const EquationTraces& traces);

}  // namespace spike::kernels
