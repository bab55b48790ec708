// The three projection types a network connection can carry (see projection.hpp for the base).
//
//   DenseProjection     post[t] += pre[t] @ W              W (Nsrc, Ndst), "weight"
//   OneToOneProjection  post[t] += w ⊙ pre[t]              w scalar or (N,), "weight"; Nsrc = Ndst
//   SparseProjection    for each presynaptic channel i with pre[t][i] != 0, for each synapse s
//                       (i → j) of row i of the CSR: post[t + delay][j] += pre[t][i] * w[s]
//                       w[s] = weight                               weight_dist "constant"
//                       w[s] = weight + weight_spread * (2u - 1)    "uniform", u ~ U[0, 1)
//                       w[s] = weight + weight_spread * z           "normal", z ~ N(0, 1)
//                       w[s] = 0 where sign(w[s]) != sign(weight)   keep_sign (Dale's law)
//
// DenseProjection sums every output element's terms in ascending presynaptic order and skips
// zero inputs, in tiles of steps × columns that read each weight row once per tile; the order
// never depends on the tiling, so any chunking of the steps gives bit-identical rows. Its weights
// start as Rockpool LinearTorch's, U(-sqrt(6 / Nsrc), sqrt(6 / Nsrc)), seeded by "seed".
//
// SparseProjection's synapses are drawn once from its connectivity settings (rule
// "probability": each pair independently with probability p, drawn row by row with geometric
// gaps; rule "in_degree": each target draws exactly in_degree distinct sources (Floyd's
// algorithm); "autapses" false forbids i → i when Nsrc = Ndst), seeded, so the same settings
// always give the same synapses. Drawing costs O(Nsrc + Ndst + synapses) time and the CSR's
// memory plus O(Nsrc); at most 2^31 - 1 synapses. They are drawn lazily, on first use after
// the settings changed (an evolve, the device twin, rowStart()), so building a module from a
// file or copying a model for a run draws nothing on the GUI thread: the simulation thread
// draws the run's copy when it first evolves it. The synapses are
// stored as CSR by presynaptic channel, so delivery costs one pass over the presynaptic row plus
// O(active channels × fan-out) per step, and O(Ndst) more with a delay; deliverListed(), fed
// the source's spike lists, skips the pass over the row. Both walk the active channels in
// ascending order, so every target sums the same terms in the same order.
//
// Per-synapse weights (weight_dist "uniform" or "normal") are drawn lazily too, after the CSR, on
// first delivery (or synapseWeights()), in CSR order from the seed on a stream of their own
// (sparse_draw.hpp), so the distribution never changes which synapses exist, and stored beside
// targets() (4 bytes per synapse). Changing weight, weight_spread, weight_dist or keep_sign
// redraws only them, O(synapses), which is why they stay live-editable; "constant" stores none
// and multiplies by weight, as before.
//
// Delay d ≥ 1: the "pending" State is a ring of d rows of Ndst values and "pending_head"
// (h) the row delivered next. Each step t, in this order:
//   post[t] += pending[h];  pending[h] = 0                   (what was scattered at step t - d)
//   pending[h][j] += pre[t][i] * w[s] for every synapse s (i → j) with pre[t][i] != 0
//   h = (h + 1) mod d
// so an input in row t arrives in output row t + d, across any number of deliver() calls.
// resetState() empties the ring. d = 0 scatters straight into post[t] and the ring is (0, Ndst).
// Changing "delay" reshapes the ring (emptied) unless the same change gives a "pending" of the
// new shape. Thread: owned by whichever thread runs it.
#pragma once

#include "engine/core/projection.hpp"
#include "engine/network/sparse_draw.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace spike::engine {

/// All-to-all weights W (Nsrc, Ndst): post[t] += pre[t] @ W.
class DenseProjection : public Projection {
public:
    DenseProjection(std::int64_t nSource, std::int64_t nTarget, const AttributeMap& initial = {});
    std::string className() const override { return "DenseProjection"; }
    nlohmann::json config() const override;
    std::string extraRepr() const override;
    void deliver(const float* pre, std::int64_t preStride, std::int64_t steps, float* post,
                 std::int64_t postStride) override;
    /// Its device twin (projections_device.cpp).
    std::unique_ptr<DeviceProjection> makeDeviceProjection() override;

private:
    AttributeId m_weight;
};

