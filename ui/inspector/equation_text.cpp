// Equation text as readable mathematics: a tokeniser and a renderer of Brian2-style lines. See
// equation_text.hpp.
#include "ui/inspector/equation_text.hpp"

#include <QHash>
#include <QRegularExpression>

#include <vector>

namespace spike::ui {

namespace {

enum class TokenKind { Identifier, Number, Operator, Space, Other };

struct Token {
    TokenKind kind = TokenKind::Other;
    QString text;
};

/// Superscripts inside superscripts beyond this are shown as typed ("2**2**2**...").
constexpr int kMaxDepth = 6;

/// Longest first, so that "**" is not read as two "*".
const QStringList& operators()
{
    static const QStringList ops = {
        QStringLiteral("**"), QStringLiteral("<="), QStringLiteral(">="), QStringLiteral("=="),
        QStringLiteral("!="), QStringLiteral("+="), QStringLiteral("-="), QStringLiteral("*="),
        QStringLiteral("/="), QStringLiteral("->"), QStringLiteral("<"),  QStringLiteral(">"),
        QStringLiteral("="),  QStringLiteral("+"),  QStringLiteral("-"),  QStringLiteral("*"),
        QStringLiteral("/"),  QStringLiteral("^"),  QStringLiteral("("),  QStringLiteral(")"),
        QStringLiteral("["),  QStringLiteral("]"),  QStringLiteral(","),  QStringLiteral("@"),
        QStringLiteral("%"),  QStringLiteral(":"),  QStringLiteral(";"),  QStringLiteral("!"),
    };
    return ops;
}

bool isAsciiLetter(QChar c)
{
    return (c >= QLatin1Char('a') && c <= QLatin1Char('z')) || (c >= QLatin1Char('A') && c <= QLatin1Char('Z'));
}

bool isAsciiDigit(QChar c)
{
    return c >= QLatin1Char('0') && c <= QLatin1Char('9');
}

bool isIdentifierStart(QChar c)
{
    return isAsciiLetter(c) || c == QLatin1Char('_');
}

std::vector<Token> tokenise(const QString& text)
{
    std::vector<Token> tokens;
    const qsizetype n = text.size();
    qsizetype i = 0;
    const auto take = [&](TokenKind kind, qsizetype end) {
        tokens.push_back({kind, text.mid(i, end - i)});
        i = end;
    };
    while (i < n) {
        const QChar c = text[i];
        qsizetype j = i + 1;
        if (c.isSpace()) {
            while (j < n && text[j].isSpace()) {
                ++j;
            }
            i = j;
            tokens.push_back({TokenKind::Space, QStringLiteral(" ")});
        } else if (isIdentifierStart(c)) {
            while (j < n && (isIdentifierStart(text[j]) || isAsciiDigit(text[j]))) {
                ++j;
            }
            take(TokenKind::Identifier, j);
        } else if (isAsciiDigit(c) || (c == QLatin1Char('.') && j < n && isAsciiDigit(text[j]))) {
            while (j < n && (isAsciiDigit(text[j]) || text[j] == QLatin1Char('.'))) {
                ++j;
            }
            // An exponent only when digits follow: "1e-3", but "2e" is 2 then e.
            if (j < n && (text[j] == QLatin1Char('e') || text[j] == QLatin1Char('E'))) {
                qsizetype k = j + 1;
                if (k < n && (text[k] == QLatin1Char('+') || text[k] == QLatin1Char('-'))) {
                    ++k;
                }
                if (k < n && isAsciiDigit(text[k])) {
                    while (k < n && isAsciiDigit(text[k])) {
                        ++k;
                    }
                    j = k;
                }
            }
            take(TokenKind::Number, j);
        } else {
            bool matched = false;
            for (const QString& op : operators()) {
                if (text.mid(i, op.size()) == op) {
                    take(TokenKind::Operator, i + op.size());
                    matched = true;
                    break;
                }
            }
            if (!matched) {
                // One character as typed (both halves of a surrogate pair together).
                take(TokenKind::Other, c.isHighSurrogate() && j < n && text[j].isLowSurrogate() ? j + 1 : j);
            }
        }
    }
    return tokens;
}

QString greekOr(const QString& name)
{
    static const QHash<QString, QString> greek = [] {
        const char* const names[] = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta",
                                     "theta", "iota", "kappa", "lambda", "mu", "nu", "xi",
                                     "omicron", "pi", "rho", "sigma", "tau", "upsilon", "phi",
                                     "chi", "psi", "omega"};
        QHash<QString, QString> map;
        char16_t lower = u'α';
        for (const char* name : names) {
            if (lower == u'ς') {
                ++lower;  // final sigma: the letter after rho is σ
            }
            const QString key = QString::fromLatin1(name);
            map.insert(key, QString(QChar(lower)));
            map.insert(key.left(1).toUpper() + key.mid(1), QString(QChar(lower - (u'α' - u'Α'))));
            ++lower;
        }
        return map;
    }();
    const auto it = greek.constFind(name);
    return it != greek.constEnd() ? *it : name.toHtmlEscaped();
}

bool isKeyword(const QString& name)
{
    static const QStringList words = {QStringLiteral("and"), QStringLiteral("or"), QStringLiteral("not"),
                                      QStringLiteral("True"), QStringLiteral("False"),
                                      QStringLiteral("if"), QStringLiteral("else")};
    return words.contains(name);
}

QString functionHtml(const QString& name)
{
    if (name == QLatin1String("sqrt")) {
        return QStringLiteral("√");
    }
    if (name == QLatin1String("sum")) {
        return QStringLiteral("Σ");
    }
    return name.toHtmlEscaped();  // upright: only variables are italic
}

QString numberHtml(const QString& number)
{
    static const QRegularExpression scientific(QStringLiteral("^([0-9.]*)[eE]([+-]?)([0-9]+)$"));
    const QRegularExpressionMatch m = scientific.match(number);
    if (!m.hasMatch()) {
        return number.toHtmlEscaped();
    }
    const QString mantissa = m.captured(1);
    const QString exponent = (m.captured(2) == QLatin1String("-") ? QStringLiteral("−") : QString()) + m.captured(3);
    const QString power = QStringLiteral("10<sup>%1</sup>").arg(exponent);
    return mantissa == QLatin1String("1") ? power : mantissa + QStringLiteral("·") + power;
}

QString operatorHtml(const QString& op)
{
    static const QHash<QString, QString> shown = {
        {QStringLiteral("*"), QStringLiteral("·")},   {QStringLiteral("@"), QStringLiteral("·")},
        {QStringLiteral("-"), QStringLiteral("−")},   {QStringLiteral("<="), QStringLiteral("≤")},
        {QStringLiteral(">="), QStringLiteral("≥")},  {QStringLiteral("!="), QStringLiteral("≠")},
        {QStringLiteral("=="), QStringLiteral("=")},  {QStringLiteral("->"), QStringLiteral("→")},
        {QStringLiteral("-="), QStringLiteral("−=")}, {QStringLiteral("*="), QStringLiteral("·=")},
        {QStringLiteral("%"), QStringLiteral(" mod ")},
    };
    const auto it = shown.constFind(op);
    return it != shown.constEnd() ? *it : op.toHtmlEscaped();
}

/// Renders a token range; recursive only into the operands of powers (at most kMaxDepth deep).
class Renderer {
public:
    Renderer(const std::vector<Token>& tokens, const SymbolLinkTest& isLink, QStringList& symbols)
        : m_t(tokens), m_isLink(isLink), m_symbols(symbols)
    {
    }

