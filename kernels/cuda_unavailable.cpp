// The CUDA backend's interface in a build without CUDA: reports that no device can be used and
// refuses to run, so callers and tests need no #ifdef. Thread: any.
#include "kernels/cuda_device.hpp"
#include "kernels/equation_cuda.hpp"
#include "kernels/equation_jit.hpp"
#include "kernels/fused_group_cuda.hpp"
#include "kernels/network_cuda.hpp"
#include "kernels/spike_lists_cuda.hpp"

#include <stdexcept>
#include <string>

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

// ---- network_cuda.hpp: every device operation refuses; releasing nothing is fine ----------

namespace {

[[noreturn]] void noCuda(const char* what)
{
    throw std::runtime_error(std::string(what) + ": built without CUDA (configure with "
                                                 "SPIKE_WITH_CUDA=ON and nvcc installed)");
}

}  // namespace

void* deviceAllocate(std::size_t /*bytes*/, const char* /*what*/)
{
    noCuda("deviceAllocate");
}

void deviceRelease(void* /*ptr*/) noexcept {}

void copyBytes(void* /*dst*/, const void* /*src*/, std::size_t /*bytes*/, CopyKind /*kind*/)
{
    noCuda("copyBytes");
}

void copyRows(float* /*dst*/, std::int64_t /*dstPitch*/, const float* /*src*/,
              std::int64_t /*srcPitch*/, std::int64_t /*width*/, std::int64_t /*rows*/,
              CopyKind /*kind*/)
{
    noCuda("copyRows");
}

void zeroFloats(float* /*dst*/, std::int64_t /*count*/)
{
    noCuda("zeroFloats");
}

void deviceSynchronize(const char* /*what*/)
{
    noCuda("deviceSynchronize");
}

void addRows(float* /*dst*/, std::int64_t /*dstPitch*/, const float* /*src*/,
             std::int64_t /*srcPitch*/, std::int64_t /*width*/, std::int64_t /*rows*/)
{
    noCuda("addRows");
}

void gatherColumns(const float* /*src*/, std::int64_t /*srcPitch*/, std::int64_t /*rows*/,
                   const std::int64_t* /*columns*/, std::int64_t /*count*/, float* /*dst*/)
{
    noCuda("gatherColumns");
}

void firstNonFiniteEach(const ScanSpan* /*spans*/, std::size_t /*count*/, std::int64_t* /*first*/,
                        DeviceArray<unsigned long long>& /*scratch*/)
{
    noCuda("firstNonFiniteEach");
}

void carryLastRows(const CarriedRows* /*list*/, std::size_t /*count*/, std::int64_t /*steps*/)
{
    noCuda("carryLastRows");
}

void lifStepsCuda(const LifDevice& /*layer*/, const float* /*in*/, std::int64_t /*steps*/,
                  float* /*out*/, float* /*recVmem*/, float* /*recIsyn*/, float* /*recIrec*/)
{
    noCuda("lifStepsCuda");
}

void lifRefracStepsCuda(const LifRefracDevice& /*layer*/, const float* /*in*/,
                        std::int64_t /*steps*/, float* /*out*/, float* /*recV*/, float* /*recI*/,
                        float* /*recRho*/)
{
    noCuda("lifRefracStepsCuda");
}

void cubaStepsCuda(const CubaDevice& /*layer*/, const float* /*in*/, std::int64_t /*steps*/,
                   float* /*out*/, float* /*recV*/, float* /*recIExc*/, float* /*recIInh*/,
                   float* /*recRefrac*/)
{
    noCuda("cubaStepsCuda");
}

void denseDeliverCuda(const float* /*weight*/, std::int64_t /*nSrc*/, std::int64_t /*nDst*/,
                      const float* /*pre*/, std::int64_t /*preStride*/, std::int64_t /*steps*/,
                      float* /*post*/, std::int64_t /*postStride*/)
{
    noCuda("denseDeliverCuda");
}

void oneToOneDeliverCuda(const float* /*weight*/, std::int64_t /*weightCount*/, std::int64_t /*n*/,
                         const float* /*pre*/, std::int64_t /*preStride*/, std::int64_t /*steps*/,
                         float* /*post*/, std::int64_t /*postStride*/)
{
    noCuda("oneToOneDeliverCuda");
}

std::int64_t sparseDeliverCuda(const SparseDevice& /*projection*/, std::int64_t /*head*/,
                               const float* /*pre*/, std::int64_t /*preStride*/,
                               std::int64_t /*steps*/, float* /*post*/,
                               std::int64_t /*postStride*/)
{
    noCuda("sparseDeliverCuda");
}

void equationStepsCuda(const EquationDevice& /*population*/, const float* /*in*/,
                       std::int64_t /*steps*/, float* /*out*/, const EquationTraces& /*traces*/)
{
    noCuda("equationStepsCuda");
}

EquationJit equationJit(const std::string& /*source*/, bool /*request*/, bool /*wait*/, const std::string& /*cacheDir*/)
{
    EquationJit j;
    j.kind = EquationJit::Kind::Failed;
    j.message = "built without CUDA";
    return j;
}

EquationJit equationJitCached(const std::string& source, const std::string& cacheDir)
{
    return equationJit(source, false, false, cacheDir);
}

void equationStepsJit(const EquationJit& /*code*/, const EquationDevice& /*d*/, const float* /*in*/,
                      std::int64_t /*steps*/, float* /*out*/, const EquationTraces& /*traces*/)
{
    noCuda("equationStepsJit");
}

std::int64_t equationJitLaunches()
{
    return 0;
}

std::size_t spikeListScratchSize(std::int64_t /*rows*/, std::int64_t /*width*/)
{
    noCuda("spikeListScratchSize");
}

void listNonZeroRowsCuda(const float* /*src*/, std::int64_t /*rows*/, std::int64_t /*width*/,
                         std::int32_t* /*counts*/, std::int32_t* /*indices*/, float* /*values*/,
                         std::int32_t* /*scratch*/)
{
    noCuda("listNonZeroRowsCuda");
}

std::int64_t copySpikeListsToHost(const std::int32_t* /*counts*/, const std::int32_t* /*indices*/,
                                  const float* /*values*/, std::int64_t /*rows*/,
                                  std::int64_t /*width*/, std::int32_t* /*hostCounts*/,
                                  std::int32_t* /*hostIndices*/, float* /*hostValues*/)
{
    noCuda("copySpikeListsToHost");
}

void fusedGroupStepsCuda(const FusedOp* /*ops*/, int /*count*/, std::int64_t /*steps*/,
                         std::int64_t /*width*/)
{
    noCuda("fusedGroupStepsCuda");
}

}  // namespace spike::kernels
