// engine::phasePlane (engine/analysis/phase_plane.hpp): FitzHugh-Nagumo's (the library model,
// forward Euler) nullclines match the closed forms w = v - v^3/3 + I and w = (v + a) / b, its
// fixed point the root of the cubic to 1e-6 with the stability of the analytic Jacobian (stable
// at I = 0, unstable at I = 0.5); LIF's (a 2-D linear map between spikes) nullclines are the
// straight lines of its recurrence, its fixed point the closed form with multipliers alpha and
// beta; every arrow of LIF, CUBALIF (another state held at a set value, neuron 1) and
// FitzHugh-Nagumo equals one step of a separately built copy bit for bit; LIF's spiking points
// are flagged and left out; phaseTrajectory equals stepping a copy; suggestedPhasePlane's axes
// and ranges; every bad input is refused in one line naming it, leaving the module as it was;
// parsePhaseRange.
#include "engine/analysis/phase_plane.hpp"
#include "engine/io/model_clone.hpp"
#include "engine/io/module_factory.hpp"
#include "engine/neurons/cuba_lif.hpp"
#include "engine/neurons/lif.hpp"
#include "engine/neurons/model_library.hpp"
#include "engine/neurons/nir_leaky.hpp"
#include "engine/tensor/error.hpp"

#include "module_compare.hpp"

#include <QtTest/QtTest>

#include <cmath>
#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

using namespace spike::engine;  // NOLINT: test file

namespace {

std::unique_ptr<Module> fitzHughNagumo(std::int64_t n = 3)
{
    return createModule("FitzHughNagumo", configWithSize("FitzHughNagumo", n));
}

/// A LIF population in decays mode: alpha 0.9, beta 0.8, bias 0.05, threshold 1.
std::unique_ptr<LIF> linearLif()
{
    return std::make_unique<LIF>(3, 3, false,
                                 AttributeMap{{"leak_mode", std::string("decays")},
                                              {"alpha", Tensor::scalar(0.9F)},
                                              {"beta", Tensor::scalar(0.8F)},
                                              {"bias", Tensor::scalar(0.05F)},
                                              {"threshold", Tensor::scalar(1.0F)}});
}

double f32(double v)
{
    return static_cast<double>(static_cast<float>(v));
}

double value(const Module& m, const char* name)
{
    return static_cast<double>(m.tensor(name)[0]);
}

/// The real root of v - v^3/3 - (v + a)/b + i = 0 nearest `guess` (Newton in double).
double cubicRoot(double a, double b, double i, double guess)
{
    double v = guess;
    for (int k = 0; k < 100; ++k) {
        const double f = v - v * v * v / 3.0 - (v + a) / b + i;
        const double df = 1.0 - v * v - 1.0 / b;
        v -= f / df;
    }
    return v;
}

std::string stabilityOf(double j00, double j01, double j10, double j11)
{
    const double half = 0.5 * (j00 + j11);
    const double det = j00 * j11 - j01 * j10;
    const std::complex<double> root = std::sqrt(std::complex<double>(half * half - det));
    const double m1 = std::abs(half + root);
    const double m2 = std::abs(half - root);
    if (m1 < 1.0 && m2 < 1.0) {
        return "stable";
    }
    if (m1 > 1.0 && m2 > 1.0) {
        return "unstable";
    }
    return "saddle";
}

/// Expects `fn` to throw an Error of one line containing `needle`.
template <typename Fn>
void expectError(Fn fn, const QString& needle)
{
    try {
        fn();
    } catch (const Error& e) {
        const QString what = QString::fromStdString(e.what());
        QVERIFY2(what.contains(needle), qPrintable(what));
        QVERIFY2(!what.contains('\n'), qPrintable(what));
        return;
    }
    QFAIL(qPrintable("no error for " + needle));
}

/// Every arrow `index` of `plane` against one step of a clone of `m` with neuron k's x and y set
/// to the arrow's point, driven on `port`: bit for bit.
void compareArrows(const Module& m, const PhasePlane& plane, const std::string& port,
                   const std::vector<std::size_t>& indices)
{
    const PhasePlaneOptions& o = plane.options;
    for (std::size_t index : indices) {
        const PhaseArrow& a = plane.field[index];
        auto copy = cloneModule(m);
        Tensor x = copy->tensor(o.x);
        Tensor y = copy->tensor(o.y);
        x.data()[o.neuron] = static_cast<float>(a.x);
        y.data()[o.neuron] = static_cast<float>(a.y);
        QVERIFY(copy->setAttributes({{"", {{o.x, x}, {o.y, y}}}}).ok);
        Tensor input(Shape{1, copy->sizeIn()});
        for (const PortSpec& p : copy->inputPorts()) {
            if (p.name == port) {
                for (std::int64_t c = 0; c < p.size; ++c) {
                    input.data()[p.offset + c] = static_cast<float>(o.current);
                }
            }
        }
        static_cast<void>(copy->evolve(input));
        QCOMPARE(a.x, static_cast<double>(static_cast<float>(a.x)));
        QCOMPARE(a.x + a.dx, static_cast<double>(copy->tensor(o.x)[o.neuron]));
        QCOMPARE(a.y + a.dy, static_cast<double>(copy->tensor(o.y)[o.neuron]));
    }
}

std::vector<std::size_t> someArrows(const PhasePlane& plane)
{
    const std::size_t n = plane.field.size();
    return {0, 1, n / 3, n / 2, n / 2 + 7, 2 * n / 3, n - 2, n - 1};
}

}  // namespace

