// `spikesim analyse MODEL fi`, driven as a user would (QProcess): the CSV equals an in-process
// engine::fiCurve() number for number, the summary names the rheobase, no --out prints the CSV,
// without --current Izhikevich runs over the suggested range through its input I, and every bad input exits 1 with one line naming it and leaves no file behind. `spikesim analyse
// MODEL sweep`: the CSV equals an in-process engine::parameterSweep() number for number (2-D to a
// file, 1-D peak on stdout), and a bad --param, parameter or measure exits 1 leaving no file.
// `spikesim analyse MODEL isi`: the ISI histogram CSV equals engine::spikeStatistics of the same
// run in process. `spikesim analyse MODEL phase`: the JSON's field and fixed points equal an
// in-process engine::phasePlane() number for number, the summary names the fixed point's
// stability, and bad axes, ranges or grids exit 1 leaving no file. `spikesim analyse MODEL
// divergence`: the CSV's columns and every value equal an in-process engine::backendDivergence()
// (CPU 1 against 2 threads: all 0; with --set on side B: the first spike difference named in the
// comment line), and bad sides, steps, --set or a CUDA side without a device exit 1, no file.
#include "engine/analysis/backend_divergence.hpp"
#include "engine/analysis/fi_curve.hpp"
#include "engine/analysis/parameter_sweep.hpp"
#include "engine/analysis/phase_plane.hpp"
#include "engine/analysis/spike_statistics.hpp"
#include "engine/runtime/headless_run.hpp"
#include "engine/io/model_io.hpp"

#include "kernels/cuda_device.hpp"
#include "tests/spikesim_process.hpp"

#include <QtTest/QtTest>

#include <QProcess>
#include <QTemporaryDir>

#include <algorithm>

#include <fstream>
#include <sstream>

using namespace spike::engine;  // NOLINT: test file

namespace {

using spike::tests::Outcome;
using spike::tests::runSpikesim;

QString example()
{
    return spike::tests::exampleModel("fi_curve.json");
}

/// Rows of a CSV text, each split at commas.
std::vector<std::vector<std::string>> rows(const std::string& text)
{
    std::vector<std::vector<std::string>> out;
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
        std::vector<std::string> cells;
        std::istringstream cellStream(line);
        std::string cell;
        while (std::getline(cellStream, cell, ',')) {
            cells.push_back(cell);
        }
        out.push_back(cells);
    }
    return out;
}

/// A bad command line and the words its one-line error must contain.
struct BadCase {
    QStringList args;
    QString says;
};

/// Each case, as `spikesim analyse MODEL COMMAND ARGS --out CSV`, exits 1 with one line on
/// stderr containing its words and leaves no CSV behind.
void expectExitOne(const QString& model, const QString& command, const std::vector<BadCase>& cases,
                   const QString& csv)
{
    for (const BadCase& c : cases) {
        const Outcome o =
            runSpikesim(QStringList{"analyse", model, command} + c.args + QStringList{"--out", csv});
        QVERIFY2(o.exitCode == 1, qPrintable(c.args.join(' ')));
        QVERIFY2(o.err.contains(c.says), qPrintable(c.args.join(' ') + " -> " + o.err));
        QVERIFY2(o.err.count('\n') == 1, qPrintable(o.err));
        QVERIFY(!QFile::exists(csv));
    }
}

}  // namespace

