// DocumentFile: open/save/recent files/examples/autosave for one GraphDocument. See
// document_file.hpp and docs/editor-files.md.
#include "ui/document/document_file.hpp"

#include "ui/document/off_thread.hpp"

#include "engine/tensor/error.hpp"
#include "engine/io/model_io.hpp"
#include "engine/network/network.hpp"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLockFile>
#include <QSaveFile>
#include <QSettings>
#include <QStandardPaths>
#include <QUuid>

#include <algorithm>
#include <exception>
#include <filesystem>

namespace spike::ui {

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

constexpr const char* kRecoveryFormat = "spikestudio.recovery";
constexpr int kRecoveryVersion = 1;
constexpr const char* kRecoverySuffix = ".recovery.json";

std::string nativePath(const QString& path)
{
    return QFile::encodeName(path).toStdString();
}

void setError(QString* error, const QString& message)
{
    if (error != nullptr) {
        *error = message;
    }
}

/// The lock guarding a recovery file while its session runs.
QString lockPathFor(const QString& recoveryPath)
{
    return recoveryPath + QStringLiteral(".lock");
}

/// Reads a recovery file; throws engine::Error naming it.
Json readRecovery(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        throw engine::Error(nativePath(path) + ": cannot open: " +
                            file.errorString().toStdString());
    }
    const QByteArray text = file.readAll();
    Json j = Json::parse(text.constBegin(), text.constEnd(), nullptr, false);
    if (j.is_discarded() || !j.is_object() || j.value("format", Json()) != kRecoveryFormat ||
        !j.contains("document") || !j.at("document").is_object()) {
        throw engine::Error(nativePath(path) + ": not a SpikeStudio recovery file");
    }
    return j;
}

}  // namespace

DocumentFile::DocumentFile(GraphDocument& document, QObject* parent)
    : QObject(parent), m_document(document)
{
    m_recoveryDir = QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation) +
                    QStringLiteral("/recovery");
    m_lastModified = isModified();
    QUndoStack* undo = m_document.undoStack();
    connect(undo, &QUndoStack::cleanChanged, this, [this](bool) {
        noteChange();
        const bool modified = isModified();
        if (modified != m_lastModified) {
            m_lastModified = modified;
            Q_EMIT modifiedChanged(modified);
            emitTitle();
        }
    });
    // Every edit (merged attribute edits included, which leave the index alone) marks the
    // document as changed since the last autosave.
    connect(undo, &QUndoStack::indexChanged, this, [this](int) { noteChange(); });
    connect(&m_document, &GraphDocument::attributeChanged, this, [this] { noteChange(); });
    connect(&m_document, &GraphDocument::nodeMoved, this, [this] { noteChange(); });
    connect(&m_document, &GraphDocument::nodeRenamed, this, [this] { noteChange(); });
    connect(&m_document, &GraphDocument::subtreeInserted, this, [this] { noteChange(); });
    connect(&m_document, &GraphDocument::subtreeRemoved, this, [this] { noteChange(); });
    connect(&m_document, &GraphDocument::connectionAdded, this, [this] { noteChange(); });
    connect(&m_document, &GraphDocument::connectionRemoved, this, [this] { noteChange(); });
    connect(&m_document, &GraphDocument::connectionRenamed, this, [this] { noteChange(); });
    connect(&m_autosaveTimer, &QTimer::timeout, this, [this] { autosaveNow(); });
    setAutosaveInterval(kDefaultAutosaveIntervalMs);
}

DocumentFile::~DocumentFile() = default;

// ---- state ---------------------------------------------------------------------------------

QString DocumentFile::displayName() const
{
    if (!m_filePath.isEmpty()) {
        return QFileInfo(m_filePath).fileName();
    }
    return m_displayName.isEmpty() ? tr("Untitled") : m_displayName;
}

bool DocumentFile::isModified() const
{
    return !m_document.undoStack()->isClean();
}

QString DocumentFile::windowTitle() const
{
    return displayName() + (isModified() ? QStringLiteral("*") : QString()) +
           QStringLiteral(" \u2014 SpikeStudio");
}

void DocumentFile::emitTitle()
{
    Q_EMIT windowTitleChanged(windowTitle());
}

