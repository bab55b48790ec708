// Tests for engine/tensor: Shape construction and its limits (rank, negative extents, element
// counts that would overflow int64), text form, and Tensor construction, scalar access, reshape,
// Eigen views, finiteness and bit-exact comparison, and where the elements live (cache-line
// aligned; large tensors on 2 MiB boundaries for huge pages).
#include "engine/tensor/error.hpp"
#include "engine/tensor/tensor.hpp"

#include <QtTest>

#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

using spike::engine::Error;
using spike::engine::Shape;
using spike::engine::Tensor;

namespace {

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

/// The message of the spike::engine::Error `f` throws, or "" (and a test failure) when it throws
/// nothing. Any other exception type escapes and fails the test.
std::string errorOf(const std::function<void()>& f)
{
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    QTest::qFail("expected spike::engine::Error, nothing was thrown", __FILE__, __LINE__);
    return {};
}

bool contains(const std::string& haystack, const std::string& needle)
{
    return haystack.find(needle) != std::string::npos;
}

/// 0, 1, 2, ... as floats, in the given shape.
Tensor iota(const Shape& shape)
{
    Tensor t(shape);
    for (std::int64_t i = 0; i < t.numel(); ++i) {
        t[i] = static_cast<float>(i);
    }
    return t;
}

}  // namespace

class TestTensor : public QObject {
    Q_OBJECT

private slots:
    void shapeRankAndNumel()
    {
        QCOMPARE(Shape{}.rank(), 0);
        QCOMPARE(Shape{}.numel(), std::int64_t{1});
        QCOMPARE(Shape{4}.rank(), 1);
        QCOMPARE(Shape{4}.numel(), std::int64_t{4});
        QCOMPARE((Shape{3, 4}.numel()), std::int64_t{12});
        QCOMPARE((Shape{2, 3, 4, 5}.rank()), 4);
        QCOMPARE((Shape{2, 3, 4, 5}.numel()), std::int64_t{120});
        QCOMPARE((Shape{2, 0, 3}.numel()), std::int64_t{0});
        QCOMPARE(Shape(std::vector<std::int64_t>{5, 6}), (Shape{5, 6}));
        QCOMPARE((Shape{5, 6}.dims()), (std::vector<std::int64_t>{5, 6}));
        QVERIFY((Shape{5, 6}) != (Shape{6, 5}));
        QVERIFY(Shape{1} != Shape{});
    }

    void shapeToString()
    {
        QCOMPARE(Shape{}.toString(), std::string("()"));
        QCOMPARE(Shape{4}.toString(), std::string("(4,)"));
        QCOMPARE((Shape{3, 4}.toString()), std::string("(3, 4)"));
        QCOMPARE((Shape{1, 0, 2, 7}.toString()), std::string("(1, 0, 2, 7)"));
    }

    void shapePrependedAndWithoutFirst()
    {
        QCOMPARE(Shape{}.prepended(3), Shape{3});
        QCOMPARE((Shape{3, 4}.prepended(2)), (Shape{2, 3, 4}));
        QCOMPARE((Shape{2, 3, 4}.withoutFirst()), (Shape{3, 4}));
        QCOMPARE(Shape{7}.withoutFirst(), Shape{});
        QVERIFY(contains(errorOf([] { (void)Shape{}.withoutFirst(); }), "scalar"));
        const std::string tooDeep = errorOf([] { (void)Shape{1, 2, 3, 4}.prepended(5); });
        QVERIFY2(contains(tooDeep, "at most 4 dimensions"), tooDeep.c_str());
        const std::string negative = errorOf([] { (void)Shape{3}.prepended(-1); });
        QVERIFY2(contains(negative, "-1"), negative.c_str());
    }

    void shapeRejectsRankFive()
    {
        const std::string m = errorOf([] { Shape s{1, 2, 3, 4, 5}; });
        QVERIFY2(contains(m, "at most 4 dimensions, got 5"), m.c_str());
        QVERIFY2(contains(m, "(1, 2, 3, 4, 5)"), m.c_str());
        const std::string fromVector =
            errorOf([] { Shape s(std::vector<std::int64_t>{1, 1, 1, 1, 1, 1}); });
        QVERIFY2(contains(fromVector, "got 6"), fromVector.c_str());
    }

    void shapeRejectsNegativeExtents()
    {
        const std::string m = errorOf([] { Shape s{3, -2}; });
        QVERIFY2(contains(m, ">= 0"), m.c_str());
        QVERIFY2(contains(m, "-2 on axis 1"), m.c_str());
        QVERIFY2(contains(m, "(3, -2)"), m.c_str());
        const std::string fromVector = errorOf([] { Shape s(std::vector<std::int64_t>{-1}); });
        QVERIFY2(contains(fromVector, "(-1,)"), fromVector.c_str());
    }

