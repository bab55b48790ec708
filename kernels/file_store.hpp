// Small file operations for the caches of compiled equation code that several processes share:
// the CPU's native libraries (engine/equations/native.cpp) and the GPU's device images
// (kernels/nvrtc.cpp). Plain C++. Thread-safe.
#pragma once

#include <filesystem>
#include <string>

namespace spike::kernels {

/// The whole content of `p` ("" when it cannot be read).
std::string readWholeFile(const std::filesystem::path& p);

/// "<pid>-<n>": a name no other process or call uses for its temporary files.
std::string uniqueFileSuffix();

/// Writes `text` to `p` through a temporary file beside it and a rename, so a reader in another
/// process sees the old content or the new, never a part; nothing is written when `p` already
/// holds `text`. Throws std::runtime_error (naming the file) when it cannot be written.
void writeFileAtomically(const std::filesystem::path& p, const std::string& text);

}  // namespace spike::kernels
