// The model compiler: expressions to register programs, and the integration methods as program
// fragments. See compiler.hpp for the step and the methods.
#include "engine/equations/compiler.hpp"

#include "engine/equations/linear.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace spike::engine::equations {

using kernels::EqInstruction;
using kernels::EqOp;

const std::vector<std::string>& methodNames()
{
    static const std::vector<std::string> names{"euler", "rk2", "rk4", "exponential_euler", "exact"};
    return names;
}

std::vector<std::string> CompiledModel::slotNames() const
{
    std::vector<std::string> names;
    for (const auto& s : slotInfo) {
        names.push_back(s.name);
    }
    return names;
}

namespace {

/// A register holding a value; owned registers go back to the free list once used.
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

}  // namespace

std::string methodRefusal(const EquationModel& m, const std::string& method)
{
    if (std::find(methodNames().begin(), methodNames().end(), method) == methodNames().end()) {
        return "unknown method '" + method + "' (known: euler, rk2, rk4, exponential_euler, exact)";
    }
    if (method == "exponential_euler") {
        for (const auto& s : m.states) {
            if (!splitLinear(inlineSubexpressions(m, s.rhs), s.name)) {
                return "exponential_euler needs each equation linear in its own variable: d" + s.name +
                       "/dt is not linear in " + s.name;
            }
        }
    }
    if (method == "exact") {
        const LinearSystem sys = linearSystem(m);
        if (!sys.refusal.empty()) {
            return "exact integration needs a linear system with constant coefficients: " + sys.refusal;
        }
    }
    return {};
}

std::vector<std::string> applicableMethods(const EquationModel& m)
{
    std::vector<std::string> out;
    for (const auto& name : methodNames()) {
        if (methodRefusal(m, name).empty()) {
            out.push_back(name);
        }
    }
    return out;
}

std::string defaultMethod(const EquationModel& m)
{
    if (!m.method.empty()) {
        return m.method;
    }
    return methodRefusal(m, "exact").empty() ? "exact" : "euler";
}

namespace {

/// dt * k, as the methods add it.
Val timesDt(Emitter& em, double dt, Val k)
{
    return em.op(EqOp::Mul, em.fill(dt), k);
}

/// The new value of every state after one step of `method`, from the states in `x`.
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

int addSlot(CompiledModel& out, const std::string& name, SlotKind kind)
{
    out.slotInfo.push_back({name, kind});
    return static_cast<int>(out.slotInfo.size()) - 1;
}

}  // namespace

