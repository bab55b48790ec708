// EquationEditor: the inspector's "Equations" group for a neuron population defined by a model
// text (engine::EquationNeuron, docs/equations.md). For the user's own model (type
// EquationNeuron) the text is editable in a monospace field: while typing it is checked
// (debounced, ~300 ms) with equations::parseModel and compileModel at the node's dt, a mistake is
// underlined (red wave) at its character(s) and named under the field with line and column, and
// Apply (or Ctrl+Return) is enabled only for a good, changed text. Apply pushes one
// ConfigureNodeCommand with the config's "equations" replaced (undoable; while a run goes on, it
// is rebuilt and continues). A library model (Izhikevich, AdEx, ...) shows its text read-only,
// with "Copy as custom neuron": one ReplaceNodeCommand puts an EquationNeuron with the same text,
// size, values and wires in its place (the same node id), whose text is then editable.
// A model with presets gets a "Preset" combo box: choosing one sets every parameter it names, for
// all neurons, as one undo step (through the inspector's edit pipeline, PushChanges); the combo
// shows the preset that the current parameters equal ("—" when none).
//
// Owns: its widgets. Holds the document weakly (QPointer) and the node by id. Invariants: the
// text shown is the module's unless the user has edited it since it was loaded from the same
// module (an attribute edit, a refresh keeps the typing; an undo that changes the module's text
// replaces it). Thread: GUI thread only.
#pragma once

#include "ui/document/graph_document.hpp"

#include <QGroupBox>
#include <QPointer>
#include <QString>
#include <QTimer>

#include <functional>
#include <string>
#include <utility>
#include <vector>

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace spike::ui {

/// The Equations group of the inspector; see the file comment.
class EquationEditor : public QGroupBox {
    Q_OBJECT

public:
    /// Pushes attribute changes of the shown node as one undo step titled `text`; false when
    /// refused (the inspector's edit pipeline: gate, commands, refusal shown).
    using PushChanges =
        std::function<bool(const std::vector<std::pair<std::string, engine::AttributeValue>>&, const QString&)>;

    explicit EquationEditor(QWidget* parent = nullptr);

    void setPushChanges(PushChanges push) { m_push = std::move(push); }
    /// Shows module `id` of `doc`; hidden unless it is an EquationNeuron (library or custom).
    void showNode(GraphDocument* doc, NodeId id);
    /// Reads the preset matching the current parameters again (after an attribute change).
    void refreshPreset();

    /// Whether the shown model is the user's own (editable) text.
    bool isEditable() const { return m_editable; }
    QPlainTextEdit* textEdit() const { return m_text; }
    QPushButton* applyButton() const { return m_apply; }
    /// "Copy as custom neuron" (shown for a library model).
    QPushButton* copyButton() const { return m_copy; }
    /// The preset box (hidden for a model without presets).
    QComboBox* presetBox() const { return m_presets; }
    /// The message under the text: the mistake ("line 2, column 14: ...") or what Apply does.
    QString message() const;
    /// The underlined range [start, start + length) in the text's characters; length 0 when none.
    std::pair<int, int> errorRange() const { return m_error; }
    /// Checks the text now (what the debounce timer does).
    void checkNow();
    /// Applies the text (one ConfigureNodeCommand); false with the reason shown when refused.
    bool apply();
    /// Replaces a library model's node by an EquationNeuron of the same text (one undo step);
    /// false with the reason shown when refused.
    bool copyAsCustom();
    /// Sets the parameters of preset `name` (one undo step); false when refused or unknown.
    bool applyPreset(const QString& name);

Q_SIGNALS:
    /// Module `id` was rebuilt with the new text, or replaced by a custom copy (one undo step
    /// pushed); the same id names it.
    void configured(spike::ui::NodeId id);
    /// A refused apply rolled back after the views had let module `id` go: show it again.
    void showAgain(spike::ui::NodeId id);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    /// The message line: `error` in red, otherwise in grey.
    void say(const QString& text, bool error);
    void underline(int start, int length);
    /// The module's model text ("" when the shown module is not an EquationNeuron).
    std::string moduleText() const;
    /// The module's time step [s] (1 ms when it has none).
    double moduleDt() const;

    QPointer<GraphDocument> m_doc;
    NodeId m_node;
    bool m_editable = false;
    QString m_loaded;  ///< the module's text when it was last loaded into the field
    bool m_good = false;  ///< the text parsed and compiled at the last check
    std::pair<int, int> m_error{0, 0};
    PushChanges m_push;
    QTimer m_debounce;

    QLabel* m_intro = nullptr;
    QComboBox* m_presets = nullptr;
    QWidget* m_presetRow = nullptr;
    QPlainTextEdit* m_text = nullptr;
    QPushButton* m_apply = nullptr;
    QPushButton* m_copy = nullptr;
    QLabel* m_message = nullptr;
};

}  // namespace spike::ui
