// Evaluation of one equation line for the live Equations view; see line_values.hpp.
#include "engine/equations/line_values.hpp"

#include "engine/equations/expression.hpp"
#include "engine/equations/units.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <regex>

namespace spike::engine::equations {

namespace {

std::string trimmed(const std::string& s)
{
    const auto first = s.find_first_not_of(" \t");
    if (first == std::string::npos) {
        return {};
    }
    const auto last = s.find_last_not_of(" \t\r");
    return s.substr(first, last - first + 1);
}

/// Where the assignment's operator starts in `text` and how long it is ("=", "+=", ...); npos
/// for a condition. A '=' that belongs to ==, <=, >= or != is a comparison.
std::pair<std::size_t, std::size_t> assignment(const std::string& text)
{
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '=') {
            continue;
        }
        const char before = i > 0 ? text[i - 1] : ' ';
        const char after = i + 1 < text.size() ? text[i + 1] : ' ';
        if (after == '=' || before == '=' || before == '<' || before == '>' || before == '!') {
            ++i;  // skip the comparison's second character
            continue;
        }
        if (before == '+' || before == '-' || before == '*' || before == '/') {
            return {i - 1, 2};
        }
        return {i, 1};
    }
    return {std::string::npos, 0};
}

double applyFunction(const std::string& f, const std::vector<double>& a)
{
    const double x = a.empty() ? 0.0 : a[0];
    if (f == "exp") return std::exp(x);
    if (f == "log") return std::log(x);
    if (f == "log10") return std::log10(x);
    if (f == "sqrt") return std::sqrt(x);
    if (f == "abs") return std::fabs(x);
    if (f == "sin") return std::sin(x);
    if (f == "cos") return std::cos(x);
    if (f == "tan") return std::tan(x);
    if (f == "sinh") return std::sinh(x);
    if (f == "cosh") return std::cosh(x);
    if (f == "tanh") return std::tanh(x);
    if (f == "arcsin") return std::asin(x);
    if (f == "arccos") return std::acos(x);
    if (f == "arctan") return std::atan(x);
    if (f == "exprel") return x == 0.0 ? 1.0 : std::expm1(x) / x;
    if (f == "floor") return std::floor(x);
    if (f == "ceil") return std::ceil(x);
    if (f == "sign") return static_cast<double>((x > 0.0) - (x < 0.0));
    if (f == "int") return std::trunc(x);
    if (f == "clip" && a.size() == 3) return std::fmin(std::fmax(x, a[1]), a[2]);
    return std::nan("");
}

class Evaluator {
public:
    Evaluator(const ValueLookup& valueOf, std::vector<std::string>& unknown)
        : m_valueOf(valueOf), m_unknown(unknown)
    {
    }

    /// The value a name stands for: the caller's, else a unit's SI size.
    std::optional<double> nameValue(const std::string& name) const
    {
        if (m_valueOf) {
            if (const std::optional<double> v = m_valueOf(name)) {
                return v;
            }
        }
        if (const std::optional<Quantity> unit = namedUnit(name)) {
            return unit->value;
        }
        return std::nullopt;
    }

    std::optional<double> operator()(const ExprPtr& e)
    {
        switch (e->kind) {
        case NodeKind::Number:
            return e->value;
        case NodeKind::Name: {
            std::optional<double> v = nameValue(e->name);
            if (!v && std::find(m_unknown.begin(), m_unknown.end(), e->name) == m_unknown.end()) {
                m_unknown.push_back(e->name);
            }
            return v;
        }
        case NodeKind::Call: {
            std::vector<double> args;
            bool known = true;
            for (const ExprPtr& a : e->args) {
                const std::optional<double> v = (*this)(a);
                known = known && v.has_value();
                args.push_back(v.value_or(0.0));
            }
            return known ? std::optional<double>(applyFunction(e->name, args)) : std::nullopt;
        }
        case NodeKind::Unary: {
            const std::optional<double> a = (*this)(e->args[0]);
            if (!a) {
                return std::nullopt;
            }
            return e->op == Op::Neg ? -*a : (*a == 0.0 ? 1.0 : 0.0);
        }
        case NodeKind::Binary: {
            const std::optional<double> a = (*this)(e->args[0]);
            const std::optional<double> b = (*this)(e->args[1]);
            if (!a || !b) {
                return std::nullopt;
            }
            return binary(e->op, *a, *b);
        }
        }
        return std::nullopt;
    }

private:
    static double binary(Op op, double a, double b)
    {
        switch (op) {
        case Op::Add: return a + b;
        case Op::Sub: return a - b;
        case Op::Mul: return a * b;
        case Op::Div: return a / b;
        case Op::Pow: return std::pow(a, b);
        case Op::Lt: return a < b ? 1.0 : 0.0;
        case Op::Le: return a <= b ? 1.0 : 0.0;
        case Op::Gt: return a > b ? 1.0 : 0.0;
        case Op::Ge: return a >= b ? 1.0 : 0.0;
        case Op::Eq: return a == b ? 1.0 : 0.0;
        case Op::Ne: return a != b ? 1.0 : 0.0;
        case Op::And: return (a != 0.0 && b != 0.0) ? 1.0 : 0.0;
        case Op::Or: return (a != 0.0 || b != 0.0) ? 1.0 : 0.0;
        default: return std::nan("");
        }
    }

