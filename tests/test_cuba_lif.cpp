// CUBALIF: the membrane after one input jump against the closed-form double-exponential solution
// (excitatory, inhibitory, tau_exc == tau_mem and nearly equal), the refractory period
// (Brian2's timing: v at v_reset for round(refractory_time / dt) steps counting the spike step,
// no spike while refractory), chunked and batched evolution bit for bit, the uniform and
// per-neuron loops agreeing, the registry (defaults, ports, invalid values refused naming the
// attribute, nothing changed), the factory, the model-file round trip, and a Brian2 reference
// (tests/data/cuba/brian2_cuba.json) matched spike step for spike step.
#include "tests/module_compare.hpp"
#include "tests/neuron_test_helpers.hpp"
#include "engine/neurons/cuba_lif.hpp"
#include "engine/io/model_io.hpp"
#include "engine/io/module_factory.hpp"
#include "engine/tensor/random.hpp"
#include "engine/layers/sequential.hpp"

#include <QtTest/QtTest>

#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <limits>
#include <utility>

using spike::engine::AttributeMap;
using spike::engine::CUBALIF;
using spike::engine::Error;
using spike::engine::EvolveResult;
using spike::engine::Random;
using spike::engine::RecordSpec;
using spike::engine::Shape;
using spike::engine::Status;
using spike::engine::Tensor;
using spike::tests::compareAttributes;
using spike::tests::contains;
using spike::tests::identicalResults;
using spike::tests::randomTensor;
using spike::tests::rows;

namespace {

/// (steps, 2n) input: excitatory jumps in [0, excMax), inhibitory in (-inhMax, 0], each present
/// with probability `rate`.
Tensor randomInput(Random& rng, std::int64_t steps, std::int64_t n, double rate, double excMax,
                   double inhMax)
{
    Tensor x(Shape{steps, 2 * n});
    for (std::int64_t t = 0; t < steps; ++t) {
        for (std::int64_t j = 0; j < n; ++j) {
            if (rng.uniform() < rate) {
                x[t * 2 * n + j] = static_cast<float>(rng.uniform(0.0, excMax));
            }
            if (rng.uniform() < rate) {
                x[t * 2 * n + n + j] = static_cast<float>(-rng.uniform(0.0, inhMax));
            }
        }
    }
    return x;
}

/// A population with distinct per-neuron parameters (refractory 0 to 6 steps of 0.1 ms).
std::unique_ptr<CUBALIF> randomPopulation(std::int64_t n, std::uint64_t seed)
{
    Random rng(seed);
    Tensor refractory(Shape{n});
    for (std::int64_t i = 0; i < n; ++i) {
        refractory[i] = static_cast<float>(static_cast<int>(rng.uniform() * 7.0)) * 1e-4F;
    }
    return std::make_unique<CUBALIF>(
        n, AttributeMap{{"dt", Tensor::scalar(1e-4F)},
                        {"tau_mem", randomTensor(rng, Shape{n}, 0.01, 0.03)},
                        {"tau_exc", randomTensor(rng, Shape{n}, 0.002, 0.008)},
                        {"tau_inh", randomTensor(rng, Shape{n}, 0.005, 0.015)},
                        {"v_rest", randomTensor(rng, Shape{n}, -52.0, -48.0)},
                        {"v_th", randomTensor(rng, Shape{n}, -51.0, -49.0)},
                        {"v_reset", randomTensor(rng, Shape{n}, -62.0, -58.0)},
                        {"refractory_time", refractory}});
}

nlohmann::json loadBrianReference()
{
    std::ifstream in(std::string(SPIKE_TEST_DATA_DIR) + "/cuba/brian2_cuba.json");
    if (!in) {
        throw std::runtime_error("cannot open tests/data/cuba/brian2_cuba.json");
    }
    return nlohmann::json::parse(in);
}

}  // namespace

