// The equation-population kernel; see equation_cuda.hpp. Each thread copies the slot table into
// its own (input slots then point at its step's rows), keeps the program's registers in local
// memory and applies kernels/equation_ops.hpp per instruction, as the CPU executor does per block.
#include "kernels/equation_cuda.hpp"

#include <cuda_runtime.h>

#include "kernels/cuda_compat.hpp"
#include "kernels/cuda_helpers.cuh"

#include <string>

namespace spike::kernels {

namespace {

__global__ void equationKernel(EquationDevice d, const float* in, long long steps, float* out,
                               EquationTraces traces)
{
    const long long i = globalIndex();
    if (i >= d.n) {
        return;
    }
    const long long n = d.n;
    float reg[kEqMaxRegisters];
    float* slot[kEqMaxSlots];
    bool per[kEqMaxSlots];
    for (int s = 0; s < d.slotCount; ++s) {
        slot[s] = d.slots[s];
        per[s] = d.perNeuron[s] != 0;
    }
    const long long width = static_cast<long long>(d.inputCount) * n;
    for (long long t = 0; t < steps; ++t) {
        for (int k = 0; k < d.inputCount; ++k) {
            slot[d.inputSlots[k]] = const_cast<float*>(in) + t * width + static_cast<long long>(k) * n;
            per[d.inputSlots[k]] = true;
        }
        const float time = static_cast<float>(static_cast<double>(d.firstStep + t) * d.dt);
        for (int k = 0; k < d.length; ++k) {
            const EqInstruction ins = d.code[k];
            switch (ins.op) {
            case EqOp::Fill:
                reg[ins.dst] = ins.value;
                break;
            case EqOp::Load:
                reg[ins.dst] = ins.slot == d.timeSlot ? time : (per[ins.slot] ? slot[ins.slot][i] : slot[ins.slot][0]);
                break;
            case EqOp::Store:
                slot[ins.slot][i] = reg[ins.a];
                break;
            case EqOp::Copy:
                reg[ins.dst] = reg[ins.a];
                break;
            default:
                reg[ins.dst] = eqApply(ins.op, reg[ins.a], ins.b >= 0 ? reg[ins.b] : 0.0F,
                                       ins.c >= 0 ? reg[ins.c] : 0.0F);
                break;
            }
        }
        out[t * n + i] = slot[d.spikeSlot][i];
        for (int k = 0; k < d.traceCount; ++k) {
            if (traces.rows[k] != nullptr) {
                traces.rows[k][t * n + i] = slot[d.traceSlots[k]][i];
            }
        }
    }
}

}  // namespace

void equationStepsCuda(const EquationDevice& population, const float* in, std::int64_t steps,
                       float* out, const EquationTraces& traces)
{
    requireNonNegative(steps, "equationStepsCuda steps");
    if (population.registers > kEqMaxRegisters || population.slotCount > kEqMaxSlots ||
        population.inputCount > kEqMaxInputs || population.traceCount > kEqMaxTraces) {
        throw std::invalid_argument("CUDA kernels: an equation program with " +
                                    std::to_string(population.registers) + " registers, " +
                                    std::to_string(population.slotCount) + " slots, " +
                                    std::to_string(population.inputCount) + " inputs and " +
                                    std::to_string(population.traceCount) +
                                    " traces is past the kernel's limits");
    }
    if (steps == 0 || population.n == 0) {
        return;
    }
    SPIKE_LAUNCH(equationKernel, blocksFor(population.n), kBlock, 0)(population, in, steps, out, traces);
    checkLaunch("equationKernel");
}

}  // namespace spike::kernels