class TestPhasePlane : public QObject {
    Q_OBJECT

private slots:
    void phaseStatesOfTheTypes()
    {
        QCOMPARE(phaseStates(*linearLif()), (std::vector<std::string>{"vmem", "isyn"}));
        QCOMPARE(phaseStates(CUBALIF(2)), (std::vector<std::string>{"v", "i_exc", "i_inh"}));
        QCOMPARE(phaseStates(*::fitzHughNagumo()), (std::vector<std::string>{"v", "w"}));
        QCOMPARE(phaseStates(NIRLIF(2)), std::vector<std::string>{"v"});
        QCOMPARE(phaseStates(LIF(4, 2)), std::vector<std::string>{"vmem"});  // isyn is (2, 2)
        const auto nir = createModule("NIRCubaLIF", configWithSize("NIRCubaLIF", 2));
        QCOMPARE(phaseStates(*nir), (std::vector<std::string>{"v", "i_syn"}));
    }

    void fitzHughNagumo_data()
    {
        QTest::addColumn<double>("current");
        QTest::addColumn<QString>("stability");
        QTest::newRow("I = 0 (rest)") << 0.0 << "stable";
        QTest::newRow("I = 0.5 (limit cycle)") << 0.5 << "unstable";
    }

    void fitzHughNagumo()
    {
        QFETCH(double, current);
        QFETCH(QString, stability);
        const auto m = ::fitzHughNagumo();
        const auto before = cloneModule(*m);
        PhasePlaneOptions o;
        o.x = "v";
        o.y = "w";
        o.xMin = -2.5;
        o.xMax = 2.5;
        o.yMin = -1.0;
        o.yMax = 2.0;
        o.current = current;
        const PhasePlane plane = phasePlane(*m, o);
        spike::tests::compareAttributes(*m, *before);
        QCOMPARE(plane.port, std::string("I"));
        QCOMPARE(plane.field.size(), std::size_t{21 * 21});
        QVERIFY(!plane.resetExcludes);  // no reset: the flow is the flow past the threshold too
        QCOMPARE(plane.excludedPoints, std::int64_t{0});
        QVERIFY(plane.xThreshold.has_value());
        QCOMPARE(*plane.xThreshold, 1.0);
        QVERIFY(!plane.yThreshold);

        // Forward Euler: x' - x = dt f(x, y), so the map's nullclines are the continuous ones,
        // with the parameters as float32 holds them. Bisection leaves the float32 rounding of one
        // step, |dv| ~ 6e-8 over dt/tau = 0.05 and |dw| ~ 1.2e-7 over dt/tau_w = 0.004: within
        // 1e-3 of the fine grid's spacing (0.025 in v), below the h^2 |f''| / 8 (1.6e-4) a
        // straight interpolation between grid points would leave near the cubic's turns.
        const double a = value(*m, "a");
        const double b = value(*m, "b");
        const double i = f32(current);
        const double tol = 1e-3 * 0.025;
        QVERIFY(plane.xNullcline.size() > 200);
        QVERIFY(plane.yNullcline.size() > 100);
        double worstX = 0.0;
        for (const PhaseSegment& s : plane.xNullcline) {
            for (const PhasePoint& p : {s.a, s.b}) {
                worstX = std::max(worstX, std::abs(p.y - (p.x - p.x * p.x * p.x / 3.0 + i)));
            }
        }
        double worstY = 0.0;
        for (const PhaseSegment& s : plane.yNullcline) {
            for (const PhasePoint& p : {s.a, s.b}) {
                worstY = std::max(worstY, std::abs(p.y - (p.x + a) / b));
            }
        }
        QVERIFY2(worstX < tol, qPrintable(QString::number(worstX)));
        QVERIFY2(worstY < tol, qPrintable(QString::number(worstY)));

        // One fixed point (a = 0.7, b = 0.8: the cubic has one real root).
        QCOMPARE(plane.fixedPoints.size(), std::size_t{1});
        const PhaseFixedPoint& f = plane.fixedPoints[0];
        const double v = cubicRoot(a, b, i, 0.0);
        const double w = (v + a) / b;
        QVERIFY2(std::abs(f.x - v) < 1e-6, qPrintable(QString::number(f.x - v)));
        QVERIFY2(std::abs(f.y - w) < 1e-6, qPrintable(QString::number(f.y - w)));

        const double dt = m->timeStep();
        const double ev = dt / value(*m, "tau");
        const double ew = dt / value(*m, "tau_w");
        const double j00 = 1.0 + ev * (1.0 - v * v);
        const double j01 = -ev;
        const double j10 = ew;
        const double j11 = 1.0 - ew * b;
        QCOMPARE(QString::fromStdString(f.stability), stability);
        QCOMPARE(QString::fromStdString(stabilityOf(j00, j01, j10, j11)), stability);
        QVERIFY(std::abs(f.jacobian[0] - j00) < 1e-4);
        QVERIFY(std::abs(f.jacobian[1] - j01) < 1e-4);
        QVERIFY(std::abs(f.jacobian[2] - j10) < 1e-4);
        QVERIFY(std::abs(f.jacobian[3] - j11) < 1e-4);
        QVERIFY(f.multipliers[0][1] != 0.0);  // a focus: a complex pair

        compareArrows(*m, plane, "I", someArrows(plane));
    }

