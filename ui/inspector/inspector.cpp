// Inspector: the widget, choosing when to rebuild, statistics, the States of a paused run and
// following the document (see inspector.hpp for what it owns and its invariants). The rows
// (building, refreshing, the family filter) are in inspector_rows.cpp, the edit pipeline (gate,
// commands, refusals, resets) in inspector_edits.cpp, the editors in inspector_editors.cpp.
// Thread: GUI thread only.
#include "ui/inspector/inspector.hpp"

#include "ui/inspector/equation_editor.hpp"
#include "ui/inspector/inspector_editors.hpp"
#include "ui/inspector/inspector_settings.hpp"

#include "engine/network/network.hpp"

#include <QAbstractSpinBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QUndoStack>
#include <QVBoxLayout>

#include <algorithm>

namespace spike::ui {

Inspector::Inspector(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    m_title = new QLabel(this);
    m_title->setTextFormat(Qt::RichText);
    m_title->setWordWrap(true);
    layout->addWidget(m_title);

    auto* filterLine = new QHBoxLayout;
    m_familyBox = new QComboBox(this);
    m_familyBox->setToolTip(tr("Show only the attributes of one family"));
    filterLine->addWidget(new QLabel(tr("Family:"), this));
    filterLine->addWidget(m_familyBox, 1);
    layout->addLayout(filterLine);
    connect(m_familyBox, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index >= 0) {
            setFamilyFilter(m_familyBox->itemData(index).toString());
        }
    });

    m_emptyNote = new QLabel(tr("Select a module to inspect its attributes."), this);
    m_emptyNote->setAlignment(Qt::AlignCenter);
    m_emptyNote->setWordWrap(true);
    m_emptyNote->setEnabled(false);
    layout->addWidget(m_emptyNote, 1);

    m_scroll = new QScrollArea(this);
    m_scroll->setWidgetResizable(true);
    // The rows shrink to the dock's width (elided names, wrapped bounds): never a sideways scroll.
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_body = new QWidget(m_scroll);
    m_bodyLayout = new QVBoxLayout(m_body);
    m_bodyLayout->setContentsMargins(2, 2, 2, 2);  // the width goes to the rows
    m_settings = new SettingsPanel(m_body);
    m_bodyLayout->addWidget(m_settings);
    connect(m_settings, &SettingsPanel::configured, this, [this](NodeId id) {
        showNode(id);
        Q_EMIT configured(id);
    });
    connect(m_settings, &SettingsPanel::showAgain, this, [this](NodeId id) { showNode(id); });
    m_equationEditor = new EquationEditor(m_body);
    m_bodyLayout->addWidget(m_equationEditor);
    m_equationEditor->setPushChanges([this](const auto& changes, const QString& text) {
        return pushChanges(changes, text);
    });
    connect(m_equationEditor, &EquationEditor::configured, this, [this](NodeId id) {
        showNode(id);
        Q_EMIT configured(id);
    });
    connect(m_equationEditor, &EquationEditor::showAgain, this, [this](NodeId id) { showNode(id); });
    m_statisticsGroup = new QGroupBox(tr("Statistics"), m_body);
    m_statisticsGroup->setCheckable(true);
    m_statisticsGroup->setChecked(true);
    m_statisticsGroup->setToolTip(
        tr("Computed from the current weights, updated as they change; untick to collapse"));
    auto* statisticsLayout = new QVBoxLayout(m_statisticsGroup);
    statisticsLayout->setContentsMargins(4, 4, 4, 4);
    connect(m_statisticsGroup, &QGroupBox::toggled, this, [this](bool on) {
        if (m_statisticsInner != nullptr) {
            m_statisticsInner->setVisible(on);
        }
    });
    m_bodyLayout->addWidget(m_statisticsGroup);
    const QString titles[3] = {tr("Parameters"), tr("Simulation parameters"), tr("States")};
    for (int g = 0; g < 3; ++g) {
        m_groups[g] = new QGroupBox(titles[g], m_body);
        m_groups[g]->setCheckable(true);
        m_groups[g]->setChecked(true);
        m_groups[g]->setToolTip(tr("Untick to collapse"));
        auto* groupLayout = new QVBoxLayout(m_groups[g]);
        groupLayout->setContentsMargins(4, 4, 4, 4);
        connect(m_groups[g], &QGroupBox::toggled, this, [this, g](bool on) {
            if (m_inner[g] != nullptr) {
                m_inner[g]->setVisible(on);
            }
            if (g == 2) {
                m_statesNote->setVisible(on && !m_statesNote->text().isEmpty());
            }
        });
        m_bodyLayout->addWidget(m_groups[g]);
    }
    // Whose States these are (showRunStates()), wrapped: the group's title stays short.
    m_statesNote = new QLabel(m_groups[2]);
    m_statesNote->setWordWrap(true);
    m_statesNote->setForegroundRole(QPalette::PlaceholderText);
    m_statesNote->hide();
    m_groups[2]->layout()->addWidget(m_statesNote);
    m_bodyLayout->addStretch(1);
    m_scroll->setWidget(m_body);
    layout->addWidget(m_scroll, 1);

    auto* buttons = new QHBoxLayout;
    m_resetParameters = new QPushButton(tr("Reset parameters"), this);
    m_resetParameters->setToolTip(
        tr("Every parameter and simulation parameter back to its default (one undo step)"));
    m_resetState = new QPushButton(tr("Reset state"), this);
    m_resetState->setToolTip(tr("Every state back to its initial value (one undo step)"));
    buttons->addWidget(m_resetParameters);
    buttons->addWidget(m_resetState);
    buttons->addStretch(1);
    layout->addLayout(buttons);
    connect(m_resetParameters, &QPushButton::clicked, this, [this] { resetParameters(); });
    connect(m_resetState, &QPushButton::clicked, this, [this] { resetState(); });

    rebuild();
}

