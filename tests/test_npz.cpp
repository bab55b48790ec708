// Tests for engine/npz: the archives NumPy writes (data/npz, made by data/npz/make_npz.py:
// np.savez, np.savez_compressed, float64, Zip64 central directory and end records, a stream with
// data descriptors, an empty archive) read to the script's values bit for bit; the same archives
// damaged here byte by byte each fail with one line naming the file, the member and what was
// expected; 300 seeded random mutations each return or throw Error, quickly.
#include "engine/tensor/error.hpp"
#include "engine/tensor/npz.hpp"
#include "engine/tensor/tensor.hpp"

#include <QTemporaryDir>
#include <QtTest>

#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <string>
#include <utility>
#include <vector>

using spike::engine::Error;
using spike::engine::Shape;
using spike::engine::Tensor;
namespace npz = spike::engine::npz;

namespace {

using Arrays = std::vector<std::pair<std::string, Tensor>>;

std::string dataPath(const std::string& name)
{
    return std::string(SPIKE_TEST_DATA_DIR) + "/npz/" + name;
}

std::string readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeFile(const std::string& path, const std::string& bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

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

// The values make_npz.py writes.
Tensor inputArray()
{
    std::vector<float> v;
    for (int i = 0; i < 12; ++i) {
        v.push_back(static_cast<float>(i) * 0.5F - 1.75F);
    }
    return Tensor(Shape{3, 4}, v);
}

Tensor auxArray()
{
    return Tensor(Shape{5, 2},
                  {static_cast<float>(3.141592653589793), static_cast<float>(-2.718281828459045),
                   static_cast<float>(1e-3), 65504.0F, -0.0F, static_cast<float>(1.0 / 3.0), 7.0F,
                   -8.5F, static_cast<float>(1e30), static_cast<float>(-1e-30)});
}

Tensor float64Array()
{
    std::vector<float> v;
    for (int i = 0; i < 6; ++i) {
        v.push_back(static_cast<float>(static_cast<double>(i) * 0.1 - 0.2));
    }
    return Tensor(Shape{2, 3}, v);
}

// ---- reading and patching ZIP fields in a test archive ---------------------------------------

std::uint32_t get16(const std::string& b, std::size_t at)
{
    std::uint16_t v = 0;
    std::memcpy(&v, b.data() + at, 2);
    return v;
}

std::uint32_t get32(const std::string& b, std::size_t at)
{
    std::uint32_t v = 0;
    std::memcpy(&v, b.data() + at, 4);
    return v;
}

void put16(std::string& b, std::size_t at, std::uint16_t v)
{
    std::memcpy(b.data() + at, &v, 2);
}

void put32(std::string& b, std::size_t at, std::uint32_t v)
{
    std::memcpy(b.data() + at, &v, 4);
}

void put64(std::string& b, std::size_t at, std::uint64_t v)
{
    std::memcpy(b.data() + at, &v, 8);
}

/// Where the records of a well-formed test archive lie.
struct Layout {
    std::size_t end = 0;               ///< End-of-central-directory record.
    std::size_t directory = 0;         ///< First central directory entry.
    std::vector<std::size_t> central;  ///< Each member's central directory entry.
    std::vector<std::size_t> local;    ///< Each member's local header.

    explicit Layout(const std::string& b)
    {
        end = b.rfind(std::string("PK\x05\x06", 4));
        directory = get32(b, end + 16);
        std::size_t pos = directory;
        for (std::uint32_t i = 0; i < get16(b, end + 10); ++i) {
            central.push_back(pos);
            pos += 46 + get16(b, pos + 28) + get16(b, pos + 30) + get16(b, pos + 32);
        }
        std::size_t from = 0;
        for (std::size_t i = 0; i < central.size(); ++i) {
            from = b.find(std::string("PK\x03\x04", 4), from);
            local.push_back(from);
            from += 4;
        }
    }
    std::size_t centralName(std::size_t i) const { return central[i] + 46; }
    std::size_t localName(std::size_t i) const { return local[i] + 30; }
    std::size_t data(const std::string& b, std::size_t i) const
    {
        return local[i] + 30 + get16(b, local[i] + 26) + get16(b, local[i] + 28);
    }
    /// The member's Zip64 extra record in the central directory (its header: id, length).
    std::size_t centralZip64(const std::string& b, std::size_t i) const
    {
        return central[i] + 46 + get16(b, central[i] + 28);
    }
};

/// Renames member `i` in its local header and central entry (same length).
void rename(std::string& b, std::size_t i, const std::string& name)
{
    const Layout z(b);
    QCOMPARE(get16(b, z.central[i] + 28), static_cast<std::uint32_t>(name.size()));
    std::memcpy(b.data() + z.centralName(i), name.data(), name.size());
    std::memcpy(b.data() + z.localName(i), name.data(), name.size());
}

/// Stores the CRC-32 of member `i`'s (stored) data in its central entry.
void fixCrc(std::string& b, std::size_t i)
{
    const Layout z(b);
    const std::size_t size = get32(b, z.central[i] + 20);
    const auto crc = static_cast<std::uint32_t>(
        crc32(0, reinterpret_cast<const Bytef*>(b.data() + z.data(b, i)), static_cast<uInt>(size)));
    put32(b, z.central[i] + 16, crc);
}

struct Damage {
    const char* what;
    const char* fixture;
    std::function<void(std::string&)> damage;
    std::string member;    ///< Empty for archive-level messages.
    std::string expected;  ///< Must appear after "<path>: <member>: ".
};

}  // namespace

class TestNpz : public QObject {
    Q_OBJECT

private slots:
    void readsNumpyArchives_data();
    void readsNumpyArchives();
    void readsEmptyArchive();
    void readsZip64EndRecordValues();
    void damagedArchives();
    void fileErrors();
    void randomMutations();
};

void TestNpz::readsNumpyArchives_data()
{
    QTest::addColumn<QString>("fixture");
    QTest::newRow("np.savez (stored)") << "savez.npz";
    QTest::newRow("np.savez_compressed (deflated)") << "savez_compressed.npz";
    QTest::newRow("Zip64 central directory and end records") << "zip64.npz";
    QTest::newRow("unseekable stream, data descriptors") << "streamed.npz";
}

void TestNpz::readsNumpyArchives()
{
    QFETCH(QString, fixture);
    const Arrays arrays = npz::load(dataPath(fixture.toStdString()));
    QCOMPARE(arrays.size(), std::size_t{2});
    QCOMPARE(arrays[0].first, std::string("input"));
    QCOMPARE(arrays[1].first, std::string("aux"));
    QVERIFY(arrays[0].second.identical(inputArray()));
    QVERIFY(arrays[1].second.identical(auxArray()));

    const Arrays f64 = npz::load(dataPath("float64.npz"));
    QCOMPARE(f64.size(), std::size_t{1});
    QCOMPARE(f64[0].first, std::string("input"));
    QVERIFY(f64[0].second.identical(float64Array()));
}

void TestNpz::readsEmptyArchive()
{
    QVERIFY(npz::load(dataPath("empty.npz")).empty());
}

void TestNpz::readsZip64EndRecordValues()
{
    // The fields that overflow in archives over 4 GiB read 0xFFFF...: the reader must take the
    // Zip64 end record's values.
    std::string b = readFile(dataPath("zip64.npz"));
    const Layout z(b);
    put16(b, z.end + 8, 0xffff);
    put16(b, z.end + 10, 0xffff);
    put32(b, z.end + 12, 0xffffffff);
    put32(b, z.end + 16, 0xffffffff);
    QTemporaryDir dir;
    const std::string path = dir.filePath("z.npz").toStdString();
    writeFile(path, b);
    const Arrays arrays = npz::load(path);
    QCOMPARE(arrays.size(), std::size_t{2});
    QVERIFY(arrays[1].second.identical(auxArray()));
}

void TestNpz::damagedArchives()
{
    const std::string stored = "savez.npz";
    const std::string deflated = "savez_compressed.npz";
    const std::string zip64 = "zip64.npz";
    // Sizes of the fixtures' members, for the expected messages.
    const std::string s = readFile(dataPath(stored));
    const std::string d = readFile(dataPath(deflated));
    const Layout ls(s);
    const Layout ld(d);
    const std::uint32_t inputSize = get32(s, ls.central[0] + 24);
    const std::uint32_t auxDeflated = get32(d, ld.central[1] + 20);
    const std::string noEnd =
        "not a .npz archive: no ZIP end-of-central-directory record at its end";

    std::vector<Damage> damages{
        {"empty file", "savez.npz",
         [](std::string& b) {
             b.clear();
         },
         "", "not a .npz archive (the file is empty)"},
        {"cut in half", "savez.npz",
         [](std::string& b) {
             b.resize(b.size() / 2);
         },
         "", noEnd},
        {"last byte missing", "savez.npz",
         [](std::string& b) {
             b.pop_back();
         },
         "", noEnd},
        {"a .npy file", "savez.npz",
         [](std::string& b) {
             b = b.substr(Layout(b).data(b, 0), 176);
         },
         "", noEnd},
        {"end record signature", "savez.npz",
         [](std::string& b) {
             b[Layout(b).end + 3] = 'X';
         },
         "", noEnd},
        {"directory offset beyond the file", "savez.npz",
         [](std::string& b) {
             put32(b, Layout(b).end + 16, 0x7fffffff);
         },
         "",
         "corrupt ZIP: the central directory (108 bytes at offset 2147483647) does not end before "
         "the end record at offset 568"},
        {"directory size beyond the file", "savez.npz",
         [](std::string& b) {
             put32(b, Layout(b).end + 12, 0xfffffff0);
         },
         "", "does not end before the end record"},
        {"10001 members", "savez.npz",
         [](std::string& b) {
             put16(b, Layout(b).end + 8, 10001);
             put16(b, Layout(b).end + 10, 10001);
         },
         "", "the archive lists 10001 members, more than the limit of 10000"},
        {"three members listed, two present", "savez.npz",
         [](std::string& b) {
             put16(b, Layout(b).end + 8, 3);
             put16(b, Layout(b).end + 10, 3);
         },
         "",
         "the end record lists 3 members but the central directory has only 108 bytes; expected at "
         "least 46 per member"},
        {"one member listed, two present", "savez.npz",
         [](std::string& b) {
             put16(b, Layout(b).end + 8, 1);
             put16(b, Layout(b).end + 10, 1);
         },
         "", "corrupt ZIP: 53 bytes follow the last of the 1 central directory entries"},
        {"counts disagree", "savez.npz",
         [](std::string& b) {
             put16(b, Layout(b).end + 8, 1);
         },
         "", "corrupt end record: 1 members on this disk but 2 in all; expected the same count"},
        {"second disk", "savez.npz",
         [](std::string& b) {
             put16(b, Layout(b).end + 4, 1);
         },
         "", "split (multi-disk) ZIP archives are not supported"},
        {"central signature", "savez.npz",
         [](std::string& b) {
             b[Layout(b).central[0] + 2] = 9;
         },
         "central directory entry 1",
         "bad signature; expected a central directory header (PK\\1\\2)"},
        {"central name runs past the directory", "savez.npz",
         [](std::string& b) {
             put16(b, Layout(b).central[1] + 28, 300);
         },
         "central directory entry 2",
         "the central directory ends inside its name, extra field or comment"},
        {"not a .npy member", "savez.npz",
         [](std::string& b) {
             rename(b, 1, "aux.txt");
         },
         "aux.txt", "not a .npy array; expected only <name>.npy members, as np.savez writes"},
        {"empty array name", "savez.npz",
         [](std::string& b) {
             // "aux.npy" -> ".npy" in the central directory (the name is checked before the
             // local header is read).
             const Layout z(b);
             put16(b, z.central[1] + 28, 4);
             b.erase(z.centralName(1), 3);
             const Layout y(b);
             put32(b, y.end + 12, get32(b, y.end + 12) - 3);
         },
         ".npy", "the array name is empty; expected <name>.npy"},
        {"path separator", "savez.npz",
         [](std::string& b) {
             rename(b, 0, "in/ut.npy");
         },
         "in/ut.npy", "the name holds a path separator; expected a plain array name"},
        {"parent directory", "savez.npz",
         [](std::string& b) {
             rename(b, 0, "../ut.npy");
         },
         "../ut.npy", "the name holds a path separator"},
        {"dot dot", "savez.npz",
         [](std::string& b) {
             rename(b, 0, "in..t.npy");
         },
         "in..t.npy", "the name holds '..'; expected a plain array name"},
        {"control character", "savez.npz",
         [](std::string& b) {
             rename(b, 0, "in\nut.npy");
         },
         "in\\x0aut.npy", "the name holds control characters"},
        {"duplicate name", "savez.npz",
         [](std::string& b) {
             // The directory lists input twice: copy entry 1 over entry 2 and fix the sizes.
             const Layout z(b);
             const std::string first = b.substr(z.central[0], z.central[1] - z.central[0]);
             const std::string tail = b.substr(z.end);
             b = b.substr(0, z.central[0]) + first + first + tail;
             const Layout y(b);
             put32(b, y.end + 12, static_cast<std::uint32_t>(2 * first.size()));
         },
         "input.npy", "a second member of this name; expected every array name once"},
        {"encrypted", "savez.npz",
         [](std::string& b) {
             put16(b, Layout(b).central[0] + 8, 1);
         },
         "input.npy", "encrypted members are not supported"},
        {"bzip2", "savez.npz",
         [](std::string& b) {
             put16(b, Layout(b).central[1] + 10, 12);
         },
         "aux.npy",
         "compression method 12 is not supported; expected stored (0, np.savez) or deflated (8, "
         "np.savez_compressed)"},
        {"stored sizes disagree", "savez.npz",
         [](std::string& b) {
             put32(b, Layout(b).central[0] + 20, 170);
         },
         "input.npy",
         "stored member with compressed size 170 and size " + std::to_string(inputSize) +
             "; expected equal sizes"},
        {"stored size lies, overlapping the next member", "savez.npz",
         [](std::string& b) {
             put32(b, Layout(b).central[0] + 20, 200);
             put32(b, Layout(b).central[0] + 24, 200);
         },
         "aux.npy", "overlaps member input.npy; expected members stored one after another"},
        {"last member's data run into the directory", "savez.npz",
         [](std::string& b) {
             put32(b, Layout(b).central[1] + 20, 300);
             put32(b, Layout(b).central[1] + 24, 300);
         },
         "aux.npy", "bytes of data at offset"},
        {"two members at one offset", "savez.npz",
         [](std::string& b) {
             put32(b, Layout(b).central[1] + 42, 0);
         },
         "aux.npy", "names another member; expected the central directory's name"},
        {"local header beyond the file", "savez.npz",
         [](std::string& b) {
             put32(b, Layout(b).central[1] + 42, 0x7fffffff);
         },
         "aux.npy",
         "local header offset 2147483647; expected a 30-byte local header before the central "
         "directory at offset"},
        {"local signature", "savez.npz",
         [](std::string& b) {
             b[Layout(b).local[0] + 3] = 0;
         },
         "input.npy", "bad signature at offset 0; expected a local file header (PK\\3\\4)"},
        {"local name differs", "savez.npz",
         [](std::string& b) {
             b[Layout(b).localName(0)] = 'X';
         },
         "input.npy", "the local header at offset 0 names another member"},
        {"local extra field runs into the directory", "savez.npz",
         [](std::string& b) {
             put16(b, Layout(b).local[1] + 28, 0xffff);
         },
         "aux.npy", "the local header's name and extra field run into the central directory"},
        {"stored data changed", "savez.npz",
         [](std::string& b) {
             b[Layout(b).data(b, 0) + 170] ^= 1;
         },
         "input.npy", "CRC-32 mismatch: the data give 0x"},
        {"CRC field changed", "savez.npz",
         [](std::string& b) {
             b[Layout(b).central[1] + 16] ^= 0x40;
         },
         "aux.npy", "CRC-32 mismatch"},
        {"member not a .npy file", "savez.npz",
         [](std::string& b) {
             b[Layout(b).data(b, 0) + 1] = 'X';
             fixCrc(b, 0);
         },
         "input.npy", "not a .npy file (bad magic)"},
        {"member .npy data truncated", "savez.npz",
         [](std::string& b) {
             // Shorten the stored member by 4 bytes: the .npy reader sees 44 of 48 data bytes.
             const Layout z(b);
             const std::uint32_t shorter = get32(b, z.central[0] + 20) - 4;
             put32(b, z.central[0] + 20, shorter);
             put32(b, z.central[0] + 24, shorter);
             fixCrc(b, 0);
         },
         "input.npy",
         "truncated: header says shape (3, 4) of float32 (48 bytes of data) but the file has 44"},
        {"deflate data corrupt", "savez_compressed.npz",
         [](std::string& b) {
             b[Layout(b).data(b, 0)] = static_cast<char>(0xff);
         },
         "input.npy", "corrupt deflate data (invalid block type); expected a raw deflate stream"},
        {"compressed size too small", "savez_compressed.npz",
         [](std::string& b) {
             put32(b, Layout(b).central[1] + 20, get32(b, Layout(b).central[1] + 20) - 10);
         },
         "aux.npy",
         "the deflate stream is cut short: all " + std::to_string(auxDeflated - 10) +
             " declared compressed bytes end before it does"},
        // streamed.npz: a 24-byte data descriptor follows each member, room for a longer claim
        {"compressed size too large", "streamed.npz",
         [](std::string& b) {
             put32(b, Layout(b).central[0] + 20, get32(b, Layout(b).central[0] + 20) + 5);
         },
         "input.npy", " declared compressed bytes; expected it to fill them"},
        {"inflates past its size", "savez_compressed.npz",
         [](std::string& b) {
             put32(b, Layout(b).central[1] + 24, 100);
         },
         "aux.npy", "inflates past its declared size of 100 bytes"},
        {"inflates short of its size", "savez_compressed.npz",
         [](std::string& b) {
             put32(b, Layout(b).central[1] + 24, 0xfffffff0);
         },
         "aux.npy", "inflates to 168 bytes; expected the declared 4294967280"},
        {"Zip64 size over the limit", "zip64.npz",
         [](std::string& b) {
             // size and compressed size: a stored member's must agree
             put64(b, Layout(b).centralZip64(b, 1) + 4, std::uint64_t{1} << 40);
             put64(b, Layout(b).centralZip64(b, 1) + 12, std::uint64_t{1} << 40);
         },
         "aux.npy",
         "declares 1099511627776 bytes uncompressed, more than the limit of " +
             std::to_string(npz::kMaxMemberBytes)},
        {"Zip64 extra field missing", "zip64.npz",
         [](std::string& b) {
             put16(b, Layout(b).centralZip64(b, 0), 0x9999);
         },
         "input.npy",
         "the uncompressed size is 0xFFFFFFFF but the Zip64 extra field does not hold it"},
        {"Zip64 extra field too short for the offset", "zip64.npz",
         [](std::string& b) {
             const std::size_t at = Layout(b).centralZip64(b, 1);
             put16(b, at + 2, 16);  // sizes only: the offset's 8 bytes become a stray record
             put16(b, at + 20, 0x9999);
             put16(b, at + 22, 4);
         },
         "aux.npy",
         "the local header offset is 0xFFFFFFFF but the Zip64 extra field does not hold it"},
        {"Zip64 extra record runs past the field", "zip64.npz",
         [](std::string& b) {
             put16(b, Layout(b).centralZip64(b, 0) + 2, 200);
         },
         "input.npy", "malformed extra field: a record of 200 bytes runs past the field's end"},
        {"Zip64 locator points nowhere", "zip64.npz",
         [](std::string& b) {
             put64(b, Layout(b).end - 20 + 8, 3);
         },
         "",
         "corrupt Zip64 end records: no Zip64 end-of-central-directory record at offset 3 where "
         "the "
         "locator points"},
        {"Zip64 locator points past itself", "zip64.npz",
         [](std::string& b) {
             put64(b, Layout(b).end - 20 + 8, ~std::uint64_t{0});
         },
         "", "corrupt Zip64 end records: the locator points to offset 18446744073709551615"},
        {"Zip64 member count over the limit", "zip64.npz",
         [](std::string& b) {
             const std::size_t record = b.rfind(std::string("PK\x06\x06", 4));
             put64(b, record + 24, 1u << 30);
             put64(b, record + 32, 1u << 30);
         },
         "", "the archive lists 1073741824 members, more than the limit of 10000"},
    };

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    for (const Damage& damage : damages) {
        std::string bytes = readFile(dataPath(damage.fixture));
        damage.damage(bytes);
        const std::string path = dir.filePath("damaged.npz").toStdString();
        writeFile(path, bytes);
        const std::string message = errorOf([&] {
            npz::load(path);
        });
        const std::string prefix =
            path + ": " + (damage.member.empty() ? "" : damage.member + ": ");
        const std::string context = std::string(damage.what) + ": " + message;
        QVERIFY2(message.rfind(prefix, 0) == 0, context.c_str());
        QVERIFY2(contains(message.substr(prefix.size()), damage.expected), context.c_str());
        QVERIFY2(!contains(message, "\n"), context.c_str());
    }
}

void TestNpz::fileErrors()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string missing = dir.filePath("nope.npz").toStdString();
    QCOMPARE(errorOf([&] {
                 npz::load(missing);
             }),
             missing + ": cannot open: No such file or directory");
    const std::string folder = dir.path().toStdString();
    QCOMPARE(errorOf([&] {
                 npz::load(folder);
             }),
             folder + ": cannot open: it is a directory");
}

