// DenseProjection, OneToOneProjection and SparseProjection: registration, delivery kernels and
// SparseProjection's seeded connectivity draw. See projections.hpp for the equations, the ring
// layout of delayed deliveries and the cost per step. Thread: owned by whichever thread runs
// the module.
#include "engine/network/projections.hpp"

#include "engine/tensor/random.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace spike::engine {

namespace {

/// Whether any of x[0..n) is non-zero (NaN counts as non-zero). Branch-free so GCC vectorises it.
bool anyNonZero(const float* __restrict x, std::int64_t n)
{
    int any = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        any |= static_cast<int>(x[i] != 0.0F);
    }
    return any != 0;
}

/// Most synapses one SparseProjection may hold: 2^31 - 1, about 8 GiB of targets.
constexpr std::int64_t kMaxSynapses = std::numeric_limits<std::int32_t>::max();
/// Largest integer attribute value: float32 holds every integer up to 2^24 exactly.
constexpr double kMaxInteger = 16777216.0;
/// DenseProjection tiles: steps per tile (each weight row is read once per tile) and columns
/// per tile (the tile's output rows stay in L1).
constexpr std::int64_t kStepTile = 8;
constexpr std::int64_t kColumnTile = 512;

std::string shapeText(std::int64_t a, std::int64_t b)
{
    std::ostringstream os;
    os << "(" << a << ", " << b << ")";
    return os.str();
}

/// Rockpool LinearTorch's initialisation: Kaiming-uniform (gain sqrt(2)) with fan_in = Nsrc,
/// U(-sqrt(6 / Nsrc), sqrt(6 / Nsrc)), drawn from a generator seeded by the "seed" attribute.
InitFunction kaimingUniformInit(Shape shape, std::int64_t fanIn)
{
    return [shape, fanIn](const Module& m) -> AttributeValue {
        Random rng(static_cast<std::uint64_t>(m.tensor("seed")[0]) * 2654435761ULL +
                   0x44454E53ULL);  // "DENS"
        const double bound =
            std::sqrt(6.0 / static_cast<double>(std::max<std::int64_t>(fanIn, 1)));
        Tensor t(shape);
        for (std::int64_t i = 0; i < t.numel(); ++i) {
            t[i] = static_cast<float>(rng.uniform(-bound, bound));
        }
        return t;
    };
}

/// Shape of the delay ring: (delay, Ndst); (0, Ndst) without delay.
Shape ringShape(std::int64_t delay, std::int64_t nTarget)
{
    return Shape{delay, nTarget};
}

/// Empty when a ring of `delay` rows of `nTarget` values fits in one tensor, else the problem.
std::string ringTooLarge(std::int64_t delay, std::int64_t nTarget)
{
    if (delay > 0 && nTarget > Tensor::kMaxElements / delay) {
        return "attribute 'delay': " + std::to_string(delay) + " steps x " +
               std::to_string(nTarget) +
               " targets needs a ring of pending deliveries larger than the tensor limit "
               "(2^31 - 1 values)";
    }
    return {};
}

/// Uniform integer in [0, n) by multiply-shift (Lemire); bias below n / 2^64.
std::int64_t boundedIndex(Random& rng, std::uint64_t n)
{
    return static_cast<std::int64_t>((static_cast<unsigned __int128>(rng.next()) * n) >> 64U);
}

/// Generator key of a connectivity draw: one stream per (seed, rule).
std::uint64_t connectivityKey(std::uint64_t seed, std::uint64_t rule)
{
    return (seed * 0x9E3779B97F4A7C15ULL) ^ (0x535041525345ULL + rule);  // "SPARSE"
}

