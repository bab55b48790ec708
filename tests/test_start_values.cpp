// The values palette items and the projections a wire offers start with (engine::startValues):
// minimal circuits built from them fire at rates a neuroscientist accepts. Measured by running
// the engine, for the circuits docs/gui.md names: a 10 Hz Poisson source into a LIF layer into a
// second LIF layer through the sparse projection a wire offers first, at several sizes; each
// current source into one LIF; and the fitting of in_degree to small sources.
#include "engine/io/model_io.hpp"
#include "engine/io/module_factory.hpp"
#include "engine/network/network.hpp"
#include "tests/circuit_helpers.hpp"

#include <QtTest/QtTest>

#include <algorithm>

using namespace spike::engine;
using spike::tests::circuitDocument;
using spike::tests::meanRate;

namespace {

/// A model-format node of `type` with `config` and the start values for it.
nlohmann::json node(const std::string& name, const std::string& type, const nlohmann::json& config)
{
    return {{"name", name}, {"type", type}, {"config", config}, {"attributes", startValues(type, config)}};
}

nlohmann::json sparse(std::int64_t from, std::int64_t to)
{
    const nlohmann::json config = {{"shape", {from, to}}};
    return {{"type", "SparseProjection"}, {"config", config}, {"attributes", startValues("SparseProjection", config)}};
}

}  // namespace

