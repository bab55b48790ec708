// The neuron types NIR defines (LI, Integrator, IF, NIRLIF, NIRCubaLIF, NIRCubaLI) as registry
// entries: what each declares (kinds, units, roles, recordables), bad values refused with the
// module unchanged, the factory, the model-file round trip, and start values giving a minimal
// circuit plausible rates. Their arithmetic is test_nir_neurons'.
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


class TestNirNeuronsRegistry : public QObject {
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
                QCOMPARE(four->spec("discretisation").choices, (std::vector<std::string>{"euler", "exact", "impulse"}));
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

QTEST_GUILESS_MAIN(TestNirNeuronsRegistry)
#include "test_nir_neurons_registry.moc"
