// The instruction set of compiled equation models (engine/equations/compiler.hpp) and the
// arithmetic of each instruction on one value, shared by the CPU executor (which applies it to
// blocks of neurons) and the CUDA kernel (one neuron per thread), so both backends round alike;
// the transcendental functions are kernels/portable_math.hpp's, which give the same bits on both.
// Plain data and pure functions; any thread. Like lif_math.hpp, callers build without FMA
// contraction.
#pragma once

#include "kernels/portable_math.hpp"

#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define SPIKE_EQ_HD __host__ __device__ inline
#else
#define SPIKE_EQ_HD inline
#endif

namespace spike::kernels {

/// What one instruction does. Registers hold one value per neuron; slots are the model's arrays
/// (a state, a parameter, an input row), either per neuron or one value for all.
enum class EqOp : std::uint8_t {
    Fill,    ///< dst = value
    Load,    ///< dst = slot (per neuron, or its one value)
    Store,   ///< slot = a (slots that are per neuron)
    Copy,    ///< dst = a
    Add, Sub, Mul, Div, Neg,
    Exp, Log, Log10, Sqrt, Abs, Sin, Cos, Tan, Sinh, Cosh, Tanh, Asin, Acos, Atan,
    Exprel,  ///< (exp(a) - 1) / a, 1 at a = 0
    Floor, Ceil, Sign, Trunc,
    Pow,     ///< a ** b
    Lt, Le, Gt, Ge, Eq, Ne,  ///< 1 or 0
    And, Or, Not,            ///< on 0 / 1 values
    Select,  ///< dst = a != 0 ? b : c
    Clip,    ///< dst = min(max(a, b), c)
    Max,     ///< dst = max(a, b)
};

/// One instruction: registers dst, a, b, c (-1 when unused), a slot, a constant.
struct EqInstruction {
    EqOp op = EqOp::Fill;
    std::int16_t dst = -1;
    std::int16_t a = -1;
    std::int16_t b = -1;
    std::int16_t c = -1;
    std::int32_t slot = -1;
    float value = 0.0F;
};

/// The arithmetic instructions on one value (not Fill, Load, Store, Copy).
SPIKE_EQ_HD float eqApply(EqOp op, float a, float b, float c)
{
    switch (op) {
    case EqOp::Add: return a + b;
    case EqOp::Sub: return a - b;
    case EqOp::Mul: return a * b;
    case EqOp::Div: return a / b;
    case EqOp::Neg: return -a;
    case EqOp::Exp: return pm::exp(a);
    case EqOp::Log: return pm::log(a);
    case EqOp::Log10: return pm::log10(a);
    case EqOp::Sqrt: return sqrtf(a);
    case EqOp::Abs: return fabsf(a);
    case EqOp::Sin: return pm::sin(a);
    case EqOp::Cos: return pm::cos(a);
    case EqOp::Tan: return pm::tan(a);
    case EqOp::Sinh: return pm::sinh(a);
    case EqOp::Cosh: return pm::cosh(a);
    case EqOp::Tanh: return pm::tanh(a);
    case EqOp::Asin: return pm::asin(a);
    case EqOp::Acos: return pm::acos(a);
    case EqOp::Atan: return pm::atan(a);
    case EqOp::Exprel: return pm::exprel(a);
    case EqOp::Floor: return floorf(a);
    case EqOp::Ceil: return ceilf(a);
    case EqOp::Sign: return a > 0.0F ? 1.0F : (a < 0.0F ? -1.0F : 0.0F);
    case EqOp::Trunc: return truncf(a);
    case EqOp::Pow: return pm::pow(a, b);
    case EqOp::Lt: return a < b ? 1.0F : 0.0F;
    case EqOp::Le: return a <= b ? 1.0F : 0.0F;
    case EqOp::Gt: return a > b ? 1.0F : 0.0F;
    case EqOp::Ge: return a >= b ? 1.0F : 0.0F;
    case EqOp::Eq: return a == b ? 1.0F : 0.0F;
    case EqOp::Ne: return a != b ? 1.0F : 0.0F;
    case EqOp::And: return (a != 0.0F && b != 0.0F) ? 1.0F : 0.0F;
    case EqOp::Or: return (a != 0.0F || b != 0.0F) ? 1.0F : 0.0F;
    case EqOp::Not: return a != 0.0F ? 0.0F : 1.0F;
    case EqOp::Select: return a != 0.0F ? b : c;
    case EqOp::Clip: return fminf(fmaxf(a, b), c);
    case EqOp::Max: return fmaxf(a, b);
    default: return a;
    }
}

}  // namespace spike::kernels
