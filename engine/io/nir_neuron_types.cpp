// The neuron types NIR defines (engine/neurons/nir_leaky.hpp, nir_integrating.hpp): their rows of
// the type table, config readers and equations for users. module_factory.cpp inserts the rows
// after CUBALIF. See factory_detail.hpp.
#include "engine/io/factory_detail.hpp"

#include "engine/neurons/nir_integrating.hpp"
#include "engine/neurons/nir_leaky.hpp"

namespace spike::engine::io_detail {

namespace {

/// Reader of a {"shape": [N]} config for NIR neuron type T.
template <typename T>
std::unique_ptr<Module> createNirNeuron(const nlohmann::json& config)
{
    requireObject(config);
    rejectUnknownKeys(config, {"shape"});
    if (!config.contains("shape")) {
        throw Error("config 'shape': missing; expected [N], the number of neurons");
    }
    const auto& shape = config.at("shape");
    if (!shape.is_array() || shape.size() != 1) {
        throw Error("config 'shape': expected [N], the number of neurons (one input channel "
                    "each), got " + shape.dump());
    }
    return buildUnlessChecking<T>(configInt({{"N", shape.front()}}, "N", 1, kMaxNeurons));
}

constexpr auto kUpdate = EquationRole::Update;
constexpr auto kThreshold = EquationRole::Threshold;
constexpr auto kReset = EquationRole::Reset;
constexpr auto kDefinition = EquationRole::Definition;

const EquationSymbol kInput{"x", "Input of the step, one channel per neuron", ""};

/// The leaky membrane of LI and NIRLIF, in both discretisations.
std::vector<EquationLine> leakyMembrane()
{
    return {{kUpdate, "dv/dt = (v_leak - v + r * x) / tau  # the model; each step runs one of the two below"},
            {kUpdate, "v = v + dt / tau * (v_leak - v + r * x)  # discretisation euler"},
            {kUpdate, "v = v_inf + (v - v_inf) * exp(-dt / tau)  # discretisation exact"},
            {kDefinition, "v_inf = v_leak + r * x  # where v settles under a constant x"}};
}

const EquationSymbol kVInf{"v_inf", "Where v settles under the step's input", ""};

ModelEquations liEquations()
{
    return {"NIR's leaky integrator, which does not spike: v relaxes towards v_leak + r x with time "
            "constant tau, and the output is v. Each time step is one forward-Euler step of dt "
            "(discretisation euler, NIR's reference) or the exact solution with x held over the step "
            "(exact). v starts at 0.",
            leakyMembrane(), {kInput, kVInf}};
}

ModelEquations nirLifEquations()
{
    std::vector<EquationLine> lines = leakyMembrane();
    lines.push_back({kThreshold, "v > v_threshold"});
    lines.push_back({kReset, "v = v_reset"});
    return {"NIR's leaky integrate-and-fire neuron: v relaxes towards v_leak + r x with time "
            "constant tau; a neuron spikes when v exceeds v_threshold and is set to v_reset. Each "
            "time step is one forward-Euler step of dt (discretisation euler, NIR's reference) or "
            "the exact solution with x held over the step (exact). v starts at 0.",
            lines, {kInput, kVInf}};
}

/// The synaptic current and membrane of NIRCubaLI and NIRCubaLIF, in both discretisations.
std::vector<EquationLine> cubaCurrentAndMembrane()
{
    return {{kUpdate, "di_syn/dt = (w_in * x - i_syn) / tau_syn  # the model; each step runs one "
                      "of the two forms below"},
            {kUpdate, "dv/dt = (v_leak - v + r * i_syn) / tau_mem"},
            {kUpdate, "i_syn = i_syn + dt / tau_syn * (w_in * x - i_syn)  # discretisation euler"},
            {kUpdate, "v = v + dt / tau_mem * (v_leak - v + r * i_syn)  # discretisation euler, "
                      "with the new i_syn"},
            {kUpdate, "v = v_inf + (v - v_inf) * exp(-dt / tau_mem) + r * c * (i_syn - w_in * x)"
                      "  # discretisation exact, with the old i_syn"},
            {kUpdate, "i_syn = w_in * x + (i_syn - w_in * x) * exp(-dt / tau_syn)  # discretisation exact"},
            {kDefinition, "v_inf = v_leak + r * w_in * x  # where v settles under a constant x"},
            {kDefinition, "c = tau_syn / (tau_syn - tau_mem) * (exp(-dt / tau_syn) - exp(-dt / tau_mem))"
                          "  # dt / tau_mem * exp(-dt / tau_mem) when tau_syn == tau_mem"}};
}

std::vector<EquationSymbol> cubaSymbols()
{
    return {kInput, kVInf, {"c", "Response of v after dt to a unit deviation of i_syn from w_in x", ""}};
}

ModelEquations nirCubaLiEquations()
{
    return {"NIR's current-based leaky integrator, which does not spike: the input drives a synaptic "
            "current i_syn decaying with tau_syn, which drives v towards v_leak with time constant "
            "tau_mem, and the output is v. Each time step is one forward-Euler step of dt "
            "(discretisation euler, NIR's reference) or the exact solution with x held over the step "
            "(exact). i_syn and v start at 0.",
            cubaCurrentAndMembrane(), cubaSymbols()};
}

ModelEquations nirCubaLifEquations()
{
    std::vector<EquationLine> lines = cubaCurrentAndMembrane();
    lines.push_back({kThreshold, "v > v_threshold"});
    lines.push_back({kReset, "v = v_reset"});
    return {"NIR's current-based leaky integrate-and-fire neuron: the input drives a synaptic current "
            "i_syn decaying with tau_syn, which drives v towards v_leak with time constant tau_mem; "
            "a neuron spikes when v exceeds v_threshold and is set to v_reset. Each time step is "
            "one forward-Euler step of dt (discretisation euler, NIR's reference) or the exact "
            "solution with x held over the step (exact). i_syn and v start at 0.",
            lines, cubaSymbols()};
}

ModelEquations integratorEquations()
{
    return {"NIR's integrator, which does not spike: v sums the input times r over time, and the "
            "output is v. One step of dt per time step (exact for x held over the step). v starts "
            "at 0.",
            {{kUpdate, "dv/dt = r * x"},
             {kUpdate, "v = v + dt * r * x  # one step"}},
            {kInput}};
}

ModelEquations ifEquations()
{
    return {"NIR's integrate-and-fire neuron: v sums the input times r over time; a neuron spikes "
            "when v exceeds v_threshold and is set to v_reset. One step of dt per time step (exact "
            "for x held over the step). v starts at 0.",
            {{kUpdate, "dv/dt = r * x"},
             {kUpdate, "v = v + dt * r * x  # one step"},
             {kThreshold, "v > v_threshold"},
             {kReset, "v = v_reset"}},
            {kInput}};
}

}  // namespace

std::vector<ModuleTypeInfo> nirNeuronTypes()
{
    const nlohmann::json one = {{"shape", {1}}};
    return {
        {"LI", "neurons", "NIR's leaky integrator, non-spiking: the output is the membrane v",
         false, one, createNirNeuron<LI>, "neurons/nir_leaky.hpp", liEquations()},
        {"Integrator", "neurons", "NIR's integrator, non-spiking: the output is v, the integral of r x",
         false, one, createNirNeuron<Integrator>, "neurons/nir_integrating.hpp",
         integratorEquations()},
        {"IF", "neurons", "NIR's integrate-and-fire neurons (no leak), reset to v_reset", false, one,
         createNirNeuron<IF>, "neurons/nir_integrating.hpp", ifEquations()},
        {"NIRLIF", "neurons", "NIR's leaky integrate-and-fire neurons, reset to v_reset", false, one,
         createNirNeuron<NIRLIF>, "neurons/nir_leaky.hpp", nirLifEquations()},
        {"NIRCubaLIF", "neurons",
         "NIR's current-based leaky integrate-and-fire neurons: an exponential synaptic current "
         "drives the membrane",
         false, one, createNirNeuron<NIRCubaLIF>, "neurons/nir_leaky.hpp", nirCubaLifEquations()},
        {"NIRCubaLI", "neurons",
         "NIR's current-based leaky integrator, non-spiking: an exponential synaptic current drives "
         "the membrane, and the output is v",
         false, one, createNirNeuron<NIRCubaLI>, "neurons/nir_leaky.hpp", nirCubaLiEquations()},
    };
}

}  // namespace spike::engine::io_detail
