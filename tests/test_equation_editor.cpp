// The inspector's Equations group (issue #17) in a MainWindow, with real key and mouse events:
// a mistake typed into an EquationNeuron's text is underlined at the parser's character and named
// with line and column, Apply stays disabled and the document unchanged; a text the document
// refuses (its wire would lose its port) changes nothing and says why; the fixed text applied
// by a click rebuilds the node with the new parameter, Ctrl+Z gives the old text back in the
// document and the editor; the same while a run goes on (it keeps running, its steps advance);
// an Izhikevich preset chosen with the keyboard sets a, b, c, d for every neuron as one undo
// step, also while a run goes on; the Equations tab shows the node's own equations; "Copy as
// custom neuron" puts an editable EquationNeuron with the same text, values and wire in a library
// model's place. Runs with QT_QPA_PLATFORM=offscreen.
#include "tests/inspector_input_helpers.hpp"
#include "tests/main_window_test_helpers.hpp"
#include "tests/real_input.hpp"

#include "ui/document/graph_document.hpp"
#include "ui/editor/graph_canvas.hpp"
#include "ui/inspector/equation_editor.hpp"
#include "ui/inspector/equation_view.hpp"
#include "ui/inspector/inspector.hpp"
#include "ui/window/main_window.hpp"

#include "engine/neurons/equation_neuron.hpp"

#include <QClipboard>
#include <QComboBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTemporaryDir>
#include <QtTest/QtTest>

using spike::engine::EquationNeuron;
using spike::engine::Tensor;
using spike::tests::settle;
using spike::ui::EquationEditor;
using spike::ui::MainWindow;
using Json = nlohmann::json;

namespace {

const char* const kModelText =
    "dv/dt = (v_rest - v + I) / tau : volt (unless refractory)  # Membrane potential\n"
    "I : volt (input)  # Input drive\n"
    "tau = 10*ms : second (positive)  # Membrane time constant\n"
    "v_rest = -70*mV : volt  # Resting potential\n"
    "v_th = -50*mV : volt  # Threshold\n"
    "v_reset = -70*mV : volt  # Reset potential\n"
    "v(0) = v_rest\n"
    "threshold: v > v_th\n"
    "reset: v = v_reset\n"
    "refractory: 2*ms";

/// A network of a 30 mV current step into 3 neurons of kModelText, as a model file.
QByteArray modelFile()
{
    const Json model = {
        {"format", "spikestudio.model"},
        {"version", 1},
        {"model",
         {{"type", "Network"},
          {"config", {{"input_size", 0}, {"output_size", 0}}},
          {"children",
           {{{"name", "drive"},
             {"type", "PulseTrain"},
             {"config", {{"shape", {3}}}},
             {"attributes", {{"amplitude", 0.03}, {"onset", 0.0}, {"duration", 0.0}}}},
            {{"name", "cell"}, {"type", "EquationNeuron"}, {"config", {{"shape", {3}}, {"equations", kModelText}}}}}},
          {"connections", {{{"name", "drive_to_cell"}, {"from", "drive.out"}, {"to", "cell.I"}}}}}}};
    return QByteArray::fromStdString(model.dump(1));
}

struct Window {
    QTemporaryDir dir;
    MainWindow w;
    EquationEditor* editor = nullptr;

