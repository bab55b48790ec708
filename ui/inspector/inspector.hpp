// Inspector: shows and edits the attributes of one module of a GraphDocument, built entirely
// from the engine's attribute registry (no per-model widget code). Rows are grouped by kind
// (Parameters, Simulation parameters, States), in registration order; each row's editor is
// chosen by inspector_editors.hpp from the spec and the value's shape. A module that computes
// summary statistics (Module::statistics(), a DynamicsNetwork's weight means) shows them in a
// read-only "Statistics" group above the attributes; its constructor settings (size, options)
// are a "Settings" group above those (inspector_settings.hpp); a population defined by equations
// shows its text and presets in an "Equations" group below that (equation_editor.hpp).
//
// Owns: its widgets and the rows of the shown module. Holds the document weakly (QPointer) and
// the node by id. Invariants: every row corresponds to one attribute of module.attributes(), no
// more, no fewer; the inspector changes the document only by pushing SetAttributeCommands
// (after the edit gate agrees), so every edit is undoable and consecutive edits of one
// attribute merge into one undo step; updates coming back from the document (attributeChanged,
// undo, redo) refresh the editors without pushing anything; a refused edit shows its reason
// under the row and the editor returns to the document's value; the statistics shown are
// recomputed whenever an attribute of the module or of any module below it changes.
// Thread: GUI thread only.
#pragma once

#include "ui/document/graph_document.hpp"

#include <QPointer>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

class QComboBox;
class QGroupBox;
class QLabel;
class QPushButton;
class QScrollArea;
class QVBoxLayout;

namespace spike::ui {

class AttributeEditor;
class EquationEditor;
class SettingsPanel;

/// The attribute inspector; see the file comment.
class Inspector : public QWidget {
    Q_OBJECT

public:
    /// Decides whether an edit may go ahead: an empty string allows it, anything else is the
    /// reason it is refused (shown under the row).
    using EditGate = std::function<QString(NodeId, const engine::AttributeSpec&)>;

    explicit Inspector(QWidget* parent = nullptr);
    ~Inspector() override;

    /// The document to follow (not owned); nullptr clears the inspector.
    void setDocument(GraphDocument* doc);
    /// Shows module `id` of the document; an invalid or unknown id shows "select a module".
    void showNode(NodeId id);
    NodeId node() const { return m_node; }
    /// Asked before every edit is pushed; return an empty string to allow it, or the reason to
    /// refuse it (shown inline, the widget reverts). The main window uses it to refuse
    /// non-live-editable attributes while running ("pause to change tau_mem: it needs a
    /// rebuild").
    void setEditGate(EditGate gate) { m_gate = std::move(gate); }
    /// The States group's (short) title, a wrapped note under it (also its tooltip; empty:
    /// none) and its values: `values` (the States of the shown module in a paused run,
    /// LiveRun::readStates()) replace the document's in the editors until the next call or
    /// another module is shown; empty: the document's own (initial) values. Editing a State
    /// shown this way sets it in the document and, through RunSession, in the run: both show
    /// the new value.
    void showRunStates(const QString& title, std::map<std::string, engine::AttributeValue> values = {},
                       const QString& note = {});
    /// The States showRunStates() shows instead of the document's (empty: the document's).
    const std::map<std::string, engine::AttributeValue>& runStates() const { return m_runStates; }
    /// The note showRunStates() put under the States title ("" when none).
    QString statesNote() const;
    /// The States group's title ("States", or showRunStates()' title).
    QString statesTitle() const;
    /// Shows only rows of `family` ("" shows all).
    void setFamilyFilter(const QString& family);
    QString familyFilter() const { return m_family; }
    /// The families the shown module's attributes have (non-empty ones, registration order).
    QStringList families() const;
    /// The editor widget of attribute `name` (tests), or nullptr.
    QWidget* editorFor(const QString& name) const;
    /// Whether the family filter lets the row of attribute `name` show; false when there is
    /// no such row.
    bool rowVisible(const QString& name) const;
    /// Names of every row, in display order.
    QStringList rowNames() const;
    /// Brings the row of attribute `name` into view (clearing a family filter that hides it,
    /// expanding its group) and gives its editor the keyboard focus when it can take it (a
    /// derived attribute's cannot); false when there is no such row. The inspector must be
    /// visible for the focus to take.
    bool focusRow(const QString& name);
    /// Names of the shown module's statistics, in display order (empty when it has none).
    QStringList statisticNames() const;
    /// The text shown as the value of statistic `name` ("" when there is no such statistic).
    QString statisticText(const QString& name) const;
    /// The last refusal or validation message shown ("" when none).
    QString lastMessage() const { return m_lastMessage; }
    /// The Settings group above the attributes (inspector_settings.hpp): the shown module's
    /// constructor settings.
    SettingsPanel* settings() const { return m_settings; }
    /// The Equations group (equation_editor.hpp): the text and presets of an EquationNeuron.
    EquationEditor* equationEditor() const { return m_equationEditor; }

