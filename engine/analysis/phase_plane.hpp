// Phase portrait of a neuron model: the vector field, nullclines and fixed points of two of its
// state variables, computed numerically from the model's own update, so it works for every
// element-wise neuron population: LIF, LIFRefrac, CUBALIF, NIR's neurons and the equation-defined
// models (library models such as FitzHughNagumo, Izhikevich, AdEx, and the user's own).
//
// The map. Pick two State attributes x and y (phaseStates(): Real, one value per neuron, not the
// spike or refractory bookkeeping) and a neuron k. For a point (x, y) of the plane, the one-step
// map is what one step of the module's own update does to a neuron whose x and y are set to the
// point and whose other states are neuron k's current values (the refractory counter and the
// stored spikes at rest, so a neuron caught refractory does not freeze the field), with neuron
// k's parameters and `current` on every channel of the input port (as fiCurve drives it):
//     F(x, y) = (x' - x, y' - y)                                               [per step]
// All points are evaluated at once as one wide population (wide_population.hpp: a copy of
// neuron k with one neuron per point, its attributes tiled, the points' x and y set as States),
// run for exactly one step; the neurons of these models never interact, so each point is
// exactly what a separate one-neuron copy would compute (tests/test_phase_plane.cpp compares
// bit for bit). The numbers are float32, as every run is.
//
// Spikes. A point whose step emitted a spike is flagged (PhaseArrow::spiked). When the model
// resets on a spike (every built-in type; an equation model with a reset: line), the flagged
// points' increments are the reset's jump, not the flow, so they are left out of the nullclines
// and fixed points (PhasePlane::resetExcludes); a model that only counts threshold crossings
// (FitzHughNagumo) keeps them.
//
// Nullclines. The x-nullcline is where F_x = 0, the y-nullcline where F_y = 0. F is evaluated on
// a fine grid of nullclineResolution^2 points over the range; every grid edge whose ends differ
// in sign (>= 0 against < 0, neither end left out) holds a crossing, found by 30 rounds of
// bisection along the edge (each round one batched step of all open edges), so a crossing lies
// within float32's resolution of the map's zero on that edge. Each grid cell joins its crossings
// into segments (marching squares; a cell with four crossings is split by the sign at its
// centre). The segments are returned unordered; their ends are shared between neighbouring cells,
// so a viewer draws the curves by drawing every segment. For forward Euler the one-step map's
// nullclines are exactly the continuous model's (x' - x = dt f(x, y)).
//
// Fixed points. A cell with a crossing of both nullclines seeds a Newton iteration on F; each
// iteration fits F by least squares over a 21 x 21 stencil around the estimate (a quadratic in
// both coordinates), which averages out float32's rounding of the map, and steps by the fitted
// Jacobian. Estimates that converge inside the range to within a few stencil widths of each
// other are merged. The Jacobian of the one-step map there, J = I + dF/d(x, y), gives the
// multipliers (its eigenvalues, possibly a complex pair); the discrete map's fixed point is
// "stable" when both multipliers lie inside the unit circle, "unstable" when both lie outside,
// "saddle" when one lies on each side (|m| within 1e-9 of 1 on either side: "marginal").
//
// Threshold and reset. When an axis is the membrane (Role::Membrane) and the module declares a
// Role::Threshold attribute, its value for neuron k is PhasePlane::threshold (the "v_reset"
// parameter the reset); for an equation model, a threshold "S > c" or "S >= c" (c a constant or a
// parameter) on an axis state, and a reset "S = c" of one. LIF's subtractive reset has no reset
// value.
//
// Errors: Error, one line naming the thing: a module with fewer than two usable states
// ("<type> has one state variable (v); a phase portrait needs two"), an unknown or unusable
// state, x == y, an empty or non-finite range, grid or resolution out of range, neuron index out
// of range, no input port, a container or a coupled population (recurrent weights). The module
// passed in is never changed.
//
// Implementation: phase_map.hpp (the one-step map as a wide population, threshold and reset),
// phase_geometry.hpp (nullclines and fixed points), both internal to engine/analysis.
//
// Engine only, no Qt. Thread: any; the argument is only read, so it may be a copy the caller owns
// on a worker thread.
#pragma once

#include "engine/core/module.hpp"
#include "engine/tensor/error.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace spike::engine {

/// Largest vector-field grid (arrows per axis).
inline constexpr std::int64_t kPhaseMaxGrid = 401;
/// Largest nullcline grid (points per axis).
inline constexpr std::int64_t kPhaseMaxResolution = 4001;
/// Most steps phaseTrajectory() runs.
inline constexpr std::int64_t kPhaseMaxTrajectorySteps = 100000;

