// The CUDA emulator the *_cuda_emulated tests run the kernels on (tests/cuda_emulator/): that
// it runs kernels as a GPU would where the kernels depend on it (every thread of every block,
// threads meeting at __syncthreads() through shared memory), and that it refuses what a GPU would
// refuse or silently get wrong: copies in the wrong direction or past an allocation, host
// pointers passed to kernels, impossible launch configurations, divergent barriers, freeing what
// was not allocated. Fresh device memory reads as NaN.
#include <cuda_runtime.h>

#include <QtTest/QtTest>

#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

namespace {

/// out[b * n + (n - 1 - i)] = in[b * n + i]: each block reverses its n values through shared
/// memory, which is only right if every thread has written before any reads.
__global__ void reverseKernel(const float* in, float* out)
{
    SPIKE_DYNAMIC_SHARED(float, tile);
    const unsigned n = blockDim.x;
    const unsigned i = threadIdx.x;
    tile[i] = in[blockIdx.x * n + i];
    __syncthreads();
    out[blockIdx.x * n + i] = tile[n - 1 - i];
}

/// Grid-stride fill: dst[k] = k for k < count.
__global__ void iotaKernel(float* dst, long long count)
{
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long k = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; k < count;
         k += stride) {
        dst[k] = static_cast<float>(k);
    }
}

/// Odd threads return before the barrier the even ones wait at.
__global__ void divergentBarrierKernel(float* dst)
{
    if (threadIdx.x % 2 == 1) {
        return;
    }
    __syncthreads();
    dst[threadIdx.x] = 1.0F;
}

/// Every thread adds 1 to one counter.
__global__ void countKernel(float* counter)
{
    atomicAdd(counter, 1.0F);
}

struct DeviceFloats {
    explicit DeviceFloats(std::size_t n) : count(n)
    {
        void* ptr = nullptr;
        if (cudaMalloc(&ptr, n * sizeof(float)) != cudaSuccess) {
            qFatal("cudaMalloc failed");
        }
        data = static_cast<float*>(ptr);
    }
    ~DeviceFloats() { cudaFree(data); }
    DeviceFloats(const DeviceFloats&) = delete;
    DeviceFloats& operator=(const DeviceFloats&) = delete;

    std::vector<float> read() const
    {
        std::vector<float> host(count);
        if (cudaMemcpy(host.data(), data, count * sizeof(float), cudaMemcpyDeviceToHost) !=
            cudaSuccess) {
            qFatal("cudaMemcpy failed");
        }
        return host;
    }

    float* data = nullptr;
    std::size_t count = 0;
};

}  // namespace

class TestCudaEmulator : public QObject {
    Q_OBJECT

private slots:
    void init() { cudaGetLastError(); }

    void threadsMeetAtBarriersThroughSharedMemory()
    {
        const unsigned blocks = 3;
        const unsigned threads = 96;
        std::vector<float> in(blocks * threads);
        std::iota(in.begin(), in.end(), 0.0F);
        DeviceFloats dIn(in.size());
        DeviceFloats dOut(in.size());
        QCOMPARE(cudaMemcpy(dIn.data, in.data(), in.size() * sizeof(float),
                            cudaMemcpyHostToDevice),
                 cudaSuccess);
        SPIKE_LAUNCH(reverseKernel, blocks, threads, threads * sizeof(float))(dIn.data, dOut.data);
        QCOMPARE(cudaGetLastError(), cudaSuccess);
        const std::vector<float> out = dOut.read();
        for (unsigned b = 0; b < blocks; ++b) {
            for (unsigned i = 0; i < threads; ++i) {
                QCOMPARE(out[b * threads + i], in[b * threads + (threads - 1 - i)]);
            }
        }
        // A second launch of the same kernel (now known to need barriers) gives the same.
        SPIKE_LAUNCH(reverseKernel, blocks, threads, threads * sizeof(float))(dOut.data, dIn.data);
        QCOMPARE(cudaGetLastError(), cudaSuccess);
        QCOMPARE(dIn.read(), in);
    }

    void everyThreadOfEveryBlockRuns()
    {
        const long long count = 10'000;
        DeviceFloats d(count);
        SPIKE_LAUNCH(iotaKernel, 7, 128, 0)(d.data, count);  // grid-stride: 896 threads
        QCOMPARE(cudaDeviceSynchronize(), cudaSuccess);
        const std::vector<float> out = d.read();
        for (long long k = 0; k < count; ++k) {
            QCOMPARE(out[k], static_cast<float>(k));
        }
        DeviceFloats counter(1);
        QCOMPARE(cudaMemset(counter.data, 0, sizeof(float)), cudaSuccess);
        SPIKE_LAUNCH(countKernel, dim3(4, 2), dim3(32, 2), 0)(counter.data);
        QCOMPARE(counter.read()[0], 4.0F * 2 * 32 * 2);
    }

