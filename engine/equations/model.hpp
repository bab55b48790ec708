// A neuron model as a person writes it: Brian2's equation syntax plus the few lines a model
// needs to stand alone (initial values, threshold, reset, refractoriness, method, presets).
//
//     # Izhikevich (2003)                      comment lines are ignored
//     name: Izhikevich
//     dv/dt = (0.04*v**2/mV + 5*v + 140*mV - u + I) / ms : volt  # Membrane potential
//     du/dt = a*(b*v - u) / ms : volt          a trailing comment documents the line
//     I : volt (input)                          an input port: wires into it sum, held per step
//     a = 0.02 : 1 (min=0)                      a parameter (a value with units only)
//     Vcut = VT + 5*DeltaT : volt               a subexpression (names other quantities)
//     v(0) = -65*mV                             every state needs an initial value
//     u(0) = b*v
//     threshold: v >= 30*mV
//     reset: v = c; u += d
//     refractory: 2*ms                          a time, or a condition (v > -20*mV)
//     method: euler                             euler, rk2, rk4, exponential_euler, exact
//     dt: 0.1*ms                                the time step a new population starts with
//     preset fast spiking: a = 0.1, d = 2*mV
//
// Flags after the unit, in parentheses, comma separated: "unless refractory" (the state is held
// while refractory), "input" (a state: wires add to it before each step, like Brian2's
// on_pre "ge += w"; a parameter: wires set it for the step), "membrane" (the state plots show
// first), min=EXPR, max=EXPR, positive, nonnegative, family=NAME (the registry family).
// Units are checked as Brian2 checks them; a declared name shadows a unit of the same name
// (El, the leak potential, is also exa-litre). parseModel() reads and checks the whole text or
// throws EquationError at the first mistake. Pure functions; any thread.
#pragma once

#include "engine/equations/expression.hpp"
#include "engine/equations/units.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace spike::engine::equations {

/// What every declared name has.
struct Declaration {
    std::string name;
    Dimension dim;
    std::string doc;    ///< the line's trailing comment
    int position = 0;   ///< where the name is written in the text
};

/// A state variable: "dX/dt = rhs : unit (flags)".
struct StateVariable : Declaration {
    ExprPtr rhs;
    ExprPtr init;                  ///< from "X(0) = expr"
    bool unlessRefractory = false;
    bool input = false;            ///< an input port whose wires add to it before each step
    bool membrane = false;
};

/// A parameter ("X = value : unit") or a held input ("X : unit (input)").
struct Parameter : Declaration {
    double value = 0.0;  ///< default [SI]
    bool input = false;  ///< an input port: each step's summed wire values
    std::optional<double> min;  ///< inclusive lower bound [SI]
    std::optional<double> max;
    bool minExclusive = false;  ///< "positive"
    std::string family;
};

/// A subexpression: "X = expr : unit" naming other quantities; substituted where used.
struct Subexpression : Declaration {
    ExprPtr expr;
};

/// One statement of the reset: "X = expr", "X += expr", ...
struct ResetStatement {
    std::string target;
    Op op = Op::None;  ///< None for '=', else Add, Sub, Mul, Div
    ExprPtr expr;
    int position = 0;
};

/// Named parameter values ("preset regular spiking: a = 0.02, ...") [SI].
struct Preset {
    std::string name;
    std::vector<std::pair<std::string, double>> values;
};

/// Which kind of quantity a name is.
enum class NameKind { State, Parameter, Subexpression, Time, Unit, Unknown };

/// A model text, parsed and checked.
struct EquationModel {
    std::string text;  ///< as written
    std::string name;  ///< "name:" line; "" when absent
    std::string doc;   ///< "doc:" line
    std::vector<StateVariable> states;
    std::vector<Parameter> parameters;
    std::vector<Subexpression> subexpressions;
    ExprPtr threshold;                 ///< null: never spikes
    std::vector<ResetStatement> reset;
    ExprPtr refractory;                ///< null: none
    bool refractoryIsTime = false;     ///< a duration; else a condition
    double dt = 0.0;                   ///< "dt:" line: the time step the model is meant for [s]; 0 = none
    std::string method;                ///< as written; "" lets the compiler choose
    int methodPosition = 0;
    std::vector<Preset> presets;
    std::vector<std::string> inputs;   ///< input ports in declaration order

    const StateVariable* state(const std::string& n) const;
    StateVariable* state(const std::string& n);
    /// Position of the state called `n` in `states`, or -1.
    std::ptrdiff_t stateIndex(const std::string& n) const;
    const Parameter* parameter(const std::string& n) const;
    const Subexpression* subexpression(const std::string& n) const;
    NameKind kindOf(const std::string& n) const;

    /// Indexes the names of `states`, `parameters` and `subexpressions`, so that the lookups
    /// above cost one hash each instead of a search through the lists (typing a text of 20000
    /// states looked every name up that way: 3.5 s). parseModel() calls it once every name is
    /// declared. While the index is missing, or the lists have grown or shrunk since, the
    /// lookups search the lists as before; after renaming an entry in place, call it again.
    void indexNames();

private:
    struct Indexed {
        NameKind kind = NameKind::Unknown;
        std::size_t position = 0;
    };
    /// The index, when it still describes the lists (their sizes as indexNames() saw them).
    const std::unordered_map<std::string, Indexed>* names() const;

    std::unordered_map<std::string, Indexed> m_names;
    std::size_t m_indexedStates = 0;
    std::size_t m_indexedParameters = 0;
    std::size_t m_indexedSubexpressions = 0;
    bool m_indexed = false;
};

/// Reads and checks a model text: syntax, names, units, initial values, threshold, reset,
/// refractoriness and presets. Throws EquationError naming line, column and what was expected.
EquationModel parseModel(const std::string& text);

/// The type of an expression under a model: its dimension, whether it is a condition, and its
/// value when it is a constant (numbers and units only).
struct Typed {
    Dimension dim;
    bool boolean = false;
    bool constant = false;
    double value = 0.0;
};

/// How deep an expression may be with its subexpressions substituted (the typing, the compiler
/// and its linear analysis recurse that deep), and how many nodes a differential equation may
/// grow to once they are substituted (the method choice and exponential Euler work on that
/// tree: `x2 = x1 + x1`, `x3 = x2 + x2`, ... doubles it per line). Deeper or larger is refused
/// with a message instead of overflowing the stack or running for hours.
inline constexpr int kMaxExpandedDepth = 1000;
inline constexpr double kMaxExpandedNodes = 100000.0;

/// Refuses differential equation `e` (named `what`, "dv/dt") when, with every subexpression of
/// `model` substituted, it is more than kMaxExpandedDepth levels deep or kMaxExpandedNodes
/// nodes large: measured, not built, each subexpression once. typeOf() bounds the levels it
/// walks, but it types each subexpression once too, so one met again deep down can still make
/// the substituted tree deeper. `e` must have been typed by typeOf() (no cycles). Throws
/// EquationError at `e`.
void checkExpanded(const EquationModel& model, const ExprPtr& e, const std::string& what);

/// Types `e` under `model`; throws EquationError at the offending node (unknown name, mixed
/// units, a function of a quantity with units, division by a constant zero, ...). `what` names
/// the line in messages ("dv/dt", "threshold").
Typed typeOf(const EquationModel& model, const ExprPtr& e, const std::string& what);

}  // namespace spike::engine::equations
