// NVRTC loaded at run time; see nvrtc.hpp. The few entry points used are declared here with
// NVRTC's C signatures (nvrtc.h), so nothing needs the toolkit's headers to build.
#include "kernels/nvrtc.hpp"

#include "kernels/file_store.hpp"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <functional>
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

std::atomic<long long>& compilations()
{
    static std::atomic<long long> n{0};
    return n;
}

// --- the disk cache of images ---------------------------------------------------------------

namespace fs = std::filesystem;

constexpr const char* kImageMagic = "spikestudio device image 1";

/// dir/dev_<hash of source>_cc<capability> (without extension).
fs::path imageStem(const std::string& source, int capability, const std::string& dir)
{
    char hash[32];
    std::snprintf(hash, sizeof hash, "%016zx", std::hash<std::string>{}(source));
    return fs::path(dir) / ("dev_" + std::string(hash) + "_cc" + std::to_string(capability));
}

fs::path withExtension(const fs::path& stem, const char* ext) { return fs::path(stem.string() + ext); }

}  // namespace

std::string nvrtcUnavailableReason() { return api().missing; }

long long nvrtcCompilations() { return compilations().load(); }

NvrtcImage cachedImage(const std::string& source, int capability, const std::string& dir)
{
    NvrtcImage out;
    if (dir.empty()) {
        return out;
    }
    try {
        const fs::path stem = imageStem(source, capability, dir);
        std::error_code ec;
        if (!fs::exists(withExtension(stem, ".img"), ec) ||
            readWholeFile(withExtension(stem, ".cu")) != source) {
            return out;
        }
        const std::string file = readWholeFile(withExtension(stem, ".img"));
        std::istringstream header(file);
        std::string magic;
        std::string target;
        int cubin = -1;
        std::size_t size = 0;
        if (!std::getline(header, magic) || magic != kImageMagic || !(header >> target >> cubin >> size) ||
            (cubin != 0 && cubin != 1) || header.get() != '\n') {
            return out;
        }
        const auto at = static_cast<std::size_t>(header.tellg());
        if (size == 0 || file.size() - at != size) {  // cut short by a full disk, or grown
            return out;
        }
        out.image = file.substr(at);
        out.cubin = cubin == 1;
        out.target = target;
        out.ok = true;
    } catch (const std::exception&) {
        out = {};  // an unreadable cache is an empty one
    }
    return out;
}

bool storeImage(const std::string& source, int capability, const std::string& dir, const NvrtcImage& image)
{
    if (dir.empty() || !image.ok || image.image.empty() ||
        image.target.find_first_of(" \n") != std::string::npos) {
        return false;
    }
    try {
        const fs::path stem = imageStem(source, capability, dir);
        fs::create_directories(stem.parent_path());
        writeFileAtomically(withExtension(stem, ".cu"), source);
        writeFileAtomically(withExtension(stem, ".img"), std::string(kImageMagic) + "\n" + image.target + " " +
                                                             (image.cubin ? "1 " : "0 ") +
                                                             std::to_string(image.image.size()) + "\n" + image.image);
        return true;
    } catch (const std::exception&) {
        return false;
    }
}

void forgetImage(const std::string& source, int capability, const std::string& dir)
{
    if (dir.empty()) {
        return;
    }
    std::error_code ec;
    fs::remove(withExtension(imageStem(source, capability, dir), ".img"), ec);
}

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
    compilations().fetch_add(1);
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
