// Tests for engine/npy: bit-exact round trips, byte-identity with numpy.save, reading every
// supported dtype and header version, and one clear error for each kind of malformed file.
// Fixtures under data/npy were written by NumPy (data/npy/make_fixtures.py); malformed inputs
// are assembled here byte by byte.
#include "engine/tensor/error.hpp"
#include "engine/tensor/npy.hpp"
#include "engine/tensor/tensor.hpp"

#include <QByteArray>
#include <QDir>
#include <QString>
#include <QTemporaryDir>
#include <QtTest>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

using spike::engine::Error;
using spike::engine::Shape;
using spike::engine::Tensor;
namespace npy = spike::engine::npy;

namespace {

std::string dataPath(const std::string& name)
{
    return std::string(SPIKE_TEST_DATA_DIR) + "/npy/" + name;
}

std::string readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeFile(const std::string& path, const std::string& bytes)
{
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// Magic, version, little-endian header length, `dict` + '\n', then `data`. No alignment
/// padding: readers must not depend on it.
std::string npyBytes(const std::string& dict, const std::string& data, int major = 1)
{
    const std::string header = dict + "\n";
    std::string out("\x93NUMPY", 6);
    out += static_cast<char>(major);
    out += '\0';
    const int lengthBytes = major == 1 ? 2 : 4;
    for (int i = 0; i < lengthBytes; ++i) {
        out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
    }
    return out + header + data;
}

std::string f4Dict(const std::string& shape, const std::string& descr = "<f4")
{
    return "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
}

template <typename T>
std::string rawBytes(std::initializer_list<T> values)
{
    std::string out;
    for (const T v : values) {
        char buf[sizeof(T)];
        std::memcpy(buf, &v, sizeof(T));
        out.append(buf, sizeof(T));
    }
    return out;
}

Tensor fromBits(const Shape& shape, const std::vector<std::uint32_t>& bits)
{
    Tensor t(shape);
    for (std::size_t i = 0; i < bits.size(); ++i) {
        t[static_cast<std::int64_t>(i)] = std::bit_cast<float>(bits[i]);
    }
    return t;
}

Tensor iota(const Shape& shape, float scale, float offset)
{
    Tensor t(shape);
    for (std::int64_t i = 0; i < t.numel(); ++i) {
        t[i] = static_cast<float>(i) * scale + offset;
    }
    return t;
}

std::uint32_t bitsOf(float f)
{
    return std::bit_cast<std::uint32_t>(f);
}

/// The message of the Error `f` throws, or a marker when it throws nothing.
std::string errorOf(const std::function<void()>& f)
{
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "<no error thrown>";
}

bool contains(const std::string& haystack, const std::string& needle)
{
    return haystack.find(needle) != std::string::npos;
}

/// Special values cycled through the round-trip tensors.
const std::vector<std::uint32_t> kSpecialBits = {
    0x7FC00001,  // quiet NaN with payload
    0x7FA00001,  // signalling NaN with payload
    0xFFC12345,  // negative NaN with payload
    0x7F800000,  // +Inf
    0xFF800000,  // -Inf
    0x80000000,  // -0.0
    0x00000001,  // smallest denormal
    0x807FFFFF,  // largest negative denormal
    0x3F800000,  // 1.0
    0x7F7FFFFF,  // largest finite
};

}  // namespace

class TestNpy : public QObject {
    Q_OBJECT

private slots:
    void roundTripAllRanks();
    void serializeMatchesNumpy_data();
    void serializeMatchesNumpy();
    void loadsNumpyDtypes();
    void loadsVersion2Header();
    void loadsReferenceInput();
    void parsesInMemoryVariants();
    void malformed_data();
    void malformed();
    void tooManyElements();
    void missingFileAndDirectory();
    void saveToMissingDirectoryThrows();
    void saveOverDirectoryCleansUp();
    void saveReplacesExistingFile();
};

void TestNpy::roundTripAllRanks()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::vector<Shape> shapes = {Shape{},        Shape{10},        Shape{3, 4},
                                       Shape{2, 3, 5}, Shape{2, 1, 3, 4}, Shape{0},
                                       Shape{2, 0, 3}};
    int index = 0;
    for (const Shape& shape : shapes) {
        std::vector<std::uint32_t> bits;
        for (std::int64_t i = 0; i < shape.numel(); ++i) {
            bits.push_back(kSpecialBits[static_cast<std::size_t>(i) % kSpecialBits.size()]);
        }
        const Tensor original = fromBits(shape, bits);
        const std::string path = dir.filePath(QString("t%1.npy").arg(index++)).toStdString();
        npy::save(path, original);
        const Tensor loaded = npy::load(path);
        QCOMPARE(QString::fromStdString(loaded.shape().toString()),
                 QString::fromStdString(shape.toString()));
        QCOMPARE(loaded.numel(), original.numel());
        QVERIFY(original.numel() == 0 ||
                std::memcmp(loaded.data(), original.data(),
                            static_cast<std::size_t>(original.numel()) * sizeof(float)) == 0);
        QVERIFY(loaded.identical(original));

        const Tensor parsed = npy::parse(npy::serialize(original), "memory");
        QVERIFY(parsed.identical(original));
        QCOMPARE(readFile(path), npy::serialize(original));
    }
    // Nothing but the saved files is left in the directory (no temporary files).
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::NoDotAndDotDot).size(),
             static_cast<qsizetype>(shapes.size()));
}

