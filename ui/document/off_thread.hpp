// runOffThread: long work (reading a large model, copying it for a run, building a run) done on a
// worker thread while the calling thread's event loop keeps turning without user input, so the
// window repaints and its timers run (no freeze) yet nothing the user does can change what the
// work reads meanwhile. The caller waits: to it the call is as synchronous as the work itself.
// OffThreadMonitor tells a status bar what is being waited on.
// Thread: called on the GUI thread; `work` runs on a thread of its own and must not touch the
// GUI thread's QObjects.
#pragma once

#include <QObject>
#include <QString>

#include <functional>

namespace spike::ui {

/// Announces the work runOffThread() waits on (GUI thread, one instance).
class OffThreadMonitor : public QObject {
    Q_OBJECT

public:
    static OffThreadMonitor& instance();

Q_SIGNALS:
    /// runOffThread() starts waiting on `what` ("Opening cuba.json", "Copying the model").
    void started(const QString& what);
    /// The work is done (emitted before its result is used).
    void finished();
};

/// Runs `work` on a new thread and returns when it is done, turning this thread's event loop
/// meanwhile with the window system's input held back (delivered afterwards) and input sent
/// straight to widgets, or a request to close a window, ignored. `what` names the work for the
/// status bar (OffThreadMonitor). An exception thrown by `work` is rethrown here.
void runOffThread(const QString& what, const std::function<void()>& work);
/// Whether a runOffThread() is waiting on this thread (input is held back meanwhile): tools
/// that drive the GUI from timers, as a person would, wait for it to end too.
bool offThreadWorkRunning();

}  // namespace spike::ui
