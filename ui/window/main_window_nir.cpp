// MainWindow: NIR files (docs/nir.md). Opening one imports it through engine::nir::loadNir after
// NirImportDialog has asked for the time step and the discretisation; the document is untitled
// under the file's name, so Save asks for a JSON file. File ▸ Export ▸ NIR… exports the model
// with engine::nir::exportNir, shows what NIR cannot hold (NirExportDialog) and writes the file
// with engine::nir::writeNirFile; the document is never changed by an export. See main_window.hpp.
#include "ui/window/main_window.hpp"

#include "ui/document/document_file.hpp"
#include "ui/window/nir_export_dialog.hpp"
#include "ui/window/nir_import_dialog.hpp"

#include "engine/nir/nir_export.hpp"
#include "engine/nir/nir_file.hpp"
#include "engine/tensor/error.hpp"

#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLocale>
#include <QMessageBox>
#include <QStatusBar>

namespace spike::ui {

namespace {

/// At most this many notes are listed in the box; all of them are in its details.
constexpr int kNotesShown = 8;

QString msText(double seconds)
{
    return QLocale().toString(seconds * 1e3, 'g', 6);
}

}  // namespace

bool MainWindow::openNir(const QString& path, const engine::nir::NirImportOptions& options, QString* error,
                         QStringList* notes)
{
    QString message;
    QStringList adapted;
    if (!m_file->openNir(path, options, &adapted, &message)) {
        statusBar()->showMessage(tr("Could not open %1: %2").arg(path, message));
        if (error != nullptr) {
            *error = message;
        }
        return false;
    }
    m_source = path;
    QString text = tr("Opened %1 (NIR, dt %2 ms, %3): %L4 modules")
                       .arg(QFileInfo(path).fileName(), msText(options.dt),
                            NirImportDialog::methodTitle(QString::fromStdString(options.discretisation)))
                       .arg(m_doc->root().namedModules().size());
    if (!adapted.isEmpty()) {
        text += adapted.size() == 1 ? tr("; the import adapted one thing")
                                    : tr("; the import adapted %1 things").arg(adapted.size());
    }
    statusBar()->showMessage(text);
    if (notes != nullptr) {
        *notes = adapted;
    }
    return true;
}

void MainWindow::openNirInteractively(const QString& path)
{
    NirImportDialog dialog(QFileInfo(path).fileName(), this);
    if (dialog.exec() != QDialog::Accepted) {
        statusBar()->showMessage(tr("Did not open %1").arg(QFileInfo(path).fileName()));
        return;
    }
    QString error;
    QStringList notes;
    if (!openNir(path, dialog.options(), &error, &notes)) {
        QMessageBox::warning(this, tr("Could not open NIR file"), error);
        return;
    }
    m_lastDir = QFileInfo(path).absolutePath();  // Save As proposes the .nir's folder
    // One box per import that adapted something, not blocking: a previous one goes.
    for (QMessageBox* old : findChildren<QMessageBox*>(QStringLiteral("nirNotesBox"))) {
        old->close();
    }
    if (notes.isEmpty()) {
        return;
    }
    auto* box = new QMessageBox(QMessageBox::Information, tr("Imported %1").arg(QFileInfo(path).fileName()),
                                notes.size() == 1 ? tr("The import adapted one thing of the file:")
                                                  : tr("The import adapted %1 things of the file:").arg(notes.size()),
                                QMessageBox::Ok, this);
    box->setObjectName(QStringLiteral("nirNotesBox"));
    QStringList shown = notes.mid(0, kNotesShown);
    if (notes.size() > kNotesShown) {
        shown << tr("… and %1 more (Show Details…)").arg(notes.size() - kNotesShown);
        box->setDetailedText(notes.join(QLatin1Char('\n')));
    }
    box->setInformativeText(QStringLiteral("• ") + shown.join(QStringLiteral("\n• ")));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setModal(false);
    box->show();
}

void MainWindow::exportNirInteractively()
{
    engine::nir::NirExport exported;
    try {
        exported = engine::nir::exportNir(m_doc->root());
    } catch (const engine::Error& e) {
        QMessageBox::warning(this, tr("Cannot export to NIR"), QString::fromStdString(e.what()));
        return;
    }
    if (!exported.leftOut.empty()) {
        QStringList leftOut;
        for (const std::string& entry : exported.leftOut) {
            leftOut << QString::fromStdString(entry);
        }
        NirExportDialog dialog(m_file->displayName(), leftOut, this);
        if (dialog.exec() != QDialog::Accepted) {
            statusBar()->showMessage(tr("NIR export cancelled"));
            return;
        }
    }
    const QString stem = QFileInfo(m_file->displayName()).completeBaseName();
    const QString start = m_file->filePath().isEmpty()
                              ? QDir(m_lastDir).filePath(stem + QStringLiteral(".nir"))
                              : QFileInfo(m_file->filePath()).dir().filePath(stem + QStringLiteral(".nir"));
    QString path = QFileDialog::getSaveFileName(this, tr("Export to NIR"), start, tr("NIR files (*.nir)"));
    if (path.isEmpty()) {
        return;
    }
    if (QFileInfo(path).suffix().isEmpty()) {
        path += QStringLiteral(".nir");
    }
    m_lastDir = QFileInfo(path).absolutePath();
    try {
        engine::nir::writeNirFile(QFile::encodeName(path).toStdString(), exported.file);
    } catch (const engine::Error& e) {
        QMessageBox::warning(this, tr("Could not export to NIR"), QString::fromStdString(e.what()));
        return;
    }
    statusBar()->showMessage(
        exported.leftOut.empty()
            ? tr("Exported %1 (NIR; the editor layout is not carried)").arg(QDir::toNativeSeparators(path))
            : tr("Exported %1 (NIR) without %2 of the model's parts; the editor layout is not carried")
                  .arg(QDir::toNativeSeparators(path))
                  .arg(exported.leftOut.size()));
}

}  // namespace spike::ui
