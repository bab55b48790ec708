// The CPU executor of compiled equation programs: one loop per instruction over a block of
// neurons, the arithmetic from kernels/equation_ops.hpp. Built with -fno-math-errno and
// -fno-trapping-math so GCC vectorises the elementwise loops. See program.hpp.
#include "engine/equations/program.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace spike::engine::equations {

using kernels::EqOp;

namespace {

template <typename F>
inline void unary(float* __restrict d, const float* __restrict a, std::int64_t n, F f)
{
    for (std::int64_t i = 0; i < n; ++i) {
        d[i] = f(a[i]);
    }
}

template <typename F>
inline void binary(float* __restrict d, const float* __restrict a, const float* __restrict b,
                   std::int64_t n, F f)
{
    for (std::int64_t i = 0; i < n; ++i) {
        d[i] = f(a[i], b[i]);
    }
}

}  // namespace

void execute(const Program& program, const SlotBinding* bindings, std::int64_t begin,
             std::int64_t count, float* registers)
{
    const auto reg = [registers](int r) { return registers + static_cast<std::int64_t>(r) * kBlock; };
    const std::int64_t n = count;
    // Where each register's values are: its own storage, or (after a Load of a per-neuron slot)
    // the slot's array itself, read in place. Slots change only through Store, and the compiler
    // never stores a state while a value loaded from it before is still to be read.
    const float* view[kMaxRegisters];
    for (const kernels::EqInstruction& ins : program.code) {
        float* d = ins.dst >= 0 ? reg(ins.dst) : nullptr;
        const float* a = ins.a >= 0 ? view[ins.a] : nullptr;
        const float* b = ins.b >= 0 ? view[ins.b] : nullptr;
        const float* c = ins.c >= 0 ? view[ins.c] : nullptr;
        if (ins.dst >= 0) {
            view[ins.dst] = d;
        }
        switch (ins.op) {
        case EqOp::Fill:
            std::fill(d, d + n, ins.value);
            break;
        case EqOp::Load: {
            const SlotBinding& s = bindings[ins.slot];
            if (s.perNeuron) {
                view[ins.dst] = s.data + begin;
            } else {
                std::fill(d, d + n, s.data[0]);
            }
            break;
        }
        case EqOp::Store: {
            float* target = bindings[ins.slot].data + begin;
            if (a != target) {
                std::copy(a, a + n, target);
            }
            break;
        }
        case EqOp::Copy:
            std::copy(a, a + n, d);
            break;
        case EqOp::Add: binary(d, a, b, n, [](float x, float y) { return x + y; }); break;
        case EqOp::Sub: binary(d, a, b, n, [](float x, float y) { return x - y; }); break;
        case EqOp::Mul: binary(d, a, b, n, [](float x, float y) { return x * y; }); break;
        case EqOp::Div: binary(d, a, b, n, [](float x, float y) { return x / y; }); break;
        case EqOp::Neg: unary(d, a, n, [](float x) { return -x; }); break;
        case EqOp::Exp: unary(d, a, n, [](float x) { return kernels::pm::exp(x); }); break;
        case EqOp::Sqrt: unary(d, a, n, [](float x) { return std::sqrt(x); }); break;
        case EqOp::Abs: unary(d, a, n, [](float x) { return std::fabs(x); }); break;
        case EqOp::Floor: unary(d, a, n, [](float x) { return std::floor(x); }); break;
        case EqOp::Trunc: unary(d, a, n, [](float x) { return std::trunc(x); }); break;
        case EqOp::Lt: binary(d, a, b, n, [](float x, float y) { return x < y ? 1.0F : 0.0F; }); break;
        case EqOp::Le: binary(d, a, b, n, [](float x, float y) { return x <= y ? 1.0F : 0.0F; }); break;
        case EqOp::Gt: binary(d, a, b, n, [](float x, float y) { return x > y ? 1.0F : 0.0F; }); break;
        case EqOp::Ge: binary(d, a, b, n, [](float x, float y) { return x >= y ? 1.0F : 0.0F; }); break;
        case EqOp::Eq: binary(d, a, b, n, [](float x, float y) { return x == y ? 1.0F : 0.0F; }); break;
        case EqOp::Ne: binary(d, a, b, n, [](float x, float y) { return x != y ? 1.0F : 0.0F; }); break;
        case EqOp::And:
            binary(d, a, b, n, [](float x, float y) { return (x != 0.0F && y != 0.0F) ? 1.0F : 0.0F; });
            break;
        case EqOp::Or:
            binary(d, a, b, n, [](float x, float y) { return (x != 0.0F || y != 0.0F) ? 1.0F : 0.0F; });
            break;
        case EqOp::Not: unary(d, a, n, [](float x) { return x != 0.0F ? 0.0F : 1.0F; }); break;
        case EqOp::Select:
            for (std::int64_t i = 0; i < n; ++i) {
                d[i] = a[i] != 0.0F ? b[i] : c[i];
            }
            break;
        case EqOp::Max: binary(d, a, b, n, [](float x, float y) { return std::max(x, y); }); break;
        default:
            // The rest run through the shared per-value arithmetic.
            for (std::int64_t i = 0; i < n; ++i) {
                d[i] = kernels::eqApply(ins.op, a[i], b != nullptr ? b[i] : 0.0F, c != nullptr ? c[i] : 0.0F);
            }
            break;
        }
    }
}

