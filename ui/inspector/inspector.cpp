// Inspector: building the rows of the shown module, the family filter and following the
// document (see inspector.hpp for what it owns and its invariants). The edit pipeline (gate,
// commands, refusals, resets) is in inspector_edits.cpp, the editors in inspector_editors.cpp.
// Thread: GUI thread only.
#include "ui/inspector/inspector.hpp"

#include "ui/inspector/inspector_editors.hpp"

#include <QComboBox>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QStyle>
#include <QVBoxLayout>

#include <algorithm>

namespace spike::ui {

namespace {

// Two columns and up to three lines per attribute: name | editor, then under the editor its
// unit, bounds and family in small grey text ("[s] · > 0 · taus", wrapped), then a refusal
// message (wrapped).
// Nothing has a fixed width: the rows fit whatever width the dock has, without a horizontal
// scroll bar; a name that does not fit is elided, with the full name in its tooltip.
enum Column { NameColumn, EditorColumn, ColumnCount };
constexpr int kLinesPerRow = 3;
constexpr int kMinNameWidth = 48;  // [px] a name elided below this still reads as a name

/// A label that elides its text at the right ("max_spikes…") when narrower than the text.
class ElidedLabel : public QLabel {
public:
    using QLabel::QLabel;
    QSize minimumSizeHint() const override
    {
        return {std::min(kMinNameWidth, sizeHint().width()), QLabel::minimumSizeHint().height()};
    }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter painter(this);
        const QRect r = contentsRect();
        const QString shown = fontMetrics().elidedText(text(), Qt::ElideRight, r.width());
        style()->drawItemText(&painter, r, static_cast<int>(alignment()), palette(), isEnabled(), shown, foregroundRole());
    }
};

int groupOf(engine::AttributeKind kind)
{
    switch (kind) {
    case engine::AttributeKind::Parameter: return 0;
    case engine::AttributeKind::SimulationParameter: return 1;
    case engine::AttributeKind::State: return 2;
    }
    return 0;
}

QString boundsText(const engine::AttributeSpec& spec)
{
    if (spec.type == engine::ValueType::Enum) {
        QStringList choices;
        for (const auto& c : spec.choices) {
            choices << QString::fromStdString(c);
        }
        return Inspector::tr("one of %1").arg(choices.join(QStringLiteral(", ")));
    }
    if (spec.type == engine::ValueType::Boolean) {
        return Inspector::tr("0 or 1");
    }
    QString text = QString::fromStdString(spec.bounds.toString());
    if (spec.type == engine::ValueType::Integer) {
        text = text.isEmpty() ? Inspector::tr("integer") : Inspector::tr("integer %1").arg(text);
    }
    return text;
}

QString tooltipOf(const engine::AttributeSpec& spec)
{
    QString tip = QString::fromStdString(spec.doc);
    tip += Inspector::tr("\nShape: %1").arg(QString::fromStdString(spec.shapesToString()));
    const QString bounds = boundsText(spec);
    if (!bounds.isEmpty()) {
        tip += Inspector::tr("\nBounds: %1").arg(bounds);
    }
    tip += spec.liveEditable ? Inspector::tr("\nLive: may change while a simulation runs")
                             : Inspector::tr("\nNeeds a rebuild while running: pause to change it");
    return tip;
}

}  // namespace

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
    m_emptyNote->setEnabled(false);
    layout->addWidget(m_emptyNote, 1);

    m_scroll = new QScrollArea(this);
    m_scroll->setWidgetResizable(true);
    // The rows shrink to the dock's width (elided names, wrapped bounds): never a sideways scroll.
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_body = new QWidget(m_scroll);
    m_bodyLayout = new QVBoxLayout(m_body);
    m_bodyLayout->setContentsMargins(2, 2, 2, 2);  // the width goes to the rows
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
        return;
    }
    if (node != m_node) {
        m_runStates.clear();  // they were the other module's
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

void Inspector::clearRows()
{
    m_rows.clear();
    for (int g = 0; g < 3; ++g) {
        retire(m_inner[g]);
        m_inner[g] = new QWidget(m_groups[g]);
        auto* grid = new QGridLayout(m_inner[g]);
        grid->setContentsMargins(0, 0, 0, 0);
        grid->setColumnStretch(EditorColumn, 1);
        m_groups[g]->layout()->addWidget(m_inner[g]);
        m_inner[g]->setVisible(m_groups[g]->isChecked());
        m_gridRows[g] = 0;
    }
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

void Inspector::addRow(const engine::AttributeView& view)
{
    const engine::AttributeSpec& spec = *view.spec;
    const int g = groupOf(spec.kind);
    auto* grid = static_cast<QGridLayout*>(m_inner[g]->layout());
    const int r = m_gridRows[g];
    m_gridRows[g] += kLinesPerRow;

    Row row;
    row.name = spec.name;
    row.family = spec.family;
    row.group = g;
    row.nameLabel = new ElidedLabel(QString::fromStdString(spec.name), m_inner[g]);
    row.nameLabel->setToolTip(QStringLiteral("%1\n%2").arg(QString::fromStdString(spec.name), tooltipOf(spec)));
    row.editor = AttributeEditor::create(spec, *view.value, m_inner[g]);
    row.editor->setToolTip(tooltipOf(spec));
    const std::string name = spec.name;
    row.editor->setCommit([this, name](const engine::AttributeValue& value, const QString& step) {
        return commitEdit(name, value, step);
    });
    row.bounds = boundsText(spec);
    if (!spec.units.empty()) {
        row.bounds = row.bounds.isEmpty() ? QStringLiteral("[%1]").arg(QString::fromStdString(spec.units))
                                          : QStringLiteral("[%1] · %2").arg(QString::fromStdString(spec.units), row.bounds);
    }
    row.info = new QLabel(m_inner[g]);
    row.info->setWordWrap(true);
    row.info->setForegroundRole(QPalette::PlaceholderText);
    QFont small = row.info->font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    row.info->setFont(small);
    row.message = new QLabel(m_inner[g]);
    row.message->setWordWrap(true);
    row.message->setStyleSheet(QStringLiteral("color: #c62828;"));
    row.message->setVisible(false);

    // A one-line editor has its name beside it; a tall one (an array's details) at its top.
    grid->addWidget(row.nameLabel, r, NameColumn, qobject_cast<ArrayEditor*>(row.editor) != nullptr ? Qt::AlignTop : Qt::AlignVCenter);
    grid->addWidget(row.editor, r, EditorColumn);
    grid->addWidget(row.info, r + 1, EditorColumn, 1, ColumnCount - EditorColumn);
    grid->addWidget(row.message, r + 2, EditorColumn, 1, ColumnCount - EditorColumn);
    row.cells = {row.nameLabel, row.editor, row.info};
    m_rows.push_back(std::move(row));
    Row& added = m_rows.back();
    added.derived = !view.derived;  // forces refreshRow to style it
    refreshRow(added);
}

Inspector::Row* Inspector::findRow(const std::string& name)
{
    for (Row& row : m_rows) {
        if (row.name == name) {
            return &row;
        }
    }
    return nullptr;
}

void Inspector::refreshRow(Row& row)
{
    const engine::Module* m = m_doc != nullptr ? m_doc->module(m_node) : nullptr;
    if (m == nullptr || !m->hasAttribute(row.name)) {
        return;
    }
    // A State of a paused run shows the running copy's value (showRunStates()).
    const auto run = row.group == 2 ? m_runStates.find(row.name) : m_runStates.end();
    const engine::AttributeValue& value = run != m_runStates.end() ? run->second : m->attribute(row.name);
    if (AttributeEditor::kindFor(row.editor->spec(), value) != row.editor->kind()) {
        // A value that needs another kind of editor (a scalar that became per neuron): build
        // the rows again once the edit that changed it has returned.
        if (!m_rebuildPending) {
            m_rebuildPending = true;
            QMetaObject::invokeMethod(this, [this] { rebuild(); }, Qt::QueuedConnection);
        }
        return;
    }
    row.editor->showValue(value);
    const bool derived = m->isDerived(row.name);
    if (derived != row.derived) {
        row.derived = derived;
        row.editor->setDerived(derived);
        QFont f = row.nameLabel->font();
        f.setItalic(derived);
        row.nameLabel->setFont(f);
        row.nameLabel->setEnabled(!derived);
        QStringList info;
        for (const QString& part : {row.bounds, QString::fromStdString(row.family)}) {
            if (!part.isEmpty()) {
                info << part;
            }
        }
        if (derived) {
            info << tr("derived");
        }
        row.info->setText(info.join(QStringLiteral(" · ")));
        row.info->setHidden(info.isEmpty());
        row.info->setToolTip(derived ? tr("Computed from other attributes in the current mode "
                                          "(read-only)")
                                     : tr("Unit · accepted values · family"));
    }
}

void Inspector::refreshAll()
{
    for (Row& row : m_rows) {
        refreshRow(row);
    }
}

void Inspector::applyFilter()
{
    bool groupHasRows[3] = {false, false, false};
    for (Row& row : m_rows) {
        const bool visible = m_family.isEmpty() || QString::fromStdString(row.family) == m_family;
        for (QWidget* w : row.cells) {
            w->setHidden(!visible || (w == row.info && row.info->text().isEmpty()));
        }
        row.message->setHidden(!visible || row.message->text().isEmpty());
        groupHasRows[row.group] = groupHasRows[row.group] || visible;
    }
    for (int g = 0; g < 3; ++g) {
        m_groups[g]->setHidden(!groupHasRows[g]);
    }
}

// ---- statistics ------------------------------------------------------------------------------

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
