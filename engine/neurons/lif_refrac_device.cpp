// LIFRefrac's device twin: the CUDA executor runs a LIFRefrac on kernels::lifRefracStepsCuda
// through it (see engine/core/device_runner.hpp). dt * tau_mem_inv and dt * tau_syn_inv are
// formed with the same float32 products as on the CPU, so the kernels see bit-identical inputs.
#include "engine/neurons/lif_refrac.hpp"
#include "engine/core/device_runner.hpp"

namespace spike::engine {

namespace kn = spike::kernels;
using twins::copyInto;
using twins::expanded;
using twins::PackedParameters;

namespace {

class LifRefracTwin final : public DeviceNeuron {
public:
    explicit LifRefracTwin(LIFRefrac& layer)
        : DeviceNeuron(layer, {"v", "i", "rho", "spikes"}), m_layer(&layer)
    {
    }

protected:
    void loadParameters() override
    {
        const std::int64_t n = m_layer->nNeurons();
        const float dt = m_layer->tensor("dt")[0];
        m_params.reset(n, 6);
        const char* names[] = {"tau_mem_inv", "tau_syn_inv", "v_leak",
                               "v_th",        "v_reset",     "rho_reset"};
        for (std::size_t k = 0; k < 6; ++k) {
            copyInto(m_params.block(k), expanded(m_layer->tensor(names[k]), n, 1));
        }
        // dt * tau_mem_inv and dt * tau_syn_inv: one float32 product each, as the CPU forms them.
        for (std::size_t k = 0; k < 2; ++k) {
            float* rate = m_params.block(k);
            for (std::int64_t i = 0; i < n; ++i) {
                rate[i] = dt * rate[i];
            }
        }
        m_params.upload("LIFRefrac parameters");
    }

    void launch(const float* in, std::int64_t steps, float* out,
                const std::vector<float*>& traceTargets) override
    {
        kn::lifRefracStepsCuda(device(), in, steps, out, traceTargets.at(0), traceTargets.at(1),
                               traceTargets.at(2));
    }

public:
    bool appendFusedStep(const float* in, float* out, const std::vector<float*>& traceTargets,
                         std::vector<kn::FusedOp>& ops) override
    {
        const std::int64_t n = m_layer->nNeurons();
        kn::FusedOp op =
            fusedNeuronOp(kn::FusedKind::LifRefrac, in, n, out, n, traceTargets, {n, n, n});
        op.lifRefrac = device();
        ops.push_back(op);
        return true;
    }

private:
    kn::LifRefracDevice device()
    {
        kn::LifRefracDevice d;
        d.n = m_layer->nNeurons();
        d.dtTauMemInv = m_params.device(0);
        d.dtTauSynInv = m_params.device(1);
        d.vLeak = m_params.device(2);
        d.vTh = m_params.device(3);
        d.vReset = m_params.device(4);
        d.rhoReset = m_params.device(5);
        d.v = state(0);
        d.i = state(1);
        d.rho = state(2);
        d.s = state(3);
        return d;
    }

    LIFRefrac* m_layer;
    PackedParameters m_params;
};

}  // namespace

std::unique_ptr<DeviceNeuron> LIFRefrac::makeDeviceNeuron()
{
    return std::make_unique<LifRefracTwin>(*this);
}

}  // namespace spike::engine