    void shapeRejectsOverflow_data()
    {
        QTest::addColumn<std::vector<std::int64_t>>("dims");
        QTest::addColumn<QString>("text");
        const std::int64_t p32 = std::int64_t{1} << 32;
        const std::int64_t p40 = std::int64_t{1} << 40;
        QTest::newRow("2^32 x 2^32") << std::vector<std::int64_t>{p32, p32}
                                     << QString("(4294967296, 4294967296)");
        QTest::newRow("2^40 x 2^40 x 0") << std::vector<std::int64_t>{p40, p40, 0}
                                         << QString("(1099511627776, 1099511627776, 0)");
        QTest::newRow("0 x 2^40 x 2^40") << std::vector<std::int64_t>{0, p40, p40}
                                         << QString("(0, 1099511627776, 1099511627776)");
        QTest::newRow("2 x 2^62") << std::vector<std::int64_t>{2, std::int64_t{1} << 62}
                                  << QString("(2, 4611686018427387904)");
        QTest::newRow("max x 2") << std::vector<std::int64_t>{kInt64Max, 2}
                                 << QString("(9223372036854775807, 2)");
        QTest::newRow("4 x 2^16 x 2^16 x 2^30")
            << std::vector<std::int64_t>{4, 65536, 65536, std::int64_t{1} << 30}
            << QString("(4, 65536, 65536, 1073741824)");
    }

    void shapeRejectsOverflow()
    {
        QFETCH(std::vector<std::int64_t>, dims);
        QFETCH(QString, text);
        const std::string fromVector = errorOf([&] { Shape s(dims); });
        QVERIFY2(contains(fromVector, "too large"), fromVector.c_str());
        QVERIFY2(contains(fromVector, text.toStdString()), fromVector.c_str());
        if (dims.size() == 2) {
            const std::string fromList = errorOf([&] { Shape s{dims[0], dims[1]}; });
            QCOMPARE(fromList, fromVector);
        }
    }

    void shapeAcceptsLargestProducts()
    {
        QCOMPARE(Shape{kInt64Max}.numel(), kInt64Max);
        QCOMPARE((Shape{kInt64Max, 1, 1, 1}.numel()), kInt64Max);
        // floor(sqrt(2^63 - 1)) squared still fits.
        QCOMPARE((Shape{3037000499, 3037000499}.numel()), std::int64_t{9223372030926249001});
        // A zero extent makes numel 0 as long as the other extents fit together.
        QCOMPARE((Shape{std::int64_t{1} << 62, 0, 1}.numel()), std::int64_t{0});
        QCOMPARE((Shape{0, kInt64Max}.numel()), std::int64_t{0});
        QCOMPARE((Shape{std::int64_t{1} << 31, std::int64_t{1} << 31, 0}.numel()), std::int64_t{0});
    }

    void tensorFillConstructor()
    {
        const Tensor t(Shape{2, 3}, 1.5F);
        QCOMPARE(t.shape(), (Shape{2, 3}));
        QCOMPARE(t.rank(), 2);
        QCOMPARE(t.dim(1), std::int64_t{3});
        QCOMPARE(t.numel(), std::int64_t{6});
        for (std::int64_t i = 0; i < t.numel(); ++i) {
            QCOMPARE(t[i], 1.5F);
        }
        QCOMPARE(Tensor(Shape{4}).flat().sum(), 0.0F);
        const Tensor empty;
        QCOMPARE(empty.shape(), Shape{0});
        QCOMPARE(empty.numel(), std::int64_t{0});
        QVERIFY(!empty.isScalar());
        QCOMPARE(Tensor(Shape{3, 0}).numel(), std::int64_t{0});
    }

    void tensorValuesConstructor()
    {
        const Tensor t(Shape{2, 2}, std::vector<float>{1, 2, 3, 4});
        QCOMPARE(t.at({0, 0}), 1.0F);
        QCOMPARE(t.at({0, 1}), 2.0F);
        QCOMPARE(t.at({1, 0}), 3.0F);
        QCOMPARE(t.at({1, 1}), 4.0F);
        const std::string m = errorOf([] { Tensor bad(Shape{2, 3}, std::vector<float>{1, 2, 3}); });
        QVERIFY2(contains(m, "(2, 3)"), m.c_str());
        QVERIFY2(contains(m, "needs 6 values, got 3"), m.c_str());
    }

    void tensorScalarAndItem()
    {
        const Tensor s = Tensor::scalar(2.5F);
        QVERIFY(s.isScalar());
        QCOMPARE(s.rank(), 0);
        QCOMPARE(s.numel(), std::int64_t{1});
        QCOMPARE(s.item(), 2.5F);
        QCOMPARE(Tensor(Shape{1, 1}, 7.0F).item(), 7.0F);
        const std::string many = errorOf([] { (void)Tensor(Shape{2, 3}).item(); });
        QVERIFY2(contains(many, "single value"), many.c_str());
        QVERIFY2(contains(many, "(2, 3)"), many.c_str());
        const std::string none = errorOf([] { (void)Tensor().item(); });
        QVERIFY2(contains(none, "(0,)"), none.c_str());
    }