    Window(const QByteArray& file, const QString& select)
    {
        const QString path = spike::tests::writeFile(dir, QStringLiteral("model.json"), file);
        QString error;
        if (!w.openModel(path, &error)) {
            qWarning("%s", qPrintable(error));
        }
        spike::tests::showMainWindow(w);
        w.selectModule(select);
        settle();
        editor = w.inspector()->equationEditor();
    }
    /// The module the inspector shows.
    const spike::engine::Module* cell() const { return w.document()->module(w.inspector()->node()); }
    std::string text() const { return cell()->config().value("equations", std::string()); }
    /// Ctrl+Z as a person presses it on the canvas.
    void undo()
    {
        w.canvas()->setFocus();
        QTest::keyClick(w.canvas(), Qt::Key_Z, Qt::ControlModifier);
        settle();
    }
};

/// Clicks at the end of the text and types `line` on a new line.
void typeLine(EquationEditor* editor, const QString& line)
{
    QPlainTextEdit* text = editor->textEdit();
    spike::tests::bringIntoView(text);
    QTest::mouseClick(text->viewport(), Qt::LeftButton, Qt::NoModifier, QPoint(5, 5));
    QTest::keyClick(text, Qt::Key_End, Qt::ControlModifier);
    QTest::keyClick(text, Qt::Key_Return);
    QTest::keyClicks(text, line);
}

void clickApply(EquationEditor* editor)
{
    spike::tests::bringIntoView(editor->applyButton());
    QTest::mouseClick(editor->applyButton(), Qt::LeftButton);
    settle();
}

/// Types a mistake ("3*foo"), checks what is shown, fixes it to "3*mV" and applies it.
void mistakeThenFix(Window& s)
{
    const Json before = s.w.document()->toJson();
    typeLine(s.editor, QStringLiteral("w_extra = 3*foo : volt  # Extra"));
    QTRY_VERIFY(s.editor->errorRange().second > 0);  // after the debounce
    const QString typed = s.editor->textEdit()->toPlainText();
    const int at = static_cast<int>(typed.indexOf(QStringLiteral("foo")));
    QCOMPARE(s.editor->errorRange(), std::make_pair(at, 3));
    const QList<QTextEdit::ExtraSelection> marks = s.editor->textEdit()->extraSelections();
    QVERIFY(std::any_of(marks.begin(), marks.end(), [at](const QTextEdit::ExtraSelection& m) {
        return m.format.underlineStyle() == QTextCharFormat::WaveUnderline && m.cursor.selectionStart() == at &&
               m.cursor.selectionEnd() == at + 3;
    }));
    QVERIFY2(s.editor->message().contains(QStringLiteral("line 11, column 13")), qPrintable(s.editor->message()));
    QVERIFY2(s.editor->message().contains(QStringLiteral("foo")), qPrintable(s.editor->message()));
    QVERIFY(!s.editor->applyButton()->isEnabled());
    clickApply(s.editor);  // a click on the disabled button does nothing
    QCOMPARE(s.w.document()->toJson(), before);
    QCOMPARE(s.text(), std::string(kModelText));

    for (int i = 0; i < 19; ++i) {  // "foo : volt  # Extra": back to "3*"
        QTest::keyClick(s.editor->textEdit(), Qt::Key_Backspace);
    }
    QTest::keyClicks(s.editor->textEdit(), QStringLiteral("mV : volt  # Extra"));
    QTRY_VERIFY(s.editor->applyButton()->isEnabled());
    QCOMPARE(s.editor->errorRange().second, 0);
    QVERIFY(s.editor->textEdit()->extraSelections().isEmpty());
    clickApply(s.editor);
    QVERIFY2(s.text() == std::string(kModelText) + "\nw_extra = 3*mV : volt  # Extra", s.text().c_str());
    QVERIFY(s.cell()->hasAttribute("w_extra"));
    QCOMPARE(std::get<Tensor>(s.cell()->attribute("w_extra")).item(), 0.003F);
}

}  // namespace

