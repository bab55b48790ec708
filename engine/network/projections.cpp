// DenseProjection, OneToOneProjection and SparseProjection: registration, the dense and
// one-to-one delivery kernels, SparseProjection's validation and its seeded connectivity and
// weight draws. SparseProjection's delivery (scatter, delay ring, thread split) is in
// sparse_delivery.cpp. See projections.hpp for the equations, the ring layout of delayed
// deliveries and the cost per step. Thread: owned by whichever thread runs the module.
#include "engine/network/projections.hpp"

#include "engine/network/sparse_draw.hpp"
#include "engine/tensor/random.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace spike::engine {

namespace {

constexpr std::int64_t kMaxSynapses = kMaxSparseSynapses;
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
/// The most values a delay ring may hold: 2^27 floats (512 MiB). The ring is a State, so the
/// document, the running copy and undo steps each hold one: a slider dragged to a delay of
/// millions of steps must be refused, not allocated (a 3200-target ring at the tensor limit
/// took the GUI past 24 GiB).
constexpr std::int64_t kMaxRingValues = std::int64_t{1} << 27;

std::string ringTooLarge(std::int64_t delay, std::int64_t nTarget)
{
    if (delay > 0 && nTarget > kMaxRingValues / delay) {
        return "attribute 'delay': " + std::to_string(delay) + " steps x " +
               std::to_string(nTarget) + " targets needs a ring of " +
               std::to_string(delay * nTarget) + " pending deliveries; at most " +
               std::to_string(kMaxRingValues) + " (512 MiB): use a shorter delay (at most " +
               std::to_string(kMaxRingValues / nTarget) + " steps for " + std::to_string(nTarget) +
               " targets)";
    }
    return {};
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
                                .doc("Weight of every synapse (weight_dist constant), else the "
                                     "mean of the drawn weights: "
                                     "post[t + delay][j] += pre[t][i] * w"));
    m_weightDist = addAttribute(
        simulationParameter("weight_dist").family("weights").choices(weightDistributions())
            .initEnum("constant")
            .doc("Per-synapse weights: constant (all = weight), uniform in weight ± weight_spread, "
                 "or normal (mean weight, std weight_spread); drawn once from seed"));
    m_weightSpread = addAttribute(
        simulationParameter("weight_spread").family("weights").nonNegative().initConstant(0.0F)
            .doc("Half-width (uniform) or standard deviation (normal) of the drawn weights"));
    m_keepSign = addAttribute(
        simulationParameter("keep_sign").family("weights").boolean().initConstant(1.0F)
            .doc("Dale's law: a drawn weight whose sign differs from weight's is set to 0"));
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
    if (enumValue(m_weightDist) != "constant") {
        os << ", weight_dist=" << enumValue(m_weightDist)
           << ", weight_spread=" << value(m_weightSpread)[0];
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
    // A ring of the wrong shape is emptied; an empty ring reads the same from any row, so a head
    // that fits it stays (one carried with the delay before the ring, as reconfigure() does).
    if (value(m_pending).shape() != ring) {
        stateRef(m_pending) = Tensor(ring);
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
        m_targets16 = {};
        m_weightsDrawn = false;
        m_synapseWeights = {};
    }
    WeightDistribution weights;
    weights.dist = enumValue(m_weightDist);
    weights.mean = weight();
    weights.spread = value(m_weightSpread)[0];
    weights.keepSign = value(m_keepSign)[0] != 0.0F;
    weights.seed = wanted.seed;
    if (weights.dist == "constant") {
        weights = WeightDistribution{};  // nothing drawn, whatever the mean
    }
    if (!(weights == m_weightsWith)) {
        m_weightsWith = weights;
        m_weightsDrawn = false;
        m_synapseWeights = {};
    }
}

void SparseProjection::ensureWeights() const
{
    ensureSynapses();
    if (!m_weightsDrawn) {
        m_synapseWeights =
            drawSynapseWeights(m_weightsWith, static_cast<std::int64_t>(m_targets.size()));
        m_weightsDrawn = true;
    }
}

void SparseProjection::ensureSynapses() const
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
        drawByProbability(nSrc, nDst, m_builtWith.p, exclude, m_builtWith.seed, m_rowStart,
                          m_targets);
    } else {
        drawByInDegree(nSrc, nDst, m_builtWith.inDegree, exclude, m_builtWith.seed, m_rowStart,
                       m_targets);
    }
    m_fanOut = nSrc > 0 ? static_cast<std::int64_t>(m_targets.size()) / nSrc : 0;
    m_targets16.clear();
    if (nDst <= std::int64_t{1} << 16) {
        m_targets16.assign(m_targets.begin(), m_targets.end());
    }
    m_built = true;
    m_weightsDrawn = false;
    m_sliceParts = 0;
}

}  // namespace spike::engine