/// Channel-wise weights: post[t] += w ⊙ pre[t]; w scalar or (N,).
class OneToOneProjection : public Projection {
public:
    explicit OneToOneProjection(std::int64_t n, const AttributeMap& initial = {});
    std::string className() const override { return "OneToOneProjection"; }
    nlohmann::json config() const override;
    std::string extraRepr() const override;
    void deliver(const float* pre, std::int64_t preStride, std::int64_t steps, float* post,
                 std::int64_t postStride) override;
    /// Its device twin (projections_device.cpp).
    std::unique_ptr<DeviceProjection> makeDeviceProjection() override;

private:
    AttributeId m_weight;
};

/// Seeded random sparse connectivity in CSR, delivered event-driven, with an integer delay.
class SparseProjection : public Projection {
public:
    /// Connectivity rule names accepted by the "rule" attribute.
    static const std::vector<std::string>& rules();

    SparseProjection(std::int64_t nSource, std::int64_t nTarget, const AttributeMap& initial = {});
    std::string className() const override { return "SparseProjection"; }
    nlohmann::json config() const override;
    std::string extraRepr() const override;
    void deliver(const float* pre, std::int64_t preStride, std::int64_t steps, float* post,
                 std::int64_t postStride) override;
    /// Walks only the listed channels: O(spikes x fan-out) per step (plus O(Ndst) with a delay).
    void deliverListed(const float* pre, std::int64_t preStride, const SpikeLists& spikes,
                       std::int64_t steps, float* post, std::int64_t postStride) override;
    /// Zeroes the listed channels' targets; without delay only (a ring delivers whole rows).
    bool clearListed(const SpikeLists& spikes, std::int64_t steps, float* post,
                     std::int64_t postStride) override;
    /// Split by target range: each thread walks the same listed channels (and its part of the
    /// delay ring) but only the synapses onto its targets (CSR row slices cut once per part count).
    void deliverListedOn(ThreadPool& pool, std::int64_t minWork, const float* pre,
                         std::int64_t preStride, const SpikeLists& spikes, std::int64_t steps,
                         float* post, std::int64_t postStride) override;
    /// Without a delay: the listed channels whose synapses reach `parts` x `minWork` additions
    /// (never, for fewer targets than `parts` x 64 or no synapses); with one, 0 (the ring's rows
    /// count too, so every call asks).
    std::int64_t listedSplitFrom(int parts, std::int64_t minWork) const override;
    /// Without a delay and with at least parts x 64 targets: draws what is not drawn yet and
    /// cuts the target slices for `parts` (kept until the part count or the synapses change).
    bool listedPartsReady(int parts) override;
    /// One part's slices of the listed channels' synapses (those deliverListedOn() gives it).
    void deliverListedPart(int part, int parts, const float* pre, const SpikeLists& spikes,
                           float* post) const override;
    void clearListedPart(int part, int parts, const SpikeLists& spikes, float* post) const override;
    /// Split by the same target ranges as deliverListedOn() (when that split): each thread
    /// zeroes the listed channels' synapses onto its own targets.
    bool clearListedOn(ThreadPool& pool, std::int64_t minWork, const SpikeLists& spikes,
                       std::int64_t steps, float* post, std::int64_t postStride) override;
    /// Its device twin (projections_device.cpp): the CSR and the delay ring on the device.
    std::unique_ptr<DeviceProjection> makeDeviceProjection() override;

    /// CSR by presynaptic channel: synapses of channel i are targets()[rowStart()[i] ..
    /// rowStart()[i + 1]); rowStart() has Nsrc + 1 entries. Targets ascend strictly within a row
    /// (no pair is connected twice).
    /// The synapses are drawn on first use after a change of the connectivity settings (these
    /// accessors, evolve(), the device twin), by the thread that owns the module: loading or
    /// copying a model draws nothing, so neither blocks the GUI thread; the worker that runs the
    /// copy draws them when it first evolves it.
    const std::vector<std::int64_t>& rowStart() const
    {
        ensureSynapses();
        return m_rowStart;
    }
    const std::vector<std::int32_t>& targets() const
    {
        ensureSynapses();
        return m_targets;
    }
    std::int64_t synapseCount() const { return static_cast<std::int64_t>(targets().size()); }
    /// Per-synapse weights, parallel to targets() (synapse s weighs synapseWeights()[s]). Drawn
    /// on first use (this accessor, evolve(), the device twin; the synapses first when they are
    /// not drawn yet) after a change of weight, weight_spread, weight_dist, keep_sign or the
    /// connectivity; rowStart() and targets() draw no weights. Empty for weight_dist
    /// "constant": every synapse weighs weight().
    const std::vector<float>& synapseWeights() const
    {
        ensureWeights();
        return m_synapseWeights;
    }
    /// Whether the synapses of the current settings are drawn (false after a change until the
    /// first use).
    bool synapsesDrawn() const { return m_built; }
    /// Whether the per-synapse weights of the current settings are drawn (false after a change
    /// until the first use; true for "constant", which draws nothing, once the synapses are).
    bool weightsDrawn() const { return m_built && m_weightsDrawn; }
    /// The synaptic weight (the "weight" attribute): every synapse's for weight_dist "constant",
    /// else the mean the per-synapse weights are drawn around.
    float weight() const;
    /// The delay in steps (the "delay" attribute).
    std::int64_t delaySteps() const;

protected:
    Status validateChange(const Lookup& proposed) const override;
    void attributesChanged() override;

private:
    /// The settings the CSR was drawn from (only the active rule's parameter is kept).
    struct Connectivity {
        std::string rule;
        double p = -1.0;
        std::int64_t inDegree = -1;
        std::uint64_t seed = 0;
        bool autapses = true;
        bool operator==(const Connectivity&) const = default;
    };

