// Native code for compiled equation programs: the step program (program.hpp) written out as one
// C++ loop over neurons, compiled at run time by the system's C++ compiler into a shared library
// and loaded, so a population's step runs as one fused, vectorised pass instead of one pass per
// instruction. The generated loop performs the same float operations in the same order as the
// interpreter (the same kernels/equation_ops.hpp and kernels/portable_math.hpp arithmetic, built
// with the same no-contraction flags), so its results are bit-identical and a population may
// switch from the interpreter to native code at any step.
//
// Compilation runs on one background thread (NativeMode::Async, the default) or in the caller
// (Sync); nothing waits for it: Population interprets until the code is ready. Libraries are
// cached on disk by the hash of their source (nativeCacheDir()), so a model compiled once loads
// at once in later runs and processes. Without a working compiler (`c++`, or SPIKE_CXX) the
// state is Failed with the reason and populations keep interpreting.
//
// Environment: SPIKE_EQ_NATIVE = off | async | sync (the initial mode), SPIKE_CXX (the compiler),
// SPIKE_EQ_CACHE (the cache folder). Thread-safe.
#pragma once

#include "engine/equations/program.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace spike::engine::equations {

/// Runs a program for neurons [begin, end): slots[k] is slot k's array (per-neuron slots indexed
/// by neuron, shared ones read at [0]), exactly the layout the code was generated for.
using NativeFn = void (*)(float* const* slots, std::int64_t begin, std::int64_t end);

enum class NativeMode {
    Off,    ///< always interpret
    Async,  ///< compile on a background thread; interpret until ready
    Sync,   ///< compile in the thread that asks (tests, benchmarks)
};

/// The current mode (initially from SPIKE_EQ_NATIVE; Async when unset).
NativeMode nativeMode();
void setNativeMode(NativeMode mode);

/// The C++ source of `program` for slots whose per-neuron flags are `perNeuron` (one per slot).
/// Each neuron's pass ends by storing 0 into its element of every slot in `zeroAfter` (per-neuron
/// slots: the inputs a Population consumes, population.hpp). Throws std::invalid_argument for a
/// slot the layout does not give the program as a per-neuron array.
std::string nativeSource(const Program& program, const std::vector<char>& perNeuron,
                         const std::vector<int>& zeroAfter = {});

/// Where a source's native code stands.
struct NativeCode {
    enum class Kind { Absent, Pending, Ready, Failed };
    Kind kind = Kind::Absent;
    NativeFn fn = nullptr;   ///< when Ready
    std::string message;     ///< when Failed: why (the compiler's first lines, or what is missing)
};

/// The native code of `source`. With request = true and nothing known yet, starts compiling it
/// (Async: queued, the answer is Pending; Sync: compiled before returning; Off: Absent).
NativeCode nativeCode(const std::string& source, bool request);

/// The native code of `source` compiled (or found in the disk cache) and loaded now, in the
/// caller, whatever the mode; Ready or Failed. Not entered in the table nativeCode() keeps (the
/// CUDA emulator's stand-in for NVRTC, tests/cuda_emulator, builds device sources with it).
NativeCode nativeCodeNow(const std::string& source);

/// Why the most recent compile in this process failed ("" when none has): what a user interface
/// shows once, since every equation population then runs interpreted.
std::string lastNativeFailure();

/// The folder of cached libraries: SPIKE_EQ_CACHE, else $XDG_CACHE_HOME/spikestudio/equations,
/// else ~/.cache/spikestudio/equations.
std::string nativeCacheDir();

/// Neuron-steps a population interprets before it asks for native code in Async mode (short
/// runs, and the many small populations of tests and analyses, never start a compiler).
inline constexpr std::int64_t kNativeAfterNeuronSteps = 2'000'000;

}  // namespace spike::engine::equations