void TestNpy::serializeMatchesNumpy_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("which");
    QTest::newRow("scalar") << "f32_scalar.npy" << 0;
    QTest::newRow("specials (7,)") << "f32_7.npy" << 1;
    QTest::newRow("(3, 4)") << "f32_3x4.npy" << 2;
    QTest::newRow("(2, 3, 4)") << "f32_2x3x4.npy" << 3;
    QTest::newRow("(2, 1, 3, 2)") << "f32_2x1x3x2.npy" << 4;
    QTest::newRow("empty (0, 5)") << "f32_0x5.npy" << 5;
}

void TestNpy::serializeMatchesNumpy()
{
    QFETCH(QString, file);
    QFETCH(int, which);
    Tensor expected;
    switch (which) {
    case 0: expected = Tensor::scalar(3.5F); break;
    case 1:
        expected = fromBits(Shape{7}, {0x7FC00001, 0x7FA00001, 0x7F800000, 0xFF800000, 0x80000000,
                                       0x00000001, 0x807FFFFF});
        break;
    case 2: expected = iota(Shape{3, 4}, 0.25F, -1.0F); break;
    case 3: expected = iota(Shape{2, 3, 4}, 0.125F, -1.5F); break;
    case 4: expected = iota(Shape{2, 1, 3, 2}, -3.0F, 0.5F); break;
    default: expected = Tensor(Shape{0, 5}); break;
    }
    const std::string path = dataPath(file.toStdString());
    const std::string numpyBytes = readFile(path);
    QVERIFY2(!numpyBytes.empty(), path.c_str());
    QCOMPARE(npy::serialize(expected), numpyBytes);
    QVERIFY(npy::load(path).identical(expected));
}

void TestNpy::loadsNumpyDtypes()
{
    const Tensor f64 = npy::load(dataPath("f64_2x3.npy"));
    QCOMPARE(f64.shape(), (Shape{2, 3}));
    QCOMPARE(bitsOf(f64[0]), bitsOf(0.1F));  // rounded to nearest float32
    QCOMPARE(f64[1], -2.5F);
    QCOMPARE(f64[2], std::numeric_limits<float>::infinity());  // 1e300 overflows
    QCOMPARE(bitsOf(f64[3]), 0U);                               // 1e-50 underflows to +0
    QCOMPARE(f64[4], 16777216.0F);                              // 2^24 + 1 rounds to even
    QCOMPARE(bitsOf(f64[5]), 0x80000000U);                      // -0.0 keeps its sign

    const Tensor i32 = npy::load(dataPath("i32_5.npy"));
    QCOMPARE(i32.shape(), (Shape{5}));
    QCOMPARE(i32[0], -2147483648.0F);
    QCOMPARE(i32[1], -1.0F);
    QCOMPARE(i32[2], 0.0F);
    QCOMPARE(i32[3], 7.0F);
    QCOMPARE(i32[4], 2147483648.0F);

    const Tensor i64 = npy::load(dataPath("i64_4.npy"));
    QCOMPARE(i64.shape(), (Shape{4}));
    QCOMPARE(i64[0], -5.0F);
    QCOMPARE(i64[1], 16777216.0F);
    QCOMPARE(i64[2], 4611686018427387904.0F);
    QCOMPARE(i64[3], -9223372036854775808.0F);

    const Tensor u8 = npy::load(dataPath("u8_4.npy"));
    QCOMPARE(u8.shape(), (Shape{4}));
    QCOMPARE(u8[0], 0.0F);
    QCOMPARE(u8[1], 1.0F);
    QCOMPARE(u8[2], 128.0F);
    QCOMPARE(u8[3], 255.0F);

    const Tensor b = npy::load(dataPath("bool_2x2.npy"));
    QCOMPARE(b.shape(), (Shape{2, 2}));
    QCOMPARE(b.at({0, 0}), 1.0F);
    QCOMPARE(b.at({0, 1}), 0.0F);
    QCOMPARE(b.at({1, 0}), 0.0F);
    QCOMPARE(b.at({1, 1}), 1.0F);
}

