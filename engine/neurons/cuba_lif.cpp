// CUBALIF population: registration, the refractory-step check, the propagator caches and the
// CPU time loop. See cuba_lif.hpp for the equations. The per-neuron arithmetic is
// spike::kernels::cubaStep, the function the CUDA backend runs; the loop is compiled with -O3
// -fno-trapping-math -ffp-contract=off so GCC vectorises its selects while keeping the exact
// float32 rounding.
#include "engine/neurons/cuba_lif.hpp"

#include "engine/neurons/neuron_range.hpp"

#include "kernels/lif_math.hpp"

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <optional>

namespace spike::engine {

namespace {

// Brian2's CUBA example (Vogels & Abbott 2005).
constexpr float kDefaultTauMem = 0.02F;           // [s]
constexpr float kDefaultTauExc = 0.005F;          // [s]
constexpr float kDefaultTauInh = 0.01F;           // [s]
constexpr float kDefaultVRest = -49.0F;           // [mV]
constexpr float kDefaultVReset = -60.0F;          // [mV]
constexpr float kDefaultVTh = -50.0F;             // [mV]
constexpr float kDefaultRefractoryTime = 0.005F;  // [s]
/// Largest refractory period [steps]: every whole number up to it is exact in float32.
constexpr double kMaxRefracSteps = 16777216.0;

/// One step of n neurons: cubaStep per neuron, branch-free (selects only, so GCC vectorises it).
/// `Uniform`: every neuron shares the parameters (element 0 of each parameter array), which
/// keeps the working set to the state alone. `Consume`: each neuron's inputs are zeroed once
/// read (NeuronLayer::consumingInput(); otherwise they are only read). Kept out of line: inlined
/// into runBatch, GCC 12 leaves the propagator struct in memory and no longer vectorises the loop.
template <bool Uniform, bool Consume>
[[gnu::noinline]] void cubaSteps(std::int64_t n, float* __restrict xExc,
                                 float* __restrict xInh, float* __restrict v,
                                 float* __restrict iExc, float* __restrict iInh,
                                 float* __restrict refrac, const float* __restrict pMem,
                                 const float* __restrict pExc, const float* __restrict pInh,
                                 const float* __restrict pMemExc,
                                 const float* __restrict pMemInh, const float* __restrict vRest,
                                 const float* __restrict vTh, const float* __restrict vReset,
                                 const float* __restrict refracSteps, float* __restrict spikesOut)
{
    for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t k = Uniform ? 0 : i;
        const spike::kernels::CubaPropagators p{pMem[k], pExc[k], pInh[k], pMemExc[k],
                                                pMemInh[k]};
        spikesOut[i] = spike::kernels::cubaStep(v[i], iExc[i], iInh[i], refrac[i], xExc[i],
                                                xInh[i], vRest[k], vTh[k], vReset[k],
                                                refracSteps[k], p);
        if constexpr (Consume) {
            xExc[i] = 0.0F;
            xInh[i] = 0.0F;
        }
    }
}

/// cubaSteps() with its two flags chosen at run time.
template <typename... Args>
void cubaStepsFor(bool uniform, bool consume, Args... args)
{
    if (uniform) {
        consume ? cubaSteps<true, true>(args...) : cubaSteps<true, false>(args...);
    } else {
        consume ? cubaSteps<false, true>(args...) : cubaSteps<false, false>(args...);
    }
}

}  // namespace

CUBALIF::CUBALIF(std::int64_t n, const AttributeMap& initial)
    : NeuronLayer({2 * n, n}, true, true)
{
    if (n <= 0) {
        throw Error("CUBALIF: size N = " + std::to_string(n) +
                    " is invalid; expected at least one neuron");
    }
    registerAttributes();
    finishRegistration(initial);
}

