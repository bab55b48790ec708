// HeadlessRun (engine/runtime/headless_run.hpp), the product path of `spikesim run` and
// bench/cuba: its spike count equals the sum of the recorded spikes exactly (and the network's
// own evolve()), with and without progress-sized chunks; a NaN fed in at a known step is reported with its module, attribute, element and the end of the chunk that made it,
// and the run stops there (`spikesim run` prints it as one line); firstNonFinite() (finite_scan.hpp) finds exactly what a plain
// std::isfinite() loop finds, at block edges too.
#include "engine/io/model_io.hpp"
#include "engine/network/network.hpp"
#include "engine/neurons/cuba_lif.hpp"
#include "engine/runtime/finite_scan.hpp"
#include "engine/runtime/headless_run.hpp"
#include "engine/tensor/npy.hpp"

#include <QtTest/QtTest>

#include <QProcess>
#include <QTemporaryDir>

#include <cmath>
#include <limits>
#include <random>

using namespace spike::engine;  // NOLINT: test file

namespace {

QString cubaExample()
{
    return QStringLiteral(SPIKE_TEST_DATA_DIR "/../../resources/examples/cuba_network.json");
}

std::int64_t plainFirstNonFinite(const std::vector<float>& v)
{
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (!std::isfinite(v[i])) {
            return static_cast<std::int64_t>(i);
        }
    }
    return -1;
}

double sum(const std::vector<float>& v)
{
    double s = 0.0;
    for (const float x : v) {
        s += x;
    }
    return s;
}

/// Network with input "in" (n channels) -> "E" CUBALIF(n).exc.
std::unique_ptr<Network> drivenNetwork(std::int64_t n)
{
    auto net = std::make_unique<Network>(n, 0);
    net->addNode("E", std::make_unique<CUBALIF>(n));
    net->connect("in", "E.exc");
    return net;
}

/// (steps, n) input rows of 0.5 with a NaN at [row][channel].
std::vector<float> nanInput(std::int64_t steps, std::int64_t n, std::int64_t row,
                            std::int64_t channel)
{
    std::vector<float> rows(static_cast<std::size_t>(steps * n), 0.5F);
    rows[static_cast<std::size_t>(row * n + channel)] = std::numeric_limits<float>::quiet_NaN();
    return rows;
}

}  // namespace

