// See nir_vlen_check.hpp. The byte layouts follow the HDF5 file format specification (version
// 2.0 and earlier): a variable-length descriptor is a 4-byte length, then a global heap ID (an
// address of the file's address size and a 4-byte object index); a global heap collection is
// "GCOL", version 1, 3 reserved bytes and the collection's size, then its objects, each a 2-byte
// index, 2-byte reference count, 4 reserved bytes, its size and its data padded to 8 bytes; the
// object of index 0 is the free space and ends the list. Addresses are relative to the base
// address (the user block's size). All numbers are little-endian.
#include "engine/nir/nir_vlen_check.hpp"

#include "engine/nir/nir_hdf5.hpp"

#include <unistd.h>

#include <map>
#include <vector>

namespace spike::engine::nir::detail {

namespace {

bool readAt(int fd, std::uint64_t offset, std::size_t bytes, unsigned char* out)
{
    std::size_t done = 0;
    while (done < bytes) {
        const ssize_t got = ::pread(fd, out + done, bytes - done, static_cast<off_t>(offset + done));
        if (got <= 0) {
            return false;
        }
        done += static_cast<std::size_t>(got);
    }
    return true;
}

std::uint64_t decode(const unsigned char* p, std::size_t bytes)
{
    std::uint64_t value = 0;
    for (std::size_t i = bytes; i-- > 0;) {
        value = (value << 8) | p[i];
    }
    return value;
}

/// The objects of one global heap collection (index -> size), or why it cannot be trusted.
struct HeapObjects {
    std::string problem;
    std::map<std::uint32_t, std::uint64_t> sizes;
};

/// Walks a collection the way HDF5's H5HG deserialisation does, but refusing every object that
/// would reach past the collection's end or not move forward.
HeapObjects readCollection(int fd, std::uint64_t address, std::uint64_t fileBytes, std::size_t sizeofSize)
{
    HeapObjects heap;
    const std::size_t headerBytes = 8 + sizeofSize;
    unsigned char header[16] = {};
    if (address >= fileBytes || fileBytes - address < headerBytes || !readAt(fd, address, headerBytes, header)) {
        heap.problem = "a global heap collection past the end of the file";
        return heap;
    }
    const std::uint64_t size = decode(header + 8, sizeofSize);
    if (std::string(reinterpret_cast<const char*>(header), 4) != "GCOL" || header[4] != 1 ||
        size < headerBytes || size > fileBytes - address) {
        heap.problem = "a damaged global heap collection";
        return heap;
    }
    std::vector<unsigned char> bytes(static_cast<std::size_t>(size));
    if (!readAt(fd, address, bytes.size(), bytes.data())) {
        heap.problem = "a global heap collection past the end of the file";
        return heap;
    }
    const std::uint64_t objectHeader = 8 + sizeofSize;
    std::uint64_t at = headerBytes;
    while (at < size) {
        if (size - at < objectHeader) {
            break;  // too small for an object: free space, as HDF5 reads it
        }
        const auto index = static_cast<std::uint32_t>(decode(bytes.data() + at, 2));
        const std::uint64_t objectSize = decode(bytes.data() + at + 8, sizeofSize);
        std::uint64_t need = objectSize;  // the free-space object counts its header in its size
        if (index > 0) {
            if (objectSize > size) {
                heap.problem = "a damaged global heap object";
                return heap;
            }
            need = objectHeader + ((objectSize + 7) & ~std::uint64_t{7});
            heap.sizes[index] = objectSize;
        }
        if (need < objectHeader || need > size - at) {
            heap.problem = "a damaged global heap object";
            return heap;
        }
        at += need;
    }
    return heap;
}

}  // namespace

std::string checkStoredStrings(hid_t file, hid_t dataset, std::uint64_t count, int fd, std::uint64_t fileBytes)
{
    Handle dcpl(H5Dget_create_plist(dataset), H5Pclose);
    Handle fcpl(H5Fget_create_plist(file), H5Pclose);
    std::size_t sizeofAddr = 0, sizeofSize = 0;
    hsize_t userBlock = 0;
    if (!dcpl.valid() || !fcpl.valid() || H5Pget_sizes(fcpl.get(), &sizeofAddr, &sizeofSize) < 0 ||
        H5Pget_userblock(fcpl.get(), &userBlock) < 0 || sizeofAddr < 2 || sizeofAddr > 8 ||
        sizeofSize < 2 || sizeofSize > 8) {
        return "cannot read the file's address sizes";
    }
    const H5D_layout_t layout = H5Pget_layout(dcpl.get());
    if (layout != H5D_CONTIGUOUS) {
        return std::string("variable-length strings in ") +
               (layout == H5D_COMPACT ? "compact" : "chunked") +
               " storage (expected contiguous storage, as HDF5 and the NIR library write them)";
    }
    const haddr_t offset = H5Dget_offset(dataset);
    if (offset == HADDR_UNDEF || count == 0) {
        return "";  // never written: HDF5 reads every string as empty without the heap
    }
    const std::uint64_t descriptorBytes = 8 + sizeofAddr;
    if (offset >= fileBytes || count > (fileBytes - offset) / descriptorBytes) {
        return "string data past the end of the file";
    }
    std::vector<unsigned char> descriptors(static_cast<std::size_t>(count * descriptorBytes));
    if (!readAt(fd, offset, descriptors.size(), descriptors.data())) {
        return "string data past the end of the file";
    }
    std::map<std::uint64_t, HeapObjects> collections;
    for (std::uint64_t i = 0; i < count; ++i) {
        const unsigned char* d = descriptors.data() + i * descriptorBytes;
        const std::uint64_t length = decode(d, 4);
        if (length == 0) {
            continue;  // an empty (or null) string does not touch the heap
        }
        const std::uint64_t address = decode(d + 4, sizeofAddr) + userBlock;
        const auto index = static_cast<std::uint32_t>(decode(d + 4 + sizeofAddr, 4));
        auto found = collections.find(address);
        if (found == collections.end()) {
            found = collections.emplace(address, readCollection(fd, address, fileBytes, sizeofSize)).first;
        }
        const HeapObjects& heap = found->second;
        if (!heap.problem.empty()) {
            return "string " + std::to_string(i) + " is kept in " + heap.problem;
        }
        const auto object = heap.sizes.find(index);
        if (index == 0 || object == heap.sizes.end()) {
            return "string " + std::to_string(i) + " names a global heap object that does not exist";
        }
        if (object->second != length) {
            return "string " + std::to_string(i) + " is " + std::to_string(length) +
                   " bytes long but its global heap object holds " + std::to_string(object->second);
        }
    }
    return "";
}

}  // namespace spike::engine::nir::detail
