// What every libFuzzer target shares: one scratch folder per process (under /dev/shm when it
// exists, so writing an input as a file costs no disk), removed at exit. What a target does with
// an input lives in fuzz_inputs.hpp. Single-threaded (libFuzzer's one thread).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

namespace spike::fuzz {

/// This process's scratch folder, created on first use and removed at exit.
inline const std::filesystem::path& scratchDir()
{
    static const std::filesystem::path dir = [] {
        const std::string base = std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : "/tmp";
        std::string templ = base + "/spike-fuzz-XXXXXX";
        if (::mkdtemp(templ.data()) == nullptr) {
            std::abort();
        }
        std::atexit([] {
            std::error_code ignored;
            std::filesystem::remove_all(scratchDir(), ignored);
        });
        return std::filesystem::path(templ);
    }();
    return dir;
}

/// The fuzz input as text.
inline std::string_view asText(const std::uint8_t* data, std::size_t size)
{
    return {reinterpret_cast<const char*>(data), size};
}

}  // namespace spike::fuzz