/// What phasePlane() computes.
struct PhasePlaneOptions {
    std::string x;                   ///< the horizontal axis: a state of phaseStates()
    std::string y;                   ///< the vertical axis: another state of phaseStates()
    double xMin = -1.0;              ///< range of x [its units], xMin < xMax, finite
    double xMax = 1.0;
    double yMin = -1.0;              ///< range of y [its units], yMin < yMax, finite
    double yMax = 1.0;
    std::int64_t grid = 21;          ///< vector-field arrows per axis, 2 .. kPhaseMaxGrid
    std::int64_t nullclineResolution = 201;  ///< nullcline grid per axis, 2 .. kPhaseMaxResolution
    double current = 0.0;            ///< constant input per step on every input-port channel
    std::int64_t neuron = 0;         ///< whose parameters and other states are used
};

/// One arrow of the vector field: the change one step makes from (x, y).
struct PhaseArrow {
    double x = 0.0;
    double y = 0.0;
    double dx = 0.0;       ///< x' - x [x's units per step]
    double dy = 0.0;       ///< y' - y [y's units per step]
    bool spiked = false;   ///< the step emitted a spike (a reset model's arrow is its jump)
};

/// A point of the plane.
struct PhasePoint {
    double x = 0.0;
    double y = 0.0;
};

/// One straight piece of a nullcline, between two refined grid-edge crossings.
struct PhaseSegment {
    PhasePoint a;
    PhasePoint b;
};

/// A fixed point of the one-step map (both increments vanish).
struct PhaseFixedPoint {
    double x = 0.0;
    double y = 0.0;
    /// The one-step map's Jacobian d(x', y') / d(x, y), row-major: {dx'/dx, dx'/dy, dy'/dx,
    /// dy'/dy}.
    std::array<double, 4> jacobian{};
    /// Its eigenvalues (the multipliers) as (real, imaginary); a complex pair when imag != 0.
    std::array<std::array<double, 2>, 2> multipliers{};
    /// "stable", "unstable", "saddle" or "marginal" (see the file comment).
    std::string stability;
};

/// The result of phasePlane().
struct PhasePlane {
    PhasePlaneOptions options;          ///< as given (validated)
    std::string type;                   ///< the module's type ("FitzHughNagumo")
    std::string xUnits;                 ///< units of x ("" when dimensionless)
    std::string yUnits;
    std::string port;                   ///< the input port driven ("in", "exc", "I", ...)
    double dt = 0.0;                    ///< time step [s] of one map step
    /// grid x grid arrows, x-major: arrow (i, j) at index i * grid + j sits at x = (xMin (grid -
    /// 1 - i) + xMax i) / (grid - 1), y likewise with j, each rounded to float32 as the state
    /// holds it (PhaseArrow::x is the value the step started from).
    std::vector<PhaseArrow> field;
    std::vector<PhaseSegment> xNullcline;  ///< where x' - x = 0
    std::vector<PhaseSegment> yNullcline;  ///< where y' - y = 0
    std::vector<PhaseFixedPoint> fixedPoints;  ///< in x order
    bool resetExcludes = false;         ///< spiking points were left out (the model resets)
    std::int64_t excludedPoints = 0;    ///< nullcline-grid points left out for spiking
    std::optional<double> xThreshold;   ///< threshold on x, when x is the thresholded state
    std::optional<double> yThreshold;
    std::optional<double> xReset;       ///< value a spike resets x to
    std::optional<double> yReset;
};

/// The states of `neuron` that can be phase-plane axes, in registration order: Real States with
/// one value per neuron (shape (N,) or (N, 1)), not the spikes or refractory bookkeeping.
std::vector<std::string> phaseStates(const Module& neuron);

/// Computes the phase portrait (see the file comment). Throws Error for bad options or a module
/// that has no phase plane; `neuron` is not changed.
PhasePlane phasePlane(const Module& neuron, const PhasePlaneOptions& options);

/// Default axes and ranges for neuron `index`: x the membrane (else the first phase state), y the
/// next phase state; each range spans the neuron's current value, the model's initial value and
/// the threshold and reset on that axis, widened by half its width on both sides (an axis whose
/// values coincide takes the other axis's width when their units agree, else twice the largest
/// parameter in its units, else 1 about its value).
/// Throws Error as phasePlane() does for a module with fewer than two states.
/// `x` and `y`, when given, fix the axes (and only the ranges are suggested).
PhasePlaneOptions suggestedPhasePlane(const Module& neuron, std::int64_t index = 0,
                                      const std::string& x = {}, const std::string& y = {});

/// The trajectory of one neuron started at (x0, y0), other states and parameters neuron
/// options.neuron's, driven by options.current: steps + 1 points, the start first, each the
/// state after one more step (ranges, grid and resolution are not used). Throws Error as
/// phasePlane() does, and for steps outside 0 .. kPhaseMaxTrajectorySteps or a non-finite start.
std::vector<std::array<double, 2>> phaseTrajectory(const Module& neuron,
                                                   const PhasePlaneOptions& options, double x0,
                                                   double y0, std::int64_t steps);

/// Parses "XMIN:XMAX,YMIN:YMAX" (the CLI's --range) into `options`; throws Error naming the part
/// that is not a number.
void parsePhaseRange(const std::string& text, PhasePlaneOptions& options);

}  // namespace spike::engine