CompiledModel compileModel(const EquationModel& model, double dt, const std::string& requested)
{
    CompiledModel out;
    out.model = model;
    out.dt = dt;
    out.method = requested.empty() ? defaultMethod(model) : requested;
    const std::string refusal = methodRefusal(model, out.method);
    if (!refusal.empty()) {
        const int at = requested.empty() ? model.methodPosition : 0;
        throw EquationError((requested.empty() ? locate(model.text, at) + ": " : std::string()) + refusal,
                            at, requested.empty() ? static_cast<int>(model.method.size()) : 1);
    }
    const EquationModel& m = out.model;
    const std::size_t n = m.states.size();
    for (const auto& s : m.states) {
        out.stateSlots.push_back(addSlot(out, s.name, SlotKind::State));
    }
    std::map<std::string, int> inputSlotOf;
    for (const auto& p : m.parameters) {
        out.parameterSlots.push_back(addSlot(out, p.name, p.input ? SlotKind::Input : SlotKind::Parameter));
    }
    for (const auto& s : m.states) {
        if (s.input) {
            inputSlotOf[s.name] = addSlot(out, "in_" + s.name, SlotKind::Input);
        }
    }
    out.timeSlot = addSlot(out, "t", SlotKind::Time);
    out.spikeSlot = addSlot(out, "spike", SlotKind::Spike);
    if (m.refractory) {
        out.refractorySlot = addSlot(out, m.refractoryIsTime ? "refrac" : "not_refractory", SlotKind::Refractory);
    }
    if (out.method == "exact") {
        for (const char* prefix : {"M", "Phi", "Gamma"}) {
            for (std::size_t i = 0; i < n; ++i) {
                for (std::size_t j = 0; j < n; ++j) {
                    const std::string name = std::string(prefix) + "[" + m.states[i].name + "][" + m.states[j].name + "]";
                    const int slot = addSlot(out, name, std::string(prefix) == "M" ? SlotKind::Matrix : SlotKind::Propagator);
                    (std::string(prefix) == "M" ? out.matrixSlots : std::string(prefix) == "Phi" ? out.phiSlots : out.gammaSlots).push_back(slot);
                }
            }
        }
    }
    Compiler c(m, out);

    {  // initial values, in declaration order
        Emitter em(out.init);
        for (std::size_t i = 0; i < n; ++i) {
            Env env;
            em.store(out.stateSlots[i], c.compile(em, env, m.states[i].init));
            Compiler::drop(em, env);
        }
    }
    if (out.method == "exact") {
        Emitter em(out.matrix);
        const LinearSystem sys = linearSystem(m);
        for (std::size_t i = 0; i < n; ++i) {
            for (std::size_t j = 0; j < n; ++j) {
                Env env;
                em.store(out.matrixSlots[i * n + j], sys.matrix[i][j] ? c.compile(em, env, sys.matrix[i][j]) : em.fill(0.0));
                Compiler::drop(em, env);
            }
        }
    }

    Emitter em(out.step);
    for (std::size_t i = 0; i < n; ++i) {  // wires add to input states
        if (m.states[i].input) {
            em.store(out.stateSlots[i], em.op(EqOp::Add, em.load(out.stateSlots[i]), em.load(inputSlotOf[m.states[i].name])));
        }
    }
    Val notRefractory{};
    if (m.refractory && m.refractoryIsTime) {
        const Val left = em.op(EqOp::Max, em.op(EqOp::Sub, em.load(out.refractorySlot), em.fill(1.0)), em.fill(0.0));
        notRefractory = em.op(EqOp::Le, Emitter::kept(left), em.fill(0.0));
        em.store(out.refractorySlot, left);
    } else if (m.refractory) {
        Env env;
        const Val cond = c.compile(em, env, m.refractory);
        Compiler::drop(em, env);
        notRefractory = em.op(EqOp::Or, em.load(out.refractorySlot), em.op(EqOp::Not, cond));
        em.store(out.refractorySlot, Emitter::kept(notRefractory));
    }
    std::vector<Val> x;
    for (std::size_t i = 0; i < n; ++i) {
        x.push_back(em.load(out.stateSlots[i]));
    }
    std::vector<Val> next = integrate(c, em, m, out, x);
    for (std::size_t i = 0; i < n; ++i) {
        Val v = next[i];
        if (m.refractory && m.states[i].unlessRefractory) {
            v = em.op(EqOp::Select, Emitter::kept(notRefractory), v, Emitter::kept(x[i]));
        }
        em.store(out.stateSlots[i], v);
        em.release(x[i]);
    }
    Val spike{};
    if (m.threshold) {
        Env env;
        spike = c.compile(em, env, m.threshold);
        Compiler::drop(em, env);
        if (m.refractory) {
            spike = em.op(EqOp::And, spike, Emitter::kept(notRefractory));
        }
    } else {
        spike = em.fill(0.0);
    }
    em.store(out.spikeSlot, Emitter::kept(spike));
    for (const ResetStatement& r : m.reset) {
        std::size_t i = 0;
        while (m.states[i].name != r.target) ++i;
        Env env;
        Val value = c.compile(em, env, r.expr);
        Compiler::drop(em, env);
        if (r.op != Op::None) {
            static const std::map<Op, EqOp> ops{{Op::Add, EqOp::Add}, {Op::Sub, EqOp::Sub}, {Op::Mul, EqOp::Mul}, {Op::Div, EqOp::Div}};
            value = em.op(ops.at(r.op), em.load(out.stateSlots[i]), value);
        }
        em.store(out.stateSlots[i], em.op(EqOp::Select, Emitter::kept(spike), value, em.load(out.stateSlots[i])));
    }
    if (m.refractory && m.refractoryIsTime) {
        // Brian2's timestep(refractory, dt) = int((refractory + 1e-3 dt) / dt)
        Env env;
        const Val period = c.compile(em, env, m.refractory);
        Compiler::drop(em, env);
        const Val steps = em.op(EqOp::Floor, em.op(EqOp::Div, em.op(EqOp::Add, period, em.fill(1e-3 * dt)), em.fill(dt)));
        em.store(out.refractorySlot, em.op(EqOp::Select, Emitter::kept(spike), steps, em.load(out.refractorySlot)));
    } else if (m.refractory) {
        em.store(out.refractorySlot, em.op(EqOp::Select, Emitter::kept(spike), em.fill(0.0), em.load(out.refractorySlot)));
    }
    em.release(notRefractory.owned ? notRefractory : Val{});
    em.release(spike);
    return out;
}

}  // namespace spike::engine::equations