    void tensorReshape()
    {
        Tensor t = iota(Shape{2, 6});
        const Tensor r = t.reshaped(Shape{3, 4});
        QCOMPARE(r.shape(), (Shape{3, 4}));
        QCOMPARE(r.at({2, 3}), 11.0F);
        QCOMPARE(t.shape(), (Shape{2, 6}));
        t.reshape(Shape{12});
        QCOMPARE(t.shape(), Shape{12});
        QCOMPARE(t[5], 5.0F);
        const std::string m = errorOf([&] { t.reshape(Shape{5, 2}); });
        QVERIFY2(contains(m, "(12,)"), m.c_str());
        QVERIFY2(contains(m, "(5, 2)"), m.c_str());
        QCOMPARE(t.shape(), Shape{12});
        const std::string c = errorOf([&] { (void)t.reshaped(Shape{}); });
        QVERIFY2(contains(c, "(12,) to ()"), c.c_str());
    }

    void tensorMatrixViews_data()
    {
        QTest::addColumn<std::vector<std::int64_t>>("dims");
        QTest::addColumn<qint64>("rows");
        QTest::addColumn<qint64>("cols");
        QTest::newRow("rank 0") << std::vector<std::int64_t>{} << qint64{1} << qint64{1};
        QTest::newRow("rank 1") << std::vector<std::int64_t>{5} << qint64{1} << qint64{5};
        QTest::newRow("rank 2") << std::vector<std::int64_t>{3, 4} << qint64{3} << qint64{4};
        QTest::newRow("rank 3") << std::vector<std::int64_t>{2, 3, 4} << qint64{2} << qint64{12};
        QTest::newRow("rank 4") << std::vector<std::int64_t>{2, 1, 3, 2} << qint64{2} << qint64{6};
        QTest::newRow("rank 3 empty") << std::vector<std::int64_t>{0, 3, 4} << qint64{0}
                                      << qint64{0};
        QTest::newRow("rank 2 no cols") << std::vector<std::int64_t>{3, 0} << qint64{3}
                                        << qint64{0};
    }

    void tensorMatrixViews()
    {
        QFETCH(std::vector<std::int64_t>, dims);
        QFETCH(qint64, rows);
        QFETCH(qint64, cols);
        Tensor t = iota(Shape(dims));
        const Tensor& ct = t;
        QCOMPARE(qint64{ct.matrix().rows()}, rows);
        QCOMPARE(qint64{ct.matrix().cols()}, cols);
        QCOMPARE(qint64{t.matrix().rows()}, rows);
        QCOMPARE(qint64{t.matrix().cols()}, cols);
        // Row-major: element (r, c) is flat index r * cols + c.
        for (qint64 r = 0; r < rows; ++r) {
            for (qint64 c = 0; c < cols; ++c) {
                QCOMPARE(ct.matrix()(r, c), static_cast<float>(r * cols + c));
            }
        }
        if (rows * cols > 0) {
            auto m = t.matrix();
            m(rows - 1, cols - 1) = -42.0F;
            QCOMPARE(t[t.numel() - 1], -42.0F);
            m.setConstant(3.0F);
            QCOMPARE(t[0], 3.0F);
            QCOMPARE(t.flat().sum(), 3.0F * static_cast<float>(t.numel()));
        }
    }

    void tensorFlat()
    {
        Tensor t = iota(Shape{2, 3});
        QCOMPARE(qint64{t.flat().size()}, qint64{6});
        QCOMPARE(t.flat().sum(), 15.0F);
        t.flat() *= 2.0F;
        QCOMPARE(t.at({1, 2}), 10.0F);
        const Tensor& ct = t;
        QCOMPARE(ct.flat()(5), 10.0F);
        QCOMPARE(qint64{Tensor().flat().size()}, qint64{0});
        QCOMPARE(qint64{Tensor::scalar(1.0F).flat().size()}, qint64{1});
    }

    void tensorAllFinite()
    {
        QVERIFY(Tensor().allFinite());
        QVERIFY(Tensor(Shape{3}, std::vector<float>{0.0F, std::numeric_limits<float>::max(),
                                                    std::numeric_limits<float>::denorm_min()})
                    .allFinite());
        for (const float bad : {std::numeric_limits<float>::quiet_NaN(),
                                std::numeric_limits<float>::infinity(),
                                -std::numeric_limits<float>::infinity()}) {
            Tensor t(Shape{2, 2}, 1.0F);
            t[3] = bad;
            QVERIFY(!t.allFinite());
        }
    }

