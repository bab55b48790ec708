// The crashes of issue #13 one by one, each with its exact outcome, in the main window under real
// input: a value typed and Return, spin-box arrows, the wheel with and without focus, a refusal
// while running, a choice from the drop-down, Tab and clicking away, a table cell edit, a
// breadcrumb click. Each once deleted the widget inside its own event. The survey of every
// editor of every type and example: test_inspector_input.cpp.
// Runs with QT_QPA_PLATFORM=offscreen; real events through QTest and tests/real_input.hpp.
#include "inspector_input_helpers.hpp"

#include "ui/editor/graph_breadcrumb.hpp"
#include "ui/editor/graph_canvas.hpp"

#include <QAbstractItemView>
#include <QAction>
#include <QLineEdit>
#include <QPointer>
#include <QScrollArea>
#include <QScrollBar>
#include <QSlider>
#include <QStatusBar>
#include <QTableWidget>
#include <QToolButton>
#include <QUndoStack>

using spike::tests::bringIntoView;
using spike::tests::clickSpinArrow;
using spike::tests::editorOf;
using spike::tests::settle;
using spike::tests::showMainWindow;
using spike::tests::shownModule;
using spike::tests::shownTensor;
using spike::tests::typeInto;
using spike::tests::wheel;
using spike::ui::ArrayEditor;
using spike::ui::NodeId;
using spike::ui::EnumEditor;
using spike::ui::MainWindow;
using spike::ui::NodeId;
using spike::ui::ScalarEditor;

class TestInspectorCrashes : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init() { QStandardPaths::setTestModeEnabled(true); }

    void typedValueAndReturnCommits_data();
    void typedValueAndReturnCommits();
    void spinBoxArrowsStep_data();
    void spinBoxArrowsStep();
    void wheelWithoutFocusScrollsTheInspector();
    void wheelWithFocusChangesTheChoice_data();
    void wheelWithFocusChangesTheChoice();
    void refusedWhileRunningKeepsTheEditor();
    void choosingFromTheDropDown_data();
    void choosingFromTheDropDown();
    void tabAndClickingAwayCommit_data();
    void tabAndClickingAwayCommit();
    void tableCellEditCommits_data();
    void tableCellEditCommits();
    void breadcrumbClickOpensTheParent();
};

namespace {

/// `w` on the screen with lif_current_step.json open and its LIF selected, running or not.
void openLif(MainWindow& w, bool running)
{
    showMainWindow(w);
    QString error;
    QVERIFY2(w.openModel(QStringLiteral(":/examples/lif_current_step.json"), &error), qPrintable(error));
    QVERIFY(w.selectModule(QStringLiteral("lif")));
    if (running) {
        w.action(QStringLiteral("action.run"))->trigger();
        QTRY_VERIFY(w.isRunning());
    }
}

/// Types `text` over the spin box's value and presses Return, then lets the edit land.
void typeAndReturn(QDoubleSpinBox* spin, const QString& text)
{
    typeInto(spin, text);
    QTest::keyClick(spin, Qt::Key_Return);
    settle();
}

void addRunningColumn()
{
    QTest::addColumn<bool>("running");
    QTest::newRow("stopped") << false;
    QTest::newRow("running") << true;
}

}  // namespace

void TestInspectorCrashes::typedValueAndReturnCommits_data() { addRunningColumn(); }

void TestInspectorCrashes::typedValueAndReturnCommits()
{
    QFETCH(bool, running);
    MainWindow w;
    openLif(w, running);
    // threshold is live-editable: it reaches the run too.
    auto* editor = qobject_cast<ScalarEditor*>(editorOf(w, QStringLiteral("threshold")));
    QVERIFY(editor != nullptr);
    QPointer<QDoubleSpinBox> spin = editor->spinBox();
    bringIntoView(spin);
    const int undo = w.document()->undoStack()->count();
    typeAndReturn(spin, QStringLiteral("1.25"));
    QVERIFY(spin != nullptr);
    QCOMPARE(editorOf(w, QStringLiteral("threshold")), editor);  // updated in place
    QCOMPARE(shownTensor(w, "threshold")[0], 1.25F);
    QCOMPARE(spin->value(), 1.25);
    QCOMPARE(w.document()->undoStack()->count(), undo + 1);
    // Typing again and pressing Return twice is still one value and no crash.
    typeInto(spin, QStringLiteral("1.5"));
    QTest::keyClick(spin, Qt::Key_Return);
    QTest::keyClick(spin, Qt::Key_Return);
    settle();
    QCOMPARE(shownTensor(w, "threshold")[0], 1.5F);
    QCOMPARE(w.isRunning(), running);
}

