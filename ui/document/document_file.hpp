// DocumentFile: the file side of the editor for one GraphDocument, as a controller without
// widgets (the main window puts menus and dialogs on top of it).
//
// Owns: the document's file path (empty: untitled), the modified flag (derived from the undo
// stack's clean state), the recent-files list (QSettings key "recentFiles"), the autosave timer
// and this session's recovery file with its lock. Does not own the GraphDocument.
// Invariants: a failed open/save/recover leaves the document, the path and the file on disk as
// they were; isModified() == !undoStack()->isClean(); a recovery file exists only while the
// document has changes that are in no saved file, and it is locked (QLockFile) while this object
// lives, so another session never offers it for recovery.
// File format: the engine's JSON model format (docs/model-format.md) with the editor's "layout"
// extras; arrays larger than engine::SaveOptions::inlineLimit go to "<stem>.arrays/*.npy" as
// engine::saveModel writes them. See docs/editor-files.md.
// Thread: GUI thread only (QTimer, QSettings, the document's signals); open() reads the file on
// a worker thread of its own and waits for it.
#pragma once

#include "ui/document/graph_document.hpp"

#include "engine/nir/nir_import.hpp"

#include <QDateTime>
#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <memory>

class QLockFile;

namespace spike::ui {

/// One bundled example model.
struct ExampleModel {
    QString title;      ///< menu text, e.g. "Two-layer LIF"
    QString path;       ///< Qt resource path, e.g. ":/examples/two_layer_lif.json"
    QString summary;    ///< one line on what it shows: the file's top-level "description"; may be empty
    QString thumbnail;  ///< ":/examples/thumbnails/NAME.png"; empty when none is compiled in
};

/// One entry of the recent-files list.
struct RecentFile {
    QString path;         ///< absolute path
    bool exists = false;  ///< false: moved or deleted since it was opened
};

/// A recovery file left by a session that ended without closing its document.
struct RecoveryCandidate {
    QString recoveryPath;  ///< the recovery file
    QString originalPath;  ///< the file the document was opened from / saved to; empty: untitled
    QDateTime savedAt;     ///< when it was autosaved (UTC)
};

/// The editor's file handling for one GraphDocument; see the file comment.
class DocumentFile : public QObject {
    Q_OBJECT

public:
    /// Most entries kept in the recent-files list.
    static constexpr int kMaxRecentFiles = 10;
    /// Default autosave period [ms].
    static constexpr int kDefaultAutosaveIntervalMs = 60'000;

    /// Manages `document` (which must outlive this object). Recovery files go to
    /// QStandardPaths::AppLocalDataLocation + "/recovery" unless setRecoveryDirectory() says
    /// otherwise. The autosave timer starts at once.
    explicit DocumentFile(GraphDocument& document, QObject* parent = nullptr);
    /// Keeps the recovery file (a session ending without close() looks like a crash) but
    /// releases its lock.
    ~DocumentFile() override;

    GraphDocument& document() const { return m_document; }

    // ---- state ----------------------------------------------------------------------------
    /// Absolute path of the document's file; empty for an untitled document.
    QString filePath() const { return m_filePath; }
    /// File name shown to the user: the file's name, an example's file name, or "Untitled".
    QString displayName() const;
    /// The document has changes that are not in its file.
    bool isModified() const;
    /// "name* — SpikeStudio" (the star only when modified).
    QString windowTitle() const;

    // ---- file operations (each returns false and sets *error to one line on failure) ------
    /// Replaces the document by an empty Network; untitled, unmodified.
    void newDocument();
    /// Loads a model file (or a ":/..." bundled example, which opens untitled) into the
    /// document. On failure the document is untouched and *error is the engine's message
    /// ("<file>: <json pointer>: <problem>"). A file on disk joins the recent files. A file
    /// that opensAsCopy() opens untitled too, so that Save asks where to write.
    /// Reading and building the model (JSON, .npy arrays, initialisers) runs on a worker
    /// thread while this thread's event loop keeps turning without user input (the window
    /// repaints, timers run, clicks wait): a large model never freezes the window, and nothing
    /// can change the document meanwhile (runOffThread(), which tells the status bar).
    bool open(const QString& path, QString* error = nullptr);
    /// Imports the NIR file at `path` (engine::nir::loadNir with `options`) into the document,
    /// read on a worker thread as open() reads. The document opens untitled under the file's
    /// name ("model.nir"), so Save asks for a JSON file and never writes over the .nir; the .nir
    /// joins the recent files. On failure the document is untouched and *error is the engine's
    /// one line. `notes` receives what the import adapted (renamed nodes, defaults filled in).
    bool openNir(const QString& path, const engine::nir::NirImportOptions& options,
                 QStringList* notes = nullptr, QString* error = nullptr);
    /// Whether the file at `path` opens as an untitled copy: it is read-only, or it is a bundled
    /// example (the same bytes as ":/examples/<its name>"), so that saving never overwrites it.
    static bool opensAsCopy(const QString& path);
    /// Writes the document to filePath(); fails for an untitled document.
    bool save(QString* error = nullptr);
    /// Writes the document to `path` and makes it the document's file.
    bool saveAs(const QString& path, QString* error = nullptr);
    /// A normal end of the session for this document: stops autosaving and removes the
    /// recovery file. The caller has already asked the user about unsaved changes.
    void close();