    /// Restores every Parameter and SimulationParameter to its default as one undo step;
    /// returns false (with lastMessage()) when refused.
    bool resetParameters();
    /// Restores every State (except those resetState() keeps) to its initial value as one
    /// undo step; returns false (with lastMessage()) when refused.
    bool resetState();

Q_SIGNALS:
    /// An edit was pushed (one SetAttributeCommand, possibly merged) for attribute `name` of
    /// `id`.
    void edited(spike::ui::NodeId id, const QString& name);
    /// Module `id` was rebuilt with new settings (one ConfigureNodeCommand); the inspector shows
    /// it again (the rebuild took it out of the document and put it back under the same id).
    /// Also emitted when an undo or redo puts back, under its id, the module the inspector
    /// showed when it was taken out (a rebuild undone): it is shown again.
    void configured(spike::ui::NodeId id);

private:
    struct Row {
        std::string name;
        std::string family;
        int group = 0;
        bool derived = false;
        std::vector<QWidget*> cells;  ///< every widget of the row (for the filter)
        QLabel* nameLabel = nullptr;
        QString bounds;          ///< "[unit] · accepted values", as the info line shows them
        QLabel* info = nullptr;  ///< bounds · family · derived, under the editor
        AttributeEditor* editor = nullptr;
        QLabel* message = nullptr;
    };

    void rebuild();
    /// Whether the rows shown are exactly the shown module's attributes, in order, each with
    /// the editor kind its value calls for (then an update needs no rebuild).
    bool rowsMatchModule() const;
    /// Takes a container of rows out of the inspector and deletes it later (see inspector.cpp).
    static void retire(QWidget* container);
    void clearRows();
    void updateHeader();
    void addRow(const engine::AttributeView& view);
    Row* findRow(const std::string& name);
    void refreshRow(Row& row);
    void refreshAll();
    void applyFilter();
    bool commitEdit(const std::string& name, const engine::AttributeValue& value, const QString& step);
    void showRefusal(Row* row, const QString& message);
    void clearRefusal(Row* row);
    bool pushChanges(const std::vector<std::pair<std::string, engine::AttributeValue>>& changes,
                     const QString& text);
    void rebuildStatistics();
    void refreshStatistics();
    bool isAtOrBelowShown(NodeId id) const;
    void onAttributeChanged(NodeId id, const QString& name);
    void onStructureChanged();

    QPointer<GraphDocument> m_doc;
    NodeId m_node;
    NodeId m_previousNode;  ///< the module shown before m_node
    NodeId m_lostNode;      ///< the module shown when it was taken out of the document (see configured)
    EditGate m_gate;
    QString m_family;
    QString m_lastMessage;
    bool m_rebuildPending = false;
    std::map<std::string, engine::AttributeValue> m_runStates;  ///< showRunStates(): a paused run's States

    QLabel* m_title = nullptr;
    QLabel* m_statesNote = nullptr;  ///< under the States title (showRunStates())
    QLabel* m_emptyNote = nullptr;
    QComboBox* m_familyBox = nullptr;
    QScrollArea* m_scroll = nullptr;
    QWidget* m_body = nullptr;
    QVBoxLayout* m_bodyLayout = nullptr;
    QGroupBox* m_groups[3] = {nullptr, nullptr, nullptr};
    QWidget* m_inner[3] = {nullptr, nullptr, nullptr};  ///< each group's rows, rebuilt per module
    int m_gridRows[3] = {0, 0, 0};
    SettingsPanel* m_settings = nullptr;
    EquationEditor* m_equationEditor = nullptr;
    QGroupBox* m_statisticsGroup = nullptr;
    QWidget* m_statisticsInner = nullptr;  ///< the statistics' rows, rebuilt per module
    std::vector<std::pair<std::string, QLabel*>> m_statistics;  ///< name, value label
    QPushButton* m_resetParameters = nullptr;
    QPushButton* m_resetState = nullptr;
    std::vector<Row> m_rows;
    std::vector<QMetaObject::Connection> m_connections;
};

}  // namespace spike::ui
