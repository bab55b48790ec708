// Native code of equation programs (engine/equations/native.hpp): every library model under every
// integration method that applies, and a user text that uses every function, stepped by a
// population running the run-time compiled code and by one interpreting the same program, with
// the same per-neuron parameters and random inputs: states, spikes and refractory counters must
// be equal bit for bit after every step. Also: a parameter made per-neuron mid-run (a new slot
// layout, new code), the background compile (Async) taking over a running population, the disk
// cache, a missing compiler (the population keeps interpreting and says why), and populations that
// consume their inputs (zero them as they read them) with the same results, and the values every
// neuron shares (exp(-dt/tau) of shared parameters) computed once before the loop.
#include "engine/equations/native.hpp"
#include "engine/equations/population.hpp"
#include "engine/neurons/model_library.hpp"
#include "tests/equation_test_cases.hpp"

#include <QtTest/QtTest>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace spike::engine;  // NOLINT: test file
namespace eq = spike::engine::equations;

namespace {

constexpr std::int64_t kN = 37;  // not a multiple of any vector width: the loop's tail runs too

/// One model text run twice: interpreted and native.
struct Pair {
    eq::Population interpreted;
    eq::Population native;
    std::vector<std::vector<float>> inputs;
    std::vector<const float*> rows;
    std::mt19937 rng{7};

    Pair(const eq::CompiledModel& compiled, std::int64_t n) : interpreted(compiled, n), native(compiled, n)
    {
        inputs.assign(compiled.model.inputs.size(), std::vector<float>(static_cast<std::size_t>(n)));
        for (const auto& in : inputs) {
            rows.push_back(in.data());
        }
    }

    /// Both populations to the same per-neuron value of parameter `k` (its default x 0.8..1.2).
    void perNeuron(std::size_t k)
    {
        const auto& p = interpreted.compiled().model.parameters[k];
        std::vector<float> v(static_cast<std::size_t>(interpreted.size()));
        std::uniform_real_distribution<float> u(0.8F, 1.2F);
        for (float& x : v) {
            x = static_cast<float>(p.value) * u(rng);
        }
        interpreted.setParameter(p.name, v.data(), interpreted.size());
        native.setParameter(p.name, v.data(), native.size());
        interpreted.parametersChanged();
        native.parametersChanged();
    }

    /// One step of both (new random inputs), then the bitwise comparison. "" when equal.
    std::string step(std::int64_t s, float drive, bool sparse)
    {
        std::uniform_real_distribution<float> u(0.0F, 1.0F);
        for (auto& in : inputs) {
            for (std::size_t i = 0; i < in.size(); ++i) {
                const float scale = drive * (0.5F + static_cast<float>(i) / static_cast<float>(in.size()));
                in[i] = sparse ? (u(rng) < 0.05F ? scale : 0.0F) : scale * (0.9F + 0.2F * u(rng));
            }
        }
        const double t = static_cast<double>(s) * interpreted.compiled().dt;
        const eq::NativeMode mode = eq::nativeMode();
        eq::setNativeMode(eq::NativeMode::Off);
        interpreted.step(rows.data(), t);
        eq::setNativeMode(mode);
        native.step(rows.data(), t);
        return differences(s);
    }

