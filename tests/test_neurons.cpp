// Neuron populations beyond LIF. LIFRefrac: both lif_refrac_* reference cases recorded from
// Norse's LIFRefracCell (spikes exactly, v/i/rho within the case's tolerance), the two
// parametrisations converting exactly, refractoriness properties (no spike while rho > 0, a
// refractory period of exactly rho_reset steps), initial state, chunked and batched evolution,
// invalid values, the factory and the model-file round trip.
#include "tests/module_compare.hpp"
#include "tests/neuron_test_helpers.hpp"
#include "engine/neurons/lif_refrac.hpp"
#include "engine/io/model_io.hpp"
#include "engine/io/module_factory.hpp"
#include "engine/tensor/random.hpp"
#include "engine/layers/sequential.hpp"
#include "tests/reference_case.hpp"

#include <QtTest/QtTest>

#include <QTemporaryDir>

#include <cmath>
#include <limits>

using spike::engine::AttributeMap;
using spike::engine::Error;
using spike::engine::EvolveResult;
using spike::engine::LIFRefrac;
using spike::engine::Module;
using spike::engine::Random;
using spike::engine::RecordSpec;
using spike::engine::Role;
using spike::engine::Shape;
using spike::engine::Status;
using spike::engine::Tensor;
using spike::tests::ReferenceCase;
using spike::tests::compareAttributes;
using spike::tests::contains;
using spike::tests::identicalResults;
using spike::tests::randomTensor;
using spike::tests::rows;

namespace {

std::unique_ptr<LIFRefrac> buildFromCase(const ReferenceCase& c)
{
    const auto& p = c.json.at("params");
    AttributeMap initial;
    for (const char* key : {"tau_syn_inv", "tau_mem_inv", "v_leak", "v_th", "v_reset", "rho_reset",
                            "dt"}) {
        initial[key] = Tensor::scalar(p.at(key).get<float>());
    }
    return std::make_unique<LIFRefrac>(p.at("n").get<std::int64_t>(), initial);
}

/// Whole numbers in [lo, hi].
Tensor randomSteps(Random& rng, const Shape& shape, int lo, int hi)
{
    Tensor t(shape);
    for (std::int64_t i = 0; i < t.numel(); ++i) {
        t[i] = static_cast<float>(lo + static_cast<int>(rng.uniform() * (hi - lo + 1)));
    }
    return t;
}

/// A population with distinct per-neuron parameters.
std::unique_ptr<LIFRefrac> randomPopulation(std::int64_t n, std::uint64_t seed)
{
    Random rng(seed);
    return std::make_unique<LIFRefrac>(
        n, AttributeMap{{"tau_syn_inv", randomTensor(rng, Shape{n}, 100.0, 300.0)},
                        {"tau_mem_inv", randomTensor(rng, Shape{n}, 50.0, 150.0)},
                        {"v_leak", randomTensor(rng, Shape{n}, -0.1, 0.1)},
                        {"v_th", randomTensor(rng, Shape{n}, 0.8, 1.2)},
                        {"v_reset", randomTensor(rng, Shape{n}, -0.2, 0.0)},
                        {"rho_reset", randomSteps(rng, Shape{n}, 0, 6)}});
}

/// Random input currents: mostly zero, with strong jumps.
Tensor randomInput(Random& rng, const Shape& shape, double rate, double amplitude)
{
    Tensor x(shape);
    for (std::int64_t i = 0; i < x.numel(); ++i) {
        x[i] = rng.uniform() < rate ? static_cast<float>(rng.uniform(0.0, amplitude)) : 0.0F;
    }
    return x;
}

}  // namespace

class TestNeurons : public QObject {
    Q_OBJECT

private slots:
    void referenceCases_data()
    {
        QTest::addColumn<QString>("name");
        for (const char* n : {"lif_refrac_defaults", "lif_refrac_custom"}) {
            QTest::newRow(n) << QString(n);
        }
    }

