// The inspector inside the main window under real input: typing a value and pressing Return,
// clicking spin-box arrows, the mouse wheel over spin boxes, sliders and combo boxes (with and
// without focus), choosing from a drop-down, committing with Tab or by clicking away, dragging a
// slider, toggling a check box, editing a cell of a per-neuron table and the whole-array
// actions, for a module of every registered type and for the first module of each type in every
// bundled example, while stopped and while running. The crashes one by one, with their exact
// outcomes: test_inspector_crashes.cpp. Each of these once deleted the editor inside its own event
// (the main window rebuilt the inspector on every attribute change) and killed the process; here
// every interaction must leave the window alive, the document holding the value the person chose
// (or the engine's refusal shown) and every editor showing the document's value.
// Runs with QT_QPA_PLATFORM=offscreen; real events through QTest and tests/real_input.hpp.
#include "inspector_input_helpers.hpp"

#include "ui/editor/graph_breadcrumb.hpp"
#include "ui/editor/graph_canvas.hpp"
#include "ui/document/document_file.hpp"
#include "ui/document/graph_document.hpp"
#include "ui/inspector/inspector.hpp"
#include "ui/inspector/inspector_editors.hpp"
#include "ui/window/main_window.hpp"

#include "engine/io/module_factory.hpp"

#include <QAbstractItemView>
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QInputDialog>
#include <QLineEdit>
#include <QPointer>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSlider>
#include <QSpinBox>
#include <QStatusBar>
#include <QTableWidget>
#include <QTimer>
#include <QToolButton>
#include <QUndoStack>

#include <cmath>
#include <set>
#include <limits>

using spike::engine::Tensor;
using spike::tests::answerNextInputDialog;
using spike::tests::editorOf;
using spike::tests::otherValue;
using spike::tests::showMainWindow;
using spike::tests::shownModule;
using spike::tests::shownTensor;
using spike::tests::bringIntoView;
using spike::tests::clickSpinArrow;
using spike::tests::settle;
using spike::tests::typeInto;
using spike::tests::wheel;
using spike::ui::ArrayEditor;
using spike::ui::AttributeEditor;
using spike::ui::EnumEditor;
using spike::ui::MainWindow;
using spike::ui::NodeId;
using spike::ui::ScalarEditor;

class TestInspectorInput : public QObject {
    Q_OBJECT

private:
    /// Sends every kind of real input an editor of attribute `name` takes; checks after each
    /// that the window is consistent. Returns through QVERIFY on failure.
    void exercise(MainWindow& w, const QString& name);
    void exerciseScalar(MainWindow& w, ScalarEditor* editor);
    void exerciseEnum(MainWindow& w, EnumEditor* editor);
    void exerciseArray(MainWindow& w, ArrayEditor* editor);

private Q_SLOTS:
    void init() { QStandardPaths::setTestModeEnabled(true); }

    void everyTypeUnderRealInput_data();
    void everyTypeUnderRealInput();
    void everyExampleUnderRealInput_data();
    void everyExampleUnderRealInput();

};

void TestInspectorInput::exercise(MainWindow& w, const QString& name)
{
    QPointer<AttributeEditor> editor = editorOf(w, name);
    QVERIFY2(editor != nullptr, qPrintable(name));
    if (editor->derived() || !editor->isEnabled()) {
        return;  // read-only rows take no input
    }
    if (QApplication::activeWindow() != &w) {
        // The offscreen platform does not give the activation back when a dialog closes.
        QApplication::setActiveWindow(&w);
        settle();
    }
    bringIntoView(editor);
    if (auto* scalar = qobject_cast<ScalarEditor*>(editor)) {
        exerciseScalar(w, scalar);
    } else if (auto* choice = qobject_cast<EnumEditor*>(editor)) {
        exerciseEnum(w, choice);
    } else if (auto* array = qobject_cast<ArrayEditor*>(editor)) {
        exerciseArray(w, array);
    }
    settle();
    QVERIFY(w.isVisible());
    REQUIRE_CONSISTENT(w);
}