void TestNpy::loadsVersion2Header()
{
    const std::string bytes = readFile(dataPath("f32_v2_2x3.npy"));
    QCOMPARE(bytes.substr(6, 2), std::string("\x02\x00", 2));  // really a 2.0 file
    const Tensor t = npy::load(dataPath("f32_v2_2x3.npy"));
    QVERIFY(t.identical(iota(Shape{2, 3}, 0.25F, 0.25F)));
}

void TestNpy::loadsReferenceInput()
{
    const Tensor t = npy::load(dataPath("lif_input.npy"));
    QCOMPARE(t.shape(), (Shape{300, 4}));
    QCOMPARE(t.at({0, 0}), 0.0F);
    QCOMPARE(bitsOf(t.at({3, 2})), 0x3E0F527BU);
    QCOMPARE(bitsOf(t.at({4, 0})), 0x3DEAD954U);
    QCOMPARE(bitsOf(t.at({41, 1})), 0x3EB20795U);  // the maximum, 0.3477141
    QCOMPARE(bitsOf(t.at({295, 1})), 0x3E320795U);
    QCOMPARE(bitsOf(t.at({299, 2})), 0x3E8F527BU);
    QCOMPARE(t.at({299, 3}), 0.0F);
    double sum = 0.0;
    for (std::int64_t i = 0; i < t.numel(); ++i) {
        sum += t[i];
    }
    QVERIFY(std::abs(sum - 33.20678800344467) < 1e-9);
}

void TestNpy::parsesInMemoryVariants()
{
    // Every integer width, both byte-order spellings for single bytes.
    struct Case {
        std::string descr;
        std::string data;
        std::vector<float> expected;
    };
    const std::vector<Case> cases = {
        {"|i1", rawBytes<std::int8_t>({-128, 0, 127}), {-128.0F, 0.0F, 127.0F}},
        {"<i1", rawBytes<std::int8_t>({-1, 5, 9}), {-1.0F, 5.0F, 9.0F}},
        {">i1", rawBytes<std::int8_t>({-1, 5, 9}), {-1.0F, 5.0F, 9.0F}},
        {"<i2", rawBytes<std::int16_t>({-32768, 1, 32767}), {-32768.0F, 1.0F, 32767.0F}},
        {"|u1", rawBytes<std::uint8_t>({0, 200, 255}), {0.0F, 200.0F, 255.0F}},
        {"<u2", rawBytes<std::uint16_t>({0, 1, 65535}), {0.0F, 1.0F, 65535.0F}},
        {"<u4", rawBytes<std::uint32_t>({0, 16777217, 4294967295U}),
         {0.0F, 16777216.0F, 4294967296.0F}},
        {"<u8", rawBytes<std::uint64_t>({0, 3, 18446744073709551615ULL}),
         {0.0F, 3.0F, 18446744073709551616.0F}},
        {"|b1", rawBytes<std::uint8_t>({0, 1, 2}), {0.0F, 1.0F, 1.0F}},
        {"<f8", rawBytes<double>({-0.5, 1e-40, 3.0}), {-0.5F, static_cast<float>(1e-40), 3.0F}},
    };
    for (const Case& c : cases) {
        const Tensor t = npy::parse(npyBytes(f4Dict("(3,)", c.descr), c.data), "mem.npy");
        QVERIFY2(t.shape() == Shape{3}, c.descr.c_str());
        for (int i = 0; i < 3; ++i) {
            QVERIFY2(bitsOf(t[i]) == bitsOf(c.expected[static_cast<std::size_t>(i)]),
                     (c.descr + " element " + std::to_string(i)).c_str());
        }
    }

    const std::string two = rawBytes<float>({1.5F, -2.0F});
    // Version 3.0 (UTF-8 header) reads like 2.0.
    QVERIFY(npy::parse(npyBytes(f4Dict("(2,)"), two, 3), "m").identical(Tensor(Shape{2}, {1.5F, -2.0F})));
    QVERIFY(npy::parse(npyBytes(f4Dict("(2,)"), two, 2), "m").identical(Tensor(Shape{2}, {1.5F, -2.0F})));
    // Double quotes, any key order, no trailing comma, Python 2 long suffixes, extra spaces.
    const Tensor q = npy::parse(
        npyBytes("{ \"shape\" : ( 1L , 2L ) ,\"fortran_order\":False,\"descr\":\"<f4\"}", two), "m");
    QCOMPARE(q.shape(), (Shape{1, 2}));
    // Fortran order is harmless when at most one axis is longer than 1.
    QCOMPARE(npy::parse(npyBytes("{'descr': '<f4', 'fortran_order': True, 'shape': (1, 2)}", two),
                        "m")
                 .shape(),
             (Shape{1, 2}));
    // A scalar and an empty array.
    QCOMPARE(npy::parse(npyBytes(f4Dict("()"), rawBytes<float>({7.0F})), "m").item(), 7.0F);
    QCOMPARE(npy::parse(npyBytes(f4Dict("(0, 3)"), ""), "m").shape(), (Shape{0, 3}));
    QCOMPARE(npy::parse(npyBytes(f4Dict("(1000000, 0, 1000000)"), ""), "m").shape(),
             (Shape{1000000, 0, 1000000}));
}

