// SettingsPanel. See inspector_settings.hpp.
// Thread: GUI thread only.
#include "ui/inspector/inspector_settings.hpp"

#include "ui/document/graph_configure.hpp"

#include "engine/io/module_factory.hpp"
#include "engine/tensor/error.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include <cmath>
#include <limits>
#include <memory>

namespace spike::ui {

namespace {

const engine::ConfigSetting* findSetting(const std::string& type, const std::string& name)
{
    const engine::ModuleTypeInfo* info = engine::findModuleType(type);
    if (info == nullptr) {
        return nullptr;
    }
    for (const engine::ConfigSetting& s : info->settings) {
        if (s.name == name) {
            return &s;
        }
    }
    return nullptr;
}

QString boundsOf(const engine::ConfigSetting& s, const std::string& type)
{
    QString text;
    switch (s.kind) {
    case engine::SettingKind::Integer:
        text = SettingsPanel::tr("whole number in [%1, %2]").arg(s.min).arg(s.max);
        break;
    case engine::SettingKind::Boolean: text = SettingsPanel::tr("on or off"); break;
    case engine::SettingKind::Choice: {
        QStringList choices;
        for (const auto& c : s.choices) {
            choices << QString::fromStdString(c);
        }
        text = SettingsPanel::tr("one of %1").arg(choices.join(QStringLiteral(", ")));
        break;
    }
    }
    if (s.size) {
        text += SettingsPanel::tr(" · the size: type '%1 100' on the canvas").arg(QString::fromStdString(type));
    }
    return text;
}

QLabel* smallGrey(const QString& text, QWidget* parent)
{
    auto* label = new QLabel(text, parent);
    label->setWordWrap(true);
    label->setForegroundRole(QPalette::PlaceholderText);
    QFont small = label->font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    label->setFont(small);
    return label;
}

}  // namespace

SettingsPanel::SettingsPanel(QWidget* parent) : QGroupBox(tr("Settings"), parent)
{
    setCheckable(true);
    setChecked(true);
    setToolTip(tr("How the module is built (its size, its options). A change rebuilds it, keeping the values "
                  "that still fit; one undo step. Untick to collapse"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_readOnlyNote = smallGrey(QString(), this);
    m_readOnlyNote->hide();
    layout->addWidget(m_readOnlyNote);
    m_notes = smallGrey(QString(), this);
    m_notes->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_notes->hide();
    connect(this, &QGroupBox::toggled, this, [this](bool on) {
        if (m_inner != nullptr) {
            m_inner->setVisible(on);
        }
        m_readOnlyNote->setVisible(on && !m_readOnly.isEmpty());
        m_notes->setVisible(on && !m_notes->text().isEmpty());
    });
    clearRows();
    layout->addWidget(m_notes);
    hide();
}

void SettingsPanel::clearRows()
{
    m_rows.clear();
    if (m_inner != nullptr) {
        // The sender of the event being handled (Return in a field) may be in it: blocked and
        // hidden now, deleted once control is back in the event loop.
        for (QObject* child : m_inner->findChildren<QObject*>()) {
            child->blockSignals(true);
        }
        m_inner->hide();
        m_inner->setParent(nullptr);
        m_inner->deleteLater();
    }
    m_inner = new QWidget(this);
    auto* grid = new QGridLayout(m_inner);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setColumnStretch(1, 1);
    // Above the notes (the last widget of the group's layout, once added).
    static_cast<QVBoxLayout*>(layout())->insertWidget(1, m_inner);
    m_inner->setVisible(isChecked());
}

void SettingsPanel::showNode(GraphDocument* doc, NodeId id)
{
    const NodeId before = m_node;
    m_doc = doc;
    m_node = doc != nullptr && doc->contains(id) ? id : NodeId{};
    if (m_node != before) {
        m_lastMessage.clear();
    }
    clearRows();
    const engine::Module* m = m_doc != nullptr ? m_doc->module(m_node) : nullptr;
    const engine::ModuleTypeInfo* info = m != nullptr ? engine::findModuleType(m->className()) : nullptr;
    m_type = info != nullptr ? info->type : std::string();
    m_readOnly = info != nullptr && !info->settings.empty()
                     ? QString::fromStdString(configureRefusal(*m_doc, m_node))
                     : QString();
    if (info != nullptr) {
        for (std::size_t i = 0; i < info->settings.size(); ++i) {
            addRow(i);
        }
    }
    m_readOnlyNote->setText(m_readOnly.isEmpty() ? QString() : tr("Read-only: %1.").arg(m_readOnly));
    m_readOnlyNote->setVisible(isChecked() && !m_readOnly.isEmpty());
    if (m_notesNode != m_node) {
        m_noteLines.clear();
    }
    // What did not carry over unchanged, a line each (a composite's long list is cut short).
    constexpr std::size_t kMaxNoteLines = 8;
    QStringList lines;
    for (std::size_t i = 0; i < m_noteLines.size() && i < kMaxNoteLines; ++i) {
        lines << QStringLiteral("\u2022 ") + QString::fromStdString(m_noteLines[i]);
    }
    if (m_noteLines.size() > kMaxNoteLines) {
        lines << tr("\u2026 and %1 more").arg(m_noteLines.size() - kMaxNoteLines);
    }
    m_notes->setText(lines.isEmpty() ? QString()
                                     : tr("The last change kept every other value:\n%1").arg(lines.join(QLatin1Char('\n'))));
    m_notes->setVisible(isChecked() && !lines.isEmpty());
    setVisible(!m_rows.empty());
}

void SettingsPanel::addRow(std::size_t index)
{
    const engine::ConfigSetting& s = engine::findModuleType(m_type)->settings[index];
    auto* grid = static_cast<QGridLayout*>(m_inner->layout());
    const int r = static_cast<int>(index) * 3;
    const QString name = QString::fromStdString(s.name);
    const QString doc = QString::fromStdString(s.doc);
    const QString bounds = boundsOf(s, m_type);
    auto* label = new QLabel(name, m_inner);
    label->setToolTip(QStringLiteral("%1\n%2").arg(name, doc));
    Row row;
    row.name = s.name;
    row.kind = static_cast<int>(s.kind);
    const std::string key = s.name;
    switch (s.kind) {
    case engine::SettingKind::Integer: {
        auto* edit = new QLineEdit(m_inner);
        edit->setObjectName(QStringLiteral("setting_%1").arg(name));
        connect(edit, &QLineEdit::editingFinished, this, [this, key, edit] {
            QString why;
            const nlohmann::json value = parseInteger(edit->text(), why);
            if (value.is_null()) {
                Row* row = findRow(key);
                refuse(row, tr("%1: %2").arg(QString::fromStdString(key), why));
                if (row != nullptr) {
                    showValue(*row);
                }
                return;
            }
            commit(key, value);
        });
        row.editor = edit;
        break;
    }
    case engine::SettingKind::Boolean: {
        auto* box = new QCheckBox(m_inner);
        box->setObjectName(QStringLiteral("setting_%1").arg(name));
        connect(box, &QCheckBox::toggled, this, [this, key](bool on) { commit(key, on); });
        row.editor = box;
        break;
    }
    case engine::SettingKind::Choice: {
        auto* combo = new QComboBox(m_inner);
        combo->setObjectName(QStringLiteral("setting_%1").arg(name));
        for (const auto& c : s.choices) {
            combo->addItem(QString::fromStdString(c));
        }
        connect(combo, &QComboBox::activated, this, [this, key, combo](int i) {
            commit(key, combo->itemText(i).toStdString());
        });
        row.editor = combo;
        break;
    }
    }
    row.editor->setToolTip(QStringLiteral("%1\n%2").arg(doc, bounds));
    row.editor->setEnabled(m_readOnly.isEmpty() && static_cast<bool>(s.get) && static_cast<bool>(s.set));
    row.message = new QLabel(m_inner);
    row.message->setWordWrap(true);
    row.message->setStyleSheet(QStringLiteral("color: #c62828;"));
    row.message->hide();
    grid->addWidget(label, r, 0, Qt::AlignVCenter);
    grid->addWidget(row.editor, r, 1);
    grid->addWidget(smallGrey(bounds, m_inner), r + 1, 1);
    grid->addWidget(row.message, r + 2, 1);
    m_rows.push_back(row);
    showValue(m_rows.back());
}

SettingsPanel::Row* SettingsPanel::findRow(const std::string& name)
{
    for (Row& row : m_rows) {
        if (row.name == name) {
            return &row;
        }
    }
    return nullptr;
}

void SettingsPanel::showValue(Row& row)
{
    const engine::Module* m = m_doc != nullptr ? m_doc->module(m_node) : nullptr;
    const engine::ConfigSetting* s = findSetting(m_type, row.name);
    if (m == nullptr || s == nullptr || !s->get) {
        return;
    }
    nlohmann::json value;
    try {
        value = s->get(m->config());
    } catch (const std::exception&) {
        return;  // a config the getter does not know: the field stays as it was
    }
    const QSignalBlocker block(row.editor);
    if (auto* edit = qobject_cast<QLineEdit*>(row.editor)) {
        edit->setText(value.is_number_integer() ? QString::number(value.get<std::int64_t>())
                                                : QString::fromStdString(value.dump()));
    } else if (auto* box = qobject_cast<QCheckBox*>(row.editor)) {
        box->setChecked(value.is_boolean() && value.get<bool>());
    } else if (auto* combo = qobject_cast<QComboBox*>(row.editor)) {
        combo->setCurrentText(value.is_string() ? QString::fromStdString(value.get<std::string>())
                                                : QString::fromStdString(value.dump()));
    }
}

void SettingsPanel::refresh()
{
    for (Row& row : m_rows) {
        showValue(row);
    }
}

QStringList SettingsPanel::settingNames() const
{
    QStringList out;
    for (const Row& row : m_rows) {
        out << QString::fromStdString(row.name);
    }
    return out;
}

QWidget* SettingsPanel::editorFor(const QString& name) const
{
    for (const Row& row : m_rows) {
        if (row.name == name.toStdString()) {
            return row.editor;
        }
    }
    return nullptr;
}

QString SettingsPanel::messageFor(const QString& name) const
{
    for (const Row& row : m_rows) {
        if (row.name == name.toStdString()) {
            return row.message->text();
        }
    }
    return {};
}

QString SettingsPanel::notesText() const
{
    return m_notes->text();
}

void SettingsPanel::refuse(Row* row, const QString& message)
{
    m_lastMessage = message;
    if (row != nullptr) {
        row->message->setText(message);
        row->message->setVisible(!message.isEmpty());
    }
}

nlohmann::json SettingsPanel::parseInteger(const QString& text, QString& why) const
{
    const QString t = text.trimmed();
    bool ok = false;
    const qlonglong n = t.toLongLong(&ok);
    if (ok) {
        return static_cast<std::int64_t>(n);
    }
    // "1e6" is a whole number too; "1.5", "abc" and numbers past 64 bits are not.
    const double x = t.toDouble(&ok);
    if (ok && std::isfinite(x) && x == std::floor(x) && std::abs(x) < 9.0e18) {
        return static_cast<std::int64_t>(x);
    }
    why = t.isEmpty() ? tr("expected a whole number, got nothing")
                      : tr("expected a whole number, got \u201c%1\u201d").arg(t);
    return nullptr;
}

bool SettingsPanel::commit(const std::string& name, const nlohmann::json& value)
{
    Row* row = findRow(name);
    const engine::Module* m = m_doc != nullptr ? m_doc->module(m_node) : nullptr;
    const engine::ConfigSetting* s = findSetting(m_type, name);
    if (row == nullptr || m == nullptr || s == nullptr || !s->get) {
        return false;
    }
    if (!m_readOnly.isEmpty()) {
        refuse(row, m_readOnly);
        showValue(*row);
        return false;
    }
    try {
        if (s->get(m->config()) == value) {
            refuse(row, {});
            return true;
        }
    } catch (const std::exception&) {
        // Compare nothing: the change goes through the checks below.
    }
    nlohmann::json config;
    try {
        config = engine::configWithSetting(m_type, m->config(), name, value);
    } catch (const engine::Error& e) {
        refuse(row, QString::fromStdString(e.what()));
        showValue(*row);
        return false;
    }
    const NodeId node = m_node;
    GraphDocument* doc = m_doc;
    auto command = std::make_unique<ConfigureNodeCommand>(*doc, node, config);
    ConfigureNodeCommand* raw = command.get();
    if (engine::Status st = pushCommand(*doc, std::move(command)); !st.ok) {
        // A refusal after the document was touched rolled back with signals that may have let
        // the node go from the views: show it again, then the reason under its row.
        if (m_node != node && doc->contains(node)) {
            Q_EMIT showAgain(node);
            if (m_node != node) {
                showNode(doc, node);
            }
        }
        row = findRow(name);
        refuse(row, QString::fromStdString(st.message));
        if (row != nullptr) {
            showValue(*row);
        }
        return false;
    }
    m_lastMessage.clear();
    m_notesNode = node;
    m_noteLines = raw->notes();  // the undo stack owns the command now; it lives on
    Q_EMIT configured(node);
    if (m_node != node || m_doc != doc) {
        showNode(doc, node);  // a view that followed the node's removal let it go meanwhile
    } else {
        refresh();
    }
    return true;
}

}  // namespace spike::ui
