// Kill and recover, as a process (issue #20): the real spikestudio binary (SPIKESTUDIO_PATH) on
// a private Xvfb display, edited with real key presses through xdotool, killed with SIGKILL.
//
// 1. After an autosave: spikestudio opens a copy of the CUBA example with --autosave-seconds 1,
//    quick-add (Ctrl+Shift+A, "lif", Return) adds a LIF node, the recovery file appears under
//    the private XDG_DATA_HOME holding that node, SIGKILL. A new spikestudio (no model) asks
//    "Recover unsaved work?"; Return (Recover) and Ctrl+S write the recovered document to the
//    original file, which must then be the original plus exactly that node, and no recovery
//    file may be left behind.
// 2. During a save: a network with a 1500 x 1500 dense projection (9 MB of weights in
//    "<stem>.arrays/", as spikestudio saves it) gets a node and Ctrl+S; one save is timed to the
//    title losing its '*', then spikestudio is killed at tenths of that time after Ctrl+S, and
//    later until a kill finds the save done (a run at a time, each on a fresh copy).
//    After every kill the model on disk must be either the old one byte for byte (JSON and
//    array file) or the complete new one (loadable by the engine, the old model plus the node),
//    never truncated; which one it was, and any temporary file the kill left, is logged.
// Skips (QSKIP) only when Xvfb or xdotool is not installed.
#include "tests/x_session.hpp"

#include "engine/io/model_io.hpp"

#include <QDirIterator>
#include <QFileInfo>
#include <QRegularExpression>
#include <QtTest/QtTest>

#include <csignal>
#include <random>
#include <set>

using Json = nlohmann::json;
using spike::tests::kSlowMs;
using spike::tests::Process;
using spike::tests::waitUntil;
using spike::tests::XSession;

namespace {

constexpr int kDenseSize = 1500;  // neurons of the big model: kDenseSize^2 weights

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

Json readJson(const QString& path)
{
    const QByteArray text = readAll(path);
    return Json::parse(text.constBegin(), text.constEnd(), nullptr, false);
}

/// Writes `doc` (a model file's JSON) as the engine's saveModel writes it: arrays above the
/// inline limit go to "<stem>.arrays/", as spikestudio's Save puts them.
void saveCanonical(const Json& doc, const QString& path)
{
    spike::engine::ModelDocument model = spike::engine::modelFromJson(doc, path.toStdString(), ".");
    spike::engine::saveModel(QFile::encodeName(path).toStdString(), *model.root, {}, model.extras);
}

/// "" when `edited` is `original` with exactly one node more, of type LIF, at the top level
/// (and at most a layout entry for it); otherwise what differs.
QString differenceFromEdit(Json original, Json edited)
{
    if (edited.is_discarded()) {
        return QStringLiteral("not JSON");
    }
    std::set<std::string> names;
    for (const Json& c : original["model"]["children"]) {
        names.insert(c.value("name", std::string()));
    }
    Json& children = edited["model"]["children"];
    if (!children.is_array() || children.size() != original["model"]["children"].size() + 1) {
        return QStringLiteral("expected %1 top-level nodes, found %2")
            .arg(original["model"]["children"].size() + 1)
            .arg(children.is_array() ? children.size() : 0);
    }
    std::string added;
    for (auto it = children.begin(); it != children.end(); ++it) {
        if (names.count(it->value("name", std::string())) == 0) {
            if (it->value("type", std::string()) != "LIF") {
                return QStringLiteral("the new node is a %1, not a LIF")
                    .arg(QString::fromStdString(it->value("type", std::string())));
            }
            added = it->value("name", std::string());
            children.erase(it);
            break;
        }
    }
    if (added.empty()) {
        return QStringLiteral("no new node");
    }
    if (edited.contains("layout")) {
        edited["layout"].erase(added);
        if (edited["layout"].empty() && !original.contains("layout")) {
            edited.erase("layout");
        }
    }
    if (edited != original) {
        return QStringLiteral("apart from node %1 it differs: %2")
            .arg(QString::fromStdString(added), QString::fromStdString(Json::diff(original, edited).dump()).left(400));
    }
    return {};
}

/// Whether the model at `path` loads with the engine's loader; *error says why not.
bool loads(const QString& path, QString* error)
{
    try {
        spike::engine::loadModelDocument(QFile::encodeName(path).toStdString());
        return true;
    } catch (const std::exception& e) {
        *error = QString::fromUtf8(e.what());
        return false;
    }
}

/// Every file below `dir`, relative to it, sorted.
QStringList filesBelow(const QString& dir)
{
    QStringList out;
    QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        out << QDir(dir).relativeFilePath(it.next());
    }
    out.sort();
    return out;
}

