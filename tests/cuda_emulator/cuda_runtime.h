// The CUDA emulator's stand-in for <cuda_runtime.h>: the part of the CUDA runtime API that
// kernels/*.cu use, implemented on the CPU so those files compile as plain C++ and their kernels
// run in the tests on machines without a GPU (tests/cuda_emulator/README.md says what it checks
// and what it cannot).
//
// Only test targets put this directory on their include path; the product never sees it.
// Device memory is host memory the emulator tracks: copies and launches check that every pointer
// lies in the address space its direction names and within its allocation. A kernel launch runs
// every thread of every block before it returns, block after block; threads of a block run one
// after another unless the kernel calls __syncthreads(), in which case they run as fibers that
// all meet at each barrier (a barrier some threads of a block skip is reported as an error).
// Fresh device memory and dynamic shared memory are filled with NaN bytes, so a kernel that
// reads what nobody wrote shows it.
#pragma once

#define SPIKE_CUDA_EMULATOR 1

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#define __global__
#define __device__
#define __host__
#define __shared__
#define __launch_bounds__(...)

using std::isfinite;

enum cudaError_t {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorInvalidDevicePointer = 17,
    cudaErrorLaunchFailure = 719,
};

enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4,
};

struct dim3 {
    unsigned x = 1;
    unsigned y = 1;
    unsigned z = 1;
    constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
};

struct cudaDeviceProp {
    char name[256] = {};
    int major = 0;
    int minor = 0;
    std::size_t totalGlobalMem = 0;
    int maxThreadsPerBlock = 0;
    std::size_t sharedMemPerBlock = 0;
};

struct cudaFuncAttributes {
    int maxThreadsPerBlock = 0;
    std::size_t sharedSizeBytes = 0;
};

/// The executing thread's indices; set by the emulator before it runs or resumes a thread.
extern thread_local dim3 threadIdx;
extern thread_local dim3 blockIdx;
extern thread_local dim3 blockDim;
extern thread_local dim3 gridDim;

const char* cudaGetErrorString(cudaError_t err);
const char* cudaGetErrorName(cudaError_t err);
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
cudaError_t cudaMalloc(void** ptr, std::size_t bytes);
cudaError_t cudaFree(void* ptr);
cudaError_t cudaMemset(void* ptr, int value, std::size_t bytes);
cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemcpy2D(void* dst, std::size_t dpitch, const void* src, std::size_t spitch,
                         std::size_t width, std::size_t height, cudaMemcpyKind kind);
cudaError_t cudaDeviceSynchronize();

template <typename Kernel>
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attributes, Kernel /*kernel*/)
{
    attributes->maxThreadsPerBlock = 1024;
    attributes->sharedSizeBytes = 0;
    return cudaSuccess;
}

void __syncthreads();
float atomicAdd(float* address, float value);
int atomicAdd(int* address, int value);
unsigned long long atomicMin(unsigned long long* address, unsigned long long value);

namespace spike::cudaemu {

/// Type-erased body of one launch: runs the kernel once for the current thread indices.
struct KernelBody {
    virtual ~KernelBody() = default;
    virtual void runThread() = 0;
};

/// Validates the configuration and the pointer arguments, then runs every thread of the grid;
/// records a launch error (for cudaGetLastError) instead when something is wrong.
/// `pointers` lists the kernel's pointer arguments (nullptr ones included).
void launch(const char* kernelName, const void* kernelKey, dim3 grid, dim3 block,
            std::size_t sharedBytes, const void* const* pointers, std::size_t pointerCount,
            KernelBody& body);

/// This block's dynamic shared memory (SPIKE_DYNAMIC_SHARED).
void* dynamicShared();

/// Device allocations not yet freed, and the bytes they hold (for leak checks in tests).
std::size_t liveAllocations();
std::size_t liveBytes();

/// The order in which a launch runs its blocks, and a block its threads (one after another, or,
/// in a kernel with barriers, the threads' stretches between two barriers). A GPU runs them at
/// the same time in no promised order, so a kernel whose results change with this order has a
/// race: a missing __syncthreads(), a block reading what another block of the same launch writes,
/// or float atomics whose order changes a sum. Forward runs thread 0 first; Reverse the last
/// first; Shuffled a new permutation for every block and every barrier round, drawn from `seed`
/// (the same seed repeats a run launch for launch). The first launch takes it from the
/// environment variable SPIKE_CUDA_EMULATOR_ORDER (forward, reverse, shuffled or
/// shuffled:SEED; default forward) unless this was called before.
enum class ThreadOrder { Forward, Reverse, Shuffled };
void setThreadOrder(ThreadOrder order, unsigned long long seed = 1);
ThreadOrder threadOrder();

/// What `kernel<<<grid, block, shared>>>` becomes: SPIKE_LAUNCH(...)(args...) calls operator().
template <typename... Params>
class Launch {
public:
    Launch(const char* name, void (*kernel)(Params...), dim3 grid, dim3 block,
           std::size_t sharedBytes)
        : m_name(name), m_kernel(kernel), m_grid(grid), m_block(block), m_shared(sharedBytes)
    {
    }

    template <typename... Args>
    void operator()(Args&&... args) const
    {
        static_assert(sizeof...(Args) == sizeof...(Params), "kernel argument count");
        // Arguments are converted to the parameter types once, as a launch copies them; each
        // thread then gets its own copy, as each CUDA thread does.
        Body body(m_kernel, std::tuple<std::decay_t<Params>...>(std::forward<Args>(args)...));
        const void* pointers[sizeof...(Params) + 1] = {};
        std::size_t count = 0;
        std::apply(
            [&](const auto&... value) {
                (collectPointer(value, pointers, count), ...);
            },
            body.arguments);
        launch(m_name, reinterpret_cast<const void*>(m_kernel), m_grid, m_block, m_shared, pointers,
               count, body);
    }

private:
    struct Body final : KernelBody {
        Body(void (*kernel)(Params...), std::tuple<std::decay_t<Params>...> args)
            : function(kernel), arguments(std::move(args))
        {
        }
        void runThread() override
        {
            std::tuple<std::decay_t<Params>...> copy = arguments;
            std::apply(function, std::move(copy));
        }
        void (*function)(Params...);
        std::tuple<std::decay_t<Params>...> arguments;
    };

    template <typename T>
    static void collectPointer(const T& value, const void** pointers, std::size_t& count)
    {
        if constexpr (std::is_pointer_v<T>) {
            pointers[count++] = static_cast<const void*>(value);
        }
    }

    const char* m_name;
    void (*m_kernel)(Params...);
    dim3 m_grid;
    dim3 m_block;
    std::size_t m_shared;
};

template <typename... Params>
Launch(const char*, void (*)(Params...), dim3, dim3, std::size_t) -> Launch<Params...>;

}  // namespace spike::cudaemu

#define SPIKE_LAUNCH(kernel, grid, block, sharedBytes) \
    ::spike::cudaemu::Launch(#kernel, kernel, (grid), (block), (sharedBytes))
#define SPIKE_DYNAMIC_SHARED(type, name) \
    type* const name = static_cast<type*>(::spike::cudaemu::dynamicShared())
