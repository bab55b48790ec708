// The expression parser of the equation language: a tokenizer and a precedence-climbing parser
// with Python's precedence (or < and < not < comparisons < + - < * / < unary - < **). See
// expression.hpp.
#include "engine/equations/expression.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>

namespace spike::engine::equations {

ExprPtr Expr::number(double v, int pos, int len)
{
    auto e = std::make_shared<Expr>();
    e->kind = NodeKind::Number;
    e->value = v;
    e->position = pos;
    e->length = len;
    return e;
}

ExprPtr Expr::variable(const std::string& n, int pos, int len)
{
    auto e = std::make_shared<Expr>();
    e->kind = NodeKind::Name;
    e->name = n;
    e->position = pos;
    e->length = len;
    return e;
}

ExprPtr Expr::unary(Op op, ExprPtr a, int pos, int len)
{
    auto e = std::make_shared<Expr>();
    e->kind = NodeKind::Unary;
    e->op = op;
    e->depth = 1 + a->depth;
    e->args = {std::move(a)};
    e->position = pos;
    e->length = len;
    return e;
}

ExprPtr Expr::binary(Op op, ExprPtr a, ExprPtr b, int pos, int len)
{
    auto e = std::make_shared<Expr>();
    e->kind = NodeKind::Binary;
    e->op = op;
    e->depth = 1 + std::max(a->depth, b->depth);
    e->args = {std::move(a), std::move(b)};
    e->position = pos;
    e->length = len;
    return e;
}

ExprPtr Expr::call(const std::string& f, std::vector<ExprPtr> args, int pos, int len)
{
    auto e = std::make_shared<Expr>();
    e->kind = NodeKind::Call;
    e->name = f;
    for (const ExprPtr& a : args) {
        e->depth = std::max(e->depth, 1 + a->depth);
    }
    e->args = std::move(args);
    e->position = pos;
    e->length = len;
    return e;
}

int functionArity(const std::string& name)
{
    static const std::map<std::string, int> arity{
        {"exp", 1},  {"log", 1},  {"log10", 1}, {"sqrt", 1}, {"abs", 1},   {"sin", 1},
        {"cos", 1},  {"tan", 1},  {"sinh", 1},  {"cosh", 1}, {"tanh", 1},  {"arcsin", 1},
        {"arccos", 1}, {"arctan", 1}, {"exprel", 1}, {"floor", 1}, {"ceil", 1}, {"sign", 1},
        {"clip", 3}, {"int", 1},
    };
    const auto it = arity.find(name);
    return it == arity.end() ? -1 : it->second;
}

std::string locate(const std::string& text, int position)
{
    int line = 1;
    int column = 1;
    for (int i = 0; i < position && i < static_cast<int>(text.size()); ++i) {
        if (text[static_cast<std::size_t>(i)] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

namespace {

enum class Tok { End, Number, Name, Op, LParen, RParen, Comma };

struct Token {
    Tok kind = Tok::End;
    std::string text;
    double value = 0.0;
    int position = 0;
};

class Parser {
public:
    explicit Parser(const TextSpan& span) : m_span(span), m_pos(span.begin) { advance(); }

    ExprPtr parseAll()
    {
        if (m_tok.kind == Tok::End) {
            fail("expected an expression here, found nothing", m_tok.position, 1);
        }
        ExprPtr e = parseOr();
        if (m_tok.kind != Tok::End) {
            fail("unexpected '" + m_tok.text + "' after a complete expression", m_tok.position,
                 static_cast<int>(m_tok.text.size()));
        }
        return e;
    }

private:
    const std::string& text() const { return *m_span.text; }

    [[noreturn]] void fail(const std::string& what, int position, int length) const
    {
        throw EquationError(locate(text(), position) + ": " + what, position, length);
    }

    void advance()
    {
        const std::string& s = text();
        while (m_pos < m_span.end && std::isspace(static_cast<unsigned char>(s[m_pos])) != 0) {
            ++m_pos;
        }
        m_tok = Token{};
        m_tok.position = m_pos;
        if (m_pos >= m_span.end) {
            m_tok.kind = Tok::End;
            m_tok.text = "end of expression";
            return;
        }
        const char c = s[m_pos];
        const auto at = [&](int k) { return m_pos + k < m_span.end ? s[m_pos + k] : '\0'; };
        if (std::isdigit(static_cast<unsigned char>(c)) != 0 ||
            (c == '.' && std::isdigit(static_cast<unsigned char>(at(1))) != 0)) {
            int end = m_pos;
            while (end < m_span.end && (std::isdigit(static_cast<unsigned char>(s[end])) != 0 || s[end] == '.')) {
                ++end;
            }
            if (end < m_span.end && (s[end] == 'e' || s[end] == 'E')) {
                int e = end + 1;
                if (e < m_span.end && (s[e] == '+' || s[e] == '-')) {
                    ++e;
                }
                if (e < m_span.end && std::isdigit(static_cast<unsigned char>(s[e])) != 0) {
                    while (e < m_span.end && std::isdigit(static_cast<unsigned char>(s[e])) != 0) {
                        ++e;
                    }
                    end = e;
                }
            }
            m_tok.text = s.substr(static_cast<std::size_t>(m_pos), static_cast<std::size_t>(end - m_pos));
            if (std::count(m_tok.text.begin(), m_tok.text.end(), '.') > 1) {
                fail("'" + m_tok.text + "' is not a number", m_pos, end - m_pos);
            }
            m_tok.kind = Tok::Number;
            m_tok.value = std::strtod(m_tok.text.c_str(), nullptr);
            m_pos = end;
            return;
        }
        if (std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_') {
            int end = m_pos;
            while (end < m_span.end && (std::isalnum(static_cast<unsigned char>(s[end])) != 0 || s[end] == '_')) {
                ++end;
            }
            m_tok.text = s.substr(static_cast<std::size_t>(m_pos), static_cast<std::size_t>(end - m_pos));
            m_tok.kind = (m_tok.text == "and" || m_tok.text == "or" || m_tok.text == "not")
                             ? Tok::Op
                             : Tok::Name;
            m_pos = end;
            return;
        }
        static const char* twoChar[] = {"**", "<=", ">=", "==", "!="};
        for (const char* op : twoChar) {
            if (c == op[0] && at(1) == op[1]) {
                m_tok.kind = Tok::Op;
                m_tok.text = op;
                m_pos += 2;
                return;
            }
        }
        m_tok.text = std::string(1, c);
        ++m_pos;
        switch (c) {
        case '+': case '-': case '*': case '/': case '<': case '>':
            m_tok.kind = Tok::Op;
            return;
        case '(':
            m_tok.kind = Tok::LParen;
            return;
        case ')':
            m_tok.kind = Tok::RParen;
            return;
        case ',':
            m_tok.kind = Tok::Comma;
            return;
        case '^':
            fail("'^' is not a power here: write x**2 (as in Python and Brian2)", m_tok.position, 1);
        case '=':
            fail("'=' inside an expression: write '==' to compare", m_tok.position, 1);
        default:
            fail("unexpected character '" + m_tok.text + "'", m_tok.position, 1);
        }
    }

    bool isOp(const char* op) const { return m_tok.kind == Tok::Op && m_tok.text == op; }

    ExprPtr spanning(ExprPtr e, int begin) const
    {
        auto copy = std::make_shared<Expr>(*e);
        copy->position = begin;
        copy->length = std::max(1, m_lastEnd - begin);
        checkDepth(*copy);
        return copy;
    }

    /// Refuses a node more than kMaxDepth levels deep (a long chain of operations).
    void checkDepth(const Expr& e) const
    {
        if (e.depth > kMaxDepth) {
            fail("this expression is more than " + std::to_string(kMaxDepth) +
                     " operations deep; split it into subexpressions (name = ... : unit lines)",
                 e.position, e.length);
        }
    }

    /// Counts one level of brackets, unary operators, powers or calls inside one another while
    /// alive; refuses the level past kMaxNesting (recursing further could overflow the stack).
    struct Nesting {
        Nesting(Parser& parser) : parser(parser)
        {
            if (++parser.m_nesting > kMaxNesting) {
                parser.fail("brackets, signs, powers and calls nest more than " +
                                std::to_string(kMaxNesting) + " levels deep here",
                            parser.m_tok.position, 1);
            }
        }
        ~Nesting() { --parser.m_nesting; }
        Nesting(const Nesting&) = delete;
        Nesting& operator=(const Nesting&) = delete;
        Parser& parser;
    };

    void consume()
    {
        m_lastEnd = m_tok.position + static_cast<int>(m_tok.kind == Tok::End ? 0 : m_tok.text.size());
        advance();
    }

    ExprPtr parseOr()
    {
        const int begin = m_tok.position;
        ExprPtr left = parseAnd();
        while (isOp("or")) {
            consume();
            ExprPtr right = parseAnd();
            left = spanning(Expr::binary(Op::Or, left, right), begin);
        }
        return left;
    }

    ExprPtr parseAnd()
    {
        const int begin = m_tok.position;
        ExprPtr left = parseNot();
        while (isOp("and")) {
            consume();
            ExprPtr right = parseNot();
            left = spanning(Expr::binary(Op::And, left, right), begin);
        }
        return left;
    }

    ExprPtr parseNot()
    {
        const int begin = m_tok.position;
        if (isOp("not")) {
            const Nesting level(*this);
            consume();
            ExprPtr a = parseNot();
            return spanning(Expr::unary(Op::Not, a), begin);
        }
        return parseComparison();
    }

    ExprPtr parseComparison()
    {
        const int begin = m_tok.position;
        ExprPtr left = parseSum();
        static const std::map<std::string, Op> ops{{"<", Op::Lt},  {"<=", Op::Le}, {">", Op::Gt},
                                                   {">=", Op::Ge}, {"==", Op::Eq}, {"!=", Op::Ne}};
        if (m_tok.kind == Tok::Op && ops.count(m_tok.text) != 0) {
            const Op op = ops.at(m_tok.text);
            consume();
            ExprPtr right = parseSum();
            left = spanning(Expr::binary(op, left, right), begin);
            if (m_tok.kind == Tok::Op && ops.count(m_tok.text) != 0) {
                fail("chained comparisons are not supported: write (a < b) and (b < c)",
                     m_tok.position, static_cast<int>(m_tok.text.size()));
            }
        }
        return left;
    }

    ExprPtr parseSum()
    {
        const int begin = m_tok.position;
        ExprPtr left = parseProduct();
        while (isOp("+") || isOp("-")) {
            const Op op = m_tok.text == "+" ? Op::Add : Op::Sub;
            consume();
            ExprPtr right = parseProduct();
            left = spanning(Expr::binary(op, left, right), begin);
        }
        return left;
    }

    ExprPtr parseProduct()
    {
        const int begin = m_tok.position;
        ExprPtr left = parseUnary();
        while (isOp("*") || isOp("/")) {
            const Op op = m_tok.text == "*" ? Op::Mul : Op::Div;
            consume();
            ExprPtr right = parseUnary();
            left = spanning(Expr::binary(op, left, right), begin);
        }
        return left;
    }

    ExprPtr parseUnary()
    {
        const int begin = m_tok.position;
        if (isOp("-") || isOp("+")) {
            const Nesting level(*this);
            const bool negate = m_tok.text == "-";
            consume();
            ExprPtr a = parseUnary();
            return negate ? spanning(Expr::unary(Op::Neg, a), begin) : a;
        }
        return parsePower();
    }

    ExprPtr parsePower()
    {
        const int begin = m_tok.position;
        ExprPtr base = parseAtom();
        if (isOp("**")) {
            const Nesting level(*this);
            consume();
            ExprPtr exponent = parseUnary();  // right-associative, and 2**-1 is allowed
            return spanning(Expr::binary(Op::Pow, base, exponent), begin);
        }
        return base;
    }

    ExprPtr parseAtom()
    {
        const Token tok = m_tok;
        switch (tok.kind) {
        case Tok::Number:
            consume();
            return Expr::number(tok.value, tok.position, static_cast<int>(tok.text.size()));
        case Tok::Name: {
            consume();
            if (m_tok.kind != Tok::LParen) {
                if (tok.text == "True" || tok.text == "False") {
                    return Expr::number(tok.text == "True" ? 1.0 : 0.0, tok.position,
                                        static_cast<int>(tok.text.size()));
                }
                return Expr::variable(tok.text, tok.position, static_cast<int>(tok.text.size()));
            }
            const int arity = functionArity(tok.text);
            if (arity < 0) {
                fail("unknown function '" + tok.text + "' (known: exp, log, log10, sqrt, abs, sin, cos, "
                     "tan, sinh, cosh, tanh, arcsin, arccos, arctan, exprel, floor, ceil, sign, "
                     "clip, int)",
                     tok.position, static_cast<int>(tok.text.size()));
            }
            const Nesting level(*this);
            consume();  // '('
            std::vector<ExprPtr> args;
            if (m_tok.kind != Tok::RParen) {
                args.push_back(parseOr());
                while (m_tok.kind == Tok::Comma) {
                    consume();
                    args.push_back(parseOr());
                }
            }
            if (m_tok.kind != Tok::RParen) {
                fail("expected ')' to close " + tok.text + "(", m_tok.position, 1);
            }
            consume();
            if (static_cast<int>(args.size()) != arity) {
                fail(tok.text + "() takes " + std::to_string(arity) + " argument" +
                         (arity == 1 ? "" : "s") + ", got " + std::to_string(args.size()),
                     tok.position, m_lastEnd - tok.position);
            }
            ExprPtr called = Expr::call(tok.text, std::move(args), tok.position, m_lastEnd - tok.position);
            checkDepth(*called);
            return called;
        }
        case Tok::LParen: {
            const Nesting level(*this);
            consume();
            ExprPtr inner = parseOr();
            if (m_tok.kind != Tok::RParen) {
                fail("expected ')' to close the '(' at " + locate(text(), tok.position) +
                         ", found " + (m_tok.kind == Tok::End ? std::string("the end") : "'" + m_tok.text + "'"),
                     m_tok.position, 1);
            }
            consume();
            return inner;
        }
        case Tok::End:
            fail("the expression ends where a value was expected", tok.position, 1);
        default:
            fail("expected a value, found '" + tok.text + "'", tok.position,
                 static_cast<int>(tok.text.size()));
        }
    }

    TextSpan m_span;
    int m_pos;
    int m_lastEnd = 0;
    int m_nesting = 0;  ///< Nesting levels alive
    Token m_tok;
};

void write(std::ostringstream& os, const ExprPtr& e, int parentPrecedence, const NameText* nameText);

int precedence(const Expr& e)
{
    if (e.kind != NodeKind::Binary && e.kind != NodeKind::Unary) {
        return 100;
    }
    switch (e.op) {
    case Op::Or: return 1;
    case Op::And: return 2;
    case Op::Not: return 3;
    case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne: return 4;
    case Op::Add: case Op::Sub: return 5;
    case Op::Mul: case Op::Div: return 6;
    case Op::Neg: return 7;
    case Op::Pow: return 8;
    default: return 100;
    }
}

const char* symbol(Op op)
{
    switch (op) {
    case Op::Add: return " + ";
    case Op::Sub: return " - ";
    case Op::Mul: return "*";
    case Op::Div: return "/";
    case Op::Pow: return "**";
    case Op::Lt: return " < ";
    case Op::Le: return " <= ";
    case Op::Gt: return " > ";
    case Op::Ge: return " >= ";
    case Op::Eq: return " == ";
    case Op::Ne: return " != ";
    case Op::And: return " and ";
    case Op::Or: return " or ";
    default: return "?";
    }
}

void write(std::ostringstream& os, const ExprPtr& e, int parentPrecedence, const NameText* nameText)
{
    const int p = precedence(*e);
    const bool paren = p < parentPrecedence;
    if (paren) {
        os << '(';
    }
    switch (e->kind) {
    case NodeKind::Number: {
        std::ostringstream num;
        num.precision(9);
        num << e->value;
        os << num.str();
        break;
    }
    case NodeKind::Name: {
        std::optional<std::string> replaced;
        if (nameText != nullptr && *nameText) {
            replaced = (*nameText)(e->name);
        }
        os << (replaced ? *replaced : e->name);
        break;
    }
    case NodeKind::Call:
        os << e->name << '(';
        for (std::size_t i = 0; i < e->args.size(); ++i) {
            os << (i == 0 ? "" : ", ");
            write(os, e->args[i], 0, nameText);
        }
        os << ')';
        break;
    case NodeKind::Unary:
        os << (e->op == Op::Neg ? "-" : "not ");
        write(os, e->args[0], p, nameText);
        break;
    case NodeKind::Binary:
        // Left-associative operators need parentheses on an equal-precedence right operand.
        write(os, e->args[0], e->op == Op::Pow ? p + 1 : p, nameText);
        os << symbol(e->op);
        write(os, e->args[1], e->op == Op::Pow ? p : p + 1, nameText);
        break;
    }
    if (paren) {
        os << ')';
    }
}

}  // namespace

ExprPtr parseExpression(const TextSpan& span)
{
    Parser parser(span);
    return parser.parseAll();
}

std::string toString(const ExprPtr& e)
{
    std::ostringstream os;
    write(os, e, 0, nullptr);
    return os.str();
}

std::string toString(const ExprPtr& e, const NameText& nameText)
{
    std::ostringstream os;
    write(os, e, 0, &nameText);
    return os.str();
}

bool mentionsAny(const ExprPtr& e, const std::set<std::string>& names)
{
    if (e->kind == NodeKind::Name && names.count(e->name) != 0) {
        return true;
    }
    for (const auto& a : e->args) {
        if (mentionsAny(a, names)) {
            return true;
        }
    }
    return false;
}

void forEachName(const ExprPtr& e, const std::function<void(const std::string&)>& f)
{
    if (e->kind == NodeKind::Name) {
        f(e->name);
    }
    for (const auto& a : e->args) {
        forEachName(a, f);
    }
}

bool mentions(const ExprPtr& e, const std::string& n)
{
    if (e->kind == NodeKind::Name && e->name == n) {
        return true;
    }
    for (const auto& a : e->args) {
        if (mentions(a, n)) {
            return true;
        }
    }
    return false;
}

}  // namespace spike::engine::equations
