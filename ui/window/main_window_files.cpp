// MainWindow: the file commands with their dialogs - open (the recent-files menu, the Open
// dialog, a chosen path routed to the model or the NIR import), New, Save and Save As, the
// exports of a plot and of the recordings - the prompt to save unsaved changes, the close and the
// recovery offer after a crash. The public openModel() and openModelFromJson() open no dialog.
// Thread: GUI thread only. See main_window.hpp.
#include "ui/window/main_window.hpp"

#include "ui/run/run_session.hpp"

#include "ui/document/document_file.hpp"
#include "ui/plots/plot_export.hpp"
#include "ui/plots/raster_plot.hpp"
#include "ui/plots/trace_plot.hpp"

#include <QAction>
#include <QCloseEvent>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLocale>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QStatusBar>

namespace spike::ui {

bool MainWindow::openModel(const QString& path, QString* error)
{
    if (engine::nir::isNirPath(path.toStdString())) {
        return openNir(path, engine::nir::NirImportOptions{}, error);
    }
    QString message;
    if (!m_file->open(path, &message)) {
        statusBar()->showMessage(tr("Could not open %1: %2").arg(path, message));
        if (error != nullptr) {
            *error = message;
        }
        return false;
    }
    m_source = path;
    QString opened = tr("Opened %1: %L2 modules").arg(QFileInfo(path).fileName()).arg(m_doc->root().namedModules().size());
    if (!m_timeStepConflict.empty()) {  // what showTimeStep() said while loading; this replaces it
        opened += tr(" · Warning: %1").arg(QString::fromStdString(m_timeStepConflict));
    }
    statusBar()->showMessage(opened);
    return true;
}

bool MainWindow::openModelFromJson(const QByteArray& text, const QString& sourceName, QString* error)
{
    QString message;
    try {
        const nlohmann::json doc = nlohmann::json::parse(text.constBegin(), text.constEnd());
        m_doc->fromJson(doc, sourceName.toStdString(), ".");
        m_source = sourceName;
        return true;
    } catch (const nlohmann::json::parse_error& e) {
        message = tr("%1: invalid JSON at byte %2 (%3)").arg(sourceName).arg(e.byte).arg(QString::fromUtf8(e.what()));
    } catch (const engine::Error& e) {
        message = QString::fromUtf8(e.what());
    }
    statusBar()->showMessage(tr("Could not open %1: %2").arg(sourceName, message));
    if (error != nullptr) {
        *error = message;
    }
    return false;
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList recent = m_file->recentFiles();
    for (const QString& path : recent) {
        QAction* a = m_recentMenu->addAction(QFileInfo(path).fileName());
        a->setStatusTip(path);
        a->setToolTip(path);
        connect(a, &QAction::triggered, this, [this, path] { openInteractively(path); });
    }
    if (recent.isEmpty()) {
        m_recentMenu->addAction(tr("(no recent files)"))->setEnabled(false);
    } else {
        m_recentMenu->addSeparator();
        connect(m_recentMenu->addAction(tr("Clear Menu")), &QAction::triggered, m_file, &DocumentFile::clearRecentFiles);
    }
}

void MainWindow::promptOpen()
{
    if (!maybeSave()) {
        return;
    }
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open model"), m_lastDir,
        tr("All models (*.json *.nir);;SpikeStudio models (*.json);;NIR files (*.nir);;All files (*)"));
    if (path.isEmpty()) {
        return;
    }
    m_lastDir = QFileInfo(path).absolutePath();
    openFileChosen(path);
}

void MainWindow::openInteractively(const QString& path)
{
    if (!maybeSave()) {
        return;
    }
    openFileChosen(path);
}

void MainWindow::openFileChosen(const QString& path)
{
    if (engine::nir::isNirPath(path.toStdString())) {
        openNirInteractively(path);
        return;
    }
    QString error;
    if (!openModel(path, &error)) {
        QMessageBox::warning(this, tr("Could not open model"), error);
    }
}

void MainWindow::newInteractively()
{
    if (maybeSave()) {
        m_file->newDocument();
        m_source.clear();
        statusBar()->showMessage(tr("New network: drag modules from the palette onto the canvas"));
    }
}

bool MainWindow::saveInteractively()
{
    if (m_file->filePath().isEmpty()) {
        return saveAsInteractively();
    }
    QString error;
    if (!m_file->save(&error)) {
        QMessageBox::warning(this, tr("Could not save"), error);
        return false;
    }
    statusBar()->showMessage(tr("Saved %1").arg(m_file->filePath()));
    return true;
}

