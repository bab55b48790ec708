// EquationView: the Equations tab. Shows a module's equations for users (the registry's
// ModelEquations, engine/io/module_factory.hpp) as readable mathematics: the description, the
// lines grouped by role (input events, each step, spike condition, reset, definitions), then a
// "where" list of the symbols with their meaning and unit, read from the shown module's
// attribute registry (or, for symbols that are not attributes, from the ModelEquations).
// A symbol that is an attribute of the shown module is a link: its tooltip shows the
// attribute's doc, unit and current value, and clicking it emits symbolActivated (the main
// window shows that Inspector row). Text wraps to the widget's width: no sideways scrolling.
//
// Values (setValues): with one neuron's values given, each line that evaluates
// (engine::equations::evaluateLine) gets a second line with the values substituted and the
// result ("= ((-49) - (-60) + 3)/0.02 = 700"), and a line of its terms when the right-hand side is
// a sum (leak and each input); the "with" definitions (alpha = exp(-dt / tau_mem)) are evaluated
// first, so the lines that use them evaluate too. Re-rendering keeps the scroll position.
//
// Owns: its QTextDocument. Holds the GraphDocument weakly (QPointer) and the node by id, and
// reads the module only while rendering or answering a tooltip. Thread: GUI thread only.
#pragma once

#include "ui/document/graph_document.hpp"

#include "engine/io/module_factory.hpp"

#include <QPointer>
#include <map>
#include <optional>
#include <string>
#include <QString>
#include <QStringList>
#include <QTextBrowser>

namespace spike::ui {

/// One neuron's values for the equation lines: attribute and state values by name (in the
/// module's stored units), dt and t, and their units ("volt", "s", "mV"; a value in an SI unit
/// is put in with a prefixed unit, engine::equations::quantityText).
struct EquationValues {
    std::map<std::string, double> values;
    std::map<std::string, std::string> units;
    bool operator==(const EquationValues&) const = default;
};

/// The equations of the selected module; see the file comment.
class EquationView : public QTextBrowser {
    Q_OBJECT

public:
    explicit EquationView(QWidget* parent = nullptr);

    /// The document whose modules are shown (not owned); nullptr shows nothing.
    void setGraphDocument(GraphDocument* doc);
    /// Shows the equations of module `id` (engine::modelEquationsOf: a user-written
    /// EquationNeuron's own, otherwise its type's); an invalid id shows a hint to select one, a
    /// type without equations says so in one sentence.
    void showNode(NodeId id);
    NodeId node() const { return m_node; }
    /// Shows `equations` (any Brian2-style text, e.g. typed by a user) with the symbols linked
    /// to the attributes of the node shown (showNode()), if any.
    void showEquations(const engine::ModelEquations& equations);

    /// Shows each line with `values` substituted (see the file comment); nullopt shows the
    /// equations alone.
    void setValues(std::optional<EquationValues> values);
    /// The value lines shown, as plain text, in order ("dv/dt = ... = 575"); empty without values.
    QStringList valueLines() const { return m_valueLines; }

    /// The attribute names shown as links, in order of first appearance.
    QStringList linkedSymbols() const { return m_linked; }
    /// The symbols of the "where" list, in order.
    QStringList whereSymbols() const { return m_where; }
    /// The tooltip of symbol `name`: the attribute's doc, unit and current value ("" when it is
    /// not an attribute of the shown module).
    QString symbolToolTip(const QString& name) const;
    /// The attribute named by the link at `pos` (viewport coordinates), or "".
    QString symbolAt(const QPoint& pos) const;

Q_SIGNALS:
    /// A symbol link was clicked (or activated from the keyboard): attribute `name`.
    void symbolActivated(const QString& name);

protected:
    bool viewportEvent(QEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    /// The module shown, or nullptr.
    const engine::Module* module() const;
    void render(const engine::ModelEquations& equations);
    void showMessage(const QString& text);
    /// What the "where" list says about `symbol` ("" when nothing is known about it).
    QString meaningOf(const QString& symbol, const engine::ModelEquations& equations) const;
    /// The rich text shown under `line` with m_values put in ("" when the line has no values);
    /// appends its plain text to m_valueLines.
    QString valuesHtml(const engine::EquationLine& line, const EquationValues& values, const QString& colour);

    QPointer<GraphDocument> m_doc;
    NodeId m_node;
    engine::ModelEquations m_shown;  ///< what is shown, re-rendered when the palette changes
    bool m_hasEquations = false;
    std::optional<EquationValues> m_values;
    QStringList m_valueLines;
    QStringList m_linked;
    QStringList m_where;
};

}  // namespace spike::ui
