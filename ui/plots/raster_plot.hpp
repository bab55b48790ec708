// RasterPlot: spike raster of every spiking module of a model, drawn from spike events (one
// SpikeWindow per module, as LiveRun keeps them, or converted from the dense series of a
// recording), modules stacked top to bottom in tree order, neuron 0 of each at the top of its
// band, with a population-rate strip underneath. showRecording() converts and calls showSpikes():
// there is one drawing path.
// Dots: while the raster holds at most kMaxDots events and kMaxDotRows neurons, each module is
// one QCPGraph of dots (no line), one dot per (time step, neuron) with a spike count >= 1: a
// neuron that fires several spikes in one step is one dot, so dotCount() equals
// SpikeSummary::events and is <= SpikeSummary::spikes.
// Density: above that (10^5 neurons, long windows) each module is one QCPColorMap whose cells
// hold the spike count of their (time bin, neuron bin), drawn from white to the module's colour;
// every spike counts in exactly one cell. Cells aggregate per pixel: at most as many time bins as
// the axis rect is wide (and kMaxColumns) and, shared by the modules in proportion to their
// neurons, as many neuron bins as it is high (and kMaxRows), but never fewer than kMinCellPixels
// of either; a resized widget re-bins on the next showSpikes().
// Time bins are whole steps aligned on multiples of their width (bin c holds steps
// [c x w, (c + 1) x w), clipped to the window), and a map has room for every bin a window of its
// steps can touch (the last one may stay empty, past the time axis). So while a live window
// slides along, a bin already drawn keeps its steps and its cells: each band remembers them
// (keyed by SpikeWindow::id()) and a frame bins only the events of new or clipped bins, then
// refills the cells; the colour maps themselves are kept while the bands and their sizes stay.
// The cost of a frame is the new events plus the cells, never steps x neurons, and once the sizes
// settle it allocates nothing (scratch cells are members swapped with the cache). dotCount() is 0.
// Rate strip: the population rate of all spiking neurons together [Hz] per time bin (one step,
// or enough steps for at most kMaxColumns bins), its time axis following the raster's, binned
// from the events too.
// Thread: GUI thread only; the plot copies what it draws.
#pragma once

#include "ui/plots/plot_style.hpp"

#include "engine/core/recording.hpp"
#include "engine/runtime/spike_window.hpp"

#include <qcustomplot.h>

#include <QSize>
#include <QString>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace spike::ui {

/// A module as the raster shows it: its path and class, in the order the bands are drawn (the
/// model's tree order). ui/window/plot_sources.hpp makes the list from a module tree.
struct RasterModule {
    std::string path;   ///< "" for the root
    QString className;  ///< "LIF", in the band's label
};

/// Spike raster of a whole model.
class RasterPlot : public QCustomPlot {
    Q_OBJECT

public:
    /// Most (time step, neuron) dots drawn one by one; more switch to density cells.
    static constexpr std::int64_t kMaxDots = 200000;
    /// Most neuron rows drawn as dots; more switch to density cells.
    static constexpr std::int64_t kMaxDotRows = 2000;
    /// Density and rate resolution: time bins, and neuron bins over all modules. Density cells
    /// are further limited to the axis rect's pixels (see the file comment).
    static constexpr std::int64_t kMaxColumns = 1200;
    static constexpr std::int64_t kMaxRows = 800;
    /// Fewest density time and neuron bins whatever the widget's size.
    static constexpr std::int64_t kMinCellPixels = 16;

    explicit RasterPlot(QWidget* parent = nullptr);

    /// Draws every spiking series of `recording` in the order of `modules`: converts them to
    /// SpikeWindows (on the time base of the first one's dt) and calls showSpikes().
    void showRecording(const std::vector<RasterModule>& modules, const engine::Recording& recording);
    /// Draws every window of `windows` that covers at least one step, in the order of `modules`
    /// (windows whose path is not among them are left out), time step `dt` [s].
    void showSpikes(const std::vector<RasterModule>& modules, const engine::SpikeWindows& windows, double dt);
    /// Shows only `neurons` (ascending indices) of the spiking module at `path` from the next
    /// showSpikes() on, labelled by their own indices (Plot ▸ Spikes for chosen neurons); an
    /// empty list shows all of them again.
    void setNeuronSelection(const std::string& path, std::vector<std::int64_t> neurons);
    /// Shows every neuron of every module again.
    void clearNeuronSelections() { m_selections.clear(); }
    /// The chosen neurons of the module at `path` (empty: all).
    std::vector<std::int64_t> neuronSelection(const std::string& path) const;
    /// Removes every dot and explains why with `explanation` on the time axis label.
    void showEmpty(const QString& title, const QString& explanation);
    /// Milliseconds (the default) or steps on the time axis, from the next showSpikes() on.
    void setTimeAxis(const TimeAxis& axis);

