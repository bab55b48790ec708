// The arithmetic of NIR's neuron types (LI, Integrator, IF, NIRLIF, NIRCubaLIF, NIRCubaLI): the
// euler steps against an independent double-precision recurrence written here (200 steps, varied
// input: spikes identical, v and i_syn within 1e-5 relative); the exact discretisation against
// closed forms (LI's step response, NIRCubaLIF's and NIRCubaLI's linear system under a constant
// input, tau_syn equal to tau_mem included); NIRCubaLI's v and i_syn bit for bit those of a
// NIRCubaLIF that never fires; IF's firing period under a constant input; a Network chain
// Linear -> NIRLIF evolving as the modules alone; non-spiking outputs in a Network. Their
// registry entries, bad values, factory, file round trip and start values:
// test_nir_neurons_registry.
#include "tests/circuit_helpers.hpp"
#include "tests/module_compare.hpp"
#include "tests/neuron_test_helpers.hpp"
#include "tests/nir_neuron_type_helpers.hpp"
#include "engine/io/model_io.hpp"
#include "engine/io/module_factory.hpp"
#include "engine/layers/linear.hpp"
#include "engine/layers/sequential.hpp"
#include "engine/network/network.hpp"
#include "engine/neurons/nir_integrating.hpp"
#include "engine/neurons/nir_leaky.hpp"

#include <QtTest/QtTest>

#include <QTemporaryDir>

#include <cmath>
#include <limits>
#include <map>

using namespace spike::engine;
using spike::tests::compareAttributes;
using spike::tests::contains;
using spike::tests::identicalResults;
using spike::tests::randomTensor;
using namespace spike::tests::nir_neurons;  // NOLINT: test file

namespace {

/// The euler recurrences of docs/nir.md in double precision, from the module's float32
/// parameters: v (T, N), i_syn (T, N) and spikes (T, N), flat.
struct Reference {
    std::vector<double> v, iSyn, spikes;
};

Reference eulerInDouble(const Module& m, const Tensor& x)
{
    const std::string type = m.className();
    const std::int64_t n = m.sizeOut();
    const std::int64_t steps = x.dim(0);
    const double dt = m.tensor("dt")[0];
    std::vector<double> v(static_cast<std::size_t>(n), 0.0);
    std::vector<double> cur(static_cast<std::size_t>(n), 0.0);
    Reference out;
    for (std::int64_t t = 0; t < steps; ++t) {
        for (std::int64_t j = 0; j < n; ++j) {
            const auto k = static_cast<std::size_t>(j);
            const double xj = x[t * n + j];
            if (type == "LI" || type == "NIRLIF") {
                v[k] = v[k] + dt / at(m, "tau", j) * ((at(m, "v_leak", j) - v[k]) + at(m, "r", j) * xj);
            } else if (cuba(type)) {
                cur[k] = cur[k] + dt / at(m, "tau_syn", j) * (at(m, "w_in", j) * xj - cur[k]);
                v[k] = v[k] + dt / at(m, "tau_mem", j) * ((at(m, "v_leak", j) - v[k]) + at(m, "r", j) * cur[k]);
            } else {
                v[k] = v[k] + dt * at(m, "r", j) * xj;
            }
            double z = 0.0;
            if (spiking(type) && v[k] > at(m, "v_threshold", j)) {
                z = 1.0;
                v[k] = at(m, "v_reset", j);
            }
            out.v.push_back(v[k]);
            out.iSyn.push_back(cur[k]);
            out.spikes.push_back(z);
        }
    }
    return out;
}

/// Largest |got - want| / max(1, |want|) over the elements.
double relativeError(const Tensor& got, const std::vector<double>& want)
{
    double worst = 0.0;
    for (std::int64_t k = 0; k < got.numel(); ++k) {
        const double w = want[static_cast<std::size_t>(k)];
        worst = std::max(worst, std::abs(got[k] - w) / std::max(1.0, std::abs(w)));
    }
    return worst;
}


}  // namespace