    void tensorIdentical()
    {
        const Tensor a(Shape{2}, std::vector<float>{1.0F, 0.0F});
        QVERIFY(a.identical(a));
        QVERIFY(a.identical(Tensor(Shape{2}, std::vector<float>{1.0F, 0.0F})));
        // -0.0 == 0.0 numerically, but not bit for bit.
        QVERIFY(!a.identical(Tensor(Shape{2}, std::vector<float>{1.0F, -0.0F})));
        // Same data, different shape.
        QVERIFY(!a.identical(a.reshaped(Shape{1, 2})));
        QVERIFY(Tensor().identical(Tensor(Shape{0})));
        QVERIFY(!Tensor().identical(Tensor(Shape{0, 3})));

        const float nan1 = std::bit_cast<float>(std::uint32_t{0x7FC00001});
        const float nan1Again = std::bit_cast<float>(std::uint32_t{0x7FC00001});
        const float nan2 = std::bit_cast<float>(std::uint32_t{0x7FC00002});
        const Tensor n1 = Tensor::scalar(nan1);
        QVERIFY(n1.identical(Tensor::scalar(nan1Again)));
        QVERIFY(!n1.identical(Tensor::scalar(nan2)));
        QVERIFY(!n1.identical(Tensor::scalar(-nan1)));
    }

    void tensorRejectsTooManyElements()
    {
        // Each of these would need gigabytes to terabytes; an Error (not std::bad_alloc) proves
        // the size was refused before any allocation.
        const std::int64_t overLimit = Tensor::kMaxElements + 1;
        const std::string m = errorOf([&] { Tensor t(Shape{overLimit}); });
        QVERIFY2(contains(m, "(2147483648,)"), m.c_str());
        QVERIFY2(contains(m, "2147483647"), m.c_str());
        const std::string big = errorOf([] { Tensor t(Shape{65536, 65536}, 1.0F); });
        QVERIFY2(contains(big, "(65536, 65536)"), big.c_str());
        const std::string huge = errorOf([] {
            Tensor t(Shape{std::int64_t{1} << 40, std::int64_t{1} << 20},
                     std::vector<float>{1.0F});
        });
        QVERIFY2(contains(huge, "(1099511627776, 1048576)"), huge.c_str());
        const std::string zeros = errorOf([] { (void)Tensor::zeros(Shape{1 << 16, 1 << 16}); });
        QVERIFY2(contains(zeros, "(65536, 65536)"), zeros.c_str());

        Tensor r(Shape{2, 2}, 1.0F);
        const std::string resized = errorOf([&] { r.resize(Shape{overLimit}); });
        QVERIFY2(contains(resized, "(2147483648,)"), resized.c_str());
        QCOMPARE(r.shape(), (Shape{2, 2}));
        QCOMPARE(r.numel(), std::int64_t{4});

        // A zero extent keeps even an enormous shape within the limit.
        QCOMPARE(Tensor(Shape{std::int64_t{1} << 40, 0}).numel(), std::int64_t{0});
    }

    void tensorMemoryIsAlignedForSimdAndHugePages()
    {
        // tensor_memory.hpp: every block starts on a cache line; from 2 MiB on, on a 2 MiB
        // boundary (the transparent huge pages it is advised for). Values survive copies,
        // moves and resizes across the threshold.
        const auto address = [](const Tensor& t) { return reinterpret_cast<std::uintptr_t>(t.data()); };
        constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
        for (const std::int64_t n : {1, 3, 1000, 524287}) {  // up to just under 2 MiB of floats
            const Tensor small(Shape{n}, 1.5F);
            QCOMPARE(address(small) % 64, std::uintptr_t{0});
        }
        for (const std::int64_t n : {524288, 524289, 3000000}) {  // 2 MiB and more
            Tensor large(Shape{n}, 0.0F);
            QCOMPARE(address(large) % kHuge, std::uintptr_t{0});
            large[n - 1] = 7.0F;
            const Tensor copy = large;
            QCOMPARE(address(copy) % kHuge, std::uintptr_t{0});
            QCOMPARE(copy[n - 1], 7.0F);
            QVERIFY(copy.identical(large));
        }
        Tensor grows(Shape{4}, 2.0F);
        grows.resize(Shape{600000});
        QCOMPARE(address(grows) % kHuge, std::uintptr_t{0});
        grows.fill(3.0F);
        QCOMPARE(grows[599999], 3.0F);
        Tensor moved = std::move(grows);
        QCOMPARE(moved[0], 3.0F);
        QCOMPARE(address(moved) % kHuge, std::uintptr_t{0});
    }
};

QTEST_GUILESS_MAIN(TestTensor)
#include "test_tensor.moc"