void TestNpy::malformed_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("message");
    auto row = [](const char* name, const std::string& bytes, const std::string& message) {
        QTest::newRow(name) << QByteArray(bytes.data(), static_cast<qsizetype>(bytes.size()))
                            << QString::fromStdString(message);
    };
    const std::string eight = rawBytes<float>({1.0F, 2.0F});
    const std::string keys = "expected exactly the keys 'descr', 'fortran_order' and 'shape'";

    row("empty file", "", "not a .npy file (the file is empty)");
    row("bad magic", "\x93NUMPX\x01\x00\x10\x00{}", "not a .npy file (bad magic)");
    row("short magic", "\x93NUM", "not a .npy file (bad magic)");
    row("text file", "hello, world\n", "not a .npy file (bad magic)");
    row("ends in version", std::string("\x93NUMPY\x01", 7),
        "truncated header: the file ends inside the format version");
    row("ends in length", std::string("\x93NUMPY\x02\x00\x10\x00", 10),
        "truncated header: the file ends inside the header length");
    row("version 4.0", npyBytes(f4Dict("(2,)"), eight, 4),
        "unsupported .npy format version 4.0; expected 1.0, 2.0 or 3.0");
    row("truncated header",
        npyBytes(f4Dict("(2,)"), eight).substr(0, 30),
        "truncated header: the header length field says 58 bytes but only 20 follow it");
    row("truncated data", npyBytes(f4Dict("(3, 4)"), std::string(20, '\0')),
        "truncated: header says shape (3, 4) of float32 (48 bytes of data) but the file has 20");
    row("truncated float64 data", npyBytes(f4Dict("(2,)", "<f8"), eight.substr(0, 7)),
        "truncated: header says shape (2,) of float64 (16 bytes of data) but the file has 7");
    row("trailing bytes", npyBytes(f4Dict("(2,)"), eight + "XYZW"),
        "4 trailing bytes after the data: header says shape (2,) of float32 (8 bytes of data) "
        "but the file has 12");
    row("fortran order",
        npyBytes("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", std::string(24, '\0')),
        "Fortran-ordered arrays are not supported; save with C order (np.ascontiguousarray)");
    row("big-endian float32", npyBytes(f4Dict("(2,)", ">f4"), eight),
        "dtype '>f4' (big-endian) is not supported; expected little-endian float32, float64 or "
        "integer");
    row("big-endian int16", npyBytes(f4Dict("(2,)", ">i2"), eight.substr(0, 4)),
        "dtype '>i2' (big-endian) is not supported");
    row("object", npyBytes(f4Dict("(2,)", "|O"), eight), "object arrays ('|O') are not supported");
    row("complex64", npyBytes(f4Dict("(1,)", "<c8"), eight),
        "dtype '<c8' (complex) is not supported; expected little-endian float32, float64, integer "
        "or bool");
    row("unicode", npyBytes(f4Dict("(1,)", "<U2"), eight), "dtype '<U2' is not supported");
    row("float16", npyBytes(f4Dict("(1,)", "<f2"), eight.substr(0, 2)),
        "dtype '<f2' is not supported");
    row("structured",
        npyBytes("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", eight),
        "structured dtypes ([('a', '<f4')]) are not supported");
    row("5-D", npyBytes(f4Dict("(1, 1, 1, 1, 2)"), eight),
        "shape (1, 1, 1, 1, 2) has 5 dimensions, at most 4 are supported");
    row("missing descr", npyBytes("{'fortran_order': False, 'shape': (2,), }", eight),
        "malformed header: missing 'descr'; " + keys);
    row("missing shape", npyBytes("{'descr': '<f4', 'fortran_order': False}", eight),
        "malformed header: missing 'shape'; " + keys);
    row("missing fortran_order", npyBytes("{'descr': '<f4', 'shape': (2,)}", eight),
        "malformed header: missing 'fortran_order'; " + keys);
    row("extra key",
        npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}", eight),
        "malformed header: unexpected key 'extra'; " + keys);
    row("duplicate key",
        npyBytes("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", eight),
        "malformed header: key 'descr' appears twice");
    row("missing comma",
        npyBytes("{'descr': '<f4' 'fortran_order': False, 'shape': (2,), }", eight),
        "malformed header: expected ',' or '}' after the value of 'descr' at character 16");
    row("unterminated string", npyBytes("{'descr': '<f4}", eight),
        "malformed header: expected a closing ' at character 15");
    row("not a dict", npyBytes("[1, 2]", eight),
        "malformed header: expected '{' opening the header dict at character 0 of \"[1, 2]\"");
    row("unquoted key", npyBytes("{descr: '<f4'}", eight),
        "malformed header: expected a quoted key or '}'");
    row("unknown name", npyBytes("{'descr': '<f4', 'fortran_order': false, 'shape': (2,)}", eight),
        "malformed header: expected True, False, None, a number, a string or a tuple");
    row("text after dict", npyBytes(f4Dict("(2,)") + " junk", eight),
        "malformed header: expected only padding after the closing '}'");
    row("float extent", npyBytes(f4Dict("(2.0,)"), eight),
        "malformed header: expected ',' or ')'");
    row("shape not a tuple", npyBytes(f4Dict("(2)"), eight),
        "malformed header: 'shape' must be a tuple of integers, got 2");
    row("negative extent", npyBytes(f4Dict("(-2,)"), eight),
        "malformed header: 'shape' must be a tuple of non-negative integers, got (-2,)");
    row("fortran_order not bool",
        npyBytes("{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}", eight),
        "malformed header: 'fortran_order' must be True or False, got 0");
    row("descr not a string", npyBytes("{'descr': 4, 'fortran_order': False, 'shape': (2,)}", eight),
        "malformed header: 'descr' must be a dtype string such as '<f4', got 4");
    row("integer out of range", npyBytes(f4Dict("(99999999999999999999,)"), eight),
        "malformed header: integer 99999999999999999999 is out of range");
    row("deep nesting", npyBytes(f4Dict(std::string(40, '(') + std::string(40, ')')), eight),
        "malformed header: tuples nested more than 16 deep");
    row("huge shape, tiny file", npyBytes(f4Dict("(100000, 100000, 1000)"), eight),
        "truncated: header says shape (100000, 100000, 1000) of float32 (40000000000000 bytes of "
        "data) but the file has 8");
    const std::string tooLarge = " is too large: its extents multiply to 2^63 bytes or more";
    row("shape overflowing 64 bits", npyBytes(f4Dict("(1099511627776, 1099511627776)"), eight),
        "shape (1099511627776, 1099511627776) of float32" + tooLarge);
    // 2^32 * 2^32 wraps to exactly 0 in 64-bit arithmetic: must not pass as an empty array.
    row("shape wrapping to zero", npyBytes(f4Dict("(4294967296, 4294967296)"), ""),
        "shape (4294967296, 4294967296) of float32" + tooLarge);
    // NumPy refuses these too: the element count is 0 but strides would overflow.
    row("empty but overflowing", npyBytes(f4Dict("(1099511627776, 1099511627776, 0)"), ""),
        "shape (1099511627776, 1099511627776, 0) of float32" + tooLarge);
    row("empty first, overflowing", npyBytes(f4Dict("(0, 1099511627776, 1099511627776)"), ""),
        "shape (0, 1099511627776, 1099511627776) of float32" + tooLarge);
    row("2^63 bytes", npyBytes(f4Dict("(2305843009213693952,)"), ""),
        "shape (2305843009213693952,) of float32" + tooLarge);
    row("byte size overflowing 64 bits", npyBytes(f4Dict("(4611686018427387904,)", "<f8"), ""),
        "shape (4611686018427387904,) of float64" + tooLarge);
}

