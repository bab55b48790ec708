// The part of kernels/equation_jit.hpp both implementations share (the CUDA one,
// equation_jit.cu, and the CUDA emulator's, tests/cuda_emulator/emulated_equation_jit.cpp):
// the table of built sources, the build threads, the launch count, the kernel argument.
// Internal to kernels/ and the emulator. Thread-safe.
#pragma once

#include "kernels/equation_jit.hpp"

#include <string>

namespace spike::kernels::detail {

/// Builds one source's device code (Ready with the kernel, or Failed with why), taking the image
/// from the disk cache in `cacheDir` when it is there and keeping it there when it compiled one;
/// with `cachedOnly`, Absent instead of compiling. Any thread.
using EquationJitBuilder = EquationJit (*)(const std::string& source, const std::string& cacheDir, bool cachedOnly);

/// equationJit() over `build`.
EquationJit equationJitWith(const std::string& source, bool request, bool wait, const std::string& cacheDir,
                            EquationJitBuilder build);

/// equationJitCached() over `build`.
EquationJit equationJitCachedWith(const std::string& source, const std::string& cacheDir, EquationJitBuilder build);

/// The argument of one launch; counts the launch. Throws std::invalid_argument when `code` is
/// not Ready or `d` is past the kernel's limits.
EquationJitArgs equationJitLaunch(const EquationJit& code, const EquationDevice& d, const float* in,
                                  std::int64_t steps, float* out, const EquationTraces& traces);

EquationJit failedJit(std::string message);

}  // namespace spike::kernels::detail