    void referenceCases()
    {
        QFETCH(QString, name);
        const auto c = ReferenceCase::load(name.toStdString());
        QCOMPARE(c.json.at("module").get<std::string>(), std::string("LIFRefrac"));
        auto neurons = buildFromCase(c);
        const Tensor input = c.array(c.json.at("input").get<std::string>());
        const auto result = neurons->evolve(input, RecordSpec(true));
        const auto& rec = result.record.at("");

        const Tensor spikes = c.named("expected", "spikes");
        QCOMPARE(result.output.shape(), spikes.shape());
        QCOMPARE(spike::tests::countDifferent(result.output, spikes), std::int64_t{0});
        const double total = result.output.flat().cast<double>().sum();
        QCOMPARE(total, c.json.at("total_output_spikes").get<double>());
        QVERIFY(total > 0.0);

        for (const char* key : {"v", "i", "rho"}) {
            const Tensor expected = c.named("expected", key);
            QVERIFY2(rec.count(key) == 1, key);
            const Tensor& got = rec.at(key).data;
            QCOMPARE(got.shape(), expected.shape());
            const double excess = spike::tests::toleranceExcess(got, expected, c.atol(), c.rtol());
            QVERIFY2(excess <= 0.0,
                     (std::string(key) + " exceeds tolerance by " + std::to_string(excess)).c_str());
        }
        QVERIFY(rec.at("spikes").spikes);
        QCOMPARE(rec.at("v").units, std::string("V"));
        QVERIFY(rec.at("v").dt == 1e-3);  // the decimal dt, not float32's widening
    }

    void defaultsAreNorses()
    {
        const LIFRefrac m(3);
        QCOMPARE(m.tensor("tau_syn_inv")[0], 200.0F);
        QCOMPARE(m.tensor("tau_mem_inv")[0], 100.0F);
        QCOMPARE(m.tensor("rho_reset")[0], 5.0F);
        QCOMPARE(m.tensor("v_th")[0], 1.0F);
        QCOMPARE(m.tensor("dt")[0], 1e-3F);
        QCOMPARE(std::get<std::string>(m.attribute("surrogate")), std::string("super"));
        QCOMPARE(m.tensor("alpha")[0], 100.0F);
        QCOMPARE(std::get<std::string>(m.attribute("parametrisation")), std::string("rates"));
        QCOMPARE(m.shape(), (std::vector<std::int64_t>{3}));
        QCOMPARE(m.recordableSignals(), (std::vector<std::string>{"v", "i", "rho", "spikes"}));
        QCOMPARE(m.toString(), std::string("LIFRefrac(shape=(3,), parametrisation=rates)"));
        QCOMPARE(m.spec("tau_mem_inv").units, std::string("1/s"));
        QCOMPARE(m.spec("v_th").family, std::string("thresholds"));
        QVERIFY(m.spec("v_th").role == Role::Threshold);
        QCOMPARE(m.membraneSignal(), std::string("v"));
        QCOMPARE(m.spec("rho_reset").family, std::string("refractory"));
        QVERIFY(m.isDerived("tau_mem"));
        QVERIFY(m.isDerived("refractory_time"));
        QVERIFY(!m.isDerived("rho_reset"));
    }