    /// Dots currently drawn (over all module graphs; 0 in density mode).
    std::int64_t dotCount() const;
    /// Whether the modules are drawn as density cells rather than dots.
    bool densityMode() const { return m_density; }
    /// The population-rate graph [Hz] of the strip under the raster (empty before a recording).
    QCPGraph* rateGraph() const { return m_rate; }
    /// The module bands drawn (dot graphs or colour maps), top to bottom.
    int bandCount() const { return static_cast<int>(m_bands.size()); }
    /// Current title text.
    QString title() const;

private:
    /// One band of the raster: a module's window and where its rows start.
    struct Band {
        QString label;  ///< "path (Type)", or the chosen neurons' "path · k/n"
        QString name;   ///< the path alone: the label when the whole one does not fit
        const std::vector<std::int64_t>* neurons = nullptr;  ///< row n shows neuron (*neurons)[n]
        const engine::SpikeWindow* window = nullptr;
        std::int64_t firstRow = 0;
        std::int64_t cellRows = 0;     ///< density: neuron bins of its colour map
        std::int64_t columns = 0;      ///< density: time bins of its colour map
        std::int64_t stepsPerColumn = 1;
    };
    /// What a density band drew last time: bins [firstColumn, firstColumn + spans.size()).
    struct DensityCache {
        std::uint64_t windowId = 0;
        std::int64_t stepsPerColumn = 0;
        std::int64_t cellRows = 0;
        std::int64_t firstColumn = 0;
        std::vector<std::pair<std::int64_t, std::int64_t>> spans;  ///< steps binned, per bin
        std::vector<double> cells;  ///< [row][bin], spans.size() bins per row
    };

    /// Spike counts a density band's peak histogram holds one by one.
    static constexpr std::int64_t kPeakHistogram = 4096;

    /// The raster's axis rect in pixels, laid out first when the widget's size changed since the
    /// last replot (also while hidden) or it never was.
    QSize cellPixels();
    /// Removes the bands (unless `keepBands`), the rate, the items and the ticks.
    void removeContents(bool keepBands = false);
    // raster_plot_bands.cpp
    /// Band `index` of `count` as a graph of dots.
    void drawDots(const Band& band, int index, int count, double dtMs);
    /// Band `index` of `count` as colour cells, into `map` (kept from the last call) or a new one.
    void drawDensity(const Band& band, int index, int count, double dtMs, QCPColorMap* map);
    /// Fills the rate strip from `bands` (see the file comment).
    void showRate(const std::vector<Band>& bands, std::int64_t neurons, double dt);

    QCPTextElement* m_title = nullptr;
    TimeAxis m_time;
    QSharedPointer<QCPAxisTickerText> m_neuronTicker;
    QSharedPointer<QCPAxisTickerText> m_moduleTicker;
    QCPAxisRect* m_rateRect = nullptr;
    QCPGraph* m_rate = nullptr;
    std::vector<QCPAbstractPlottable*> m_bands;
    std::vector<std::int32_t> m_rowOf;  ///< density: neuron -> cell row of the band being drawn
    std::vector<DensityCache> m_densityCache;  ///< per band, top to bottom
    std::map<std::string, std::vector<std::int64_t>> m_selections;  ///< path -> shown neurons
    std::vector<engine::SpikeWindow> m_selected;  ///< this frame's windows of the chosen neurons only
    std::vector<std::int32_t> m_selectedRow;            ///< neuron -> row among the chosen, or -1
    std::vector<engine::SpikeEvent> m_selectedEvents;   ///< scratch: the chosen neurons' events
    // Density scratch of the band being drawn, reused across frames: spans and cells are swapped
    // with the band's cache; the histogram and large cells find the colour scale's peak.
    std::vector<std::pair<std::int64_t, std::int64_t>> m_spans;
    std::vector<double> m_cells;
    std::vector<std::int64_t> m_keptColumn;  ///< per bin: its column in the cache, or -1
    std::vector<std::int64_t> m_peakHistogram;  ///< filled cells per spike count below kPeakHistogram
    std::vector<double> m_largeCells;           ///< filled cells of kPeakHistogram spikes or more
    bool m_density = false;
};

}  // namespace spike::ui
