// Device twins of DenseProjection, OneToOneProjection and SparseProjection (CSR, per-synapse
// weights when weight_dist is not constant, delay ring): the CUDA executor
// delivers them on kernels/network_cuda.hpp's kernels through these (see
// engine/core/device_runner.hpp).
#include "engine/network/projections.hpp"
#include "engine/core/device_runner.hpp"

namespace spike::engine {

namespace kn = spike::kernels;
using twins::upload;

namespace {

/// A fused operation of `kind` from presynaptic rows `pre` into postsynaptic rows `post`.
kn::FusedOp rowsOp(kn::FusedKind kind, const float* pre, std::int64_t preStride, float* post,
                   std::int64_t postStride)
{
    kn::FusedOp op = kn::makeFusedOp(kind);
    op.src = pre;
    op.srcStride = preStride;
    op.dst = post;
    op.dstStride = postStride;
    return op;
}

class DenseTwin final : public DeviceProjection {
public:
    explicit DenseTwin(DenseProjection& p) : m_p(&p) {}

    void load() override
    {
        upload(m_weight, m_p->tensor("weight"), "dense weights");
    }

    void deliver(const float* pre, std::int64_t preStride, std::int64_t steps, float* post,
                 std::int64_t postStride) override
    {
        kn::denseDeliverCuda(m_weight.data(), m_p->sizeSource(), m_p->sizeTarget(), pre, preStride,
                             steps, post, postStride);
    }

    bool appendFusedDelivery(const float* pre, std::int64_t preStride, float* post,
                             std::int64_t postStride, std::vector<kn::FusedOp>& ops) override
    {
        kn::FusedOp op = rowsOp(kn::FusedKind::Dense, pre, preStride, post, postStride);
        op.weight = m_weight.data();
        op.nSrc = m_p->sizeSource();
        op.nDst = m_p->sizeTarget();
        ops.push_back(op);
        return true;
    }

private:
    DenseProjection* m_p;
    kn::DeviceFloats m_weight;
};

class OneToOneTwin final : public DeviceProjection {
public:
    explicit OneToOneTwin(OneToOneProjection& p) : m_p(&p) {}

    void load() override
    {
        upload(m_weight, m_p->tensor("weight"), "one-to-one weights");
    }

    void deliver(const float* pre, std::int64_t preStride, std::int64_t steps, float* post,
                 std::int64_t postStride) override
    {
        kn::oneToOneDeliverCuda(m_weight.data(), static_cast<std::int64_t>(m_weight.size()),
                                m_p->sizeSource(), pre, preStride, steps, post, postStride);
    }

    bool appendFusedDelivery(const float* pre, std::int64_t preStride, float* post,
                             std::int64_t postStride, std::vector<kn::FusedOp>& ops) override
    {
        kn::FusedOp op = rowsOp(kn::FusedKind::OneToOne, pre, preStride, post, postStride);
        op.weight = m_weight.data();
        op.weightCount = static_cast<std::int64_t>(m_weight.size());
        op.width = m_p->sizeSource();
        ops.push_back(op);
        return true;
    }

private:
    OneToOneProjection* m_p;
    kn::DeviceFloats m_weight;
};

/// SparseProjection: CSR, per-synapse weights and the delay ring on the device; the ring head
/// lives on the host.
class SparseTwin final : public DeviceProjection {
public:
    explicit SparseTwin(SparseProjection& p) : m_p(&p) {}

    void load() override
    {
        upload(m_rowStart, m_p->rowStart(), "sparse row starts");
        upload(m_targets, m_p->targets(), "sparse targets");
        // Empty for weight_dist "constant": a null array, and the kernels use m_weight.
        upload(m_synapseWeights, m_p->synapseWeights(), "sparse synapse weights");
        upload(m_pending, m_p->tensor("pending"), "sparse pending deliveries");
        m_head = static_cast<std::int64_t>(m_p->tensor("pending_head")[0]);
        m_weight = m_p->weight();
        m_delay = m_p->delaySteps();
    }

    void deliver(const float* pre, std::int64_t preStride, std::int64_t steps, float* post,
                 std::int64_t postStride) override
    {
        m_head = kn::sparseDeliverCuda(device(), m_head, pre, preStride, steps, post, postStride);
    }

    /// A delayed projection fuses as two operations (drain the due ring row, then scatter into
    /// it), as sparseDeliverCuda launches it; the ring head moves on in fusedDeliveriesRan().
    bool appendFusedDelivery(const float* pre, std::int64_t preStride, float* post,
                             std::int64_t postStride, std::vector<kn::FusedOp>& ops) override
    {
        kn::FusedOp op = rowsOp(kn::FusedKind::SparseScatter, pre, preStride, post, postStride);
        op.sparse = device();
        op.head = m_head;
        if (m_delay > 0) {
            kn::FusedOp drain = op;
            drain.kind = kn::FusedKind::SparseDrain;
            ops.push_back(drain);
        }
        ops.push_back(op);
        return true;
    }

    void fusedDeliveriesRan(std::int64_t steps) override
    {
        if (m_delay > 0) {
            m_head = (m_head + steps) % m_delay;
        }
    }

    void store() override
    {
        Tensor ring(Shape{m_delay, m_p->sizeTarget()});
        kn::copyBytes(ring.data(), m_pending.data(), static_cast<std::size_t>(ring.numel()) * 4,
                      kn::CopyKind::DeviceToHost);
        // Through the registry (validated): the ring first, then the head that indexes it.
        set("pending", ring);
        set("pending_head", Tensor::scalar(static_cast<float>(m_head)));
    }

    void listStates(DeviceStateScan& scan, int owner) const override
    {
        scan.add(owner, "pending", m_pending.data(), static_cast<std::int64_t>(m_pending.size()));
    }

private:
    kn::SparseDevice device()
    {
        kn::SparseDevice d;
        d.nSrc = m_p->sizeSource();
        d.nDst = m_p->sizeTarget();
        d.rowStart = m_rowStart.data();
        d.targets = m_targets.data();
        d.weight = m_weight;
        d.weights = m_synapseWeights.data();
        d.delay = m_delay;
        d.pending = m_pending.data();
        return d;
    }

    void set(const std::string& name, const Tensor& value)
    {
        if (Status s = m_p->setAttribute(name, value); !s.ok) {
            throw Error("CUDA backend: cannot store the delayed deliveries of " + m_p->className() +
                        " '" + m_p->fullName() + "': " + s.message);
        }
    }

    SparseProjection* m_p;
    kn::DeviceArray<std::int64_t> m_rowStart;
    kn::DeviceArray<std::int32_t> m_targets;
    kn::DeviceFloats m_synapseWeights;  ///< parallel to m_targets; empty: every synapse m_weight
    kn::DeviceFloats m_pending;  ///< (delay, Ndst) ring as of load()
    std::int64_t m_head = 0;
    float m_weight = 0.0F;  ///< as of load(), like the ring's size
    std::int64_t m_delay = 0;
};

}  // namespace

std::unique_ptr<DeviceProjection> DenseProjection::makeDeviceProjection()
{
    return std::make_unique<DenseTwin>(*this);
}

std::unique_ptr<DeviceProjection> OneToOneProjection::makeDeviceProjection()
{
    return std::make_unique<OneToOneTwin>(*this);
}

std::unique_ptr<DeviceProjection> SparseProjection::makeDeviceProjection()
{
    return std::make_unique<SparseTwin>(*this);
}

}  // namespace spike::engine
