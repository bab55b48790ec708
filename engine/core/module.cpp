// Module: tree structure, hooks, train/eval, evolve() and printing. The attribute registry half
// of Module lives in module_registry.cpp.
#include "engine/core/module.hpp"

#include "engine/core/device_runner.hpp"
#include "engine/core/node_runner.hpp"
#include "engine/tensor/decimal.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <sstream>

namespace spike::engine {

struct HookTable {
    int nextId = 0;
    std::map<int, ForwardPreHook> pre;
    std::map<int, ForwardHook> post;
};

void HookHandle::remove()
{
    if (auto table = m_table.lock()) {
        table->pre.erase(m_id);
        table->post.erase(m_id);
    }
    m_table.reset();
}

bool HookHandle::active() const
{
    const auto table = m_table.lock();
    return table && (table->pre.count(m_id) > 0 || table->post.count(m_id) > 0);
}

Recorder::Recorder(const RecordSpec& spec, Recording& out, std::string path)
    : m_spec(&spec), m_out(&out), m_path(std::move(path))
{
}

Recorder Recorder::child(const std::string& name) const
{
    Recorder r(*m_spec, *m_out, m_path.empty() ? name : m_path + "." + name);
    r.m_dt = m_dt;
    r.m_tStart = m_tStart;
    return r;
}

void Recorder::record(const std::string& attr, Tensor data, const std::string& units,
                      bool spikes) const
{
    TimeSeries ts;
    ts.data = std::move(data);
    ts.dt = m_dt;
    ts.tStart = m_tStart;
    ts.units = units;
    ts.spikes = spikes;
    (*m_out)[m_path][attr] = std::move(ts);
}

Module::Module(std::vector<std::int64_t> shape, bool spikingInput, bool spikingOutput)
    : m_shape(std::move(shape)),
      m_spikingInput(spikingInput),
      m_spikingOutput(spikingOutput),
      m_hooks(std::make_shared<HookTable>())
{
    if (m_shape.empty() || m_shape.size() > 2) {
        throw Error("a module shape is (N,) or (Nin, Nout)");
    }
    for (const auto d : m_shape) {
        if (d < 0) {
            throw Error("module sizes must be >= 0, got " + std::to_string(d));
        }
    }
}

Module::~Module() = default;

void Module::setShape(std::vector<std::int64_t> shape, bool spikingInput, bool spikingOutput)
{
    m_shape = std::move(shape);
    m_spikingInput = spikingInput;
    m_spikingOutput = spikingOutput;
}

nlohmann::json Module::config() const
{
    return nlohmann::json::object();
}

std::string Module::extraRepr() const
{
    return {};
}

std::string Module::fullName() const
{
    if (m_parent == nullptr) {
        return {};
    }
    const std::string up = m_parent->fullName();
    return up.empty() ? m_name : up + "." + m_name;
}

std::vector<PortSpec> Module::inputPorts() const
{
    if (sizeIn() == 0) {
        return {};
    }
    return {PortSpec{"in", 0, sizeIn(), spikingInput()}};
}

std::vector<PortSpec> Module::outputPorts() const
{
    if (sizeOut() == 0) {
        return {};
    }
    return {PortSpec{"out", 0, sizeOut(), spikingOutput()}};
}

std::unique_ptr<NodeRunner> Module::makeRunner()
{
    return std::make_unique<GenericRunner>(*this);
}

std::unique_ptr<DeviceNeuron> Module::makeDeviceNeuron()
{
    return nullptr;
}

void Module::advanceSteps(std::int64_t steps)
{
    apply([steps](Module& m) { m.m_steps += steps; });
}

std::string Module::where() const
{
    const std::string path = fullName();
    return className() + (path.empty() ? std::string(" (root)") : " '" + path + "'");
}

Module& Module::addModule(const std::string& name, std::unique_ptr<Module> child)
{
    return insertModule(m_children.size(), name, std::move(child));
}

Module& Module::insertModule(std::size_t index, const std::string& name,
                             std::unique_ptr<Module> child)
{
    if (index > m_children.size()) {
        throw Error(where() + ": cannot insert child '" + name + "' at position " +
                    std::to_string(index) + " (it has " + std::to_string(m_children.size()) +
                    " children)");
    }
    if (!child) {
        throw Error(where() + ": cannot add an empty child module");
    }
    if (name.empty() || name.find('.') != std::string::npos) {
        throw Error(where() + ": child name '" + name + "' must be non-empty and contain no '.'");
    }
    if (m_childByName.contains(name)) {
        throw Error(where() + ": a child named '" + name + "' already exists");
    }
    m_childByName.emplace(name, child.get());
    child->m_name = name;
    child->m_parent = this;
    const auto it = m_children.emplace(m_children.begin() + static_cast<std::ptrdiff_t>(index),
                                       name, std::move(child));
    return *it->second;
}

std::size_t Module::childIndex(const std::string& name) const
{
    for (std::size_t i = 0; i < m_children.size(); ++i) {
        if (m_children[i].first == name) {
            return i;
        }
    }
    throw Error(where() + ": has no child named '" + name + "'");
}

Module* Module::findChild(const std::string& name) const
{
    const auto it = m_childByName.find(name);
    return it == m_childByName.end() ? nullptr : it->second;
}

void Module::renameChild(const std::string& from, const std::string& to)
{
    const std::size_t index = childIndex(from);
    if (to == from) {
        return;
    }
    if (to.empty() || to.find('.') != std::string::npos) {
        throw Error(where() + ": child name '" + to + "' must be non-empty and contain no '.'");
    }
    if (m_childByName.contains(to)) {
        throw Error(where() + ": cannot rename '" + from + "' to '" + to +
                    "': a child named '" + to + "' already exists");
    }
    m_childByName.erase(from);
    m_childByName.emplace(to, m_children[index].second.get());
    m_children[index].first = to;
    m_children[index].second->m_name = to;
}

std::unique_ptr<Module> Module::removeModule(const std::string& name)
{
    for (auto it = m_children.begin(); it != m_children.end(); ++it) {
        if (it->first == name) {
            m_childByName.erase(name);  // first: `name` may be it->first itself
            std::unique_ptr<Module> out = std::move(it->second);
            m_children.erase(it);
            out->m_parent = nullptr;
            out->m_name.clear();
            return out;
        }
    }
    throw Error(where() + ": has no child named '" + name + "'");
}

Module& Module::childAt(std::size_t index) const
{
    if (index >= m_children.size()) {
        throw Error(where() + ": has no child at position " + std::to_string(index) + " (it has " +
                    std::to_string(m_children.size()) + " children)");
    }
    return *m_children[index].second;
}

std::vector<std::pair<std::string, Module*>> Module::namedChildren() const
{
    std::vector<std::pair<std::string, Module*>> out;
    out.reserve(m_children.size());
    for (const auto& [n, c] : m_children) {
        out.emplace_back(n, c.get());
    }
    return out;
}

std::vector<std::pair<std::string, Module*>> Module::namedModules() const
{
    std::vector<std::pair<std::string, Module*>> out;
    std::function<void(const Module&, const std::string&)> walk = [&](const Module& m,
                                                                       const std::string& p) {
        out.emplace_back(p, const_cast<Module*>(&m));
        for (const auto& [n, c] : m.m_children) {
            walk(*c, p.empty() ? n : p + "." + n);
        }
    };
    walk(*this, "");
    return out;
}

Module& Module::getSubmodule(const std::string& path) const
{
    const Module* current = this;
    std::string walked;
    std::size_t start = 0;
    while (!path.empty() && start <= path.size()) {
        const std::size_t dot = path.find('.', start);
        const std::string step =
            path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        const Module* next = current->findChild(step);
        if (next == nullptr) {
            std::string names;
            for (const auto& [n, c] : current->m_children) {
                names += (names.empty() ? "" : ", ") + n;
            }
            throw Error("getSubmodule('" + path + "'): " +
                        (walked.empty() ? std::string("the root") : "'" + walked + "'") + " (" +
                        current->className() + ") has no child '" + step + "'" +
                        (names.empty() ? std::string(" (it has no children)")
                                       : " (children: " + names + ")"));
        }
        walked = walked.empty() ? step : walked + "." + step;
        current = next;
        if (dot == std::string::npos) {
            break;
        }
        start = dot + 1;
    }
    return const_cast<Module&>(*current);
}

void Module::apply(const std::function<void(Module&)>& fn)
{
    for (auto& [n, c] : m_children) {
        c->apply(fn);
    }
    fn(*this);
}

void Module::toStringInto(std::string& out, int indent) const
{
    out += className() + "(" + extraRepr();
    if (m_children.empty()) {
        out += ")";
        return;
    }
    out += "\n";
    const std::string pad(static_cast<std::size_t>(indent + 2), ' ');
    for (const auto& [n, c] : m_children) {
        out += pad + "(" + n + "): ";
        c->toStringInto(out, indent + 2);
        out += "\n";
    }
    out += std::string(static_cast<std::size_t>(indent), ' ') + ")";
}

std::string Module::toString() const
{
    std::string out;
    toStringInto(out, 0);
    return out;
}

HookHandle Module::registerForwardPreHook(ForwardPreHook hook)
{
    const int id = m_hooks->nextId++;
    m_hooks->pre.emplace(id, std::move(hook));
    return {m_hooks, id};
}

HookHandle Module::registerForwardHook(ForwardHook hook)
{
    const int id = m_hooks->nextId++;
    m_hooks->post.emplace(id, std::move(hook));
    return {m_hooks, id};
}

void Module::train(bool mode)
{
    apply([mode](Module& m) { m.m_training = mode; });
}

void Module::setStepsElapsed(std::int64_t steps)
{
    if (steps < 0) {
        throw Error(where() + ": elapsed steps must be >= 0, got " + std::to_string(steps));
    }
    apply([steps](Module& m) { m.m_steps = steps; });
}

std::string Module::stateOrigin(const std::string& /*state*/) const
{
    return {};
}

std::vector<std::string> Module::recordableSignals() const
{
    return {};
}

std::vector<ModuleStatistic> Module::statistics() const
{
    return {};
}

std::vector<FlowStep> Module::dataFlow() const
{
    return {};
}

std::vector<FlowStep> Module::chainFlow() const
{
    std::vector<FlowStep> flow;
    const auto children = namedChildren();
    for (std::size_t i = 1; i < children.size(); ++i) {
        flow.push_back({children[i - 1].first, children[i].first});
    }
    return flow;
}

double Module::timeStep() const
{
    const int dtSlot = findSlot("dt");
    if (dtSlot >= 0) {
        if (const auto* t = std::get_if<Tensor>(&m_slots[static_cast<std::size_t>(dtSlot)].value)) {
            return shortestDecimal((*t)[0]);  // 1 ms, not 1.0000000474974513 ms
        }
    }
    for (const auto& [n, c] : m_children) {
        if (c->findSlot("dt") >= 0) {
            return c->timeStep();
        }
    }
    for (const auto& [n, c] : m_children) {
        const double d = c->timeStep();
        if (d != 1.0) {
            return d;
        }
    }
    return 1.0;
}

std::string Module::timeStepConflict() const
{
    std::map<float, std::vector<std::string>> byStep;  // dt -> modules, in tree order
    for (const auto& [path, module] : namedModules()) {
        const int slot = module->findSlot("dt");
        if (slot < 0) {
            continue;
        }
        if (const auto* t = std::get_if<Tensor>(&module->m_slots[static_cast<std::size_t>(slot)].value);
            t != nullptr && t->numel() == 1) {
            byStep[(*t)[0]].push_back(path.empty() ? std::string("(root)") : path);
        }
    }
    if (byStep.size() < 2) {
        return {};
    }
    std::string text = "the model mixes time steps:";
    const char* separator = " ";
    for (const auto& [dt, paths] : byStep) {
        std::ostringstream ms;
        ms << shortestDecimal(dt) * 1e3;
        text += separator + ms.str() + " ms (";
        for (std::size_t k = 0; k < paths.size() && k < 3; ++k) {
            text += (k > 0 ? ", " : "") + paths[k];
        }
        if (paths.size() > 3) {
            text += " and " + std::to_string(paths.size() - 3) + " more";
        }
        text += ")";
        separator = ", ";
    }
    return text;
}

Tensor Module::runWithHooks(const TensorView& input,
                            const std::function<Tensor(const TensorView&)>& body)
{
    // Copies keep hooks safe against removal from inside a hook.
    const auto preHooks = m_hooks->pre;
    const auto postHooks = m_hooks->post;
    if (preHooks.empty() && postHooks.empty()) {
        return body(input);
    }
    Tensor in = input.copy();
    for (const auto& [id, hook] : preHooks) {
        if (auto r = hook(*this, in)) {
            if (r->shape() != input.shape()) {
                throw Error(where() + ": a forward pre-hook returned shape " +
                            r->shape().toString() + ", expected " + input.shape().toString());
            }
            in = std::move(*r);
        }
    }
    Tensor output = body(in.view());
    for (const auto& [id, hook] : postHooks) {
        if (auto r = hook(*this, in, output)) {
            output = std::move(*r);
        }
    }
    return output;
}

Tensor Module::forwardBatched(const TensorView& input, const Recorder& recorder)
{
    if (input.rank() != 3 || input.dim(2) != sizeIn()) {
        throw Error(where() + ": expected input of shape (B, T, " + std::to_string(sizeIn()) +
                    "), got " + input.shape().toString());
    }
    Recorder local = recorder;
    const double dt = timeStep();
    local.setTimeBase(dt, static_cast<double>(m_steps) * dt);
    Tensor output = runWithHooks(input, [&](const TensorView& in) { return evolveImpl(in, local); });
    m_steps += input.dim(1);
    return output;
}

Tensor Module::forward(const Tensor& input)
{
    return evolve(input).output;
}

namespace {

/// Index of the first NaN or Inf in data, or -1. The common all-finite case is one vectorised
/// pass over the exponent bits.
std::int64_t firstNonFinite(const float* data, std::int64_t n)
{
    constexpr std::uint32_t kExponent = 0x7F800000U;
    std::uint32_t flagged = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        std::uint32_t bits = 0;
        std::memcpy(&bits, data + i, sizeof bits);
        flagged |= static_cast<std::uint32_t>((bits & kExponent) == kExponent);
    }
    if (flagged == 0) {
        return -1;
    }
    for (std::int64_t i = 0; i < n; ++i) {
        if (!std::isfinite(data[i])) {
            return i;
        }
    }
    return -1;
}

}  // namespace

