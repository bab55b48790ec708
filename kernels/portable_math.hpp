// Transcendental functions of float values that give the same bits on the host and on a CUDA
// device: each is computed in double precision from +, -, *, /, sqrt, floor, fmod and exponent bit
// manipulation only (all exactly specified by IEEE 754 and therefore identical on both), then
// rounded once to float. glibc's expf and CUDA's expf are each accurate to an ulp or two but round
// differently, so a model using them drifted apart on a real GPU by an ulp per step (issue #17's
// hardware run, docs/backends.md); with these both backends compute the same value, and the double
// evaluation (relative error about 1e-16) makes the float result the correctly rounded one in all
// but a vanishing fraction of arguments.
//
// Callers build without FMA contraction (-ffp-contract=off, nvcc --fmad=false), as for
// lif_math.hpp. Pure functions; any thread.
//
// Accuracy limits (tested in tests/test_portable_math.cpp against glibc's double functions):
// sin, cos and tan reduce their argument with a three-part pi/2, exact for |x| < 1.6e6; beyond
// 2^20 the argument is first reduced modulo a double 2 pi, so there the result is deterministic
// but no longer the sine of x itself.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define SPIKE_PM_HD __host__ __device__ inline
#else
#define SPIKE_PM_HD inline
#endif

namespace spike::kernels::pm {

SPIKE_PM_HD std::uint64_t bitsOf(double x)
{
#if defined(__CUDA_ARCH__)
    return static_cast<std::uint64_t>(__double_as_longlong(x));
#else
    std::uint64_t b = 0;
    std::memcpy(&b, &x, sizeof b);
    return b;
#endif
}

SPIKE_PM_HD double fromBits(std::uint64_t b)
{
#if defined(__CUDA_ARCH__)
    return __longlong_as_double(static_cast<long long>(b));
#else
    double x = 0.0;
    std::memcpy(&x, &b, sizeof x);
    return x;
#endif
}

/// c0 + x (c1 + x (c2 + ...)), evaluated innermost first (cn x + cn-1, then times x plus cn-2,
/// ...), one rounding per operation in that order on every platform.
SPIKE_PM_HD double horner(double /*x*/, double c) { return c; }

template <typename... Rest>
SPIKE_PM_HD double horner(double x, double c, Rest... rest)
{
    return horner(x, rest...) * x + c;
}

constexpr double kLn2Hi = 6.93147180369123816490e-01;  ///< ln 2, high part (k * hi exact, |k| < 2^11)
constexpr double kLn2Lo = 1.90821492927058770002e-10;  ///< ln 2 - kLn2Hi
constexpr double kLn2 = 6.93147180559945309417e-01;
constexpr double kLog2e = 1.44269504088896338700e+00;
constexpr double kPi = 3.14159265358979311600e+00;
constexpr double kPiOver2 = 1.57079632679489655800e+00;
constexpr double kPiOver6 = 5.23598775598298815659e-01;
constexpr double kTwoOverPi = 6.36619772367581382433e-01;
constexpr double kPio2Part1 = 1.57079632673412561417e+00;  ///< first 33 bits of pi/2
constexpr double kPio2Part2 = 6.07710050630396597660e-11;  ///< next 33 bits
constexpr double kPio2Part3 = 2.02226624871116645580e-21;  ///< next 33 bits
constexpr double kSqrt3 = 1.73205080756887719318e+00;
constexpr double kTanPiOver12 = 2.67949192431122706473e-01;  ///< 2 - sqrt(3)
constexpr double kSqrtHalf = 7.07106781186547524401e-01;
constexpr double kInvLn10 = 4.34294481903251827651e-01;
constexpr double kExpClamp = 120.0;  ///< exp of anything past +-120 is 0 or inf in float

/// e^y for |y| <= 120 (callers clamp; NaN passes through). 2^k * e^r with |r| <= ln2 / 2 and
/// a degree-12 Taylor polynomial (truncation below 2e-16).
SPIKE_PM_HD double expClamped(double y)
{
    const double k = floor(y * kLog2e + 0.5);
    const double r = (y - k * kLn2Hi) - k * kLn2Lo;
    const double p = horner(r, 1.0, 1.0, 0.5, 1.0 / 6.0, 1.0 / 24.0, 1.0 / 120.0, 1.0 / 720.0,
                            1.0 / 5040.0, 1.0 / 40320.0, 1.0 / 362880.0, 1.0 / 3628800.0,
                            1.0 / 39916800.0, 1.0 / 479001600.0);  // Taylor to r^12 / 12!
    const auto e = static_cast<std::int64_t>(k) + 1023;
    return p * fromBits(static_cast<std::uint64_t>(e) << 52);
}

/// e^y in double for any y (NaN stays NaN; beyond +-120 the float result is already 0 or inf).
SPIKE_PM_HD double expD(double y)
{
    if (y != y) {
        return y;
    }
    if (y > kExpClamp) {
        return HUGE_VAL;
    }
    if (y < -kExpClamp) {
        return 0.0;
    }
    return expClamped(y);
}

/// e^y - 1 in double, accurate near 0 (Taylor below |y| = 0.35).
SPIKE_PM_HD double expm1D(double y)
{
    if (y != y) {
        return y;
    }
    if (fabs(y) < 0.35) {
        const double p = horner(y, 1.0, 0.5, 1.0 / 6.0, 1.0 / 24.0, 1.0 / 120.0, 1.0 / 720.0,
                                1.0 / 5040.0, 1.0 / 40320.0, 1.0 / 362880.0, 1.0 / 3628800.0,
                                1.0 / 39916800.0, 1.0 / 479001600.0, 1.0 / 6227020800.0,
                                1.0 / 87178291200.0);  // (e^y - 1) / y to y^13 / 14!
        return p * y;
    }
    return expD(y) - 1.0;
}

/// ln x in double for a positive, finite, normal double x: x = m 2^e with m in
/// [sqrt(1/2), sqrt(2)), ln m = 2 atanh(s), s = (m - 1) / (m + 1), |s| <= 0.172.
SPIKE_PM_HD double logPositive(double x)
{
    const std::uint64_t b = bitsOf(x);
    auto e = static_cast<std::int64_t>((b >> 52) & 0x7FF) - 1023;
    double m = fromBits((b & 0x000FFFFFFFFFFFFFULL) | 0x3FF0000000000000ULL);  // [1, 2)
    if (m > 2.0 * kSqrtHalf) {
        m = m * 0.5;
        e += 1;
    }
    const double s = (m - 1.0) / (m + 1.0);
    const double s2 = s * s;
    const double p = horner(s2, 1.0, 1.0 / 3.0, 1.0 / 5.0, 1.0 / 7.0, 1.0 / 9.0, 1.0 / 11.0, 1.0 / 13.0,
                            1.0 / 15.0, 1.0 / 17.0, 1.0 / 19.0, 1.0 / 21.0, 1.0 / 23.0);
    return static_cast<double>(e) * kLn2 + 2.0 * s * p;
}

/// ln x in double, with the special values of log: NaN below 0, -inf at 0, inf at inf.
/// x comes from a float, so it is normal in double unless 0 or not finite.
SPIKE_PM_HD double logD(double x)
{
    if (x != x || x < 0.0) {
        return x < 0.0 ? NAN : x;
    }
    if (x == 0.0) {
        return -HUGE_VAL;
    }
    if (x == HUGE_VAL) {
        return x;
    }
    return logPositive(x);
}

/// sin and cos of r for |r| <= pi/4 (Taylor to r^17 and r^18).
SPIKE_PM_HD double sinKernel(double r)
{
    const double r2 = r * r;
    const double p = horner(r2, -1.0 / 6.0, 1.0 / 120.0, -1.0 / 5040.0, 1.0 / 362880.0,
                            -1.0 / 39916800.0, 1.0 / 6227020800.0, -1.0 / 1307674368000.0,
                            1.0 / 355687428096000.0);  // to r^17 / 17!
    return r + r * r2 * p;
}

SPIKE_PM_HD double cosKernel(double r)
{
    const double r2 = r * r;
    const double p = horner(r2, 0.5, -1.0 / 24.0, 1.0 / 720.0, -1.0 / 40320.0, 1.0 / 3628800.0,
                            -1.0 / 479001600.0, 1.0 / 87178291200.0, -1.0 / 20922789888000.0,
                            1.0 / 6402373705728000.0);  // to r^18 / 18!
    return 1.0 - r2 * p;
}

/// x = q pi/2 + r with |r| <= pi/4 (about); returns r and the quadrant q in 0..3.
SPIKE_PM_HD double reduceQuarterPi(double x, int* quadrant)
{
    if (fabs(x) > 1048576.0) {
        x = fmod(x, 4.0 * kPiOver2);  // exact, so identical everywhere; see the header
    }
    const double k = floor(x * kTwoOverPi + 0.5);
    *quadrant = static_cast<int>(static_cast<std::int64_t>(k) & 3);
    return ((x - k * kPio2Part1) - k * kPio2Part2) - k * kPio2Part3;
}

/// arctan t for |t| <= tan(pi/12) (alternating series to t^29).
SPIKE_PM_HD double atanKernel(double t)
{
    const double t2 = t * t;
    const double p = horner(t2, 1.0 / 3.0, -1.0 / 5.0, 1.0 / 7.0, -1.0 / 9.0, 1.0 / 11.0, -1.0 / 13.0,
                            1.0 / 15.0, -1.0 / 17.0, 1.0 / 19.0, -1.0 / 21.0, 1.0 / 23.0, -1.0 / 25.0,
                            1.0 / 27.0, -1.0 / 29.0);  // to t^29 / 29
    return t - t * t2 * p;
}

SPIKE_PM_HD double atanD(double x)
{
    if (x != x) {
        return x;
    }
    double a = fabs(x);
    const bool inverted = a > 1.0;
    if (inverted) {
        a = 1.0 / a;
    }
    double r = 0.0;
    if (a > kTanPiOver12) {
        r = kPiOver6 + atanKernel((a * kSqrt3 - 1.0) / (kSqrt3 + a));
    } else {
        r = atanKernel(a);
    }
    if (inverted) {
        r = kPiOver2 - r;
    }
    return x < 0.0 ? -r : r;
}

/// arcsin for |x| <= 1 (NaN outside).
SPIKE_PM_HD double asinD(double x)
{
    if (!(fabs(x) <= 1.0)) {
        return NAN;
    }
    if (fabs(x) == 1.0) {
        return x * kPiOver2;
    }
    return atanD(x / sqrt((1.0 - x) * (1.0 + x)));
}

// ---- the float functions the equation instructions use -----------------------------------

SPIKE_PM_HD float exp(float x) { return static_cast<float>(expD(x)); }

SPIKE_PM_HD float log(float x) { return static_cast<float>(logD(x)); }

SPIKE_PM_HD float log10(float x) { return static_cast<float>(logD(x) * kInvLn10); }

/// (e^x - 1) / x, 1 at x = 0 (Brian2's exprel).
SPIKE_PM_HD float exprel(float x)
{
    if (x == 0.0F) {
        return 1.0F;
    }
    return static_cast<float>(expm1D(x) / static_cast<double>(x));
}

SPIKE_PM_HD float sin(float x)
{
    if (!(fabsf(x) <= 3.4e38F)) {
        return NAN;  // NaN or +-inf
    }
    int q = 0;
    const double r = reduceQuarterPi(x, &q);
    const double v = (q & 1) == 0 ? sinKernel(r) : cosKernel(r);
    return static_cast<float>(q >= 2 ? -v : v);
}

SPIKE_PM_HD float cos(float x)
{
    if (!(fabsf(x) <= 3.4e38F)) {
        return NAN;
    }
    int q = 0;
    const double r = reduceQuarterPi(x, &q);
    const double v = (q & 1) == 0 ? cosKernel(r) : sinKernel(r);
    return static_cast<float>((q == 1 || q == 2) ? -v : v);
}

SPIKE_PM_HD float tan(float x)
{
    if (!(fabsf(x) <= 3.4e38F)) {
        return NAN;
    }
    int q = 0;
    const double r = reduceQuarterPi(x, &q);
    const double s = sinKernel(r);
    const double c = cosKernel(r);
    return static_cast<float>((q & 1) == 0 ? s / c : -c / s);
}

SPIKE_PM_HD float sinh(float x)
{
    const double d = x;
    if (fabs(d) < 0.35) {
        const double d2 = d * d;
        const double p = horner(d2, 1.0 / 6.0, 1.0 / 120.0, 1.0 / 5040.0, 1.0 / 362880.0,
                                1.0 / 39916800.0, 1.0 / 6227020800.0, 1.0 / 1307674368000.0);
        return static_cast<float>(d + d * d2 * p);
    }
    const double e = expD(fabs(d));
    const double v = 0.5 * (e - 1.0 / e);
    return static_cast<float>(d < 0.0 ? -v : v);
}

SPIKE_PM_HD float cosh(float x)
{
    const double e = expD(fabs(static_cast<double>(x)));
    return static_cast<float>(0.5 * (e + 1.0 / e));
}

SPIKE_PM_HD float tanh(float x)
{
    const double d = x;
    if (d != d) {
        return x;
    }
    if (fabs(d) > 20.0) {
        return d > 0.0 ? 1.0F : -1.0F;
    }
    const double e = expm1D(2.0 * d);
    return static_cast<float>(e / (e + 2.0));
}

SPIKE_PM_HD float asin(float x) { return static_cast<float>(asinD(x)); }

SPIKE_PM_HD float acos(float x)
{
    const double d = x;
    if (!(fabs(d) <= 1.0)) {
        return NAN;
    }
    if (d > 0.5) {
        return static_cast<float>(2.0 * asinD(sqrt((1.0 - d) * 0.5)));
    }
    if (d < -0.5) {
        return static_cast<float>(kPi - 2.0 * asinD(sqrt((1.0 + d) * 0.5)));
    }
    return static_cast<float>(kPiOver2 - asinD(d));
}

SPIKE_PM_HD float atan(float x) { return static_cast<float>(atanD(x)); }

/// a ** b with C's powf special cases (pow(x, 0) = 1, pow(1, y) = 1, a negative base needs an
/// integer exponent, signed zeros and infinities for odd integer exponents).
SPIKE_PM_HD float pow(float a, float b)
{
    if (b == 0.0F || a == 1.0F) {
        return 1.0F;
    }
    if (a != a || b != b) {
        return NAN;
    }
    const double bd = b;
    const bool integer = floor(bd) == bd;
    const bool odd = integer && fabs(bd) < 16777216.0 && floor(bd * 0.5) * 2.0 != bd;
    const double ad = a;
    if (ad < 0.0 && !integer) {
        return NAN;
    }
    if (ad == -1.0 && !(fabs(bd) < HUGE_VAL)) {
        return 1.0F;  // (-1) ** +-inf
    }
    double magnitude = 0.0;
    if (integer && fabs(bd) <= 64.0 && ad != 0.0) {
        // Whole powers by repeated squaring in double: exact results (2^10, 3^2) stay exact.
        double base = fabs(ad);
        auto n = static_cast<int>(fabs(bd));
        magnitude = 1.0;
        while (n > 0) {
            if ((n & 1) != 0) {
                magnitude *= base;
            }
            base *= base;
            n >>= 1;
        }
        if (bd < 0.0) {
            magnitude = 1.0 / magnitude;
        }
    } else if (ad == 0.0) {
        magnitude = bd < 0.0 ? HUGE_VAL : 0.0;
    } else {
        const double l = logD(fabs(ad));
        const double y = bd * l;
        magnitude = (l == 0.0) ? 1.0 : expD(y);
    }
    const bool negative = odd && (bitsOf(ad) >> 63) != 0;  // a < 0, or a = -0
    return static_cast<float>(negative ? -magnitude : magnitude);
}

}  // namespace spike::kernels::pm
