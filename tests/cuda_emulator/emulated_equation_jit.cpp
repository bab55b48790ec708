// kernels/equation_jit.hpp in the CUDA emulator: the generated device source is first compiled by
// NVRTC for sm_90, as on a GPU, when NVRTC is on this machine (a source it refuses fails here;
// the image goes through the disk cache as on a GPU, a stand-in when NVRTC is missing),
// then compiled by the host's C++ compiler (engine/equations/native.hpp's compile and cache; the
// source's host branch, spike_eq_step, runs the kernel's neuron function for a range), and each
// launch runs it for every thread of the grid through the emulator, in its thread order. What it
// cannot check is kernels/equation_jit.cu's loading and launching through the CUDA runtime: a
// GPU run does (docs/backends.md).
#include "kernels/equation_jit.hpp"

#include <cuda_runtime.h>

#include "engine/equations/native.hpp"
#include "kernels/cuda_compat.hpp"
#include "kernels/cuda_helpers.cuh"
#include "kernels/equation_jit_service.hpp"
#include "kernels/nvrtc.hpp"

#include <cstdint>
#include <string>

namespace spike::kernels {

namespace {

/// The host entry of a compiled device source (not a pointer argument of the launch, so wrapped).
struct HostCode {
    void (*step)(float* const* args, std::int64_t begin, std::int64_t end) = nullptr;
};

__global__ void equationJitKernel(HostCode code, EquationJitArgs a, const float* in, float* out,
                                  float* const* table)
{
    (void)in;  // passed on their own so the emulator checks them as device pointers
    (void)out;
    (void)table;
    const long long i = globalIndex();
    if (i < a.n) {
        code.step(reinterpret_cast<float* const*>(&a), i, i + 1);
    }
}

/// What the emulator keeps in the disk cache when NVRTC is not here: a stand-in image, so that
/// the cache's path through the twin runs anyway.
NvrtcImage hostImage()
{
    NvrtcImage image;
    image.ok = true;
    image.image = "host";
    image.target = "host";
    return image;
}

EquationJit buildOnHost(const std::string& source, const std::string& cacheDir, bool cachedOnly)
{
    constexpr int kCapability = 90;
    NvrtcImage image = cachedImage(source, kCapability, cacheDir);
    if (!image.ok) {
        if (cachedOnly) {
            return {};
        }
        image = nvrtcUnavailableReason().empty() ? nvrtcCompile(source, "equations.cu", kCapability) : hostImage();
        if (!image.ok) {
            return detail::failedJit(image.message);
        }
    }
    const engine::equations::NativeCode code = engine::equations::nativeCodeNow(source);
    if (code.kind != engine::equations::NativeCode::Kind::Ready) {
        return detail::failedJit(code.message);
    }
    storeImage(source, kCapability, cacheDir, image);
    EquationJit j;
    j.kind = EquationJit::Kind::Ready;
    j.kernel = reinterpret_cast<const void*>(code.fn);
    j.message = "CUDA emulator";
    return j;
}

}  // namespace

EquationJit equationJit(const std::string& source, bool request, bool wait, const std::string& cacheDir)
{
    return detail::equationJitWith(source, request, wait, cacheDir, &buildOnHost);
}

EquationJit equationJitCached(const std::string& source, const std::string& cacheDir)
{
    return detail::equationJitCachedWith(source, cacheDir, &buildOnHost);
}

void equationStepsJit(const EquationJit& code, const EquationDevice& d, const float* in, std::int64_t steps,
                      float* out, const EquationTraces& traces)
{
    const EquationJitArgs args = detail::equationJitLaunch(code, d, in, steps, out, traces);
    if (steps == 0 || d.n == 0) {
        return;
    }
    HostCode host;
    host.step = reinterpret_cast<void (*)(float* const*, std::int64_t, std::int64_t)>(const_cast<void*>(code.kernel));
    SPIKE_LAUNCH(equationJitKernel, blocksFor(d.n), kBlock, 0)(host, args, in, out, d.table);
    checkLaunch("equation device code");
}

}  // namespace spike::kernels
