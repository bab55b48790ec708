// The command line's number ranges, parsed once for every analysis: "START:STOP:COUNT" (fi's
// --current, sweep's --param NAME=...) and the whole-text numbers inside them, with messages that
// name the option and the part at fault. Stateless; any thread.
#pragma once

#include <cstdint>
#include <string>

namespace spike::engine {

/// `part` as a number when the whole text is one; otherwise throws Error
/// "<where>: <what> '<part>' is not a number".
double wholeTextNumber(const std::string& part, const std::string& where, const std::string& what);

/// `v` as a message shows it: the stream's default form, 6 significant digits ("0.001", "1e+07").
std::string numberText(double v);

/// "START:STOP:COUNT" as numbers.
struct RangeText {
    double start = 0.0;
    double stop = 0.0;
    std::int64_t count = 0;
};

/// Parses `range`; throws Error `shapeMessage` when it is not three parts, and
/// "<where>: START '…' is not a number" / "<where>: COUNT '…' is not a whole number" for a part.
RangeText parseRangeText(const std::string& range, const std::string& where, const std::string& shapeMessage);

}  // namespace spike::engine