void TestInspectorInput::exerciseScalar(MainWindow& w, ScalarEditor* editor)
{
    const QString name = QString::fromStdString(editor->spec().name);
    QPointer<ScalarEditor> guard = editor;
    if (QCheckBox* check = editor->checkBox()) {
        const bool before = check->isChecked();
        QTest::mouseClick(check, Qt::LeftButton, Qt::NoModifier, QPoint(8, check->height() / 2));
        settle();
        QVERIFY2(guard != nullptr, qPrintable(name + QStringLiteral(": the check box was rebuilt")));
        REQUIRE_CONSISTENT(w);
        QVERIFY2(check->isChecked() != before || !w.inspector()->lastMessage().isEmpty(), qPrintable(name));
        return;
    }
    QDoubleSpinBox* spin = editor->spinBox();
    const float original = shownTensor(w, editor->spec().name.c_str())[0];
    // Type a value and press Return.
    const double v = spin->value();
    const double typed = otherValue(editor->spec(), v);
    typeInto(spin, QString::number(typed, 'g', 7));
    QTest::keyClick(spin, Qt::Key_Return);
    settle();
    QVERIFY2(guard != nullptr, qPrintable(name + QStringLiteral(": the editor was rebuilt by its own edit")));
    REQUIRE_CONSISTENT(w);
    const double now = shownTensor(w, editor->spec().name.c_str())[0];
    QVERIFY2(std::abs(now - static_cast<float>(typed)) <= 1e-6 * std::max(1.0, std::abs(typed)) ||
                 !w.inspector()->lastMessage().isEmpty(),
             qPrintable(QStringLiteral("%1: typed %2, the module has %3").arg(name).arg(typed).arg(now)));
    // Arrows.
    clickSpinArrow(spin, true);
    QVERIFY(guard != nullptr);
    REQUIRE_CONSISTENT(w);
    clickSpinArrow(spin, false);
    QVERIFY(guard != nullptr);
    REQUIRE_CONSISTENT(w);
    // The wheel with focus (the spin box has it since the click).
    QVERIFY2(spin->hasFocus(), qPrintable(QStringLiteral("%1: focus on %2, spin box visible region %3 x %4")
                                              .arg(name, QApplication::focusWidget() ? QString::fromLatin1(QApplication::focusWidget()->metaObject()->className()) : QStringLiteral("nothing"))
                                              .arg(spin->visibleRegion().boundingRect().width()).arg(spin->visibleRegion().boundingRect().height())));
    wheel(spin, 1);
    QVERIFY(guard != nullptr);
    REQUIRE_CONSISTENT(w);
    wheel(spin, -1);
    REQUIRE_CONSISTENT(w);
    // A slider drag from one end to the middle: consecutive moves merge into one undo step.
    QSlider* slider = editor->slider();
    const int undoBefore = w.document()->undoStack()->count();
    const float beforeDrag = shownTensor(w, editor->spec().name.c_str())[0];
    const int y = slider->height() / 2;
    QTest::mousePress(slider, Qt::LeftButton, Qt::NoModifier, QPoint(slider->width() / 4, y));
    for (int x = slider->width() / 4; x <= slider->width() / 2; x += 7) {
        QTest::mouseMove(slider, QPoint(x, y));
    }
    QTest::mouseRelease(slider, Qt::LeftButton, Qt::NoModifier, QPoint(slider->width() / 2, y));
    settle();
    QVERIFY(guard != nullptr);
    REQUIRE_CONSISTENT(w);
    QVERIFY2(w.document()->undoStack()->count() <= undoBefore + 1, qPrintable(name));
    // Ctrl+Z takes the drag back in one step: to the value before it, or, where the drag merged
    // with this attribute's earlier edits into one undo step, to the value before all of them.
    // (Left in place, a drag to the middle of a size's range would make cuba_network's
    // populations 5 x 10^5 neurons, and each later edit would snapshot their states for undo.)
    if (const float dragged = shownTensor(w, editor->spec().name.c_str())[0]; dragged != beforeDrag) {
        const int index = w.document()->undoStack()->index();
        QTest::keyClick(slider, Qt::Key_Z, Qt::ControlModifier);
        settle();
        QVERIFY2(guard != nullptr, qPrintable(name + QStringLiteral(": the editor was rebuilt by Ctrl+Z")));
        REQUIRE_CONSISTENT(w);
        QCOMPARE(w.document()->undoStack()->index(), index - 1);
        const float undone = shownTensor(w, editor->spec().name.c_str())[0];
        QVERIFY2(undone == beforeDrag || undone == original,
                 qPrintable(QStringLiteral("%1: Ctrl+Z after the drag left %2 (before the drag %3, "
                                           "before every edit %4)")
                                .arg(name).arg(undone).arg(beforeDrag).arg(original)));
    }
    // Wheel over the slider with the focus on it (clicked), then without focus.
    wheel(slider, 1);
    REQUIRE_CONSISTENT(w);
    w.canvas()->setFocus();
    const float before = shownTensor(w, editor->spec().name.c_str())[0];
    wheel(spin, 1);
    wheel(slider, -1);
    QVERIFY(guard != nullptr);
    QCOMPARE(shownTensor(w, editor->spec().name.c_str())[0], before);
}

