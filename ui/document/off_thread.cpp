// runOffThread: see off_thread.hpp.
#include "ui/document/off_thread.hpp"

#include <QCoreApplication>
#include <QEvent>
#include <QEventLoop>

#include <atomic>
#include <exception>
#include <thread>

namespace spike::ui {

namespace {

int g_depth = 0;  ///< runOffThread() calls waiting (GUI thread only)

/// Swallows the input that reaches the application while the work runs. The loop already holds
/// back the window system's input; this also stops input sent straight to widgets (tests, tools
/// that drive the GUI) and requests to close a window, so nothing changes what the work reads.
class InputBlocker : public QObject {
public:
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        switch (event->type()) {
        case QEvent::MouseButtonPress:
        case QEvent::MouseButtonRelease:
        case QEvent::MouseButtonDblClick:
        case QEvent::MouseMove:
        case QEvent::Wheel:
        case QEvent::KeyPress:
        case QEvent::KeyRelease:
        case QEvent::ShortcutOverride:
        case QEvent::Shortcut:
        case QEvent::ContextMenu:
        case QEvent::DragEnter:
        case QEvent::DragMove:
        case QEvent::Drop:
        case QEvent::TouchBegin:
        case QEvent::TouchUpdate:
        case QEvent::TouchEnd:
        case QEvent::TabletPress:
        case QEvent::TabletRelease:
        case QEvent::Close:
            event->ignore();
            return true;
        default:
            return QObject::eventFilter(watched, event);
        }
    }
};

}  // namespace

OffThreadMonitor& OffThreadMonitor::instance()
{
    static OffThreadMonitor monitor;
    return monitor;
}

void runOffThread(const QString& what, const std::function<void()>& work)
{
    Q_EMIT OffThreadMonitor::instance().started(what);
    QEventLoop loop;
    std::atomic<bool> done{false};
    std::exception_ptr failure;
    std::thread worker([&] {
        try {
            work();
        } catch (...) {
            failure = std::current_exception();
        }
        done.store(true, std::memory_order_release);
        // Delivered once the loop below runs (or dropped with `loop` if it never had to).
        QMetaObject::invokeMethod(&loop, &QEventLoop::quit, Qt::QueuedConnection);
    });
    std::exception_ptr loopFailure;
    ++g_depth;
    if (!done.load(std::memory_order_acquire)) {
        InputBlocker blocker;
        QCoreApplication::instance()->installEventFilter(&blocker);
        try {
            loop.exec(QEventLoop::ExcludeUserInputEvents);
        } catch (...) {
            loopFailure = std::current_exception();  // from a handler the loop ran: after the join
        }
        QCoreApplication::instance()->removeEventFilter(&blocker);
    }
    worker.join();
    --g_depth;
    Q_EMIT OffThreadMonitor::instance().finished();
    if (loopFailure) {
        std::rethrow_exception(loopFailure);
    }
    if (failure) {
        std::rethrow_exception(failure);
    }
}

bool offThreadWorkRunning()
{
    return g_depth > 0;
}

}  // namespace spike::ui
