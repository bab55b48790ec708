// The Equations tab's values (issue #19, live equations): on the Izhikevich teaching example
// every update line shows the chosen neuron's values substituted (in mV and ms, as the model
// text writes them) and the result, and the
// right-hand side's terms. Without a run they are the model's initial values; after 150 steps
// (the toolbar's Step 100 and Step 10 clicked, by the mouse) they are the simulation's, equal to
// the same module evolved alone for 150 steps; the neuron is chosen by typing into the spin box;
// while running the time shown moves on without a click; the check box turns the values off.
// And when no C++ compiler builds the native code of the equations, the status bar says so.
#include "engine/core/module.hpp"
#include "engine/equations/line_values.hpp"
#include "engine/equations/native.hpp"
#include "engine/io/model_io.hpp"
#include "ui/inspector/equation_panel.hpp"
#include "ui/inspector/equation_view.hpp"
#include "ui/window/main_window.hpp"

#include "inspector_input_helpers.hpp"
#include "real_input.hpp"

#include <QAction>
#include <QCheckBox>
#include <QDockWidget>
#include <QLabel>
#include <QSpinBox>
#include <QStatusBar>
#include <QTabBar>
#include <QTemporaryDir>
#include <QToolBar>
#include <QtTest/QtTest>

using namespace spike::ui;
using spike::engine::equations::quantityText;

namespace {

const QString kExample = QStringLiteral(":/examples/izhikevich_presets.json");
const std::string kExampleFile = SPIKE_TEST_DATA_DIR "/../../resources/examples/izhikevich_presets.json";

/// The value line of the "dv/dt" equation ("" when none is shown).
QString dvLine(const EquationView& view)
{
    for (const QString& line : view.valueLines()) {
        if (line.startsWith(QLatin1String("dv/dt = "))) {
            return line;
        }
    }
    return {};
}

/// Clicks the dock tab whose text starts with "Equations", as a person brings the tab to the
/// front (a run's work layout raises the Inspector).
void clickEquationsTab(MainWindow& w)
{
    for (QTabBar* bar : w.findChildren<QTabBar*>()) {
        for (int i = 0; i < bar->count(); ++i) {
            if (bar->isVisible() && bar->tabText(i).startsWith(QLatin1String("Equations"))) {
                QTest::mouseClick(bar, Qt::LeftButton, Qt::NoModifier, bar->tabRect(i).center());
                spike::tests::settle();
                return;
            }
        }
    }
    QFAIL("no Equations tab");
}

/// v of the example's izhikevich population after `steps` steps before the drive's onset (no
/// input), evolved alone from the file.
std::vector<float> vAfter(std::int64_t steps)
{
    const std::unique_ptr<spike::engine::Module> root = spike::engine::loadModel(kExampleFile);
    spike::engine::Module& izh = root->getSubmodule("izhikevich");
    const spike::engine::Tensor x = spike::engine::Tensor::zeros({steps, 5});
    const auto result = izh.evolve(x);
    const auto& v = std::get<spike::engine::Tensor>(result.state.at("").at("v"));
    return {v.data(), v.data() + v.numel()};
}

}  // namespace

class TestLiveEquations : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_cache;  ///< native code from earlier runs (~/.cache) is not found here