void TestInspectorInput::exerciseEnum(MainWindow& w, EnumEditor* editor)
{
    QPointer<EnumEditor> guard = editor;
    QComboBox* combo = editor->comboBox();
    const std::string name = editor->spec().name;
    // Without focus the wheel leaves the value alone.
    w.canvas()->setFocus();
    const std::string before = std::get<std::string>(shownModule(w).attribute(name));
    wheel(combo, -1);
    QVERIFY(guard != nullptr);
    QCOMPARE(std::get<std::string>(shownModule(w).attribute(name)), before);
    // With focus: each notch is a choice (the crash of issue #13).
    combo->setFocus(Qt::TabFocusReason);
    wheel(combo, -1);
    QVERIFY2(guard != nullptr, "the combo box was rebuilt by its own wheel event");
    REQUIRE_CONSISTENT(w);
    wheel(combo, 1);
    QVERIFY(guard != nullptr);
    REQUIRE_CONSISTENT(w);
    // Keyboard: arrow down, then back up.
    QTest::keyClick(combo, Qt::Key_Down);
    settle();
    QVERIFY(guard != nullptr);
    REQUIRE_CONSISTENT(w);
    QTest::keyClick(combo, Qt::Key_Up);
    settle();
    QVERIFY(guard != nullptr);
    REQUIRE_CONSISTENT(w);
}

void TestInspectorInput::exerciseArray(MainWindow& w, ArrayEditor* editor)
{
    QPointer<ArrayEditor> guard = editor;
    const std::string name = editor->spec().name;
    auto* expand = editor->findChild<QToolButton*>();
    QVERIFY(expand != nullptr);
    if (!expand->isChecked()) {
        QTest::mouseClick(expand, Qt::LeftButton);
        settle();
    }
    QVERIFY(guard != nullptr);
    if (QTableWidget* table = editor->table(); table != nullptr && table->rowCount() > 0) {
        bringIntoView(table);
        const QRect cell = table->visualRect(table->model()->index(0, 0));
        QTest::mouseClick(table->viewport(), Qt::LeftButton, Qt::NoModifier, cell.center());
        QTest::keyClick(table, Qt::Key_F2);
        settle();
        auto* line = table->viewport()->findChild<QLineEdit*>();
        QVERIFY2(line != nullptr, qPrintable(QStringLiteral("F2 opened no cell editor (%1 x %2 cells, focus on %3)")
                                                 .arg(table->rowCount())
                                                 .arg(table->columnCount())
                                                 .arg(QApplication::focusWidget() != nullptr
                                                          ? QString::fromLatin1(QApplication::focusWidget()->metaObject()->className())
                                                          : QStringLiteral("nothing"))));
        {
            const Tensor before = shownTensor(w, name.c_str());
            const QString text = QString::number(otherValue(editor->spec(), before[0]), 'g', 7);
            const float typed = text.toFloat();
            QTest::keyClicks(line, text);
            QTest::keyClick(line, Qt::Key_Return);
            settle();
            QVERIFY2(guard != nullptr, "the array editor was rebuilt by its own cell edit");
            const float now = shownTensor(w, name.c_str())[0];
            QVERIFY2(now == typed || !w.inspector()->lastMessage().isEmpty(),
                     qPrintable(QStringLiteral("%1[0]: typed %2, the module has %3")
                                    .arg(QString::fromStdString(name))
                                    .arg(typed)
                                    .arg(now)));
        }
        wheel(table->viewport(), -1);
        QVERIFY(guard != nullptr);
    }
    // Scale… through its dialog (one undo step).
    QPushButton* scale = nullptr;
    for (auto* b : editor->findChildren<QPushButton*>()) {
        if (b->text().startsWith(QStringLiteral("Scale"))) {
            scale = b;
        }
    }
    QVERIFY(scale != nullptr);
    bringIntoView(scale);
    answerNextInputDialog(QStringLiteral("1"));
    QTest::mouseClick(scale, Qt::LeftButton);
    settle();
    QVERIFY(guard != nullptr);
    // Collapse again.
    QTest::mouseClick(expand, Qt::LeftButton);
    settle();
    QVERIFY(guard != nullptr);
}

// ---- every type, every example -----------------------------------------------------------------

void TestInspectorInput::everyTypeUnderRealInput_data()
{
    QTest::addColumn<QString>("type");
    QTest::addColumn<bool>("running");
    for (const auto& info : spike::engine::moduleTypes()) {
        const QString type = QString::fromStdString(info.type);
        QTest::newRow(qPrintable(type + QStringLiteral(" stopped"))) << type << false;
        QTest::newRow(qPrintable(type + QStringLiteral(" running"))) << type << true;
    }
}

