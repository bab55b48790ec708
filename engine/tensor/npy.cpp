// NumPy .npy reading and writing. See npy.hpp for the supported subset.
//
// Reading is split in three steps shared by load() and parse(): the fixed prefix (magic, version,
// header length), the header dict (parsed by npy_header.cpp, validated here), and the data
// conversion. Every size is checked against the bytes actually present before the tensor is
// allocated, so a lying header cannot make us allocate.
#include "engine/tensor/npy.hpp"

#include "engine/tensor/error.hpp"
#include "engine/tensor/npy_header.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace spike::engine::npy {

static_assert(std::endian::native == std::endian::little,
              "the .npy reader and writer assume a little-endian host");

namespace {

using detail::PyValue;
using detail::repr;

constexpr std::string_view kMagic{"\x93NUMPY", 6};
/// Magic plus the two version bytes.
constexpr std::size_t kVersionEnd = 8;
/// Longest fixed prefix: magic, version and a 4-byte header length (versions 2.0 and 3.0).
constexpr std::size_t kMaxPrefix = 12;
/// NumPy aligns the start of the data to this many bytes.
constexpr std::size_t kAlign = 64;
/// NumPy leaves room in the header for the first axis to grow to this many digits.
constexpr std::size_t kGrowthAxisMaxDigits = 21;
/// Bytes converted per step when load() reads non-float32 data.
constexpr std::size_t kChunkBytes = std::size_t{1} << 20;

[[noreturn]] void fail(const std::string& source, const std::string& what)
{
    throw Error(source + ": " + what);
}

std::string osReason(int err)
{
    return std::error_code(err, std::generic_category()).message();
}

std::string pythonTuple(const std::vector<std::int64_t>& dims)
{
    std::string s = "(";
    for (std::size_t i = 0; i < dims.size(); ++i) {
        if (i > 0) {
            s += ", ";
        }
        s += std::to_string(dims[i]);
    }
    if (dims.size() == 1) {
        s += ',';
    }
    s += ')';
    return s;
}

// ---- dtype --------------------------------------------------------------------------------

enum class Kind { Float, Int, UInt, Bool };

struct DType {
    Kind kind = Kind::Float;
    std::size_t size = 4;  ///< Bytes per element.
    std::string name;      ///< NumPy's name: "float32", "int8", "bool"...
};

DType parseDescr(const std::string& descr, const std::string& source)
{
    const std::string expected = "expected little-endian float32, float64, integer or bool";
    std::size_t pos = 0;
    char order = '=';
    if (!descr.empty() && (descr[0] == '<' || descr[0] == '>' || descr[0] == '|' || descr[0] == '=')) {
        order = descr[0];
        pos = 1;
    }
    if (pos >= descr.size()) {
        fail(source, "dtype '" + descr + "' is not supported; " + expected);
    }
    const char kind = descr[pos];
    if (kind == 'O') {
        fail(source, "object arrays ('" + descr + "') are not supported");
    }
    if (kind == 'c') {
        fail(source, "dtype '" + descr + "' (complex) is not supported; " + expected);
    }
    const std::string sizeText = descr.substr(pos + 1);
    std::size_t size = 0;
    if (sizeText == "1") {
        size = 1;
    } else if (sizeText == "2") {
        size = 2;
    } else if (sizeText == "4") {
        size = 4;
    } else if (sizeText == "8") {
        size = 8;
    }
    DType dt;
    dt.size = size;
    if (kind == 'f' && (size == 4 || size == 8)) {
        dt.kind = Kind::Float;
        dt.name = "float" + std::to_string(size * 8);
    } else if (kind == 'i' && size != 0) {
        dt.kind = Kind::Int;
        dt.name = "int" + std::to_string(size * 8);
    } else if (kind == 'u' && size != 0) {
        dt.kind = Kind::UInt;
        dt.name = "uint" + std::to_string(size * 8);
    } else if (kind == 'b' && size == 1) {
        dt.kind = Kind::Bool;
        dt.name = "bool";
    } else {
        fail(source, "dtype '" + descr + "' is not supported; " + expected);
    }
    if (order == '>' && size > 1) {
        fail(source, "dtype '" + descr +
                         "' (big-endian) is not supported; expected little-endian float32, "
                         "float64 or integer");
    }
    return dt;
}

template <typename T>
void convertAs(const char* src, std::size_t count, float* dst)
{
    for (std::size_t i = 0; i < count; ++i) {
        T v;
        std::memcpy(&v, src + i * sizeof(T), sizeof(T));
        dst[i] = static_cast<float>(v);
    }
}

/// Converts `count` elements of type `dt` starting at `src` (any alignment) into `dst`.
void convert(const DType& dt, const char* src, std::size_t count, float* dst)
{
    if (count == 0) {
        return;  // dst may be null for an empty tensor
    }
    switch (dt.kind) {
    case Kind::Float:
        if (dt.size == 4) {
            std::memcpy(dst, src, count * sizeof(float));
        } else {
            convertAs<double>(src, count, dst);
        }
        return;
    case Kind::Int:
        switch (dt.size) {
        case 1: convertAs<std::int8_t>(src, count, dst); return;
        case 2: convertAs<std::int16_t>(src, count, dst); return;
        case 4: convertAs<std::int32_t>(src, count, dst); return;
        default: convertAs<std::int64_t>(src, count, dst); return;
        }
    case Kind::UInt:
        switch (dt.size) {
        case 1: convertAs<std::uint8_t>(src, count, dst); return;
        case 2: convertAs<std::uint16_t>(src, count, dst); return;
        case 4: convertAs<std::uint32_t>(src, count, dst); return;
        default: convertAs<std::uint64_t>(src, count, dst); return;
        }
    case Kind::Bool:
        for (std::size_t i = 0; i < count; ++i) {
            dst[i] = src[i] != 0 ? 1.0F : 0.0F;
        }
        return;
    }
}

// ---- header validation ----------------------------------------------------------------------

struct Prefix {
    int major = 1;
    std::size_t headerStart = 0;   ///< Offset of the header dict text.
    std::size_t headerLength = 0;  ///< Bytes of header text (dict, padding and newline).
};

/// Validates magic, version and header length. `first` holds the file's first bytes (up to
/// kMaxPrefix, fewer only when the file is shorter); `fileSize` is the size of the whole file.
Prefix readPrefix(std::string_view first, std::uint64_t fileSize, const std::string& source)
{
    if (fileSize == 0) {
        fail(source, "not a .npy file (the file is empty)");
    }
    if (first.size() < kMagic.size() || first.substr(0, kMagic.size()) != kMagic) {
        fail(source, "not a .npy file (bad magic)");
    }
    if (first.size() < kVersionEnd) {
        fail(source, "truncated header: the file ends inside the format version");
    }
    Prefix p;
    p.major = static_cast<unsigned char>(first[6]);
    const int minor = static_cast<unsigned char>(first[7]);
    if (p.major < 1 || p.major > 3 || minor != 0) {
        fail(source, "unsupported .npy format version " + std::to_string(p.major) + "." +
                         std::to_string(minor) + "; expected 1.0, 2.0 or 3.0");
    }
    const std::size_t lengthBytes = p.major == 1 ? 2 : 4;
    p.headerStart = kVersionEnd + lengthBytes;
    if (first.size() < p.headerStart) {
        fail(source, "truncated header: the file ends inside the header length");
    }
    for (std::size_t i = 0; i < lengthBytes; ++i) {
        p.headerLength |= static_cast<std::size_t>(static_cast<unsigned char>(first[8 + i]))
                          << (8 * i);
    }
    const std::uint64_t available = fileSize - p.headerStart;
    if (p.headerLength > available) {
        fail(source, "truncated header: the header length field says " +
                         std::to_string(p.headerLength) + " bytes but only " +
                         std::to_string(available) + " follow it");
    }
    return p;
}

struct Header {
    DType dtype;
    Shape shape;
    std::size_t numel = 0;
};

/// Parses and checks the header dict `text`; `dataBytes` is how many bytes follow the header.
Header readHeader(std::string_view text, std::uint64_t dataBytes, const std::string& source)
{
    const auto entries = detail::parseHeaderDict(text, source);
    const std::string keys = "expected exactly the keys 'descr', 'fortran_order' and 'shape'";
    const PyValue* descr = nullptr;
    const PyValue* fortran = nullptr;
    const PyValue* shape = nullptr;
    for (const auto& [key, value] : entries) {
        if (key == "descr") {
            descr = &value;
        } else if (key == "fortran_order") {
            fortran = &value;
        } else if (key == "shape") {
            shape = &value;
        } else {
            fail(source, "malformed header: unexpected key '" + key + "'; " + keys);
        }
    }
    for (const auto& [key, value] : {std::pair{"descr", descr}, std::pair{"fortran_order", fortran},
                                     std::pair{"shape", shape}}) {
        if (value == nullptr) {
            fail(source, std::string("malformed header: missing '") + key + "'; " + keys);
        }
    }

    Header h;
    if (descr->type == PyValue::Type::List) {
        fail(source, "structured dtypes (" + repr(*descr) +
                         ") are not supported; expected a plain numeric array");
    }
    if (descr->type != PyValue::Type::Str) {
        fail(source, "malformed header: 'descr' must be a dtype string such as '<f4', got " +
                         repr(*descr));
    }
    h.dtype = parseDescr(descr->text, source);

    if (shape->type != PyValue::Type::Tuple) {
        fail(source, "malformed header: 'shape' must be a tuple of integers, got " + repr(*shape));
    }
    std::vector<std::int64_t> dims;
    for (const PyValue& item : shape->items) {
        if (item.type != PyValue::Type::Int || item.integer < 0) {
            fail(source, "malformed header: 'shape' must be a tuple of non-negative integers, got " +
                             repr(*shape));
        }
        dims.push_back(item.integer);
    }
    const std::string shapeText = pythonTuple(dims);
    if (dims.size() > static_cast<std::size_t>(Shape::kMaxRank)) {
        fail(source, "shape " + shapeText + " has " + std::to_string(dims.size()) +
                         " dimensions, at most " + std::to_string(Shape::kMaxRank) +
                         " are supported");
    }

    if (fortran->type != PyValue::Type::Bool) {
        fail(source, "malformed header: 'fortran_order' must be True or False, got " +
                         repr(*fortran));
    }
    if (fortran->boolean) {
        // Fortran and C order lay out the same bytes when at most one axis is longer than 1.
        int longAxes = 0;
        for (const std::int64_t d : dims) {
            longAxes += d > 1 ? 1 : 0;
        }
        if (longAxes > 1) {
            fail(source, "Fortran-ordered arrays are not supported; save with C order "
                         "(np.ascontiguousarray)");
        }
    }

    // Like NumPy, refuse shapes whose non-zero extents multiply past 2^63 bytes even when another
    // extent is 0: strides and element counts of such shapes overflow 64-bit arithmetic.
    std::uint64_t numel = 1;
    std::uint64_t bytes = 0;
    bool overflow = false;
    bool empty = false;
    for (const std::int64_t d : dims) {
        empty = empty || d == 0;
        overflow = overflow ||
                   (d != 0 && __builtin_mul_overflow(numel, static_cast<std::uint64_t>(d), &numel));
    }
    overflow = overflow || __builtin_mul_overflow(numel, h.dtype.size, &bytes) ||
               bytes > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    if (overflow) {
        fail(source, "shape " + shapeText + " of " + h.dtype.name +
                         " is too large: its extents multiply to 2^63 bytes or more");
    }
    const std::uint64_t expectedBytes = empty ? 0 : bytes;
    numel = empty ? 0 : numel;
    const std::string what = "header says shape " + shapeText + " of " + h.dtype.name + " (" +
                             std::to_string(expectedBytes) + " bytes of data) but the file has " +
                             std::to_string(dataBytes);
    if (dataBytes < expectedBytes) {
        fail(source, "truncated: " + what);
    }
    if (dataBytes > expectedBytes) {
        fail(source, std::to_string(dataBytes - expectedBytes) +
                         " trailing bytes after the data: " + what);
    }
    if (numel > static_cast<std::uint64_t>(Tensor::kMaxElements)) {
        fail(source, "shape " + shapeText + " has " + std::to_string(numel) +
                         " elements, more than the limit of " +
                         std::to_string(Tensor::kMaxElements));
    }
    h.shape = Shape(dims);
    h.numel = static_cast<std::size_t>(numel);
    return h;
}

// ---- writing --------------------------------------------------------------------------------

/// NumPy's version 1.0 header for a C-ordered float32 array of shape `shape`.
std::string headerFor(const Shape& shape)
{
    const std::vector<std::int64_t> dims = shape.dims();
    std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': " + pythonTuple(dims) +
                       ", }";
    if (!dims.empty()) {
        dict.append(kGrowthAxisMaxDigits - std::to_string(dims.front()).size(), ' ');
    }
    const std::size_t prefix = kVersionEnd + 2;
    const std::size_t withNewline = dict.size() + 1;
    const std::size_t padding = kAlign - (prefix + withNewline) % kAlign;
    const std::size_t headerLength = withNewline + padding;

    std::string out(kMagic);
    out += '\x01';
    out += '\x00';
    out += static_cast<char>(headerLength & 0xff);
    out += static_cast<char>((headerLength >> 8) & 0xff);
    out += dict;
    out.append(padding, ' ');
    out += '\n';
    return out;
}

struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

}  // namespace

