// Shared by the main-window tests (test_main_window, test_main_window_run): the bundled
// examples, an independent engine copy of one, temporary model files and answering the next
// modal dialog.
#pragma once

#include "engine/io/model_io.hpp"

#include <QAbstractButton>
#include <QApplication>
#include <QFile>
#include <QMessageBox>
#include <QTemporaryDir>
#include <QTimer>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>

#include <memory>

namespace spike::tests {

inline const QString kExample = QStringLiteral(":/examples/two_layer_lif.json");

inline const QString kCuba = QStringLiteral(":/examples/cuba_network.json");

inline int treeItemCount(const QTreeWidget& tree)
{
    int n = 0;
    for (QTreeWidgetItemIterator it(const_cast<QTreeWidget*>(&tree)); *it != nullptr; ++it) {
        ++n;
    }
    return n;
}

/// A second, independent copy of the bundled example, built straight from the engine.
inline std::unique_ptr<engine::Module> freshExample()
{
    QFile file(kExample);
    if (!file.open(QIODevice::ReadOnly)) {
        return nullptr;
    }
    const QByteArray text = file.readAll();
    return spike::engine::modelFromJson(nlohmann::json::parse(text.constBegin(), text.constEnd()),
                                        kExample.toStdString(), ".")
        .root;
}

inline QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& text)
{
    const QString path = dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size()) {
        return {};
    }
    return path;
}

/// Clicks the button labelled `text` of the next modal message box, once it is shown.
inline void answerNextDialog(const QString& text)
{
    auto* timer = new QTimer;
    timer->setInterval(10);
    QObject::connect(timer, &QTimer::timeout, timer, [timer, text] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (box == nullptr) {
            return;
        }
        for (QAbstractButton* b : box->buttons()) {
            if (b->text().remove(QLatin1Char('&')) == text) {
                timer->deleteLater();
                timer->stop();
                b->click();
                return;
            }
        }
    });
    timer->start();
}


}  // namespace spike::tests