class TestSpikesimAnalyse : public QObject {
    Q_OBJECT

private slots:
    void fiCsvEqualsTheEngine()
    {
        QTemporaryDir dir;
        const QString csv = dir.filePath("fi.csv");
        const Outcome o = runSpikesim({"analyse", example(), "fi", "--node", "lif", "--current",
                                       "0:0.05:26", "--out", csv});
        QCOMPARE(o.exitCode, 0);
        QVERIFY2(o.out.contains("f-I curve of LIF 'lif' (6 neurons, port in, 1000 steps"),
                 qPrintable(o.out));
        QVERIFY2(o.out.contains("rheobase 0.0108") && o.out.contains("(refined)"),
                 qPrintable(o.out));
        QVERIFY2(o.out.contains("analytic exact discrete"), qPrintable(o.out));

        std::ifstream f(csv.toStdString());
        std::stringstream text;
        text << f.rdbuf();
        const auto table = rows(text.str());
        QCOMPARE(table.size(), std::size_t{27});
        QCOMPARE(table[0], (std::vector<std::string>{"current", "rate_hz", "first_isi_rate_hz",
                                                     "analytic_hz"}));

        const auto root = loadModel(example().toStdString());
        FiOptions options;
        options.start = 0.0;
        options.stop = 0.05;
        options.count = 26;
        const FiCurve c = fiCurve(root->getSubmodule("lif"), options);
        for (std::size_t k = 0; k < 26; ++k) {
            const auto& r = table[k + 1];
            QCOMPARE(r.size(), std::size_t{4});
            QCOMPARE(std::stod(r[0]), c.current[k]);
            QCOMPARE(std::stod(r[1]), c.rateHz[k]);
            QCOMPARE(std::stod(r[2]), c.firstIsiRateHz[k]);
            QCOMPARE(std::stod(r[3]), c.analyticHz[k]);
        }
        QVERIFY(c.rateHz.back() > 100.0);
    }

    void stepsWarmupAndStdout()
    {
        const Outcome o = runSpikesim({"analyse", example(), "fi", "--node", "refrac",
                                       "--current", "0:1:5", "--steps", "500", "--warmup", "50"});
        QCOMPARE(o.exitCode, 0);
        const auto table = rows(o.out.toStdString());
        QCOMPARE(table.size(), std::size_t{6});
        QCOMPARE(table[0].back(), std::string("analytic_hz"));
        const auto root = loadModel(example().toStdString());
        FiOptions options;
        options.start = 0.0;
        options.stop = 1.0;
        options.count = 5;
        options.steps = 500;
        options.warmupSteps = 50;
        const FiCurve c = fiCurve(root->getSubmodule("refrac"), options);
        QCOMPARE(c.steps, std::int64_t{500});
        for (std::size_t k = 0; k < 5; ++k) {
            QCOMPARE(std::stod(table[k + 1][1]), c.rateHz[k]);
        }
        QVERIFY(c.rateHz.back() > 50.0);
    }

    void izhikevichWithoutCurrentUsesTheSuggestedRange()
    {
        // The Izhikevich example's node, driven through its input I over the range the GUI's
        // dialog starts with (probed: the model has no rheobase formula).
        QTemporaryDir dir;
        const QString csv = dir.filePath("izh.csv");
        const QString model = spike::tests::exampleModel("izhikevich_presets.json");
        const Outcome o = runSpikesim({"analyse", model, "fi", "--node", "izhikevich", "--steps", "2000",
                                       "--out", csv});
        QCOMPARE(o.exitCode, 0);
        QVERIFY2(o.out.contains("port I [volt],") && o.out.contains("41 currents from 0 to") &&
                     o.out.contains("(suggested)"),
                 qPrintable(o.out + o.err));
        QFile file(csv);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto table = rows(file.readAll().toStdString());
        QCOMPARE(table.size(), std::size_t{42});
        const auto root = loadModel(model.toStdString());
        const Module& izh = root->getSubmodule("izhikevich");
        FiOptions options = suggestedFiOptions(izh);
        options.steps = 2000;
        const FiCurve c = fiCurve(izh, options);
        QCOMPARE(c.port, std::string("I"));
        for (std::size_t k = 0; k < 41; ++k) {
            QCOMPARE(std::stod(table[k + 1][0]), c.current[k]);
            QCOMPARE(std::stod(table[k + 1][1]), c.rateHz[k]);
        }
        QCOMPARE(c.rateHz.front(), 0.0);
        QVERIFY(c.rateHz.back() > 10.0);
    }