void Module::checkEvolvable() const {}

EvolveResult Module::evolve(const Tensor& input, const RecordSpec& record)
{
    checkEvolvable();
    if (input.rank() != 2 && input.rank() != 3) {
        throw Error(where() + ": input must be (T, " + std::to_string(sizeIn()) + ") or (B, T, " +
                    std::to_string(sizeIn()) + "), got " + input.shape().toString());
    }
    const bool batched = input.rank() == 3;
    const std::int64_t n = input.dim(input.rank() - 1);
    const std::int64_t steps = input.dim(input.rank() - 2);
    const std::int64_t batches = batched ? input.dim(0) : 1;
    if (n != sizeIn()) {
        throw Error(where() + ": input has " + std::to_string(n) + " channels, expected " +
                    std::to_string(sizeIn()) + " (input shape " + input.shape().toString() + ")");
    }
    if (steps == 0 || batches == 0) {
        throw Error(where() + ": input " + input.shape().toString() +
                    " is empty; at least one time step and one batch element are needed");
    }
    if (const std::int64_t i = firstNonFinite(input.data(), input.numel()); i >= 0) {
        const std::int64_t ch = i % n;
        const std::int64_t t = (i / n) % steps;
        throw Error(where() + ": input contains " + (std::isnan(input[i]) ? "NaN" : "Inf") +
                    " at time step " + std::to_string(t) + ", channel " + std::to_string(ch) +
                    (batched ? ", batch " + std::to_string(i / (n * steps)) : ""));
    }
    EvolveResult result;
    const Recorder recorder(record, result.record);
    result.output =
        forwardBatched(input.view().reshaped(Shape{batches, steps, n}), recorder);
    if (!batched) {
        result.output.reshape(result.output.shape().withoutFirst());
        for (auto& [path, bySignal] : result.record) {
            for (auto& [attr, series] : bySignal) {
                series.data.reshape(series.data.shape().withoutFirst());
            }
        }
    }
    result.state = state();
    return result;
}

}  // namespace spike::engine
