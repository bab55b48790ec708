// The .npy header dict parser. See npy_header.hpp.
//
// A recursive-descent parser over a string_view; it keeps only its position and nesting depth,
// and never reads past the end of the text it was given.
#include "engine/tensor/npy_header.hpp"

#include "engine/tensor/error.hpp"

#include <limits>

namespace spike::engine::npy::detail {

namespace {

[[noreturn]] void fail(const std::string& source, const std::string& what)
{
    throw Error(source + ": " + what);
}

/// Recursive-descent parser for `{'key': value, ...}` with string, bool, None, integer, tuple
/// and list values. Nothing but whitespace may follow the closing brace.
class HeaderParser {
public:
    HeaderParser(std::string_view text, const std::string& source)
        : m_text(text), m_source(source)
    {
    }

    HeaderDict parseDict()
    {
        HeaderDict entries;
        expect('{', "'{' opening the header dict");
        skipSpace();
        while (!consume('}')) {
            skipSpace();
            if (atEnd() || (peek() != '\'' && peek() != '"')) {
                syntaxError("a quoted key or '}'");
            }
            std::string key = parseString().text;
            for (const auto& entry : entries) {
                if (entry.first == key) {
                    fail(m_source, "malformed header: key '" + key + "' appears twice");
                }
            }
            expect(':', "':' after key '" + key + "'");
            PyValue value = parseValue();
            entries.emplace_back(std::move(key), std::move(value));
            if (!consume(',')) {
                expect('}', "',' or '}' after the value of '" + entries.back().first + "'");
                break;
            }
            skipSpace();
        }
        skipSpace();
        if (!atEnd()) {
            syntaxError("only padding after the closing '}'");
        }
        return entries;
    }

private:
    bool atEnd() const { return m_pos >= m_text.size(); }
    char peek() const { return m_text[m_pos]; }

    void skipSpace()
    {
        while (!atEnd() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) {
            ++m_pos;
        }
    }

    bool consume(char c)
    {
        skipSpace();
        if (!atEnd() && peek() == c) {
            ++m_pos;
            return true;
        }
        return false;
    }

    void expect(char c, const std::string& what)
    {
        if (!consume(c)) {
            syntaxError(what);
        }
    }

    [[noreturn]] void syntaxError(const std::string& expected) const
    {
        std::string shown;
        for (const char c : m_text) {
            shown += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? ' ' : c;
        }
        while (!shown.empty() && shown.back() == ' ') {
            shown.pop_back();
        }
        if (shown.size() > 160) {
            shown = shown.substr(0, 160) + "...";
        }
        fail(m_source, "malformed header: expected " + expected + " at character " +
                           std::to_string(m_pos) + " of \"" + shown + "\"");
    }

    PyValue parseValue()
    {
        skipSpace();
        if (atEnd()) {
            syntaxError("a value");
        }
        const char c = peek();
        if (c == '\'' || c == '"') {
            return parseString();
        }
        if (c == '(' || c == '[') {
            return parseSequence();
        }
        if (c == '-' || (c >= '0' && c <= '9')) {
            return parseInteger();
        }
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
            return parseName();
        }
        syntaxError("a value");
    }

    PyValue parseString()
    {
        const char quote = peek();
        ++m_pos;
        PyValue v;
        v.type = PyValue::Type::Str;
        while (true) {
            if (atEnd() || peek() == '\n') {
                syntaxError("a closing " + std::string(1, quote));
            }
            char c = peek();
            ++m_pos;
            if (c == quote) {
                break;
            }
            if (c == '\\') {
                if (atEnd()) {
                    syntaxError("a character after '\\'");
                }
                c = peek();
                ++m_pos;
            }
            v.text += c;
        }
        return v;
    }

