// Helpers shared by the neuron population tests (test_neurons for LIFRefrac, test_cuba_lif):
// seeded random tensors, row slices of (T, ...) tensors and a bit-exact comparison of two
// evolve() results. Header-only.
#pragma once

#include "engine/core/module.hpp"
#include "engine/tensor/random.hpp"
#include "engine/tensor/tensor.hpp"

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace spike::tests {

/// Whether `text` contains `part`.
inline bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

/// Values drawn uniformly from [lo, hi) by `rng`, element by element.
inline engine::Tensor randomTensor(engine::Random& rng, const engine::Shape& shape, double lo,
                                   double hi)
{
    engine::Tensor t(shape);
    for (std::int64_t i = 0; i < t.numel(); ++i) {
        t[i] = static_cast<float>(rng.uniform(lo, hi));
    }
    return t;
}

/// Rows [from, from + count) of a (T, ...) tensor.
inline engine::Tensor rows(const engine::Tensor& t, std::int64_t from, std::int64_t count)
{
    const std::int64_t width = t.numel() / t.dim(0);
    std::vector<std::int64_t> dims = t.shape().dims();
    dims[0] = count;
    return engine::Tensor(engine::Shape(dims), std::vector<float>(t.data() + from * width,
                                                                  t.data() + (from + count) * width));
}

/// Bit-exact comparison of two evolve() results (output, every record, every state); `why`
/// names the first difference.
inline bool identicalResults(const engine::EvolveResult& a, const engine::EvolveResult& b,
                             std::string& why)
{
    if (!a.output.identical(b.output)) {
        why = "output";
        return false;
    }
    for (const auto& [path, bySignal] : a.record) {
        for (const auto& [name, series] : bySignal) {
            if (!series.data.identical(b.record.at(path).at(name).data)) {
                why = "record " + name;
                return false;
            }
        }
    }
    for (const auto& [path, attrs] : a.state) {
        for (const auto& [name, value] : attrs) {
            if (!std::get<engine::Tensor>(value).identical(
                    std::get<engine::Tensor>(b.state.at(path).at(name)))) {
                why = "state " + name;
                return false;
            }
        }
    }
    return true;
}

}  // namespace spike::tests
