// The per-element device work of the network kernels, written once for the two ways they run:
// network_cuda.cu's kernels (one launch per node, edge and step span, one thread per element)
// and fused_group_cuda.cu's kernel (a whole lock-step group's chunk in one block, each thread
// taking elements tid, tid + blockDim, ...). Both call these functions, so both round alike and
// as the CPU does (kernels/lif_math.hpp; built with --fmad=false). Internal to kernels/: included
// by .cu files only (anonymous namespace).
#pragma once

#include "kernels/network_cuda.hpp"

#include <cuda_runtime.h>

namespace spike::kernels {

namespace {

/// LIF neuron `i` over `steps` steps, its state in registers. With `p.irec` (recurrent,
/// steps == 1) each synapse adds this step's recurrent input after its external input, as
/// engine/neurons/lif.cpp does.
__device__ inline void lifNeuron(const LifDevice& p, long long i, const float* in, long long steps,
                                 float* out, float* recV, float* recI, float* recR)
{
    const long long n = p.n;
    const long long nSyn = p.nSyn;
    const long long nIn = n * nSyn;
    const long long j0 = i * nSyn;
    const float alpha = p.alpha[i];
    const float bias = p.bias[i];
    const float th = p.threshold[i];
    float v = p.v[i];
    float sp = p.s[i];
    for (long long t = 0; t < steps; ++t) {
        const float* x = in + t * nIn + j0;
        float sum = 0.0F;
        for (long long k = 0; k < nSyn; ++k) {
            const float prev = p.isyn[j0 + k];
            const float cur = p.irec != nullptr
                                  ? lifSynapse(prev + x[k], p.irec[j0 + k], p.beta[j0 + k])
                                  : lifSynapse(prev, x[k], p.beta[j0 + k]);
            p.isyn[j0 + k] = cur;
            sum = k == 0 ? cur : sum + cur;
            if (recI != nullptr) {
                recI[t * nIn + j0 + k] = cur;
            }
            if (recR != nullptr) {
                recR[t * nIn + j0 + k] = p.irec[j0 + k];
            }
        }
        const float vm = lifMembrane(v, alpha, sum, 0.0F, bias);
        sp = lifSpikeCount(vm, th, p.maxSpikes);
        v = lifReset(vm, sp, th);
        out[t * n + i] = sp;
        if (recV != nullptr) {
            recV[t * n + i] = v;
        }
    }
    p.v[i] = v;
    p.s[i] = sp;
}

/// irec[j] = sum over neurons m (in order, silent ones skipped) of s[m] * wRec[m][j].
__device__ inline void lifRecurrentInput(const float* s, const float* wRec, long long n,
                                         long long nIn, long long j, float* irec)
{
    float acc = 0.0F;
    for (long long m = 0; m < n; ++m) {
        const float sm = s[m];
        if (sm != 0.0F) {
            acc += sm * wRec[m * nIn + j];
        }
    }
    irec[j] = acc;
}

/// LIFRefrac neuron `i` over `steps` steps.
__device__ inline void lifRefracNeuron(const LifRefracDevice& p, long long i, const float* in,
                                       long long steps, float* out, float* recV, float* recI,
                                       float* recRho)
{
    const long long n = p.n;
    const float dtMem = p.dtTauMemInv[i];
    const float dtSyn = p.dtTauSynInv[i];
    const float vLeak = p.vLeak[i];
    const float vTh = p.vTh[i];
    const float vReset = p.vReset[i];
    const float rhoReset = p.rhoReset[i];
    float v = p.v[i];
    float cur = p.i[i];
    float rho = p.rho[i];
    float z = p.s[i];
    for (long long t = 0; t < steps; ++t) {
        const float iJump = lifRefracJump(cur, in[t * n + i]);
        const float vDec = lifRefracMembrane(v, dtMem, vLeak, iJump);
        cur = lifRefracCurrent(iJump, dtSyn);
        z = lifRefracSpike(vDec, vTh, rho);
        v = lifRefracVoltage(v, vDec, vTh, vReset, rho);
        rho = lifRefracCounter(rho, z, rhoReset);
        out[t * n + i] = z;
        if (recV != nullptr) {
            recV[t * n + i] = v;
        }
        if (recI != nullptr) {
            recI[t * n + i] = cur;
        }
        if (recRho != nullptr) {
            recRho[t * n + i] = rho;
        }
    }
    p.v[i] = v;
    p.i[i] = cur;
    p.rho[i] = rho;
    p.s[i] = z;
}

/// CUBA neuron `i` over `steps` steps; input row t is [exc n | inh n].
__device__ inline void cubaNeuron(const CubaDevice& p, long long i, const float* in,
                                  long long steps, float* out, float* recV, float* recIExc,
                                  float* recIInh, float* recRefrac)
{
    const long long n = p.n;
    const CubaPropagators prop = p.propagators[i];
    const float vRest = p.vRest[i];
    const float vTh = p.vTh[i];
    const float vReset = p.vReset[i];
    const float refracSteps = p.refracSteps[i];
    float v = p.v[i];
    float iExc = p.iExc[i];
    float iInh = p.iInh[i];
    float refrac = p.refrac[i];
    float z = p.s != nullptr ? p.s[i] : 0.0F;
    for (long long t = 0; t < steps; ++t) {
        const float* x = in + t * 2 * n;
        z = cubaStep(v, iExc, iInh, refrac, x[i], x[n + i], vRest, vTh, vReset, refracSteps, prop);
        out[t * n + i] = z;
        if (recV != nullptr) {
            recV[t * n + i] = v;
        }
        if (recIExc != nullptr) {
            recIExc[t * n + i] = iExc;
        }
        if (recIInh != nullptr) {
            recIInh[t * n + i] = iInh;
        }
        if (recRefrac != nullptr) {
            recRefrac[t * n + i] = refrac;
        }
    }
    p.v[i] = v;
    p.iExc[i] = iExc;
    p.iInh[i] = iInh;
    p.refrac[i] = refrac;
    if (p.s != nullptr) {
        p.s[i] = z;
    }
}

/// post[j] += sum_i x[i] * weight[i][j], the terms added one by one in ascending channel order,
/// silent channels skipped: engine/network/projections.cpp's order, hence its rounding.
__device__ inline void denseColumn(const float* weight, long long nSrc, long long nDst,
                                   const float* x, long long j, float* post)
{
    float acc = post[j];
    for (long long i = 0; i < nSrc; ++i) {
        const float xi = x[i];
        if (xi != 0.0F) {
            acc += xi * weight[i * nDst + j];
        }
    }
    post[j] = acc;
}

/// Synapses first, first + stride, ... of presynaptic channel c (value x != 0) add x * their
/// weight (x * weight for all when weights is null) into dst[target] with atomicAdd.
__device__ inline void scatterSynapses(const long long* rowStart, const int* targets, float weight,
                                       const float* weights, long long c, float x, float* dst,
                                       long long first, long long stride)
{
    const long long end = rowStart[c + 1];
    for (long long s = rowStart[c] + first; s < end; s += stride) {
        atomicAdd(dst + targets[s], x * (weights != nullptr ? weights[s] : weight));
    }
}

}  // namespace

}  // namespace spike::kernels