void DocumentFile::setFile(const QString& path, const QString& displayName)
{
    m_filePath = path;
    m_displayName = displayName;
    Q_EMIT filePathChanged(m_filePath);
    emitTitle();
}

// ---- file operations -----------------------------------------------------------------------

void DocumentFile::newDocument()
{
    m_document.reset(std::make_unique<engine::Network>());
    removeRecoveryFile();
    m_changedSinceAutosave = false;
    setFile({}, {});
}

bool DocumentFile::opensAsCopy(const QString& path)
{
    const QFileInfo info(path);
    // The mode bits too: for root, isWritable() is true of a read-only file.
    constexpr auto kWriteBits = QFileDevice::WriteOwner | QFileDevice::WriteGroup | QFileDevice::WriteOther;
    if (!info.isWritable() || (info.permissions() & kWriteBits) == 0) {
        return true;
    }
    // A bundled example opened by path (the README's first command, an installed copy): the same
    // bytes as the resource of that name.
    QFile example(QStringLiteral(":/examples/") + info.fileName());
    QFile file(path);
    return example.open(QIODevice::ReadOnly) && file.open(QIODevice::ReadOnly) &&
           example.readAll() == file.readAll();
}

namespace {

/// Reads and builds the model of `path` (thread-safe: touches no object but its arguments).
/// Returns "" or the message of what is wrong with the file.
QString readModelFile(const QString& path, bool bundled, engine::ModelDocument& out)
{
    try {
        if (bundled) {
            QFile file(path);
            if (!file.open(QIODevice::ReadOnly)) {
                return path + QStringLiteral(": no such bundled model");
            }
            const QByteArray text = file.readAll();
            const Json doc = Json::parse(text.constBegin(), text.constEnd());
            out = engine::modelFromJson(doc, path.toStdString(), ".");
        } else {
            out = engine::loadModelDocument(nativePath(path));
        }
    } catch (const Json::parse_error& e) {
        return path + QStringLiteral(": invalid JSON: ") + QString::fromStdString(e.what());
    } catch (const engine::Error& e) {
        return QString::fromStdString(e.what());  // the engine's messages start with the file name
    } catch (const std::exception& e) {
        return path + QStringLiteral(": ") + QString::fromStdString(e.what());
    }
    return {};
}

}  // namespace

bool DocumentFile::open(const QString& path, QString* error)
{
    const bool bundled = path.startsWith(QStringLiteral(":/"));
    engine::ModelDocument model;
    QString message;
    runOffThread(tr("Opening %1").arg(QFileInfo(path).fileName()),  // the window keeps drawing
                 [&] { message = readModelFile(path, bundled, model); });
    if (message.isEmpty()) {
        try {
            m_document.reset(std::move(model.root), model.extras);
        } catch (const engine::Error& e) {
            message = path + QStringLiteral(": ") + QString::fromStdString(e.what());
        }
    }
    if (!message.isEmpty()) {
        setError(error, message);
        return false;
    }
    removeRecoveryFile();
    m_changedSinceAutosave = false;
    if (bundled || opensAsCopy(path)) {
        setFile({}, QFileInfo(path).fileName());
    } else {
        const QString absolute = QFileInfo(path).absoluteFilePath();
        setFile(absolute, {});
        addRecentFile(absolute);
    }
    return true;
}

bool DocumentFile::openNir(const QString& path, const engine::nir::NirImportOptions& options,
                           QStringList* notes, QString* error)
{
    engine::nir::NirImport imported;
    QString message;
    runOffThread(tr("Opening %1").arg(QFileInfo(path).fileName()), [&] {
        try {
            imported = engine::nir::loadNir(nativePath(path), options);
        } catch (const engine::Error& e) {
            message = QString::fromStdString(e.what());  // the engine's messages start with the file name
        } catch (const std::exception& e) {
            message = path + QStringLiteral(": ") + QString::fromStdString(e.what());
        }
    });
    if (message.isEmpty()) {
        try {
            m_document.reset(std::move(imported.root));
        } catch (const engine::Error& e) {
            message = path + QStringLiteral(": ") + QString::fromStdString(e.what());
        }
    }
    if (!message.isEmpty()) {
        setError(error, message);
        return false;
    }
    if (notes != nullptr) {
        notes->clear();
        for (const std::string& note : imported.notes) {
            notes->append(QString::fromStdString(note));
        }
    }
    removeRecoveryFile();
    m_changedSinceAutosave = false;
    setFile({}, QFileInfo(path).fileName());  // untitled: Save asks for a .json name
    addRecentFile(QFileInfo(path).absoluteFilePath());
    return true;
}