void TestNpy::malformed()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, message);
    const std::string data(bytes.constData(), static_cast<std::size_t>(bytes.size()));
    const std::string expected = message.toStdString();

    const std::string fromMemory = errorOf([&] { npy::parse(data, "mem/w.npy"); });
    QVERIFY2(fromMemory.rfind("mem/w.npy: ", 0) == 0, fromMemory.c_str());
    QVERIFY2(contains(fromMemory, expected), fromMemory.c_str());
    QVERIFY2(!contains(fromMemory, "\n"), fromMemory.c_str());

    // load() goes through its own reading code: same verdict, prefixed with the path.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath("w.npy").toStdString();
    writeFile(path, data);
    const std::string fromFile = errorOf([&] { npy::load(path); });
    QVERIFY2(fromFile.rfind(path + ": ", 0) == 0, fromFile.c_str());
    QVERIFY2(contains(fromFile, expected), fromFile.c_str());
}

void TestNpy::tooManyElements()
{
    // A consistent file one element over Tensor::kMaxElements, made sparse so it costs no disk:
    // load() must refuse it from the header and the file size, before allocating anything.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath("big.npy").toStdString();
    const std::string header = npyBytes(f4Dict("(2147483648,)", "|b1"), "");
    writeFile(path, header);
    std::error_code ec;
    std::filesystem::resize_file(path, header.size() + 2147483648ULL, ec);
    if (ec) {
        QSKIP("cannot create a 2 GiB sparse file here");
    }
    const std::string message = errorOf([&] { npy::load(path); });
    QCOMPARE(message, path + ": shape (2147483648,) has 2147483648 elements, more than the limit "
                             "of 2147483647");
}

