// XSession: a private X server and real input, for tests that drive the spikestudio binary as a
// separate process the way a user would (test_kill_recover).
//
// Owns: one Xvfb server on the first display of :91 to :99 that it can take (one whose lock file
// names a live process is passed over; a start that loses a race to another server, seen in the
// lock file naming another process, tries the next number), and
// a private home folder whose HOME, XDG_CONFIG_HOME, XDG_DATA_HOME, XDG_CACHE_HOME and
// XDG_RUNTIME_DIR the processes it starts get, so their settings, recent files and recovery
// files are the test's own. Input goes through xdotool (XTEST: real key events, as from a
// keyboard). Every wait polls its condition up to a generous limit (a loaded machine starts
// windows slowly); no fixed sleep is the only synchronisation.
// Thread: the test's thread only.
#pragma once

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QStandardPaths>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <chrono>
#include <memory>
#include <thread>

#include <signal.h>
#include <sys/types.h>

namespace spike::tests {

/// Generous limit for anything a loaded machine may do slowly (start a window, load a model) [ms].
constexpr int kSlowMs = 30000;

/// Polls `condition` every `pollMs` until it holds or `timeoutMs` passed; returns whether it held.
template <class Condition>
bool waitUntil(Condition condition, int timeoutMs = kSlowMs, int pollMs = 50)
{
    QElapsedTimer clock;
    clock.start();
    while (!condition()) {
        if (clock.elapsed() > timeoutMs) {
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(pollMs));
    }
    return true;
}

/// Ends a process started by XSession::launch() when its owner goes (a failed test included).
struct KillOnDelete {
    void operator()(QProcess* p) const
    {
        if (p->state() != QProcess::NotRunning) {
            p->kill();
            p->waitForFinished(kSlowMs);
        }
        delete p;
    }
};
using Process = std::unique_ptr<QProcess, KillOnDelete>;

/// The private X server with xdotool; see the file comment.
class XSession {
public:
    XSession() = default;
    XSession(const XSession&) = delete;
    XSession& operator=(const XSession&) = delete;
    ~XSession()
    {
        if (m_xvfb.state() != QProcess::NotRunning) {
            m_xvfb.terminate();
            if (!m_xvfb.waitForFinished(5000)) {
                m_xvfb.kill();
                m_xvfb.waitForFinished(5000);
            }
        }
    }

    /// The programs this needs that are not installed ("Xvfb", "xdotool"), empty when none.
    static QStringList missingTools()
    {
        QStringList missing;
        for (const char* tool : {"Xvfb", "xdotool"}) {
            if (QStandardPaths::findExecutable(QLatin1String(tool)).isEmpty()) {
                missing << QLatin1String(tool);
            }
        }
        return missing;
    }

