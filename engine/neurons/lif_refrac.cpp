// LIFRefrac population: registration, the two parametrisations and the CPU time loop. See
// lif_refrac.hpp for the equations. The per-neuron loop is compiled with -O3 -fno-trapping-math
// -ffp-contract=off so GCC vectorises its selects while keeping Norse's exact float32 rounding.
#include "engine/neurons/lif_refrac.hpp"

#include "engine/neurons/neuron_range.hpp"

#include "kernels/lif_math.hpp"

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <optional>

namespace spike::engine {

namespace {

// Norse's LIFParameters / LIFRefracParameters defaults.
constexpr float kDefaultTauSynInv = 200.0F;  // [1/s] (tau_syn = 5 ms)
constexpr float kDefaultTauMemInv = 100.0F;  // [1/s] (tau_mem = 10 ms)
constexpr float kDefaultRhoReset = 5.0F;     // [steps]
constexpr float kDefaultAlpha = 100.0F;
/// Largest refractory period [steps]: every whole number up to it is exact in float32.
constexpr double kMaxRhoReset = 16777216.0;

/// One step of n neurons. `Uniform`: every neuron shares the parameters (element 0 of each
/// array), which keeps the working set to the state alone.
template <bool Uniform>
void refracStep(std::int64_t n, const float* __restrict x, float* __restrict v,
                float* __restrict cur, float* __restrict rho, const float* __restrict dtMem,
                const float* __restrict dtSyn, const float* __restrict vLeak,
                const float* __restrict vTh, const float* __restrict vReset,
                const float* __restrict rhoReset, float* __restrict spikesOut)
{
    for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t p = Uniform ? 0 : i;
        const float vPrev = v[i];
        const float r = rho[i];
        const float iJump = spike::kernels::lifRefracJump(cur[i], x[i]);
        const float vDec = spike::kernels::lifRefracMembrane(vPrev, dtMem[p], vLeak[p], iJump);
        cur[i] = spike::kernels::lifRefracCurrent(iJump, dtSyn[p]);
        const float z = spike::kernels::lifRefracSpike(vDec, vTh[p], r);
        v[i] = spike::kernels::lifRefracVoltage(vPrev, vDec, vTh[p], vReset[p], r);
        rho[i] = spike::kernels::lifRefracCounter(r, z, rhoReset[p]);
        spikesOut[i] = z;
    }
}

}  // namespace

const std::vector<std::string>& LIFRefrac::parametrisations()
{
    static const std::vector<std::string> modes{"rates", "times"};
    return modes;
}

const std::vector<std::string>& LIFRefrac::surrogateMethods()
{
    static const std::vector<std::string> methods{"super",  "heaviside", "triangle", "tanh",
                                                  "tent",   "circ",      "logistic",
                                                  "heaviside_erfc"};
    return methods;
}

LIFRefrac::LIFRefrac(std::int64_t n, const AttributeMap& initial)
    : NeuronLayer({n}, false, true)
{
    if (n <= 0) {
        throw Error("LIFRefrac: size N = " + std::to_string(n) +
                    " is invalid; expected at least one neuron");
    }
    registerAttributes();
    finishRegistration(initial);
}

