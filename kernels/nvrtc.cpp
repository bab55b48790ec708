// NVRTC loaded at run time; see nvrtc.hpp. The few entry points used are declared here with
// NVRTC's C signatures (nvrtc.h), so nothing needs the toolkit's headers to build.
#include "kernels/nvrtc.hpp"

#include <algorithm>
#include <cstddef>
#include <mutex>
#include <sstream>
#include <vector>

#include <dlfcn.h>

#ifndef SPIKE_CUDA_MAJOR
#define SPIKE_CUDA_MAJOR 13
#endif

namespace spike::kernels {

namespace {

using Program = void*;  // nvrtcProgram
using CreateFn = int (*)(Program*, const char*, const char*, int, const char* const*, const char* const*);
using CompileFn = int (*)(Program, int, const char* const*);
using DestroyFn = int (*)(Program*);
using SizeFn = int (*)(Program, std::size_t*);
using GetFn = int (*)(Program, char*);
using ErrorFn = const char* (*)(int);
using CountFn = int (*)(int*);
using ArchsFn = int (*)(int*);

struct Api {
    std::string missing;  ///< why it could not be loaded ("" when loaded)
    CreateFn create = nullptr;
    CompileFn compile = nullptr;
    DestroyFn destroy = nullptr;
    SizeFn logSize = nullptr;
    GetFn log = nullptr;
    SizeFn cubinSize = nullptr;
    GetFn cubin = nullptr;
    SizeFn ptxSize = nullptr;
    GetFn ptx = nullptr;
    ErrorFn error = nullptr;
    CountFn archCount = nullptr;
    ArchsFn archs = nullptr;
};

template <typename F>
void bind(void* lib, const char* name, F& fn, std::string& missing)
{
    fn = reinterpret_cast<F>(::dlsym(lib, name));
    if (fn == nullptr && missing.empty()) {
        missing = std::string("the NVRTC library has no ") + name;
    }
}

const Api& api()
{
    static const Api a = [] {
        Api r;
        const std::string major = std::to_string(SPIKE_CUDA_MAJOR);
        void* lib = nullptr;
        for (const std::string& name : {"libnvrtc.so." + major, std::string("libnvrtc.so"),
                                        "/usr/local/cuda/lib64/libnvrtc.so." + major}) {
            if ((lib = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) != nullptr) {
                break;
            }
        }
        if (lib == nullptr) {
            r.missing = "NVRTC (libnvrtc.so." + major + ", part of the CUDA Toolkit) was not found";
            return r;
        }
        bind(lib, "nvrtcCreateProgram", r.create, r.missing);
        bind(lib, "nvrtcCompileProgram", r.compile, r.missing);
        bind(lib, "nvrtcDestroyProgram", r.destroy, r.missing);
        bind(lib, "nvrtcGetProgramLogSize", r.logSize, r.missing);
        bind(lib, "nvrtcGetProgramLog", r.log, r.missing);
        bind(lib, "nvrtcGetCUBINSize", r.cubinSize, r.missing);
        bind(lib, "nvrtcGetCUBIN", r.cubin, r.missing);
        bind(lib, "nvrtcGetPTXSize", r.ptxSize, r.missing);
        bind(lib, "nvrtcGetPTX", r.ptx, r.missing);
        bind(lib, "nvrtcGetErrorString", r.error, r.missing);
        bind(lib, "nvrtcGetNumSupportedArchs", r.archCount, r.missing);
        bind(lib, "nvrtcGetSupportedArchs", r.archs, r.missing);
        return r;
    }();
    return a;
}

// Stand-ins for the three standard headers kernels/portable_math.hpp includes: the fixed-width
// integers, and the two constants it takes from <cmath> with the bits nvcc's headers give them.
// The math functions themselves are NVRTC's built-in device functions.
constexpr const char* kCstdint =
    "#pragma once\nnamespace std {\ntypedef signed char int8_t;\ntypedef short int16_t;\ntypedef int int32_t;\n"
    "typedef long long int64_t;\ntypedef unsigned char uint8_t;\ntypedef unsigned short uint16_t;\n"
    "typedef unsigned int uint32_t;\ntypedef unsigned long long uint64_t;\n}\n";
constexpr const char* kCmath =
    "#pragma once\n#define NAN __int_as_float(0x7fc00000)\n#define HUGE_VAL __longlong_as_double(0x7ff0000000000000LL)\n";
constexpr const char* kCstring = "#pragma once\n";

std::string firstLines(const std::string& text, int lines)
{
    std::istringstream in(text);
    std::string line;
    std::string out;
    for (int k = 0; k < lines && std::getline(in, line);) {
        if (!line.empty()) {
            out += (out.empty() ? "" : " | ") + line;
            ++k;
        }
    }
    return out;
}

}  // namespace

std::string nvrtcUnavailableReason() { return api().missing; }

NvrtcImage nvrtcCompile(const std::string& source, const std::string& name, int capability)
{
    NvrtcImage out;
    const Api& a = api();
    if (!a.missing.empty()) {
        out.message = a.missing;
        return out;
    }
    int count = 0;
    a.archCount(&count);
    std::vector<int> archs(static_cast<std::size_t>(std::max(count, 0)));
    if (count > 0) {
        a.archs(archs.data());
    }
    int arch = 0;
    for (const int k : archs) {
        if (k <= capability) {
            arch = std::max(arch, k);
        }
    }
    if (arch == 0) {
        out.message = "NVRTC knows no architecture at or below compute capability " + std::to_string(capability / 10) +
                      "." + std::to_string(capability % 10);
        return out;
    }
    out.cubin = arch == capability;
    out.target = (out.cubin ? "sm_" : "compute_") + std::to_string(arch);
    const std::string gpu = "--gpu-architecture=" + out.target;
    const char* options[] = {gpu.c_str(), "--fmad=false", "-std=c++17"};
    const char* headers[] = {kCstdint, kCmath, kCstring};
    const char* headerNames[] = {"cstdint", "cmath", "cstring"};
    static std::mutex mutex;  // one compile at a time: they are short, and NVRTC's state is its own
    const std::lock_guard lock(mutex);
    Program p = nullptr;
    if (const int r = a.create(&p, source.c_str(), name.c_str(), 3, headers, headerNames); r != 0) {
        out.message = std::string("NVRTC could not take the source: ") + a.error(r);
        return out;
    }
    const int compiled = a.compile(p, 3, options);
    std::size_t size = 0;
    std::string log;
    if (a.logSize(p, &size) == 0 && size > 1) {
        log.resize(size);
        a.log(p, log.data());
        log.resize(size - 1);
    }
    if (compiled != 0) {
        out.message = std::string("NVRTC failed on ") + name + " (" + a.error(compiled) + "): " + firstLines(log, 3);
    } else if ((out.cubin ? a.cubinSize(p, &size) : a.ptxSize(p, &size)) == 0) {
        out.image.resize(size);
        (out.cubin ? a.cubin : a.ptx)(p, out.image.data());
        out.ok = true;
    } else {
        out.message = "NVRTC compiled " + name + " but gave no image";
    }
    a.destroy(&p);
    return out;
}

}  // namespace spike::kernels
