// Expressions of the equation language (Brian2's syntax): numbers, names, + - * / **, unary
// minus, function calls, comparisons, and / or / not. parseExpression() builds an immutable
// tree whose every node knows where in the model text it came from, so a mistake can be shown
// at its character. Pure functions; any thread.
#pragma once

#include "engine/tensor/error.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace spike::engine::equations {

/// A mistake in a model text: the message names the line and column; `position` is the
/// character offset in the whole text and `length` how many characters are at fault (>= 1).
class EquationError : public Error {
public:
    EquationError(const std::string& message, int position, int length)
        : Error(message), m_position(position), m_length(length < 1 ? 1 : length)
    {
    }
    int position() const { return m_position; }
    int length() const { return m_length; }

private:
    int m_position;
    int m_length;
};

enum class NodeKind {
    Number,   ///< a literal: value
    Name,     ///< a variable, parameter, unit or constant: name
    Call,     ///< name(args...)
    Unary,    ///< op: Neg or Not, args[0]
    Binary,   ///< op, args[0] op args[1]
};

enum class Op { None, Add, Sub, Mul, Div, Pow, Neg, Not, Lt, Le, Gt, Ge, Eq, Ne, And, Or };

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

/// One node of an expression tree.
struct Expr {
    NodeKind kind = NodeKind::Number;
    Op op = Op::None;
    double value = 0.0;
    std::string name;
    std::vector<ExprPtr> args;
    int position = 0;  ///< first character in the model text
    int length = 1;    ///< characters it spans
    int depth = 1;     ///< levels of nodes, this one included (set by the factories below)

    static ExprPtr number(double v, int pos = 0, int len = 1);
    static ExprPtr variable(const std::string& n, int pos = 0, int len = 1);
    static ExprPtr unary(Op op, ExprPtr a, int pos = 0, int len = 1);
    static ExprPtr binary(Op op, ExprPtr a, ExprPtr b, int pos = 0, int len = 1);
    static ExprPtr call(const std::string& f, std::vector<ExprPtr> args, int pos = 0, int len = 1);
};

/// Where an expression sits in a model text, for messages.
struct TextSpan {
    const std::string* text = nullptr;  ///< the whole model text
    int begin = 0;                      ///< first character of the expression
    int end = 0;                        ///< one past its last character
};

/// How deep a parsed expression may nest: brackets, unary operators, powers and calls inside one
/// another (kMaxNesting), and levels of operations in all, a long sum a + b + c ... counting one
/// level per term (kMaxDepth). Deeper texts are refused with a message rather than parsed: every
/// later pass walks the tree recursively, and a pasted text thousands of levels deep would
/// overflow the stack (and with it lose the user's document).
inline constexpr int kMaxNesting = 200;
inline constexpr int kMaxDepth = 500;

/// Parses text[begin, end) as one expression. Throws EquationError at the offending character,
/// also where it nests beyond kMaxNesting or kMaxDepth.
ExprPtr parseExpression(const TextSpan& span);

/// "line L, column C" of character `position` of `text` (1-based).
std::string locate(const std::string& text, int position);

/// The expression written back in the language (fully parenthesised where needed).
std::string toString(const ExprPtr& e);

/// What a name is written as instead of itself (nullopt: the name); see toString below.
using NameText = std::function<std::optional<std::string>(const std::string& name)>;

/// toString with names rewritten by `nameText` (a value put in place of a symbol: "(-65)"; the
/// replacement is written as given, so a negative number should bring its parentheses).
std::string toString(const ExprPtr& e, const NameText& nameText);

/// Whether name `n` occurs in `e`.
bool mentions(const ExprPtr& e, const std::string& n);
/// Whether any of `names` occurs in `e` (one walk).
bool mentionsAny(const ExprPtr& e, const std::set<std::string>& names);
/// Calls f(name) for each name node of `e`, in the order written (a name used twice: twice).
void forEachName(const ExprPtr& e, const std::function<void(const std::string&)>& f);

/// The functions the language knows, with their argument counts.
int functionArity(const std::string& name);  ///< -1 for an unknown function

}  // namespace spike::engine::equations
