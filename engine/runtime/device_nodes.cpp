// Device twins of LIF, LIFRefrac, CUBALIF and the three projection types. See device_nodes.hpp.
//
// Parameters are expanded exactly as the CPU caches them (NeuronLayer::expandTo: a scalar to
// every neuron, a per-neuron value to each of its synapses) and derived with the same float32
// or double operations (LIFRefrac's dt * tau_mem_inv, CUBALIF's propagators and whole refractory
// steps), so the kernels see bit-identical inputs. Each population packs its per-neuron
// parameters into one device array and uploads it once per load().
#include "engine/runtime/device_nodes.hpp"

#include "engine/neurons/cuba_lif.hpp"
#include "engine/neurons/lif.hpp"
#include "engine/neurons/lif_refrac.hpp"
#include "engine/network/projections.hpp"

#include <cmath>

namespace spike::engine {

namespace kn = spike::kernels;

namespace {

/// A scalar / (1,) / (n,) / (n, nsyn) attribute as n * nsyn values, neuron-major (the CPU's
/// NeuronLayer::expandTo).
std::vector<float> expanded(const Tensor& t, std::int64_t n, std::int64_t nsyn)
{
    std::vector<float> out(static_cast<std::size_t>(n * nsyn));
    for (std::int64_t i = 0; i < n; ++i) {
        for (std::int64_t k = 0; k < nsyn; ++k) {
            const std::int64_t at = t.numel() == 1 ? 0 : (t.numel() == n ? i : i * nsyn + k);
            out[static_cast<std::size_t>(i * nsyn + k)] = t[at];
        }
    }
    return out;
}

/// Uploads `count` host values into `dev`, reallocating when the size changed.
template <typename T>
void upload(kn::DeviceArray<T>& dev, const T* host, std::size_t count, const char* what)
{
    if (dev.size() != count) {
        dev = kn::DeviceArray<T>(count, what);
    }
    kn::copyBytes(dev.data(), host, count * sizeof(T), kn::CopyKind::HostToDevice);
}

template <typename T>
void upload(kn::DeviceArray<T>& dev, const std::vector<T>& host, const char* what)
{
    upload(dev, host.data(), host.size(), what);
}

/// Uploads a whole tensor.
void upload(kn::DeviceFloats& dev, const Tensor& host, const char* what)
{
    upload(dev, host.data(), static_cast<std::size_t>(host.numel()), what);
}

/// Per-neuron parameters packed as consecutive blocks of n floats in one device array.
class PackedParameters {
public:
    /// Starts a new packing of `blocks` blocks of `n` floats.
    void reset(std::int64_t n, std::size_t blocks)
    {
        m_n = n;
        m_host.assign(static_cast<std::size_t>(n) * blocks, 0.0F);
    }
    float* block(std::size_t k) { return m_host.data() + k * static_cast<std::size_t>(m_n); }
    void upload(const char* what) { engine::upload(m_device, m_host, what); }
    const float* device(std::size_t k) const
    {
        return m_device.data() + k * static_cast<std::size_t>(m_n);
    }

private:
    std::int64_t m_n = 0;
    std::vector<float> m_host;
    kn::DeviceFloats m_device;
};

void copyInto(float* dst, const std::vector<float>& src)
{
    std::copy(src.begin(), src.end(), dst);
}

// ---- LIF ----------------------------------------------------------------------------------

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
        kn::lifStepsCuda(d, in, steps, out, traceTargets.at(0), traceTargets.at(1),
                         m_lif->hasRecurrence() ? traceTargets.at(2) : nullptr);
    }

private:
    LIF* m_lif;
    PackedParameters m_alphaBiasTh;
    kn::DeviceFloats m_beta, m_wRec, m_irec;
    float m_maxSpikes = 1.0F;
};

// ---- LIFRefrac ----------------------------------------------------------------------------

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
        kn::lifRefracStepsCuda(d, in, steps, out, traceTargets.at(0), traceTargets.at(1),
                               traceTargets.at(2));
    }

private:
    LIFRefrac* m_layer;
    PackedParameters m_params;
};

// ---- CUBALIF ------------------------------------------------------------------------------

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
        kn::cubaStepsCuda(d, in, steps, out, traceTargets.at(0), traceTargets.at(1),
                          traceTargets.at(2), traceTargets.at(3));
    }

private:
    CUBALIF* m_layer;
    PackedParameters m_params;
    kn::DeviceArray<kn::CubaPropagators> m_props;
};

// ---- projections --------------------------------------------------------------------------

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

private:
    OneToOneProjection* m_p;
    kn::DeviceFloats m_weight;
};

/// SparseProjection: CSR and the delay ring on the device; the ring head lives on the host.
class SparseTwin final : public DeviceProjection {
public:
    explicit SparseTwin(SparseProjection& p) : m_p(&p) {}

    void load() override
    {
        upload(m_rowStart, m_p->rowStart(), "sparse row starts");
        upload(m_targets, m_p->targets(), "sparse targets");
        upload(m_pending, m_p->tensor("pending"), "sparse pending deliveries");
        m_head = static_cast<std::int64_t>(m_p->tensor("pending_head")[0]);
        m_weight = m_p->weight();
        m_delay = m_p->delaySteps();
    }

