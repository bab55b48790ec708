// The member table of a single-file ZIP. See zip_directory.hpp.
//
// Three steps: find the end record (and the Zip64 end records it points past), parse the
// central directory into Members, locate every member's data through its local header. Every
// offset and size read from the file is checked against the file (or, inside the central
// directory, against the bytes read) before it is used, with 64-bit arithmetic written so that
// it cannot overflow.
#include "engine/tensor/zip_directory.hpp"

#include "engine/tensor/error.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <system_error>

namespace spike::engine::npz::detail {

static_assert(std::endian::native == std::endian::little,
              "the ZIP reader assumes a little-endian host");

namespace {

constexpr std::uint32_t kEndSignature = 0x06054b50;           // "PK\5\6"
constexpr std::uint32_t kZip64EndSignature = 0x06064b50;      // "PK\6\6"
constexpr std::uint32_t kZip64LocatorSignature = 0x07064b50;  // "PK\6\7"
constexpr std::uint32_t kCentralSignature = 0x02014b50;       // "PK\1\2"
constexpr std::uint32_t kLocalSignature = 0x04034b50;         // "PK\3\4"
constexpr std::size_t kEndSize = 22;
constexpr std::size_t kZip64EndSize = 56;
constexpr std::size_t kZip64LocatorSize = 20;
constexpr std::size_t kCentralSize = 46;
constexpr std::size_t kLocalSize = 30;
constexpr std::size_t kMaxComment = 0xffff;
constexpr std::uint16_t kZip64ExtraId = 0x0001;
constexpr std::uint32_t kUnknown32 = 0xffffffff;  ///< A 32-bit field whose value is in Zip64 extra.
constexpr std::uint16_t kUnknown16 = 0xffff;
constexpr std::uint16_t kFlagEncrypted = 0x0001;

[[noreturn]] void fail(const std::string& source, const std::string& what)
{
    throw Error(source + ": " + what);
}

std::string osReason(int err)
{
    return std::error_code(err, std::generic_category()).message();
}

std::uint16_t u16(const char* p)
{
    std::uint16_t v = 0;
    std::memcpy(&v, p, sizeof v);
    return v;
}

std::uint32_t u32(const char* p)
{
    std::uint32_t v = 0;
    std::memcpy(&v, p, sizeof v);
    return v;
}

std::uint64_t u64(const char* p)
{
    std::uint64_t v = 0;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// ---- end records ----------------------------------------------------------------------------

struct Directory {
    std::uint64_t offset = 0;  ///< Of the central directory's first entry.
    std::uint64_t size = 0;    ///< Bytes of central directory.
    std::uint64_t count = 0;   ///< Entries in it.
    std::uint64_t end = 0;     ///< Where the end records start: the directory must end by here.
};

/// Reads the Zip64 end record the locator at `locatorPos` points to into `d`.
void readZip64End(ArchiveFile& file, const std::string& path, std::uint64_t locatorPos,
                  Directory& d, std::uint32_t& disk, std::uint32_t& directoryDisk,
                  std::uint64_t& entriesHere)
{
    char loc[kZip64LocatorSize];
    file.read(locatorPos, loc, sizeof loc);
    const std::uint32_t locatorDisk = u32(loc + 4);
    const std::uint64_t recordPos = u64(loc + 8);
    const std::uint32_t disks = u32(loc + 16);
    if (locatorDisk != 0 || disks > 1) {
        fail(path,
             "split (multi-disk) ZIP archives are not supported; expected a single-file .npz");
    }
    if (locatorPos < kZip64EndSize || recordPos > locatorPos - kZip64EndSize) {
        fail(path, "corrupt Zip64 end records: the locator points to offset " +
                       std::to_string(recordPos) +
                       "; expected a 56-byte Zip64 end record before "
                       "the locator at offset " +
                       std::to_string(locatorPos));
    }
    char rec[kZip64EndSize];
    file.read(recordPos, rec, sizeof rec);
    const std::uint64_t recordSize = u64(rec + 4);
    if (u32(rec) != kZip64EndSignature || recordSize < kZip64EndSize - 12 ||
        recordSize > locatorPos - recordPos - 12) {
        fail(path,
             "corrupt Zip64 end records: no Zip64 end-of-central-directory record at offset " +
                 std::to_string(recordPos) + " where the locator points");
    }
    disk = u32(rec + 16);
    directoryDisk = u32(rec + 20);
    entriesHere = u64(rec + 24);
    d.count = u64(rec + 32);
    d.size = u64(rec + 40);
    d.offset = u64(rec + 48);
    d.end = recordPos;
}

Directory findDirectory(ArchiveFile& file, std::uint64_t maxMembers)
{
    const std::string& path = file.path();
    const std::uint64_t fileSize = file.size();
    if (fileSize == 0) {
        fail(path, "not a .npz archive (the file is empty)");
    }
    const auto tailSize =
        static_cast<std::size_t>(std::min<std::uint64_t>(fileSize, kEndSize + kMaxComment));
    const std::string tail = file.readString(fileSize - tailSize, tailSize);
    // The last end record whose comment reaches exactly to the end of the file.
    std::size_t found = std::string::npos;
    for (std::size_t pos = tailSize >= kEndSize ? tailSize - kEndSize + 1 : 0; pos-- > 0;) {
        const char* e = tail.data() + pos;
        if (u32(e) == kEndSignature && pos + kEndSize + u16(e + 20) == tailSize) {
            found = pos;
            break;
        }
    }
    if (found == std::string::npos) {
        fail(path,
             "not a .npz archive: no ZIP end-of-central-directory record at its end "
             "(expected a ZIP file as np.savez writes)");
    }
    const char* e = tail.data() + found;
    Directory d;
    d.end = fileSize - tailSize + found;
    std::uint32_t disk = u16(e + 4);
    std::uint32_t directoryDisk = u16(e + 6);
    std::uint64_t entriesHere = u16(e + 8);
    d.count = u16(e + 10);
    d.size = u32(e + 12);
    d.offset = u32(e + 16);

    bool zip64 = false;
    if (d.end >= kZip64LocatorSize) {
        char sig[4];
        file.read(d.end - kZip64LocatorSize, sig, sizeof sig);
        if (u32(sig) == kZip64LocatorSignature) {
            readZip64End(file, path, d.end - kZip64LocatorSize, d, disk, directoryDisk,
                         entriesHere);
            zip64 = true;
        }
    }
    if (disk != 0 || directoryDisk != 0) {
        fail(path,
             "split (multi-disk) ZIP archives are not supported; expected a single-file .npz");
    }
    if (entriesHere != d.count) {
        fail(path, std::string("corrupt ") + (zip64 ? "Zip64 " : "") +
                       "end record: " + std::to_string(entriesHere) + " members on this disk but " +
                       std::to_string(d.count) + " in all; expected the same count");
    }
    if (d.count > maxMembers) {
        fail(path, "the archive lists " + std::to_string(d.count) +
                       " members, more than the limit of " + std::to_string(maxMembers));
    }
    if (d.offset > d.end || d.size > d.end - d.offset) {
        fail(path, "corrupt ZIP: the central directory (" + std::to_string(d.size) +
                       " bytes at offset " + std::to_string(d.offset) +
                       ") does not end before the end record at offset " + std::to_string(d.end));
    }
    if (d.count * kCentralSize > d.size) {
        fail(path, "corrupt ZIP: the end record lists " + std::to_string(d.count) +
                       " members but the central directory has only " + std::to_string(d.size) +
                       " bytes; expected at least 46 per member");
    }
    return d;
}

// ---- central directory ----------------------------------------------------------------------

/// Applies the Zip64 extra field of `extra` to the fields of `m` whose 32-bit value was
/// kUnknown32 (and to `disk` when it was kUnknown16), in the order the format fixes.
void readExtra(std::string_view extra, const std::string& path, Member& m, bool sizeUnknown,
               bool compressedUnknown, bool offsetUnknown, std::uint32_t& disk)
{
    std::string_view zip64;
    bool haveZip64 = false;
    for (std::size_t pos = 0; pos < extra.size();) {
        if (extra.size() - pos < 4) {
            failMember(path, m,
                       "malformed extra field: " + std::to_string(extra.size() - pos) +
                           " stray bytes at its end; expected 4-byte record headers");
        }
        const std::uint16_t id = u16(extra.data() + pos);
        const std::uint16_t length = u16(extra.data() + pos + 2);
        if (length > extra.size() - pos - 4) {
            failMember(path, m,
                       "malformed extra field: a record of " + std::to_string(length) +
                           " bytes runs past the field's end");
        }
        if (id == kZip64ExtraId && !haveZip64) {
            zip64 = extra.substr(pos + 4, length);
            haveZip64 = true;
        }
        pos += 4 + std::size_t{length};
    }
    std::size_t at = 0;
    auto next = [&](const char* field) {
        if (zip64.size() - at < 8) {
            failMember(path, m,
                       std::string("the ") + field +
                           " is 0xFFFFFFFF but the Zip64 extra field does not hold it; "
                           "expected a Zip64 extra field with the 64-bit value");
        }
        const std::uint64_t v = u64(zip64.data() + at);
        at += 8;
        return v;
    };
    if (sizeUnknown) {
        m.size = next("uncompressed size");
    }
    if (compressedUnknown) {
        m.compressedSize = next("compressed size");
    }
    if (offsetUnknown) {
        m.localOffset = next("local header offset");
    }
    if (disk == kUnknown16) {
        if (zip64.size() - at < 4) {
            failMember(path, m,
                       "the disk number is 0xFFFF but the Zip64 extra field does not hold it");
        }
        disk = u32(zip64.data() + at);
    }
}

}  // namespace

ArchiveFile::ArchiveFile(const std::string& path)
    : m_path(path), m_file(std::fopen(path.c_str(), "rb"))
{
    if (!m_file) {
        fail(path, "cannot open: " + osReason(errno));
    }
    struct stat info {};
    if (::fstat(::fileno(m_file.get()), &info) != 0) {
        fail(path, "cannot open: " + osReason(errno));
    }
    if (S_ISDIR(info.st_mode)) {
        fail(path, "cannot open: it is a directory");
    }
    if (!S_ISREG(info.st_mode)) {
        fail(path, "cannot open: not a regular file");
    }
    m_size = static_cast<std::uint64_t>(info.st_size);
}

void ArchiveFile::read(std::uint64_t offset, char* dst, std::size_t n)
{
    if (n == 0) {
        return;
    }
    if (::fseeko(m_file.get(), static_cast<off_t>(offset), SEEK_SET) != 0) {
        fail(m_path, "cannot read: " + osReason(errno));
    }
    if (std::fread(dst, 1, n, m_file.get()) != n) {
        if (std::ferror(m_file.get()) != 0) {
            fail(m_path, "cannot read: " + osReason(errno));
        }
        fail(m_path, "truncated: the file became shorter while it was being read");
    }
}

std::string ArchiveFile::readString(std::uint64_t offset, std::size_t n)
{
    std::string s(n, '\0');
    read(offset, s.data(), n);
    return s;
}

/// `name` as one printable line: bytes outside printable ASCII and backslashes become \xNN.
std::string printable(std::string_view name)
{
    std::string out;
    for (const char c : name) {
        const auto b = static_cast<unsigned char>(c);
        if (b < 0x20 || b >= 0x7f || b == '\\') {
            char esc[8];
            std::snprintf(esc, sizeof esc, "\\x%02x", b);
            out += esc;
        } else {
            out += c;
        }
    }
    return out;
}

void failMember(const std::string& path, const Member& m, const std::string& what)
{
    fail(path, m.display + ": " + what);
}

ZipDirectory readDirectory(ArchiveFile& file, std::uint64_t maxMembers)
{
    const std::string& path = file.path();
    const Directory d = findDirectory(file, maxMembers);
    // findDirectory checked that the directory lies within the file.
    const std::string dir = file.readString(d.offset, static_cast<std::size_t>(d.size));
    ZipDirectory result;
    result.offset = d.offset;
    result.members.reserve(static_cast<std::size_t>(d.count));
    std::size_t pos = 0;
    for (std::uint64_t i = 0; i < d.count; ++i) {
        const std::string entry = "central directory entry " + std::to_string(i + 1);
        if (dir.size() - pos < kCentralSize) {
            fail(path, entry + ": the central directory ends inside it; expected " +
                           std::to_string(d.count) + " entries");
        }
        const char* c = dir.data() + pos;
        if (u32(c) != kCentralSignature) {
            fail(path, entry + ": bad signature; expected a central directory header (PK\\1\\2)");
        }
        const std::uint16_t flags = u16(c + 8);
        const std::uint16_t nameLength = u16(c + 28);
        const std::uint16_t extraLength = u16(c + 30);
        const std::uint16_t commentLength = u16(c + 32);
        const std::size_t variable = std::size_t{nameLength} + extraLength + commentLength;
        if (dir.size() - pos - kCentralSize < variable) {
            fail(path, entry +
                           ": the central directory ends inside its name, extra field or "
                           "comment; expected " +
                           std::to_string(d.count) + " whole entries");
        }
        Member m;
        m.name = dir.substr(pos + kCentralSize, nameLength);
        m.display = printable(m.name);
        m.method = u16(c + 10);
        m.crc = u32(c + 16);
        const std::uint32_t compressed32 = u32(c + 20);
        const std::uint32_t size32 = u32(c + 24);
        std::uint32_t disk = u16(c + 34);
        const std::uint32_t offset32 = u32(c + 42);
        m.compressedSize = compressed32;
        m.size = size32;
        m.localOffset = offset32;
        readExtra(std::string_view(dir).substr(pos + kCentralSize + nameLength, extraLength), path,
                  m, size32 == kUnknown32, compressed32 == kUnknown32, offset32 == kUnknown32,
                  disk);
        pos += kCentralSize + variable;

        if (disk != 0) {
            failMember(path, m,
                       "starts on disk " + std::to_string(disk) +
                           "; split (multi-disk) ZIP archives are not supported");
        }
        if ((flags & kFlagEncrypted) != 0) {
            failMember(path, m,
                       "encrypted members are not supported; expected a plain np.savez archive");
        }
        if (m.method != kMethodStored && m.method != kMethodDeflated) {
            failMember(path, m,
                       "compression method " + std::to_string(m.method) +
                           " is not supported; expected stored (0, np.savez) or "
                           "deflated (8, np.savez_compressed)");
        }
        if (m.method == kMethodStored && m.compressedSize != m.size) {
            failMember(path, m,
                       "stored member with compressed size " + std::to_string(m.compressedSize) +
                           " and size " + std::to_string(m.size) +
                           "; expected equal sizes for an uncompressed member");
        }
        result.members.push_back(std::move(m));
    }
    if (pos != dir.size()) {
        fail(path, "corrupt ZIP: " + std::to_string(dir.size() - pos) +
                       " bytes follow the last of the " + std::to_string(d.count) +
                       " central directory entries; expected the directory to end there");
    }
    return result;
}

/// and data lie before the central directory, one after another without overlapping.
void locateData(ArchiveFile& file, ZipDirectory& dir)
{
    const std::string& path = file.path();
    const std::uint64_t directoryStart = dir.offset;
    std::vector<Member>& members = dir.members;
    for (Member& m : members) {
        if (m.localOffset > directoryStart || directoryStart - m.localOffset < kLocalSize) {
            failMember(path, m,
                       "local header offset " + std::to_string(m.localOffset) +
                           "; expected a 30-byte local header before the central "
                           "directory at offset " +
                           std::to_string(directoryStart));
        }
        char h[kLocalSize];
        file.read(m.localOffset, h, sizeof h);
        if (u32(h) != kLocalSignature) {
            failMember(path, m,
                       "bad signature at offset " + std::to_string(m.localOffset) +
                           "; expected a local file header (PK\\3\\4)");
        }
        const std::uint16_t nameLength = u16(h + 26);
        const std::uint16_t extraLength = u16(h + 28);
        const std::uint64_t nameOffset = m.localOffset + kLocalSize;
        const std::uint64_t room = directoryStart - nameOffset;
        if (std::uint64_t{nameLength} + extraLength > room) {
            failMember(path, m,
                       "the local header's name and extra field run into the central "
                       "directory at offset " +
                           std::to_string(directoryStart));
        }
        if (nameLength != m.name.size() || file.readString(nameOffset, nameLength) != m.name) {
            failMember(path, m,
                       "the local header at offset " + std::to_string(m.localOffset) +
                           " names another member; expected the central directory's name");
        }
        m.dataOffset = nameOffset + nameLength + extraLength;
        if (m.compressedSize > directoryStart - m.dataOffset) {
            failMember(path, m,
                       "its " + std::to_string(m.compressedSize) + " bytes of data at offset " +
                           std::to_string(m.dataOffset) +
                           " run past the start of the central directory at offset " +
                           std::to_string(directoryStart));
        }
    }
    std::vector<const Member*> byOffset;
    byOffset.reserve(members.size());
    for (const Member& m : members) {
        byOffset.push_back(&m);
    }
    std::sort(byOffset.begin(), byOffset.end(), [](const Member* a, const Member* b) {
        return a->localOffset < b->localOffset;
    });
    for (std::size_t i = 1; i < byOffset.size(); ++i) {
        const Member& before = *byOffset[i - 1];
        const Member& m = *byOffset[i];
        if (m.localOffset < before.dataOffset + before.compressedSize) {
            failMember(path, m,
                       "overlaps member " + before.display +
                           "; expected members stored one after another");
        }
    }
}

}  // namespace spike::engine::npz::detail
