// The CUDA emulator's runtime: device memory bookkeeping, checked copies, kernel launches with
// sequential or fiber-scheduled threads, and the device functions the kernels call. See
// cuda_runtime.h in this directory for the contract. Thread: any; device memory bookkeeping is
// guarded by one mutex, and a launch runs entirely on the calling thread.
#include "cuda_runtime.h"
#include "emulated_schedule.hpp"

#include <ucontext.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define SPIKE_EMU_ASAN 1
#else
#define SPIKE_EMU_ASAN 0
#endif

thread_local dim3 threadIdx;
thread_local dim3 blockIdx;
thread_local dim3 blockDim;
thread_local dim3 gridDim;

namespace {

constexpr std::size_t kDeviceAlignment = 256;  ///< cudaMalloc's guarantee
constexpr std::size_t kTotalMemory = std::size_t{16} << 30;
constexpr unsigned kMaxThreadsPerBlock = 1024;
constexpr std::size_t kMaxDynamicShared = 48 * 1024;  ///< without an opt-in attribute
constexpr std::size_t kFiberStackBytes = 128 * 1024;

// ---- errors -------------------------------------------------------------------------------

thread_local cudaError_t t_lastError = cudaSuccess;
thread_local std::string t_detail;  ///< what the emulator found wrong, for cudaGetErrorString

cudaError_t fail(cudaError_t err, std::string detail)
{
    t_detail = std::move(detail);
    t_lastError = err;
    std::fprintf(stderr, "CUDA emulator: %s\n", t_detail.c_str());
    return err;
}

// ---- device memory ------------------------------------------------------------------------

struct Allocation {
    std::size_t bytes = 0;
};

std::mutex g_memoryMutex;
std::map<std::uintptr_t, Allocation> g_allocations;  ///< by start address
std::size_t g_liveBytes = 0;

/// At exit, device memory still allocated is a leak (an executor that forgot a buffer): it is
/// reported and the process exits with status 3, so the test that leaked fails.
struct LeakCheck {
    LeakCheck() = default;
    LeakCheck(const LeakCheck&) = delete;
    LeakCheck& operator=(const LeakCheck&) = delete;
    ~LeakCheck()
    {
        std::size_t count = 0;
        std::size_t bytes = 0;
        {
            std::lock_guard lock(g_memoryMutex);
            count = g_allocations.size();
            bytes = g_liveBytes;
        }
        if (count > 0) {
            std::fprintf(stderr,
                         "CUDA emulator: %zu device allocation(s), %zu bytes, were never freed\n",
                         count, bytes);
            std::_Exit(3);
        }
    }
} g_leakCheck;

/// Whether [ptr, ptr + bytes) lies in one live allocation (bytes 0: ptr may be its end).
bool inDevice(const void* ptr, std::size_t bytes)
{
    const auto address = reinterpret_cast<std::uintptr_t>(ptr);
    std::lock_guard lock(g_memoryMutex);
    auto it = g_allocations.upper_bound(address);
    if (it == g_allocations.begin()) {
        return false;
    }
    --it;
    const std::uintptr_t end = it->first + it->second.bytes;
    return address <= end && bytes <= end - address;
}

/// Whether [ptr, ptr + bytes) touches any live allocation.
bool touchesDevice(const void* ptr, std::size_t bytes)
{
    const auto address = reinterpret_cast<std::uintptr_t>(ptr);
    const std::uintptr_t last = address + (bytes > 0 ? bytes - 1 : 0);
    std::lock_guard lock(g_memoryMutex);
    auto it = g_allocations.upper_bound(last);
    if (it == g_allocations.begin()) {
        return false;
    }
    --it;
    return it->first + it->second.bytes > address;
}

std::string describe(const void* ptr)
{
    char text[32];
    std::snprintf(text, sizeof text, "%p", ptr);
    return text;
}

/// Checks one side of a copy: device memory for a device side, not device memory for a host side.
cudaError_t checkSide(const void* ptr, std::size_t bytes, bool device, const char* role,
                      const char* operation)
{
    if (ptr == nullptr) {
        return fail(cudaErrorInvalidValue, std::string(operation) + ": " + role + " is nullptr");
    }
    if (device && !inDevice(ptr, bytes)) {
        return fail(cudaErrorInvalidValue,
                    std::string(operation) + ": " + role + " " + describe(ptr) + " (+" +
                        std::to_string(bytes) + " bytes) is not inside one device allocation");
    }
    if (!device && touchesDevice(ptr, bytes)) {
        return fail(cudaErrorInvalidValue, std::string(operation) + ": " + role + " " +
                                               describe(ptr) +
                                               " is device memory but the copy kind says host");
    }
    return cudaSuccess;
}

struct Sides {
    bool dstDevice = false;
    bool srcDevice = false;
};

Sides sidesOf(cudaMemcpyKind kind, const void* dst, const void* src)
{
    switch (kind) {
    case cudaMemcpyHostToHost:
        return {false, false};
    case cudaMemcpyHostToDevice:
        return {true, false};
    case cudaMemcpyDeviceToHost:
        return {false, true};
    case cudaMemcpyDeviceToDevice:
        return {true, true};
    case cudaMemcpyDefault:
        break;
    }
    return {touchesDevice(dst, 1), touchesDevice(src, 1)};
}

// ---- fibers -------------------------------------------------------------------------------

enum class FiberState { Ready, AtBarrier, Done };

struct Fiber {
    ucontext_t context{};
    FiberState state = FiberState::Ready;
    dim3 index;
    void* fakeStack = nullptr;  ///< AddressSanitizer's bookkeeping while switched out
};

struct BlockRun {
    spike::cudaemu::KernelBody* body = nullptr;
    std::vector<Fiber> fibers;
    std::vector<std::size_t> order;  ///< the threads' order for this block or barrier round
    std::vector<std::size_t> blocks;  ///< the blocks' order for this launch
    std::vector<std::unique_ptr<char[]>> stacks;  ///< kept between blocks and launches
    ucontext_t scheduler{};
    Fiber* current = nullptr;
    bool cooperative = false;  ///< running as fibers (else sequentially, no barrier allowed)
    const char* kernelName = "";
#if SPIKE_EMU_ASAN
    void* schedulerFakeStack = nullptr;
    const void* schedulerStackBottom = nullptr;
    std::size_t schedulerStackSize = 0;
#endif
};

thread_local BlockRun t_run;
thread_local std::vector<unsigned char> t_shared;

/// Kernels seen to call __syncthreads(): their later launches start as fibers.
std::mutex g_kernelMutex;
std::unordered_set<const void*> g_barrierKernels;

/// Thrown out of a sequentially run thread that reached a barrier; the block reruns as fibers.
struct NeedsFibers {};

void fiberEntry()
{
#if SPIKE_EMU_ASAN
    __sanitizer_finish_switch_fiber(nullptr, &t_run.schedulerStackBottom,
                                    &t_run.schedulerStackSize);
#endif
    t_run.body->runThread();
    t_run.current->state = FiberState::Done;
#if SPIKE_EMU_ASAN
    __sanitizer_start_switch_fiber(nullptr, t_run.schedulerStackBottom, t_run.schedulerStackSize);
#endif
    // Returning resumes uc_link, the scheduler.
}

void switchToFiber(Fiber& fiber, std::size_t stackIndex)
{
    t_run.current = &fiber;
    threadIdx = fiber.index;
#if SPIKE_EMU_ASAN
    __sanitizer_start_switch_fiber(&t_run.schedulerFakeStack, t_run.stacks[stackIndex].get(),
                                   kFiberStackBytes);
#else
    (void)stackIndex;
#endif
    swapcontext(&t_run.scheduler, &fiber.context);
#if SPIKE_EMU_ASAN
    __sanitizer_finish_switch_fiber(t_run.schedulerFakeStack, nullptr, nullptr);
#endif
}

/// Runs one block's threads as fibers until all are done; false (after recording the error)
/// when some threads finished while others wait at a barrier.
bool runBlockAsFibers(std::size_t threads)
{
    t_run.fibers.assign(threads, Fiber{});
    while (t_run.stacks.size() < threads) {
        t_run.stacks.push_back(std::make_unique_for_overwrite<char[]>(kFiberStackBytes));
    }
    std::size_t k = 0;
    for (unsigned z = 0; z < blockDim.z; ++z) {
        for (unsigned y = 0; y < blockDim.y; ++y) {
            for (unsigned x = 0; x < blockDim.x; ++x, ++k) {
                Fiber& fiber = t_run.fibers[k];
                fiber.index = dim3(x, y, z);
                getcontext(&fiber.context);
                fiber.context.uc_stack.ss_sp = t_run.stacks[k].get();
                fiber.context.uc_stack.ss_size = kFiberStackBytes;
                fiber.context.uc_link = &t_run.scheduler;
                makecontext(&fiber.context, fiberEntry, 0);
            }
        }
    }
    for (;;) {
        spike::cudaemu::detail::arrange(threads, t_run.order);
        for (const std::size_t f : t_run.order) {
            if (t_run.fibers[f].state == FiberState::Ready) {
                switchToFiber(t_run.fibers[f], f);
            }
        }
        const auto done = static_cast<std::size_t>(
            std::count_if(t_run.fibers.begin(), t_run.fibers.end(),
                          [](const Fiber& f) { return f.state == FiberState::Done; }));
        if (done == threads) {
            return true;
        }
        if (done > 0) {
            fail(cudaErrorLaunchFailure,
                 std::string("kernel ") + t_run.kernelName + ", block (" +
                     std::to_string(blockIdx.x) + ", " + std::to_string(blockIdx.y) + ", " +
                     std::to_string(blockIdx.z) + "): " + std::to_string(done) + " of " +
                     std::to_string(threads) +
                     " threads returned while the others wait at __syncthreads() (a divergent "
                     "barrier: undefined behaviour on a GPU)");
            return false;
        }
        for (Fiber& fiber : t_run.fibers) {
            fiber.state = FiberState::Ready;
        }
    }
}

/// The index of the k-th of a box's points, x fastest (threads in a block, blocks in a grid).
dim3 pointOf(std::size_t k, dim3 box)
{
    const std::size_t plane = std::size_t{box.x} * box.y;
    return dim3(static_cast<unsigned>(k % box.x), static_cast<unsigned>((k % plane) / box.x),
                static_cast<unsigned>(k / plane));
}

void runBlockSequentially(std::size_t threads)
{
    spike::cudaemu::detail::arrange(threads, t_run.order);
    for (const std::size_t k : t_run.order) {
        threadIdx = pointOf(k, blockDim);
        t_run.body->runThread();
    }
}

}  // namespace