void executeAll(const Program& program, const SlotBinding* bindings, std::int64_t n, float* registers)
{
    for (std::int64_t begin = 0; begin < n; begin += kBlock) {
        execute(program, bindings, begin, std::min(kBlock, n - begin), registers);
    }
}

std::vector<char> invariantInstructions(const Program& program, const std::vector<char>& perNeuron)
{
    std::vector<char> invariantRegister(static_cast<std::size_t>(std::max(program.registers, 0)), 0);
    std::vector<char> out(program.code.size(), 0);
    const auto isInvariant = [&invariantRegister](int r) {
        return r < 0 || invariantRegister[static_cast<std::size_t>(r)] != 0;
    };
    for (std::size_t k = 0; k < program.code.size(); ++k) {
        const kernels::EqInstruction& ins = program.code[k];
        if (ins.dst < 0) {
            continue;  // a store
        }
        const bool sharedLoad = ins.op != EqOp::Load || perNeuron.at(static_cast<std::size_t>(ins.slot)) == 0;
        out[k] = sharedLoad && isInvariant(ins.a) && isInvariant(ins.b) && isInvariant(ins.c) ? 1 : 0;
        invariantRegister[static_cast<std::size_t>(ins.dst)] = out[k];
    }
    return out;
}

std::string listing(const Program& program, const std::vector<std::string>& slotNames)
{
    static const char* names[] = {
        "fill", "load", "store", "copy", "+", "-", "*", "/", "neg", "exp", "log", "log10", "sqrt",
        "abs", "sin", "cos", "tan", "sinh", "cosh", "tanh", "arcsin", "arccos", "arctan", "exprel",
        "floor", "ceil", "sign", "int", "**", "<", "<=", ">", ">=", "==", "!=", "and", "or", "not",
        "select", "clip", "max"};
    std::ostringstream os;
    for (const auto& ins : program.code) {
        const auto r = [](int k) { return "r" + std::to_string(k); };
        const std::string slot = ins.slot >= 0 && ins.slot < static_cast<int>(slotNames.size())
                                     ? slotNames[static_cast<std::size_t>(ins.slot)]
                                     : std::to_string(ins.slot);
        switch (ins.op) {
        case EqOp::Fill: os << r(ins.dst) << " = " << ins.value; break;
        case EqOp::Load: os << r(ins.dst) << " = " << slot; break;
        case EqOp::Store: os << slot << " = " << r(ins.a); break;
        case EqOp::Copy: os << r(ins.dst) << " = " << r(ins.a); break;
        case EqOp::Add: case EqOp::Sub: case EqOp::Mul: case EqOp::Div: case EqOp::Pow:
        case EqOp::Lt: case EqOp::Le: case EqOp::Gt: case EqOp::Ge: case EqOp::Eq: case EqOp::Ne:
        case EqOp::And: case EqOp::Or:
            os << r(ins.dst) << " = " << r(ins.a) << ' ' << names[static_cast<int>(ins.op)] << ' ' << r(ins.b);
            break;
        default:
            os << r(ins.dst) << " = " << names[static_cast<int>(ins.op)] << '(' << r(ins.a);
            if (ins.b >= 0) os << ", " << r(ins.b);
            if (ins.c >= 0) os << ", " << r(ins.c);
            os << ')';
        }
        os << '\n';
    }
    return os.str();
}

}  // namespace spike::engine::equations
