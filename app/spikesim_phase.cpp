// `spikesim analyse MODEL phase`: the phase portrait of one neuron module of a model file as JSON
// (engine::phasePlane, engine/analysis/phase_plane.hpp): the axes with their ranges, units,
// threshold and reset, the vector field, both nullclines as segments and the fixed points with
// their multipliers and stability. Main thread; throws engine::Error with a one-line message.
// The JSON is written atomically (spikesim_files.hpp), so a failure leaves no partial file.
#include "app/spikesim_commands.hpp"
#include "app/spikesim_files.hpp"

#include "engine/analysis/phase_plane.hpp"
#include "engine/io/model_io.hpp"
#include "engine/nir/nir_import.hpp"
#include "engine/tensor/error.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <sstream>

namespace spike::app {

using engine::Error;

namespace {

nlohmann::json optional(const std::optional<double>& v)
{
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json segments(const std::vector<engine::PhaseSegment>& list)
{
    nlohmann::json out = nlohmann::json::array();
    for (const engine::PhaseSegment& s : list) {
        out.push_back({s.a.x, s.a.y, s.b.x, s.b.y});
    }
    return out;
}

nlohmann::json jsonOf(const engine::PhasePlane& p, const std::string& node)
{
    const engine::PhasePlaneOptions& o = p.options;
    nlohmann::json j;
    j["type"] = p.type;
    j["node"] = node;
    j["neuron"] = o.neuron;
    j["port"] = p.port;
    j["current"] = o.current;
    j["dt"] = p.dt;
    j["x"] = {{"state", o.x}, {"units", p.xUnits}, {"min", o.xMin}, {"max", o.xMax},
              {"threshold", optional(p.xThreshold)}, {"reset", optional(p.xReset)}};
    j["y"] = {{"state", o.y}, {"units", p.yUnits}, {"min", o.yMin}, {"max", o.yMax},
              {"threshold", optional(p.yThreshold)}, {"reset", optional(p.yReset)}};
    j["grid"] = o.grid;
    nlohmann::json field = nlohmann::json::array();
    for (const engine::PhaseArrow& a : p.field) {
        field.push_back({a.x, a.y, a.dx, a.dy, a.spiked});
    }
    j["field"] = std::move(field);
    j["nullcline_resolution"] = o.nullclineResolution;
    j["reset_excludes"] = p.resetExcludes;
    j["excluded_points"] = p.excludedPoints;
    j["x_nullcline"] = segments(p.xNullcline);
    j["y_nullcline"] = segments(p.yNullcline);
    nlohmann::json fixed = nlohmann::json::array();
    for (const engine::PhaseFixedPoint& f : p.fixedPoints) {
        fixed.push_back({{"x", f.x},
                         {"y", f.y},
                         {"jacobian", f.jacobian},
                         {"multipliers", f.multipliers},
                         {"stability", f.stability}});
    }
    j["fixed_points"] = std::move(fixed);
    return j;
}

std::string multiplierText(const std::array<double, 2>& m)
{
    std::ostringstream s;
    s << m[0];
    if (m[1] != 0.0) {
        s << (m[1] < 0.0 ? " - " : " + ") << std::abs(m[1]) << "i";
    }
    return s.str();
}

}  // namespace

int analysePhase(const PhaseCommandOptions& options, std::ostream& out)
{
    if (!options.outPath.empty() && std::filesystem::is_directory(options.outPath)) {
        throw Error("--out " + options.outPath + " is a folder; give a file name (phase.json)");
    }
    const auto root = engine::nir::loadAnyModel(options.model, options.nir);
    const std::string name = options.node.empty() ? std::string("(root)") : options.node;
    const engine::Module* node = nullptr;
    try {
        node = &root->getSubmodule(options.node);
    } catch (const Error& e) {
        throw Error("--node " + options.node + ": " + e.what());
    }
    engine::PhasePlane plane;
    try {
        engine::PhasePlaneOptions o =
            engine::suggestedPhasePlane(*node, options.neuron, options.x, options.y);
        if (!options.range.empty()) {
            engine::parsePhaseRange(options.range, o);
        }
        o.grid = options.grid;
        o.nullclineResolution = options.resolution;
        o.current = options.current;
        plane = engine::phasePlane(*node, o);
    } catch (const Error& e) {
        const std::string what = e.what();
        if (what.rfind("--range", 0) == 0) {
            throw;
        }
        throw Error("--node " + name + ": " + what +
                    (options.node.empty() ? " (choose a neuron module with --node PATH)" : ""));
    }

    const std::string json = jsonOf(plane, options.node).dump() + "\n";
    if (options.outPath.empty()) {
        out << json;
        return 0;
    }
    writeAtomically(options.outPath, json);
    const engine::PhasePlaneOptions& o = plane.options;
    std::ostringstream summary;
    summary << "phase portrait of " << plane.type << " '" << name << "' (neuron " << o.neuron
            << ", port " << plane.port << ", input " << o.current << "): " << o.x << " "
            << o.xMin << " to " << o.xMax << (plane.xUnits.empty() ? "" : " " + plane.xUnits)
            << " x " << o.y << " " << o.yMin << " to " << o.yMax
            << (plane.yUnits.empty() ? "" : " " + plane.yUnits) << ", " << o.grid << " x "
            << o.grid << " arrows, nullclines on " << o.nullclineResolution << " x "
            << o.nullclineResolution << " (" << plane.xNullcline.size() << " + "
            << plane.yNullcline.size() << " segments";
    if (plane.resetExcludes && plane.excludedPoints > 0) {
        summary << ", " << plane.excludedPoints << " spiking points left out";
    }
    summary << "), " << plane.fixedPoints.size()
            << (plane.fixedPoints.size() == 1 ? " fixed point" : " fixed points") << " -> "
            << options.outPath << "\n";
    for (const engine::PhaseFixedPoint& f : plane.fixedPoints) {
        summary << "  fixed point " << o.x << " = " << f.x << ", " << o.y << " = " << f.y << ": "
                << f.stability << " (multipliers " << multiplierText(f.multipliers[0]) << ", "
                << multiplierText(f.multipliers[1]) << ")\n";
    }
    out << summary.str();
    return 0;
}

}  // namespace spike::app
