// Reading the strings of a .nir dataset or attribute (nir_read_strings.hpp).
// Thread: the caller holds detail::hdf5Mutex().
#include "engine/nir/nir_read_strings.hpp"

#include "engine/nir/nir_hdf5.hpp"
#include "engine/nir/nir_vlen_check.hpp"
#include "engine/tensor/error.hpp"

#include <algorithm>
#include <utility>

namespace spike::engine::nir::detail {

namespace {

[[noreturn]] void fail(const StringSource& source, const std::string& what)
{
    throw Error(source.where + what);
}

[[noreturn]] void failHdf5(const StringSource& source, const std::string& what)
{
    fail(source, what + " (damaged HDF5: " + lastHdf5Failure().reason + ")");
}

}  // namespace

std::vector<std::string> readStrings(hid_t object, bool isAttribute, hid_t fileType, hid_t space,
                                     std::size_t n, const StringSource& source)
{
    const auto readInto = [&](hid_t memType, void* buffer) {
        return isAttribute ? H5Aread(object, memType, buffer)
                           : H5Dread(object, memType, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer);
    };
    std::vector<std::string> texts;
    if (n == 0) {
        return texts;
    }
    Handle memType(H5Tcopy(H5T_C_S1), H5Tclose);
    const htri_t variable = H5Tis_variable_str(fileType);
    if (!memType.valid() || variable < 0 ||
        H5Tset_cset(memType.get(), H5Tget_cset(fileType)) < 0) {
        failHdf5(source, "cannot read the string type");
    }
    if (variable > 0) {
        // HDF5 sizes its conversion buffers by the stored character size: a damaged one
        // (gigabytes) would be allocated and cleared.
        Handle character(H5Tget_super(fileType), H5Tclose);
        if (!character.valid() || H5Tget_size(character.get()) != 1) {
            fail(source, "strings of " +
                 std::to_string(character.valid() ? H5Tget_size(character.get()) : 0) +
                 "-byte characters (expected 1-byte characters; damaged file)");
        }
        if (!isAttribute) {
            const std::string problem =
                checkStoredStrings(source.h5file, object, n, source.fd, source.fileBytes);
            if (!problem.empty()) {
                fail(source, problem + " (damaged file)");
            }
        }
        if (H5Tset_size(memType.get(), H5T_VARIABLE) < 0) {
            failHdf5(source, "cannot read the string type");
        }
        std::vector<char*> pointers(n, nullptr);
        const herr_t status = readInto(memType.get(), pointers.data());
        for (const char* p : pointers) {
            texts.emplace_back(p != nullptr ? p : "");
        }
#if H5_VERSION_GE(1, 12, 0)
        H5Treclaim(memType.get(), space, H5P_DEFAULT, pointers.data());
#else
        H5Dvlen_reclaim(memType.get(), space, H5P_DEFAULT, pointers.data());
#endif
        if (status < 0) {
            failHdf5(source, "cannot read the strings");
        }
        return texts;
    }
    const std::size_t size = H5Tget_size(fileType);
    if (size == 0 || static_cast<double>(size) * static_cast<double>(n) >
                         kMaxExpansion * static_cast<double>(source.fileBytes) + 65536.0) {
        fail(source, std::to_string(n) + " strings of " + std::to_string(size) +
             " bytes are more than the file can hold (damaged file)");
    }
    const H5T_str_t pad = H5Tget_strpad(fileType);
    if (H5Tset_size(memType.get(), size) < 0 || H5Tset_strpad(memType.get(), pad) < 0) {
        failHdf5(source, "cannot read the string type");
    }
    std::vector<char> bytes(size * n);
    if (readInto(memType.get(), bytes.data()) < 0) {
        failHdf5(source, "cannot read the strings");
    }
    for (std::size_t i = 0; i < n; ++i) {
        std::string text(bytes.data() + i * size, size);
        if (pad == H5T_STR_SPACEPAD) {
            text.erase(text.find_last_not_of(' ') + 1);
        } else {
            text.resize(std::min(text.size(), text.find('\0')));
        }
        texts.push_back(std::move(text));
    }
    return texts;
}

}  // namespace spike::engine::nir::detail
