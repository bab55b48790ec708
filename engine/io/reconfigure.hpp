// Rebuilding a module with a new config (a population resized, has_rec switched on, a kernel
// size changed) while keeping what the user set: the editor's module settings and the
// projections of the wires that touch a resized node use it.
//
// The carry rule, per attribute of the new module that the old one also has (States too; for a
// module with children, every descendant attribute by its dotted path):
//   1. same shape: the old value, unchanged;
//   2. the old value has one value for all its entries (a scalar, a vector whose entries are
//      all equal, or a matrix of two or more entries all equal) and the new shape differs:
//      every entry of the new shape takes that value (a 1 x 1 matrix goes by rule 3: its one
//      entry, a weight drawn at random, says nothing about the others);
//   3. same rank, different extents: the overlapping leading block keeps the old entries
//      (neuron i stays neuron i), entries beyond it take the new module's own initial value;
//   4. otherwise (a different rank): the new module's own initial value.
// "The new module's own initial value" is drawn after the values of rule 1 are set, so a grown
// or new weight matrix (w_rec switched on) comes from the carried seed, as in a module built with
// it. Derived attributes (alpha from tau_mem, ...) are recomputed by the new module, not carried.
// Every attribute that did not carry unchanged is listed in the result's notes for users, unless
// it ends at the new module's own initial value (a zero state spread, a default left alone).
// Stateless; call from the thread that owns the module.
#pragma once

#include "engine/core/module.hpp"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

namespace spike::engine {

/// The result of reconfigure(): the new module and what did not carry unchanged.
struct Reconfigured {
    std::unique_ptr<Module> module;
    /// One line per attribute that did not keep its old value as it was, for users:
    /// "tau_mem: 1 value spread to 100 neurons", "w_rec: (1, 1) -> (100, 100), entries beyond
    /// the first 1 x 1 drawn anew".
    std::vector<std::string> notes;
};

/// Builds a module of `old`'s type (className()) from `config` and carries `old`'s attribute
/// values by the rule of the file comment. The new module has no name and no parent. Throws
/// Error (the config reader's message) when `config` is refused; `old` is never changed.
Reconfigured reconfigure(const Module& old, const nlohmann::json& config);

}  // namespace spike::engine