    void lifLinear()
    {
        // Between spikes LIF is the linear map isyn' = beta (isyn + x),
        // vmem' = alpha vmem + isyn' + bias: the vmem nullcline is the line
        // vmem = (beta (isyn + x) + bias) / (1 - alpha), the isyn nullcline isyn = beta x / (1 - beta),
        // the fixed point their crossing, the multipliers alpha and beta.
        const auto m = linearLif();
        PhasePlaneOptions o;
        o.x = "vmem";
        o.y = "isyn";
        o.xMin = -0.5;
        o.xMax = 1.5;
        o.yMin = -0.2;
        o.yMax = 0.3;
        o.current = 0.01;
        o.neuron = 2;
        const PhasePlane plane = phasePlane(*m, o);
        const double alpha = value(*m, "alpha");
        const double beta = value(*m, "beta");
        const double bias = value(*m, "bias");
        const double x = f32(o.current);
        const double isynStar = beta * x / (1.0 - beta);
        const double vStar = (beta * (isynStar + x) + bias) / (1.0 - alpha);

        // Least-squares line vmem = slope isyn + intercept through the vmem nullcline.
        double n = 0.0;
        double sx = 0.0;
        double sy = 0.0;
        double sxx = 0.0;
        double sxy = 0.0;
        double worst = 0.0;
        for (const PhaseSegment& s : plane.xNullcline) {
            for (const PhasePoint& p : {s.a, s.b}) {
                n += 1.0;
                sx += p.y;
                sy += p.x;
                sxx += p.y * p.y;
                sxy += p.y * p.x;
                worst = std::max(worst,
                                 std::abs(p.x - (beta * (p.y + x) + bias) / (1.0 - alpha)));
            }
        }
        QVERIFY(n > 50);
        QVERIFY2(worst < 1e-5, qPrintable(QString::number(worst)));
        const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
        const double intercept = (sy - slope * sx) / n;
        QVERIFY2(std::abs(slope - beta / (1.0 - alpha)) < 1e-5, qPrintable(QString::number(slope)));
        QVERIFY2(std::abs(intercept - (beta * x + bias) / (1.0 - alpha)) < 1e-5,
                 qPrintable(QString::number(intercept)));
        for (const PhaseSegment& s : plane.yNullcline) {
            QVERIFY(std::abs(s.a.y - isynStar) < 1e-6);
            QVERIFY(std::abs(s.b.y - isynStar) < 1e-6);
        }
        QVERIFY(!plane.yNullcline.empty());

        QCOMPARE(plane.fixedPoints.size(), std::size_t{1});
        const PhaseFixedPoint& f = plane.fixedPoints[0];
        QVERIFY2(std::abs(f.x - vStar) < 1e-6, qPrintable(QString::number(f.x - vStar)));
        QVERIFY2(std::abs(f.y - isynStar) < 1e-6, qPrintable(QString::number(f.y - isynStar)));
        QCOMPARE(f.stability, std::string("stable"));
        QCOMPARE(f.multipliers[0][1], 0.0);
        QVERIFY(std::abs(f.multipliers[0][0] - alpha) < 1e-4);
        QVERIFY(std::abs(f.multipliers[1][0] - beta) < 1e-4);

        // Threshold on vmem; LIF's subtractive reset has no reset value.
        QVERIFY(plane.resetExcludes);
        QCOMPARE(*plane.xThreshold, 1.0);
        QVERIFY(!plane.xReset);
        compareArrows(*m, plane, "in", someArrows(plane));
    }

