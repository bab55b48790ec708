// Sequential container. See sequential.hpp.
#include "engine/layers/sequential.hpp"

namespace spike::engine {

Sequential::Sequential() : Module({0}, false, false) {}

Sequential::Sequential(std::vector<std::unique_ptr<Module>> children) : Sequential()
{
    for (auto& c : children) {
        append(std::move(c));
    }
}

Module& Sequential::append(std::unique_ptr<Module> child)
{
    return appendNamed(std::to_string(childCount()), std::move(child));
}

Module& Sequential::appendNamed(const std::string& name, std::unique_ptr<Module> child)
{
    if (!child) {
        throw Error(where() + ": cannot append an empty module");
    }
    // childAt(), not namedChildren(): a copy of the list per append made loading a Sequential of
    // n children cost n^2 (50000 children: 20 s).
    if (childCount() > 0) {
        const Module& last = childAt(childCount() - 1);
        if (last.sizeOut() != child->sizeIn()) {
            throw Error(where() + ": cannot append " + child->className() + " '" + name +
                        "' with input size " + std::to_string(child->sizeIn()) + " after " +
                        last.className() + " '" + last.name() + "' with output size " +
                        std::to_string(last.sizeOut()));
        }
    }
    Module& added = addModule(name, std::move(child));
    const Module& first = childAt(0);
    const std::int64_t in = first.sizeIn();
    const std::int64_t out = added.sizeOut();
    setShape(in == out ? std::vector<std::int64_t>{in} : std::vector<std::int64_t>{in, out},
             first.spikingInput(), added.spikingOutput());
    return added;
}

Tensor Sequential::forward(const Tensor& input)
{
    const auto children = namedChildren();
    if (children.empty()) {
        throw Error(where() + ": is empty; add at least one module before calling it");
    }
    return runWithHooks(input.view(), [&](const TensorView& in) {
        // Without hooks `in` views `input` itself, which is then passed on without a copy.
        Module& first = *children.front().second;
        Tensor current = in.data() == input.data() ? first.forward(input) : first.forward(in.copy());
        for (std::size_t i = 1; i < children.size(); ++i) {
            current = children[i].second->forward(current);
        }
        return current;
    });
}

Tensor Sequential::evolveImpl(const TensorView& input, const Recorder& recorder)
{
    const auto children = namedChildren();
    if (children.empty()) {
        throw Error(where() + ": is empty; add at least one module before evolving");
    }
    Tensor current =
        children.front().second->forwardBatched(input, recorder.child(children.front().first));
    for (std::size_t i = 1; i < children.size(); ++i) {
        current = children[i].second->forwardBatched(current.view(),
                                                     recorder.child(children[i].first));
    }
    return current;
}

}  // namespace spike::engine
