// EquationPanel and the pick of one neuron's values; see equation_panel.hpp.
#include "ui/inspector/equation_panel.hpp"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

#include <limits>

namespace spike::ui {

std::int64_t neuronCountOf(const engine::Module& module)
{
    const auto numelOf = [&module](const std::string& name) -> std::int64_t {
        if (name.empty() || !module.hasAttribute(name)) {
            return 0;
        }
        const auto* t = std::get_if<engine::Tensor>(&module.attribute(name));
        return t != nullptr ? t->numel() : 0;
    };
    if (const std::int64_t n = numelOf(module.membraneSignal()); n > 0) {
        return n;
    }
    for (const auto& view : module.attributes()) {
        if (view.spec->kind == engine::AttributeKind::State) {
            return numelOf(view.spec->name);
        }
    }
    return 0;
}

EquationValues equationValuesOf(const engine::Module& module, const engine::AttributeMap* states,
                                std::int64_t neuron, double time)
{
    EquationValues values;
    const std::int64_t neurons = neuronCountOf(module);
    for (const auto& view : module.attributes()) {
        const std::string& name = view.spec->name;
        const engine::AttributeValue* value = view.value;
        if (states != nullptr && view.spec->kind == engine::AttributeKind::State) {
            const auto it = states->find(name);
            if (it != states->end()) {
                value = &it->second;
            }
        }
        const auto* t = std::get_if<engine::Tensor>(value);
        if (t == nullptr) {
            continue;
        }
        if (t->numel() == 1) {
            values.values[name] = (*t)[0];
        } else if (neurons > 0 && t->numel() == neurons && neuron >= 0 && neuron < neurons) {
            values.values[name] = (*t)[neuron];
        } else {
            continue;
        }
        values.units[name] = view.spec->units;
    }
    values.values["dt"] = module.timeStep();
    values.values["t"] = time;
    const std::string seconds = "s";
    values.units.insert_or_assign("dt", seconds);
    values.units.insert_or_assign("t", seconds);
    return values;
}

EquationPanel::EquationPanel(QWidget* parent) : QWidget(parent)
{
    m_show = new QCheckBox(tr("Values of neuron"));
    m_show->setObjectName(QStringLiteral("equationValuesBox"));
    m_show->setChecked(true);
    m_show->setToolTip(tr("Show each equation with this neuron's values put in, and the value of each term; "
                          "they follow the simulation while it runs"));
    m_neuron = new QSpinBox;
    m_neuron->setObjectName(QStringLiteral("equationNeuronBox"));
    m_neuron->setRange(0, 0);
    m_neuron->setAccelerated(true);
    m_neuronLabel = new QLabel;  // "of 4000"
    m_when = new QLabel;
    m_when->setObjectName(QStringLiteral("equationValuesWhen"));
    m_when->setWordWrap(true);
    m_when->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);  // never widens the dock

    auto* row = new QHBoxLayout;
    row->setContentsMargins(6, 4, 6, 0);
    row->addWidget(m_show);
    row->addWidget(m_neuron);
    row->addWidget(m_neuronLabel);
    row->addStretch(1);
    m_view = new EquationView;
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(row);
    auto* when = new QHBoxLayout;
    when->setContentsMargins(6, 0, 6, 0);
    when->addWidget(m_when);
    layout->addLayout(when);
    layout->addWidget(m_view, 1);

    connect(m_neuron, &QSpinBox::valueChanged, this, [this] { emit valuesWanted(); });
    connect(m_show, &QCheckBox::toggled, this, [this](bool on) {
        m_neuron->setEnabled(on);
        emit valuesWanted();
    });
    setNeuronCount(0);
}

std::int64_t EquationPanel::neuron() const
{
    return m_neuron->isVisible() || m_neuron->maximum() > 0 ? m_neuron->value() : 0;
}

bool EquationPanel::valuesShown() const
{
    return m_show->isChecked();
}

void EquationPanel::setNeuronCount(std::int64_t count)
{
    const bool perNeuron = count > 0;
    const int top = static_cast<int>(std::min<std::int64_t>(std::max<std::int64_t>(count, 1),
                                                            std::numeric_limits<int>::max())) - 1;
    if (m_neuron->maximum() != top) {
        m_neuron->setMaximum(top);  // clamps the value, which emits valuesWanted when it moves
    }
    m_neuron->setVisible(perNeuron);
    m_neuronLabel->setVisible(perNeuron);
    m_neuronLabel->setText(tr("of %L1").arg(count));
    m_show->setText(perNeuron ? tr("Values of neuron") : tr("Values"));
}

void EquationPanel::showValues(std::optional<EquationValues> values, const QString& when)
{
    m_when->setText(values ? when : QString());
    m_when->setVisible(values.has_value() && !when.isEmpty());
    if (values == m_last) {
        return;  // unchanged (paused, or the same step): keep the text, its selection and scroll
    }
    m_last = values;
    m_view->setValues(std::move(values));
}

}  // namespace spike::ui