    void timeConstantsConvertExactly()
    {
        LIFRefrac m(4, {{"parametrisation", std::string("times")}, {"tau_mem", Tensor::scalar(0.01F)}});
        QVERIFY(m.tensor("tau_mem_inv")[0] == 100.0F);
        QVERIFY(m.tensor("tau_syn_inv")[0] == 200.0F);  // default tau_syn 5 ms
        QVERIFY(m.isDerived("tau_mem_inv"));
        QVERIFY(m.isDerived("rho_reset"));
        QVERIFY(!m.isDerived("tau_mem"));

        QVERIFY(m.setAttribute("refractory_time", Tensor::scalar(0.005F)).ok);
        QVERIFY(m.tensor("rho_reset")[0] == 5.0F);
        QVERIFY(m.setAttribute("refractory_time", Tensor::scalar(0.003F)).ok);
        QVERIFY(m.tensor("rho_reset")[0] == 3.0F);
        QVERIFY(m.setAttribute("refractory_time", Tensor::scalar(0.0F)).ok);
        QVERIFY(m.tensor("rho_reset")[0] == 0.0F);
        // Per neuron, and a finer time step rescales the step count.
        QVERIFY(m.setAttribute("refractory_time",
                               Tensor(Shape{4}, std::vector<float>{0.001F, 0.002F, 0.007F, 0.1F}))
                    .ok);
        QVERIFY(m.tensor("rho_reset").identical(
            Tensor(Shape{4}, std::vector<float>{1.0F, 2.0F, 7.0F, 100.0F})));
        QVERIFY(m.setAttribute("dt", Tensor::scalar(0.0005F)).ok);
        QVERIFY(m.tensor("rho_reset").identical(
            Tensor(Shape{4}, std::vector<float>{2.0F, 4.0F, 14.0F, 200.0F})));

        // Setting the derived form is refused in this mode.
        const Status s = m.setAttribute("tau_mem_inv", Tensor::scalar(50.0F));
        QVERIFY(!s.ok);
        QVERIFY2(contains(s.message, "'tau_mem_inv'") && contains(s.message, "derived"),
                 s.message.c_str());

        // In rates mode the time forms are the derived ones.
        LIFRefrac r(2, {{"tau_mem_inv", Tensor::scalar(100.0F)}, {"rho_reset", Tensor::scalar(4.0F)}});
        QVERIFY(r.tensor("tau_mem")[0] == 0.01F);
        QVERIFY(r.tensor("refractory_time")[0] == 4.0F * 1e-3F);
        QVERIFY(!r.setAttribute("tau_mem", Tensor::scalar(0.02F)).ok);
        // Switching parametrisation keeps the dynamics: the derived values become settable.
        QVERIFY(r.setAttribute("parametrisation", std::string("times")).ok);
        QVERIFY(r.tensor("tau_mem_inv")[0] == 100.0F);
        QVERIFY(r.tensor("rho_reset")[0] == 4.0F);
        QVERIFY(r.setAttribute("tau_mem", Tensor::scalar(0.02F)).ok);
        QVERIFY(r.tensor("tau_mem_inv")[0] == 50.0F);
    }

    void nonWholeRefractoryTimeRejected()
    {
        LIFRefrac m(2, {{"parametrisation", std::string("times")}});
        const Tensor before = m.tensor("rho_reset");
        Status s = m.setAttribute("refractory_time", Tensor::scalar(0.0055F));
        QVERIFY(!s.ok);
        QVERIFY2(contains(s.message, "'refractory_time'") && contains(s.message, "0.0055") &&
                     contains(s.message, "0.001") && contains(s.message, "whole number"),
                 s.message.c_str());
        QVERIFY(m.tensor("rho_reset").identical(before));
        QVERIFY(m.tensor("refractory_time")[0] != 0.0055F);

        // A new dt that does not divide the refractory time is refused the same way.
        QVERIFY(m.setAttribute("refractory_time", Tensor::scalar(0.005F)).ok);
        s = m.setAttribute("dt", Tensor::scalar(0.002F));
        QVERIFY(!s.ok);
        QVERIFY2(contains(s.message, "0.005") && contains(s.message, "0.002"), s.message.c_str());
        QCOMPARE(m.tensor("dt")[0], 1e-3F);

        // And at construction.
        try {
            LIFRefrac bad(2, {{"parametrisation", std::string("times")},
                              {"refractory_time", Tensor::scalar(0.0025F)}});
            QFAIL("expected an error");
        } catch (const Error& e) {
            QVERIFY2(contains(e.what(), "refractory_time"), e.what());
        }
    }

