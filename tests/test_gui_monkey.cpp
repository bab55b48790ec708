// Monkey test of the whole window: opens each bundled example (copied to a temporary folder, so
// a save writes there) and throws random but valid real input at random visible widgets for a
// fixed time: clicks, right-clicks, double-clicks, drags, wheel turns, typed digits and keys,
// shortcuts, menu and toolbar actions, Run / Pause / Step. Modal dialogs and pop-up menus get
// input too, or are closed; file dialogs are always cancelled (nothing outside the temporary
// folder is touched). The window must survive every event; under AddressSanitizer (.ci/asan) any
// use of freed memory in the project's code fails the run.
//
// Seeded and reproducible in its choices: SPIKE_MONKEY_SEED (default 1) picks the input,
// SPIKE_MONKEY_SECONDS (default 12) is the whole run's wall time, split evenly over the
// examples. A failure prints the seed, the example and the last 20 events.
#include "real_input.hpp"

#include "ui/document/off_thread.hpp"
#include "ui/window/main_window.hpp"

#include <QAction>
#include <QDialog>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QFileDialog>
#include <QMenu>
#include <QMessageBox>
#include <QTemporaryDir>
#include <QTimer>

#include <deque>
#include <random>

using spike::tests::settle;
using spike::ui::MainWindow;

namespace {

/// The bundled examples' file names (tests/real_input.hpp's one list).
QStringList exampleNames()
{
    QStringList names;
    for (const QString& path : spike::tests::bundledExamples()) {
        names << path.section(QLatin1Char('/'), -1);
    }
    return names;
}

/// exampleNames(), read once the resources are registered (not at static initialisation).
const QStringList& examples()
{
    static const QStringList names = exampleNames();
    return names;
}

/// Actions that would end the session or only open a file dialog the monkey cancels anyway.
const QStringList kSkippedActions = {
    QStringLiteral("action.quit"), QStringLiteral("action.open"), QStringLiteral("action.saveAs"),
    QStringLiteral("action.exportRecordings"),
};

/// Keys a person types into fields and the canvas.
const std::vector<int> kKeys = {
    Qt::Key_0,     Qt::Key_1,     Qt::Key_2,         Qt::Key_5,    Qt::Key_9,     Qt::Key_Period,
    Qt::Key_Minus, Qt::Key_E,     Qt::Key_Return,    Qt::Key_Tab,  Qt::Key_Escape, Qt::Key_Up,
    Qt::Key_Down,  Qt::Key_Left,  Qt::Key_Right,     Qt::Key_Backspace, Qt::Key_Delete, Qt::Key_Space,
    Qt::Key_PageUp, Qt::Key_Home, Qt::Key_F5,        Qt::Key_F10,  Qt::Key_A,      Qt::Key_X,
};

/// Shortcuts of the editor and the run controls (the file ones are left out: see kSkippedActions).
const std::vector<QKeyCombination> kShortcuts = {
    Qt::CTRL | Qt::Key_Z, Qt::CTRL | Qt::Key_Y, Qt::CTRL | Qt::SHIFT | Qt::Key_Z, Qt::CTRL | Qt::Key_G,
    Qt::CTRL | Qt::SHIFT | Qt::Key_G, Qt::CTRL | Qt::Key_D, Qt::CTRL | Qt::Key_C, Qt::CTRL | Qt::Key_V,
    Qt::CTRL | Qt::Key_X, Qt::CTRL | Qt::Key_A, Qt::CTRL | Qt::Key_L, Qt::CTRL | Qt::Key_0,
    Qt::CTRL | Qt::Key_R, Qt::ALT | Qt::Key_Up, Qt::CTRL | Qt::Key_Plus, Qt::CTRL | Qt::Key_Minus,
};

class Monkey {
public:
    Monkey(MainWindow& window, std::uint32_t seed) : m_window(window), m_rng(seed) {}

