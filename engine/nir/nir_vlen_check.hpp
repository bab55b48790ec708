// A check HDF5 1.10 does not make: before the reader lets HDF5 turn a dataset's
// variable-length strings into memory, the stored descriptors (length, global heap collection,
// object index) are read straight from the file and compared with the heap collection they name.
// Without it a damaged file crashes the process (an index past the heap's objects: H5HG_read
// reads out of bounds; a heap object longer than its descriptor says: a buffer overflow), or
// stalls it (a length of gigabytes is allocated and cleared; a heap object of size 0 loops).
// Internal to engine/nir.
// Thread: the caller holds detail::hdf5Mutex().
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <string>

namespace spike::engine::nir::detail {

/// Checks the `count` variable-length strings of `dataset` (in `file`, `fileBytes` long, open
/// for reading as `fd`). Returns "" when HDF5 may read them, else why not ("string 3 names a
/// heap object that does not exist"). Strings in compact or chunked storage cannot be checked
/// and are refused (HDF5 and the NIR library store them contiguously).
std::string checkStoredStrings(hid_t file, hid_t dataset, std::uint64_t count, int fd,
                               std::uint64_t fileBytes);

}  // namespace spike::engine::nir::detail
