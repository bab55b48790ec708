// The values of one equation line for one neuron, for the live Equations view: a line of a
// model's equations as users read them (Brian2's syntax, ModelEquations: "dv/dt = (v_rest - v +
// i_exc + i_inh) / tau_mem", "v = v + dt * tau_mem_inv * (v_leak - v + i)", "v > v_th",
// "alpha = exp(-dt / tau_mem)") with every symbol replaced by a value, the value of the right-hand
// side, and the value of each of its terms.
//
// Terms: the summands of the right-hand side's top-level sum; when the right-hand side is a sum
// divided by (or multiplied with) something, the summands of that sum each divided (multiplied)
// the same way, so "(v_rest - v + i_exc) / tau_mem" has the terms v_rest / tau_mem,
// -v / tau_mem and i_exc / tau_mem (the leak and each input, as a teacher splits them). Their
// values add up to the right-hand side's.
//
// Values are plain numbers in whatever units the caller's values are in: unit names in the text
// ("mV", "ms") count as their SI size, so a model written with units needs SI values (an
// equation-defined neuron's attributes are), and a built-in module's lines, which name no units,
// take the module's own stored values. A name without a value (the step's input x, a matrix
// product, randn()) leaves the line without a total; a line that does not parse as an expression
// of the language (Rockpool's "spikes @ w_rec") has no values at all. Never throws.
// Pure functions; any thread.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace spike::engine::equations {

/// The value of a name in the line (a state, a parameter, dt, t), or nullopt when unknown.
using ValueLookup = std::function<std::optional<double>(const std::string& name)>;

/// One term of a right-hand side.
struct TermValue {
    std::string text;             ///< the term as written back ("-v / tau_mem")
    std::optional<double> value;  ///< nullopt when a name in it has no value
};

/// One line, evaluated.
struct LineValues {
    bool parsed = false;            ///< the right-hand side parsed (else nothing below is set)
    std::string target;             ///< "dv/dt", "v", "i_exc" ("" for a condition)
    std::string op;                 ///< "=", "+=", "-=", "*=", "/=" ("" for a condition)
    bool condition = false;         ///< a threshold-like comparison: value is 1 (true) or 0
    std::string substituted;        ///< the right-hand side with each known name replaced by
                                    ///< its value (shortest round-trip form, 4 significant digits)
    std::optional<double> value;    ///< the right-hand side's value
    std::vector<TermValue> terms;   ///< two or more when the right-hand side is a sum
    std::vector<std::string> unknown;  ///< names without a value, in order of appearance
    int valuesPutIn = 0;            ///< names replaced by a value in `substituted`
};

/// The units of a name ("volt", "s", "mV"; "" for none or unknown): how a value put in is written.
using UnitsLookup = std::function<std::string(const std::string& name)>;

/// Evaluates `line` (without its "# note"; a ": unit (flags)" part is ignored too) under
/// `valueOf`. Unit names not given a value by `valueOf` count as their SI size. A name whose
/// `unitsOf` is an SI unit (quantityText) is put in with a prefixed unit, "(-65.32*mV)", which the
/// line's language reads as the same SI value; any other is put in as a plain number.
LineValues evaluateLine(const std::string& line, const ValueLookup& valueOf, const UnitsLookup& unitsOf = {});

/// `value` [SI] of an SI unit `units` ("volt" or "V", "second" or "s", "amp", "siemens",
/// "farad", "ohm", "hertz") written with the prefix that puts it in [1, 1000), as the equation
/// language writes it: -0.06532 volt "-65.32*mV", 0.02 s "20*ms", 2e-10 farad "200*pF"; nullopt
/// for other units.
std::optional<std::string> quantityText(double value, const std::string& units);

/// A number as the substituted text shows it: up to 4 significant digits, no trailing zeros,
/// exponent form only outside [1e-4, 1e6) ("-65", "0.3679", "2.5e-07").
std::string shortNumber(double v);

}  // namespace spike::engine::equations
