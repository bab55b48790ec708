// Sequential: a container that evolves its children in order, each over the whole input time
// span (time-batched, like Rockpool's Sequential), feeding each child's output to the next.
// Children are named "0", "1", ... as in torch.nn.Sequential, so state-dict keys match PyTorch.
// forward() is the torch call instead: each child's forward() in turn on one tensor.
// Invariant: each child's sizeIn equals the previous child's sizeOut.
#pragma once

#include "engine/core/module.hpp"

namespace spike::engine {

/// Ordered chain of modules.
class Sequential : public Module {
public:
    Sequential();
    explicit Sequential(std::vector<std::unique_ptr<Module>> children);

    std::string className() const override { return "Sequential"; }

    /// Appends a child named by its index; throws Error when its input size does not match the
    /// previous child's output size (naming both).
    Module& append(std::unique_ptr<Module> child);
    /// Adds a child under an explicit name (same size check as append).
    Module& appendNamed(const std::string& name, std::unique_ptr<Module> child);

    /// The torch call: child_n(...child_0(x)) through each child's own forward() (and hooks),
    /// inside this module's hooks. Throws Error when empty.
    Tensor forward(const Tensor& input) override;
    /// Each child into the next.
    std::vector<FlowStep> dataFlow() const override { return chainFlow(); }

protected:
    Tensor evolveImpl(const TensorView& input, const Recorder& recorder) override;
};

}  // namespace spike::engine
