// phasePlane(), suggestedPhasePlane(), phaseTrajectory(): the public face of the phase portrait
// (phase_plane.hpp): options checked, the one-step map (phase_map.hpp) sampled on the arrow grid,
// nullclines and fixed points (phase_geometry.hpp), threshold and reset. Thread: whichever thread
// calls it; it touches only its own copies of the module.
#include "engine/analysis/phase_plane.hpp"

#include "engine/analysis/range_text.hpp"

#include "engine/analysis/phase_geometry.hpp"
#include "engine/analysis/phase_map.hpp"
#include "engine/io/model_clone.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <variant>

namespace spike::engine {

namespace {

/// Checks the module and the axes; returns the phase states.
std::vector<std::string> checkAxes(const Module& m, const PhasePlaneOptions& o)
{
    const std::string type = m.className();
    if (m.childCount() > 0) {
        throw Error("phase portrait: " + type + " is a container; choose one neuron population");
    }
    const auto states = phaseStates(m);
    if (states.size() < 2) {
        throw Error(type + (states.empty() ? std::string(" has no state variable")
                                           : " has one state variable (" + states[0] + ")") +
                    "; a phase portrait needs two");
    }
    auto known = [&](const std::string& name, const char* axis) {
        if (std::find(states.begin(), states.end(), name) == states.end()) {
            std::string list;
            for (const std::string& s : states) {
                list += (list.empty() ? "" : ", ") + s;
            }
            throw Error(std::string("phase portrait: ") + axis + " '" + name + "' is not a state " +
                        "variable of " + type + " (choose from " + list + ")");
        }
    };
    known(o.x, "x");
    known(o.y, "y");
    if (o.x == o.y) {
        throw Error("phase portrait: x and y are both '" + o.x + "'; choose two different states");
    }
    if (m.hasAttribute("w_rec")) {
        throw Error("phase portrait: " + type + " has recurrent weights (w_rec), which couple the "
                    "neurons; a phase portrait needs neurons that step independently");
    }
    if (o.neuron < 0 || o.neuron >= m.sizeOut()) {
        throw Error("phase portrait: neuron " + std::to_string(o.neuron) + " is out of range (" +
                    type + " has " + std::to_string(m.sizeOut()) + " neurons)");
    }
    if (!std::isfinite(o.current)) {
        throw Error("phase portrait: the input current " + numberText(o.current) +
                    " is not finite");
    }
    return states;
}

void checkRanges(const PhasePlaneOptions& o)
{
    auto range = [](const char* axis, double lo, double hi) {
        if (!std::isfinite(lo) || !std::isfinite(hi)) {
            throw Error(std::string("phase portrait: the ") + axis + " range " + numberText(lo) +
                        ":" + numberText(hi) + " is not finite");
        }
        constexpr double kFloatMax = std::numeric_limits<float>::max();
        if (std::abs(lo) > kFloatMax || std::abs(hi) > kFloatMax) {
            throw Error(std::string("phase portrait: the ") + axis + " range " + numberText(lo) +
                        ":" + numberText(hi) + " lies outside float32's range");
        }
        if (!(lo < hi)) {
            throw Error(std::string("phase portrait: the ") + axis + " range " + numberText(lo) +
                        ":" + numberText(hi) + " is empty (the minimum must be below the maximum)");
        }
    };
    range("x", o.xMin, o.xMax);
    range("y", o.yMin, o.yMax);
    if (o.grid < 2 || o.grid > kPhaseMaxGrid) {
        throw Error("phase portrait: grid " + std::to_string(o.grid) + " is out of range (2 to " +
                    std::to_string(kPhaseMaxGrid) + " arrows per axis)");
    }
    if (o.nullclineResolution < 2 || o.nullclineResolution > kPhaseMaxResolution) {
        throw Error("phase portrait: nullcline resolution " +
                    std::to_string(o.nullclineResolution) + " is out of range (2 to " +
                    std::to_string(kPhaseMaxResolution) + " points per axis)");
    }
}

}  // namespace

std::vector<std::string> phaseStates(const Module& neuron)
{
    std::vector<std::string> out;
    const auto recordable = neuron.recordableSignals();
    for (const AttributeView& v : neuron.attributes()) {
        const auto* t = std::get_if<Tensor>(v.value);
        if (v.derived || t == nullptr || !phaseAxisState(*v.spec, *t, neuron.sizeOut())) {
            continue;
        }
        if (std::find(recordable.begin(), recordable.end(), v.spec->name) != recordable.end()) {
            out.push_back(v.spec->name);
        }
    }
    return out;
}

PhasePlane phasePlane(const Module& neuron, const PhasePlaneOptions& options)
{
    checkAxes(neuron, options);
    checkRanges(options);
    const PhaseMap map(neuron, options.x, options.y, options.neuron, options.current);

    PhasePlane plane;
    plane.options = options;
    plane.type = neuron.className();
    plane.xUnits = neuron.spec(options.x).units;
    plane.yUnits = neuron.spec(options.y).units;
    plane.port = PhaseMap::inputPort(neuron).name;
    plane.dt = neuron.timeStep();
    plane.resetExcludes = phaseResetsOnSpike(neuron);
    phaseMarkers(neuron, options.x, options.neuron, plane.xThreshold, plane.xReset);
    phaseMarkers(neuron, options.y, options.neuron, plane.yThreshold, plane.yReset);

    std::vector<PhasePoint> arrows;
    for (std::int64_t i = 0; i < options.grid; ++i) {
        for (std::int64_t j = 0; j < options.grid; ++j) {
            arrows.push_back({phaseGridValue(options.xMin, options.xMax, i, options.grid),
                              phaseGridValue(options.yMin, options.yMax, j, options.grid)});
        }
    }
    const PhaseSamples field = map.evaluate(arrows);
    for (std::size_t i = 0; i < arrows.size(); ++i) {
        plane.field.push_back(
            {field.x[i], field.y[i], field.dx[i], field.dy[i], field.spiked[i] != 0});
    }

    PhaseGeometry geometry = phaseGeometry(map, options, plane.resetExcludes);
    plane.excludedPoints = geometry.excludedPoints;
    plane.xNullcline = std::move(geometry.xNullcline);
    plane.yNullcline = std::move(geometry.yNullcline);
    plane.fixedPoints = std::move(geometry.fixedPoints);
    return plane;
}

PhasePlaneOptions suggestedPhasePlane(const Module& neuron, std::int64_t index,
                                      const std::string& x, const std::string& y)
{
    PhasePlaneOptions o;
    o.neuron = index;
    const auto states = phaseStates(neuron);
    if (states.size() >= 2) {
        const std::string membrane = neuron.membraneSignal();
        o.x = !x.empty() ? x
              : std::find(states.begin(), states.end(), membrane) != states.end() ? membrane
                                                                                   : states[0];
        if (!y.empty()) {
            o.y = y;
        } else {
            for (const std::string& s : states) {
                if (s != o.x) {
                    o.y = s;
                    break;
                }
            }
        }
    } else {
        o.x = states.empty() ? std::string() : states[0];
    }
    checkAxes(neuron, o);

    auto initial = cloneModule(neuron);  // the model's initial values
    initial->resetState();
    auto span = [&](const std::string& name, double& lo, double& hi) {
        std::vector<double> values{phaseElement(neuron.tensor(name), index),
                                   phaseElement(initial->tensor(name), index)};
        std::optional<double> threshold;
        std::optional<double> reset;
        phaseMarkers(neuron, name, index, threshold, reset);
        for (const auto& v : {threshold, reset}) {
            if (v) {
                values.push_back(*v);
            }
        }
        lo = *std::min_element(values.begin(), values.end());
        hi = *std::max_element(values.begin(), values.end());
    };
    double x0 = 0.0;
    double x1 = 0.0;
    double y0 = 0.0;
    double y1 = 0.0;
    span(o.x, x0, x1);
    span(o.y, y0, y1);
    const bool sameUnits = neuron.spec(o.x).units == neuron.spec(o.y).units;
    // Twice the largest parameter of neuron `index` in `units` (AdEx's b for its w [A]).
    auto parameterScale = [&](const std::string& units) {
        double scale = 0.0;
        for (const AttributeView& v : neuron.attributes()) {
            const auto* t = std::get_if<Tensor>(v.value);
            if (t != nullptr && v.spec->kind == AttributeKind::Parameter && t->numel() > 0 &&
                v.spec->units == units && !units.empty()) {
                scale = std::max(scale, 2.0 * std::abs(phaseElement(*t, index)));
            }
        }
        return scale;
    };
    auto widen = [&](double& lo, double& hi, double other, const std::string& units) {
        double width = hi - lo;
        if (!(width > 0.0)) {
            width = other > 0.0 ? other : parameterScale(units);
            if (!(width > 0.0) || !std::isfinite(width)) {
                width = std::max(1.0, std::abs(lo));
            }
            lo -= 0.5 * width;
            hi += 0.5 * width;
            return;
        }
        lo -= 0.5 * width;
        hi += 0.5 * width;
    };
    const double xWidth = x1 - x0;
    const double yWidth = y1 - y0;
    widen(x0, x1, sameUnits ? yWidth : 0.0, neuron.spec(o.x).units);
    widen(y0, y1, sameUnits ? xWidth : 0.0, neuron.spec(o.y).units);
    o.xMin = x0;
    o.xMax = x1;
    o.yMin = y0;
    o.yMax = y1;
    return o;
}

std::vector<std::array<double, 2>> phaseTrajectory(const Module& neuron,
                                                   const PhasePlaneOptions& options, double x0,
                                                   double y0, std::int64_t steps)
{
    checkAxes(neuron, options);
    if (steps < 0 || steps > kPhaseMaxTrajectorySteps) {
        throw Error("phase trajectory: steps " + std::to_string(steps) + " is out of range (0 to " +
                    std::to_string(kPhaseMaxTrajectorySteps) + ")");
    }
    if (!std::isfinite(x0) || !std::isfinite(y0)) {
        throw Error("phase trajectory: the start (" + numberText(x0) + ", " + numberText(y0) +
                    ") is not finite");
    }
    const PhaseMap map(neuron, options.x, options.y, options.neuron, options.current);
    auto one = map.startedAt(x0, y0);
    const Tensor input = map.stepInput(*one);
    std::vector<std::array<double, 2>> out;
    out.reserve(static_cast<std::size_t>(steps + 1));
    out.push_back({static_cast<double>(one->tensor(options.x)[0]),
                   static_cast<double>(one->tensor(options.y)[0])});
    for (std::int64_t t = 0; t < steps; ++t) {
        static_cast<void>(one->evolve(input));
        out.push_back({static_cast<double>(one->tensor(options.x)[0]),
                       static_cast<double>(one->tensor(options.y)[0])});
    }
    return out;
}

void parsePhaseRange(const std::string& text, PhasePlaneOptions& options)
{
    const auto comma = text.find(',');
    auto pair = [&](const std::string& part, const char* axis, double& lo, double& hi) {
        const auto colon = part.find(':');
        if (colon == std::string::npos || part.find(':', colon + 1) != std::string::npos) {
            throw Error("--range '" + text + "' is not XMIN:XMAX,YMIN:YMAX");
        }
        lo = wholeTextNumber(part.substr(0, colon), "--range", std::string(axis) + "MIN");
        hi = wholeTextNumber(part.substr(colon + 1), "--range", std::string(axis) + "MAX");
    };
    if (comma == std::string::npos || text.find(',', comma + 1) != std::string::npos) {
        throw Error("--range '" + text + "' is not XMIN:XMAX,YMIN:YMAX");
    }
    double xMin = 0.0;
    double xMax = 0.0;
    double yMin = 0.0;
    double yMax = 0.0;
    pair(text.substr(0, comma), "X", xMin, xMax);
    pair(text.substr(comma + 1), "Y", yMin, yMax);
    options.xMin = xMin;
    options.xMax = xMax;
    options.yMin = yMin;
    options.yMax = yMax;
}

}  // namespace spike::engine
