// The inspector's value editors: one widget per attribute row, chosen from the attribute's
// registry spec and the shape of its current value, never from the module's type.
//
//     Enum                        -> EnumEditor (combo box of the spec's choices)
//     scalar, shape () or (1,)    -> ScalarEditor (spin box plus slider; a check box for booleans)
//     1-D with more than 1 value  -> ArrayEditor with a histogram
//     2-D and up                  -> ArrayEditor with a heat map
//
// Owns: its child widgets and a copy of the value it shows. Invariants: showValue() never calls
// the commit function (document updates flowing back into the editor cannot loop into new
// edits); an editor never changes the document itself, it hands every value the user chose to
// the commit function (the Inspector), which pushes it or refuses it and then shows the
// document's value again. No per-element widgets: an array's element table is built only when
// the user expands it and only for arrays of at most kMaxTableElements values.
// Thread: GUI thread only.
#pragma once

#include "engine/core/attribute.hpp"

#include <QImage>
#include <QString>
#include <QWidget>

#include <functional>
#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSlider;
class QSpinBox;
class QTableWidget;
class QToolButton;

namespace spike::ui {

/// Hands a value the user chose to the document; returns whether the document took it.
/// `step` empty: a plain edit, which merges with consecutive edits of the same attribute (a
/// slider drag); otherwise the undo step's text, and the edit stays a step of its own.
using CommitFunction = std::function<bool(const engine::AttributeValue& value, const QString& step)>;

/// Base of the inspector's editors; see the file comment.
class AttributeEditor : public QWidget {
    Q_OBJECT

public:
    /// Which editor a value calls for.
    enum class Kind { Enum, Scalar, Vector, Matrix };

    AttributeEditor(engine::AttributeSpec spec, QWidget* parent);
    /// The editor kind for `value` of an attribute declared by `spec`.
    static Kind kindFor(const engine::AttributeSpec& spec, const engine::AttributeValue& value);
    /// A new editor of the right kind, already showing `value`.
    static AttributeEditor* create(const engine::AttributeSpec& spec,
                                   const engine::AttributeValue& value, QWidget* parent);

    virtual Kind kind() const = 0;
    /// Shows the document's value without calling the commit function.
    virtual void showValue(const engine::AttributeValue& value) = 0;
    /// Derived attributes are shown read-only, greyed and in italics.
    virtual void setDerived(bool derived);
    bool derived() const { return m_derived; }
    void setCommit(CommitFunction commit) { m_commit = std::move(commit); }
    const engine::AttributeSpec& spec() const { return m_spec; }

protected:
    /// Hands `value` to the commit function; false when refused or when there is none.
    bool commit(const engine::AttributeValue& value, const QString& step = QString());
    /// Makes `input` (a spin box, combo box or slider) take focus only by click or Tab, and
    /// pass the mouse wheel on to the inspector's scroll area unless it has the focus, as in
    /// every property editor: scrolling the inspector never changes a value by accident.
    void guardWheel(QWidget* input);
    bool eventFilter(QObject* watched, QEvent* event) override;

    engine::AttributeSpec m_spec;
    bool m_derived = false;

private:
    CommitFunction m_commit;
};

/// Combo box of an enumeration's choices.
class EnumEditor : public AttributeEditor {
    Q_OBJECT

public:
    EnumEditor(const engine::AttributeSpec& spec, QWidget* parent);
    Kind kind() const override { return Kind::Enum; }
    void showValue(const engine::AttributeValue& value) override;
    QComboBox* comboBox() const { return m_combo; }

private:
    QComboBox* m_combo;
};

/// Spin box and slider for a real or integer scalar (check box for a boolean). The slider is
/// logarithmic for the "taus" family and for strictly positive attributes whose bounds span at
/// least three decades, linear otherwise; its range comes from the bounds, or from the value
/// where a bound is infinite, and moves only when a value falls outside it.
class ScalarEditor : public AttributeEditor {
    Q_OBJECT

public:
    /// Slider positions from the low end to the high end of its range.
    static constexpr int kSliderSteps = 1000;

    ScalarEditor(const engine::AttributeSpec& spec, const engine::Tensor& value, QWidget* parent);
    Kind kind() const override { return Kind::Scalar; }
    void showValue(const engine::AttributeValue& value) override;

