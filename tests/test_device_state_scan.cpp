// The CUDA executor's per-chunk work on many buffers at once: the non-finite check of every
// device State in one scan (kernels::firstNonFiniteEach behind DeviceStateScan) and the carry of
// every node's last output row to row 0 (kernels::carryLastRows). The kernels must equal a plain
// loop over any number of arrays of any size (several launches of 64, arrays longer than one
// launch's blocks cover, empty ones, a scan reused after a hit); the executor must report the
// same first NaN / infinity as the CPU executor (path, attribute, element), in plan order across
// device nodes, host nodes and delay rings; chunks without input after chunks with it must run
// on zero input as on the CPU (the input rows are cleared only when needed); and HeadlessRun
// must take 256-step chunks on the device (deviceChunkSteps(): fewer when the memory is short)
// with the CPU's spikes. Device cases skip without a usable CUDA device; its _cuda_emulated twin
// runs everywhere.
#include "engine/network/network.hpp"
#include "engine/network/projections.hpp"
#include "engine/neurons/cuba_lif.hpp"
#include "engine/neurons/lif.hpp"
#include "engine/runtime/backend.hpp"
#include "engine/runtime/headless_run.hpp"
#include "kernels/cuda_device.hpp"
#include "kernels/network_cuda.hpp"
#include "tests/projection_test_helpers.hpp"

#include <QtTest/QtTest>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace spike::engine;
namespace kn = spike::kernels;

namespace {

std::int64_t plainFirst(const std::vector<float>& v)
{
    for (std::size_t k = 0; k < v.size(); ++k) {
        if (!std::isfinite(v[k])) {
            return static_cast<std::int64_t>(k);
        }
    }
    return -1;
}

/// Input ports a (20) → E (60 CUBALIF, exc), b (15) → I (15 CUBALIF, exc), c (10) → I.inh
/// through "ring" (a sparse projection with delay 3, so what arrives waits in its ring), and with
/// `host` h (20) → a noisy LIF h, which only the host runs. Plan order: h, E, I, then the ring.
std::unique_ptr<Network> network(bool host)
{
    std::vector<BoundaryPort> ports = {{"a", 20}, {"b", 15}, {"c", 10}};
    if (host) {
        ports.push_back({"h", 20});
    }
    auto net = std::make_unique<Network>(ports, std::vector<BoundaryPort>{});
    if (host) {
        net->addNode("h", std::make_unique<LIF>(
                              20, 20, false, AttributeMap{{"noise_std", Tensor::scalar(0.1F)}}));
        net->connect("in.h", "h");
    }
    net->addNode("E", std::make_unique<CUBALIF>(60));
    net->addNode("I", std::make_unique<CUBALIF>(15));
    net->connect("in.a", "E.exc", spike::tests::sparseProjection(20, 60, 1.0F, 4, 0, 2));
    net->connect("in.b", "I.exc", spike::tests::sparseProjection(15, 15, 1.0F, 4, 0, 3));
    net->connect("in.c", "I.inh", spike::tests::sparseProjection(10, 15, -2.0F, 4, 3, 4), "ring");
    return net;
}

/// What `backend`'s executor of network(host) reports after one step whose input is NaN on
/// channel 5 of each port in `nanPorts` (0: a, 1: b, 2: c, 3: h) and 0.5 elsewhere.
std::optional<NonFinite> found(const char* backend, bool host, const QList<int>& nanPorts)
{
    auto net = network(host);
    auto ex = makeExecutor(*net, parseBackendKind(backend));
    const std::int64_t offsets[] = {0, 20, 35, 45};
    std::vector<float> input(static_cast<std::size_t>(net->sizeIn()), 0.5F);
    for (int port : nanPorts) {
        input[static_cast<std::size_t>(offsets[port] + 5)] = std::numeric_limits<float>::quiet_NaN();
    }
    if (ex->findNonFinite()) {
        throw std::runtime_error("a non-finite State before any step");
    }
    ex->advance(1, input.data(), nullptr);
    return ex->findNonFinite();
}

bool cudaUsable()
{
    return kn::queryCudaDevice().available;
}

}  // namespace

