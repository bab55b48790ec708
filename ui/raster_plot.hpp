// RasterPlot: spike raster of every spiking series in a recording (series flagged `spikes`,
// i.e. each spiking leaf module), modules stacked top to bottom in tree order, neuron 0 of each
// at the top of its band. Each module is one QCPGraph of dots (no line), one dot per
// (time step, neuron) with a spike count >= 1: a neuron that fires several spikes in one step
// is one dot, so dotCount() equals SpikeSummary::events and is <= SpikeSummary::spikes.
// Thread: GUI thread only; the plot copies what it draws.
#pragma once

#include "engine/recording.hpp"

#include <qcustomplot.h>

#include <QString>

#include <cstdint>

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
    explicit RasterPlot(QWidget* parent = nullptr);

    /// Draws every spiking series of `recording` (made by evolving `root`), in tree order.
    void showRecording(const engine::Module& root, const engine::Recording& recording);
    /// Removes every dot and explains why with `explanation` on the time axis label.
    void showEmpty(const QString& title, const QString& explanation);

    /// Dots currently drawn (over all graphs).
    std::int64_t dotCount() const;
    /// Current title text.
    QString title() const;

private:
    void removeContents();

    QCPTextElement* m_title = nullptr;
    QSharedPointer<QCPAxisTickerText> m_neuronTicker;
    QSharedPointer<QCPAxisTickerText> m_moduleTicker;
};

}  // namespace spike::ui
