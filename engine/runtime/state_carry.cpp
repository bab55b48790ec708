// carryStates: States and delayed-connection values from a running tree into its rebuilt
// successor. See state_carry.hpp.
#include "engine/runtime/state_carry.hpp"

#include "engine/core/graph.hpp"

#include <map>
#include <string>

namespace spike::engine {

namespace {

/// Copies the States of `from` into `to` (same class) where name and kind agree: whole when the
/// shapes agree, the leading block both share when only the extents differ.
void copyStates(const Module& from, Module& to)
{
    AttributeMap states;
    for (const AttributeView& view : to.attributes()) {
        const std::string& name = view.spec->name;
        if (view.spec->kind != AttributeKind::State || view.derived || !from.hasAttribute(name) ||
            from.isDerived(name) || from.spec(name).kind != AttributeKind::State) {
            continue;
        }
        const AttributeValue& value = from.attribute(name);
        if (value.index() != view.value->index()) {
            continue;
        }
        const auto* tensor = std::get_if<Tensor>(&value);
        const Tensor* own = std::get_if<Tensor>(view.value);
        if (tensor != nullptr && !(tensor->shape() == own->shape())) {
            // A resized population: the neurons both have keep their state (neuron i stays
            // neuron i), the others start from the new module's own value.
            if (tensor->rank() != own->rank() || tensor->rank() == 0) {
                continue;
            }
            Tensor merged = *own;
            copyLeadingBlock(*tensor, merged);
            states.emplace(name, std::move(merged));
            continue;
        }
        states.emplace(name, value);
    }
    if (states.empty() || to.setAttributes(NestedAttributes{{"", states}}).ok) {
        return;
    }
    for (const auto& [name, value] : states) {
        (void)to.setAttribute(name, value);  // a value the new module refuses keeps its own
    }
}

/// Copies what the delayed connections of `from` carry into the same-named delayed
/// connections of `to` (the executor ignores a value of the wrong size).
void copyDelayedValues(const Graph& from, Graph& to)
{
    for (const Connection& connection : to.connections()) {
        if (!connection.delayed) {
            continue;
        }
        if (const std::vector<float>* value = from.delayedValue(connection.name)) {
            to.setDelayedValue(connection.name, *value);
        }
    }
}

}  // namespace

void carryStates(const Module& running, Module& next)
{
    std::map<std::string, const Module*> byPath;
    for (const auto& [path, module] : running.namedModules()) {
        byPath.emplace(path, module);
    }
    for (const auto& [path, module] : next.namedModules()) {
        const auto found = byPath.find(path);
        if (found == byPath.end() || found->second->className() != module->className()) {
            continue;
        }
        copyStates(*found->second, *module);
        const auto* fromGraph = dynamic_cast<const Graph*>(found->second);
        auto* toGraph = dynamic_cast<Graph*>(module);
        if (fromGraph != nullptr && toGraph != nullptr) {
            copyDelayedValues(*fromGraph, *toGraph);
        }
    }
}

}  // namespace spike::engine
