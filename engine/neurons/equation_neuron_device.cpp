// EquationNeuron's device twin: the CUDA executor runs an equation population through it (see
// engine/core/device_runner.hpp). It uploads the compiled step program and every parameter array
// exactly as the CPU population holds them (the exact method's propagators included, computed on
// the host), so both backends run the same instructions on the same numbers. It runs them as
// device code compiled at run time (engine/equations/device_source.hpp, kernels/equation_jit.hpp)
// once that is ready, and on kernels::equationStepsCuda's interpreter until then, with the same
// bits; when to ask for the code follows the CPU's native code (equations::nativeMode()), and so
// does the disk cache: code an earlier process compiled (its image kept in the native code's
// folder) is used from the first launch.
#include "engine/core/device_runner.hpp"
#include "engine/equations/device_source.hpp"
#include "engine/equations/native.hpp"
#include "engine/neurons/equation_neuron.hpp"
#include "kernels/equation_cuda.hpp"
#include "kernels/equation_jit.hpp"

namespace spike::engine {

namespace kn = spike::kernels;
namespace eq = spike::engine::equations;
using twins::upload;

namespace {

std::vector<std::string> stateNamesOf(const EquationNeuron& layer)
{
    std::vector<std::string> names;
    for (const auto& s : layer.model().states) {
        names.push_back(s.name);
    }
    if (layer.model().refractory) {
        names.emplace_back(layer.model().refractoryIsTime ? "refrac" : "not_refractory");
    }
    return names;
}

class EquationTwin final : public DeviceNeuron {
public:
    explicit EquationTwin(EquationNeuron& layer) : DeviceNeuron(layer, stateNamesOf(layer)), m_layer(&layer) {}

    std::string unsupportedReason() const override
    {
        const eq::CompiledModel& c = m_layer->population().compiled();
        if (c.step.registers > kn::kEqMaxRegisters || static_cast<int>(c.slotInfo.size()) > kn::kEqMaxSlots ||
            static_cast<int>(c.model.inputs.size()) > kn::kEqMaxInputs ||
            static_cast<int>(stateNamesOf(*m_layer).size()) > kn::kEqMaxTraces) {
            return "its equations need " + std::to_string(c.step.registers) + " registers and " +
                   std::to_string(c.slotInfo.size()) + " arrays; the CUDA kernel holds at most " +
                   std::to_string(kn::kEqMaxRegisters) + " and " + std::to_string(kn::kEqMaxSlots);
        }
        return {};
    }

protected:
    void loadParameters() override
    {
        const eq::Population& pop = m_layer->population();
        const eq::CompiledModel& c = pop.compiled();
        const std::int64_t n = m_layer->nNeurons();
        upload(m_code, c.step.code, "equation program");
        const eq::DeviceLayout layout = eq::deviceLayout(pop);
        m_layout = layout;
        m_arrays.clear();
        m_arrays.resize(c.slotInfo.size());
        std::vector<float*> pointers(c.slotInfo.size(), nullptr);
        for (std::size_t s = 0; s < c.slotInfo.size(); ++s) {
            switch (c.slotInfo[s].kind) {
            case eq::SlotKind::State:
            case eq::SlotKind::Refractory:
            case eq::SlotKind::Input:
            case eq::SlotKind::Time:
                break;  // states: bound at launch; inputs and time: the kernel's own
            case eq::SlotKind::Spike:
                m_arrays[s] = kn::DeviceFloats(static_cast<std::size_t>(n), "equation spikes");
                pointers[s] = m_arrays[s].data();
                break;
            default: {  // parameters and the exact method's matrices, as the CPU holds them
                const eq::SlotBinding& b = pop.binding(s);
                upload(m_arrays[s], b.data, static_cast<std::size_t>(b.perNeuron ? n : 1), "equation parameters");
                pointers[s] = m_arrays[s].data();
                break;
            }
            }
        }
        m_pointers = pointers;
        upload(m_perNeuron, std::vector<std::uint8_t>(layout.perNeuron.begin(), layout.perNeuron.end()),
               "equation slot kinds");
        m_jitSource.clear();
        m_jitProblem.clear();
        m_jit = {};
        try {
            m_jitSource = eq::deviceSource(c.step, layout);
        } catch (const std::exception& e) {
            m_jitProblem = e.what();
        }
        m_cacheDir = eq::nativeCacheDir();
        if (m_jitProblem.empty() && eq::nativeMode() != eq::NativeMode::Off) {
            m_jit = kn::equationJitCached(m_jitSource, m_cacheDir);  // an earlier run's: used at once
        }
    }

