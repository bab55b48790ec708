// Nullclines (sign changes on a fine grid refined by bisection, joined by marching squares) and
// fixed points (Newton on least-squares fits, multipliers, stability) of a PhaseMap
// (phase_geometry.hpp). Thread: whichever thread calls it.
#include "engine/analysis/phase_geometry.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace spike::engine {

namespace {

/// Bisection rounds per nullcline crossing.
constexpr int kBisections = 30;
/// Newton iterations per fixed-point seed, and the stencil fitted in each.
constexpr int kNewtonIterations = 8;
constexpr int kStencil = 21;
/// Fixed-point seeds followed at most.
constexpr std::size_t kMaxSeeds = 256;

/// One grid edge with a sign change of one component, refined by bisection.
struct Crossing {
    PhasePoint lo;   ///< end with value < 0
    PhasePoint hi;   ///< end with value >= 0
};

/// Refines every crossing of component `c` (0: dx, 1: dy) in place; returns the points.
std::vector<PhasePoint> bisect(const PhaseMap& map, std::vector<Crossing>& edges, int c)
{
    for (int round = 0; round < kBisections && !edges.empty(); ++round) {
        std::vector<PhasePoint> mids;
        mids.reserve(edges.size());
        for (const Crossing& e : edges) {
            mids.push_back({0.5 * (e.lo.x + e.hi.x), 0.5 * (e.lo.y + e.hi.y)});
        }
        const PhaseSamples v = map.evaluate(mids);
        for (std::size_t i = 0; i < edges.size(); ++i) {
            const double f = c == 0 ? v.dx[i] : v.dy[i];
            (f >= 0.0 ? edges[i].hi : edges[i].lo) = mids[i];
        }
    }
    std::vector<PhasePoint> out;
    out.reserve(edges.size());
    for (const Crossing& e : edges) {
        out.push_back({0.5 * (e.lo.x + e.hi.x), 0.5 * (e.lo.y + e.hi.y)});
    }
    return out;
}

/// The fine grid's values and the nullcline machinery over it.
class FineGrid {
public:
    FineGrid(const PhaseMap& map, const PhasePlaneOptions& o, bool resetExcludes)
        : m_map(map), m_n(o.nullclineResolution)
    {
        std::vector<PhasePoint> points;
        points.reserve(static_cast<std::size_t>(m_n * m_n));
        for (std::int64_t i = 0; i < m_n; ++i) {
            for (std::int64_t j = 0; j < m_n; ++j) {
                points.push_back({phaseGridValue(o.xMin, o.xMax, i, m_n), phaseGridValue(o.yMin, o.yMax, j, m_n)});
            }
        }
        m_values = map.evaluate(points);
        m_valid.resize(points.size());
        for (std::size_t i = 0; i < points.size(); ++i) {
            m_valid[i] = !(resetExcludes && m_values.spiked[i] != 0);
            if (m_valid[i] == 0) {
                ++excluded;
            }
        }
        m_cellX = (o.xMax - o.xMin) / static_cast<double>(m_n - 1);
        m_cellY = (o.yMax - o.yMin) / static_cast<double>(m_n - 1);
    }

    std::int64_t excluded = 0;

    double cellX() const { return m_cellX; }
    double cellY() const { return m_cellY; }

