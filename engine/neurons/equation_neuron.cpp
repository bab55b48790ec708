// EquationNeuron: registry from the model text, compilation on change, and the CPU time loop.
// See equation_neuron.hpp.
#include "engine/neurons/equation_neuron.hpp"

#include "engine/equations/compiler.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace spike::engine {

namespace eq = equations;

namespace {

/// The registry family of a parameter without one: by its dimension.
std::string familyOf(const eq::Parameter& p)
{
    if (!p.family.empty()) {
        return p.family;
    }
    if (p.dim == eq::dims::second()) return "taus";
    if (p.dim == eq::dims::volt()) return "potentials";
    if (p.dim == eq::dims::siemens()) return "conductances";
    if (p.dim == eq::dims::farad()) return "capacitances";
    if (p.dim == eq::dims::ampere()) return "currents";
    return "parameters";
}

/// The units text of an attribute: the SI unit, "" for none.
std::string unitsOf(const eq::Dimension& d)
{
    return d.dimensionless() ? std::string() : eq::dimensionName(d);
}

eq::EquationModel parsed(const std::string& type, const std::string& text)
{
    try {
        return eq::parseModel(text);
    } catch (const eq::EquationError& e) {
        throw eq::EquationError(type + " equations, " + e.what(), e.position(), e.length());
    }
}

}  // namespace

EquationNeuron::EquationNeuron(std::string type, const std::string& text, std::int64_t n,
                               const AttributeMap& initial)
    : NeuronLayer({n * static_cast<std::int64_t>(std::max<std::size_t>(1, parsed(type, text).inputs.size())), n}, false, true),
      m_type(std::move(type)), m_model(parsed(m_type, text))
{
    if (n <= 0) {
        throw Error(m_type + ": a population needs at least one neuron, got " + std::to_string(n));
    }
    m_work.resize(m_model.states.size());
    m_inputRows.assign(m_model.inputs.size(), nullptr);
    registerAttributes();
    finishRegistration(initial);
}

void EquationNeuron::registerAttributes()
{
    const std::int64_t n = sizeOut();
    const std::vector<Shape> perNeuron = perNeuronShapes();
    for (std::size_t k = 0; k < m_model.parameters.size(); ++k) {
        const eq::Parameter& p = m_model.parameters[k];
        if (p.input) {
            continue;
        }
        Bounds b;
        if (p.min) {
            b.lower = *p.min;
            b.lowerInclusive = !p.minExclusive;
        }
        if (p.max) {
            b.upper = *p.max;
        }
        m_parameterIds.push_back(addAttribute(parameter(p.name).family(familyOf(p)).shapes(perNeuron)
                                                  .units(unitsOf(p.dim)).bounds(b)
                                                  .initConstant(static_cast<float>(p.value))
                                                  .doc(p.doc.empty() ? "Parameter " + p.name : p.doc)));
        m_parameterIndex.push_back(k);
    }
    AttributeBuilder dt = timeStepAttribute();
    if (m_model.dt > 0.0) {
        dt.initConstant(static_cast<float>(m_model.dt));  // the step the text is meant for
    }
    m_dt = addAttribute(std::move(dt));
    const std::vector<std::string> methods = eq::applicableMethods(m_model);
    m_method = addAttribute(simulationParameter("method").choices(methods)
                                .initEnum(eq::defaultMethod(m_model)).live(false)
                                .doc("Integration method (Brian2's names); the default is the text's "
                                     "method, else exact when it applies, else euler"));
    bool membraneTaken = false;
    for (std::size_t i = 0; i < m_model.states.size(); ++i) {
        const eq::StateVariable& s = m_model.states[i];
        // The first state marked (membrane), else the first state, is what plots show first.
        const bool membrane = !membraneTaken && (s.membrane || std::none_of(m_model.states.begin(), m_model.states.end(),
                                                                            [](const auto& x) { return x.membrane; }));
        membraneTaken = membraneTaken || membrane;
        AttributeBuilder b = stateVariable(s.name).family(membrane ? "membrane" : "states")
                                 .shapes({Shape{n}}).units(unitsOf(s.dim))
                                 .init([i](const Module& m) -> AttributeValue {
                                     return static_cast<const EquationNeuron&>(m).initialStates()[i];
                                 })
                                 .doc(s.doc.empty() ? "State " + s.name : s.doc);
        if (membrane) {
            b.role(Role::Membrane);
        }
        m_stateIds.push_back(addAttribute(std::move(b)));
    }
    if (m_model.refractory) {
        const bool time = m_model.refractoryIsTime;
        m_refractoryId = addAttribute(stateVariable(time ? "refrac" : "not_refractory").family("refractory")
                                          .shapes({Shape{n}}).units(time ? "steps" : "")
                                          .initConstant(time ? 0.0F : 1.0F)
                                          .doc(time ? "Refractory steps left" : "1 while the neuron may fire; 0 from a spike until the refractory condition ends"));
    }
}

