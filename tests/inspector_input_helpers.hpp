// Shared fixtures of the inspector tests under real input (test_inspector_input: every editor
// of every type and example; test_inspector_crashes: the crashes of issue #13 one by one): the
// inspected module and its editors, the consistency check between editors and document, a value
// to type, answering an input dialog, and the window put on the screen with the focus.
#pragma once

#include "real_input.hpp"

#include "ui/document/graph_document.hpp"
#include "ui/inspector/inspector.hpp"
#include "ui/inspector/inspector_editors.hpp"
#include "ui/inspector/number_spin_box.hpp"
#include "ui/window/main_window.hpp"

#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QInputDialog>
#include <QTimer>
#include <QToolBar>
#include <QtTest/QtTest>

#include <cmath>

namespace spike::tests {

/// Puts `w` on the screen (1400 x 900), active, and lets it lay out.
inline void showMainWindow(ui::MainWindow& w)
{
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QApplication::setActiveWindow(&w);
    QVERIFY(QTest::qWaitForWindowActive(&w));
    settle();
}

/// Clicks the visible toolbar button of the window's action `name` ("action.run",
/// "action.step10"), as a person presses it.
inline void clickToolButton(ui::MainWindow& w, const QString& name)
{
    QAction* action = w.action(name);
    QVERIFY(action != nullptr);
    for (QToolBar* bar : w.findChildren<QToolBar*>()) {
        if (QWidget* button = bar->widgetForAction(action); button != nullptr && button->isVisible()) {
            QTest::mouseClick(button, Qt::LeftButton);
            return;
        }
    }
    QFAIL(qPrintable(name + QStringLiteral(" has no visible toolbar button")));
}

inline const engine::Module& shownModule(const ui::MainWindow& w)
{
    return *w.document()->module(w.inspector()->node());
}

inline const engine::Tensor& shownTensor(const ui::MainWindow& w, const char* name)
{
    return shownModule(w).tensor(name);
}

inline ui::AttributeEditor* editorOf(const ui::MainWindow& w, const QString& name)
{
    return qobject_cast<ui::AttributeEditor*>(w.inspector()->editorFor(name));
}

/// Every editor of the inspected module shows the module's value (and nothing else).
inline bool editorsMatchDocument(const ui::MainWindow& w, QString* why)
{
    const engine::Module& m = shownModule(w);
    for (const auto& view : m.attributes()) {
        const QString name = QString::fromStdString(view.spec->name);
        auto* editor = editorOf(w, name);
        if (editor == nullptr) {
            *why = name + QStringLiteral(": no editor");
            return false;
        }
        // A paused run's States replace the document's (initial) ones in the inspector.
        const auto run = w.inspector()->runStates().find(view.spec->name);
        const engine::AttributeValue& value = run != w.inspector()->runStates().end() ? run->second : *view.value;
        if (auto* scalar = qobject_cast<ui::ScalarEditor*>(editor)) {
            const double want = std::get<engine::Tensor>(value)[0];
            if (!std::isfinite(want)) {
                const auto* number = dynamic_cast<const ui::NumberSpinBox*>(scalar->spinBox());
                const QString special = number != nullptr ? number->nonFiniteText() : QString();
                if (special != QString::number(want).toLower()) {
                    *why = QStringLiteral("%1 is %2, the editor shows '%3'").arg(name).arg(want).arg(scalar->spinBox()->text());
                    return false;
                }
                continue;
            }
            const double shown = scalar->spinBox() != nullptr ? scalar->spinBox()->value()
                                                              : (scalar->checkBox()->isChecked() ? 1.0 : 0.0);
            if (std::abs(shown - want) > 1e-6 * std::max(1.0, std::abs(want))) {
                *why = QStringLiteral("%1 shows %2, the module has %3").arg(name).arg(shown).arg(want);
                return false;
            }
        } else if (auto* choice = qobject_cast<ui::EnumEditor*>(editor)) {
            if (choice->comboBox()->currentText().toStdString() != std::get<std::string>(value)) {
                *why = QStringLiteral("%1 shows %2").arg(name, choice->comboBox()->currentText());
                return false;
            }
        }
    }
    return true;
}

#define REQUIRE_CONSISTENT(w)                                                                      \
    do {                                                                                           \
        QString why_;                                                                              \
        QVERIFY2(spike::tests::editorsMatchDocument(w, &why_), qPrintable(why_));                  \
    } while (false)

/// A value inside the attribute's bounds and different from `v`, to type.
inline double otherValue(const engine::AttributeSpec& spec, double v)
{
    const auto& b = spec.bounds;
    double next = v == 0.0 ? 0.5 : v * 1.5;
    if (spec.type == engine::ValueType::Integer) {
        next = std::nearbyint(v) + 1.0;
    }
    if (std::isfinite(b.upper) && next >= b.upper) {
        next = std::isfinite(b.lower) ? (b.lower + b.upper) / 2.0 : b.upper - 1.0;
        if (spec.type == engine::ValueType::Integer) {
            next = std::floor(next);
        }
    }
    return next;
}

/// Types `text` into the next QInputDialog once it is shown and presses Return (polls: the
/// dialog may take a few event-loop turns to become the active modal widget).
inline void answerNextInputDialog(const QString& text)
{
    auto* timer = new QTimer;
    timer->setInterval(5);
    QObject::connect(timer, &QTimer::timeout, timer, [timer, text] {
        QInputDialog* dialog = nullptr;
        for (QWidget* top : QApplication::topLevelWidgets()) {
            if (auto* d = qobject_cast<QInputDialog*>(top); d != nullptr && d->isVisible()) {
                dialog = d;
            }
        }
        if (dialog == nullptr) {
            return;
        }
        timer->stop();
        timer->deleteLater();
        if (auto* edit = dialog->findChild<QAbstractSpinBox*>()) {
            QTest::keyClick(edit, Qt::Key_A, Qt::ControlModifier);
            QTest::keyClicks(edit, text);
        }
        dialog->accept();
    });
    timer->start();
}

}  // namespace spike::tests