    QString render(int begin, int end, int depth)
    {
        QString out;
        int i = begin;
        while (i < end) {
            const Token& t = m_t[i];
            if (t.kind == TokenKind::Space) {
                const int next = skipSpaces(i, end);
                if (next >= end || !isPower(next)) {
                    out += QLatin1Char(' ');  // no space before a superscript
                }
                i = next;
            } else if (t.kind == TokenKind::Identifier) {
                const int next = skipSpaces(i + 1, end);
                if (next < end && is(next, "(") && !linked(t.text) && !isKeyword(t.text)) {
                    out += functionHtml(t.text);
                    i = next;  // the argument list follows as it is
                    continue;
                }
                out += wordHtml(t.text, depth);
                ++i;
            } else if (t.kind == TokenKind::Number) {
                out += numberHtml(t.text);
                ++i;
            } else if (isPower(i)) {
                i = power(i, end, depth, out);
            } else if (t.kind == TokenKind::Operator) {
                out += operatorHtml(t.text);
                ++i;
            } else {
                out += t.text.toHtmlEscaped();
                ++i;
            }
        }
        return out;
    }

    /// The variable `name` as a symbol, a link when it is one; counted in the symbols used.
    /// Inside a superscript (depth > 0) a name with an index is shown as typed: Qt's rich text
    /// cannot set a subscript inside a superscript.
    QString variable(const QString& name, int depth)
    {
        if (!m_symbols.contains(name)) {
            m_symbols << name;
        }
        static const QRegularExpression indexed(QStringLiteral("[_0-9]"));
        const QString html = depth > 0 && name.contains(indexed) ? QStringLiteral("<i>%1</i>").arg(name)
                                                                 : symbolHtml(name);
        return linked(name) ? QStringLiteral("<a href=\"%1%2\">%3</a>").arg(QLatin1String(kSymbolLinkScheme), name, html)
                            : html;
    }