class TestDeviceStateScan : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        if (std::strcmp(QTest::currentTestFunction(), "deviceChunkFitsTheMemory") != 0 &&
            !cudaUsable()) {
            QSKIP("no usable CUDA device (the _cuda_emulated twin runs these)");
        }
    }

    void batchedScanEqualsPlainLoop()
    {
        // 150 arrays: three launches of up to 64, sizes 0 to 3000 and one of 300,000 (more than
        // the 1024 blocks of 256 threads one array gets), clean ones and ones with one or several
        // NaNs / infinities.
        std::mt19937 gen(5);
        std::uniform_int_distribution<int> size(0, 3000);
        std::uniform_int_distribution<int> kind(0, 3);
        const float bad[] = {std::numeric_limits<float>::quiet_NaN(),
                             std::numeric_limits<float>::infinity(),
                             -std::numeric_limits<float>::infinity()};
        std::vector<std::vector<float>> host(150);
        std::vector<kn::DeviceFloats> device;
        std::vector<kn::ScanSpan> spans;
        for (std::size_t a = 0; a < host.size(); ++a) {
            std::vector<float>& v = host[a];
            v.assign(a == 70 ? 300000 : static_cast<std::size_t>(size(gen)), 1.5F);
            const int k = kind(gen);
            for (int hit = 0; hit < k && !v.empty(); ++hit) {
                v[std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(gen)] = bad[hit % 3];
            }
            if (a == 70) {
                v[299999] = bad[0];  // beyond the first stride of the grid
            }
            device.emplace_back(v.size(), "scan test array");
            kn::copyBytes(device.back().data(), v.data(), v.size() * sizeof(float),
                          kn::CopyKind::HostToDevice);
            spans.push_back({device.back().data(), static_cast<std::int64_t>(v.size())});
        }
        kn::DeviceArray<unsigned long long> scratch;
        std::vector<std::int64_t> first(spans.size(), -7);
        kn::firstNonFiniteEach(spans.data(), spans.size(), first.data(), scratch);
        int hits = 0;
        for (std::size_t a = 0; a < host.size(); ++a) {
            QCOMPARE(first[a], plainFirst(host[a]));
            hits += first[a] >= 0 ? 1 : 0;
        }
        QVERIFY(hits > 50 && hits < 140);
        QCOMPARE(first[70], std::int64_t{299999});
        // The same scratch again after the arrays were cleaned: the last results do not stay.
        for (std::size_t a = 0; a < host.size(); ++a) {
            std::vector<float> clean(host[a].size(), 0.25F);
            kn::copyBytes(device[a].data(), clean.data(), clean.size() * sizeof(float),
                          kn::CopyKind::HostToDevice);
        }
        kn::firstNonFiniteEach(spans.data(), spans.size(), first.data(), scratch);
        QVERIFY(std::all_of(first.begin(), first.end(), [](std::int64_t k) { return k == -1; }));
    }

    void carriedRowsMoveTheLastRow()
    {
        // 70 buffers (two launches), widths 0 to 900 and one of 300,000; row `steps` becomes row
        // 0 and the other rows stay.
        constexpr std::int64_t kSteps = 5;
        std::mt19937 gen(6);
        std::uniform_int_distribution<int> width(0, 900);
        std::uniform_real_distribution<float> value(-1.0F, 1.0F);
        std::vector<std::vector<float>> host(70);
        std::vector<kn::DeviceFloats> device;
        std::vector<kn::CarriedRows> list;
        for (std::size_t a = 0; a < host.size(); ++a) {
            const std::int64_t w = a == 3 ? 300000 : width(gen);
            host[a].resize(static_cast<std::size_t>((kSteps + 1) * w));
            for (float& x : host[a]) {
                x = value(gen);
            }
            device.emplace_back(host[a].size(), "carry test rows");
            kn::copyBytes(device.back().data(), host[a].data(), host[a].size() * sizeof(float),
                          kn::CopyKind::HostToDevice);
            list.push_back({device.back().data(), w});
        }
        kn::carryLastRows(list.data(), list.size(), kSteps);
        for (std::size_t a = 0; a < host.size(); ++a) {
            const std::size_t w = static_cast<std::size_t>(list[a].width);
            std::vector<float> want = host[a];
            std::copy(want.begin() + static_cast<std::ptrdiff_t>(kSteps * list[a].width),
                      want.end(), want.begin());
            std::vector<float> got(want.size());
            kn::copyBytes(got.data(), device[a].data(), got.size() * sizeof(float),
                          kn::CopyKind::DeviceToHost);
            QVERIFY2(got == want, ("buffer " + std::to_string(a) + ", width " +
                                   std::to_string(w)).c_str());
        }
    }

    void firstNonFiniteAsTheCpuReportsIt_data()
    {
        QTest::addColumn<bool>("host");
        QTest::addColumn<QList<int>>("nanPorts");
        QTest::addColumn<QString>("path");  // what the CPU reports, "" for nothing
        QTest::newRow("one device node") << false << QList<int>{1} << "I";
        QTest::newRow("two device nodes: the first in plan order") << false << QList<int>{1, 0}
                                                                     << "E";
        QTest::newRow("a delay ring only") << false << QList<int>{2} << "ring";
        QTest::newRow("a device node before a delay ring") << false << QList<int>{2, 1} << "I";
        QTest::newRow("a host node before a device node") << true << QList<int>{0, 3} << "h";
        QTest::newRow("a device node, the host node finite") << true << QList<int>{0} << "E";
        QTest::newRow("none") << true << QList<int>{} << "";
    }
    void firstNonFiniteAsTheCpuReportsIt()
    {
        QFETCH(bool, host);
        QFETCH(QList<int>, nanPorts);
        QFETCH(QString, path);
        const auto cpu = found("cpu", host, nanPorts);
        const auto cuda = found("cuda", host, nanPorts);
        QCOMPARE(cpu.has_value(), !path.isEmpty());
        QCOMPARE(cuda.has_value(), cpu.has_value());
        if (!cpu) {
            return;
        }
        QCOMPARE(QString::fromStdString(cpu->path).section('.', -1), path);
        QCOMPARE(QString::fromStdString(cuda->path), QString::fromStdString(cpu->path));
        QCOMPARE(QString::fromStdString(cuda->attribute), QString::fromStdString(cpu->attribute));
        QCOMPARE(cuda->index, cpu->index);
        QVERIFY(std::isnan(cuda->value));
        if (path == "ring") {
            QCOMPARE(QString::fromStdString(cpu->attribute), QString("pending"));
        }
    }

    void chunksWithoutInputAfterInput()
    {
        // advance(n, nullptr) means zero input; the CUDA executor clears its input rows only
        // when an input chunk wrote them, or when more rows are needed than it cleared before.
        const std::int64_t chunks[][2] = {{5, 1}, {7, 0}, {3, 1}, {4, 0}, {9, 0}, {6, 1}, {8, 0}};
        std::vector<float> input(16 * 45, 1.0F);
        std::vector<std::vector<float>> seen[2];
        const char* backends[] = {"cpu", "cuda"};
        for (int b = 0; b < 2; ++b) {
            auto net = network(false);
            ExecutorOptions options;
            options.maxChunkSteps = 16;
            auto ex = makeExecutor(*net, parseBackendKind(backends[b]), options);
            ex->setProbes({{"E", "v", {}}, {"I", "i_exc", {}}});
            for (const auto& [n, withInput] : chunks) {
                ex->advance(n, withInput != 0 ? input.data() : nullptr, nullptr);
                for (std::size_t p = 0; p < 2; ++p) {
                    const float* d = ex->probeData(p);
                    seen[b].emplace_back(d, d + n * (p == 0 ? 60 : 15));
                }
            }
        }
        QVERIFY(seen[1] == seen[0]);
        QVERIFY(seen[0][2] != seen[0][4]);  // the input moved the states
    }

    void deviceChunkFitsTheMemory()
    {
        auto net = network(true);
        const ExecutionPlan plan = compilePlan(*net);
        std::int64_t floats = 1;  // what one step of rows may take: see deviceChunkSteps()
        for (const PlanNode& n : plan.nodes) {
            floats += n.sizeIn + 4 * n.sizeOut;
        }
        const std::size_t perStep = static_cast<std::size_t>(floats) * sizeof(float) * 8;
        ExecutorOptions options;
        options.maxChunkSteps = 32;
        options.deviceMaxChunkSteps = 256;
        QCOMPARE(deviceChunkSteps(plan, options, std::size_t{16} << 30), std::int64_t{256});
        // Memory for 100 steps' rows (and a little more): 100.
        QCOMPARE(deviceChunkSteps(plan, options, 100 * perStep + perStep / 2), std::int64_t{100});
        QCOMPARE(deviceChunkSteps(plan, options, 100 * perStep), std::int64_t{100});
        QCOMPARE(deviceChunkSteps(plan, options, 100 * perStep - 8), std::int64_t{99});
        // Never below maxChunkSteps, and nothing longer asked: maxChunkSteps.
        QCOMPARE(deviceChunkSteps(plan, options, perStep), std::int64_t{32});
        options.deviceMaxChunkSteps = 0;
        QCOMPARE(deviceChunkSteps(plan, options, std::size_t{16} << 30), std::int64_t{32});
    }

    void headlessRunTakesLongerChunksOnTheDevice()
    {
        // What `spikesim run --backend cuda` does: 256-step chunks (the CPU keeps 32), fewer
        // when the run is shorter or shows progress, and the same spikes as the CPU.
        constexpr std::int64_t kSteps = 700;
        std::mt19937 gen(12);
        std::bernoulli_distribution fire(0.15);
        std::vector<float> input(static_cast<std::size_t>(kSteps * 45));
        for (float& x : input) {
            x = fire(gen) ? 1.0F : 0.0F;
        }
        const auto run = [&](BackendKind backend, std::int64_t steps, bool progress) {
            auto net = network(false);
            HeadlessRunOptions options;
            options.backend = backend;
            options.steps = steps;
            options.progress = progress;
            HeadlessRun headless(*net, options);
            headless.record({{"E", "spikes", {}}, {"I", "v", {}}});
            const HeadlessRunResult r = headless.run(input.data(), steps);
            return std::tuple{headless.chunkSteps(), r.spikes, r.recordings};
        };
        const auto [cpuChunk, cpuSpikes, cpuRows] = run(BackendKind::Cpu, kSteps, false);
        const auto [cudaChunk, cudaSpikes, cudaRows] = run(BackendKind::Cuda, kSteps, false);
        QCOMPARE(cpuChunk, std::int64_t{32});
        QCOMPARE(cudaChunk, std::int64_t{256});
        QVERIFY(cpuSpikes > 100.0);
        QCOMPARE(cudaSpikes, cpuSpikes);
        QVERIFY(cudaRows == cpuRows);
        QCOMPARE(std::get<0>(run(BackendKind::Cuda, 100, false)), std::int64_t{100});
        QCOMPARE(std::get<0>(run(BackendKind::Cuda, kSteps, true)), std::int64_t{7});
    }
};

QTEST_GUILESS_MAIN(TestDeviceStateScan)
#include "test_device_state_scan.moc"