void TestInspectorCrashes::spinBoxArrowsStep_data() { addRunningColumn(); }

void TestInspectorCrashes::spinBoxArrowsStep()
{
    QFETCH(bool, running);
    MainWindow w;
    openLif(w, running);
    auto* editor = qobject_cast<ScalarEditor*>(editorOf(w, QStringLiteral("threshold")));
    QVERIFY(editor != nullptr);
    QPointer<QDoubleSpinBox> spin = editor->spinBox();
    bringIntoView(spin);
    QCOMPARE(shownTensor(w, "threshold")[0], 1.0F);
    clickSpinArrow(spin, true);
    QVERIFY(spin != nullptr);
    // Adaptive decimal steps: one step up from 1 is 1.1.
    QCOMPARE(shownTensor(w, "threshold")[0], 1.1F);
    clickSpinArrow(spin, true);
    clickSpinArrow(spin, false);
    QVERIFY(spin != nullptr);
    QCOMPARE(shownTensor(w, "threshold")[0], 1.1F);
    QCOMPARE(editorOf(w, QStringLiteral("threshold")), editor);
}

void TestInspectorCrashes::wheelWithoutFocusScrollsTheInspector()
{
    MainWindow w;
    openLif(w, false);
    w.resize(1000, 420);  // the inspector is too short for its rows: it scrolls
    settle();
    auto* area = w.inspector()->findChild<QScrollArea*>();
    QVERIFY(area != nullptr);
    QVERIFY2(area->verticalScrollBar()->maximum() > 0,
             qPrintable(QStringLiteral("the LIF's rows fit: nothing to scroll (window %1 px, inspector viewport %2 px, rows %3 px)")
                            .arg(w.height())
                            .arg(area->viewport()->height())
                            .arg(area->widget()->height())));
    QScrollBar* bar = area->verticalScrollBar();
    bar->setValue(0);
    auto* leak = qobject_cast<EnumEditor*>(editorOf(w, QStringLiteral("leak_mode")));
    QVERIFY(leak != nullptr);
    QCOMPARE(leak->comboBox()->focusPolicy(), Qt::StrongFocus);
    bringIntoView(leak->comboBox());
    QVERIFY(!leak->comboBox()->visibleRegion().isEmpty());
    w.canvas()->setFocus();
    const std::string mode = std::get<std::string>(shownModule(w).attribute("leak_mode"));
    const int undo = w.document()->undoStack()->count();
    // Scroll towards whichever end is not reached yet.
    int at = bar->value();
    wheel(leak->comboBox(), at > 0 ? 1 : -1);
    QCOMPARE(std::get<std::string>(shownModule(w).attribute("leak_mode")), mode);
    QCOMPARE(w.document()->undoStack()->count(), undo);
    QVERIFY2(bar->value() != at, "the wheel over the combo box did not scroll the inspector");
    // Likewise over a spin box and a slider.
    auto* tau = qobject_cast<ScalarEditor*>(editorOf(w, QStringLiteral("tau_mem")));
    QVERIFY(tau != nullptr);
    bringIntoView(tau);
    w.canvas()->setFocus();
    at = bar->value();
    wheel(tau->spinBox(), at > 0 ? 1 : -1);
    QVERIFY2(bar->value() != at, "the wheel over the spin box did not scroll the inspector");
    at = bar->value();
    wheel(tau->slider(), at > 0 ? 1 : -1);
    QVERIFY2(bar->value() != at, "the wheel over the slider did not scroll the inspector");
    QCOMPARE(shownTensor(w, "tau_mem")[0], 0.02F);
    QCOMPARE(w.document()->undoStack()->count(), undo);
}

void TestInspectorCrashes::wheelWithFocusChangesTheChoice_data() { addRunningColumn(); }