class TestCubaLif : public QObject {
    Q_OBJECT

private slots:
    void defaultsArePublishedCuba()
    {
        const CUBALIF m(3);
        QCOMPARE(m.className(), std::string("CUBALIF"));
        QCOMPARE(m.shape(), (std::vector<std::int64_t>{6, 3}));
        QCOMPARE(m.tensor("tau_mem")[0], 0.02F);
        QCOMPARE(m.tensor("tau_exc")[0], 0.005F);
        QCOMPARE(m.tensor("tau_inh")[0], 0.01F);
        QCOMPARE(m.tensor("v_rest")[0], -49.0F);
        QCOMPARE(m.tensor("v_reset")[0], -60.0F);
        QCOMPARE(m.tensor("v_th")[0], -50.0F);
        QCOMPARE(m.tensor("refractory_time")[0], 0.005F);
        QCOMPARE(m.tensor("dt")[0], 1e-3F);
        QVERIFY(m.tensor("v").identical(Tensor(Shape{3}, -49.0F)));
        for (const char* s : {"i_exc", "i_inh", "refrac"}) {
            QVERIFY2(m.tensor(s).identical(Tensor(Shape{3}, 0.0F)), s);
        }
        QCOMPARE(m.spec("tau_mem").family, std::string("taus"));
        QCOMPARE(m.spec("v_th").family, std::string("thresholds"));
        QVERIFY(m.spec("v_th").role == spike::engine::Role::Threshold);
        QVERIFY(m.spec("v").role == spike::engine::Role::Membrane);
        QCOMPARE(m.membraneSignal(), std::string("v"));
        QCOMPARE(m.spec("v_rest").units, std::string("mV"));
        QCOMPARE(m.spec("refractory_time").units, std::string("s"));
        QCOMPARE(m.recordableSignals(),
                 (std::vector<std::string>{"v", "i_exc", "i_inh", "refrac", "spikes"}));
        QCOMPARE(m.toString(), std::string("CUBALIF(shape=(3,))"));
        const auto ports = m.inputPorts();
        QCOMPARE(ports.size(), std::size_t{2});
        QCOMPARE(ports[0].name, std::string("exc"));
        QCOMPARE(ports[0].offset, std::int64_t{0});
        QCOMPARE(ports[0].size, std::int64_t{3});
        QCOMPARE(ports[1].name, std::string("inh"));
        QCOMPARE(ports[1].offset, std::int64_t{3});
        QCOMPARE(ports[1].size, std::int64_t{3});
        QVERIFY(ports[0].spiking && ports[1].spiking);
        const CUBALIF perNeuron(
            3, {{"tau_mem", Tensor(Shape{3}, 0.01F)}, {"v_th", Tensor(Shape{1}, -45.0F)}});
        QCOMPARE(perNeuron.tensor("tau_mem").shape(), (Shape{3}));
    }

    void singleJumpMatchesClosedForm_data()
    {
        QTest::addColumn<bool>("excitatory");
        QTest::addColumn<float>("dt");
        QTest::addColumn<float>("tauSyn");
        QTest::addColumn<float>("w");
        QTest::addColumn<float>("v0");
        QTest::newRow("excitatory") << true << 1e-4F << 0.005F << 5.0F << -49.0F;
        QTest::newRow("excitatory from below rest") << true << 1e-3F << 0.005F << 12.0F << -58.0F;
        QTest::newRow("inhibitory") << false << 1e-4F << 0.01F << -9.0F << -49.0F;
        QTest::newRow("inhibitory coarse dt") << false << 1e-3F << 0.01F << -4.5F << -45.0F;
        QTest::newRow("tau_exc == tau_mem") << true << 1e-4F << 0.02F << 5.0F << -49.0F;
        QTest::newRow("tau_inh == tau_mem") << false << 1e-3F << 0.02F << -5.0F << -52.0F;
        QTest::newRow("tau_exc next to tau_mem")
            << true << 1e-4F << std::nextafter(0.02F, 1.0F) << 5.0F << -49.0F;
    }