    void badInputExitsOneWithAMessage()
    {
        QTemporaryDir dir;
        const QString csv = dir.filePath("fi.csv");
        const QString model = example();
        const std::vector<BadCase> cases = {
            {{"--node", "lif", "--current", "0:1:0"}, "count 0"},
            {{"--node", "lif", "--current", "0:1:1000000000"}, "count 1000000000 is out of range"},
            {{"--node", "lif", "--current", "1:0:5"}, "empty"},
            {{"--node", "lif", "--current", "a:1:5"}, "START 'a' is not a number"},
            {{"--node", "lif", "--current", "0:1"}, "is not START:STOP:COUNT"},
            {{"--node", "lif", "--current", "nan:1:5"}, "not finite"},
            {{"--node", "lif", "--current", "0:1:5", "--steps", "0"}, "steps 0"},
            {{"--node", "nope", "--current", "0:1:5"}, "--node nope"},
            {{"--node", "current", "--current", "0:1:5"}, "no spikes output"},
            {{"--current", "0:1:5"}, "choose a neuron module with --node"},
        };
        expectExitOne(model, "fi", cases, csv);
        const Outcome missing =
            runSpikesim({"analyse", dir.filePath("none.json"), "fi", "--current", "0:1:5"});
        QCOMPARE(missing.exitCode, 1);
        QVERIFY2(missing.err.contains("none.json"), qPrintable(missing.err));
    }

    void sweepCsvEqualsTheEngine()
    {
        QTemporaryDir dir;
        const QString csv = dir.filePath("sweep.csv");
        const Outcome o = runSpikesim({"analyse", example(), "sweep", "--node", "lif", "--param",
                                       "tau_mem=0.01:0.05:5", "--param", "bias=0:0.02:3",
                                       "--current", "0.01", "--steps", "500", "--warmup", "20",
                                       "--out", csv});
        QCOMPARE(o.exitCode, 0);
        QVERIFY2(o.out.contains("parameter sweep of LIF 'lif' (6 neurons, port in, 500 steps of "
                                "0.001 s after 20 warm-up steps, input 0.01): 5 x 3 points of "
                                "tau_mem x bias, rate_hz 0 to "),
                 qPrintable(o.out));
        QVERIFY2(o.out.contains("one wide population"), qPrintable(o.out));
        std::ifstream f(csv.toStdString());
        std::stringstream text;
        text << f.rdbuf();
        const auto table = rows(text.str());
        QCOMPARE(table.size(), std::size_t{16});
        QCOMPARE(table[0], (std::vector<std::string>{"tau_mem", "bias", "rate_hz"}));

        const auto root = loadModel(example().toStdString());
        SweepOptions options;
        parseSweepAxis("tau_mem=0.01:0.05:5", options.axes.emplace_back());
        parseSweepAxis("bias=0:0.02:3", options.axes.emplace_back());
        options.current = 0.01;
        options.steps = 500;
        options.warmupSteps = 20;
        const SweepResult r = parameterSweep(root->getSubmodule("lif"), options);
        for (std::size_t k = 0; k < 15; ++k) {
            const auto& row = table[k + 1];
            QCOMPARE(row.size(), std::size_t{3});
            QCOMPARE(std::stod(row[0]), r.x[k / 3]);
            QCOMPARE(std::stod(row[1]), r.y[k % 3]);
            QCOMPARE(std::stod(row[2]), r.values[k]);
        }
        QVERIFY(*std::max_element(r.values.begin(), r.values.end()) > 20.0);

        // One axis, the peak of the membrane, the CSV on stdout.
        const Outcome peak = runSpikesim({"analyse", example(), "sweep", "--node", "refrac",
                                          "--param", "v_th=0.5:2:4", "--measure", "peak",
                                          "--current", "0.5", "--steps", "200"});
        QCOMPARE(peak.exitCode, 0);
        const auto peaks = rows(peak.out.toStdString());
        QCOMPARE(peaks.size(), std::size_t{5});
        QCOMPARE(peaks[0], (std::vector<std::string>{"v_th", "peak_v"}));
        SweepOptions peakOptions;
        parseSweepAxis("v_th=0.5:2:4", peakOptions.axes.emplace_back());
        peakOptions.measure = "peak";
        peakOptions.current = 0.5;
        peakOptions.steps = 200;
        const SweepResult p = parameterSweep(root->getSubmodule("refrac"), peakOptions);
        for (std::size_t k = 0; k < 4; ++k) {
            QCOMPARE(std::stod(peaks[k + 1][1]), p.values[k]);
        }
    }

