// Kernels and launchers of the CUDA network executor; see network_cuda.hpp for the interface and
// the summation-order contract, and kernels/lif_math.hpp for the per-neuron arithmetic.
//
// Flat kernels use one thread per element (grid-stride where the element count may exceed one
// grid). Neuron kernels give each thread one neuron for a whole span of steps, its state in
// registers. Everything runs on the default stream; launchers check the launch and leave the
// waiting to the next synchronous copy or deviceSynchronize(). Built with --fmad=false.
#include "kernels/network_cuda.hpp"

#include <cuda_runtime.h>

#include "kernels/cuda_compat.hpp"
#include "kernels/cuda_helpers.cuh"
#include "kernels/network_device.cuh"

#include <climits>
#include <cstring>
#include <stdexcept>
#include <string>

namespace spike::kernels {

namespace {

constexpr int kWarp = 32;

cudaMemcpyKind toCuda(CopyKind kind)
{
    switch (kind) {
    case CopyKind::HostToDevice:
        return cudaMemcpyHostToDevice;
    case CopyKind::DeviceToHost:
        return cudaMemcpyDeviceToHost;
    case CopyKind::DeviceToDevice:
        break;
    }
    return cudaMemcpyDeviceToDevice;
}

__device__ long long gridStride()
{
    return static_cast<long long>(gridDim.x) * blockDim.x;
}

// ---- row arithmetic -----------------------------------------------------------------------

__global__ void zeroKernel(float* dst, long long count)
{
    for (long long k = globalIndex(); k < count; k += gridStride()) {
        dst[k] = 0.0F;
    }
}

__global__ void addRowsKernel(float* dst, long long dstPitch, const float* src, long long srcPitch,
                              long long width, long long rows)
{
    const long long count = width * rows;
    for (long long k = globalIndex(); k < count; k += gridStride()) {
        const long long r = k / width;
        const long long c = k - r * width;
        dst[r * dstPitch + c] += src[r * srcPitch + c];
    }
}

__global__ void gatherColumnsKernel(const float* src, long long srcPitch, long long rows,
                                    const long long* columns, long long count, float* dst)
{
    const long long total = rows * count;
    for (long long k = globalIndex(); k < total; k += gridStride()) {
        const long long r = k / count;
        const long long c = k - r * count;
        dst[k] = src[r * srcPitch + columns[c]];
    }
}

// Up to kBatch arrays per launch, passed by value; blocksPerItem blocks per array.
constexpr int kBatch = 64;

struct ScanBatch {
    const float* data[kBatch];
    long long count[kBatch];
    long long blocksPerItem;
};

__global__ void firstNonFiniteEachKernel(ScanBatch b, unsigned long long* first)
{
    const long long item = blockIdx.x / b.blocksPerItem;
    const long long part = blockIdx.x - item * b.blocksPerItem;
    const long long stride = b.blocksPerItem * blockDim.x;
    for (long long k = part * blockDim.x + threadIdx.x; k < b.count[item]; k += stride) {
        if (!isfinite(b.data[item][k])) {
            atomicMin(first + item, static_cast<unsigned long long>(k));
            return;  // this thread's later elements have larger indices
        }
    }
}

struct CarryBatch {
    float* rows[kBatch];
    long long width[kBatch];
    long long blocksPerItem;
    long long steps;
};

__global__ void carryLastRowsKernel(CarryBatch b)
{
    const long long item = blockIdx.x / b.blocksPerItem;
    const long long part = blockIdx.x - item * b.blocksPerItem;
    const long long stride = b.blocksPerItem * blockDim.x;
    const long long width = b.width[item];
    float* rows = b.rows[item];
    for (long long k = part * blockDim.x + threadIdx.x; k < width; k += stride) {
        rows[k] = rows[b.steps * width + k];
    }
}

/// For each run of at most kBatch of `count` items: fill(i, k) puts item i in slot k of the
/// caller's batch and returns its size, then launch(from, n, blocksPerItem) runs the batch
/// (skipped when all its items are empty). blocksPerItem covers the largest item with kBlock
/// threads per block, at most 1024 blocks (the kernels stride over longer arrays).
template <typename Fill, typename Launch>
void inBatches(std::size_t count, Fill&& fill, Launch&& launch)
{
    for (std::size_t from = 0; from < count; from += kBatch) {
        const std::size_t n = count - from < kBatch ? count - from : kBatch;
        long long longest = 0;
        for (std::size_t k = 0; k < n; ++k) {
            const long long size = fill(from + k, k);
            longest = size > longest ? size : longest;
        }
        if (longest > 0) {
            const long long blocks = (longest + kBlock - 1) / kBlock;
            launch(from, n, blocks > 1024 ? 1024 : blocks);
        }
    }
}

// ---- neurons (kernels/network_device.cuh holds each element's work) -----------------------

__global__ void lifKernel(LifDevice p, const float* in, long long steps, float* out, float* recV,
                          float* recI, float* recR)
{
    const long long i = globalIndex();
    if (i < p.n) {
        lifNeuron(p, i, in, steps, out, recV, recI, recR);
    }
}

__global__ void lifRecurrentInputKernel(const float* s, const float* wRec, long long n,
                                        long long nIn, float* irec)
{
    const long long j = globalIndex();
    if (j < nIn) {
        lifRecurrentInput(s, wRec, n, nIn, j, irec);
    }
}

__global__ void lifRefracKernel(LifRefracDevice p, const float* in, long long steps, float* out,
                                float* recV, float* recI, float* recRho)
{
    const long long i = globalIndex();
    if (i < p.n) {
        lifRefracNeuron(p, i, in, steps, out, recV, recI, recRho);
    }
}

__global__ void cubaKernel(CubaDevice p, const float* in, long long steps, float* out, float* recV,
                           float* recIExc, float* recIInh, float* recRefrac)
{
    const long long i = globalIndex();
    if (i < p.n) {
        cubaNeuron(p, i, in, steps, out, recV, recIExc, recIInh, recRefrac);
    }
}

// ---- projections --------------------------------------------------------------------------

/// Each thread owns one post[t][j] (denseColumn: the CPU's order, hence its rounding).
__global__ void denseKernel(const float* weight, long long nSrc, long long nDst, const float* pre,
                            long long preStride, long long steps, float* post, long long postStride)
{
    const long long total = steps * nDst;
    for (long long k = globalIndex(); k < total; k += gridStride()) {
        const long long t = k / nDst;
        const long long j = k - t * nDst;
        denseColumn(weight, nSrc, nDst, pre + t * preStride, j, post + t * postStride);
    }
}

__global__ void oneToOneKernel(const float* weight, long long weightCount, long long n,
                               const float* pre, long long preStride, long long steps, float* post,
                               long long postStride)
{
    const long long total = steps * n;
    for (long long k = globalIndex(); k < total; k += gridStride()) {
        const long long t = k / n;
        const long long j = k - t * n;
        post[t * postStride + j] += weight[weightCount == 1 ? 0 : j] * pre[t * preStride + j];
    }
}

/// One warp per presynaptic channel: a silent channel exits at once (warp-uniform), an active
/// one spreads its synapses over the lanes, each adding pre * weights[s] (pre * weight for all
/// when weights is null) into dst[target].
__global__ void sparseScatterKernel(const long long* rowStart, const int* targets, float weight,
                                    const float* weights, long long nSrc, const float* pre,
                                    float* dst)
{
    const long long warp = globalIndex() / kWarp;
    const int lane = static_cast<int>(threadIdx.x % kWarp);
    if (warp >= nSrc) {
        return;
    }
    const float x = pre[warp];
    if (x != 0.0F) {
        scatterSynapses(rowStart, targets, weight, weights, warp, x, dst, lane, kWarp);
    }
}

/// post[j] += ring[j]; ring[j] = 0: the deliveries due this step.
__global__ void sparseDrainKernel(float* ring, long long nDst, float* post)
{
    const long long j = globalIndex();
    if (j < nDst) {
        post[j] += ring[j];
        ring[j] = 0.0F;
    }
}

}  // namespace

// ---- memory -------------------------------------------------------------------------------

void* deviceAllocate(std::size_t bytes, const char* what)
{
    if (bytes == 0) {
        return nullptr;
    }
    void* ptr = nullptr;
    check(cudaMalloc(&ptr, bytes),
          "allocating " + std::to_string(bytes) + " bytes of device memory for " + what);
    const cudaError_t err = cudaMemset(ptr, 0, bytes);
    if (err != cudaSuccess) {
        cudaFree(ptr);
        check(err, std::string("clearing the device memory for ") + what);
    }
    return ptr;
}

void deviceRelease(void* ptr) noexcept
{
    if (ptr != nullptr) {
        cudaFree(ptr);
    }
}

void copyBytes(void* dst, const void* src, std::size_t bytes, CopyKind kind)
{
    if (bytes == 0) {
        return;
    }
    check(cudaMemcpy(dst, src, bytes, toCuda(kind)), "copying " + std::to_string(bytes) + " bytes");
}

void copyRows(float* dst, std::int64_t dstPitch, const float* src, std::int64_t srcPitch,
              std::int64_t width, std::int64_t rows, CopyKind kind)
{
    requireNonNegative(width, "copyRows width");
    requireNonNegative(rows, "copyRows rows");
    if (width == 0 || rows == 0) {
        return;
    }
    if (dstPitch < width || srcPitch < width) {
        throw std::invalid_argument("CUDA kernels: copyRows pitches (" + std::to_string(dstPitch) +
                                    ", " + std::to_string(srcPitch) +
                                    ") must be at least the width " + std::to_string(width));
    }
    const auto bytes = [](std::int64_t floats) { return static_cast<std::size_t>(floats) * 4; };
    if (rows == 1 || (dstPitch == width && srcPitch == width)) {
        copyBytes(dst, src, bytes(rows * width), kind);
    } else if (bytes(dstPitch > srcPitch ? dstPitch : srcPitch) <=
               static_cast<std::size_t>(INT_MAX)) {
        check(cudaMemcpy2D(dst, bytes(dstPitch), src, bytes(srcPitch), bytes(width),
                           static_cast<std::size_t>(rows), toCuda(kind)),
              "copying " + std::to_string(rows) + " rows of " + std::to_string(width) + " floats");
    } else {
        for (std::int64_t r = 0; r < rows; ++r) {
            copyBytes(dst + r * dstPitch, src + r * srcPitch, bytes(width), kind);
        }
    }
}

void zeroFloats(float* dst, std::int64_t count)
{
    requireNonNegative(count, "zeroFloats count");
    if (count == 0) {
        return;
    }
    SPIKE_LAUNCH(zeroKernel, blocksFor(count), kBlock, 0)(dst, count);
    checkLaunch("zeroKernel");
}

void deviceSynchronize(const char* what)
{
    check(cudaDeviceSynchronize(), what);
}

// ---- row arithmetic -----------------------------------------------------------------------

void addRows(float* dst, std::int64_t dstPitch, const float* src, std::int64_t srcPitch,
             std::int64_t width, std::int64_t rows)
{
    requireNonNegative(width, "addRows width");
    requireNonNegative(rows, "addRows rows");
    if (width == 0 || rows == 0) {
        return;
    }
    SPIKE_LAUNCH(addRowsKernel, blocksFor(width * rows), kBlock, 0)
        (dst, dstPitch, src, srcPitch, width, rows);
    checkLaunch("addRowsKernel");
}

void gatherColumns(const float* src, std::int64_t srcPitch, std::int64_t rows,
                   const std::int64_t* columns, std::int64_t count, float* dst)
{
    requireNonNegative(rows, "gatherColumns rows");
    requireNonNegative(count, "gatherColumns count");
    if (rows == 0 || count == 0) {
        return;
    }
    SPIKE_LAUNCH(gatherColumnsKernel, blocksFor(rows * count), kBlock, 0)
        (src, srcPitch, rows, reinterpret_cast<const long long*>(columns), count, dst);
    checkLaunch("gatherColumnsKernel");
}

void firstNonFiniteEach(const ScanSpan* spans, std::size_t count, std::int64_t* first,
                        DeviceArray<unsigned long long>& scratch)
{
    if (count == 0) {
        return;
    }
    if (scratch.size() < count) {
        scratch = DeviceArray<unsigned long long>(count, "the non-finite scan results");
    }
    // All ones is ULLONG_MAX: "none found", the identity of atomicMin.
    check(cudaMemset(scratch.data(), 0xFF, count * sizeof(unsigned long long)),
          "clearing the non-finite scan results");
    ScanBatch batch{};
    inBatches(
        count,
        [&](std::size_t i, std::size_t k) {
            requireNonNegative(spans[i].count, "firstNonFiniteEach count");
            batch.data[k] = spans[i].data;
            batch.count[k] = spans[i].count;
            return batch.count[k];
        },
        [&](std::size_t from, std::size_t n, long long blocks) {
            batch.blocksPerItem = blocks;
            SPIKE_LAUNCH(firstNonFiniteEachKernel, static_cast<unsigned>(n * blocks), kBlock, 0)
            (batch, scratch.data() + from);
            checkLaunch("firstNonFiniteEachKernel");
        });
    static_assert(sizeof(unsigned long long) == sizeof(std::int64_t));
    copyBytes(first, scratch.data(), count * sizeof(std::int64_t), CopyKind::DeviceToHost);
    for (std::size_t k = 0; k < count; ++k) {
        unsigned long long raw = 0;
        std::memcpy(&raw, first + k, sizeof(raw));
        first[k] = raw == ULLONG_MAX ? -1 : static_cast<std::int64_t>(raw);
    }
}

void carryLastRows(const CarriedRows* list, std::size_t count, std::int64_t steps)
{
    requireNonNegative(steps, "carryLastRows steps");
    CarryBatch batch{};
    batch.steps = steps;
    inBatches(
        count,
        [&](std::size_t i, std::size_t k) {
            requireNonNegative(list[i].width, "carryLastRows width");
            batch.rows[k] = list[i].rows;
            batch.width[k] = list[i].width;
            return batch.width[k];
        },
        [&](std::size_t /*from*/, std::size_t n, long long blocks) {
            batch.blocksPerItem = blocks;
            SPIKE_LAUNCH(carryLastRowsKernel, static_cast<unsigned>(n * blocks), kBlock, 0)(batch);
            checkLaunch("carryLastRowsKernel");
        });
}

// ---- neurons ------------------------------------------------------------------------------

void lifStepsCuda(const LifDevice& layer, const float* in, std::int64_t steps, float* out,
                  float* recVmem, float* recIsyn, float* recIrec)
{
    requireNonNegative(steps, "lifStepsCuda steps");
    if (steps == 0 || layer.n == 0) {
        return;
    }
    const std::int64_t nIn = layer.n * layer.nSyn;
    if (layer.wRec == nullptr) {
        LifDevice p = layer;
        p.irec = nullptr;
        SPIKE_LAUNCH(lifKernel, blocksFor(layer.n), kBlock, 0)
            (p, in, steps, out, recVmem, recIsyn, nullptr);
        checkLaunch("lifKernel");
        return;
    }
    if (layer.irec == nullptr) {
        throw std::invalid_argument("CUDA kernels: a recurrent LIF needs its irec scratch array");
    }
    for (std::int64_t t = 0; t < steps; ++t) {
        SPIKE_LAUNCH(lifRecurrentInputKernel, blocksFor(nIn), kBlock, 0)
            (layer.s, layer.wRec, layer.n, nIn, layer.irec);
        checkLaunch("lifRecurrentInputKernel");
        SPIKE_LAUNCH(lifKernel, blocksFor(layer.n), kBlock, 0)
            (layer, in + t * nIn, 1, out + t * layer.n,
             recVmem != nullptr ? recVmem + t * layer.n : nullptr,
             recIsyn != nullptr ? recIsyn + t * nIn : nullptr,
             recIrec != nullptr ? recIrec + t * nIn : nullptr);
        checkLaunch("lifKernel");
    }
}

void lifRefracStepsCuda(const LifRefracDevice& layer, const float* in, std::int64_t steps,
                        float* out, float* recV, float* recI, float* recRho)
{
    requireNonNegative(steps, "lifRefracStepsCuda steps");
    if (steps == 0 || layer.n == 0) {
        return;
    }
    SPIKE_LAUNCH(lifRefracKernel, blocksFor(layer.n), kBlock, 0)
        (layer, in, steps, out, recV, recI, recRho);
    checkLaunch("lifRefracKernel");
}

void cubaStepsCuda(const CubaDevice& layer, const float* in, std::int64_t steps, float* out,
                   float* recV, float* recIExc, float* recIInh, float* recRefrac)
{
    requireNonNegative(steps, "cubaStepsCuda steps");
    if (steps == 0 || layer.n == 0) {
        return;
    }
    SPIKE_LAUNCH(cubaKernel, blocksFor(layer.n), kBlock, 0)
        (layer, in, steps, out, recV, recIExc, recIInh, recRefrac);
    checkLaunch("cubaKernel");
}

// ---- projections --------------------------------------------------------------------------

void denseDeliverCuda(const float* weight, std::int64_t nSrc, std::int64_t nDst, const float* pre,
                      std::int64_t preStride, std::int64_t steps, float* post,
                      std::int64_t postStride)
{
    requireNonNegative(steps, "denseDeliverCuda steps");
    if (steps == 0 || nDst == 0 || nSrc == 0) {
        return;
    }
    SPIKE_LAUNCH(denseKernel, blocksFor(steps * nDst), kBlock, 0)
        (weight, nSrc, nDst, pre, preStride, steps, post, postStride);
    checkLaunch("denseKernel");
}

void oneToOneDeliverCuda(const float* weight, std::int64_t weightCount, std::int64_t n,
                         const float* pre, std::int64_t preStride, std::int64_t steps, float* post,
                         std::int64_t postStride)
{
    requireNonNegative(steps, "oneToOneDeliverCuda steps");
    if (weightCount != 1 && weightCount != n) {
        throw std::invalid_argument("CUDA kernels: a one-to-one projection of " +
                                    std::to_string(n) + " channels needs 1 or " +
                                    std::to_string(n) + " weights, not " +
                                    std::to_string(weightCount));
    }
    if (steps == 0 || n == 0) {
        return;
    }
    SPIKE_LAUNCH(oneToOneKernel, blocksFor(steps * n), kBlock, 0)
        (weight, weightCount, n, pre, preStride, steps, post, postStride);
    checkLaunch("oneToOneKernel");
}

std::int64_t sparseDeliverCuda(const SparseDevice& projection, std::int64_t head, const float* pre,
                               std::int64_t preStride, std::int64_t steps, float* post,
                               std::int64_t postStride)
{
    requireNonNegative(steps, "sparseDeliverCuda steps");
    const std::int64_t d = projection.delay;
    if (d > 0 && (projection.pending == nullptr || head < 0 || head >= d)) {
        throw std::invalid_argument("CUDA kernels: a sparse projection with delay " +
                                    std::to_string(d) +
                                    " needs its pending ring and a head in [0, " +
                                    std::to_string(d) + "), got " + std::to_string(head));
    }
    if (projection.nDst == 0) {
        return head;
    }
    const auto scatterBlocks = blocksFor(projection.nSrc * kWarp);
    for (std::int64_t t = 0; t < steps; ++t) {
        float* postRow = post + t * postStride;
        float* dst = postRow;
        if (d > 0) {
            dst = projection.pending + head * projection.nDst;
            SPIKE_LAUNCH(sparseDrainKernel, blocksFor(projection.nDst), kBlock, 0)
                (dst, projection.nDst, postRow);
            checkLaunch("sparseDrainKernel");
            head = (head + 1) % d;
        }
        if (projection.nSrc > 0) {
            SPIKE_LAUNCH(sparseScatterKernel, scatterBlocks, kBlock, 0)
                (reinterpret_cast<const long long*>(projection.rowStart), projection.targets,
                 projection.weight, projection.weights, projection.nSrc, pre + t * preStride,
                 dst);
            checkLaunch("sparseScatterKernel");
        }
    }
    return head;
}

}  // namespace spike::kernels
