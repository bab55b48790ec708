// Error: the single exception type the engine throws. Messages are complete sentences for a
// person: they name the file, JSON path, module path or attribute involved and what was expected.
#pragma once

#include <stdexcept>
#include <string>

namespace spike::engine {

/// Engine error carrying a user-facing message.
class Error : public std::runtime_error {
public:
    explicit Error(const std::string& message) : std::runtime_error(message) {}
};

/// Result of an operation that reports failure as a value (validate-then-commit APIs).
struct [[nodiscard]] Status {
    bool ok = true;
    std::string message;  ///< Empty when ok.

    static Status success() { return {}; }
    static Status failure(std::string msg) { return {false, std::move(msg)}; }
    explicit operator bool() const { return ok; }
};

}  // namespace spike::engine
