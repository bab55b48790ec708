// NumberSpinBox: the inspector's number field (inspector_editors.cpp). Shows 7 significant
// digits instead of a fixed number of decimals, accepts any number the locale or C parses, and
// keeps an attribute's bounds soft: the arrows and keys step within them while a typed value
// outside them reaches the engine, which refuses it with its reason.
// Thread: GUI thread only.
#pragma once

#include <QDoubleSpinBox>

#include <cmath>
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
    QString textFromValue(double value) const override
    {
        return m_nonFinite.isEmpty() ? QString::number(value, 'g', 7) : m_nonFinite;
    }
    /// Shows `v` ("nan", "inf", "-inf" when it is not finite: a paused run's exploded State);
    /// what setValue() cannot, since a spin box holds finite values only.
    void showNumber(double v)
    {
        const QString special = std::isnan(v) ? QStringLiteral("nan")
                                : std::isinf(v) ? (v > 0 ? QStringLiteral("inf") : QStringLiteral("-inf"))
                                                : QString();
        if (special.isEmpty() && m_nonFinite.isEmpty()) {
            setValue(v);
            return;
        }
        m_nonFinite = special;
        // Changing the value makes the box ask textFromValue() again.
        const double shown = special.isEmpty() ? v : 0.0;
        setValue(shown == 1.0 ? 0.0 : 1.0);
        setValue(shown);
    }
    /// "nan", "inf" or "-inf" while showNumber() shows a non-finite value, else "".
    QString nonFiniteText() const { return m_nonFinite; }
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
    QString m_nonFinite;  ///< showNumber()'s text for a value a spin box cannot hold
    double m_lower = -kUnbounded;
    double m_upper = kUnbounded;
};

}  // namespace spike::ui
