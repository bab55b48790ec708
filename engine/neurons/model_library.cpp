// The parsed library of equation models. See model_library.hpp.
#include "engine/neurons/model_library.hpp"

#include "engine/tensor/error.hpp"

namespace spike::engine {

const std::vector<LibraryModel>& libraryModels()
{
    static const std::vector<LibraryModel> models = [] {
        std::vector<LibraryModel> out;
        for (const auto& [stem, text] : libraryModelTexts()) {
            try {
                out.push_back({stem + ".model", equations::parseModel(text)});
            } catch (const Error& e) {
                throw Error("engine/neurons/models/" + stem + ".model: " + e.what());
            }
            if (out.back().model.name.empty()) {
                throw Error("engine/neurons/models/" + stem + ".model: missing 'name:' line");
            }
        }
        return out;
    }();
    return models;
}

const LibraryModel* findLibraryModel(const std::string& type)
{
    for (const auto& m : libraryModels()) {
        if (m.model.name == type) {
            return &m;
        }
    }
    return nullptr;
}

}  // namespace spike::engine
