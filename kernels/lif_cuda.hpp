// CUDA backend of the LIF layer behind a plain C++ interface (no CUDA syntax here).
//
// Owns nothing between calls: lifForwardCuda() allocates device memory, copies the problem in,
// runs the whole time loop on the device and copies the results out before returning. The
// arithmetic is engine/neurons/lif.cpp's runBatch(), built from the same kernels/lif_math.hpp functions
// in the same order and compiled without FMA contraction, so spikes match the CPU exactly and
// traces to float32 rounding (bit-exact where the recurrent sums are exact). Membrane noise is
// not supported (noise_std 0). Built with CUDA the functions live in lif_cuda.cu and
// cuda_device.cu; without it cuda_unavailable.cpp provides them (reporting "no CUDA").
// Thread: any thread; calls do not share state, but each uses the calling thread's current
// CUDA device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace spike::kernels {

/// True when this build compiled the CUDA kernels (it may still find no device at run time).
bool builtWithCuda();

/// What the CUDA runtime reports about the device the kernels would run on.
struct CudaDeviceInfo {
    bool available = false;       ///< a device is present and can run this build's kernels
    std::string name;             ///< e.g. "NVIDIA H200" ("" when unavailable)
    int major = 0;                ///< compute capability, major
    int minor = 0;                ///< compute capability, minor
    std::size_t memoryBytes = 0;  ///< [bytes] total global memory
    std::string reason;           ///< why unavailable ("built without CUDA", "no CUDA device: ...")
};

/// Queries the current CUDA device. Never throws and never crashes when there is no driver or
/// no device: it reports that in `reason` instead.
CudaDeviceInfo queryCudaDevice();

/// Most neurons a recurrent layer may have on the CUDA backend (one thread block per batch).
inline constexpr std::int64_t kMaxRecurrentNeurons = 1024;

/// One LIF evolution, all arrays float32 on the host in C (row-major) order. Input channel j
/// feeds neuron j / nSyn, synapse j % nSyn, as in engine/neurons/lif.hpp.
struct LifProblem {
    std::int64_t batches = 0;  ///< B
    std::int64_t steps = 0;    ///< T
    std::int64_t nIn = 0;      ///< input channels = nOut * nSyn
    std::int64_t nOut = 0;     ///< neurons
    std::int64_t nSyn = 1;     ///< synapses per neuron

    const float* input = nullptr;      ///< (B, T, nIn) input currents per step
    const float* alpha = nullptr;      ///< (nOut) membrane decay per step
    const float* beta = nullptr;       ///< (nOut * nSyn) synaptic decay per step
    const float* bias = nullptr;       ///< (nOut) added to the membrane every step
    const float* threshold = nullptr;  ///< (nOut) firing threshold (> 0)
    float maxSpikes = 65536.0F;        ///< most spikes one neuron emits in one step
    const float* wRec = nullptr;       ///< (nOut, nIn) recurrent weights; nullptr = feed-forward

    /// Initial state, the same for every batch element; nullptr means zeros.
    const float* initialVmem = nullptr;    ///< (nOut)
    const float* initialIsyn = nullptr;    ///< (nOut * nSyn)
    const float* initialSpikes = nullptr;  ///< (nOut) spikes of the step before the first

    float* spikes = nullptr;   ///< out (B, T, nOut) spike counts; required
    float* recVmem = nullptr;  ///< out (B, T, nOut) vmem after reset; nullptr = not recorded
    float* recIsyn = nullptr;  ///< out (B, T, nIn) synaptic currents; nullptr = not recorded
    float* recIrec = nullptr;  ///< out (B, T, nIn) recurrent input (wRec only); nullptr = not recorded

    /// Final state of batch element 0 (engine semantics); each nullptr = not wanted.
    float* finalVmem = nullptr;    ///< out (nOut)
    float* finalIsyn = nullptr;    ///< out (nOut * nSyn)
    float* finalSpikes = nullptr;  ///< out (nOut)

    /// Most time steps per host-to-device transfer; 0 chooses from a fixed memory budget.
    std::int64_t maxChunkSteps = 0;
};

/// Runs `p` on the current CUDA device. Throws std::invalid_argument for a malformed problem
/// (bad sizes, missing required pointers) and std::runtime_error, with a message naming the
/// cause, when the build has no CUDA, no device is usable, the problem exceeds the backend's
/// limits (recurrent with more than kMaxRecurrentNeurons neurons) or any CUDA call fails.
/// A build without CUDA always throws std::runtime_error, before looking at `p`. Output
/// buffers may be partly written when it throws.
void lifForwardCuda(const LifProblem& p);

}  // namespace spike::kernels
