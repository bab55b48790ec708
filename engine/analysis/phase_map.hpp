// The one-step map of the phase portrait (phase_plane.hpp), internal to engine/analysis: a
// neuron population reduced to one neuron k (its parameters, its states except the spike and
// refractory bookkeeping, which stay at rest) and evaluated over any set of points of the plane of
// two states as one wide population (wide_population.hpp) stepped once with a constant input on
// its input port. Also what the module declares about an axis (threshold, reset) and which states
// can be axes. Engine only; any thread (reads the original module only, steps its own copies).
#pragma once

#include "engine/analysis/phase_plane.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace spike::engine {

/// The map sampled at a list of points: one entry per point in each vector.
struct PhaseSamples {
    std::vector<double> x;   ///< the point's x as the state holds it (float32-rounded)
    std::vector<double> y;
    std::vector<double> dx;  ///< x' - x after one step
    std::vector<double> dy;
    std::vector<char> spiked;  ///< 1 when the step emitted a spike
};

/// Whether State `spec` is spike or refractory bookkeeping (never an axis, held at rest).
bool phaseBookkeeping(const AttributeSpec& spec);
/// Whether `spec` with value `t` can be an axis of a population of `n` neurons: a Real State
/// with one value per neuron, not bookkeeping.
bool phaseAxisState(const AttributeSpec& spec, const Tensor& t, std::int64_t n);
/// Element k of a per-neuron tensor, or its only element for a scalar.
double phaseElement(const Tensor& t, std::int64_t k);
/// Threshold and reset of `state` for neuron k when the module declares them (phase_plane.hpp).
void phaseMarkers(const Module& m, const std::string& state, std::int64_t k,
                  std::optional<double>& threshold, std::optional<double>& reset);
/// Whether a spike resets the module's states (every built-in type; an equation model with a
/// reset: line), so that a spiking step's increment is not the flow.
bool phaseResetsOnSpike(const Module& m);

/// The one-step map of neuron k of a module over the plane of states x and y.
class PhaseMap {
public:
    /// Builds the one-neuron copy; throws Error for a type without a size setting, membrane
    /// noise, or an attribute that couples the neurons. `m` is only read.
    PhaseMap(const Module& m, const std::string& x, const std::string& y, std::int64_t k,
             double current);

    /// One step from every point (chunks of at most 2^16 points per wide population).
    PhaseSamples evaluate(const std::vector<PhasePoint>& points) const;
    /// A one-neuron copy with (x0, y0) set, other states neuron k's.
    std::unique_ptr<Module> startedAt(double x0, double y0) const;
    /// The (1, 1, Nin) input of one step of `pop`: the current on its input port.
    Tensor stepInput(const Module& pop) const;
    /// The input port driven: drivenInputPort(), else (a model without inputs) its placeholder
    /// port; throws Error when there is none.
    static PortSpec inputPort(const Module& m);

private:
    /// The value of x (isX) or y for neuron i of a population being set up.
    using PointValue = std::function<double(std::int64_t i, bool isX)>;
    void setStates(Module& pop, std::int64_t count, const PointValue& value) const;
    void evaluateChunk(const PhasePoint* points, std::size_t count, PhaseSamples& out) const;

    std::unique_ptr<Module> m_single;  ///< neuron k alone, its states set
    std::string m_x;
    std::string m_y;
    double m_current;
    std::int64_t m_steps;  ///< the module's elapsed steps (t of equation models)
};

}  // namespace spike::engine
