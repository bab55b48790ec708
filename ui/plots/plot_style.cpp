// Shared plot look. See plot_style.hpp.
#include "ui/plots/plot_style.hpp"

#include <qcustomplot.h>

#include <QFontMetrics>
#include <QLocale>

#include <algorithm>
#include <array>
#include <cmath>

namespace spike::ui {

QString TimeAxis::label() const
{
    return steps ? QObject::tr("step") : QObject::tr("time [ms]");
}

QString TimeAxis::at(double x) const
{
    return steps ? QObject::tr("step %L1").arg(std::llround(x)) : QObject::tr("t = %1 ms").arg(x, 0, 'g', 6);
}

QString TimeAxis::width(double x) const
{
    if (steps) {
        return QObject::tr("%L1 steps").arg(std::llround(x));
    }
    if (x >= 1000.0) {
        return QObject::tr("%1 s").arg(QLocale().toString(x / 1000.0, 'g', 3));
    }
    return QObject::tr("%1 ms").arg(QLocale().toString(x, 'g', 3));
}

void retitleTimeAxis(QCPAxis& axis, const TimeAxis& from, const TimeAxis& to)
{
    // The full text when setUpTimePlot()'s fitting wrapped what is shown.
    const QString shown = axis.label();
    const QString full = shown == axis.property("spike.wrapped").toString() ? axis.property("spike.full").toString() : shown;
    axis.setLabel(full.startsWith(from.label()) ? to.label() + full.mid(from.label().size()) : to.label());
}

QColor seriesColour(int index, int count)
{
    // Ten well-separated hues for small counts.
    static constexpr std::array<QRgb, 10> kQualitative{
        0x1f77b4, 0xd62728, 0x2ca02c, 0xff7f0e, 0x9467bd,
        0x17becf, 0x8c564b, 0xe377c2, 0x7f7f7f, 0xbcbd22,
    };
    if (count <= static_cast<int>(kQualitative.size())) {
        return QColor(kQualitative[static_cast<std::size_t>(index) % kQualitative.size()]);
    }
    // Golden-angle hue steps keep neighbours apart; alternating value separates them further.
    const double hue = std::fmod(static_cast<double>(index) * 137.508, 360.0);
    const int value = index % 2 == 0 ? 205 : 150;
    return QColor::fromHsv(static_cast<int>(hue), 210, value);
}

namespace {

/// Wraps the text an element shows to `width`: the text set last by anyone is the full one
/// (kept in a property), unless it is the wrapped text this function set itself.
template <typename Set>
void fitText(QObject& holder, const QFont& font, int width, const QString& shown, Set set)
{
    if (shown != holder.property("spike.wrapped").toString()) {
        holder.setProperty("spike.full", shown);
    }
    const QString wrapped = wrapToWidth(holder.property("spike.full").toString(), font, width);
    holder.setProperty("spike.wrapped", wrapped);
    if (wrapped != shown) {
        set(wrapped);
    }
}

}  // namespace

std::pair<QString, double> displayUnit(const QString& units)
{
    if (units == QLatin1String("volt") || units == QLatin1String("V")) {
        return {QStringLiteral("mV"), 1e3};
    }
    if (units == QLatin1String("second") || units == QLatin1String("s")) {
        return {QStringLiteral("ms"), 1e3};
    }
    return {units, 1.0};
}

QCPTextElement* setUpTimePlot(QCustomPlot& plot, const QString& title)
{
    plot.setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot.setNoAntialiasingOnDrag(true);
    QCPAxisRect* rect = plot.axisRect();
    rect->setRangeDrag(Qt::Horizontal);
    rect->setRangeZoom(Qt::Horizontal);
    rect->setAutoMargins(QCP::msTop | QCP::msBottom);
    rect->setMargins(QMargins(kPlotLeftMargin, 0, kPlotRightMargin, 0));
    plot.xAxis->setLabel(QObject::tr("time [ms]"));
    plot.xAxis->setTicker(QSharedPointer<ReadableTicker>::create(plot.xAxis));

    QFont titleFont = plot.font();
    titleFont.setBold(true);
    auto* element = new QCPTextElement(&plot, title, titleFont);
    plot.plotLayout()->insertRow(0);
    plot.plotLayout()->addElement(0, 0, element);
    plot.plotLayout()->setRowStretchFactor(0, 0.001);
    QObject::connect(&plot, &QCustomPlot::beforeReplot, element, [&plot, element] {
        const int width = plot.width() - kPlotLeftMargin - kPlotRightMargin;
        fitText(*element, element->font(), plot.width() - 8, element->text(),
                [element](const QString& t) { element->setText(t); });
        fitText(*plot.xAxis, plot.xAxis->labelFont(), std::max(width, 40), plot.xAxis->label(),
                [&plot](const QString& t) { plot.xAxis->setLabel(t); });
    });
    return element;
}

double ReadableTicker::stepFor(const QCPRange& range, int lengthPx, const QFontMetrics& metrics)
{
    constexpr int kGap = 14;  // [px] between neighbouring labels
    const double size = range.size();
    if (!(size > 0.0) || !std::isfinite(size)) {
        return 1.0;
    }
    static constexpr double kMantissas[] = {1.0, 2.0, 5.0};
    for (int e = static_cast<int>(std::floor(std::log10(size))) - 3;; ++e) {
        for (const double m : kMantissas) {
            const double step = m * std::pow(10.0, e);
            const int widest = std::max(metrics.horizontalAdvance(label(range.lower, step)),
                                        metrics.horizontalAdvance(label(range.upper, step)));
            const double labels = std::floor(size / step) + 1.0;
            if (labels * (widest + kGap) <= lengthPx || labels <= 1.0) {
                return step;
            }
        }
    }
}

QString ReadableTicker::label(double tick, double step)
{
    const int decimals = step >= 1.0 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
    if (std::fabs(tick) < step * 1e-6) {
        tick = 0.0;  // not "-0"
    }
    return QString::number(tick, 'f', decimals);
}

double ReadableTicker::getTickStep(const QCPRange& range)
{
    // Ticks are made before the layout of the replot that shows them: the axis rect still has
    // its size from the previous layout (before a resize). Time plots have fixed side margins,
    // so the plot's own width minus those is the axis length this replot will have.
    // (The smaller of the two: an axis inside another layout element, such as a colour
    // scale's, is narrower than the plot minus the margins.)
    QCPAxisRect* rect = m_axis->axisRect();
    const QMargins margins = rect->margins();
    int length = rect->height();
    if (m_axis->orientation() == Qt::Horizontal) {
        const int fromPlot = rect->parentPlot()->width() - margins.left() - margins.right();
        length = rect->width() > 0 ? std::min(rect->width(), fromPlot) : fromPlot;
    }
    length = std::max(length, 40);
    m_step = stepFor(range, length, QFontMetrics(m_axis->tickLabelFont()));
    return m_step;
}

QString ReadableTicker::getTickLabel(double tick, const QLocale&, QChar, int)
{
    return label(tick, m_step);
}

QString wrapToWidth(const QString& text, const QFont& font, int width)
{
    const QFontMetrics metrics(font);
    QStringList lines;
    for (const QString& paragraph : text.split(QLatin1Char('\n'))) {
        QString line;
        for (const QString& word : paragraph.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
            const QString candidate = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
            if (line.isEmpty() || metrics.horizontalAdvance(candidate) <= width) {
                line = candidate;
            } else {
                lines << line;
                line = word;
            }
        }
        lines << line;
    }
    for (QString& line : lines) {
        line = metrics.elidedText(line, Qt::ElideRight, std::max(width, 1));
    }
    return lines.join(QLatin1Char('\n'));
}

}  // namespace spike::ui