    /// The nullcline of component c as segments; marks in `crossed` the cells it passes.
    std::vector<PhaseSegment> nullcline(int c, std::vector<char>& crossed) const
    {
        const std::int64_t n = m_n;
        const std::int64_t edgesPerKind = n * (n - 1);
        // Edge ids: horizontal (i, j)-(i + 1, j) is i * n + j; vertical (i, j)-(i, j + 1) is
        // edgesPerKind + i * (n - 1) + j.
        std::vector<std::int32_t> index(static_cast<std::size_t>(2 * edgesPerKind), -1);
        std::vector<Crossing> edges;
        auto consider = [&](std::int64_t a, std::int64_t b, std::int64_t id) {
            if (!valid(a) || !valid(b) || positive(c, a) == positive(c, b)) {
                return;
            }
            index[static_cast<std::size_t>(id)] = static_cast<std::int32_t>(edges.size());
            edges.push_back(positive(c, a) ? Crossing{point(b), point(a)}
                                           : Crossing{point(a), point(b)});
        };
        for (std::int64_t i = 0; i < n; ++i) {
            for (std::int64_t j = 0; j < n; ++j) {
                if (i + 1 < n) {
                    consider(at(i, j), at(i + 1, j), i * n + j);
                }
                if (j + 1 < n) {
                    consider(at(i, j), at(i, j + 1), edgesPerKind + i * (n - 1) + j);
                }
            }
        }
        const std::vector<PhasePoint> where = bisect(m_map, edges, c);
        std::vector<PhaseSegment> out;
        crossed.assign(static_cast<std::size_t>((n - 1) * (n - 1)), 0);
        for (std::int64_t i = 0; i + 1 < n; ++i) {
            for (std::int64_t j = 0; j + 1 < n; ++j) {
                const std::int64_t c00 = at(i, j);
                const std::int64_t c10 = at(i + 1, j);
                const std::int64_t c11 = at(i + 1, j + 1);
                const std::int64_t c01 = at(i, j + 1);
                if (!valid(c00) || !valid(c10) || !valid(c11) || !valid(c01)) {
                    continue;
                }
                // Around the cell: bottom, right, top, left.
                const std::array<std::int32_t, 4> e{
                    index[static_cast<std::size_t>(i * n + j)],
                    index[static_cast<std::size_t>(edgesPerKind + (i + 1) * (n - 1) + j)],
                    index[static_cast<std::size_t>(i * n + j + 1)],
                    index[static_cast<std::size_t>(edgesPerKind + i * (n - 1) + j)]};
                std::vector<std::int32_t> hit;
                for (std::int32_t k : e) {
                    if (k >= 0) {
                        hit.push_back(k);
                    }
                }
                if (hit.empty()) {
                    continue;
                }
                crossed[static_cast<std::size_t>(i * (n - 1) + j)] = 1;
                auto seg = [&](std::int32_t a, std::int32_t b) {
                    out.push_back({where[static_cast<std::size_t>(a)],
                                   where[static_cast<std::size_t>(b)]});
                };
                if (hit.size() == 2) {
                    seg(hit[0], hit[1]);
                } else if (hit.size() == 4) {
                    const double centre =
                        0.25 * (value(c, c00) + value(c, c10) + value(c, c11) + value(c, c01));
                    if ((centre >= 0.0) == positive(c, c00)) {
                        seg(e[0], e[1]);  // c10 cut off
                        seg(e[3], e[2]);  // c01 cut off
                    } else {
                        seg(e[0], e[3]);  // c00 cut off
                        seg(e[1], e[2]);  // c11 cut off
                    }
                }
            }
        }
        return out;
    }

    /// Centre of cell (i, j) by its index i * (n - 1) + j.
    PhasePoint cellCentre(std::int64_t cell) const
    {
        const std::int64_t i = cell / (m_n - 1);
        const std::int64_t j = cell % (m_n - 1);
        const PhasePoint a = point(at(i, j));
        const PhasePoint b = point(at(i + 1, j + 1));
        return {0.5 * (a.x + b.x), 0.5 * (a.y + b.y)};
    }

private:
    std::int64_t at(std::int64_t i, std::int64_t j) const { return i * m_n + j; }
    bool valid(std::int64_t p) const { return m_valid[static_cast<std::size_t>(p)] != 0; }
    double value(int c, std::int64_t p) const
    {
        return c == 0 ? m_values.dx[static_cast<std::size_t>(p)]
                      : m_values.dy[static_cast<std::size_t>(p)];
    }
    bool positive(int c, std::int64_t p) const { return value(c, p) >= 0.0; }
    PhasePoint point(std::int64_t p) const
    {
        return {m_values.x[static_cast<std::size_t>(p)], m_values.y[static_cast<std::size_t>(p)]};
    }