// ---- runtime API --------------------------------------------------------------------------

const char* cudaGetErrorString(cudaError_t err)
{
    if (err != cudaSuccess && !t_detail.empty()) {
        return t_detail.c_str();
    }
    switch (err) {
    case cudaSuccess:
        return "no error";
    case cudaErrorInvalidValue:
        return "invalid argument";
    case cudaErrorMemoryAllocation:
        return "out of memory";
    case cudaErrorInvalidConfiguration:
        return "invalid configuration argument";
    case cudaErrorInvalidDevicePointer:
        return "invalid device pointer";
    case cudaErrorLaunchFailure:
        return "unspecified launch failure";
    }
    return "unknown error";
}

cudaError_t cudaGetLastError()
{
    const cudaError_t err = t_lastError;
    t_lastError = cudaSuccess;
    return err;
}

cudaError_t cudaPeekAtLastError()
{
    return t_lastError;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device)
{
    if (device != 0) {
        return fail(cudaErrorInvalidValue, "cudaGetDeviceProperties: no device " +
                                               std::to_string(device));
    }
    *prop = cudaDeviceProp{};
    std::snprintf(prop->name, sizeof prop->name, "%s", "SpikeStudio CUDA emulator (CPU)");
    prop->major = 9;
    prop->minor = 0;
    prop->totalGlobalMem = kTotalMemory;
    prop->maxThreadsPerBlock = static_cast<int>(kMaxThreadsPerBlock);
    prop->sharedMemPerBlock = kMaxDynamicShared;
    return cudaSuccess;
}

