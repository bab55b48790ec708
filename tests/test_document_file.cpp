// DocumentFile: opening good and bad files (every corpus file gives the engine's message and
// leaves the current document as it was), save/saveAs round trips byte-identical to the
// engine's saveModel (large arrays in "<stem>.arrays/"), the modified flag and window title
// following undo/redo/save, atomic saving (a failing save keeps the old file), recent files,
// bundled examples, autosave only when modified, crash recovery and clean close.
// Settings and recovery files live in temporary directories.
#include "ui/document/document_file.hpp"
#include "ui/document/graph_commands.hpp"

#include <QDir>
#include <QFile>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <sys/resource.h>

#include <csignal>
#include <fstream>

using namespace spike::ui;
using Json = nlohmann::json;

namespace {

/// E (CUBALIF n) → F (CUBALIF n) through a dense n×n projection, positions for both.
Json networkModel(int n)
{
    Json model{
        {"type", "Network"},
        {"config", {{"input_size", 0}, {"output_size", n}}},
        {"children",
         {{{"name", "E"}, {"type", "CUBALIF"}, {"config", {{"shape", {n}}}}},
          {{"name", "F"}, {"type", "CUBALIF"}, {"config", {{"shape", {n}}}}}}},
        {"connections",
         {{{"name", "E_to_F"}, {"from", "E.spikes"}, {"to", "F.exc"},
           {"projection", {{"type", "DenseProjection"}, {"config", {{"shape", {n, n}}}}}}},
          {{"name", "F_to_out"}, {"from", "F.spikes"}, {"to", "out"}}}}};
    return Json{{"format", "spikestudio.model"}, {"version", 1}, {"model", model},
                {"layout", {{"E", {10.0, 20.0}}, {"F", {50.0, 20.0}}}},
                {"notes", "kept for other tools"}};
}

void writeText(const QString& path, const std::string& text)
{
    std::ofstream out(QFile::encodeName(path).toStdString(), std::ios::binary);
    out << text;
}

QByteArray readBytes(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// Moves node E: one undoable edit.
void moveE(GraphDocument& doc, double x)
{
    std::vector<std::pair<NodeId, QPointF>> targets{{doc.findNode("E"), QPointF(x, 1.0)}};
    const auto s = pushCommand(doc, std::make_unique<MoveNodesCommand>(doc, std::move(targets)));
    QVERIFY2(s.ok, s.message.c_str());
}

}  // namespace

class TestDocumentFile : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_settingsDir;
    std::unique_ptr<QTemporaryDir> m_dir;  ///< fresh per test