class TestStartValues : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void poissonIntoTwoLifLayers_data()
    {
        QTest::addColumn<int>("inputs");
        QTest::addColumn<int>("first");
        QTest::addColumn<int>("second");
        QTest::newRow("100 -> 100 -> 50 (the issue's circuit)") << 100 << 100 << 50;
        QTest::newRow("1000 -> 1000 -> 500") << 1000 << 1000 << 500;
        QTest::newRow("20 -> 20 -> 20") << 20 << 20 << 20;
        QTest::newRow("10 -> 100 -> 50") << 10 << 100 << 50;
    }

    void poissonIntoTwoLifLayers()
    {
        QFETCH(int, inputs);
        QFETCH(int, first);
        QFETCH(int, second);
        nlohmann::json poisson = node("poisson", "PoissonSource", {{"shape", {inputs}}});
        poisson["attributes"]["seed"] = 1;
        const nlohmann::json doc = circuitDocument(
            {poisson, node("a", "LIF", {{"shape", {first, first}}, {"has_rec", false}}),
             node("b", "LIF", {{"shape", {second, second}}, {"has_rec", false}})},
            {{{"name", "poisson_to_a"}, {"from", "poisson.out"}, {"to", "a.in"}, {"projection", sparse(inputs, first)}},
             {{"name", "a_to_b"}, {"from", "a.spikes"}, {"to", "b.in"}, {"projection", sparse(first, second)}}});
        const ModelDocument model = modelFromJson(doc, "start values", ".");
        constexpr std::int64_t kSteps = 5000;  // 5 s
        const EvolveResult result =
            model.root->evolve(Tensor(Shape{kSteps, 0}), RecordSpec({"a.spikes", "b.spikes"}));
        const double a = meanRate(result, "a", kSteps);
        const double b = meanRate(result, "b", kSteps);
        qInfo("Poisson 10 Hz -> LIF %.1f Hz -> LIF %.1f Hz", a, b);
        // Rates a cortical neuron has: neither silent nor the thousands of Hz Rockpool's own
        // defaults give (each input spike several threshold crossings).
        QVERIFY2(a > 2.0 && a < 50.0, qPrintable(QString::number(a)));
        QVERIFY2(b > 2.0 && b < 50.0, qPrintable(QString::number(b)));
    }

    void currentSourcesIntoOneLif_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<double>("low");
        QTest::addColumn<double>("high");
        QTest::newRow("ConstantCurrent") << "ConstantCurrent" << 20.0 << 60.0;
        QTest::newRow("PulseTrain") << "PulseTrain" << 20.0 << 60.0;
        QTest::newRow("SineCurrent") << "SineCurrent" << 20.0 << 60.0;
        QTest::newRow("RegularSpikeTrain") << "RegularSpikeTrain" << 10.0 << 60.0;
        QTest::newRow("PoissonSource") << "PoissonSource" << 10.0 << 60.0;
    }

    void currentSourcesIntoOneLif()
    {
        QFETCH(QString, source);
        QFETCH(double, low);
        QFETCH(double, high);
        const nlohmann::json doc = circuitDocument(
            {node("source", source.toStdString(), {{"shape", {1}}}), node("lif", "LIF", {{"shape", {1, 1}}, {"has_rec", false}})},
            {{{"name", "drive"}, {"from", "source.out"}, {"to", "lif.in"}}});
        const ModelDocument model = modelFromJson(doc, "start values", ".");
        constexpr std::int64_t kSteps = 5000;
        const EvolveResult result = model.root->evolve(Tensor(Shape{kSteps, 0}), RecordSpec({"lif.spikes"}));
        const double rate = meanRate(result, "lif", kSteps);
        qInfo("%s -> LIF: %.1f Hz", qPrintable(source), rate);
        QVERIFY2(rate >= low && rate <= high, qPrintable(QString::number(rate)));
    }

    void pulsesShowAsBursts()
    {
        // 100 ms pulses every 200 ms: the LIF fires during pulses and is silent between them.
        const nlohmann::json doc = circuitDocument(
            {node("pulses", "PulseTrain", {{"shape", {1}}}), node("lif", "LIF", {{"shape", {1, 1}}, {"has_rec", false}})},
            {{{"name", "drive"}, {"from", "pulses.out"}, {"to", "lif.in"}}});
        const ModelDocument model = modelFromJson(doc, "start values", ".");
        const EvolveResult result = model.root->evolve(Tensor(Shape{1000, 0}), RecordSpec({"lif.spikes"}));
        const Tensor& spikes = result.record.at("lif").at("spikes").data;
        double during = 0.0;
        double between = 0.0;
        for (std::int64_t t = 0; t < 1000; ++t) {
            const double phase = std::fmod((static_cast<double>(t) - 10.0) / 200.0, 1.0);
            // Skip the 20 ms after each edge: the synaptic current and the membrane lag the pulse.
            if (t >= 30 && phase > 0.1 && phase < 0.5) {
                during += spikes.data()[t];
            } else if (t >= 30 && phase > 0.6) {
                between += spikes.data()[t];
            }
        }
        QVERIFY(during >= 10.0);
        QCOMPARE(between, 0.0);
    }

    void inDegreeFitsSmallSources()
    {
        QCOMPARE(startValues("SparseProjection", {{"shape", {3, 50}}}).at("in_degree").get<int>(), 3);
        QCOMPARE(startValues("SparseProjection", {{"shape", {500, 50}}}).at("in_degree").get<int>(), 10);
        // A projection from a 3-channel source accepts its start values.
        const auto projection = createModule("SparseProjection", {{"shape", {3, 50}}});
        AttributeMap values;
        const nlohmann::json fitted = startValues("SparseProjection", {{"shape", {3, 50}}});
        for (const auto& [name, value] : fitted.items()) {
            values.emplace(name, attributeFromJson(value, "/" + name, "."));
        }
        QVERIFY(projection->setAttributes({{"", values}}).ok);
    }

    void textStatesTheValues()
    {
        QCOMPARE(QString::fromStdString(startValuesText("ConstantCurrent")),
                 QStringLiteral("Starts with amplitude = 0.015."));
        QVERIFY(startValuesText("Sequential").empty());
        // Every start value names an attribute the type has, and the type accepts them all.
        for (const ModuleTypeInfo& type : moduleTypes()) {
            const nlohmann::json& values = startValues(type.type);
            if (values.empty()) {
                continue;
            }
            const auto module = createModule(type.type, type.exampleConfig);
            AttributeMap map;
            const nlohmann::json fitted = startValues(type.type, type.exampleConfig);
            for (const auto& [name, value] : fitted.items()) {
                map.emplace(name, attributeFromJson(value, "/" + name, "."));
            }
            const Status status = module->setAttributes({{"", map}});
            QVERIFY2(status.ok, (type.type + ": " + status.message).c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestStartValues)
#include "test_start_values.moc"
