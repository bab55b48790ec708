// Launch helpers shared by the kernels' .cu files (network_cuda.cu, equation_cuda.cu): the block
// size, error checks that throw with the CUDA error's name, grid sizing and the thread's global
// index. Internal to kernels/: included by .cu files only, each getting its own copy (anonymous
// namespace). Any thread.
#pragma once

#include <cuda_runtime.h>

#include <climits>
#include <stdexcept>
#include <string>

namespace spike::kernels {

namespace {

constexpr int kBlock = 256;

inline std::string errorText(cudaError_t err)
{
    return std::string(cudaGetErrorString(err)) + " (" + cudaGetErrorName(err) + ")";
}

/// Throws std::runtime_error naming `what` when `err` is not cudaSuccess.
inline void check(cudaError_t err, const std::string& what)
{
    if (err != cudaSuccess) {
        cudaGetLastError();  // clear a non-sticky error so later calls start clean
        throw std::runtime_error("CUDA: " + what + " failed: " + errorText(err));
    }
}

inline void checkLaunch(const char* kernel)
{
    check(cudaGetLastError(), std::string("launching ") + kernel);
}

/// Blocks of kBlock threads covering `count` elements (at least 1; at most the grid limit
/// 2^31 - 1, beyond which only the grid-stride kernels are used).
inline unsigned blocksFor(long long count)
{
    long long blocks = (count + kBlock - 1) / kBlock;
    blocks = blocks < 1 ? 1 : (blocks > INT_MAX ? INT_MAX : blocks);
    return static_cast<unsigned>(blocks);
}

inline void requireNonNegative(long long value, const char* what)
{
    if (value < 0) {
        throw std::invalid_argument(std::string("CUDA kernels: ") + what + " (" +
                                    std::to_string(value) + ") must not be negative");
    }
}

__device__ inline long long globalIndex()
{
    return static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
}

}  // namespace

}  // namespace spike::kernels
