// Shared plot look. See plot_style.hpp.
#include "ui/plots/plot_style.hpp"

#include <qcustomplot.h>

#include <array>
#include <cmath>

namespace spike::ui {

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
    plot.xAxis->ticker()->setTickCount(4);  // readable tick labels in narrow panes

    QFont titleFont = plot.font();
    titleFont.setBold(true);
    auto* element = new QCPTextElement(&plot, title, titleFont);
    plot.plotLayout()->insertRow(0);
    plot.plotLayout()->addElement(0, 0, element);
    plot.plotLayout()->setRowStretchFactor(0, 0.001);
    return element;
}

}  // namespace spike::ui
