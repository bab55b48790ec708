// EquationNeuron's device twin: the CUDA executor runs an equation population on
// kernels::equationStepsCuda through it (see engine/core/device_runner.hpp). It uploads the
// compiled step program and every parameter array exactly as the CPU population holds them
// (the exact method's propagators included, computed on the host), so both backends run the
// same instructions on the same numbers.
#include "engine/core/device_runner.hpp"
#include "engine/neurons/equation_neuron.hpp"
#include "kernels/equation_cuda.hpp"

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
        m_arrays.clear();
        m_arrays.resize(c.slotInfo.size());
        std::vector<float*> pointers(c.slotInfo.size(), nullptr);
        std::vector<std::uint8_t> perNeuron(c.slotInfo.size(), 0);
        for (std::size_t s = 0; s < c.slotInfo.size(); ++s) {
            const eq::SlotBinding& b = pop.binding(s);
            switch (c.slotInfo[s].kind) {
            case eq::SlotKind::State:
            case eq::SlotKind::Refractory:
            case eq::SlotKind::Input:
            case eq::SlotKind::Time:
                perNeuron[s] = c.slotInfo[s].kind == eq::SlotKind::Time ? 0 : 1;
                break;  // states: bound at launch; inputs and time: the kernel's own
            case eq::SlotKind::Spike:
                m_arrays[s] = kn::DeviceFloats(static_cast<std::size_t>(n), "equation spikes");
                pointers[s] = m_arrays[s].data();
                perNeuron[s] = 1;
                break;
            default:  // parameters and the exact method's matrices, as the CPU holds them
                upload(m_arrays[s], b.data, static_cast<std::size_t>(b.perNeuron ? n : 1), "equation parameters");
                pointers[s] = m_arrays[s].data();
                perNeuron[s] = b.perNeuron ? 1 : 0;
                break;
            }
        }
        m_pointers = pointers;
        upload(m_perNeuron, perNeuron, "equation slot kinds");
    }

    void launch(const float* in, std::int64_t steps, float* out,
                const std::vector<float*>& traceTargets) override
    {
        kn::EquationTraces traces;
        const kn::EquationDevice d = device(traceTargets, traces);
        kn::equationStepsCuda(d, in, steps, out, traces);
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
        return true;
    }

private:
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
        std::size_t stateIndex = 0;
        for (std::size_t k = 0; k < c.stateSlots.size(); ++k, ++stateIndex) {
            pointers[static_cast<std::size_t>(c.stateSlots[k])] = state(stateIndex);
            d.traceSlots[d.traceCount++] = c.stateSlots[k];
        }
        if (c.refractorySlot >= 0) {
            pointers[static_cast<std::size_t>(c.refractorySlot)] = state(stateIndex);
            d.traceSlots[d.traceCount++] = c.refractorySlot;
        }
        for (const std::string& input : c.model.inputs) {
            for (std::size_t s = 0; s < c.slotInfo.size(); ++s) {
                if (c.slotInfo[s].kind == eq::SlotKind::Input && (c.slotInfo[s].name == input || c.slotInfo[s].name == "in_" + input)) {
                    d.inputSlots[d.inputCount++] = static_cast<int>(s);
                }
            }
        }
        upload(m_slotTable, pointers, "equation slot table");
        d.slots = m_slotTable.data();
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
};

}  // namespace

std::unique_ptr<DeviceNeuron> EquationNeuron::makeDeviceNeuron()
{
    return std::make_unique<EquationTwin>(*this);
}

}  // namespace spike::engine
