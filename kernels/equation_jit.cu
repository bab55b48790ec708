// Equation device code on a GPU; see equation_jit.hpp. NVRTC compiles the source for the current
// device's compute capability (kernels/nvrtc.hpp), or an image an earlier process kept on disk
// is taken; the runtime loads the image as a library (cudaLibraryLoadData: a cubin as is, PTX
// through the driver's compiler) and launches its spike_eq_steps kernel by handle.
#include "kernels/equation_jit.hpp"

#include <cuda_runtime.h>

#include "kernels/cuda_compat.hpp"
#include "kernels/cuda_helpers.cuh"
#include "kernels/equation_jit_service.hpp"
#include "kernels/nvrtc.hpp"

#include <string>

namespace spike::kernels {

namespace {

/// The kernel of `image` loaded by the driver, or why not.
EquationJit load(const NvrtcImage& image)
{
    cudaLibrary_t library = nullptr;
    cudaError_t e = cudaLibraryLoadData(&library, image.image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
    cudaKernel_t kernel = nullptr;
    if (e == cudaSuccess) {  // the library stays loaded for the process, as the table keeps its kernel
        e = cudaLibraryGetKernel(&kernel, library, "spike_eq_steps");
    }
    if (e != cudaSuccess) {
        cudaGetLastError();
        return detail::failedJit("the driver did not load the equation code (" + image.target + "): " + errorText(e));
    }
    EquationJit j;
    j.kind = EquationJit::Kind::Ready;
    j.kernel = reinterpret_cast<const void*>(kernel);
    j.message = image.target;
    return j;
}

EquationJit buildOnDevice(const std::string& source, const std::string& cacheDir, bool cachedOnly)
{
    int device = 0;
    int major = 0;
    int minor = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
        cudaGetLastError();
        return cachedOnly ? EquationJit{} : detail::failedJit("no CUDA device to build equation code for");
    }
    const int capability = major * 10 + minor;
    if (const NvrtcImage kept = cachedImage(source, capability, cacheDir); kept.ok) {
        if (EquationJit j = load(kept); j.kind == EquationJit::Kind::Ready) {
            return j;
        }
        forgetImage(source, capability, cacheDir);  // e.g. written by a newer toolkit than this driver takes
    }
    if (cachedOnly) {
        return {};
    }
    const NvrtcImage image = nvrtcCompile(source, "equations.cu", capability);
    if (!image.ok) {
        return detail::failedJit(image.message);
    }
    EquationJit j = load(image);
    if (j.kind == EquationJit::Kind::Ready) {
        storeImage(source, capability, cacheDir, image);
    }
    return j;
}

}  // namespace

EquationJit equationJit(const std::string& source, bool request, bool wait, const std::string& cacheDir)
{
    return detail::equationJitWith(source, request, wait, cacheDir, &buildOnDevice);
}

EquationJit equationJitCached(const std::string& source, const std::string& cacheDir)
{
    return detail::equationJitCachedWith(source, cacheDir, &buildOnDevice);
}

void equationStepsJit(const EquationJit& code, const EquationDevice& d, const float* in, std::int64_t steps,
                      float* out, const EquationTraces& traces)
{
    EquationJitArgs args = detail::equationJitLaunch(code, d, in, steps, out, traces);
    if (steps == 0 || d.n == 0) {
        return;
    }
    void* params[] = {&args};
    // A cudaKernel_t is launched by passing it as the function (CUDA runtime API, Library Management).
    check(cudaLaunchKernel(code.kernel, dim3(blocksFor(d.n)), dim3(kBlock), params, 0, nullptr),
          "launching equation device code");
    checkLaunch("equation device code");
}

}  // namespace spike::kernels
