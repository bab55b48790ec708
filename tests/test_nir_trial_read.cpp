// engine/nir/nir_trial_read.hpp: a .nir file is first read by a forked copy of the process, so
// what HDF5 1.10.8 itself crashes on ends the copy, not the process. The copy's outcome is told
// apart: a crash by signal (SIGSEGV, SIGABRT), a refusal or success of the read (""), a copy
// stuck past its time limit (killed, reported within the limit plus a margin). A copy made while
// another thread held a lock waits on it for ever: it is made again, and after
// kMaxDeadlockedCopies such copies the process reads the file itself. Then the file
// fuzz_nir found crashing HDF5 (a damaged group B-tree node: HDF5 copies into a NULL from its
// own failed malloc inside H5Gget_info) is refused with one line naming the file, the process
// goes on, and it reads a good file afterwards; good files read the same with the copy as the
// reader gives them (the reference models).
#include "engine/nir/nir_file.hpp"
#include "engine/nir/nir_trial_read.hpp"
#include "engine/tensor/error.hpp"

#include <QtTest/QtTest>

#include <QElapsedTimer>
#include <QTemporaryDir>

#include <csignal>
#include <cstdlib>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

using spike::engine::nir::readNirFile;
using spike::engine::nir::detail::kMaxDeadlockedCopies;
using spike::engine::nir::detail::readInChildFirst;
using spike::engine::nir::detail::trialReadLimit;
using namespace std::chrono_literals;

namespace {

std::string dataPath(const std::string& relative)
{
    return std::string(SPIKE_TEST_DATA_DIR) + "/" + relative;
}

std::string errorOf(const std::string& path)
{
    try {
        (void)readNirFile(path);
    } catch (const spike::engine::Error& e) {
        return e.what();
    }
    return "no error";
}

/// Holds `lock` on a thread of its own from construction to destruction, as a thread of the
/// application (the GUI thread inside malloc) may hold a lock at the moment the copy is made.
class LockHeldElsewhere {
public:
    explicit LockHeldElsewhere(std::mutex& lock)
        : m_thread([this, &lock] {
              const std::lock_guard held(lock);
              std::unique_lock state(m_state);
              m_holding = true;
              m_changed.notify_all();
              m_changed.wait(state, [this] { return m_release; });
          })
    {
        std::unique_lock state(m_state);
        m_changed.wait(state, [this] { return m_holding; });
    }
    ~LockHeldElsewhere()
    {
        {
            const std::lock_guard state(m_state);
            m_release = true;
        }
        m_changed.notify_all();
        m_thread.join();
    }
    LockHeldElsewhere(const LockHeldElsewhere&) = delete;
    LockHeldElsewhere& operator=(const LockHeldElsewhere&) = delete;

private:
    std::mutex m_state;
    std::condition_variable m_changed;
    bool m_holding = false;
    bool m_release = false;
    std::thread m_thread;
};

}  // namespace

class TestNirTrialRead : public QObject {
    Q_OBJECT

private slots:
    void finishedCopiesReportNothing();
    void crashesEndTheCopyOnly();
    void aStuckCopyIsKilledAtItsLimit();
    void aCopyDeadlockedOnAnInheritedLockIsMadeAgain();
    void copiesThatAlwaysDeadlockLeaveTheReadToTheProcess();
    void theLimitGrowsWithTheFile();
    void hdf5CrashIsRefusedAndTheProcessGoesOn();
};

void TestNirTrialRead::finishedCopiesReportNothing()
{
    int touched = 0;
    QCOMPARE(QString::fromStdString(readInChildFirst([&] { touched = 1; }, 10s)), QString());
    QCOMPARE(touched, 0);  // the copy's memory is its own
    QCOMPARE(QString::fromStdString(
                 readInChildFirst([] { throw std::runtime_error("refused by a check"); }, 10s)),
             QString());
}

void TestNirTrialRead::crashesEndTheCopyOnly()
{
    const std::string segv = readInChildFirst([] { std::raise(SIGSEGV); }, 10s);
    QVERIFY2(segv.starts_with("crashed (signal 11"), segv.c_str());
    const std::string abrt = readInChildFirst([] { std::abort(); }, 10s);
    QVERIFY2(abrt.starts_with("crashed (signal 6"), abrt.c_str());
    const std::string exited = readInChildFirst([] { std::_Exit(3); }, 10s);
    QCOMPARE(QString::fromStdString(exited), QString("was stopped (exit status 3)"));
}

