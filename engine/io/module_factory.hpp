// Module type registry: every module type the engine can build from a model file, the palette
// or the command line, with its category and a one-line description. The list is written once,
// in module_factory.cpp; everything else (file loader, palette, `spikesim info`) reads it.
#pragma once

#include "engine/core/module.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace spike::engine {

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
