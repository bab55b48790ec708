// See nir_chunk_check.hpp.
#include "engine/nir/nir_chunk_check.hpp"

#include "engine/nir/nir_hdf5.hpp"

#include <zlib.h>

#include <vector>

namespace spike::engine::nir::detail {

std::string checkDeflateChunks(hid_t dataset, std::uint64_t fileBytes)
{
    Handle plist(H5Dget_create_plist(dataset), H5Pclose);
    if (!plist.valid() || H5Pget_layout(plist.get()) != H5D_CHUNKED || H5Pget_nfilters(plist.get()) != 1) {
        return {};
    }
    unsigned flags = 0;
    std::size_t values = 0;
    unsigned config = 0;
    if (H5Pget_filter2(plist.get(), 0, &flags, &values, nullptr, 0, nullptr, &config) != H5Z_FILTER_DEFLATE) {
        return {};
    }
    Handle type(H5Dget_type(dataset), H5Tclose);
    Handle space(H5Dget_space(dataset), H5Sclose);
    hsize_t dims[H5S_MAX_RANK] = {};
    const int rank = H5Pget_chunk(plist.get(), H5S_MAX_RANK, dims);
    double chunkBytes = type.valid() ? static_cast<double>(H5Tget_size(type.get())) : 0.0;
    for (int d = 0; d < rank; ++d) {
        chunkBytes *= static_cast<double>(dims[d]);
    }
    hsize_t chunks = 0;
    if (!space.valid() || rank < 1 || chunkBytes < 1 || chunkBytes > 2147483647.0 ||
        H5Dget_num_chunks(dataset, space.get(), &chunks) < 0) {
        return "damaged: its chunk layout cannot be read";
    }
    const auto expected = static_cast<uLongf>(chunkBytes);
    std::vector<unsigned char> raw;
    std::vector<unsigned char> inflated(expected + 1);
    for (hsize_t i = 0; i < chunks; ++i) {
        hsize_t offset[H5S_MAX_RANK] = {};
        unsigned mask = 0;
        haddr_t address = 0;
        hsize_t stored = 0;
        if (H5Dget_chunk_info(dataset, space.get(), i, offset, &mask, &address, &stored) < 0 ||
            stored > fileBytes) {
            return "damaged: chunk " + std::to_string(i) + " lies beyond the file";
        }
        raw.resize(static_cast<std::size_t>(stored));
        std::uint32_t readMask = 0;
        if (H5Dread_chunk(dataset, H5P_DEFAULT, offset, &readMask, raw.data()) < 0) {
            return "damaged: chunk " + std::to_string(i) + " cannot be read";
        }
        uLongf got = expected + 1;
        const bool filtered = (readMask & 1U) == 0;
        const int z = filtered ? ::uncompress(inflated.data(), &got, raw.data(), static_cast<uLong>(raw.size()))
                               : Z_OK;
        if (!filtered) {
            got = static_cast<uLongf>(raw.size());
        }
        if (z != Z_OK || got != expected) {
            return "damaged: chunk " + std::to_string(i) + " holds " +
                   (z == Z_OK ? std::to_string(got) + " bytes" : std::string("no valid deflate data")) +
                   ", a chunk is " + std::to_string(expected) + " bytes";
        }
    }
return {};
}

}  // namespace spike::engine::nir::detail
