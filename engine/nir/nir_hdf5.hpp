// The HDF5 plumbing nir_file.cpp (reading) and nir_file_write.cpp (writing) share: an RAII
// handle for every HDF5 identifier, the one mutex every HDF5 call runs under, and the reason
// HDF5's error stack gives for a failed call. Internal to engine/nir.
// Thread: hdf5Mutex() must be held around every HDF5 call, these helpers' included.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace spike::engine::nir::detail {

/// Groups within groups (nested graphs included) that a file may hold.
inline constexpr int kMaxDepth = 64;

/// Bytes of data one byte of file may hold (deflate expands at most ~1032x): the bound every
/// size read from a file is checked against before anything is allocated.
inline constexpr double kMaxExpansion = 1100.0;

/// The mutex around every HDF5 call of the process's NIR code (serial HDF5 is not thread-safe).
std::mutex& hdf5Mutex();

/// One HDF5 identifier, closed by its own close function when it goes out of scope.
class Handle {
public:
    using Closer = herr_t (*)(hid_t);
    Handle() = default;
    Handle(hid_t id, Closer close) : m_id(id), m_close(close) {}
    Handle(Handle&& other) noexcept
        : m_id(std::exchange(other.m_id, H5I_INVALID_HID)), m_close(other.m_close)
    {
    }
    Handle& operator=(Handle&& other) noexcept
    {
        if (this != &other) {
            close();
            m_id = std::exchange(other.m_id, H5I_INVALID_HID);
            m_close = other.m_close;
        }
        return *this;
    }
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    ~Handle() { close(); }

    hid_t get() const { return m_id; }
    bool valid() const { return m_id >= 0; }
    /// Closes now; false when HDF5 reports that closing failed (for a file: data not flushed).
    bool close()
    {
        const bool ok = m_id < 0 || m_close(m_id) >= 0;
        m_id = H5I_INVALID_HID;
        return ok;
    }

private:
    hid_t m_id = H5I_INVALID_HID;
    Closer m_close = nullptr;
};

/// What HDF5's error stack says about the last failed call.
struct Hdf5Failure {
    std::string reason;      ///< the innermost error's minor message ("bad symbol table")
    bool truncated = false;  ///< some error says the file is truncated
};

/// Reads HDF5's error stack after a failed call (the innermost error's message).
Hdf5Failure lastHdf5Failure();

/// "(2, 1, 3, 3)".
std::string shapeText(const std::vector<std::int64_t>& shape);

/// "integer", "float", "compound", ...
std::string classText(H5T_class_t cls);

/// A short reason for an errno value ("no such file", "permission denied", ...).
std::string osReason(int err);

}  // namespace spike::engine::nir::detail
