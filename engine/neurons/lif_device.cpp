// LIF's device twin: the CUDA executor runs a LIF on kernels::lifStepsCuda through it (see
// engine/core/device_runner.hpp). Parameters are expanded as the CPU caches them, so the kernels
// see bit-identical inputs; a LIF with membrane noise stays on the host.
#include "engine/neurons/lif.hpp"
#include "engine/core/device_runner.hpp"

namespace spike::engine {

namespace kn = spike::kernels;
using twins::copyInto;
using twins::expanded;
using twins::PackedParameters;
using twins::upload;

namespace {

class LifTwin final : public DeviceNeuron {
public:
    explicit LifTwin(LIF& lif) : DeviceNeuron(lif, {"vmem", "isyn", "spikes"}), m_lif(&lif) {}

    std::string unsupportedReason() const override
    {
        if (m_lif->tensor("noise_std")[0] > 0.0F) {
            return "membrane noise (noise_std > 0) is drawn by the CPU's generator";
        }
        return {};
    }

protected:
    void loadParameters() override
    {
        const std::int64_t n = m_lif->nNeurons();
        const std::int64_t nSyn = m_lif->nSynapses();
        m_alphaBiasTh.reset(n, 3);
        copyInto(m_alphaBiasTh.block(0), expanded(m_lif->tensor("alpha"), n, 1));
        copyInto(m_alphaBiasTh.block(1), expanded(m_lif->tensor("bias"), n, 1));
        copyInto(m_alphaBiasTh.block(2), expanded(m_lif->tensor("threshold"), n, 1));
        m_alphaBiasTh.upload("LIF parameters");
        upload(m_beta, expanded(m_lif->tensor("beta"), n, nSyn), "LIF beta");
        if (m_lif->hasRecurrence()) {
            upload(m_wRec, m_lif->tensor("w_rec"), "LIF w_rec");
            if (m_irec.size() != static_cast<std::size_t>(n * nSyn)) {
                m_irec = kn::DeviceFloats(static_cast<std::size_t>(n * nSyn), "LIF irec");
            }
        }
        m_maxSpikes = m_lif->tensor("max_spikes_per_dt")[0];
    }

    void launch(const float* in, std::int64_t steps, float* out,
                const std::vector<float*>& traceTargets) override
    {
        kn::lifStepsCuda(device(), in, steps, out, traceTargets.at(0), traceTargets.at(1),
                         m_lif->hasRecurrence() ? traceTargets.at(2) : nullptr);
    }

public:
    /// A recurrent LIF fuses as two operations (spikes @ w_rec, then the update), as
    /// lifStepsCuda launches it.
    bool appendFusedStep(const float* in, float* out, const std::vector<float*>& traceTargets,
                         std::vector<kn::FusedOp>& ops) override
    {
        const std::int64_t n = m_lif->nNeurons();
        const std::int64_t nIn = n * m_lif->nSynapses();
        const bool recurrent = m_lif->hasRecurrence();
        kn::FusedOp op =
            recurrent ? fusedNeuronOp(kn::FusedKind::Lif, in, nIn, out, n, traceTargets,
                                      {n, nIn, nIn})
                      : fusedNeuronOp(kn::FusedKind::Lif, in, nIn, out, n, traceTargets, {n, nIn});
        op.lif = device();
        if (recurrent) {
            kn::FusedOp rec = kn::makeFusedOp(kn::FusedKind::LifRecurrent);
            rec.lif = op.lif;
            ops.push_back(rec);
        }
        ops.push_back(op);
        return true;
    }

private:
    kn::LifDevice device()
    {
        kn::LifDevice d;
        d.n = m_lif->nNeurons();
        d.nSyn = m_lif->nSynapses();
        d.maxSpikes = m_maxSpikes;
        d.alpha = m_alphaBiasTh.device(0);
        d.bias = m_alphaBiasTh.device(1);
        d.threshold = m_alphaBiasTh.device(2);
        d.beta = m_beta.data();
        d.wRec = m_lif->hasRecurrence() ? m_wRec.data() : nullptr;
        d.irec = m_lif->hasRecurrence() ? m_irec.data() : nullptr;
        d.v = state(0);
        d.isyn = state(1);
        d.s = state(2);
        return d;
    }

    LIF* m_lif;
    PackedParameters m_alphaBiasTh;
    kn::DeviceFloats m_beta, m_wRec, m_irec;
    float m_maxSpikes = 1.0F;
};

}  // namespace

std::unique_ptr<DeviceNeuron> LIF::makeDeviceNeuron()
{
    return std::make_unique<LifTwin>(*this);
}

}  // namespace spike::engine
