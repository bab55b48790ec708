// Per-neuron LIF and LIFRefrac arithmetic shared by the CPU engine and the CUDA kernels.
//
// These are the exact float32 operations, in Rockpool's (LIF) and Norse's (LIFRefrac) order,
// that both backends execute, so the CPU tests exercise the arithmetic the GPU runs. Compiled by
// nvcc the functions are __host__ __device__; by the host compiler they are plain inline
// functions. Pure functions: no state, safe on any thread. Callers must not let the compiler
// contract a*b+c into an FMA (the engine builds with -ffp-contract=off), or results drift from
// the reference by 1 ulp.
#pragma once

#include <cmath>

#if defined(__CUDACC__)
#define SPIKE_HD __host__ __device__ inline
#else
#define SPIKE_HD inline
#endif

namespace spike::kernels {

/// Synaptic current after adding this step's input and decaying: (isyn + x) * beta.
SPIKE_HD float lifSynapse(float isyn, float input, float beta)
{
    return (isyn + input) * beta;
}

/// Membrane after leak and integration: ((v * alpha + isynSum) + noise) + bias.
SPIKE_HD float lifMembrane(float v, float alpha, float isynSum, float noise, float bias)
{
    return ((v * alpha + isynSum) + noise) + bias;
}

/// Number of spikes emitted: floor(v / threshold) when v >= threshold, clamped to maxSpikes.
/// (A plain comparison rather than fminf: identical for the finite values involved, and GCC
/// vectorises it where it will not vectorise fminf.)
SPIKE_HD float lifSpikeCount(float v, float threshold, float maxSpikes)
{
    const float count = floorf(v / threshold);
    return v >= threshold ? (count < maxSpikes ? count : maxSpikes) : 0.0F;
}

/// Subtractive reset: v - spikes * threshold.
SPIKE_HD float lifReset(float v, float spikes, float threshold)
{
    return v - spikes * threshold;
}

// ---- LIFRefrac (Norse LIFRefracCell) ------------------------------------------------------
// One step of one neuron, in Norse's order; dtTauMemInv = dt * tau_mem_inv and
// dtTauSynInv = dt * tau_syn_inv are float32 products formed once per parameter change. Spike and
// refractoriness use plain comparisons and selects (no fminf/fmaxf), so GCC vectorises the loop.

/// Synaptic current after this step's input jump: i + x.
SPIKE_HD float lifRefracJump(float i, float input)
{
    return i + input;
}

/// Membrane after leak and integration, before the threshold:
/// v + dtTauMemInv * ((vLeak - v) + iJump).
SPIKE_HD float lifRefracMembrane(float v, float dtTauMemInv, float vLeak, float iJump)
{
    return v + dtTauMemInv * ((vLeak - v) + iJump);
}

/// Synaptic current after its decay: iJump - dtTauSynInv * iJump (Norse: iJump + (-dt *
/// tau_syn_inv) * iJump, the same float32 value).
SPIKE_HD float lifRefracCurrent(float iJump, float dtTauSynInv)
{
    return iJump - dtTauSynInv * iJump;
}

/// Spike (1 or 0): vDec - vTh > 0, blocked while refractory (rho > 0). For finite floats
/// vDec - vTh > 0 exactly when vDec > vTh (gradual underflow), so the comparison is direct.
SPIKE_HD float lifRefracSpike(float vDec, float vTh, float rho)
{
    return (vDec > vTh && !(rho > 0.0F)) ? 1.0F : 0.0F;
}

/// Membrane after the step: the previous v while refractory (rho > 0), else vReset after a
/// threshold crossing, else vDec.
SPIKE_HD float lifRefracVoltage(float vPrev, float vDec, float vTh, float vReset, float rho)
{
    const float reset = vDec > vTh ? vReset : vDec;
    return rho > 0.0F ? vPrev : reset;
}

/// Refractory counter after the step: rhoReset after a spike, else relu(rho - 1) while
/// refractory, else rho unchanged (Norse: relu(rho - heaviside(rho))).
SPIKE_HD float lifRefracCounter(float rho, float spike, float rhoReset)
{
    const float counted = rho - (rho > 0.0F ? 1.0F : 0.0F);
    const float relu = counted > 0.0F ? counted : 0.0F;
    return spike > 0.0F ? rhoReset : relu;
}

}  // namespace spike::kernels