    void freshDeviceMemoryIsNaN()
    {
        DeviceFloats d(16);
        for (const float x : d.read()) {
            QVERIFY(std::isnan(x));
        }
    }

    void copiesInTheWrongDirectionOrPastTheEndFail()
    {
        DeviceFloats d(8);
        std::vector<float> host(16, 1.0F);
        // Host memory named as the device side, and the device named as the host side.
        QCOMPARE(cudaMemcpy(host.data(), host.data() + 8, 8 * sizeof(float),
                            cudaMemcpyHostToDevice),
                 cudaErrorInvalidValue);
        QVERIFY(std::string(cudaGetErrorString(cudaErrorInvalidValue))
                    .find("is not inside one device allocation") != std::string::npos);
        QCOMPARE(cudaMemcpy(d.data, d.data, 4 * sizeof(float), cudaMemcpyHostToDevice),
                 cudaErrorInvalidValue);
        QVERIFY(std::string(cudaGetErrorString(cudaErrorInvalidValue))
                    .find("is device memory but the copy kind says host") != std::string::npos);
        // One float more than the allocation holds.
        QCOMPARE(cudaMemcpy(d.data, host.data(), 9 * sizeof(float), cudaMemcpyHostToDevice),
                 cudaErrorInvalidValue);
        QCOMPARE(cudaMemcpy2D(host.data(), 8, d.data, 16, 8, 2, cudaMemcpyDeviceToHost),
                 cudaSuccess);
        QCOMPARE(cudaMemcpy2D(host.data(), 8, d.data, 16, 8, 3, cudaMemcpyDeviceToHost),
                 cudaErrorInvalidValue);
        QCOMPARE(cudaMemcpy2D(host.data(), 8, d.data, 4, 8, 1, cudaMemcpyDeviceToHost),
                 cudaErrorInvalidValue);
        QCOMPARE(cudaMemcpy(host.data(), d.data, 8 * sizeof(float), cudaMemcpyDeviceToHost),
                 cudaSuccess);
    }

    void badLaunchesAreReportedAndDoNotRun()
    {
        std::vector<float> host(64, 0.0F);
        SPIKE_LAUNCH(iotaKernel, 1, 64, 0)(host.data(), 64LL);
        QCOMPARE(cudaGetLastError(), cudaErrorInvalidDevicePointer);
        QCOMPARE(host[5], 0.0F);
        QCOMPARE(cudaGetLastError(), cudaSuccess);  // reading the error clears it

        DeviceFloats d(4096);
        SPIKE_LAUNCH(iotaKernel, 1, 2048, 0)(d.data, 4096LL);
        QCOMPARE(cudaGetLastError(), cudaErrorInvalidConfiguration);
        SPIKE_LAUNCH(iotaKernel, 0, 32, 0)(d.data, 4096LL);
        QCOMPARE(cudaGetLastError(), cudaErrorInvalidConfiguration);
        SPIKE_LAUNCH(reverseKernel, 1, 32, 64 * 1024)(d.data, d.data);
        QCOMPARE(cudaGetLastError(), cudaErrorInvalidConfiguration);
        QVERIFY(std::isnan(d.read()[0]));
    }

    void divergentBarrierIsAnError()
    {
        DeviceFloats d(32);
        SPIKE_LAUNCH(divergentBarrierKernel, 1, 32, 0)(d.data);
        QCOMPARE(cudaGetLastError(), cudaErrorLaunchFailure);
        QVERIFY(std::string(cudaGetErrorString(cudaErrorLaunchFailure)).find("divergent barrier") !=
                std::string::npos);
    }

    void allocationsAreTrackedAndFreedOnce()
    {
        const std::size_t before = spike::cudaemu::liveAllocations();
        void* ptr = nullptr;
        QCOMPARE(cudaMalloc(&ptr, 100), cudaSuccess);
        QCOMPARE(spike::cudaemu::liveAllocations(), before + 1);
        QCOMPARE(cudaFree(static_cast<char*>(ptr) + 4), cudaErrorInvalidDevicePointer);
        QCOMPARE(cudaFree(ptr), cudaSuccess);
        QCOMPARE(spike::cudaemu::liveAllocations(), before);
        QCOMPARE(cudaMalloc(&ptr, std::size_t{1} << 40), cudaErrorMemoryAllocation);
        QVERIFY(ptr == nullptr);
        cudaGetLastError();
    }
};

QTEST_GUILESS_MAIN(TestCudaEmulator)
#include "test_cuda_emulator.moc"
