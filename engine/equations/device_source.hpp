// Device code for compiled equation programs: the step program (program.hpp) written out as the
// CUDA source of one kernel, one thread per neuron looping over a launch's steps, every register
// a local variable, compiled at run time by NVRTC (kernels/equation_jit.hpp) so the device runs
// it without interpreting (kernels/equation_device.cuh's interpreter keeps a register file in
// local memory and dispatches each instruction). Each statement applies kernels::eqApply, the
// interpreter's arithmetic, so the bits are the interpreter's and a population may switch from
// one to the other at any launch. Values every neuron shares that do not change with t
// (exponential Euler's exp(-dt/tau) of a shared tau) are computed once per launch, before the
// step loop, with the same operations. The same text compiles as host C++ (the CUDA emulator,
// tests/cuda_emulator, runs it there). Pure function; any thread.
#pragma once

#include "engine/equations/population.hpp"
#include "engine/equations/program.hpp"

#include <string>
#include <vector>

namespace spike::engine::equations {

/// How a population's slots reach the kernel (kernels::EquationDevice): per slot, a per-neuron
/// array or one shared value; which slots are input ports, t, the spike output and the traces.
struct DeviceLayout {
    std::vector<char> perNeuron;  ///< per slot: 1 = n values, 0 = one shared value
    std::vector<int> inputSlots;  ///< slot of input port k (row k of the step's input)
    int timeSlot = -1;            ///< slot read as t [s]
    int spikeSlot = -1;           ///< slot copied to the step's output row
    std::vector<int> traceSlots;  ///< slot copied to trace row k
};

/// How the CUDA backend lays out `population` (engine/neurons/equation_neuron_device.cpp): states,
/// refractory counter, inputs and spikes per neuron, t shared, each parameter as the population
/// binds it; input ports in the model's order; traces the states, then the refractory counter.
DeviceLayout deviceLayout(const Population& population);

/// The CUDA source of `program` under `layout`: `extern "C" __global__ void spike_eq_steps(
/// SpikeEqArgs)` for NVRTC (kernels::EquationJitArgs is the same struct), and for a host compiler
/// `extern "C" void spike_eq_step(float* const* args, int64_t begin, int64_t end)`, neurons
/// [begin, end) of the launch whose SpikeEqArgs `args` points at. Self-contained: it carries
/// kernels/portable_math.hpp and kernels/equation_ops.hpp and includes only <cmath>, <cstdint>
/// and <cstring>. Throws std::invalid_argument for a slot the layout does not cover, a store
/// into a shared slot, or more input or trace slots than the kernel takes.
std::string deviceSource(const Program& program, const DeviceLayout& layout);

}  // namespace spike::engine::equations
