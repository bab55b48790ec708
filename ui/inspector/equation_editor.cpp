// EquationEditor. See equation_editor.hpp.
// Thread: GUI thread only.
#include "ui/inspector/equation_editor.hpp"

#include "ui/document/graph_configure.hpp"
#include "ui/document/graph_replace.hpp"

#include "engine/equations/compiler.hpp"
#include "engine/equations/model.hpp"
#include "engine/neurons/equation_neuron.hpp"

#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QTextBlock>
#include <QVBoxLayout>

#include <memory>

namespace spike::ui {

namespace {

constexpr int kCheckDelayMs = 300;

const engine::EquationNeuron* equationNeuron(const GraphDocument* doc, NodeId id)
{
    return doc != nullptr ? dynamic_cast<const engine::EquationNeuron*>(doc->module(id)) : nullptr;
}

/// The character index (UTF-16, as Qt counts) of byte offset `bytes` of UTF-8 `text`.
int charIndex(const std::string& text, int bytes)
{
    const auto n = static_cast<std::size_t>(std::clamp(bytes, 0, static_cast<int>(text.size())));
    return static_cast<int>(QString::fromUtf8(text.data(), static_cast<qsizetype>(n)).size());
}

}  // namespace

EquationEditor::EquationEditor(QWidget* parent) : QGroupBox(tr("Equations"), parent)
{
    setCheckable(true);
    setChecked(true);
    setToolTip(tr("The model's text (docs/equations.md). Untick to collapse"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);

    m_presetRow = new QWidget(this);
    auto* presetLine = new QHBoxLayout(m_presetRow);
    presetLine->setContentsMargins(0, 0, 0, 0);
    m_presets = new QComboBox(m_presetRow);
    m_presets->setObjectName(QStringLiteral("equationPreset"));
    m_presets->setToolTip(tr("Named parameter values of the model: choosing one sets them for every neuron "
                             "(one undo step)"));
    presetLine->addWidget(new QLabel(tr("Preset:"), m_presetRow));
    presetLine->addWidget(m_presets, 1);
    layout->addWidget(m_presetRow);
    connect(m_presets, &QComboBox::activated, this, [this](int index) {
        if (index > 0) {
            applyPreset(m_presets->itemText(index));
        }
        refreshPreset();  // "—" chosen, or a refusal: the box shows what the parameters are
    });

    m_intro = new QLabel(this);
    m_intro->setWordWrap(true);
    m_intro->setForegroundRole(QPalette::PlaceholderText);
    layout->addWidget(m_intro);

    m_text = new QPlainTextEdit(this);
    m_text->setObjectName(QStringLiteral("equationText"));
    // The system's fixed font, or a monospace family where the platform names none (offscreen).
    QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    if (!QFontInfo(mono).fixedPitch()) {
        mono.setFamilies({QStringLiteral("DejaVu Sans Mono"), QStringLiteral("Noto Sans Mono"),
                          QStringLiteral("Liberation Mono"), QStringLiteral("Consolas"), QStringLiteral("Menlo"),
                          QStringLiteral("monospace")});
        mono.setStyleHint(QFont::TypeWriter);
        mono.setFixedPitch(true);
    }
    m_text->setFont(mono);
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);  // a model line is one line; scroll sideways
    m_text->setTabChangesFocus(true);
    // About 14 lines: the whole of a small model, a scroll for the library's larger ones.
    m_text->setMinimumHeight(m_text->fontMetrics().lineSpacing() * 14 + 12);
    m_text->installEventFilter(this);
    layout->addWidget(m_text);

    auto* buttons = new QHBoxLayout;
    m_apply = new QPushButton(tr("Apply"), this);
    m_apply->setObjectName(QStringLiteral("equationApply"));
    m_apply->setToolTip(tr("Rebuild the population with this text (Ctrl+Return); one undo step. A running "
                           "simulation continues with it"));
    m_copy = new QPushButton(tr("Copy as custom neuron"), this);
    m_copy->setObjectName(QStringLiteral("equationCopy"));
    m_copy->setToolTip(tr("Replace this population by your own EquationNeuron with the same text, size, values "
                          "and wires, whose text you can edit; one undo step"));
    buttons->addStretch(1);
    buttons->addWidget(m_copy);
    buttons->addWidget(m_apply);
    layout->addLayout(buttons);
    connect(m_apply, &QPushButton::clicked, this, [this] { apply(); });
    connect(m_copy, &QPushButton::clicked, this, [this] { copyAsCustom(); });

    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("equationMessage"));
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_message);

    connect(this, &QGroupBox::toggled, this, [this](bool on) {
        for (QWidget* w : {static_cast<QWidget*>(m_intro), static_cast<QWidget*>(m_text),
                           static_cast<QWidget*>(m_apply), static_cast<QWidget*>(m_message)}) {
            w->setVisible(on);
        }
        m_apply->setVisible(on && m_editable);
        m_copy->setVisible(on && !m_editable);
        m_presetRow->setVisible(on && m_presets->count() > 1);
    });

    m_debounce.setSingleShot(true);
    m_debounce.setInterval(kCheckDelayMs);
    connect(&m_debounce, &QTimer::timeout, this, &EquationEditor::checkNow);
    connect(m_text, &QPlainTextEdit::textChanged, this, [this] {
        if (m_editable) {
            m_apply->setEnabled(false);  // until the check has seen this text
            m_debounce.start();
        }
    });
    hide();
}