cudaError_t cudaMalloc(void** ptr, std::size_t bytes)
{
    *ptr = nullptr;
    if (bytes == 0) {
        return cudaSuccess;
    }
    if (bytes > kTotalMemory) {
        return fail(cudaErrorMemoryAllocation,
                    "cudaMalloc: " + std::to_string(bytes) + " bytes exceed the emulated " +
                        std::to_string(kTotalMemory) + " bytes of device memory");
    }
    // Exactly `bytes` (rounded up only as aligned_alloc requires), so an address sanitizer sees
    // an access past the end; filled with 0xFF (a NaN in every float) as uninitialised memory.
    const std::size_t rounded = (bytes + kDeviceAlignment - 1) / kDeviceAlignment * kDeviceAlignment;
    void* memory = std::aligned_alloc(kDeviceAlignment, rounded);
    if (memory == nullptr) {
        return fail(cudaErrorMemoryAllocation,
                    "cudaMalloc: the host has no " + std::to_string(bytes) + " bytes to spare");
    }
    std::memset(memory, 0xFF, rounded);
    std::lock_guard lock(g_memoryMutex);
    g_allocations[reinterpret_cast<std::uintptr_t>(memory)] = Allocation{bytes};
    g_liveBytes += bytes;
    *ptr = memory;
    return cudaSuccess;
}