void CUBALIF::registerAttributes()
{
    const std::int64_t n = sizeOut();
    const std::vector<Shape> perNeuron = perNeuronShapes();

    m_tauMem = addAttribute(parameter("tau_mem").family("taus").shapes(perNeuron).units("s")
                                .positive().initConstant(kDefaultTauMem)
                                .doc("Membrane time constant"));
    m_tauExc = addAttribute(parameter("tau_exc").family("taus").shapes(perNeuron).units("s")
                                .positive().initConstant(kDefaultTauExc)
                                .doc("Decay time constant of the excitatory current"));
    m_tauInh = addAttribute(parameter("tau_inh").family("taus").shapes(perNeuron).units("s")
                                .positive().initConstant(kDefaultTauInh)
                                .doc("Decay time constant of the inhibitory current"));
    m_vRest = addAttribute(parameter("v_rest").family("potentials").shapes(perNeuron).units("mV")
                               .initConstant(kDefaultVRest)
                               .doc("Resting potential of the leak; the membrane starts here"));
    m_vReset = addAttribute(parameter("v_reset").family("potentials").shapes(perNeuron)
                                .units("mV").initConstant(kDefaultVReset)
                                .doc("Potential the membrane is reset to after a spike"));
    m_vTh = addAttribute(parameter("v_th").family("thresholds").role(Role::Threshold).shapes(perNeuron).units("mV")
                             .initConstant(kDefaultVTh)
                             .doc("Firing threshold: a spike when v > v_th"));
    m_refractoryTime = addAttribute(
        parameter("refractory_time").family("refractory").shapes(perNeuron).units("s")
            .nonNegative().initConstant(kDefaultRefractoryTime)
            .doc("Refractory period from the spike step on; a whole number of time steps dt"));
    m_dt = addAttribute(timeStepAttribute());
    m_vState = addAttribute(stateVariable("v").family("membrane").role(Role::Membrane).shapes({Shape{n}}).units("mV")
                                .init([](const Module& m) -> AttributeValue {
                                    const auto& self = static_cast<const CUBALIF&>(m);
                                    Eigen::ArrayXf rest;
                                    expandTo(self.value(self.m_vRest), self.sizeOut(), 1, rest);
                                    return Tensor(Shape{self.sizeOut()},
                                                  std::vector<float>(rest.begin(), rest.end()));
                                })
                                .doc("Membrane potential (starts at v_rest)"));
    m_iExcState = addAttribute(stateVariable("i_exc").family("synapses").shapes({Shape{n}})
                                   .units("mV").initConstant(0.0F)
                                   .doc("Excitatory current, in membrane-potential units"));
    m_iInhState = addAttribute(stateVariable("i_inh").family("synapses").shapes({Shape{n}})
                                   .units("mV").initConstant(0.0F)
                                   .doc("Inhibitory current, in membrane-potential units"));
    m_refrac = addAttribute(stateVariable("refrac").family("refractory").shapes({Shape{n}})
                                .units("steps").integer().range(0.0, kMaxRefracSteps)
                                .initConstant(0.0F)
                                .doc("Steps the membrane is still held (refractory while > 0)"));
}

nlohmann::json CUBALIF::config() const
{
    return {{"shape", {sizeOut()}}};
}

std::string CUBALIF::extraRepr() const
{
    return "shape=(" + std::to_string(sizeOut()) + ",)";
}

std::vector<PortSpec> CUBALIF::inputPorts() const
{
    const std::int64_t n = sizeOut();
    return {PortSpec{"exc", 0, n, true}, PortSpec{"inh", n, n, true}};
}

const std::string& CUBALIF::nameOf(AttributeId id) const
{
    return attributes()[static_cast<std::size_t>(id.index)].spec->name;
}

Status CUBALIF::refractorySteps(const Tensor& time, float dt, Tensor& steps) const
{
    steps = Tensor(time.shape());
    for (std::int64_t k = 0; k < time.numel(); ++k) {
        const std::string at = time.numel() > 1 ? " at flat index " + std::to_string(k) : "";
        const std::optional<float> whole = wholeSteps(time[k], dt);
        if (!whole) {
            return Status::failure(
                where() + ": attribute 'refractory_time': " + number(time[k]) + " [s]" + at +
                " is not a whole number of time steps dt = " + number(dt) + " [s] (ratio " +
                number(static_cast<double>(time[k]) / dt) +
                "); the refractory period counts steps, so refractory_time must be a multiple "
                "of dt");
        }
        if (*whole > kMaxRefracSteps) {
            return Status::failure(where() + ": attribute 'refractory_time': " + number(time[k]) +
                                   " [s]" + at + " is " + number(*whole) + " time steps dt = " +
                                   number(dt) + " [s]; expected at most " +
                                   number(kMaxRefracSteps) + " steps");
        }
        steps[k] = *whole;
    }
    return Status::success();
}

Status CUBALIF::validateChange(const Lookup& proposed) const
{
    const Tensor& time = std::get<Tensor>(proposed(nameOf(m_refractoryTime)));
    const float dt = std::get<Tensor>(proposed(nameOf(m_dt)))[0];
    Tensor unused;
    return refractorySteps(time, dt, unused);
}