void LIFRefrac::registerAttributes()
{
    const std::int64_t n = sizeOut();
    const std::vector<Shape> perNeuron = perNeuronShapes();
    const auto rates = [](const char* what) {
        return std::string(what) + " (settable in parametrisation 'rates')";
    };
    const auto times = [](const char* what) {
        return std::string(what) + " (settable in parametrisation 'times')";
    };

    m_tauSynInv = addAttribute(parameter("tau_syn_inv").family("rates").shapes(perNeuron)
                                   .units("1/s").positive().initConstant(kDefaultTauSynInv)
                                   .doc(rates("Inverse synaptic time constant")));
    m_tauMemInv = addAttribute(parameter("tau_mem_inv").family("rates").shapes(perNeuron)
                                   .units("1/s").positive().initConstant(kDefaultTauMemInv)
                                   .doc(rates("Inverse membrane time constant")));
    m_tauSyn = addAttribute(parameter("tau_syn").family("taus").shapes(perNeuron).units("s")
                                .positive().initConstant(1.0F / kDefaultTauSynInv)
                                .doc(times("Synaptic time constant")));
    m_tauMem = addAttribute(parameter("tau_mem").family("taus").shapes(perNeuron).units("s")
                                .positive().initConstant(1.0F / kDefaultTauMemInv)
                                .doc(times("Membrane time constant")));
    m_vLeak = addAttribute(parameter("v_leak").family("potentials").shapes(perNeuron).units("V")
                               .initConstant(0.0F)
                               .doc("Leak (resting) potential; the membrane starts here"));
    m_vTh = addAttribute(parameter("v_th").family("thresholds").role(Role::Threshold).shapes(perNeuron).units("V")
                             .initConstant(1.0F)
                             .doc("Firing threshold: a spike when v_dec - v_th > 0"));
    m_vReset = addAttribute(parameter("v_reset").family("potentials").shapes(perNeuron)
                                .units("V").initConstant(0.0F)
                                .doc("Potential the membrane is reset to after a spike"));
    m_rhoReset = addAttribute(parameter("rho_reset").family("refractory").shapes(perNeuron)
                                  .units("steps").integer().range(0.0, kMaxRhoReset)
                                  .initConstant(kDefaultRhoReset)
                                  .doc(rates("Refractory period in time steps")));
    m_refractoryTime = addAttribute(
        parameter("refractory_time").family("refractory").shapes(perNeuron).units("s")
            .nonNegative().initConstant(kDefaultRhoReset * kDefaultTimeStep)
            .doc(times("Refractory period; a whole number of time steps dt")));
    m_dt = addAttribute(timeStepAttribute());
    m_surrogate = addAttribute(simulationParameter("surrogate").choices(surrogateMethods())
                                   .initEnum("super")
                                   .doc("Surrogate-gradient method used by trainers (kept for "
                                        "files)"));
    m_alpha = addAttribute(simulationParameter("alpha").positive().initConstant(kDefaultAlpha)
                               .doc("Sharpness of the surrogate gradient (kept for files)"));
    m_parametrisation = addAttribute(
        simulationParameter("parametrisation").choices(parametrisations()).initEnum("rates")
            .doc("Which set is settable: rates (tau_*_inv, rho_reset) or times (tau_*, "
                 "refractory_time)"));
    m_vState = addAttribute(stateVariable("v").family("membrane").role(Role::Membrane).shapes({Shape{n}}).units("V")
                                .init([](const Module& m) -> AttributeValue {
                                    const auto& self = static_cast<const LIFRefrac&>(m);
                                    Eigen::ArrayXf leak;
                                    expandTo(self.value(self.m_vLeak), self.sizeOut(), 1, leak);
                                    return Tensor(Shape{self.sizeOut()},
                                                  std::vector<float>(leak.begin(), leak.end()));
                                })
                                .doc("Membrane potential (starts at v_leak)"));
    m_iState = addAttribute(stateVariable("i").family("synapses").shapes({Shape{n}}).units("V")
                                .initConstant(0.0F)
                                .doc("Synaptic current, in membrane-potential units"));
    m_rho = addAttribute(stateVariable("rho").family("refractory").shapes({Shape{n}})
                             .units("steps").integer().range(0.0, kMaxRhoReset).initConstant(0.0F)
                             .doc("Refractory steps remaining (refractory while > 0)"));
    m_spikes = addAttribute(stateVariable("spikes").family("spikes").shapes({Shape{n}})
                                .initConstant(0.0F).doc("Spikes emitted in the last step"));
}

nlohmann::json LIFRefrac::config() const
{
    return {{"shape", {sizeOut()}}};
}

std::string LIFRefrac::extraRepr() const
{
    return "shape=(" + std::to_string(sizeOut()) +
           ",), parametrisation=" + enumValue(m_parametrisation);
}

const std::string& LIFRefrac::nameOf(AttributeId id) const
{
    return attributes()[static_cast<std::size_t>(id.index)].spec->name;
}

bool LIFRefrac::isOneOf(const AttributeSpec& spec, std::initializer_list<AttributeId> ids) const
{
    return std::any_of(ids.begin(), ids.end(),
                       [&](AttributeId id) { return nameOf(id) == spec.name; });
}

bool LIFRefrac::derivedUnder(const AttributeSpec& spec, const Lookup& proposed) const
{
    const auto& mode = std::get<std::string>(proposed(nameOf(m_parametrisation)));
    if (isOneOf(spec, {m_tauSynInv, m_tauMemInv, m_rhoReset})) {
        return mode != "rates";
    }
    if (isOneOf(spec, {m_tauSyn, m_tauMem, m_refractoryTime})) {
        return mode != "times";
    }
    return false;
}

Status LIFRefrac::derive(const Lookup& proposed, DerivedValues& out) const
{
    const auto get = [&](AttributeId id) -> const Tensor& {
        return std::get<Tensor>(proposed(nameOf(id)));
    };
    const auto& mode = std::get<std::string>(proposed(nameOf(m_parametrisation)));
    const float dt = get(m_dt)[0];
    const auto reciprocal = [](float x) { return 1.0F / x; };
    out.clear();
    if (mode == "rates") {
        out.emplace_back(m_tauSyn, mapped(get(m_tauSynInv), reciprocal));
        out.emplace_back(m_tauMem, mapped(get(m_tauMemInv), reciprocal));
        out.emplace_back(m_refractoryTime,
                         mapped(get(m_rhoReset), [dt](float steps) { return steps * dt; }));
    } else {
        const Tensor& time = get(m_refractoryTime);
        Tensor steps(time.shape());
        for (std::int64_t k = 0; k < time.numel(); ++k) {
            const std::optional<float> whole = wholeSteps(time[k], dt);
            if (!whole) {
                return Status::failure(
                    where() + ": attribute 'refractory_time': " + number(time[k]) + " [s]" +
                    (time.numel() > 1 ? " at flat index " + std::to_string(k) : "") +
                    " is not a whole number of time steps dt = " + number(dt) + " [s] (ratio " +
                    number(static_cast<double>(time[k]) / dt) +
                    "); rho_reset counts steps, so refractory_time must be a multiple of dt");
            }
            steps[k] = *whole;
        }
        out.emplace_back(m_tauSynInv, mapped(get(m_tauSyn), reciprocal));
        out.emplace_back(m_tauMemInv, mapped(get(m_tauMem), reciprocal));
        out.emplace_back(m_rhoReset, std::move(steps));
    }
    for (const auto& [id, value] : out) {
        const AttributeSpec& derivedSpec = *attributes()[static_cast<std::size_t>(id.index)].spec;
        if (Status s = derivedSpec.validate(value, where()); !s.ok) {
            return Status::failure(s.message + " (derived in parametrisation '" + mode + "')");
        }
    }
    return Status::success();
}