/// Rule "probability": each pair (i, j) independently with probability p. Per presynaptic row the
/// gaps between successive targets are geometric, gap = floor(log(u) / log(1 - p)), u in (0, 1],
/// so the draw costs O(Nsrc + synapses) and targets come out ascending.
void drawByProbability(std::int64_t nSrc, std::int64_t nDst, double p, bool exclude,
                       std::uint64_t key, std::vector<std::int64_t>& rowStart,
                       std::vector<std::int32_t>& targets)
{
    rowStart.assign(static_cast<std::size_t>(nSrc + 1), 0);
    if (p <= 0.0) {
        return;
    }
    const double pairs = static_cast<double>(nSrc) * static_cast<double>(nDst) -
                         (exclude ? static_cast<double>(nSrc) : 0.0);
    const double mean = p * pairs;
    targets.reserve(static_cast<std::size_t>(
        std::min(static_cast<double>(kMaxSynapses), mean + 6.0 * std::sqrt(mean) + 16.0)));
    Random rng(key);
    const double logQ = p < 1.0 ? std::log1p(-p) : 0.0;
    for (std::int64_t i = 0; i < nSrc; ++i) {
        std::int64_t j = -1;
        for (;;) {
            if (p < 1.0) {
                const double gap = std::floor(std::log(1.0 - rng.uniform()) / logQ);
                if (gap >= static_cast<double>(nDst - 1 - j)) {
                    break;
                }
                j += 1 + static_cast<std::int64_t>(gap);
            } else if (++j >= nDst) {
                break;
            }
            if (exclude && j == i) {
                continue;
            }
            if (static_cast<std::int64_t>(targets.size()) >= kMaxSynapses) {
                throw Error("SparseProjection: the draw exceeded 2^31 - 1 synapses; lower 'p'");
            }
            targets.push_back(static_cast<std::int32_t>(j));
        }
        rowStart[static_cast<std::size_t>(i + 1)] = static_cast<std::int64_t>(targets.size());
    }
}

/// Rule "in_degree": every target j draws k distinct sources (Floyd's algorithm over a pool of
/// Nsrc sources, or Nsrc - 1 when autapses are excluded: pool index s >= j stands for s + 1).
/// The draw is replayed twice from the same key, once to count synapses per source and once to
/// place them, so the transpose to CSR needs no temporary list of pairs: memory is the CSR plus
/// O(Nsrc), time O(Nsrc + synapses). Targets come out ascending because j is the outer loop.
void drawByInDegree(std::int64_t nSrc, std::int64_t nDst, std::int64_t k, bool exclude,
                    std::uint64_t key, std::vector<std::int64_t>& rowStart,
                    std::vector<std::int32_t>& targets)
{
    const std::int64_t pool = nSrc - (exclude ? 1 : 0);
    std::vector<std::uint32_t> stamp(static_cast<std::size_t>(std::max<std::int64_t>(pool, 0)));
    const auto replay = [&](auto&& visit) {
        Random rng(key);
        std::fill(stamp.begin(), stamp.end(), 0U);
        std::uint32_t generation = 0;
        for (std::int64_t j = 0; j < nDst; ++j) {
            ++generation;
            for (std::int64_t r = pool - k; r < pool; ++r) {
                std::int64_t s = boundedIndex(rng, static_cast<std::uint64_t>(r + 1));
                if (stamp[static_cast<std::size_t>(s)] == generation) {
                    s = r;
                }
                stamp[static_cast<std::size_t>(s)] = generation;
                visit(exclude && s >= j ? s + 1 : s, j);
            }
        }
    };
    rowStart.assign(static_cast<std::size_t>(nSrc + 1), 0);
    replay([&](std::int64_t s, std::int64_t) { ++rowStart[static_cast<std::size_t>(s + 1)]; });
    for (std::size_t i = 1; i < rowStart.size(); ++i) {
        rowStart[i] += rowStart[i - 1];
    }
    targets.resize(static_cast<std::size_t>(rowStart.back()));
    std::vector<std::int64_t> cursor(rowStart.begin(), rowStart.end() - 1);
    replay([&](std::int64_t s, std::int64_t j) {
        targets[static_cast<std::size_t>(cursor[static_cast<std::size_t>(s)]++)] =
            static_cast<std::int32_t>(j);
    });
}

}  // namespace

// ---- DenseProjection ---------------------------------------------------------------------

DenseProjection::DenseProjection(std::int64_t nSource, std::int64_t nTarget,
                                 const AttributeMap& initial)
    : Projection(nSource, nTarget, false)
{
    if (nSource > 0 && nTarget > Tensor::kMaxElements / nSource) {
        throw Error("DenseProjection: a " + shapeText(nSource, nTarget) +
                    " weight matrix is larger than the tensor limit (2^31 - 1 values)");
    }
    addAttribute(simulationParameter("seed").integer().range(0, kMaxInteger).initConstant(0.0F)
                     .live(false)
                     .doc("Seed of the weight initialisation (used by resetParameters)"));
    m_weight = addAttribute(parameter("weight").family("weights")
                                .shapes({Shape{nSource, nTarget}})
                                .init(kaimingUniformInit(Shape{nSource, nTarget}, nSource))
                                .doc("Weights (Nsrc, Ndst): post[t] += pre[t] @ weight"));
    finishRegistration(initial);
}

