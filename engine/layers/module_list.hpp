// ModuleList: torch.nn.ModuleList, an indexed list of child modules with no behaviour of its own.
//
// Children are named "0", "1", ... in order, so state-dict keys read "blocks.0.weight" as in
// PyTorch. Unlike Sequential there is no size chaining between children and no forward: the
// module that owns the list calls the children itself; evolve() and forward() on the list throw.
// Invariant: child i is named std::to_string(i). Thread: owned by whichever thread owns its tree.
#pragma once

#include "engine/core/module.hpp"

namespace spike::engine {

/// Indexed list of modules (torch.nn.ModuleList).
class ModuleList : public Module {
public:
    ModuleList();
    explicit ModuleList(std::vector<std::unique_ptr<Module>> children);

    std::string className() const override { return "ModuleList"; }

    /// Appends a child under the next index; returns it. Throws Error for a null module.
    Module& append(std::unique_ptr<Module> child);
    /// Appends a child given with its name, which must be the next index (model files name every
    /// child); throws Error otherwise.
    Module& appendNamed(const std::string& name, std::unique_ptr<Module> child);
    /// Child i; throws Error naming the index and the size when out of range.
    Module& at(std::size_t i) const;
    std::size_t size() const { return childCount(); }

    /// Throws Error: a ModuleList has no forward of its own.
    Tensor forward(const Tensor& input) override;

protected:
    /// Throws Error: a ModuleList has no forward of its own.
    Tensor evolveImpl(const TensorView& input, const Recorder& recorder) override;
    /// Throws Error: a ModuleList has no forward of its own (before any input check).
    void checkEvolvable() const override;

private:
    [[noreturn]] void noForward() const;
};

}  // namespace spike::engine
