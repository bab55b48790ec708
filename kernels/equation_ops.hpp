// The instruction set of compiled equation models (engine/equations/compiler.hpp) and the
// arithmetic of each instruction on one value, shared by the CPU executor (which applies it to
// blocks of neurons) and the CUDA kernel (one neuron per thread), so both backends round alike.
// Plain data and pure functions; any thread. Like lif_math.hpp, callers build without FMA
// contraction.
#pragma once

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

/// exprel(x) = (exp(x) - 1) / x, 1 at x = 0 (Brian2's exprel), accurate near 0.
SPIKE_EQ_HD float eqExprel(float x)
{
    if (x == 0.0F) {
        return 1.0F;
    }
    if (fabsf(x) < 1e-3F) {
        return 1.0F + x * (0.5F + x * (1.0F / 6.0F));
    }
    return expm1f(x) / x;
}

/// The arithmetic instructions on one value (not Fill, Load, Store, Copy).
SPIKE_EQ_HD float eqApply(EqOp op, float a, float b, float c)
{
    switch (op) {
    case EqOp::Add: return a + b;
    case EqOp::Sub: return a - b;
    case EqOp::Mul: return a * b;
    case EqOp::Div: return a / b;
    case EqOp::Neg: return -a;
    case EqOp::Exp: return expf(a);
    case EqOp::Log: return logf(a);
    case EqOp::Log10: return log10f(a);
    case EqOp::Sqrt: return sqrtf(a);
    case EqOp::Abs: return fabsf(a);
    case EqOp::Sin: return sinf(a);
    case EqOp::Cos: return cosf(a);
    case EqOp::Tan: return tanf(a);
    case EqOp::Sinh: return sinhf(a);
    case EqOp::Cosh: return coshf(a);
    case EqOp::Tanh: return tanhf(a);
    case EqOp::Asin: return asinf(a);
    case EqOp::Acos: return acosf(a);
    case EqOp::Atan: return atanf(a);
    case EqOp::Exprel: return eqExprel(a);
    case EqOp::Floor: return floorf(a);
    case EqOp::Ceil: return ceilf(a);
    case EqOp::Sign: return a > 0.0F ? 1.0F : (a < 0.0F ? -1.0F : 0.0F);
    case EqOp::Trunc: return truncf(a);
    case EqOp::Pow: return powf(a, b);
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
