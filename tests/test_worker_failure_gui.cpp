// A simulation that throws on the worker thread (issue #20): the window stays responsive, says
// what failed in the status bar, and the document (its model, its undo history, its modified
// flag) is exactly as it was. The fault is injected into the running copy, the way an
// allocation that fails for a huge model or a backend failure would surface: a forward hook on
// a Linear layer of that copy throws std::bad_alloc when the simulation thread advances it. The
// run is started, retried and the model edited with real key events. QT_QPA_PLATFORM=offscreen.
#include "ui/document/document_file.hpp"
#include "ui/document/graph_document.hpp"
#include "ui/editor/graph_canvas.hpp"
#include "ui/run/live_run.hpp"
#include "ui/run/run_session.hpp"
#include "ui/window/main_window.hpp"

#include "engine/core/module.hpp"
#include "engine/io/model_clone.hpp"

#include <QStatusBar>
#include <QUndoStack>
#include <QtTest/QtTest>

#include <atomic>
#include <memory>
#include <new>
#include <optional>

using spike::engine::Module;
using spike::engine::Tensor;
using spike::ui::MainWindow;

namespace {

/// ConstantCurrent "drive" -> Linear "dense" -> LIF "lif".
QByteArray threeNodeModel()
{
    const nlohmann::json model{
        {"type", "Network"},
        {"children",
         {{{"name", "drive"}, {"type", "ConstantCurrent"}, {"config", {{"shape", {4}}}}},
          {{"name", "dense"}, {"type", "Linear"}, {"config", {{"in_features", 4}, {"out_features", 4}}}},
          {{"name", "lif"}, {"type", "LIF"}, {"config", {{"shape", {4}}}}}}},
        {"connections",
         {{{"name", "drive_to_dense"}, {"from", "drive"}, {"to", "dense"}},
          {{"name", "dense_to_lif"}, {"from", "dense"}, {"to", "lif"}}}}};
    return QByteArray::fromStdString(
        nlohmann::json{{"format", "spikestudio.model"}, {"version", 1}, {"model", model}}.dump());
}

/// The running copy of the document's model with a fault: from its `failAt`-th chunk on, the
/// Linear layer's forward hook throws std::bad_alloc on the simulation thread.
std::unique_ptr<Module> faultyCopy(const Module& root, int failAt, std::shared_ptr<std::atomic<int>> chunks)
{
    std::unique_ptr<Module> copy = spike::engine::cloneModule(root);
    copy->getSubmodule("dense").registerForwardHook(
        [failAt, chunks](Module&, const Tensor&, const Tensor&) -> std::optional<Tensor> {
            if (chunks->fetch_add(1) + 1 >= failAt) {
                throw std::bad_alloc();
            }
            return std::nullopt;
        });
    return copy;
}

}  // namespace

class TestWorkerFailureGui : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init() { QStandardPaths::setTestModeEnabled(true); }

    void aThrowOnTheWorkerLeavesTheWindowAndTheDocumentAsTheyWere()
    {
        MainWindow w;
        w.resize(1200, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openModelFromJson(threeNodeModel(), QStringLiteral("faulty.json")));
        const nlohmann::json before = w.document()->toJson();
        QUndoStack* undo = w.document()->undoStack();
        const int undoCount = undo->count();
        const bool modified = w.documentFile()->isModified();

        // F5 runs; the run is then handed the faulty copy (the rebuild path of a structural
        // edit), which fails in its third chunk.
        QTest::keyClick(&w, Qt::Key_F5);
        QTRY_VERIFY(w.isRunning());
        auto* session = w.findChild<spike::ui::RunSession*>();
        QVERIFY(session != nullptr && session->live() != nullptr);
        auto chunks = std::make_shared<std::atomic<int>>(0);
        QString error;
        QVERIFY2(session->live()->replaceModel(faultyCopy(w.document()->root(), 3, chunks), &error),
                 qPrintable(error));

        QTRY_VERIFY_WITH_TIMEOUT(!w.isRunning(), 20000);
        QTRY_VERIFY(w.statusBar()->currentMessage().contains(QStringLiteral("failed: std::bad_alloc")));
        const QString shown = w.statusBar()->currentMessage();
        QVERIFY2(shown.startsWith(QStringLiteral("Simulation: advancing from step ")), qPrintable(shown));
        const std::int64_t stoppedAt = w.simulatedSteps();
        QTest::qWait(300);  // the message stays; the run stays where it failed
        QCOMPARE(w.statusBar()->currentMessage(), shown);
        QCOMPARE(w.simulatedSteps(), stoppedAt);

        // The document is untouched: same model, same history, same modified flag.
        QCOMPARE(w.document()->toJson(), before);
        QCOMPARE(undo->count(), undoCount);
        QCOMPARE(w.documentFile()->isModified(), modified);

        // Run again: the fault is still there, so it fails again with the same clear message
        // instead of hanging or crashing.
        w.statusBar()->clearMessage();
        QTest::keyClick(&w, Qt::Key_F5);
        QTRY_VERIFY_WITH_TIMEOUT(w.statusBar()->currentMessage().contains(QStringLiteral("failed: std::bad_alloc")), 20000);
        QTRY_VERIFY(!w.isRunning());
        QCOMPARE(w.document()->toJson(), before);

        // The window still answers real input: deleting the selected node with the Delete key
        // is one undoable edit, and the edited model runs (a new, fault-free run).
        QVERIFY(w.selectModule(QStringLiteral("drive")));
        w.canvas()->setFocus();
        QTest::keyClick(w.canvas(), Qt::Key_Delete);
        QTRY_VERIFY(!w.document()->findNode("drive").valid());
        QCOMPARE(undo->count(), undoCount + 1);
        QTest::keyClick(w.canvas(), Qt::Key_Z, Qt::ControlModifier);
        QTRY_VERIFY(w.document()->findNode("drive").valid());
        QCOMPARE(w.document()->toJson(), before);
        // The edit rebuilt the run from the document (states carried over): no fault in it.
        const std::int64_t resumedAt = w.simulatedSteps();
        QString runError;
        QVERIFY2(w.runSteps(64, &runError), qPrintable(runError));
        QCOMPARE(w.simulatedSteps(), resumedAt + 64);
        QCOMPARE(w.document()->toJson(), before);
    }
};

QTEST_MAIN(TestWorkerFailureGui)
#include "test_worker_failure_gui.moc"