void TestInspectorCrashes::wheelWithFocusChangesTheChoice()
{
    QFETCH(bool, running);
    MainWindow w;
    openLif(w, false);
    // leak_mode needs a rebuild while running: the gate refuses it then; pause-free choice first.
    auto* leak = qobject_cast<EnumEditor*>(editorOf(w, QStringLiteral("leak_mode")));
    QVERIFY(leak != nullptr);
    QPointer<QComboBox> combo = leak->comboBox();
    bringIntoView(combo);
    QTest::mouseClick(combo, Qt::LeftButton);  // opens the popup and gives focus
    settle();
    if (QWidget* popup = QApplication::activePopupWidget()) {
        QTest::keyClick(popup, Qt::Key_Escape);
        settle();
    }
    QVERIFY(combo->hasFocus());
    if (running) {
        w.action(QStringLiteral("action.run"))->trigger();
        QTRY_VERIFY(w.isRunning());
    }
    const int index = combo->currentIndex();
    const int undo = w.document()->undoStack()->count();
    wheel(combo, -1);  // a notch down: the next choice (leak_mode changes live, also while running)
    QVERIFY(combo != nullptr);
    QCOMPARE(combo->currentIndex(), index + 1);
    QCOMPARE(std::get<std::string>(shownModule(w).attribute("leak_mode")), combo->currentText().toStdString());
    QCOMPARE(w.document()->undoStack()->count(), undo + 1);
    wheel(combo, 1);
    QVERIFY(combo != nullptr);
    QCOMPARE(combo->currentIndex(), index);
    QCOMPARE(w.document()->undoStack()->count(), undo + 2);
    QCOMPARE(w.isRunning(), running);
    REQUIRE_CONSISTENT(w);
}

void TestInspectorCrashes::refusedWhileRunningKeepsTheEditor()
{
    // seed needs a rebuild: typed while running, it is refused with the reason, the spin box
    // returns to the document's value and stays the same widget.
    MainWindow w;
    openLif(w, true);
    auto* seed = qobject_cast<ScalarEditor*>(editorOf(w, QStringLiteral("seed")));
    QVERIFY(seed != nullptr);
    QPointer<QDoubleSpinBox> spin = seed->spinBox();
    bringIntoView(spin);
    const int undo = w.document()->undoStack()->count();
    typeAndReturn(spin, QStringLiteral("7"));
    QVERIFY(spin != nullptr);
    QVERIFY2(w.inspector()->lastMessage().contains(QStringLiteral("Pause to change seed")),
             qPrintable(w.inspector()->lastMessage()));
    QCOMPARE(shownTensor(w, "seed")[0], 0.0F);
    QCOMPARE(spin->value(), 0.0);
    QCOMPARE(w.document()->undoStack()->count(), undo);
    clickSpinArrow(spin, true);
    QVERIFY(spin != nullptr);
    QCOMPARE(shownTensor(w, "seed")[0], 0.0F);
    QVERIFY(w.isRunning());
    // Paused, the same input is taken.
    w.action(QStringLiteral("action.run"))->trigger();
    QTRY_VERIFY(!w.isRunning());
    clickSpinArrow(spin, true);
    QCOMPARE(shownTensor(w, "seed")[0], 1.0F);
    QCOMPARE(w.document()->undoStack()->count(), undo + 1);
}

void TestInspectorCrashes::choosingFromTheDropDown_data() { addRunningColumn(); }

void TestInspectorCrashes::choosingFromTheDropDown()
{
    QFETCH(bool, running);
    MainWindow w;
    openLif(w, running);
    auto* leak = qobject_cast<EnumEditor*>(editorOf(w, QStringLiteral("leak_mode")));
    QVERIFY(leak != nullptr);
    QPointer<QComboBox> combo = leak->comboBox();
    bringIntoView(combo);
    const int index = combo->currentIndex();
    const int undo = w.document()->undoStack()->count();
    QTest::mouseClick(combo, Qt::LeftButton);
    settle();
    QVERIFY2(QApplication::activePopupWidget() != nullptr, "the drop-down did not open");
    auto* view = combo->view();
    const int pick = (index + 1) % combo->count();
    const QPoint at = view->visualRect(view->model()->index(pick, 0)).center();
    // As a hand does: onto the entry (it highlights), then a click; a release within the
    // double-click interval of the opening press is ignored by the drop-down, as for a person.
    QTest::mouseMove(view->viewport(), at);
    QTest::qWait(QApplication::doubleClickInterval() + 50);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::NoModifier, at);
    settle();
    QVERIFY(combo != nullptr);
    QCOMPARE(combo->currentIndex(), pick);
    QCOMPARE(std::get<std::string>(shownModule(w).attribute("leak_mode")), combo->itemText(pick).toStdString());
    QCOMPARE(w.document()->undoStack()->count(), undo + 1);
    QCOMPARE(w.isRunning(), running);
    REQUIRE_CONSISTENT(w);
}

void TestInspectorCrashes::tabAndClickingAwayCommit_data() { addRunningColumn(); }

