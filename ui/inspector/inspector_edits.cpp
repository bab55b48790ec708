// Inspector: the edit pipeline. Every change the user asks for goes through the edit gate, then
// as SetAttributeCommands through pushCommand(), so the engine validates it and it can be
// undone; several changes (a reset) or a whole-array action form one macro, that is one undo
// step; a refusal leaves the document and the undo stack as they were and shows its reason
// under the row. See inspector.hpp. Thread: GUI thread only.
#include "ui/inspector/inspector.hpp"

#include "ui/document/graph_commands.hpp"
#include "ui/inspector/inspector_editors.hpp"

#include "engine/io/module_factory.hpp"

#include <QLabel>
#include <QUndoStack>

#include <algorithm>

namespace spike::ui {

namespace {

bool sameValue(const engine::AttributeValue& a, const engine::AttributeValue& b)
{
    const auto* ta = std::get_if<engine::Tensor>(&a);
    const auto* tb = std::get_if<engine::Tensor>(&b);
    if (ta != nullptr && tb != nullptr) {
        return ta->identical(*tb);
    }
    return ta == nullptr && tb == nullptr && std::get<std::string>(a) == std::get<std::string>(b);
}

}  // namespace

void Inspector::showRefusal(Row* row, const QString& message)
{
    m_lastMessage = message;
    if (row != nullptr) {
        row->message->setText(message);
        row->message->setHidden(row->nameLabel->isHidden());
    }
}

void Inspector::clearRefusal(Row* row)
{
    m_lastMessage.clear();
    if (row != nullptr) {
        row->message->clear();
        row->message->setHidden(true);
    }
}

bool Inspector::commitEdit(const std::string& name, const engine::AttributeValue& value,
                           const QString& step)
{
    return pushChanges({{name, value}}, step);
}

bool Inspector::pushChanges(
    const std::vector<std::pair<std::string, engine::AttributeValue>>& changes, const QString& text)
{
    const engine::Module* m = m_doc != nullptr ? m_doc->module(m_node) : nullptr;
    if (m == nullptr) {
        return false;
    }
    std::vector<std::pair<std::string, engine::AttributeValue>> pending;
    for (const auto& [name, value] : changes) {
        if (!sameValue(m->attribute(name), value)) {
            pending.emplace_back(name, value);
        }
    }
    if (pending.empty()) {
        return true;
    }
    if (m_gate) {
        for (const auto& change : pending) {
            const QString reason = m_gate(m_node, m->spec(change.first));
            if (!reason.isEmpty()) {
                showRefusal(findRow(change.first), reason);
                refreshAll();
                return false;
            }
        }
    }
    QUndoStack* stack = m_doc->undoStack();
    const bool macro = !text.isEmpty();
    if (macro) {
        stack->beginMacro(text);
    }
    // One change at a time; a change refused only because of another one's current value (a
    // tau that is derived until leak_mode changes) is tried again after the others.
    std::vector<std::string> pushed;
    QString error;
    std::string failed;
    while (!pending.empty()) {
        std::vector<std::pair<std::string, engine::AttributeValue>> refused;
        for (auto& [name, value] : pending) {
            const engine::Status s = pushCommand(
                *m_doc, std::make_unique<SetAttributeCommand>(*m_doc, m_node, name, value));
            if (s.ok) {
                pushed.push_back(name);
            } else {
                error = QString::fromStdString(s.message);
                failed = name;
                refused.emplace_back(name, std::move(value));
            }
        }
        if (refused.size() == pending.size()) {
            break;
        }
        pending = std::move(refused);
    }
    if (macro) {
        stack->endMacro();
    }
    if (!pending.empty()) {
        if (macro) {
            // Take the partial macro back and off the stack (obsolete commands are dropped).
            auto* last = const_cast<QUndoCommand*>(stack->command(stack->index() - 1));
            last->setObsolete(true);
            stack->undo();
            pushed.clear();
        }
        showRefusal(findRow(failed), error);
        refreshAll();
        return false;
    }
    for (const auto& [name, value] : changes) {
        clearRefusal(findRow(name));
    }
    for (const std::string& name : pushed) {
        Q_EMIT edited(m_node, QString::fromStdString(name));
    }
    return true;
}

bool Inspector::resetParameters()
{
    const engine::Module* m = m_doc != nullptr ? m_doc->module(m_node) : nullptr;
    if (m == nullptr) {
        return false;
    }
    // Defaults: a fresh module built from the same config holds every init value, with init
    // functions that read other attributes (a weight initialiser reading "seed") seeing the
    // defaults too. A type the factory cannot rebuild falls back to the specs' init functions.
    std::unique_ptr<engine::Module> fresh;
    try {
        fresh = engine::createModule(m->className(), m->config());
    } catch (const engine::Error&) {
        fresh.reset();
    }
    std::vector<std::pair<std::string, engine::AttributeValue>> changes;
    for (const engine::AttributeView& view : m->attributes()) {
        const engine::AttributeSpec& spec = *view.spec;
        if (spec.kind == engine::AttributeKind::State) {
            continue;
        }
        if (fresh != nullptr && fresh->hasAttribute(spec.name)) {
            if (!fresh->isDerived(spec.name)) {
                changes.emplace_back(spec.name, fresh->attribute(spec.name));
            }
        } else if (!view.derived) {
            changes.emplace_back(spec.name, spec.init(*m));
        }
    }
    // Enumerations first: they decide which of the others are settable.
    std::stable_partition(changes.begin(), changes.end(), [](const auto& c) {
        return std::holds_alternative<std::string>(c.second);
    });
    return pushChanges(changes, tr("Reset parameters of %1").arg(QString::fromStdString(m->className())));
}

bool Inspector::resetState()
{
    const engine::Module* m = m_doc != nullptr ? m_doc->module(m_node) : nullptr;
    if (m == nullptr) {
        return false;
    }
    std::vector<std::pair<std::string, engine::AttributeValue>> changes;
    for (const engine::AttributeView& view : m->attributes()) {
        const engine::AttributeSpec& spec = *view.spec;
        if (spec.kind == engine::AttributeKind::State && !spec.keepOnResetState && !view.derived) {
            changes.emplace_back(spec.name, spec.init(*m));
        }
    }
    return pushChanges(changes, tr("Reset state of %1").arg(QString::fromStdString(m->className())));
}

}  // namespace spike::ui
