// Statistics of a layer's numbers, for looking inside a network while it runs: its weights (the
// module's Parameter tensors) and its activations (the outputs its forward computation produces).
//
// ValueSummary pools values one array at a time: count, sum, sum of squares, sum of |x|, the
// number of exact zeros (what a ReLU leaves), min, max; NaN and Inf are counted apart and left
// out of everything else. mean = sum / count, std = the population standard deviation.
// valueHistogram(): `bins` equal bins from the smallest to the largest finite value (the last bin
// closed); all values equal: one unit-wide range centred on that value.
//
// ActivationMonitor registers a forward hook on a container and on each of its descendants (a
// DynamicsNetwork and its conv, norm_common, resblocks, resblocks.0.conv1, ...). Every forward
// call of a watched module adds its output to that module's summary and to a ring of its newest
// kActivationKeep values (grown by doubling up to that size, then reused: no allocation once it
// has). take() hands out, per module path relative to the container ("" = the container), the
// summary pooled over every call since the previous take(), the number of calls, the latest
// output's shape, and the histogram of the values in the ring (every value since the previous
// take() while they fit); then starts the next pool. A module applied several times per step
// (the DynamicsNetwork's one shared `activation`) pools all its applications.
//
// Engine only, no Qt. Thread: the monitor (constructor, take(), destructor) belongs to the thread
// that evolves the container: the hooks run there.
#pragma once

#include "engine/analysis/spike_statistics.hpp"
#include "engine/core/module.hpp"

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace spike::engine {

/// A pooled summary of numbers; see the file comment.
struct ValueSummary {
    std::int64_t count = 0;      ///< finite values
    std::int64_t nonFinite = 0;  ///< NaN or Inf values (left out of everything else)
    std::int64_t zeros = 0;      ///< values exactly 0
    double sum = 0.0;
    double sumSquares = 0.0;
    double sumAbs = 0.0;
    double min = std::numeric_limits<double>::infinity();
    double max = -std::numeric_limits<double>::infinity();

    void add(const float* data, std::int64_t n);
    void merge(const ValueSummary& other);
    bool empty() const { return count == 0; }
    double mean() const;
    /// Population standard deviation (0 for fewer than two values).
    double std() const;
    double meanAbs() const;
    /// zeros / count (0 when empty).
    double zeroFraction() const;
};

/// The summary of n values.
ValueSummary summarize(const float* data, std::int64_t n);
/// Histogram of the finite values of data[0..n) over their own range; see the file comment.
/// Throws Error for bins outside 1 .. 100000.
Histogram valueHistogram(const float* data, std::int64_t n, std::int64_t bins);

/// One Parameter tensor of a module tree.
struct NamedTensor {
    std::string name;      ///< dotted path from the module asked about: "weight", "conv1.weight"
    std::string family;    ///< the attribute's family ("weights", "biases", ...)
    const Tensor* tensor;  ///< owned by the module; valid while it is unchanged
};

/// Every Parameter tensor with at least one element of `module` and its descendants, the module's
/// own first, then depth-first.
std::vector<NamedTensor> parameterTensors(const Module& module);
/// The pooled summary of the "weights"-family Parameters of `module` and its descendants (empty
/// when it has none): what the canvas prints on a layer's node.
ValueSummary weightSummary(const Module& module);

/// Values per module an ActivationMonitor keeps for its histograms (the newest ones).
constexpr std::int64_t kActivationKeep = 65536;

/// What ActivationMonitor::take() hands out for one module.
struct ActivationSnapshot {
    ValueSummary summary;    ///< pooled over every output since the previous take()
    std::int64_t calls = 0;  ///< forward calls since the previous take()
    Shape lastShape;         ///< the latest output's shape
    Histogram histogram;     ///< of the values since the previous take() (the newest kActivationKeep)
};

/// Forward hooks on a container and its descendants; see the file comment.
class ActivationMonitor {
public:
    /// Watches `container` and every descendant. Throws Error for bins outside 1 .. 100000.
    explicit ActivationMonitor(Module& container, std::int64_t bins = 40);
    ~ActivationMonitor();
    ActivationMonitor(const ActivationMonitor&) = delete;
    ActivationMonitor& operator=(const ActivationMonitor&) = delete;

    /// Whether this monitor's hooks are on `container` (the same object, still alive).
    bool watches(const Module& container) const;
    /// Module paths watched, relative to the container ("" first).
    const std::vector<std::string>& paths() const { return m_paths; }
    /// Snapshots of the modules called since the previous take() (modules not called since are
    /// left out), keyed by path; starts the next pool.
    std::map<std::string, ActivationSnapshot> take();

private:
    struct Entry;
    /// Puts data[0..n) into e's ring.
    static void keepNewest(Entry& e, const float* data, std::int64_t n);
    struct Entry {
        ValueSummary pooled;
        std::int64_t calls = 0;
        Shape lastShape;
        std::vector<float> ring;  ///< the newest values, at most kActivationKeep; reused
        std::int64_t next = 0;    ///< where the next value goes in the ring
        std::int64_t kept = 0;    ///< values in the ring since the previous take()
    };
    const Module* m_container;
    std::int64_t m_bins;
    std::vector<std::string> m_paths;
    std::shared_ptr<std::vector<Entry>> m_entries;
    std::vector<HookHandle> m_hooks;
};

}  // namespace spike::engine