    void singleJumpMatchesClosedForm()
    {
        QFETCH(bool, excitatory);
        QFETCH(float, dt);
        QFETCH(float, tauSyn);
        QFETCH(float, w);
        QFETCH(float, v0);
        const float tauMem = 0.02F;
        const float vRest = -49.0F;
        CUBALIF m(1, {{"dt", Tensor::scalar(dt)},
                      {"tau_mem", Tensor::scalar(tauMem)},
                      {excitatory ? "tau_exc" : "tau_inh", Tensor::scalar(tauSyn)},
                      {"v_th", Tensor::scalar(100.0F)}});
        QVERIFY(m.setAttribute("v", Tensor(Shape{1}, v0)).ok);
        const std::int64_t steps = 200;
        Tensor x(Shape{steps, 2});
        x[excitatory ? 0 : 1] = w;
        const auto r = m.evolve(x, RecordSpec(true));
        const Tensor& v = r.record.at("").at("v").data;
        const Tensor& cur = r.record.at("").at(excitatory ? "i_exc" : "i_inh").data;
        const Tensor& other = r.record.at("").at(excitatory ? "i_inh" : "i_exc").data;

        const double tm = tauMem;
        const double ts = tauSyn;
        double worstV = 0.0;
        double worstI = 0.0;
        for (std::int64_t k = 0; k < steps; ++k) {
            const double t = static_cast<double>(k + 1) * static_cast<double>(dt);
            const double response =
                tm == ts ? (t / tm) * std::exp(-t / tm)
                         : ts / (ts - tm) * (std::exp(-t / ts) - std::exp(-t / tm));
            const double expectedV = vRest + (v0 - vRest) * std::exp(-t / tm) + w * response;
            const double expectedI = w * std::exp(-t / ts);
            worstV = std::max(worstV, std::abs(v[k] - expectedV));
            worstI = std::max(worstI, std::abs(cur[k] - expectedI));
            QCOMPARE(other[k], 0.0F);
            QCOMPARE(r.output[k], 0.0F);
        }
        // float32 arithmetic against the exact solution: a few ulps of |v| ~ 50 mV.
        QVERIFY2(worstV < 3e-5, ("v off by " + std::to_string(worstV) + " mV").c_str());
        QVERIFY2(worstI < 1e-5 * std::abs(w), ("current off by " + std::to_string(worstI)).c_str());
        // The jump moved the membrane measurably (the comparison is not vacuous).
        const double peak = std::abs(v[20] - (vRest + (v0 - vRest) * std::exp(-21.0 * dt / tm)));
        QVERIFY(peak > 0.01 * std::abs(w));
    }

    void refractoryPeriodFollowsBrian()
    {
        // Hard drive: every integrating step crosses the threshold, so a spike comes as soon as
        // the refractory period is over: every max(R, 1) steps.
        for (const int period : {0, 1, 2, 5, 12, 50}) {
            const float dt = 1e-4F;
            CUBALIF m(1, {{"dt", Tensor::scalar(dt)},
                          {"refractory_time", Tensor::scalar(static_cast<float>(period) * dt)}});
            const std::int64_t steps = 400;
            Tensor x(Shape{steps, 2});
            for (std::int64_t t = 0; t < steps; ++t) {
                x[t * 2] = 1e5F;
            }
            const auto r = m.evolve(x, RecordSpec(true));
            const Tensor& v = r.record.at("").at("v").data;
            const Tensor& refrac = r.record.at("").at("refrac").data;
            std::vector<std::int64_t> at;
            for (std::int64_t t = 0; t < steps; ++t) {
                if (r.output[t] > 0.0F) {
                    at.push_back(t);
                }
            }
            QVERIFY(at.size() > 5);
            QCOMPARE(at.front(), std::int64_t{0});
            const std::int64_t hold = std::max(period, 1);
            for (std::size_t k = 1; k < at.size(); ++k) {
                QCOMPARE(at[k] - at[k - 1], hold);
            }
            // After a spike at s: v is v_reset at s .. s + R - 1, and refrac counts R - 1 .. 0.
            for (std::int64_t k = 0; k < hold; ++k) {
                QCOMPARE(v[k], -60.0F);
                QCOMPARE(refrac[k], static_cast<float>(hold - 1 - k));
            }
        }
    }