    const PhaseMap& m_map;
    std::int64_t m_n;
    PhaseSamples m_values;
    std::vector<char> m_valid;
    double m_cellX = 0.0;
    double m_cellY = 0.0;
};

/// Least-squares fit of f over the stencil: f ~ c0 + c1 u + c2 v + c3 u^2 + c4 u v + c5 v^2
/// with u, v the offsets from the centre scaled by the stencil's half-widths.
std::array<double, 6> fitQuadratic(const std::vector<double>& u, const std::vector<double>& v,
                                   const std::vector<double>& f, std::size_t first,
                                   std::size_t count)
{
    constexpr int kTerms = 6;
    std::array<std::array<double, kTerms + 1>, kTerms> a{};
    for (std::size_t s = first; s < first + count; ++s) {
        const std::array<double, kTerms> b{1.0, u[s], v[s], u[s] * u[s], u[s] * v[s], v[s] * v[s]};
        for (int r = 0; r < kTerms; ++r) {
            for (int q = 0; q < kTerms; ++q) {
                a[r][q] += b[r] * b[q];
            }
            a[r][kTerms] += b[r] * f[s];
        }
    }
    for (int col = 0; col < kTerms; ++col) {  // Gauss-Jordan with partial pivoting
        int pivot = col;
        for (int r = col + 1; r < kTerms; ++r) {
            if (std::abs(a[r][col]) > std::abs(a[pivot][col])) {
                pivot = r;
            }
        }
        std::swap(a[col], a[pivot]);
        for (int r = 0; r < kTerms; ++r) {
            if (r != col && a[col][col] != 0.0) {
                const double factor = a[r][col] / a[col][col];
                for (int q = col; q <= kTerms; ++q) {
                    a[r][q] -= factor * a[col][q];
                }
            }
        }
    }
    std::array<double, kTerms> out{};
    for (int r = 0; r < kTerms; ++r) {
        out[r] = a[r][r] != 0.0 ? a[r][kTerms] / a[r][r] : 0.0;
    }
    return out;
}

/// Multipliers and the stability label of a one-step Jacobian.
void classify(PhaseFixedPoint& p)
{
    const auto& j = p.jacobian;
    const double half = 0.5 * (j[0] + j[3]);
    const double det = j[0] * j[3] - j[1] * j[2];
    const double disc = half * half - det;
    if (disc >= 0.0) {
        const double root = std::sqrt(disc);
        p.multipliers = {{{half + root, 0.0}, {half - root, 0.0}}};
    } else {
        const double root = std::sqrt(-disc);
        p.multipliers = {{{half, root}, {half, -root}}};
    }
    constexpr double kMargin = 1e-9;
    int inside = 0;
    int outside = 0;
    for (const auto& m : p.multipliers) {
        const double modulus = std::hypot(m[0], m[1]);
        inside += modulus < 1.0 - kMargin ? 1 : 0;
        outside += modulus > 1.0 + kMargin ? 1 : 0;
    }
    p.stability = inside == 2 ? "stable" : outside == 2 ? "unstable"
                                 : inside == 1 && outside == 1 ? "saddle" : "marginal";
}

/// Newton from every seed (batched); the converged fixed points inside the range, merged.
std::vector<PhaseFixedPoint> fixedPoints(const PhaseMap& map, std::vector<PhasePoint> seeds,
                                         const PhasePlaneOptions& o, double hx, double hy,
                                         bool resetExcludes)
{
    constexpr std::size_t kPer = kStencil * kStencil;
    std::vector<char> alive(seeds.size(), 1);
    std::vector<PhaseFixedPoint> found(seeds.size());
    std::vector<double> lastStep(seeds.size(), std::numeric_limits<double>::infinity());
    for (int it = 0; it < kNewtonIterations; ++it) {
        std::vector<PhasePoint> stencil;
        stencil.reserve(seeds.size() * kPer);
        for (const PhasePoint& s : seeds) {
            for (int a = 0; a < kStencil; ++a) {
                for (int b = 0; b < kStencil; ++b) {
                    stencil.push_back({s.x + hx * (2.0 * a / (kStencil - 1) - 1.0),
                                       s.y + hy * (2.0 * b / (kStencil - 1) - 1.0)});
                }
            }
        }
        const PhaseSamples v = map.evaluate(stencil);
        std::vector<double> u(v.x.size());
        std::vector<double> w(v.x.size());
        for (std::size_t s = 0; s < seeds.size(); ++s) {
            for (std::size_t q = s * kPer; q < (s + 1) * kPer; ++q) {
                u[q] = (v.x[q] - seeds[s].x) / hx;
                w[q] = (v.y[q] - seeds[s].y) / hy;
                if (resetExcludes && v.spiked[q] != 0) {
                    alive[s] = 0;
                }
            }
        }
        for (std::size_t s = 0; s < seeds.size(); ++s) {
            if (alive[s] == 0) {
                continue;
            }
            const auto fx = fitQuadratic(u, w, v.dx, s * kPer, kPer);
            const auto fy = fitQuadratic(u, w, v.dy, s * kPer, kPer);
            // dF/d(x, y) at the centre.
            const double a = fx[1] / hx;
            const double b = fx[2] / hy;
            const double c = fy[1] / hx;
            const double d = fy[2] / hy;
            const double det = a * d - b * c;
            if (!(std::abs(det) > 0.0) || !std::isfinite(det)) {
                alive[s] = 0;
                continue;
            }
            const double sx = (d * fx[0] - b * fy[0]) / det;
            const double sy = (a * fy[0] - c * fx[0]) / det;
            seeds[s].x -= sx;
            seeds[s].y -= sy;
            lastStep[s] = std::max(std::abs(sx) / hx, std::abs(sy) / hy);
            found[s].jacobian = {1.0 + a, b, c, 1.0 + d};
            if (!std::isfinite(seeds[s].x) || !std::isfinite(seeds[s].y)) {
                alive[s] = 0;
            }
        }
    }
    std::vector<PhaseFixedPoint> out;
    const double slackX = 1e-9 * (o.xMax - o.xMin);
    const double slackY = 1e-9 * (o.yMax - o.yMin);
    for (std::size_t s = 0; s < seeds.size(); ++s) {
        const PhasePoint p = seeds[s];
        if (alive[s] == 0 || lastStep[s] > 1e-3 || p.x < o.xMin - slackX ||
            p.x > o.xMax + slackX || p.y < o.yMin - slackY || p.y > o.yMax + slackY) {
            continue;
        }
        bool known = false;
        for (const PhaseFixedPoint& q : out) {
            known = known || (std::abs(q.x - p.x) < 3.0 * hx && std::abs(q.y - p.y) < 3.0 * hy);
        }
        if (known) {
            continue;
        }
        PhaseFixedPoint f = found[s];
        f.x = p.x;
        f.y = p.y;
        classify(f);
        out.push_back(f);
    }
    std::sort(out.begin(), out.end(),
              [](const PhaseFixedPoint& a, const PhaseFixedPoint& b) { return a.x < b.x; });
    return out;
}

}  // namespace

