// Unit names and dimension arithmetic of the equation language. See units.hpp.
#include "engine/equations/units.hpp"

#include <cmath>
#include <map>
#include <utility>
#include <vector>

namespace spike::engine::equations {

bool Dimension::dimensionless() const
{
    for (const auto e : exponents) {
        if (e != 0) {
            return false;
        }
    }
    return true;
}

Dimension Dimension::operator*(const Dimension& o) const
{
    Dimension d;
    for (std::size_t i = 0; i < exponents.size(); ++i) {
        d.exponents[i] = static_cast<std::int8_t>(exponents[i] + o.exponents[i]);
    }
    return d;
}

Dimension Dimension::operator/(const Dimension& o) const
{
    Dimension d;
    for (std::size_t i = 0; i < exponents.size(); ++i) {
        d.exponents[i] = static_cast<std::int8_t>(exponents[i] - o.exponents[i]);
    }
    return d;
}

Dimension Dimension::pow(int power) const
{
    Dimension d;
    for (std::size_t i = 0; i < exponents.size(); ++i) {
        d.exponents[i] = static_cast<std::int8_t>(exponents[i] * power);
    }
    return d;
}

std::optional<Dimension> Dimension::halved() const
{
    Dimension d;
    for (std::size_t i = 0; i < exponents.size(); ++i) {
        if (exponents[i] % 2 != 0) {
            return std::nullopt;
        }
        d.exponents[i] = static_cast<std::int8_t>(exponents[i] / 2);
    }
    return d;
}

namespace {

Dimension make(int m, int kg, int s, int a, int k = 0, int mol = 0, int cd = 0)
{
    Dimension d;
    d.exponents = {static_cast<std::int8_t>(m), static_cast<std::int8_t>(kg),
                   static_cast<std::int8_t>(s), static_cast<std::int8_t>(a),
                   static_cast<std::int8_t>(k), static_cast<std::int8_t>(mol),
                   static_cast<std::int8_t>(cd)};
    return d;
}

struct Named {
    const char* name;
    double size;
    Dimension dim;
};

/// Units that take prefixes, by their long names (and the short symbols that take them too).
const std::vector<Named>& prefixable()
{
    static const std::vector<Named> units{
        {"metre", 1.0, make(1, 0, 0, 0)},    {"meter", 1.0, make(1, 0, 0, 0)},
        {"gram", 1e-3, make(0, 1, 0, 0)},    {"second", 1.0, make(0, 0, 1, 0)},
        {"amp", 1.0, make(0, 0, 0, 1)},      {"ampere", 1.0, make(0, 0, 0, 1)},
        {"kelvin", 1.0, make(0, 0, 0, 0, 1)}, {"mole", 1.0, make(0, 0, 0, 0, 0, 1)},
        {"mol", 1.0, make(0, 0, 0, 0, 0, 1)}, {"candela", 1.0, make(0, 0, 0, 0, 0, 0, 1)},
        {"volt", 1.0, make(2, 1, -3, -1)},   {"siemens", 1.0, make(-2, -1, 3, 2)},
        {"farad", 1.0, make(-2, -1, 4, 2)},  {"ohm", 1.0, make(2, 1, -3, -2)},
        {"hertz", 1.0, make(0, 0, -1, 0)},   {"coulomb", 1.0, make(0, 0, 1, 1)},
        {"newton", 1.0, make(1, 1, -2, 0)},  {"joule", 1.0, make(2, 1, -2, 0)},
        {"watt", 1.0, make(2, 1, -3, 0)},    {"henry", 1.0, make(2, 1, -2, -2)},
        {"tesla", 1.0, make(0, 1, -2, -1)},  {"weber", 1.0, make(2, 1, -2, -1)},
        {"pascal", 1.0, make(-1, 1, -2, 0)}, {"litre", 1e-3, make(3, 0, 0, 0)},
        {"liter", 1e-3, make(3, 0, 0, 0)},   {"molar", 1e3, make(-3, 0, 0, 0, 0, 1)},
        // Short symbols, used with a prefix (mV, nA, pF, kHz, cm, mM); alone only Hz is a unit
        // (see isShortSymbol).
        {"V", 1.0, make(2, 1, -3, -1)},      {"A", 1.0, make(0, 0, 0, 1)},
        {"S", 1.0, make(-2, -1, 3, 2)},      {"F", 1.0, make(-2, -1, 4, 2)},
        {"Hz", 1.0, make(0, 0, -1, 0)},      {"s", 1.0, make(0, 0, 1, 0)},
        {"m", 1.0, make(1, 0, 0, 0)},        {"M", 1e3, make(-3, 0, 0, 0, 0, 1)},
        {"l", 1e-3, make(3, 0, 0, 0)},       {"g", 1e-3, make(0, 1, 0, 0)},
    };
    return units;
}

const std::vector<std::pair<const char*, double>>& prefixes()
{
    static const std::vector<std::pair<const char*, double>> p{
        {"y", 1e-24}, {"z", 1e-21}, {"a", 1e-18}, {"f", 1e-15}, {"p", 1e-12}, {"n", 1e-9},
        {"u", 1e-6},  {"m", 1e-3},  {"c", 1e-2},  {"d", 1e-1},  {"da", 1e1},  {"h", 1e2},
        {"k", 1e3},   {"M", 1e6},   {"G", 1e9},   {"T", 1e12},  {"P", 1e15},  {"E", 1e18},
        {"Z", 1e21},  {"Y", 1e24},
    };
    return p;
}

bool isShortSymbol(const std::string& n)
{
    return n.size() <= 2 && n != "Hz";
}

std::map<std::string, Quantity> buildTable()
{
    std::map<std::string, Quantity> table;
    for (const auto& u : prefixable()) {
        const std::string base = u.name;
        // Bare short symbols are not units (Brian2 defines none of V, A, S, F, s, m, M, l, g
        // alone), so names like "m" or "s" stay free for a model's variables.
        if (!isShortSymbol(base)) {
            table[base] = {u.size, u.dim};
        }
        for (const auto& [p, size] : prefixes()) {
            const std::string name = std::string(p) + base;
            // kilogram is the base unit: "kgram" etc. come out right from gram's 1e-3.
            table.emplace(name, Quantity{u.size * size, u.dim});
        }
    }
    // Powers Brian2 names directly: cm2, um3, metre2, ...
    for (const char* base : {"metre", "meter", "m"}) {
        for (const auto& [p, size] : prefixes()) {
            for (int power : {2, 3}) {
                const std::string name = std::string(p) + base + std::to_string(power);
                table.emplace(name, Quantity{std::pow(size, power), make(power, 0, 0, 0)});
            }
        }
        if (std::string(base) != "m") {
            table[std::string(base) + "2"] = {1.0, make(2, 0, 0, 0)};
            table[std::string(base) + "3"] = {1.0, make(3, 0, 0, 0)};
        }
    }
    table["pi"] = {M_PI, Dimension{}};
    return table;
}

}  // namespace

namespace dims {
Dimension none() { return {}; }
Dimension metre() { return make(1, 0, 0, 0); }
Dimension kilogram() { return make(0, 1, 0, 0); }
Dimension second() { return make(0, 0, 1, 0); }
Dimension ampere() { return make(0, 0, 0, 1); }
Dimension volt() { return make(2, 1, -3, -1); }
Dimension siemens() { return make(-2, -1, 3, 2); }
Dimension farad() { return make(-2, -1, 4, 2); }
}  // namespace dims

std::optional<Quantity> namedUnit(const std::string& name)
{
    static const std::map<std::string, Quantity> table = buildTable();
    const auto it = table.find(name);
    if (it == table.end()) {
        return std::nullopt;
    }
    return it->second;
}

std::string dimensionName(const Dimension& dim)
{
    if (dim.dimensionless()) {
        return "1";
    }
    static const std::vector<std::pair<const char*, Dimension>> named{
        {"volt", make(2, 1, -3, -1)},  {"amp", make(0, 0, 0, 1)},     {"siemens", make(-2, -1, 3, 2)},
        {"farad", make(-2, -1, 4, 2)}, {"second", make(0, 0, 1, 0)},  {"hertz", make(0, 0, -1, 0)},
        {"ohm", make(2, 1, -3, -2)},   {"metre", make(1, 0, 0, 0)},   {"coulomb", make(0, 0, 1, 1)},
        {"mole", make(0, 0, 0, 0, 0, 1)}, {"kelvin", make(0, 0, 0, 0, 1)},
        {"kilogram", make(0, 1, 0, 0)},
    };
    for (const auto& [name, d] : named) {
        if (d == dim) {
            return name;
        }
    }
    // A named unit over another (volt/second) or over a power of metre (per-area conductances
    // and currents) reads best.
    for (const auto& [name, d] : named) {
        for (const char* over : {"second", "volt", "amp"}) {
            for (const auto& [name2, d2] : named) {
                if (std::string(name2) == over && d / d2 == dim && std::string(name) != over) {
                    return std::string(name) + "/" + over;
                }
            }
        }
    }
    for (const auto& [name, d] : named) {
        for (int p : {1, 2, 3}) {
            if (d / make(p, 0, 0, 0) == dim && std::string(name) != "metre") {
                return std::string(name) + "/metre" + (p > 1 ? "**" + std::to_string(p) : "");
            }
        }
    }
    static const char* base[] = {"metre", "kilogram", "second", "amp", "kelvin", "mole", "candela"};
    std::string num;
    std::string den;
    for (std::size_t i = 0; i < dim.exponents.size(); ++i) {
        const int e = dim.exponents[i];
        if (e == 0) {
            continue;
        }
        std::string& side = e > 0 ? num : den;
        if (!side.empty()) {
            side += "*";
        }
        side += base[i];
        if (std::abs(e) != 1) {
            side += "**" + std::to_string(std::abs(e));
        }
    }
    if (num.empty()) {
        num = "1";
    }
    return den.empty() ? num : num + "/" + (den.find('*') != std::string::npos ? "(" + den + ")" : den);
}

std::string unitText(const Dimension& dim)
{
    return dim.dimensionless() ? "no units (1)" : dimensionName(dim);
}

Quantity displayUnit(const Dimension& dim, std::string& name)
{
    static const std::vector<std::tuple<const char*, double, Dimension>> shown{
        {"mV", 1e-3, make(2, 1, -3, -1)}, {"ms", 1e-3, make(0, 0, 1, 0)},
        {"nS", 1e-9, make(-2, -1, 3, 2)}, {"pF", 1e-12, make(-2, -1, 4, 2)},
        {"pA", 1e-12, make(0, 0, 0, 1)},  {"Hz", 1.0, make(0, 0, -1, 0)},
        {"MOhm", 1e6, make(2, 1, -3, -2)},
        {"uA/cm2", 1e-2, make(-2, 0, 0, 1)}, {"mS/cm2", 10.0, make(-4, -1, 3, 2)},
        {"uF/cm2", 1e-2, make(-4, -1, 4, 2)}, {"1/mV", 1e3, make(-2, -1, 3, 1)},
    };
    for (const auto& [n, size, d] : shown) {
        if (d == dim) {
            name = n;
            return {size, d};
        }
    }
    name = dim.dimensionless() ? "" : dimensionName(dim);
    return {1.0, dim};
}

}  // namespace spike::engine::equations
