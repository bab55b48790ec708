// Random::fillNormal(): Box–Muller over blocks of pairs in float32, vectorisable.
//
// The uniform bits are drawn one next() per pair, in order (the only sequential part). The rest
// is a loop GCC vectorises (built with -fno-math-errno -fno-trapping-math): u1 in (0, 1) from the
// high 31 bits, -ln u1 by exponent/mantissa split and a polynomial for ln on
// [sqrt(1/2), sqrt(2)) (Cephes' logf coefficients, about 1 ulp), θ reduced exactly in integers to
// a quadrant and an angle in [-π/4, π/4] whose sine and cosine are polynomials (Cephes' sinf and
// cosf coefficients), then rotated by the quadrant. Every operation is an IEEE float32 operation
// without contraction, so the values do not depend on the machine.
#include "engine/tensor/random.hpp"

#include <algorithm>
#include <bit>

namespace spike::engine {

namespace {

constexpr std::int64_t kPairsPerBlock = 512;

/// ln(x) for finite x > 0 (normal numbers), float32.
inline float logPositive(float x)
{
    const auto bits = std::bit_cast<std::uint32_t>(x);
    auto e = static_cast<std::int32_t>(bits >> 23U) - 126;
    // Mantissa scaled into [0.5, 1).
    float m = std::bit_cast<float>((bits & 0x007FFFFFU) | 0x3F000000U);
    const bool low = m < 0.707106781186547524F;
    e = low ? e - 1 : e;
    m = low ? (m + m) - 1.0F : m - 1.0F;
    const float z = m * m;
    float y = 7.0376836292E-2F;
    y = y * m + -1.1514610310E-1F;
    y = y * m + 1.1676998740E-1F;
    y = y * m + -1.2420140846E-1F;
    y = y * m + 1.4249322787E-1F;
    y = y * m + -1.6668057665E-1F;
    y = y * m + 2.0000714765E-1F;
    y = y * m + -2.4999993993E-1F;
    y = y * m + 3.3333331174E-1F;
    y = y * m * z;
    const auto ef = static_cast<float>(e);
    y = y + -2.12194440E-4F * ef;
    y = y + -0.5F * z;
    return (m + y) + 0.693359375F * ef;
}

/// One block: z[2p] = r cos θ, z[2p + 1] = r sin θ for p < pairs.
void boxMuller(const std::uint64_t* __restrict bits, std::int64_t pairs, float* __restrict z)
{
    constexpr float kTwoPiOver2To24 = 6.28318530717958647692F / 16777216.0F;
    for (std::int64_t p = 0; p < pairs; ++p) {
        const std::uint64_t b = bits[p];
        // u1 = (k + 0.5) 2^-31 with k the high 31 bits: never 0, at most 1.
        const auto k = static_cast<std::int32_t>(b >> 33U);
        const float u1 = (static_cast<float>(k) + 0.5F) * 4.656612873077392578125E-10F;
        const float r = std::sqrt(-2.0F * logPositive(u1));
        // θ = 2π j 2^-24: quadrant q = round(4 j 2^-24), angle x = 2π (j - q 2^22) 2^-24.
        const auto j = static_cast<std::int32_t>(b & 0xFFFFFFU);
        const std::int32_t q = (j + (1 << 21)) >> 22;
        const float x = static_cast<float>(j - (q << 22)) * kTwoPiOver2To24;
        const float x2 = x * x;
        float sp = -1.9515295891E-4F;
        sp = sp * x2 + 8.3321608736E-3F;
        sp = sp * x2 + -1.6666654611E-1F;
        const float sinX = (sp * x2) * x + x;
        float cp = 2.443315711809948E-5F;
        cp = cp * x2 + -1.388731625493765E-3F;
        cp = cp * x2 + 4.166664568298827E-2F;
        const float cosX = ((cp * x2) * x2 - 0.5F * x2) + 1.0F;
        // Rotate by q quarter turns: (cos, sin) of θ.
        const std::int32_t quadrant = q & 3;
        const float c = quadrant == 0 ? cosX : quadrant == 1 ? -sinX : quadrant == 2 ? -cosX : sinX;
        const float s = quadrant == 0 ? sinX : quadrant == 1 ? cosX : quadrant == 2 ? -sinX : -cosX;
        z[2 * p] = r * c;
        z[2 * p + 1] = r * s;
    }
}

}  // namespace

void Random::fillNormal(float* out, std::int64_t n, float scale)
{
    std::int64_t i = 0;
    if (n > 0 && m_hasSpareFloat) {
        out[i++] = scale * m_spareFloat;
        m_hasSpareFloat = false;
    }
    if (i >= n) {
        return;
    }
    const std::int64_t block = std::min<std::int64_t>(kPairsPerBlock, (n - i + 1) / 2);
    if (static_cast<std::int64_t>(m_bits.size()) < block) {
        m_bits.resize(static_cast<std::size_t>(block));
        m_z.resize(static_cast<std::size_t>(2 * block));
    }
    while (i < n) {
        const std::int64_t pairs = std::min<std::int64_t>(block, (n - i + 1) / 2);
        for (std::int64_t p = 0; p < pairs; ++p) {
            m_bits[static_cast<std::size_t>(p)] = next();
        }
        boxMuller(m_bits.data(), pairs, m_z.data());
        const std::int64_t values = std::min<std::int64_t>(2 * pairs, n - i);
        float* __restrict dst = out + i;
        const float* __restrict z = m_z.data();
        for (std::int64_t k = 0; k < values; ++k) {
            dst[k] = scale * z[k];
        }
        i += values;
        if (values < 2 * pairs) {
            m_spareFloat = m_z[static_cast<std::size_t>(2 * pairs - 1)];
            m_hasSpareFloat = true;
        }
    }
}

}  // namespace spike::engine
