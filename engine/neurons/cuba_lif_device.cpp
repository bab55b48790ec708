// CUBALIF's device twin: the CUDA executor runs a CUBALIF on kernels::cubaStepsCuda through it
// (see engine/core/device_runner.hpp). The propagators and whole refractory steps are derived
// with the same double / float32 operations as on the CPU, so the kernels see bit-identical
// inputs.
#include "engine/neurons/cuba_lif.hpp"
#include "engine/core/device_runner.hpp"

#include <cmath>

namespace spike::engine {

namespace kn = spike::kernels;
using twins::copyInto;
using twins::expanded;
using twins::PackedParameters;
using twins::upload;

namespace {

class CubaTwin final : public DeviceNeuron {
public:
    explicit CubaTwin(CUBALIF& layer)
        : DeviceNeuron(layer, {"v", "i_exc", "i_inh", "refrac"}), m_layer(&layer)
    {
    }

protected:
    void loadParameters() override
    {
        const std::int64_t n = m_layer->nNeurons();
        const float dt = m_layer->tensor("dt")[0];
        const std::vector<float> tauMem = expanded(m_layer->tensor("tau_mem"), n, 1);
        const std::vector<float> tauExc = expanded(m_layer->tensor("tau_exc"), n, 1);
        const std::vector<float> tauInh = expanded(m_layer->tensor("tau_inh"), n, 1);
        const std::vector<float> refractory = expanded(m_layer->tensor("refractory_time"), n, 1);
        std::vector<kn::CubaPropagators> props(static_cast<std::size_t>(n));
        m_params.reset(n, 4);
        copyInto(m_params.block(0), expanded(m_layer->tensor("v_rest"), n, 1));
        copyInto(m_params.block(1), expanded(m_layer->tensor("v_th"), n, 1));
        copyInto(m_params.block(2), expanded(m_layer->tensor("v_reset"), n, 1));
        float* refracSteps = m_params.block(3);
        for (std::size_t i = 0; i < props.size(); ++i) {
            // In double from the float32 values, rounded once (cubaPropagators), as the CPU does.
            props[i] = kn::cubaPropagators(dt, tauMem[i], tauExc[i], tauInh[i]);
            // The whole number of steps the module validated refractory_time / dt to be.
            refracSteps[i] = static_cast<float>(
                std::nearbyint(static_cast<double>(refractory[i]) / static_cast<double>(dt)));
        }
        m_params.upload("CUBALIF parameters");
        upload(m_props, props, "CUBALIF propagators");
    }

    void launch(const float* in, std::int64_t steps, float* out,
                const std::vector<float*>& traceTargets) override
    {
        kn::cubaStepsCuda(device(), in, steps, out, traceTargets.at(0), traceTargets.at(1),
                          traceTargets.at(2), traceTargets.at(3));
    }

public:
    bool appendFusedStep(const float* in, float* out, const std::vector<float*>& traceTargets,
                         std::vector<kn::FusedOp>& ops) override
    {
        const std::int64_t n = m_layer->nNeurons();
        kn::FusedOp op =
            fusedNeuronOp(kn::FusedKind::Cuba, in, 2 * n, out, n, traceTargets, {n, n, n, n});
        op.cuba = device();
        ops.push_back(op);
        return true;
    }

private:
    kn::CubaDevice device()
    {
        kn::CubaDevice d;
        d.n = m_layer->nNeurons();
        d.propagators = m_props.data();
        d.vRest = m_params.device(0);
        d.vTh = m_params.device(1);
        d.vReset = m_params.device(2);
        d.refracSteps = m_params.device(3);
        d.v = state(0);
        d.iExc = state(1);
        d.iInh = state(2);
        d.refrac = state(3);
        return d;
    }

    CUBALIF* m_layer;
    PackedParameters m_params;
    kn::DeviceArray<kn::CubaPropagators> m_props;
};

}  // namespace

std::unique_ptr<DeviceNeuron> CUBALIF::makeDeviceNeuron()
{
    return std::make_unique<CubaTwin>(*this);
}

}  // namespace spike::engine