    void neverSpikesWhileRefractory()
    {
        const std::int64_t n = 32;
        const std::int64_t steps = 2000;
        auto m = randomPopulation(n, 11);
        Random rng(12);
        const auto r = m->evolve(randomInput(rng, steps, n, 0.2, 6.0, 2.5), RecordSpec(true));
        const Tensor& refrac = r.record.at("").at("refrac").data;
        const Tensor& v = r.record.at("").at("v").data;
        const Tensor& vReset = m->tensor("v_reset");
        const Tensor& period = m->tensor("refractory_time");
        std::int64_t held = 0;
        double spikes = 0.0;
        for (std::int64_t t = 0; t < steps; ++t) {
            for (std::int64_t j = 0; j < n; ++j) {
                const float z = r.output[t * n + j];
                QVERIFY(z == 0.0F || z == 1.0F);
                spikes += z;
                if (z > 0.0F) {
                    QCOMPARE(v[t * n + j], vReset[j]);
                    const float rSteps = std::nearbyint(period[j] / 1e-4F);
                    QCOMPARE(refrac[t * n + j], std::max(rSteps - 1.0F, 0.0F));
                }
                if (t > 0 && refrac[(t - 1) * n + j] > 0.0F) {
                    ++held;
                    QVERIFY2(z == 0.0F, ("spike while refractory at step " + std::to_string(t) +
                                         ", neuron " + std::to_string(j)).c_str());
                    QCOMPARE(v[t * n + j], v[(t - 1) * n + j]);
                    QCOMPARE(refrac[t * n + j], refrac[(t - 1) * n + j] - 1.0F);
                }
            }
        }
        QVERIFY(spikes > 100.0);
        QVERIFY(held > 100);
    }

    void chunkedEvolutionIsBitIdentical()
    {
        for (const bool uniform : {true, false}) {
            const std::int64_t n = 24;
            Random rng(21);
            const Tensor x = randomInput(rng, 1000, n, 0.2, 6.0, 2.5);
            auto make = [&] {
                return uniform ? std::make_unique<CUBALIF>(
                                     n, AttributeMap{{"dt", Tensor::scalar(1e-4F)}})
                               : randomPopulation(n, 5);
            };
            auto whole = make();
            auto chunked = make();
            const auto once = whole->evolve(x, RecordSpec(true));
            QVERIFY(once.output.flat().sum() > 50.0F);
            for (std::int64_t k = 0; k < 10; ++k) {
                const auto part = chunked->evolve(rows(x, k * 100, 100), RecordSpec(true));
                QVERIFY(rows(once.output, k * 100, 100).identical(part.output));
                for (const char* key : {"v", "i_exc", "i_inh", "refrac"}) {
                    QVERIFY2(rows(once.record.at("").at(key).data, k * 100, 100)
                                 .identical(part.record.at("").at(key).data),
                             key);
                }
            }
            for (const char* key : {"v", "i_exc", "i_inh", "refrac"}) {
                QVERIFY2(whole->tensor(key).identical(chunked->tensor(key)), key);
            }
            QCOMPARE(chunked->stepsElapsed(), std::int64_t{1000});
        }
    }

    void batchElementsStartFromStoredState()
    {
        const std::int64_t n = 8;
        const std::int64_t steps = 300;
        Random rng(33);
        auto batched = randomPopulation(n, 9);
        const Tensor warmUp = randomInput(rng, 200, n, 0.2, 6.0, 2.5);
        batched->evolve(warmUp);
        const Tensor xs = randomInput(rng, 3 * steps, n, 0.2, 6.0, 2.5);
        const auto r = batched->evolve(xs.reshaped(Shape{3, steps, 2 * n}), RecordSpec(true));
        QCOMPARE(r.output.shape(), (Shape{3, steps, n}));
        for (std::int64_t b = 0; b < 3; ++b) {
            auto single = randomPopulation(n, 9);
            single->evolve(warmUp);
            const auto s = single->evolve(rows(xs, b * steps, steps), RecordSpec(true));
            const Shape flat{3 * steps, n};
            QVERIFY(rows(r.output.reshaped(flat), b * steps, steps).identical(s.output));
            QVERIFY(rows(r.record.at("").at("v").data.reshaped(flat), b * steps, steps)
                        .identical(s.record.at("").at("v").data));
            if (b == 0) {
                for (const char* key : {"v", "i_exc", "i_inh", "refrac"}) {
                    QVERIFY2(batched->tensor(key).identical(single->tensor(key)), key);
                }
            }
        }
    }