    std::string differences(std::int64_t s) const
    {
        const auto bytes = static_cast<std::size_t>(interpreted.size()) * sizeof(float);
        const auto& states = interpreted.compiled().model.states;
        for (std::size_t i = 0; i < states.size(); ++i) {
            if (std::memcmp(interpreted.state(i), native.state(i), bytes) != 0) {
                for (std::int64_t k = 0; k < interpreted.size(); ++k) {
                    if (interpreted.state(i)[k] != native.state(i)[k]) {
                        return "step " + std::to_string(s) + ": " + states[i].name + "[" + std::to_string(k) +
                               "] interpreted " + QString::number(interpreted.state(i)[k], 'g', 9).toStdString() +
                               ", native " + QString::number(native.state(i)[k], 'g', 9).toStdString();
                    }
                }
                return "step " + std::to_string(s) + ": " + states[i].name + " differs in its bits (NaN payloads)";
            }
        }
        if (std::memcmp(interpreted.spikes(), native.spikes(), bytes) != 0) {
            return "step " + std::to_string(s) + ": spikes differ";
        }
        auto& a = const_cast<eq::Population&>(interpreted);
        auto& b = const_cast<eq::Population&>(native);
        if (a.refractory() != nullptr && std::memcmp(a.refractory(), b.refractory(), bytes) != 0) {
            return "step " + std::to_string(s) + ": refractory counters differ";
        }
        return {};
    }
};

}  // namespace

class TestEquationNative : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_cache;