    void sweepBadInputExitsOneWithAMessage()
    {
        QTemporaryDir dir;
        const QString csv = dir.filePath("sweep.csv");
        const std::vector<BadCase> cases = {
            {{"--node", "lif", "--param", "tau_mem=0.01:0.05"}, "--param 'tau_mem=0.01:0.05' is not NAME=START:STOP:COUNT"},
            {{"--node", "lif", "--param", "bias=x:1:3"}, "--param bias: START 'x' is not a number"},
            {{"--node", "lif"}, "--param: give one or two"},
            {{"--node", "lif", "--param", "nope=0:1:3"}, "LIF has no attribute 'nope' (sweepable: tau_mem"},
            {{"--node", "lif", "--param", "tau_mem=0:0.02:3"}, "grid point tau_mem=0: "},
            {{"--node", "lif", "--param", "bias=0:1:0"}, "count 0 is out of range"},
            {{"--node", "lif", "--param", "bias=0:1:3", "--measure", "fast"}, "unknown measure 'fast'"},
            {{"--node", "lif", "--param", "bias=0:1:3", "--measure", "peak", "--state", "w"},
             "no recordable state 'w'"},
            {{"--param", "bias=0:1:3"}, "choose a neuron module with --node"},
        };
        expectExitOne(example(), "sweep", cases, csv);
    }

    void phaseJsonEqualsTheEngine()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("phase.json");
        const Outcome o = runSpikesim({"analyse", example(), "phase", "--node", "refrac",
                                       "--range", "-0.02:0.12,-0.01:0.03", "--grid", "11",
                                       "--current", "0.002", "--neuron", "2", "--out", out});
        QCOMPARE(o.exitCode, 0);
        QVERIFY2(o.out.contains("phase portrait of LIFRefrac 'refrac' (neuron 2, port in, input "
                                "0.002): v -0.02 to 0.12 V x i -0.01 to 0.03 V, 11 x 11 arrows"),
                 qPrintable(o.out));
        QVERIFY2(o.out.contains("1 fixed point ->") && o.out.contains(": stable (multipliers "),
                 qPrintable(o.out));
        std::ifstream f(out.toStdString());
        const nlohmann::json j = nlohmann::json::parse(f);

