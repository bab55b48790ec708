// Equation text as readable mathematics: one line of Brian2-style equation text ("dv/dt =
// (v_rest - v) / tau_mem : volt (unless refractory)  # note", "vmem >= threshold",
// "alpha = 1 - 2**(-dash_mem)") becomes rich text for a QTextDocument. Identifiers with an
// underscore become base and subscript (tau_mem: τ with subscript mem), Greek names become
// letters, ** and ^ superscripts, * a middle dot, dv/dt d v / d t with italic variables, function
// names upright, <= and >= ≤ and ≥, minus signs real minus signs; a Brian2 unit part (": volt")
// and a comment ("# ...") follow in a grey line. Inside a superscript a name with an index keeps
// its underscore (Qt's rich text has no subscript inside a superscript). Whatever is not
// understood is shown as typed, escaped; no input makes it fail (the superscript nesting is
// bounded).
// Pure functions, no widgets: any thread, though the GUI thread is the one that uses them.
#pragma once

#include <QString>
#include <QStringList>

#include <functional>

namespace spike::ui {

/// The href prefix of a symbol link: <a href="symbol:tau_mem">.
inline constexpr const char* kSymbolLinkScheme = "symbol:";

/// Whether an identifier of the equations is a link (an attribute of the module shown).
using SymbolLinkTest = std::function<bool(const QString& identifier)>;

/// One equation line, rendered.
struct RenderedEquation {
    QString math;          ///< the equation as rich text (no enclosing paragraph)
    QString note;          ///< the unit part and the comment, escaped plain text ("" when none)
    QStringList symbols;   ///< the identifiers used as variables, in order of first appearance
};

/// Renders `line`; identifiers for which `isLink` is true become <a href="symbol:NAME"> links.
/// `isLink` may be empty (no links).
RenderedEquation renderEquation(const QString& line, const SymbolLinkTest& isLink = {});

/// An identifier as a math symbol: italic base (Greek names as letters) and upright subscripts
/// from the parts after underscores or trailing digits: "tau_mem", "v_th", "v0", "post_j".
QString symbolHtml(const QString& identifier);

}  // namespace spike::ui