std::vector<Tensor> EquationNeuron::initialStates() const
{
    const std::int64_t n = sizeOut();
    const float dt = tensor("dt")[0];
    eq::Population pop(eq::compileModel(m_model, dt, "euler"), n);
    for (const eq::Parameter& p : m_model.parameters) {
        if (!p.input) {
            const Tensor& t = tensor(p.name);
            pop.setParameter(p.name, t.data(), t.numel());
        }
    }
    pop.initialise();
    std::vector<Tensor> out;
    for (std::size_t i = 0; i < m_model.states.size(); ++i) {
        out.emplace_back(Shape{n}, std::vector<float>(pop.state(i), pop.state(i) + n));
    }
    return out;
}

nlohmann::json EquationNeuron::config() const
{
    nlohmann::json c{{"shape", {sizeOut()}}};
    if (m_type == kCustomType) {
        c["equations"] = m_model.text;
    }
    return c;
}

std::string EquationNeuron::extraRepr() const
{
    std::ostringstream os;
    os << "N=" << sizeOut() << ", method=" << method();
    return os.str();
}

std::vector<PortSpec> EquationNeuron::inputPorts() const
{
    std::vector<PortSpec> ports;
    const std::int64_t n = sizeOut();
    for (std::size_t k = 0; k < m_model.inputs.size(); ++k) {
        // A state input takes events (spikes times weights); a parameter input a current.
        const bool events = m_model.state(m_model.inputs[k]) != nullptr;
        ports.push_back({m_model.inputs[k], static_cast<std::int64_t>(k) * n, n, events});
    }
    if (ports.empty()) {
        ports.push_back({"unused", 0, n, false});
    }
    return ports;
}

std::string EquationNeuron::stateOrigin(const std::string& state) const
{
    if (const eq::StateVariable* s = m_model.state(state)) {
        return "d" + s->name + "/dt = " + eq::toString(s->rhs) + " (" + eq::locate(m_model.text, s->position) +
               " of the " + m_type + " equations)";
    }
    if (m_model.refractory && (state == "refrac" || state == "not_refractory")) {
        return "refractory: " + eq::toString(m_model.refractory);
    }
    return {};
}

std::string EquationNeuron::method() const
{
    return enumValue(m_method);
}

Status EquationNeuron::validateChange(const Lookup& proposed) const
{
    const float dt = std::get<Tensor>(proposed("dt"))[0];
    const std::string& method = std::get<std::string>(proposed("method"));
    try {
        eq::compileModel(m_model, dt, method);
    } catch (const Error& e) {
        return Status::failure(m_type + ": " + e.what());
    }
    return Status::success();
}

void EquationNeuron::refreshPopulation()
{
    const double dt = value(m_dt)[0];
    const std::string& method = enumValue(m_method);
    if (!m_population || dt != m_compiledDt || method != m_compiledMethod) {
        m_population = std::make_unique<eq::Population>(eq::compileModel(m_model, dt, method), sizeOut());
        m_compiledDt = dt;
        m_compiledMethod = method;
    }
    for (std::size_t k = 0; k < m_parameterIds.size(); ++k) {
        const Tensor& t = value(m_parameterIds[k]);
        m_population->setParameter(m_model.parameters[m_parameterIndex[k]].name, t.data(), t.numel());
    }
    m_population->parametersChanged();
}

void EquationNeuron::attributesChanged()
{
    refreshPopulation();
    if (stepsElapsed() != 0) {
        return;
    }
    std::vector<Tensor> initial = initialStates();
    for (std::size_t i = 0; i < m_stateIds.size(); ++i) {
        if (i < m_lastInitial.size() && value(m_stateIds[i]).identical(m_lastInitial[i])) {
            stateRef(m_stateIds[i]) = initial[i];
        }
    }
    m_lastInitial = std::move(initial);
}

std::vector<NeuronLayer::CarriedState> EquationNeuron::carriedStates()
{
    std::vector<CarriedState> out;
    for (std::size_t i = 0; i < m_stateIds.size(); ++i) {
        out.push_back({m_stateIds[i], &m_work[i]});
    }
    if (m_refractoryId.valid()) {
        out.push_back({m_refractoryId, &m_refractoryWork});
    }
    return out;
}

std::vector<NeuronLayer::Trace> EquationNeuron::traces() const
{
    std::vector<Trace> out;
    const Shape perNeuron{sizeOut()};
    for (const eq::StateVariable& s : m_model.states) {
        out.push_back({s.name, perNeuron, unitsOf(s.dim)});
    }
    if (m_model.refractory) {
        out.push_back({m_model.refractoryIsTime ? "refrac" : "not_refractory", perNeuron,
                       m_model.refractoryIsTime ? "steps" : ""});
    }
    return out;
}