cudaError_t cudaFree(void* ptr)
{
    if (ptr == nullptr) {
        return cudaSuccess;
    }
    {
        std::lock_guard lock(g_memoryMutex);
        const auto it = g_allocations.find(reinterpret_cast<std::uintptr_t>(ptr));
        if (it == g_allocations.end()) {
            return fail(cudaErrorInvalidDevicePointer,
                        "cudaFree: " + describe(ptr) + " is not the start of a device allocation");
        }
        g_liveBytes -= it->second.bytes;
        g_allocations.erase(it);
    }
    std::free(ptr);
    return cudaSuccess;
}

cudaError_t cudaMemset(void* ptr, int value, std::size_t bytes)
{
    if (bytes == 0) {
        return cudaSuccess;
    }
    if (const cudaError_t err = checkSide(ptr, bytes, true, "the destination", "cudaMemset");
        err != cudaSuccess) {
        return err;
    }
    std::memset(ptr, value, bytes);
    return cudaSuccess;
}

cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind)
{
    if (bytes == 0) {
        return cudaSuccess;
    }
    const Sides sides = sidesOf(kind, dst, src);
    if (const cudaError_t err = checkSide(dst, bytes, sides.dstDevice, "the destination",
                                          "cudaMemcpy");
        err != cudaSuccess) {
        return err;
    }
    if (const cudaError_t err = checkSide(src, bytes, sides.srcDevice, "the source", "cudaMemcpy");
        err != cudaSuccess) {
        return err;
    }
    std::memmove(dst, src, bytes);
    return cudaSuccess;
}