    void neverSpikesWhileRefractory()
    {
        const std::int64_t n = 40;
        const std::int64_t steps = 400;
        auto m = randomPopulation(n, 11);
        Random rng(12);
        const Tensor x = randomInput(rng, Shape{steps, n}, 0.5, 40.0);
        const auto r = m->evolve(x, RecordSpec(true));
        const Tensor& rho = r.record.at("").at("rho").data;
        const Tensor& v = r.record.at("").at("v").data;
        std::int64_t refractorySteps = 0;
        double spikes = 0.0;
        for (std::int64_t t = 0; t < steps; ++t) {
            for (std::int64_t j = 0; j < n; ++j) {
                const float z = r.output[t * n + j];
                QVERIFY(z == 0.0F || z == 1.0F);
                spikes += z;
                const float rhoPrev = t == 0 ? 0.0F : rho[(t - 1) * n + j];
                if (rhoPrev > 0.0F) {
                    ++refractorySteps;
                    QVERIFY2(z == 0.0F, ("spike while refractory at step " + std::to_string(t) +
                                         ", neuron " + std::to_string(j)).c_str());
                    // The membrane is held while refractory.
                    QVERIFY(v[t * n + j] == v[(t - 1) * n + j]);
                }
            }
        }
        QVERIFY(spikes > 100.0);
        QVERIFY(refractorySteps > 100);
    }

    void refractoryPeriodLastsRhoResetSteps()
    {
        for (const int period : {0, 1, 3, 5, 12}) {
            LIFRefrac m(1, {{"rho_reset", Tensor::scalar(static_cast<float>(period))}});
            const std::int64_t steps = 120;
            const Tensor x(Shape{steps, 1}, 1000.0F);  // crosses threshold in every free step
            const auto r = m.evolve(x, RecordSpec(true));
            const Tensor& rho = r.record.at("").at("rho").data;
            std::vector<std::int64_t> at;
            for (std::int64_t t = 0; t < steps; ++t) {
                if (r.output[t] > 0.0F) {
                    at.push_back(t);
                }
            }
            QVERIFY(at.size() > 5);
            QCOMPARE(at.front(), std::int64_t{0});
            for (std::size_t k = 1; k < at.size(); ++k) {
                QCOMPARE(at[k] - at[k - 1], std::int64_t{period + 1});
            }
            // rho counts down rho_reset, ..., 1, 0 after each spike.
            for (std::int64_t k = 0; k <= period && k < steps; ++k) {
                QCOMPARE(rho[k], static_cast<float>(period - k));
            }
            QCOMPARE(m.tensor("refractory_time")[0], static_cast<float>(period) * 1e-3F);
        }
    }

    void initialStateIsLeakPotential()
    {
        const Tensor leak(Shape{3}, std::vector<float>{-0.07F, 0.0F, 0.25F});
        LIFRefrac m(3, {{"v_leak", leak}});
        QVERIFY(m.tensor("v").identical(leak));
        QVERIFY(m.tensor("i").identical(Tensor(Shape{3}, 0.0F)));
        QVERIFY(m.tensor("rho").identical(Tensor(Shape{3}, 0.0F)));
        QVERIFY(m.tensor("spikes").identical(Tensor(Shape{3}, 0.0F)));

        Random rng(3);
        m.evolve(randomInput(rng, Shape{50, 3}, 0.5, 20.0));
        QVERIFY(!m.tensor("v").identical(leak));
        m.resetState();
        QVERIFY(m.tensor("v").identical(leak));
        QVERIFY(m.tensor("i").identical(Tensor(Shape{3}, 0.0F)));
        QVERIFY(m.tensor("rho").identical(Tensor(Shape{3}, 0.0F)));
        QCOMPARE(m.stepsElapsed(), std::int64_t{0});

        // A scalar leak fills every neuron; a new leak applies from the next reset.
        QVERIFY(m.setAttribute("v_leak", Tensor::scalar(-0.05F)).ok);
        m.resetState();
        QVERIFY(m.tensor("v").identical(Tensor(Shape{3}, -0.05F)));
        // Without any input the membrane stays at rest.
        m.evolve(Tensor(Shape{20, 3}, 0.0F));
        QVERIFY(m.tensor("v").identical(Tensor(Shape{3}, -0.05F)));
    }

