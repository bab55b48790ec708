// NirExportDialog: see nir_export_dialog.hpp.
#include "ui/window/nir_export_dialog.hpp"

#include <QDialogButtonBox>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

namespace spike::ui {

NirExportDialog::NirExportDialog(const QString& documentName, const QStringList& leftOut, QWidget* parent)
    : QDialog(parent), m_entries(leftOut)
{
    setObjectName(QStringLiteral("nirExportDialog"));
    setWindowTitle(tr("Export to NIR"));
    auto* layout = new QVBoxLayout(this);
    const QString parts = leftOut.size() == 1 ? tr("one part") : tr("%1 parts").arg(leftOut.size());
    auto* intro = new QLabel(tr("NIR has no place for %1 of %2. Exporting leaves out what is listed here "
                                "and the wires touching it:")
                                 .arg(parts, documentName.toHtmlEscaped()),
                             this);
    intro->setWordWrap(true);
    layout->addWidget(intro);

    QString html;
    for (const QString& entry : leftOut) {
        // "<path>: <type> (why)": the path up to the first ": " in bold.
        const qsizetype colon = entry.indexOf(QLatin1String(": "));
        html += colon < 0 ? QStringLiteral("<p>%1</p>").arg(entry.toHtmlEscaped())
                          : QStringLiteral("<p><b>%1</b>: %2</p>")
                                .arg(entry.left(colon).toHtmlEscaped(), entry.mid(colon + 2).toHtmlEscaped());
    }
    m_list = new QLabel(html);
    m_list->setObjectName(QStringLiteral("nirLeftOut"));
    m_list->setTextFormat(Qt::RichText);
    m_list->setWordWrap(true);
    m_list->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_list->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_list->setMargin(6);
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(m_list);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setMinimumHeight(fontMetrics().height() * 4);
    scroll->setBackgroundRole(QPalette::Base);
    layout->addWidget(scroll, 1);

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
