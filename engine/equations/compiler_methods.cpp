// The integration methods as program fragments (see compiler.hpp): Euler, the midpoint and
// classic Runge-Kutta rules, exponential Euler and exact integration of linear systems.
#include "engine/equations/compiler_detail.hpp"
#include "engine/equations/linear.hpp"

#include <algorithm>

namespace spike::engine::equations::detail {

LinearSystem linearSystem(const EquationModel& m)
{
    LinearSystem sys;
    const std::size_t n = m.states.size();
    sys.matrix.assign(n, std::vector<ExprPtr>(n));
    sys.constant.assign(n, nullptr);
    for (std::size_t i = 0; i < n; ++i) {
        ExprPtr rest = inlineSubexpressions(m, m.states[i].rhs);
        for (std::size_t j = 0; j < n; ++j) {
            if (!rest) break;
            const auto split = splitLinear(rest, m.states[j].name);
            if (!split) {
                sys.refusal = "d" + m.states[i].name + "/dt is not linear in " + m.states[j].name;
                return sys;
            }
            sys.matrix[i][j] = split->first;
            rest = split->second;
        }
        for (std::size_t j = 0; j < n; ++j) {
            const ExprPtr& a = sys.matrix[i][j];
            if (!a) continue;
            if (mentions(a, "t")) {
                sys.refusal = "d" + m.states[i].name + "/dt has a coefficient that changes with time t";
                return sys;
            }
            for (const auto& other : m.states) {  // ge*(Ee - v): v's coefficient holds the state ge
                if (mentions(a, other.name)) {
                    sys.refusal = "d" + m.states[i].name + "/dt multiplies " + m.states[j].name + " by the state " +
                                  other.name + ", so the system is not linear";
                    return sys;
                }
            }
            for (const auto& p : m.parameters) {
                if (p.input && mentions(a, p.name)) {
                    sys.refusal = "d" + m.states[i].name + "/dt multiplies " + m.states[j].name +
                                  " by the input " + p.name + ", which changes every step";
                    return sys;
                }
            }
        }
        sys.constant[i] = rest;
    }
    return sys;
}


namespace {

/// dt * k, as the methods add it.
Val timesDt(Emitter& em, double dt, Val k)
{
    return em.op(EqOp::Mul, em.fill(dt), k);
}

/// The new value of every state after one step of `method`, from the states in `x`.
}  // namespace

std::vector<Val> integrate(Compiler& c, Emitter& em, const EquationModel& m, const CompiledModel& out,
                           const std::vector<Val>& x)
{
    const std::size_t n = m.states.size();
    const double dt = out.dt;
    const auto bindStates = [&](Env& env, const std::vector<Val>& values) {
        for (std::size_t i = 0; i < n; ++i) {
            env.bound[m.states[i].name] = values[i].reg;
        }
    };
    const auto derivatives = [&](const std::vector<Val>& values, double timeShift) {
        Env env;
        bindStates(env, values);
        Val t{};
        if (timeShift != 0.0) {
            t = em.op(EqOp::Add, em.load(out.timeSlot), em.fill(timeShift));
            env.bound["t"] = t.reg;
        }
        std::vector<Val> k;
        for (std::size_t i = 0; i < n; ++i) {
            k.push_back(timesDt(em, dt, c.compile(em, env, m.states[i].rhs)));
        }
        Compiler::drop(em, env);
        em.release(t);
        return k;
    };
    std::vector<Val> next;
    if (out.method == "euler") {
        const std::vector<Val> k = derivatives(x, 0.0);
        for (std::size_t i = 0; i < n; ++i) {
            next.push_back(em.op(EqOp::Add, Emitter::kept(x[i]), k[i]));
        }
    } else if (out.method == "rk2" || out.method == "rk4") {
        const auto stage = [&](const std::vector<Val>& k, double factor) {
            std::vector<Val> y;
            for (std::size_t i = 0; i < n; ++i) {
                const Val part = factor == 1.0 ? Emitter::kept(k[i]) : em.op(EqOp::Mul, Emitter::kept(k[i]), em.fill(factor));
                y.push_back(em.op(EqOp::Add, Emitter::kept(x[i]), part));
            }
            return y;
        };
        const auto release = [&](std::vector<Val>& v) {
            for (auto& r : v) em.release(r);
        };
        const std::vector<Val> k1 = derivatives(x, 0.0);
        std::vector<Val> y1 = stage(k1, 0.5);
        std::vector<Val> k2 = derivatives(y1, dt / 2);
        release(y1);
        if (out.method == "rk2") {
            for (std::size_t i = 0; i < n; ++i) {
                next.push_back(em.op(EqOp::Add, Emitter::kept(x[i]), k2[i]));
                em.release(k1[i]);
            }
            return next;
        }
        std::vector<Val> y2 = stage(k2, 0.5);
        std::vector<Val> k3 = derivatives(y2, dt / 2);
        release(y2);
        std::vector<Val> y3 = stage(k3, 1.0);
        std::vector<Val> k4 = derivatives(y3, dt);
        release(y3);
        for (std::size_t i = 0; i < n; ++i) {
            // x + (k1 + 2 k2 + 2 k3 + k4) / 6
            Val sum = em.op(EqOp::Add, k1[i], em.op(EqOp::Mul, em.fill(2.0), k2[i]));
            sum = em.op(EqOp::Add, sum, em.op(EqOp::Mul, em.fill(2.0), k3[i]));
            sum = em.op(EqOp::Add, sum, k4[i]);
            next.push_back(em.op(EqOp::Add, Emitter::kept(x[i]), em.op(EqOp::Div, sum, em.fill(6.0))));
        }
    } else if (out.method == "exponential_euler") {
        Env env;
        bindStates(env, x);
        std::vector<Val> results;
        for (std::size_t i = 0; i < n; ++i) {
            const auto split = splitLinear(inlineSubexpressions(m, m.states[i].rhs), m.states[i].name);
            const ExprPtr& a = split->first;
            const ExprPtr& b = split->second;
            if (!a) {  // no dependence on itself: an Euler step of B
                results.push_back(b ? em.op(EqOp::Add, Emitter::kept(x[i]), timesDt(em, dt, c.compile(em, env, b)))
                                    : em.op(EqOp::Copy, Emitter::kept(x[i])));
                continue;
            }
            const Val av = c.compile(em, env, a);
            const Val growth = em.op(EqOp::Exp, em.op(EqOp::Mul, Emitter::kept(av), em.fill(dt)));
            if (!b) {
                em.release(av);
                results.push_back(em.op(EqOp::Mul, Emitter::kept(x[i]), growth));
                continue;
            }
            const Val ba = em.op(EqOp::Div, c.compile(em, env, b), av);  // B / A
            const Val shifted = em.op(EqOp::Mul, em.op(EqOp::Add, Emitter::kept(ba), Emitter::kept(x[i])), growth);
            results.push_back(em.op(EqOp::Add, em.op(EqOp::Neg, ba), shifted));
        }
        Compiler::drop(em, env);
        next = results;
    } else {  // exact
        const LinearSystem sys = linearSystem(m);
        // reach[i][j]: state j influences state i within a step (closure of M's pattern).
        std::vector<std::vector<bool>> reach(n, std::vector<bool>(n, false));
        for (std::size_t i = 0; i < n; ++i) {
            reach[i][i] = true;
            for (std::size_t j = 0; j < n; ++j) {
                if (sys.matrix[i][j]) reach[i][j] = true;
            }
        }
        for (std::size_t k = 0; k < n; ++k)
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t j = 0; j < n; ++j)
                    if (reach[i][k] && reach[k][j]) reach[i][j] = true;
        Env env;
        bindStates(env, x);
        std::vector<Val> b(n);
        for (std::size_t j = 0; j < n; ++j) {
            if (sys.constant[j]) b[j] = c.compile(em, env, sys.constant[j]);
        }
        for (std::size_t i = 0; i < n; ++i) {
            Val acc{};
            const auto accumulate = [&](Val term) {
                acc = acc.reg < 0 ? term : em.op(EqOp::Add, acc, term);
            };
            for (std::size_t j = 0; j < n; ++j) {
                if (!reach[i][j]) continue;
                accumulate(em.op(EqOp::Mul, em.load(out.phiSlots[i * n + j]), Emitter::kept(x[j])));
            }
            for (std::size_t j = 0; j < n; ++j) {
                if (!reach[i][j] || b[j].reg < 0) continue;
                accumulate(em.op(EqOp::Mul, em.load(out.gammaSlots[i * n + j]), Emitter::kept(b[j])));
            }
            next.push_back(acc);
        }
        for (auto& v : b) em.release(v);
        Compiler::drop(em, env);
    }
    return next;
}

}  // namespace spike::engine::equations::detail