    void uniformAndPerNeuronPathsAgree()
    {
        const std::int64_t n = 12;
        CUBALIF scalar(n, {{"dt", Tensor::scalar(1e-4F)}, {"tau_mem", Tensor::scalar(0.015F)},
                           {"tau_inh", Tensor::scalar(0.008F)}, {"v_th", Tensor::scalar(-50.5F)}});
        CUBALIF perNeuron(n, {{"dt", Tensor::scalar(1e-4F)}, {"tau_mem", Tensor(Shape{n}, 0.015F)},
                              {"tau_inh", Tensor(Shape{1}, 0.008F)},
                              {"v_th", Tensor(Shape{n}, -50.5F)},
                              {"refractory_time", Tensor(Shape{n}, 0.005F)}});
        Random rng(4);
        const Tensor x = randomInput(rng, 800, n, 0.2, 6.0, 2.5);
        std::string why;
        QVERIFY2(identicalResults(scalar.evolve(x, RecordSpec(true)),
                                  perNeuron.evolve(x, RecordSpec(true)), why),
                 why.c_str());
        // A different threshold for neuron 0 changes neuron 0 alone.
        Tensor th(Shape{n}, -50.5F);
        th[0] = 0.0F;
        QVERIFY(perNeuron.setAttribute("v_th", th).ok);
        perNeuron.resetState();
        scalar.resetState();
        const auto a = scalar.evolve(x);
        const auto b = perNeuron.evolve(x);
        QVERIFY(!a.output.identical(b.output));
        for (std::int64_t t = 0; t < 800; ++t) {
            QCOMPARE(b.output[t * n], 0.0F);
            for (std::int64_t j = 1; j < n; ++j) {
                QCOMPARE(a.output[t * n + j], b.output[t * n + j]);
            }
        }
    }

    void restingMembraneFollowsRestUntilFirstEvolution()
    {
        auto m = spike::engine::createModule("CUBALIF", {{"shape", {3}}});
        QVERIFY(m->setAttribute("v_rest", Tensor::scalar(-65.0F)).ok);
        QVERIFY(m->tensor("v").identical(Tensor(Shape{3}, -65.0F)));
        const Tensor byHand(Shape{3}, std::vector<float>{-55.0F, -52.0F, -51.0F});
        QVERIFY(m->setAttribute("v", byHand).ok);
        QVERIFY(m->setAttribute("v_rest", Tensor::scalar(-70.0F)).ok);
        QVERIFY(m->tensor("v").identical(byHand));
        m->resetState();
        QVERIFY(m->tensor("v").identical(Tensor(Shape{3}, -70.0F)));
        // Without input and below threshold the membrane stays at rest, exactly.
        m->evolve(Tensor(Shape{50, 6}, 0.0F));
        QVERIFY(m->tensor("v").identical(Tensor(Shape{3}, -70.0F)));
        QVERIFY(m->setAttribute("v_rest", Tensor::scalar(-40.0F)).ok);
        QVERIFY(m->tensor("v").identical(Tensor(Shape{3}, -70.0F)));
    }

