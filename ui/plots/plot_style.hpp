// Shared look of SpikeStudio's plots: series colours, the common axis-rect setup (fixed side
// margins so stacked plots line up their time axes, horizontal-only drag and zoom) and titles.
// Thread: GUI thread only.
#pragma once

#include <QColor>
#include <QString>

class QCustomPlot;
class QCPTextElement;

namespace spike::ui {

/// Left margin [px] of every time plot's axis rect: room for the value axis and its label.
constexpr int kPlotLeftMargin = 64;
/// Right margin [px]: room for threshold labels (traces) and module names (raster).
constexpr int kPlotRightMargin = 84;

/// Colour of series `index` out of `count`: distinct, readable on white.
QColor seriesColour(int index, int count);

/// Sets up a time plot: fixed side margins, drag/zoom along time only, "time [ms]" axis,
/// and a title row above the axis rect, which it returns (owned by the plot).
QCPTextElement* setUpTimePlot(QCustomPlot& plot, const QString& title);

}  // namespace spike::ui
