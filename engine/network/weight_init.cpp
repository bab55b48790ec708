// Weight initialisers; see weight_init.hpp.
#include "engine/network/weight_init.hpp"

#include "engine/tensor/error.hpp"
#include "engine/tensor/random.hpp"

#include <cmath>
#include <sstream>

namespace spike::engine {

namespace {

void requireFinite(double v, const char* name)
{
    if (!std::isfinite(v)) {
        throw Error(std::string("weight initialisation: ") + name + " must be a finite number");
    }
}

std::string number(double v)
{
    std::ostringstream os;
    os << v;
    return os.str();
}

}  // namespace

const std::vector<std::string>& weightInitNames()
{
    static const std::vector<std::string> names{"constant", "uniform", "normal", "kaiming_uniform"};
    return names;
}

WeightInit weightInitFromName(const std::string& name)
{
    const auto& names = weightInitNames();
    for (std::size_t k = 0; k < names.size(); ++k) {
        if (names[k] == name) {
            return static_cast<WeightInit>(k);
        }
    }
    throw Error("unknown weight initialisation '" + name +
                "' (expected constant, uniform, normal or kaiming_uniform)");
}

std::string weightInitName(WeightInit scheme)
{
    return weightInitNames().at(static_cast<std::size_t>(scheme));
}

Tensor initialWeights(WeightInit scheme, const WeightInitParams& params, std::int64_t rows,
                      std::int64_t cols, std::uint64_t seed)
{
    constexpr std::int64_t kMaxEntries = std::int64_t{1} << 31;
    if (rows < 1 || cols < 1) {
        throw Error("weight initialisation: the matrix needs at least one row and one column, got (" +
                    std::to_string(rows) + ", " + std::to_string(cols) + ")");
    }
    if (rows > kMaxEntries / cols) {
        throw Error("weight initialisation: a (" + std::to_string(rows) + ", " + std::to_string(cols) +
                    ") matrix has more than 2^31 entries");
    }
    Tensor w(Shape{rows, cols});
    const std::int64_t n = w.numel();
    Random rng(seed);
    switch (scheme) {
    case WeightInit::Constant:
        requireFinite(params.value, "value");
        for (std::int64_t i = 0; i < n; ++i) {
            w[i] = static_cast<float>(params.value);
        }
        break;
    case WeightInit::Uniform:
        requireFinite(params.low, "low");
        requireFinite(params.high, "high");
        if (params.low > params.high) {
            throw Error("weight initialisation: uniform needs low <= high, got low = " + number(params.low) +
                        ", high = " + number(params.high));
        }
        for (std::int64_t i = 0; i < n; ++i) {
            w[i] = static_cast<float>(rng.uniform(params.low, params.high));
        }
        break;
    case WeightInit::Normal:
        requireFinite(params.mean, "mean");
        requireFinite(params.std, "std");
        if (params.std < 0.0) {
            throw Error("weight initialisation: normal needs std >= 0, got " + number(params.std));
        }
        for (std::int64_t i = 0; i < n; ++i) {
            w[i] = static_cast<float>(params.mean + params.std * rng.normal());
        }
        break;
    case WeightInit::KaimingUniform: {
        requireFinite(params.gain, "gain");
        if (params.gain < 0.0) {
            throw Error("weight initialisation: kaiming_uniform needs gain >= 0, got " + number(params.gain));
        }
        const double bound = params.gain * std::sqrt(3.0 / static_cast<double>(rows));
        for (std::int64_t i = 0; i < n; ++i) {
            w[i] = static_cast<float>(rng.uniform(-bound, bound));
        }
        break;
    }
    }
    return w;
}

}  // namespace spike::engine
