// Module type registry: every module type the engine can build from a model file, the palette
// or the command line, with its category, a one-line description and, for the models with
// dynamics, their equations for users (ModelEquations, in Brian2's equation syntax). The list is
// written once, in module_factory.cpp; everything else (file loader, palette, `spikesim info`,
// the GUI's Equations tab) reads it.
#pragma once

#include "engine/core/module.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
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

/// What kind of value a constructor setting takes.
enum class SettingKind {
    Integer,  ///< a whole number in [min, max]
    Boolean,  ///< true / false
    Choice,   ///< one of `choices`
};

/// One constructor setting of a module type (a population size, has_rec, in_features,
/// kernel_size, ...), declared once in the type table: the inspector's Settings group, the
/// quick-add size ("LIF 100"), `spikesim info` and docs/model-format.md are generated from it.
/// A setting need not be one config key: `get` and `set` map it onto the config as the type's
/// config reader expects it (LIF's "neurons" is the last entry of "shape").
struct ConfigSetting {
    std::string name;  ///< "neurons", "has_rec", "in_features"; unique within the type
    SettingKind kind = SettingKind::Integer;
    std::int64_t min = 0;  ///< Integer: inclusive bounds
    std::int64_t max = 0;
    std::vector<std::string> choices = {};  ///< Choice: the accepted values
    std::string doc = {};                   ///< one line for users
    /// The population size (at most one per type): what typing "LIF 100" on the canvas sets.
    bool size = false;
    /// The setting's value in `config` (a config as Module::config() writes it).
    std::function<nlohmann::json(const nlohmann::json& config)> get = {};
    /// `config` with the setting set to `value` (already checked against kind and bounds);
    /// other settings keep their values where the type allows it.
    std::function<nlohmann::json(nlohmann::json config, const nlohmann::json& value)> set = {};
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
    /// The constructor settings users may change (see ConfigSetting), in display order.
    std::vector<ConfigSetting> settings = {};
};

/// Every registered module type, in palette order.
const std::vector<ModuleTypeInfo>& moduleTypes();
/// The type called `type`, or nullptr.
const ModuleTypeInfo* findModuleType(const std::string& type);
/// The equations for users of module `module`: a user-written EquationNeuron's from its own
/// text, every other module's its type's (ModuleTypeInfo::equations; empty for an unknown type
/// or one without).
ModelEquations modelEquationsOf(const Module& module);
/// The update equations of module type `type`: the comment block at the top of its header
/// (ModuleTypeInfo::header), as the build extracted it; "" for an unknown type or one without.
std::string moduleEquations(const std::string& type);
/// The comment block at the top of engine header `header` ("lif.hpp"), for the headers the build
/// extracts (engine/CMakeLists.txt); "" for others.
std::string headerComment(const std::string& header);
/// `config` of a module of type `type` with setting `name` set to `value`: checks the value
/// against the setting's kind and bounds, then checks the result with the type's config reader
/// (without building the large types: "LIF 100000000" is checked in microseconds). Throws Error
/// "<type> setting '<name>': <what was expected>" (no module is changed).
nlohmann::json configWithSetting(const std::string& type, const nlohmann::json& config,
                                 const std::string& name, const nlohmann::json& value);
/// The example config of `type` with its size setting set to `n` ("LIF 100"); throws Error when
/// the type has no size setting or `n` is out of its bounds.
nlohmann::json configWithSize(const std::string& type, std::int64_t n);
/// The attribute values a module of `type` starts with when a user adds it from the palette
/// or the quick-add list, or a projection chosen for a wire, as a JSON object of the model
/// format's "attributes" (engine/io/start_values.cpp): chosen so that a minimal circuit
/// (10 Hz Poisson input into a LIF layer through the projection a wire offers) fires at rates a
/// neuroscientist accepts. Empty for types whose engine defaults already do.
const nlohmann::json& startValues(const std::string& type);
/// startValues(type) fitted to a module of `config` (a SparseProjection's in_degree at most its
/// source count); what the editor applies when it builds a module of that config.
nlohmann::json startValues(const std::string& type, const nlohmann::json& config);
/// A sentence for users stating startValues(type) ("" when empty), for palette tooltips.
std::string startValuesText(const std::string& type);
/// Builds a module; throws Error for an unknown type (listing the known ones) or a bad config.
std::unique_ptr<Module> createModule(const std::string& type, const nlohmann::json& config);
/// Adds `child` to a container built by createModule (Sequential appends with a size check,
/// ModuleList by index); throws Error when `parent` is not a container.
void attachChild(Module& parent, const std::string& name, std::unique_ptr<Module> child);

}  // namespace spike::engine
