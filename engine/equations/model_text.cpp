// parseModel(): the lines of a model text and the declarations they make. See model.hpp for the
// language; the types of the expressions are checked by typeOf() (model.cpp).
#include "engine/equations/model.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <set>
#include <sstream>
#include <vector>

namespace spike::engine::equations {

namespace {

[[noreturn]] void fail(const std::string& text, const std::string& what, int position, int length)
{
    throw EquationError(locate(text, position) + ": " + what, position, length);
}

bool identStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool identChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

/// A piece of the text: [begin, end) with surrounding blanks removed.
struct Span {
    int begin = 0;
    int end = 0;
    bool empty() const { return begin >= end; }
};

Span trimmed(const std::string& s, Span sp)
{
    while (sp.begin < sp.end && std::isspace(static_cast<unsigned char>(s[sp.begin])) != 0) {
        ++sp.begin;
    }
    while (sp.end > sp.begin && std::isspace(static_cast<unsigned char>(s[sp.end - 1])) != 0) {
        --sp.end;
    }
    return sp;
}

std::string str(const std::string& s, Span sp)
{
    return s.substr(static_cast<std::size_t>(sp.begin), static_cast<std::size_t>(sp.end - sp.begin));
}

/// Reads an identifier at `pos` (after blanks); empty span when there is none.
/// The non-empty, trimmed pieces of `body` between any of the characters in `separators`.
std::vector<Span> splitItems(const std::string& s, Span body, const char* separators)
{
    std::vector<Span> items;
    int start = body.begin;
    for (int i = body.begin; i <= body.end; ++i) {
        if (i != body.end && std::strchr(separators, s[i]) == nullptr) {
            continue;
        }
        const Span item = trimmed(s, {start, i});
        start = i + 1;
        if (!item.empty()) {
            items.push_back(item);
        }
    }
    return items;
}

Span identifierAt(const std::string& s, int pos, int end)
{
    while (pos < end && std::isspace(static_cast<unsigned char>(s[pos])) != 0) {
        ++pos;
    }
    Span sp{pos, pos};
    if (pos < end && identStart(s[pos])) {
        while (sp.end < end && identChar(s[sp.end])) {
            ++sp.end;
        }
    }
    return sp;
}

int skipBlanks(const std::string& s, int pos, int end)
{
    while (pos < end && std::isspace(static_cast<unsigned char>(s[pos])) != 0) {
        ++pos;
    }
    return pos;
}

/// The last ':' of the line outside parentheses, or -1.
int unitColon(const std::string& s, Span line)
{
    int depth = 0;
    int found = -1;
    for (int i = line.begin; i < line.end; ++i) {
        if (s[i] == '(') ++depth;
        else if (s[i] == ')') --depth;
        else if (s[i] == ':' && depth == 0) found = i;
    }
    return found;
}

/// Splits "unit (flags)" into the unit and the flags' inside (empty when there are no flags).
void splitFlags(const std::string& s, Span part, Span& unit, Span& flags)
{
    part = trimmed(s, part);
    unit = part;
    flags = {part.end, part.end};
    if (part.empty() || s[part.end - 1] != ')') {
        return;
    }
    int depth = 0;
    int open = -1;
    for (int i = part.end - 1; i >= part.begin; --i) {
        if (s[i] == ')') ++depth;
        else if (s[i] == '(' && --depth == 0) {
            open = i;
            break;
        }
    }
    if (open <= part.begin) {
        return;
    }
    const Span before = trimmed(s, {part.begin, open});
    // "volt (unless refractory)": a blank, then the flags; "amp/(metre**2)" is a unit.
    if (before.empty() || before.end == open || !(identChar(s[before.end - 1]) || s[before.end - 1] == ')')) {
        return;
    }
    unit = before;
    flags = {open + 1, part.end - 1};
}

/// The parts of one line, before the expressions are parsed.
struct PendingLine {
    enum Kind { Differential, Value, Bare, Initial } kind = Value;
    Span name;
    Span expr;   ///< rhs (Differential, Value, Initial)
    Span unit;
    Span flags;
    std::string doc;
};

Dimension readUnit(const EquationModel& unitsOnly, Span unit, const std::string& name)
{
    const std::string& text = unitsOnly.text;
    if (unit.empty()) {
        fail(text, "'" + name + "' needs a unit after ':' (volt, amp, siemens, second, 1, ...)", unit.begin, 1);
    }
    const ExprPtr e = parseExpression({&text, unit.begin, unit.end});
    const Typed t = typeOf(unitsOnly, e, "the unit of " + name);
    if (!t.constant || t.boolean) {
        fail(text, "the unit of '" + name + "' must be made of unit names, e.g. volt or amp/metre**2",
             unit.begin, unit.end - unit.begin);
    }
    if (std::abs(t.value - 1.0) > 1e-9 && !(t.dim.dimensionless() && t.value == 1.0)) {
        fail(text, "units are declared in SI base units: write " + dimensionName(t.dim) + ", not " +
                       str(text, unit) + " (values are stored in SI)",
             unit.begin, unit.end - unit.begin);
    }
    return t.dim;
}

}  // namespace

EquationModel parseModel(const std::string& text)
{
    EquationModel m;
    m.text = text;
    const std::string& s = m.text;
    std::vector<PendingLine> pending;
    std::set<std::string> declared;
    EquationModel unitsOnly;  ///< no names, only units: types values made of numbers and units
    unitsOnly.text = text;    // once, not once per line (20000 lines copied it 40000 times)
    struct Keyword {
        std::string word;
        Span body;
        Span name;  ///< preset name
    };
    std::vector<Keyword> keywords;

    const auto declare = [&](Span name) {
        const std::string n = str(s, name);
        static const std::set<std::string> reserved{"t", "dt", "xi", "threshold", "reset",
                                                    "refractory", "method", "name", "doc",
                                                    "preset", "and", "or", "not", "True", "False",
                                                    "not_refractory", "lastspike", "i", "N"};
        if (reserved.count(n) != 0) {
            fail(s, "'" + n + "' is a reserved name; choose another", name.begin, name.end - name.begin);
        }
        if (functionArity(n) >= 0) {
            fail(s, "'" + n + "' is a function name; choose another name", name.begin, name.end - name.begin);
        }
        if (!declared.insert(n).second) {
            fail(s, "'" + n + "' is declared twice", name.begin, name.end - name.begin);
        }
    };

    int lineStart = 0;
    const int size = static_cast<int>(s.size());
    while (lineStart <= size) {
        int lineEnd = lineStart;
        while (lineEnd < size && s[lineEnd] != '\n') {
            ++lineEnd;
        }
        Span line{lineStart, lineEnd};
        std::string doc;
        for (int i = line.begin; i < line.end; ++i) {
            if (s[i] == '#') {
                doc = str(s, trimmed(s, {i + 1, line.end}));
                line.end = i;
                break;
            }
        }
        line = trimmed(s, line);
        lineStart = lineEnd + 1;
        if (line.empty()) {
            continue;
        }
        const Span first = identifierAt(s, line.begin, line.end);
        if (first.empty()) {
            fail(s, "a line must start with a name, dX/dt, or a keyword (threshold:, reset:, ...)",
                 line.begin, 1);
        }
        const std::string word = str(s, first);
        int after = skipBlanks(s, first.end, line.end);
        static const std::set<std::string> keywordWords{"threshold", "reset", "refractory",
                                                        "method", "name", "doc", "dt"};
        if (keywordWords.count(word) != 0 && after < line.end && s[after] == ':') {
            keywords.push_back({word, trimmed(s, {after + 1, line.end}), {}});
            continue;
        }
        if (word == "preset") {
            const int colon = static_cast<int>(s.find(':', static_cast<std::size_t>(first.end)));
            if (colon < 0 || colon >= line.end) {
                fail(s, "a preset line reads 'preset NAME: a = 1, b = 2*mV'", line.begin, line.end - line.begin);
            }
            keywords.push_back({word, trimmed(s, {colon + 1, line.end}), trimmed(s, {first.end, colon})});
            continue;
        }
        PendingLine p;
        p.doc = doc;
        // dX/dt = ...
        if (word.size() > 1 && word[0] == 'd' && after < line.end && s[after] == '/') {
            const Span dt = identifierAt(s, after + 1, line.end);
            if (str(s, dt) == "dt") {
                p.kind = PendingLine::Differential;
                p.name = {first.begin + 1, first.end};
                const int eq = skipBlanks(s, dt.end, line.end);
                if (eq >= line.end || s[eq] != '=') {
                    fail(s, "expected '=' after d" + str(s, p.name) + "/dt", eq, 1);
                }
                const int colon = unitColon(s, {eq + 1, line.end});
                if (colon < 0) {
                    fail(s, "d" + str(s, p.name) + "/dt needs its unit: '... : volt'", line.end - 1, 1);
                }
                p.expr = trimmed(s, {eq + 1, colon});
                splitFlags(s, {colon + 1, line.end}, p.unit, p.flags);
                declare(p.name);
                pending.push_back(p);
                continue;
            }
        }
        p.name = first;
        if (after + 2 < line.end && s.compare(static_cast<std::size_t>(after), 3, "(0)") == 0) {
            p.kind = PendingLine::Initial;
            const int eq = skipBlanks(s, after + 3, line.end);
            if (eq >= line.end || s[eq] != '=') {
                fail(s, "an initial value reads '" + word + "(0) = value'", eq, 1);
            }
            p.expr = trimmed(s, {eq + 1, line.end});
            pending.push_back(p);
            continue;
        }
        if (after < line.end && (s[after] == '=' || s[after] == ':')) {
            const int colon = unitColon(s, {after, line.end});
            if (colon < 0) {
                fail(s, "'" + word + "' needs a unit: '" + word + " = value : unit'", line.end - 1, 1);
            }
            p.kind = s[after] == '=' ? PendingLine::Value : PendingLine::Bare;
            if (p.kind == PendingLine::Value) {
                p.expr = trimmed(s, {after + 1, colon});
            }
            splitFlags(s, {colon + 1, line.end}, p.unit, p.flags);
            declare(p.name);
            pending.push_back(p);
            continue;
        }
        fail(s, "cannot read this line: expected 'dX/dt = ... : unit', 'X = ... : unit', "
                "'X : unit (input)', 'X(0) = ...' or a keyword line (threshold:, reset:, "
                "refractory:, method:, dt:, name:, preset NAME:)",
             line.begin, line.end - line.begin);
    }

    // Pass 1b: declarations with their units and flags.
    struct FlagSet {
        std::vector<std::pair<std::string, Span>> words;  ///< flag name, its value span
    };
    const auto readFlags = [&](const PendingLine& p) {
        FlagSet f;
        if (p.flags.empty()) {
            return f;
        }
        for (const Span item : splitItems(s, p.flags, ",")) {
            const int eq = static_cast<int>(s.find('=', static_cast<std::size_t>(item.begin)));
            if (eq >= 0 && eq < item.end) {
                f.words.push_back({str(s, trimmed(s, {item.begin, eq})), trimmed(s, {eq + 1, item.end})});
            } else {
                std::string w = str(s, item);
                w.erase(std::unique(w.begin(), w.end(), [](char a, char b) { return a == ' ' && b == ' '; }), w.end());
                f.words.push_back({w, item});
            }
        }
        return f;
    };
    std::vector<std::pair<std::size_t, FlagSet>> boundsLater;  // parameters whose min/max need types
    for (std::size_t k = 0; k < pending.size(); ++k) {
        const PendingLine& p = pending[k];
        if (p.kind == PendingLine::Initial) {
            continue;
        }
        const std::string name = str(s, p.name);
        const Dimension dim = readUnit(unitsOnly, p.unit, name);
        const FlagSet flags = readFlags(p);
        const auto flagError = [&](const std::pair<std::string, Span>& f, const std::string& why) {
            fail(s, "flag '" + f.first + "' " + why, f.second.begin, f.second.end - f.second.begin);
        };
        if (p.kind == PendingLine::Differential) {
            StateVariable v;
            v.name = name;
            v.dim = dim;
            v.doc = p.doc;
            v.position = p.name.begin;
            for (const auto& f : flags.words) {
                if (f.first == "unless refractory") v.unlessRefractory = true;
                else if (f.first == "input") v.input = true;
                else if (f.first == "membrane") v.membrane = true;
                else flagError(f, "is not known for a state (known: unless refractory, input, membrane)");
            }
            if (v.input) {
                m.inputs.push_back(name);
            }
            m.states.push_back(v);
        } else if (p.kind == PendingLine::Bare) {
            Parameter par;
            par.name = name;
            par.dim = dim;
            par.doc = p.doc;
            par.position = p.name.begin;
            for (const auto& f : flags.words) {
                if (f.first == "input") par.input = true;
                else if (f.first == "constant") continue;
                else flagError(f, "is not known here (a name without a value must be an input: '" +
                                      name + " : " + dimensionName(dim) + " (input)')");
            }
            if (!par.input) {
                fail(s, "parameter '" + name + "' has no value: write '" + name + " = <value> : " +
                            dimensionName(dim) + "', or mark it '(input)' to receive wires",
                     p.name.begin, p.name.end - p.name.begin);
            }
            m.inputs.push_back(name);
            m.parameters.push_back(par);
        } else {
            Subexpression sub;
            sub.name = name;
            sub.dim = dim;
            sub.doc = p.doc;
            sub.position = p.name.begin;
            sub.expr = parseExpression({&s, p.expr.begin, p.expr.end});
            // A value made of numbers and units only is a parameter a person can change (a
            // declared name shadows a unit).
            bool constant = !mentionsAny(sub.expr, declared);
            try {
                constant = constant && typeOf(unitsOnly, sub.expr, name).constant;
            } catch (const EquationError&) {
                constant = false;
            }
            if (!constant) {
                for (const auto& f : flags.words) {
                    if (f.first != "constant") {
                        flagError(f, "is for parameters (values); '" + name + "' is computed from other quantities");
                    }
                }
                m.subexpressions.push_back(sub);
                continue;
            }
            Parameter par;
            par.name = name;
            par.dim = dim;
            par.doc = p.doc;
            par.position = p.name.begin;
            const Typed t = typeOf(unitsOnly, sub.expr, name);
            if (t.boolean || t.dim != dim) {
                fail(s, "the value of '" + name + "' is in " + (t.boolean ? std::string("a condition") : unitText(t.dim)) +
                            ", declared " + unitText(dim),
                     p.expr.begin, p.expr.end - p.expr.begin);
            }
            par.value = t.value;
            for (const auto& f : flags.words) {
                if (f.first == "positive") {
                    par.min = 0.0;
                    par.minExclusive = true;
                } else if (f.first == "nonnegative") {
                    par.min = 0.0;
                } else if (f.first == "family") {
                    par.family = str(s, f.second);
                } else if (f.first == "min" || f.first == "max") {
                    const ExprPtr b = parseExpression({&s, f.second.begin, f.second.end});
                    const Typed bt = typeOf(unitsOnly, b, f.first + " of " + name);
                    if (!bt.constant || bt.dim != dim) {
                        flagError(f, "needs a value in " + unitText(dim));
                    }
                    (f.first == "min" ? par.min : par.max) = bt.value;
                } else if (f.first == "input") {
                    flagError(f, "marks a name without a value ('" + name + " : " + dimensionName(dim) +
                                     " (input)'); an input starts each step from its wires");
                } else if (f.first != "constant") {
                    flagError(f, "is not known for a parameter (known: min=, max=, positive, nonnegative, family=)");
                }
            }
            if ((par.min && (par.minExclusive ? par.value <= *par.min : par.value < *par.min)) ||
                (par.max && par.value > *par.max)) {
                fail(s, "the value of '" + name + "' lies outside its own bounds", p.expr.begin,
                     p.expr.end - p.expr.begin);
            }
            m.parameters.push_back(par);
        }
    }

    // Pass 2: expressions, now that every name is known.
    m.indexNames();
    for (const PendingLine& p : pending) {
        const std::string name = str(s, p.name);
        if (p.kind == PendingLine::Differential) {
            StateVariable& v = *m.state(name);
            v.rhs = parseExpression({&s, p.expr.begin, p.expr.end});
            const Typed t = typeOf(m, v.rhs, "d" + name + "/dt");
            if (t.dim != v.dim / dims::second()) {
                fail(s, "d" + name + "/dt is in " + unitText(t.dim) + ", but it must be in " +
                            unitText(v.dim / dims::second()) + " (" + name + " is in " + unitText(v.dim) + ")",
                     p.expr.begin, p.expr.end - p.expr.begin);
            }
            checkExpanded(m, v.rhs, "d" + name + "/dt");
        } else if (p.kind == PendingLine::Initial) {
            StateVariable* v = m.state(name);
            if (v == nullptr) {
                fail(s, "'" + name + "(0)' sets the initial value of a state, but '" + name +
                            "' is not one (states are declared 'd" + name + "/dt = ...')",
                     p.name.begin, p.name.end - p.name.begin);
            }
            if (v->init) {
                fail(s, "the initial value of '" + name + "' is given twice", p.name.begin,
                     p.name.end - p.name.begin);
            }
            ExprPtr init = parseExpression({&s, p.expr.begin, p.expr.end});
            const Typed t = typeOf(m, init, name + "(0)");
            if (t.boolean || t.dim != v->dim) {
                fail(s, name + "(0) is in " + unitText(t.dim) + ", but " + name + " is in " + unitText(v->dim),
                     p.expr.begin, p.expr.end - p.expr.begin);
            }
            v->init = init;
        } else if (p.kind == PendingLine::Value) {
            if (const Subexpression* sub = m.subexpression(name)) {
                const Typed t = typeOf(m, sub->expr, name);
                if (t.boolean || t.dim != sub->dim) {
                    fail(s, "'" + name + "' is computed in " + unitText(t.dim) + ", declared " + unitText(sub->dim),
                         p.expr.begin, p.expr.end - p.expr.begin);
                }
            }
        }
    }
    // Initial values: every state has one, and uses only states declared above it.
    for (std::size_t k = 0; k < m.states.size(); ++k) {
        const StateVariable& v = m.states[k];
        if (!v.init) {
            fail(s, "state '" + v.name + "' has no initial value: add a line '" + v.name + "(0) = ...'",
                 v.position, static_cast<int>(v.name.size()));
        }
        // The first state from k on that the initial value names: one walk of it, not one per
        // later state (20000 states made 2 * 10^8 walks).
        std::ptrdiff_t first = -1;
        forEachName(v.init, [&](const std::string& n) {
            const std::ptrdiff_t j = m.stateIndex(n);
            if (j >= static_cast<std::ptrdiff_t>(k) && (first < 0 || j < first)) {
                first = j;
            }
        });
        if (first >= 0) {
            const std::string& later = m.states[static_cast<std::size_t>(first)].name;
            fail(s, v.name + "(0) uses " + later + ", whose initial value is set after it " +
                        "(states start in the order they are declared)",
                 v.init->position, v.init->length);
        }
    }
    if (m.states.empty()) {
        fail(s, "a neuron model needs at least one state: 'dv/dt = ... : volt'", 0, 1);
    }

    for (const Keyword& k : keywords) {
        const std::string body = str(s, k.body);
        if (k.word == "name") {
            m.name = body;
        } else if (k.word == "doc") {
            m.doc = body;
        } else if (k.word == "dt") {
            const ExprPtr e = parseExpression({&s, k.body.begin, k.body.end});
            const Typed t = typeOf(m, e, "dt");
            if (!t.constant || t.dim != dims::second() || !(t.value > 0.0) || t.value > 1.0) {
                fail(s, "dt: expected a time step between 0 and 1 s, e.g. 0.1*ms", k.body.begin,
                     k.body.end - k.body.begin);
            }
            m.dt = t.value;
        } else if (k.word == "method") {
            m.method = body;
            m.methodPosition = k.body.begin;
        } else if (k.word == "threshold") {
            m.threshold = parseExpression({&s, k.body.begin, k.body.end});
            const Typed t = typeOf(m, m.threshold, "the threshold");
            if (!t.boolean) {
                fail(s, "the threshold must be a condition, e.g. v > -50*mV", k.body.begin,
                     k.body.end - k.body.begin);
            }
        } else if (k.word == "refractory") {
            m.refractory = parseExpression({&s, k.body.begin, k.body.end});
            const Typed t = typeOf(m, m.refractory, "the refractory period");
            if (!t.boolean && t.dim != dims::second()) {
                fail(s, "refractory: expected a time (2*ms) or a condition (v > -20*mV), got " + unitText(t.dim),
                     k.body.begin, k.body.end - k.body.begin);
            }
            if (!t.boolean && t.constant && !(t.value >= 0.0)) {
                std::ostringstream value;
                value << t.value * 1e3;
                fail(s, "refractory: the period must not be negative, got " + value.str() + " ms",
                     k.body.begin, k.body.end - k.body.begin);
            }
            m.refractoryIsTime = !t.boolean;
        } else if (k.word == "reset") {
            for (const Span st : splitItems(s, k.body, ";")) {
                const Span target = identifierAt(s, st.begin, st.end);
                int opAt = skipBlanks(s, target.end, st.end);
                ResetStatement r;
                r.target = str(s, target);
                r.position = st.begin;
                if (opAt < st.end && std::string("+-*/").find(s[opAt]) != std::string::npos &&
                    opAt + 1 < st.end && s[opAt + 1] == '=') {
                    r.op = s[opAt] == '+' ? Op::Add : s[opAt] == '-' ? Op::Sub : s[opAt] == '*' ? Op::Mul : Op::Div;
                    ++opAt;
                }
                if (target.empty() || opAt >= st.end || s[opAt] != '=') {
                    fail(s, "a reset statement reads 'v = v_reset' or 'u += d'", st.begin, st.end - st.begin);
                }
                const StateVariable* v = m.state(r.target);
                if (v == nullptr) {
                    fail(s, "reset: '" + r.target + "' is not a state of this model", target.begin,
                         std::max(1, target.end - target.begin));
                }
                r.expr = parseExpression({&s, opAt + 1, st.end});
                const Typed t = typeOf(m, r.expr, "the reset");
                const bool scale = r.op == Op::Mul || r.op == Op::Div;
                const Dimension want = scale ? dims::none() : v->dim;
                if (t.boolean || t.dim != want) {
                    fail(s, "reset: " + r.target + " is in " + unitText(v->dim) + ", this value is in " +
                                unitText(t.dim) + (scale ? " (a factor has no units)" : ""),
                         r.expr->position, r.expr->length);
                }
                m.reset.push_back(r);
            }
        } else if (k.word == "preset") {
            Preset preset;
            preset.name = str(s, k.name);
            if (preset.name.empty()) {
                fail(s, "a preset needs a name: 'preset regular spiking: a = 0.02'", k.body.begin, 1);
            }
            for (const Span item : splitItems(s, k.body, ",;")) {
                const Span target = identifierAt(s, item.begin, item.end);
                const int eq = skipBlanks(s, target.end, item.end);
                const Parameter* par = m.parameter(str(s, target));
                if (target.empty() || par == nullptr || par->input) {
                    fail(s, "preset '" + preset.name + "': '" + str(s, target) + "' is not a parameter of this model",
                         item.begin, item.end - item.begin);
                }
                if (eq >= item.end || s[eq] != '=') {
                    fail(s, "preset values read 'a = 0.02'", item.begin, item.end - item.begin);
                }
                const ExprPtr e = parseExpression({&s, eq + 1, item.end});
                const Typed t = typeOf(m, e, "preset " + preset.name);
                if (!t.constant || t.dim != par->dim) {
                    fail(s, "preset '" + preset.name + "': " + par->name + " needs a value in " + unitText(par->dim),
                         e->position, e->length);
                }
                preset.values.emplace_back(par->name, t.value);
            }
            m.presets.push_back(preset);
        }
    }
    return m;
}

}  // namespace spike::engine::equations
