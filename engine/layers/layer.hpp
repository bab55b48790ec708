// Layer: base of the torch.nn-style layers (Linear, Conv2d, activations, norms, ...).
//
// A layer is a pure function of its input and parameters: forward() maps one tensor in the
// layer's own layout to one tensor (with hooks), and evolve() applies it independently at every
// time step of a (B, T, Nin) series, where Nin is the product of the per-sample input shape
// (for Conv2d, C x H x W). Layers hold no dynamical state unless they say so.
// Thread: owned by whichever thread evolves it.
#pragma once

#include "engine/core/module.hpp"

namespace spike::engine {

/// Stateless torch-style layer.
class Layer : public Module {
public:
    /// Applies the layer to `input` (hooks included). Throws Error for an empty input or a
    /// layout the layer does not accept, naming the module and the expected shape.
    Tensor forward(const Tensor& input) override;

    /// Per-sample input shape used when evolving over time (e.g. (C, H, W)).
    const Shape& sampleInputShape() const { return m_sampleIn; }
    /// Per-sample output shape.
    const Shape& sampleOutputShape() const { return m_sampleOut; }

protected:
    /// A layer mapping samples of shape `sampleIn` to samples of shape `sampleOut`.
    Layer(const Shape& sampleIn, const Shape& sampleOut, bool spikingInput = false,
          bool spikingOutput = false);

    /// The computation on a non-empty input in the layer's layout.
    virtual Tensor compute(const TensorView& input) const = 0;

    /// Evolves over time: (B, T, Nin) viewed as (B*T, sampleIn...), computed, reshaped back.
    Tensor evolveImpl(const TensorView& input, const Recorder& recorder) override;

private:
    Shape m_sampleIn;
    Shape m_sampleOut;
};

}  // namespace spike::engine
