// Reading a model text: the lines, the declarations they make, and the unit checks. See
// model.hpp for the language. Two passes: the first collects every declared name (an equation
// may use a name declared below it), the second parses and types every expression.
#include "engine/equations/model.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <set>

namespace spike::engine::equations {

namespace {

/// Position of the entry of `list` called `n`: through `index` when given (the entry at the indexed
/// position renamed since indexNames(): by searching), else by searching; -1 when there is none.
template <typename T, typename Index>
std::ptrdiff_t positionOf(const std::vector<T>& list, const Index* index, NameKind kind, const std::string& n)
{
    if (index != nullptr) {
        const auto it = index->find(n);
        if (it == index->end()) {
            return -1;
        }
        if (it->second.kind != kind) {
            return -1;  // another kind of name
        }
        if (list[it->second.position].name == n) {
            return static_cast<std::ptrdiff_t>(it->second.position);
        }
    }
    for (std::size_t i = 0; i < list.size(); ++i) {
        if (list[i].name == n) {
            return static_cast<std::ptrdiff_t>(i);
        }
    }
    return -1;
}

[[noreturn]] void failAt(const std::string& text, const ExprPtr& e, const std::string& what)
{
    throw EquationError(locate(text, e->position) + ": " + what, e->position, e->length);
}

/// The refusal of `what` when it is more than kMaxExpandedDepth operations deep with its
/// subexpressions substituted (found by type() or by checkExpanded()).
std::string tooDeep(const std::string& what)
{
    return what + " is more than " + std::to_string(kMaxExpandedDepth) +
           " operations deep with its subexpressions substituted; simplify the subexpressions it uses";
}

struct TypeContext {
    const EquationModel& model;
    const std::string& what;
    std::vector<std::string> visiting;  ///< subexpressions being typed (cycle detection)
    std::set<std::string> typed;        ///< subexpressions typed already (each once, not once per use)
    int depth = 0;                      ///< type() calls alive: the depth with subexpressions substituted
};

Typed type(TypeContext& ctx, const ExprPtr& e);

/// Fails at `e` unless every SI exponent of a * b^power fits Dimension's int8 (|x| <= 127): a
/// wider one would wrap around to other units (v**128 read as dimensionless).
void checkExponents(const std::string& text, const ExprPtr& e, const Dimension& a, const Dimension& b,
                    double power, const std::string& what)
{
    for (std::size_t i = 0; i < a.exponents.size(); ++i) {
        const double x = a.exponents[i] + b.exponents[i] * power;
        if (std::fabs(x) > 127.0) {
            failAt(text, e, "the units of this term in " + what + " are beyond what a unit can "
                            "hold (each SI exponent within -127..127; here " + unitText(a) +
                            " and " + unitText(b) + ")");
        }
    }
}

Typed number(TypeContext& ctx, const ExprPtr& e)
{
    const Typed t = type(ctx, e);
    if (t.boolean) {
        failAt(ctx.model.text, e, "a condition is used as a number in " + ctx.what +
                                       ": write int(...) to turn it into 0 or 1");
    }
    return t;
}

Typed condition(TypeContext& ctx, const ExprPtr& e)
{
    const Typed t = type(ctx, e);
    if (!t.boolean) {
        failAt(ctx.model.text, e, "expected a condition (a comparison such as v > 0*mV) in " + ctx.what);
    }
    return t;
}

Typed typeName(TypeContext& ctx, const ExprPtr& e)
{
    const EquationModel& m = ctx.model;
    switch (m.kindOf(e->name)) {
    case NameKind::State:
        return {m.state(e->name)->dim};
    case NameKind::Parameter:
        return {m.parameter(e->name)->dim};
    case NameKind::Subexpression: {
        const Subexpression* s = m.subexpression(e->name);
        if (std::find(ctx.visiting.begin(), ctx.visiting.end(), e->name) != ctx.visiting.end()) {
            failAt(m.text, e, "subexpression '" + e->name + "' is defined in terms of itself");
        }
        if (s->expr && !ctx.typed.contains(e->name)) {
            ctx.visiting.push_back(e->name);
            type(ctx, s->expr);
            ctx.visiting.pop_back();
            ctx.typed.insert(e->name);
        }
        return {s->dim};
    }
    case NameKind::Time:
        return {dims::second()};
    case NameKind::Unit: {
        const Quantity q = *namedUnit(e->name);
        return {q.dim, false, true, q.value};
    }
    case NameKind::Unknown:
        break;
    }
    if (e->name == "xi" || e->name.rfind("xi_", 0) == 0) {
        failAt(m.text, e, "stochastic terms (" + e->name + ") are not supported yet");
    }
    failAt(m.text, e, "unknown name '" + e->name + "' in " + ctx.what +
                          ": not a state, parameter, subexpression or unit of this model");
}

Typed typeCall(TypeContext& ctx, const ExprPtr& e)
{
    const std::string& f = e->name;
    const std::string& text = ctx.model.text;
    if (f == "int") {
        const Typed a = type(ctx, e->args[0]);
        if (!a.dim.dimensionless()) {
            failAt(text, e->args[0], "int() takes a number without units or a condition, got " + unitText(a.dim));
        }
        return {dims::none(), false, a.constant, std::trunc(a.value)};
    }
    if (f == "clip") {
        const Typed x = number(ctx, e->args[0]);
        for (int i = 1; i < 3; ++i) {
            const Typed b = number(ctx, e->args[static_cast<std::size_t>(i)]);
            if (b.dim != x.dim) {
                failAt(text, e->args[static_cast<std::size_t>(i)],
                       "clip() bounds must have the units of its value (" + unitText(x.dim) +
                           "), got " + unitText(b.dim));
            }
        }
        return {x.dim};
    }
    const Typed a = number(ctx, e->args[0]);
    if (f == "abs" || f == "floor" || f == "ceil") {
        return {a.dim, false, a.constant,
                f == "abs" ? std::abs(a.value) : f == "floor" ? std::floor(a.value) : std::ceil(a.value)};
    }
    if (f == "sqrt") {
        const auto half = a.dim.halved();
        if (!half) {
            failAt(text, e, "sqrt() of a quantity in " + unitText(a.dim) + " has no units to give");
        }
        return {*half, false, a.constant, std::sqrt(a.value)};
    }
    if (!a.dim.dimensionless()) {
        failAt(text, e->args[0], f + "() takes a number without units, got " + unitText(a.dim) +
                                     " (divide by a unit, e.g. (v - VT)/mV)");
    }
    if (f == "sign") {
        return {dims::none()};
    }
    double v = 0.0;
    if (a.constant) {
        if (f == "exp") v = std::exp(a.value);
        else if (f == "log") v = std::log(a.value);
        else if (f == "log10") v = std::log10(a.value);
        else if (f == "sin") v = std::sin(a.value);
        else if (f == "cos") v = std::cos(a.value);
        else if (f == "tan") v = std::tan(a.value);
        else if (f == "sinh") v = std::sinh(a.value);
        else if (f == "cosh") v = std::cosh(a.value);
        else if (f == "tanh") v = std::tanh(a.value);
        else if (f == "arcsin") v = std::asin(a.value);
        else if (f == "arccos") v = std::acos(a.value);
        else if (f == "arctan") v = std::atan(a.value);
        else if (f == "exprel") v = a.value == 0.0 ? 1.0 : std::expm1(a.value) / a.value;
    }
    return {dims::none(), false, a.constant, v};
}

Typed typeBinary(TypeContext& ctx, const ExprPtr& e)
{
    const std::string& text = ctx.model.text;
    if (e->op == Op::And || e->op == Op::Or) {
        const Typed a = condition(ctx, e->args[0]);
        const Typed b = condition(ctx, e->args[1]);
        const bool v = e->op == Op::And ? (a.value != 0 && b.value != 0) : (a.value != 0 || b.value != 0);
        return {dims::none(), true, a.constant && b.constant, v ? 1.0 : 0.0};
    }
    const Typed a = number(ctx, e->args[0]);
    const Typed b = number(ctx, e->args[1]);
    const bool constant = a.constant && b.constant;
    switch (e->op) {
    case Op::Add:
    case Op::Sub:
        if (a.dim != b.dim) {
            failAt(text, e, std::string("cannot ") + (e->op == Op::Add ? "add " : "subtract ") +
                                unitText(b.dim) + (e->op == Op::Add ? " to " : " from ") +
                                unitText(a.dim) + " in " + ctx.what);
        }
        return {a.dim, false, constant, e->op == Op::Add ? a.value + b.value : a.value - b.value};
    case Op::Mul:
        checkExponents(text, e, a.dim, b.dim, 1.0, ctx.what);
        return {a.dim * b.dim, false, constant, a.value * b.value};
    case Op::Div:
        if (b.constant && b.value == 0.0) {
            failAt(text, e->args[1], "division by zero in " + ctx.what);
        }
        checkExponents(text, e, a.dim, b.dim, -1.0, ctx.what);
        return {a.dim / b.dim, false, constant, constant ? a.value / b.value : 0.0};
    case Op::Pow: {
        if (!b.dim.dimensionless()) {
            failAt(text, e->args[1], "an exponent must have no units, got " + unitText(b.dim));
        }
        if (a.dim.dimensionless()) {
            return {a.dim, false, constant, std::pow(a.value, b.value)};
        }
        if (!b.constant) {
            failAt(text, e->args[1], "the exponent of a quantity with units (" + unitText(a.dim) +
                                         ") must be a number, not a variable");
        }
        const double twice = b.value * 2.0;
        if (twice != std::round(twice)) {
            failAt(text, e->args[1], "a quantity in " + unitText(a.dim) + " raised to " +
                                         std::to_string(b.value) + " has no units to give");
        }
        for (const auto x : a.dim.exponents) {
            if (std::fabs(x * twice) > 127.0) {  // a^(2b) must fit Dimension's int8 exponents
                char power[32];
                std::snprintf(power, sizeof power, "%g", b.value);
                failAt(text, e, "a quantity in " + unitText(a.dim) + " raised to " + power +
                                    " has units beyond what a unit can hold (each SI exponent within -63..63)");
            }
        }
        Dimension d = a.dim.pow(static_cast<int>(std::round(twice)));
        const auto half = d.halved();
        if (!half) {
            failAt(text, e, "a quantity in " + unitText(a.dim) + " raised to " +
                                std::to_string(b.value) + " has no units to give");
        }
        return {*half, false, constant, std::pow(a.value, b.value)};
    }
    default: {  // comparisons
        if (a.dim != b.dim) {
            failAt(text, e, "cannot compare " + unitText(a.dim) + " with " + unitText(b.dim) +
                                " in " + ctx.what);
        }
        bool v = false;
        switch (e->op) {
        case Op::Lt: v = a.value < b.value; break;
        case Op::Le: v = a.value <= b.value; break;
        case Op::Gt: v = a.value > b.value; break;
        case Op::Ge: v = a.value >= b.value; break;
        case Op::Eq: v = a.value == b.value; break;
        default: v = a.value != b.value; break;
        }
        return {dims::none(), true, constant, v ? 1.0 : 0.0};
    }
    }
}

/// Counts one type() call alive (see kMaxExpandedDepth).
struct TypeDepth {
    explicit TypeDepth(TypeContext& ctx) : ctx(ctx) { ++ctx.depth; }
    ~TypeDepth() { --ctx.depth; }
    TypeDepth(const TypeDepth&) = delete;
    TypeDepth& operator=(const TypeDepth&) = delete;
    TypeContext& ctx;
};

Typed type(TypeContext& ctx, const ExprPtr& e)
{
    const TypeDepth level(ctx);
    if (ctx.depth > kMaxExpandedDepth) {
        failAt(ctx.model.text, e, tooDeep(ctx.what));
    }
    switch (e->kind) {
    case NodeKind::Number:
        return {dims::none(), false, true, e->value};
    case NodeKind::Name:
        return typeName(ctx, e);
    case NodeKind::Call:
        return typeCall(ctx, e);
    case NodeKind::Unary:
        if (e->op == Op::Not) {
            const Typed a = condition(ctx, e->args[0]);
            return {dims::none(), true, a.constant, a.value != 0 ? 0.0 : 1.0};
        } else {
            const Typed a = number(ctx, e->args[0]);
            return {a.dim, false, a.constant, -a.value};
        }
    case NodeKind::Binary:
        return typeBinary(ctx, e);
    }
    return {};
}

/// Nodes and levels of an expression with its subexpressions substituted.
struct Extent {
    double nodes = 1.0;
    int depth = 1;
};

/// Extent of `e`, each subexpression measured once (memoised in `measured`): the recursion only
/// descends where typeOf() descended first, so no deeper than kMaxExpandedDepth.
Extent measure(const EquationModel& model, const ExprPtr& e, std::map<std::string, Extent>& measured)
{
    if (e->kind == NodeKind::Name) {
        const Subexpression* s = model.subexpression(e->name);
        if (s == nullptr || !s->expr) {
            return {};
        }
        const auto it = measured.find(e->name);
        if (it != measured.end()) {
            return it->second;
        }
        const Extent x = measure(model, s->expr, measured);
        measured.emplace(e->name, x);
        return x;
    }
    Extent x;
    for (const ExprPtr& a : e->args) {
        const Extent y = measure(model, a, measured);
        x.nodes += y.nodes;
        x.depth = std::max(x.depth, 1 + y.depth);
    }
    return x;
}

}  // namespace

void EquationModel::indexNames()
{
    m_names.clear();
    m_names.reserve(states.size() + parameters.size() + subexpressions.size());
    // Declared names are unique (parseModel() refuses a second one); were one repeated, the
    // first kept here is the one the searches below would find.
    for (std::size_t i = 0; i < states.size(); ++i) {
        m_names.try_emplace(states[i].name, Indexed{NameKind::State, i});
    }
    for (std::size_t i = 0; i < parameters.size(); ++i) {
        m_names.try_emplace(parameters[i].name, Indexed{NameKind::Parameter, i});
    }
    for (std::size_t i = 0; i < subexpressions.size(); ++i) {
        m_names.try_emplace(subexpressions[i].name, Indexed{NameKind::Subexpression, i});
    }
    m_indexedStates = states.size();
    m_indexedParameters = parameters.size();
    m_indexedSubexpressions = subexpressions.size();
    m_indexed = true;
}

const std::unordered_map<std::string, EquationModel::Indexed>* EquationModel::names() const
{
    const bool current = m_indexed && m_indexedStates == states.size() &&
                         m_indexedParameters == parameters.size() &&
                         m_indexedSubexpressions == subexpressions.size();
    return current ? &m_names : nullptr;
}

std::ptrdiff_t EquationModel::stateIndex(const std::string& n) const
{
    return positionOf(states, names(), NameKind::State, n);
}

const StateVariable* EquationModel::state(const std::string& n) const
{
    const std::ptrdiff_t i = stateIndex(n);
    return i < 0 ? nullptr : &states[static_cast<std::size_t>(i)];
}

StateVariable* EquationModel::state(const std::string& n)
{
    const std::ptrdiff_t i = stateIndex(n);
    return i < 0 ? nullptr : &states[static_cast<std::size_t>(i)];
}

const Parameter* EquationModel::parameter(const std::string& n) const
{
    const std::ptrdiff_t i = positionOf(parameters, names(), NameKind::Parameter, n);
    return i < 0 ? nullptr : &parameters[static_cast<std::size_t>(i)];
}

const Subexpression* EquationModel::subexpression(const std::string& n) const
{
    const std::ptrdiff_t i = positionOf(subexpressions, names(), NameKind::Subexpression, n);
    return i < 0 ? nullptr : &subexpressions[static_cast<std::size_t>(i)];
}

NameKind EquationModel::kindOf(const std::string& n) const
{
    if (state(n) != nullptr) {
        return NameKind::State;
    }
    if (parameter(n) != nullptr) {
        return NameKind::Parameter;
    }
    if (subexpression(n) != nullptr) {
        return NameKind::Subexpression;
    }
    if (n == "t" || n == "dt") {
        return NameKind::Time;
    }
    if (namedUnit(n)) {
        return NameKind::Unit;
    }
    return NameKind::Unknown;
}

void checkExpanded(const EquationModel& model, const ExprPtr& e, const std::string& what)
{
    std::map<std::string, Extent> measured;
    const Extent x = measure(model, e, measured);
    if (x.depth > kMaxExpandedDepth) {
        failAt(model.text, e, tooDeep(what));
    }
    if (x.nodes > kMaxExpandedNodes) {
        failAt(model.text, e, what + " grows to more than " + std::to_string(static_cast<long>(kMaxExpandedNodes)) +
                                  " terms once its subexpressions are substituted (each use of a "
                                  "subexpression copies it); write the repeated parts as states or "
                                  "simplify them");
    }
}

Typed typeOf(const EquationModel& model, const ExprPtr& e, const std::string& what)
{
    TypeContext ctx{model, what, {}, {}, 0};
    return type(ctx, e);
}

}  // namespace spike::engine::equations