std::string EquationEditor::moduleText() const
{
    const engine::EquationNeuron* m = equationNeuron(m_doc, m_node);
    return m != nullptr ? m->text() : std::string();
}

double EquationEditor::moduleDt() const
{
    const engine::EquationNeuron* m = equationNeuron(m_doc, m_node);
    if (m != nullptr && m->hasAttribute("dt")) {
        if (const auto* t = std::get_if<engine::Tensor>(&m->attribute("dt")); t != nullptr && t->numel() == 1) {
            return t->item();
        }
    }
    return 1e-3;
}

void EquationEditor::showNode(GraphDocument* doc, NodeId id)
{
    const NodeId before = m_node;
    const GraphDocument* beforeDoc = m_doc;
    m_doc = doc;
    m_node = equationNeuron(doc, id) != nullptr ? id : NodeId{};
    const engine::EquationNeuron* m = equationNeuron(m_doc, m_node);
    setVisible(m != nullptr);
    if (m == nullptr) {
        m_debounce.stop();
        return;  // the field keeps its text: a node let go during an apply comes back to it
    }
    m_editable = m->className() == engine::EquationNeuron::kCustomType;
    const QString text = QString::fromStdString(m->text());
    // The user's typing stays while the same module keeps the text it was loaded from.
    const bool keep = m_editable && m_node == before && m_doc == beforeDoc && text == m_loaded;
    if (!keep) {
        if (m_text->toPlainText() != text) {
            const QSignalBlocker block(m_text);
            m_text->setPlainText(text);
        }
        m_loaded = text;
    }
    m_text->setReadOnly(!m_editable);
    m_apply->setVisible(m_editable && isChecked());
    m_copy->setVisible(!m_editable && isChecked());
    m_intro->setText(m_editable ? tr("Your own model (docs/equations.md): edit the text, then Apply.")
                                : tr("%1 is a library model: its text is read-only here.")
                                      .arg(QString::fromStdString(m->className())));
    {
        const QSignalBlocker block(m_presets);
        m_presets->clear();
        m_presets->addItem(QStringLiteral("\u2014"));
        for (const engine::equations::Preset& p : m->model().presets) {
            m_presets->addItem(QString::fromStdString(p.name));
        }
    }
    m_presetRow->setVisible(isChecked() && m_presets->count() > 1);
    refreshPreset();
    if (!keep) {
        checkNow();
    }
}

void EquationEditor::refreshPreset()
{
    const engine::EquationNeuron* m = equationNeuron(m_doc, m_node);
    if (m == nullptr) {
        return;
    }
    int match = 0;
    const auto& presets = m->model().presets;
    for (std::size_t i = 0; i < presets.size() && match == 0; ++i) {
        bool all = true;
        for (const auto& [name, value] : presets[i].values) {
            const auto* t = m->hasAttribute(name) ? std::get_if<engine::Tensor>(&m->attribute(name)) : nullptr;
            for (std::int64_t k = 0; all && t != nullptr && k < t->numel(); ++k) {
                all = (*t)[k] == static_cast<float>(value);
            }
            all = all && t != nullptr;
        }
        if (all) {
            match = static_cast<int>(i) + 1;
        }
    }
    const QSignalBlocker block(m_presets);
    m_presets->setCurrentIndex(match);
}

bool EquationEditor::applyPreset(const QString& name)
{
    const engine::EquationNeuron* m = equationNeuron(m_doc, m_node);
    if (m == nullptr || !m_push) {
        return false;
    }
    for (const engine::equations::Preset& p : m->model().presets) {
        if (QString::fromStdString(p.name) != name) {
            continue;
        }
        std::vector<std::pair<std::string, engine::AttributeValue>> changes;
        for (const auto& [parameter, value] : p.values) {
            const auto* t = std::get_if<engine::Tensor>(&m->attribute(parameter));
            if (t != nullptr) {
                changes.emplace_back(parameter, engine::Tensor::full(t->shape(), static_cast<float>(value)));
            }
        }
        return m_push(changes, tr("Preset '%1' of %2").arg(name, QString::fromStdString(m->name())));
    }
    return false;
}

void EquationEditor::say(const QString& text, bool error)
{
    m_message->setText(text);
    m_message->setStyleSheet(error ? QStringLiteral("color: #c62828;") : QString());
    m_message->setForegroundRole(error ? QPalette::WindowText : QPalette::PlaceholderText);
}

QString EquationEditor::message() const
{
    return m_message->text();
}

