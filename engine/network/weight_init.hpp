// Weight initialisers for a dense projection's matrix W (rows = Nsrc presynaptic channels,
// cols = Ndst postsynaptic channels; post[t] += pre[t] @ W), as the editor's "Initialise weights"
// row offers them:
//   constant        W[i][j] = value
//   uniform         W[i][j] ~ U(low, high)
//   normal          W[i][j] ~ N(mean, std^2)
//   kaiming_uniform W[i][j] ~ U(-b, b),  b = gain * sqrt(3 / fan_in),  fan_in = rows (Nsrc)
// Kaiming uniform is PyTorch's kaiming_uniform_(mode='fan_in') written with the gain itself:
// the default gain 1/sqrt(3) gives b = 1/sqrt(fan_in), torch.nn.Linear's default initialisation
// (kaiming_uniform_ with a = sqrt(5)); gain sqrt(2) gives He initialisation for ReLU.
// Draws come from engine::Random(seed) in row-major order (uniform(): 53-bit doubles, normal():
// Box-Muller pairs), rounded to float32, so the same seed gives the same matrix on every machine.
// Stateless; any thread.
#pragma once

#include "engine/tensor/tensor.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace spike::engine {

/// The initialisation schemes; see the file comment.
enum class WeightInit { Constant, Uniform, Normal, KaimingUniform };

/// Parameters of every scheme (each scheme reads only its own).
struct WeightInitParams {
    double value = 0.0;                     ///< constant
    double low = -0.1;                      ///< uniform: lower bound (inclusive)
    double high = 0.1;                      ///< uniform: upper bound (exclusive)
    double mean = 0.0;                      ///< normal
    double std = 0.1;                       ///< normal: standard deviation (>= 0)
    double gain = 0.57735026918962576451;   ///< kaiming_uniform: 1/sqrt(3), torch.nn.Linear's default
};

/// Scheme names as files and menus write them: "constant", "uniform", "normal",
/// "kaiming_uniform", in that order.
const std::vector<std::string>& weightInitNames();
/// The scheme called `name` (see weightInitNames()); throws Error listing the names otherwise.
WeightInit weightInitFromName(const std::string& name);
/// The name of `scheme`.
std::string weightInitName(WeightInit scheme);

/// A (rows, cols) matrix initialised by `scheme` from a generator seeded with `seed`. Throws
/// Error, naming the parameter, for rows or cols below 1, a matrix past 2^31 entries, a
/// non-finite parameter, low > high, std < 0 or gain < 0.
Tensor initialWeights(WeightInit scheme, const WeightInitParams& params, std::int64_t rows,
                      std::int64_t cols, std::uint64_t seed);

}  // namespace spike::engine