class TestHeadlessRun : public QObject {
    Q_OBJECT

private slots:
    void firstNonFiniteEqualsAPlainLoop()
    {
        std::mt19937 rng(7);
        std::uniform_real_distribution<float> u(-1e30F, 1e30F);
        const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                                  std::numeric_limits<float>::infinity(),
                                  -std::numeric_limits<float>::infinity(),
                                  -std::numeric_limits<float>::quiet_NaN()};
        for (const std::int64_t n : {0, 1, 255, 256, 257, 1000, 4096}) {
            std::vector<float> v(static_cast<std::size_t>(n));
            for (float& x : v) {
                x = u(rng);
            }
            if (n > 3) {  // finite extremes and a denormal are not flagged
                v[0] = std::numeric_limits<float>::max();
                v[1] = -std::numeric_limits<float>::max();
                v[2] = std::numeric_limits<float>::denorm_min();
                v[3] = -0.0F;
            }
            QCOMPARE(firstNonFinite(v.data(), n), std::int64_t{-1});
            for (const std::int64_t at : {std::int64_t{0}, std::int64_t{255}, std::int64_t{256},
                                          n / 2, n - 1}) {
                if (at < 0 || at >= n) {
                    continue;
                }
                for (const float bad : specials) {
                    std::vector<float> w = v;
                    w[static_cast<std::size_t>(at)] = bad;
                    if (at + 300 < n) {  // a second one later does not hide the first
                        w[static_cast<std::size_t>(at + 300)] = specials[0];
                    }
                    QCOMPARE(firstNonFinite(w.data(), n), plainFirstNonFinite(w));
                    QCOMPARE(firstNonFinite(w.data(), n), at);
                }
            }
        }
    }

    void spikeCountEqualsTheRecordedSpikes()
    {
        const std::int64_t steps = 3000;
        auto reference = loadModel(cubaExample().toStdString());
        const auto evolved = reference->evolve(Tensor(Shape{steps, 0}),
                                               RecordSpec({"E.spikes", "I.spikes"}));
        const double expected = evolved.record.at("E").at("spikes").data.flat().cast<double>().sum() +
                                evolved.record.at("I").at("spikes").data.flat().cast<double>().sum();
        QVERIFY(expected > 100.0);
        for (const bool progress : {false, true}) {
            auto model = loadModel(cubaExample().toStdString());
            HeadlessRunOptions options;
            options.backend = BackendKind::Cpu;
            options.progress = progress;
            options.steps = steps;
            HeadlessRun run(*model, options);
            QCOMPARE(run.chunkSteps(), progress ? std::int64_t{30} : std::int64_t{32});
            const auto infos = run.record({{"E", "spikes", {}}, {"I", "spikes", {}}});
            QCOMPARE(infos.size(), std::size_t{2});
            QVERIFY(infos[0].spikes);
            std::int64_t lastDone = 0;
            int chunks = 0;
            const HeadlessRunResult r = run.run(nullptr, steps, [&](std::int64_t done) {
                QVERIFY(done > lastDone);
                lastDone = done;
                ++chunks;
            });
            QVERIFY(!r.nonFinite);
            QCOMPARE(r.steps, steps);
            QCOMPARE(lastDone, steps);
            QCOMPARE(chunks, progress ? 100 : 94);
            QCOMPARE(r.neurons, std::int64_t{1000});
            QCOMPARE(r.recordings[0].size(), std::size_t(steps * 800));
            QCOMPARE(r.recordings[1].size(), std::size_t(steps * 200));
            QCOMPARE(r.spikes, sum(r.recordings[0]) + sum(r.recordings[1]));
            QCOMPARE(r.spikes, expected);
            QVERIFY(Tensor(Shape{steps, 800}, r.recordings[0])
                        .identical(evolved.record.at("E").at("spikes").data));
        }
        // Without recordings (only the counters, read through the spike lists, or from the
        // dense rows as on an executor without lists) the same count.
        for (const bool lists : {true, false}) {
            auto model = loadModel(cubaExample().toStdString());
            HeadlessRunOptions options;
            options.backend = BackendKind::Cpu;
            options.steps = steps;
            options.spikeLists = lists;
            HeadlessRun run(*model, options);
            const HeadlessRunResult r = run.run(nullptr, steps);
            QCOMPARE(run.executor().probeSpikeLists(0).has_value(), lists);
            QCOMPARE(r.spikes, expected);
            QVERIFY(r.recordings.empty());
        }
    }

    void aNaNFedInIsNamedWithItsStepAndStopsTheRun()
    {
        // A NaN enters E's excitatory input at step 41 (row 40), in the second chunk of 32
        // steps (33..64), at element 290 (past the first block of 256 values the scan checks).
        const std::int64_t steps = 200;
        auto net = drivenNetwork(300);
        HeadlessRunOptions options;
        options.backend = BackendKind::Cpu;
        options.steps = steps;
        HeadlessRun run(*net, options);
        const HeadlessRunResult r = run.run(nanInput(steps, 300, 40, 290).data(), steps);
        QVERIFY(r.nonFinite.has_value());
        QCOMPARE(r.steps, std::int64_t{64});
        QCOMPARE(QString::fromStdString(r.nonFinite->path), QStringLiteral("E"));
        QCOMPARE(QString::fromStdString(r.nonFinite->attribute), QStringLiteral("v"));
        QCOMPARE(r.nonFinite->index, std::int64_t{290});
        QVERIFY(std::isnan(r.nonFinite->value));

        // With 1-step chunks (progress over 100 steps) it is found right after the step that
        // made it; a NaN in the first chunk is found after that chunk.
        auto again = drivenNetwork(300);
        options.steps = 100;
        options.progress = true;
        HeadlessRun fine(*again, options);
        QCOMPARE(fine.chunkSteps(), std::int64_t{1});
        const HeadlessRunResult f = fine.run(nanInput(100, 300, 40, 290).data(), 100);
        QVERIFY(f.nonFinite.has_value());
        QCOMPARE(f.steps, std::int64_t{41});
        QCOMPARE(f.nonFinite->index, std::int64_t{290});

        auto early = drivenNetwork(300);
        options.steps = steps;
        options.progress = false;
        HeadlessRun first(*early, options);
        const HeadlessRunResult e = first.run(nanInput(steps, 300, 0, 3).data(), steps);
        QVERIFY(e.nonFinite.has_value());
        QCOMPARE(e.steps, std::int64_t{32});

        // `spikesim run` says so in one line and exits 1.
        QTemporaryDir dir;
        const QString model = dir.filePath("driven.json");
        const QString input = dir.filePath("nan.npy");
        saveModel(model.toStdString(), *drivenNetwork(300));
        npy::save(input.toStdString(), Tensor(Shape{steps, 300}, nanInput(steps, 300, 40, 290)));
        QProcess p;
        p.start(QStringLiteral(SPIKESIM_PATH),
                {"run", model, "--input", input, "--backend", "cpu"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 1);
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QCOMPARE(err, QStringLiteral("spikesim: step 64: E.v[290] became nan; stopping (check "
                                     "weights, time constants and inputs)\n"));
        QVERIFY(p.readAllStandardOutput().isEmpty());
        QCOMPARE(e.nonFinite->index, std::int64_t{3});
    }
};

QTEST_GUILESS_MAIN(TestHeadlessRun)
#include "test_headless_run.moc"