    QString path(const QString& name) const { return m_dir->filePath(name); }
    /// Writes networkModel(n) to `name` and returns its path.
    QString writeModel(const QString& name, int n = 4) const
    {
        const QString p = path(name);
        writeText(p, networkModel(n).dump(2));
        return p;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("SpikeStudioTests"));
        QCoreApplication::setApplicationName(QStringLiteral("test_document_file"));
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settingsDir.path());
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_settingsDir.path());
    }

    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        QSettings().clear();
    }

    void openGoodFile()
    {
        GraphDocument doc;
        DocumentFile file(doc);
        file.setAutosaveInterval(0);
        QCOMPARE(file.windowTitle(), QStringLiteral("Untitled \u2014 SpikeStudio"));
        const QString p = writeModel(QStringLiteral("net.json"));
        QString error;
        QVERIFY2(file.open(p, &error), qPrintable(error));
        QCOMPARE(file.filePath(), QFileInfo(p).absoluteFilePath());
        QVERIFY(!file.isModified());
        QCOMPARE(file.windowTitle(), QStringLiteral("net.json \u2014 SpikeStudio"));
        GraphDocument direct;
        direct.fromJson(networkModel(4));
        QCOMPARE(doc.toJson().dump(), direct.toJson().dump());
        QCOMPARE(*doc.position(doc.findNode("F")), QPointF(50.0, 20.0));
        QCOMPARE(file.recentFiles(), QStringList{file.filePath()});
    }

    void examplesAndReadOnlyFilesOpenAsCopies()
    {
        GraphDocument doc;
        DocumentFile file(doc);
        file.setAutosaveInterval(0);
        // The bundled example opened by path (the README's first command): untitled, so that
        // Save asks where to write instead of overwriting the example.
        const QString example = path(QStringLiteral("lif_current_step.json"));
        QVERIFY(QFile::copy(QStringLiteral(SPIKE_TEST_DATA_DIR "/../../resources/examples/lif_current_step.json"), example));
        QFile::setPermissions(example, QFile::ReadOwner | QFile::WriteOwner);
        QString error;
        QVERIFY2(file.open(example, &error), qPrintable(error));
        QVERIFY(file.filePath().isEmpty());
        QCOMPARE(file.displayName(), QStringLiteral("lif_current_step.json"));
        QVERIFY(!file.save(&error));
        QVERIFY(file.recentFiles().isEmpty());
        // The same name with other contents is the user's own file.
        const QByteArray edited = readBytes(example).replace("\"tau_mem\"", "\"tau_mem\" ");
        writeText(example, edited.toStdString());
        QVERIFY2(file.open(example, &error), qPrintable(error));
        QCOMPARE(file.filePath(), QFileInfo(example).absoluteFilePath());
        // A read-only file opens as a copy too.
        const QString locked = writeModel(QStringLiteral("locked.json"));
        QFile::setPermissions(locked, QFile::ReadOwner | QFile::ReadGroup | QFile::ReadOther);
        QVERIFY2(file.open(locked, &error), qPrintable(error));
        QVERIFY(file.filePath().isEmpty());
        QCOMPARE(file.displayName(), QStringLiteral("locked.json"));
        QVERIFY(DocumentFile::opensAsCopy(locked));
        QVERIFY(!DocumentFile::opensAsCopy(writeModel(QStringLiteral("mine.json"))));
    }

    void openBadFilesKeepDocument()
    {
        const QString corpus = QStringLiteral(SPIKE_TEST_DATA_DIR "/corpus");
        std::ifstream in(QFile::encodeName(corpus + "/expected.json").toStdString());
        const Json expected = Json::parse(in);
        QVERIFY(expected.size() >= 30);

        GraphDocument doc;
        DocumentFile file(doc);
        file.setAutosaveInterval(0);
        const QString good = writeModel(QStringLiteral("good.json"));
        QVERIFY(file.open(good));
        moveE(doc, 99.0);
        const std::string before = doc.toJson().dump();
        const QString title = file.windowTitle();
        QVERIFY(file.isModified());
        for (const auto& [name, message] : expected.items()) {
            const QString bad = corpus + "/" + QString::fromStdString(name);
            QString error;
            QVERIFY2(!file.open(bad, &error), name.c_str());
            QVERIFY2(error.startsWith(bad + ": "), qPrintable(error));
            QVERIFY2(error.contains(QString::fromStdString(message.get<std::string>())),
                     qPrintable(error));
            QVERIFY(!error.contains('\n'));
            QCOMPARE(doc.toJson().dump(), before);
            QCOMPARE(file.filePath(), QFileInfo(good).absoluteFilePath());
            QCOMPARE(file.windowTitle(), title);
            QVERIFY(file.isModified());
            QVERIFY(doc.undoStack()->canUndo());
        }
        QCOMPARE(file.recentFiles(), QStringList{QFileInfo(good).absoluteFilePath()});
    }

    void saveRoundTripMatchesEngine_data()
    {
        QTest::addColumn<int>("n");
        QTest::newRow("inline arrays") << 4;
        QTest::newRow("arrays folder") << 80;  // 6400 weights > SaveOptions::inlineLimit
    }

    void saveRoundTripMatchesEngine()
    {
        QFETCH(int, n);
        GraphDocument doc;
        DocumentFile file(doc);
        file.setAutosaveInterval(0);
        QVERIFY(file.open(writeModel(QStringLiteral("src.json"), n)));
        moveE(doc, 7.5);
        QString error;
        const QString a = path(QStringLiteral("a.json"));
        QVERIFY2(file.saveAs(a, &error), qPrintable(error));
        QCOMPARE(file.filePath(), a);
        QVERIFY(!file.isModified());
        QCOMPARE(file.windowTitle(), QStringLiteral("a.json \u2014 SpikeStudio"));
        QCOMPARE(QDir(m_dir->path()).exists(QStringLiteral("a.arrays")), n == 80);

        // Same bytes as the engine's saveModel through GraphDocument::save.
        const QString b = path(QStringLiteral("b.json"));
        doc.save(QFile::encodeName(b).toStdString());
        QByteArray bytesA = readBytes(a);
        QVERIFY(!bytesA.isEmpty());
        QCOMPARE(bytesA.replace("a.arrays/", "X.arrays/"),
                 readBytes(b).replace("b.arrays/", "X.arrays/"));

        // Reopening gives the same document; saving it again gives the same bytes.
        GraphDocument doc2;
        DocumentFile file2(doc2);
        file2.setAutosaveInterval(0);
        QVERIFY2(file2.open(a, &error), qPrintable(error));
        QCOMPARE(doc2.toJson().dump(), doc.toJson().dump());
        QCOMPARE(*doc2.position(doc2.findNode("E")), QPointF(7.5, 1.0));
        QCOMPARE(doc2.toJson().at("notes"), Json("kept for other tools"));
        const QByteArray first = readBytes(a);
        QVERIFY2(file2.save(&error), qPrintable(error));
        QCOMPARE(readBytes(a), first);
    }

    void modifiedFlagAndTitleFollowUndo()
    {
        GraphDocument doc;
        DocumentFile file(doc);
        file.setAutosaveInterval(0);
        QVERIFY(file.open(writeModel(QStringLiteral("m.json"))));
        QSignalSpy modified(&file, &DocumentFile::modifiedChanged);
        QSignalSpy titles(&file, &DocumentFile::windowTitleChanged);
        moveE(doc, 1.0);
        QVERIFY(file.isModified());
        QCOMPARE(file.windowTitle(), QStringLiteral("m.json* \u2014 SpikeStudio"));
        QCOMPARE(modified.size(), 1);
        QCOMPARE(modified.last().at(0).toBool(), true);
        QCOMPARE(titles.last().at(0).toString(), file.windowTitle());
        moveE(doc, 2.0);
        QCOMPARE(modified.size(), 1);  // still modified: no new signal
        doc.undoStack()->undo();
        QVERIFY(file.isModified());
        doc.undoStack()->undo();
        QVERIFY(!file.isModified());
        QCOMPARE(file.windowTitle(), QStringLiteral("m.json \u2014 SpikeStudio"));
        QCOMPARE(modified.last().at(0).toBool(), false);
        doc.undoStack()->redo();
        QVERIFY(file.isModified());
        QVERIFY(file.save());
        QVERIFY(!file.isModified());
        QCOMPARE(modified.last().at(0).toBool(), false);
        doc.undoStack()->undo();  // back past the saved state
        QVERIFY(file.isModified());
        doc.undoStack()->redo();
        QVERIFY(!file.isModified());

        file.newDocument();
        QVERIFY(!file.isModified());
        QVERIFY(file.filePath().isEmpty());
        QCOMPARE(file.windowTitle(), QStringLiteral("Untitled \u2014 SpikeStudio"));
        QCOMPARE(doc.graphNodes(doc.rootId()).size(), std::size_t(0));
        QString error;
        QVERIFY(!file.save(&error));
        QVERIFY(error.contains(QStringLiteral("Save As")));
    }

    void failingSaveKeepsOldFile()
    {
        GraphDocument doc;
        DocumentFile file(doc);
        file.setAutosaveInterval(0);
        const QString target = writeModel(QStringLiteral("big.json"), 80);
        QVERIFY(file.open(target));
        QVERIFY(file.save());
        const QByteArray old = readBytes(target);
        moveE(doc, 3.0);

        // The array folder cannot be created: a plain file is in its way.
        QDir(path(QStringLiteral("big.arrays"))).removeRecursively();
        writeText(path(QStringLiteral("big.arrays")), "not a folder");
        QString error;
        QVERIFY(!file.save(&error));
        QVERIFY2(error.startsWith(target + ": "), qPrintable(error));
        QCOMPARE(readBytes(target), old);
        QVERIFY(file.isModified());

        // The final rename fails: the target name is taken by a folder.
        const QString folder = path(QStringLiteral("folder.json"));
        QVERIFY(QDir().mkpath(folder));
        QVERIFY(!file.saveAs(folder, &error));
        QVERIFY2(error.startsWith(folder + ": "), qPrintable(error));
        QVERIFY(QFileInfo(folder).isDir());
        QCOMPARE(file.filePath(), target);

        // A folder that does not exist.
        const QString missing = path(QStringLiteral("nowhere/x.json"));
        QVERIFY(!file.saveAs(missing, &error));
        QVERIFY2(error.contains(QStringLiteral("does not exist")), qPrintable(error));

        // No temporary file is left behind.
        const QStringList left = QDir(m_dir->path()).entryList(QDir::Files);
        QCOMPARE(left, (QStringList{QStringLiteral("big.arrays"), QStringLiteral("big.json")}));
    }

    void saveOnAFullDiskFails()
    {
        // A full disk, for any user (root included): the process may write no file past 2 KiB
        // (RLIMIT_FSIZE; the write fails with EFBIG, SIGXFSZ ignored), so a model of 80
        // neurons with its array folder cannot be written. The save fails with a message naming
        // the file, the old file stays byte for byte, the document stays modified, and no
        // temporary file is left; with room again the same save succeeds.
        GraphDocument doc;
        DocumentFile file(doc);
        file.setAutosaveInterval(0);
        const QString target = writeModel(QStringLiteral("full.json"), 80);
        QVERIFY(file.open(target));
        QVERIFY(file.save());
        const QByteArray old = readBytes(target);
        QVERIFY(old.size() > 2048 || QDir(path(QStringLiteral("full.arrays"))).exists());
        moveE(doc, 7.0);

        struct rlimit before {};
        QCOMPARE(::getrlimit(RLIMIT_FSIZE, &before), 0);
        const auto previousHandler = std::signal(SIGXFSZ, SIG_IGN);
        struct rlimit tight = before;
        tight.rlim_cur = 2048;
        QCOMPARE(::setrlimit(RLIMIT_FSIZE, &tight), 0);
        QString error;
        const bool saved = file.save(&error);
        ::setrlimit(RLIMIT_FSIZE, &before);
        std::signal(SIGXFSZ, previousHandler);

        QVERIFY(!saved);
        QVERIFY2(error.startsWith(target + ": "), qPrintable(error));
        QCOMPARE(readBytes(target), old);
        QVERIFY(file.isModified());
        const QStringList left = QDir(m_dir->path()).entryList(QDir::Files);
        QCOMPARE(left, (QStringList{QStringLiteral("full.json")}));
        QVERIFY(file.save(&error));
        QVERIFY(!file.isModified());
        QVERIFY(readBytes(target) != old);
    }

    void saveIntoReadOnlyFolderFails()
    {
        // Not enforced for root, who may write anyway: skipped then.
        const QString ro = path(QStringLiteral("ro"));
        QVERIFY(QDir().mkpath(ro));
        const QString roFile = ro + "/small.json";
        QString error;
        GraphDocument small;
        DocumentFile smallFile(small);
        smallFile.setAutosaveInterval(0);
        writeText(roFile, networkModel(4).dump(2));
        QVERIFY(smallFile.open(roFile));
        QVERIFY(smallFile.save());
        const QByteArray roOld = readBytes(roFile);
        QFile::setPermissions(ro, QFileDevice::ReadOwner | QFileDevice::ExeOwner);
        const bool enforced = !QFile(ro + "/probe").open(QIODevice::WriteOnly);
        moveE(small, 4.0);
        const bool saved = smallFile.save(&error);
        QFile::setPermissions(ro, QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                      QFileDevice::ExeOwner);
        if (!enforced) {
            QSKIP("running as a user who may write into read-only folders");
        }
        QVERIFY(!saved);
        QVERIFY2(error.startsWith(roFile + ": "), qPrintable(error));
        QCOMPARE(readBytes(roFile), roOld);
    }

    void recentFilesOrderLimitMissing()
    {
        GraphDocument doc;
        DocumentFile file(doc);
        file.setAutosaveInterval(0);
        QSignalSpy changed(&file, &DocumentFile::recentFilesChanged);
        QStringList paths;
        for (int i = 0; i < 12; ++i) {
            paths << QFileInfo(writeModel(QStringLiteral("r%1.json").arg(i))).absoluteFilePath();
            QVERIFY(file.open(paths.last()));
        }
        QVERIFY(changed.size() >= 12);
        QStringList expected;
        for (int i = 11; i >= 2; --i) {
            expected << paths[i];
        }
        QCOMPARE(file.recentFiles(), expected);

        // Reopening an older file moves it first without duplicating it.
        QVERIFY(file.open(paths[5]));
        expected.removeAll(paths[5]);
        expected.prepend(paths[5]);
        QCOMPARE(file.recentFiles(), expected);

        // Saving under a new name adds it.
        const QString saved = path(QStringLiteral("saved.json"));
        QVERIFY(file.saveAs(saved));
        QCOMPARE(file.recentFiles().front(), saved);
        QCOMPARE(file.recentFiles().size(), DocumentFile::kMaxRecentFiles);

        // Missing files are left out of recentFiles() (the menu) but kept, marked, in
        // recentFileEntries() (the start page shows them as missing).
        const QStringList before = file.recentFiles();
        QVERIFY(QFile::remove(paths[11]));
        QVERIFY(QFile::remove(paths[5]));
        const QStringList after = file.recentFiles();
        QVERIFY(!after.contains(paths[11]));
        QVERIFY(!after.contains(paths[5]));
        QCOMPARE(after.size(), DocumentFile::kMaxRecentFiles - 2);
        const QList<spike::ui::RecentFile> entries = file.recentFileEntries();
        QCOMPARE(entries.size(), DocumentFile::kMaxRecentFiles);
        for (qsizetype i = 0; i < entries.size(); ++i) {
            QCOMPARE(entries[i].path, before[i]);
            QCOMPARE(entries[i].exists, entries[i].path != paths[11] && entries[i].path != paths[5]);
        }
        QCOMPARE(QSettings().value(QStringLiteral("recentFiles")).toStringList(), before);

        // Another controller (another window, the next session) sees the same list.
        GraphDocument other;
        DocumentFile otherFile(other);
        QCOMPARE(otherFile.recentFiles(), after);
        file.clearRecentFiles();
        QVERIFY(otherFile.recentFiles().isEmpty());
    }

    void examplesOpen()
    {
        const QList<ExampleModel> examples = DocumentFile::examples();
        QVERIFY(examples.size() >= 2);
        const QStringList order{QStringLiteral("LIF neuron and a current step"), QStringLiteral("LIF versus LIFRefrac"),
                                QStringLiteral("Rheobase and f-I curve"),
                                QStringLiteral("Parameter sweep: tau_mem against threshold"),
                                QStringLiteral("Poisson-driven LIF layer"), QStringLiteral("Two-layer LIF"),
                                QStringLiteral("CUBA network"), QStringLiteral("Izhikevich firing patterns"),
                                QStringLiteral("LIFRefrac written as equations"),
                                QStringLiteral("COBA network (conductance-based)"), QStringLiteral("Dynamics network driven by a sine input"),
                                QStringLiteral("Dynamics network (reference weights)")};
        qsizetype last = -1;
        GraphDocument doc;
        DocumentFile file(doc);
        file.setAutosaveInterval(0);
        for (const ExampleModel& e : examples) {
            const qsizetype at = order.indexOf(e.title);
            QVERIFY2(at > last, qPrintable(e.title));
            last = at;
            QVERIFY(e.path.startsWith(QStringLiteral(":/examples/")));
            QString error;
            QVERIFY2(file.open(e.path, &error), qPrintable(error));
            QVERIFY(file.filePath().isEmpty());
            QCOMPARE(file.displayName(), QFileInfo(e.path).fileName());
            QVERIFY(!file.isModified());
            QVERIFY(doc.children(doc.rootId()).size() > 0);
        }
        QVERIFY(file.recentFiles().isEmpty());
        QString error;
        QVERIFY(!file.open(QStringLiteral(":/examples/none.json"), &error));
        QVERIFY(error.startsWith(QStringLiteral(":/examples/none.json: ")));
    }

    void autosaveOnlyWhenModified()
    {
        GraphDocument doc;
        DocumentFile file(doc);
        file.setAutosaveInterval(0);
        file.setRecoveryDirectory(path(QStringLiteral("recovery")));
        QVERIFY(file.open(writeModel(QStringLiteral("auto.json"))));
        QVERIFY(!file.autosaveNow());
        QVERIFY(file.recoveryFilePath().isEmpty());
        moveE(doc, 5.0);
        QVERIFY(file.autosaveNow());
        const QString rec = file.recoveryFilePath();
        QVERIFY(QFile::exists(rec));
        QVERIFY(rec.startsWith(path(QStringLiteral("recovery"))));
        const QByteArray written = readBytes(rec);
        QVERIFY(!file.autosaveNow());  // nothing changed since
        QCOMPARE(readBytes(rec), written);
        moveE(doc, 6.0);
        QVERIFY(file.autosaveNow());
        QVERIFY(readBytes(rec) != written);
        // Undoing back to the saved state: the file on disk has it all.
        doc.undoStack()->undo();
        doc.undoStack()->undo();
        QVERIFY(!file.isModified());
        QVERIFY(!file.autosaveNow());
        QVERIFY(!QFile::exists(rec));

        // The timer does the same.
        QSignalSpy autosaved(&file, &DocumentFile::autosaved);
        file.setAutosaveInterval(10);
        QCOMPARE(file.autosaveInterval(), 10);
        moveE(doc, 8.0);
        QTRY_VERIFY(autosaved.size() >= 1);
        QVERIFY(QFile::exists(autosaved.front().at(0).toString()));
        // A clean save removes it.
        QVERIFY(file.save());
        QVERIFY(!QFile::exists(autosaved.front().at(0).toString()));
        QVERIFY(file.recoveryFilePath().isEmpty());
    }

    void recoverAfterCrash()
    {
        const QString recoveryDir = path(QStringLiteral("recovery"));
        const QString original =
            QFileInfo(writeModel(QStringLiteral("crash.json"))).absoluteFilePath();
        std::string content;
        QString crashedFile;
        {
            auto doc = std::make_unique<GraphDocument>();
            auto file = std::make_unique<DocumentFile>(*doc);
            file->setAutosaveInterval(0);
            file->setRecoveryDirectory(recoveryDir);
            QVERIFY(file->open(original));
            moveE(*doc, 42.0);
            QVERIFY(file->autosaveNow());
            crashedFile = file->recoveryFilePath();
            content = doc->toJson().dump();

            // While that session runs, nobody else is offered its file.
            GraphDocument other;
            DocumentFile otherFile(other);
            otherFile.setAutosaveInterval(0);
            otherFile.setRecoveryDirectory(recoveryDir);
            QVERIFY(otherFile.recoveryCandidates().isEmpty());
            // The crash: gone without close().
            file.reset();
        }
        QVERIFY(QFile::exists(crashedFile));

        GraphDocument doc;
        DocumentFile file(doc);
        file.setAutosaveInterval(0);
        file.setRecoveryDirectory(recoveryDir);
        const QList<RecoveryCandidate> candidates = file.recoveryCandidates();
        QCOMPARE(candidates.size(), 1);
        QCOMPARE(candidates[0].recoveryPath, crashedFile);
        QCOMPARE(candidates[0].originalPath, original);
        QVERIFY(candidates[0].savedAt.isValid());
        QVERIFY(candidates[0].savedAt <= QDateTime::currentDateTimeUtc());
        QString error;
        QVERIFY2(file.recover(candidates[0], &error), qPrintable(error));
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(doc.toJson().dump(), content);
        QVERIFY(file.isModified());
        QCOMPARE(file.filePath(), original);
        QCOMPARE(file.windowTitle(), QStringLiteral("crash.json* \u2014 SpikeStudio"));
        QVERIFY(!QFile::exists(crashedFile));
        QVERIFY(QFile::exists(file.recoveryFilePath()));
        QVERIFY(file.recoveryCandidates().isEmpty());
        // Saving the recovered document writes it to its original file.
        QVERIFY(file.save());
        GraphDocument check;
        check.load(QFile::encodeName(original).toStdString());
        QCOMPARE(check.toJson().dump(), content);

        // A file that is not a recovery file is not offered.
        writeText(recoveryDir + "/junk.recovery.json", "{\"format\": \"other\"}");
        QVERIFY(file.recoveryCandidates().isEmpty());
    }

    void cleanCloseRemovesRecovery()
    {
        const QString recoveryDir = path(QStringLiteral("recovery"));
        {
            GraphDocument doc;
            DocumentFile file(doc);
            file.setAutosaveInterval(0);
            file.setRecoveryDirectory(recoveryDir);
            QVERIFY(file.open(writeModel(QStringLiteral("close.json"))));
            moveE(doc, 9.0);
            QVERIFY(file.autosaveNow());
            QVERIFY(QFile::exists(file.recoveryFilePath()));
            file.close();
            QVERIFY(file.recoveryFilePath().isEmpty());
        }
        QVERIFY(QDir(recoveryDir).entryList(QDir::Files | QDir::Hidden).isEmpty());
        GraphDocument doc;
        DocumentFile file(doc);
        file.setRecoveryDirectory(recoveryDir);
        QVERIFY(file.recoveryCandidates().isEmpty());
    }
};

QTEST_MAIN(TestDocumentFile)
#include "test_document_file.moc"
