// PhaseMap: the one-step map of a neuron model over points of a plane, as one wide population
// stepped once (phase_map.hpp). Thread: whichever thread calls it; it touches only its own copies.
#include "engine/analysis/phase_map.hpp"

#include "engine/analysis/driven_port.hpp"
#include "engine/analysis/wide_population.hpp"
#include "engine/equations/model.hpp"
#include "engine/io/module_factory.hpp"
#include "engine/neurons/equation_neuron.hpp"

#include <algorithm>
#include <variant>

namespace spike::engine {

namespace {

/// Points one wide population evaluates at most (bounds the copy's memory).
constexpr std::size_t kChunkPoints = std::size_t{1} << 16;

/// `t` (leading axis 1) repeated `count` times along its leading axis.
Tensor repeated(const Tensor& t, std::int64_t count)
{
    std::vector<std::int64_t> dims = t.shape().dims();
    dims[0] = count;
    Tensor out{Shape(dims)};
    for (std::int64_t b = 0; b < count; ++b) {
        std::copy(t.data(), t.data() + t.numel(), out.data() + b * t.numel());
    }
    return out;
}

/// Value of a threshold's or reset's right-hand side: a parameter or a constant.
std::optional<double> equationValue(const EquationNeuron& m, const equations::ExprPtr& e,
                                    std::int64_t k)
{
    if (e->kind == equations::NodeKind::Name && m.model().parameter(e->name) != nullptr &&
        m.hasAttribute(e->name)) {
        return phaseElement(m.tensor(e->name), k);
    }
    try {
        const equations::Typed t = equations::typeOf(m.model(), e, "threshold");
        if (t.constant && !t.boolean) {
            return t.value;
        }
    } catch (const Error&) {
    }
    return std::nullopt;
}

}  // namespace

bool phaseBookkeeping(const AttributeSpec& spec)
{
    return spec.family == "spikes" || spec.family == "refractory" || spec.name == "spikes";
}

/// Whether `spec`/`t` is a phase-plane axis candidate of a population of `n` neurons.
bool phaseAxisState(const AttributeSpec& spec, const Tensor& t, std::int64_t n)
{
    if (spec.kind != AttributeKind::State || spec.type != ValueType::Real ||
        phaseBookkeeping(spec)) {
        return false;
    }
    const Shape& s = t.shape();
    return s.rank() >= 1 && s[0] == n && t.numel() == n;
}

double phaseElement(const Tensor& t, std::int64_t k)
{
    return static_cast<double>(t.numel() > k ? t[k] : t[0]);
}

/// Threshold and reset of state `state` of neuron k, when the module declares them.
void phaseMarkers(const Module& m, const std::string& state, std::int64_t k,
             std::optional<double>& threshold, std::optional<double>& reset)
{
    if (const auto* eq = dynamic_cast<const EquationNeuron*>(&m)) {
        const equations::ExprPtr& th = eq->model().threshold;
        if (th && th->kind == equations::NodeKind::Binary &&
            (th->op == equations::Op::Gt || th->op == equations::Op::Ge) &&
            th->args[0]->kind == equations::NodeKind::Name && th->args[0]->name == state) {
            threshold = equationValue(*eq, th->args[1], k);
        }
        for (const equations::ResetStatement& r : eq->model().reset) {
            if (r.target == state && r.op == equations::Op::None) {
                reset = equationValue(*eq, r.expr, k);
            }
        }
        return;
    }
    if (state != m.membraneSignal()) {
        return;
    }
    if (const auto view = m.attributeWithRole(Role::Threshold)) {
        if (const auto* t = std::get_if<Tensor>(view->value)) {
            threshold = phaseElement(*t, k);
        }
    }
    if (m.hasAttribute("v_reset") && m.className() != "LIF") {
        reset = phaseElement(m.tensor("v_reset"), k);
    }
}

bool phaseResetsOnSpike(const Module& m)
{
    if (const auto* eq = dynamic_cast<const EquationNeuron*>(&m)) {
        return !eq->model().reset.empty();
    }
    return true;
}

PhaseMap::PhaseMap(const Module& m, const std::string& x, const std::string& y, std::int64_t k,
                   double current)
    : m_x(x), m_y(y), m_current(current), m_steps(m.stepsElapsed())
{
    const std::string type = m.className();
    const std::int64_t n = m.sizeOut();
    if (m.hasAttribute("noise_std")) {
        const Tensor& noise = m.tensor("noise_std");
        for (std::int64_t i = 0; i < noise.numel(); ++i) {
            if (noise[i] != 0.0F) {
                throw Error("phase portrait: " + type + " has membrane noise (noise_std); the "
                            "one-step map needs deterministic dynamics");
            }
        }
    }
    m_single = oneNeuronCopy(m, k, "phase portrait");
    AttributeMap states;
    for (const AttributeView& v : m.attributes()) {
        const auto* t = std::get_if<Tensor>(v.value);
        if (v.derived || t == nullptr || v.spec->kind != AttributeKind::State ||
            phaseBookkeeping(*v.spec)) {
            continue;
        }
        std::optional<Tensor> value = oneNeuronValue(*m_single, *v.spec, *t, n, k);
        if (!value) {
            throw Error("phase portrait: " + type + "'s " + v.spec->name + " of shape " +
                        t->shape().toString() + " couples the neurons; a phase portrait "
                        "needs neurons that step independently");
        }
        states.emplace(v.spec->name, std::move(*value));
    }
    const Status status = m_single->setAttributes({{"", states}});
    if (!status.ok) {
        throw Error("phase portrait: " + status.message);
    }
}

PhaseSamples PhaseMap::evaluate(const std::vector<PhasePoint>& points) const
{
    PhaseSamples out;
    out.x.reserve(points.size());
    out.y.reserve(points.size());
    out.dx.reserve(points.size());
    out.dy.reserve(points.size());
    out.spiked.reserve(points.size());
    for (std::size_t first = 0; first < points.size(); first += kChunkPoints) {
        const std::size_t count = std::min(kChunkPoints, points.size() - first);
        evaluateChunk(points.data() + first, count, out);
    }
    return out;
}

std::unique_ptr<Module> PhaseMap::startedAt(double x0, double y0) const
{
    Status status;
    auto one = widePopulation(*m_single, 1, {}, status);
    if (!one) {
        throw Error("phase portrait: " + status.message);
    }
    setStates(*one, 1, [&](std::int64_t, bool isX) { return isX ? x0 : y0; });
    return one;
}

Tensor PhaseMap::stepInput(const Module& pop) const
{
    Tensor input(Shape{1, 1, pop.sizeIn()});
    const PortSpec port = inputPort(pop);
    std::fill(input.data() + port.offset, input.data() + port.offset + port.size,
              static_cast<float>(m_current));
    return input;
}

PortSpec PhaseMap::inputPort(const Module& m)
{
    if (const std::optional<PortSpec> driven = drivenInputPort(m)) {
        return *driven;
    }
    // A model without inputs still has a portrait: its placeholder port takes the (ignored) current.
    for (const PortSpec& p : m.inputPorts()) {
        if (p.size > 0) {
            return p;
        }
    }
    throw Error("phase portrait: " + m.className() + " has no input port to drive");
}

void PhaseMap::setStates(Module& pop, std::int64_t count, const PointValue& value) const
{
    AttributeMap states;
    for (const AttributeView& v : m_single->attributes()) {
        const auto* t = std::get_if<Tensor>(v.value);
        if (v.derived || t == nullptr || v.spec->kind != AttributeKind::State) {
            continue;
        }
        Tensor tiled = repeated(*t, count);
        const bool isX = v.spec->name == m_x;
        if (isX || v.spec->name == m_y) {
            for (std::int64_t i = 0; i < count; ++i) {
                tiled.data()[i] = static_cast<float>(value(i, isX));
            }
        }
        states.emplace(v.spec->name, std::move(tiled));
    }
    const Status status = pop.setAttributes({{"", states}});
    if (!status.ok) {
        throw Error("phase portrait: " + status.message);
    }
    pop.setStepsElapsed(m_steps);
}

void PhaseMap::evaluateChunk(const PhasePoint* points, std::size_t count,
                             PhaseSamples& out) const
{
    const auto b = static_cast<std::int64_t>(count);
    Status status;
    auto pop = widePopulation(*m_single, b, {}, status);
    if (!pop) {
        throw Error("phase portrait: " + status.message);
    }
    setStates(*pop, b, [&](std::int64_t i, bool isX) {
        return isX ? points[i].x : points[i].y;
    });
    const Tensor x0 = pop->tensor(m_x);
    const Tensor y0 = pop->tensor(m_y);
    const Tensor output = pop->evolve(stepInput(*pop)).output;
    const Tensor& x1 = pop->tensor(m_x);
    const Tensor& y1 = pop->tensor(m_y);
    std::optional<PortSpec> spikes;
    for (const PortSpec& p : pop->outputPorts()) {
        if (p.spiking && !spikes) {
            spikes = p;
        }
    }
    for (std::int64_t i = 0; i < b; ++i) {
        out.x.push_back(static_cast<double>(x0[i]));
        out.y.push_back(static_cast<double>(y0[i]));
        out.dx.push_back(static_cast<double>(x1[i]) - static_cast<double>(x0[i]));
        out.dy.push_back(static_cast<double>(y1[i]) - static_cast<double>(y0[i]));
        const bool s = spikes && spikes->size == b && output[spikes->offset + i] > 0.0F;
        out.spiked.push_back(s ? 1 : 0);
    }
}

}  // namespace spike::engine
