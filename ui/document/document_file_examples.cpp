// DocumentFile's recent files (kept in QSettings) and the bundled examples (their titles,
// descriptions and thumbnails from the resources). See document_file.hpp and
// docs/editor-files.md.
#include "ui/document/document_file.hpp"

#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QSettings>

#include <nlohmann/json.hpp>

namespace spike::ui {

namespace {

using Json = nlohmann::json;

constexpr const char* kRecentFilesKey = "recentFiles";

}  // namespace

QList<RecentFile> DocumentFile::recentFileEntries() const
{
    const QStringList stored = QSettings().value(QLatin1String(kRecentFilesKey)).toStringList();
    QList<RecentFile> out;
    QStringList seen;
    for (const QString& path : stored) {
        if (!path.isEmpty() && !seen.contains(path) && out.size() < kMaxRecentFiles) {
            seen << path;
            out.push_back({path, QFileInfo::exists(path)});
        }
    }
    return out;
}

QStringList DocumentFile::recentFiles() const
{
    QStringList out;
    for (const RecentFile& entry : recentFileEntries()) {
        if (entry.exists) {
            out << entry.path;
        }
    }
    return out;
}

void DocumentFile::addRecentFile(const QString& path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList list;
    for (const RecentFile& entry : recentFileEntries()) {
        if (entry.path != absolute) {
            list << entry.path;
        }
    }
    list.prepend(absolute);
    while (list.size() > kMaxRecentFiles) {
        list.removeLast();
    }
    QSettings().setValue(QLatin1String(kRecentFilesKey), list);
    Q_EMIT recentFilesChanged();
}

void DocumentFile::clearRecentFiles()
{
    QSettings().remove(QLatin1String(kRecentFilesKey));
    Q_EMIT recentFilesChanged();
}

namespace {

/// The top-level "description" of the bundled model at `path` (empty when it has none or cannot
/// be read), read once per process: the examples' files do not change while it runs.
QString exampleDescription(const QString& path)
{
    static QHash<QString, QString> cache;
    if (const auto it = cache.constFind(path); it != cache.constEnd()) {
        return *it;
    }
    QString description;
    QFile file(path);
    if (file.open(QIODevice::ReadOnly)) {
        const QByteArray text = file.readAll();
        const Json j = Json::parse(text.constBegin(), text.constEnd(), nullptr, false);
        if (j.is_object() && j.contains("description") && j.at("description").is_string()) {
            description = QString::fromStdString(j.at("description").get<std::string>()).simplified();
        }
    }
    cache.insert(path, description);
    return description;
}

}  // namespace

QList<ExampleModel> DocumentFile::examples()
{
    const QList<ExampleModel> all{
        {tr("LIF neuron and a current step"), QStringLiteral(":/examples/lif_current_step.json"), {}, {}},
        {tr("LIF versus LIFRefrac"), QStringLiteral(":/examples/lif_vs_lifrefrac.json"), {}, {}},
        {tr("Rheobase and f-I curve"), QStringLiteral(":/examples/fi_curve.json"), {}, {}},
        {tr("Parameter sweep: tau_mem against threshold"), QStringLiteral(":/examples/parameter_sweep.json"), {}, {}},
        {tr("Poisson-driven LIF layer"), QStringLiteral(":/examples/poisson_feedforward.json"), {}, {}},
        {tr("Two-layer LIF"), QStringLiteral(":/examples/two_layer_lif.json"), {}, {}},
        {tr("CUBA network"), QStringLiteral(":/examples/cuba_network.json"), {}, {}},
        {tr("Izhikevich firing patterns"), QStringLiteral(":/examples/izhikevich_presets.json"), {}, {}},
        {tr("LIFRefrac written as equations"), QStringLiteral(":/examples/lifrefrac_as_equations.json"), {}, {}},
        {tr("COBA network (conductance-based)"), QStringLiteral(":/examples/coba_network.json"), {}, {}},
        {tr("Dynamics network driven by a sine input"), QStringLiteral(":/examples/dynamics_network_driven.json"), {}, {}},
        {tr("Dynamics network (reference weights)"), QStringLiteral(":/examples/dynamics_network.json"), {}, {}},
    };
    QList<ExampleModel> out;
    for (ExampleModel e : all) {
        if (!QFile::exists(e.path)) {
            continue;
        }
        e.summary = exampleDescription(e.path);
        const QString thumbnail =
            QStringLiteral(":/examples/thumbnails/%1.png").arg(QFileInfo(e.path).completeBaseName());
        if (QFile::exists(thumbnail)) {
            e.thumbnail = thumbnail;
        }
        out << e;
    }
    return out;
}

}  // namespace spike::ui