    const ValueLookup& m_valueOf;
    std::vector<std::string>& m_unknown;
};

/// The summands of a top-level sum, each with its sign folded in (a - b: a, -b).
void summands(const ExprPtr& e, bool negative, std::vector<ExprPtr>& out)
{
    if (e->kind == NodeKind::Binary && (e->op == Op::Add || e->op == Op::Sub)) {
        summands(e->args[0], negative, out);
        summands(e->args[1], e->op == Op::Sub ? !negative : negative, out);
        return;
    }
    out.push_back(negative ? Expr::unary(Op::Neg, e) : e);
}

bool isSum(const ExprPtr& e)
{
    return e->kind == NodeKind::Binary && (e->op == Op::Add || e->op == Op::Sub);
}

/// The terms of `rhs` (see the header): a sum's summands, or a sum over (times) a factor split
/// into its summands over (times) that factor. Empty when there is only one term.
std::vector<ExprPtr> termsOf(const ExprPtr& rhs)
{
    std::vector<ExprPtr> parts;
    if (isSum(rhs)) {
        summands(rhs, false, parts);
        return parts;
    }
    if (rhs->kind != NodeKind::Binary || (rhs->op != Op::Div && rhs->op != Op::Mul)) {
        return {};
    }
    const bool leftSum = isSum(rhs->args[0]);
    const bool rightSum = rhs->op == Op::Mul && !leftSum && isSum(rhs->args[1]);
    if (!leftSum && !rightSum) {
        return {};
    }
    const ExprPtr& sum = leftSum ? rhs->args[0] : rhs->args[1];
    const ExprPtr& factor = leftSum ? rhs->args[1] : rhs->args[0];
    std::vector<ExprPtr> inner;
    summands(sum, false, inner);
    for (const ExprPtr& s : inner) {
        // -v / tau: the sign stays in front of the whole term.
        const bool negative = s->kind == NodeKind::Unary && s->op == Op::Neg;
        const ExprPtr base = negative ? s->args[0] : s;
        ExprPtr term = leftSum ? Expr::binary(rhs->op, base, factor) : Expr::binary(Op::Mul, factor, base);
        parts.push_back(negative ? Expr::unary(Op::Neg, term) : term);
    }
    return parts;
}

}  // namespace

std::string shortNumber(double v)
{
    if (std::isnan(v)) {
        return "nan";
    }
    if (std::isinf(v)) {
        return v > 0 ? "inf" : "-inf";
    }
    const double magnitude = std::fabs(v);
    char buffer[40];
    if (magnitude != 0.0 && (magnitude < 1e-4 || magnitude >= 1e6)) {
        std::snprintf(buffer, sizeof buffer, "%.3e", v);
        // 2.500e-07 -> 2.5e-07
        std::string text(buffer);
        const auto e = text.find('e');
        std::string mantissa = text.substr(0, e);
        while (mantissa.find('.') != std::string::npos && (mantissa.back() == '0' || mantissa.back() == '.')) {
            mantissa.pop_back();
        }
        return mantissa + text.substr(e);
    }
    std::snprintf(buffer, sizeof buffer, "%.4g", v);
    return buffer;
}

