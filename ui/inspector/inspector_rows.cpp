// Inspector: the rows of attributes (building, refreshing in place, the family filter). See
// inspector.hpp; the rest of the inspector is in inspector.cpp.
#include "ui/inspector/inspector.hpp"

#include "ui/inspector/inspector_editors.hpp"

#include <QGridLayout>
#include <QGroupBox>
#include <QLabel>
#include <QPainter>
#include <QStyle>

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

}  // namespace spike::ui