    void invalidValuesAreRejected()
    {
        CUBALIF m(4, {{"dt", Tensor::scalar(1e-4F)}});
        const auto before = m.stateDict();
        const auto refused = [&](const char* name, const Tensor& value,
                                 std::initializer_list<const char*> parts) {
            const Status s = m.setAttribute(name, value);
            QVERIFY2(!s.ok, name);
            QVERIFY2(contains(s.message, std::string("'") + name + "'"), s.message.c_str());
            for (const char* p : parts) {
                QVERIFY2(contains(s.message, p), s.message.c_str());
            }
        };
        refused("tau_mem", Tensor::scalar(-0.01F), {"> 0"});
        refused("tau_exc", Tensor::scalar(0.0F), {"> 0"});
        refused("tau_inh", Tensor::scalar(std::numeric_limits<float>::quiet_NaN()), {"finite"});
        refused("v_th", Tensor::scalar(std::numeric_limits<float>::quiet_NaN()), {"finite"});
        refused("v_rest", Tensor::scalar(std::numeric_limits<float>::infinity()), {"finite"});
        refused("refractory_time", Tensor::scalar(-1e-3F), {">= 0"});
        refused("refractory_time", Tensor::scalar(0.00055F), {"whole number", "0.00055", "0.0001"});
        refused("refrac", Tensor(Shape{4}, 2.5F), {"whole"});
        refused("v_reset", Tensor(Shape{3}, -60.0F), {"(4,)"});
        // A new dt that does not divide the refractory time is refused, naming both.
        Status s = m.setAttribute("dt", Tensor::scalar(3e-4F));
        QVERIFY(!s.ok);
        QVERIFY2(contains(s.message, "'refractory_time'") && contains(s.message, "0.005") &&
                     contains(s.message, "0.0003"),
                 s.message.c_str());
        // A multi-attribute change fails as a whole; nothing changed.
        s = m.setAttributes({{"", {{"v_th", Tensor::scalar(-40.0F)},
                                   {"tau_mem", Tensor::scalar(-1.0F)}}}});
        QVERIFY(!s.ok);
        const auto after = m.stateDict();
        QCOMPARE(after.size(), before.size());
        for (std::size_t k = 0; k < after.size(); ++k) {
            QVERIFY2(after[k].second.identical(before[k].second), after[k].first.c_str());
        }
        QCOMPARE(m.tensor("dt")[0], 1e-4F);
        // Consistent changes of dt and refractory_time together are accepted.
        QVERIFY(m.setAttributes({{"", {{"dt", Tensor::scalar(5e-4F)},
                                       {"refractory_time", Tensor::scalar(0.002F)}}}}).ok);
        // At construction the error names the attribute.
        try {
            CUBALIF bad(2, {{"refractory_time", Tensor::scalar(0.0025F)}});
            QFAIL("expected an error");
        } catch (const Error& e) {
            QVERIFY2(contains(e.what(), "refractory_time") && contains(e.what(), "whole number"),
                     e.what());
        }
        QVERIFY_THROWS_EXCEPTION(Error, CUBALIF(0));
    }

    void factoryBuildsFromConfig()
    {
        const auto* info = spike::engine::findModuleType("CUBALIF");
        QVERIFY(info != nullptr);
        QCOMPARE(info->category, std::string("neurons"));
        auto a = spike::engine::createModule("CUBALIF", {{"shape", {5}}});
        QCOMPARE(a->className(), std::string("CUBALIF"));
        QCOMPARE(a->sizeIn(), std::int64_t{10});
        QCOMPARE(a->sizeOut(), std::int64_t{5});
        QCOMPARE(a->config(), (nlohmann::json{{"shape", {5}}}));
        QCOMPARE(spike::engine::createModule("CUBALIF", info->exampleConfig)->sizeOut(),
                 std::int64_t{1});
        const auto fails = [](const nlohmann::json& config, const std::string& needle) {
            try {
                spike::engine::createModule("CUBALIF", config);
            } catch (const Error& e) {
                return contains(e.what(), needle);
            }
            return false;
        };
        QVERIFY(fails({{"shape", {10, 5}}}, "config 'shape'"));
        QVERIFY(fails({{"shape", {0}}}, "config 'N'"));
        QVERIFY(fails(nlohmann::json::object(), "config 'shape': missing"));
        QVERIFY(fails({{"shape", {5}}, {"tau", 1}}, "config 'tau': unknown key"));
    }

    void modelFileRoundTripIsBitExact()
    {
        QTemporaryDir dir;
        Random rng(77);
        auto root = std::make_unique<spike::engine::Sequential>();
        root->append(randomPopulation(6, 3));
        root->evolve(randomInput(rng, 300, 6, 0.2, 6.0, 2.5));  // non-trivial state, saved too
        const std::string path = dir.filePath("cuba.json").toStdString();
        spike::engine::saveModel(path, *root, spike::engine::SaveOptions{-1});
        auto loaded = spike::engine::loadModel(path);
        QCOMPARE(loaded->toString(), root->toString());
        compareAttributes(root->getSubmodule("0"), loaded->getSubmodule("0"));
        const Tensor x = randomInput(rng, 400, 6, 0.2, 6.0, 2.5);
        std::string why;
        QVERIFY2(identicalResults(root->evolve(x, RecordSpec(true)),
                                  loaded->evolve(x, RecordSpec(true)), why),
                 why.c_str());
        // A file written from defaults, then a state dict loaded into a fresh copy.
        auto fresh = spike::engine::loadModel(path);
        fresh->resetState();
        const auto result = fresh->loadStateDict(root->stateDict());
        QVERIFY2(result.status.ok, result.status.message.c_str());
        compareAttributes(root->getSubmodule("0"), fresh->getSubmodule("0"));
    }

