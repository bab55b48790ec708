// RasterPlot: spike raster of every spiking series in a recording (series flagged `spikes`,
// i.e. each spiking leaf module), modules stacked top to bottom in tree order, neuron 0 of each
// at the top of its band, with a population-rate strip underneath.
// Dots: while the raster holds at most kMaxDots events and kMaxDotRows neurons, each module is
// one QCPGraph of dots (no line), one dot per (time step, neuron) with a spike count >= 1: a
// neuron that fires several spikes in one step is one dot, so dotCount() equals
// SpikeSummary::events and is <= SpikeSummary::spikes.
// Density: above that (10^5 neurons, long windows) each module is one QCPColorMap of at most
// kMaxColumns time bins by a share of kMaxRows neuron bins whose cells hold the spike count of
// their (time bin, neuron bin), drawn from white to the module's colour: the cost is bounded by
// the cells, not the spikes, and every spike still counts. dotCount() is 0 then.
// Rate strip: the population rate of all spiking neurons together [Hz] per time bin (one step,
// or enough steps for at most kMaxColumns bins), its time axis following the raster's.
// Thread: GUI thread only; the plot copies what it draws.
#pragma once

#include "engine/recording.hpp"

#include <qcustomplot.h>

#include <QString>

#include <cstdint>
#include <vector>

namespace spike::engine {
class Module;
}

namespace spike::ui {

/// Spike totals of a recording.
struct SpikeSummary {
    std::int64_t spikes = 0;  ///< sum of all spike counts
    std::int64_t events = 0;  ///< (time step, neuron) pairs with at least one spike
    std::int64_t multi = 0;   ///< events with more than one spike
    int series = 0;           ///< spiking series (one per spiking leaf module)
};

/// Totals over every series of `recording` flagged as spikes.
SpikeSummary summariseSpikes(const engine::Recording& recording);

/// Spike raster of a whole model.
class RasterPlot : public QCustomPlot {
    Q_OBJECT

public:
    /// Most (time step, neuron) dots drawn one by one; more switch to density cells.
    static constexpr std::int64_t kMaxDots = 200000;
    /// Most neuron rows drawn as dots; more switch to density cells.
    static constexpr std::int64_t kMaxDotRows = 2000;
    /// Density and rate resolution: time bins, and neuron bins over all modules.
    static constexpr std::int64_t kMaxColumns = 1200;
    static constexpr std::int64_t kMaxRows = 800;

    explicit RasterPlot(QWidget* parent = nullptr);

    /// Draws every spiking series of `recording` (made by evolving `root`), in tree order.
    void showRecording(const engine::Module& root, const engine::Recording& recording);
    /// Removes every dot and explains why with `explanation` on the time axis label.
    void showEmpty(const QString& title, const QString& explanation);

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
    void removeContents();
    /// Fills the rate strip from `bands` (see the file comment).
    void showRate(const std::vector<const engine::TimeSeries*>& series, std::int64_t neurons);

    QCPTextElement* m_title = nullptr;
    QSharedPointer<QCPAxisTickerText> m_neuronTicker;
    QSharedPointer<QCPAxisTickerText> m_moduleTicker;
    QCPAxisRect* m_rateRect = nullptr;
    QCPGraph* m_rate = nullptr;
    std::vector<QCPAbstractPlottable*> m_bands;
    bool m_density = false;
};

}  // namespace spike::ui
