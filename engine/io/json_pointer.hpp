// Helpers shared by the model-file readers of engine/io: errors at a JSON pointer of a file.
// Internal to engine/io.
#pragma once

#include "engine/tensor/error.hpp"

#include <string>

namespace spike::engine::io_detail {

/// Error at a JSON pointer of a file ("/" for the document itself).
[[noreturn]] inline void fail(const std::string& pointer, const std::string& what)
{
    throw Error((pointer.empty() ? std::string("/") : pointer) + ": " + what);
}

/// `token` escaped for a JSON pointer ("~" as "~0", "/" as "~1").
inline std::string escapePointerToken(const std::string& token)
{
    std::string out;
    for (const char c : token) {
        if (c == '~') {
            out += "~0";
        } else if (c == '/') {
            out += "~1";
        } else {
            out += c;
        }
    }
    return out;
}

/// Levels of modules above the one at model-file pointer `pointer`: its "/children/" and
/// "/projection" steps (tokens are escaped, so a name cannot contain either).
inline int moduleDepth(const std::string& pointer)
{
    int depth = 0;
    for (const char* step : {"/children/", "/projection"}) {
        for (auto at = pointer.find(step); at != std::string::npos; at = pointer.find(step, at + 1)) {
            ++depth;
        }
    }
    return depth;
}

}  // namespace spike::engine::io_detail
