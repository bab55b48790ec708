// Layer base: forward with hooks and the per-time-step evolve adapter. See layer.hpp.
#include "engine/layers/layer.hpp"

namespace spike::engine {

namespace {
std::vector<std::int64_t> flatShape(const Shape& in, const Shape& out)
{
    const std::int64_t nIn = in.numel();
    const std::int64_t nOut = out.numel();
    return nIn == nOut ? std::vector<std::int64_t>{nIn} : std::vector<std::int64_t>{nIn, nOut};
}
}  // namespace

Layer::Layer(const Shape& sampleIn, const Shape& sampleOut, bool spikingInput, bool spikingOutput)
    : Module(flatShape(sampleIn, sampleOut), spikingInput, spikingOutput),
      m_sampleIn(sampleIn),
      m_sampleOut(sampleOut)
{
}

Tensor Layer::forward(const Tensor& input)
{
    if (input.numel() == 0) {
        throw Error(where() + ": input " + input.shape().toString() +
                    " is empty; expected at least one element");
    }
    return runWithHooks(input.view(), [this](const TensorView& in) { return compute(in); });
}

Tensor Layer::evolveImpl(const TensorView& input, const Recorder& recorder)
{
    const std::int64_t batches = input.dim(0);
    const std::int64_t steps = input.dim(1);
    Tensor out = compute(input.reshaped(m_sampleIn.prepended(batches * steps)));
    out.reshape(Shape{batches, steps, sizeOut()});
    if (recorder.wants("output")) {
        recorder.record("output", out, "", spikingOutput());
    }
    return out;
}

}  // namespace spike::engine
