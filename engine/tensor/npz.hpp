// NumPy .npz archives: reading the ZIP files np.savez (ZIP_STORED) and np.savez_compressed
// (ZIP_DEFLATED) write, one float32 Tensor per "<name>.npy" member.
//
// The central directory is authoritative (sizes, CRC-32, offsets; Zip64 extra fields and the Zip64
// end records are read where present, as NumPy writes them); local headers only locate each
// member's data and must name the same member. Every member is decoded into memory, checked
// against its CRC-32 and parsed by npy::parse, so it is accepted exactly when the same bytes as a
// .npy file would be. Everything else - a file that is not a single-file ZIP, offsets or sizes
// beyond the file, members that overlap, encrypted or non-deflate members, names that are not
// plain "<name>.npy", duplicates, more than kMaxMembers members, a deflate stream that ends early,
// late or past its declared size, a CRC mismatch - throws spike::engine::Error with one line
// "<file>: <what was expected>" or "<file>: <member>: <what was expected>".
//
// No allocation exceeds what the file's bytes back: the central directory and a stored member
// are read only after their extent is checked against the file, an inflated member grows with
// the output actually produced up to its declared size, which may not exceed kMaxMemberBytes,
// and members may not overlap, so the output is bounded by deflate's ratio times the file size.
//
// Free functions without shared state: safe to call from any thread.
#pragma once

#include "engine/tensor/tensor.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace spike::engine::npz {

/// Most members an archive may hold.
constexpr std::uint64_t kMaxMembers = 10000;

/// Largest .npy header counted in kMaxMemberBytes [bytes] (a version 1.0 header's limit; the
/// headers NumPy writes for the arrays npy::parse accepts are under 200 bytes).
constexpr std::uint64_t kMaxNpyHeaderBytes = 65536 + 10;

/// Largest uncompressed member [bytes]: Tensor::kMaxElements elements of the widest dtype
/// npy::parse converts (8 bytes: float64, int64, uint64) plus a header.
constexpr std::uint64_t kMaxMemberBytes =
    static_cast<std::uint64_t>(Tensor::kMaxElements) * 8 + kMaxNpyHeaderBytes;

/// Reads every member of the .npz archive at `path`, in archive (central directory) order, as
/// (name without ".npy", tensor). Each member is parsed as npy::parse parses a .npy file, with
/// "<path>: <member>" starting its messages. Throws Error naming `path` (and the member) when
/// the file cannot be read or is not a well-formed archive of supported .npy arrays.
std::vector<std::pair<std::string, Tensor>> load(const std::string& path);

}  // namespace spike::engine::npz
