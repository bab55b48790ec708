// kernels/portable_math.hpp: the transcendental functions that equation models use on both
// backends. Each float function is compared over dense sweeps of its domain with glibc's double
// function rounded to float (the correctly rounded result but for double rounding): it must agree
// bit for bit on all but a vanishing fraction of arguments and never be more than one float ulp
// away; C's special values (NaN, infinities, signed zeros, pow's rules) must hold. That the host
// and a CUDA device give the same bits follows from the functions using only IEEE-exact
// operations; test_equation_parity checks it on the device.
#include "kernels/portable_math.hpp"

#include <QtTest/QtTest>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>

namespace pm = spike::kernels::pm;

namespace {

std::int64_t orderedBits(float x)
{
    std::int32_t b = 0;
    std::memcpy(&b, &x, sizeof b);
    return b < 0 ? -static_cast<std::int64_t>(b & 0x7FFFFFFF) : static_cast<std::int64_t>(b);
}

/// Distance in float ulps (0 when both are NaN or equal, huge when only one is NaN).
std::int64_t ulps(float a, float b)
{
    if (std::isnan(a) || std::isnan(b)) {
        return std::isnan(a) && std::isnan(b) ? 0 : std::numeric_limits<std::int64_t>::max();
    }
    if (a == b) {
        return 0;
    }
    return std::llabs(orderedBits(a) - orderedBits(b));
}

struct SweepResult {
    std::int64_t count = 0;
    std::int64_t inexact = 0;   ///< not bit-equal to the reference
    std::int64_t worstUlps = 0;
    float worstAt = 0.0F;
};

SweepResult sweep(const std::function<float(float)>& ours, const std::function<double(double)>& reference,
                  float lo, float hi, int n)
{
    SweepResult r;
    for (int i = 0; i <= n; ++i) {
        const float x = lo + (hi - lo) * (static_cast<float>(i) / static_cast<float>(n));
        const float want = static_cast<float>(reference(x));
        const std::int64_t u = ulps(ours(x), want);
        ++r.count;
        if (u != 0) {
            ++r.inexact;
        }
        if (u > r.worstUlps) {
            r.worstUlps = u;
            r.worstAt = x;
        }
    }
    return r;
}

void requireAccurate(const char* name, const SweepResult& r)
{
    const std::string where = std::string(name) + ": " + std::to_string(r.inexact) + " of " +
                              std::to_string(r.count) + " differ, worst " + std::to_string(r.worstUlps) +
                              " ulp at " + std::to_string(r.worstAt);
    QVERIFY2(r.worstUlps <= 1, where.c_str());
    QVERIFY2(r.inexact * 10000 <= r.count, where.c_str());  // correctly rounded but for 1e-4
}

constexpr int kN = 200000;
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

}  // namespace

class TestPortableMath : public QObject {
    Q_OBJECT

private slots:
    void exponentialsAndLogarithms()
    {
        requireAccurate("exp", sweep(pm::exp, [](double x) { return std::exp(x); }, -103.0F, 88.7F, kN));
        requireAccurate("exp near 0", sweep(pm::exp, [](double x) { return std::exp(x); }, -1e-3F, 1e-3F, kN));
        requireAccurate("log", sweep(pm::log, [](double x) { return std::log(x); }, 1e-30F, 1e4F, kN));
        requireAccurate("log near 1", sweep(pm::log, [](double x) { return std::log(x); }, 0.9F, 1.1F, kN));
        requireAccurate("log tiny", sweep(pm::log, [](double x) { return std::log(x); }, 1e-44F, 1e-38F, kN));
        requireAccurate("log10", sweep(pm::log10, [](double x) { return std::log10(x); }, 1e-20F, 1e20F, kN));
        const auto exprelRef = [](double x) { return x == 0.0 ? 1.0 : std::expm1(x) / x; };
        requireAccurate("exprel", sweep(pm::exprel, exprelRef, -90.0F, 88.0F, kN));
        requireAccurate("exprel near 0", sweep(pm::exprel, exprelRef, -1e-2F, 1e-2F, kN));
    }

    void trigonometry()
    {
        requireAccurate("sin", sweep(pm::sin, [](double x) { return std::sin(x); }, -100.0F, 100.0F, kN));
        requireAccurate("cos", sweep(pm::cos, [](double x) { return std::cos(x); }, -100.0F, 100.0F, kN));
        requireAccurate("tan", sweep(pm::tan, [](double x) { return std::tan(x); }, -10.0F, 10.0F, kN));
        requireAccurate("sin large", sweep(pm::sin, [](double x) { return std::sin(x); }, 1e5F, 1e6F, kN));
        requireAccurate("sin tiny", sweep(pm::sin, [](double x) { return std::sin(x); }, -1e-4F, 1e-4F, kN));
        requireAccurate("asin", sweep(pm::asin, [](double x) { return std::asin(x); }, -1.0F, 1.0F, kN));
        requireAccurate("acos", sweep(pm::acos, [](double x) { return std::acos(x); }, -1.0F, 1.0F, kN));
        requireAccurate("atan", sweep(pm::atan, [](double x) { return std::atan(x); }, -50.0F, 50.0F, kN));
        requireAccurate("atan huge", sweep(pm::atan, [](double x) { return std::atan(x); }, 1e3F, 1e30F, kN));
    }

