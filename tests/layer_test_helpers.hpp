// Helpers shared by the layer and composite-module tests (test_layers / test_conv_norm and
// test_dynamics_network / test_composites): seeded random tensors, state-dict keys and
// randomisation, and Qt Test checks for errors and closeness.
#pragma once

#include "engine/tensor/error.hpp"
#include "engine/core/module.hpp"
#include "engine/tensor/random.hpp"
#include "engine/tensor/tensor.hpp"
#include "tests/reference_case.hpp"

#include <QtTest/QtTest>

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace spike::tests {

/// Values drawn uniformly from [lo, hi) by a Random seeded with `seed`.
inline engine::Tensor uniformTensor(engine::Shape shape, std::uint64_t seed, double lo, double hi)
{
    engine::Random rng(seed);
    engine::Tensor t(shape);
    for (std::int64_t i = 0; i < t.numel(); ++i) {
        t[i] = static_cast<float>(rng.uniform(lo, hi));
    }
    return t;
}

inline std::vector<std::string> keysOf(const engine::StateDict& dict)
{
    std::vector<std::string> keys;
    for (const auto& [k, v] : dict) {
        keys.push_back(k);
    }
    return keys;
}

inline bool endsWith(const std::string& s, const std::string& suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// Random values for every state-dict entry (positive running variances), loaded strictly.
inline void randomize(engine::Module& m, std::uint64_t seed)
{
    engine::StateDict dict = m.stateDict();
    for (auto& [k, v] : dict) {
        if (endsWith(k, "num_batches_tracked")) {
            continue;
        }
        v = endsWith(k, "running_var") ? uniformTensor(v.shape(), seed++, 0.5, 2.0)
                                       : uniformTensor(v.shape(), seed++, -1, 1);
    }
    const auto r = m.loadStateDict(dict, true);
    if (!r.status.ok) {
        throw std::runtime_error(r.status.message);
    }
}

/// Runs `f`, expecting an Error whose message contains `fragment` (a Qt Test failure otherwise).
inline void expectError(const std::function<void()>& f, const std::string& fragment)
{
    try {
        f();
    } catch (const engine::Error& e) {
        const std::string msg = e.what();
        QVERIFY2(msg.find(fragment) != std::string::npos, ("got: " + msg).c_str());
        return;
    }
    QFAIL(("no error; expected one containing: " + fragment).c_str());
}

inline void expectClose(const engine::Tensor& a, const engine::Tensor& b, double atol, double rtol,
                        const char* what)
{
    QCOMPARE(a.numel(), b.numel());
    const double excess = toleranceExcess(a, b, atol, rtol);
    QVERIFY2(excess <= 0.0, (std::string(what) + ": off by " + std::to_string(excess)).c_str());
}

}  // namespace spike::tests