void EquationEditor::underline(int start, int length)
{
    m_error = {start, length};
    QList<QTextEdit::ExtraSelection> marks;
    if (length > 0) {
        QTextEdit::ExtraSelection mark;
        mark.cursor = QTextCursor(m_text->document());
        const int end = static_cast<int>(m_text->document()->characterCount()) - 1;
        mark.cursor.setPosition(std::min(start, end));
        mark.cursor.setPosition(std::min(start + length, end), QTextCursor::KeepAnchor);
        if (!mark.cursor.hasSelection() && start > 0) {
            mark.cursor.setPosition(start - 1);  // at the very end: mark the last character
            mark.cursor.setPosition(start, QTextCursor::KeepAnchor);
        }
        mark.format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
        mark.format.setUnderlineColor(QColor(0xc6, 0x28, 0x28));
        marks << mark;
        // The line of the mistake, faintly.
        QTextEdit::ExtraSelection line;
        line.cursor = QTextCursor(m_text->document()->findBlock(std::min(start, end)));
        line.format.setBackground(QColor(0xc6, 0x28, 0x28, 24));
        line.format.setProperty(QTextFormat::FullWidthSelection, true);
        marks.prepend(line);
    }
    m_text->setExtraSelections(marks);
}

void EquationEditor::checkNow()
{
    m_debounce.stop();
    m_good = false;
    if (equationNeuron(m_doc, m_node) == nullptr) {
        return;
    }
    const std::string text = m_text->toPlainText().toStdString();
    try {
        const engine::equations::EquationModel model = engine::equations::parseModel(text);
        const engine::equations::CompiledModel compiled = engine::equations::compileModel(model, moduleDt(), "");
        m_good = true;
        underline(0, 0);
        if (!m_editable) {
            say(tr("%1 states, %2 parameters · method %3.")
                    .arg(model.states.size())
                    .arg(model.parameters.size())
                    .arg(QString::fromStdString(compiled.method)),
                false);
        } else if (text == moduleText()) {
            say(tr("The text runs as shown (%1 states, %2 parameters, method %3).")
                    .arg(model.states.size())
                    .arg(model.parameters.size())
                    .arg(QString::fromStdString(compiled.method)),
                false);
        } else {
            say(tr("No mistakes: Apply (Ctrl+Return) to rebuild the population with it, one undo step."), false);
        }
    } catch (const engine::equations::EquationError& e) {
        const int start = charIndex(text, e.position());
        underline(start, charIndex(text, e.position() + e.length()) - start);
        say(QString::fromStdString(e.what()), true);
    } catch (const std::exception& e) {
        underline(0, 0);
        say(QString::fromStdString(e.what()), true);
    }
    const QString refusal = m_doc != nullptr ? QString::fromStdString(configureRefusal(*m_doc, m_node)) : QString();
    m_apply->setEnabled(m_editable && m_good && text != moduleText() && refusal.isEmpty());
    if (m_editable && m_good && !refusal.isEmpty()) {
        say(tr("Read-only: %1.").arg(refusal), true);
    }
}

bool EquationEditor::apply()
{
    checkNow();
    if (!m_apply->isEnabled()) {
        return false;
    }
    GraphDocument* doc = m_doc;
    const NodeId node = m_node;
    const QString typed = m_text->toPlainText();
    nlohmann::json config = doc->module(node)->config();
    config["equations"] = typed.toStdString();
    const engine::Status st = pushCommand(*doc, std::make_unique<ConfigureNodeCommand>(*doc, node, config));
    if (!st.ok) {
        // A refusal after the document was touched rolled back with signals that may have let
        // the node go from the views: show it again with the typed text and the reason.
        if (m_node != node && doc->contains(node)) {
            Q_EMIT showAgain(node);
            if (m_node != node) {
                showNode(doc, node);
            }
        }
        if (m_text->toPlainText() != typed) {
            const QSignalBlocker block(m_text);
            m_text->setPlainText(typed);
        }
        say(tr("Not applied: %1").arg(QString::fromStdString(st.message)), true);
        m_apply->setEnabled(false);
        return false;
    }
    Q_EMIT configured(node);
    showNode(doc, node);  // loads the module's (new) text, checked
    return true;
}

bool EquationEditor::copyAsCustom()
{
    const engine::EquationNeuron* m = equationNeuron(m_doc, m_node);
    if (m == nullptr || m_editable) {
        return false;
    }
    GraphDocument* doc = m_doc;
    const NodeId node = m_node;
    const nlohmann::json config = {{"shape", {m->nNeurons()}}, {"equations", m->text()}};
    const engine::Status st = pushCommand(
        *doc, std::make_unique<ReplaceNodeCommand>(*doc, node, engine::EquationNeuron::kCustomType, config));
    if (!st.ok) {
        if (m_node != node && doc->contains(node)) {
            Q_EMIT showAgain(node);
        }
        say(tr("Not copied: %1").arg(QString::fromStdString(st.message)), true);
        return false;
    }
    Q_EMIT configured(node);
    showNode(doc, node);
    return true;
}

bool EquationEditor::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_text && event->type() == QEvent::KeyPress) {
        const auto* key = static_cast<QKeyEvent*>(event);
        if ((key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) &&
            (key->modifiers() & Qt::ControlModifier) != 0) {
            if (m_editable) {
                apply();
            }
            return true;
        }
    }
    return QGroupBox::eventFilter(watched, event);
}

}  // namespace spike::ui