bool DocumentFile::writeTo(const QString& path, QString* error) const
{
    const fs::path target(nativePath(path));
    const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
        setError(error, path + QStringLiteral(": cannot write: folder %1 does not exist")
                                   .arg(QFile::decodeName(dir.string().c_str())));
        return false;
    }
    // Open first: a folder we may not write to fails before any array file is touched.
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        setError(error, path + QStringLiteral(": cannot write: ") + file.errorString());
        return false;
    }
    QByteArray text;
    try {
        const Json full = m_document.toJson();
        Json extras = Json::object();
        for (const auto& [key, value] : full.items()) {
            if (key != "format" && key != "version" && key != "model") {
                extras[key] = value;
            }
        }
        const fs::path arrayDir = dir / (target.stem().string() + ".arrays");
        const Json doc = engine::modelToJson(m_document.root(), {}, dir.string(),
                                             arrayDir.string(), extras);
        text = QByteArray::fromStdString(doc.dump(2) + "\n");
    } catch (const std::exception& e) {
        file.cancelWriting();
        setError(error, path + QStringLiteral(": ") + QString::fromStdString(e.what()));
        return false;
    }
    if (file.write(text) != text.size()) {
        file.cancelWriting();
        setError(error, path + QStringLiteral(": write failed: ") + file.errorString());
        return false;
    }
    if (!file.commit()) {
        setError(error, path + QStringLiteral(": cannot replace file: ") + file.errorString());
        return false;
    }
    return true;
}

bool DocumentFile::save(QString* error)
{
    if (m_filePath.isEmpty()) {
        setError(error, tr("%1: the document has no file yet; use Save As").arg(displayName()));
        return false;
    }
    return saveAs(m_filePath, error);
}

bool DocumentFile::saveAs(const QString& path, QString* error)
{
    if (!writeTo(path, error)) {
        return false;
    }
    const QString absolute = QFileInfo(path).absoluteFilePath();
    m_document.undoStack()->setClean();
    removeRecoveryFile();
    m_changedSinceAutosave = false;
    if (absolute != m_filePath) {
        setFile(absolute, {});
    }
    addRecentFile(absolute);
    return true;
}

void DocumentFile::close()
{
    m_autosaveTimer.stop();
    removeRecoveryFile();
}

// ---- autosave and recovery -----------------------------------------------------------------

void DocumentFile::setAutosaveInterval(int milliseconds)
{
    m_autosaveIntervalMs = milliseconds;
    if (milliseconds > 0) {
        m_autosaveTimer.start(milliseconds);
    } else {
        m_autosaveTimer.stop();
    }
}

void DocumentFile::setRecoveryDirectory(const QString& directory)
{
    removeRecoveryFile();
    m_recoveryDir = directory;
    m_changedSinceAutosave = true;
}

void DocumentFile::removeRecoveryFile()
{
    if (m_recoveryPath.isEmpty()) {
        return;
    }
    QFile::remove(m_recoveryPath);
    m_recoveryLock.reset();
    m_recoveryPath.clear();
}

