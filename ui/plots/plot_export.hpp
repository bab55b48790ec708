// Exporting what the plots show and what the run recorded: a plot pane as PNG (twice the screen
// resolution), PDF (vector) or CSV (the plotted numbers), and a whole recording as one .npy file
// per series, named PATH.SIGNAL.npy like `spikesim run --out` writes them.
// CSV layout: when every graph holds the same time stamps (the trace plot) one row per time
// stamp, "time_ms" then one column per graph named after it; otherwise (the raster) one row per
// point: "series,time_ms,value". Samples are written with 9 significant digits and time stamps
// with 17, so both read back exactly.
// Thread: GUI thread (QCustomPlot rendering); exportRecording() touches no widget.
#pragma once

#include "engine/core/recording.hpp"

#include <QString>
#include <QStringList>

class QCustomPlot;

namespace spike::ui {

/// The CSV text of `plot`'s graphs (see the file comment); `keyName` heads the key column
/// ("time_ms" for the time plots, "current" for an f-I curve, "value" for a histogram).
QString plotCsv(const QCustomPlot& plot, const QString& keyName = QStringLiteral("time_ms"));

/// Writes `plot` to `path` as PNG, PDF or CSV (plotCsv(plot, keyName)), chosen by the file
/// suffix. On failure returns false with a one-line message naming the file in `error`.
bool exportPlot(QCustomPlot& plot, const QString& path, QString* error = nullptr,
                const QString& keyName = QStringLiteral("time_ms"));

/// Writes every series of `recording` into folder `dir` (created when missing) as
/// PATH.SIGNAL.npy (SIGNAL.npy for the root), data shape as recorded. Returns the files written;
/// on failure an empty list and a one-line message in `error`.
QStringList exportRecording(const engine::Recording& recording, const QString& dir,
                            QString* error = nullptr);

}  // namespace spike::ui
