// Physical units of the equation language: SI dimensions (seven integer exponents), the named
// units a model text may use (Brian2's names: base and derived SI units with every SI prefix,
// and the short forms mV, ms, nS, pF, uF, cm2, Hz ... ), and how a dimension is written back.
// Values are stored in SI: "mV" is the quantity 1e-3 with the dimension of volt. Pure functions,
// no state; any thread.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace spike::engine::equations {

/// Exponents of the SI base units, in the order metre, kilogram, second, ampere, kelvin, mole,
/// candela.
struct Dimension {
    std::array<std::int8_t, 7> exponents{};

    bool dimensionless() const;
    Dimension operator*(const Dimension& o) const;
    Dimension operator/(const Dimension& o) const;
    /// Every exponent times `power` (exact only for whole results; see halved()).
    Dimension pow(int power) const;
    /// Square root; nullopt when an exponent is odd.
    std::optional<Dimension> halved() const;
    bool operator==(const Dimension& o) const { return exponents == o.exponents; }
    bool operator!=(const Dimension& o) const { return exponents != o.exponents; }
};

/// Named dimensions used throughout.
namespace dims {
Dimension none();
Dimension metre();
Dimension kilogram();
Dimension second();
Dimension ampere();
Dimension volt();
Dimension siemens();
Dimension farad();
}  // namespace dims

/// A value with a dimension, the value in SI.
struct Quantity {
    double value = 0.0;
    Dimension dim;
};

/// A unit name of the language ("mV", "msiemens", "cm2", "Hz", "volt"): its SI size and
/// dimension; nullopt for names that are not units.
std::optional<Quantity> namedUnit(const std::string& name);

/// The dimension written the way a model text declares it: "1" for dimensionless, a single
/// named SI unit when one matches ("volt", "amp", "siemens", "farad", "second", "hertz", "ohm",
/// "metre", "coulomb", "mole", "kelvin"), else a product of base units ("amp/metre**2").
std::string dimensionName(const Dimension& dim);

/// dimensionName(dim), or "no units (1)" for a dimensionless one: how messages name units.
std::string unitText(const Dimension& dim);

/// The unit a value of this dimension is best shown in, with its SI size ("mV" 1e-3 for volt,
/// "ms" for second, "nS", "pF", "pA", "Hz", "" 1 for dimensionless). For the inspector and
/// `spikesim info`; the file stores SI.
Quantity displayUnit(const Dimension& dim, std::string& name);

}  // namespace spike::engine::equations
