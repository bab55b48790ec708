// NumberSpinBox: the inspector's number field (inspector_editors.cpp). Shows 7 significant
// digits instead of a fixed number of decimals, accepts any number the locale or C parses, and
// keeps an attribute's bounds soft: the arrows and keys step within them while a typed value
// outside them reaches the engine, which refuses it with its reason.
// Thread: GUI thread only.
#pragma once

#include <QDoubleSpinBox>
#include <QLocale>
#include <QString>
#include <QValidator>

namespace spike::ui {

/// A double spin box that shows 7 significant digits ("0.02", "1e-05") instead of a fixed
/// number of decimals, and accepts any number the locale or C parses.
class NumberSpinBox : public QDoubleSpinBox {
public:
    /// The range used where a bound is infinite, and while typing.
    static constexpr double kUnbounded = 1e30;

    explicit NumberSpinBox(QWidget* parent) : QDoubleSpinBox(parent)
    {
        setDecimals(15);
        setStepType(QAbstractSpinBox::AdaptiveDecimalStepType);
    }
    QString textFromValue(double value) const override { return QString::number(value, 'g', 7); }
    double valueFromText(const QString& text) const override
    {
        bool ok = false;
        const double v = locale().toDouble(text.trimmed(), &ok);
        return ok ? v : text.trimmed().toDouble();
    }
    QValidator::State validate(QString& text, int&) const override
    {
        const QString t = text.trimmed();
        bool ok = false;
        locale().toDouble(t, &ok);
        if (!ok) {
            t.toDouble(&ok);
        }
        return ok ? QValidator::Acceptable : QValidator::Intermediate;
    }
    /// The attribute's bounds: the arrows and keys step within them, while a typed value
    /// outside reaches the engine, which refuses it with its reason (p = 2: "expected a value in
    /// [0, 1]") instead of the box silently clamping it to the bound.
    void setSoftRange(double lower, double upper)
    {
        m_lower = lower;
        m_upper = upper;
        setRange(-kUnbounded, kUnbounded);
    }
    void stepBy(int steps) override
    {
        // Step within the bounds (when the value is inside them): the range narrows for the step.
        const bool inside = value() >= m_lower && value() <= m_upper;
        if (inside) {
            setRange(m_lower, m_upper);
        }
        QDoubleSpinBox::stepBy(steps);
        if (inside) {
            setRange(-kUnbounded, kUnbounded);
        }
    }

private:
    double m_lower = -kUnbounded;
    double m_upper = kUnbounded;
};

}  // namespace spike::ui
