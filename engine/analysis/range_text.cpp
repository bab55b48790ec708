// The command line's number ranges; see range_text.hpp.
#include "engine/analysis/range_text.hpp"

#include "engine/tensor/error.hpp"

#include <cmath>
#include <exception>
#include <sstream>

namespace spike::engine {

std::string numberText(double v)
{
    std::ostringstream s;
    s << v;
    return s.str();
}

double wholeTextNumber(const std::string& part, const std::string& where, const std::string& what)
{
    std::size_t used = 0;
    double v = 0.0;
    try {
        v = std::stod(part, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (part.empty() || used != part.size()) {
        throw Error(where + ": " + what + " '" + part + "' is not a number");
    }
    return v;
}

RangeText parseRangeText(const std::string& range, const std::string& where, const std::string& shapeMessage)
{
    const auto c1 = range.find(':');
    const auto c2 = c1 == std::string::npos ? std::string::npos : range.find(':', c1 + 1);
    if (c2 == std::string::npos || range.find(':', c2 + 1) != std::string::npos) {
        throw Error(shapeMessage);
    }
    RangeText r;
    r.start = wholeTextNumber(range.substr(0, c1), where, "START");
    r.stop = wholeTextNumber(range.substr(c1 + 1, c2 - c1 - 1), where, "STOP");
    const double count = wholeTextNumber(range.substr(c2 + 1), where, "COUNT");
    if (count != std::floor(count) || !(std::abs(count) <= 1e15)) {
        throw Error(where + ": COUNT '" + range.substr(c2 + 1) + "' is not a whole number");
    }
    r.count = static_cast<std::int64_t>(count);
    return r;
}

}  // namespace spike::engine