nlohmann::json DenseProjection::config() const
{
    return {{"shape", {sizeSource(), sizeTarget()}}};
}

std::string DenseProjection::extraRepr() const
{
    return "shape=" + shapeText(sizeSource(), sizeTarget());
}

void DenseProjection::deliver(const float* pre, std::int64_t preStride, std::int64_t steps,
                              float* post, std::int64_t postStride)
{
    const std::int64_t nSrc = sizeSource();
    const std::int64_t nDst = sizeTarget();
    const float* weights = value(m_weight).data();
    // Every output element sums its terms in ascending presynaptic order whatever the tiling,
    // so any chunking of the steps gives bit-identical rows.
    for (std::int64_t t0 = 0; t0 < steps; t0 += kStepTile) {
        const std::int64_t t1 = std::min(steps, t0 + kStepTile);
        for (std::int64_t j0 = 0; j0 < nDst; j0 += kColumnTile) {
            const std::int64_t width = std::min(nDst - j0, kColumnTile);
            for (std::int64_t i = 0; i < nSrc; ++i) {
                const float* __restrict w = weights + i * nDst + j0;
                for (std::int64_t t = t0; t < t1; ++t) {
                    const float x = pre[t * preStride + i];
                    if (x == 0.0F) {
                        continue;
                    }
                    float* __restrict y = post + t * postStride + j0;
                    for (std::int64_t j = 0; j < width; ++j) {
                        y[j] += x * w[j];
                    }
                }
            }
        }
    }
}

// ---- OneToOneProjection ------------------------------------------------------------------

OneToOneProjection::OneToOneProjection(std::int64_t n, const AttributeMap& initial)
    : Projection(n, n, false)
{
    m_weight = addAttribute(parameter("weight").family("weights").shapes({Shape{}, Shape{n}})
                                .initConstant(1.0F)
                                .doc("Weight per channel, or one for all: "
                                     "post[t] += weight * pre[t]"));
    finishRegistration(initial);
}

nlohmann::json OneToOneProjection::config() const
{
    return {{"shape", {sizeSource()}}};
}

std::string OneToOneProjection::extraRepr() const
{
    return "shape=(" + std::to_string(sizeSource()) + ",)";
}

void OneToOneProjection::deliver(const float* pre, std::int64_t preStride, std::int64_t steps,
                                 float* post, std::int64_t postStride)
{
    const std::int64_t n = sizeSource();
    const Tensor& weight = value(m_weight);
    const float* __restrict w = weight.data();
    const bool perChannel = weight.rank() == 1;
    for (std::int64_t t = 0; t < steps; ++t) {
        const float* __restrict x = pre + t * preStride;
        float* __restrict y = post + t * postStride;
        if (perChannel) {
            for (std::int64_t j = 0; j < n; ++j) {
                y[j] += w[j] * x[j];
            }
        } else {
            const float s = w[0];
            for (std::int64_t j = 0; j < n; ++j) {
                y[j] += s * x[j];
            }
        }
    }
}

// ---- SparseProjection --------------------------------------------------------------------

const std::vector<std::string>& SparseProjection::rules()
{
    static const std::vector<std::string> names{"probability", "in_degree"};
    return names;
}