    void lifSpikingPointsFlagged()
    {
        const auto m = linearLif();
        PhasePlaneOptions o;
        o.x = "vmem";
        o.y = "isyn";
        o.xMin = 0.0;
        o.xMax = 2.0;
        o.yMin = -0.5;
        o.yMax = 0.5;
        o.grid = 41;
        const PhasePlane plane = phasePlane(*m, o);
        const double alpha = value(*m, "alpha");
        const double beta = value(*m, "beta");
        const double bias = value(*m, "bias");
        int spiked = 0;
        for (const PhaseArrow& a : plane.field) {
            const double v1 = alpha * a.x + beta * a.y + bias;
            if (std::abs(v1 - 1.0) > 1e-4) {
                QCOMPARE(a.spiked, v1 >= 1.0);
            }
            spiked += a.spiked ? 1 : 0;
        }
        QVERIFY(spiked > 100);
        QVERIFY(plane.excludedPoints > 1000);
        // No nullcline point and no fixed point in the spiking region.
        for (const PhaseSegment& s : plane.xNullcline) {
            QVERIFY(alpha * s.a.x + beta * s.a.y + bias < 1.0 + 1e-3);
        }
        for (const PhaseFixedPoint& f : plane.fixedPoints) {
            QVERIFY(alpha * f.x + beta * f.y + bias < 1.0);
        }
    }

