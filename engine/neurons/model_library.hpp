// The library of neuron models written as equations: one file per model in
// engine/neurons/models/ (<name>.model, the language of engine/equations/model.hpp), built into
// the engine at compile time. Each becomes a module type of its own name (Izhikevich, AdEx, ...)
// with its parameters, states, ports and presets; adding a model is adding its file (and its
// reference case, docs/equations.md). Parsed once, on first use; any thread after that.
#pragma once

#include "engine/equations/model.hpp"

#include <string>
#include <utility>
#include <vector>

namespace spike::engine {

/// One library model.
struct LibraryModel {
    std::string file;  ///< "izhikevich.model"
    equations::EquationModel model;
};

/// The files' stems and texts, as the build embedded them (model_library_texts.cpp).
const std::vector<std::pair<std::string, std::string>>& libraryModelTexts();

/// Every library model, parsed, in file-name order. Throws Error naming the file when one does
/// not parse (a developer's mistake; test_model_library catches it).
const std::vector<LibraryModel>& libraryModels();

/// The library model whose name is `type` ("Izhikevich"), or nullptr.
const LibraryModel* findLibraryModel(const std::string& type);

}  // namespace spike::engine