    void restingMembraneFollowsLeakUntilFirstEvolution()
    {
        // As a model file or the inspector would: built with defaults, then v_leak set.
        auto m = spike::engine::createModule("LIFRefrac", {{"shape", {3}}});
        QVERIFY(m->setAttributes({{"", {{"v_leak", Tensor::scalar(-0.07F)}}}}).ok);
        QVERIFY(m->tensor("v").identical(Tensor(Shape{3}, -0.07F)));
        // A v set by hand is kept, alone or together with v_leak.
        const Tensor byHand(Shape{3}, std::vector<float>{0.1F, 0.2F, 0.3F});
        QVERIFY(m->setAttribute("v", byHand).ok);
        QVERIFY(m->setAttribute("v_leak", Tensor::scalar(-0.05F)).ok);
        QVERIFY(m->tensor("v").identical(byHand));
        QVERIFY(m->setAttributes({{"", {{"v_leak", Tensor::scalar(-0.02F)},
                                        {"v", Tensor(Shape{3}, 0.5F)}}}}).ok);
        QVERIFY(m->tensor("v").identical(Tensor(Shape{3}, 0.5F)));
        // Once evolved, the state is the dynamics' own.
        m->resetState();
        QVERIFY(m->tensor("v").identical(Tensor(Shape{3}, -0.02F)));
        m->evolve(Tensor(Shape{5, 3}, 0.0F));
        QVERIFY(m->setAttribute("v_leak", Tensor::scalar(0.3F)).ok);
        QVERIFY(m->tensor("v").identical(Tensor(Shape{3}, -0.02F)));
    }

    void chunkedEvolutionIsBitIdentical()
    {
        Random rng(21);
        const Tensor x = randomInput(rng, Shape{100, 16}, 0.4, 30.0);
        auto whole = randomPopulation(16, 5);
        auto chunked = randomPopulation(16, 5);
        const auto once = whole->evolve(x, RecordSpec(true));
        std::vector<EvolveResult> parts;
        for (std::int64_t k = 0; k < 4; ++k) {
            parts.push_back(chunked->evolve(rows(x, k * 25, 25), RecordSpec(true)));
        }
        for (std::int64_t k = 0; k < 4; ++k) {
            QVERIFY(rows(once.output, k * 25, 25).identical(parts[k].output));
            for (const char* key : {"v", "i", "rho"}) {
                QVERIFY2(rows(once.record.at("").at(key).data, k * 25, 25)
                             .identical(parts[k].record.at("").at(key).data),
                         key);
            }
        }
        QCOMPARE(parts[3].record.at("").at("v").tStart, 75 * 1e-3);  // steps x the decimal dt
        for (const char* key : {"v", "i", "rho", "spikes"}) {
            QVERIFY2(whole->tensor(key).identical(chunked->tensor(key)), key);
        }
    }

    void batchElementsStartFromStoredState()
    {
        const std::int64_t n = 8;
        const std::int64_t steps = 60;
        Random rng(33);
        auto batched = randomPopulation(n, 9);
        // Non-trivial stored state first.
        const Tensor warmUp = randomInput(rng, Shape{30, n}, 0.5, 30.0);
        batched->evolve(warmUp);
        Tensor x(Shape{3, steps, n});
        const Tensor xs = randomInput(rng, Shape{3 * steps, n}, 0.5, 30.0);
        std::copy(xs.data(), xs.data() + xs.numel(), x.data());
        const auto r = batched->evolve(x, RecordSpec(true));
        QCOMPARE(r.output.shape(), (Shape{3, steps, n}));
        QCOMPARE(r.record.at("").at("v").data.shape(), (Shape{3, steps, n}));

        for (std::int64_t b = 0; b < 3; ++b) {
            auto single = randomPopulation(n, 9);
            single->evolve(warmUp);
            const auto s = single->evolve(rows(xs, b * steps, steps), RecordSpec(true));
            QVERIFY2(rows(r.output.reshaped(Shape{3 * steps, n}), b * steps, steps)
                         .identical(s.output),
                     ("batch element " + std::to_string(b)).c_str());
            QVERIFY(rows(r.record.at("").at("rho").data.reshaped(Shape{3 * steps, n}), b * steps,
                         steps)
                        .identical(s.record.at("").at("rho").data));
            if (b == 0) {
                // The stored state afterwards is batch element 0's.
                for (const char* key : {"v", "i", "rho", "spikes"}) {
                    QVERIFY2(batched->tensor(key).identical(single->tensor(key)), key);
                }
            }
        }
    }