void TestInspectorInput::everyTypeUnderRealInput()
{
    QFETCH(QString, type);
    QFETCH(bool, running);
    const spike::engine::ModuleTypeInfo* info = spike::engine::findModuleType(type.toStdString());
    QVERIFY(info != nullptr);
    MainWindow w;
    w.document()->reset(info->create(info->exampleConfig));
    showMainWindow(w);
    // An empty Sequential has nothing to evolve and a ModuleList no forward of its own: their
    // run stops at once and says why (the inspector is exercised on the stopped run below).
    const bool cannotRun = type == QLatin1String("Sequential") || type == QLatin1String("ModuleList");
    if (running) {
        w.action(QStringLiteral("action.run"))->trigger();
        if (cannotRun) {
            QTRY_VERIFY2(w.statusBar()->currentMessage().contains(type + QStringLiteral(" (root)")),
                         qPrintable(w.statusBar()->currentMessage()));
            QVERIFY(w.statusBar()->currentMessage().contains(QStringLiteral("failed")));
            QVERIFY(!w.isRunning());
        } else {
            QTRY_VERIFY2(w.isRunning(), qPrintable(type + QStringLiteral(" does not run: ") + w.statusBar()->currentMessage()));
        }
    }
    bool exploded = false;  // the run paused on a non-finite State
    QStringList said;
    QObject::connect(w.statusBar(), &QStatusBar::messageChanged, &w, [&exploded, &said](const QString& m) {
        // An equation-defined population's message names the equation ("set by dvm/dt = ...").
        exploded = exploded || (m.contains(QStringLiteral("The simulation paused: state")) &&
                                m.contains(QStringLiteral(", set by d")));
        if (!m.isEmpty() && !m.contains(QStringLiteral("undoes"))) said << m;
    });
    // The root and every module below it (composites build children).
    for (const auto& [path, module] : w.document()->root().namedModules()) {
        QVERIFY(w.selectModule(QString::fromStdString(path)));
        settle();
        for (const QString& name : w.inspector()->rowNames()) {
            exercise(w, name);
            if (QTest::currentTestFailed()) {
                QFAIL(qPrintable(QStringLiteral("%1 '%2'.%3").arg(type, QString::fromStdString(path), name)));
            }
        }
    }
    if (running && !cannotRun) {
        // Still running, unless the values typed made the model explode (an AdEx whose reset
        // lies far above its threshold): then the run paused on the non-finite State, which the
        // status bar said.
        QVERIFY2(w.isRunning() || exploded, qPrintable(type + QStringLiteral(" stopped running: ") + said.join(QStringLiteral(" | "))));
        if (w.isRunning()) {
            w.action(QStringLiteral("action.run"))->trigger();
            settle();
        }
    }
}

void TestInspectorInput::everyExampleUnderRealInput_data()
{
    QTest::addColumn<QString>("example");
    QTest::addColumn<bool>("running");
    for (const QString& example : spike::tests::bundledExamples()) {
        const QString name = example.section(QLatin1Char('/'), -1);
        QTest::newRow(qPrintable(name + QStringLiteral(" stopped"))) << example << false;
        QTest::newRow(qPrintable(name + QStringLiteral(" running"))) << example << true;
    }
}

void TestInspectorInput::everyExampleUnderRealInput()
{
    QFETCH(QString, example);
    QFETCH(bool, running);
    MainWindow w;
    // No autosave here (test_document_file and test_kill_recover test it): a slider drag to the
    // middle of a size's range makes cuba_network's populations 5 x 10^5 neurons, whose 0.5 GB
    // recovery file, written each minute, was most of this test's time under AddressSanitizer.
    w.documentFile()->setAutosaveInterval(0);
    QString error;
    QVERIFY2(w.openModel(example, &error), qPrintable(error));
    showMainWindow(w);
    if (running) {
        w.action(QStringLiteral("action.run"))->trigger();
        QTRY_VERIFY(w.isRunning());
    }
    // The first module of each type: the others repeat its editors, and every edit of a sparse
    // projection's rule, p, seed or delay draws its synapses again (seconds for cuba_network's).
    std::set<std::string> seen;
    for (const auto& [path, module] : w.document()->root().namedModules()) {
        if (!seen.insert(module->className()).second) {
            continue;
        }
        QVERIFY(w.selectModule(QString::fromStdString(path)));
        settle();
        for (const QString& name : w.inspector()->rowNames()) {
            exercise(w, name);
            if (QTest::currentTestFailed()) {
                QFAIL(qPrintable(QStringLiteral("'%1'.%2").arg(QString::fromStdString(path), name)));
            }
        }
    }
    if (running) {
        QVERIFY(w.isRunning());
        w.action(QStringLiteral("action.run"))->trigger();
        settle();
        QTRY_VERIFY(!w.isRunning());
    }
}

QTEST_MAIN(TestInspectorInput)
#include "test_inspector_input.moc"
