// spikesim, driven as a user would (QProcess): `info` lists the tree and registry, `run` writes
// recordings that equal an in-process evolve(), and every error exits non-zero with one line
// naming the file, JSON path or attribute, leaving no output file behind.
#include "engine/neurons/lif.hpp"
#include "engine/io/model_io.hpp"
#include "engine/tensor/npy.hpp"

#include "tests/spikesim_process.hpp"

#include <QtTest/QtTest>

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <map>

using namespace spike::engine;  // NOLINT: test file
namespace fs = std::filesystem;

namespace {

using spike::tests::Outcome;
using spike::tests::runSpikesim;

QString example()
{
    return spike::tests::exampleModel("two_layer_lif.json");
}

QString networkExample()
{
    return spike::tests::exampleModel("cuba_network.json");
}

}  // namespace

class TestSpikesim : public QObject {
    Q_OBJECT

private slots:
    void equationNanNamesItsEquation()
    {
        // A state of an equation-defined population that blows up stops the run with the
        // equation that sets it and where it is written.
        QTemporaryDir dir;
        const QString model = dir.filePath(QStringLiteral("explode.json"));
        QFile file(model);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"format": "spikestudio.model", "version": 1, "model": {"type": "Network",
            "config": {"input_size": 0, "output_size": 0}, "connections": [],
            "children": [{"name": "cell", "type": "EquationNeuron", "attributes": {"dt": 0.0001},
              "config": {"shape": [3], "equations": "dv/dt = v*v/(mV*ms) : volt\nv(0) = 1*mV\n"}}]}})");
        file.close();
        const Outcome o = runSpikesim({"run", model, "--steps", "200", "--out", dir.filePath(QStringLiteral("out"))});
        QCOMPARE(o.exitCode, 1);
        QVERIFY2(o.err.contains("cell.v[0] became inf, set by dv/dt = v*v/(mV*ms) (line 1, column 2 of the "
                                "EquationNeuron equations)"),
                 qPrintable(o.err));
    }

    void runSaysHowEquationPopulationsRan()
    {
        // Short runs interpret; with SPIKE_EQ_NATIVE=sync the step is native code from the
        // second step, with the same spikes (docs/equations.md, "How it runs").
        const QStringList args{QStringLiteral("run"), spike::tests::exampleModel("izhikevich_presets.json"),
                               QStringLiteral("--steps"), QStringLiteral("3000"), QStringLiteral("--backend"),
                               QStringLiteral("cpu")};
        QTemporaryDir cache;  // empty: no library compiled by an earlier run is found
        qputenv("SPIKE_EQ_CACHE", cache.path().toUtf8());
        const Outcome interpreted = runSpikesim(args);
        QCOMPARE(interpreted.exitCode, 0);
        QVERIFY2(interpreted.out.contains("equations: izhikevich: interpreted (native code is compiled after 2000000 "
                                          "neuron-steps)"),
                 qPrintable(interpreted.out));
        qputenv("SPIKE_EQ_NATIVE", "sync");
        const Outcome native = runSpikesim(args);
        qunsetenv("SPIKE_EQ_NATIVE");
        qunsetenv("SPIKE_EQ_CACHE");
        QCOMPARE(native.exitCode, 0);
        QVERIFY2(native.out.contains("equations: izhikevich: native code\n"), qPrintable(native.out));
        QVERIFY(!native.out.contains("interpreted"));
        const auto spikes = [](const QString& out) {
            return QRegularExpression(QStringLiteral("spikes (\\d+)")).match(out).captured(1);
        };
        QVERIFY(!spikes(native.out).isEmpty());
        QCOMPARE(spikes(native.out), spikes(interpreted.out));
    }

    void mixedTimeStepsAreWarnedAbout()
    {
        // A ConstantCurrent (1 ms) driving HodgkinHuxley neurons (0.01 ms): every node advances
        // by its own dt per step, so `info` and `run` say which nodes disagree; the run still runs.
        const QString path = QStringLiteral(SPIKE_TEST_DATA_DIR "/models/mixed_time_steps.json");
        const QString expected = QStringLiteral("the model mixes time steps: 0.01 ms (hh), 1 ms (current)");
        const Outcome info = runSpikesim({QStringLiteral("info"), path});
        QCOMPARE(info.exitCode, 0);
        QVERIFY2(info.out.contains(QStringLiteral("warning: ") + expected), qPrintable(info.out));
        const Outcome run = runSpikesim({QStringLiteral("run"), path, QStringLiteral("--steps"), QStringLiteral("20")});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.err.contains(QStringLiteral("spikesim: warning: ") + path + QStringLiteral(": ") + expected),
                 qPrintable(run.err));
        // One time step everywhere: no warning.
        const Outcome same = runSpikesim({QStringLiteral("info"), spike::tests::exampleModel("izhikevich_presets.json")});
        QCOMPARE(same.exitCode, 0);
        QVERIFY(!same.out.contains(QStringLiteral("mixes time steps")));
    }

    void infoPrintsTreeAndRegistry()
    {
        const Outcome o = runSpikesim({"info", example()});
        QCOMPARE(o.exitCode, 0);
        QVERIFY2(o.out.contains("(root)  Sequential  shape (8, 4)"), qPrintable(o.out));
        QVERIFY(o.out.contains("1  LIF  shape (8, 4)"));
        // The constructor settings with their values and bounds (ModuleTypeInfo::settings).
        QVERIFY2(o.out.contains("    Settings: neurons = 4 in [1, 100000000] (size), synapses = 2 in "
                                "[1, 100000000], has_rec = true (true/false)\n"),
                 qPrintable(o.out));
        QVERIFY(o.out.contains("[taus]"));
        QVERIFY(o.out.contains("tau_mem"));
        QVERIFY(o.out.contains("Simulation parameters"));
        QVERIFY(o.out.contains("w_rec             (4, 8)"));
        QVERIFY(o.out.contains("Derived (read-only in this mode): alpha"));
        QVERIFY(o.out.contains("Recordable: vmem, isyn, irec, spikes"));
    }

    void infoPrintsModuleStatistics()
    {
        // DynamicsNetwork's statistics (LightZero's get_dynamic_mean / get_reward_mean), as the
        // Inspector shows them, with the value the module computes from its weights.
        const QString model = spike::tests::exampleModel("dynamics_network.json");
        const Outcome o = runSpikesim({"info", model});
        QCOMPARE(o.exitCode, 0);
        const auto root = loadModel(model.toStdString());
        for (const auto& [path, m] : root->namedModules()) {
            for (const auto& st : m->statistics()) {
                std::ostringstream line;
                line << "      " << st.name << " = " << std::setprecision(9) << st.value << "  (";
                QVERIFY2(o.out.contains(QString::fromStdString(line.str())),
                         qPrintable(QString::fromStdString(line.str()) + "\n" + o.out.left(2000)));
            }
        }
        QVERIFY(o.out.contains("    Statistics\n      dynamic_mean = "));
        QVERIFY(o.out.contains("      reward_mean = "));
        // A module without statistics prints no such group.
        QVERIFY(!runSpikesim({"info", example()}).out.contains("Statistics"));
    }

    void runWritesRecordingsEqualToEvolve()
    {
        QTemporaryDir dir;
        // An input file with a batch of 2.
        Tensor input(Shape{2, 300, 8});
        Random rng(4);
        for (std::int64_t i = 0; i < input.numel(); ++i) {
            input[i] = rng.uniform() < 0.1 ? 0.7F : 0.0F;
        }
        const std::string inputPath = dir.filePath("in.npy").toStdString();
        npy::save(inputPath, input);
        const QString out = dir.filePath("rec");
        const Outcome o = runSpikesim({"run", example(), "--input", QString::fromStdString(inputPath),
                                       "--record", "0.vmem", "--record", "1.spikes", "--record",
                                       "1.irec", "--out", out, "--progress"});
        QVERIFY2(o.exitCode == 0, qPrintable(o.err));
        QVERIFY2(o.out.startsWith("steps 300, batch 2, neurons 12, wall "), qPrintable(o.out));
        QVERIFY(o.out.contains("neuron-steps/s, spikes "));
        QVERIFY(o.err.contains("step 600 / 600 (100%)"));

        auto model = loadModel(example().toStdString());
        const auto expected = model->evolve(input, RecordSpec(true));
        const Tensor vmem = npy::load((out + "/0.vmem.npy").toStdString());
        QCOMPARE(vmem.shape(), (Shape{2, 300, 8}));
        QVERIFY(vmem.identical(expected.record.at("0").at("vmem").data));
        const Tensor spikes = npy::load((out + "/1.spikes.npy").toStdString());
        QVERIFY(spikes.identical(expected.record.at("1").at("spikes").data));
        QVERIFY(npy::load((out + "/1.irec.npy").toStdString()).identical(expected.record.at("1").at("irec").data));
        // The summary's spike count is the total of every spiking leaf module.
        const double total = expected.record.at("0").at("spikes").data.flat().cast<double>().sum() +
                             expected.record.at("1").at("spikes").data.flat().cast<double>().sum();
        const QString count = o.out.section("spikes ", -1).trimmed();
        QCOMPARE(count.toDouble(), total);
        QVERIFY(total > 0);
    }

    void runWithoutInputUsesZerosAndSeed()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("rec");
        const Outcome a = runSpikesim({"run", example(), "--steps", "200", "--record", "0.spikes",
                                       "--out", out, "--seed", "3"});
        QVERIFY2(a.exitCode == 0, qPrintable(a.err));
        const Tensor spikes = npy::load((out + "/0.spikes.npy").toStdString());
        QCOMPARE(spikes.shape(), (Shape{200, 8}));
        auto model = loadModel(example().toStdString());
        QVERIFY(model->setAttributes({{"0", {{"seed", Tensor::scalar(3)}}}, {"1", {{"seed", Tensor::scalar(3)}}}}).ok);
        model->resetState();
        QVERIFY(spikes.identical(model->evolve(Tensor(Shape{200, 8}), RecordSpec(true)).record.at("0").at("spikes").data));
    }

    void sequentialOnTheExecutorRecordsEveryLayerAsEvolveDoes()
    {
        // --backend runs the chained Sequential as the GUI does (engine::asProbeableTree): each
        // layer is a plan node, and its recordings equal those of Module::evolve().
        QTemporaryDir dir;
        const QString viaEvolve = dir.filePath("evolve");
        const QString viaExecutor = dir.filePath("executor");
        const QStringList records{"--record", "0.spikes", "--record", "1.vmem"};
        const Outcome a = runSpikesim(QStringList{"run", example(), "--steps", "300", "--out", viaEvolve} + records);
        const Outcome b = runSpikesim(QStringList{"run", example(), "--steps", "300", "--backend", "cpu",
                                                  "--out", viaExecutor} + records);
        QVERIFY2(a.exitCode == 0, qPrintable(a.err));
        QVERIFY2(b.exitCode == 0, qPrintable(b.err));
        QVERIFY2(b.out.contains("backend cpu"), qPrintable(b.out));
        for (const char* key : {"0.spikes", "1.vmem"}) {
            const QString name = QString(key) + ".npy";
            const Tensor evolved = npy::load((viaEvolve + "/" + name).toStdString());
            const Tensor executed = npy::load((viaExecutor + "/" + name).toStdString());
            QCOMPARE(executed.shape(), evolved.shape());
            QVERIFY2(executed.identical(evolved), key);
        }
        QVERIFY(npy::load((viaEvolve + "/0.spikes.npy").toStdString()).flat().sum() > 0.0F);
    }

    void networkRunsOnTheChosenBackend()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("rec");
        const Outcome o = runSpikesim({"run", networkExample(), "--steps", "3000", "--backend",
                                       "cpu", "--record", "E.spikes", "--record", "I.v", "--out", out});
        QVERIFY2(o.exitCode == 0, qPrintable(o.err));
        QVERIFY2(o.out.startsWith("steps 3000, batch 1, neurons 1000, backend cpu, wall "),
                 qPrintable(o.out));
        // The recordings equal the network's own evolve(), and the summary counts its spikes.
        auto model = loadModel(networkExample().toStdString());
        const auto expected = model->evolve(Tensor(Shape{3000, 0}), RecordSpec({"E.spikes", "I.spikes", "I.v"}));
        const Tensor spikes = npy::load((out + "/E.spikes.npy").toStdString());
        QCOMPARE(spikes.shape(), (Shape{3000, 800}));
        QVERIFY(spikes.identical(expected.record.at("E").at("spikes").data));
        QVERIFY(npy::load((out + "/I.v.npy").toStdString()).identical(expected.record.at("I").at("v").data));
        const double total = expected.record.at("E").at("spikes").data.flat().cast<double>().sum() +
                             expected.record.at("I").at("spikes").data.flat().cast<double>().sum();
        QVERIFY(total > 100);
        QCOMPARE(o.out.section("spikes ", -1).section(",", 0, 0).trimmed().toDouble(), total);
        QVERIFY(o.out.contains(" Hz"));

        // --realtime paces the same computation (here 20x faster than biological time).
        const Outcome paced = runSpikesim({"run", networkExample(), "--steps", "2000", "--realtime", "20"});
        QVERIFY2(paced.exitCode == 0, qPrintable(paced.err));
        QVERIFY(paced.out.contains("steps 2000"));

        // cuda without a device is a clear one-line error; auto falls back and says why.
        if (!qEnvironmentVariableIsSet("SPIKE_EXPECT_GPU")) {
            const Outcome cuda = runSpikesim({"run", networkExample(), "--steps", "10", "--backend", "cuda"});
            if (cuda.exitCode != 0) {
                QVERIFY2(cuda.err.startsWith("spikesim: CUDA backend"), qPrintable(cuda.err));
                QCOMPARE(cuda.err.count('\n'), 1);
                const Outcome autoRun = runSpikesim({"run", networkExample(), "--steps", "10", "--backend", "auto"});
                QVERIFY2(autoRun.exitCode == 0, qPrintable(autoRun.err));
                QVERIFY2(autoRun.err.contains("using the CPU backend"), qPrintable(autoRun.err));
                QVERIFY(autoRun.out.contains("backend cpu"));
            }
        }
        const Outcome badSignal = runSpikesim({"run", networkExample(), "--steps", "10", "--record",
                                               "E.voltage", "--out", out});
        QCOMPARE(badSignal.exitCode, 1);
        QVERIFY2(badSignal.err.contains("CUBALIF has no signal 'voltage' (signals: spikes, v, i_exc, i_inh, refrac)"),
                 qPrintable(badSignal.err));
        const Outcome badBackend = runSpikesim({"run", networkExample(), "--steps", "10", "--backend", "gpu"});
        QVERIFY(badBackend.exitCode != 0);
    }

    void cudaRunEqualsCpuRun()
    {
        // `spikesim run cuba_network.json --backend cuda` writes the CPU run's recordings: the
        // same spikes of every neuron at every step, and the same membrane traces bit for bit
        // (0/1 spikes through one shared weight per projection sum alike in any order).
        const Outcome probe = runSpikesim({"run", networkExample(), "--steps", "1", "--backend", "cuda"});
        if (probe.exitCode != 0 && !qEnvironmentVariableIsSet("SPIKE_EXPECT_GPU")) {
            QSKIP(qPrintable("no CUDA device: " + probe.err.trimmed()));
        }
        QVERIFY2(probe.exitCode == 0, qPrintable(probe.err));
        QTemporaryDir dir;
        const QStringList records{"--record", "E.spikes", "--record", "I.spikes", "--record",
                                  "E.v", "--record", "I.i_inh"};
        std::map<QString, Outcome> runs;
        for (const QString backend : {"cpu", "cuda"}) {
            runs[backend] = runSpikesim(QStringList{"run", networkExample(), "--steps", "1500",
                                                    "--backend", backend, "--out",
                                                    dir.filePath(backend)} + records);
            QVERIFY2(runs[backend].exitCode == 0, qPrintable(runs[backend].err));
            QVERIFY2(runs[backend].out.contains("backend " + backend), qPrintable(runs[backend].out));
        }
        const auto spikeSummary = [](const QString& out) { return out.section("spikes ", -1); };
        QCOMPARE(spikeSummary(runs["cuda"].out), spikeSummary(runs["cpu"].out));
        for (const char* signal : {"E.spikes", "I.spikes", "E.v", "I.i_inh"}) {
            const QString name = QString(signal) + ".npy";
            const Tensor cpu = npy::load(dir.filePath("cpu/" + name).toStdString());
            const Tensor cuda = npy::load(dir.filePath("cuda/" + name).toStdString());
            QCOMPARE(cuda.shape(), cpu.shape());
            QVERIFY2(cuda.identical(cpu), signal);
        }
        const Tensor spikes = npy::load(dir.filePath("cpu/E.spikes.npy").toStdString());
        QVERIFY(spikes.flat().sum() > 100.0F);
    }

    void cudaRunSaysHowEquationPopulationsRan()
    {
        // On the CUDA backend a short run interprets on the device; with SPIKE_EQ_NATIVE=sync the
        // population runs as device code compiled at run time (NVRTC on a GPU, the host compiler
        // in the emulator) from its first launch, with the CPU run's spikes; that run keeps the
        // image in the cache folder, and a later short run uses it from its first launch.
        const QStringList args{QStringLiteral("run"), spike::tests::exampleModel("izhikevich_presets.json"),
                               QStringLiteral("--steps"), QStringLiteral("3000"), QStringLiteral("--backend")};
        QTemporaryDir cache;
        qputenv("SPIKE_EQ_CACHE", cache.path().toUtf8());
        const Outcome interpreted = runSpikesim(args + QStringList{QStringLiteral("cuda")});
        if (interpreted.exitCode != 0 && !qEnvironmentVariableIsSet("SPIKE_EXPECT_GPU")) {
            QSKIP(qPrintable("no CUDA device: " + interpreted.err.trimmed()));
        }
        QVERIFY2(interpreted.exitCode == 0, qPrintable(interpreted.err));
        QVERIFY2(interpreted.out.contains("equations: izhikevich: interpreted on the device (device code is compiled "
                                          "after 2000000 neuron-steps)"),
                 qPrintable(interpreted.out));
        qputenv("SPIKE_EQ_NATIVE", "sync");
        const Outcome compiled = runSpikesim(args + QStringList{QStringLiteral("cuda")});
        const Outcome cpu = runSpikesim(args + QStringList{QStringLiteral("cpu")});
        qunsetenv("SPIKE_EQ_NATIVE");
        const Outcome cached = runSpikesim(args + QStringList{QStringLiteral("cuda")});
        qunsetenv("SPIKE_EQ_CACHE");
        QVERIFY2(compiled.exitCode == 0, qPrintable(compiled.err));
        QVERIFY2(compiled.out.contains("equations: izhikevich: device code ("), qPrintable(compiled.out));
        QVERIFY2(!compiled.out.contains("interpreted"), qPrintable(compiled.out));
        const auto spikes = [](const QString& out) {
            return QRegularExpression(QStringLiteral("spikes (\\d+)")).match(out).captured(1);
        };
        QVERIFY(!spikes(compiled.out).isEmpty());
        QCOMPARE(spikes(compiled.out), spikes(cpu.out));
        QCOMPARE(spikes(compiled.out), spikes(interpreted.out));
        QVERIFY2(cached.out.contains("equations: izhikevich: device code ("), qPrintable(cached.out));
        QVERIFY2(!cached.out.contains("interpreted"), qPrintable(cached.out));
        QCOMPARE(spikes(cached.out), spikes(compiled.out));
        // Brian2's COBA network is a cycle (E <-> I): the CUDA executor fuses it into one kernel,
        // which interprets the populations, and says so.
        const Outcome fused = runSpikesim({QStringLiteral("run"), spike::tests::exampleModel("coba_network.json"),
                                           QStringLiteral("--steps"), QStringLiteral("20"), QStringLiteral("--backend"),
                                           QStringLiteral("cuda")});
        QVERIFY2(fused.exitCode == 0, qPrintable(fused.err));
        QVERIFY2(fused.out.contains("equations: E, I: interpreted on the device (in a fused cycle, whose kernel "
                                    "interprets)"),
                 qPrintable(fused.out));
    }

    void errorsAreOneLineAndLeaveNoFiles()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("rec");
        const QString corpus = QStringLiteral(SPIKE_TEST_DATA_DIR "/corpus/");
        Tensor nanInput(Shape{10, 8});
        nanInput[17] = NAN;
        npy::save(dir.filePath("nan.npy").toStdString(), nanInput);
        npy::save(dir.filePath("wide.npy").toStdString(), Tensor(Shape{10, 5}));
        const std::vector<std::pair<QStringList, QString>> cases{
            {{"run", "/no/such/model.json", "--steps", "5"}, "/no/such/model.json: cannot open"},
            {{"run", corpus + "invalid_json.json", "--steps", "5"}, "invalid JSON at line 4, column 27"},
            {{"run", corpus + "unknown_type.json", "--steps", "5"}, "/model/type: unknown module type 'Hopfield'"},
            {{"run", corpus + "negative_tau.json", "--steps", "5"}, "/model/attributes/tau_mem"},
            {{"info", corpus + "nan_value.json"}, "/model/attributes/threshold: expected a number, got null"},
            {{"run", example(), "--input", dir.filePath("wide.npy"), "--record", "0.vmem", "--out", out},
             "wide.npy: input shape (10, 5) does not fit the model; expected (T, 8)"},
            {{"run", example(), "--input", dir.filePath("nan.npy"), "--record", "0.vmem", "--out", out},
             "input contains NaN at time step 2, channel 1"},
            {{"run", example(), "--steps", "5", "--record", "0.irec", "--out", out},
             "--record 0.irec: LIF '0' cannot record 'irec' (recordable: vmem, isyn, spikes)"},
            {{"run", example(), "--steps", "5", "--record", "2.vmem", "--out", out}, "has no child '2'"},
            {{"run", example(), "--steps", "5", "--record", "0.vmem"}, "--record needs --out DIR"},
            {{"run", example()}, "--steps is required when no --input is given"},
            {{"run", example(), "--steps", "5", "--state-dict", dir.filePath("none")}, "not a folder of <key>.npy files"},
        };
        for (const auto& [args, needle] : cases) {
            const Outcome o = runSpikesim(args);
            QVERIFY2(o.exitCode != 0, qPrintable(args.join(' ')));
            QVERIFY2(o.exitCode != -2, "crashed");
            QVERIFY2(o.err.contains(needle), qPrintable(args.join(' ') + " -> " + o.err));
            QCOMPARE(o.err.trimmed().count('\n'), 0);
            QVERIFY2(o.err.startsWith("spikesim: "), qPrintable(o.err));
        }
        QVERIFY2(!fs::exists(out.toStdString()) || fs::is_empty(out.toStdString()),
                 "an output file was left after a failed run");
        const Outcome bad = runSpikesim({"run", example(), "--steps", "-3"});
        QVERIFY(bad.exitCode != 0);
    }

    void batchedRunWithTimedSourcesEqualsEvolve()
    {
        // Sources depend on time and on their random stream: running batch elements one after
        // another must replay the same span, exactly as one evolve() over (B, T, 0) does.
        QTemporaryDir dir;
        const std::string model = dir.filePath("driven.json").toStdString();
        std::ofstream(model) << R"({"format": "spikestudio.model", "version": 1, "model": {
            "type": "Sequential", "children": [
              {"type": "PulseTrain", "config": {"shape": [4]},
               "attributes": {"amplitude": 0.4, "onset": 0.02, "duration": 0.01, "period": 0.07}},
              {"type": "LIF", "config": {"shape": [4, 2]},
               "attributes": {"tau_syn": 0.005, "noise_std": 0.3, "seed": 2}}]}})";
        npy::save(dir.filePath("none.npy").toStdString(), Tensor(Shape{3, 150, 0}));
        const QString out = dir.filePath("rec");
        const Outcome o = runSpikesim({"run", QString::fromStdString(model), "--input",
                                       dir.filePath("none.npy"), "--record", "0.output",
                                       "--record", "1.vmem", "--out", out, "--progress"});
        QVERIFY2(o.exitCode == 0, qPrintable(o.err));
        QVERIFY2(o.out.startsWith("steps 150, batch 3, neurons 2,"), qPrintable(o.out));
        auto reference = loadModel(model);
        const auto expected = reference->evolve(Tensor(Shape{3, 150, 0}), RecordSpec(true));
        const Tensor pulses = npy::load((out + "/0.output.npy").toStdString());
        QCOMPARE(pulses.shape(), (Shape{3, 150, 4}));
        QVERIFY(pulses.identical(expected.record.at("0").at("output").data));
        QVERIFY(npy::load((out + "/1.vmem.npy").toStdString()).identical(expected.record.at("1").at("vmem").data));
    }

    void stateDictFolderIsLoadedBeforeRunning()
    {
        QTemporaryDir dir;
        auto model = loadModel(example().toStdString());
        QVERIFY(model->setAttributes({{"0", {{"threshold", Tensor::scalar(1000.0F)}}}}).ok);
        saveStateDictFolder(dir.filePath("sd").toStdString(), model->stateDict());
        const QString out = dir.filePath("rec");
        const Outcome o = runSpikesim({"run", example(), "--steps", "100", "--state-dict",
                                       dir.filePath("sd"), "--record", "0.spikes", "--out", out});
        QVERIFY2(o.exitCode == 0, qPrintable(o.err));
        QCOMPARE(npy::load((out + "/0.spikes.npy").toStdString()).flat().sum(), 0.0F);
    }
};

QTEST_GUILESS_MAIN(TestSpikesim)
#include "test_spikesim.moc"
