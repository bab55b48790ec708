// Nullclines and fixed points of a phase portrait's one-step map (phase_plane.hpp's file comment
// describes the method), internal to engine/analysis. Engine only; any thread.
#pragma once

#include "engine/analysis/phase_map.hpp"

#include <cstdint>
#include <vector>

namespace spike::engine {

/// What phaseGeometry() finds.
struct PhaseGeometry {
    std::vector<PhaseSegment> xNullcline;
    std::vector<PhaseSegment> yNullcline;
    std::vector<PhaseFixedPoint> fixedPoints;  ///< in x order
    std::int64_t excludedPoints = 0;           ///< fine-grid points left out for spiking
};

/// (lo (n - 1 - i) + hi i) / (n - 1): grid coordinate i of n over [lo, hi], both ends exact.
double phaseGridValue(double lo, double hi, std::int64_t i, std::int64_t n);

/// The nullclines on the options' nullclineResolution grid and the fixed points of `map` inside
/// the options' range; spiking points are left out when `resetExcludes`.
PhaseGeometry phaseGeometry(const PhaseMap& map, const PhasePlaneOptions& options,
                            bool resetExcludes);

}  // namespace spike::engine