    /// One random event; once `stopping`, closes what is open instead.
    void step(bool stopping)
    {
        ++m_depth;
        if (QWidget* popup = QApplication::activePopupWidget()) {
            onPopup(popup, stopping);
        } else if (QWidget* modal = QApplication::activeModalWidget()) {
            onModal(modal, stopping);
        } else if (!stopping) {
            onWindow();
        } else {
            // Time is up: end a drag still in progress (its loop waits for a release or Escape).
            QTest::mouseRelease(&m_window, Qt::LeftButton);
            QTest::keyClick(&m_window, Qt::Key_Escape);
        }
        --m_depth;
    }
    int events() const { return m_events; }
    int depth() const { return m_depth; }
    QString history() const
    {
        QStringList out(m_history.begin(), m_history.end());
        return out.join(QStringLiteral("\n  "));
    }

private:
    int pick(int n) { return n <= 1 ? 0 : std::uniform_int_distribution<int>(0, n - 1)(m_rng); }
    bool chance(double p) { return std::uniform_real_distribution<double>(0.0, 1.0)(m_rng) < p; }

    void note(const QString& what)
    {
        ++m_events;
        m_history.push_back(what);
        if (m_history.size() > 20) {
            m_history.pop_front();
        }
    }

    static QString nameOf(const QWidget* w)
    {
        const QString name = w->objectName().isEmpty() ? QString() : QStringLiteral(" '%1'").arg(w->objectName());
        return QString::fromLatin1(w->metaObject()->className()) + name;
    }

    /// A visible, enabled widget inside `top` (top itself included), or nullptr.
    QWidget* randomWidget(QWidget* top)
    {
        QList<QWidget*> candidates;
        for (QWidget* w : top->findChildren<QWidget*>()) {
            if (w->isVisible() && w->isEnabled() && !w->visibleRegion().isEmpty() && w->width() > 2 &&
                w->height() > 2) {
                candidates.push_back(w);
            }
        }
        if (candidates.isEmpty()) {
            return top->isVisible() ? top : nullptr;
        }
        return candidates[pick(static_cast<int>(candidates.size()))];
    }

    QPoint randomPoint(const QWidget* w) { return QPoint(pick(w->width()), pick(w->height())); }

    void randomInput(QWidget* top)
    {
        QWidget* w = randomWidget(top);
        if (w == nullptr) {
            return;
        }
        const QPoint at = randomPoint(w);
        const QString where = QStringLiteral("%1 at (%2, %3)").arg(nameOf(w)).arg(at.x()).arg(at.y());
        switch (pick(10)) {
        case 0:
        case 1:
        case 2:
            note(QStringLiteral("click ") + where);
            QTest::mouseClick(w, Qt::LeftButton, Qt::NoModifier, at);
            break;
        case 3:
            note(QStringLiteral("double-click ") + where);
            QTest::mouseDClick(w, Qt::LeftButton, Qt::NoModifier, at);
            break;
        case 4: {
            note(QStringLiteral("drag ") + where);
            QTest::mousePress(w, Qt::LeftButton, Qt::NoModifier, at);
            QPoint p = at;
            for (int i = 0; i < 5; ++i) {
                p += QPoint(pick(41) - 20, pick(41) - 20);
                QTest::mouseMove(w, p);
            }
            QTest::mouseRelease(w, Qt::LeftButton, Qt::NoModifier, p);
            break;
        }
        case 5:
        case 6: {
            const int notches = chance(0.5) ? 1 : -1;
            note(QStringLiteral("wheel %1 ").arg(notches) + where);
            spike::tests::wheel(w, notches, at);
            break;
        }
        case 7: {
            QString typed;
            for (int i = 0, n = 1 + pick(4); i < n; ++i) {
                typed += QString::number(pick(10));
            }
            note(QStringLiteral("type %1 + Return into ").arg(typed) + where);
            QTest::mouseClick(w, Qt::LeftButton, Qt::NoModifier, at);
            if (QWidget* focus = QApplication::focusWidget()) {
                QTest::keyClicks(focus, typed);
                QTest::keyClick(focus, Qt::Key_Return);
            }
            break;
        }
        case 8: {
            const int key = kKeys[static_cast<std::size_t>(pick(static_cast<int>(kKeys.size())))];
            QWidget* focus = QApplication::focusWidget() != nullptr ? QApplication::focusWidget() : w;
            note(QStringLiteral("key %1 to %2").arg(QKeySequence(key).toString(), nameOf(focus)));
            QTest::keyClick(focus, static_cast<Qt::Key>(key));
            break;
        }
        case 9:
            note(QStringLiteral("right-click ") + where);
            QTest::mouseClick(w, Qt::RightButton, Qt::NoModifier, at);
            break;
        }
    }

