// The CUDA emulator the *_cuda_emulated tests run the kernels on (tests/cuda_emulator/): that
// it runs kernels as a GPU would where the kernels depend on it (every thread of every block,
// threads meeting at __syncthreads() through shared memory), and that it refuses what a GPU would
// refuse or silently get wrong: copies in the wrong direction or past an allocation, host
// pointers passed to kernels, impossible launch configurations, divergent barriers, freeing what
// was not allocated. Fresh device memory reads as NaN. Threads and blocks run in the order asked
// for (forward, reverse, shuffled by a seed; from SPIKE_CUDA_EMULATOR_ORDER), so a race the
// forward order hides fails in another.
#include <cuda_runtime.h>

#include <QtCore/QProcess>
#include <QtTest/QtTest>

#include <algorithm>
#include <cmath>
#include <cstdlib>
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

/// Each thread notes when it ran: order[k] is the k-th thread to run, as its index in the grid
/// (block, then thread; x fastest in both).
__global__ void recordOrderKernel(int* counter, int* order)
{
    const int block = static_cast<int>(blockIdx.y * gridDim.x + blockIdx.x);
    const int thread = static_cast<int>(threadIdx.y * blockDim.x + threadIdx.x);
    order[atomicAdd(counter, 1)] = block * static_cast<int>(blockDim.x * blockDim.y) + thread;
}

/// The same for one block's two stretches between barriers: before[k] and after[k]. The notes
/// go through shared memory (a barrier kernel writes no global memory before its first barrier,
/// tests/cuda_emulator/README.md).
__global__ void recordRoundsKernel(int* before, int* after)
{
    SPIKE_DYNAMIC_SHARED(int, notes);  // two counters, then blockDim.x notes per stretch
    const unsigned n = blockDim.x;
    if (threadIdx.x == 0) {
        notes[0] = 0;
        notes[1] = 0;
    }
    __syncthreads();
    notes[2 + atomicAdd(notes, 1)] = static_cast<int>(threadIdx.x);
    __syncthreads();
    notes[2 + n + atomicAdd(notes + 1, 1)] = static_cast<int>(threadIdx.x);
    __syncthreads();
    before[threadIdx.x] = notes[2 + threadIdx.x];
    after[threadIdx.x] = notes[2 + n + threadIdx.x];
}

/// A race: each thread writes its slot of shared memory and reads its left neighbour's with no
/// barrier in between (the barrier after it is too late). out[i] = i - 1 only where thread i - 1
/// happened to run first.
__global__ void neighbourWithoutBarrierKernel(float* out)
{
    SPIKE_DYNAMIC_SHARED(float, tile);
    const unsigned i = threadIdx.x;
    tile[i] = static_cast<float>(i);
    const float left = i > 0 ? tile[i - 1] : 0.0F;
    __syncthreads();
    out[i] = left;
}

template <typename T>
struct DeviceBuffer {
    explicit DeviceBuffer(std::size_t n) : count(n)
    {
        void* ptr = nullptr;
        if (cudaMalloc(&ptr, n * sizeof(T)) != cudaSuccess) {
            qFatal("cudaMalloc failed");
        }
        data = static_cast<T*>(ptr);
    }
    ~DeviceBuffer() { cudaFree(data); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    std::vector<T> read() const
    {
        std::vector<T> host(count);
        if (cudaMemcpy(host.data(), data, count * sizeof(T), cudaMemcpyDeviceToHost) !=
            cudaSuccess) {
            qFatal("cudaMemcpy failed");
        }
        return host;
    }

    T* data = nullptr;
    std::size_t count = 0;
};
using DeviceFloats = DeviceBuffer<float>;
using DeviceInts = DeviceBuffer<int>;

std::vector<int> ascending(int n)
{
    std::vector<int> values(static_cast<std::size_t>(n));
    std::iota(values.begin(), values.end(), 0);
    return values;
}

std::vector<int> descending(int n)
{
    std::vector<int> values = ascending(n);
    std::reverse(values.begin(), values.end());
    return values;
}

bool isPermutation(std::vector<int> values)
{
    std::sort(values.begin(), values.end());
    return values == ascending(static_cast<int>(values.size()));
}

/// The order in which a grid of 3 x 2 blocks of 4 x 2 threads ran.
std::vector<int> launchOrder()
{
    constexpr int kThreads = 3 * 2 * 4 * 2;
    DeviceInts counter(1);
    DeviceInts order(kThreads);
    cudaMemset(counter.data, 0, sizeof(int));
    SPIKE_LAUNCH(recordOrderKernel, dim3(3, 2), dim3(4, 2), 0)(counter.data, order.data);
    return order.read();
}

/// The order of 32 threads in two stretches between barriers.
std::pair<std::vector<int>, std::vector<int>> barrierRounds()
{
    DeviceInts before(32);
    DeviceInts after(32);
    SPIKE_LAUNCH(recordRoundsKernel, 1, 32, (2 + 2 * 32) * sizeof(int))(before.data, after.data);
    return {before.read(), after.read()};
}

/// neighbourWithoutBarrierKernel's out[i] == i - 1 for how many i of 1 .. 63.
int neighboursSeen()
{
    DeviceFloats out(64);
    SPIKE_LAUNCH(neighbourWithoutBarrierKernel, 1, 64, 64 * sizeof(float))(out.data);
    const std::vector<float> values = out.read();
    int seen = 0;
    for (int i = 1; i < 64; ++i) {
        seen += values[static_cast<std::size_t>(i)] == static_cast<float>(i - 1) ? 1 : 0;
    }
    return seen;
}

}  // namespace

