// EquationPanel: the Equations tab. Above the EquationView, one row: "Values of neuron [k]"
// (a spin box over the shown module's neurons) and what the values are ("t = 12.3 ms, running",
// "initial values"), with a check box that turns the values off. The main window fills the
// values (EquationView::setValues) from the running copy while a run exists, else from the
// document; equationValuesOf() picks one neuron's values out of a module's attributes.
// Thread: GUI thread only (equationValuesOf: any).
#pragma once

#include "ui/inspector/equation_view.hpp"

#include "engine/core/attribute.hpp"
#include "engine/core/module.hpp"

#include <QWidget>

#include <cstdint>
#include <optional>

class QCheckBox;
class QLabel;
class QSpinBox;

namespace spike::ui {

/// How many neurons `module` has for the values: the numel of its membrane state, else of its
/// first State attribute, else 0 (no per-neuron values).
std::int64_t neuronCountOf(const engine::Module& module);

/// Neuron `neuron`'s values of `module`'s attributes (a scalar as it is, a per-neuron tensor
/// at `neuron`; other shapes are left out), with the States taken from `states` where given
/// (the running copy's), plus dt and t = `time` [s].
EquationValues equationValuesOf(const engine::Module& module, const engine::AttributeMap* states,
                                std::int64_t neuron, double time);

/// The Equations tab; see the file comment.
class EquationPanel : public QWidget {
    Q_OBJECT

public:
    explicit EquationPanel(QWidget* parent = nullptr);

    EquationView* view() const { return m_view; }
    QSpinBox* neuronBox() const { return m_neuron; }
    QCheckBox* valuesBox() const { return m_show; }
    QLabel* whenLabel() const { return m_when; }

    /// The neuron whose values are shown.
    std::int64_t neuron() const;
    /// Whether values are wanted (the check box).
    bool valuesShown() const;
    /// The neurons the spin box offers: [0, count); 0 hides the row's neuron part.
    void setNeuronCount(std::int64_t count);
    /// Shows `values` (nullopt: none) and says where they come from.
    void showValues(std::optional<EquationValues> values, const QString& when);

Q_SIGNALS:
    /// The neuron or the check box changed: the values should be filled again now.
    void valuesWanted();

private:
    EquationView* m_view = nullptr;
    QSpinBox* m_neuron = nullptr;
    QLabel* m_neuronLabel = nullptr;
    QCheckBox* m_show = nullptr;
    QLabel* m_when = nullptr;
    std::optional<EquationValues> m_last;
};

}  // namespace spike::ui