    void hyperbolic()
    {
        requireAccurate("sinh", sweep(pm::sinh, [](double x) { return std::sinh(x); }, -89.0F, 89.0F, kN));
        requireAccurate("sinh near 0", sweep(pm::sinh, [](double x) { return std::sinh(x); }, -0.5F, 0.5F, kN));
        requireAccurate("cosh", sweep(pm::cosh, [](double x) { return std::cosh(x); }, -89.0F, 89.0F, kN));
        requireAccurate("tanh", sweep(pm::tanh, [](double x) { return std::tanh(x); }, -12.0F, 12.0F, kN));
        requireAccurate("tanh near 0", sweep(pm::tanh, [](double x) { return std::tanh(x); }, -1e-3F, 1e-3F, kN));
    }

    void power()
    {
        for (const float base : {0.001F, 0.37F, 1.5F, 2.0F, 10.0F, 1234.5F}) {
            const auto ours = [base](float y) { return pm::pow(base, y); };
            const auto ref = [base](double y) { return std::pow(static_cast<double>(base), y); };
            const float top = 88.0F / std::fabs(std::log(base));
            requireAccurate(("pow " + std::to_string(base)).c_str(), sweep(ours, ref, -top, top, kN / 10));
        }
        const auto square = [](float x) { return pm::pow(x, 2.0F); };
        requireAccurate("pow x^2", sweep(square, [](double x) { return x * x; }, -1e4F, 1e4F, kN));
        const auto cube = [](float x) { return pm::pow(x, 3.0F); };
        requireAccurate("pow x^3", sweep(cube, [](double x) { return x * x * x; }, -100.0F, 100.0F, kN));
        const auto root = [](float x) { return pm::pow(x, 0.5F); };
        requireAccurate("pow x^0.5", sweep(root, [](double x) { return std::sqrt(x); }, 0.0F, 1e6F, kN));
    }

    void specialValues()
    {
        QVERIFY(std::isnan(pm::exp(kNaN)));
        QCOMPARE(pm::exp(kInf), kInf);
        QCOMPARE(pm::exp(-kInf), 0.0F);
        QCOMPARE(pm::exp(89.0F), kInf);
        QCOMPARE(pm::exp(-104.0F), static_cast<float>(std::exp(-104.0)));  // a subnormal
        QCOMPARE(pm::exp(0.0F), 1.0F);
        QVERIFY(std::isnan(pm::log(-1.0F)));
        QCOMPARE(pm::log(0.0F), -kInf);
        QCOMPARE(pm::log(kInf), kInf);
        QCOMPARE(pm::log(1.0F), 0.0F);
        QCOMPARE(pm::log10(1000.0F), 3.0F);
        QCOMPARE(pm::exprel(0.0F), 1.0F);
        QCOMPARE(pm::exprel(-kInf), 0.0F);
        QVERIFY(std::isnan(pm::sin(kInf)));
        QVERIFY(std::isnan(pm::cos(-kInf)));
        QVERIFY(std::isnan(pm::tan(kNaN)));
        QCOMPARE(pm::sin(0.0F), 0.0F);
        QCOMPARE(pm::cos(0.0F), 1.0F);
        QVERIFY(std::isnan(pm::asin(1.5F)));
        QVERIFY(std::isnan(pm::acos(-1.01F)));
        QCOMPARE(pm::acos(1.0F), 0.0F);
        QCOMPARE(pm::asin(-1.0F), static_cast<float>(-std::asin(1.0)));
        QCOMPARE(pm::atan(kInf), static_cast<float>(std::atan(1.0) * 2.0));
        QCOMPARE(pm::tanh(kInf), 1.0F);
        QCOMPARE(pm::tanh(-kInf), -1.0F);
        QCOMPARE(pm::sinh(-kInf), -kInf);
        QCOMPARE(pm::cosh(kInf), kInf);
        // pow: C's rules.
        QCOMPARE(pm::pow(kNaN, 0.0F), 1.0F);
        QCOMPARE(pm::pow(1.0F, kNaN), 1.0F);
        QVERIFY(std::isnan(pm::pow(2.0F, kNaN)));
        QCOMPARE(pm::pow(-2.0F, 3.0F), -8.0F);
        QCOMPARE(pm::pow(-2.0F, -2.0F), 0.25F);
        QVERIFY(std::isnan(pm::pow(-2.0F, 0.5F)));
        QCOMPARE(pm::pow(0.0F, -1.0F), kInf);
        QCOMPARE(pm::pow(-0.0F, -1.0F), -kInf);
        QCOMPARE(pm::pow(-0.0F, 3.0F), -0.0F);
        QVERIFY(std::signbit(pm::pow(-0.0F, 3.0F)));
        QVERIFY(!std::signbit(pm::pow(-0.0F, 2.0F)));
        QCOMPARE(pm::pow(0.0F, 2.0F), 0.0F);
        QCOMPARE(pm::pow(2.0F, -kInf), 0.0F);
        QCOMPARE(pm::pow(0.5F, kInf), 0.0F);
        QCOMPARE(pm::pow(2.0F, kInf), kInf);
        QCOMPARE(pm::pow(-1.0F, kInf), 1.0F);
        QCOMPARE(pm::pow(kInf, -1.0F), 0.0F);
        QCOMPARE(pm::pow(-kInf, 3.0F), -kInf);
        QCOMPARE(pm::pow(2.0F, 10.0F), 1024.0F);
        QCOMPARE(pm::pow(10.0F, -3.0F), 0.001F);
    }
};

QTEST_APPLESS_MAIN(TestPortableMath)
#include "test_portable_math.moc"