    void deliver(const float* pre, std::int64_t preStride, std::int64_t steps, float* post,
                 std::int64_t postStride) override
    {
        kn::SparseDevice d;
        d.nSrc = m_p->sizeSource();
        d.nDst = m_p->sizeTarget();
        d.rowStart = m_rowStart.data();
        d.targets = m_targets.data();
        d.weight = m_weight;
        d.delay = m_delay;
        d.pending = m_pending.data();
        m_head = kn::sparseDeliverCuda(d, m_head, pre, preStride, steps, post, postStride);
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

    std::optional<DeviceNonFinite> findNonFinite() const override
    {
        const auto k =
            kn::firstNonFinite(m_pending.data(), static_cast<std::int64_t>(m_pending.size()));
        if (k < 0) {
            return std::nullopt;
        }
        float value = 0.0F;
        kn::copyBytes(&value, m_pending.data() + k, sizeof(float), kn::CopyKind::DeviceToHost);
        return DeviceNonFinite{"pending", k, value};
    }

private:
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
    kn::DeviceFloats m_pending;  ///< (delay, Ndst) ring as of load()
    std::int64_t m_head = 0;
    float m_weight = 0.0F;  ///< as of load(), like the ring's size
    std::int64_t m_delay = 0;
};

}  // namespace

// ---- DeviceNeuron -------------------------------------------------------------------------

DeviceNeuron::DeviceNeuron(Module& module, std::vector<std::string> stateNames) : m_module(&module)
{
    for (std::string& name : stateNames) {
        m_states.push_back({std::move(name), {}});
    }
}

std::unique_ptr<DeviceNeuron> DeviceNeuron::make(Module& module)
{
    if (auto* lif = dynamic_cast<LIF*>(&module)) {
        return std::make_unique<LifTwin>(*lif);
    }
    if (auto* refrac = dynamic_cast<LIFRefrac*>(&module)) {
        return std::make_unique<LifRefracTwin>(*refrac);
    }
    if (auto* cuba = dynamic_cast<CUBALIF*>(&module)) {
        return std::make_unique<CubaTwin>(*cuba);
    }
    return nullptr;
}

void DeviceNeuron::load()
{
    loadParameters();
    for (State& s : m_states) {
        const Tensor& stored = m_module->tensor(s.name);
        const auto count = static_cast<std::size_t>(stored.numel());
        if (s.data.size() != count) {
            s.data = kn::DeviceFloats(count, "neuron states");
        }
        kn::copyBytes(s.data.data(), stored.data(), count * sizeof(float),
                      kn::CopyKind::HostToDevice);
    }
}

void DeviceNeuron::run(const float* in, std::int64_t steps, float* out,
                       const std::vector<float*>& traceTargets)
{
    launch(in, steps, out, traceTargets);
    m_module->setStepsElapsed(m_module->stepsElapsed() + steps);
}

void DeviceNeuron::store(NodeRunner& runner) const
{
    // The runner's working arrays take the device values, then its store() writes them into the
    // module's States exactly as on the CPU (no validation, no attribute-change side effects).
    // workingStates() hands out read-only views of arrays the runner owns and writes itself;
    // they are writable memory, sized by load() to the stored States.
    runner.load();
    for (const StateArray& w : runner.workingStates()) {
        for (const State& s : m_states) {
            if (s.name != w.attribute) {
                continue;
            }
            if (static_cast<std::size_t>(w.size) != s.data.size()) {
                throw Error("CUDA backend: " + m_module->className() + " '" + m_module->fullName() +
                            "': State '" + s.name + "' has " + std::to_string(w.size) +
                            " values on the host but " + std::to_string(s.data.size()) +
                            " on the device");
            }
            kn::copyBytes(const_cast<float*>(w.data), s.data.data(), s.data.size() * sizeof(float),
                          kn::CopyKind::DeviceToHost);
        }
    }
    runner.store();
}

std::optional<DeviceNonFinite> DeviceNeuron::findNonFinite() const
{
    for (const State& s : m_states) {
        const std::int64_t k =
            kn::firstNonFinite(s.data.data(), static_cast<std::int64_t>(s.data.size()));
        if (k >= 0) {
            float value = 0.0F;
            kn::copyBytes(&value, s.data.data() + k, sizeof(float), kn::CopyKind::DeviceToHost);
            return DeviceNonFinite{s.name, k, value};
        }
    }
    return std::nullopt;
}

// ---- DeviceProjection ---------------------------------------------------------------------

std::unique_ptr<DeviceProjection> DeviceProjection::make(Projection& projection)
{
    if (auto* dense = dynamic_cast<DenseProjection*>(&projection)) {
        return std::make_unique<DenseTwin>(*dense);
    }
    if (auto* one = dynamic_cast<OneToOneProjection*>(&projection)) {
        return std::make_unique<OneToOneTwin>(*one);
    }
    if (auto* sparse = dynamic_cast<SparseProjection*>(&projection)) {
        return std::make_unique<SparseTwin>(*sparse);
    }
    return nullptr;
}

}  // namespace spike::engine
