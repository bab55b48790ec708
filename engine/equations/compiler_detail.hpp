// Internals of the equation compiler shared by compiler.cpp (the step, methodRefusal) and
// compiler_methods.cpp (the integration methods): registers handed out with reuse (Emitter),
// names bound to registers during one evaluation (Env), expressions to instructions (Compiler),
// and the linear structure the exact method needs. Not part of the engine's interface.
#pragma once

#include "engine/equations/compiler.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace spike::engine::equations::detail {

using kernels::EqInstruction;
using kernels::EqOp;

struct Val {
    int reg = -1;
    bool owned = false;
};

class Emitter {
public:
    explicit Emitter(Program& p) : m_p(p) {}

    int alloc()
    {
        if (!m_free.empty()) {
            const int r = m_free.back();
            m_free.pop_back();
            return r;
        }
        const int r = m_next++;
        if (m_next > kMaxRegisters) {
            throw EquationError("the equations need more than " + std::to_string(kMaxRegisters) +
                                    " intermediate values per step; split them into subexpressions",
                                0, 1);
        }
        m_p.registers = std::max(m_p.registers, m_next);
        return r;
    }
    void release(Val v)
    {
        if (v.owned && v.reg >= 0) {
            m_free.push_back(v.reg);
        }
    }
    Val op(EqOp code, Val a, Val b = {}, Val c = {})
    {
        EqInstruction ins;
        ins.op = code;
        ins.dst = static_cast<std::int16_t>(alloc());
        ins.a = static_cast<std::int16_t>(a.reg);
        ins.b = static_cast<std::int16_t>(b.reg);
        ins.c = static_cast<std::int16_t>(c.reg);
        m_p.code.push_back(ins);
        release(a);
        release(b);
        release(c);
        return {ins.dst, true};
    }
    Val fill(double value)
    {
        EqInstruction ins;
        ins.op = EqOp::Fill;
        ins.dst = static_cast<std::int16_t>(alloc());
        ins.value = static_cast<float>(value);
        m_p.code.push_back(ins);
        return {ins.dst, true};
    }
    Val load(int slot)
    {
        EqInstruction ins;
        ins.op = EqOp::Load;
        ins.dst = static_cast<std::int16_t>(alloc());
        ins.slot = slot;
        m_p.code.push_back(ins);
        return {ins.dst, true};
    }
    void store(int slot, Val a)
    {
        EqInstruction ins;
        ins.op = EqOp::Store;
        ins.a = static_cast<std::int16_t>(a.reg);
        ins.slot = slot;
        m_p.code.push_back(ins);
        release(a);
    }
    /// A value kept past its first use (the caller releases it).
    static Val kept(Val v) { return {v.reg, false}; }

private:
    Program& m_p;
    std::vector<int> m_free;
    int m_next = 0;
};

/// Names bound to registers while compiling one evaluation (a method's stage).
struct Env {
    std::map<std::string, int> bound;
    std::map<std::string, Val> memo;  ///< subexpressions compiled in this env
};

class Compiler {
public:
    Compiler(const EquationModel& m, CompiledModel& out) : m_m(m), m_out(out) {}

    Val compile(Emitter& em, Env& env, const ExprPtr& e)
    {
        if (e->kind != NodeKind::Name || m_m.kindOf(e->name) == NameKind::Unit) {
            const Typed t = typeOf(m_m, e, "an expression");
            if (t.constant) {
                return em.fill(t.value);
            }
        }
        switch (e->kind) {
        case NodeKind::Number:
            return em.fill(e->value);
        case NodeKind::Name:
            return name(em, env, e);
        case NodeKind::Unary:
            return em.op(e->op == Op::Neg ? EqOp::Neg : EqOp::Not, compile(em, env, e->args[0]));
        case NodeKind::Call:
            return call(em, env, e);
        case NodeKind::Binary:
            return binary(em, env, e);
        }
        return em.fill(0.0);
    }

    /// Releases the registers an env kept.
    static void drop(Emitter& em, Env& env)
    {
        for (auto& [n, v] : env.memo) {
            em.release(v);
        }
        env.memo.clear();
    }

private:
    Val name(Emitter& em, Env& env, const ExprPtr& e)
    {
        const auto b = env.bound.find(e->name);
        if (b != env.bound.end()) {
            return {b->second, false};
        }
        switch (m_m.kindOf(e->name)) {
        case NameKind::State:
            for (std::size_t i = 0; i < m_m.states.size(); ++i) {
                if (m_m.states[i].name == e->name) {
                    return em.load(m_out.stateSlots[i]);
                }
            }
            break;
        case NameKind::Parameter:
            for (std::size_t i = 0; i < m_m.parameters.size(); ++i) {
                if (m_m.parameters[i].name == e->name) {
                    return em.load(m_out.parameterSlots[i]);
                }
            }
            break;
        case NameKind::Subexpression: {
            const auto it = env.memo.find(e->name);
            if (it != env.memo.end()) {
                return {it->second.reg, false};
            }
            Val v = compile(em, env, m_m.subexpression(e->name)->expr);
            if (!v.owned) {  // an alias of a bound register: copy so the memo owns its value
                v = em.op(EqOp::Copy, v);
            }
            env.memo[e->name] = v;
            return {v.reg, false};
        }
        case NameKind::Time:
            if (e->name == "dt") {
                return em.fill(m_out.dt);
            }
            return em.load(m_out.timeSlot);
        default:
            break;
        }
        throw EquationError("unknown name '" + e->name + "'", e->position, e->length);
    }

