// The neuron types NIR defines (LI, Integrator, IF, NIRLIF, NIRCubaLIF, NIRCubaLI): their registry
// entries; the euler steps against an independent double-precision recurrence written here (200
// steps, varied input: spikes identical, v and i_syn within 1e-5 relative); the exact
// discretisation against closed forms (LI's step response, NIRCubaLIF's and NIRCubaLI's linear
// system under a constant input, tau_syn equal to tau_mem included); NIRCubaLI's v and i_syn bit
// for bit those of a NIRCubaLIF that never fires; IF's firing period under a constant input; a
// Network chain Linear -> NIRLIF evolving as the modules alone; non-spiking outputs in a Network;
// bad values refused with the module unchanged; the factory; the model-file round trip; and the
// start values giving a minimal circuit plausible rates.
#include "tests/circuit_helpers.hpp"
#include "tests/module_compare.hpp"
#include "tests/neuron_test_helpers.hpp"
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

namespace {

const std::vector<std::string> kTypes{"LI", "Integrator", "IF", "NIRLIF", "NIRCubaLIF", "NIRCubaLI"};

bool spiking(const std::string& type)
{
    return type == "IF" || type == "NIRLIF" || type == "NIRCubaLIF";
}

bool leaky(const std::string& type)
{
    return type == "LI" || type == "NIRLIF" || type == "NIRCubaLIF" || type == "NIRCubaLI";
}

/// The types with a synaptic current i_syn.
bool cuba(const std::string& type)
{
    return type == "NIRCubaLIF" || type == "NIRCubaLI";
}

/// A type built through the factory with `n` neurons and `values` set (asserted to succeed).
std::unique_ptr<Module> build(const std::string& type, std::int64_t n, const AttributeMap& values = {})
{
    auto m = createModule(type, {{"shape", {n}}});
    const Status s = m->setAttributes({{"", values}});
    if (!s.ok) {
        throw Error(s.message);
    }
    return m;
}

/// Random per-neuron parameters that make each type cross its threshold now and then under
/// inputs in [-0.5, 2.5), with one parameter given as a scalar (spread over the neurons).
AttributeMap randomParameters(const std::string& type, std::int64_t n, Random& rng)
{
    const Shape s{n};
    AttributeMap p;
    if (type == "LI" || type == "NIRLIF") {
        p["tau"] = randomTensor(rng, s, 0.005, 0.03);
        p["r"] = randomTensor(rng, s, 0.8, 2.0);
        p["v_leak"] = randomTensor(rng, s, -0.2, 0.2);
    } else if (cuba(type)) {
        p["tau_syn"] = randomTensor(rng, s, 0.002, 0.01);
        p["tau_mem"] = randomTensor(rng, s, 0.005, 0.03);
        p["r"] = randomTensor(rng, s, 0.8, 2.0);
        p["v_leak"] = randomTensor(rng, s, -0.2, 0.2);
        p["w_in"] = randomTensor(rng, s, 0.5, 1.5);
    } else {
        p["r"] = randomTensor(rng, s, 20.0, 60.0);
    }
    if (spiking(type)) {
        p["v_threshold"] = randomTensor(rng, s, 0.8, 1.2);
        p["v_reset"] = Tensor::scalar(-0.1F);
    }
    p["dt"] = Tensor::scalar(1e-3F);
    return p;
}

/// The value of attribute `name` of neuron j, spread from a scalar when it is one, as double.
double at(const Module& m, const std::string& name, std::int64_t j)
{
    const Tensor& t = m.tensor(name);
    return t.numel() == 1 ? t[0] : t[j];
}

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

/// Every attribute value of `m` (the registry's view), for "nothing changed" checks.
std::map<std::string, AttributeValue> snapshot(const Module& m)
{
    std::map<std::string, AttributeValue> out;
    for (const auto& view : m.attributes()) {
        out.emplace(view.spec->name, *view.value);
    }
    return out;
}

bool sameValues(const std::map<std::string, AttributeValue>& a,
                const std::map<std::string, AttributeValue>& b)
{
    for (const auto& [name, value] : a) {
        const AttributeValue& other = b.at(name);
        if (value.index() != other.index()) {
            return false;
        }
        if (const auto* t = std::get_if<Tensor>(&value)) {
            if (!t->identical(std::get<Tensor>(other))) {
                return false;
            }
        } else if (std::get<std::string>(value) != std::get<std::string>(other)) {
            return false;
        }
    }
    return a.size() == b.size();
}

}  // namespace