    void onWindow()
    {
        switch (pick(20)) {
        case 0: {  // a menu or toolbar action
            QList<QAction*> actions;
            for (QAction* a : m_window.findChildren<QAction*>()) {
                if (a->isEnabled() && !a->isSeparator() && !kSkippedActions.contains(a->objectName()) &&
                    a->menu() == nullptr && !a->text().contains(QStringLiteral("Quit"))) {
                    actions.push_back(a);
                }
            }
            if (!actions.isEmpty()) {
                QAction* a = actions[pick(static_cast<int>(actions.size()))];
                note(QStringLiteral("action %1 '%2'").arg(a->objectName(), a->text()));
                a->trigger();
            }
            break;
        }
        case 1: {  // a shortcut
            const QKeyCombination k = kShortcuts[static_cast<std::size_t>(pick(static_cast<int>(kShortcuts.size())))];
            QWidget* focus = QApplication::focusWidget() != nullptr ? QApplication::focusWidget() : &m_window;
            note(QStringLiteral("shortcut %1 to %2").arg(QKeySequence(k).toString(), nameOf(focus)));
            QTest::keyClick(focus, k.key(), k.keyboardModifiers());
            break;
        }
        default:
            randomInput(&m_window);
        }
    }

    void onPopup(QWidget* popup, bool stopping)
    {
        if (stopping || chance(0.3)) {
            note(QStringLiteral("Escape in pop-up ") + nameOf(popup));
            QTest::keyClick(popup, Qt::Key_Escape);
            return;
        }
        if (auto* menu = qobject_cast<QMenu*>(popup)) {
            QList<QAction*> actions;
            for (QAction* a : menu->actions()) {
                if (a->isEnabled() && !a->isSeparator() && a->isVisible() && !kSkippedActions.contains(a->objectName())) {
                    actions.push_back(a);
                }
            }
            if (!actions.isEmpty()) {
                QAction* a = actions[pick(static_cast<int>(actions.size()))];
                const QRect r = menu->actionGeometry(a);
                note(QStringLiteral("menu item '%1'").arg(a->text()));
                QTest::mouseClick(menu, Qt::LeftButton, Qt::NoModifier, r.center());
                return;
            }
        }
        note(QStringLiteral("click in pop-up ") + nameOf(popup));
        QTest::mouseClick(popup, Qt::LeftButton, Qt::NoModifier, randomPoint(popup));
    }

    void onModal(QWidget* modal, bool stopping)
    {
        auto* dialog = qobject_cast<QDialog*>(modal);
        // A file dialog is always cancelled: the monkey never chooses a file.
        if (stopping || qobject_cast<QFileDialog*>(modal) != nullptr || chance(0.25)) {
            note(QStringLiteral("cancel ") + nameOf(modal));
            if (dialog != nullptr) {
                dialog->reject();
            } else {
                QTest::keyClick(modal, Qt::Key_Escape);
            }
            return;
        }
        randomInput(modal);
    }

    MainWindow& m_window;
    std::mt19937 m_rng;
    int m_events = 0;
    int m_depth = 0;
    std::deque<QString> m_history;
};

}  // namespace

