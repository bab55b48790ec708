// Per-neuron LIF arithmetic shared by the CPU engine and the CUDA kernels.
//
// These are the exact float32 operations, in Rockpool's order, that both backends execute, so
// the CPU tests exercise the arithmetic the GPU runs. Compiled by nvcc the functions are
// __host__ __device__; by the host compiler they are plain inline functions. Pure functions:
// no state, safe on any thread. Callers must not let the compiler contract a*b+c into an FMA
// (the engine builds with -ffp-contract=off), or results drift from the reference by 1 ulp.
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

}  // namespace spike::kernels
