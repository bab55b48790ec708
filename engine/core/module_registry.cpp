// Module: the attribute registry half (registration, queries, validate-then-commit updates,
// resets, torch-style parameter and state-dict views). Tree and evolution live in module.cpp.
#include "engine/core/module.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace spike::engine {

AttributeId Module::addAttribute(AttributeSpec spec)
{
    if (findSlot(spec.name) >= 0) {
        throw Error(className() + ": attribute '" + spec.name + "' is registered twice");
    }
    if (!spec.init) {
        throw Error(className() + ": attribute '" + spec.name + "' has no init function");
    }
    const int index = static_cast<int>(m_slots.size());
    m_slotByName.emplace(spec.name, index);
    Slot slot;
    slot.spec = std::move(spec);
    m_slots.push_back(std::move(slot));
    return AttributeId{index};
}

void Module::finishRegistration(const AttributeMap& initial)
{
    for (const auto& [name, v] : initial) {
        if (findSlot(name) < 0) {
            throw Error(where() + ": unknown attribute '" + name + "'");
        }
    }
    // Caller-given values first, so init functions that read other attributes (a weight
    // initialiser reading "seed") see them; then defaults in registration order.
    for (auto& slot : m_slots) {
        const auto it = initial.find(slot.spec.name);
        slot.value = it != initial.end() ? it->second : slot.spec.init(*this);
    }
    // Initial values given by the caller go through the same staging as any change, so derived
    // attributes and bounds are enforced; on failure the module is not constructed.
    Staged staged;
    if (Status s = stage(initial, staged); !s.ok) {
        throw Error(s.message);
    }
    refreshDerivedFlags();
    for (const auto& slot : m_slots) {
        if (slot.derived) {
            continue;
        }
        if (Status s = slot.spec.validate(slot.value, where()); !s.ok) {
            throw Error(s.message);
        }
    }
    attributesChanged();
}

int Module::findSlot(const std::string& name) const
{
    const auto it = m_slotByName.find(name);
    return it == m_slotByName.end() ? -1 : it->second;
}

const Tensor& Module::value(AttributeId id) const
{
    return std::get<Tensor>(m_slots[static_cast<std::size_t>(id.index)].value);
}

Tensor& Module::stateRef(AttributeId id)
{
    return std::get<Tensor>(m_slots[static_cast<std::size_t>(id.index)].value);
}

const std::string& Module::enumValue(AttributeId id) const
{
    return std::get<std::string>(m_slots[static_cast<std::size_t>(id.index)].value);
}

void Module::setDerived(AttributeId id, Tensor v)
{
    m_slots[static_cast<std::size_t>(id.index)].value = std::move(v);
}

bool Module::derivedUnder(const AttributeSpec&, const Lookup&) const
{
    return false;
}

Status Module::validateChange(const Lookup&) const
{
    return Status::success();
}

void Module::attributesChanged() {}

void Module::onResetState() {}

void Module::refreshDerivedFlags()
{
    const Lookup current = [this](const std::string& n) -> const AttributeValue& {
        return attribute(n);
    };
    for (auto& slot : m_slots) {
        slot.derived = derivedUnder(slot.spec, current);
    }
}

std::vector<AttributeView> Module::attributes() const
{
    std::vector<AttributeView> out;
    out.reserve(m_slots.size());
    for (const auto& slot : m_slots) {
        out.push_back({&slot.spec, &slot.value, slot.derived});
    }
    return out;
}

bool Module::hasAttribute(const std::string& name) const
{
    return findSlot(name) >= 0;
}

const AttributeValue& Module::attribute(const std::string& name) const
{
    const int i = findSlot(name);
    if (i < 0) {
        std::string names;
        for (const auto& s : m_slots) {
            names += (names.empty() ? "" : ", ") + s.spec.name;
        }
        throw Error(where() + ": has no attribute '" + name + "' (attributes: " + names + ")");
    }
    return m_slots[static_cast<std::size_t>(i)].value;
}

const Tensor& Module::tensor(const std::string& name) const
{
    const auto& v = attribute(name);
    if (const auto* t = std::get_if<Tensor>(&v)) {
        return *t;
    }
    throw Error(where() + ": attribute '" + name + "' is an enumeration, not a number");
}

const AttributeSpec& Module::spec(const std::string& name) const
{
    (void)attribute(name);
    return m_slots[static_cast<std::size_t>(findSlot(name))].spec;
}

bool Module::isDerived(const std::string& name) const
{
    (void)attribute(name);
    return m_slots[static_cast<std::size_t>(findSlot(name))].derived;
}

std::optional<AttributeView> Module::attributeWithRole(Role role) const
{
    for (const Slot& slot : m_slots) {
        if (slot.spec.role == role) {
            return AttributeView{&slot.spec, &slot.value, slot.derived};
        }
    }
    return std::nullopt;
}