/// Recovery files below the private data folder.
QStringList recoveryFiles(const XSession& x)
{
    return filesBelow(x.dataHome()).filter(QRegularExpression(QStringLiteral("\\.recovery\\.json$")));
}

void copyTree(const QString& from, const QString& to)
{
    QDir().mkpath(to);
    for (const QString& rel : filesBelow(from)) {
        QDir().mkpath(QFileInfo(QDir(to).filePath(rel)).absolutePath());
        QFile::copy(QDir(from).filePath(rel), QDir(to).filePath(rel));
    }
}

/// The big model: E, a CUBALIF layer, onto itself through a dense projection of random weights.
Json denseModel()
{
    std::mt19937 random(20);
    std::uniform_real_distribution<float> uniform(-0.01f, 0.01f);
    std::vector<float> weights(static_cast<std::size_t>(kDenseSize) * kDenseSize);
    for (float& w : weights) {
        w = uniform(random);
    }
    const Json projection{{"type", "DenseProjection"},
                          {"config", {{"shape", Json::array({kDenseSize, kDenseSize})}}},
                          {"attributes", {{"weight", {{"shape", Json::array({kDenseSize, kDenseSize})}, {"data", weights}}}}}};
    const Json model{{"type", "Network"},
                     {"children", Json::array({{{"name", "E"}, {"type", "CUBALIF"}, {"config", {{"shape", Json::array({kDenseSize})}}}}})},
                     {"connections", Json::array({{{"name", "E_to_E"}, {"from", "E.spikes"}, {"to", "E.exc"},
                                                   {"delayed", true}, {"projection", projection}}})}};
    return Json{{"format", "spikestudio.model"}, {"version", 1}, {"model", model}};
}

}  // namespace

class TestKillRecover : public QObject {
    Q_OBJECT

    XSession m_x;
    QTemporaryDir m_dir;
    int m_logs = 0;

    /// Starts spikestudio with `args`; its output goes to a numbered log in the test folder.
    Process studio(const QStringList& args)
    {
        return m_x.launch(QStringLiteral(SPIKESTUDIO_PATH), args, m_dir.filePath(QStringLiteral("studio-%1.log").arg(++m_logs)));
    }
    QString lastLog() const
    {
        return QString::fromLocal8Bit(readAll(m_dir.filePath(QStringLiteral("studio-%1.log").arg(m_logs))));
    }
    /// SIGKILL: the process ends as in a crash, with no handler and no clean-up.
    static void killHard(QProcess& p)
    {
        ::kill(static_cast<pid_t>(p.processId()), SIGKILL);
        p.waitForFinished(kSlowMs);
    }
    /// Quick-add on the canvas of window `id`: Ctrl+Shift+A, "lif", Return adds a LIF node.
    bool addLifNode(const QString& id) const
    {
        return m_x.keys(id, {QStringLiteral("ctrl+shift+a")}) && m_x.type(QStringLiteral("lif")) &&
               m_x.press({QStringLiteral("Return")});
    }
    /// Waits for spikestudio's window titled `fileName`, quick-adds a LIF node there and waits
    /// for the title's '*'; *window gets the window's id. A step that does not happen fails the
    /// test: callers check QTest::currentTestFailed().
    void addLifNodeInWindow(const QString& fileName, QString* window)
    {
        const QString title = QLatin1Char('^') + QRegularExpression::escape(fileName);
        *window = m_x.waitForWindow(title + QLatin1Char(' '));
        QVERIFY2(!window->isEmpty(), qPrintable(QStringLiteral("no window titled %1: ").arg(fileName) + lastLog()));
        QVERIFY(addLifNode(*window));
        QVERIFY2(!m_x.waitForWindow(title + QStringLiteral("\\* ")).isEmpty(),
                 "the quick-add did not modify the document (no '*' in the title)");
    }

private Q_SLOTS:
    void initTestCase()
    {
        const QStringList missing = XSession::missingTools();
        if (!missing.isEmpty()) {
            QSKIP(qPrintable(QStringLiteral("needs %1 installed (Debian: apt-get install xvfb xdotool)")
                                 .arg(missing.join(QStringLiteral(" and ")))));
        }
        QVERIFY(m_dir.isValid());
        QString why;
        QVERIFY2(m_x.start(&why), qPrintable(why));
        qInfo("X display %s", qPrintable(m_x.display()));
    }

