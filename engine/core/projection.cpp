// Projection base: shape and the batch semantics of evolve() shared by every projection type.
// See projection.hpp. Thread: owned by whichever thread runs the module.
#include "engine/core/projection.hpp"

#include "engine/core/device_runner.hpp"

#include <utility>
#include <vector>

namespace spike::engine {

namespace {

std::vector<std::int64_t> projectionShape(std::int64_t nSource, std::int64_t nTarget)
{
    if (nSource == nTarget) {
        return {nSource};
    }
    return {nSource, nTarget};
}

}  // namespace

Projection::Projection(std::int64_t nSource, std::int64_t nTarget, bool spikingInput)
    : Module(projectionShape(nSource, nTarget), spikingInput, false)
{
}

void Projection::deliverListed(const float* pre, std::int64_t preStride, const SpikeLists&,
                               std::int64_t steps, float* post, std::int64_t postStride)
{
    deliver(pre, preStride, steps, post, postStride);
}

void Projection::deliverListedOn(ThreadPool&, std::int64_t, const float* pre,
                                 std::int64_t preStride, const SpikeLists& spikes,
                                 std::int64_t steps, float* post, std::int64_t postStride)
{
    deliverListed(pre, preStride, spikes, steps, post, postStride);
}

bool Projection::clearListed(const SpikeLists&, std::int64_t, float*, std::int64_t)
{
    return false;
}

bool Projection::clearListedOn(ThreadPool&, std::int64_t, const SpikeLists& spikes, std::int64_t steps,
                               float* post, std::int64_t postStride)
{
    return clearListed(spikes, steps, post, postStride);
}

std::int64_t Projection::listedSplitFrom(int, std::int64_t) const
{
    return 0;
}

bool Projection::listedPartsReady(int)
{
    return false;
}

void Projection::deliverListedPart(int, int, const float*, const SpikeLists&, float*) const
{
    throw Error(className() + ": deliverListedPart() called, but it is not split by target parts");
}

void Projection::clearListedPart(int, int, const SpikeLists&, float*) const
{
    throw Error(className() + ": clearListedPart() called, but it is not split by target parts");
}

Tensor Projection::evolveImpl(const TensorView& input, const Recorder&)
{
    const std::int64_t batches = input.dim(0);
    const std::int64_t steps = input.dim(1);
    const std::int64_t nSrc = sizeSource();
    const std::int64_t nDst = sizeTarget();
    Tensor output(Shape{batches, steps, nDst});

    // Each batch element starts from the stored States; afterwards they are element 0's.
    std::vector<std::pair<AttributeId, Tensor>> initial;
    std::vector<std::pair<AttributeId, Tensor>> afterFirst;
    if (batches > 1) {
        const auto views = attributes();
        for (std::size_t k = 0; k < views.size(); ++k) {
            if (views[k].spec->kind == AttributeKind::State &&
                std::holds_alternative<Tensor>(*views[k].value)) {
                initial.emplace_back(AttributeId{static_cast<int>(k)},
                                     std::get<Tensor>(*views[k].value));
            }
        }
    }
    for (std::int64_t b = 0; b < batches; ++b) {
        if (b > 0) {
            for (const auto& [id, t] : initial) {
                stateRef(id) = t;
            }
        }
        deliver(input.data() + b * steps * nSrc, nSrc, steps, output.data() + b * steps * nDst,
                nDst);
        if (b == 0 && batches > 1) {
            for (const auto& [id, t] : initial) {
                afterFirst.emplace_back(id, stateRef(id));
            }
        }
    }
    for (auto& [id, t] : afterFirst) {
        stateRef(id) = std::move(t);
    }
    return output;
}

std::unique_ptr<DeviceProjection> Projection::makeDeviceProjection()
{
    return nullptr;
}

}  // namespace spike::engine
