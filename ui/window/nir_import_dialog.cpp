// NirImportDialog: see nir_import_dialog.hpp.
#include "ui/window/nir_import_dialog.hpp"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QVBoxLayout>

#include <algorithm>

namespace spike::ui {

namespace {

constexpr const char* kDtKey = "nir/dtMs";
constexpr const char* kMethodKey = "nir/discretisation";
constexpr const char* kTimeUnitKey = "nir/timeUnit";

}  // namespace

NirImportDialog::NirImportDialog(const QString& fileName, QWidget* parent) : QDialog(parent)
{
    setObjectName(QStringLiteral("nirImportDialog"));
    setWindowTitle(tr("Open NIR file"));
    auto* layout = new QVBoxLayout(this);

    auto* intro = new QLabel(
        tr("<b>%1</b> is a NIR graph: its neurons are written in continuous time. Choose the time "
           "step and how each step is computed.")
            .arg(fileName.toHtmlEscaped()),
        this);
    intro->setWordWrap(true);
    layout->addWidget(intro);

    auto* form = new QFormLayout;
    m_dt = new QDoubleSpinBox(this);
    m_dt->setObjectName(QStringLiteral("nirTimeStep"));
    m_dt->setDecimals(3);
    m_dt->setRange(kMinTimeStepMs, kMaxTimeStepMs);
    m_dt->setSuffix(tr(" ms"));
    m_dt->setToolTip(tr("The simulation's time step (%1 to %2 ms); the toolbar's dt field changes it later")
                         .arg(kMinTimeStepMs)
                         .arg(kMaxTimeStepMs));
    form->addRow(tr("&Time step:"), m_dt);

    m_method = new QComboBox(this);
    m_method->setObjectName(QStringLiteral("nirMethod"));
    for (const std::string& name : engine::nir::discretisations()) {
        const QString method = QString::fromStdString(name);
        m_method->addItem(methodTitle(method), method);
    }
    form->addRow(tr("&Method:"), m_method);

    m_timeUnit = new QComboBox(this);
    m_timeUnit->setObjectName(QStringLiteral("nirTimeUnit"));
    m_timeUnit->addItem(tr("Seconds, as NIR specifies"), QStringLiteral("s"));
    m_timeUnit->addItem(tr("Time steps of dt (Sinabs writes \u03c4 so)"), QStringLiteral("steps"));
    m_timeUnit->setToolTip(tr("What the file's time constants and delays count. Sinabs writes "
                              "\u03c4 in time steps; \"Time steps\" multiplies them by dt."));
    form->addRow(tr("Time constants &in:"), m_timeUnit);
    layout->addLayout(form);

    m_explanation = new QLabel(this);
    m_explanation->setObjectName(QStringLiteral("nirMethodExplanation"));
    m_explanation->setWordWrap(true);
    m_explanation->setTextFormat(Qt::PlainText);
    QFont small = m_explanation->font();
    small.setPointSizeF(small.pointSizeF() * 0.92);
    m_explanation->setFont(small);
    layout->addWidget(m_explanation);

    auto* note = new QLabel(tr("dt and the method can be changed after opening: dt in the toolbar, "
                               "the method as each NIR neuron's discretisation in the Inspector."),
                            this);
    note->setWordWrap(true);
    layout->addWidget(note);

    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Open"));
    m_buttons->button(QDialogButtonBox::Ok)->setDefault(true);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addStretch(1);
    layout->addWidget(m_buttons);

    const engine::nir::NirImportOptions start = remembered();
    m_dt->setValue(start.dt * 1e3);
    const int index = m_method->findData(QString::fromStdString(start.discretisation));
    m_method->setCurrentIndex(std::max(index, 0));
    m_timeUnit->setCurrentIndex(std::max(m_timeUnit->findData(QString::fromStdString(start.timeUnit)), 0));
    connect(m_method, &QComboBox::currentIndexChanged, this, &NirImportDialog::showExplanation);
    showExplanation();
    setMinimumWidth(fontMetrics().averageCharWidth() * 72);
    m_dt->setFocus(Qt::OtherFocusReason);
    m_dt->selectAll();
}

engine::nir::NirImportOptions NirImportDialog::options() const
{
    engine::nir::NirImportOptions o;
    o.dt = m_dt->value() * 1e-3;
    o.discretisation = m_method->currentData().toString().toStdString();
    o.timeUnit = m_timeUnit->currentData().toString().toStdString();
    return o;
}

engine::nir::NirImportOptions NirImportDialog::remembered()
{
    engine::nir::NirImportOptions o;  // the engine's defaults
    const QSettings settings;
    bool ok = false;
    const double dtMs = settings.value(QLatin1String(kDtKey)).toDouble(&ok);
    if (ok && dtMs >= kMinTimeStepMs && dtMs <= kMaxTimeStepMs) {
        o.dt = dtMs * 1e-3;
    }
    const std::string method = settings.value(QLatin1String(kMethodKey)).toString().toStdString();
    const auto& known = engine::nir::discretisations();
    if (std::find(known.begin(), known.end(), method) != known.end()) {
        o.discretisation = method;
    }
    const std::string unit = settings.value(QLatin1String(kTimeUnitKey)).toString().toStdString();
    const auto& units = engine::nir::timeUnits();
    if (std::find(units.begin(), units.end(), unit) != units.end()) {
        o.timeUnit = unit;
    }
    return o;
}

void NirImportDialog::remember(const engine::nir::NirImportOptions& options)
{
    QSettings settings;
    settings.setValue(QLatin1String(kDtKey), options.dt * 1e3);
    settings.setValue(QLatin1String(kMethodKey), QString::fromStdString(options.discretisation));
    settings.setValue(QLatin1String(kTimeUnitKey), QString::fromStdString(options.timeUnit));
}

QString NirImportDialog::methodTitle(const QString& discretisation)
{
    if (discretisation == QLatin1String("euler")) {
        return tr("Forward Euler (NIR reference; Norse, snnTorch)");
    }
    if (discretisation == QLatin1String("exact")) {
        return tr("Exact exponential decay, input held");
    }
    if (discretisation == QLatin1String("rockpool")) {
        return tr("As Rockpool simulates its exports");
    }
    return discretisation;
}

QString NirImportDialog::methodExplanation(const QString& discretisation)
{
    if (discretisation == QLatin1String("euler")) {
        return tr("One Euler step per dt, v += dt/\u03c4 \u00b7 (v_leak \u2212 v + r\u00b7x): NIR's "
                  "reference simulation, the way Norse and snnTorch step; accurate for dt \u226a \u03c4.");
    }
    if (discretisation == QLatin1String("exact")) {
        return tr("The exact solution over dt with the input held: v relaxes by exp(\u2212dt/\u03c4) per "
                  "step; stable at any dt.");
    }
    if (discretisation == QLatin1String("rockpool")) {
        return tr("For files Rockpool wrote: a CubaLIF runs as Rockpool's LIF (input added to the "
                  "current, spikes at v \u2265 threshold, several per step, the threshold "
                  "subtracted), an LI as its ExpSyn; use the dt the file was written for.");
    }
    return tr("The engine's \"%1\" discretisation.").arg(discretisation);
}

void NirImportDialog::showExplanation()
{
    m_explanation->setText(methodExplanation(m_method->currentData().toString()));
}

void NirImportDialog::accept()
{
    remember(options());
    QDialog::accept();
}

}  // namespace spike::ui