std::optional<std::string> quantityText(double value, const std::string& units)
{
    struct Base {
        const char* longName;
        const char* shortName;
    };
    static const std::vector<std::pair<std::vector<std::string>, Base>> bases{
        {{"volt", "V"}, {"volt", "V"}},       {{"second", "s"}, {"second", "s"}},
        {{"amp", "A", "ampere"}, {"amp", "A"}}, {{"siemens", "S"}, {"siemens", "S"}},
        {{"farad", "F"}, {"farad", "F"}},     {{"ohm"}, {"ohm", "ohm"}},
        {{"hertz", "Hz"}, {"hertz", "Hz"}},
    };
    const Base* base = nullptr;
    for (const auto& [names, b] : bases) {
        if (std::find(names.begin(), names.end(), units) != names.end()) {
            base = &b;
        }
    }
    if (base == nullptr || !std::isfinite(value)) {
        return std::nullopt;
    }
    static const std::vector<std::pair<const char*, double>> prefixes{
        {"G", 1e9}, {"M", 1e6}, {"k", 1e3}, {"", 1.0}, {"m", 1e-3}, {"u", 1e-6}, {"n", 1e-9}, {"p", 1e-12}};
    const double magnitude = std::fabs(value);
    std::pair<const char*, double> chosen{"", 1.0};
    if (magnitude != 0.0) {
        chosen = prefixes.back();
        for (const auto& p : prefixes) {
            if (magnitude >= p.second * (1.0 - 1e-12)) {
                chosen = p;
                break;
            }
        }
    }
    // The short form where the language knows it with this prefix ("mV", "pF", "Hz"), else the
    // long one ("msecond", "volt").
    std::string name = std::string(chosen.first) + base->shortName;
    const std::optional<Quantity> known = namedUnit(name);
    if (!known || std::fabs(known->value - chosen.second) > 1e-9 * chosen.second) {
        name = std::string(chosen.first) + base->longName;
    }
    return shortNumber(value / chosen.second) + "*" + name;
}

LineValues evaluateLine(const std::string& line, const ValueLookup& valueOf, const UnitsLookup& unitsOf)
{
    LineValues out;
    std::string text = line.substr(0, line.find('#'));
    text = text.substr(0, text.find(':'));  // a Brian2 unit part, "(unless refractory)" with it
    const auto [at, length] = assignment(text);
    std::string rhsText;
    if (at == std::string::npos) {
        out.condition = true;
        rhsText = trimmed(text);
    } else {
        out.op = text.substr(at, length);
        std::string target = trimmed(text.substr(0, at));
        static const std::regex derivative(R"(^d\s*([A-Za-z_][A-Za-z0-9_]*)\s*/\s*dt$)");
        std::smatch m;
        if (std::regex_match(target, m, derivative)) {
            std::string name = m[1].str();
            target = 'd';
            target.append(name).append("/dt");
        }
        if (target.empty()) {
            return out;  // "= 3": no quantity to assign
        }
        out.target = target;
        rhsText = trimmed(text.substr(at + length));
    }
    if (rhsText.empty()) {
        return out;
    }
    ExprPtr rhs;
    try {
        rhs = parseExpression(TextSpan{&rhsText, 0, static_cast<int>(rhsText.size())});
    } catch (...) {
        return out;  // not the language (a matrix product, randn()): no values
    }
    out.parsed = true;
    Evaluator evaluate(valueOf, out.unknown);
    out.value = evaluate(rhs);
    out.substituted = toString(rhs, [&](const std::string& name) -> std::optional<std::string> {
        // Unit names stay as written ("mV"): they are the text's own constants.
        const std::optional<double> v = valueOf ? valueOf(name) : std::nullopt;
        if (!v) {
            return std::nullopt;
        }
        ++out.valuesPutIn;
        if (unitsOf) {
            if (const std::optional<std::string> quantity = quantityText(*v, unitsOf(name))) {
                return "(" + *quantity + ")";
            }
        }
        const std::string number = shortNumber(*v);
        return *v < 0.0 ? "(" + number + ")" : number;
    });
    const std::vector<ExprPtr> terms = termsOf(rhs);
    if (terms.size() >= 2) {
        std::vector<std::string> ignored;
        Evaluator termValue(valueOf, ignored);
        for (const ExprPtr& term : terms) {
            out.terms.push_back({toString(term), termValue(term)});
        }
    }
    return out;
}

}  // namespace spike::engine::equations
