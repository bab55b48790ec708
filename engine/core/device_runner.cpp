// DeviceNeuron's load / run / store around a model's kernels, and the upload helpers the twins
// share. See device_runner.hpp; the twins themselves live beside their models.
#include "engine/core/device_runner.hpp"

namespace spike::engine {

namespace kn = spike::kernels;

// ---- upload helpers -----------------------------------------------------------------------

namespace twins {

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

void upload(kernels::DeviceFloats& dev, const Tensor& host, const char* what)
{
    upload(dev, host.data(), static_cast<std::size_t>(host.numel()), what);
}

}  // namespace twins

// ---- DeviceNeuron -------------------------------------------------------------------------

DeviceNeuron::DeviceNeuron(Module& module, std::vector<std::string> stateNames) : m_module(&module)
{
    for (std::string& name : stateNames) {
        m_states.push_back({std::move(name), {}});
    }
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

void DeviceNeuron::fusedStepsRan(std::int64_t steps)
{
    m_module->setStepsElapsed(m_module->stepsElapsed() + steps);
}

kn::FusedOp DeviceNeuron::fusedNeuronOp(kn::FusedKind kind, const float* in, std::int64_t inWidth,
                                        float* out, std::int64_t outWidth,
                                        const std::vector<float*>& traceTargets,
                                        std::initializer_list<std::int64_t> traceWidths)
{
    kn::FusedOp op = kn::makeFusedOp(kind);
    op.src = in;
    op.srcStride = inWidth;
    op.dst = out;
    op.dstStride = outWidth;
    std::size_t k = 0;
    for (const std::int64_t width : traceWidths) {
        op.trace[k] = traceTargets.at(k);
        op.traceWidth[k] = width;
        ++k;
    }
    return op;
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

void DeviceNeuron::listStates(DeviceStateScan& scan, int owner) const
{
    for (const State& s : m_states) {
        scan.add(owner, s.name, s.data.data(), static_cast<std::int64_t>(s.data.size()));
    }
}

// ---- DeviceStateScan ----------------------------------------------------------------------

void DeviceStateScan::clear()
{
    m_spans.clear();
    m_owners.clear();
    m_attributes.clear();
}

void DeviceStateScan::add(int owner, std::string_view attribute, const float* data,
                          std::int64_t count)
{
    m_spans.push_back({data, count});
    m_owners.push_back(owner);
    m_attributes.push_back(attribute);
}

std::optional<DeviceStateScan::Found> DeviceStateScan::run()
{
    m_first.resize(m_spans.size());
    kn::firstNonFiniteEach(m_spans.data(), m_spans.size(), m_first.data(), m_scratch);
    for (std::size_t k = 0; k < m_spans.size(); ++k) {
        if (m_first[k] >= 0) {
            float value = 0.0F;
            kn::copyBytes(&value, m_spans[k].data + m_first[k], sizeof(float),
                          kn::CopyKind::DeviceToHost);
            return Found{m_owners[k], {std::string(m_attributes[k]), m_first[k], value}};
        }
    }
    return std::nullopt;
}

}  // namespace spike::engine
