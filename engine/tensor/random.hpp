// Random: a small, fast, platform-independent random generator (xoshiro256** seeded through
// splitmix64) with uniform and Box–Muller normal draws. std::normal_distribution differs between
// standard libraries; this does not, so seeded runs are bit-reproducible everywhere.
// fillNormal() draws many float normals at once for per-step noise: one 64-bit draw per pair,
// and Box–Muller evaluated in plain float32 arithmetic (own log, sin and cos polynomials, no
// libm), so its loop vectorises and its values are the same on every IEEE machine.
// Not thread-safe: each module owns its own generator.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace spike::engine {

/// Deterministic pseudo-random generator.
class Random {
public:
    explicit Random(std::uint64_t seed = 0) { reseed(seed); }

    void reseed(std::uint64_t seed)
    {
        std::uint64_t x = seed;
        for (auto& s : m_s) {
            x += 0x9E3779B97F4A7C15ULL;
            std::uint64_t z = x;
            z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
            z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
            s = z ^ (z >> 31U);
        }
        m_hasSpare = false;
        m_hasSpareFloat = false;
    }

    std::uint64_t next()
    {
        const std::uint64_t result = rotl(m_s[1] * 5, 7) * 9;
        const std::uint64_t t = m_s[1] << 17U;
        m_s[2] ^= m_s[0];
        m_s[3] ^= m_s[1];
        m_s[1] ^= m_s[2];
        m_s[0] ^= m_s[3];
        m_s[2] ^= t;
        m_s[3] = rotl(m_s[3], 45);
        return result;
    }

    /// Uniform in [0, 1) with 53 random bits.
    double uniform() { return static_cast<double>(next() >> 11U) * 0x1.0p-53; }
    /// Uniform in [lo, hi).
    double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }

    /// Standard normal draw (Box–Muller, pairs cached).
    double normal()
    {
        if (m_hasSpare) {
            m_hasSpare = false;
            return m_spare;
        }
        double u1 = uniform();
        while (u1 <= 0.0) {
            u1 = uniform();
        }
        const double u2 = uniform();
        const double r = std::sqrt(-2.0 * std::log(u1));
        const double theta = 6.283185307179586476925 * u2;
        m_spare = r * std::sin(theta);
        m_hasSpare = true;
        return r * std::cos(theta);
    }

    /// out[k] = scale * z_k for k < n, z_k standard normal draws of the float stream: pairs
    /// (r cos θ, r sin θ) with u1 from the high 31 bits of one next() (r = sqrt(-2 ln u1), at
    /// most 6.65) and θ = 2π u2 from 24 of its low bits. Successive calls continue one stream (an
    /// odd n keeps the pair's second value for the next call), so filling n values at once or in
    /// any pieces gives the same values. Separate from normal()'s stream and spare.
    void fillNormal(float* out, std::int64_t n, float scale);

private:
    static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

    std::uint64_t m_s[4]{};
    double m_spare = 0.0;
    bool m_hasSpare = false;
    float m_spareFloat = 0.0F;
    bool m_hasSpareFloat = false;
    std::vector<std::uint64_t> m_bits;  ///< fillNormal's scratch (grows once, then reused)
    std::vector<float> m_z;             ///< fillNormal's scratch: z pairs
};

}  // namespace spike::engine