class TestGuiMonkey : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);  // recent files and recovery in test folders
        QVERIFY(m_dir.isValid());
        QVERIFY2(examples().size() >= 7, "the bundled examples are missing from the resources");
        for (const QString& name : examples()) {
            const QString to = m_dir.filePath(name);
            QVERIFY(QFile::copy(QStringLiteral(":/examples/") + name, to));
            QFile::setPermissions(to, QFile::ReadOwner | QFile::WriteOwner);
            // One more newline: the user's own file, not a bundled example (which opens as an
            // untitled copy), so that Save writes it as it would a person's model.
            QFile file(to);
            QVERIFY(file.open(QIODevice::Append));
            file.write("\n");
        }
    }

    void randomInputOnEveryExample_data()
    {
        QTest::addColumn<QString>("example");
        for (const QString& name : examples()) {
            QTest::newRow(qPrintable(name)) << name;
        }
    }

    void randomInputOnEveryExample()
    {
        QFETCH(QString, example);
        const double seconds = qEnvironmentVariableIsSet("SPIKE_MONKEY_SECONDS")
                                   ? qEnvironmentVariable("SPIKE_MONKEY_SECONDS").toDouble()
                                   : 12.0;
        const std::uint32_t seed = qEnvironmentVariableIsSet("SPIKE_MONKEY_SEED")
                                       ? qEnvironmentVariable("SPIKE_MONKEY_SEED").toUInt()
                                       : 1U;
        const int budgetMs = static_cast<int>(1000.0 * seconds / examples().size());
        const std::uint32_t exampleSeed = seed * 7919U + static_cast<std::uint32_t>(examples().indexOf(example));

        auto window = std::make_unique<MainWindow>();
        QString error;
        QVERIFY2(window->openModel(m_dir.filePath(example), &error), qPrintable(error));
        window->resize(1300, 850);
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        window->activateWindow();

        Monkey monkey(*window, exampleSeed);
        QElapsedTimer clock;
        clock.start();
        QEventLoop loop;
        QTimer driver;
        driver.setInterval(0);
        // Each event is sent from a one-shot timer of its own, not from the driver's timeout: a
        // timer does not fire again while its handler runs, and an event may open a modal
        // dialog, a menu or a drag with its own event loop, which the driver must keep feeding.
        // (Not a queued call either: posted calls are not always delivered inside a nested loop
        // started from a posted call, and the monkey stalled there.) Once the time is up
        // the monkey closes what is open, the calls return and the top loop ends.
        bool queued = false;
        int inFlight = 0;
        bool reportedLate = false;
        QObject::connect(&driver, &QTimer::timeout, &loop, [&] {
            if (queued) {
                return;
            }
            const bool stopping = clock.elapsed() >= budgetMs;
            if (!reportedLate && clock.elapsed() >= budgetMs + 30000) {
                // Still not back at the top loop half a minute after the time was up: say where
                // it is, so a hang is diagnosed rather than only timed out.
                reportedLate = true;
                qWarning("%s: still running 30 s after its time (%d events sent, %d nested); last events:\n  %s",
                         qPrintable(example), monkey.events(), inFlight, qPrintable(monkey.history()));
            }
            if (stopping && inFlight == 0) {
                loop.quit();
                return;
            }
            if (spike::ui::offThreadWorkRunning()) {
                return;  // a model is being read or a run built: a person's input waits too
            }
            queued = true;
            QTimer::singleShot(0, &loop, [&, stopping] {
                queued = false;
                if (spike::ui::offThreadWorkRunning()) {
                    return;  // began since this was queued
                }
                ++inFlight;
                monkey.step(stopping);
                --inFlight;
                settle();
            });
        });
        driver.start();
        loop.exec();
        driver.stop();
        settle();
        qInfo("%s: seed %u, %d events in %lld ms, window alive", qPrintable(example), exampleSeed,
              monkey.events(), static_cast<long long>(clock.elapsed()));
        if (monkey.events() == 0 || !window->isVisible()) {
            qWarning("last events:\n  %s", qPrintable(monkey.history()));
        }
        QVERIFY2(monkey.events() > 0, "no input was sent");
        QVERIFY2(window->isVisible(), "the main window closed");
        window.reset();  // no close(): a modified document would ask to save
        settle();
    }

private:
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestGuiMonkey)
#include "test_gui_monkey.moc"
