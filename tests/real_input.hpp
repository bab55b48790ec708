// Real input for widget tests: events that take the path a person's input takes. Mouse clicks
// and key presses go through QTest (spontaneous events through QApplication::notify); a wheel
// turn is a spontaneous QWheelEvent delivered to the widget under the point, so it propagates to
// the parents as the window system's would (QTest has no wheel function). Also the one list of
// the bundled examples, and walking a context menu by keys. Shared by the widget tests.
#pragma once

#include <QAbstractSpinBox>
#include <QApplication>
#include <QDir>
#include <QMenu>
#include <QTimer>
#include <QScrollArea>
#include <QSpontaneKeyEvent>
#include <QWheelEvent>
#include <QtTest/QtTest>

namespace spike::tests {

/// Every bundled example (":/examples/<name>.json"), sorted by name: a new example is
/// exercised by the GUI tests without editing them.
inline QStringList bundledExamples()
{
    QStringList paths;
    const QDir dir(QStringLiteral(":/examples"));
    for (const QString& name : dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
        paths << dir.filePath(name);
    }
    return paths;
}

/// Lets posted events run, deferred deletes included, so that a widget deleted "later" is gone
/// before the next event (the moment a dangling pointer would be used).
inline void settle()
{
    QCoreApplication::sendPostedEvents();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    QCoreApplication::processEvents();
}

/// Scrolls every scroll area around `w` so that `w` is on screen.
inline void bringIntoView(QWidget* w)
{
    for (QWidget* p = w->parentWidget(); p != nullptr; p = p->parentWidget()) {
        if (auto* area = qobject_cast<QScrollArea*>(p)) {
            area->ensureWidgetVisible(w, 10, 10);
        }
    }
    settle();
}

/// One notch of the mouse wheel at `pos` of `w` (down for a negative `notches`), delivered to the
/// deepest widget under that point like a window system's wheel event.
inline void wheel(QWidget* w, int notches, QPoint pos = {})
{
    if (pos.isNull()) {
        pos = w->rect().center();
    }
    QWidget* target = w->childAt(pos);
    if (target == nullptr) {
        target = w;
    }
    const QPoint local = target->mapFrom(w, pos);
    QWheelEvent event(QPointF(local), QPointF(target->mapToGlobal(local)), QPoint(),
                      QPoint(0, 120 * notches), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    // notify(), not sendEvent(): sendEvent clears the spontaneous flag, and Qt propagates only
    // spontaneous wheel events to the parents (as QTest does for keys).
    QSpontaneKeyEvent::setSpontaneous(&event);
    QApplication::instance()->notify(target, &event);
    settle();
}

/// Clicks the up (or down) arrow of a spin box, where the style draws it.
inline void clickSpinArrow(QAbstractSpinBox* spin, bool up)
{
    // Both arrows sit in the right-hand button column, up above down, in every Qt style.
    const int x = spin->width() - 6;
    const int y = up ? spin->height() / 4 : spin->height() * 3 / 4;
    QTest::mouseClick(spin, Qt::LeftButton, Qt::NoModifier, QPoint(x, y));
    settle();
}

/// Clicks into `w` (giving it the focus), selects its text and types `text`.
inline void typeInto(QWidget* w, const QString& text)
{
    QTest::mouseClick(w, Qt::LeftButton, Qt::NoModifier, w->rect().center());
    QTest::keyClick(w, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(w, text);
}

/// Walks the open context menu by keys to `top` ▸ `entry` and presses Return (on a timer, since
/// the menu's exec() blocks). Sets `done` once the entry was activated.
inline void chooseFromContextMenu(const QString& top, const QString& entry, bool& done)
{
    auto* timer = new QTimer;
    timer->setInterval(20);
    QObject::connect(timer, &QTimer::timeout, timer, [timer, top, entry, &done] {
        auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget());
        if (menu == nullptr) {
            return;
        }
        const QString active = menu->activeAction() != nullptr
                                   ? menu->activeAction()->text() : QString();
        if (menu->title() == top) {  // the submenu is open
            if (active == entry) {
                timer->stop();
                timer->deleteLater();
                QTest::keyClick(menu, Qt::Key_Return);
                done = true;
            } else {
                QTest::keyClick(menu, Qt::Key_Down);
            }
            return;
        }
        QTest::keyClick(menu, active == top ? Qt::Key_Right : Qt::Key_Down);
    });
    timer->start();
}

}  // namespace spike::tests
