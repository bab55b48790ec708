// Plot and recording export. See plot_export.hpp.
#include "ui/plots/plot_export.hpp"

#include "engine/tensor/error.hpp"
#include "engine/tensor/npy.hpp"

#include <qcustomplot.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

namespace spike::ui {

namespace {

/// A sample (float32 widened to double): 9 significant digits read back exactly.
QString number(double v)
{
    return QString::number(v, 'g', 9);
}

/// A time stamp [ms]: step x dt, printed with 15 significant digits, so that it reads as the
/// decimal the steps mean (0.3, not 0.30000000000000004) and still tells steps apart up to
/// 10^14 of them.
QString timeText(double v)
{
    return QString::number(v, 'g', 15);
}

/// Whether every graph has the same keys as the first one.
bool sharedKeys(const QCustomPlot& plot)
{
    if (plot.graphCount() == 0) {
        return false;
    }
    const auto first = plot.graph(0)->data();
    for (int g = 1; g < plot.graphCount(); ++g) {
        const auto other = plot.graph(g)->data();
        if (other->size() != first->size()) {
            return false;
        }
        for (int i = 0; i < first->size(); ++i) {
            if (other->at(i)->key != first->at(i)->key) {
                return false;
            }
        }
    }
    return true;
}

QString quoted(QString text)
{
    return QLatin1Char('"') + text.replace(QLatin1Char('"'), QStringLiteral("\"\"")) + QLatin1Char('"');
}

}  // namespace

QString plotCsv(const QCustomPlot& plot, const QString& keyName)
{
    QString out;
    const QString key = keyName.contains(QLatin1Char(',')) || keyName.contains(QLatin1Char('"')) ? quoted(keyName) : keyName;
    if (sharedKeys(plot)) {
        out += key;
        for (int g = 0; g < plot.graphCount(); ++g) {
            out += QLatin1Char(',') + quoted(plot.graph(g)->name());
        }
        out += QLatin1Char('\n');
        const auto keys = plot.graph(0)->data();
        for (int i = 0; i < keys->size(); ++i) {
            out += timeText(keys->at(i)->key);
            for (int g = 0; g < plot.graphCount(); ++g) {
                out += QLatin1Char(',') + number(plot.graph(g)->data()->at(i)->value);
            }
            out += QLatin1Char('\n');
        }
        return out;
    }
    out += QStringLiteral("series,") + key + QStringLiteral(",value\n");
    for (int g = 0; g < plot.graphCount(); ++g) {
        const QString name = quoted(plot.graph(g)->name());
        const auto data = plot.graph(g)->data();
        for (int i = 0; i < data->size(); ++i) {
            out += name + QLatin1Char(',') + timeText(data->at(i)->key) + QLatin1Char(',') +
                   number(data->at(i)->value) + QLatin1Char('\n');
        }
    }
    return out;
}

bool exportPlot(QCustomPlot& plot, const QString& path, QString* error, const QString& keyName)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    const auto fail = [&](const QString& why) {
        if (error != nullptr) {
            *error = QStringLiteral("%1: %2").arg(QDir::toNativeSeparators(path), why);
        }
        return false;
    };
    if (suffix == QLatin1String("png")) {
        return plot.savePng(path, plot.width(), plot.height(), 2.0) ? true : fail(QStringLiteral("cannot write the PNG file"));
    }
    if (suffix == QLatin1String("pdf")) {
        return plot.savePdf(path, plot.width(), plot.height()) ? true : fail(QStringLiteral("cannot write the PDF file"));
    }
    if (suffix == QLatin1String("csv")) {
        QSaveFile file(path);
        const QByteArray text = plotCsv(plot, keyName).toUtf8();
        if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size() || !file.commit()) {
            return fail(file.errorString());
        }
        return true;
    }
    return fail(QStringLiteral("unknown format '.%1' (expected .png, .pdf or .csv)").arg(suffix));
}

QStringList exportRecording(const engine::Recording& recording, const QString& dir, QString* error)
{
    if (!QDir().mkpath(dir)) {
        if (error != nullptr) {
            *error = QStringLiteral("%1: cannot create the folder").arg(QDir::toNativeSeparators(dir));
        }
        return {};
    }
    QStringList written;
    try {
        for (const auto& [key, series] : engine::flatten(recording)) {
            const QString file = QDir(dir).filePath(QString::fromStdString(key) + QStringLiteral(".npy"));
            engine::npy::save(QFile::encodeName(file).toStdString(), series->data);
            written << file;
        }
    } catch (const engine::Error& e) {
        if (error != nullptr) {
            *error = QString::fromUtf8(e.what());
        }
        return {};
    }
    return written;
}

}  // namespace spike::ui