Status LIFRefrac::validateChange(const Lookup& proposed) const
{
    DerivedValues unused;
    return derive(proposed, unused);
}

void LIFRefrac::attributesChanged()
{
    const Lookup current = [this](const std::string& n) -> const AttributeValue& {
        return attribute(n);
    };
    DerivedValues derived;
    if (Status s = derive(current, derived); !s.ok) {
        throw Error(s.message);  // unreachable: every committed change passed validateChange
    }
    for (auto& [id, value] : derived) {
        setDerived(id, std::move(value));
    }

    const std::int64_t n = sizeOut();
    const float dt = value(m_dt)[0];
    expandTo(value(m_tauMemInv), n, 1, m_dtTauMemInvN);
    expandTo(value(m_tauSynInv), n, 1, m_dtTauSynInvN);
    m_dtTauMemInvN = dt * m_dtTauMemInvN;
    m_dtTauSynInvN = dt * m_dtTauSynInvN;
    expandTo(value(m_vLeak), n, 1, m_vLeakN);
    expandTo(value(m_vTh), n, 1, m_vThN);
    expandTo(value(m_vReset), n, 1, m_vResetN);
    expandTo(value(m_rhoReset), n, 1, m_rhoResetN);
    m_uniform = allEqual(m_dtTauMemInvN) && allEqual(m_dtTauSynInvN) && allEqual(m_vLeakN) &&
                allEqual(m_vThN) && allEqual(m_vResetN) && allEqual(m_rhoResetN);

    // Until the population first evolves, a membrane still at its resting value follows v_leak
    // (Norse builds the state from the parameters at the first step), so setting v_leak in a
    // model file or the inspector moves the starting potential too; a v set by hand stays.
    Tensor rest(Shape{n}, std::vector<float>(m_vLeakN.begin(), m_vLeakN.end()));
    if (stepsElapsed() == 0 && value(m_vState).identical(m_restV)) {
        stateRef(m_vState) = rest;
    }
    m_restV = std::move(rest);
}

std::vector<NeuronLayer::CarriedState> LIFRefrac::carriedStates()
{
    return {{m_vState, &m_v}, {m_iState, &m_i}, {m_rho, &m_r}, {m_spikes, &m_s}};
}

std::vector<NeuronLayer::Trace> LIFRefrac::traces() const
{
    const Shape perNeuron{sizeOut()};
    return {{"v", perNeuron, "V"}, {"i", perNeuron, "V"}, {"rho", perNeuron, "steps"}};
}

void LIFRefrac::runBatch(const float* input, std::int64_t steps, float* spikesOut,
                         const TraceTargets& traces)
{
    runRange(input, steps, spikesOut, traces, 0, sizeOut());
}

bool LIFRefrac::runsInRanges() const
{
    return true;
}

void LIFRefrac::runRange(const float* input, std::int64_t steps, float* spikesOut,
                         const TraceTargets& traces, std::int64_t begin, std::int64_t end)
{
    const neurons_detail::NeuronRange range{sizeOut(), begin, end};
    const std::int64_t count = range.count();
    float* __restrict v = range.at(m_v);
    float* __restrict cur = range.at(m_i);
    float* __restrict rho = range.at(m_r);
    const float* __restrict dtMem = range.at(m_dtTauMemInvN);
    const float* __restrict dtSyn = range.at(m_dtTauSynInvN);
    const float* __restrict vLeak = range.at(m_vLeakN);
    const float* __restrict vTh = range.at(m_vThN);
    const float* __restrict vReset = range.at(m_vResetN);
    const float* __restrict rhoReset = range.at(m_rhoResetN);
    if (range.empty()) {
        return;
    }

    for (std::int64_t t = 0; t < steps; ++t) {
        const float* __restrict x = range.step(input, t);
        float* __restrict z = range.step(spikesOut, t);
        if (m_uniform) {
            refracStep<true>(count, x, v, cur, rho, dtMem, dtSyn, vLeak, vTh, vReset, rhoReset, z);
        } else {
            refracStep<false>(count, x, v, cur, rho, dtMem, dtSyn, vLeak, vTh, vReset, rhoReset, z);
        }
        range.writeTraces(traces, t,
                          std::array<const float*, 3>{m_v.data(), m_i.data(), m_r.data()});
    }
    range.keepLastSpikes(spikesOut, steps, m_s);
}

}  // namespace spike::engine
