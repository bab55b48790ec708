// The inspector's value editors. See inspector_editors.hpp. The histogram and heat map are
// painted in inspector_charts.cpp.
#include "ui/inspector/inspector_editors.hpp"
#include "ui/inspector/number_spin_box.hpp"

#include "engine/tensor/random.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

namespace spike::ui {

namespace {

constexpr double kHuge = NumberSpinBox::kUnbounded;  // spin-box range where a bound is infinite

QString number(double v)
{
    return QString::number(v, 'g', 7);
}

struct Stats {
    double min = 0.0, max = 0.0, mean = 0.0, std = 0.0;
    std::int64_t nonZeros = 0;
};

Stats statsOf(const engine::Tensor& t)
{
    Stats s;
    const std::int64_t n = t.numel();
    if (n == 0) {
        return s;
    }
    s.min = s.max = t[0];
    double sum = 0.0;
    for (std::int64_t i = 0; i < n; ++i) {
        const double v = t[i];
        s.min = std::min(s.min, v);
        s.max = std::max(s.max, v);
        sum += v;
        s.nonZeros += v != 0.0 ? 1 : 0;
    }
    s.mean = sum / static_cast<double>(n);
    double sq = 0.0;
    for (std::int64_t i = 0; i < n; ++i) {
        sq += (t[i] - s.mean) * (t[i] - s.mean);
    }
    s.std = std::sqrt(sq / static_cast<double>(n));
    return s;
}

}  // namespace

// ---- AttributeEditor ---------------------------------------------------------------------------

AttributeEditor::AttributeEditor(engine::AttributeSpec spec, QWidget* parent)
    : QWidget(parent), m_spec(std::move(spec))
{
}

AttributeEditor::Kind AttributeEditor::kindFor(const engine::AttributeSpec& spec,
                                               const engine::AttributeValue& value)
{
    const auto* t = std::get_if<engine::Tensor>(&value);
    if (spec.type == engine::ValueType::Enum || t == nullptr) {
        return Kind::Enum;
    }
    if (t->rank() >= 2) {
        return Kind::Matrix;
    }
    return t->numel() == 1 ? Kind::Scalar : Kind::Vector;
}

AttributeEditor* AttributeEditor::create(const engine::AttributeSpec& spec,
                                         const engine::AttributeValue& value, QWidget* parent)
{
    AttributeEditor* editor = nullptr;
    switch (kindFor(spec, value)) {
    case Kind::Enum: editor = new EnumEditor(spec, parent); break;
    case Kind::Scalar: editor = new ScalarEditor(spec, std::get<engine::Tensor>(value), parent); break;
    case Kind::Vector:
    case Kind::Matrix: editor = new ArrayEditor(spec, std::get<engine::Tensor>(value), parent); break;
    }
    editor->showValue(value);
    return editor;
}

void AttributeEditor::setDerived(bool derived)
{
    m_derived = derived;
    setEnabled(!derived);
    QFont f = font();
    f.setItalic(derived);
    setFont(f);
}

bool AttributeEditor::commit(const engine::AttributeValue& value, const QString& step)
{
    return m_commit ? m_commit(value, step) : false;
}

void AttributeEditor::guardWheel(QWidget* input)
{
    input->setFocusPolicy(Qt::StrongFocus);
    input->installEventFilter(this);
}

bool AttributeEditor::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() == QEvent::Wheel) {
        auto* input = qobject_cast<QWidget*>(watched);
        if (input != nullptr && !input->hasFocus()) {
            // Not delivered to the input; ignored, so QApplication hands it to the parents up
            // to the scroll area, which scrolls.
            event->ignore();
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

// ---- EnumEditor --------------------------------------------------------------------------------

EnumEditor::EnumEditor(const engine::AttributeSpec& spec, QWidget* parent)
    : AttributeEditor(spec, parent), m_combo(new QComboBox(this))
{
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_combo);
    for (const auto& choice : m_spec.choices) {
        m_combo->addItem(QString::fromStdString(choice));
    }
    // May be narrower than the longest choice (the inspector fits its dock); the list that
    // drops down is as wide as the choices.
    m_combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_combo->setMinimumContentsLength(8);
    guardWheel(m_combo);
    connect(m_combo, &QComboBox::currentIndexChanged, this, [this](int index) {
        // A choice is a step of its own (switching modes twice is two steps to undo).
        if (index >= 0) {
            commit(m_combo->itemText(index).toStdString(),
                   tr("Set %1 to %2").arg(QString::fromStdString(m_spec.name), m_combo->itemText(index)));
        }
    });
}

void EnumEditor::showValue(const engine::AttributeValue& value)
{
    const QSignalBlocker block(m_combo);
    if (const auto* s = std::get_if<std::string>(&value)) {
        m_combo->setCurrentIndex(m_combo->findText(QString::fromStdString(*s)));
    }
}

// ---- ScalarEditor ------------------------------------------------------------------------------

ScalarEditor::ScalarEditor(const engine::AttributeSpec& spec, const engine::Tensor& value,
                           QWidget* parent)
    : AttributeEditor(spec, parent), m_shape(value.shape())
{
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    const engine::Bounds& b = m_spec.bounds;
    const double lower = std::isfinite(b.lower) ? b.lower : -kHuge;
    const double upper = std::isfinite(b.upper) ? b.upper : kHuge;
    if (m_spec.type == engine::ValueType::Boolean) {
        m_check = new QCheckBox(this);
        layout->addWidget(m_check);
        layout->addStretch(1);
        connect(m_check, &QCheckBox::toggled, this, [this](bool on) {
            commit(engine::Tensor(m_shape, on ? 1.0F : 0.0F),
                   tr("Set %1").arg(QString::fromStdString(m_spec.name)));
        });
        return;
    }
    // Integers too get a double spin box (stepping by 1): a derived integer attribute (LIF's
    // dash_mem while tau_mem sets the leak) holds a converted, non-integral value that a
    // QSpinBox would misstate. A typed fraction is refused by the engine with its message.
    auto* number = new NumberSpinBox(this);
    number->setSoftRange(lower, upper);
    m_real = number;
    if (m_spec.type == engine::ValueType::Integer) {
        m_real->setStepType(QAbstractSpinBox::DefaultStepType);
        m_real->setSingleStep(1.0);
    }
    m_real->setKeyboardTracking(false);
    m_real->setMinimumWidth(80);
    guardWheel(m_real);
    layout->addWidget(m_real);
    connect(m_real, &QDoubleSpinBox::valueChanged, this, [this](double v) { commitNumber(v); });
    m_slider = new QSlider(Qt::Horizontal, this);
    m_slider->setRange(0, kSliderSteps);
    m_slider->setMinimumWidth(40);
    guardWheel(m_slider);
    layout->addWidget(m_slider, 1);
    chooseSliderRange(value.numel() > 0 ? value[0] : 0.0);
    connect(m_slider, &QSlider::valueChanged, this,
            [this](int position) { commitNumber(valueAt(position)); });
}

void ScalarEditor::chooseSliderRange(double v)
{
    const engine::Bounds& b = m_spec.bounds;
    const bool strictlyPositive = b.lower > 0.0 || (b.lower == 0.0 && !b.lowerInclusive);
    const double decades = std::isfinite(b.upper) && b.lower > 0.0
                               ? std::log10(b.upper / b.lower)
                               : std::numeric_limits<double>::infinity();
    m_log = strictlyPositive && (m_spec.family == "taus" || decades >= 3.0);
    if (m_log) {
        const double mag = v > 0.0 ? v : 1.0;
        m_lo = b.lower > 0.0 ? b.lower : mag / 100.0;
        m_hi = std::isfinite(b.upper) ? b.upper : mag * 100.0;
        m_lo = std::min(m_lo, mag);
        m_hi = std::max(m_hi, m_lo * 10.0);
    } else {
        const double mag = std::max(std::abs(v), 1.0);
        m_lo = std::isfinite(b.lower) ? b.lower : std::min(v, 0.0) - 2.0 * mag;
        m_hi = std::isfinite(b.upper) ? b.upper : std::max(v, m_lo) + 2.0 * mag;
        if (m_hi <= m_lo) {
            m_hi = m_lo + 1.0;
        }
    }
}

double ScalarEditor::valueAt(int position) const
{
    const double t = static_cast<double>(position) / kSliderSteps;
    double v = m_log ? m_lo * std::pow(m_hi / m_lo, t) : m_lo + (m_hi - m_lo) * t;
    if (m_spec.type == engine::ValueType::Integer) {
        v = std::nearbyint(v);
    }
    return v;
}

int ScalarEditor::positionOf(double v) const
{
    double t = 0.0;
    if (m_log) {
        t = v > 0.0 ? std::log(v / m_lo) / std::log(m_hi / m_lo) : 0.0;
    } else {
        t = (v - m_lo) / (m_hi - m_lo);
    }
    return static_cast<int>(std::lround(std::clamp(t, 0.0, 1.0) * kSliderSteps));
}

void ScalarEditor::showValue(const engine::AttributeValue& value)
{
    const auto* t = std::get_if<engine::Tensor>(&value);
    if (t == nullptr || t->numel() != 1) {
        return;
    }
    m_shape = t->shape();
    showNumber((*t)[0]);
}

void ScalarEditor::showNumber(double v)
{
    if (m_check != nullptr) {
        const QSignalBlocker block(m_check);
        m_check->setChecked(v != 0.0);
        return;
    }
    if (m_real != nullptr) {
        const QSignalBlocker block(m_real);
        if (auto* number = dynamic_cast<NumberSpinBox*>(m_real)) {
            number->showNumber(v);
        } else {
            m_real->setValue(v);
        }
    }
    if (!std::isfinite(v)) {
        return;  // the slider keeps its place
    }
    if (v < m_lo || v > m_hi || (m_log && v <= 0.0)) {
        chooseSliderRange(v);
    }
    // A slider the user is dragging stays where the hand put it.
    if (!m_slider->isSliderDown()) {
        const QSignalBlocker block(m_slider);
        m_slider->setValue(positionOf(v));
    }
}

void ScalarEditor::commitNumber(double v)
{
    commit(engine::Tensor(m_shape, static_cast<float>(v)));
}

// ---- ArrayEditor -------------------------------------------------------------------------------

ArrayEditor::ArrayEditor(const engine::AttributeSpec& spec, const engine::Tensor& value,
                         QWidget* parent)
    : AttributeEditor(spec, parent), m_value(value), m_matrix(value.rank() >= 2)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* line = new QHBoxLayout;
    m_expand = new QToolButton(this);
    m_expand->setCheckable(true);
    m_expand->setArrowType(Qt::RightArrow);
    m_expand->setToolTip(tr("Show the values and the whole-array actions"));
    m_summary = new QLabel(this);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setWordWrap(true);
    m_summary->setMinimumWidth(80);
    line->addWidget(m_expand);
    line->addWidget(m_summary, 1);
    layout->addLayout(line);
    if (m_matrix) {
        m_heatMap = new HeatMapWidget(this);
        layout->addWidget(m_heatMap, 0, Qt::AlignLeft);
    }

    // Details, hidden until expanded: histogram (vectors), table (built on demand), actions.
    m_details = new QWidget(this);
    auto* details = new QVBoxLayout(m_details);
    details->setContentsMargins(0, 0, 0, 0);
    if (!m_matrix) {
        m_histogram = new HistogramWidget(m_details);
        details->addWidget(m_histogram);
    }
    // Two by two, so that the actions fit a narrow inspector.
    auto* actions = new QGridLayout;
    auto* setAll = new QPushButton(tr("Set all…"), m_details);
    auto* scale = new QPushButton(tr("Scale…"), m_details);
    auto* randomise = new QPushButton(tr("Randomise…"), m_details);
    randomise->setToolTip(tr("Moves every value uniformly within ± a percentage of itself"));
    m_seed = new QSpinBox(m_details);
    m_seed->setRange(0, std::numeric_limits<int>::max());
    m_seed->setPrefix(tr("seed "));
    m_seed->setMinimumWidth(72);  // not as wide as the largest seed: the field scrolls
    m_seed->setToolTip(tr("Seed of Randomise: the same seed gives the same values"));
    guardWheel(m_seed);
    int cell = 0;
    for (QWidget* w : {static_cast<QWidget*>(setAll), static_cast<QWidget*>(scale),
                       static_cast<QWidget*>(randomise), static_cast<QWidget*>(m_seed)}) {
        actions->addWidget(w, cell / 2, cell % 2);
        m_actions.push_back(w);
        ++cell;
    }
    actions->setColumnStretch(2, 1);
    details->addLayout(actions);
    layout->addWidget(m_details);
    m_details->setVisible(false);

    connect(m_expand, &QToolButton::toggled, this, [this](bool on) { setExpanded(on); });
    connect(setAll, &QPushButton::clicked, this, [this] { askSetAll(); });
    connect(scale, &QPushButton::clicked, this, [this] { askScale(); });
    connect(randomise, &QPushButton::clicked, this, [this] { askRandomise(); });
}

