// Module type registry: every module type the engine can build from a model file, the palette
// or the command line, with its category, a one-line description and, for the models with
// dynamics, their equations for users (ModelEquations, in Brian2's equation syntax). The list is
// written once, in module_factory.cpp; everything else (file loader, palette, `spikesim info`,
// the GUI's Equations tab) reads it.
#pragma once

#include "engine/core/module.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace spike::engine {

/// What a line of a model's equations does, after Brian2's NeuronGroup(model=, threshold=,
/// reset=) and Synapses(on_pre=).
enum class EquationRole {
    Update,      ///< how a state changes each step: "dv/dt = ...", "vmem = alpha * vmem + ..."
    Threshold,   ///< the spike condition: "v > v_th"
    Reset,       ///< what a spike does to the neuron: "v = v_reset"
    Event,       ///< what an arriving input does: "i_exc += x_exc", "post += weight * pre"
    Definition,  ///< a quantity derived from others: "alpha = exp(-dt / tau_mem)"
};

/// One line of a model's equations in Brian2's syntax ("lhs = rhs", "dv/dt = rhs",
/// "lhs += rhs", a condition), optionally followed by "# a short note for users".
struct EquationLine {
    EquationRole role = EquationRole::Update;
    std::string text;
    /// Shown only for a module that has this attribute ("w_rec": only with has_rec); "" always.
    std::string onlyWith = {};
};

/// A symbol of the equations that is not one of the module's attributes (the input x, a
/// recorded intermediate): attributes are described by their own registry entry instead.
struct EquationSymbol {
    std::string name;
    std::string meaning;  ///< a few words for users
    std::string units;    ///< "mV", "" for none or when it depends on the input
};

/// A module type's dynamics for users: what the GUI's Equations tab shows. Developer notes
/// (threads, allocation, float32 order) stay in the header comment (ModuleTypeInfo::header).
/// Must state what the code computes.
struct ModelEquations {
    std::string description;              ///< one or two sentences for users
    std::vector<EquationLine> lines;      ///< per role, in the order the code applies them
    std::vector<EquationSymbol> symbols;  ///< the symbols that are not attributes
    bool empty() const { return lines.empty(); }
};

/// One constructible module type.
struct ModuleTypeInfo {
    std::string type;      ///< "LIF", "Sequential"
    std::string category;  ///< "neurons", "containers", ...
    std::string doc;       ///< one line
    bool container = false;
    nlohmann::json exampleConfig;  ///< a valid config, for palettes and docs
    /// Builds an instance from its config; throws Error naming the config key at fault.
    std::function<std::unique_ptr<Module>(const nlohmann::json& config)> create;
    /// The engine header whose top comment states the type's update equations, in the order
    /// the code runs them, as a path under engine/ ("neurons/lif.hpp"); "" for types without
    /// equations (layers, containers).
    std::string header;
    /// The type's equations for users; empty for types without equations (layers, containers).
    ModelEquations equations = {};
};

/// Every registered module type, in palette order.
const std::vector<ModuleTypeInfo>& moduleTypes();
/// The type called `type`, or nullptr.
const ModuleTypeInfo* findModuleType(const std::string& type);
/// The update equations of module type `type`: the comment block at the top of its header
/// (ModuleTypeInfo::header), as the build extracted it; "" for an unknown type or one without.
std::string moduleEquations(const std::string& type);
/// The comment block at the top of engine header `header` ("lif.hpp"), for the headers the build
/// extracts (engine/CMakeLists.txt); "" for others.
std::string headerComment(const std::string& header);
/// Builds a module; throws Error for an unknown type (listing the known ones) or a bad config.
std::unique_ptr<Module> createModule(const std::string& type, const nlohmann::json& config);
/// Adds `child` to a container built by createModule (Sequential appends with a size check,
/// ModuleList by index); throws Error when `parent` is not a container.
void attachChild(Module& parent, const std::string& name, std::unique_ptr<Module> child);

}  // namespace spike::engine
