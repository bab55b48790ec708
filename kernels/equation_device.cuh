// One neuron of an equation population over a span of steps, written once for the two kernels
// that run it: equation_cuda.cu's (one launch per population and step span) and
// fused_group_cuda.cu's (one step at a time inside a fused lock-step group). Internal to
// kernels/: included by .cu files only (anonymous namespace).
#pragma once

#include "kernels/equation_cuda.hpp"

#include <cuda_runtime.h>

namespace spike::kernels {

namespace {

/// Neuron i of population d for steps t0 .. t0 + steps - 1 of the launch's rows: input row t at
/// in + t * inputCount * n, spikes at out[t * n + i], trace k at traces.rows[k][t * n + i]; the
/// time of step t is (firstStep + t) * dt. Copies the slot table into its own (input slots then
/// point at the step's rows), keeps the program's registers in local memory and applies
/// kernels/equation_ops.hpp per instruction, as the CPU executor does per block.
__device__ inline void equationNeuron(const EquationDevice& d, long long i, const float* in,
                                      long long t0, long long steps, float* out,
                                      const EquationTraces& traces)
{
    const long long n = d.n;
    float reg[kEqMaxRegisters];
    float* slot[kEqMaxSlots];
    bool per[kEqMaxSlots];
    for (int s = 0; s < d.slotCount; ++s) {
        slot[s] = d.table[s];
        per[s] = d.perNeuron[s] != 0;
    }
    const long long width = static_cast<long long>(d.inputCount) * n;
    for (long long t = t0; t < t0 + steps; ++t) {
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

}  // namespace spike::kernels
