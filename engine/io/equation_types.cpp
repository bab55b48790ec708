// The module types written as equations: one per library model (engine/neurons/models/) and
// EquationNeuron for the user's own text, with their config readers and their equations for
// users generated from the model text. See factory_detail.hpp.
#include "engine/io/factory_detail.hpp"

#include "engine/equations/compiler.hpp"
#include "engine/neurons/equation_neuron.hpp"
#include "engine/neurons/model_library.hpp"

#include <sstream>

namespace spike::engine::io_detail {

namespace {

/// The number of neurons of a {"shape": [N]} config.
std::int64_t neuronsOf(const nlohmann::json& config, const std::string& type)
{
    if (!config.contains("shape")) {
        throw Error("config 'shape': missing; expected [N], the number of neurons");
    }
    const auto& shape = config.at("shape");
    if (!shape.is_array() || shape.size() != 1) {
        throw Error("config 'shape': expected [N], the number of neurons of the " + type +
                    " population, got " + shape.dump());
    }
    return configInt({{"N", shape.front()}}, "N", 1, kMaxNeurons);
}

std::string withDoc(const std::string& line, const std::string& doc)
{
    return doc.empty() ? line : line + "  # " + doc;
}

/// Adds a symbol for every unit name `e` uses ("mV": a millivolt), once.
void collectUnits(const equations::EquationModel& m, const equations::ExprPtr& e, std::vector<EquationSymbol>& out)
{
    if (e->kind == equations::NodeKind::Name && m.kindOf(e->name) == equations::NameKind::Unit) {
        for (const auto& s : out) {
            if (s.name == e->name) {
                return;
            }
        }
        const auto q = *equations::namedUnit(e->name);
        std::ostringstream size;
        size << q.value;
        out.push_back({e->name, "the unit " + e->name + " = " + size.str() + " " + equations::dimensionName(q.dim), ""});
        return;
    }
    for (const auto& a : e->args) {
        collectUnits(m, a, out);
    }
}

}  // namespace

const std::string& defaultEquationText()
{
    static const std::string text =
        "# A leaky integrate-and-fire neuron written as equations: edit them, or start anew.\n"
        "dv/dt = (v_rest - v + I) / tau : volt (unless refractory)  # Membrane potential\n"
        "I : volt (input)  # Input drive, in volts of the membrane equation\n"
        "tau = 10*ms : second (positive)  # Membrane time constant\n"
        "v_rest = -70*mV : volt  # Resting potential\n"
        "v_th = -50*mV : volt  # Threshold\n"
        "v_reset = -70*mV : volt  # Reset potential\n"
        "v(0) = v_rest\n"
        "threshold: v > v_th\n"
        "reset: v = v_reset\n"
        "refractory: 2*ms\n";
    return text;
}

ModelEquations equationsFor(const equations::EquationModel& m)
{
    ModelEquations eqs;
    eqs.description = m.doc.empty() ? "A neuron model written as equations (Brian2's syntax)." : m.doc + ".";
    for (const auto& s : m.states) {
        if (s.input) {
            eqs.lines.push_back({EquationRole::Event, s.name + " += x_" + s.name + "  # the wires' values, at the start of the step"});
        }
    }
    for (const auto& s : m.states) {
        eqs.lines.push_back({EquationRole::Update,
                             withDoc("d" + s.name + "/dt = " + equations::toString(s.rhs),
                                     s.unlessRefractory ? "held while refractory" : "")});
    }
    for (const auto& s : m.subexpressions) {
        eqs.lines.push_back({EquationRole::Definition, s.name + " = " + equations::toString(s.expr)});
    }
    if (m.threshold) {
        eqs.lines.push_back({EquationRole::Threshold,
                             withDoc(equations::toString(m.threshold), m.refractory ? "not while refractory" : "")});
    }
    for (const auto& r : m.reset) {
        const char* op = r.op == equations::Op::Add ? " += " : r.op == equations::Op::Sub ? " -= "
                         : r.op == equations::Op::Mul ? " *= " : r.op == equations::Op::Div ? " /= " : " = ";
        eqs.lines.push_back({EquationRole::Reset, r.target + op + equations::toString(r.expr)});
    }
    if (m.refractory && m.refractoryIsTime) {
        const std::string period = equations::toString(m.refractory);
        const bool single = m.refractory->kind == equations::NodeKind::Name;
        eqs.lines.push_back({EquationRole::Reset, "refrac = " + (single ? period : "(" + period + ")") +
                                                      " / dt  # steps the neuron stays refractory after a spike"});
    } else if (m.refractory) {
        eqs.lines.push_back({EquationRole::Update, "not_refractory = not_refractory or not (" +
                                                       equations::toString(m.refractory) +
                                                       ")  # at the start of the step; a spike sets it to 0"});
    }
    for (const auto& s : m.subexpressions) {
        eqs.symbols.push_back({s.name, s.doc.empty() ? "computed: " + s.name + " = " + equations::toString(s.expr) : s.doc,
                               equations::unitText(s.dim)});
    }
    for (const auto& s : m.states) {
        collectUnits(m, s.rhs, eqs.symbols);
    }
    for (const auto& s : m.subexpressions) {
        collectUnits(m, s.expr, eqs.symbols);
    }
    for (const auto& e : {m.threshold, m.refractory}) {
        if (e) {
            collectUnits(m, e, eqs.symbols);
        }
    }
    for (const auto& r : m.reset) {
        collectUnits(m, r.expr, eqs.symbols);
    }
    for (const auto& input : m.inputs) {
        if (m.state(input) != nullptr) {
            eqs.symbols.push_back({"x_" + input, "Input of the step on the " + input + " port", equations::unitText(m.state(input)->dim)});
        } else {
            eqs.symbols.push_back({input, "Input of the step on the " + input + " port (the wires' sum)",
                                   equations::unitText(m.parameter(input)->dim)});
        }
    }
    return eqs;
}

std::vector<ModuleTypeInfo> equationTypes()
{
    std::vector<ModuleTypeInfo> out;
    for (const LibraryModel& lib : libraryModels()) {
        const std::string type = lib.model.name;
        ModuleTypeInfo info;
        info.type = type;
        info.category = "neurons";
        info.doc = lib.model.doc;
        info.exampleConfig = {{"shape", {1}}};
        info.create = [type](const nlohmann::json& config) -> std::unique_ptr<Module> {
            requireObject(config);
            rejectUnknownKeys(config, {"shape"});
            const std::int64_t n = neuronsOf(config, type);
            return buildUnlessChecking<EquationNeuron>(type, findLibraryModel(type)->model.text, n);
        };
        info.header = "neurons/equation_neuron.hpp";
        info.equations = equationsFor(lib.model);
        out.push_back(std::move(info));
    }
    ModuleTypeInfo custom;
    custom.type = EquationNeuron::kCustomType;
    custom.category = "neurons";
    custom.doc = "Your own neuron model, written as equations in Brian2's syntax";
    custom.exampleConfig = {{"shape", {1}}, {"equations", defaultEquationText()}};
    custom.create = [](const nlohmann::json& config) -> std::unique_ptr<Module> {
        requireObject(config);
        rejectUnknownKeys(config, {"shape", "equations"});
        const std::int64_t n = neuronsOf(config, EquationNeuron::kCustomType);
        if (!config.contains("equations") || !config.at("equations").is_string()) {
            throw Error("config 'equations': expected the model's equations as a string");
        }
        const std::string text = config.at("equations").get<std::string>();
        try {
            equations::compileModel(equations::parseModel(text), 1e-3);  // checked even when only checking
        } catch (const Error& e) {
            throw Error(std::string("config 'equations': ") + e.what());
        }
        return buildUnlessChecking<EquationNeuron>(EquationNeuron::kCustomType, text, n);
    };
    custom.header = "neurons/equation_neuron.hpp";
    custom.equations = equationsFor(equations::parseModel(defaultEquationText()));
    out.push_back(std::move(custom));
    return out;
}

}  // namespace spike::engine::io_detail
