// Device discovery for the CUDA build: builtWithCuda() and queryCudaDevice().
//
// queryCudaDevice() only asks the runtime (no allocation, no launch) and turns every failure,
// a missing driver included, into a reason string. A device counts as available only when this
// build's kernel image loads on it (checked on an empty probe kernel compiled with the same
// architectures as the network kernels). Thread: any.
#include "kernels/cuda_device.hpp"

#include <cuda_runtime.h>

namespace spike::kernels {

namespace {

/// Never launched: cudaFuncGetAttributes on it tells whether this build's code fits the device.
__global__ void probeKernel() {}

std::string errorText(cudaError_t err)
{
    return std::string(cudaGetErrorString(err)) + " (" + cudaGetErrorName(err) + ")";
}

}  // namespace

bool builtWithCuda()
{
    return true;
}

CudaDeviceInfo queryCudaDevice()
{
    CudaDeviceInfo info;
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        cudaGetLastError();  // clear the non-sticky error so later calls start clean
        info.reason = "no CUDA device: " + errorText(err);
        return info;
    }
    if (count <= 0) {
        info.reason = "no CUDA device: the runtime found none";
        return info;
    }
    int device = 0;
    err = cudaGetDevice(&device);
    if (err != cudaSuccess) {
        cudaGetLastError();
        info.reason = "no CUDA device: " + errorText(err);
        return info;
    }
    cudaDeviceProp prop{};
    err = cudaGetDeviceProperties(&prop, device);
    if (err != cudaSuccess) {
        cudaGetLastError();
        info.reason = "cannot read CUDA device " + std::to_string(device) + ": " + errorText(err);
        return info;
    }
    info.name = prop.name;
    info.major = prop.major;
    info.minor = prop.minor;
    info.memoryBytes = prop.totalGlobalMem;

    cudaFuncAttributes attributes{};
    err = cudaFuncGetAttributes(&attributes, probeKernel);
    if (err != cudaSuccess) {
        cudaGetLastError();
        info.reason = "CUDA device " + info.name + " (compute capability " +
                      std::to_string(info.major) + "." + std::to_string(info.minor) +
                      ") cannot run this build's kernels: " + errorText(err);
        return info;
    }
    info.available = true;
    return info;
}

}  // namespace spike::kernels
