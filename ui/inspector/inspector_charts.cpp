// The inspector's two small charts: a histogram of a vector and a heat map of a matrix, both
// painted with QPainter from data computed once per value change (never per paint).
// Thread: GUI thread only.
#include "ui/inspector/inspector_editors.hpp"

#include <QPainter>

#include <algorithm>
#include <cmath>

namespace spike::ui {

namespace {

/// Diverging colour for t in [-1, 1]: blue below zero, white at zero, red above.
QRgb diverging(double t)
{
    t = std::clamp(t, -1.0, 1.0);
    const double a = std::abs(t);
    const QColor end = t < 0.0 ? QColor(59, 76, 192) : QColor(180, 4, 38);
    const auto mix = [a](int from, int to) {
        return static_cast<int>(std::lround(from + (to - from) * a));
    };
    return qRgb(mix(255, end.red()), mix(255, end.green()), mix(255, end.blue()));
}

}  // namespace

HistogramWidget::HistogramWidget(QWidget* parent) : QWidget(parent)
{
    setMinimumHeight(40);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

QSize HistogramWidget::sizeHint() const
{
    return {200, 48};
}

void HistogramWidget::setValues(const float* values, std::int64_t count)
{
    m_counts.assign(kBins, 0);
    if (count == 0) {
        update();
        return;
    }
    const auto [lo, hi] = std::minmax_element(values, values + count);
    m_min = *lo;
    m_max = *hi;
    const double width = m_max - m_min;
    for (std::int64_t i = 0; i < count; ++i) {
        int bin = kBins / 2;
        if (width > 0.0) {
            bin = std::min(kBins - 1, static_cast<int>((values[i] - m_min) / width * kBins));
        }
        ++m_counts[static_cast<std::size_t>(bin)];
    }
    setToolTip(tr("%1 values from %2 to %3 in %4 bins")
                   .arg(count)
                   .arg(m_min, 0, 'g', 7)
                   .arg(m_max, 0, 'g', 7)
                   .arg(kBins));
    update();
}

void HistogramWidget::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const std::int64_t top = m_counts.empty() ? 0 : *std::max_element(m_counts.begin(), m_counts.end());
    if (top == 0) {
        return;
    }
    const double barWidth = static_cast<double>(width()) / kBins;
    const QColor bar = palette().highlight().color();
    for (int b = 0; b < kBins; ++b) {
        const double h = static_cast<double>(m_counts[static_cast<std::size_t>(b)]) / top * (height() - 2);
        p.fillRect(QRectF(b * barWidth + 1.0, height() - h, barWidth - 2.0, h), bar);
    }
}

HeatMapWidget::HeatMapWidget(QWidget* parent) : QWidget(parent)
{
    // Its preview size when there is room, narrower (the picture scaled down, proportions
    // kept) in a narrow inspector.
    setSizePolicy(QSizePolicy::Maximum, QSizePolicy::Fixed);
}

QSize HeatMapWidget::minimumSizeHint() const
{
    const QSize full = sizeHint();
    return {std::min(full.width(), kPreviewSize / 2), full.height()};
}

QSize HeatMapWidget::sizeHint() const
{
    if (m_image.isNull()) {
        return {kPreviewSize, kPreviewSize / 4};
    }
    // The longer side gets kPreviewSize pixels; the shorter keeps the matrix's proportions.
    const double longer = std::max(m_rows, m_cols);
    const int w = std::clamp(static_cast<int>(std::lround(kPreviewSize * m_cols / longer)), 8, kPreviewSize);
    const int h = std::clamp(static_cast<int>(std::lround(kPreviewSize * m_rows / longer)), 8, kPreviewSize);
    return {w, h};
}

void HeatMapWidget::setMatrix(const engine::Tensor& values)
{
    const std::int64_t n = values.numel();
    const std::int64_t rows = values.rank() >= 1 ? values.dim(0) : 1;
    const std::int64_t cols = rows > 0 ? n / rows : 0;
    m_rows = static_cast<double>(rows);
    m_cols = static_cast<double>(cols);
    if (n == 0 || rows == 0 || cols == 0) {
        m_image = QImage();
        updateGeometry();
        update();
        return;
    }
    // Block averages down to at most kPreviewSize pixels a side, one pass over the data.
    const int w = static_cast<int>(std::min<std::int64_t>(cols, kPreviewSize));
    const int h = static_cast<int>(std::min<std::int64_t>(rows, kPreviewSize));
    std::vector<double> sum(static_cast<std::size_t>(w) * h, 0.0);
    std::vector<std::int64_t> count(sum.size(), 0);
    for (std::int64_t r = 0; r < rows; ++r) {
        const std::int64_t y = r * h / rows;
        const float* row = values.data() + r * cols;
        for (std::int64_t c = 0; c < cols; ++c) {
            const std::size_t k = static_cast<std::size_t>(y * w + c * w / cols);
            sum[k] += row[c];
            ++count[k];
        }
    }
    double scale = 0.0;
    for (std::size_t k = 0; k < sum.size(); ++k) {
        sum[k] /= static_cast<double>(std::max<std::int64_t>(count[k], 1));
        scale = std::max(scale, std::abs(sum[k]));
    }
    m_image = QImage(w, h, QImage::Format_RGB32);
    for (int y = 0; y < h; ++y) {
        auto* line = reinterpret_cast<QRgb*>(m_image.scanLine(y));
        for (int x = 0; x < w; ++x) {
            const double v = sum[static_cast<std::size_t>(y) * w + x];
            line[x] = diverging(scale > 0.0 ? v / scale : 0.0);
        }
    }
    setToolTip(tr("%1 x %2 values; blue < 0 < red, scaled to ±%3 (block means)")
                   .arg(rows)
                   .arg(cols)
                   .arg(scale, 0, 'g', 4));
    setFixedHeight(sizeHint().height());
    updateGeometry();
    update();
}

void HeatMapWidget::paintEvent(QPaintEvent*)
{
    if (m_image.isNull()) {
        return;
    }
    QPainter p(this);
    const QSize full = sizeHint();
    const double scale = std::min(1.0, static_cast<double>(width()) / full.width());
    const QRect target(0, 0, static_cast<int>(full.width() * scale), static_cast<int>(full.height() * scale));
    p.drawImage(target, m_image);
    p.setPen(palette().mid().color());
    p.drawRect(target.adjusted(0, 0, -1, -1));
}

}  // namespace spike::ui