        const auto root = loadModel(example().toStdString());
        const Module& node = root->getSubmodule("refrac");
        PhasePlaneOptions options = suggestedPhasePlane(node, 2);
        parsePhaseRange("-0.02:0.12,-0.01:0.03", options);
        options.grid = 11;
        options.current = 0.002;
        const PhasePlane p = phasePlane(node, options);
        QCOMPARE(j.at("x").at("state").get<std::string>(), std::string("v"));
        QCOMPARE(j.at("y").at("state").get<std::string>(), std::string("i"));
        QCOMPARE(j.at("x").at("threshold").get<double>(), *p.xThreshold);
        QCOMPARE(j.at("field").size(), std::size_t{121});
        for (std::size_t k = 0; k < p.field.size(); ++k) {
            const auto& a = j.at("field")[k];
            QCOMPARE(a[0].get<double>(), p.field[k].x);
            QCOMPARE(a[1].get<double>(), p.field[k].y);
            QCOMPARE(a[2].get<double>(), p.field[k].dx);
            QCOMPARE(a[3].get<double>(), p.field[k].dy);
            QCOMPARE(a[4].get<bool>(), p.field[k].spiked);
        }
        QCOMPARE(j.at("x_nullcline").size(), p.xNullcline.size());
        QCOMPARE(j.at("fixed_points").size(), std::size_t{1});
        QCOMPARE(p.fixedPoints.size(), std::size_t{1});
        const auto& fp = j.at("fixed_points")[0];
        QCOMPARE(fp.at("x").get<double>(), p.fixedPoints[0].x);
        QCOMPARE(fp.at("y").get<double>(), p.fixedPoints[0].y);
        QCOMPARE(fp.at("stability").get<std::string>(), std::string("stable"));
        QCOMPARE(fp.at("multipliers")[0][0].get<double>(), p.fixedPoints[0].multipliers[0][0]);
    }

    void phaseBadInputExitsOneWithAMessage()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("phase.json");
        const std::vector<BadCase> cases = {
            {{"--node", "lif", "--x", "vm"}, "x 'vm' is not a state variable of LIF (choose from vmem, isyn)"},
            {{"--node", "lif", "--x", "isyn", "--y", "isyn"}, "x and y are both 'isyn'"},
            {{"--node", "lif", "--range", "1:0,0:1"}, "the x range 1:0 is empty"},
            {{"--node", "lif", "--range", "0:1"}, "--range '0:1' is not XMIN:XMAX,YMIN:YMAX"},
            {{"--node", "lif", "--grid", "1"}, "grid 1 is out of range"},
            {{"--node", "lif", "--neuron", "6"}, "neuron 6 is out of range (LIF has 6 neurons)"},
            {{"--node", "current"}, "ConstantCurrent has no state variable; a phase portrait needs two"},
            {{}, "choose a neuron module with --node"},
        };
        expectExitOne(example(), "phase", cases, out);
    }

    void isiCsvEqualsTheEngine()
    {
        QTemporaryDir dir;
        const QString csv = dir.filePath("isi.csv");
        const QString model = spike::tests::exampleModel("poisson_feedforward.json");
        const Outcome o = runSpikesim({"analyse", model, "isi", "--record", "layer.spikes", "--steps",
                                       "5000", "--bins", "20", "--backend", "cpu", "--out", csv});
        QCOMPARE(o.exitCode, 0);
        QVERIFY2(o.out.contains("spike statistics of layer.spikes (20 neurons, 5000 steps of 0.001 s)"),
                 qPrintable(o.out));
        QVERIFY2(o.out.contains("Fano factor") && o.out.contains("windows of 100 steps"), qPrintable(o.out));
        std::ifstream f(csv.toStdString());
        std::stringstream text;
        text << f.rdbuf();
        const auto table = rows(text.str());
        QCOMPARE(table.size(), std::size_t{21});
        QCOMPARE(table[0], (std::vector<std::string>{"isi_start_s", "isi_end_s", "count"}));

        // The same run in process: the model's own seeds make it the same spikes.
        const auto root = loadModel(model.toStdString());
        HeadlessRunOptions runOptions;
        runOptions.backend = BackendKind::Cpu;
        HeadlessRun run(*root, runOptions);
        const auto infos = run.record({{"layer", "spikes", {}}});
        const HeadlessRunResult r = run.run(nullptr, 5000);
        SpikeStatisticsOptions options;
        options.bins = 20;
        const SpikeStatistics s = spikeStatistics(r.recordings[0].data(), 5000, infos[0].width,
                                                  root->timeStep(), options);
        QVERIFY(s.intervals > 500);
        double total = 0.0;
        for (std::size_t k = 0; k < 20; ++k) {
            QCOMPARE(std::stod(table[k + 1][0]), s.isiHistogram.edges[k]);
            QCOMPARE(std::stod(table[k + 1][1]), s.isiHistogram.edges[k + 1]);
            QCOMPARE(std::stod(table[k + 1][2]), s.isiHistogram.counts[k]);
            total += s.isiHistogram.counts[k];
        }
        QCOMPARE(total, static_cast<double>(s.intervals));
        QVERIFY2(o.out.contains(QString::number(s.intervals) + " intervals"), qPrintable(o.out));
    }

    void isiBadInputExitsOneWithAMessage()
    {
        QTemporaryDir dir;
        const QString csv = dir.filePath("isi.csv");
        const QString model = spike::tests::exampleModel("cuba_network.json");
        const std::vector<BadCase> cases = {
            {{"--record", "E.v", "--steps", "10"}, "E.v is not a spiking output"},
            {{"--record", "E", "--steps", "10"}, "expected PATH.spikes"},
            {{"--record", "X.spikes", "--steps", "10"}, "--record: "},
            {{"--record", "E.spikes", "--steps", "0"}, "--steps must be at least 1"},
            {{"--record", "E.spikes", "--steps", "10", "--bins", "0"}, "--bins must be 1 to 100000"},
            {{"--record", "E.spikes", "--steps", "10", "--window", "-3"}, "--window must not be negative"},
        };
        expectExitOne(model, "isi", cases, csv);
    }

    void divergenceCsvEqualsTheEngine_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<bool>("identical");
        QTest::newRow("cpu vs cpu:2") << QStringList{"--a", "cpu", "--b", "cpu:2"} << true;
        QTest::newRow("perturbed") << QStringList{"--b", "cpu", "--set", "E.v[5]=-50.5"} << false;
    }

    void divergenceCsvEqualsTheEngine()
    {
        QFETCH(QStringList, args);
        QFETCH(bool, identical);
        QTemporaryDir dir;
        const QString csv = dir.filePath("div.csv");
        const QString model = spike::tests::exampleModel("cuba_network.json");
        const Outcome o = runSpikesim(QStringList{"analyse", model, "divergence", "--steps", "150"} + args +
                                      QStringList{"--out", csv});
        QVERIFY2(o.exitCode == 0, qPrintable(o.err));
        std::ifstream f(csv.toStdString());
        std::stringstream text;
        text << f.rdbuf();
        const auto table = rows(text.str());
        QCOMPARE(table.size(), std::size_t{153});

        const auto root = loadModel(model.toStdString());
        DivergenceOptions options;
        options.steps = 150;
        options.b = parseDivergenceSide(identical ? "cpu:2" : "cpu");
        if (!identical) {
            options.perturbB = parsePerturbation(*root, "E.v[5]=-50.5");
        }
        const Divergence d = backendDivergence(*root, options);
        QCOMPARE(QString::fromStdString(table[0][0]).startsWith("# backend divergence: side A cpu"), true);
        const QString firstLine = QString::fromStdString(table[1][0]);
        QVERIFY2(firstLine.startsWith("# first spike difference: "), qPrintable(firstLine));
        QCOMPARE(d.firstSpikeDifference.has_value(), !identical);
        if (identical) {
            QCOMPARE(firstLine, QString("# first spike difference: none in 150 steps"));
            QVERIFY2(o.out.contains("identical"), qPrintable(o.out));
        } else {
            QVERIFY2(firstLine.contains(QString("step %1 ").arg(d.firstSpikeDifference->step)) &&
                         firstLine.contains(QString("E neuron %1:").arg(d.firstSpikeDifference->neuron)),
                     qPrintable(firstLine));
            QVERIFY2(o.out.contains("largest |A - B|"), qPrintable(o.out));
        }
        std::vector<std::string> header{"step", "time_s"};
        header.insert(header.end(), d.states.begin(), d.states.end());
        QCOMPARE(table[2], header);
        double sum = 0.0;
        for (std::size_t t = 0; t < 150; ++t) {
            QCOMPARE(table[t + 3][0], std::to_string(t));
            for (std::size_t s = 0; s < d.states.size(); ++s) {
                QCOMPARE(std::stod(table[t + 3][s + 2]), d.maxAbs[s][t]);
                sum += d.maxAbs[s][t];
            }
        }
        QCOMPARE(sum == 0.0, identical);
    }

    void divergenceBadInputExitsOneWithAMessage()
    {
        QTemporaryDir dir;
        const QString csv = dir.filePath("div.csv");
        const QString model = spike::tests::exampleModel("cuba_network.json");
        std::vector<BadCase> cases = {
            {{"--steps", "0", "--b", "cpu"}, "steps must be between 1 and 1000000 (got 0)"},
            {{"--steps", "2000000", "--b", "cpu"}, "steps must be between 1 and 1000000"},
            {{"--steps", "10", "--a", "gpu"}, "--a: backend 'gpu' is not known (use cpu, cpu:THREADS or cuda)"},
            {{"--steps", "10", "--b", "cpu:0"}, "--b: backend 'cpu:0': thread count '0'"},
            {{"--steps", "10", "--b", "cpu", "--set", "E.nope=1"}, "(CUBALIF) has no attribute 'nope'"},
            {{"--steps", "10", "--b", "cpu", "--set", "E.v[800]=1"}, "index 800 is out of range (v has 800 elements)"},
            {{"--steps", "10", "--b", "cpu", "--set", "X.v=1"}, "--set 'X.v=1': "},
        };
        if (!spike::kernels::queryCudaDevice().available) {
            cases.push_back({{"--steps", "10", "--b", "cuda"}, "side B (cuda): cuda is not available here: "});
            cases.push_back({{"--steps", "10"}, "side B (cuda): cuda is not available here: "});
        }
        expectExitOne(model, "divergence", cases, csv);
    }
};

QTEST_GUILESS_MAIN(TestSpikesimAnalyse)
#include "test_spikesim_analyse.moc"
