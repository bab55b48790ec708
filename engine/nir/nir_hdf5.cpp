// See nir_hdf5.hpp.
#include "engine/nir/nir_hdf5.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace spike::engine::nir::detail {

std::mutex& hdf5Mutex()
{
    static std::mutex mutex;
    return mutex;
}

Hdf5Failure lastHdf5Failure()
{
    Hdf5Failure failure;
    const auto visit = [](unsigned, const H5E_error2_t* error, void* data) -> herr_t {
        auto* out = static_cast<Hdf5Failure*>(data);
        if (error->min_num == H5E_TRUNCATED) {
            out->truncated = true;
        }
        if (out->reason.empty()) {
            char text[256] = {};
            if (H5Eget_msg(error->min_num, nullptr, text, sizeof text) > 0) {
                out->reason = text;
            }
        }
        return 0;
    };
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, visit, &failure);
    std::replace(failure.reason.begin(), failure.reason.end(), '\n', ' ');
    if (failure.reason.empty()) {
        failure.reason = "HDF5 gave no reason";
    }
    return failure;
}

std::string shapeText(const std::vector<std::int64_t>& shape)
{
    std::string text = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        text += (i > 0 ? ", " : "") + std::to_string(shape[i]);
    }
    return text + ")";
}

std::string classText(H5T_class_t cls)
{
    switch (cls) {
    case H5T_INTEGER: return "integer";
    case H5T_FLOAT: return "float";
    case H5T_TIME: return "time";
    case H5T_STRING: return "string";
    case H5T_BITFIELD: return "bitfield";
    case H5T_OPAQUE: return "opaque";
    case H5T_COMPOUND: return "compound";
    case H5T_REFERENCE: return "reference";
    case H5T_ENUM: return "enum";
    case H5T_VLEN: return "variable-length sequence";
    case H5T_ARRAY: return "array";
    default: return "unknown";
    }
}

std::string osReason(int err)
{
    switch (err) {
    case ENOENT: return "no such file";
    case EACCES:
    case EPERM: return "permission denied";
    case EROFS: return "read-only file system";
    case ENOSPC: return "no space left on the device";
    case EISDIR: return "a folder is in the way";
    default: return std::strerror(err);
    }
}

}  // namespace spike::engine::nir::detail
