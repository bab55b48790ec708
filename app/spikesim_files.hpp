// Output files of the spikesim commands: written to a temporary file beside the target and
// renamed into place, so a failure leaves no partial file looking complete. Main thread.
#pragma once

#include "engine/tensor/error.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace spike::app {

/// Writes `text` to `path` atomically; throws engine::Error "--out PATH: cannot write the file".
inline void writeAtomically(const std::string& path, const std::string& text)
{
    const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        f << text;
        f.flush();
        if (!f) {
            std::error_code ignored;
            std::filesystem::remove(tmp, ignored);
            throw engine::Error("--out " + path + ": cannot write the file");
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        throw engine::Error("--out " + path + ": cannot write the file");
    }
}

}  // namespace spike::app
