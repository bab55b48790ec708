// MainWindow: Simulation ▸ CPU Threads, how many threads the CPU executor runs neuron populations
// and sparse projections on (engine ExecutorOptions::threads, docs/runtime.md "Threads"): All
// Cores (the default) or a count from 1 to the cores this machine has. The choice is kept per
// user (QSettings "run/threads", 0 = all cores) and applies at once: a running simulation moves
// to it at its next chunk (RunSession::setThreads), with bit-identical results, which the status
// bar says. See main_window.hpp.
// Thread: GUI thread only.
#include "ui/window/main_window.hpp"

#include "ui/run/run_session.hpp"

#include <QAction>
#include <QActionGroup>
#include <QMenu>
#include <QSettings>
#include <QStatusBar>

#include <algorithm>
#include <thread>

namespace spike::ui {

namespace {

constexpr const char* kThreadsKey = "run/threads";

/// The cores the menu offers (std::thread::hardware_concurrency; 1 when it does not know).
int coresHere()
{
    return std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, 256);
}

}  // namespace

void MainWindow::buildThreadsMenu(QMenu* simulation)
{
    const int cores = coresHere();
    QMenu* menu = simulation->addMenu(tr("CPU Threads"));
    menu->setObjectName(QStringLiteral("threadsMenu"));
    menu->setToolTipsVisible(true);
    m_threadsGroup = new QActionGroup(this);
    m_threadsGroup->setExclusive(true);
    for (int count = 0; count <= cores; ++count) {
        const QString text = count == 0   ? tr("All Cores (%1)").arg(cores)
                             : count == 1 ? tr("1 Thread")
                                          : tr("%1 Threads").arg(count);
        auto* choice = new QAction(text, m_threadsGroup);
        choice->setObjectName(QStringLiteral("action.threads.%1").arg(count));
        choice->setCheckable(true);
        choice->setData(count);
        choice->setToolTip(count == 0 ? tr("Every core of this machine (the default)")
                                      : tr("Neuron populations and sparse projections on %1")
                                            .arg(text.toLower()));
        menu->addAction(choice);
        if (count == 0) {
            menu->addSeparator();
        }
    }
    menu->setStatusTip(tr("Threads of the CPU backend; the results are the same for any count"));
    connect(m_threadsGroup, &QActionGroup::triggered, this,
            [this](QAction* choice) { applyThreads(choice->data().toInt(), true); });

    // The user's last choice; a count beyond this machine's cores (a setting from a larger
    // machine) is shown and used as All Cores.
    const int stored = QSettings().value(QLatin1String(kThreadsKey), 0).toInt();
    applyThreads(stored >= 0 && stored <= cores ? stored : 0, false);
}

void MainWindow::applyThreads(int threads, bool chosen)
{
    for (QAction* choice : m_threadsGroup->actions()) {
        choice->setChecked(choice->data().toInt() == threads);
    }
    m_session->setThreads(threads);
    if (!chosen) {
        return;
    }
    QSettings().setValue(QLatin1String(kThreadsKey), threads);
    const QString count = threads == 0   ? tr("all %1 cores").arg(coresHere())
                          : threads == 1 ? tr("1 thread")
                                         : tr("%1 threads").arg(threads);
    const QString when = m_session->live() != nullptr ? tr("from the next chunk") : tr("for the next run");
    statusBar()->showMessage(
        tr("CPU backend on %1 %2; the results are the same for any count").arg(count, when), 8000);
}

}  // namespace spike::ui
