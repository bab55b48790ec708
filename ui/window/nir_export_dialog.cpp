// NirExportDialog: see nir_export_dialog.hpp.
#include "ui/window/nir_export_dialog.hpp"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace spike::ui {

NirExportDialog::NirExportDialog(const QString& documentName, const QStringList& leftOut, QWidget* parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("nirExportDialog"));
    setWindowTitle(tr("Export to NIR"));
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("NIR has no place for %n part(s) of %1. They and the wires touching them "
                                "will be left out of the file:",
                                nullptr, static_cast<int>(leftOut.size()))
                                 .arg(documentName),
                             this);
    intro->setWordWrap(true);
    layout->addWidget(intro);

    m_list = new QTreeWidget(this);
    m_list->setObjectName(QStringLiteral("nirLeftOut"));
    m_list->setHeaderLabels({tr("Module"), tr("Why")});
    m_list->setRootIsDecorated(false);
    m_list->setSelectionMode(QAbstractItemView::NoSelection);
    m_list->setWordWrap(true);
    for (const QString& entry : leftOut) {
        // "<path>: <type> (why)": the path up to the first ": ".
        const qsizetype colon = entry.indexOf(QLatin1String(": "));
        const QString path = colon < 0 ? entry : entry.left(colon);
        const QString why = colon < 0 ? QString() : entry.mid(colon + 2);
        auto* row = new QTreeWidgetItem(m_list, {path, why});
        row->setToolTip(0, entry);
        row->setToolTip(1, entry);
    }
    m_list->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_list->header()->setStretchLastSection(true);
    layout->addWidget(m_list, 1);

    auto* layoutNote = new QLabel(tr("The editor layout (where the nodes stand on the canvas) is not carried "
                                     "either: NIR files hold the graph, not its picture."),
                                  this);
    layoutNote->setWordWrap(true);
    layout->addWidget(layoutNote);

    auto* buttons = new QDialogButtonBox(this);
    m_export = buttons->addButton(tr("Export without them"), QDialogButtonBox::AcceptRole);
    m_cancel = buttons->addButton(QDialogButtonBox::Cancel);
    m_export->setDefault(true);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    setMinimumWidth(fontMetrics().averageCharWidth() * 80);
}

}  // namespace spike::ui
