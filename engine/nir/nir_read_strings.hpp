// The strings of a .nir dataset or attribute, fixed- or variable-length, read verbatim, with the
// checks HDF5 1.10 does not make first: a variable-length string's character size (a damaged one
// makes HDF5 allocate and clear gigabytes) and its stored descriptors (nir_vlen_check.hpp), and
// fixed-length strings against what the file could hold. Internal to engine/nir (the reader of
// nir_file.cpp).
// Thread: the caller holds detail::hdf5Mutex().
#pragma once

#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace spike::engine::nir::detail {

/// The file the strings are read from, and how its errors begin.
struct StringSource {
    hid_t h5file = H5I_INVALID_HID;  ///< the open file (for nir_vlen_check.hpp)
    int fd = -1;                     ///< the same file open for reading
    std::uint64_t fileBytes = 0;     ///< its size
    std::string where;               ///< "<file>: <HDF5 path>: ", the start of every error
};

/// The `n` strings of `object` (a dataset, or an attribute when `isAttribute`) of type `fileType`
/// over `space`. Throws Error (source.where + what is wrong) on a damaged or unreadable string.
std::vector<std::string> readStrings(hid_t object, bool isAttribute, hid_t fileType, hid_t space,
                                     std::size_t n, const StringSource& source);

}  // namespace spike::engine::nir::detail
