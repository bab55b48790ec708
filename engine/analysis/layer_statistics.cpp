// Weight and activation statistics: see layer_statistics.hpp. One pass per array for a summary,
// two for a histogram (range, then counts).
#include "engine/analysis/layer_statistics.hpp"

#include "engine/tensor/error.hpp"

#include <algorithm>
#include <cmath>

namespace spike::engine {

namespace {

constexpr std::int64_t kMaxBins = 100000;

void checkBins(std::int64_t bins)
{
    if (bins < 1 || bins > kMaxBins) {
        throw Error("histogram: bins must be 1 .. " + std::to_string(kMaxBins) + ", got " +
                    std::to_string(bins));
    }
}

}  // namespace

void ValueSummary::add(const float* data, std::int64_t n)
{
    double s = 0.0;
    double s2 = 0.0;
    double sa = 0.0;
    double lo = min;
    double hi = max;
    std::int64_t finite = 0;
    std::int64_t z = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        const double v = data[i];
        if (!std::isfinite(v)) {
            continue;
        }
        ++finite;
        s += v;
        s2 += v * v;
        sa += std::fabs(v);
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        z += static_cast<std::int64_t>(v == 0.0);
    }
    count += finite;
    nonFinite += n - finite;
    zeros += z;
    sum += s;
    sumSquares += s2;
    sumAbs += sa;
    min = lo;
    max = hi;
}

void ValueSummary::merge(const ValueSummary& other)
{
    count += other.count;
    nonFinite += other.nonFinite;
    zeros += other.zeros;
    sum += other.sum;
    sumSquares += other.sumSquares;
    sumAbs += other.sumAbs;
    min = std::min(min, other.min);
    max = std::max(max, other.max);
}

double ValueSummary::mean() const
{
    return count > 0 ? sum / static_cast<double>(count) : 0.0;
}

double ValueSummary::std() const
{
    if (count < 2) {
        return 0.0;
    }
    const double m = mean();
    return std::sqrt(std::max(0.0, sumSquares / static_cast<double>(count) - m * m));
}

double ValueSummary::meanAbs() const
{
    return count > 0 ? sumAbs / static_cast<double>(count) : 0.0;
}

double ValueSummary::zeroFraction() const
{
    return count > 0 ? static_cast<double>(zeros) / static_cast<double>(count) : 0.0;
}

ValueSummary summarize(const float* data, std::int64_t n)
{
    ValueSummary s;
    s.add(data, n);
    return s;
}

Histogram valueHistogram(const float* data, std::int64_t n, std::int64_t bins)
{
    checkBins(bins);
    const ValueSummary range = summarize(data, n);
    double lo = range.empty() ? 0.0 : range.min;
    double hi = range.empty() ? 1.0 : range.max;
    if (hi <= lo) {
        lo -= 0.5;
        hi += 0.5;
    }
    Histogram h;
    h.edges.resize(static_cast<std::size_t>(bins + 1));
    for (std::int64_t k = 0; k <= bins; ++k) {
        h.edges[static_cast<std::size_t>(k)] =
            lo + (hi - lo) * static_cast<double>(k) / static_cast<double>(bins);
    }
    h.counts.assign(static_cast<std::size_t>(bins), 0.0);
    const double scale = static_cast<double>(bins) / (hi - lo);
    for (std::int64_t i = 0; i < n; ++i) {
        const double v = data[i];
        if (!std::isfinite(v)) {
            continue;
        }
        auto k = static_cast<std::int64_t>((v - lo) * scale);
        k = std::clamp<std::int64_t>(k, 0, bins - 1);
        h.counts[static_cast<std::size_t>(k)] += 1.0;
    }
    return h;
}

