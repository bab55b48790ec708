// MainWindow: the start page in the centre (ui/window/start_page.hpp). The centre is a stack of
// the editor and plots (m_centre) and the start page; the page asks, the window acts through the
// same commands as its menus, and whatever changes the document shows the editor again.
// See main_window.hpp.
#include "ui/window/main_window.hpp"

#include "ui/document/document_file.hpp"
#include "ui/editor/graph_canvas.hpp"
#include "ui/window/start_page.hpp"

#include <QDir>
#include <QPushButton>
#include <QStackedWidget>
#include <QStatusBar>
#include <QUndoStack>

namespace spike::ui {

void MainWindow::buildStartPage()
{
    m_startPage = new StartPage(m_file);
    m_centreStack = new QStackedWidget(this);
    m_centreStack->setObjectName(QStringLiteral("centreStack"));
    m_centreStack->addWidget(takeCentralWidget());  // the editor and plots (buildCentre())
    m_centreStack->addWidget(m_startPage);
    setCentralWidget(m_centreStack);

    connect(m_startPage, &StartPage::newRequested, this, &MainWindow::newInteractively);
    connect(m_startPage, &StartPage::openRequested, this, &MainWindow::promptOpen);
    connect(m_startPage, &StartPage::fileRequested, this, &MainWindow::openInteractively);
    connect(m_startPage, &StartPage::missingFileRequested, this, [this](const QString& path) {
        statusBar()->showMessage(tr("%1 is missing: it was moved or deleted since it was opened")
                                     .arg(QDir::toNativeSeparators(path)));
    });
    connect(m_startPage, &StartPage::moduleDropped, this, [this](const QString& type) {
        leaveStartPage();
        if (m_canvas->addModule(type).valid()) {
            statusBar()->showMessage(tr("Added a %1").arg(type));
        }
    });
    // Whatever changes the document (a new, opened or recovered one, any edit) shows the editor.
    connect(m_doc, &GraphDocument::documentReset, this, &MainWindow::leaveStartPage);
    connect(m_doc->undoStack(), &QUndoStack::indexChanged, this, &MainWindow::leaveStartPage);
}

void MainWindow::showStartPage()
{
    m_startPage->refreshRecentFiles();
    m_centreStack->setCurrentWidget(m_startPage);
    m_startPage->newButton()->setFocus(Qt::OtherFocusReason);
    statusBar()->showMessage(tr("Welcome: open an example or a recent file, or start a new network"));
}

bool MainWindow::startPageShown() const
{
    return m_centreStack->currentWidget() == m_startPage;
}

void MainWindow::leaveStartPage()
{
    if (startPageShown()) {
        m_centreStack->setCurrentIndex(0);
        // The canvas placed and fitted what it shows while hidden, at a size it may never have
        // had (the page can be there from the start): fit it again in its real place.
        m_canvas->fitToView();
        m_canvas->setFocus(Qt::OtherFocusReason);  // typing adds modules (quick-add) at once
    }
}

}  // namespace spike::ui