Tensor parse(const std::string& bytes, const std::string& sourceName)
{
    const std::string_view all(bytes);
    const Prefix p = readPrefix(all.substr(0, kMaxPrefix), all.size(), sourceName);
    const std::size_t dataOffset = p.headerStart + p.headerLength;
    const Header h =
        readHeader(all.substr(p.headerStart, p.headerLength), all.size() - dataOffset, sourceName);
    Tensor t(h.shape);
    convert(h.dtype, bytes.data() + dataOffset, h.numel, t.data());
    return t;
}

Tensor load(const std::string& path)
{
    FilePtr file(std::fopen(path.c_str(), "rb"));
    if (!file) {
        fail(path, "cannot open: " + osReason(errno));
    }
    struct stat info {};
    if (::fstat(::fileno(file.get()), &info) != 0) {
        fail(path, "cannot open: " + osReason(errno));
    }
    if (S_ISDIR(info.st_mode)) {
        fail(path, "cannot open: it is a directory");
    }
    if (!S_ISREG(info.st_mode)) {
        fail(path, "cannot open: not a regular file");
    }
    const auto fileSize = static_cast<std::uint64_t>(info.st_size);

    auto readExactly = [&](char* dst, std::size_t n) {
        if (n > 0 && std::fread(dst, 1, n, file.get()) != n) {
            if (std::ferror(file.get()) != 0) {
                fail(path, "cannot read: " + osReason(errno));
            }
            fail(path, "truncated: the file became shorter while it was being read");
        }
    };

    std::string first(static_cast<std::size_t>(std::min<std::uint64_t>(fileSize, kMaxPrefix)), '\0');
    readExactly(first.data(), first.size());
    const Prefix p = readPrefix(first, fileSize, path);
    // readPrefix checked that the header fits in the file, so this allocation is backed by data.
    std::string text = first.substr(p.headerStart);
    const std::size_t alreadyRead = std::min(text.size(), p.headerLength);
    text.resize(p.headerLength);
    readExactly(text.data() + alreadyRead, p.headerLength - alreadyRead);
    const std::uint64_t dataOffset = p.headerStart + p.headerLength;
    const Header h = readHeader(text, fileSize - dataOffset, path);
    if (::fseeko(file.get(), static_cast<off_t>(dataOffset), SEEK_SET) != 0) {
        fail(path, "cannot read: " + osReason(errno));
    }

    Tensor t(h.shape);
    if (h.dtype.kind == Kind::Float && h.dtype.size == 4) {
        readExactly(reinterpret_cast<char*>(t.data()), h.numel * sizeof(float));
        return t;
    }
    std::vector<char> chunk(std::min(kChunkBytes, h.numel * h.dtype.size));
    const std::size_t perChunk = kChunkBytes / h.dtype.size;
    for (std::size_t done = 0; done < h.numel;) {
        const std::size_t n = std::min(perChunk, h.numel - done);
        readExactly(chunk.data(), n * h.dtype.size);
        convert(h.dtype, chunk.data(), n, t.data() + done);
        done += n;
    }
    return t;
}

