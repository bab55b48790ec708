// The member table of a single-file ZIP archive: the part of the .npz reader (npz.cpp) that
// knows the ZIP container. It finds the end record (and the Zip64 end records before it), reads
// the central directory into Members (applying Zip64 extra fields), and locates each member's data
// through its local header, checking every offset and size against the file before using it.
// What the members hold (names, sizes allowed, decoding) is npz.cpp's business.
//
// Internal to engine/tensor; not part of the engine's public API. Errors throw
// spike::engine::Error "<path>: <what was expected>" or "<path>: <member>: <what was expected>".
// An ArchiveFile belongs to one thread at a time; the functions share no state.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace spike::engine::npz::detail {

/// A regular file read at offsets the caller has checked against size().
class ArchiveFile {
public:
    /// Opens `path`; throws Error naming it when it cannot be opened or is not a regular file.
    explicit ArchiveFile(const std::string& path);

    std::uint64_t size() const { return m_size; }
    const std::string& path() const { return m_path; }

    /// Reads bytes [offset, offset + n), which must lie within size().
    void read(std::uint64_t offset, char* dst, std::size_t n);
    std::string readString(std::uint64_t offset, std::size_t n);

private:
    struct Closer {
        void operator()(std::FILE* f) const { std::fclose(f); }
    };
    std::string m_path;
    std::unique_ptr<std::FILE, Closer> m_file;
    std::uint64_t m_size = 0;
};

constexpr std::uint16_t kMethodStored = 0;
constexpr std::uint16_t kMethodDeflated = 8;

/// One member as the central directory describes it (sizes and offset after Zip64).
struct Member {
    std::string name;                      ///< As stored.
    std::string display;                   ///< printable(name), for messages.
    std::uint16_t method = kMethodStored;  ///< kMethodStored or kMethodDeflated.
    std::uint32_t crc = 0;                 ///< CRC-32 of the uncompressed bytes.
    std::uint64_t compressedSize = 0;      ///< [bytes]; equals size when stored.
    std::uint64_t size = 0;                ///< Uncompressed [bytes].
    std::uint64_t localOffset = 0;         ///< Of the local header.
    std::uint64_t dataOffset = 0;          ///< Set by locateData().
};

struct ZipDirectory {
    std::uint64_t offset = 0;     ///< Where the central directory starts: all data lie before.
    std::vector<Member> members;  ///< In directory order.
};

/// Reads the end records and the central directory of `file`. Refuses split archives, more
/// than `maxMembers` members, encrypted members, methods other than stored and deflated, and a
/// stored member whose two sizes differ.
ZipDirectory readDirectory(ArchiveFile& file, std::uint64_t maxMembers);

/// Sets every member's dataOffset from its local header (which must name the same member) and
/// checks that headers and data lie before the central directory without overlapping.
void locateData(ArchiveFile& file, ZipDirectory& dir);

/// `name` as one printable line: bytes outside printable ASCII and backslashes become \xNN.
std::string printable(std::string_view name);

/// Throws Error "<path>: <member>: <what>".
[[noreturn]] void failMember(const std::string& path, const Member& m, const std::string& what);

}  // namespace spike::engine::npz::detail