    /// Starts Xvfb; false with *why when no display of :91 to :99 could be taken.
    bool start(QString* why)
    {
        if (!m_home.isValid()) {
            *why = QStringLiteral("cannot create a private home folder");
            return false;
        }
        for (const char* sub : {"config", "data", "cache", "runtime"}) {
            QDir(m_home.path()).mkpath(QLatin1String(sub));
        }
        QFile::setPermissions(m_home.filePath(QStringLiteral("runtime")),
                              QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        for (int n = 91; n <= 99; ++n) {
            if (lockOwner(n) > 0 && ::kill(lockOwner(n), 0) == 0) {
                continue;  // another server has it
            }
            m_display = QStringLiteral(":%1").arg(n);
            m_xvfb.setProcessChannelMode(QProcess::MergedChannels);
            m_xvfb.start(QStringLiteral("Xvfb"), {m_display, QStringLiteral("-screen"), QStringLiteral("0"),
                                                  QStringLiteral("1600x1000x24"), QStringLiteral("-nolisten"),
                                                  QStringLiteral("tcp"), QStringLiteral("-noreset")});
            // Ours once the display's lock names our server (two tests may race for one number)
            // and it answers.
            const auto ours = [this, n] {
                return m_xvfb.state() == QProcess::Running && lockOwner(n) == static_cast<pid_t>(m_xvfb.processId()) &&
                       xdotoolOk({QStringLiteral("getdisplaygeometry")});
            };
            if (m_xvfb.waitForStarted(kSlowMs) &&
                waitUntil([&] { return m_xvfb.state() == QProcess::NotRunning || ours(); }, kSlowMs, 100) && ours()) {
                return true;
            }
            *why += QStringLiteral("Xvfb %1: %2; ").arg(m_display, QString::fromLocal8Bit(m_xvfb.readAll()).trimmed());
            m_xvfb.kill();
            m_xvfb.waitForFinished(5000);
        }
        m_display.clear();
        *why = QStringLiteral("no free X display from :91 to :99 (") + *why + QStringLiteral(")");
        return false;
    }

    QString display() const { return m_display; }
    /// The private home folder.
    QString home() const { return m_home.path(); }
    /// XDG_DATA_HOME of the processes started here (recovery files live below it).
    QString dataHome() const { return m_home.filePath(QStringLiteral("data")); }

    /// The environment of a process on this display with the private home.
    QProcessEnvironment environment() const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("WAYLAND_DISPLAY"));
        env.insert(QStringLiteral("DISPLAY"), m_display);
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("xcb"));
        env.insert(QStringLiteral("HOME"), m_home.path());
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_home.filePath(QStringLiteral("config")));
        env.insert(QStringLiteral("XDG_DATA_HOME"), dataHome());
        env.insert(QStringLiteral("XDG_CACHE_HOME"), m_home.filePath(QStringLiteral("cache")));
        env.insert(QStringLiteral("XDG_RUNTIME_DIR"), m_home.filePath(QStringLiteral("runtime")));
        return env;
    }

    /// Starts `program args` on this display, its output going to `logPath`.
    Process launch(const QString& program, const QStringList& args, const QString& logPath) const
    {
        Process p(new QProcess);
        p->setProcessEnvironment(environment());
        p->setProcessChannelMode(QProcess::MergedChannels);
        p->setStandardOutputFile(logPath);
        p->start(program, args);
        p->waitForStarted(kSlowMs);
        return p;
    }

    /// Runs xdotool with `args` to its end; its standard output (trimmed), *ok says whether it
    /// exited with 0.
    QString xdotool(const QStringList& args, bool* ok = nullptr) const
    {
        QProcess p;
        p.setProcessEnvironment(environment());
        p.start(QStringLiteral("xdotool"), args);
        const bool done = p.waitForFinished(kSlowMs);
        if (ok != nullptr) {
            *ok = done && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
        }
        return QString::fromUtf8(p.readAllStandardOutput()).trimmed();
    }
    bool xdotoolOk(const QStringList& args) const
    {
        bool ok = false;
        xdotool(args, &ok);
        return ok;
    }

    /// The id of a shown window whose title matches the extended regular expression `titleRegex`
    /// (xdotool's, case-insensitive), waiting up to `timeoutMs` for one; empty when none came.
    QString waitForWindow(const QString& titleRegex, int timeoutMs = kSlowMs) const
    {
        QString id;
        waitUntil(
            [&] {
                id = xdotool({QStringLiteral("search"), QStringLiteral("--onlyvisible"), QStringLiteral("--name"), titleRegex}).section(QLatin1Char('\n'), 0, 0);
                return !id.isEmpty();
            },
            timeoutMs, 100);
        return id;
    }

    /// Gives window `id` the keyboard focus (trying until the server grants it), then presses
    /// each of `keys` (xdotool key names, e.g. "ctrl+s", "Return") in turn.
    bool keys(const QString& id, const QStringList& keys) const
    {
        if (!waitUntil([&] { return xdotoolOk({QStringLiteral("windowfocus"), QStringLiteral("--sync"), id}); },
                       kSlowMs, 200)) {
            return false;
        }
        return press(keys);
    }
    /// Presses each of `keys` in turn, to whatever has the keyboard (an open popup included).
    bool press(const QStringList& keys) const
    {
        return xdotoolOk(QStringList{QStringLiteral("key"), QStringLiteral("--delay"), QStringLiteral("50")} + keys);
    }
    /// Types `text` into whatever has the keyboard focus.
    bool type(const QString& text) const
    {
        return xdotoolOk({QStringLiteral("type"), QStringLiteral("--delay"), QStringLiteral("50"), text});
    }

private:
    /// The process id in display n's lock file (/tmp/.Xn-lock), 0 when there is none.
    static pid_t lockOwner(int n)
    {
        QFile lock(QStringLiteral("/tmp/.X%1-lock").arg(n));
        return lock.open(QIODevice::ReadOnly) ? static_cast<pid_t>(lock.readAll().trimmed().toLong()) : 0;
    }

    QTemporaryDir m_home;
    QProcess m_xvfb;
    QString m_display;
};

}  // namespace spike::tests