Inspector::~Inspector()
{
    for (const auto& c : m_connections) {
        disconnect(c);
    }
}

void Inspector::setDocument(GraphDocument* doc)
{
    for (const auto& c : m_connections) {
        disconnect(c);
    }
    m_connections.clear();
    m_doc = doc;
    m_node = {};
    if (doc != nullptr) {
        m_connections = {
            connect(doc, &GraphDocument::attributeChanged, this, &Inspector::onAttributeChanged),
            connect(doc, &GraphDocument::documentReset, this, [this] { showNode({}); }),
            connect(doc, &GraphDocument::nodeRemoved, this, &Inspector::onStructureChanged),
            connect(doc, &GraphDocument::subtreeInserted, this, &Inspector::onStructureChanged),
            connect(doc, &GraphDocument::subtreeRemoved, this, &Inspector::onStructureChanged),
            connect(doc, &GraphDocument::nodeRenamed, this, &Inspector::onStructureChanged),
            // A rebuild undone takes the shown module out and puts it back under the same id:
            // once the edit is over (its wires back too), it is shown again.
            connect(doc, &GraphDocument::nodeAboutToBeRemoved, this, [this](NodeId id) {
                // The views may have let it go already (its wires are taken out first).
                if (id.valid() && (id == m_node || id == m_previousNode)) {
                    m_lostNode = id;
                }
            }),
            connect(doc, &GraphDocument::subtreeInserted, this, [this](NodeId parent, NodeId root) {
                if (root != m_lostNode) {
                    return;
                }
                m_lostNode = {};
                QMetaObject::invokeMethod(this, [this, parent, root] {
                    // Unless something else was chosen meanwhile (the views fall back to the
                    // network around it).
                    if (m_doc != nullptr && m_doc->contains(root) && (!m_node.valid() || m_node == parent)) {
                        showNode(root);
                        Q_EMIT configured(root);
                    }
                }, Qt::QueuedConnection);
            }),
            // Only within one edit: a module deleted and brought back by a later undo is not
            // selected again.
            connect(doc->undoStack(), &QUndoStack::indexChanged, this, [this] { m_lostNode = {}; }),
            connect(doc, &QObject::destroyed, this, [this] {
                m_node = {};
                rebuild();
            }),
        };
    }
    rebuild();
}

