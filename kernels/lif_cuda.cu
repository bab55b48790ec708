// CUDA LIF kernels and their launcher lifForwardCuda(); see lif_cuda.hpp for the interface and
// engine/neurons/lif.hpp for the equations.
//
// One thread per (batch element, neuron) loops over time. Feed-forward layers use a flat grid;
// recurrent layers use one block per batch element whose threads exchange the previous step's
// spikes through shared memory between two __syncthreads() per step. Device state (vmem, isyn,
// spikes of every batch element) lives in global memory for the whole call; inputs and outputs
// travel in time chunks sized by a fixed memory budget, each element copied once. Synaptic
// state is stored synapse-major, isyn[k * B * nOut + b * nOut + i], so that a warp's accesses
// coalesce. Built with --fmad=false: every a * b + c rounds twice, as on the CPU.
#include "kernels/lif_cuda.hpp"
#include "kernels/lif_math.hpp"

#include <cuda_runtime.h>

#include "kernels/cuda_compat.hpp"

#include <algorithm>
#include <climits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace spike::kernels {

namespace {

constexpr std::size_t kChunkBudgetBytes = std::size_t{512} << 20;  ///< per chunk, in + out
constexpr std::size_t kMaxPitchBytes = INT_MAX;  ///< cudaMemcpy2D pitches beyond this: per row
constexpr int kFeedForwardBlock = 256;
constexpr int kRecurrentMaxThreads = static_cast<int>(kMaxRecurrentNeurons);  ///< one block

/// Device pointers and sizes of one chunk, passed to the kernels by value.
struct ChunkParams {
    long long batches = 0;
    int nIn = 0;
    int nOut = 0;
    int nSyn = 1;
    int steps = 0;  ///< time steps in this chunk (the time stride of the chunk buffers)
    float maxSpikes = 0.0F;
    const float* alpha = nullptr;
    const float* beta = nullptr;
    const float* bias = nullptr;
    const float* threshold = nullptr;
    const float* wRec = nullptr;
    float* v = nullptr;     ///< (B * nOut)
    float* isyn = nullptr;  ///< (nSyn, B * nOut), synapse-major
    float* s = nullptr;     ///< (B * nOut)
    const float* input = nullptr;  ///< (B, steps, nIn)
    float* spikes = nullptr;       ///< (B, steps, nOut)
    float* recV = nullptr;         ///< (B, steps, nOut) or nullptr
    float* recI = nullptr;         ///< (B, steps, nIn) or nullptr
    float* recR = nullptr;         ///< (B, steps, nIn) or nullptr
};

/// Fills every batch element's state with the initial state (nullptr = zeros).
__global__ void lifInitStateKernel(const float* v0, const float* i0, const float* s0,
                                   long long batches, int nOut, int nSyn, float* v, float* isyn,
                                   float* s)
{
    const long long bn = batches * nOut;
    const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (idx >= bn) {
        return;
    }
    const int i = static_cast<int>(idx % nOut);
    v[idx] = v0 != nullptr ? v0[i] : 0.0F;
    s[idx] = s0 != nullptr ? s0[i] : 0.0F;
    for (int k = 0; k < nSyn; ++k) {
        isyn[k * bn + idx] = i0 != nullptr ? i0[static_cast<long long>(i) * nSyn + k] : 0.0F;
    }
}

/// Feed-forward LIF over one chunk; kOneSynapse keeps the single synaptic current in a register.
template <bool kOneSynapse>
__global__ void lifFeedForwardKernel(ChunkParams p)
{
    const long long bn = p.batches * p.nOut;
    const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (idx >= bn) {
        return;
    }
    const int nSyn = p.nSyn;
    const int i = static_cast<int>(idx % p.nOut);
    const long long b = idx / p.nOut;
    const float alpha = p.alpha[i];
    const float bias = p.bias[i];
    const float th = p.threshold[i];
    const float maxSpikes = p.maxSpikes;
    const float* beta = p.beta + static_cast<long long>(i) * nSyn;

    const float* x = p.input + b * p.steps * p.nIn + static_cast<long long>(i) * nSyn;
    float* spikes = p.spikes + b * p.steps * p.nOut + i;
    float* recV = p.recV != nullptr ? p.recV + b * p.steps * p.nOut + i : nullptr;
    float* recI = p.recI != nullptr ? p.recI + b * p.steps * p.nIn + static_cast<long long>(i) * nSyn
                                    : nullptr;
    float* isyn = p.isyn + idx;  // synapse k at isyn[k * bn]
    float v = p.v[idx];
    float s = p.s[idx];
    float isyn0 = kOneSynapse ? isyn[0] : 0.0F;
    const float beta0 = beta[0];

    for (int t = 0; t < p.steps; ++t) {
        float sum;
        if (kOneSynapse) {
            isyn0 = lifSynapse(isyn0, x[0], beta0);
            sum = isyn0;
            if (recI != nullptr) {
                recI[0] = isyn0;
            }
        } else {
            sum = lifSynapse(isyn[0], x[0], beta0);
            isyn[0] = sum;
            if (recI != nullptr) {
                recI[0] = sum;
            }
            for (int k = 1; k < nSyn; ++k) {
                const float cur = lifSynapse(isyn[k * bn], x[k], beta[k]);
                isyn[k * bn] = cur;
                sum += cur;
                if (recI != nullptr) {
                    recI[k] = cur;
                }
            }
        }
        const float vm = lifMembrane(v, alpha, sum, 0.0F, bias);
        s = lifSpikeCount(vm, th, maxSpikes);
        v = lifReset(vm, s, th);
        *spikes = s;
        if (recV != nullptr) {
            *recV = v;
            recV += p.nOut;
        }
        if (recI != nullptr) {
            recI += p.nIn;
        }
        x += p.nIn;
        spikes += p.nOut;
    }
    p.v[idx] = v;
    p.s[idx] = s;
    if (kOneSynapse) {
        isyn[0] = isyn0;
    }
}

/// Recurrent LIF over one chunk: block b simulates batch element b, thread i neuron i.
/// Dynamic shared memory holds the previous step's spikes of all nOut neurons.
__global__ void __launch_bounds__(kRecurrentMaxThreads) lifRecurrentKernel(ChunkParams p)
{
    SPIKE_DYNAMIC_SHARED(float, sPrev);
    const int nOut = p.nOut;
    const int nIn = p.nIn;
    const int nSyn = p.nSyn;
    const int i = static_cast<int>(threadIdx.x);
    const bool active = i < nOut;
    const long long b = blockIdx.x;
    const long long bn = p.batches * nOut;
    const long long idx = b * nOut + i;

    float v = 0.0F;
    float s = 0.0F;
    float alpha = 0.0F;
    float bias = 0.0F;
    float th = 1.0F;
    const float* beta = nullptr;
    const float* x = nullptr;
    const float* w = nullptr;
    float* isyn = nullptr;
    float* spikes = nullptr;
    float* recV = nullptr;
    float* recI = nullptr;
    float* recR = nullptr;
    if (active) {
        const long long j0 = static_cast<long long>(i) * nSyn;
        v = p.v[idx];
        s = p.s[idx];
        alpha = p.alpha[i];
        bias = p.bias[i];
        th = p.threshold[i];
        beta = p.beta + j0;
        x = p.input + b * p.steps * nIn + j0;
        w = p.wRec + j0;
        isyn = p.isyn + idx;
        spikes = p.spikes + b * p.steps * nOut + i;
        recV = p.recV != nullptr ? p.recV + b * p.steps * nOut + i : nullptr;
        recI = p.recI != nullptr ? p.recI + b * p.steps * nIn + j0 : nullptr;
        recR = p.recR != nullptr ? p.recR + b * p.steps * nIn + j0 : nullptr;
        sPrev[i] = s;
    }
    __syncthreads();

    for (int t = 0; t < p.steps; ++t) {
        if (active) {
            float sum = 0.0F;
            for (int k = 0; k < nSyn; ++k) {
                // irec = spikes_prev @ w_rec, summed in neuron order; silent neurons add
                // exactly nothing, so they are skipped (the branch is warp-uniform).
                float irec = 0.0F;
                for (int m = 0; m < nOut; ++m) {
                    const float sm = sPrev[m];
                    if (sm != 0.0F) {
                        irec += sm * w[static_cast<long long>(m) * nIn + k];
                    }
                }
                const float cur = lifSynapse(isyn[k * bn] + x[k], irec, beta[k]);
                isyn[k * bn] = cur;
                sum = k == 0 ? cur : sum + cur;
                if (recI != nullptr) {
                    recI[k] = cur;
                }
                if (recR != nullptr) {
                    recR[k] = irec;
                }
            }
            const float vm = lifMembrane(v, alpha, sum, 0.0F, bias);
            s = lifSpikeCount(vm, th, p.maxSpikes);
            v = lifReset(vm, s, th);
            *spikes = s;
            spikes += nOut;
            x += nIn;
            if (recV != nullptr) {
                *recV = v;
                recV += nOut;
            }
            if (recI != nullptr) {
                recI += nIn;
            }
            if (recR != nullptr) {
                recR += nIn;
            }
        }
        __syncthreads();  // every thread has read this step's sPrev
        if (active) {
            sPrev[i] = s;
        }
        __syncthreads();  // the new spikes are visible to all
    }
    if (active) {
        p.v[idx] = v;
        p.s[idx] = s;
    }
}

// ---- host side ----------------------------------------------------------------------------

std::string errorText(cudaError_t err)
{
    return std::string(cudaGetErrorString(err)) + " (" + cudaGetErrorName(err) + ")";
}

/// Throws std::runtime_error naming `what` when `err` is not cudaSuccess.
void check(cudaError_t err, const std::string& what)
{
    if (err != cudaSuccess) {
        cudaGetLastError();  // clear a non-sticky error so later calls start clean
        throw std::runtime_error("lifForwardCuda: " + what + " failed: " + errorText(err));
    }
}

struct DeviceFree {
    void operator()(float* ptr) const { cudaFree(ptr); }
};
using DeviceBuffer = std::unique_ptr<float, DeviceFree>;

DeviceBuffer deviceAlloc(std::size_t count, const std::string& what)
{
    if (count == 0) {
        return {};
    }
    void* ptr = nullptr;
    check(cudaMalloc(&ptr, count * sizeof(float)),
          "allocating " + std::to_string(count * sizeof(float)) + " bytes of device memory for " +
              what);
    return DeviceBuffer(static_cast<float*>(ptr));
}

/// A device copy of `count` host floats; empty when `host` is nullptr.
DeviceBuffer upload(const float* host, std::size_t count, const std::string& what)
{
    if (host == nullptr) {
        return {};
    }
    DeviceBuffer buf = deviceAlloc(count, what);
    check(cudaMemcpy(buf.get(), host, count * sizeof(float), cudaMemcpyHostToDevice),
          "copying " + what + " to the device");
    return buf;
}

/// Copies `rows` rows of `width` floats between pitched buffers (pitches in floats).
void copyRows(float* dst, std::size_t dstPitch, const float* src, std::size_t srcPitch,
              std::size_t width, std::size_t rows, cudaMemcpyKind kind, const std::string& what)
{
    if (width == 0 || rows == 0) {
        return;
    }
    if (rows == 1 || (dstPitch == width && srcPitch == width)) {
        check(cudaMemcpy(dst, src, rows * width * sizeof(float), kind), what);
    } else if (std::max(dstPitch, srcPitch) * sizeof(float) <= kMaxPitchBytes) {
        check(cudaMemcpy2D(dst, dstPitch * sizeof(float), src, srcPitch * sizeof(float),
                           width * sizeof(float), rows, kind),
              what);
    } else {
        for (std::size_t r = 0; r < rows; ++r) {
            check(cudaMemcpy(dst + r * dstPitch, src + r * srcPitch, width * sizeof(float), kind),
                  what);
        }
    }
}

void validate(const LifProblem& p)
{
    const auto fail = [](const std::string& message) {
        throw std::invalid_argument("lifForwardCuda: " + message);
    };
    if (p.batches < 0 || p.steps < 0) {
        fail("batches (" + std::to_string(p.batches) + ") and steps (" + std::to_string(p.steps) +
             ") must not be negative");
    }
    if (p.nOut <= 0 || p.nSyn <= 0 || p.nIn != p.nOut * p.nSyn) {
        fail("shape nIn " + std::to_string(p.nIn) + ", nOut " + std::to_string(p.nOut) +
             ", nSyn " + std::to_string(p.nSyn) + " is invalid; need nOut > 0, nSyn > 0 and " +
             "nIn = nOut * nSyn");
    }
    if (p.nIn > INT_MAX) {
        fail("nIn " + std::to_string(p.nIn) + " exceeds the kernels' limit of " +
             std::to_string(INT_MAX));
    }
    if (p.alpha == nullptr || p.beta == nullptr || p.bias == nullptr || p.threshold == nullptr) {
        fail("alpha, beta, bias and threshold are required");
    }
    if (p.batches > 0 && p.steps > 0 && (p.input == nullptr || p.spikes == nullptr)) {
        fail("input and spikes are required");
    }
    if (p.recIrec != nullptr && p.wRec == nullptr) {
        fail("recIrec is only recorded for recurrent layers (wRec is nullptr)");
    }
    if (p.maxChunkSteps < 0) {
        fail("maxChunkSteps must not be negative");
    }
    if (p.wRec != nullptr && p.nOut > kMaxRecurrentNeurons) {
        throw std::runtime_error(
            "lifForwardCuda: recurrent layers are limited to " +
            std::to_string(kMaxRecurrentNeurons) + " neurons on the CUDA backend (one thread " +
            "block per batch element); this one has " + std::to_string(p.nOut) +
            ". Use the CPU backend.");
    }
}

void requireDevice()
{
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        cudaGetLastError();
        throw std::runtime_error("lifForwardCuda: no CUDA device: " + errorText(err));
    }
    if (count <= 0) {
        throw std::runtime_error("lifForwardCuda: no CUDA device: the runtime found none");
    }
}

