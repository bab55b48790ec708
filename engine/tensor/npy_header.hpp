// The .npy header dict: a parser for the small Python-literal subset NumPy writes in the header
// of a .npy file (`{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }`).
//
// Internal to the .npy reader (npy.cpp); not part of the engine's public API. It only parses:
// deciding which keys and values make a supported array is npy.cpp's job. Malformed text throws
// spike::engine::Error starting with the source name and saying what was expected where.
//
// Free functions and values without shared state: safe to call from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace spike::engine::npy::detail {

/// Deepest nesting of tuples/lists accepted in a header (NumPy writes at most 2 levels).
constexpr int kMaxNesting = 16;

/// One parsed Python literal: a string, bool, None, integer, tuple or list.
struct PyValue {
    enum class Type { Str, Bool, None, Int, Tuple, List };
    Type type = Type::None;
    std::string text;      ///< Str: the string; Int: the digits as written.
    bool boolean = false;  ///< Bool.
    std::int64_t integer = 0;
    std::vector<PyValue> items;  ///< Tuple, List.
};

/// The entries of a header dict in the order written.
using HeaderDict = std::vector<std::pair<std::string, PyValue>>;

/// Python's repr() of `v` (one-element tuples keep their trailing comma), for error messages.
std::string repr(const PyValue& v);

/// Parses `{'key': value, ...}` with string, bool, None, integer, tuple and list values; only
/// whitespace may follow the closing brace. Keys must be unique and integers fit in int64.
/// Throws Error whose message starts with `source + ": "` when `text` is malformed.
HeaderDict parseHeaderDict(std::string_view text, const std::string& source);

}  // namespace spike::engine::npy::detail
