// Executor::probeSpikeLists() on every backend: the lists of a spike probe must name exactly the
// non-zero channels of the probe's dense rows, ascending, with their values where the executor
// copies them (CUDA builds the lists on the device and fetches the dense rows only when
// probeData() asks), across chunks of uneven length; probes of traces or of some channels have
// none; ExecutorOptions::spikeLists = false turns them off, and on CUDA a probe smaller than
// deviceSpikeListMinValues copies its dense rows instead. A LIF emitting up to 3 spikes per
// step makes values above 1, and a noisy LIF (on the host even under CUDA) lists too. The CUDA
// lists must equal the CPU's. Runs as test_probe_spike_lists_cuda_emulated on the emulator.
#include "engine/network/network.hpp"
#include "engine/network/projections.hpp"
#include "engine/neurons/lif.hpp"
#include "engine/runtime/backend.hpp"
#include "kernels/cuda_device.hpp"
#include "tests/layer_test_helpers.hpp"

#include <QtTest/QtTest>

#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace spike::engine;  // NOLINT: test file

namespace {

constexpr std::int64_t kIn = 6;
constexpr std::int64_t kN = 600;  // three tiles of 256 channels, the last one partial
constexpr std::int64_t kSteps = 150;

std::unique_ptr<Network> network()
{
    auto net = std::make_unique<Network>(kIn, 0);
    for (const auto& [name, noise, seed] : {std::tuple{"a", 0.0F, 3U}, {"b", 0.05F, 5U}}) {
        net->addNode(name, std::make_unique<LIF>(
                               kN, kN, false,
                               AttributeMap{{"tau_mem", spike::tests::uniformTensor(Shape{kN}, seed, 0.005, 0.03)},
                                            {"threshold", Tensor::scalar(0.3F)},
                                            {"max_spikes_per_dt", Tensor::scalar(3.0F)},
                                            {"noise_std", Tensor::scalar(noise)}}));
        auto dense = std::make_unique<DenseProjection>(kIn, kN);
        spike::tests::randomize(*dense, seed + 10U);
        net->connect("in", name, std::move(dense));
    }
    return net;
}

Tensor drive()
{
    std::mt19937 gen(7);
    std::uniform_real_distribution<float> u(0.0F, 1.5F);
    Tensor t(Shape{kSteps, kIn});
    for (std::int64_t i = 0; i < t.numel(); ++i) {
        t[i] = u(gen);
    }
    return t;
}

/// One list entry: step, channel, value.
struct Entry {
    std::int64_t step;
    std::int32_t channel;
    float value;
    bool operator==(const Entry& o) const
    {
        return step == o.step && channel == o.channel && value == o.value;
    }
};

/// "" when `lists` names exactly the non-zero channels of `rows` (n rows of `width`),
/// ascending, with the rows' values where it carries values; else what is wrong.
std::string checkLists(const SpikeLists& lists, const float* rows, std::int64_t n, std::int64_t width,
                       std::int64_t t0, std::vector<Entry>& entries)
{
    for (std::int64_t t = 0; t < n; ++t) {
        const std::string at = "step " + std::to_string(t0 + t);
        std::int32_t k = 0;
        for (std::int64_t c = 0; c < width; ++c) {
            const float v = rows[t * width + c];
            if (v == 0.0F) {
                continue;
            }
            if (k >= lists.counts[t]) {
                return at + ": channel " + std::to_string(c) + " is not listed";
            }
            if (lists.indices[t * lists.stride + k] != c) {
                return at + ": entry " + std::to_string(k) + " names " +
                       std::to_string(lists.indices[t * lists.stride + k]) + ", not " + std::to_string(c);
            }
            if (lists.values != nullptr && lists.values[t * lists.stride + k] != v) {
                return at + ": channel " + std::to_string(c) + " listed with value " +
                       std::to_string(lists.values[t * lists.stride + k]) + ", row has " + std::to_string(v);
            }
            entries.push_back({t0 + t, static_cast<std::int32_t>(c), v});
            ++k;
        }
        if (k != lists.counts[t]) {
            return at + ": " + std::to_string(lists.counts[t]) + " listed, " + std::to_string(k) + " non-zero";
        }
    }
    return {};
}

struct Listed {
    std::vector<Entry> a, b;
    float largest = 0.0F;
};

/// Runs the network on `backend` in uneven chunks, checking every chunk's lists; returns them.
Listed runAndCheck(BackendKind kind)
{
    auto net = network();
    ExecutorOptions options;
    options.maxChunkSteps = 32;
    options.deviceSpikeListMinValues = 0;  // list even this small layer on the device
    auto ex = makeExecutor(*net, kind, options);
    const std::vector<ProbeInfo> infos = ex->setProbes(
        {{"a", "spikes", {}}, {"b", "spikes", {}}, {"a", "spikes", {3, 300, 599}}, {"a", "vmem", {}}});
    const Tensor in = drive();
    Listed out;
    const std::int64_t pieces[] = {32, 1, 29, 17};
    for (std::int64_t t0 = 0, p = 0; t0 < kSteps; ++p) {
        const std::int64_t n = std::min(pieces[p % 4], kSteps - t0);
        ex->advance(n, in.data() + t0 * kIn, nullptr);
        for (std::size_t k = 0; k < 2; ++k) {
            const std::optional<SpikeLists> lists = ex->probeSpikeLists(k);
            if (!lists) {
                QTest::qFail(("probe " + std::to_string(k) + " has no spike lists").c_str(), __FILE__, __LINE__);
                return out;
            }
            if (kind == BackendKind::Cuda && lists->values == nullptr) {
                QTest::qFail("the CUDA lists carry no values", __FILE__, __LINE__);
                return out;
            }
            const float* rows = ex->probeData(k);  // read after the lists: CUDA copies it now
            const std::string wrong = checkLists(*lists, rows, n, infos[k].width, t0, k == 0 ? out.a : out.b);
            if (!wrong.empty()) {
                QTest::qFail(("probe " + std::to_string(k) + ", " + wrong).c_str(), __FILE__, __LINE__);
                return out;
            }
            for (std::int64_t i = 0; i < n * infos[k].width; ++i) {
                out.largest = std::max(out.largest, rows[i]);
            }
        }
        if (ex->probeSpikeLists(2) || ex->probeSpikeLists(3)) {
            QTest::qFail("a probe of some channels or of a trace has spike lists", __FILE__, __LINE__);
            return out;
        }
        t0 += n;
    }
    return out;
}

bool cudaUsable()
{
    return spike::kernels::queryCudaDevice().available;
}

}  // namespace