/// Final state of batch element 0 when nothing was simulated: the initial state.
void copyInitialToFinal(const LifProblem& p)
{
    const auto copyOrZero = [](const float* src, float* dst, std::int64_t n) {
        if (dst == nullptr) {
            return;
        }
        if (src != nullptr) {
            std::copy(src, src + n, dst);
        } else {
            std::fill(dst, dst + n, 0.0F);
        }
    };
    copyOrZero(p.initialVmem, p.finalVmem, p.nOut);
    copyOrZero(p.initialIsyn, p.finalIsyn, p.nIn);
    copyOrZero(p.initialSpikes, p.finalSpikes, p.nOut);
}

}  // namespace

void lifForwardCuda(const LifProblem& p)
{
    validate(p);
    requireDevice();
    if (p.batches == 0 || p.steps == 0) {
        copyInitialToFinal(p);
        return;
    }

    const auto batches = static_cast<std::size_t>(p.batches);
    const auto steps = static_cast<std::size_t>(p.steps);
    const auto nIn = static_cast<std::size_t>(p.nIn);
    const auto nOut = static_cast<std::size_t>(p.nOut);
    const auto nSyn = static_cast<std::size_t>(p.nSyn);
    const bool recurrent = p.wRec != nullptr;
    const std::size_t bn = batches * nOut;

    // Parameters and state, resident for the whole call.
    const DeviceBuffer alpha = upload(p.alpha, nOut, "alpha");
    const DeviceBuffer beta = upload(p.beta, nIn, "beta");
    const DeviceBuffer bias = upload(p.bias, nOut, "bias");
    const DeviceBuffer threshold = upload(p.threshold, nOut, "threshold");
    const DeviceBuffer wRec = upload(p.wRec, nOut * nIn, "wRec");
    const DeviceBuffer v = deviceAlloc(bn, "vmem");
    const DeviceBuffer isyn = deviceAlloc(bn * nSyn, "isyn");
    const DeviceBuffer s = deviceAlloc(bn, "spikes");
    {
        const DeviceBuffer v0 = upload(p.initialVmem, nOut, "initialVmem");
        const DeviceBuffer i0 = upload(p.initialIsyn, nIn, "initialIsyn");
        const DeviceBuffer s0 = upload(p.initialSpikes, nOut, "initialSpikes");
        const auto blocks = static_cast<unsigned>((bn + kFeedForwardBlock - 1) / kFeedForwardBlock);
        SPIKE_LAUNCH(lifInitStateKernel, blocks, kFeedForwardBlock, 0)
            (v0.get(), i0.get(), s0.get(), p.batches, p.nOut, p.nSyn, v.get(), isyn.get(),
             s.get());
        check(cudaGetLastError(), "launching the state initialisation kernel");
        check(cudaDeviceSynchronize(), "initialising the state");
    }

    // Chunk buffers: (B, chunk, ...) slices of the host arrays.
    const std::size_t floatsPerStep =
        batches * (nIn + nOut + (p.recVmem != nullptr ? nOut : 0) +
                   (p.recIsyn != nullptr ? nIn : 0) + (recurrent && p.recIrec != nullptr ? nIn : 0));
    std::size_t chunk = std::clamp<std::size_t>(kChunkBudgetBytes / (floatsPerStep * sizeof(float)),
                                                1, steps);
    if (p.maxChunkSteps > 0) {
        chunk = std::min(chunk, static_cast<std::size_t>(p.maxChunkSteps));
    }
    const DeviceBuffer dIn = deviceAlloc(batches * chunk * nIn, "the input chunk");
    const DeviceBuffer dSpikes = deviceAlloc(batches * chunk * nOut, "the spike chunk");
    const DeviceBuffer dRecV =
        p.recVmem != nullptr ? deviceAlloc(batches * chunk * nOut, "recorded vmem") : DeviceBuffer();
    const DeviceBuffer dRecI =
        p.recIsyn != nullptr ? deviceAlloc(batches * chunk * nIn, "recorded isyn") : DeviceBuffer();
    const DeviceBuffer dRecR = recurrent && p.recIrec != nullptr
                                   ? deviceAlloc(batches * chunk * nIn, "recorded irec")
                                   : DeviceBuffer();

    ChunkParams cp;
    cp.batches = p.batches;
    cp.nIn = static_cast<int>(p.nIn);
    cp.nOut = static_cast<int>(p.nOut);
    cp.nSyn = static_cast<int>(p.nSyn);
    cp.maxSpikes = p.maxSpikes;
    cp.alpha = alpha.get();
    cp.beta = beta.get();
    cp.bias = bias.get();
    cp.threshold = threshold.get();
    cp.wRec = wRec.get();
    cp.v = v.get();
    cp.isyn = isyn.get();
    cp.s = s.get();
    cp.input = dIn.get();
    cp.spikes = dSpikes.get();
    cp.recV = dRecV.get();
    cp.recI = dRecI.get();
    cp.recR = dRecR.get();

    for (std::size_t t0 = 0; t0 < steps; t0 += chunk) {
        const std::size_t tc = std::min(chunk, steps - t0);
        cp.steps = static_cast<int>(tc);
        copyRows(dIn.get(), tc * nIn, p.input + t0 * nIn, steps * nIn, tc * nIn, batches,
                 cudaMemcpyHostToDevice, "copying the input to the device");
        if (recurrent) {
            const auto threads = static_cast<unsigned>((nOut + 31) / 32 * 32);
            const auto blocks = static_cast<unsigned>(batches);
            SPIKE_LAUNCH(lifRecurrentKernel, blocks, threads, nOut * sizeof(float))(cp);
        } else {
            const auto blocks =
                static_cast<unsigned>((bn + kFeedForwardBlock - 1) / kFeedForwardBlock);
            if (nSyn == 1) {
                SPIKE_LAUNCH(lifFeedForwardKernel<true>, blocks, kFeedForwardBlock, 0)(cp);
            } else {
                SPIKE_LAUNCH(lifFeedForwardKernel<false>, blocks, kFeedForwardBlock, 0)(cp);
            }
        }
        check(cudaGetLastError(), "launching the LIF kernel");
        check(cudaDeviceSynchronize(), "running the LIF kernel");
        copyRows(p.spikes + t0 * nOut, steps * nOut, dSpikes.get(), tc * nOut, tc * nOut, batches,
                 cudaMemcpyDeviceToHost, "copying spikes to the host");
        if (p.recVmem != nullptr) {
            copyRows(p.recVmem + t0 * nOut, steps * nOut, dRecV.get(), tc * nOut, tc * nOut,
                     batches, cudaMemcpyDeviceToHost, "copying recorded vmem to the host");
        }
        if (p.recIsyn != nullptr) {
            copyRows(p.recIsyn + t0 * nIn, steps * nIn, dRecI.get(), tc * nIn, tc * nIn, batches,
                     cudaMemcpyDeviceToHost, "copying recorded isyn to the host");
        }
        if (recurrent && p.recIrec != nullptr) {
            copyRows(p.recIrec + t0 * nIn, steps * nIn, dRecR.get(), tc * nIn, tc * nIn, batches,
                     cudaMemcpyDeviceToHost, "copying recorded irec to the host");
        }
    }

    // Final state of batch element 0; isyn comes back synapse-major and is transposed.
    if (p.finalVmem != nullptr) {
        copyRows(p.finalVmem, nOut, v.get(), nOut, nOut, 1, cudaMemcpyDeviceToHost,
                 "copying the final vmem to the host");
    }
    if (p.finalSpikes != nullptr) {
        copyRows(p.finalSpikes, nOut, s.get(), nOut, nOut, 1, cudaMemcpyDeviceToHost,
                 "copying the final spikes to the host");
    }
    if (p.finalIsyn != nullptr) {
        std::vector<float> bySynapse(nIn);
        copyRows(bySynapse.data(), nOut, isyn.get(), bn, nOut, nSyn, cudaMemcpyDeviceToHost,
                 "copying the final isyn to the host");
        for (std::size_t i = 0; i < nOut; ++i) {
            for (std::size_t k = 0; k < nSyn; ++k) {
                p.finalIsyn[i * nSyn + k] = bySynapse[k * nOut + i];
            }
        }
    }
}

}  // namespace spike::kernels