void ArrayEditor::showValue(const engine::AttributeValue& value)
{
    const auto* t = std::get_if<engine::Tensor>(&value);
    if (t == nullptr) {
        return;
    }
    if (t->identical(m_value) && !m_summary->text().isEmpty()) {
        return;  // unchanged (every row is re-read after any edit of the module)
    }
    m_value = *t;
    const Stats s = statsOf(m_value);
    const QString shape = QString::fromStdString(m_value.shape().toString());
    if (m_matrix) {
        m_summary->setText(tr("%1  min %2  max %3  mean %4  std %5  non-zeros %6")
                               .arg(shape, number(s.min), number(s.max), number(s.mean),
                                    number(s.std))
                               .arg(s.nonZeros));
        m_heatMap->setMatrix(m_value);
    } else {
        m_summary->setText(tr("%1  min %2 / mean %3 / max %4")
                               .arg(shape, number(s.min), number(s.mean), number(s.max)));
    }
    if (m_histogram != nullptr && m_details->isVisible()) {
        m_histogram->setValues(m_value.data(), m_value.numel());
    }
    if (m_table != nullptr) {
        fillTable();
    }
}

void ArrayEditor::setDerived(bool derived)
{
    m_derived = derived;
    for (QWidget* w : m_actions) {
        w->setEnabled(!derived);
    }
    QFont f = font();
    f.setItalic(derived);
    setFont(f);
    if (m_table != nullptr) {
        m_table->setEditTriggers(derived ? QAbstractItemView::NoEditTriggers
                                         : QAbstractItemView::DoubleClicked |
                                               QAbstractItemView::EditKeyPressed |
                                               QAbstractItemView::AnyKeyPressed);
    }
}