    // ---- recent files and examples --------------------------------------------------------
    /// Recent files that exist, most recent first, at most kMaxRecentFiles.
    QStringList recentFiles() const;
    /// The whole recent-files list, most recent first, at most kMaxRecentFiles, with the files
    /// that no longer exist marked (the start page shows them as missing): a missing file stays
    /// listed until newer files push it off the end or the list is cleared.
    QList<RecentFile> recentFileEntries() const;
    /// Puts `path` first in the recent files.
    void addRecentFile(const QString& path);
    void clearRecentFiles();
    /// The bundled examples, in menu order (the teaching demos first: "LIF neuron and a current
    /// step", "LIF versus LIFRefrac", "Poisson-driven LIF layer", then "Two-layer LIF", "CUBA
    /// network", "Dynamics network"); an example whose resource is not compiled in is left out.
    /// Each summary is read from its file's "description" once per process.
    static QList<ExampleModel> examples();

    // ---- autosave and recovery ------------------------------------------------------------
    /// Autosave period [ms]; 0 or less stops autosaving.
    void setAutosaveInterval(int milliseconds);
    int autosaveInterval() const { return m_autosaveIntervalMs; }
    /// Where recovery files are written and looked for (created when needed).
    void setRecoveryDirectory(const QString& directory);
    QString recoveryDirectory() const { return m_recoveryDir; }
    /// This session's recovery file path (empty until the first autosave writes one).
    QString recoveryFilePath() const { return m_recoveryPath; }
    /// What the timer does: writes the recovery file when the document is modified and changed
    /// since the last autosave (returns true when it wrote); removes it when the document is
    /// unmodified. A failure emits autosaveFailed().
    bool autosaveNow();
    /// Recovery files left by sessions that did not close normally (not the ones of running
    /// sessions, nor this one's), newest first.
    QList<RecoveryCandidate> recoveryCandidates() const;
    /// Loads a recovery file as a modified document with its original path; the recovered
    /// content is written to this session's recovery file before the old one is removed (when
    /// that copy fails it returns true, keeps the old file and sets *error to say so).
    bool recover(const RecoveryCandidate& candidate, QString* error = nullptr);
    /// Deletes a recovery file the user chose not to recover.
    static bool discardRecovery(const RecoveryCandidate& candidate);

Q_SIGNALS:
    /// isModified() changed.
    void modifiedChanged(bool modified);
    /// filePath() or displayName() changed.
    void filePathChanged(const QString& path);
    /// windowTitle() changed.
    void windowTitleChanged(const QString& title);
    /// The recent-files list changed.
    void recentFilesChanged();
    /// A recovery file was written to `path`.
    void autosaved(const QString& path);
    /// Writing the recovery file failed (one line).
    void autosaveFailed(const QString& message);

private:
    bool writeTo(const QString& path, QString* error) const;
    void setFile(const QString& path, const QString& displayName);
    void removeRecoveryFile();
    void noteChange() { m_changedSinceAutosave = true; }
    void emitTitle();

    GraphDocument& m_document;
    QString m_filePath;
    QString m_displayName;            ///< name of an untitled document opened from an example
    QString m_recoveryDir;
    QString m_recoveryPath;           ///< this session's recovery file; empty: none written
    std::unique_ptr<QLockFile> m_recoveryLock;
    bool m_changedSinceAutosave = false;
    bool m_lastModified = false;      ///< last isModified() announced
    int m_autosaveIntervalMs = kDefaultAutosaveIntervalMs;
    QTimer m_autosaveTimer;
};

}  // namespace spike::ui