    /// Draws the CSR from m_builtWith when it is not drawn yet (see rowStart()).
    void ensureSynapses() const;
    /// ensureSynapses(), then draws the per-synapse weights from m_weightsWith when they are not
    /// drawn yet (see synapseWeights()).
    void ensureWeights() const;
    /// The delay ring around scatterStep(t, row), which adds presynaptic step t's synapses into
    /// `row` (post[t] itself without delay, else the ring row that reaches post[t + delay]).
    template <typename ScatterStep>
    void deliverSteps(std::int64_t steps, float* post, std::int64_t postStride,
                      ScatterStep&& scatterStep);

    AttributeId m_weight, m_weightDist, m_weightSpread, m_keepSign, m_delay, m_rule, m_p,
        m_inDegree, m_seed, m_autapses, m_pending, m_pendingHead;
    // The CSR is a cache of m_builtWith, the weights one of m_weightsWith over that CSR, both
    // drawn lazily (hence mutable).
    mutable std::vector<std::int64_t> m_rowStart;
    mutable std::vector<std::int32_t> m_targets;
    // The same targets as 16-bit indices when every target fits (sizeTarget() <= 65536), read by
    // the CPU's deliveries and clearings in place of m_targets (half the bytes per synapse:
    // bench/README.md, "Equation models against Brian2"); empty otherwise. Drawn with m_targets.
    mutable std::vector<std::uint16_t> m_targets16;
    mutable std::vector<float> m_synapseWeights;
    Connectivity m_builtWith;
    WeightDistribution m_weightsWith;
    mutable bool m_built = false;
    mutable bool m_weightsDrawn = false;
    // Target-range slices of the CSR for deliverListedOn() with m_sliceParts parts: synapses of
    // channel i onto part p's targets are [m_sliceBounds[i * (parts + 1) + p], ... + p + 1).
    // Recut when the part count or the synapses change (0: none cut).
    mutable std::vector<std::int64_t> m_sliceBounds;
    mutable int m_sliceParts = 0;
    // With slices cut and more than 65536 targets (no m_targets16) but at most 65536 per part:
    // each synapse's target less the first target of its part, as 16 bits, read by the split
    // deliveries and clearings in place of m_targets (each part adds into y + its first target,
    // the same entries in the same order). Empty otherwise.
    mutable std::vector<std::uint16_t> m_partTargets16;
    mutable std::int64_t m_fanOut = 0;  ///< synapses per presynaptic channel, rounded down

    /// Synapses per presynaptic channel of the drawn connectivity (drawing it first if needed).
    std::int64_t fanOut() const
    {
        ensureSynapses();
        return m_fanOut;
    }

    /// How many of `pool`'s threads deliverListedOn() and clearListedOn() use for this call
    /// (all of them or 1), cutting the slices when they are needed and not cut yet.
    int listedParts(const ThreadPool& pool, std::int64_t minWork, const SpikeLists& spikes,
                    std::int64_t steps);
    /// Cuts m_sliceBounds for `parts` parts unless they are cut for that count already.
    void cutSlices(int parts) const;
    /// Calls f(targets, first) with the targets part `part` of `parts` reads: m_partTargets16
    /// with its part's first target (add it to the output row) when cut, else m_targets16 or
    /// m_targets with 0.
    template <typename F>
    void withPartTargets(int part, int parts, F&& f) const;
};

}  // namespace spike::engine