std::string Module::membraneSignal() const
{
    const std::optional<AttributeView> view = attributeWithRole(Role::Membrane);
    if (!view || view->spec->kind != AttributeKind::State) {
        return {};
    }
    const std::vector<std::string> offered = recordableSignals();
    const bool recordable = std::find(offered.begin(), offered.end(), view->spec->name) != offered.end();
    return recordable ? view->spec->name : std::string();
}

void Module::collect(NestedAttributes& out, const std::string& prefix,
                     const std::function<bool(const Slot&)>& pick) const
{
    AttributeMap mine;
    for (const auto& slot : m_slots) {
        if (pick(slot)) {
            mine.emplace(slot.spec.name, slot.value);
        }
    }
    if (!mine.empty()) {
        out.emplace(prefix, std::move(mine));
    }
    for (const auto& [n, c] : m_children) {
        c->collect(out, prefix.empty() ? n : prefix + "." + n, pick);
    }
}

namespace {
std::function<bool(const AttributeSpec&, bool)> kindFilter(AttributeKind kind,
                                                           const std::string& family)
{
    return [kind, family](const AttributeSpec& s, bool derived) {
        return !derived && s.kind == kind && (family.empty() || s.family == family);
    };
}
}  // namespace

NestedAttributes Module::parameters(const std::string& family) const
{
    NestedAttributes out;
    const auto f = kindFilter(AttributeKind::Parameter, family);
    collect(out, "", [&](const Slot& s) { return f(s.spec, s.derived); });
    return out;
}

NestedAttributes Module::state(const std::string& family) const
{
    NestedAttributes out;
    const auto f = kindFilter(AttributeKind::State, family);
    collect(out, "", [&](const Slot& s) { return f(s.spec, s.derived); });
    return out;
}

NestedAttributes Module::simulationParameters(const std::string& family) const
{
    NestedAttributes out;
    const auto f = kindFilter(AttributeKind::SimulationParameter, family);
    collect(out, "", [&](const Slot& s) { return f(s.spec, s.derived); });
    return out;
}

NestedAttributes Module::attributesNamed(const std::string& name) const
{
    NestedAttributes out;
    collect(out, "", [&](const Slot& s) { return s.spec.name == name; });
    return out;
}

Status Module::stage(const AttributeMap& changes, Staged& out) const
{
    out.clear();
    for (const auto& [name, v] : changes) {
        const int i = findSlot(name);
        if (i < 0) {
            std::string names;
            for (const auto& s : m_slots) {
                names += (names.empty() ? "" : ", ") + s.spec.name;
            }
            return Status::failure(where() + ": has no attribute '" + name +
                                   "' (attributes: " + names + ")");
        }
        out.emplace_back(i, v);
    }
    const Lookup proposed = [this, &out](const std::string& n) -> const AttributeValue& {
        for (const auto& [index, v] : out) {
            if (m_slots[static_cast<std::size_t>(index)].spec.name == n) {
                return v;
            }
        }
        return attribute(n);
    };
    // Enumerations first: they decide which attributes are derived.
    for (const auto& [index, v] : out) {
        const Slot& slot = m_slots[static_cast<std::size_t>(index)];
        if (slot.spec.type == ValueType::Enum) {
            if (Status s = slot.spec.validate(v, where()); !s.ok) {
                return s;
            }
        }
    }
    for (const auto& [index, v] : out) {
        const Slot& slot = m_slots[static_cast<std::size_t>(index)];
        if (derivedUnder(slot.spec, proposed)) {
            return Status::failure(where() + ": attribute '" + slot.spec.name +
                                   "' is derived from other attributes in the current mode and "
                                   "cannot be set directly");
        }
        if (Status s = slot.spec.validate(v, where()); !s.ok) {
            return s;
        }
    }
    return validateChange(proposed);
}

void Module::commit(Staged& staged)
{
    if (staged.empty()) {
        return;
    }
    for (auto& [index, v] : staged) {
        m_slots[static_cast<std::size_t>(index)].value = std::move(v);
    }
    refreshDerivedFlags();
    attributesChanged();
}

Status Module::setAttributes(const NestedAttributes& changes)
{
    std::vector<std::pair<Module*, Staged>> plan;
    for (const auto& [path, attrs] : changes) {
        Module* target = nullptr;
        try {
            target = &getSubmodule(path);
        } catch (const Error& e) {
            return Status::failure(e.what());
        }
        Staged staged;
        if (Status s = target->stage(attrs, staged); !s.ok) {
            return s;
        }
        plan.emplace_back(target, std::move(staged));
    }
    for (auto& [target, staged] : plan) {
        target->commit(staged);
    }
    return Status::success();
}

Status Module::setAttribute(const std::string& name, const AttributeValue& v)
{
    Staged staged;
    if (Status s = stage({{name, v}}, staged); !s.ok) {
        return s;
    }
    commit(staged);
    return Status::success();
}

