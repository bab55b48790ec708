// Projection: the weights of a network connection, mapping presynaptic activity (Nsrc channels
// per step) to postsynaptic input (Ndst channels per step). Shape (Nsrc, Ndst), or (N,) when
// Nsrc = Ndst = N, as for any module.
//
// A projection is a module like any other (registry, state dict, evolve() over (T, Nsrc) giving
// (T, Ndst)), and a Network holds it as the child named after its connection. The runtime calls
// deliver(), which accumulates into the target's input rows without allocating, or
// deliverListed() when the source lists its spikes per step; synaptic delays live in the
// projection's own States, so delivering in chunks of any length gives bit-identical results.
// Thread: owned by whichever thread runs it.
#pragma once

#include "engine/core/module.hpp"
#include "engine/tensor/spike_lists.hpp"

#include <cstdint>
#include <memory>

namespace spike::engine {

class DeviceProjection;
class ThreadPool;

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
    /// deliver() with presynaptic row t's non-zero channels listed in `spikes` row t (see
    /// spike_lists.hpp; every unlisted channel of the row is zero). Gives the same rows and
    /// States as deliver(), bit for bit. Default: deliver(), ignoring the lists.
    virtual void deliverListed(const float* pre, std::int64_t preStride, const SpikeLists& spikes,
                               std::int64_t steps, float* post, std::int64_t postStride);
    /// Zeroes every post entry that deliverListed() with the same arguments writes, when those
    /// are only the listed channels' own synapses (so a caller can clear a row it delivered into
    /// in O(events) instead of a memset), and returns true; returns false, touching nothing,
    /// when deliveries reach other entries (a delay ring adds whole rows). Default: false.
    virtual bool clearListed(const SpikeLists& spikes, std::int64_t steps, float* post,
                             std::int64_t postStride);
    /// deliverListed() with its work shared by `pool`'s threads when there is at least
    /// `minWork` (additions) per thread: each post entry is then written by exactly one thread,
    /// with the same terms in the same order, so the rows and States are deliverListed()'s bit
    /// for bit. Called by the pool's owner. Default: deliverListed() on the caller.
    virtual void deliverListedOn(ThreadPool& pool, std::int64_t minWork, const float* pre,
                                 std::int64_t preStride, const SpikeLists& spikes,
                                 std::int64_t steps, float* post, std::int64_t postStride);
    /// clearListed() with its work shared by `pool`'s threads when deliverListedOn() with the
    /// same `minWork` would share it: each thread zeroes only the targets it delivered into.
    /// Default: clearListed() on the caller.
    virtual bool clearListedOn(ThreadPool& pool, std::int64_t minWork, const SpikeLists& spikes,
                               std::int64_t steps, float* post, std::int64_t postStride);
    /// The fewest listed channels (over one call's steps) from which deliverListedOn() and
    /// clearListedOn() with a pool of `parts` threads and this `minWork` might share their work;
    /// below it they are deliverListed() and clearListed() on the caller, so a caller may call
    /// those directly and skip the per-call decision. A caller reads it when it sets up a run: a
    /// later change of the synapses or the delay changes only which calls split, never a
    /// result. Default: 0 (always ask).
    virtual std::int64_t listedSplitFrom(int parts, std::int64_t minWork) const;
    /// For a caller that splits the one-step deliveries of several projections into one input
    /// row in a single fork-join (the CPU executor, per node): whether deliverListedPart() and
    /// clearListedPart() may be called now with `parts` parts, readying them (false with a
    /// delay, whose ring reaches other entries, or fewer targets than parts x 64). Called by the
    /// pool's owner before each such fork-join. Default: false.
    virtual bool listedPartsReady(int parts);
    /// Part `part` of `parts` of deliverListed() over one step: only the targets in
    /// ThreadPool::splitRange(sizeTarget(), parts, part, 64), each with deliverListed()'s terms
    /// in its order; clearListedPart() zeroes those targets as clearListed() would. Called on
    /// the pool's threads, each with its own part, after listedPartsReady(parts) said true.
    /// Defaults: an Error (a projection whose listedPartsReady() is false is never split so).
    virtual void deliverListedPart(int part, int parts, const float* pre, const SpikeLists& spikes,
                                   float* post) const;
    virtual void clearListedPart(int part, int parts, const SpikeLists& spikes, float* post) const;
    /// A twin that delivers this projection with device kernels for the CUDA executor
    /// (engine/core/device_runner.hpp). Default: none (nullptr), and it delivers on the host.
    virtual std::unique_ptr<DeviceProjection> makeDeviceProjection();

protected:
    Projection(std::int64_t nSource, std::int64_t nTarget, bool spikingInput);

    /// evolve(): zeroed (B, T, Ndst) output, then deliver() batch element by batch element (each
    /// from the stored States; afterwards the stored States are batch element 0's).
    Tensor evolveImpl(const TensorView& input, const Recorder& recorder) override;
};

}  // namespace spike::engine