class TestNirNeurons : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void registryDeclaresEveryType()
    {
        const std::map<std::string, std::vector<std::string>> expected{
            {"LI", {"tau", "r", "v_leak", "dt", "discretisation", "v"}},
            {"Integrator", {"r", "dt", "v"}},
            {"IF", {"r", "dt", "v", "v_threshold", "v_reset"}},
            {"NIRLIF", {"tau", "r", "v_leak", "dt", "discretisation", "v", "v_threshold", "v_reset"}},
            {"NIRCubaLIF", {"tau_syn", "tau_mem", "r", "v_leak", "v_threshold", "v_reset", "w_in", "dt",
                            "discretisation", "v", "i_syn"}},
            {"NIRCubaLI", {"tau_syn", "tau_mem", "r", "v_leak", "w_in", "dt", "discretisation", "v", "i_syn"}}};
        for (const std::string& type : kTypes) {
            const ModuleTypeInfo* info = findModuleType(type);
            QVERIFY2(info != nullptr, type.c_str());
            QCOMPARE(info->category, std::string("neurons"));
            QVERIFY2(!info->equations.empty() && !moduleEquations(type).empty(), type.c_str());
            auto m = createModule(type, info->exampleConfig);
            QCOMPARE(m->className(), type);
            auto four = build(type, 4);
            std::vector<std::string> names;
            for (const auto& view : four->attributes()) {
                names.push_back(view.spec->name);
                if (view.spec->kind == AttributeKind::Parameter) {
                    // Per neuron: canonical (N,), a scalar accepted and spread.
                    QCOMPARE(view.spec->shapes.front(), Shape{4});
                    QVERIFY(std::find(view.spec->shapes.begin(), view.spec->shapes.end(), Shape{}) !=
                            view.spec->shapes.end());
                    QVERIFY2(!view.spec->doc.empty() && !view.spec->family.empty(), view.spec->name.c_str());
                }
                if (view.spec->kind == AttributeKind::State) {
                    QVERIFY2(std::get<Tensor>(*view.value).identical(Tensor(Shape{4}, 0.0F)),
                             (type + ": states start at zero").c_str());
                }
            }
            QCOMPARE(names, expected.at(type));
            QVERIFY(four->spec("dt").kind == AttributeKind::SimulationParameter);
            QCOMPARE(four->spec("dt").units, std::string("s"));
            QCOMPARE(four->tensor("dt")[0], 1e-3F);
            QCOMPARE(four->spec("r").units, std::string(""));
            QCOMPARE(four->spec("v").units, std::string(""));
            QCOMPARE(four->membraneSignal(), std::string("v"));
            QCOMPARE(four->sizeIn(), std::int64_t{4});
            QVERIFY(!four->spikingInput());
            QCOMPARE(four->spikingOutput(), spiking(type));
            const std::vector<PortSpec> ports = four->outputPorts();
            QCOMPARE(ports.size(), std::size_t{1});
            QCOMPARE(ports[0].name, std::string(spiking(type) ? "spikes" : "out"));
            QCOMPARE(ports[0].spiking, spiking(type));
            std::vector<std::string> offered{"v"};
            if (cuba(type)) {
                offered.emplace_back("i_syn");
            }
            if (spiking(type)) {
                offered.emplace_back("spikes");
                QVERIFY(four->spec("v_threshold").role == Role::Threshold);
                QCOMPARE(four->spec("v_threshold").family, std::string("thresholds"));
            }
            QCOMPARE(four->recordableSignals(), offered);
            QCOMPARE(four->hasAttribute("discretisation"), leaky(type));
            if (leaky(type)) {
                QCOMPARE(std::get<std::string>(four->attribute("discretisation")), std::string("euler"));
                QCOMPARE(four->spec("discretisation").choices, (std::vector<std::string>{"euler", "exact"}));
                QVERIFY(four->spec("discretisation").liveEditable);
                QCOMPARE(four->toString(), type + "(shape=(4,), discretisation=euler)");
            } else {
                QCOMPARE(four->toString(), type + "(shape=(4,))");
            }
        }
        const NIRCubaLIF cuba(2);
        QCOMPARE(cuba.spec("tau_syn").units, std::string("s"));
        QVERIFY(!cuba.spec("tau_mem").bounds.contains(0.0));
        QCOMPARE(cuba.tensor("w_in")[0], 1.0F);
        QCOMPARE(LI(2).tensor("tau")[0], 0.01F);
        const NIRCubaLI cubaLi(2);
        QCOMPARE(cubaLi.tensor("tau_syn")[0], 0.005F);
        QCOMPARE(cubaLi.tensor("tau_mem")[0], 0.01F);
        QCOMPARE(cubaLi.tensor("w_in")[0], 1.0F);
        QVERIFY(!cubaLi.hasAttribute("v_threshold") && !cubaLi.hasAttribute("v_reset"));
    }

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

    void cubaLiIsCubaLifThatNeverFires_data()
    {
        QTest::addColumn<QString>("discretisation");
        QTest::newRow("euler") << QStringLiteral("euler");
        QTest::newRow("exact") << QStringLiteral("exact");
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

    void badValuesAreRefused_data()
    {
        QTest::addColumn<QString>("type");
        for (const std::string& type : kTypes) {
            QTest::newRow(type.c_str()) << QString::fromStdString(type);
        }
    }

    void badValuesAreRefused()
    {
        QFETCH(QString, type);
        const std::string t = type.toStdString();
        Random rng(3);
        auto m = build(t, 4, randomParameters(t, 4, rng));
        m->evolve(Tensor(Shape{10, 4}, 1.0F));  // a non-trivial state, kept through the refusals
        const auto before = snapshot(*m);
        const float nan = std::numeric_limits<float>::quiet_NaN();
        const float inf = std::numeric_limits<float>::infinity();
        const auto refused = [&](const AttributeMap& change, const std::string& named, const std::string& why) {
            const Status s = m->setAttributes({{"", change}});
            QVERIFY2(!s.ok, (t + ": accepted " + named).c_str());
            QVERIFY2(contains(s.message, t) && contains(s.message, "'" + named + "'") && contains(s.message, why),
                     s.message.c_str());
            QVERIFY2(sameValues(before, snapshot(*m)), (t + ": changed by a refused " + named).c_str());
        };
        std::vector<std::string> taus;
        if (t == "LI" || t == "NIRLIF") {
            taus = {"tau"};
        } else if (cuba(t)) {
            taus = {"tau_syn", "tau_mem"};
        }
        for (const std::string& tau : taus) {
            refused({{tau, Tensor::scalar(-0.01F)}}, tau, "> 0");
            refused({{tau, Tensor::scalar(0.0F)}}, tau, "> 0");
            refused({{tau, Tensor(Shape{4}, {0.01F, -1.0F, 0.01F, 0.01F})}}, tau, "flat index 1");
            refused({{tau, Tensor::scalar(nan)}}, tau, "finite");
            refused({{tau, Tensor::scalar(inf)}}, tau, "finite");
            refused({{tau, Tensor::scalar(1e-44F)}}, tau, "float32");  // dt / tau overflows
        }
        if (leaky(t)) {
            refused({{"discretisation", std::string("rk4")}}, "discretisation", "'exact'");
        }
        refused({{"r", Tensor::scalar(nan)}}, "r", "finite");
        refused({{"r", Tensor(Shape{3}, 1.0F)}}, "r", "(4,)");
        refused({{"dt", Tensor::scalar(0.0F)}}, "dt", "> 0");
        refused({{"v", Tensor(Shape{5}, 0.0F)}}, "v", "(4,)");
        if (spiking(t)) {
            refused({{"v_threshold", Tensor::scalar(inf)}}, "v_threshold", "finite");
            // A change of several attributes fails as a whole.
            refused({{"v_threshold", Tensor::scalar(2.0F)}, {"r", Tensor(Shape{2}, 1.0F)}}, "r", "(4,)");
        }
        if (t == "Integrator" || t == "IF") {
            refused({{"r", Tensor::scalar(3e38F)}, {"dt", Tensor::scalar(10.0F)}}, "r", "float32");
        }
        // At construction the error names the attribute; a size below one is refused.
        try {
            if (t == "NIRCubaLIF") {
                NIRCubaLIF bad(2, {{"tau_mem", Tensor::scalar(-1.0F)}});
            } else if (t == "NIRCubaLI") {
                NIRCubaLI bad(2, {{"tau_syn", Tensor::scalar(0.0F)}});
            } else if (t == "IF") {
                IF bad(2, {{"r", Tensor::scalar(nan)}});
            } else {
                LI bad(2, {{"tau", Tensor::scalar(0.0F)}});
            }
            QFAIL("expected an error");
        } catch (const Error& e) {
            QVERIFY2(contains(e.what(), "'tau") || contains(e.what(), "'r'"), e.what());
        }
        QVERIFY_THROWS_EXCEPTION(Error, createModule(t, {{"shape", {0}}}));
    }

    void factoryBuildsFromConfig()
    {
        for (const std::string& type : kTypes) {
            auto m = createModule(type, {{"shape", {7}}});
            QCOMPARE(m->sizeIn(), std::int64_t{7});
            QCOMPARE(m->sizeOut(), std::int64_t{7});
            QCOMPARE(m->config(), (nlohmann::json{{"shape", {7}}}));
            QCOMPARE(configWithSize(type, 100).dump(), std::string(R"({"shape":[100]})"));
            const auto fails = [&](const nlohmann::json& config, const std::string& needle) {
                try {
                    createModule(type, config);
                } catch (const Error& e) {
                    return contains(e.what(), needle);
                }
                return false;
            };
            QVERIFY(fails({{"shape", {5, 5}}}, "config 'shape'"));
            QVERIFY(fails({{"shape", {0}}}, "config 'N'"));
            QVERIFY(fails(nlohmann::json::object(), "config 'shape': missing"));
            QVERIFY(fails({{"shape", {5}}, {"tau", 1}}, "config 'tau': unknown key"));
        }
        // The palette order: right after CUBALIF.
        const auto& types = moduleTypes();
        const auto cuba = std::find_if(types.begin(), types.end(), [](const auto& t) { return t.type == "CUBALIF"; });
        QVERIFY(cuba != types.end() && cuba + static_cast<std::ptrdiff_t>(kTypes.size()) < types.end());
        for (std::size_t k = 0; k < kTypes.size(); ++k) {
            QCOMPARE((cuba + 1 + static_cast<std::ptrdiff_t>(k))->type, kTypes[k]);
        }
    }

    void modelFileRoundTripKeepsEveryAttribute()
    {
        QTemporaryDir dir;
        Random rng(21);
        const std::int64_t n = 6;
        auto root = std::make_unique<Sequential>();
        for (const std::string& type : kTypes) {
            AttributeMap values = randomParameters(type, n, rng);
            values["dt"] = Tensor::scalar(5e-4F);
            if (leaky(type)) {
                values["discretisation"] = std::string(type == "NIRLIF" || type == "NIRCubaLI" ? "exact" : "euler");
            }
            root->append(build(type, n, values));
        }
        root->evolve(randomTensor(rng, Shape{40, n}, 0.0, 2.0));  // a non-trivial state, saved too
        const std::string path = dir.filePath("nir.json").toStdString();
        saveModel(path, *root, SaveOptions{-1});
        auto loaded = loadModel(path);
        QCOMPARE(loaded->toString(), root->toString());
        for (std::size_t k = 0; k < kTypes.size(); ++k) {
            compareAttributes(root->getSubmodule(std::to_string(k)), loaded->getSubmodule(std::to_string(k)));
        }
        const Tensor x = randomTensor(rng, Shape{50, n}, 0.0, 2.0);
        std::string why;
        QVERIFY2(identicalResults(root->evolve(x, RecordSpec(true)), loaded->evolve(x, RecordSpec(true)), why),
                 why.c_str());
    }

    void startValuesGiveAMinimalCircuitPlausibleRates()
    {
        // 100 Poisson sources at 10 Hz into 100 neurons through the sparse projection a wire
        // offers, as tests/test_start_values.cpp measures the LIF.
        for (const char* type : {"IF", "NIRLIF", "NIRCubaLIF"}) {
            const nlohmann::json sparseConfig = {{"shape", {100, 100}}};
            const nlohmann::json doc = spike::tests::circuitDocument(
                {{{"name", "poisson"}, {"type", "PoissonSource"}, {"config", {{"shape", {100}}}},
                  {"attributes", {{"seed", 1}}}},
                 {{"name", "a"}, {"type", type}, {"config", {{"shape", {100}}}},
                  {"attributes", startValues(type, {{"shape", {100}}})}}},
                {{{"name", "poisson_to_a"}, {"from", "poisson.out"}, {"to", "a.in"},
                  {"projection", {{"type", "SparseProjection"}, {"config", sparseConfig},
                                  {"attributes", startValues("SparseProjection", sparseConfig)}}}}});
            const ModelDocument model = modelFromJson(doc, "start values", ".");
            constexpr std::int64_t kSteps = 5000;
            const EvolveResult result = model.root->evolve(Tensor(Shape{kSteps, 0}), RecordSpec({"a.spikes"}));
            const double rate = spike::tests::meanRate(result, "a", kSteps);
            qInfo("Poisson 10 Hz -> %s %.1f Hz", type, rate);
            QVERIFY2(rate > 2.0 && rate < 50.0, qPrintable(QString(type) + ": " + QString::number(rate)));
        }
    }
};

QTEST_GUILESS_MAIN(TestNirNeurons)
#include "test_nir_neurons.moc"
