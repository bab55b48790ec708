// A check HDF5 1.10.8 does not make: it copies a whole chunk's bytes out of what its deflate
// filter returned without checking their count, so a damaged chunk that inflates short makes it
// read past its buffer (found by fuzz_nir: 1560 bytes copied from 28; heap corruption outside
// AddressSanitizer). Before HDF5 reads a chunked dataset whose only filter is deflate, every
// chunk is read raw (H5Dread_chunk) and inflated here with zlib, and must give exactly one
// chunk's bytes. Internal to engine/nir.
// Thread: the caller holds detail::hdf5Mutex().
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <string>

namespace spike::engine::nir::detail {

/// Checks the chunks of `dataset` (in a file `fileBytes` long). Returns "" when HDF5 may read
/// it (also for datasets that are not chunked, or use other filters), else why not ("damaged:
/// chunk 0 holds 24 bytes, a chunk is 1560 bytes").
std::string checkDeflateChunks(hid_t dataset, std::uint64_t fileBytes);

}  // namespace spike::engine::nir::detail