void ArrayEditor::setExpanded(bool expanded)
{
    {
        const QSignalBlocker block(m_expand);
        m_expand->setChecked(expanded);
    }
    m_expand->setArrowType(expanded ? Qt::DownArrow : Qt::RightArrow);
    if (expanded && m_histogram != nullptr) {
        m_histogram->setValues(m_value.data(), m_value.numel());
    }
    if (expanded && m_table == nullptr) {
        auto* details = static_cast<QVBoxLayout*>(m_details->layout());
        if (m_value.numel() <= kMaxTableElements) {
            m_table = new QTableWidget(m_details);
            m_table->setMinimumHeight(120);
            m_table->setMaximumHeight(240);
            m_table->horizontalHeader()->setDefaultSectionSize(80);
            details->insertWidget(details->count() - 1, m_table);
            fillTable();
            setDerived(m_derived);
            connect(m_table, &QTableWidget::cellChanged, this,
                    [this](int row, int column) { cellEdited(row, column); });
        } else {
            auto* note = new QLabel(tr("%1 values: too many to list; use the actions below.")
                                        .arg(m_value.numel()),
                                    m_details);
            details->insertWidget(details->count() - 1, note);
        }
    }
    m_details->setVisible(expanded);
}

void ArrayEditor::fillTable()
{
    const QSignalBlocker block(m_table);
    const std::int64_t n = m_value.numel();
    const std::int64_t rows = m_matrix ? m_value.dim(0) : n;
    const std::int64_t cols = rows > 0 ? n / rows : 0;
    m_table->setRowCount(static_cast<int>(rows));
    m_table->setColumnCount(static_cast<int>(cols));
    for (std::int64_t r = 0; r < rows; ++r) {
        for (std::int64_t c = 0; c < cols; ++c) {
            const QString text = number(m_value[r * cols + c]);
            QTableWidgetItem* item = m_table->item(static_cast<int>(r), static_cast<int>(c));
            if (item == nullptr) {
                m_table->setItem(static_cast<int>(r), static_cast<int>(c), new QTableWidgetItem(text));
            } else if (item->text() != text) {
                item->setText(text);
            }
        }
    }
}

