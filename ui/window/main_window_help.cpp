// MainWindow: the Help menu. Keyboard Shortcuts lists every command that has a key, read from the
// actions themselves (so the list cannot disagree with the keys); About names the versions of
// SpikeStudio, Qt and QCustomPlot and whether the CUDA backend can run here, with the reason when
// it cannot. Both open as non-modal windows. See main_window.hpp.
#include "ui/window/main_window.hpp"

#include "engine/runtime/backend.hpp"

#include <qcustomplot.h>

#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QHeaderView>
#include <QMenuBar>
#include <QMessageBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace spike::ui {

void MainWindow::buildHelpMenu()
{
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* keys = makeAction(QStringLiteral("action.shortcuts"), tr("&Keyboard Shortcuts"),
                               QKeySequence(Qt::Key_F1), tr("Every command that has a key"));
    connect(keys, &QAction::triggered, this, &MainWindow::showShortcuts);
    QAction* about = makeAction(QStringLiteral("action.about"), tr("&About SpikeStudio"), {},
                                tr("Versions of SpikeStudio, Qt and QCustomPlot, and the CUDA backend"));
    connect(about, &QAction::triggered, this, &MainWindow::showAbout);
    help->addAction(keys);
    help->addAction(about);
}

std::vector<std::pair<QString, QString>> MainWindow::shortcuts() const
{
    std::vector<std::pair<QString, QString>> rows;
    for (const QAction* a : actions()) {
        if (a->shortcut().isEmpty()) {
            continue;
        }
        QString text = a->text();
        text.remove(QLatin1Char('&'));
        rows.emplace_back(text, a->shortcut().toString(QKeySequence::NativeText));
    }
    std::sort(rows.begin(), rows.end());
    return rows;
}

void MainWindow::showShortcuts()
{
    auto* dialog = new QDialog(this);
    dialog->setObjectName(QStringLiteral("shortcutsDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("Keyboard Shortcuts"));
    const auto rows = shortcuts();
    auto* table = new QTableWidget(static_cast<int>(rows.size()), 2, dialog);
    table->setHorizontalHeaderLabels({tr("Command"), tr("Keys")});
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
        table->setItem(r, 0, new QTableWidgetItem(rows[static_cast<std::size_t>(r)].first));
        table->setItem(r, 1, new QTableWidgetItem(rows[static_cast<std::size_t>(r)].second));
    }
    table->resizeColumnsToContents();
    table->horizontalHeader()->setStretchLastSection(true);
    auto* layout = new QVBoxLayout(dialog);
    layout->addWidget(table);
    dialog->resize(420, 520);
    dialog->show();
}

QString MainWindow::aboutText() const
{
    std::string why;
    const bool cuda = engine::backendAvailable(engine::BackendKind::Cuda, &why);
    const QString version = QApplication::applicationVersion().isEmpty()
                                ? tr("development build")
                                : QApplication::applicationVersion();
    return tr("SpikeStudio %1\n"
              "Build, run and look inside spiking neural networks.\n\n"
              "Qt %2 (built with %3)\n"
              "QCustomPlot %4\n"
              "CUDA backend: %5\n\n"
              "The documentation is in the README and docs/ of the source tree.")
        .arg(version, QString::fromLatin1(qVersion()), QStringLiteral(QT_VERSION_STR),
             QStringLiteral(QCUSTOMPLOT_VERSION_STR),
             cuda ? tr("available") : tr("not available (%1)").arg(QString::fromStdString(why)));
}

void MainWindow::showAbout()
{
    auto* box = new QMessageBox(QMessageBox::Information, tr("About SpikeStudio"), aboutText(),
                                QMessageBox::Ok, this);
    box->setObjectName(QStringLiteral("aboutBox"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setModal(false);
    box->show();
}

}  // namespace spike::ui