void TestNirTrialRead::aStuckCopyIsKilledAtItsLimit()
{
    QElapsedTimer clock;
    clock.start();
    const std::string stuck = readInChildFirst([] { std::this_thread::sleep_for(60s); }, 300ms);
    QVERIFY2(clock.elapsed() >= 300, std::to_string(clock.elapsed()).c_str());
    // Far below the copy's 60 s sleep (a bound for a loaded machine, not a speed target).
    QVERIFY2(clock.elapsed() < 30'000, std::to_string(clock.elapsed()).c_str());
    QCOMPARE(QString::fromStdString(stuck), QString("did not finish within 0.3 s"));
    const std::string long_ = readInChildFirst([] { std::this_thread::sleep_for(60s); }, 1500ms);
    QCOMPARE(QString::fromStdString(long_), QString("did not finish within 1.5 s"));
}

void TestNirTrialRead::aCopyDeadlockedOnAnInheritedLockIsMadeAgain()
{
    // The first copy marks a file and takes the lock another thread holds: it waits for ever.
    // The second copy finds the mark and finishes: the read is checked, well within the limit.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string mark = dir.filePath(QStringLiteral("first-copy")).toStdString();
    std::mutex lock;
    const LockHeldElsewhere holder(lock);
    int copies = 0;
    const std::string outcome = readInChildFirst(
        [&] {
            if (!std::filesystem::exists(mark)) {
                std::ofstream(mark) << "1";
                const std::lock_guard never(lock);
            }
        },
        60s, &copies);
    QCOMPARE(QString::fromStdString(outcome), QString());
    QCOMPARE(copies, 2);
    QVERIFY(std::filesystem::exists(mark));
}

void TestNirTrialRead::copiesThatAlwaysDeadlockLeaveTheReadToTheProcess()
{
    std::mutex lock;
    const LockHeldElsewhere holder(lock);
    int copies = 0;
    const std::string outcome =
        readInChildFirst([&] { const std::lock_guard never(lock); }, 60s, &copies);
    // Not "did not finish within 60 s": the check is given up, the caller reads in-process.
    QCOMPARE(QString::fromStdString(outcome), QString());
    QCOMPARE(copies, kMaxDeadlockedCopies);
    // A copy that sleeps (not in futex) is not taken for a deadlocked one: it runs to its limit.
    copies = 0;
    QCOMPARE(QString::fromStdString(
                 readInChildFirst([] { std::this_thread::sleep_for(60s); }, 1s, &copies)),
             QString("did not finish within 1.0 s"));
    QCOMPARE(copies, 1);
}

void TestNirTrialRead::theLimitGrowsWithTheFile()
{
    QCOMPARE(trialReadLimit(0).count(), 30'000);
    QCOMPARE(trialReadLimit(1'000'000'000).count(), 130'000);  // 1 GB: 30 s + 100 s
}

void TestNirTrialRead::hdf5CrashIsRefusedAndTheProcessGoesOn()
{
    const std::string crashing = dataPath("../fuzz/regressions/fuzz_nir/metadata_malloc_null.nir");
    QVERIFY(std::filesystem::exists(crashing));
    const std::string message = errorOf(crashing);
    QCOMPARE(QString::fromStdString(message),
             QString::fromStdString(crashing +
                                    ": damaged HDF5: not a readable NIR file: a trial read in a "
                                    "separate process crashed (signal 11, Segmentation fault); "
                                    "the file was not opened"));
    // The process is unaffected: the same file again, then a good one, read as usual.
    QCOMPARE(QString::fromStdString(errorOf(crashing)), QString::fromStdString(message));
    const auto graph = readNirFile(dataPath("nir/lif_affine/model.nir"));
    QVERIFY(!graph.graph.nodes.empty());
}

QTEST_GUILESS_MAIN(TestNirTrialRead)
#include "test_nir_trial_read.moc"