SparseProjection::SparseProjection(std::int64_t nSource, std::int64_t nTarget,
                                   const AttributeMap& initial)
    : Projection(nSource, nTarget, true)
{
    constexpr std::int64_t kMaxChannels = std::numeric_limits<std::int32_t>::max();
    if (nSource > kMaxChannels || nTarget > kMaxChannels) {
        throw Error("SparseProjection: shape " + shapeText(nSource, nTarget) +
                    " has more than 2^31 - 1 sources or targets");
    }
    m_weight = addAttribute(parameter("weight").family("weights").initConstant(1.0F)
                                .doc("Weight of every synapse: "
                                     "post[t + delay][j] += pre[t][i] * weight"));
    m_delay = addAttribute(parameter("delay").family("delays").integer().range(0, kMaxInteger)
                               .units("steps").initConstant(0.0F).live(false)
                               .doc("Synaptic delay: input row t arrives in output row t + delay"));
    m_rule = addAttribute(simulationParameter("rule").choices(rules()).initEnum("in_degree")
                              .live(false)
                              .doc("Connectivity: each pair with probability p, or in_degree "
                                   "sources per target"));
    m_p = addAttribute(simulationParameter("p").range(0.0, 1.0).initConstant(0.1F).live(false)
                           .doc("Probability of each (source, target) synapse "
                                "(rule 'probability')"));
    m_inDegree = addAttribute(simulationParameter("in_degree").integer().range(0, kMaxInteger)
                                  .initConstant(1.0F).live(false)
                                  .doc("Distinct sources drawn per target (rule 'in_degree')"));
    m_seed = addAttribute(simulationParameter("seed").integer().range(0, kMaxInteger)
                              .initConstant(0.0F).live(false)
                              .doc("Seed of the connectivity draw (same settings, same synapses)"));
    m_autapses = addAttribute(simulationParameter("autapses").boolean().initConstant(1.0F)
                                  .live(false)
                                  .doc("Allow synapses i -> i (only matters when Nsrc = Ndst)"));
    m_pending = addAttribute(
        stateVariable("pending").family("synapses").shapes({})
            .init([](const Module& m) -> AttributeValue {
                const auto delay = static_cast<std::int64_t>(m.tensor("delay")[0]);
                const std::string problem = ringTooLarge(delay, m.sizeOut());
                if (!problem.empty()) {
                    throw Error(m.className() + ": " + problem);
                }
                return Tensor(ringShape(delay, m.sizeOut()));
            })
            .doc("Deliveries still to come: ring of (delay, Ndst) rows, (0, Ndst) without delay"));
    m_pendingHead = addAttribute(stateVariable("pending_head").family("synapses").integer()
                                     .range(0, kMaxInteger).initConstant(0.0F)
                                     .doc("Ring row delivered next (below max(delay, 1))"));
    finishRegistration(initial);
}

nlohmann::json SparseProjection::config() const
{
    return {{"shape", {sizeSource(), sizeTarget()}}};
}

std::string SparseProjection::extraRepr() const
{
    std::ostringstream os;
    os << "shape=" << shapeText(sizeSource(), sizeTarget()) << ", rule=" << enumValue(m_rule);
    if (enumValue(m_rule) == "probability") {
        os << ", p=" << value(m_p)[0];
    } else {
        os << ", in_degree=" << static_cast<std::int64_t>(value(m_inDegree)[0]);
    }
    os << ", synapses=" << synapseCount() << ", delay=" << delaySteps();
    return os.str();
}

float SparseProjection::weight() const
{
    return value(m_weight)[0];
}

std::int64_t SparseProjection::delaySteps() const
{
    return static_cast<std::int64_t>(value(m_delay)[0]);
}

