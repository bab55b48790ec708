// asProbeableTree: a chainable Sequential rewired as a Network. See probeable_tree.hpp.
#include "engine/network/probeable_tree.hpp"

#include "engine/layers/sequential.hpp"
#include "engine/network/network.hpp"

#include <string>
#include <utility>
#include <vector>

namespace spike::engine {

namespace {

/// Whether `ports` is one port covering all `size` channels.
bool onlyPortCovers(const std::vector<PortSpec>& ports, std::int64_t size)
{
    return ports.size() == 1 && ports.front().offset == 0 && ports.front().size == size;
}

/// Whether a Sequential's chain can be wired as a Network node for node: names free for a
/// Network, and one whole port on each side that is joined.
bool chainable(const Module& sequential)
{
    const auto children = sequential.namedChildren();
    if (children.empty()) {
        return false;
    }
    for (std::size_t i = 0; i < children.size(); ++i) {
        const auto& [name, child] = children[i];
        if (name == "in" || name == "out") {
            return false;
        }
        const bool fedIn = i > 0 || child->sizeIn() > 0;
        const bool feedsOut = i + 1 < children.size() || child->sizeOut() > 0;
        if ((fedIn && !onlyPortCovers(child->inputPorts(), child->sizeIn())) ||
            (feedsOut && !onlyPortCovers(child->outputPorts(), child->sizeOut()))) {
            return false;
        }
    }
    return true;
}

}  // namespace

std::unique_ptr<Module> asProbeableTree(std::unique_ptr<Module> module)
{
    auto* sequential = dynamic_cast<Sequential*>(module.get());
    if (sequential == nullptr || !chainable(*sequential)) {
        return module;
    }
    auto network = std::make_unique<Network>(sequential->sizeIn(), sequential->sizeOut());
    std::string previous = sequential->sizeIn() > 0 ? "in" : "";
    for (const auto& [name, child] : sequential->namedChildren()) {
        std::unique_ptr<Module> moved = sequential->removeModule(name);
        const bool hasInput = moved->sizeIn() > 0;
        network->addNode(name, asProbeableTree(std::move(moved)));
        if (!previous.empty() && hasInput) {
            network->connect(previous, name);
        }
        previous = name;
    }
    if (network->sizeOut() > 0) {
        network->connect(previous, "out");
    }
    network->setStepsElapsed(sequential->stepsElapsed());
    return network;
}

}  // namespace spike::engine