    void cubaLifOtherStateHeld()
    {
        CUBALIF m(3);
        Tensor inh = m.tensor("i_inh");
        inh.data()[1] = -0.3F;
        QVERIFY(m.setAttribute("i_inh", inh).ok);
        PhasePlaneOptions o = suggestedPhasePlane(m, 1);
        QCOMPARE(o.x, std::string("v"));
        QCOMPARE(o.y, std::string("i_exc"));
        o.current = 0.2;
        o.nullclineResolution = 41;
        const PhasePlane plane = phasePlane(m, o);
        QCOMPARE(plane.port, std::string("exc"));
        QCOMPARE(plane.xUnits, std::string("mV"));
        QVERIFY(plane.xThreshold && plane.xReset);
        const Tensor& reset = m.tensor("v_reset");
        QCOMPARE(*plane.xReset, static_cast<double>(reset[reset.numel() > 1 ? 1 : 0]));
        compareArrows(m, plane, "exc", someArrows(plane));
    }

    void everyModel()
    {
        // Every library model and the built-in neurons with two states: suggested axes, a
        // finite field, nullclines and fixed points inside the range.
        std::vector<std::string> types{"LIF", "LIFRefrac", "CUBALIF", "NIRCubaLIF"};
        for (const LibraryModel& lib : libraryModels()) {
            types.push_back(lib.model.name);
        }
        for (const std::string& type : types) {
            const auto m = createModule(type, configWithSize(type, 2));
            if (phaseStates(*m).size() < 2) {
                continue;  // QIF: refused, see badInput
            }
            const auto before = cloneModule(*m);
            PhasePlaneOptions o = suggestedPhasePlane(*m, 1);
            o.nullclineResolution = 101;
            PhasePlane plane;
            try {
                plane = phasePlane(*m, o);
            } catch (const Error& e) {
                QFAIL(qPrintable(QString::fromStdString(type + ": " + e.what())));
            }
            spike::tests::compareAttributes(*m, *before);
            for (const PhaseArrow& a : plane.field) {
                QVERIFY2(std::isfinite(a.dx) && std::isfinite(a.dy), type.c_str());
            }
            for (const PhaseFixedPoint& f : plane.fixedPoints) {
                QVERIFY2(f.x >= o.xMin && f.x <= o.xMax && f.y >= o.yMin && f.y <= o.yMax,
                         type.c_str());
                QVERIFY(!f.stability.empty());
            }
            qInfo("%s: %s/%s, %zu + %zu nullcline segments, %zu fixed points%s", type.c_str(),
                  o.x.c_str(), o.y.c_str(), plane.xNullcline.size(), plane.yNullcline.size(),
                  plane.fixedPoints.size(),
                  plane.fixedPoints.empty() ? "" : (" (" + plane.fixedPoints[0].stability + ")").c_str());
        }
    }

    void trajectory()
    {
        const auto m = ::fitzHughNagumo();
        PhasePlaneOptions o = suggestedPhasePlane(*m);
        o.current = 0.5;
        const auto path = phaseTrajectory(*m, o, 0.25, -0.5, 50);
        QCOMPARE(path.size(), std::size_t{51});
        QCOMPARE(path[0][0], 0.25);
        QCOMPARE(path[0][1], 0.5 * -1.0);
        auto copy = cloneModule(*m);
        Tensor v = copy->tensor("v");
        Tensor w = copy->tensor("w");
        v.data()[0] = 0.25F;
        w.data()[0] = -0.5F;
        QVERIFY(copy->setAttributes({{"", {{"v", v}, {"w", w}}}}).ok);
        Tensor input(Shape{1, copy->sizeIn()});
        for (std::int64_t c = 0; c < copy->sizeIn(); ++c) {
            input.data()[c] = 0.5F;
        }
        for (std::size_t t = 1; t < path.size(); ++t) {
            static_cast<void>(copy->evolve(input));
            QCOMPARE(path[t][0], static_cast<double>(copy->tensor("v")[0]));
            QCOMPARE(path[t][1], static_cast<double>(copy->tensor("w")[0]));
        }
    }