bool MainWindow::saveAsInteractively()
{
    // An untitled document opened from "model.nir" proposes "model.json" beside it.
    const QFileInfo shown(m_file->displayName());
    const QString name = shown.suffix() == QLatin1String("json") ? shown.fileName()
                         : shown.suffix().compare(QLatin1String("nir"), Qt::CaseInsensitive) == 0
                             ? shown.completeBaseName() + QStringLiteral(".json")
                             : shown.fileName() + QStringLiteral(".json");
    const QString start = m_file->filePath().isEmpty() ? QDir(m_lastDir).filePath(name) : m_file->filePath();
    QString path = QFileDialog::getSaveFileName(this, tr("Save model as"), start, tr("SpikeStudio models (*.json)"));
    if (path.isEmpty()) {
        return false;
    }
    if (QFileInfo(path).suffix().isEmpty()) {
        path += QStringLiteral(".json");
    }
    if (engine::nir::isNirPath(path.toStdString())) {
        // Save writes the JSON model format; a .nir name would hide JSON behind NIR's extension.
        QMessageBox::warning(this, tr("Could not save"),
                             tr("%1: Save writes a SpikeStudio model (.json); use File ▸ Export ▸ NIR… "
                                "for a NIR file").arg(QDir::toNativeSeparators(path)));
        return false;
    }
    m_lastDir = QFileInfo(path).absolutePath();
    QString error;
    if (!m_file->saveAs(path, &error)) {
        QMessageBox::warning(this, tr("Could not save"), error);
        return false;
    }
    statusBar()->showMessage(tr("Saved %1").arg(path));
    return true;
}

void MainWindow::exportPlotInteractively(QCustomPlot* plot, const QString& suffix)
{
    const QString name = plot == static_cast<QCustomPlot*>(m_rasterPlot) ? QStringLiteral("raster") : QStringLiteral("traces");
    QString path = QFileDialog::getSaveFileName(this, tr("Export plot"), QDir(m_lastDir).filePath(name + QLatin1Char('.') + suffix),
                                                tr("%1 files (*.%2)").arg(suffix.toUpper(), suffix));
    if (path.isEmpty()) {
        return;
    }
    if (QFileInfo(path).suffix().isEmpty()) {
        path += QLatin1Char('.') + suffix;
    }
    m_lastDir = QFileInfo(path).absolutePath();
    if (auto* traces = qobject_cast<TracePlot*>(plot)) {
        traces->prepareExport();  // a density pane writes every sample, not only its cells
    }
    QString error;
    if (!exportPlot(*plot, path, &error)) {
        QMessageBox::warning(this, tr("Could not export the plot"), error);
        return;
    }
    statusBar()->showMessage(tr("Exported %1").arg(path));
}

void MainWindow::exportRecordingsInteractively()
{
    const engine::Recording* recording = lastRecording();
    if (recording == nullptr) {
        QMessageBox::information(this, tr("Nothing to export"), tr("Run the model first: there is no recording yet."));
        return;
    }
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Export recordings into"), m_lastDir);
    if (dir.isEmpty()) {
        return;
    }
    m_lastDir = dir;
    QString error;
    const QStringList files = exportRecording(*recording, dir, &error);
    if (files.isEmpty()) {
        QMessageBox::warning(this, tr("Could not export the recordings"), error);
        return;
    }
    statusBar()->showMessage(tr("Wrote %n .npy file(s) to %1", nullptr, static_cast<int>(files.size())).arg(dir));
}

bool MainWindow::maybeSave()
{
    if (!m_file->isModified()) {
        return true;
    }
    QMessageBox box(QMessageBox::Warning, tr("Unsaved changes"),
                    tr("%1 has changes that are not saved.").arg(m_file->displayName()),
                    QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, this);
    box.setInformativeText(tr("Save them before going on?"));
    // Return must neither overwrite a file nor throw work away: the default is Cancel.
    box.setDefaultButton(QMessageBox::Cancel);
    switch (box.exec()) {
    case QMessageBox::Save: return saveInteractively();
    case QMessageBox::Discard: return true;
    default: return false;
    }
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!maybeSave()) {
        event->ignore();
        return;
    }
    undoAutomaticRunLayout();  // the next start opens in the layout the user chose
    saveWindowState();
    m_session->shutdown();
    m_file->close();
    event->accept();
}

void MainWindow::offerRecovery()
{
    for (const RecoveryCandidate& candidate : m_file->recoveryCandidates()) {
        const QString original = candidate.originalPath.isEmpty() ? tr("an untitled model") : candidate.originalPath;
        QMessageBox box(QMessageBox::Question, tr("Recover unsaved work?"),
                        tr("SpikeStudio did not close normally. Changes to %1 were autosaved at %2.")
                            .arg(original, QLocale().toString(candidate.savedAt.toLocalTime(), QLocale::ShortFormat)),
                        QMessageBox::NoButton, this);
        QPushButton* recover = box.addButton(tr("Recover"), QMessageBox::AcceptRole);
        QPushButton* discard = box.addButton(tr("Discard"), QMessageBox::DestructiveRole);
        box.addButton(tr("Later"), QMessageBox::RejectRole);
        box.setDefaultButton(recover);
        box.exec();
        if (box.clickedButton() == recover) {
            QString error;
            if (!m_file->recover(candidate, &error)) {
                QMessageBox::warning(this, tr("Could not recover"), error);
                continue;
            }
            if (!error.isEmpty()) {
                QMessageBox::warning(this, tr("Recovered with a warning"), error);
            }
            statusBar()->showMessage(tr("Recovered %1 — save it to keep the changes").arg(original));
            return;  // one document per window: the others stay for a later start
        }
        if (box.clickedButton() == discard) {
            DocumentFile::discardRecovery(candidate);
        }
    }
}

}  // namespace spike::ui