private slots:
    void initTestCase() { qputenv("SPIKE_EQ_CACHE", m_cache.path().toUtf8()); }

    void valuesFollowTheNeuronAndTheRun()
    {
        MainWindow w;
        spike::tests::showMainWindow(w);
        QString error;
        QVERIFY2(w.openModel(kExample, &error), qPrintable(error));
        QVERIFY(w.selectModule(QStringLiteral("izhikevich")));
        EquationPanel* panel = w.equationPanel();
        EquationView* view = w.equationsView();
        auto* dock = qobject_cast<QDockWidget*>(panel->parentWidget());
        QVERIFY(dock != nullptr);
        dock->raise();
        spike::tests::settle();
        QVERIFY(!view->visibleRegion().isEmpty());

        // The model's initial values: v(0) = -65 mV = -0.065 V for every neuron.
        QVERIFY(panel->neuronBox()->isVisible());
        QCOMPARE(panel->neuronBox()->maximum(), 4);
        QTRY_VERIFY(!dvLine(*view).isEmpty());
        QVERIFY2(dvLine(*view).startsWith(QLatin1String("dv/dt = (0.04*(-65*mV)**2/mV + 5*(-65*mV)")),
                 qPrintable(dvLine(*view)));
        QVERIFY2(panel->whenLabel()->text().contains(QLatin1String("initial values")),
                 qPrintable(panel->whenLabel()->text()));
        // du/dt = a*(b*v - u) / ms: the terms a*b*v/ms and -a*u/ms.
        QVERIFY2(view->valueLines().join('\n').contains(QLatin1String("du/dt = 0.02*(0.2*(-65*mV) - (-13*mV))/ms")),
                 qPrintable(view->valueLines().join('\n')));
        QVERIFY2(view->valueLines().join('\n').contains(QLatin1String("terms: ")), qPrintable(view->valueLines().join('\n')));
        // Results carry the target's units: the reset "v = c" gives -65 mV; a rate is per second.
        QVERIFY2(view->valueLines().contains(QLatin1String("v = (-65*mV) = -65 mV")), qPrintable(view->valueLines().join('\n')));
        QVERIFY2(view->valueLines().join('\n').contains(QLatin1String("0.04*v**2/mV/ms = 169 volt/s")),
                 qPrintable(view->valueLines().join('\n')));

        // Neuron 3 (fast spiking, a = 0.1), typed in.
        spike::tests::typeInto(panel->neuronBox(), QStringLiteral("3"));
        QTest::keyClick(panel->neuronBox(), Qt::Key_Return);
        QCOMPARE(panel->neuronBox()->value(), 3);
        QTRY_VERIFY2(view->valueLines().join('\n').contains(QLatin1String("du/dt = 0.1*(0.2*")),
                     qPrintable(view->valueLines().join('\n')));

        // 150 steps by the toolbar (before the drive's onset at 200): the simulation's values.
        spike::tests::clickToolButton(w, QStringLiteral("action.step100"));
        QTRY_COMPARE(w.simulatedSteps(), std::int64_t{100});
        for (int i = 0; i < 5; ++i) {
            spike::tests::clickToolButton(w, QStringLiteral("action.step10"));
            QTRY_COMPARE(w.simulatedSteps(), std::int64_t{110 + 10 * i});
        }
        clickEquationsTab(w);
        QVERIFY(!view->visibleRegion().isEmpty());
        const std::vector<float> v = vAfter(150);
        const QString expected = QStringLiteral("dv/dt = (0.04*(%1)**2/mV").arg(QString::fromStdString(*quantityText(v[3], "volt")));
        QTRY_VERIFY2(dvLine(*view).startsWith(expected), qPrintable(dvLine(*view) + QStringLiteral(" / ") + expected +
                                                                     QStringLiteral(" / ") + panel->whenLabel()->text()));
        // The values of step 150 can be shown before the window has heard that the run paused
        // (it says "running" until the next refresh, at most 250 ms later).
        QTRY_VERIFY2(panel->whenLabel()->text().contains(QLatin1String("t = 15.0 ms, paused")),
                     qPrintable(panel->whenLabel()->text()));
        // Another neuron: its own value.
        spike::tests::typeInto(panel->neuronBox(), QStringLiteral("1"));
        QTRY_VERIFY2(dvLine(*view).startsWith(QStringLiteral("dv/dt = (0.04*(%1)**2/mV").arg(QString::fromStdString(*quantityText(v[1], "volt")))),
                     qPrintable(dvLine(*view)));

        // Running: the time shown moves on by itself.
        spike::tests::clickToolButton(w, QStringLiteral("action.run"));
        QTRY_VERIFY(panel->whenLabel()->text().contains(QLatin1String("running")));
        const QString first = panel->whenLabel()->text();
        QTRY_VERIFY_WITH_TIMEOUT(panel->whenLabel()->text() != first, 5000);
        spike::tests::clickToolButton(w, QStringLiteral("action.run"));  // pause
        QTRY_VERIFY(panel->whenLabel()->text().contains(QLatin1String("paused")));

        // Off: the equations alone.
        QTest::mouseClick(panel->valuesBox(), Qt::LeftButton, Qt::NoModifier, QPoint(8, panel->valuesBox()->height() / 2));
        QVERIFY(!panel->valuesBox()->isChecked());
        QTRY_VERIFY(view->valueLines().isEmpty());
        QVERIFY(!view->toPlainText().isEmpty());
    }

    void modulesWithoutNeuronsShowNoNeuronChoice()
    {
        MainWindow w;
        spike::tests::showMainWindow(w);
        QString error;
        QVERIFY2(w.openModel(kExample, &error), qPrintable(error));
        QVERIFY(w.selectModule(QStringLiteral("drive")));  // a PulseTrain: no States
        EquationPanel* panel = w.equationPanel();
        qobject_cast<QDockWidget*>(panel->parentWidget())->raise();
        spike::tests::settle();
        QVERIFY(!panel->neuronBox()->isVisible());
        // y = amplitude-like lines still show the module's scalar values.
        QVERIFY(!w.equationsView()->toPlainText().isEmpty());
    }

    void aMissingCompilerIsReported()
    {
        // No compiler: the run goes on interpreted, and the status bar says why it is slower.
        namespace eq = spike::engine::equations;
        qputenv("SPIKE_CXX", "/nonexistent/c++");
        eq::setNativeMode(eq::NativeMode::Sync);  // ask at the second step, not after 2e6 neuron-steps
        MainWindow w;
        spike::tests::showMainWindow(w);
        QString error;
        QVERIFY2(w.openModel(kExample, &error), qPrintable(error));
        spike::tests::clickToolButton(w, QStringLiteral("action.step100"));
        QTRY_COMPARE(w.simulatedSteps(), std::int64_t{100});
        QTRY_VERIFY2(w.statusBar()->currentMessage().startsWith(QLatin1String("Equation neurons run interpreted")),
                     qPrintable(w.statusBar()->currentMessage()));
        QVERIFY2(w.statusBar()->currentMessage().contains(QLatin1String("'/nonexistent/c++' could not be started")),
                 qPrintable(w.statusBar()->currentMessage()));
        eq::setNativeMode(eq::NativeMode::Async);
        qunsetenv("SPIKE_CXX");
    }
};

QTEST_MAIN(TestLiveEquations)
#include "test_live_equations.moc"
