// Which input the analyses drive (engine/analysis/driven_port.hpp), on every neuron the palette
// offers: LIF's "in", CUBALIF's "exc", each library model's declared input ("I", COBALIF's "ge"), a
// custom model without input refused with a message. The f-I curve of every library model over
// its suggested (probed) range goes from silent to firing; QIF's rheobase is its saddle-node
// delayed by the 1 s window (closed-form passage time); a sweep of Izhikevich drives "I" and a grid point equals the f-I curve of
// a copy with that point's value, bit for bit; the phase portrait drives the same port.
#include "engine/analysis/driven_port.hpp"
#include "engine/analysis/fi_curve.hpp"
#include "engine/analysis/parameter_sweep.hpp"
#include "engine/analysis/phase_plane.hpp"
#include "engine/io/model_clone.hpp"
#include "engine/io/module_factory.hpp"
#include "engine/neurons/cuba_lif.hpp"
#include "engine/neurons/equation_neuron.hpp"
#include "engine/neurons/lif.hpp"
#include "engine/neurons/model_library.hpp"
#include "engine/tensor/error.hpp"

#include <QtTest/QtTest>

#include <cmath>
#include <memory>
#include <string>

using namespace spike::engine;  // NOLINT: test file

namespace {

/// A custom equation neuron that fires on its own and declares no input.
std::unique_ptr<Module> withoutInput()
{
    const nlohmann::json config{
        {"shape", {2}},
        {"equations", "dv/dt = (2*mV - v) / (10*ms) : volt\nv(0) = 0*mV\nthreshold: v > 1*mV\n"
                      "reset: v = 0*mV"}};
    return createModule(EquationNeuron::kCustomType, config);
}

template <typename F>
std::string refusal(F&& run)
{
    try {
        run();
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

}  // namespace

class TestAnalysisInputs : public QObject {
    Q_OBJECT

private slots:
    void everyNeuronHasItsDrivenPort()
    {
        QCOMPARE(drivenInputPort(LIF(3, 3))->name, std::string("in"));
        QCOMPARE(drivenInputPort(CUBALIF(3))->name, std::string("exc"));
        for (const LibraryModel& lib : libraryModels()) {
            const std::string& type = lib.model.name;
            const auto m = createModule(type, configWithSize(type, 3));
            const auto port = drivenInputPort(*m);
            QVERIFY2(port.has_value(), type.c_str());
            QVERIFY2(!lib.model.inputs.empty(), type.c_str());
            QCOMPARE(port->name, lib.model.inputs.front());
            QCOMPARE(port->size, std::int64_t{3});
        }
        QCOMPARE(drivenInputPort(*createModule("Izhikevich", configWithSize("Izhikevich", 1)))->name,
                 std::string("I"));
        QCOMPARE(drivenInputPort(*createModule("COBALIF", configWithSize("COBALIF", 1)))->name,
                 std::string("ge"));
        QVERIFY(!drivenInputPort(*withoutInput()).has_value());
        // The declared units, as the model text writes them; none for the built-in neurons.
        const auto hh = createModule("HodgkinHuxley", configWithSize("HodgkinHuxley", 1));
        QCOMPARE(inputPortUnits(*hh, "I"), std::string("amp/metre**2"));
        const auto coba = createModule("COBALIF", configWithSize("COBALIF", 1));
        QCOMPARE(inputPortUnits(*coba, "ge"), std::string());  // dimensionless
        QCOMPARE(inputPortUnits(LIF(2, 2), "in"), std::string());
    }

    void aModelWithoutInputIsRefusedByName()
    {
        const auto m = withoutInput();
        const std::string fi = refusal([&] { fiCurve(*m, FiOptions{}); });
        QVERIFY2(fi.find("has no input port to drive") != std::string::npos, fi.c_str());
        QVERIFY2(fi.find("'I : amp (input)'") != std::string::npos, fi.c_str());
        SweepOptions o;
        o.axes = {SweepAxis{"v", 0.0, 1.0, 2}};
        const std::string sweep = refusal([&] { parameterSweep(*m, o); });
        QVERIFY2(sweep.find("has no input port to drive") != std::string::npos, sweep.c_str());
    }

    void everyLibraryModelsCurveGoesFromSilentToFiring()
    {
        for (const LibraryModel& lib : libraryModels()) {
            const std::string& type = lib.model.name;
            const auto m = createModule(type, configWithSize(type, 2));
            FiOptions o = suggestedFiOptions(*m);
            QVERIFY2(std::isfinite(o.start) && std::isfinite(o.stop) && o.stop > 0.0, type.c_str());
            QVERIFY2(!(o.start == 0.0 && o.stop == 1.0), type.c_str());  // probed, not [0, 1]
            o.count = 9;
            o.steps = std::llround(0.3 / m->timeStep());
            FiCurve c;
            try {
                c = fiCurve(*m, o);
            } catch (const Error& e) {
                QFAIL(qPrintable(QString::fromStdString(type + ": " + e.what())));
            }
            QCOMPARE(c.port, lib.model.inputs.front());
            qInfo("%s: %s over [%g, %g], rates %g .. %g Hz, rheobase %g", type.c_str(),
                  c.port.c_str(), o.start, o.stop, c.rateHz.front(), c.rateHz.back(),
                  c.rheobase.value_or(std::nan("")));
            if (o.start == 0.0) {
                QVERIFY2(c.rateHz.front() == 0.0, type.c_str());
            }
            QVERIFY2(c.rateHz.back() > c.rateHz.front(), type.c_str());
            QVERIFY2(c.rheobase.has_value() && *c.rheobase > o.start && *c.rheobase <= o.stop,
                     type.c_str());
        }
    }

    void qifRheobaseIsTheDelayedSaddleNode()
    {
        // QIF: tau dv/dt = k (v - m)^2 + I - I_sn with m = (v_rest + v_crit) / 2 and the
        // saddle-node I_sn = k ((v_crit - v_rest) / 2)^2 = 1.125 mV. Above it, the first spike
        // from v_rest comes after T(I) = tau / sqrt(k e) [atan(sqrt(k / e) (v_peak - m)) -
        // atan(sqrt(k / e) (v_rest - m))], e = I - I_sn: the rheobase measured over 1 s is the
        // current with T = 1 s (Euler's map keeps the fixed points and, to first order in dt,
        // the passage time).
        const auto m = createModule("QIF", configWithSize("QIF", 1));
        const double k = 20.0;
        const double tau = 0.01;
        const double mid = -0.0575;
        const double isn = k * 0.0075 * 0.0075;
        const auto passage = [&](double current) {
            const double e = current - isn;
            const double r = std::sqrt(k / e);
            return tau / std::sqrt(k * e) * (std::atan(r * (0.020 - mid)) - std::atan(r * (-0.065 - mid)));
        };
        double lo = isn * (1.0 + 1e-9);
        double hi = 2.0 * isn;
        for (int i = 0; i < 200; ++i) {
            const double x = 0.5 * (lo + hi);
            (passage(x) > 1.0 ? lo : hi) = x;
        }
        FiOptions o;
        o.start = 0.001;
        o.stop = 0.0013;
        o.count = 31;  // 1e-5 V apart; refined to 1/256 of that
        const FiCurve c = fiCurve(*m, o);
        QCOMPARE(c.port, std::string("I"));
        QCOMPARE(c.portUnits, std::string("volt"));
        QVERIFY(c.rheobase.has_value() && c.rheobaseRefined);
        QVERIFY2(*c.rheobase > isn && std::abs(*c.rheobase - hi) < 0.003 * hi,
                 qPrintable(QString("%1 against %2").arg(*c.rheobase, 0, 'g', 9).arg(hi, 0, 'g', 9)));
        // The suggested range reaches a few times the rheobase, not the unit range.
        const FiOptions suggested = suggestedFiOptions(*m);
        QVERIFY2(suggested.start == 0.0 && suggested.stop > 4.0 * isn && suggested.stop < 20.0 * isn,
                 qPrintable(QString::number(suggested.stop)));
        const auto izhikevich = createModule("Izhikevich", configWithSize("Izhikevich", 1));
        const double izhStop = suggestedFiOptions(*izhikevich).stop;  // tonic from about 3.8 mV
        QVERIFY2(izhStop > 0.004 && izhStop < 0.05, qPrintable(QString::number(izhStop)));
    }

    void izhikevichSweepDrivesI()
    {
        const auto m = createModule("Izhikevich", configWithSize("Izhikevich", 2));
        SweepOptions o;
        o.axes = {SweepAxis{"a", 0.02, 0.1, 3}};
        o.current = 0.01;  // 10 mV per ms
        o.steps = 5000;
        const SweepResult r = parameterSweep(*m, o);
        QCOMPARE(r.port, std::string("I"));
        QCOMPARE(r.values.size(), std::size_t{3});
        // A faster recovery variable (fast spiking's a = 0.1) fires faster than regular spiking's.
        QVERIFY2(r.values[0] > 0.0 && r.values[2] > r.values[0],
                 qPrintable(QString("%1 %2").arg(r.values[0]).arg(r.values[2])));
        // The point a = 0.1 is the f-I curve of a copy with a = 0.1 at the same current.
        auto copy = cloneModule(*m);
        QVERIFY(copy->setAttributes({{"", {{"a", Tensor::scalar(static_cast<float>(r.x[2]))}}}}).ok);
        FiOptions fi;
        fi.start = fi.stop = 0.01;
        fi.count = 1;
        fi.steps = 5000;
        QCOMPARE(fiCurve(*copy, fi).rateHz.front(), r.values[2]);
    }

    void phasePortraitDrivesTheSamePort()
    {
        const auto m = createModule("Izhikevich", configWithSize("Izhikevich", 1));
        PhasePlaneOptions o = suggestedPhasePlane(*m);
        o.current = 0.01;
        o.nullclineResolution = 51;
        QCOMPARE(phasePlane(*m, o).port, std::string("I"));
    }
};

QTEST_GUILESS_MAIN(TestAnalysisInputs)
#include "test_analysis_inputs.moc"