bool DocumentFile::autosaveNow()
{
    if (!isModified()) {
        removeRecoveryFile();
        return false;
    }
    if (!m_changedSinceAutosave && !m_recoveryPath.isEmpty()) {
        return false;
    }
    if (m_recoveryPath.isEmpty()) {
        if (!QDir().mkpath(m_recoveryDir)) {
            Q_EMIT autosaveFailed(m_recoveryDir + QStringLiteral(": cannot create the folder"));
            return false;
        }
        const QString path = QDir(m_recoveryDir).filePath(
            QUuid::createUuid().toString(QUuid::WithoutBraces) + QLatin1String(kRecoverySuffix));
        auto lock = std::make_unique<QLockFile>(lockPathFor(path));
        if (!lock->tryLock(0)) {
            Q_EMIT autosaveFailed(path + QStringLiteral(": cannot lock the recovery file"));
            return false;
        }
        m_recoveryLock = std::move(lock);
        m_recoveryPath = path;
    }
    QSaveFile file(m_recoveryPath);
    QString message;
    if (file.open(QIODevice::WriteOnly)) {
        try {
            const Json j{{"format", kRecoveryFormat},
                         {"version", kRecoveryVersion},
                         {"original_path", m_filePath.toStdString()},
                         {"display_name", displayName().toStdString()},
                         {"saved_at", QDateTime::currentDateTimeUtc()
                                          .toString(Qt::ISODateWithMs)
                                          .toStdString()},
                         {"document", m_document.toJson()}};
            const QByteArray text = QByteArray::fromStdString(j.dump() + "\n");
            if (file.write(text) != text.size() || !file.commit()) {
                message = m_recoveryPath + QStringLiteral(": ") + file.errorString();
            }
        } catch (const std::exception& e) {
            file.cancelWriting();
            message = m_recoveryPath + QStringLiteral(": ") + QString::fromStdString(e.what());
        }
    } else {
        message = m_recoveryPath + QStringLiteral(": cannot write: ") + file.errorString();
    }
    if (!message.isEmpty()) {
        Q_EMIT autosaveFailed(message);
        return false;
    }
    m_changedSinceAutosave = false;
    Q_EMIT autosaved(m_recoveryPath);
    return true;
}

QList<RecoveryCandidate> DocumentFile::recoveryCandidates() const
{
    QList<RecoveryCandidate> out;
    const QDir dir(m_recoveryDir);
    const QStringList names = dir.entryList({QStringLiteral("*") + QLatin1String(kRecoverySuffix)},
                                            QDir::Files, QDir::Name);
    for (const QString& name : names) {
        const QString path = dir.filePath(name);
        if (path == m_recoveryPath) {
            continue;
        }
        // A running session holds the lock; a crashed one left a stale lock (or none).
        QLockFile lock(lockPathFor(path));
        if (!lock.tryLock(0)) {
            continue;
        }
        lock.unlock();
        try {
            const Json j = readRecovery(path);
            RecoveryCandidate c;
            c.recoveryPath = path;
            c.originalPath = QString::fromStdString(j.value("original_path", std::string()));
            c.savedAt = QDateTime::fromString(
                QString::fromStdString(j.value("saved_at", std::string())), Qt::ISODateWithMs);
            if (!c.savedAt.isValid()) {
                c.savedAt = QFileInfo(path).lastModified().toUTC();
            }
            out << c;
        } catch (const std::exception&) {
            // Not a recovery file we wrote (or a truncated one): nothing to offer.
        }
    }
    std::sort(out.begin(), out.end(), [](const RecoveryCandidate& a, const RecoveryCandidate& b) {
        return a.savedAt > b.savedAt;
    });
    return out;
}

bool DocumentFile::recover(const RecoveryCandidate& candidate, QString* error)
{
    QString displayName;
    try {
        const Json j = readRecovery(candidate.recoveryPath);
        const QString original = candidate.originalPath;
        const std::string baseDir =
            original.isEmpty() ? std::string(".") : nativePath(QFileInfo(original).absolutePath());
        displayName = QString::fromStdString(j.value("display_name", std::string()));
        m_document.fromJson(j.at("document"), nativePath(candidate.recoveryPath), baseDir);
    } catch (const std::exception& e) {
        setError(error, QString::fromStdString(e.what()));
        return false;
    }
    removeRecoveryFile();
    setFile(candidate.originalPath, candidate.originalPath.isEmpty() ? displayName : QString());
    m_document.undoStack()->resetClean();
    m_changedSinceAutosave = true;
    if (!autosaveNow()) {
        // Keep the crashed session's file: it is the only copy on disk of the recovered work.
        setError(error, candidate.recoveryPath +
                            QStringLiteral(": recovered, but could not be copied to a new "
                                           "recovery file; it is kept"));
        return true;
    }
    discardRecovery(candidate);
    return true;
}

bool DocumentFile::discardRecovery(const RecoveryCandidate& candidate)
{
    QFile::remove(lockPathFor(candidate.recoveryPath));
    return QFile::remove(candidate.recoveryPath);
}

}  // namespace spike::ui