void ArrayEditor::cellEdited(int row, int column)
{
    const std::int64_t cols = m_table->columnCount();
    const std::int64_t index = static_cast<std::int64_t>(row) * cols + column;
    bool ok = false;
    const QString text = m_table->item(row, column)->text().trimmed();
    double v = locale().toDouble(text, &ok);
    if (!ok) {
        v = text.toDouble(&ok);
    }
    if (!ok || index >= m_value.numel()) {
        fillTable();
        return;
    }
    engine::Tensor t = m_value;
    t[index] = static_cast<float>(v);
    if (!commitTensor(std::move(t), tr("Edit %1[%2]").arg(QString::fromStdString(m_spec.name)).arg(index))) {
        fillTable();  // refused: the document's value stands
    }
}

bool ArrayEditor::commitTensor(engine::Tensor t, const QString& step)
{
    return commit(std::move(t), step);
}

bool ArrayEditor::applySetAll(double v)
{
    return commitTensor(engine::Tensor(m_value.shape(), static_cast<float>(v)),
                        tr("Set all of %1").arg(QString::fromStdString(m_spec.name)));
}

bool ArrayEditor::applyScale(double factor)
{
    engine::Tensor t = m_value;
    for (std::int64_t i = 0; i < t.numel(); ++i) {
        t[i] = static_cast<float>(t[i] * factor);
    }
    return commitTensor(std::move(t), tr("Scale %1").arg(QString::fromStdString(m_spec.name)));
}