void CUBALIF::attributesChanged()
{
    const std::int64_t n = sizeOut();
    const float dt = value(m_dt)[0];
    Tensor steps;
    if (Status s = refractorySteps(value(m_refractoryTime), dt, steps); !s.ok) {
        throw Error(s.message);  // unreachable: every committed change passed validateChange
    }
    expandTo(steps, n, 1, m_refracStepsN);
    expandTo(value(m_vRest), n, 1, m_vRestN);
    expandTo(value(m_vTh), n, 1, m_vThN);
    expandTo(value(m_vReset), n, 1, m_vResetN);

    Eigen::ArrayXf tauMem;
    Eigen::ArrayXf tauExc;
    Eigen::ArrayXf tauInh;
    expandTo(value(m_tauMem), n, 1, tauMem);
    expandTo(value(m_tauExc), n, 1, tauExc);
    expandTo(value(m_tauInh), n, 1, tauInh);
    const bool uniformTaus = allEqual(tauMem) && allEqual(tauExc) && allEqual(tauInh);
    m_pMemN.resize(n);
    m_pExcN.resize(n);
    m_pInhN.resize(n);
    m_pMemExcN.resize(n);
    m_pMemInhN.resize(n);
    for (std::int64_t i = 0; i < (uniformTaus ? 1 : n); ++i) {
        const auto p = spike::kernels::cubaPropagators(dt, tauMem[i], tauExc[i], tauInh[i]);
        m_pMemN[i] = p.pMem;
        m_pExcN[i] = p.pExc;
        m_pInhN[i] = p.pInh;
        m_pMemExcN[i] = p.pMemExc;
        m_pMemInhN[i] = p.pMemInh;
    }
    if (uniformTaus) {
        m_pMemN.setConstant(m_pMemN[0]);
        m_pExcN.setConstant(m_pExcN[0]);
        m_pInhN.setConstant(m_pInhN[0]);
        m_pMemExcN.setConstant(m_pMemExcN[0]);
        m_pMemInhN.setConstant(m_pMemInhN[0]);
    }
    m_uniform = uniformTaus && allEqual(m_vRestN) && allEqual(m_vThN) && allEqual(m_vResetN) &&
                allEqual(m_refracStepsN);

    // Until the population first evolves, a membrane still at its resting value follows v_rest,
    // so setting v_rest in a model file or the inspector moves the starting potential too; a v
    // set by hand stays.
    Tensor rest(Shape{n}, std::vector<float>(m_vRestN.begin(), m_vRestN.end()));
    if (stepsElapsed() == 0 && value(m_vState).identical(m_restV)) {
        stateRef(m_vState) = rest;
    }
    m_restV = std::move(rest);
}

std::vector<NeuronLayer::CarriedState> CUBALIF::carriedStates()
{
    return {{m_vState, &m_v}, {m_iExcState, &m_iExc}, {m_iInhState, &m_iInh}, {m_refrac, &m_r}};
}

std::vector<NeuronLayer::Trace> CUBALIF::traces() const
{
    const Shape perNeuron{sizeOut()};
    return {{"v", perNeuron, "mV"},
            {"i_exc", perNeuron, "mV"},
            {"i_inh", perNeuron, "mV"},
            {"refrac", perNeuron, "steps"}};
}

void CUBALIF::runBatch(const float* input, std::int64_t steps, float* spikesOut,
                       const TraceTargets& traces)
{
    runRange(input, steps, spikesOut, traces, 0, sizeOut());
}

bool CUBALIF::runsInRanges() const
{
    return true;
}

void CUBALIF::runRange(const float* input, std::int64_t steps, float* spikesOut,
                       const TraceTargets& traces, std::int64_t begin, std::int64_t end)
{
    const neurons_detail::NeuronRange range{sizeOut(), begin, end};
    const std::int64_t count = range.count();
    float* __restrict v = range.at(m_v);
    float* __restrict iExc = range.at(m_iExc);
    float* __restrict iInh = range.at(m_iInh);
    float* __restrict refrac = range.at(m_r);
    const float* __restrict pMem = range.at(m_pMemN);
    const float* __restrict pExc = range.at(m_pExcN);
    const float* __restrict pInh = range.at(m_pInhN);
    const float* __restrict pMemExc = range.at(m_pMemExcN);
    const float* __restrict pMemInh = range.at(m_pMemInhN);
    const float* __restrict vRest = range.at(m_vRestN);
    const float* __restrict vTh = range.at(m_vThN);
    const float* __restrict vReset = range.at(m_vResetN);
    const float* __restrict refracSteps = range.at(m_refracStepsN);
    const std::array<const float*, 4> state{m_v.data(), m_iExc.data(), m_iInh.data(), m_r.data()};
    if (range.empty()) {
        return;
    }

    for (std::int64_t t = 0; t < steps; ++t) {
        // The input row is (2, N): the excitatory inputs, then the inhibitory ones.
        // Written only when consumingInput(): then the executor's own row.
        float* xExc = const_cast<float*>(range.step(input, t, 2));
        float* xInh = xExc + range.n;
        float* z = range.step(spikesOut, t);
        cubaStepsFor(m_uniform, consumingInput(), count, xExc, xInh, v, iExc, iInh, refrac, pMem, pExc,
                     pInh, pMemExc, pMemInh, vRest, vTh, vReset, refracSteps, z);
        range.writeTraces(traces, t, state);
    }
}

}  // namespace spike::engine