    bool is(int i, const char* text) const
    {
        return i >= 0 && i < static_cast<int>(m_t.size()) && m_t[i].kind == TokenKind::Operator &&
               m_t[i].text == QLatin1String(text);
    }

    int skipSpaces(int i, int end) const
    {
        while (i < end && m_t[i].kind == TokenKind::Space) {
            ++i;
        }
        return i;
    }

private:
    bool linked(const QString& name) const { return m_isLink && m_isLink(name); }

    bool isPower(int i) const { return is(i, "**") || is(i, "^"); }

    QString wordHtml(const QString& name, int depth)
    {
        if (isKeyword(name)) {
            return QStringLiteral(" %1 ").arg(name);  // upright; spaces collapse in HTML
        }
        if (name == QLatin1String("pi") && !linked(name)) {
            return QStringLiteral("π");
        }
        return variable(name, depth);
    }

    /// Index of the ")" matching the "(" at `open`, or -1.
    int matchParen(int open, int end) const
    {
        int depth = 0;
        for (int i = open; i < end; ++i) {
            if (is(i, "(")) {
                ++depth;
            } else if (is(i, ")") && --depth == 0) {
                return i;
            }
        }
        return -1;
    }

    /// End of the operand of a power starting at `k`: [sign] number, name, call or (group); -1
    /// when there is none.
    int operandEnd(int k, int end) const
    {
        if (k < end && (is(k, "-") || is(k, "+"))) {
            k = skipSpaces(k + 1, end);
        }
        if (k >= end) {
            return -1;
        }
        if (m_t[k].kind == TokenKind::Number) {
            return k + 1;
        }
        if (m_t[k].kind == TokenKind::Identifier) {
            const int next = skipSpaces(k + 1, end);
            const int close = next < end && is(next, "(") ? matchParen(next, end) : -1;
            return close >= 0 ? close + 1 : k + 1;
        }
        if (is(k, "(")) {
            const int close = matchParen(k, end);
            return close >= 0 ? close + 1 : -1;
        }
        return -1;
    }

    /// Renders the power at `i` as a superscript into `out`; returns the index after it.
    int power(int i, int end, int depth, QString& out)
    {
        const int first = skipSpaces(i + 1, end);
        const int last = depth < kMaxDepth ? operandEnd(first, end) : -1;
        if (last < 0) {
            out += m_t[i].text.toHtmlEscaped();  // shown as typed
            return i + 1;
        }
        // A parenthesised exponent loses its parentheses: 2**(-n) is 2 to the -n.
        const bool group = is(first, "(") && matchParen(first, end) == last - 1;
        out += QStringLiteral("<sup>") +
               (group ? render(first + 1, last - 1, depth + 1) : render(first, last, depth + 1)) +
               QStringLiteral("</sup>");
        return last;
    }

