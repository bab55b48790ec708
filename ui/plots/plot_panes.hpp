// PlotPanes: the live plot area. An optional spike raster and an ordered list of trace panes,
// each a TracePlot under a header row with "Freeze" and "Close" buttons, laid out as grid cells
// (the raster first, then the panes in order; hidden ones take no cell) in gridColumns(cells,
// width) columns inside a scroll area (every pane at least kMinPaneWidth wide and kMinPaneHeight
// high: fewer columns when the area is narrow, and the area scrolls when the rows do not fit).
// One raster and one pane sit side by side when there is room.
// Keys: the caller chooses each trace pane's key (an int, unique among the panes) and gets it
// back in closeRequested(); the panes never remove themselves.
// Linked time axes: when the time range of the raster or of a pane that is not frozen changes
// (user zoom or drag, an update, setTimeRange()), every other pane that is not frozen and the
// raster take the same range; a guard flag stops the echo. Frozen panes neither lead nor follow;
// an unfrozen pane takes the others' range again. The Freeze button and TracePlot::setFrozen()
// stay in step either way.
// Live span: while data arrive, showLive() gives the linked plots the last span() ms of them,
// like an oscilloscope ([0, span] until the data are that long, then [end - span, end]); span 0
// is "whole run" (everything kept). Every trace pane's header has a span box (all show the one
// span), and the mouse wheel on a linked plot's time axis zooms and makes the new width the span.
// Ownership: the widget owns its panes and the raster given to setRaster().
// Thread: GUI thread only.
#pragma once

#include "ui/plots/plot_style.hpp"

#include <QWidget>

#include <vector>

class QComboBox;
class QScrollArea;
class QCustomPlot;
class QCPRange;
class QGridLayout;
class QToolButton;

namespace spike::ui {

class RasterPlot;
class TracePlot;

/// Raster and trace panes with linked time axes.
class PlotPanes : public QWidget {
    Q_OBJECT

public:
    /// Smallest height [px] of a trace pane's plot (and of the raster).
    static constexpr int kMinPaneHeight = 160;
    /// Most grid columns.
    static constexpr int kMaxColumns = 3;
    /// Narrowest a cell [px] gets before the grid drops a column: a plot narrower than this
    /// has no room for its axis labels, legend and ticks.
    static constexpr int kMinPaneWidth = 300;

    explicit PlotPanes(QWidget* parent = nullptr);

    /// Grid columns for `cells` shown cells (raster and panes): 1, 2 or 3 side by side, 4 as
    /// 2 x 2, more in 3.
    static int gridColumns(int cells);
    /// Grid columns for `cells` shown cells in an area `width` [px] wide: gridColumns(cells),
    /// but no more than leave each cell kMinPaneWidth (at least one column).
    static int gridColumns(int cells, int width);

    /// Shows `raster` first, full width, and takes ownership; replaces (and deletes) the raster
    /// set before. nullptr removes it.
    void setRaster(RasterPlot* raster);
    /// The raster shown (nullptr when none).
    RasterPlot* raster() const { return m_raster; }
    /// Shows or hides the raster's cell (a model without spiking modules has nothing to show).
    void setRasterShown(bool shown);
    /// Whether the raster has a cell.
    bool isRasterShown() const { return m_raster != nullptr && m_rasterShown; }
    /// Shows or hides the cell of the pane of `key`; a hidden pane keeps its data and key.
    void setPaneShown(int key, bool shown);
    /// Whether the pane of `key` has a cell (false for an unknown key).
    bool isPaneShown(int key) const;

    /// Adds a trace pane under `key` at the end and returns it; returns the existing pane when
    /// `key` is taken.
    TracePlot* addTracePane(int key);
    /// Removes and deletes the pane of `key` (no-op for an unknown key).
    void removeTracePane(int key);
    /// The pane of `key`, or nullptr.
    TracePlot* tracePane(int key) const;
    /// Keys of the trace panes, in display order.
    std::vector<int> paneKeys() const;
    /// The "Freeze" button of the pane of `key`, or nullptr.
    QToolButton* freezeButton(int key) const;
    /// The "Close" button of the pane of `key`, or nullptr.
    QToolButton* closeButton(int key) const;
    /// Grid columns currently used (follows the width: see gridColumns(cells, width)).
    int columnCount() const { return m_columns; }

    /// Sets the time range [ms] of every pane that is not frozen and of the raster.
    void setTimeRange(double t0Ms, double t1Ms);
    /// The span box's choices [ms], 0 ("whole run") last.
    static const std::vector<double>& spanChoices();
    /// "500 ms", "2 s", "whole run".
    static QString spanLabel(double ms);
    /// A span for a model whose slowest time constant is `tauS` [s]: 25 time constants rounded
    /// up to 1, 2 or 5 x 10^k ms, within [100 ms, 10 s] (20 ms gives 500 ms); 500 ms for
    /// `tauS` <= 0 (none).
    static double defaultSpan(double tauS);
    /// Width of the live window, in time-axis units (0: the whole run); updates every span box.
    void setSpan(double ms);
    double span() const { return m_span; }
    /// The live data cover [historyStartMs, endMs]: the linked plots show the span's window
    /// of it (see the file comment), or all of it for span 0.
    void showLive(double historyStartMs, double endMs);
    /// Milliseconds or steps on every time axis (the raster's, every pane's, new ones'); the
    /// span is in the same units.
    void setTimeAxis(const TimeAxis& axis);
    const TimeAxis& timeAxis() const { return m_time; }
    /// The span box in the header of the pane of `key`, or nullptr.
    QComboBox* spanBox(int key) const;
    /// Queues one replot of every pane and the raster (each replots once however often asked).
    void replotAll();

signals:
    /// The user pressed "Close" on the pane of `key`.
    void closeRequested(int key);
    /// The span changed (a span box, the wheel, setSpan()).
    void spanChanged(double ms);

protected:
    /// Drops or adds grid columns when the scroll area's viewport crosses a multiple of
    /// kMinPaneWidth.
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    struct Pane {
        int key = 0;
        QWidget* frame = nullptr;
        TracePlot* plot = nullptr;
        QToolButton* freeze = nullptr;
        QToolButton* close = nullptr;
        QComboBox* span = nullptr;
        bool shown = true;
    };

    const Pane* find(int key) const;
    void relayout();
    /// Cells shown (the raster when shown, then the shown panes).
    int shownCells() const;
    /// Width [px] the grid's cells share (the scroll area's viewport).
    int gridWidth() const;
    void watchTimeAxis(QCustomPlot* plot);
    /// Gives `range` to every linked plot except `source`.
    void followTime(QCustomPlot* source, const QCPRange& range);
    bool isLinked(const QCustomPlot* plot) const;
    /// An unfrozen `plot` takes the time range of the raster or of another linked pane.
    void rejoin(TracePlot* plot);
    /// Every span box shows m_span (a width from the wheel gets an entry of its own).
    void syncSpanBoxes();

    QScrollArea* m_scroll = nullptr;
    QWidget* m_content = nullptr;
    QGridLayout* m_grid = nullptr;
    RasterPlot* m_raster = nullptr;
    std::vector<Pane> m_panes;
    int m_columns = 1;
    bool m_syncing = false;
    bool m_rasterShown = true;
    double m_span = 500.0;                    ///< [time-axis units], 0: whole run
    TimeAxis m_time;
    QCustomPlot* m_wheelSource = nullptr;     ///< a plot whose wheel zoom is under way
};

}  // namespace spike::ui
