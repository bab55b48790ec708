// ModuleList. See module_list.hpp.
#include "engine/layers/module_list.hpp"

namespace spike::engine {

ModuleList::ModuleList() : Module({0}, false, false) {}

ModuleList::ModuleList(std::vector<std::unique_ptr<Module>> children) : ModuleList()
{
    for (auto& c : children) {
        append(std::move(c));
    }
}

Module& ModuleList::append(std::unique_ptr<Module> child)
{
    if (!child) {
        throw Error(where() + ": cannot append an empty module");
    }
    return addModule(std::to_string(childCount()), std::move(child));
}

Module& ModuleList::appendNamed(const std::string& name, std::unique_ptr<Module> child)
{
    const std::string expected = std::to_string(childCount());
    if (name != expected) {
        throw Error(where() + ": children of a ModuleList are named by their index; expected '" +
                    expected + "', got '" + name + "'");
    }
    return append(std::move(child));
}

Module& ModuleList::at(std::size_t i) const
{
    if (i >= childCount()) {
        throw Error(where() + ": index " + std::to_string(i) + " is out of range (size " +
                    std::to_string(childCount()) + ")");
    }
    return childAt(i);
}

void ModuleList::noForward() const
{
    throw Error(where() + ": a ModuleList has no forward of its own (as in PyTorch); the module "
                          "that owns it calls its children");
}

Tensor ModuleList::forward(const Tensor& /*input*/)
{
    noForward();
}

Tensor ModuleList::evolveImpl(const TensorView& /*input*/, const Recorder& /*recorder*/)
{
    noForward();
}

void ModuleList::checkEvolvable() const
{
    noForward();
}

}  // namespace spike::engine
