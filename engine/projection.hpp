// Projection: the weights of a network connection, mapping presynaptic activity (Nsrc channels
// per step) to postsynaptic input (Ndst channels per step). Shape (Nsrc, Ndst), or (N,) when
// Nsrc = Ndst = N, as for any module.
//
// A projection is a module like any other (registry, state dict, evolve() over (T, Nsrc) giving
// (T, Ndst)), and a Network holds it as the child named after its connection. The runtime calls
// deliver(), which accumulates into the target's input rows without allocating; synaptic delays
// live in the projection's own States, so delivering in chunks of any length gives bit-identical
// results. Thread: owned by whichever thread runs it.
#pragma once

#include "module.hpp"

#include <cstdint>

namespace spike::engine {

/// Base of DenseProjection, OneToOneProjection and SparseProjection (projections.hpp).
class Projection : public Module {
public:
    std::int64_t sizeSource() const { return sizeIn(); }
    std::int64_t sizeTarget() const { return sizeOut(); }

    /// Adds `steps` steps of delivery: presynaptic row t starts at pre + t * preStride (Nsrc
    /// values), postsynaptic row t at post + t * postStride (Ndst values, accumulated: +=).
    /// Steps are processed in order; delayed deliveries are kept in the projection's States.
    /// Allocation-free.
    virtual void deliver(const float* pre, std::int64_t preStride, std::int64_t steps, float* post,
                         std::int64_t postStride) = 0;

protected:
    Projection(std::int64_t nSource, std::int64_t nTarget, bool spikingInput);

    /// evolve(): zeroed (B, T, Ndst) output, then deliver() batch element by batch element (each
    /// from the stored States; afterwards the stored States are batch element 0's).
    Tensor evolveImpl(const TensorView& input, const Recorder& recorder) override;
};

}  // namespace spike::engine
