// NumPy .npz reading. See npz.hpp for what is accepted.
//
// zip_directory.cpp reads the archive's member table; here each member's name and declared size
// are checked against what a .npz may hold before any of its data is read, then every member is
// read or inflated, CRC-checked and handed to npy::parse, in directory order.
#include "engine/tensor/npz.hpp"

#include "engine/tensor/error.hpp"
#include "engine/tensor/npy.hpp"
#include "engine/tensor/zip_directory.hpp"

#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <memory>
#include <set>
#include <string_view>

namespace spike::engine::npz {

namespace {

using detail::ArchiveFile;
using detail::failMember;
using detail::Member;

/// Bytes read from the file per step while inflating.
constexpr std::size_t kChunkBytes = std::size_t{1} << 20;
/// First size of an inflated member's buffer; it then doubles up to the declared size.
constexpr std::size_t kFirstOutputBytes = std::size_t{1} << 16;

std::string hex32(std::uint32_t v)
{
    char text[16];
    std::snprintf(text, sizeof text, "0x%08x", v);
    return text;
}

/// Why `name` is not a plain "<name>.npy" array name, or empty when it is.
std::string nameProblem(const std::string& name)
{
    constexpr std::string_view kSuffix = ".npy";
    const std::string plain = "; expected a plain array name, as np.savez writes";
    if (name.size() < kSuffix.size() ||
        name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0) {
        return "not a .npy array; expected only <name>.npy members, as np.savez writes";
    }
    if (name.size() == kSuffix.size()) {
        return "the array name is empty; expected <name>.npy";
    }
    if (name.find_first_of("/\\") != std::string::npos) {
        return "the name holds a path separator" + plain;
    }
    if (name.find("..") != std::string::npos) {
        return "the name holds '..'" + plain;
    }
    for (const char c : name) {
        const auto b = static_cast<unsigned char>(c);
        if (b < 0x20 || b == 0x7f) {
            return "the name holds control characters" + plain;
        }
    }
    return {};
}

/// Refuses members that are not plain, unique "<name>.npy" arrays or declare more than
/// kMaxMemberBytes, before any member's data is read.
void checkMembers(const std::string& path, const std::vector<Member>& members)
{
    std::set<std::string_view> names;
    for (const Member& m : members) {
        if (const std::string problem = nameProblem(m.name); !problem.empty()) {
            failMember(path, m, problem);
        }
        if (!names.insert(m.name).second) {
            failMember(path, m, "a second member of this name; expected every array name once");
        }
        if (m.size > kMaxMemberBytes) {
            failMember(path, m,
                       "declares " + std::to_string(m.size) +
                           " bytes uncompressed, more than the limit of " +
                           std::to_string(kMaxMemberBytes) +
                           " (Tensor::kMaxElements 8-byte elements and a header)");
        }
    }
}

struct InflateEnd {
    void operator()(z_stream* z) const { inflateEnd(z); }
};

std::string inflateMember(ArchiveFile& file, const std::string& path, const Member& m)
{
    z_stream z{};
    if (inflateInit2(&z, -MAX_WBITS) != Z_OK) {
        failMember(path, m, "cannot start zlib's inflate (out of memory)");
    }
    const std::unique_ptr<z_stream, InflateEnd> guard(&z);
    const auto declared = static_cast<std::size_t>(m.size);
    std::vector<char> in(
        static_cast<std::size_t>(std::min<std::uint64_t>(kChunkBytes, m.compressedSize)));
    std::string out;
    std::uint64_t read = 0;  // compressed bytes read from the file
    std::size_t produced = 0;
    const std::string corrupt = "corrupt deflate data";
    auto fetchInput = [&] {
        if (z.avail_in == 0 && read < m.compressedSize) {
            const auto n = static_cast<std::size_t>(
                std::min<std::uint64_t>(in.size(), m.compressedSize - read));
            file.read(m.dataOffset + read, in.data(), n);
            read += n;
            z.next_in = reinterpret_cast<Bytef*>(in.data());
            z.avail_in = static_cast<uInt>(n);
        }
    };
    // Runs inflate once into [dst, dst + room): (whether the stream ended, bytes produced).
    auto step = [&](char* dst, std::size_t room) {
        z.next_out = reinterpret_cast<Bytef*>(dst);
        z.avail_out = static_cast<uInt>(std::min<std::size_t>(room, UINT_MAX));
        const uInt inBefore = z.avail_in;
        const uInt outBefore = z.avail_out;
        const int rc = inflate(&z, Z_NO_FLUSH);
        const std::size_t made = outBefore - z.avail_out;
        if (rc == Z_STREAM_END) {
            return std::pair{true, made};
        }
        if (rc == Z_OK && (made > 0 || z.avail_in != inBefore)) {
            return std::pair{false, made};
        }
        if ((rc == Z_OK || rc == Z_BUF_ERROR) && z.avail_in == 0 && read == m.compressedSize) {
            failMember(path, m,
                       "the deflate stream is cut short: all " + std::to_string(m.compressedSize) +
                           " declared compressed bytes end before it does");
        }
        if (rc == Z_MEM_ERROR) {
            failMember(path, m, "out of memory while inflating");
        }
        failMember(path, m,
                   corrupt + (z.msg != nullptr ? std::string(" (") + z.msg + ")" : std::string()) +
                       "; expected a raw deflate stream");
    };

    for (bool ended = false; !ended;) {
        fetchInput();
        if (produced == declared) {
            // Full: the stream must end here without producing anything more.
            char probe = 0;
            const auto [end, made] = step(&probe, 1);
            if (made > 0) {
                failMember(
                    path, m,
                    "inflates past its declared size of " + std::to_string(declared) + " bytes");
            }
            ended = end;
            continue;
        }
        if (produced == out.size()) {
            out.resize(std::min(declared, std::max(kFirstOutputBytes, out.size() * 2)));
        }
        const auto [end, made] = step(out.data() + produced, out.size() - produced);
        produced += made;
        ended = end;
    }
    const std::uint64_t used = read - z.avail_in;
    if (used != m.compressedSize) {
        failMember(path, m,
                   "the deflate stream ends after " + std::to_string(used) + " of the " +
                       std::to_string(m.compressedSize) +
                       " declared compressed bytes; expected it to fill them");
    }
    if (produced != declared) {
        failMember(path, m,
                   "inflates to " + std::to_string(produced) + " bytes; expected the declared " +
                       std::to_string(declared));
    }
    out.resize(produced);
    return out;
}

std::string memberBytes(ArchiveFile& file, const std::string& path, const Member& m)
{
    std::string bytes =
        m.method == detail::kMethodStored
            ? file.readString(m.dataOffset, static_cast<std::size_t>(m.compressedSize))
            : inflateMember(file, path, m);
    const auto crc = static_cast<std::uint32_t>(crc32_z(
        crc32_z(0, nullptr, 0), reinterpret_cast<const Bytef*>(bytes.data()), bytes.size()));
    if (crc != m.crc) {
        failMember(path, m,
                   "CRC-32 mismatch: the data give " + hex32(crc) + " but the archive says " +
                       hex32(m.crc) + "; expected them equal (the member is damaged)");
    }
    return bytes;
}

}  // namespace

std::vector<std::pair<std::string, Tensor>> load(const std::string& path)
{
    ArchiveFile file(path);
    detail::ZipDirectory dir = detail::readDirectory(file, kMaxMembers);
    checkMembers(path, dir.members);
    detail::locateData(file, dir);
    std::vector<std::pair<std::string, Tensor>> arrays;
    arrays.reserve(dir.members.size());
    for (const Member& m : dir.members) {
        const std::string bytes = memberBytes(file, path, m);
        arrays.emplace_back(m.name.substr(0, m.name.size() - 4),
                            npy::parse(bytes, path + ": " + m.display));
    }
    return arrays;
}

}  // namespace spike::engine::npz