    PyValue parseInteger()
    {
        const std::size_t start = m_pos;
        const bool negative = peek() == '-';
        if (negative) {
            ++m_pos;
        }
        if (atEnd() || peek() < '0' || peek() > '9') {
            syntaxError("a digit");
        }
        std::uint64_t magnitude = 0;
        constexpr std::uint64_t kLimit = std::numeric_limits<std::int64_t>::max();
        bool overflow = false;
        while (!atEnd() && peek() >= '0' && peek() <= '9') {
            const auto digit = static_cast<std::uint64_t>(peek() - '0');
            if (magnitude > (kLimit - digit) / 10) {
                overflow = true;
            } else {
                magnitude = magnitude * 10 + digit;
            }
            ++m_pos;
        }
        if (overflow) {
            fail(m_source, "malformed header: integer " +
                               std::string(m_text.substr(start, m_pos - start)) +
                               " is out of range");
        }
        if (!atEnd() && (peek() == 'L' || peek() == 'l')) {
            ++m_pos;  // Python 2 long suffix, as written by old NumPy versions.
        }
        PyValue v;
        v.type = PyValue::Type::Int;
        v.integer = negative ? -static_cast<std::int64_t>(magnitude)
                             : static_cast<std::int64_t>(magnitude);
        return v;
    }

    PyValue parseName()
    {
        const std::size_t start = m_pos;
        while (!atEnd() && ((peek() >= 'a' && peek() <= 'z') || (peek() >= 'A' && peek() <= 'Z') ||
                            (peek() >= '0' && peek() <= '9') || peek() == '_')) {
            ++m_pos;
        }
        const std::string_view name = m_text.substr(start, m_pos - start);
        PyValue v;
        if (name == "True" || name == "False") {
            v.type = PyValue::Type::Bool;
            v.boolean = name == "True";
        } else if (name == "None") {
            v.type = PyValue::Type::None;
        } else {
            m_pos = start;
            syntaxError("True, False, None, a number, a string or a tuple");
        }
        return v;
    }

    /// A tuple `(a, b)`, a parenthesised value `(a)` (which Python reads as just `a`), or a list.
    PyValue parseSequence()
    {
        const char open = peek();
        const char close = open == '(' ? ')' : ']';
        ++m_pos;
        if (++m_depth > kMaxNesting) {
            fail(m_source, "malformed header: tuples nested more than " +
                               std::to_string(kMaxNesting) + " deep");
        }
        PyValue seq;
        seq.type = open == '(' ? PyValue::Type::Tuple : PyValue::Type::List;
        bool sawComma = false;
        while (!consume(close)) {
            seq.items.push_back(parseValue());
            if (consume(',')) {
                sawComma = true;
                continue;
            }
            expect(close, std::string("',' or '") + close + "'");
            break;
        }
        --m_depth;
        if (open == '(' && seq.items.size() == 1 && !sawComma) {
            return std::move(seq.items.front());
        }
        return seq;
    }

    std::string_view m_text;
    const std::string& m_source;
    std::size_t m_pos = 0;
    int m_depth = 0;
};

}  // namespace

std::string repr(const PyValue& v)
{
    switch (v.type) {
    case PyValue::Type::Str: return "'" + v.text + "'";
    case PyValue::Type::Bool: return v.boolean ? "True" : "False";
    case PyValue::Type::None: return "None";
    case PyValue::Type::Int: return std::to_string(v.integer);
    case PyValue::Type::Tuple:
    case PyValue::Type::List: {
        const bool tuple = v.type == PyValue::Type::Tuple;
        std::string s = tuple ? "(" : "[";
        for (std::size_t i = 0; i < v.items.size(); ++i) {
            s += (i > 0 ? ", " : "") + repr(v.items[i]);
        }
        if (tuple && v.items.size() == 1) {
            s += ',';
        }
        return s + (tuple ? ")" : "]");
    }
    }
    return {};
}

HeaderDict parseHeaderDict(std::string_view text, const std::string& source)
{
    return HeaderParser(text, source).parseDict();
}

}  // namespace spike::engine::npy::detail
