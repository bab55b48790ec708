// CUDA device discovery behind a plain C++ interface (no CUDA syntax here): whether this build
// has the kernels and whether the current device can run them. The backends ask it before
// making a CUDA executor (engine/runtime/backend.cpp, cuda_executor.cpp); the tests ask it to
// skip device cases with the reason. Built with CUDA the functions live in cuda_device.cu;
// without it cuda_unavailable.cpp provides them (reporting "built without CUDA").
// Thread: any thread; each call uses the calling thread's current CUDA device.
#pragma once

#include <cstddef>
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

}  // namespace spike::kernels