class TestCudaEmulator : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { m_order = spike::cudaemu::threadOrder(); }
    void init() { cudaGetLastError(); }
    void cleanup() { spike::cudaemu::setThreadOrder(m_order); }

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

    void threadsAndBlocksRunInTheChosenOrder()
    {
        using spike::cudaemu::ThreadOrder;
        constexpr int kThreads = 48;
        spike::cudaemu::setThreadOrder(ThreadOrder::Forward);
        QCOMPARE(launchOrder(), ascending(kThreads));
        spike::cudaemu::setThreadOrder(ThreadOrder::Reverse);
        QCOMPARE(launchOrder(), descending(kThreads));
        QCOMPARE(spike::cudaemu::threadOrder(), ThreadOrder::Reverse);

        // Shuffled: blocks and each block's threads permuted, a new draw every launch, and the
        // same draws again from the same seed.
        spike::cudaemu::setThreadOrder(ThreadOrder::Shuffled, 11);
        const std::vector<int> first = launchOrder();
        const std::vector<int> second = launchOrder();
        QVERIFY(isPermutation(first));
        QVERIFY(isPermutation(second));
        QVERIFY(first != ascending(kThreads) && first != descending(kThreads));
        QVERIFY(first != second);
        spike::cudaemu::setThreadOrder(ThreadOrder::Shuffled, 11);
        QCOMPARE(launchOrder(), first);
        QCOMPARE(launchOrder(), second);
        spike::cudaemu::setThreadOrder(ThreadOrder::Shuffled, 12);
        QVERIFY(launchOrder() != first);
    }

    void barrierRoundsFollowTheOrder()
    {
        using spike::cudaemu::ThreadOrder;
        spike::cudaemu::setThreadOrder(ThreadOrder::Forward);
        auto [before, after] = barrierRounds();
        QCOMPARE(before, ascending(32));
        QCOMPARE(after, ascending(32));
        spike::cudaemu::setThreadOrder(ThreadOrder::Reverse);
        std::tie(before, after) = barrierRounds();
        QCOMPARE(before, descending(32));
        QCOMPARE(after, descending(32));
        spike::cudaemu::setThreadOrder(ThreadOrder::Shuffled, 3);
        std::tie(before, after) = barrierRounds();
        QVERIFY(isPermutation(before));
        QVERIFY(isPermutation(after));
        QVERIFY(before != ascending(32));
        QVERIFY(before != after);  // every round is drawn anew
    }

    void aRaceTheForwardOrderHidesShowsInTheOthers()
    {
        using spike::cudaemu::ThreadOrder;
        spike::cudaemu::setThreadOrder(ThreadOrder::Forward);
        QCOMPARE(neighboursSeen(), 63);  // looks right: every left neighbour ran first
        spike::cudaemu::setThreadOrder(ThreadOrder::Reverse);
        QCOMPARE(neighboursSeen(), 0);  // none did: each read uninitialised shared memory
        spike::cudaemu::setThreadOrder(ThreadOrder::Shuffled, 5);
        const int seen = neighboursSeen();
        QVERIFY2(seen > 0 && seen < 63, qPrintable(QString::number(seen)));
    }

    /// Run by environmentChoosesTheOrder in a child process with SPIKE_CUDA_EMULATOR_ORDER set:
    /// the first launch follows the variable.
    void orderFollowsTheEnvironment()
    {
        const char* value = std::getenv("SPIKE_CUDA_EMULATOR_ORDER");
        if (value == nullptr || !m_childRun) {
            QSKIP("checked in a child process by environmentChoosesTheOrder");
        }
        const std::vector<int> order = launchOrder();
        const std::string text = value;
        if (text == "reverse") {
            QCOMPARE(order, descending(48));
        } else if (text == "forward") {
            QCOMPARE(order, ascending(48));
        } else {
            QCOMPARE(text, std::string("shuffled:9"));
            spike::cudaemu::setThreadOrder(spike::cudaemu::ThreadOrder::Shuffled, 9);
            QCOMPARE(launchOrder(), order);
        }
    }

    void environmentChoosesTheOrder()
    {
        const auto runChild = [](const QString& order) {
            QProcess child;
            QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
            environment.insert("SPIKE_CUDA_EMULATOR_ORDER", order);
            environment.insert("SPIKE_EMULATOR_TEST_CHILD", "1");
            child.setProcessEnvironment(environment);
            child.start(QCoreApplication::applicationFilePath(), {"orderFollowsTheEnvironment"});
            child.waitForFinished(60000);
            return std::pair{child.exitCode(), QString::fromLocal8Bit(child.readAllStandardOutput() +
                                                                      child.readAllStandardError())};
        };
        for (const QString order : {"forward", "reverse", "shuffled:9"}) {
            const auto [code, output] = runChild(order);
            QVERIFY2(code == 0, qPrintable(order + ": " + output));
            QVERIFY2(output.contains("PASS   : TestCudaEmulator::orderFollowsTheEnvironment()"),
                     qPrintable(order + ": " + output));
        }
        for (const QString order : {"sideways", "shuffled:", "shuffled:x1"}) {
            const auto [code, output] = runChild(order);
            QCOMPARE(code, 2);
            QVERIFY2(output.contains("CUDA emulator: SPIKE_CUDA_EMULATOR_ORDER is \"" + order +
                                     "\"; expected forward, reverse, shuffled or shuffled:SEED"),
                     qPrintable(output));
        }
    }

private:
    spike::cudaemu::ThreadOrder m_order = spike::cudaemu::ThreadOrder::Forward;
    bool m_childRun = std::getenv("SPIKE_EMULATOR_TEST_CHILD") != nullptr;
};

QTEST_GUILESS_MAIN(TestCudaEmulator)
#include "test_cuda_emulator.moc"