bool ArrayEditor::applyRandomise(double percent)
{
    engine::Random rng(static_cast<std::uint64_t>(m_seed->value()));
    const double spread = percent / 100.0;
    const bool integral = m_spec.type == engine::ValueType::Integer;
    engine::Tensor t = m_value;
    for (std::int64_t i = 0; i < t.numel(); ++i) {
        const double v = t[i] * (1.0 + rng.uniform(-spread, spread));
        t[i] = static_cast<float>(integral ? std::nearbyint(v) : v);
    }
    return commitTensor(std::move(t), tr("Randomise %1").arg(QString::fromStdString(m_spec.name)));
}

void ArrayEditor::askSetAll()
{
    bool ok = false;
    const Stats s = statsOf(m_value);
    const double v = QInputDialog::getDouble(
        this, tr("Set all"), tr("Value for every element of %1:").arg(QString::fromStdString(m_spec.name)),
        s.mean, -kHuge, kHuge, 9, &ok);
    if (ok) {
        applySetAll(v);
    }
}

void ArrayEditor::askScale()
{
    bool ok = false;
    const double f = QInputDialog::getDouble(
        this, tr("Scale"), tr("Multiply every element of %1 by:").arg(QString::fromStdString(m_spec.name)),
        1.0, -kHuge, kHuge, 9, &ok);
    if (ok) {
        applyScale(f);
    }
}

void ArrayEditor::askRandomise()
{
    bool ok = false;
    const double p = QInputDialog::getDouble(
        this, tr("Randomise"),
        tr("Move every element of %1 uniformly within ± this percentage of itself (seed %2):")
            .arg(QString::fromStdString(m_spec.name))
            .arg(m_seed->value()),
        10.0, 0.0, 1000.0, 2, &ok);
    if (ok) {
        applyRandomise(p);
    }
}

QString ArrayEditor::summaryText() const
{
    return m_summary->text();
}

}  // namespace spike::ui
