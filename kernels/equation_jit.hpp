// Equation populations as device code compiled at run time: the CUDA source of a population's
// step program (engine/equations/device_source.hpp) compiled by NVRTC (kernels/nvrtc.hpp) for
// this device's architecture, loaded by the driver, and launched with the kernel arguments below,
// instead of kernels/equation_cuda.hpp's interpreter. Same instructions, same arithmetic, same
// bits; one thread per neuron with its registers in registers. Builds run on a background
// thread (the interpreter runs meanwhile) or in the caller. A process keeps each source's code,
// and a disk cache keeps its image for later processes.
// Thread: any; one population's launches from one thread at a time.
#pragma once

#include "kernels/equation_cuda.hpp"

#include <cstdint>
#include <string>

namespace spike::kernels {

/// The compiled kernel's argument, one struct by value (the generated SpikeEqArgs).
struct EquationJitArgs {
    float* const* table = nullptr;  ///< the slot table (device), states bound ("slots" is a Qt macro)
    const float* in = nullptr;      ///< (steps, inputCount * n) input rows
    float* out = nullptr;           ///< (steps, n) spikes
    float* rows[kEqMaxTraces] = {}; ///< trace k's (steps, n) rows, or nullptr
    long long n = 0;
    long long steps = 0;
    long long firstStep = 0;        ///< t of step k is (firstStep + k) * dt
    double dt = 0.0;
};

/// Where a source's device code stands.
struct EquationJit {
    enum class Kind { Absent, Pending, Ready, Failed };
    Kind kind = Kind::Absent;
    const void* kernel = nullptr;  ///< when Ready: the loaded kernel
    std::string message;           ///< when Ready: the target ("sm_90"); when Failed: why
};

/// The device code of `source`. With request and nothing known yet, starts building it (on a
/// background thread; in the caller when `wait`, which also waits for a pending build). A build
/// keeps its image in `cacheDir` (kernels/nvrtc.hpp, cachedImage; "" keeps nothing) once the
/// driver has loaded it, and takes an image kept there by an earlier process instead of compiling.
EquationJit equationJit(const std::string& source, bool request, bool wait, const std::string& cacheDir);

/// The device code of `source` when it is known without compiling: built in this process, or
/// an image in `cacheDir` that an earlier process kept (loaded now, in the caller); else Absent
/// (nothing is started). Called once when a population's layout is loaded.
EquationJit equationJitCached(const std::string& source, const std::string& cacheDir);

/// Runs `steps` steps of population `d` with Ready `code`: the same inputs and outputs as
/// equationStepsCuda (whose limits it shares).
void equationStepsJit(const EquationJit& code, const EquationDevice& d, const float* in, std::int64_t steps,
                      float* out, const EquationTraces& traces);

/// Launches of compiled equation code in this process (tests: which path ran).
std::int64_t equationJitLaunches();

}  // namespace spike::kernels