std::string serialize(const Tensor& t)
{
    std::string out = headerFor(t.shape());
    if (t.numel() > 0) {
        out.append(reinterpret_cast<const char*>(t.data()),
                   static_cast<std::size_t>(t.numel()) * sizeof(float));
    }
    return out;
}

void save(const std::string& path, const Tensor& t)
{
    const std::string header = headerFor(t.shape());
    const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
    auto failAndClean = [&](int err) {
        std::error_code ignored;
        std::filesystem::remove(tmp, ignored);
        fail(path, "cannot write: " + osReason(err));
    };

    FilePtr file(std::fopen(tmp.c_str(), "wb"));
    if (!file) {
        fail(path, "cannot write: " + osReason(errno));
    }
    const std::size_t dataBytes = static_cast<std::size_t>(t.numel()) * sizeof(float);
    if (std::fwrite(header.data(), 1, header.size(), file.get()) != header.size() ||
        (dataBytes > 0 && std::fwrite(t.data(), 1, dataBytes, file.get()) != dataBytes) ||
        std::fflush(file.get()) != 0 || ::fsync(::fileno(file.get())) != 0) {
        const int err = errno;
        file.reset();
        failAndClean(err);
    }
    if (std::fclose(file.release()) != 0) {
        failAndClean(errno);
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::error_code ignored;
        std::filesystem::remove(tmp, ignored);
        fail(path, "cannot write: " + ec.message());
    }
}

}  // namespace spike::engine::npy
