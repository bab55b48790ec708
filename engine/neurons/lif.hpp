// LIF: leaky integrate-and-fire neurons with exponential synapses, Rockpool LIFTorch semantics.
//
// Shape (Nin, Nout), n_synapses = Nin / Nout; input channel j feeds neuron j / n_synapses,
// synapse j % n_synapses (the input row reshaped to (Nout, n_synapses)). Per time step, in the
// order the code executes them (float32 throughout, no fused multiply-add):
//
//     irec   = spikes_prev @ w_rec                 (only with has_rec; w_rec is (Nout, Nin))
//     isyn   = (isyn + x[t] + irec) * beta         reshaped (Nout, n_synapses)
//     vmem   = vmem * alpha + sum_s isyn + noise_std * sqrt(dt) * N(0,1) + bias
//     spikes = vmem >= threshold ? min(floor(vmem / threshold), max_spikes_per_dt) : 0
//     vmem   = vmem - spikes * threshold           (subtractive reset)
//
// Leak modes (the leak_mode attribute chooses which pair is settable; the others are derived
// and stay readable):
//     taus       tau_mem, tau_syn [s]:  alpha = exp(-dt / tau_mem),   beta = exp(-dt / tau_syn)
//     decays     alpha, beta in (0, 1): tau_mem = -dt / ln(alpha),    tau_syn = -dt / ln(beta)
//     bitshifts  dash_mem, dash_syn:    alpha = 1 - 2^-dash_mem,       beta = 1 - 2^-dash_syn
//                and dash = -log2(1 - alpha) when derived (rounded when switching into bitshifts)
//
// States start at zero. Recordable: vmem, isyn, irec (recurrent contribution of that step),
// spikes. The batch loop and the recording are NeuronLayer's; this class runs the steps of one
// batch element. Thread: owned by whichever thread evolves it; evolve() allocates per call, never
// per step.
#pragma once

#include "engine/neurons/neuron_layer.hpp"
#include "engine/tensor/random.hpp"

#include <Eigen/Core>

namespace spike::engine {

/// Rockpool-compatible LIF layer.
class LIF : public NeuronLayer {
public:
    /// Leak mode names, as accepted by the leak_mode attribute.
    static const std::vector<std::string>& leakModes();

    /// Builds a layer of shape (nIn, nOut); nIn must be a positive multiple of nOut.
    /// `initial` overrides initial attribute values (validated; throws Error naming the
    /// attribute). Set "leak_mode" in `initial` to start in decays or bitshifts mode.
    LIF(std::int64_t nIn, std::int64_t nOut, bool hasRec = false, const AttributeMap& initial = {});

    std::string className() const override { return "LIF"; }
    nlohmann::json config() const override;
    std::string extraRepr() const override;

    std::int64_t nSynapses() const { return m_nSyn; }
    std::int64_t nNeurons() const { return sizeOut(); }
    bool hasRecurrence() const { return m_hasRec; }

    /// Its device twin (lif_device.cpp): kernels::lifStepsCuda, unless membrane noise is on.
    std::unique_ptr<DeviceNeuron> makeDeviceNeuron() override;

protected:
    bool derivedUnder(const AttributeSpec& spec, const Lookup& proposed) const override;
    void attributesChanged() override;
    void onResetState() override;
    std::vector<CarriedState> carriedStates() override;
    /// vmem (Nout,), isyn (Nout, n_synapses), then irec (Nout, n_synapses) with has_rec.
    std::vector<Trace> traces() const override;
    void prepareEvolve() override;
    void runBatch(const float* input, std::int64_t steps, float* out,
                  const TraceTargets& traces) override;
    /// Every neuron is independent with one synapse, no recurrence and no noise.
    bool runsInRanges() const override;
    void runRange(const float* input, std::int64_t steps, float* out, const TraceTargets& traces,
                  std::int64_t begin, std::int64_t end) override;

private:
    void registerAttributes();

    std::int64_t m_nSyn = 1;
    bool m_hasRec = false;
    std::string m_mode;  ///< leak mode the derived values were last computed for

    AttributeId m_tauMem, m_tauSyn, m_alpha, m_beta, m_dashMem, m_dashSyn;
    AttributeId m_bias, m_threshold, m_wRec;
    AttributeId m_dt, m_noiseStd, m_maxSpikes, m_learningWindow, m_surrogate, m_leakMode, m_seed;
    AttributeId m_vmem, m_isyn, m_spikes;

    // Per-neuron caches expanded from scalar-or-per-neuron attributes (refreshed on change).
    Eigen::ArrayXf m_alphaN, m_betaNS, m_biasN, m_thresholdN;
    bool m_uniform = false;  ///< all neurons share alpha, beta, bias and threshold
    Random m_rng;
    float m_seededWith = -1.0F;  ///< seed the noise generator was last started from

    // Working state of one batch element during evolve (sized per call, reused per step).
    Eigen::ArrayXf m_v, m_i, m_s, m_noise, m_sum;
    Eigen::Matrix<float, 1, Eigen::Dynamic> m_irec;
};

}  // namespace spike::engine
