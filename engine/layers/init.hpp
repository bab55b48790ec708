// Parameter initialisers shared by the torch-style layers (Linear, Conv2d).
//
// PyTorch initialises Linear and ConvNd weights with Kaiming-uniform (a = sqrt(5)), which is
// U(-1/sqrt(fan_in), 1/sqrt(fan_in)), and their biases with the same bound. Here the draw comes
// from a generator seeded by the module's integer "seed" attribute and a per-attribute stream,
// so the same seed always gives the same values and resetParameters() redraws them.
#pragma once

#include "engine/core/module.hpp"
#include "engine/tensor/random.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace spike::engine {

/// Init function filling `shape` with U(-1/sqrt(fanIn), 1/sqrt(fanIn)) drawn from a generator
/// seeded by the module's "seed" attribute and `stream` (one stream per attribute).
inline InitFunction uniformInit(Shape shape, std::int64_t fanIn, std::uint64_t stream)
{
    return [shape, fanIn, stream](const Module& m) -> AttributeValue {
        Random rng(static_cast<std::uint64_t>(m.tensor("seed")[0]) * 2654435761ULL + stream);
        const double bound = 1.0 / std::sqrt(static_cast<double>(std::max<std::int64_t>(fanIn, 1)));
        Tensor t(shape);
        for (std::int64_t i = 0; i < t.numel(); ++i) {
            t[i] = static_cast<float>(rng.uniform(-bound, bound));
        }
        return t;
    };
}

}  // namespace spike::engine
