// ConnectionPanel: what the Inspector dock shows while one wire is selected. Title "Wire
// a.out (100) → b.in (50)", a one-line summary (summarizeWire()), the projection kind (a combo:
// None (identity) / One-to-one / Dense / Sparse random; kinds that do not fit the sizes are
// disabled with the reason as tooltip), the connection's Delayed flag, then per kind: for Dense
// an "Initialise weights" row (constant, uniform, normal, Kaiming uniform with their parameters
// and a seed; Apply sets "weight" to engine::initialWeights() as one undo step), for Sparse the
// delay in milliseconds beside its steps ("2 steps = 2.0 ms at dt 1 ms"; dt from the target
// node's "dt", else the source's, else 1 ms). Below, an embedded Inspector shows the projection's
// own attributes (the dense matrix with its heat-map editor, the sparse rule, p, weight, seed...).
//
// Owns: its widgets. Holds the document weakly and the wire by ConnectionId, which the
// projection commands keep, so the panel follows the wire through kind changes, undo and redo.
// Every change is an undo command (SetProjectionCommand, SetDelayedCommand, SetAttributeCommand)
// pushed after the edit gate agrees; a refused or malformed input is shown under the controls
// with the reason and nothing changes.
// Thread: GUI thread only.
#pragma once

#include "ui/document/graph_commands.hpp"
#include "ui/document/graph_document.hpp"
#include "ui/inspector/inspector.hpp"

#include <QPointer>
#include <QWidget>

#include <memory>

class QCheckBox;
class QComboBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace spike::ui {

/// The selected wire's projection editor; see the file comment.
class ConnectionPanel : public QWidget {
    Q_OBJECT

public:
    explicit ConnectionPanel(QWidget* parent = nullptr);

    /// The document to follow (not owned); nullptr clears the panel.
    void setDocument(GraphDocument* doc);
    /// Shows wire `id` (an invalid or unknown id shows a note).
    void showConnection(ConnectionId id);
    ConnectionId connection() const { return m_connection; }
    /// Asked before an attribute edit is pushed (the main window's live-edit rule); also given to
    /// the embedded inspector.
    void setEditGate(Inspector::EditGate gate);

    /// The title line ("Wire a.out (100) → b.in (50)").
    QString title() const;
    /// The summary line under the title.
    QString summary() const;
    /// The last refusal shown ("" when none, or after a successful edit).
    QString lastMessage() const { return m_lastMessage; }
    /// The text beside the sparse delay field ("2 steps = 2.0 ms at dt 1 ms").
    QString delayText() const;

    QComboBox* kindBox() const { return m_kind; }
    QCheckBox* delayedBox() const { return m_delayed; }
    /// The embedded inspector of the projection's attributes.
    Inspector* inspector() const { return m_inspector; }
    QComboBox* initSchemeBox() const { return m_scheme; }
    /// The scheme's first and second parameter fields (value | low, high | mean, std | gain).
    QLineEdit* initParamEdit(int k) const { return k == 0 ? m_paramA : m_paramB; }
    QLineEdit* initSeedEdit() const { return m_seed; }
    QPushButton* initApplyButton() const { return m_apply; }
    QLineEdit* delayMsEdit() const { return m_delayMs; }

Q_SIGNALS:
    /// An edit of the wire was pushed.
    void edited(spike::ui::ConnectionId id);

private:
    void refresh();
    void refreshInitParams();
    void setKind(int index);
    void setDelayed(bool on);
    void applyInitialisation();
    void applyDelayMs();
    /// The time step of the wire's target node, else its source's, else 1 ms [s].
    double timeStep(const ConnectionInfo& info) const;
    NodeId projectionNode() const;
    void showMessage(const QString& message);
    bool gateAllows(NodeId node, const std::string& attribute);
    bool pushAttribute(NodeId node, const std::string& attribute, engine::AttributeValue value);
    /// Pushes `command`; its refusal is shown under the controls, a success clears the message
    /// and emits edited(). Returns whether it was pushed.
    bool push(std::unique_ptr<GraphCommand> command);

    QPointer<GraphDocument> m_doc;
    ConnectionId m_connection;
    Inspector::EditGate m_gate;
    QString m_lastMessage;
    std::vector<QMetaObject::Connection> m_connections;

    QLabel* m_title = nullptr;
    QLabel* m_summary = nullptr;
    QComboBox* m_kind = nullptr;
    QCheckBox* m_delayed = nullptr;
    QLabel* m_message = nullptr;
    QGroupBox* m_init = nullptr;
    QComboBox* m_scheme = nullptr;
    QLabel* m_paramALabel = nullptr;
    QLabel* m_paramBLabel = nullptr;
    QLineEdit* m_paramA = nullptr;
    QLineEdit* m_paramB = nullptr;
    QLineEdit* m_seed = nullptr;
    QPushButton* m_apply = nullptr;
    QWidget* m_delayRow = nullptr;
    QLineEdit* m_delayMs = nullptr;
    QLabel* m_delaySteps = nullptr;
    QLabel* m_identityNote = nullptr;
    Inspector* m_inspector = nullptr;
};

}  // namespace spike::ui