private slots:
    void initTestCase()
    {
        QVERIFY(m_cache.isValid());
        qputenv("SPIKE_EQ_CACHE", m_cache.path().toUtf8());
        qunsetenv("SPIKE_CXX");
        eq::setNativeMode(eq::NativeMode::Sync);
    }

    /// Every library model, every method that applies; the first parameter per-neuron from the
    /// start, a second one made per-neuron after 150 steps (native code for the new layout).
    void libraryModelsMatchTheInterpreterBitForBit_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("method");
        for (const auto& lib : libraryModels()) {
            for (const std::string& m : eq::applicableMethods(lib.model)) {
                QTest::newRow((lib.model.name + " " + m).c_str())
                    << QString::fromStdString(lib.model.name) << QString::fromStdString(m);
            }
        }
        QTest::newRow("every function rk4") << "" << "rk4";
        QTest::newRow("every function euler") << "" << "euler";
    }
    void libraryModelsMatchTheInterpreterBitForBit()
    {
        QFETCH(QString, name);
        QFETCH(QString, method);
        const eq::EquationModel model =
            name.isEmpty() ? eq::parseModel(spike::tests::kEveryFunction) : findLibraryModel(name.toStdString())->model;
        const std::string key = name.toStdString();
        Pair pair(eq::compileModel(model, spike::tests::equationDtOf(key), method.toStdString()), kN);
        std::vector<std::size_t> settable;
        for (std::size_t k = 0; k < model.parameters.size(); ++k) {
            if (!model.parameters[k].input) {
                settable.push_back(k);
            }
        }
        QVERIFY(settable.size() >= 2);
        pair.perNeuron(settable[0]);
        pair.interpreted.initialise();
        pair.native.initialise();
        int spikes = 0;
        for (std::int64_t s = 0; s < 400; ++s) {
            if (s == 150) {
                pair.perNeuron(settable[1]);
            }
            const std::string diff = pair.step(s, spike::tests::equationDriveOf(key), key == "COBALIF");
            QVERIFY2(diff.empty(), diff.c_str());
            if (s > 0 && s != 150) {
                QCOMPARE(QString::fromStdString(pair.native.executionStatus()), QString("native code"));
            }
            for (std::int64_t i = 0; i < kN; ++i) {
                spikes += pair.native.spikes()[i] != 0.0F ? 1 : 0;
            }
        }
        QVERIFY(pair.interpreted.executionStatus().rfind("interpreted", 0) == 0);
        // The comparison means something only if the models move and fire.
        if (key != "FitzHughNagumo" && key != "HodgkinHuxley") {
            QVERIFY2(spikes > 0, "no spikes in 400 steps");
        }
    }

    /// A population that consumes its inputs (what the executor asks of an equation population
    /// with a one-row input) leaves every input row all zero after each step, natively and
    /// interpreted, and its states, spikes and refractory counters stay bit for bit those of a
    /// population that does not.
    void consumingPopulationsLeaveTheirInputsZero()
    {
        for (const auto& lib : libraryModels()) {
            const std::string& key = lib.model.name;
            const eq::CompiledModel compiled = eq::compileModel(lib.model, spike::tests::equationDtOf(key));
            eq::Population plain(compiled, kN);
            eq::Population native(compiled, kN);
            eq::Population interpreted(compiled, kN);
            QVERIFY2(!lib.model.inputs.empty(), key.c_str());
            QVERIFY(native.setConsumeInputs(true));
            QVERIFY(interpreted.setConsumeInputs(true));
            // A per-neuron parameter, as in the test above: a layout of their own, whose code
            // no other test (backgroundCompileTakesOverARunningPopulation) may find compiled.
            const auto param = std::find_if(lib.model.parameters.begin(), lib.model.parameters.end(),
                                            [](const auto& p) { return !p.input; });
            QVERIFY(param != lib.model.parameters.end());
            std::vector<float> values(static_cast<std::size_t>(kN));
            for (std::size_t i = 0; i < values.size(); ++i) {
                values[i] = static_cast<float>(param->value) * (0.9F + 0.2F * static_cast<float>(i) / kN);
            }
            for (eq::Population* p : {&plain, &native, &interpreted}) {
                p->setParameter(param->name, values.data(), kN);
                p->parametersChanged();
                p->initialise();
            }
            const std::size_t inputs = lib.model.inputs.size();
            std::vector<std::vector<float>> rows(3 * inputs, std::vector<float>(static_cast<std::size_t>(kN)));
            std::vector<const float*> ptrs;
            for (const auto& r : rows) {
                ptrs.push_back(r.data());
            }
            std::mt19937 rng(11);
            std::uniform_real_distribution<float> u(0.5F, 1.5F);
            for (std::int64_t s = 0; s < 200; ++s) {
                for (std::size_t k = 0; k < inputs; ++k) {
                    for (std::size_t i = 0; i < static_cast<std::size_t>(kN); ++i) {
                        const float x = spike::tests::equationDriveOf(key) * u(rng);
                        rows[k][i] = rows[inputs + k][i] = rows[2 * inputs + k][i] = x;
                    }
                }
                const double t = static_cast<double>(s) * compiled.dt;
                plain.step(ptrs.data(), t);
                native.step(ptrs.data() + inputs, t);
                eq::setNativeMode(eq::NativeMode::Off);
                interpreted.step(ptrs.data() + 2 * inputs, t);
                eq::setNativeMode(eq::NativeMode::Sync);
                if (s > 0) {
                    QCOMPARE(QString::fromStdString(native.executionStatus()), QString("native code"));
                }
                for (std::size_t k = inputs; k < rows.size(); ++k) {
                    const auto nonZero = std::count_if(rows[k].begin(), rows[k].end(), [](float x) { return x != 0.0F; });
                    QVERIFY2(nonZero == 0, (key + ", step " + std::to_string(s) + ": " + std::to_string(nonZero) +
                                            " input values left").c_str());
                }
                const auto bytes = static_cast<std::size_t>(kN) * sizeof(float);
                for (std::size_t i = 0; i < lib.model.states.size(); ++i) {
                    QVERIFY2(std::memcmp(plain.state(i), native.state(i), bytes) == 0, (key + " native").c_str());
                    QVERIFY2(std::memcmp(plain.state(i), interpreted.state(i), bytes) == 0, (key + " interpreted").c_str());
                }
                QVERIFY(std::memcmp(plain.spikes(), native.spikes(), bytes) == 0);
                QVERIFY(std::memcmp(plain.spikes(), interpreted.spikes(), bytes) == 0);
            }
            // Back to not consuming: the rows are left as given.
            QVERIFY(!native.setConsumeInputs(false));
            std::fill(rows[inputs].begin(), rows[inputs].end(), 1e-3F);
            native.step(ptrs.data() + inputs, 0.0);
            QCOMPARE(rows[inputs][0], 1e-3F);
        }
    }

    /// Async: a running population interprets, asks for code after kNativeAfterNeuronSteps,
    /// and switches to it when the background compile is done, with the same bits throughout.
    void backgroundCompileTakesOverARunningPopulation()
    {
        eq::setNativeMode(eq::NativeMode::Async);
        // A text of its own, so no earlier test compiled it.
        const auto model = eq::parseModel(
            "dv/dt = (0.04*v**2/mV + 5*v + 140*mV - u + I) / ms : volt\ndu/dt = a*(b*v - u) / ms : volt\n"
            "I : volt (input)\na = 0.021 : 1\nb = 0.2 : 1\nc = -65*mV : volt\nd = 8*mV : volt\n"
            "v(0) = -65*mV\nu(0) = b*v\nthreshold: v >= 30*mV\nreset: v = c; u += d\n");
        const std::int64_t n = 1000;
        Pair pair(eq::compileModel(model, 1e-4), n);
        pair.interpreted.initialise();
        pair.native.initialise();
        const std::int64_t before = eq::kNativeAfterNeuronSteps / n;
        std::int64_t s = 0;
        for (; s < before - 1; ++s) {
            const std::string diff = pair.step(s, 0.008F, false);
            QVERIFY2(diff.empty(), diff.c_str());
        }
        QVERIFY2(pair.native.executionStatus().find("after") != std::string::npos, pair.native.executionStatus().c_str());
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
        while (pair.native.executionStatus() != "native code" && std::chrono::steady_clock::now() < deadline) {
            const std::string diff = pair.step(s++, 0.008F, false);
            QVERIFY2(diff.empty(), diff.c_str());
            if (pair.native.executionStatus() == "interpreted (native code compiling)") {
                std::this_thread::sleep_for(std::chrono::milliseconds(2));
            }
        }
        QCOMPARE(QString::fromStdString(pair.native.executionStatus()), QString("native code"));
        for (int k = 0; k < 200; ++k, ++s) {
            const std::string diff = pair.step(s, 0.008F, false);
            QVERIFY2(diff.empty(), diff.c_str());
        }
        eq::setNativeMode(eq::NativeMode::Sync);
    }

    /// Compiled libraries are kept in the cache folder with their source.
    void librariesAreCachedOnDisk()
    {
        int libraries = 0;
        int sources = 0;
        for (const auto& f : std::filesystem::directory_iterator(m_cache.path().toStdString())) {
            libraries += f.path().extension() == ".so" ? 1 : 0;
            sources += f.path().extension() == ".cpp" ? 1 : 0;
        }
        QVERIFY2(libraries >= 10, std::to_string(libraries).c_str());
        QCOMPARE(libraries, sources);
        QVERIFY(std::filesystem::exists(m_cache.path().toStdString() + "/kernels/portable_math.hpp"));
    }

    /// No compiler: the population keeps interpreting, with the same results, and says why.
    void aMissingCompilerLeavesTheInterpreter()
    {
        qputenv("SPIKE_CXX", "/nonexistent/c++");
        const auto model = eq::parseModel("dv/dt = (I - v) / (7*ms) : volt\nI : volt (input)\nv(0) = 0*mV\n"
                                          "threshold: v > 10*mV\nreset: v = 0*mV\n");
        Pair pair(eq::compileModel(model, 1e-4), kN);
        pair.interpreted.initialise();
        pair.native.initialise();
        for (std::int64_t s = 0; s < 50; ++s) {
            const std::string diff = pair.step(s, 0.04F, false);
            QVERIFY2(diff.empty(), diff.c_str());
        }
        const std::string status = pair.native.executionStatus();
        QVERIFY2(status.find("interpreted: no C++ compiler: '/nonexistent/c++' could not be started") == 0,
                 status.c_str());
        QVERIFY2(status.find("install g++ or set SPIKE_CXX") != std::string::npos, status.c_str());
        qunsetenv("SPIKE_CXX");
    }

    /// The generated source reads shared slots once, per-neuron ones by index.
    void sourceFollowsTheSlotLayout()
    {
        const auto compiled = eq::compileModel(
            eq::parseModel("dv/dt = (I - v) / tau : volt\nI : volt (input)\ntau = 7*ms : second\nv(0) = 0*mV\n"), 1e-4);
        std::vector<char> layout(compiled.slotInfo.size(), 1);
        const int tau = compiled.parameterSlots[1];
        layout[static_cast<std::size_t>(tau)] = 0;
        const std::string shared = eq::nativeSource(compiled.step, layout);
        QVERIFY(shared.find("const float u" + std::to_string(tau)) != std::string::npos);
        QVERIFY(shared.find("s[" + std::to_string(tau) + "][0]") != std::string::npos);
        layout[static_cast<std::size_t>(tau)] = 1;
        const std::string own = eq::nativeSource(compiled.step, layout);
        QVERIFY(own.find("float* __restrict s" + std::to_string(tau)) != std::string::npos);
        // A consumed input is zeroed at the end of each neuron's pass; a shared slot cannot be.
        const int input = compiled.parameterSlots[0];
        const std::string consuming = eq::nativeSource(compiled.step, layout, {input});
        const std::string zero = "s" + std::to_string(input) + "[i] = 0.0f;\n    }\n}";
        QVERIFY2(consuming.find(zero) != std::string::npos, consuming.c_str());
        QVERIFY(own.find(zero) == std::string::npos);
        std::vector<char> sharedTau = layout;
        sharedTau[static_cast<std::size_t>(tau)] = 0;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, eq::nativeSource(compiled.step, sharedTau, {tau}));
        // A store into a shared slot is not a layout the program can run with.
        layout[static_cast<std::size_t>(compiled.stateSlots[0])] = 0;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, eq::nativeSource(compiled.step, layout));
    }

    void sharedExpressionsRunOnceBeforeTheLoop()
    {
        // COBALIF under exponential Euler: exp(-dt/taue) and exp(-dt/taui) depend on shared
        // parameters only and run once per call, before the neuron loop; the membrane's exp
        // depends on ge and gi and stays in it. Made per-neuron, taue's exponential moves into
        // the loop. (libraryModelsMatchTheInterpreterBitForBit checks the bits either way.)
        const eq::EquationModel& model = findLibraryModel("COBALIF")->model;
        const auto compiled = eq::compileModel(model, 1e-4, "exponential_euler");
        std::vector<char> layout(compiled.slotInfo.size(), 1);
        int taue = -1;
        for (std::size_t s = 0; s < layout.size(); ++s) {
            const eq::SlotKind kind = compiled.slotInfo[s].kind;
            if (kind == eq::SlotKind::Parameter || kind == eq::SlotKind::Time || kind == eq::SlotKind::Matrix ||
                kind == eq::SlotKind::Propagator) {
                layout[s] = 0;
            }
        }
        for (std::size_t k = 0; k < model.parameters.size(); ++k) {
            if (model.parameters[k].name == "taue") {
                taue = compiled.parameterSlots[k];
            }
        }
        QVERIFY(taue >= 0);
        const auto exps = [](const std::string& source) {
            const std::size_t loop = source.find("for (std::int64_t i");
            const auto count = [](const std::string& text) {
                int n = 0;
                for (std::size_t at = text.find("pm::exp("); at != std::string::npos; at = text.find("pm::exp(", at + 1)) {
                    ++n;
                }
                return n;
            };
            return std::pair{count(source.substr(0, loop)), count(source.substr(loop))};
        };
        QCOMPARE(exps(eq::nativeSource(compiled.step, layout)), (std::pair{2, 1}));
        layout[static_cast<std::size_t>(taue)] = 1;
        QCOMPARE(exps(eq::nativeSource(compiled.step, layout)), (std::pair{1, 2}));
    }
};

QTEST_GUILESS_MAIN(TestEquationNative)
#include "test_equation_native.moc"
