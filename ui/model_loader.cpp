// Model loading for the GUI. See model_loader.hpp.
#include "model_loader.hpp"

#include "engine/error.hpp"
#include "engine/model_io.hpp"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <nlohmann/json.hpp>

#include <exception>
#include <new>

namespace spike::ui {

namespace {

/// "invalid JSON at line L, column C: reason" for a parse error at byte `byte` (1-based).
QString describeParseError(const QByteArray& text, const nlohmann::json::parse_error& e)
{
    int line = 1;
    int column = 1;
    const auto end = std::min<std::size_t>(e.byte > 0 ? e.byte - 1 : 0,
                                           static_cast<std::size_t>(text.size()));
    for (std::size_t i = 0; i < end; ++i) {
        if (text[static_cast<qsizetype>(i)] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    QString reason = QString::fromStdString(e.what());
    const qsizetype colon = reason.lastIndexOf(QStringLiteral(": "));
    if (colon >= 0) {
        reason = reason.mid(colon + 2);
    }
    return QStringLiteral("invalid JSON at line %1, column %2: %3").arg(line).arg(column).arg(reason);
}

LoadedModel failure(QString message)
{
    LoadedModel out;
    out.error = std::move(message);
    return out;
}

}  // namespace

LoadedModel loadModelFromJson(const QByteArray& text, const QString& sourceName,
                              const QString& baseDir)
{
    try {
        const nlohmann::json doc = nlohmann::json::parse(text.constBegin(), text.constEnd());
        LoadedModel out;
        out.root = engine::modelFromJson(doc, sourceName.toStdString(), baseDir.toStdString()).root;
        return out;
    } catch (const nlohmann::json::parse_error& e) {
        return failure(sourceName + QStringLiteral(": ") + describeParseError(text, e));
    } catch (const engine::Error& e) {
        // The engine's messages already start with the source name.
        return failure(QString::fromStdString(e.what()));
    } catch (const std::bad_alloc&) {
        return failure(sourceName + QStringLiteral(": not enough memory to build the model"));
    } catch (const std::exception& e) {
        return failure(sourceName + QStringLiteral(": ") + QString::fromStdString(e.what()));
    }
}

LoadedModel loadModelFrom(const QString& path)
{
    if (path.startsWith(QStringLiteral(":/"))) {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly)) {
            return failure(path + QStringLiteral(": no such bundled model"));
        }
        return loadModelFromJson(file.readAll(), path, QStringLiteral("."));
    }
    try {
        LoadedModel out;
        out.root = engine::loadModelDocument(QFile::encodeName(path).toStdString()).root;
        return out;
    } catch (const engine::Error& e) {
        return failure(QString::fromStdString(e.what()));
    } catch (const std::bad_alloc&) {
        return failure(path + QStringLiteral(": not enough memory to build the model"));
    } catch (const std::exception& e) {
        return failure(path + QStringLiteral(": ") + QString::fromStdString(e.what()));
    }
}

QStringList bundledExamples()
{
    const QDir dir(QStringLiteral(":/examples"));
    QStringList out;
    for (const QString& name :
         dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
        out << dir.filePath(name);
    }
    return out;
}

}  // namespace spike::ui