    void killAfterAutosaveRecoversTheEdit()
    {
        const QString doc = m_dir.filePath(QStringLiteral("kill_recover.json"));
        saveCanonical(readJson(QStringLiteral(SPIKE_TEST_DATA_DIR "/../../resources/examples/cuba_network.json")), doc);
        const QByteArray before = readAll(doc);
        const Json original = readJson(doc);

        auto first = studio({doc, QStringLiteral("--autosave-seconds"), QStringLiteral("1")});
        QString window;
        addLifNodeInWindow(QStringLiteral("kill_recover.json"), &window);
        if (QTest::currentTestFailed()) {
            return;
        }
        // Autosave (every second) writes the recovery file, atomically, with the new node.
        QString recovery;
        QString recoveryProblem;
        const bool autosaved = waitUntil([&] {
            const QStringList files = recoveryFiles(m_x);
            if (files.size() != 1) {
                return false;
            }
            recovery = QDir(m_x.dataHome()).filePath(files.front());
            recoveryProblem = differenceFromEdit(original, readJson(recovery).value("document", Json()));
            return recoveryProblem.isEmpty();
        });
        QVERIFY2(autosaved, qPrintable(QStringLiteral("no recovery file with the edit under %1 (%2)")
                                           .arg(m_x.dataHome(), recovery.isEmpty() ? QStringLiteral("none written") : recoveryProblem)));
        killHard(*first);
        QCOMPARE(readAll(doc), before);  // autosave never writes the document's own file

        auto second = studio({});
        const QString prompt = m_x.waitForWindow(QStringLiteral("^Recover unsaved work"));
        QVERIFY2(!prompt.isEmpty(), qPrintable(QStringLiteral("no recovery prompt: ") + lastLog()));
        QVERIFY(m_x.keys(prompt, {QStringLiteral("Return")}));  // the default button: Recover
        const QString recovered = m_x.waitForWindow(QStringLiteral("^kill_recover\\.json\\* "));
        QVERIFY2(!recovered.isEmpty(), qPrintable(QStringLiteral("the recovered document is not open and modified: ") + lastLog()));
        QVERIFY(m_x.keys(recovered, {QStringLiteral("ctrl+s")}));
        QVERIFY2(!m_x.waitForWindow(QStringLiteral("^kill_recover\\.json ")).isEmpty(), "Ctrl+S did not save");
        killHard(*second);

        const QString problem = differenceFromEdit(original, readJson(doc));
        QVERIFY2(problem.isEmpty(), qPrintable(QStringLiteral("the saved recovered document: ") + problem));
        QString error;
        QVERIFY2(loads(doc, &error), qPrintable(error));
        QVERIFY2(recoveryFiles(m_x).isEmpty(), qPrintable(recoveryFiles(m_x).join(QStringLiteral(", "))));
    }

