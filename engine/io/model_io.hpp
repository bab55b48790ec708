// Model files: the versioned JSON model format (docs/model-format.md) and PyTorch-style state
// dict folders of <key>.npy files.
//
// Loading validates everything before returning: a bad file throws one Error whose message
// names the file, the JSON path (RFC 6901 pointer, e.g. /model/children/0/attributes/tau_mem)
// and what was expected. Saving is atomic (temporary file, then rename). Stateless functions;
// call from any thread that owns the module.
#pragma once

#include "engine/core/module.hpp"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>

namespace spike::engine {

/// Current model format version written by saveModel().
constexpr int kModelFormatVersion = 1;
/// Modules nested inside one another that a model file may hold (children of children ...,
/// projections counted as a level): deeper files are refused with the pointer of the first
/// module too deep, since loading, cloning, saving and running all walk the tree recursively.
/// Far beyond any model built by hand or by NIR import (which stops at 64 groups).
constexpr int kMaxModuleDepth = 256;

/// How saveModel() writes arrays.
struct SaveOptions {
    /// Arrays with more elements than this go to .npy files in "<stem>.arrays/" beside the
    /// model; smaller ones are written inline. Negative: always inline.
    std::int64_t inlineLimit = 4096;
};

/// A loaded model file: the module tree plus whatever the file keeps for other tools
/// (e.g. the editor's "layout"), passed through untouched.
struct ModelDocument {
    std::unique_ptr<Module> root;
    nlohmann::json extras = nlohmann::json::object();
};

/// Loads a model file. Throws Error "<path>: <json pointer>: <problem>".
ModelDocument loadModelDocument(const std::string& path);
/// loadModelDocument(path).root.
std::unique_ptr<Module> loadModel(const std::string& path);
/// Builds a model from a parsed document; `sourceName` prefixes messages and `baseDir`
/// resolves relative .npy references.
ModelDocument modelFromJson(const nlohmann::json& doc, const std::string& sourceName,
                            const std::string& baseDir);

/// Serialises a tree. With `arrayDir` non-empty, large arrays are written there as .npy and
/// referenced relative to `baseDir`.
nlohmann::json modelToJson(const Module& root, const SaveOptions& options = {},
                           const std::string& baseDir = {}, const std::string& arrayDir = {},
                           const nlohmann::json& extras = nlohmann::json::object());
/// Saves a tree (atomically) to `path`; large arrays go to "<stem>.arrays/" beside it.
void saveModel(const std::string& path, const Module& root, const SaveOptions& options = {},
               const nlohmann::json& extras = nlohmann::json::object());

/// Decodes an attribute value from JSON (number, nested list, {"shape", "data"}, {"npy"} or a
/// string for enumerations). Throws Error with a pointer relative to `pointer`.
AttributeValue attributeFromJson(const nlohmann::json& j, const std::string& pointer,
                                 const std::string& baseDir);
/// Encodes an attribute value inline (number for scalars, {"shape", "data"} otherwise).
nlohmann::json attributeToJson(const AttributeValue& value);

/// Reads every "<key>.npy" in `dir` (sorted by key). Throws Error naming the folder or file.
StateDict loadStateDictFolder(const std::string& dir);
/// Writes each entry as "<dir>/<key>.npy", creating the folder.
void saveStateDictFolder(const std::string& dir, const StateDict& dict);

}  // namespace spike::engine