void Inspector::showNode(NodeId id)
{
    const NodeId node = m_doc != nullptr && m_doc->contains(id) ? id : NodeId{};
    if (node.valid() && node == m_node && rowsMatchModule()) {
        // The same module with the same rows: update the editors in place. Rebuilding would
        // delete an editor that may be handling the very event that led here.
        updateHeader();
        refreshAll();
        refreshStatistics();
        m_settings->refresh();
        m_equationEditor->showNode(m_doc, m_node);
        return;
    }
    if (node != m_node) {
        m_runStates.clear();  // they were the other module's
        m_previousNode = m_node;
    }
    m_node = node;
    rebuild();
}

bool Inspector::rowsMatchModule() const
{
    const engine::Module* m = m_doc != nullptr ? m_doc->module(m_node) : nullptr;
    if (m == nullptr) {
        return m_rows.empty();
    }
    const std::vector<engine::AttributeView> views = m->attributes();
    if (views.size() != m_rows.size()) {
        return false;
    }
    for (std::size_t i = 0; i < views.size(); ++i) {
        const Row& row = m_rows[i];
        if (row.name != views[i].spec->name ||
            AttributeEditor::kindFor(*views[i].spec, *views[i].value) != row.editor->kind()) {
            return false;
        }
    }
    return true;
}

QStringList Inspector::families() const
{
    QStringList out;
    for (const Row& row : m_rows) {
        const QString f = QString::fromStdString(row.family);
        if (!f.isEmpty() && !out.contains(f)) {
            out << f;
        }
    }
    return out;
}

QWidget* Inspector::editorFor(const QString& name) const
{
    const std::string key = name.toStdString();
    for (const Row& row : m_rows) {
        if (row.name == key) {
            return row.editor;
        }
    }
    return nullptr;
}

bool Inspector::rowVisible(const QString& name) const
{
    const std::string key = name.toStdString();
    for (const Row& row : m_rows) {
        if (row.name == key) {
            return !row.nameLabel->isHidden();
        }
    }
    return false;
}

QStringList Inspector::statisticNames() const
{
    QStringList out;
    for (const auto& [name, label] : m_statistics) {
        out << QString::fromStdString(name);
    }
    return out;
}

QString Inspector::statisticText(const QString& name) const
{
    const std::string key = name.toStdString();
    for (const auto& [statistic, label] : m_statistics) {
        if (statistic == key) {
            return label->text();
        }
    }
    return {};
}

QStringList Inspector::rowNames() const
{
    QStringList out;
    for (int g = 0; g < 3; ++g) {
        for (const Row& row : m_rows) {
            if (row.group == g) {
                out << QString::fromStdString(row.name);
            }
        }
    }
    return out;
}

bool Inspector::focusRow(const QString& name)
{
    Row* row = findRow(name.toStdString());
    if (row == nullptr) {
        return false;
    }
    if (row->nameLabel->isHidden()) {
        setFamilyFilter(QString());  // the filter hid it
    }
    m_groups[row->group]->setChecked(true);
    // Lay the rows out now, so that the row has its place before scrolling to it.
    m_body->layout()->activate();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    m_scroll->ensureWidgetVisible(row->nameLabel);
    m_scroll->ensureWidgetVisible(row->editor);
    // The first input of the editor that takes the focus by Tab (its spin box, combo box, ...).
    QWidget* target = row->editor;
    for (QWidget* w = row->editor; w != nullptr; w = w->nextInFocusChain()) {
        if (w != row->editor && !row->editor->isAncestorOf(w)) {
            break;
        }
        if ((w->focusPolicy() & Qt::TabFocus) != 0 && w->isEnabled()) {
            target = w;
            break;
        }
    }
    target->setFocus(Qt::OtherFocusReason);
    if (auto* spin = qobject_cast<QAbstractSpinBox*>(target)) {
        spin->selectAll();  // typing replaces the value
    }
    return true;
}

