// NirExportDialog: what File ▸ Export ▸ NIR… cannot carry, shown before anything is written.
// engine::nir::exportNir lists the modules and wires NIR has no place for (stimulus sources,
// LSTMs, sparse projections...) as "<module path>: <type> (why)"; the dialog lists each entry
// (path in bold, the type and reason after it, wrapped to the dialog's width), says that the editor layout is not carried either, and
// asks "Export without them" or Cancel. It only asks: the caller writes. Thread: GUI thread.
#pragma once

#include <QDialog>
#include <QString>
#include <QStringList>

class QLabel;
class QPushButton;

namespace spike::ui {

/// Modal dialog listing what a NIR export leaves out; see the file comment.
class NirExportDialog : public QDialog {
    Q_OBJECT

public:
    /// For an export to NIR of the document `documentName` that leaves `leftOut` out (entries as
    /// NirExport::leftOut writes them).
    NirExportDialog(const QString& documentName, const QStringList& leftOut, QWidget* parent = nullptr);

    /// The entries as listed (NirExport::leftOut's lines).
    const QStringList& entries() const { return m_entries; }
    /// The list as shown: one paragraph per entry, "<b>path</b>: type (why)".
    QLabel* listLabel() const { return m_list; }
    QPushButton* exportButton() const { return m_export; }
    QPushButton* cancelButton() const { return m_cancel; }

private:
    QStringList m_entries;
    QLabel* m_list = nullptr;
    QPushButton* m_export = nullptr;
    QPushButton* m_cancel = nullptr;
};

}  // namespace spike::ui