/// (lo (n - 1 - i) + hi i) / (n - 1): both ends exact.
double phaseGridValue(double lo, double hi, std::int64_t i, std::int64_t n)
{
    const auto n1 = static_cast<double>(n - 1);
    const auto id = static_cast<double>(i);
    return (lo * (n1 - id) + hi * id) / n1;
}

PhaseGeometry phaseGeometry(const PhaseMap& map, const PhasePlaneOptions& options,
                            bool resetExcludes)
{
    PhaseGeometry out;
    const FineGrid fine(map, options, resetExcludes);
    out.excludedPoints = fine.excluded;
    std::vector<char> xCells;
    std::vector<char> yCells;
    out.xNullcline = fine.nullcline(0, xCells);
    out.yNullcline = fine.nullcline(1, yCells);
    std::vector<PhasePoint> seeds;
    for (std::size_t c = 0; c < xCells.size(); ++c) {
        if (xCells[c] != 0 && yCells[c] != 0) {
            seeds.push_back(fine.cellCentre(static_cast<std::int64_t>(c)));
        }
    }
    if (seeds.size() > kMaxSeeds) {
        std::vector<PhasePoint> spread;
        for (std::size_t k = 0; k < kMaxSeeds; ++k) {
            spread.push_back(seeds[k * seeds.size() / kMaxSeeds]);
        }
        seeds = spread;
    }
    out.fixedPoints = fixedPoints(map, seeds, options, fine.cellX(), fine.cellY(), resetExcludes);
    return out;
}

}  // namespace spike::engine
