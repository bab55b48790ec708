// The equation-population kernel; see equation_cuda.hpp. One thread per neuron runs
// kernels/equation_device.cuh's equationNeuron over the span of steps.
#include "kernels/equation_cuda.hpp"

#include <cuda_runtime.h>

#include "kernels/cuda_compat.hpp"
#include "kernels/cuda_helpers.cuh"
#include "kernels/equation_device.cuh"

#include <string>

namespace spike::kernels {

namespace {

__global__ void equationKernel(EquationDevice d, const float* in, long long steps, float* out,
                               EquationTraces traces)
{
    const long long i = globalIndex();
    if (i < d.n) {
        equationNeuron(d, i, in, 0, steps, out, traces);
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
