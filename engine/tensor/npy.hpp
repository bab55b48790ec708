// NumPy .npy files: reading any plain numeric array NumPy writes into a float32 Tensor, and
// writing a Tensor exactly as numpy.save writes a C-ordered float32 array.
//
// Reading accepts format versions 1.0, 2.0 and 3.0, C order, rank 0 to 4, and the dtypes
// float32, float64, int8/16/32/64, uint8/16/32/64 and bool in little-endian (or byte-order-free)
// form; every value is converted to float32. Anything else (big-endian data, object, complex,
// string or structured dtypes, Fortran order, malformed headers, missing or extra bytes) throws
// spike::engine::Error with one line naming the file and what was expected. Sizes are checked
// against the bytes actually present before anything is allocated.
//
// Writing produces format 1.0, '<f4', fortran_order False, with NumPy's header layout (spare
// space after the dict and padding so the data starts on a 64-byte boundary), byte for byte.
// save() writes to a temporary file beside the target and renames it into place.
//
// Free functions without shared state: safe to call from any thread.
#pragma once

#include "engine/tensor/tensor.hpp"

#include <string>

namespace spike::engine::npy {

/// Reads the .npy file at `path` into a float32 tensor. Throws Error naming `path` when the
/// file cannot be read, is not a supported .npy array, or would exceed Tensor::kMaxElements.
Tensor load(const std::string& path);

/// Parses the complete contents of a .npy file held in `bytes`. `sourceName` (usually the file
/// path) starts every error message. Same rules as load().
Tensor parse(const std::string& bytes, const std::string& sourceName);

/// Writes `t` to `path` as a version 1.0 '<f4' C-order .npy file, the same bytes numpy.save
/// writes for the equivalent float32 array. The file is written to `path + ".tmp-<pid>"` and
/// renamed over `path`, so a failure never leaves a partial file under `path`; on failure the
/// temporary file is removed and an Error naming `path` and the OS reason is thrown. Two threads
/// of one process must not save to the same path at the same time (they would share the name).
void save(const std::string& path, const Tensor& t);

/// The exact bytes save() writes for `t`.
std::string serialize(const Tensor& t);

}  // namespace spike::engine::npy