    void matchesBrian2SpikeForSpike()
    {
        const nlohmann::json ref = loadBrianReference();
        const auto n = ref.at("n").get<std::int64_t>();
        const auto steps = ref.at("steps").get<std::int64_t>();
        const auto& p = ref.at("params");
        AttributeMap initial{{"dt", Tensor::scalar(ref.at("dt").get<float>())}};
        for (const char* key : {"tau_mem", "tau_exc", "tau_inh", "v_rest", "v_reset", "v_th",
                                "refractory_time"}) {
            initial[key] = Tensor::scalar(p.at(key).get<float>());
        }
        CUBALIF m(n, initial);
        QVERIFY(m.setAttribute("v", Tensor(Shape{n}, ref.at("v0").get<std::vector<float>>())).ok);

        // Brian2 applies a jump delivered in step s after that step's update: our row s + 1.
        Tensor x(Shape{steps, 2 * n});
        const auto deliver = [&](const char* key, const char* weights, std::int64_t offset) {
            const auto& d = ref.at(key);
            const auto w = ref.at(weights).get<std::vector<float>>();
            const auto at = d.at("step").get<std::vector<std::int64_t>>();
            const auto who = d.at("neuron").get<std::vector<std::int64_t>>();
            for (std::size_t k = 0; k < at.size(); ++k) {
                if (at[k] + 1 < steps) {
                    x[(at[k] + 1) * 2 * n + offset + who[k]] += w[static_cast<std::size_t>(who[k])];
                }
            }
        };
        deliver("exc_delivery", "exc_weight", 0);
        deliver("inh_delivery", "inh_weight", n);
        const auto r = m.evolve(x, RecordSpec({"v"}));

        std::vector<std::pair<std::int64_t, std::int64_t>> ours;
        for (std::int64_t t = 0; t < steps; ++t) {
            for (std::int64_t j = 0; j < n; ++j) {
                if (r.output[t * n + j] > 0.0F) {
                    ours.emplace_back(t, j);
                }
            }
        }
        const auto refSteps = ref.at("spikes").at("step").get<std::vector<std::int64_t>>();
        const auto refNeurons = ref.at("spikes").at("neuron").get<std::vector<std::int64_t>>();
        QVERIFY(refSteps.size() > 100);
        std::vector<std::pair<std::int64_t, std::int64_t>> brian;
        for (std::size_t k = 0; k < refSteps.size(); ++k) {
            brian.emplace_back(refSteps[k], refNeurons[k]);
        }
        QCOMPARE(ours.size(), brian.size());
        for (std::size_t k = 0; k < ours.size(); ++k) {
            QVERIFY2(ours[k] == brian[k],
                     ("spike " + std::to_string(k) + ": ours (step, neuron) = (" +
                      std::to_string(ours[k].first) + ", " + std::to_string(ours[k].second) +
                      "), Brian2's (" + std::to_string(brian[k].first) + ", " +
                      std::to_string(brian[k].second) + ")")
                         .c_str());
        }

        // v after every step (after the reset) of the recorded neurons.
        const Tensor& v = r.record.at("").at("v").data;
        const auto neurons = ref.at("v_neurons").get<std::vector<std::int64_t>>();
        const auto& traces = ref.at("v");
        double worst = 0.0;
        for (std::size_t k = 0; k < neurons.size(); ++k) {
            const auto expected = traces.at(k).get<std::vector<double>>();
            QCOMPARE(static_cast<std::int64_t>(expected.size()), steps);
            for (std::int64_t t = 0; t < steps; ++t) {
                worst = std::max(worst, std::abs(v[t * n + neurons[k]] - expected[t]));
            }
        }
        qInfo("largest |v - v_Brian2| = %.3g mV over %zu neurons x %lld steps", worst,
              neurons.size(), static_cast<long long>(steps));
        // Well inside the reference's threshold margin, so the spike match is not luck.
        QVERIFY2(worst < 2e-4, std::to_string(worst).c_str());
        QVERIFY(worst < ref.at("threshold_margin").get<double>() / 5.0);
    }
};

QTEST_GUILESS_MAIN(TestCubaLif)
#include "test_cuba_lif.moc"