    /// The spin box of a real or integer scalar (integers step by 1); null for booleans.
    QDoubleSpinBox* spinBox() const { return m_real; }
    QCheckBox* checkBox() const { return m_check; }  ///< null unless Boolean
    QSlider* slider() const { return m_slider; }            ///< null for booleans
    bool logarithmic() const { return m_log; }
    /// The value slider position `position` stands for.
    double valueAt(int position) const;

private:
    void chooseSliderRange(double around);
    int positionOf(double v) const;
    void showNumber(double v);
    void commitNumber(double v);

    engine::Shape m_shape;  ///< () or (1,), kept on every commit
    QDoubleSpinBox* m_real = nullptr;
    QCheckBox* m_check = nullptr;
    QSlider* m_slider = nullptr;
    bool m_log = false;
    double m_lo = 0.0;  ///< slider range (positive for a logarithmic slider)
    double m_hi = 1.0;
};

/// Histogram of a vector's values (about 20 bins), painted with QPainter.
class HistogramWidget : public QWidget {
    Q_OBJECT

public:
    static constexpr int kBins = 20;
    explicit HistogramWidget(QWidget* parent = nullptr);
    void setValues(const float* values, std::int64_t count);
    const std::vector<std::int64_t>& counts() const { return m_counts; }
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    std::vector<std::int64_t> m_counts;
    double m_min = 0.0, m_max = 0.0;
};

/// Heat map of a matrix (higher ranks folded to (rows, rest)), block-averaged down to at most
/// kPreviewSize pixels a side, diverging colours centred at zero (blue < 0 < red).
class HeatMapWidget : public QWidget {
    Q_OBJECT

public:
    static constexpr int kPreviewSize = 160;
    explicit HeatMapWidget(QWidget* parent = nullptr);
    void setMatrix(const engine::Tensor& values);
    const QImage& image() const { return m_image; }
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QImage m_image;
    double m_rows = 1.0, m_cols = 1.0;  ///< extents of the matrix shown
};

/// Vector (1-D, more than one value) or matrix (2-D and up) editor: statistics, a histogram or a
/// heat map, a table of the values built on demand, and whole-array actions (set all, scale,
/// randomise), each one commit and so one undo step.
class ArrayEditor : public AttributeEditor {
    Q_OBJECT

public:
    /// Largest array that gets an element table.
    static constexpr std::int64_t kMaxTableElements = 10000;

    ArrayEditor(const engine::AttributeSpec& spec, const engine::Tensor& value, QWidget* parent);
    Kind kind() const override { return m_matrix ? Kind::Matrix : Kind::Vector; }
    void showValue(const engine::AttributeValue& value) override;
    void setDerived(bool derived) override;

    /// Every element set to `v`.
    bool applySetAll(double v);
    /// Every element multiplied by `factor`.
    bool applyScale(double factor);
    /// Every element moved uniformly within +-percent % of itself, seeded by seedBox().
    bool applyRandomise(double percent);
    /// Shows or hides the element table (built on first show; never above kMaxTableElements).
    void setExpanded(bool expanded);

    QString summaryText() const;
    /// The values shown (the document's, or a paused run's States).
    const engine::Tensor& shownValue() const { return m_value; }
    QSpinBox* seedBox() const { return m_seed; }
    QTableWidget* table() const { return m_table; }  ///< null until expanded
    HistogramWidget* histogram() const { return m_histogram; }
    HeatMapWidget* heatMap() const { return m_heatMap; }

private:
    void askSetAll();
    void askScale();
    void askRandomise();
    void fillTable();
    void cellEdited(int row, int column);
    bool commitTensor(engine::Tensor t, const QString& step);

    engine::Tensor m_value;
    bool m_matrix = false;
    bool m_filling = false;
    QLabel* m_summary = nullptr;
    QToolButton* m_expand = nullptr;
    QWidget* m_details = nullptr;
    QTableWidget* m_table = nullptr;
    HistogramWidget* m_histogram = nullptr;
    HeatMapWidget* m_heatMap = nullptr;
    QSpinBox* m_seed = nullptr;
    std::vector<QWidget*> m_actions;
};

}  // namespace spike::ui