void TestNpy::missingFileAndDirectory()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string missing = dir.filePath("nope/w.npy").toStdString();
    const std::string message = errorOf([&] { npy::load(missing); });
    QCOMPARE(message, missing + ": cannot open: No such file or directory");

    const std::string folder = dir.path().toStdString();
    const std::string dirMessage = errorOf([&] { npy::load(folder); });
    QCOMPARE(dirMessage, folder + ": cannot open: it is a directory");
}

void TestNpy::saveToMissingDirectoryThrows()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath("missing/w.npy").toStdString();
    const std::string message = errorOf([&] { npy::save(path, Tensor(Shape{3}, 1.0F)); });
    QCOMPARE(message, path + ": cannot write: No such file or directory");
    QVERIFY(!std::filesystem::exists(path));
    QVERIFY(QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot).isEmpty());
}

void TestNpy::saveOverDirectoryCleansUp()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(QDir(dir.path()).mkdir("target.npy"));
    const std::string path = dir.filePath("target.npy").toStdString();
    const std::string message = errorOf([&] { npy::save(path, Tensor(Shape{3}, 1.0F)); });
    QVERIFY2(message.rfind(path + ": cannot write: ", 0) == 0, message.c_str());
    QVERIFY2(contains(message, "directory"), message.c_str());
    // The temporary file written beside it is gone; only the directory remains.
    QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot),
             QStringList{"target.npy"});
}

void TestNpy::saveReplacesExistingFile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath("w.npy").toStdString();
    npy::save(path, Tensor(Shape{100}, 2.0F));
    const Tensor second(Shape{2, 2}, {1.0F, 2.0F, 3.0F, 4.0F});
    npy::save(path, second);
    QVERIFY(npy::load(path).identical(second));
    QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot),
             QStringList{"w.npy"});
}

QTEST_GUILESS_MAIN(TestNpy)
#include "test_npy.moc"