void Inspector::setFamilyFilter(const QString& family)
{
    m_family = family;
    {
        const QSignalBlocker block(m_familyBox);
        const int index = m_familyBox->findData(family);
        m_familyBox->setCurrentIndex(std::max(index, 0));
    }
    applyFilter();
}

// ---- building --------------------------------------------------------------------------------

void Inspector::retire(QWidget* container)
{
    // An editor in `container` may be the sender of the event being handled (Return in a spin
    // box, a wheel turn over a combo box): the container is emptied of behaviour now and
    // deleted once control is back in the event loop. Its editors stop committing first, so the
    // focus leaving a hidden spin box cannot write its text into the next module shown.
    if (container == nullptr) {
        return;
    }
    for (AttributeEditor* editor : container->findChildren<AttributeEditor*>()) {
        editor->setCommit({});
    }
    for (QObject* child : container->findChildren<QObject*>()) {
        child->blockSignals(true);
    }
    container->hide();
    container->setParent(nullptr);
    container->deleteLater();
}

void Inspector::rebuild()
{
    m_rebuildPending = false;
    m_lastMessage.clear();  // the rows that showed it are gone
    clearRows();
    const engine::Module* m = m_doc != nullptr ? m_doc->module(m_node) : nullptr;
    if (m == nullptr) {
        m_node = {};
    }
    const bool shown = m != nullptr;
    m_emptyNote->setVisible(!shown);
    m_scroll->setVisible(shown);
    m_title->setVisible(shown);
    m_familyBox->setEnabled(shown);
    if (m != nullptr) {
        for (const engine::AttributeView& view : m->attributes()) {
            addRow(view);
        }
    }
    const auto hasGroup = [this](int g) {
        return std::any_of(m_rows.begin(), m_rows.end(), [g](const Row& r) { return r.group == g; });
    };
    rebuildStatistics();
    m_settings->showNode(m_doc, m_node);
    m_equationEditor->showNode(m_doc, m_node);
    // A module with nothing of its own to show (a plain Network): say where its contents are
    // instead of an empty frame.
    // Read-only settings alone (a Network's ports) do not make a frame worth showing.
    const bool bare = m != nullptr && m_rows.empty() && m_statistics.empty() &&
                      (!m_settings->hasRows() || !m_settings->readOnlyReason().isEmpty());
    QString note = tr("Select a module to inspect its attributes.");
    if (bare) {
        const QString type = QString::fromStdString(m->className());
        note = m->childCount() > 0 || dynamic_cast<const engine::Network*>(m) != nullptr
                   ? tr("%1 has no attributes of its own. Select one of its modules on the canvas or in the "
                        "Modules tree to edit it; double-click a group to open it.").arg(type)
                   : tr("%1 has no attributes of its own: it applies its function to its input, with "
                        "nothing to set.").arg(type);
    }
    m_emptyNote->setText(note);
    m_emptyNote->setVisible(!shown || bare);
    m_scroll->setVisible(shown && !bare);
    m_resetParameters->setEnabled(hasGroup(0) || hasGroup(1));
    m_resetState->setEnabled(hasGroup(2));
    updateHeader();
    {
        const QSignalBlocker block(m_familyBox);
        m_familyBox->clear();
        m_familyBox->addItem(tr("All families"), QString());
        for (const QString& f : families()) {
            m_familyBox->addItem(f, f);
        }
    }
    setFamilyFilter(families().contains(m_family) ? m_family : QString());
}

void Inspector::updateHeader()
{
    const engine::Module* m = m_doc != nullptr ? m_doc->module(m_node) : nullptr;
    if (m == nullptr) {
        m_title->clear();
        return;
    }
    const std::string path = m_doc->path(m_node);
    QStringList dims;
    for (const std::int64_t d : m->shape()) {
        dims << QString::number(d);
    }
    m_title->setText(tr("<b>%1</b><br>%2 &middot; shape (%3)")
                         .arg(path.empty() ? tr("(root)") : QString::fromStdString(path).toHtmlEscaped(),
                              QString::fromStdString(m->className()).toHtmlEscaped(),
                              dims.join(QStringLiteral(", "))));
}