class TestProbeSpikeLists : public QObject {
    Q_OBJECT

private slots:
    void cpuListsNameTheNonZeros()
    {
        const Listed cpu = runAndCheck(BackendKind::Cpu);
        QVERIFY(cpu.a.size() > 200);
        QVERIFY(cpu.b.size() > 200);
        QVERIFY2(cpu.largest > 1.0F, "the test needs steps with more than one spike");
    }

    void cudaListsEqualTheCpuLists()
    {
        if (!cudaUsable()) {
            QSKIP("no usable CUDA device");
        }
        const Listed cuda = runAndCheck(BackendKind::Cuda);
        if (QTest::currentTestFailed()) {
            return;
        }
        const Listed cpu = runAndCheck(BackendKind::Cpu);
        QCOMPARE(cuda.a.size(), cpu.a.size());
        QVERIFY(cuda.a == cpu.a);
        QCOMPARE(cuda.b.size(), cpu.b.size());
        QVERIFY(cuda.b == cpu.b);
    }

    void listsCanBeTurnedOff()
    {
        for (const BackendKind kind : {BackendKind::Cpu, BackendKind::Cuda}) {
            if (kind == BackendKind::Cuda && !cudaUsable()) {
                continue;
            }
            auto net = network();
            ExecutorOptions options;
            options.spikeLists = false;
            options.deviceSpikeListMinValues = 0;
            auto ex = makeExecutor(*net, kind, options);
            ex->setProbes({{"a", "spikes", {}}});
            const Tensor in = drive();
            ex->advance(10, in.data(), nullptr);
            QVERIFY(!ex->probeSpikeLists(0));
        }
    }

    void smallDeviceProbesCopyDenseRows()
    {
        if (!cudaUsable()) {
            QSKIP("no usable CUDA device");
        }
        auto net = network();
        ExecutorOptions options;
        options.maxChunkSteps = 32;
        options.deviceSpikeListMinValues = 32 * kN + 1;  // one value more than the probe holds
        auto ex = makeExecutor(*net, BackendKind::Cuda, options);
        ex->setProbes({{"a", "spikes", {}}});
        const Tensor in = drive();
        ex->advance(10, in.data(), nullptr);
        QVERIFY(!ex->probeSpikeLists(0));
        options.deviceSpikeListMinValues = 32 * kN;
        ex = makeExecutor(*net, BackendKind::Cuda, options);
        ex->setProbes({{"a", "spikes", {}}});
        ex->advance(10, in.data(), nullptr);
        QVERIFY(ex->probeSpikeLists(0).has_value());
    }
};

QTEST_GUILESS_MAIN(TestProbeSpikeLists)
#include "test_probe_spike_lists.moc"