    void uniformAndPerNeuronPathsAgree()
    {
        // Equal per-neuron values take the general loop; scalars take the uniform one.
        const std::int64_t n = 12;
        LIFRefrac scalar(n, {{"tau_mem_inv", Tensor::scalar(80.0F)}, {"v_leak", Tensor::scalar(-0.06F)},
                             {"v_th", Tensor::scalar(0.9F)}, {"rho_reset", Tensor::scalar(3.0F)}});
        LIFRefrac perNeuron(n, {{"tau_mem_inv", Tensor(Shape{n}, 80.0F)},
                                {"v_leak", Tensor(Shape{n}, -0.06F)},
                                {"v_th", Tensor(Shape{1}, 0.9F)},
                                {"rho_reset", Tensor(Shape{n}, 3.0F)}});
        Random rng(4);
        const Tensor x = randomInput(rng, Shape{200, n}, 0.3, 25.0);
        std::string why;
        QVERIFY2(identicalResults(scalar.evolve(x, RecordSpec(true)),
                                  perNeuron.evolve(x, RecordSpec(true)), why),
                 why.c_str());
        // A different value for one neuron changes that neuron alone.
        Tensor th(Shape{n}, 0.9F);
        th[0] = 5.0F;
        QVERIFY(perNeuron.setAttribute("v_th", th).ok);
        perNeuron.resetState();
        scalar.resetState();
        const auto a = scalar.evolve(x);
        const auto b = perNeuron.evolve(x);
        QVERIFY(!a.output.identical(b.output));
        for (std::int64_t t = 0; t < 200; ++t) {
            for (std::int64_t j = 1; j < n; ++j) {
                QCOMPARE(a.output[t * n + j], b.output[t * n + j]);
            }
        }
    }

    void invalidValuesAreRejected()
    {
        LIFRefrac m(4);
        const auto before = m.stateDict();
        Status s = m.setAttribute("tau_mem_inv", Tensor::scalar(-10.0F));
        QVERIFY(!s.ok);
        QVERIFY2(contains(s.message, "'tau_mem_inv'") && contains(s.message, "> 0"),
                 s.message.c_str());
        s = m.setAttribute("v_th", Tensor::scalar(std::numeric_limits<float>::quiet_NaN()));
        QVERIFY(!s.ok);
        QVERIFY2(contains(s.message, "'v_th'") && contains(s.message, "finite"), s.message.c_str());
        s = m.setAttribute("rho_reset", Tensor::scalar(2.5F));
        QVERIFY(!s.ok);
        QVERIFY2(contains(s.message, "'rho_reset'") && contains(s.message, "whole"),
                 s.message.c_str());
        s = m.setAttribute("v_leak", Tensor(Shape{3}, 0.0F));
        QVERIFY(!s.ok);
        QVERIFY2(contains(s.message, "'v_leak'") && contains(s.message, "(4,)"), s.message.c_str());
        s = m.setAttribute("surrogate", std::string("SuperSpike"));
        QVERIFY(!s.ok);
        QVERIFY2(contains(s.message, "'surrogate'") && contains(s.message, "'super'"),
                 s.message.c_str());
        // A reciprocal that overflows float32 is refused, naming the derived attribute.
        s = m.setAttribute("tau_syn_inv", Tensor::scalar(1e-39F));
        QVERIFY(!s.ok);
        QVERIFY2(contains(s.message, "'tau_syn'"), s.message.c_str());
        // Nothing changed, and a multi-attribute change fails as a whole.
        s = m.setAttributes({{"", {{"v_th", Tensor::scalar(2.0F)},
                                   {"tau_mem_inv", Tensor::scalar(0.0F)}}}});
        QVERIFY(!s.ok);
        const auto after = m.stateDict();
        QCOMPARE(after.size(), before.size());
        for (std::size_t k = 0; k < after.size(); ++k) {
            QVERIFY2(after[k].second.identical(before[k].second), after[k].first.c_str());
        }
        // At construction the error names the attribute.
        try {
            LIFRefrac bad(2, {{"tau_mem_inv", Tensor::scalar(-1.0F)}});
            QFAIL("expected an error");
        } catch (const Error& e) {
            QVERIFY2(contains(e.what(), "tau_mem_inv"), e.what());
        }
        QVERIFY_THROWS_EXCEPTION(Error, LIFRefrac(0));
    }