    Val call(Emitter& em, Env& env, const ExprPtr& e)
    {
        static const std::map<std::string, EqOp> ops{
            {"exp", EqOp::Exp},     {"log", EqOp::Log},       {"log10", EqOp::Log10},
            {"sqrt", EqOp::Sqrt},   {"abs", EqOp::Abs},       {"sin", EqOp::Sin},
            {"cos", EqOp::Cos},     {"tan", EqOp::Tan},       {"sinh", EqOp::Sinh},
            {"cosh", EqOp::Cosh},   {"tanh", EqOp::Tanh},     {"arcsin", EqOp::Asin},
            {"arccos", EqOp::Acos}, {"arctan", EqOp::Atan},   {"exprel", EqOp::Exprel},
            {"floor", EqOp::Floor}, {"ceil", EqOp::Ceil},     {"sign", EqOp::Sign},
            {"int", EqOp::Trunc},   {"clip", EqOp::Clip}};
        const EqOp code = ops.at(e->name);
        const Val a = compile(em, env, e->args[0]);
        if (code == EqOp::Clip) {
            const Val lo = compile(em, env, e->args[1]);
            const Val hi = compile(em, env, e->args[2]);
            return em.op(code, a, lo, hi);
        }
        return em.op(code, a);
    }

    Val binary(Emitter& em, Env& env, const ExprPtr& e)
    {
        if (e->op == Op::Pow) {
            const Typed ex = typeOf(m_m, e->args[1], "an exponent");
            if (ex.constant) {
                const double p = ex.value;
                if (p == 0.5) {
                    return em.op(EqOp::Sqrt, compile(em, env, e->args[0]));
                }
                if (p == std::round(p) && std::abs(p) >= 1.0 && std::abs(p) <= 4.0) {
                    // Small whole powers as products, as generated code does.
                    const Val x = compile(em, env, e->args[0]);
                    Val acc = em.op(EqOp::Copy, Emitter::kept(x));
                    for (int k = 1; k < static_cast<int>(std::abs(p)); ++k) {
                        acc = em.op(EqOp::Mul, acc, Emitter::kept(x));
                    }
                    em.release(x);
                    if (p < 0) {
                        acc = em.op(EqOp::Div, em.fill(1.0), acc);
                    }
                    return acc;
                }
            }
        }
        if (e->op == Op::Div) {
            const Typed divisor = typeOf(m_m, e->args[1], "a divisor");
            const auto reciprocal = static_cast<float>(1.0 / divisor.value);
            if (divisor.constant && divisor.value != 0.0 && std::isnormal(reciprocal)) {
                // x / c as x * (1 / c), the reciprocal taken in double and rounded once (what
                // Brian2's generated code does with its loop-invariant constants, e.g. dt / ms):
                // a division costs 5 to 16 times a multiplication per vector, and a model such as
                // Izhikevich's ".../ mV ... / ms" spent most of its step waiting for two. A
                // reciprocal beyond float's normal range keeps the division.
                return em.op(EqOp::Mul, compile(em, env, e->args[0]), em.fill(reciprocal));
            }
        }
        static const std::map<Op, EqOp> ops{
            {Op::Add, EqOp::Add}, {Op::Sub, EqOp::Sub}, {Op::Mul, EqOp::Mul}, {Op::Div, EqOp::Div},
            {Op::Pow, EqOp::Pow}, {Op::Lt, EqOp::Lt},   {Op::Le, EqOp::Le},   {Op::Gt, EqOp::Gt},
            {Op::Ge, EqOp::Ge},   {Op::Eq, EqOp::Eq},   {Op::Ne, EqOp::Ne},   {Op::And, EqOp::And},
            {Op::Or, EqOp::Or}};
        const Val a = compile(em, env, e->args[0]);
        const Val b = compile(em, env, e->args[1]);
        return em.op(ops.at(e->op), a, b);
    }

    const EquationModel& m_m;
    CompiledModel& m_out;
};

/// The exact method's structure: M[i][j] expressions (null = 0) and b[i], or a refusal.
struct LinearSystem {
    std::vector<std::vector<ExprPtr>> matrix;
    std::vector<ExprPtr> constant;
    std::string refusal;
};

/// dX_i/dt = sum_j M_ij X_j + b_i for `m`'s states, with M free of states, t and inputs; or
/// why not.
LinearSystem linearSystem(const EquationModel& m);

/// The new value of every state after one step of out.method, from the states in `x`.
std::vector<Val> integrate(Compiler& c, Emitter& em, const EquationModel& m, const CompiledModel& out,
                           const std::vector<Val>& x);

}  // namespace spike::engine::equations::detail
