// SettingsPanel: the inspector's "Settings" group, the constructor settings of the shown module
// (population size, has_rec, in/out features, kernel size, ...), generated only from the type's
// declared schema (engine::ModuleTypeInfo::settings): an Integer is a line edit that commits on
// Enter or when the focus leaves it (any text may be typed; what is refused shows its reason
// under the row and the field returns to the module's value), a Boolean a check box, a Choice a
// combo box. Each row has the setting's doc as tooltip and a small grey line with its bounds.
// A change is checked by engine::configWithSetting() and pushed as one ConfigureNodeCommand
// (undoable, allowed while a simulation runs: a structural edit); the reasons the engine or the
// command give are shown inline and nothing changes. After a change, what did not carry over
// unchanged (the command's notes) is listed under the group while that module is shown.
// Modules whose settings cannot be changed (the root, a container, a Sequential's child) show
// them read-only with the reason.
// Owns: its rows (rebuilt per module, retired like the attribute rows: deleted once control is
// back in the event loop). Holds the document weakly and the node by id. Thread: GUI thread only.
#pragma once

#include "ui/document/graph_document.hpp"

#include <QGroupBox>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

class QLabel;
class QWidget;

namespace spike::ui {

/// The inspector's Settings group; see the file comment.
class SettingsPanel : public QGroupBox {
    Q_OBJECT

public:
    explicit SettingsPanel(QWidget* parent = nullptr);

    /// Shows the settings of module `id` of `doc` (hidden when its type declares none).
    void showNode(GraphDocument* doc, NodeId id);
    /// Reads every row's value from the module again (after an undo, a load).
    void refresh();
    /// Whether the shown module's type declares settings (the group is shown).
    bool hasRows() const { return !m_rows.empty(); }
    /// Names of the rows, in display order.
    QStringList settingNames() const;
    /// The editor of setting `name` (a QLineEdit, QCheckBox or QComboBox), or nullptr.
    QWidget* editorFor(const QString& name) const;
    /// The refusal shown under the row of `name` ("" when none).
    QString messageFor(const QString& name) const;
    /// The last refusal shown ("" after a successful change).
    QString lastMessage() const { return m_lastMessage; }
    /// The notes of the last change of the shown module, one per line ("" when none).
    QString notesText() const;
    /// Why the settings are read-only ("" when they may be changed).
    QString readOnlyReason() const { return m_readOnly; }
    /// Sets setting `name` to `value` (checked, then one ConfigureNodeCommand); false with the
    /// reason shown under the row when refused. An unchanged value does nothing (true).
    bool commit(const std::string& name, const nlohmann::json& value);

Q_SIGNALS:
    /// Module `id` was rebuilt with new settings (one undo step pushed); the same id names it.
    void configured(spike::ui::NodeId id);
    /// A refused change rolled back after the views had let module `id` go: show it again.
    void showAgain(spike::ui::NodeId id);

private:
    struct Row {
        std::string name;
        int kind = 0;  ///< engine::SettingKind
        QWidget* editor = nullptr;
        QLabel* message = nullptr;
    };

    void clearRows();
    void addRow(std::size_t index);
    Row* findRow(const std::string& name);
    void showValue(Row& row);
    void refuse(Row* row, const QString& message);
    /// The text of an Integer row as a whole number; nullopt (with the reason) when it is not.
    nlohmann::json parseInteger(const QString& text, QString& why) const;

    QPointer<GraphDocument> m_doc;
    NodeId m_node;
    std::string m_type;
    QString m_readOnly;
    QString m_lastMessage;
    QLabel* m_readOnlyNote = nullptr;
    QLabel* m_notes = nullptr;
    QWidget* m_inner = nullptr;
    std::vector<Row> m_rows;
    NodeId m_notesNode;                ///< whose notes m_noteLines are
    std::vector<std::string> m_noteLines;
};

}  // namespace spike::ui