    void factoryBuildsFromConfig()
    {
        const auto* info = spike::engine::findModuleType("LIFRefrac");
        QVERIFY(info != nullptr);
        QCOMPARE(info->category, std::string("neurons"));
        auto a = spike::engine::createModule("LIFRefrac", {{"shape", {5}}});
        QCOMPARE(a->className(), std::string("LIFRefrac"));
        QCOMPARE(a->sizeIn(), std::int64_t{5});
        QCOMPARE(a->sizeOut(), std::int64_t{5});
        QCOMPARE(a->config(), (nlohmann::json{{"shape", {5}}}));
        auto b = spike::engine::createModule("LIFRefrac", {{"shape", {5, 5}}});
        QCOMPARE(b->sizeOut(), std::int64_t{5});
        auto example = spike::engine::createModule("LIFRefrac", info->exampleConfig);
        QCOMPARE(example->sizeOut(), std::int64_t{1});
        const auto fails = [](const nlohmann::json& config, const std::string& needle) {
            try {
                spike::engine::createModule("LIFRefrac", config);
            } catch (const Error& e) {
                return contains(e.what(), needle);
            }
            return false;
        };
        QVERIFY(fails({{"shape", {5, 4}}}, "Nin = Nout"));
        QVERIFY(fails({{"shape", {0}}}, "config 'N'"));
        QVERIFY(fails({{"shape", "5"}}, "config 'shape'"));
        QVERIFY(fails(nlohmann::json::object(), "config 'shape': missing"));
        QVERIFY(fails({{"shape", {5}}, {"has_rec", true}}, "config 'has_rec': unknown key"));
    }

    void modelFileRoundTripIsBitExact()
    {
        QTemporaryDir dir;
        Random rng(77);
        auto root = std::make_unique<spike::engine::Sequential>();
        root->append(randomPopulation(6, 3));
        root->append(std::make_unique<LIFRefrac>(
            6, AttributeMap{{"parametrisation", std::string("times")},
                            {"tau_mem", randomTensor(rng, Shape{6}, 0.005, 0.03)},
                            {"tau_syn", Tensor::scalar(0.004F)},
                            {"refractory_time", Tensor(Shape{6}, 0.003F)},
                            {"surrogate", std::string("triangle")},
                            {"alpha", Tensor::scalar(42.0F)},
                            {"v_leak", Tensor(Shape{1}, -0.01F)}}));
        root->evolve(randomInput(rng, Shape{40, 6}, 0.5, 30.0));  // non-trivial state, saved too

        const std::string path = dir.filePath("refrac.json").toStdString();
        spike::engine::saveModel(path, *root, spike::engine::SaveOptions{-1});
        auto loaded = spike::engine::loadModel(path);
        QCOMPARE(loaded->toString(), root->toString());
        for (const char* child : {"0", "1"}) {
            compareAttributes(root->getSubmodule(child), loaded->getSubmodule(child));
        }
        const Tensor x = randomInput(rng, Shape{50, 6}, 0.5, 30.0);
        std::string why;
        QVERIFY2(identicalResults(root->evolve(x, RecordSpec(true)),
                                  loaded->evolve(x, RecordSpec(true)), why),
                 why.c_str());
        // The state dict round-trips too.
        auto fresh = spike::engine::loadModel(path);
        fresh->resetState();
        const auto result = fresh->loadStateDict(root->stateDict());
        QVERIFY2(result.status.ok, result.status.message.c_str());
        for (const char* child : {"0", "1"}) {
            compareAttributes(root->getSubmodule(child), fresh->getSubmodule(child));
        }
    }
};

QTEST_GUILESS_MAIN(TestNeurons)
#include "test_neurons.moc"