void EquationNeuron::prepareEvolve()
{
    if (!m_population) {
        refreshPopulation();
    }
}

void EquationNeuron::bindWork()
{
    eq::Population& pop = *m_population;
    for (std::size_t i = 0; i < m_work.size(); ++i) {
        pop.bindState(i, m_work[i].data());
    }
    pop.bindRefractory(m_refractoryWork.size() > 0 ? m_refractoryWork.data() : nullptr);
    if (pop.setConsumeInputs(consumingInput()) != consumingInput()) {
        throw Error(m_type + ": its population cannot zero its inputs, yet its runner was asked to");
    }
}

void EquationNeuron::unbindWork()
{
    for (std::size_t i = 0; i < m_work.size(); ++i) {
        m_population->bindState(i, nullptr);
    }
    m_population->bindRefractory(nullptr);
    m_population->bindSpikes(nullptr);
}

void EquationNeuron::runBatch(const float* input, std::int64_t steps, float* spikesOut,
                              const TraceTargets& traces)
{
    const std::int64_t n = sizeOut();
    const std::int64_t nIn = sizeIn();
    eq::Population& pop = *m_population;
    bindWork();
    const double dt = m_compiledDt;
    const std::int64_t start = stepsElapsed();
    for (std::int64_t t = 0; t < steps; ++t) {
        for (std::size_t k = 0; k < m_inputRows.size(); ++k) {
            m_inputRows[k] = input + t * nIn + static_cast<std::int64_t>(k) * n;
        }
        pop.bindSpikes(spikesOut + t * n);  // the step writes its spikes straight into the output row
        pop.step(m_inputRows.data(), static_cast<double>(start + t) * dt);
        for (std::size_t k = 0; k < m_work.size(); ++k) {
            if (traces[k]) {
                traces[k].write(t, m_work[k].data(), n);
            }
        }
        if (m_refractoryWork.size() > 0 && traces[m_work.size()]) {
            traces[m_work.size()].write(t, m_refractoryWork.data(), n);
        }
    }
    unbindWork();
}

bool EquationNeuron::runsInRanges() const
{
    return m_population && m_population->steppableInRanges();
}

double EquationNeuron::workPerNeuronStep() const
{
    return m_population ? m_population->costPerNeuronStep() : 1.0;
}

void EquationNeuron::beginRanges(int parts)
{
    bindWork();
    if (m_frames.size() < static_cast<std::size_t>(parts)) {
        m_frames.resize(static_cast<std::size_t>(parts));
    }
    for (int p = 0; p < parts; ++p) {
        m_population->prepareFrame(m_frames[static_cast<std::size_t>(p)]);
    }
    m_nextFrame.store(0, std::memory_order_relaxed);
}

void EquationNeuron::runRange(const float* input, std::int64_t steps, float* spikesOut,
                              const TraceTargets& traces, std::int64_t begin, std::int64_t end)
{
    const std::int64_t n = sizeOut();
    const std::int64_t nIn = sizeIn();
    const auto f = static_cast<std::size_t>(m_nextFrame.fetch_add(1, std::memory_order_relaxed));
    eq::Population::Frame& frame = m_frames.at(f);
    const eq::Population& pop = *m_population;
    const double dt = m_compiledDt;
    const std::int64_t start = stepsElapsed();
    for (std::int64_t t = 0; t < steps; ++t) {
        for (std::size_t k = 0; k < frame.inputRows.size(); ++k) {
            frame.inputRows[k] = input + t * nIn + static_cast<std::int64_t>(k) * n;
        }
        pop.stepRange(frame, spikesOut + t * n, static_cast<double>(start + t) * dt, begin, end);
        for (std::size_t k = 0; k < m_work.size(); ++k) {
            if (traces[k]) {
                traces[k].writeRange(t, m_work[k].data(), n, begin, end);
            }
        }
        if (m_refractoryWork.size() > 0 && traces[m_work.size()]) {
            traces[m_work.size()].writeRange(t, m_refractoryWork.data(), n, begin, end);
        }
    }
}

void EquationNeuron::endRanges(std::int64_t steps)
{
    m_population->countRangeSteps(steps);
    unbindWork();
}

bool EquationNeuron::canConsumeInput() const
{
    // Every declared input has its slot (the population zeroes all of them) and the row holds
    // nothing else.
    return m_population->canConsumeInputs() &&
           static_cast<std::int64_t>(m_model.inputs.size()) * sizeOut() == sizeIn();
}

}  // namespace spike::engine