void TestInspectorCrashes::tabAndClickingAwayCommit()
{
    QFETCH(bool, running);
    MainWindow w;
    openLif(w, running);
    auto* threshold = qobject_cast<ScalarEditor*>(editorOf(w, QStringLiteral("threshold")));
    QVERIFY(threshold != nullptr);
    QPointer<QDoubleSpinBox> spin = threshold->spinBox();
    bringIntoView(spin);
    typeInto(spin, QStringLiteral("0.75"));
    QTest::keyClick(spin, Qt::Key_Tab);
    settle();
    QVERIFY(spin != nullptr);
    QCOMPARE(shownTensor(w, "threshold")[0], 0.75F);
    typeInto(spin, QStringLiteral("0.5"));
    // Clicking empty canvas commits the value, then selects nothing: the inspector shows the
    // network and the editor goes (after the commit, never during it).
    const NodeId lif = w.inspector()->node();
    QTest::mouseClick(w.canvas()->viewport(), Qt::LeftButton, Qt::NoModifier, QPoint(5, 5));
    settle();
    QCOMPARE(w.document()->module(lif)->tensor("threshold")[0], 0.5F);
    QCOMPARE(w.inspector()->node(), w.canvas()->network());
}

void TestInspectorCrashes::tableCellEditCommits_data() { addRunningColumn(); }

void TestInspectorCrashes::tableCellEditCommits()
{
    QFETCH(bool, running);
    MainWindow w;
    openLif(w, running);
    QVERIFY(w.selectModule(QStringLiteral("step")));
    settle();
    auto* amplitude = qobject_cast<ArrayEditor*>(editorOf(w, QStringLiteral("amplitude")));
    QVERIFY(amplitude != nullptr);
    QPointer<ArrayEditor> guard = amplitude;
    auto* expand = amplitude->findChild<QToolButton*>();
    bringIntoView(expand);
    QTest::mouseClick(expand, Qt::LeftButton);
    settle();
    QTableWidget* table = amplitude->table();
    QVERIFY(table != nullptr);
    bringIntoView(table);
    const QRect cell = table->visualRect(table->model()->index(2, 0));
    // Click the cell, F2 opens its editor with the text selected, type over it, Return.
    QTest::mouseClick(table->viewport(), Qt::LeftButton, Qt::NoModifier, cell.center());
    QTest::keyClick(table, Qt::Key_F2);
    settle();
    auto* line = table->viewport()->findChild<QLineEdit*>();
    QVERIFY2(line != nullptr, "F2 opened no cell editor");
    QTest::keyClicks(line, QStringLiteral("0.03"));
    QTest::keyClick(line, Qt::Key_Return);
    settle();
    QVERIFY(guard != nullptr);
    QCOMPARE(shownTensor(w, "amplitude")[2], 0.03F);
    QCOMPARE(shownTensor(w, "amplitude")[1], 0.0105F);
    QCOMPARE(table->item(2, 0)->text(), QStringLiteral("0.03"));
    QCOMPARE(w.isRunning(), running);
}

void TestInspectorCrashes::breadcrumbClickOpensTheParent()
{
    // A crumb's click refreshes the crumbs: the clicked button must outlive its own click.
    MainWindow w;
    showMainWindow(w);
    QString error;
    QVERIFY2(w.openModel(QStringLiteral(":/examples/dynamics_network.json"), &error), qPrintable(error));
    const NodeId root = w.document()->rootId();
    NodeId inner;
    for (const auto& [path, module] : w.document()->root().namedModules()) {
        const NodeId id = w.document()->findNode(path);
        if (id != root && w.canvas()->canEnter(id)) {
            inner = id;
            break;
        }
    }
    QVERIFY(inner.valid());
    QVERIFY(w.canvas()->enter(inner));
    settle();
    const QStringList crumbs = w.breadcrumb()->crumbs();
    QVERIFY(crumbs.size() >= 2);
    auto buttons = w.breadcrumb()->findChildren<QToolButton*>();
    QToolButton* first = nullptr;
    for (QToolButton* b : buttons) {
        if (b->isVisible() && b->text() == crumbs.front()) {
            first = b;
        }
    }
    QVERIFY(first != nullptr);
    QTest::mouseClick(first, Qt::LeftButton);
    settle();
    QCOMPARE(w.canvas()->network(), root);
    QCOMPARE(w.breadcrumb()->crumbs().size(), 1);
}

QTEST_MAIN(TestInspectorCrashes)
#include "test_inspector_crashes.moc"
