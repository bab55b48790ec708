// The emulated CUDA runtime's stateless parts (tests/cuda_emulator/README.md): error names, the
// one device, and the atomics. Threads of a block never run at the same time in the emulator, so
// an atomic is a plain read-modify-write returning the old value.
#include "cuda_runtime.h"

const char* cudaGetErrorName(cudaError_t err)
{
    switch (err) {
    case cudaSuccess:
        return "cudaSuccess";
    case cudaErrorInvalidValue:
        return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation:
        return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidConfiguration:
        return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidDevicePointer:
        return "cudaErrorInvalidDevicePointer";
    case cudaErrorLaunchFailure:
        return "cudaErrorLaunchFailure";
    }
    return "cudaErrorUnknown";
}

cudaError_t cudaGetDeviceCount(int* count)
{
    *count = 1;
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device)
{
    *device = 0;
    return cudaSuccess;
}

float atomicAdd(float* address, float value)
{
    const float old = *address;
    *address = old + value;
    return old;
}

int atomicAdd(int* address, int value)
{
    const int old = *address;
    *address = old + value;
    return old;
}

unsigned long long atomicMin(unsigned long long* address, unsigned long long value)
{
    const unsigned long long old = *address;
    *address = value < old ? value : old;
    return old;
}
