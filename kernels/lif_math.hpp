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

// ---- CUBA LIF (Brian2's and NEST's classic CUBA benchmark neuron) ---------------------------
// dv/dt = (i_exc + i_inh - (v - v_rest)) / tau_mem (held while refractory),
// di_exc/dt = -i_exc / tau_exc, di_inh/dt = -i_inh / tau_inh, integrated exactly over one step
// with propagators formed once per parameter change (in double, rounded to float32):
//     pMem = exp(-dt / tau_mem), pExc = exp(-dt / tau_exc), pInh = exp(-dt / tau_inh),
//     pMemExc = tau_exc / (tau_exc - tau_mem) * (pExc - pMem)   ((dt / tau_mem) pMem if equal),
//     pMemInh likewise with tau_inh.
// One step of one neuron, in the order the code executes it: the inputs of this step jump the
// currents; the membrane integrates from the jumped currents (or is held while refractory, the
// counter then counting down); the currents decay; a neuron not refractory at the start of the
// step spikes when v > v_th, is reset to v_reset and becomes refractory for refracSteps steps
// counted from the start of the spike step, Brian2's timing (its spike time is the start of the
// step, and it integrates again once timestep(t - lastspike) >= timestep(refractory)): the
// membrane is held, and spikes blocked, in the refracSteps - 1 steps after the spike step, so
// refracSteps 0 and 1 both mean no hold. (NEST's iaf_psc_* hold refracSteps steps after it.)

/// Propagators of one CUBA neuron.
struct CubaPropagators {
    float pMem = 0.0F;     ///< membrane decay per step
    float pExc = 0.0F;     ///< excitatory current decay per step
    float pInh = 0.0F;     ///< inhibitory current decay per step
    float pMemExc = 0.0F;  ///< membrane response to one unit of excitatory current over a step
    float pMemInh = 0.0F;  ///< membrane response to one unit of inhibitory current over a step
};

/// Computes the propagators in double precision (host only use is fine; also valid on device).
SPIKE_HD CubaPropagators cubaPropagators(double dt, double tauMem, double tauExc, double tauInh)
{
    const double pMem = exp(-dt / tauMem);
    const double pExc = exp(-dt / tauExc);
    const double pInh = exp(-dt / tauInh);
    const double mexc = tauExc == tauMem ? (dt / tauMem) * pMem
                                         : tauExc / (tauExc - tauMem) * (pExc - pMem);
    const double minh = tauInh == tauMem ? (dt / tauMem) * pMem
                                         : tauInh / (tauInh - tauMem) * (pInh - pMem);
    return {static_cast<float>(pMem), static_cast<float>(pExc), static_cast<float>(pInh),
            static_cast<float>(mexc), static_cast<float>(minh)};
}

/// Membrane after one step from the (jumped) currents: ((v_rest + (v - v_rest) pMem) +
/// iExc pMemExc) + iInh pMemInh.
SPIKE_HD float cubaMembrane(float v, float vRest, float iExc, float iInh, const CubaPropagators& p)
{
    return ((vRest + (v - vRest) * p.pMem) + iExc * p.pMemExc) + iInh * p.pMemInh;
}

/// One whole step of one neuron; returns the spike (1 or 0). `refrac` counts the steps still to
/// be held (a whole number stored as float; max(refracSteps - 1, 0) right after a spike);
/// `refracSteps` is the refractory period round(refractory_time / dt) [steps].
SPIKE_HD float cubaStep(float& v, float& iExc, float& iInh, float& refrac, float inExc,
                        float inInh, float vRest, float vTh, float vReset, float refracSteps,
                        const CubaPropagators& p)
{
    const float ie = iExc + inExc;
    const float ii = iInh + inInh;
    const bool refractory = refrac > 0.0F;
    const float vm = refractory ? v : cubaMembrane(v, vRest, ie, ii, p);
    iExc = ie * p.pExc;
    iInh = ii * p.pInh;
    const bool spike = !refractory && vm > vTh;
    v = spike ? vReset : vm;
    const float held = refracSteps > 1.0F ? refracSteps - 1.0F : 0.0F;
    refrac = spike ? held : (refractory ? refrac - 1.0F : 0.0F);
    return spike ? 1.0F : 0.0F;
}

}  // namespace spike::kernels