class TestEquationEditor : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init() { QStandardPaths::setTestModeEnabled(true); }

    void aMistakeIsUnderlinedAndAFixAppliesAndUndoes()
    {
        Window s(modelFile(), QStringLiteral("cell"));
        QVERIFY(s.editor->isVisible());
        QVERIFY(s.editor->isEditable());
        QCOMPARE(s.editor->textEdit()->toPlainText(), QString::fromUtf8(kModelText));
        QVERIFY(s.editor->textEdit()->font().fixedPitch() ||
                QFontInfo(s.editor->textEdit()->font()).fixedPitch());
        QVERIFY(!s.editor->presetBox()->isVisible());  // no presets in this text
        const spike::ui::NodeId node = s.w.inspector()->node();
        const int steps = s.w.document()->undoStack()->index();
        mistakeThenFix(s);
        QCOMPARE(s.w.document()->undoStack()->index(), steps + 1);  // one undo step
        QCOMPARE(s.w.inspector()->node(), node);
        // The Equations tab shows the node's own text: the new parameter is in its "where" list
        // only if used, but the tab was rendered from the new model (its symbols are the node's).
        QVERIFY(s.w.equationsView()->toPlainText().contains(QStringLiteral("v")));

        s.undo();
        QCOMPARE(s.w.document()->undoStack()->index(), steps);
        QCOMPARE(s.w.document()->module(node)->config().value("equations", std::string()), std::string(kModelText));
        QVERIFY(!s.w.document()->module(node)->hasAttribute("w_extra"));
        QCOMPARE(s.w.inspector()->node(), node);  // shown again once the undo put it back
        QCOMPARE(s.w.selectedModulePath(), QStringLiteral("cell"));
        QVERIFY(s.editor->isVisible());
        QCOMPARE(s.editor->textEdit()->toPlainText(), QString::fromUtf8(kModelText));
        QVERIFY(!s.editor->applyButton()->isEnabled());
    }

    void anApplyTheDocumentRefusesChangesNothing()
    {
        // A text without the input port 'I' would leave the wire from the drive without an end.
        Window s(modelFile(), QStringLiteral("cell"));
        const Json before = s.w.document()->toJson();
        const int steps = s.w.document()->undoStack()->index();
        QPlainTextEdit* text = s.editor->textEdit();
        spike::tests::bringIntoView(text);
        QTest::mouseClick(text->viewport(), Qt::LeftButton, Qt::NoModifier, QPoint(5, 5));
        QTest::keyClick(text, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClicks(text, QStringLiteral("dv/dt = -v / (10*ms) : volt"));
        QTest::keyClick(text, Qt::Key_Return);
        QTest::keyClicks(text, QStringLiteral("v(0) = 0*volt"));
        QTRY_VERIFY2(s.editor->applyButton()->isEnabled(), qPrintable(s.editor->message()));
        clickApply(s.editor);
        QCOMPARE(s.w.document()->toJson(), before);
        QCOMPARE(s.w.document()->undoStack()->index(), steps);
        QVERIFY2(s.editor->message().contains(QStringLiteral("port 'I'")), qPrintable(s.editor->message()));
        QCOMPARE(s.w.inspector()->node(), s.w.document()->findNode("cell"));
        QCOMPARE(text->toPlainText(), QStringLiteral("dv/dt = -v / (10*ms) : volt\nv(0) = 0*volt"));  // kept
    }

    void aPastedTextTooDeepIsRefusedNotCrashed()
    {
        // Pasting a text 20000 brackets deep once overflowed the stack: the editor (and the
        // document) died. It is now a mistake like any other: underlined at the 201st bracket,
        // Apply disabled, the document unchanged.
        Window s(modelFile(), QStringLiteral("cell"));
        const Json before = s.w.document()->toJson();
        QPlainTextEdit* text = s.editor->textEdit();
        spike::tests::bringIntoView(text);
        QTest::mouseClick(text->viewport(), Qt::LeftButton, Qt::NoModifier, QPoint(5, 5));
        const QString head = QStringLiteral("dv/dt = ");
        const QString tail = QStringLiteral("/ms : 1\nv(0) = 0*volt\nI : volt (input)");
        const QString deep = head + QString(20000, QLatin1Char('(')) + QStringLiteral("-v") +
                             QString(20000, QLatin1Char(')')) + tail;
        QGuiApplication::clipboard()->setText(deep);
        QTest::keyClick(text, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClick(text, Qt::Key_V, Qt::ControlModifier);
        QCOMPARE(text->toPlainText(), deep);
        QTRY_VERIFY(s.editor->errorRange().second > 0);
        QCOMPARE(s.editor->errorRange().first, static_cast<int>(head.size()) + 200);
        QVERIFY2(s.editor->message().contains(QStringLiteral("nest more than 200 levels")), qPrintable(s.editor->message()));
        QVERIFY(!s.editor->applyButton()->isEnabled());
        QCOMPARE(s.w.document()->toJson(), before);
    }

    void ctrlReturnApplies()
    {
        Window s(modelFile(), QStringLiteral("cell"));
        typeLine(s.editor, QStringLiteral("k = 2 : 1"));
        QTRY_VERIFY(s.editor->applyButton()->isEnabled());
        QTest::keyClick(s.editor->textEdit(), Qt::Key_Return, Qt::ControlModifier);
        settle();
        QVERIFY(s.cell()->hasAttribute("k"));
        QVERIFY(!s.editor->textEdit()->toPlainText().endsWith(QLatin1Char('\n')));  // no newline typed
    }

    void theEquationsTabShowsTheNodesOwnEquations()
    {
        Window s(modelFile(), QStringLiteral("cell"));
        typeLine(s.editor, QStringLiteral("g_extra = 2/ms : hertz  # An extra rate"));
        QTRY_VERIFY(s.editor->applyButton()->isEnabled());
        // The model's own equations: use the new rate in dv/dt.
        QPlainTextEdit* text = s.editor->textEdit();
        QTest::keyClick(text, Qt::Key_Home, Qt::ControlModifier);
        QTest::keyClick(text, Qt::Key_End);
        for (int i = 0; i < 56; ++i) {  // ") / tau : volt (unless refractory)  # Membrane potential"
            QTest::keyClick(text, Qt::Key_Left);
        }
        QTest::keyClicks(text, QStringLiteral(" - g_extra*v*ms"));
        QTRY_VERIFY2(s.editor->applyButton()->isEnabled(), qPrintable(s.editor->message()));
        clickApply(s.editor);
        QVERIFY2(s.text().find("- g_extra*v*ms") != std::string::npos, s.text().c_str());
        QTRY_VERIFY(s.w.equationsView()->whereSymbols().contains(QStringLiteral("g_extra")));
        QVERIFY(s.w.equationsView()->linkedSymbols().contains(QStringLiteral("g_extra")));
    }

    void applyingWhileRunningRebuildsAndTheRunContinues()
    {
        Window s(modelFile(), QStringLiteral("cell"));
        s.w.canvas()->setFocus();
        QTest::keyClick(s.w.canvas(), Qt::Key_F5);  // Run
        QTRY_VERIFY(s.w.isRunning() && s.w.simulatedSteps() > 0);
        s.w.selectModule(QStringLiteral("cell"));
        settle();
        mistakeThenFix(s);
        QTRY_VERIFY(s.w.isRunning());
        const std::int64_t at = s.w.simulatedSteps();
        QTRY_VERIFY(s.w.simulatedSteps() > at + 20);  // steps keep increasing
        s.undo();
        QCOMPARE(s.text(), std::string(kModelText));
        QCOMPARE(s.editor->textEdit()->toPlainText(), QString::fromUtf8(kModelText));
        QTRY_VERIFY(s.w.isRunning());
        s.w.canvas()->setFocus();
        QTest::keyClick(s.w.canvas(), Qt::Key_F5);  // Pause
        QTRY_VERIFY(!s.w.isRunning());
    }

    void anIzhikevichPresetSetsItsParametersAsOneStep()
    {
        QFile file(QStringLiteral(":/examples/izhikevich_presets.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        Window s(file.readAll(), QStringLiteral("izhikevich"));
        QVERIFY(s.editor->isVisible());
        QVERIFY(!s.editor->isEditable());
        QVERIFY(s.editor->textEdit()->isReadOnly());
        QComboBox* box = s.editor->presetBox();
        QVERIFY(box->isVisible());
        QCOMPARE(box->count(), 6);
        QCOMPARE(box->currentIndex(), 0);  // five different patterns: no one preset
        const Json before = s.w.document()->toJson();
        const int steps = s.w.document()->undoStack()->index();
        spike::tests::bringIntoView(box);
        box->setFocus();
        // Down four times from "—": regular, bursting, chattering, fast spiking.
        for (int i = 0; i < 4; ++i) {
            QTest::keyClick(box, Qt::Key_Down);
        }
        settle();
        QCOMPARE(box->currentText(), QStringLiteral("fast spiking"));
        QCOMPARE(s.w.document()->undoStack()->index(), steps + 4);  // one step per preset chosen
        for (const auto& [name, value] : std::vector<std::pair<std::string, float>>{
                 {"a", 0.1F}, {"b", 0.2F}, {"c", -0.065F}, {"d", 0.002F}}) {
            const Tensor& t = std::get<Tensor>(s.cell()->attribute(name));
            QCOMPARE(t.numel(), std::int64_t{5});
            for (std::int64_t k = 0; k < t.numel(); ++k) {
                QCOMPARE(t[k], value);
            }
        }
        for (int i = 0; i < 4; ++i) {
            s.undo();
        }
        QCOMPARE(s.w.document()->toJson(), before);
        QCOMPARE(box->currentIndex(), 0);
        // One Ctrl+Z restores the four parameters of one choice.
        box->setFocus();
        QTest::keyClick(box, Qt::Key_Down);
        settle();
        QCOMPARE(s.w.document()->undoStack()->index(), steps + 1);
        QCOMPARE(std::get<Tensor>(s.cell()->attribute("c"))[1], -0.065F);
        s.undo();
        QCOMPARE(s.w.document()->toJson(), before);
    }

    void theEditorIsReadableAtTwoWindowSizes()
    {
        // The field is not squeezed: at least 30 characters wide and 8 lines high, the message
        // under it on screen. SPIKE_SCREENSHOT_DIR set: the windows are saved there.
        const QByteArray dir = qgetenv("SPIKE_SCREENSHOT_DIR");
        for (const QSize size : {QSize(1024, 700), QSize(1600, 1000)}) {
            Window s(modelFile(), QStringLiteral("cell"));
            s.w.resize(size);
            settle();
            typeLine(s.editor, QStringLiteral("w_extra = 3*foo : volt  # Extra"));
            QTRY_VERIFY(s.editor->errorRange().second > 0);
            QPlainTextEdit* text = s.editor->textEdit();
            QTest::keyClick(text, Qt::Key_Home, Qt::ControlModifier);  // the view shows the top
            spike::tests::bringIntoView(s.editor->findChild<QLabel*>(QStringLiteral("equationMessage")));
            const QFontMetrics fm(text->font());
            QVERIFY2(text->viewport()->width() >= 30 * fm.horizontalAdvance(QLatin1Char('m')),
                     qPrintable(QString::number(text->viewport()->width())));
            QVERIFY(text->viewport()->height() >= 8 * fm.lineSpacing());
            QVERIFY(s.editor->findChild<QLabel*>(QStringLiteral("equationMessage"))->isVisible());
            if (!dir.isEmpty()) {
                s.w.grab().save(QStringLiteral("%1/equation_editor_%2.png").arg(QString::fromLocal8Bit(dir)).arg(size.width()));
            }
        }
        if (!dir.isEmpty()) {
            QFile file(QStringLiteral(":/examples/izhikevich_presets.json"));
            QVERIFY(file.open(QIODevice::ReadOnly));
            Window s(file.readAll(), QStringLiteral("izhikevich"));
            s.w.resize(1600, 1000);
            s.w.canvas()->setFocus();
            QTest::keyClick(s.w.canvas(), Qt::Key_F5);
            QTRY_VERIFY(s.w.simulatedSteps() > 3000);
            s.w.selectModule(QStringLiteral("izhikevich"));
            settle();
            QTest::qWait(300);
            s.w.grab().save(QStringLiteral("%1/izhikevich_presets.png").arg(QString::fromLocal8Bit(dir)));
            QTest::keyClick(s.w.canvas(), Qt::Key_F5);
        }
    }

    void aPresetChosenWhileRunningIsTakenAndTheRunGoesOn()
    {
        QFile file(QStringLiteral(":/examples/izhikevich_presets.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        Window s(file.readAll(), QStringLiteral("izhikevich"));
        s.w.canvas()->setFocus();
        QTest::keyClick(s.w.canvas(), Qt::Key_F5);  // Run
        QTRY_VERIFY(s.w.isRunning() && s.w.simulatedSteps() > 0);
        s.w.selectModule(QStringLiteral("izhikevich"));
        settle();
        const int steps = s.w.document()->undoStack()->index();
        QComboBox* box = s.editor->presetBox();
        spike::tests::bringIntoView(box);
        box->setFocus();
        QTest::keyClick(box, Qt::Key_End);  // the last: low-threshold spiking
        settle();
        QCOMPARE(box->currentText(), QStringLiteral("low-threshold spiking"));
        QCOMPARE(s.w.document()->undoStack()->index(), steps + 1);
        QCOMPARE(std::get<Tensor>(s.cell()->attribute("b"))[0], 0.25F);
        QVERIFY2(s.w.inspector()->lastMessage().isEmpty(), qPrintable(s.w.inspector()->lastMessage()));
        QVERIFY(s.w.isRunning());
        const std::int64_t at = s.w.simulatedSteps();
        QTRY_VERIFY(s.w.simulatedSteps() > at + 20);
        s.w.canvas()->setFocus();
        QTest::keyClick(s.w.canvas(), Qt::Key_F5);  // Pause
        QTRY_VERIFY(!s.w.isRunning());
    }

    void aLibraryModelCopiesAsACustomNeuron()
    {
        QFile file(QStringLiteral(":/examples/izhikevich_presets.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        Window s(file.readAll(), QStringLiteral("izhikevich"));
        const spike::ui::NodeId node = s.w.inspector()->node();
        const Json before = s.w.document()->toJson();
        const std::string text = dynamic_cast<const EquationNeuron*>(s.cell())->text();
        const Tensor d = std::get<Tensor>(s.cell()->attribute("d"));
        QVERIFY(s.editor->copyButton()->isVisible());
        QVERIFY(!s.editor->applyButton()->isVisible());
        spike::tests::bringIntoView(s.editor->copyButton());
        QTest::mouseClick(s.editor->copyButton(), Qt::LeftButton);
        settle();
        s.w.selectModule(QStringLiteral("izhikevich"));
        settle();
        QCOMPARE(s.w.inspector()->node(), node);  // the same node, now the user's own
        QCOMPARE(s.cell()->className(), std::string(EquationNeuron::kCustomType));
        QCOMPARE(s.text(), text);
        QVERIFY(std::get<Tensor>(s.cell()->attribute("d")).identical(d));  // the five patterns kept
        QCOMPARE(s.w.document()->connections(s.w.document()->rootId()).size(), std::size_t{1});
        QVERIFY(s.editor->isEditable());
        QVERIFY(!s.editor->textEdit()->isReadOnly());
        QCOMPARE(s.editor->presetBox()->count(), 6);  // the presets came with the text
        s.undo();
        QCOMPARE(s.w.document()->toJson(), before);
    }
};

QTEST_MAIN(TestEquationEditor)
#include "test_equation_editor.moc"
