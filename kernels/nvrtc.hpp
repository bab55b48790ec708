// NVRTC, the CUDA Toolkit's run-time compiler, loaded when first needed (dlopen of
// libnvrtc.so.<CUDA major>, then libnvrtc.so, then the toolkit's folder): the product links no
// part of it, so a machine without the toolkit runs everything else and says why device code
// could not be built. Compiles a self-contained source (engine/equations/device_source.hpp)
// into what the driver loads. Plain C++ (no CUDA header): also part of the emulated kernels and
// of builds without nvcc. What it made can be kept on disk for later processes (cachedImage).
// Thread-safe.
#pragma once

#include <string>

namespace spike::kernels {

/// What NVRTC made of a source.
struct NvrtcImage {
    bool ok = false;
    std::string image;    ///< cubin, or PTX text (NUL-terminated by the string)
    bool cubin = false;   ///< machine code for the asked architecture; else PTX the driver compiles
    std::string target;   ///< "sm_90" or "compute_86"
    std::string message;  ///< when !ok: why (NVRTC missing, or its log's first lines)
};

/// Compiles `source` (named `name` in messages) for compute capability `capability` (major * 10 +
/// minor, e.g. 90): machine code when this NVRTC knows sm_<capability>, else PTX for the newest
/// architecture it knows below it. Options: --fmad=false (the interpreter's rounding), -std=c++17.
/// <cmath>, <cstdint> and <cstring> resolve to small stand-ins (NVRTC ships no C++ library).
NvrtcImage nvrtcCompile(const std::string& source, const std::string& name, int capability);

/// "" when NVRTC can be loaded here, else why not.
std::string nvrtcUnavailableReason();

/// Compilations nvrtcCompile() ran in this process (tests: whether the cache answered).
long long nvrtcCompilations();

// The disk cache of images, in a folder shared by processes (the twin passes the CPU's native
// code folder, engine/equations/native.hpp's nativeCacheDir()): per source and compute
// capability, dev_<hash>_cc<capability>.cu (the source, compared in full: a hash collision is a
// miss) and .img (a one-line header with the target, then the image). Writes go through a
// temporary file and a rename, so a process reads an image whole or not at all. "" for `dir`
// keeps nothing. Errors never leave these functions: a cache that cannot be read or written is
// an empty one.

/// The image an earlier build kept for `source` and `capability`; !ok when there is none, or it
/// was written for another source, or is damaged.
NvrtcImage cachedImage(const std::string& source, int capability, const std::string& dir);

/// Keeps `image` (ok) for `source` and `capability`; false when the folder cannot be written.
bool storeImage(const std::string& source, int capability, const std::string& dir, const NvrtcImage& image);

/// Removes what storeImage kept for `source` and `capability` (an image the driver refused).
void forgetImage(const std::string& source, int capability, const std::string& dir);

}  // namespace spike::kernels
