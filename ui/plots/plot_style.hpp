// Shared look of SpikeStudio's plots: series colours, the common axis-rect setup (fixed side
// margins so stacked plots line up their time axes, horizontal-only drag and zoom) and titles;
// a time-axis ticker whose labels never run into each other, and titles and axis labels that
// wrap onto more lines instead of being cut when a pane is narrow.
// Thread: GUI thread only.
#pragma once

#include <QColor>
#include <QString>

#include <qcustomplot.h>

#include <utility>

namespace spike::ui {

/// Left margin [px] of every time plot's axis rect: room for the value axis and its label.
constexpr int kPlotLeftMargin = 64;
/// Right margin [px]: room for threshold labels (traces) and module names (raster).
constexpr int kPlotRightMargin = 84;

/// How the plots show simulated time: in milliseconds, or in steps for a model without a time
/// step (a pure ANN, whose "dt" is a nominal 1 s). Axis coordinate = seconds x perSecond.
struct TimeAxis {
    double perSecond = 1e3;  ///< axis units per simulated second
    bool steps = false;      ///< the axis counts steps

    static TimeAxis milliseconds() { return {}; }
    /// Steps of `dtS` seconds each.
    static TimeAxis stepsOf(double dtS) { return {dtS > 0.0 ? 1.0 / dtS : 1.0, true}; }
    /// The axis title: "time [ms]" or "step".
    QString label() const;
    /// A point on it: "t = 12.5 ms" or "step 12".
    QString at(double x) const;
    /// A width on it: "500 ms", "2 s", "200 steps".
    QString width(double x) const;
    bool operator==(const TimeAxis&) const = default;
};

/// Gives `axis` the title of `to` where it had `from`'s, keeping what followed it (an
/// explanation such as " — press Run…"), whether or not the title was wrapped since.
void retitleTimeAxis(QCPAxis& axis, const TimeAxis& from, const TimeAxis& to);

/// Colour of series `index` out of `count`: distinct, readable on white.
QColor seriesColour(int index, int count);

/// Time-axis ticks: the step is the smallest 1, 2 or 5 x 10^k whose labels, as wide as they
/// are in the axis's font, fit side by side along the axis with a gap (one label on an axis too
/// short for two); labels have as many
/// decimals as the step needs, no exponents ("55856300", not "5.58563·10⁷").
class ReadableTicker : public QCPAxisTicker {
public:
    explicit ReadableTicker(QCPAxis* axis) : m_axis(axis) {}
    /// Step for `range` on an axis `lengthPx` long whose labels are measured in `metrics`.
    static double stepFor(const QCPRange& range, int lengthPx, const QFontMetrics& metrics);
    /// `tick` with the decimals `step` needs.
    static QString label(double tick, double step);

protected:
    double getTickStep(const QCPRange& range) override;
    QString getTickLabel(double tick, const QLocale& locale, QChar formatChar, int precision) override;

private:
    QCPAxis* m_axis;  ///< owns this ticker (through a shared pointer)
    double m_step = 1.0;
};

/// Value-axis ticks of a quantity stored in SI units but read in a prefixed one: ticks are
/// placed on the stored values as QCPAxisTicker places them and labelled `scale` times their
/// value (-0.075 V reads "-75" on an axis labelled [mV]); the data are never rescaled.
class ScaledTicker : public QCPAxisTicker {
public:
    void setScale(double scale) { m_scale = scale; }
    double scale() const { return m_scale; }

protected:
    QString getTickLabel(double tick, const QLocale& locale, QChar formatChar, int precision) override
    {
        return QCPAxisTicker::getTickLabel(tick * m_scale, locale, formatChar, precision);
    }

private:
    double m_scale = 1.0;
};

/// The unit a trace in `units` is read in, and the factor from the stored values to it: volt
/// reads as mV and second as ms (x 1000), the scales neuron models live on; any other unit as
/// it is (x 1).
std::pair<QString, double> displayUnit(const QString& units);

/// `text` broken at spaces into lines no wider than `width` px in `font`; a single word wider
/// than that keeps its own line, elided at the right.
QString wrapToWidth(const QString& text, const QFont& font, int width);

/// Sets up a time plot: fixed side margins, drag/zoom along time only, "time [ms]" axis,
/// and a title row above the axis rect, which it returns (owned by the plot). The time axis
/// gets a ReadableTicker; before every replot the title and the time axis's label are wrapped
/// to the plot's width (whatever text was set last, by whom).
QCPTextElement* setUpTimePlot(QCustomPlot& plot, const QString& title);

}  // namespace spike::ui