Status SparseProjection::validateChange(const Lookup& proposed) const
{
    const auto number = [&](const char* name) { return std::get<Tensor>(proposed(name))[0]; };
    const std::int64_t nSrc = sizeSource();
    const std::int64_t nDst = sizeTarget();
    const auto delay = static_cast<std::int64_t>(number("delay"));
    if (const std::string problem = ringTooLarge(delay, nDst); !problem.empty()) {
        return Status::failure(where() + ": " + problem);
    }
    const bool exclude = number("autapses") == 0.0F && nSrc == nDst;
    if (std::get<std::string>(proposed("rule")) == "in_degree") {
        const auto k = static_cast<std::int64_t>(number("in_degree"));
        const std::int64_t most = nSrc - (exclude ? 1 : 0);
        if (k > most) {
            return Status::failure(
                where() + ": attribute 'in_degree': expected at most " + std::to_string(most) +
                (exclude ? " (the sources other than the target itself; autapses are off)"
                         : " (the number of sources)") +
                ", got " + std::to_string(k));
        }
        if (k > 0 && nDst > kMaxSynapses / k) {
            return Status::failure(where() + ": attribute 'in_degree': " + std::to_string(k) +
                                   " x " + std::to_string(nDst) +
                                   " targets is more than 2^31 - 1 synapses");
        }
    } else {
        const double p = number("p");
        const double pairs = static_cast<double>(nSrc) * static_cast<double>(nDst) -
                             (exclude ? static_cast<double>(nSrc) : 0.0);
        const double mean = p * pairs;
        if (mean + 6.0 * std::sqrt(mean * (1.0 - p)) > static_cast<double>(kMaxSynapses)) {
            return Status::failure(where() + ": attribute 'p': " + std::to_string(p) +
                                   " over " + shapeText(nSrc, nDst) + " gives about " +
                                   std::to_string(static_cast<std::int64_t>(mean)) +
                                   " synapses, more than 2^31 - 1");
        }
    }
    // The registry hands back the stored value itself for an attribute the change leaves out, so
    // an address comparison tells whether the change gives a new ring or head. A ring left out
    // is rebuilt empty by attributesChanged() when the delay changes its shape.
    const AttributeValue& pending = proposed("pending");
    const bool pendingGiven = &pending != &attribute("pending");
    const bool headGiven = &proposed("pending_head") != &attribute("pending_head");
    const Shape ring = ringShape(delay, nDst);
    if (pendingGiven && std::get<Tensor>(pending).shape() != ring) {
        return Status::failure(where() + ": attribute 'pending': expected shape " +
                               ring.toString() + " (delay, Ndst), got " +
                               std::get<Tensor>(pending).shape().toString());
    }
    const auto head = static_cast<std::int64_t>(number("pending_head"));
    if ((pendingGiven || headGiven) && head >= std::max<std::int64_t>(delay, 1)) {
        return Status::failure(where() + ": attribute 'pending_head': expected a ring row below " +
                               std::to_string(std::max<std::int64_t>(delay, 1)) +
                               " (max(delay, 1)), got " + std::to_string(head));
    }
    return Status::success();
}

void SparseProjection::attributesChanged()
{
    const std::int64_t delay = delaySteps();
    const Shape ring = ringShape(delay, sizeTarget());
    if (value(m_pending).shape() != ring) {
        stateRef(m_pending) = Tensor(ring);
        stateRef(m_pendingHead) = Tensor::scalar(0.0F);
    }
    if (static_cast<std::int64_t>(value(m_pendingHead)[0]) >= std::max<std::int64_t>(delay, 1)) {
        stateRef(m_pendingHead) = Tensor::scalar(0.0F);
    }
    Connectivity wanted;
    wanted.rule = enumValue(m_rule);
    if (wanted.rule == "probability") {
        wanted.p = value(m_p)[0];
    } else {
        wanted.inDegree = static_cast<std::int64_t>(value(m_inDegree)[0]);
    }
    wanted.seed = static_cast<std::uint64_t>(value(m_seed)[0]);
    wanted.autapses = value(m_autapses)[0] != 0.0F;
    if (m_builtWith.rule.empty() || !(wanted == m_builtWith)) {
        m_builtWith = wanted;
        m_built = false;
        m_rowStart = {};
        m_targets = {};
    }
}

void SparseProjection::ensureBuilt() const
{
    if (m_built) {
        return;
    }
    m_rowStart.clear();
    m_targets.clear();
    const std::int64_t nSrc = sizeSource();
    const std::int64_t nDst = sizeTarget();
    const bool exclude = !m_builtWith.autapses && nSrc == nDst;
    if (m_builtWith.rule == "probability") {
        drawByProbability(nSrc, nDst, m_builtWith.p, exclude,
                          connectivityKey(m_builtWith.seed, 0), m_rowStart, m_targets);
    } else {
        drawByInDegree(nSrc, nDst, m_builtWith.inDegree, exclude,
                       connectivityKey(m_builtWith.seed, 1), m_rowStart, m_targets);
    }
    m_built = true;
}

