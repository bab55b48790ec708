// Model loading for the GUI: turns a model file on disk, or a bundled one in the Qt resource
// system (":/examples/NAME.json"), into an engine module tree, or into the engine's one-line
// message for a person. Nothing is kept between calls; no exception leaves these functions.
// Thread: any thread (no widgets are touched); the GUI thread calls them today.
#pragma once

#include "engine/module.hpp"

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <memory>

namespace spike::ui {

/// Outcome of loading a model: the tree, or why there is none.
struct LoadedModel {
    std::unique_ptr<engine::Module> root;  ///< null when loading failed
    QString error;                         ///< one-line message naming the source; empty on success
};

/// Loads a model file; paths starting with ":/" are read from the Qt resource system.
LoadedModel loadModelFrom(const QString& path);

/// Builds a model from JSON text. `sourceName` prefixes every message (as a file path does);
/// `baseDir` resolves relative .npy references.
LoadedModel loadModelFromJson(const QByteArray& text, const QString& sourceName,
                              const QString& baseDir);

/// Resource paths of the bundled example models (":/examples/NAME.json"), sorted by name.
QStringList bundledExamples();

}  // namespace spike::ui