void Inspector::rebuildStatistics()
{
    m_statistics.clear();
    retire(m_statisticsInner);
    m_statisticsInner = new QWidget(m_statisticsGroup);
    auto* grid = new QGridLayout(m_statisticsInner);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setColumnStretch(1, 1);
    m_statisticsGroup->layout()->addWidget(m_statisticsInner);
    m_statisticsInner->setVisible(m_statisticsGroup->isChecked());
    const engine::Module* m = m_doc != nullptr ? m_doc->module(m_node) : nullptr;
    const std::vector<engine::ModuleStatistic> statistics =
        m != nullptr ? m->statistics() : std::vector<engine::ModuleStatistic>{};
    int r = 0;
    for (const engine::ModuleStatistic& statistic : statistics) {
        const QString tip = QString::fromStdString(statistic.description);
        auto* name = new QLabel(QString::fromStdString(statistic.name), m_statisticsInner);
        name->setToolTip(tip);
        auto* value = new QLabel(m_statisticsInner);
        value->setToolTip(tip);
        value->setTextInteractionFlags(Qt::TextSelectableByMouse);
        grid->addWidget(name, r, 0, Qt::AlignLeft | Qt::AlignTop);
        grid->addWidget(value, r, 1, Qt::AlignLeft | Qt::AlignTop);
        ++r;
        m_statistics.emplace_back(statistic.name, value);
    }
    m_statisticsGroup->setVisible(!m_statistics.empty());
    refreshStatistics();
}

void Inspector::refreshStatistics()
{
    const engine::Module* m = m_doc != nullptr ? m_doc->module(m_node) : nullptr;
    if (m == nullptr || m_statistics.empty()) {
        return;
    }
    for (const engine::ModuleStatistic& statistic : m->statistics()) {
        for (auto& [name, label] : m_statistics) {
            if (name == statistic.name) {
                label->setText(QString::number(statistic.value, 'g', 6));
            }
        }
    }
}

bool Inspector::isAtOrBelowShown(NodeId id) const
{
    for (NodeId at = id; at.valid() && m_doc != nullptr; at = m_doc->parentOf(at)) {
        if (at == m_node) {
            return true;
        }
    }
    return false;
}

// ---- following the document ------------------------------------------------------------------

void Inspector::onAttributeChanged(NodeId id, const QString& name)
{
    // A State set while a run is paused was set in the run too (RunSession): both have it now.
    if (const auto run = m_runStates.find(name.toStdString()); id == m_node && run != m_runStates.end()) {
        run->second = m_doc->module(id)->attribute(run->first);
    }
    // One change can move others (leak_mode converts the derived taus), and the document
    // reports only the attributes that were set, so every row is read again.
    if (id == m_node && !m_rebuildPending) {
        refreshAll();
        m_equationEditor->refreshPreset();
    }
    // Statistics summarise the whole subtree (a DynamicsNetwork's res block weights).
    if (!m_statistics.empty() && isAtOrBelowShown(id)) {
        refreshStatistics();
    }
}

void Inspector::onStructureChanged()
{
    if (m_doc == nullptr || !m_node.valid()) {
        return;
    }
    if (!m_doc->contains(m_node)) {
        showNode({});
    } else {
        updateHeader();
        refreshStatistics();
    }
}

void Inspector::showRunStates(const QString& title, std::map<std::string, engine::AttributeValue> values,
                              const QString& note)
{
    m_runStates = std::move(values);
    m_groups[2]->setTitle(title);
    m_groups[2]->setToolTip(note.isEmpty() ? tr("Untick to collapse") : note + tr(". Untick to collapse"));
    m_statesNote->setText(note);
    m_statesNote->setVisible(!note.isEmpty() && m_groups[2]->isChecked());
    for (Row& row : m_rows) {
        if (row.group == 2) {
            refreshRow(row);
        }
    }
}

QString Inspector::statesNote() const
{
    return m_statesNote->text();
}

QString Inspector::statesTitle() const
{
    return m_groups[2]->title();
}

}  // namespace spike::ui
