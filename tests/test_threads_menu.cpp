// Simulation ▸ CPU Threads (issue #22), by real input: the menu offers All Cores (the default)
// and 1 to the machine's cores; a choice walked to with the keyboard (Alt+S, arrows, Return)
// while a run is going moves the running simulation to that many threads at its next chunk, and
// the run goes on (more steps, no error) with the status bar saying so; without a run, the
// next run starts on it (the status bar says "for the next run"); the choice is kept for
// the next window (QSettings "run/threads") and its runs start on it; a stored count beyond this
// machine's cores reads as All Cores. QT_QPA_PLATFORM=offscreen.
#include "tests/real_input.hpp"

#include "ui/run/live_run.hpp"
#include "ui/run/run_session.hpp"
#include "ui/window/main_window.hpp"

#include <QAction>
#include <QMenu>
#include <QSettings>
#include <QStatusBar>
#include <QtTest/QtTest>

#include <thread>

using spike::ui::MainWindow;
using spike::ui::RunSession;

namespace {

const QString kExample = QStringLiteral(":/examples/two_layer_lif.json");

QAction* threadsAction(const MainWindow& w, int count)
{
    return w.findChild<QAction*>(QStringLiteral("action.threads.%1").arg(count));
}

int cores()
{
    return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

}  // namespace

class TestThreadsMenu : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().remove(QStringLiteral("run/threads"));
    }

    void theMenuOffersAllCoresAndEachCount()
    {
        MainWindow w;
        auto* menu = w.findChild<QMenu*>(QStringLiteral("threadsMenu"));
        QVERIFY(menu != nullptr);
        QCOMPARE(menu->title(), QStringLiteral("CPU Threads"));
        QVERIFY(threadsAction(w, 0) != nullptr);
        QCOMPARE(threadsAction(w, 0)->text(), QStringLiteral("All Cores (%1)").arg(cores()));
        QVERIFY(threadsAction(w, 0)->isChecked());  // the default
        QCOMPARE(threadsAction(w, 1)->text(), QStringLiteral("1 Thread"));
        QCOMPARE(threadsAction(w, cores())->text(),
                 cores() == 1 ? QStringLiteral("1 Thread") : QStringLiteral("%1 Threads").arg(cores()));
        QVERIFY(threadsAction(w, cores() + 1) == nullptr);
        QCOMPARE(w.findChild<RunSession*>()->threads(), 0);
    }

    void aChoiceByKeysMovesTheRunningSimulationAndIsKept()
    {
        {
            MainWindow w;
            w.resize(1200, 800);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QVERIFY(w.openModel(kExample));
            QTest::keyClick(&w, Qt::Key_F5);
            QTRY_VERIFY(w.isRunning());
            auto* session = w.findChild<RunSession*>();
            QVERIFY(session != nullptr && session->live() != nullptr);
            QCOMPARE(session->live()->threads(), 0);

            bool done = false;
            spike::tests::chooseFromContextMenu(QStringLiteral("CPU Threads"),
                                                QStringLiteral("1 Thread"), done);
            QTest::keyClick(&w, Qt::Key_S, Qt::AltModifier);  // opens Simulation
            QTRY_VERIFY(done);
            QTRY_VERIFY(threadsAction(w, 1)->isChecked());
            QVERIFY(!threadsAction(w, 0)->isChecked());
            QCOMPARE(session->threads(), 1);
            QCOMPARE(session->live()->threads(), 1);
            QCOMPARE(QSettings().value(QStringLiteral("run/threads")).toInt(), 1);
            QVERIFY2(w.statusBar()->currentMessage().contains(QStringLiteral("on 1 thread from the next chunk")),
                     qPrintable(w.statusBar()->currentMessage()));
            // The run goes on, on its new executor.
            const std::int64_t at = w.simulatedSteps();
            QTRY_VERIFY(w.simulatedSteps() > at + 100);
            QVERIFY(w.isRunning());
            QTest::keyClick(&w, Qt::Key_F5);  // pause
            QTRY_VERIFY(!w.isRunning());
        }
        // The next window starts on the kept choice.
        MainWindow again;
        QVERIFY(threadsAction(again, 1)->isChecked());
        QVERIFY(again.openModel(kExample));
        QString error;
        QVERIFY2(again.runSteps(50, &error), qPrintable(error));
        QCOMPARE(again.findChild<RunSession*>()->live()->threads(), 1);
    }

    void aChoiceWithoutARunIsForTheNextRun()
    {
        MainWindow w;
        w.resize(1200, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openModel(kExample));
        bool done = false;
        spike::tests::chooseFromContextMenu(QStringLiteral("CPU Threads"), QStringLiteral("1 Thread"),
                                            done);
        QTest::keyClick(&w, Qt::Key_S, Qt::AltModifier);
        QTRY_VERIFY(done);
        QTRY_VERIFY(threadsAction(w, 1)->isChecked());
        QVERIFY2(w.statusBar()->currentMessage().contains(QStringLiteral("on 1 thread for the next run")),
                 qPrintable(w.statusBar()->currentMessage()));
        QString error;
        QVERIFY2(w.runSteps(20, &error), qPrintable(error));
        QCOMPARE(w.findChild<RunSession*>()->live()->threads(), 1);
    }

    void aStoredCountBeyondTheCoresIsAllCores()
    {
        QSettings().setValue(QStringLiteral("run/threads"), cores() + 5);
        MainWindow w;
        QVERIFY(threadsAction(w, 0)->isChecked());
        QCOMPARE(w.findChild<RunSession*>()->threads(), 0);
    }
};

QTEST_MAIN(TestThreadsMenu)
#include "test_threads_menu.moc"