    void suggested()
    {
        const auto m = ::fitzHughNagumo();
        const PhasePlaneOptions o = suggestedPhasePlane(*m);
        QCOMPARE(o.x, std::string("v"));
        QCOMPARE(o.y, std::string("w"));
        QVERIFY(o.xMin < -1.2 && o.xMax > 1.0);  // the state and the threshold
        QVERIFY(o.yMin < -0.625 && o.yMax > -0.625);
        const PhasePlane plane = phasePlane(*m, o);
        QCOMPARE(plane.fixedPoints.size(), std::size_t{1});
        const PhasePlaneOptions swapped = suggestedPhasePlane(*m, 0, "w", "v");
        QCOMPARE(swapped.x, std::string("w"));
        QCOMPARE(swapped.y, std::string("v"));
    }

    void badInput()
    {
        const auto m = linearLif();
        const auto before = cloneModule(*m);
        PhasePlaneOptions good;
        good.x = "vmem";
        good.y = "isyn";
        auto with = [&](auto change) {
            PhasePlaneOptions o = good;
            change(o);
            return o;
        };
        expectError([] { (void)phasePlane(NIRLIF(2), suggestedPhasePlane(NIRLIF(2))); },
                    "NIRLIF has one state variable (v); a phase portrait needs two");
        expectError([&] { (void)phasePlane(*m, with([](auto& o) { o.x = "vm"; })); },
                    "x 'vm' is not a state variable of LIF (choose from vmem, isyn)");
        expectError([&] { (void)phasePlane(*m, with([](auto& o) { o.y = "spikes"; })); },
                    "y 'spikes' is not a state variable");
        expectError([&] { (void)phasePlane(*m, with([](auto& o) { o.y = "vmem"; })); },
                    "x and y are both 'vmem'");
        expectError([&] { (void)phasePlane(*m, with([](auto& o) { o.xMax = o.xMin; })); },
                    "the x range -1:-1 is empty");
        expectError([&] { (void)phasePlane(*m, with([](auto& o) { o.yMax = NAN; })); },
                    "the y range -1:nan is not finite");
        expectError([&] { (void)phasePlane(*m, with([](auto& o) { o.grid = 1; })); },
                    "grid 1 is out of range (2 to 401");
        expectError([&] { (void)phasePlane(*m, with([](auto& o) { o.grid = 402; })); },
                    "grid 402 is out of range");
        expectError(
            [&] { (void)phasePlane(*m, with([](auto& o) { o.nullclineResolution = 4002; })); },
            "nullcline resolution 4002 is out of range (2 to 4001");
        expectError([&] { (void)phasePlane(*m, with([](auto& o) { o.neuron = 3; })); },
                    "neuron 3 is out of range (LIF has 3 neurons)");
        expectError([&] { (void)phasePlane(*m, with([](auto& o) { o.current = INFINITY; })); },
                    "the input current inf is not finite");
        expectError([&] { (void)phaseTrajectory(*m, good, 0.0, 0.0, -1); },
                    "steps -1 is out of range");
        expectError([&] { (void)phaseTrajectory(*m, good, NAN, 0.0, 3); }, "is not finite");
        LIF rec(2, 2, true);
        expectError([&] { (void)phasePlane(rec, good); }, "recurrent weights (w_rec)");
        LIF noisy(2, 2, false, {{"noise_std", Tensor::scalar(0.1F)}});
        expectError([&] { (void)phasePlane(noisy, good); }, "membrane noise (noise_std)");
        spike::tests::compareAttributes(*m, *before);
    }

    void parseRange()
    {
        PhasePlaneOptions o;
        parsePhaseRange("-2.5:2.5,-1:2e0", o);
        QCOMPARE(o.xMin, -2.5);
        QCOMPARE(o.xMax, 2.5);
        QCOMPARE(o.yMin, -1.0);
        QCOMPARE(o.yMax, 2.0);
        expectError([&] { parsePhaseRange("-1:1", o); }, "is not XMIN:XMAX,YMIN:YMAX");
        expectError([&] { parsePhaseRange("-1:1,0:x", o); }, "YMAX 'x' is not a number");
        QCOMPARE(o.yMax, 2.0);
    }
};

QTEST_GUILESS_MAIN(TestPhasePlane)
#include "test_phase_plane.moc"
