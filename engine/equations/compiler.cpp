// The model compiler: which methods apply, and the programs of one step (compileModel). The
// expression compiler is compiler_detail.hpp, the methods compiler_methods.cpp; see compiler.hpp
// for the step and the methods.
#include "engine/equations/compiler.hpp"

#include "engine/equations/compiler_detail.hpp"
#include "engine/equations/linear.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace spike::engine::equations {

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

using detail::Compiler;
using detail::Emitter;
using detail::Env;
using detail::Val;

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
        if (m.states.size() > static_cast<std::size_t>(kMaxExactStates)) {
            return "exact integration propagates all the states together (a matrix exponential of " +
                   std::to_string(m.states.size()) + " x " + std::to_string(m.states.size()) +
                   " entries): it takes at most " + std::to_string(kMaxExactStates) + " states";
        }
        const detail::LinearSystem sys = detail::linearSystem(m);
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
        const detail::LinearSystem sys = detail::linearSystem(m);
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
    std::vector<Val> next = detail::integrate(c, em, m, out, x);
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
        // Brian2's timestep(refractory, dt) = int((refractory + 1e-3 dt) / dt); in double at
        // compile time when the period is a constant.
        const Typed period = typeOf(m, m.refractory, "the refractory period");
        Val steps{};
        if (period.constant) {
            steps = em.fill(std::floor((period.value + 1e-3 * dt) / dt));
        } else {
            Env env;
            const Val value = c.compile(em, env, m.refractory);
            Compiler::drop(em, env);
            steps = em.op(EqOp::Floor, em.op(EqOp::Div, em.op(EqOp::Add, value, em.fill(1e-3 * dt)), em.fill(dt)));
        }
        em.store(out.refractorySlot, em.op(EqOp::Select, Emitter::kept(spike), steps, em.load(out.refractorySlot)));
    } else if (m.refractory) {
        em.store(out.refractorySlot, em.op(EqOp::Select, Emitter::kept(spike), em.fill(0.0), em.load(out.refractorySlot)));
    }
    em.release(notRefractory.owned ? notRefractory : Val{});
    em.release(spike);
    return out;
}

}  // namespace spike::engine::equations