template <typename ScatterStep>
void SparseProjection::deliverSteps(std::int64_t steps, float* post, std::int64_t postStride,
                                    ScatterStep&& scatterStep)
{
    const std::int64_t nDst = sizeTarget();
    const std::int64_t delay = delaySteps();
    if (delay == 0) {
        for (std::int64_t t = 0; t < steps; ++t) {
            scatterStep(t, post + t * postStride);
        }
        return;
    }
    float* ring = stateRef(m_pending).data();
    Tensor& headState = stateRef(m_pendingHead);
    auto head = static_cast<std::int64_t>(headState[0]);
    for (std::int64_t t = 0; t < steps; ++t) {
        // The head row holds what was scattered `delay` steps ago: deliver it, then reuse it for
        // this step's spikes, which come round to the head again after `delay` steps.
        float* __restrict slot = ring + head * nDst;
        float* __restrict y = post + t * postStride;
        for (std::int64_t j = 0; j < nDst; ++j) {
            y[j] += slot[j];
            slot[j] = 0.0F;
        }
        scatterStep(t, slot);
        head = head + 1 == delay ? 0 : head + 1;
    }
    headState[0] = static_cast<float>(head);
}

void SparseProjection::deliver(const float* pre, std::int64_t preStride, std::int64_t steps,
                               float* post, std::int64_t postStride)
{
    const std::int64_t nSrc = sizeSource();
    const float w = weight();
    const std::int64_t* rows = rowStart().data();
    const std::int32_t* targets = this->targets().data();
    // One pass over the presynaptic row; only non-zero channels touch their synapses, in
    // ascending channel order. Spikes are sparse, so the row is tested a block at a time (a
    // vectorised any-non-zero) and only blocks holding activity are walked channel by channel.
    const auto scatterChannel = [&](std::int64_t i, float xi, float* y) {
        const float v = xi * w;
        const std::int64_t end = rows[i + 1];
        for (std::int64_t s = rows[i]; s < end; ++s) {
            y[targets[s]] += v;
        }
    };
    deliverSteps(steps, post, postStride, [&](std::int64_t t, float* y) {
        const float* x = pre + t * preStride;
        constexpr std::int64_t kBlock = 64;
        std::int64_t i0 = 0;
        for (; i0 + kBlock <= nSrc; i0 += kBlock) {
            if (!anyNonZero(x + i0, kBlock)) {
                continue;
            }
            for (std::int64_t i = i0; i < i0 + kBlock; ++i) {
                if (x[i] != 0.0F) {
                    scatterChannel(i, x[i], y);
                }
            }
        }
        for (std::int64_t i = i0; i < nSrc; ++i) {
            if (x[i] != 0.0F) {
                scatterChannel(i, x[i], y);
            }
        }
    });
}

void SparseProjection::deliverListed(const float* pre, std::int64_t preStride,
                                     const SpikeLists& spikes, std::int64_t steps, float* post,
                                     std::int64_t postStride)
{
    const float w = weight();
    const std::int64_t* rows = rowStart().data();
    const std::int32_t* targets = this->targets().data();
    // The listed channels in their (ascending) order: the same additions in the same order as
    // deliver()'s scan, without visiting the quiet channels.
    deliverSteps(steps, post, postStride, [&](std::int64_t t, float* y) {
        const float* x = pre + t * preStride;
        const std::int32_t* listed = spikes.indices + t * spikes.stride;
        const std::int32_t count = spikes.counts[t];
        for (std::int32_t k = 0; k < count; ++k) {
            const std::int32_t i = listed[k];
            const float v = x[i] * w;
            const std::int64_t end = rows[i + 1];
            for (std::int64_t s = rows[i]; s < end; ++s) {
                y[targets[s]] += v;
            }
        }
    });
}

bool SparseProjection::clearListed(const SpikeLists& spikes, std::int64_t steps, float* post,
                                   std::int64_t postStride)
{
    if (delaySteps() != 0) {
        return false;
    }
    const std::int64_t* rows = rowStart().data();
    const std::int32_t* targets = this->targets().data();
    for (std::int64_t t = 0; t < steps; ++t) {
        float* y = post + t * postStride;
        const std::int32_t* listed = spikes.indices + t * spikes.stride;
        for (std::int32_t k = 0; k < spikes.counts[t]; ++k) {
            const std::int32_t i = listed[k];
            for (std::int64_t s = rows[i]; s < rows[i + 1]; ++s) {
                y[targets[s]] = 0.0F;
            }
        }
    }
    return true;
}

}  // namespace spike::engine
