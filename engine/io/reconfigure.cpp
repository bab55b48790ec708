// reconfigure(): a module rebuilt from a new config with its old attribute values carried by the
// rule in reconfigure.hpp. Per attribute the work is one pass over its values (a uniformity test
// and a block copy), so a layer of 10^6 neurons reconfigures in milliseconds. Stateless; call
// from the thread that owns `old`.
#include "engine/io/reconfigure.hpp"

#include "engine/io/model_clone.hpp"
#include "engine/io/module_factory.hpp"
#include "engine/network/network.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

namespace spike::engine {

namespace {

/// Whether every entry of `t` equals the first (a scalar or one value spread); false when empty.
bool uniform(const Tensor& t)
{
    if (t.numel() == 0) {
        return false;
    }
    const float first = t[0];
    const float* d = t.data();
    return std::all_of(d, d + t.numel(), [first](float v) { return v == first; });
}

/// "1 x 3", "100".
std::string extentsText(const std::vector<std::int64_t>& dims)
{
    std::string out;
    for (const std::int64_t d : dims) {
        out += (out.empty() ? "" : " x ") + std::to_string(d);
    }
    return out.empty() ? "1" : out;
}

/// `fill` broadcast to a tensor of `shape` (its one value when uniform); nullopt otherwise.
std::optional<Tensor> spread(const Tensor& fill, const Shape& shape)
{
    if (!uniform(fill)) {
        return std::nullopt;
    }
    return Tensor(shape, fill[0]);
}

/// The value attribute `spec` of the new module takes, from the old value and the new module's
/// own initial value `fresh`, by the carry rule; appends a note unless the old value carried as
/// it was. nullopt: keep `fresh`.
std::optional<Tensor> carry(const std::string& label, const AttributeSpec& spec, const Tensor& old,
                            const Tensor& fresh, std::vector<std::string>& notes)
{
    const std::string from = old.shape().toString();
    if (old.shape() == fresh.shape()) {
        return old;  // rule 1
    }
    // Rule 2. A matrix (rank 2 or more) of a single entry says nothing about the others: a 1 x 1
    // weight drawn at random is not a value the user spread, so it goes by rule 3.
    if (uniform(old) && (old.rank() <= 1 || old.numel() > 1)) {
        const std::string value = describeValue(AttributeValue(Tensor::scalar(old[0])));
        notes.push_back(fresh.numel() == 1
                            ? label + ": " + from + " -> " + fresh.shape().toString() + ", the same one value (" +
                                  value + ")"
                            : label + ": one value (" + value + ") spread to " + fresh.shape().toString());
        return Tensor(fresh.shape(), old[0]);
    }
    // Rule 3 over the new module's own value, or over its one value spread to a shape of the
    // old rank the attribute accepts (a per-neuron tau whose initial value is a scalar).
    std::optional<Tensor> base;
    if (fresh.rank() == old.rank()) {
        base = fresh;
    } else {
        // The largest accepted shape of that rank: (N,) rather than (1,).
        const Shape* widest = nullptr;
        for (const Shape& accepted : spec.shapes) {
            if (accepted.rank() == old.rank() && (widest == nullptr || accepted.numel() > widest->numel())) {
                widest = &accepted;
            }
        }
        if (widest != nullptr) {
            base = spread(fresh, *widest);
        }
    }
    if (!base) {  // rule 4
        notes.push_back(label + ": " + from + " does not fit " + fresh.shape().toString() +
                        ", starts at its initial value");
        return std::nullopt;
    }
    std::vector<std::int64_t> common;
    bool grows = false;
    for (int a = 0; a < old.rank(); ++a) {
        common.push_back(std::min(old.dim(a), base->dim(a)));
        grows = grows || base->dim(a) > old.dim(a);
    }
    copyLeadingBlock(old, *base);
    notes.push_back(label + ": " + from + " -> " + base->shape().toString() + ", " +
                    (grows ? "the first " + extentsText(common) + " kept, entries beyond take the initial value"
                           : "the first " + extentsText(common) + " kept"));
    return base;
}

/// Which attributes a pass of carriedValues() takes: first the values that carry as they are
/// (same shape, enumerations: a seed, a leak mode), then, with those set, the reshaped ones and
/// the new ones, whose fresh entries are drawn from the new module's initial values under the
/// carried settings (a grown w_rec from the carried seed, as a module built with it would).
enum class Pass { Unchanged, Reshaped };

/// `m`'s initial value of `spec` under its current attribute values (the carried seed), or its
/// current value when the init cannot be evaluated.
Tensor initialValue(const Module& m, const AttributeView& view)
{
    try {
        AttributeValue v = view.spec->init(m);
        if (auto* t = std::get_if<Tensor>(&v); t != nullptr && t->shape() == std::get<Tensor>(*view.value).shape()) {
            return std::move(*t);
        }
    } catch (const Error&) {
    }
    return std::get<Tensor>(*view.value);
}

/// The carried values of one pass for the non-derived attributes of `fresh`, keyed by name;
/// notes for what did not carry unchanged (`prefix`: "0.conv1." or ""). `carriedFirst`: the
/// labels the Unchanged pass took (it adds them); the Reshaped pass takes every other one, also
/// a State whose shape follows attributes carried first (Delay's ring, which has the old shape
/// only once the old delays are set), which then carries unchanged by rule 1.
AttributeMap carriedValues(const Module& old, const Module& fresh, const std::string& prefix, Pass pass,
                           std::vector<std::string>& notes, std::set<std::string>& carriedFirst)
{
    AttributeMap out;
    for (const AttributeView& view : fresh.attributes()) {
        const std::string& name = view.spec->name;
        const std::string label = prefix + name;
        const auto* freshTensor = std::get_if<Tensor>(view.value);
        if (!old.hasAttribute(name)) {
            if (pass == Pass::Reshaped && !view.derived && freshTensor != nullptr) {
                notes.push_back(label + ": new, starts at its initial value");
                Tensor init = initialValue(fresh, view);
                if (!init.identical(*freshTensor)) {
                    out.emplace(name, std::move(init));
                }
            }
            continue;
        }
        if (old.isDerived(name)) {
            continue;  // recomputed by the new module from what carries (its mode carries too)
        }
        const AttributeValue& before = old.attribute(name);
        if (const auto* text = std::get_if<std::string>(&before)) {
            if (pass == Pass::Unchanged) {
                out.emplace(name, *text);
            }
            continue;
        }
        const auto* oldTensor = std::get_if<Tensor>(&before);
        if (oldTensor == nullptr || freshTensor == nullptr) {
            continue;
        }
        if (pass == Pass::Unchanged ? oldTensor->shape() != freshTensor->shape()
                                    : carriedFirst.count(label) > 0) {
            continue;
        }
        if (pass == Pass::Unchanged) {
            carriedFirst.insert(label);
        }
        const Tensor start = pass == Pass::Unchanged ? *freshTensor : initialValue(fresh, view);
        std::vector<std::string> note;
        std::optional<Tensor> v = carry(label, *view.spec, *oldTensor, start, note);
        // A value that ends where the new module starts anyway (a zero membrane spread, a
        // default tau) lost nothing the user set: no note.
        if (!v || !v->identical(start)) {
            notes.insert(notes.end(), note.begin(), note.end());
        }
        if (v) {
            out.emplace(name, std::move(*v));
        } else if (!start.identical(*freshTensor)) {
            out.emplace(name, start);
        }
    }
    if (pass == Pass::Reshaped) {
        for (const AttributeView& view : old.attributes()) {
            if (!fresh.hasAttribute(view.spec->name) && !view.derived) {
                notes.push_back(prefix + view.spec->name + ": not part of the new configuration, dropped");
            }
        }
    }
    return out;
}

/// Sets `changes` on `target` all at once; when that is refused, one attribute at a time,
/// noting each refused one (it keeps the new module's initial value).
void apply(Module& target, const NestedAttributes& changes, std::vector<std::string>& notes)
{
    if (changes.empty() || target.setAttributes(changes).ok) {
        return;
    }
    for (const auto& [path, values] : changes) {
        for (const auto& [name, value] : values) {
            if (const Status s = target.setAttributes({{path, {{name, value}}}}); !s.ok) {
                notes.push_back((path.empty() ? "" : path + ".") + name +
                                ": starts at its initial value (the carried value was refused: " +
                                s.message + ")");
            }
        }
    }
}

/// A container's children (and a Network's connections) copied onto the new, empty container.
/// Throws Error naming the connection or child the new config cannot take.
void copyChildren(const Module& old, Module& fresh)
{
    const auto* net = dynamic_cast<const Network*>(&old);
    for (const auto& [name, child] : net != nullptr ? net->nodes() : old.namedChildren()) {
        attachChild(fresh, name, cloneModule(*child));
    }
    if (net == nullptr) {
        return;
    }
    auto& to = dynamic_cast<Network&>(fresh);
    for (const Connection& c : net->connections()) {
        std::unique_ptr<Projection> projection;
        if (c.hasProjection) {
            std::unique_ptr<Module> copy = cloneModule(*net->projection(c.name));
            projection.reset(static_cast<Projection*>(copy.release()));
        }
        try {
            to.connect(c.from.toString(), c.to.toString(), std::move(projection), c.name, c.delayed);
        } catch (const Error& e) {
            throw Error("the connection '" + c.name + "' (" + c.from.toString() + " -> " +
                        c.to.toString() + ") would break: " + e.what());
        }
    }
}

}  // namespace

Reconfigured reconfigure(const Module& old, const nlohmann::json& config)
{
    Reconfigured out;
    out.module = createModule(old.className(), config);
    Module& fresh = *out.module;
    const ModuleTypeInfo* info = findModuleType(old.className());
    const bool container = info != nullptr && info->container;

    // (path, old module, new module) of every module whose attributes carry.
    std::vector<std::tuple<std::string, const Module*, Module*>> pairs;
    if (container) {
        // The children are not built from the config: the old ones move over as copies.
        copyChildren(old, fresh);
        pairs.emplace_back("", &old, &fresh);
    } else {
        // A composite builds its children from the config: match them by dotted path.
        std::map<std::string, const Module*> before;
        for (const auto& [path, m] : old.namedModules()) {
            before.emplace(path, m);
        }
        for (const auto& [path, m] : fresh.namedModules()) {
            const auto it = before.find(path);
            if (it == before.end()) {
                if (!path.empty()) {
                    out.notes.push_back(path + ": new, starts at its initial values");
                }
            } else if (it->second->className() != m->className()) {
                out.notes.push_back(path + ": now a " + m->className() + ", starts at its initial values");
            } else {
                pairs.emplace_back(path, it->second, m);
            }
        }
    }
    std::set<std::string> carriedFirst;
    for (const Pass pass : {Pass::Unchanged, Pass::Reshaped}) {
        NestedAttributes changes;
        for (const auto& [path, from, to] : pairs) {
            AttributeMap values =
                carriedValues(*from, *to, path.empty() ? "" : path + ".", pass, out.notes, carriedFirst);
            if (!values.empty()) {
                changes.emplace(path, std::move(values));
            }
        }
        apply(fresh, changes, out.notes);
    }
    fresh.train(old.training());
    fresh.setStepsElapsed(old.stepsElapsed());
    return out;
}

}  // namespace spike::engine