void Module::resetState()
{
    apply([](Module& m) {
        for (auto& slot : m.m_slots) {
            if (slot.spec.kind == AttributeKind::State && !slot.spec.keepOnResetState) {
                slot.value = slot.spec.init(m);
            }
        }
        m.m_steps = 0;
        m.onResetState();
        m.attributesChanged();
    });
}

void Module::resetParameters()
{
    apply([](Module& m) {
        for (auto& slot : m.m_slots) {
            if (slot.spec.kind != AttributeKind::State) {
                slot.value = slot.spec.init(m);
            }
        }
        m.refreshDerivedFlags();
        m.attributesChanged();
    });
}

std::vector<std::pair<std::string, Tensor>> Module::namedParameters() const
{
    std::vector<std::pair<std::string, Tensor>> out;
    for (const auto& [path, m] : namedModules()) {
        for (const auto& slot : m->m_slots) {
            if (slot.spec.kind == AttributeKind::Parameter && !slot.derived &&
                std::holds_alternative<Tensor>(slot.value)) {
                out.emplace_back(path.empty() ? slot.spec.name : path + "." + slot.spec.name,
                                 std::get<Tensor>(slot.value));
            }
        }
    }
    return out;
}

StateDict Module::stateDict() const
{
    StateDict out;
    // PyTorch order: a module's own parameters, then its buffers, then its children.
    for (const auto& [path, m] : namedModules()) {
        for (const AttributeKind kind : {AttributeKind::Parameter, AttributeKind::State,
                                         AttributeKind::SimulationParameter}) {
            for (const auto& slot : m->m_slots) {
                if (slot.spec.kind == kind && slot.spec.inStateDict && !slot.derived &&
                    std::holds_alternative<Tensor>(slot.value)) {
                    out.emplace_back(path.empty() ? slot.spec.name : path + "." + slot.spec.name,
                                     std::get<Tensor>(slot.value));
                }
            }
        }
    }
    return out;
}

LoadStateDictResult Module::loadStateDict(const StateDict& dict, bool strict)
{
    LoadStateDictResult result;
    const StateDict current = stateDict();
    std::map<std::string, const Tensor*> expected;
    for (const auto& [k, v] : current) {
        expected.emplace(k, &v);
    }
    std::set<std::string> provided;
    for (const auto& [k, v] : dict) {
        provided.insert(k);
        if (expected.count(k) == 0) {
            result.unexpectedKeys.push_back(k);
        }
    }
    for (const auto& [k, v] : current) {
        if (provided.count(k) == 0) {
            const auto dot = k.rfind('.');
            const Module& owner = getSubmodule(dot == std::string::npos ? "" : k.substr(0, dot));
            if (!owner.spec(dot == std::string::npos ? k : k.substr(dot + 1)).optionalOnLoad) {
                result.missingKeys.push_back(k);
            }
        }
    }
    const auto quoted = [](const std::vector<std::string>& keys) {
        std::string s;
        for (const auto& k : keys) {
            s += (s.empty() ? "\"" : ", \"") + k + "\"";
        }
        return s;
    };
    if (strict && (!result.missingKeys.empty() || !result.unexpectedKeys.empty())) {
        std::string msg = "Error(s) in loading state_dict for " + className() + ":";
        if (!result.missingKeys.empty()) {
            msg += " Missing key(s) in state_dict: " + quoted(result.missingKeys) + ".";
        }
        if (!result.unexpectedKeys.empty()) {
            msg += " Unexpected key(s) in state_dict: " + quoted(result.unexpectedKeys) + ".";
        }
        result.status = Status::failure(msg);
        return result;
    }
    NestedAttributes changes;
    for (const auto& [k, v] : dict) {
        const auto it = expected.find(k);
        if (it == expected.end()) {
            continue;
        }
        if (v.shape() != it->second->shape()) {
            // Accept any shape the attribute's spec allows (scalar or per-neuron alternatives).
            const auto dot = k.rfind('.');
            const std::string path = dot == std::string::npos ? "" : k.substr(0, dot);
            const std::string attr = dot == std::string::npos ? k : k.substr(dot + 1);
            const auto& shapes = getSubmodule(path).spec(attr).shapes;
            if (std::find(shapes.begin(), shapes.end(), v.shape()) == shapes.end()) {
                result.status = Status::failure(
                    "Error(s) in loading state_dict for " + className() + ": size mismatch for " +
                    k + ": copying a param with shape " + v.shape().toString() +
                    " from checkpoint, the shape in current model is " +
                    it->second->shape().toString() + ".");
                return result;
            }
        }
        const auto dot = k.rfind('.');
        const std::string path = dot == std::string::npos ? "" : k.substr(0, dot);
        const std::string attr = dot == std::string::npos ? k : k.substr(dot + 1);
        changes[path][attr] = v;
    }
    result.status = setAttributes(changes);
    return result;
}

}  // namespace spike::engine
