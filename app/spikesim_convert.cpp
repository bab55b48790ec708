// spikesim convert: a model between the JSON model format and NIR. See spikesim_commands.hpp.
#include "app/spikesim_commands.hpp"

#include "engine/io/model_io.hpp"
#include "engine/nir/nir_export.hpp"
#include "engine/nir/nir_file.hpp"
#include "engine/nir/nir_import.hpp"

#include <filesystem>

namespace spike::app {

int convertModel(const ConvertOptions& options, std::ostream& out, std::ostream& err)
{
    namespace fs = std::filesystem;
    const bool toNir = engine::nir::isNirPath(options.output);
    const std::string ext = fs::path(options.output).extension().string();
    if (!toNir && ext != ".json") {
        throw engine::Error(options.output + ": expected a .nir or .json file name");
    }
    if (fs::exists(options.input) && fs::exists(options.output) &&
        fs::equivalent(options.input, options.output)) {
        throw engine::Error(options.output + ": is the input file; give another name");
    }
    std::vector<std::string> notes;
    const auto root = engine::nir::loadAnyModel(options.input, options.nir, &notes);
    for (const auto& note : notes) {
        err << "spikesim: note: " << note << "\n";
    }
    if (toNir) {
        const engine::nir::NirExport exported = engine::nir::exportNir(*root);
        for (const auto& what : exported.leftOut) {
            err << "spikesim: left out of " << options.output << ": " << what << "\n";
        }
        engine::nir::writeNirFile(options.output, exported.file);
        out << "wrote " << options.output << " (NIR " << exported.file.version << ", "
            << exported.file.graph.nodes.size() << " nodes, " << exported.file.graph.edges.size()
            << " edges" << (exported.leftOut.empty() ? "" : ", some modules left out") << ")\n";
        return 0;
    }
    engine::saveModel(options.output, *root);
    out << "wrote " << options.output << "\n";
    return 0;
}

}  // namespace spike::app