    const std::vector<Token>& m_t;
    const SymbolLinkTest& m_isLink;
    QStringList& m_symbols;
};

/// Index of the first ':' outside brackets (Brian2's unit part), or -1.
qsizetype unitSeparator(const QString& text)
{
    int depth = 0;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (c == QLatin1Char('(') || c == QLatin1Char('[')) {
            ++depth;
        } else if (c == QLatin1Char(')') || c == QLatin1Char(']')) {
            --depth;
        } else if (c == QLatin1Char(':') && depth == 0) {
            return i;
        }
    }
    return -1;
}

}  // namespace

QString symbolHtml(const QString& identifier)
{
    QStringList parts = identifier.split(QLatin1Char('_'), Qt::SkipEmptyParts);
    if (parts.isEmpty()) {
        return identifier.toHtmlEscaped();
    }
    QString base = parts.takeFirst();
    if (parts.isEmpty()) {
        // Trailing digits are an index: v0, x12.
        static const QRegularExpression indexed(QStringLiteral("^([A-Za-z]+)([0-9]+)$"));
        const QRegularExpressionMatch m = indexed.match(base);
        if (m.hasMatch()) {
            base = m.captured(1);
            parts << m.captured(2);
        }
    }
    QString html = QStringLiteral("<i>%1</i>").arg(greekOr(base));
    if (!parts.isEmpty()) {
        QStringList subscripts;
        for (const QString& part : parts) {
            // A one-letter index (post_j) is a variable; a label (v_th) is upright.
            subscripts << (part.size() == 1 && isAsciiLetter(part[0]) ? QStringLiteral("<i>%1</i>").arg(part)
                                                                      : greekOr(part));
        }
        html += QStringLiteral("<sub>%1</sub>").arg(subscripts.join(QLatin1Char(' ')));
    }
    return html;
}

RenderedEquation renderEquation(const QString& line, const SymbolLinkTest& isLink)
{
    RenderedEquation result;
    QString math = line;
    QStringList notes;
    const qsizetype hash = math.indexOf(QLatin1Char('#'));
    QString comment;
    if (hash >= 0) {
        comment = math.mid(hash + 1).trimmed();
        math.truncate(hash);
    }
    const qsizetype colon = unitSeparator(math);
    if (colon >= 0) {
        const QString unit = math.mid(colon + 1).trimmed();
        if (!unit.isEmpty()) {
            notes << QStringLiteral(": ") + unit;
        }
        math.truncate(colon);
    }
    if (!comment.isEmpty()) {
        notes << comment;
    }
    result.note = notes.join(QStringLiteral(" — ")).toHtmlEscaped();

    const std::vector<Token> tokens = tokenise(math.trimmed());
    Renderer renderer(tokens, isLink, result.symbols);
    const int end = static_cast<int>(tokens.size());
    int begin = 0;
    // A derivative on the left: dv/dt, di_exc/dt (Brian2 allows it only there).
    if (end >= 3 && tokens[0].kind == TokenKind::Identifier && tokens[0].text.size() > 1 &&
        tokens[0].text.startsWith(QLatin1Char('d')) && renderer.is(1, "/") &&
        tokens[2].kind == TokenKind::Identifier && tokens[2].text == QLatin1String("dt")) {
        const int next = renderer.skipSpaces(3, end);
        if (next < end && renderer.is(next, "=")) {
            result.math = QStringLiteral("d") + renderer.variable(tokens[0].text.mid(1), 0) + QStringLiteral("/d<i>t</i>");
            begin = 3;
        }
    }
    result.math += renderer.render(begin, end, 0);
    return result;
}

}  // namespace spike::ui