    void killDuringSaveKeepsTheOldFileOrWritesTheNewOne()
    {
        const QString pristine = m_dir.filePath(QStringLiteral("pristine"));
        const QString work = m_dir.filePath(QStringLiteral("work"));
        QDir().mkpath(pristine);
        saveCanonical(denseModel(), QDir(pristine).filePath(QStringLiteral("big.json")));
        const QString arrays = QStringLiteral("big.arrays/E_to_E.weight.npy");
        const QByteArray oldJson = readAll(QDir(pristine).filePath(QStringLiteral("big.json")));
        const QByteArray oldArray = readAll(QDir(pristine).filePath(arrays));
        QVERIFY(oldArray.size() > kDenseSize * kDenseSize * 4);
        const Json original = readJson(QDir(pristine).filePath(QStringLiteral("big.json")));
        const QString doc = QDir(work).filePath(QStringLiteral("big.json"));

        // One run of the whole scene: a fresh copy of the old model, spikestudio on it, a LIF
        // node added, Ctrl+S; then the kill `killAfterMs` after Ctrl+S (< 0: none, wait for the
        // save to finish). Returns how long the save took [ms] when it waited for it.
        const auto scene = [&](int killAfterMs, qint64* savedAfterMs) {
            QDir(work).removeRecursively();
            QDir(m_x.dataHome()).removeRecursively();
            copyTree(pristine, work);
            auto app = studio({doc, QStringLiteral("--autosave-seconds"), QStringLiteral("3600")});
            QString window;
            addLifNodeInWindow(QStringLiteral("big.json"), &window);
            if (QTest::currentTestFailed()) {
                return;
            }
            QVERIFY(m_x.keys(window, {QStringLiteral("ctrl+s")}));
            QElapsedTimer clock;
            clock.start();
            if (killAfterMs >= 0) {
                std::this_thread::sleep_for(std::chrono::milliseconds(killAfterMs));
                killHard(*app);
                return;
            }
            const bool saved = waitUntil([&] { return !m_x.xdotool({QStringLiteral("search"), QStringLiteral("--name"),
                                                                     QStringLiteral("^big\\.json ")}).isEmpty(); },
                                         kSlowMs, 10);
            *savedAfterMs = clock.elapsed();
            QVERIFY2(saved, "Ctrl+S did not save");
            killHard(*app);
        };
        // What is on disk: the old model byte for byte, or the whole new one. Never anything else.
        const auto outcome = [&]() -> QString {
            const QByteArray json = readAll(doc);
            const QByteArray array = readAll(QDir(work).filePath(arrays));
            if (array != oldArray) {
                return QStringLiteral("BROKEN: %1 holds %2 bytes, not the %3 of the weights")
                    .arg(arrays).arg(array.size()).arg(oldArray.size());
            }
            if (json == oldJson) {
                return QStringLiteral("old file intact");
            }
            QString error;
            if (!loads(doc, &error)) {
                return QStringLiteral("BROKEN: big.json (%1 bytes; the old one had %2) does not load: %3")
                    .arg(json.size()).arg(oldJson.size()).arg(error);
            }
            const QString problem = differenceFromEdit(original, Json::parse(json.constBegin(), json.constEnd(), nullptr, false));
            return problem.isEmpty() ? QStringLiteral("new file complete") : QStringLiteral("BROKEN: new big.json: ") + problem;
        };

        qint64 saveMs = 0;
        scene(-1, &saveMs);
        if (QTest::currentTestFailed()) {
            return;
        }
        QCOMPARE(outcome(), QStringLiteral("new file complete"));
        qInfo("a save took %lld ms from Ctrl+S to the title without '*'", saveMs);
        const QStringList expected{QStringLiteral("big.arrays/E_to_E.weight.npy"), QStringLiteral("big.json")};
        // Kills at tenths of that time, then (a loaded machine saves slower some other time) at
        // ever later ones until a kill comes after the save's end, up to ten times that time.
        QStringList seen;
        int delayMs = 0;
        for (int i = 0; i <= 10 || (!seen.contains(QStringLiteral("new file complete")) && delayMs <= 10 * saveMs); ++i) {
            delayMs = i <= 10 ? static_cast<int>(saveMs * i / 10) : delayMs * 5 / 4;
            scene(delayMs, nullptr);
            if (QTest::currentTestFailed()) {
                return;
            }
            const QString what = outcome();
            QStringList leftovers = filesBelow(work);
            for (const QString& name : expected) {
                leftovers.removeAll(name);
            }
            qInfo("killed %4d ms after Ctrl+S: %s%s", delayMs, qPrintable(what),
                  leftovers.isEmpty() ? "" : qPrintable(QStringLiteral(" (left behind: ") + leftovers.join(QStringLiteral(", ")) + QLatin1Char(')')));
            QVERIFY2(!what.startsWith(QLatin1String("BROKEN")), qPrintable(QStringLiteral("killed %1 ms after Ctrl+S: %2").arg(delayMs).arg(what)));
            seen << what;
        }
        qInfo("outcomes: %lld old, %lld new", static_cast<long long>(seen.count(QStringLiteral("old file intact"))),
              static_cast<long long>(seen.count(QStringLiteral("new file complete"))));
    }
};

QTEST_MAIN(TestKillRecover)
#include "test_kill_recover.moc"
