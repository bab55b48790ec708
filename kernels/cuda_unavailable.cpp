// The CUDA backend's interface in a build without CUDA: reports that no device can be used and
// refuses to run, so callers and tests need no #ifdef. Thread: any.
#include "kernels/lif_cuda.hpp"

#include <stdexcept>

namespace spike::kernels {

bool builtWithCuda()
{
    return false;
}

CudaDeviceInfo queryCudaDevice()
{
    CudaDeviceInfo info;
    info.reason = "built without CUDA";
    return info;
}

void lifForwardCuda(const LifProblem& /*p*/)
{
    throw std::runtime_error("lifForwardCuda: this build has no CUDA support (configure with "
                             "SPIKE_WITH_CUDA=ON and nvcc installed)");
}

}  // namespace spike::kernels
