// Loader for the peer reference cases in tests/data/reference/<case>/ (copied from
// ../shared/reference): case.json plus float32 .npy arrays. Header-only, used by every test that
// compares against a peer.
#pragma once

#include "engine/tensor/npy.hpp"
#include "engine/tensor/tensor.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <string>

namespace spike::tests {

/// One reference case: its JSON and a way to read the arrays it names.
struct ReferenceCase {
    std::string dir;
    nlohmann::json json;

    /// The case `name` under tests/data/`folder` ("reference": the peers' shared cases; the
    /// cases a test records itself sit in folders of their own beside their script).
    static ReferenceCase load(const std::string& name, const std::string& folder = "reference")
    {
        ReferenceCase c;
        c.dir = std::string(SPIKE_TEST_DATA_DIR) + "/" + folder + "/" + name;
        std::ifstream in(c.dir + "/case.json");
        if (!in) {
            throw std::runtime_error("missing reference case " + c.dir);
        }
        c.json = nlohmann::json::parse(in);
        return c;
    }

    /// Reads `<dir>/<file>`.
    engine::Tensor array(const std::string& file) const { return engine::npy::load(dir + "/" + file); }
    /// The array named by json[section][key].
    engine::Tensor named(const std::string& section, const std::string& key) const
    {
        return array(json.at(section).at(key).get<std::string>());
    }
    double atol() const { return json.at("tolerance").value("atol", 1e-4); }
    double rtol() const { return json.at("tolerance").value("rtol", 1e-4); }
};

/// Largest violation of |a - b| <= atol + rtol * |b| (<= 0 means all within tolerance), or +inf
/// when shapes differ.
inline double toleranceExcess(const engine::Tensor& a, const engine::Tensor& b, double atol,
                              double rtol)
{
    if (a.numel() != b.numel()) {
        return INFINITY;
    }
    double worst = -INFINITY;
    for (std::int64_t i = 0; i < a.numel(); ++i) {
        const double diff = std::abs(static_cast<double>(a[i]) - b[i]);
        worst = std::max(worst, diff - (atol + rtol * std::abs(static_cast<double>(b[i]))));
    }
    return worst;
}

/// Number of elements that differ at all.
inline std::int64_t countDifferent(const engine::Tensor& a, const engine::Tensor& b)
{
    std::int64_t n = 0;
    for (std::int64_t i = 0; i < std::min(a.numel(), b.numel()); ++i) {
        n += a[i] != b[i] ? 1 : 0;
    }
    return n + std::abs(a.numel() - b.numel());
}

}  // namespace spike::tests
