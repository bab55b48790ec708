// RunSession, the run policy of a document, without a window: the first run starts on a copy
// (the document keeps its initial states), runSteps continues where the last one stopped, an
// attribute edit reaches the running copy (a threshold too high to reach silences the neurons),
// a structural edit rebuilds the run once and continues it from the same step, Reset and a new
// document end the run with the reason, and bad step counts are refused with the bounds.
#include "ui/document/graph_commands.hpp"
#include "ui/document/graph_document.hpp"
#include "ui/run/live_run.hpp"
#include "ui/run/run_session.hpp"

#include "engine/io/model_io.hpp"
#include "engine/runtime/spike_window.hpp"

#include <QSignalSpy>
#include <QtTest/QtTest>

using spike::engine::Tensor;
using spike::ui::GraphDocument;
using spike::ui::RunSession;

namespace {

std::unique_ptr<spike::engine::Module> lifCurrentStep()
{
    return spike::engine::loadModel(std::string(SPIKE_TEST_DATA_DIR) +
                                    "/../../resources/examples/lif_current_step.json");
}

std::int64_t spikesSoFar(const RunSession& session)
{
    return spike::engine::summariseSpikes(session.live()->spikeWindows()).spikes;
}

}  // namespace

class TestRunSession : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void runsContinueOnACopy()
    {
        GraphDocument doc;
        doc.reset(lifCurrentStep());
        RunSession session(doc);
        QSignalSpy started(&session, &RunSession::started);
        QCOMPARE(session.live(), nullptr);
        QCOMPARE(session.currentStep(), std::int64_t{0});
        QVERIFY(session.runSteps(300));
        QCOMPARE(started.count(), 1);
        QCOMPARE(session.currentStep(), std::int64_t{300});
        QVERIFY(session.runSteps(200));
        QCOMPARE(started.count(), 1);  // the same run goes on
        QCOMPARE(session.currentStep(), std::int64_t{500});
        QVERIFY(spikesSoFar(session) > 0);
        // The document's model keeps its initial states.
        const Tensor& vmem = doc.root().getSubmodule("lif").tensor("vmem");
        QVERIFY(vmem.identical(Tensor(vmem.shape(), 0.0F)));
    }

    void anAttributeEditReachesTheRun()
    {
        GraphDocument doc;
        doc.reset(lifCurrentStep());
        RunSession session(doc);
        QVERIFY(session.runSteps(300));
        const std::int64_t before = spikesSoFar(session);
        QVERIFY(before > 0);
        const auto lif = doc.findNode("lif");
        QVERIFY(spike::ui::pushCommand(doc, std::make_unique<spike::ui::SetAttributeCommand>(
                                                doc, lif, "threshold", Tensor::scalar(1.0e6F)))
                    .ok);
        QVERIFY(session.runSteps(300));
        QCOMPARE(session.currentStep(), std::int64_t{600});
        QCOMPARE(spikesSoFar(session), before);  // no neuron reaches the new threshold
    }

    void aStructuralEditRebuildsAndContinues()
    {
        GraphDocument doc;
        doc.reset(lifCurrentStep());
        RunSession session(doc);
        QSignalSpy rebuilt(&session, &RunSession::rebuilt);
        QSignalSpy messages(&session, &RunSession::message);
        QVERIFY(session.runSteps(250));
        QVERIFY(spike::ui::pushCommand(doc, std::make_unique<spike::ui::AddNodeCommand>(
                                                doc, doc.rootId(), "LIF", nlohmann::json{{"shape", {2}}}))
                    .ok);
        QVERIFY(spike::ui::pushCommand(doc, std::make_unique<spike::ui::AddNodeCommand>(
                                                doc, doc.rootId(), "LIF", nlohmann::json{{"shape", {3}}}))
                    .ok);
        QTRY_COMPARE(rebuilt.count(), 1);  // two edits of one turn: one rebuild
        QTest::qWait(20);
        QCOMPARE(rebuilt.count(), 1);
        QCOMPARE(session.currentStep(), std::int64_t{250});
        QVERIFY(messages.last().at(0).toString().contains(QStringLiteral("continuing at t = 250")));
        QVERIFY(session.runSteps(50));
        QCOMPARE(session.currentStep(), std::int64_t{300});
        QCOMPARE(session.live()->spikeWindows().size(), std::size_t{3});  // the new layers run
    }

    void resetAndANewDocumentEndTheRun()
    {
        GraphDocument doc;
        doc.reset(lifCurrentStep());
        RunSession session(doc);
        QSignalSpy dropped(&session, &RunSession::dropped);
        QVERIFY(session.runSteps(100));
        session.reset();
        QCOMPARE(session.live(), nullptr);
        QCOMPARE(session.currentStep(), std::int64_t{0});
        QCOMPARE(dropped.count(), 1);
        QVERIFY(dropped.last().at(0).toString().contains(QStringLiteral("t = 0")));
        QVERIFY(session.runSteps(100));
        doc.reset(lifCurrentStep());
        QCOMPARE(session.live(), nullptr);
        QCOMPARE(dropped.count(), 2);
    }

    void stepRunsAsFastAsItCanAndRunIsPacedAgain()
    {
        GraphDocument doc;
        doc.reset(lifCurrentStep());
        RunSession session(doc);
        session.setSpeed(spike::engine::Speed::realTime(0.01));  // 1000 steps of 1 ms: 100 s paced
        session.step(1000);
        QTRY_COMPARE_WITH_TIMEOUT(session.currentStep(), std::int64_t{1000}, 60000);
        QTRY_VERIFY(!session.isRunning());
        // Run is paced again: at x0.01 half a second of wall time is 5 simulated steps.
        session.toggle();
        QTRY_VERIFY(session.isRunning());
        QTest::qWait(500);
        session.toggle();
        QTRY_VERIFY(!session.isRunning());
        QVERIFY2(session.currentStep() < 1000 + 200,
                 qPrintable(QStringLiteral("ran to step %1 while paced at x0.01").arg(session.currentStep())));
        QVERIFY(session.currentStep() > 1000);
    }

    void badStepCountsAreRefused()
    {
        GraphDocument doc;
        doc.reset(lifCurrentStep());
        RunSession session(doc);
        QString error;
        QVERIFY(!session.runSteps(0, &error));
        QVERIFY2(error.contains(QStringLiteral("between 1 and")), qPrintable(error));
        QVERIFY(!session.runSteps(RunSession::kMaxSteps + 1, &error));
        QCOMPARE(session.live(), nullptr);  // nothing started
        QVERIFY(!session.runFor(-1.0, &error));
        QVERIFY2(error.contains(QStringLiteral("run time")), qPrintable(error));
    }
};

QTEST_MAIN(TestRunSession)
#include "test_run_session.moc"