    void launch(const float* in, std::int64_t steps, float* out,
                const std::vector<float*>& traceTargets) override
    {
        kn::EquationTraces traces;
        const kn::EquationDevice d = device(traceTargets, traces);
        const kn::EquationJit code = deviceCode();
        m_neuronSteps += d.n * steps;
        if (code.kind == kn::EquationJit::Kind::Ready) {
            try {
                kn::equationStepsJit(code, d, in, steps, out, traces);
                report(true, code);
                return;
            } catch (const std::runtime_error& e) {  // not launched: interpret this and later launches
                m_jitProblem = e.what();
            }
        }
        kn::equationStepsCuda(d, in, steps, out, traces);
        report(false, code);
    }

public:
    bool appendFusedStep(const float* in, float* out, const std::vector<float*>& traceTargets,
                         std::vector<kn::FusedOp>& ops) override
    {
        kn::FusedOp op = kn::makeFusedOp(kn::FusedKind::Equation);
        op.equation = device(traceTargets, op.equationTraces);
        op.src = in;
        op.srcStride = op.equation.inputCount * op.equation.n;
        op.dst = out;
        op.dstStride = op.equation.n;
        ops.push_back(op);
        if (m_reported != kFusedKey) {  // the fused kernel runs the interpreter's equationNeuron
            m_reported = kFusedKey;
            m_layer->setDeviceExecutionStatus("interpreted on the device (in a fused cycle, whose kernel interprets)");
        }
        return true;
    }

private:
    /// This layout's device code as far as it goes: asked for at once in Sync mode (and waited
    /// for), after kNativeAfterNeuronSteps neuron-steps in Async mode, never when native code is off.
    kn::EquationJit deviceCode()
    {
        const eq::NativeMode mode = eq::nativeMode();
        if (!m_jitProblem.empty() || m_jitSource.empty() || mode == eq::NativeMode::Off) {
            return {};
        }
        if (m_jit.kind == kn::EquationJit::Kind::Ready || m_jit.kind == kn::EquationJit::Kind::Failed) {
            return m_jit;  // settled for this layout: no lookup per launch
        }
        const bool sync = mode == eq::NativeMode::Sync;
        m_jit = kn::equationJit(m_jitSource, sync || m_neuronSteps >= eq::kNativeAfterNeuronSteps, sync, m_cacheDir);
        return m_jit;
    }

    /// Tells the layer how this launch ran, when that changed (no string work per launch).
    void report(bool compiled, const kn::EquationJit& code)
    {
        const int key = compiled ? -1
                                 : static_cast<int>(code.kind) + (m_jitProblem.empty() ? 0 : 10) +
                                       (eq::nativeMode() == eq::NativeMode::Off ? 20 : 0);
        if (key != m_reported) {
            m_reported = key;
            m_layer->setDeviceExecutionStatus(compiled ? "device code (" + code.message + ")" : interpretedBecause(code));
        }
    }

    std::string interpretedBecause(const kn::EquationJit& code) const
    {
        if (!m_jitProblem.empty()) {
            return "interpreted on the device: " + m_jitProblem;
        }
        if (eq::nativeMode() == eq::NativeMode::Off) {
            return "interpreted on the device (native code off)";
        }
        switch (code.kind) {
        case kn::EquationJit::Kind::Pending: return "interpreted on the device (device code compiling)";
        case kn::EquationJit::Kind::Failed: return "interpreted on the device: " + code.message;
        default:
            return "interpreted on the device (device code is compiled after " +
                   std::to_string(eq::kNativeAfterNeuronSteps) + " neuron-steps)";
        }
    }

    /// The population as the kernels take it, its slot table uploaded (states bound), and the
    /// trace targets in `traces`.
    kn::EquationDevice device(const std::vector<float*>& traceTargets, kn::EquationTraces& traces)
    {
        const eq::CompiledModel& c = m_layer->population().compiled();
        std::vector<float*> pointers = m_pointers;
        kn::EquationDevice d;
        d.n = m_layer->nNeurons();
        d.code = m_code.data();
        d.length = static_cast<int>(c.step.code.size());
        d.registers = c.step.registers;
        d.slotCount = static_cast<int>(c.slotInfo.size());
        d.timeSlot = c.timeSlot;
        d.spikeSlot = c.spikeSlot;
        d.dt = c.dt;
        d.firstStep = m_layer->stepsElapsed();
        const std::vector<int>& traceSlots = m_layout.traceSlots;
        for (std::size_t k = 0; k < traceSlots.size(); ++k) {  // the states are the twin's, in this order
            pointers[static_cast<std::size_t>(traceSlots[k])] = state(k);
            d.traceSlots[d.traceCount++] = traceSlots[k];
        }
        for (const int s : m_layout.inputSlots) {
            d.inputSlots[d.inputCount++] = s;
        }
        upload(m_slotTable, pointers, "equation slot table");
        d.table = m_slotTable.data();
        d.perNeuron = m_perNeuron.data();
        for (int k = 0; k < d.traceCount; ++k) {
            traces.rows[k] = traceTargets.at(static_cast<std::size_t>(k));
        }
        return d;
    }

    EquationNeuron* m_layer;
    kn::DeviceArray<kn::EqInstruction> m_code;
    std::vector<kn::DeviceFloats> m_arrays;  ///< per slot: its device array, when the twin owns one
    std::vector<float*> m_pointers;          ///< per slot: device pointer (states bound at launch)
    kn::DeviceArray<std::uint8_t> m_perNeuron;
    kn::DeviceArray<float*> m_slotTable;
    eq::DeviceLayout m_layout;  ///< of the loaded parameters
    std::string m_jitSource;    ///< the device source of the loaded layout ("" when it has none)
    std::string m_jitProblem;   ///< why this layout runs interpreted regardless ("" when it need not)
    std::string m_cacheDir;     ///< where device images are kept between processes (the native code's folder)
    kn::EquationJit m_jit;      ///< its device code as last asked
    std::int64_t m_neuronSteps = 0;  ///< launched so far (when Async mode asks for device code)
    int m_reported = -100;           ///< the last report()'s key
    static constexpr int kFusedKey = 100;  ///< m_reported when a fused cycle runs it
};

}  // namespace

std::string EquationNeuron::deviceExecutionStatus() const
{
    const std::lock_guard lock(m_deviceStatusMutex);
    return m_deviceStatus;
}

void EquationNeuron::setDeviceExecutionStatus(std::string status)
{
    const std::lock_guard lock(m_deviceStatusMutex);
    m_deviceStatus = std::move(status);
}

std::unique_ptr<DeviceNeuron> EquationNeuron::makeDeviceNeuron()
{
    return std::make_unique<EquationTwin>(*this);
}

}  // namespace spike::engine
