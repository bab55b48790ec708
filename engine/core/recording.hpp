// Recorded time series and the recording request passed down a module tree during evolve().
//
// A TimeSeries carries its own time base (dt and start time, like Rockpool's TimeSeries), so
// plots and files need no side channel. A Recording maps module path → attribute → series.
#pragma once

#include "engine/tensor/tensor.hpp"

#include <map>
#include <set>
#include <string>
#include <type_traits>

namespace spike::engine {

/// One recorded signal: data (T, ...) or (B, T, ...) sampled every dt from tStart.
struct TimeSeries {
    Tensor data;
    double dt = 1.0;      ///< [s] sampling step
    double tStart = 0.0;  ///< [s] time of the first sample's step start
    std::string units;    ///< units of the samples ("" when dimensionless)
    bool spikes = false;  ///< true for spike counts (rasters), false for continuous traces
};

/// module path ("" for the evolved module itself) → attribute name → series.
using Recording = std::map<std::string, std::map<std::string, TimeSeries>>;

/// Which signals to record. Keys are "PATH.ATTR" relative to the evolved module, or "ATTR" for
/// the evolved module itself; `all` records everything every module offers.
struct RecordSpec {
    bool all = false;
    std::set<std::string> keys;

    RecordSpec() = default;
    /// RecordSpec(true) records everything, like Rockpool's evolve(input, record=True). Only a
    /// real bool converts (a string literal must not silently mean "everything").
    template <typename B, std::enable_if_t<std::is_same_v<B, bool>, int> = 0>
    RecordSpec(B everything) : all(everything)  // NOLINT: implicit from bool on purpose
    {
    }
    /// Records just these "PATH.ATTR" keys: RecordSpec({"0.vmem", "1.spikes"}).
    RecordSpec(std::initializer_list<std::string> selected) : keys(selected) {}
    explicit RecordSpec(std::set<std::string> selected) : keys(std::move(selected)) {}

    bool any() const { return all || !keys.empty(); }
    /// Whether `attr` of the module at `path` is requested.
    bool wants(const std::string& path, const std::string& attr) const
    {
        return all || keys.count(path.empty() ? attr : path + "." + attr) > 0;
    }
    /// Whether anything of the module at `path` or below is requested.
    bool wantsBelow(const std::string& path) const
    {
        if (all) {
            return true;
        }
        if (path.empty()) {
            return !keys.empty();
        }
        const auto it = keys.lower_bound(path + ".");
        return it != keys.end() && it->compare(0, path.size() + 1, path + ".") == 0;
    }
};

/// "PATH.ATTR" (or "ATTR" for the root) keyed view of a recording.
inline std::map<std::string, const TimeSeries*> flatten(const Recording& rec)
{
    std::map<std::string, const TimeSeries*> out;
    for (const auto& [path, bySignal] : rec) {
        for (const auto& [attr, series] : bySignal) {
            out[path.empty() ? attr : path + "." + attr] = &series;
        }
    }
    return out;
}

}  // namespace spike::engine