void TestNpz::randomMutations()
{
    // 300 seeded mutations of the fixtures: one to eight bytes set to random values, sometimes a
    // truncation. Each load must return or throw Error (anything else fails or crashes the test)
    // and finish quickly.
    const std::vector<std::string> fixtures{"savez.npz", "savez_compressed.npz", "float64.npz",
                                            "zip64.npz", "streamed.npz"};
    std::mt19937 rng(20261127);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath("mutated.npz").toStdString();
    int refused = 0;
    for (int i = 0; i < 300; ++i) {
        std::string bytes =
            readFile(dataPath(fixtures[static_cast<std::size_t>(i) % fixtures.size()]));
        const int changes = 1 + static_cast<int>(rng() % 8);
        for (int c = 0; c < changes; ++c) {
            bytes[rng() % bytes.size()] = static_cast<char>(rng() & 0xff);
        }
        if (rng() % 10 == 0) {
            bytes.resize(rng() % bytes.size());
        }
        writeFile(path, bytes);
        try {
            const Arrays arrays = npz::load(path);
            QVERIFY(arrays.size() <= 2);
        } catch (const Error& e) {
            ++refused;
            QVERIFY2(!contains(e.what(), "\n"), e.what());
        }
    }
    QVERIFY(refused > 0);
}

QTEST_GUILESS_MAIN(TestNpz)
#include "test_npz.moc"