std::vector<NamedTensor> parameterTensors(const Module& module)
{
    std::vector<NamedTensor> out;
    for (const auto& [path, sub] : module.namedModules()) {
        for (const AttributeView& view : sub->attributes()) {
            if (view.spec->kind != AttributeKind::Parameter) {
                continue;
            }
            const auto* t = std::get_if<Tensor>(view.value);
            if (t == nullptr || t->numel() == 0) {
                continue;
            }
            out.push_back({path.empty() ? view.spec->name : path + "." + view.spec->name,
                           view.spec->family, t});
        }
    }
    return out;
}

ValueSummary weightSummary(const Module& module)
{
    ValueSummary s;
    for (const NamedTensor& p : parameterTensors(module)) {
        if (p.family == "weights") {
            s.add(p.tensor->data(), p.tensor->numel());
        }
    }
    return s;
}

void ActivationMonitor::keepNewest(Entry& e, const float* data, std::int64_t n)
{
    if (n >= kActivationKeep) {
        // The newest kActivationKeep values of this output alone fill the ring.
        e.ring.resize(static_cast<std::size_t>(kActivationKeep));
        std::copy(data + (n - kActivationKeep), data + n, e.ring.begin());
        e.next = 0;
        e.kept = kActivationKeep;
        return;
    }
    const auto size = static_cast<std::int64_t>(e.ring.size());
    if (e.kept + n > size && size < kActivationKeep) {
        // Grow (by doubling) while the values since the previous take() still fit.
        std::int64_t grown = std::max<std::int64_t>(size, 64);
        while (grown < e.kept + n && grown < kActivationKeep) {
            grown *= 2;
        }
        e.ring.resize(static_cast<std::size_t>(std::min(grown, kActivationKeep)));
    }
    const auto cap = static_cast<std::int64_t>(e.ring.size());
    for (std::int64_t i = 0; i < n; ++i) {
        e.ring[static_cast<std::size_t>(e.next)] = data[i];
        e.next = e.next + 1 == cap ? 0 : e.next + 1;
    }
    e.kept = std::min(cap, e.kept + n);
}

ActivationMonitor::ActivationMonitor(Module& container, std::int64_t bins)
    : m_container(&container), m_bins(bins), m_entries(std::make_shared<std::vector<Entry>>())
{
    checkBins(bins);
    const auto modules = container.namedModules();
    m_entries->resize(modules.size());
    for (std::size_t k = 0; k < modules.size(); ++k) {
        m_paths.push_back(modules[k].first);
        // The hook holds the entries weakly: a model outliving its monitor (hooks removed on
        // another thread too late) writes nowhere.
        std::weak_ptr<std::vector<Entry>> entries = m_entries;
        m_hooks.push_back(modules[k].second->registerForwardHook(
            [entries, k](Module&, const Tensor&, const Tensor& output) -> std::optional<Tensor> {
                if (const auto all = entries.lock()) {
                    Entry& e = (*all)[k];
                    const std::int64_t n = output.numel();
                    e.pooled.add(output.data(), n);
                    ++e.calls;
                    if (e.lastShape != output.shape()) {
                        e.lastShape = output.shape();
                    }
                    keepNewest(e, output.data(), n);
                }
                return std::nullopt;
            }));
    }
}

ActivationMonitor::~ActivationMonitor()
{
    for (HookHandle& h : m_hooks) {
        h.remove();
    }
}

bool ActivationMonitor::watches(const Module& container) const
{
    return m_container == &container && !m_hooks.empty() && m_hooks.front().active();
}

std::map<std::string, ActivationSnapshot> ActivationMonitor::take()
{
    std::map<std::string, ActivationSnapshot> out;
    for (std::size_t k = 0; k < m_paths.size(); ++k) {
        Entry& e = (*m_entries)[k];
        if (e.calls == 0) {
            continue;
        }
        ActivationSnapshot& s = out[m_paths[k]];
        s.summary = e.pooled;
        s.calls = e.calls;
        s.lastShape = e.lastShape;
        s.histogram = valueHistogram(e.ring.data(), e.kept, m_bins);
        e.pooled = ValueSummary{};
        e.calls = 0;
        e.next = 0;
        e.kept = 0;
    }
    return out;
}

}  // namespace spike::engine
