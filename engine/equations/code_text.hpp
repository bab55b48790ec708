// Equation-program instructions written as C++ statements: what native code (native.cpp, a loop
// for the CPU) and device code (device_source.cpp, a CUDA kernel compiled by NVRTC) are made of.
// Each statement does the interpreter's arithmetic for one instruction (program.cpp on the CPU,
// kernels/equation_device.cuh on the device), so generated code gives the interpreter's bits.
// Internal to engine/equations. Pure functions; any thread.
#pragma once

#include "engine/equations/program.hpp"
#include "kernels/equation_ops.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace spike::engine::equations::code {

/// Which interpreter a statement must equal: the CPU's (program.cpp) or the CUDA kernel's.
enum class Dialect { Cpu, Device };

/// "r<r>", the local variable of register r.
std::string reg(int r);

/// `v` as an exact C++ float expression (hex literal; NaN and infinities by their bits on the
/// device, where NVRTC has no __builtin_nanf).
std::string floatLiteral(float v, Dialect dialect);

/// One instruction as a statement. Per-neuron slot k is the array `s<k>` indexed by `i`, a shared
/// one the value `u<k>`; the destination is `dst` (default: its register) and operand register r
/// reads (*names)[r] when names is given (default: the register itself).
std::string statement(const kernels::EqInstruction& ins, const std::vector<char>& perNeuron, Dialect dialect,
                      const std::string& dst = {}, const std::vector<std::string>* names = nullptr);

/// A program as statements, split: each instruction flagged in `invariant` (one value for every
/// neuron; invariantInstructions()) becomes a line `const float h<k> = ...;` in `once`, to run
/// before the loop with the same operations, and its register is set from h<k> in the returned
/// loop body, which holds every other instruction's statement in program order.
std::vector<std::string> hoisted(const Program& program, const std::vector<char>& invariant,
                                 const std::vector<char>& perNeuron, Dialect dialect, std::vector<std::string>& once);

/// 16 hex digits of `h` (names of cached sources).
std::string hex(std::size_t h);

}  // namespace spike::engine::equations::code