class TestNirNeurons : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void eulerMatchesDoublePrecision_data()
    {
        QTest::addColumn<QString>("type");
        for (const std::string& type : kTypes) {
            QTest::newRow(type.c_str()) << QString::fromStdString(type);
        }
    }

    void eulerMatchesDoublePrecision()
    {
        QFETCH(QString, type);
        const std::int64_t n = 16;
        const std::int64_t steps = 200;
        Random rng(11);
        auto m = build(type.toStdString(), n, randomParameters(type.toStdString(), n, rng));
        // A varied input: a slow sine per neuron plus uniform noise.
        Tensor x(Shape{steps, n});
        for (std::int64_t t = 0; t < steps; ++t) {
            for (std::int64_t j = 0; j < n; ++j) {
                x[t * n + j] = static_cast<float>(1.0 + std::sin(0.05 * static_cast<double>(t) + j) +
                                                  rng.uniform(-0.5, 0.5));
            }
        }
        if (type == "Integrator") {  // centred, so v stays of order one
            for (std::int64_t k = 0; k < x.numel(); ++k) {
                x[k] -= 1.0F;
            }
        }
        const Reference want = eulerInDouble(*m, x);
        const EvolveResult got = m->evolve(x, RecordSpec(true));
        const auto& rec = got.record.at("");
        QVERIFY2(relativeError(rec.at("v").data, want.v) <= 1e-5,
                 qPrintable(QString::number(relativeError(rec.at("v").data, want.v))));
        if (cuba(type.toStdString())) {
            QVERIFY(relativeError(rec.at("i_syn").data, want.iSyn) <= 1e-5);
        }
        if (spiking(type.toStdString())) {
            double total = 0.0;
            for (std::int64_t k = 0; k < got.output.numel(); ++k) {
                QCOMPARE(static_cast<double>(got.output[k]), want.spikes[static_cast<std::size_t>(k)]);
                total += got.output[k];
            }
            QVERIFY2(total >= 20.0, qPrintable(QString::number(total)));
            QVERIFY(rec.at("spikes").spikes);
        } else {
            // The output is v itself.
            QVERIFY(got.output.reshaped(rec.at("v").data.shape()).identical(rec.at("v").data));
            QVERIFY(rec.count("spikes") == 0);
        }
        // The stored state is the last step's.
        QCOMPARE(m->tensor("v")[n - 1], rec.at("v").data[steps * n - 1]);
    }

    void exactLeakyIsTheStepResponse()
    {
        // v(t) = v_inf + (v0 - v_inf) exp(-t / tau) at t = k dt, for LI and a NIRLIF whose threshold
        // is never reached; per-neuron tau, a constant input and a nonzero start.
        const std::int64_t n = 4;
        const Tensor tau(Shape{n}, {0.002F, 0.01F, 0.03F, 0.5F});
        const Tensor r(Shape{n}, {1.0F, 2.0F, 0.5F, -1.5F});
        const Tensor vLeak(Shape{n}, {0.0F, -0.3F, 0.2F, 0.1F});
        const Tensor x(Shape{n}, {1.0F, 0.7F, -2.0F, 0.4F});
        const Tensor v0(Shape{n}, {0.5F, -1.0F, 0.0F, 2.0F});
        for (const char* type : {"LI", "NIRLIF"}) {
            AttributeMap values{{"tau", tau}, {"r", r}, {"v_leak", vLeak},
                                {"discretisation", std::string("exact")}, {"v", v0}};
            if (std::string(type) == "NIRLIF") {
                values["v_threshold"] = Tensor::scalar(100.0F);
            }
            auto m = build(type, n, values);
            const std::int64_t steps = 200;
            Tensor input(Shape{steps, n});
            for (std::int64_t t = 0; t < steps; ++t) {
                std::copy(x.data(), x.data() + n, input.data() + t * n);
            }
            const Tensor v = m->evolve(input, RecordSpec(true)).record.at("").at("v").data;
            std::vector<double> want;
            for (std::int64_t k = 1; k <= steps; ++k) {
                for (std::int64_t j = 0; j < n; ++j) {
                    const double vInf = static_cast<double>(vLeak[j]) + static_cast<double>(r[j]) * x[j];
                    want.push_back(vInf + (v0[j] - vInf) * std::exp(-static_cast<double>(k) * 1e-3F / tau[j]));
                }
            }
            QVERIFY2(relativeError(v, want) <= 1e-5, qPrintable(QString::number(relativeError(v, want))));
        }
    }

    void exactCubaLifIsTheLinearSystemSolution_data()
    {
        QTest::addColumn<QString>("type");
        QTest::newRow("NIRCubaLIF") << QStringLiteral("NIRCubaLIF");  // its threshold never reached
        QTest::newRow("NIRCubaLI") << QStringLiteral("NIRCubaLI");
    }

    void exactCubaLifIsTheLinearSystemSolution()
    {
        QFETCH(QString, type);
        // tau_syn di/dt = w x - i, tau_mem dv/dt = v_leak - v + r i under a constant x:
        //   i(t) = I + (i0 - I) e^{-t/ts},  I = w x
        //   v(t) = V + (v0 - V) e^{-t/tm} + r (i0 - I) u(t),  V = v_leak + r I
        //   u(t) = ts / (ts - tm) (e^{-t/ts} - e^{-t/tm}), or (t / tm) e^{-t/tm} when ts == tm.
        // Neurons: ts < tm, ts > tm, ts == tm, ts a hair above tm; the first from rest
        // (i(t) = w x (1 - e^{-t/ts})), the others from a nonzero state.
        const std::int64_t n = 4;
        const Tensor ts(Shape{n}, {0.005F, 0.02F, 0.01F, 0.0100001F});
        const Tensor tm(Shape{n}, {0.02F, 0.005F, 0.01F, 0.01F});
        const Tensor r(Shape{n}, {1.5F, 0.8F, 2.0F, 1.0F});
        const Tensor w(Shape{n}, {1.0F, 1.2F, 0.7F, -1.0F});
        const Tensor vLeak(Shape{n}, {0.0F, 0.1F, -0.2F, 0.3F});
        const Tensor x(Shape{n}, {1.0F, 0.5F, -1.5F, 2.0F});
        const Tensor i0(Shape{n}, {0.0F, 0.4F, -0.3F, 1.0F});
        const Tensor v0(Shape{n}, {0.0F, 0.2F, 0.6F, -0.4F});
        AttributeMap values{{"tau_syn", ts}, {"tau_mem", tm}, {"r", r}, {"w_in", w}, {"v_leak", vLeak},
                            {"discretisation", std::string("exact")}, {"v", v0}, {"i_syn", i0}};
        if (type == "NIRCubaLIF") {
            values["v_threshold"] = Tensor::scalar(100.0F);
        }
        auto m = build(type.toStdString(), n, values);
        const std::int64_t steps = 200;
        Tensor input(Shape{steps, n});
        for (std::int64_t t = 0; t < steps; ++t) {
            std::copy(x.data(), x.data() + n, input.data() + t * n);
        }
        const auto result = m->evolve(input, RecordSpec(true));
        std::vector<double> wantV;
        std::vector<double> wantI;
        for (std::int64_t k = 1; k <= steps; ++k) {
            const double t = static_cast<double>(k) * static_cast<double>(1e-3F);
            for (std::int64_t j = 0; j < n; ++j) {
                const double s = ts[j];
                const double mem = tm[j];
                const double iInf = static_cast<double>(w[j]) * x[j];
                const double vInf = vLeak[j] + static_cast<double>(r[j]) * iInf;
                const double u = s == mem ? t / mem * std::exp(-t / mem)
                                          : s / (s - mem) * (std::exp(-t / s) - std::exp(-t / mem));
                wantI.push_back(iInf + (i0[j] - iInf) * std::exp(-t / s));
                wantV.push_back(vInf + (v0[j] - vInf) * std::exp(-t / mem) + r[j] * (i0[j] - iInf) * u);
            }
        }
        const auto& rec = result.record.at("");
        QVERIFY2(relativeError(rec.at("i_syn").data, wantI) <= 1e-5,
                 qPrintable(QString::number(relativeError(rec.at("i_syn").data, wantI))));
        QVERIFY2(relativeError(rec.at("v").data, wantV) <= 1e-5,
                 qPrintable(QString::number(relativeError(rec.at("v").data, wantV))));
        // From rest, i follows w x (1 - e^{-t/ts}).
        QVERIFY(std::abs(rec.at("i_syn").data[0] - (1.0 - std::exp(-1e-3 / 0.005))) < 1e-6);
        if (type == "NIRCubaLI") {  // the output is v
            QVERIFY(result.output.reshaped(rec.at("v").data.shape()).identical(rec.at("v").data));
        }
    }

    void impulseIsTheFreeDecayAfterOneImpulse()
    {
        // discretisation "impulse": the state decays exactly over the step, then the step's input
        // arrives as one impulse of area dt x. One input at step 0, none after: LI's v jumps by
        // (dt / tau) r x0 and decays freely; NIRCubaLI's i_syn jumps by (dt / tau_syn) w x0 and
        // the pair (v, i_syn) then follows the free linear system (the u(t) of the test above).
        const std::int64_t n = 3;
        const double dt = static_cast<double>(1e-3F);
        const Tensor tau(Shape{n}, {0.005F, 0.02F, 0.01F});
        const Tensor ts(Shape{n}, {0.005F, 0.02F, 0.01F});
        const Tensor r(Shape{n}, {1.5F, 0.8F, 2.0F});
        const Tensor w(Shape{n}, {1.0F, 1.2F, -0.7F});
        const Tensor vLeak(Shape{n}, {0.0F, 0.1F, -0.2F});
        const Tensor v0(Shape{n}, {0.0F, 0.2F, 0.6F});
        const Tensor x0(Shape{n}, {3.0F, -2.0F, 5.0F});
        const std::int64_t steps = 100;
        Tensor input(Shape{steps, n});
        std::copy(x0.data(), x0.data() + n, input.data());
        auto li = build("LI", n, {{"tau", tau}, {"r", r}, {"v_leak", vLeak}, {"v", v0},
                                  {"discretisation", std::string("impulse")}});
        auto cuba = build("NIRCubaLI", n, {{"tau_syn", ts}, {"tau_mem", tau}, {"r", r}, {"w_in", w},
                                           {"v_leak", vLeak}, {"v", v0},
                                           {"discretisation", std::string("impulse")}});
        const auto liRun = li->evolve(input, RecordSpec(true));
        const auto cubaRun = cuba->evolve(input, RecordSpec(true));
        std::vector<double> wantLi;
        std::vector<double> wantV;
        std::vector<double> wantI;
        for (std::int64_t k = 1; k <= steps; ++k) {
            const double t = static_cast<double>(k - 1) * dt;  // time since the impulse
            for (std::int64_t j = 0; j < n; ++j) {
                const double m = tau[j];
                const double s = ts[j];
                const double v1 = vLeak[j] + (v0[j] - vLeak[j]) * std::exp(-dt / m);
                wantLi.push_back(vLeak[j] + (v1 + dt / m * r[j] * x0[j] - vLeak[j]) * std::exp(-t / m));
                const double i1 = dt / s * w[j] * x0[j];
                const double u = s == m ? t / m * std::exp(-t / m)
                                        : s / (s - m) * (std::exp(-t / s) - std::exp(-t / m));
                wantI.push_back(i1 * std::exp(-t / s));
                wantV.push_back(vLeak[j] + (v1 - vLeak[j]) * std::exp(-t / m) + r[j] * i1 * u);
            }
        }
        const double eLi = relativeError(liRun.record.at("").at("v").data, wantLi);
        const double eV = relativeError(cubaRun.record.at("").at("v").data, wantV);
        const double eI = relativeError(cubaRun.record.at("").at("i_syn").data, wantI);
        QVERIFY2(eLi <= 1e-5, qPrintable(QString::number(eLi)));
        QVERIFY2(eV <= 1e-5, qPrintable(QString::number(eV)));
        QVERIFY2(eI <= 1e-5, qPrintable(QString::number(eI)));
    }

    void cubaLiIsCubaLifThatNeverFires_data()
    {
        QTest::addColumn<QString>("discretisation");
        QTest::newRow("euler") << QStringLiteral("euler");
        QTest::newRow("exact") << QStringLiteral("exact");
        QTest::newRow("impulse") << QStringLiteral("impulse");
    }

    void cubaLiIsCubaLifThatNeverFires()
    {
        // NIRCubaLI runs NIRCubaLIF's step without the threshold: with a threshold no v reaches
        // (1e30), NIRCubaLIF's v and i_syn are NIRCubaLI's bit for bit, over two runs (the state
        // carried) and after a parameter change; NIRCubaLI's output is v and it has no spikes.
        QFETCH(QString, discretisation);
        const std::int64_t n = 16;
        Random rng(29);
        AttributeMap values = randomParameters("NIRCubaLI", n, rng);
        values["tau_mem"] = randomTensor(rng, Shape{n}, 0.002, 0.03);  // some equal to tau_syn below
        std::get<Tensor>(values["tau_mem"])[3] = std::get<Tensor>(values["tau_syn"])[3];
        values["discretisation"] = discretisation.toStdString();
        auto li = build("NIRCubaLI", n, values);
        values["v_threshold"] = Tensor::scalar(1e30F);
        values["v_reset"] = Tensor::scalar(-5.0F);
        auto lif = build("NIRCubaLIF", n, values);
        QCOMPARE(li->className(), std::string("NIRCubaLI"));
        QVERIFY(!li->spikingOutput());
        for (int run = 0; run < 3; ++run) {
            if (run == 2) {
                for (Module* m : {li.get(), lif.get()}) {
                    QVERIFY(m->setAttributes({{"", {{"w_in", Tensor::scalar(-0.7F)},
                                                     {"dt", Tensor::scalar(5e-4F)}}}}).ok);
                }
            }
            const Tensor x = randomTensor(rng, Shape{150, n}, -1.0, 3.0);
            const EvolveResult a = li->evolve(x, RecordSpec(true));
            const EvolveResult b = lif->evolve(x, RecordSpec(true));
            const auto& ra = a.record.at("");
            const auto& rb = b.record.at("");
            QVERIFY(ra.at("v").data.identical(rb.at("v").data));
            QVERIFY(ra.at("i_syn").data.identical(rb.at("i_syn").data));
            QVERIFY(a.output.reshaped(ra.at("v").data.shape()).identical(ra.at("v").data));
            QVERIFY(ra.count("spikes") == 0);
            QCOMPARE(b.output.flat().abs().sum(), 0.0F);
            QVERIFY(ra.at("v").data.flat().abs().sum() > 0.1F * static_cast<float>(x.numel()));  // it moved
        }
        QVERIFY(li->tensor("v").identical(lif->tensor("v")));
        QVERIFY(li->tensor("i_syn").identical(lif->tensor("i_syn")));
    }

    void discretisationChangesWhileRunning()
    {
        // Switching between runs takes effect at the next step, and switching back restores euler.
        auto euler = build("NIRLIF", 3, {{"tau", Tensor::scalar(0.004F)}});
        auto mixed = build("NIRLIF", 3, {{"tau", Tensor::scalar(0.004F)}});
        const Tensor x(Shape{20, 3}, 1.5F);
        const Tensor firstE = euler->evolve(x).output;
        QVERIFY(mixed->evolve(x).output.identical(firstE));
        QVERIFY(mixed->setAttribute("discretisation", std::string("exact")).ok);
        const auto a = euler->evolve(x, RecordSpec(true));
        const auto b = mixed->evolve(x, RecordSpec(true));
        QVERIFY(!a.record.at("").at("v").data.identical(b.record.at("").at("v").data));
        QVERIFY(mixed->setAttribute("discretisation", std::string("euler")).ok);
        QVERIFY(euler->setAttribute("v", mixed->tensor("v")).ok);
        std::string why;
        QVERIFY2(identicalResults(euler->evolve(x, RecordSpec(true)), mixed->evolve(x, RecordSpec(true)), why),
                 why.c_str());
    }

    void ifFiresEveryPeriod()
    {
        // From v = v_reset, v after k steps is v_reset + k d (d = dt r x); the strict > fires at the
        // first k with k d > v_threshold - v_reset: k = floor((v_threshold - v_reset) / d) + 1,
        // which is ceil(ratio) unless the ratio is whole. The first spike counts from v = 0.
        struct Case {
            float dt, r, x, vTh, vReset;
            int first, period;
        };
        const Case cases[] = {
            // d = 0.25 exactly, ratio 4 (whole): 5 steps, not 4.
            {0.125F, 2.0F, 1.0F, 1.0F, 0.0F, 5, 5},
            // d = 0.35, first from 0: 1 / 0.35 = 2.86 -> 3; then 1.5 / 0.35 = 4.29 -> 5.
            {1e-3F, 1.0F, 350.0F, 1.0F, -0.5F, 3, 5},
            // d = 0.03, ratio 0.8 / 0.03 = 26.7 -> 27, first 1 / 0.03 = 33.3 -> 34.
            {1e-3F, 30.0F, 1.0F, 1.0F, 0.2F, 34, 27},
        };
        for (const Case& c : cases) {
            auto m = build("IF", 1, {{"dt", Tensor::scalar(c.dt)}, {"r", Tensor::scalar(c.r)},
                                     {"v_threshold", Tensor::scalar(c.vTh)},
                                     {"v_reset", Tensor::scalar(c.vReset)}});
            const std::int64_t steps = 200;
            const Tensor out = m->evolve(Tensor(Shape{steps, 1}, c.x)).output;
            std::vector<std::int64_t> times;
            for (std::int64_t t = 0; t < steps; ++t) {
                if (out[t] != 0.0F) {
                    QCOMPARE(out[t], 1.0F);
                    times.push_back(t + 1);  // step count at which it fired
                }
            }
            QVERIFY(times.size() > 3);
            QCOMPARE(times[0], static_cast<std::int64_t>(c.first));
            for (std::size_t k = 1; k < times.size(); ++k) {
                QCOMPARE(times[k] - times[k - 1], static_cast<std::int64_t>(c.period));
            }
        }
        // Integrator: v = k d exactly (d = 0.25).
        auto integ = build("Integrator", 1, {{"dt", Tensor::scalar(0.125F)}, {"r", Tensor::scalar(2.0F)}});
        const Tensor v = integ->evolve(Tensor(Shape{8, 1}, 1.0F)).output;
        for (std::int64_t t = 0; t < 8; ++t) {
            QCOMPARE(v[t], 0.25F * static_cast<float>(t + 1));
        }
    }

    void networkChainEvolvesAsTheModulesAlone()
    {
        const std::int64_t nIn = 3;
        const std::int64_t n = 5;
        Random rng(5);
        const Tensor x = randomTensor(rng, Shape{120, nIn}, -0.5, 3.0);
        for (const char* disc : {"euler", "exact"}) {
            Linear fc(nIn, n);
            const AttributeMap lifValues{{"tau", randomTensor(rng, Shape{n}, 0.005, 0.02)},
                                         {"r", Tensor::scalar(2.0F)},
                                         {"discretisation", std::string(disc)}};
            auto lif = build("NIRLIF", n, lifValues);
            const Tensor drive = fc.evolve(x).output;
            const EvolveResult alone = lif->evolve(drive, RecordSpec(true));

            Network net(nIn, n);
            net.addNode("fc", std::make_unique<Linear>(
                                  nIn, n, true, AttributeMap{{"weight", fc.tensor("weight")}, {"bias", fc.tensor("bias")}}));
            net.addNode("lif", build("NIRLIF", n, lifValues));
            net.connect("in", "fc");
            net.connect("fc", "lif");
            net.connect("lif", "out");
            // In two runs: the state carries over.
            const EvolveResult first = net.evolve(spike::tests::rows(x, 0, 50), RecordSpec({"lif.v"}));
            const EvolveResult second = net.evolve(spike::tests::rows(x, 50, 70), RecordSpec({"lif.v"}));
            const Tensor spikes = alone.output;
            QVERIFY(spike::tests::rows(spikes, 0, 50).identical(first.output));
            QVERIFY(spike::tests::rows(spikes, 50, 70).identical(second.output));
            const Tensor& v = alone.record.at("").at("v").data;
            QVERIFY(spike::tests::rows(v, 0, 50).identical(first.record.at("lif").at("v").data));
            QVERIFY(spike::tests::rows(v, 50, 70).identical(second.record.at("lif").at("v").data));
            QVERIFY(spikes.flat().sum() > 5.0F);
            QVERIFY(net.getSubmodule("lif").tensor("v").identical(lif->tensor("v")));
        }
    }

    void nonSpikingOutputsFeedANetwork()
    {
        // LI and Integrator put v on their port "out": an LI driving an IF in a Network.
        const std::int64_t n = 2;
        Network net(n, n);
        net.addNode("li", build("LI", n, {{"r", Tensor::scalar(2.0F)}}));
        net.addNode("if", build("IF", n, {{"r", Tensor::scalar(100.0F)}}));
        net.connect("in", "li");
        net.connect("li.out", "if");
        net.connect("if.spikes", "out");
        const Tensor x(Shape{100, n}, 1.0F);
        const EvolveResult r = net.evolve(x, RecordSpec({"li.v", "li.out", "if.spikes"}));
        auto li = build("LI", n, {{"r", Tensor::scalar(2.0F)}});
        auto ifs = build("IF", n, {{"r", Tensor::scalar(100.0F)}});
        const Tensor v = li->evolve(x).output;
        QVERIFY(r.record.at("li").at("v").data.identical(v.reshaped(r.record.at("li").at("v").data.shape())));
        QVERIFY(r.record.at("li").at("out").data.identical(r.record.at("li").at("v").data));
        QVERIFY(!r.record.at("li").at("out").spikes);
        QVERIFY(r.output.identical(ifs->evolve(v).output));
        QVERIFY(r.output.flat().sum() > 4.0F);

        // NIRCubaLI likewise: its port "out" carries v, not spikes.
        Network cubaNet(n, n);
        cubaNet.addNode("cuba", build("NIRCubaLI", n, {{"r", Tensor::scalar(2.0F)}}));
        cubaNet.addNode("if", build("IF", n, {{"r", Tensor::scalar(100.0F)}}));
        cubaNet.connect("in", "cuba");
        cubaNet.connect("cuba.out", "if");
        cubaNet.connect("if.spikes", "out");
        const EvolveResult c = cubaNet.evolve(x, RecordSpec({"cuba.v", "cuba.out"}));
        const Tensor cubaV = build("NIRCubaLI", n, {{"r", Tensor::scalar(2.0F)}})->evolve(x).output;
        const Tensor& recorded = c.record.at("cuba").at("v").data;
        QVERIFY(recorded.identical(cubaV.reshaped(recorded.shape())));
        QVERIFY(c.record.at("cuba").at("out").data.identical(recorded));
        QVERIFY(!c.record.at("cuba").at("out").spikes);
        QVERIFY(c.output.identical(build("IF", n, {{"r", Tensor::scalar(100.0F)}})->evolve(cubaV).output));
        QVERIFY(c.output.flat().sum() > 4.0F);
    }

};

QTEST_GUILESS_MAIN(TestNirNeurons)
#include "test_nir_neurons.moc"
