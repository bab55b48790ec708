// A compiled equation program: a list of kernels::EqInstruction over a small register file,
// run by the CPU on blocks of neurons (kBlock at a time, each instruction one tight loop over
// the block, so interpretation costs per block, not per neuron) and by the CUDA kernel one
// neuron per thread. Slots are the arrays the program reads and writes, bound by the caller.
// A program is immutable once compiled; execute() uses only the caller's scratch. Any thread.
#pragma once

#include "kernels/equation_ops.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace spike::engine::equations {

/// Neurons one CPU pass of a program covers.
inline constexpr std::int64_t kBlock = 256;
/// The most registers a program may use (the compiler refuses a model that needs more).
inline constexpr int kMaxRegisters = 1024;

/// A program and the number of registers it needs.
struct Program {
    std::vector<kernels::EqInstruction> code;
    int registers = 0;

    bool empty() const { return code.empty(); }
};

/// An array a program reads or writes: `data[i]` for neuron i when perNeuron, else data[0]
/// for all.
struct SlotBinding {
    float* data = nullptr;
    bool perNeuron = false;
};

/// Runs `program` for neurons [begin, begin + count), count <= kBlock, with `registers`
/// pointing at program.registers * kBlock floats of scratch.
void execute(const Program& program, const SlotBinding* bindings, std::int64_t begin,
             std::int64_t count, float* registers);

/// Runs `program` over neurons [0, n) block by block.
void executeAll(const Program& program, const SlotBinding* bindings, std::int64_t n, float* registers);

/// Per instruction, whether it computes the same value for every neuron of a step under the
/// layout `perNeuron` (per slot: 1 per-neuron, 0 shared): a constant, a load of a shared slot,
/// or an operation on such values only (exp(-dt/tau) of a shared tau). Stores never are.
/// Native code computes these once per call before its neuron loop (native.cpp).
std::vector<char> invariantInstructions(const Program& program, const std::vector<char>& perNeuron);

/// The program as text, one instruction per line ("r3 = r1 * r2"), for tests and `spikesim info`.
std::string listing(const Program& program, const std::vector<std::string>& slotNames);

}  // namespace spike::engine::equations