cudaError_t cudaMemcpy2D(void* dst, std::size_t dpitch, const void* src, std::size_t spitch,
                         std::size_t width, std::size_t height, cudaMemcpyKind kind)
{
    if (width == 0 || height == 0) {
        return cudaSuccess;
    }
    if (width > dpitch || width > spitch) {
        return fail(cudaErrorInvalidValue, "cudaMemcpy2D: width " + std::to_string(width) +
                                               " exceeds a pitch (" + std::to_string(dpitch) +
                                               ", " + std::to_string(spitch) + ")");
    }
    const Sides sides = sidesOf(kind, dst, src);
    const std::size_t dstSpan = (height - 1) * dpitch + width;
    const std::size_t srcSpan = (height - 1) * spitch + width;
    if (const cudaError_t err = checkSide(dst, dstSpan, sides.dstDevice, "the destination",
                                          "cudaMemcpy2D");
        err != cudaSuccess) {
        return err;
    }
    if (const cudaError_t err = checkSide(src, srcSpan, sides.srcDevice, "the source",
                                          "cudaMemcpy2D");
        err != cudaSuccess) {
        return err;
    }
    auto* d = static_cast<unsigned char*>(dst);
    const auto* s = static_cast<const unsigned char*>(src);
    for (std::size_t r = 0; r < height; ++r) {
        std::memmove(d + r * dpitch, s + r * spitch, width);
    }
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize()
{
    return t_lastError;  // launches ran to completion; a failed one stays reported
}

// ---- device functions ---------------------------------------------------------------------

void __syncthreads()
{
    if (!t_run.cooperative) {
        throw NeedsFibers{};
    }
    Fiber* fiber = t_run.current;
    fiber->state = FiberState::AtBarrier;
#if SPIKE_EMU_ASAN
    __sanitizer_start_switch_fiber(&fiber->fakeStack, t_run.schedulerStackBottom,
                                   t_run.schedulerStackSize);
#endif
    swapcontext(&fiber->context, &t_run.scheduler);
#if SPIKE_EMU_ASAN
    __sanitizer_finish_switch_fiber(fiber->fakeStack, &t_run.schedulerStackBottom,
                                    &t_run.schedulerStackSize);
#endif
}

// ---- launches -----------------------------------------------------------------------------

namespace spike::cudaemu {

void* dynamicShared()
{
    return t_shared.empty() ? nullptr : t_shared.data();
}

std::size_t liveAllocations()
{
    std::lock_guard lock(g_memoryMutex);
    return g_allocations.size();
}

std::size_t liveBytes()
{
    std::lock_guard lock(g_memoryMutex);
    return g_liveBytes;
}

void launch(const char* kernelName, const void* kernelKey, dim3 grid, dim3 block,
            std::size_t sharedBytes, const void* const* pointers, std::size_t pointerCount,
            KernelBody& body)
{
    const std::string name = kernelName;
    const unsigned long long threads =
        static_cast<unsigned long long>(block.x) * block.y * block.z;
    if (grid.x == 0 || grid.y == 0 || grid.z == 0 || threads == 0 ||
        threads > kMaxThreadsPerBlock || block.z > 64 || grid.x > 0x7FFFFFFFU ||
        grid.y > 65535 || grid.z > 65535) {
        fail(cudaErrorInvalidConfiguration,
             "launching " + name + ": invalid configuration grid (" + std::to_string(grid.x) +
                 ", " + std::to_string(grid.y) + ", " + std::to_string(grid.z) + "), block (" +
                 std::to_string(block.x) + ", " + std::to_string(block.y) + ", " +
                 std::to_string(block.z) + ")");
        return;
    }
    if (sharedBytes > kMaxDynamicShared) {
        fail(cudaErrorInvalidConfiguration,
             "launching " + name + ": " + std::to_string(sharedBytes) +
                 " bytes of dynamic shared memory exceed " + std::to_string(kMaxDynamicShared));
        return;
    }
    for (std::size_t k = 0; k < pointerCount; ++k) {
        if (pointers[k] != nullptr && !inDevice(pointers[k], 0)) {
            fail(cudaErrorInvalidDevicePointer,
                 "launching " + name + ": pointer argument " + std::to_string(k + 1) + " (" +
                     describe(pointers[k]) + ") is not device memory");
            return;
        }
    }

    bool cooperative = false;
    {
        std::lock_guard lock(g_kernelMutex);
        cooperative = g_barrierKernels.count(kernelKey) > 0;
    }
    t_run.body = &body;
    t_run.kernelName = kernelName;
    gridDim = grid;
    blockDim = block;
    spike::cudaemu::detail::arrange(std::size_t{grid.x} * grid.y * grid.z, t_run.blocks);
    for (const std::size_t b : t_run.blocks) {
        blockIdx = pointOf(b, grid);
        t_shared.assign(sharedBytes, 0xFF);
        if (!cooperative) {
            t_run.cooperative = false;
            try {
                runBlockSequentially(static_cast<std::size_t>(threads));
                continue;
            } catch (const NeedsFibers&) {
                // The first thread reached a barrier before any other ran: what it did so far
                // touched only its registers, shared memory and reads, unless it wrote global
                // memory first, which barrier kernels here do not.
                std::lock_guard lock(g_kernelMutex);
                g_barrierKernels.insert(kernelKey);
                cooperative = true;
                t_shared.assign(sharedBytes, 0xFF);
            }
        }
        t_run.cooperative = true;
        const bool ok = runBlockAsFibers(static_cast<std::size_t>(threads));
        t_run.cooperative = false;
        if (!ok) {
            return;
        }
    }
}

}  // namespace spike::cudaemu
