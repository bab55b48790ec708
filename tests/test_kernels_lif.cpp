// Tests for the CUDA LIF kernel (kernels::lifStepsCuda, driven by the CUDA executor through
// LIF's device twin, engine/neurons/lif_device.cpp): device discovery never throws, a build or
// machine without CUDA refuses with a clear message, and on a CUDA device the kernel matches the
// engine's CPU LIF (spikes exactly, traces within 1e-5) for feed-forward layers with one or more
// synapses, recurrent layers, several batch elements, carried-over state, chunked transfers and
// max_spikes_per_dt clamping. Recurrent weights are
// multiples of 1/256 so that spikes @ w_rec sums exactly in any order (the CPU uses Eigen's GEMV,
// the GPU sums in neuron order). Device comparisons skip with the reason when no device is usable.
#include "engine/core/recording.hpp"
#include "engine/neurons/lif.hpp"
#include "engine/runtime/backend.hpp"
#include "engine/tensor/tensor.hpp"
#include "kernels/cuda_device.hpp"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using spike::engine::AttributeMap;
using spike::engine::BackendKind;
using spike::engine::ExecutorOptions;
using spike::engine::LIF;
using spike::engine::ProbeInfo;
using spike::engine::ProbeRequest;
using spike::engine::RecordSpec;
using spike::engine::Shape;
using spike::engine::Tensor;
namespace kernels = spike::kernels;

namespace {

/// How the LIF's parameters are given in a test case.
enum class ParamStyle {
    Scalars = 0,          ///< defaults: scalar taus, bias and threshold
    PerNeuronTaus = 1,    ///< tau_mem, bias, threshold per neuron; tau_syn per synapse
    PerNeuronDecays = 2,  ///< leak_mode "decays" with alpha per neuron and beta per neuron
};

Tensor uniformTensor(const Shape& shape, float lo, float hi, std::uint32_t seed)
{
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    Tensor t(shape);
    for (std::int64_t i = 0; i < t.numel(); ++i) {
        t[i] = dist(gen);
    }
    return t;
}

/// Recurrent weights k / 256 with |k| <= 16: every partial sum of spikes * w is exact.
Tensor dyadicWeights(std::int64_t nOut, std::int64_t nIn, std::uint32_t seed)
{
    std::mt19937 gen(seed);
    std::uniform_int_distribution<int> dist(-16, 16);
    Tensor w(Shape{nOut, nIn});
    for (std::int64_t i = 0; i < w.numel(); ++i) {
        w[i] = static_cast<float>(dist(gen)) / 256.0F;
    }
    return w;
}

std::unique_ptr<LIF> makeLif(std::int64_t nIn, std::int64_t nOut, bool hasRec, ParamStyle style,
                             float maxSpikes)
{
    const std::int64_t nsyn = nIn / nOut;
    AttributeMap initial;
    initial["max_spikes_per_dt"] = Tensor::scalar(maxSpikes);
    if (hasRec) {
        initial["w_rec"] = dyadicWeights(nOut, nIn, 11);
    }
    if (style == ParamStyle::PerNeuronTaus) {
        initial["tau_mem"] = uniformTensor(Shape{nOut}, 0.01F, 0.05F, 21);
        initial["tau_syn"] = uniformTensor(Shape{nOut, nsyn}, 0.005F, 0.08F, 22);
        initial["bias"] = uniformTensor(Shape{nOut}, -0.01F, 0.02F, 23);
        initial["threshold"] = uniformTensor(Shape{nOut}, 0.5F, 1.5F, 24);
    } else if (style == ParamStyle::PerNeuronDecays) {
        initial["leak_mode"] = std::string("decays");
        initial["alpha"] = uniformTensor(Shape{nOut}, 0.8F, 0.99F, 31);
        initial["beta"] = uniformTensor(Shape{nOut}, 0.7F, 0.98F, 32);
        initial["threshold"] = uniformTensor(Shape{nOut}, 0.8F, 1.2F, 33);
    }
    return std::make_unique<LIF>(nIn, nOut, hasRec, initial);
}

/// What the CUDA backend produced for one problem.
struct CudaResult {
    std::vector<float> spikes, vmem, isyn, irec;
    std::vector<float> finalVmem, finalIsyn, finalSpikes;
};

/// Runs the CUDA executor over `input` (B, T, nIn) with the CPU's batch semantics: every batch
/// element on a fresh `prepare()`d layer (so each starts from the same stored state), advanced in
/// chunks of `chunk` steps (0: the executor's default); the final States are batch element 0's.
CudaResult runCuda(const std::function<std::unique_ptr<LIF>()>& prepare, const Tensor& input,
                   std::int64_t chunk)
{
    const std::int64_t batches = input.dim(0);
    const std::int64_t steps = input.dim(1);
    const std::int64_t nIn = input.dim(2);
    const auto flat = [](const Tensor& t) {
        return std::vector<float>(t.data(), t.data() + t.numel());
    };
    CudaResult r;
    for (std::int64_t b = 0; b < batches; ++b) {
        const std::unique_ptr<LIF> lif = prepare();
        ExecutorOptions options;
        if (chunk > 0) {
            options.maxChunkSteps = chunk;
        }
        const auto ex = spike::engine::makeExecutor(*lif, BackendKind::Cuda, options);
        std::vector<ProbeRequest> probes{{"", "vmem", {}}, {"", "isyn", {}}};
        if (lif->hasRecurrence()) {
            probes.push_back({"", "irec", {}});
        }
        const std::vector<ProbeInfo> info = ex->setProbes(probes);
        std::vector<float>* traces[] = {&r.vmem, &r.isyn, &r.irec};
        const std::int64_t nOut = lif->sizeOut();
        std::vector<float> out(static_cast<std::size_t>(ex->maxChunkSteps() * nOut));
        const float* x = input.data() + b * steps * nIn;
        for (std::int64_t t = 0; t < steps;) {
            const std::int64_t n = std::min(ex->maxChunkSteps(), steps - t);
            ex->advance(n, x + t * nIn, out.data());
            r.spikes.insert(r.spikes.end(), out.begin(), out.begin() + n * nOut);
            for (std::size_t k = 0; k < info.size(); ++k) {
                const float* rows = ex->probeData(k);
                traces[k]->insert(traces[k]->end(), rows, rows + n * info[k].width);
            }
            t += n;
        }
        if (b == 0) {
            ex->storeStates();
            r.finalVmem = flat(lif->tensor("vmem"));
            r.finalIsyn = flat(lif->tensor("isyn"));
            r.finalSpikes = flat(lif->tensor("spikes"));
        }
    }
    return r;
}

/// "" when `gpu` and `cpu` agree element-wise within `tol` (relative above magnitude 1),
/// else a message naming the first difference and the number of differences.
std::string compare(const std::string& what, const std::vector<float>& gpu, const Tensor& cpu,
                    float tol)
{
    if (static_cast<std::int64_t>(gpu.size()) != cpu.numel()) {
        return what + ": size " + std::to_string(gpu.size()) + " (CUDA) vs " +
               std::to_string(cpu.numel()) + " (CPU)";
    }
    std::int64_t bad = 0;
    std::int64_t first = -1;
    for (std::int64_t i = 0; i < cpu.numel(); ++i) {
        const float g = gpu[static_cast<std::size_t>(i)];
        const float c = cpu[i];
        const bool ok = tol == 0.0F ? g == c
                                    : std::abs(g - c) <= tol * std::max(1.0F, std::abs(c));
        if (!ok) {
            if (first < 0) {
                first = i;
            }
            ++bad;
        }
    }
    if (bad == 0) {
        return {};
    }
    std::ostringstream os;
    os.precision(9);
    os << what << ": " << bad << " of " << cpu.numel() << " differ; first at flat index " << first
       << ": CUDA " << gpu[static_cast<std::size_t>(first)] << " vs CPU " << cpu[first];
    return os.str();
}

/// Largest absolute element (0 for an empty tensor).
float largest(const Tensor& t)
{
    float most = 0.0F;
    for (std::int64_t i = 0; i < t.numel(); ++i) {
        most = std::max(most, std::abs(t[i]));
    }
    return most;
}

std::string skipMessage(const kernels::CudaDeviceInfo& info)
{
    const std::string prefix = "no CUDA device: ";
    return info.reason.rfind(prefix, 0) == 0 ? info.reason : prefix + info.reason;
}

}  // namespace

class TestKernelsLif : public QObject {
    Q_OBJECT

private slots:
    void deviceQueryNeverThrows();
    void executorRefusesWithoutDevice();
    void cudaMatchesCpu_data();
    void cudaMatchesCpu();
};

void TestKernelsLif::deviceQueryNeverThrows()
{
    kernels::CudaDeviceInfo info;
    for (int i = 0; i < 2; ++i) {  // twice: a failed first query must not poison the second
        try {
            info = kernels::queryCudaDevice();
        } catch (const std::exception& e) {
            QFAIL(qPrintable(QStringLiteral("queryCudaDevice threw: %1").arg(e.what())));
        }
    }
    if (!kernels::builtWithCuda()) {
        QVERIFY(!info.available);
        QCOMPARE(info.reason, std::string("built without CUDA"));
    }
    if (info.available) {
        QVERIFY(!info.name.empty());
        QVERIFY(info.major >= 1);
        QVERIFY(info.memoryBytes > 0);
        qInfo("CUDA device: %s, compute capability %d.%d, %zu MiB", info.name.c_str(),
              info.major, info.minor, info.memoryBytes >> 20);
    } else {
        QVERIFY(!info.reason.empty());
        qInfo("CUDA unavailable: %s", info.reason.c_str());
    }
}

void TestKernelsLif::executorRefusesWithoutDevice()
{
    const kernels::CudaDeviceInfo info = kernels::queryCudaDevice();
    if (info.available) {
        QSKIP("a CUDA device is present; the refusal path cannot be exercised");
    }
    auto lif = makeLif(4, 4, false, ParamStyle::Scalars, 65536.0F);
    std::string message;
    try {
        spike::engine::makeExecutor(*lif, BackendKind::Cuda);
        QFAIL("the CUDA executor was made without a usable device");
    } catch (const std::runtime_error& e) {
        message = e.what();
    }
    QVERIFY(!message.empty());
    QVERIFY2(message.find("CUDA") != std::string::npos, message.c_str());
    if (!kernels::builtWithCuda()) {
        QVERIFY2(message.find("built without CUDA") != std::string::npos, message.c_str());
        QVERIFY2(message.find("SPIKE_WITH_CUDA=ON") != std::string::npos, message.c_str());
    }
}

void TestKernelsLif::cudaMatchesCpu_data()
{
    QTest::addColumn<int>("nIn");
    QTest::addColumn<int>("nOut");
    QTest::addColumn<bool>("hasRec");
    QTest::addColumn<int>("batches");
    QTest::addColumn<int>("steps");
    QTest::addColumn<int>("chunk");  // maxChunkSteps, 0 = the executor's default
    QTest::addColumn<int>("style");  // ParamStyle
    QTest::addColumn<float>("maxSpikes");
    QTest::addColumn<float>("inputLo");
    QTest::addColumn<float>("inputHi");
    QTest::addColumn<bool>("carryState");  // evolve once on the CPU first: non-zero initial state

    const float dflt = 65536.0F;
    QTest::newRow("feed-forward nsyn 1") << 8 << 8 << false << 1 << 200 << 0 << 0 << dflt
                                         << -0.01F << 0.05F << false;
    QTest::newRow("feed-forward nsyn 2") << 16 << 8 << false << 2 << 200 << 0 << 0 << dflt
                                         << -0.01F << 0.05F << false;
    QTest::newRow("feed-forward nsyn 3, per-neuron taus")
        << 24 << 8 << false << 3 << 150 << 0 << 1 << dflt << -0.01F << 0.06F << false;
    QTest::newRow("feed-forward, per-neuron decays")
        << 10 << 10 << false << 2 << 150 << 0 << 2 << dflt << -0.02F << 0.08F << false;
    QTest::newRow("feed-forward multi-batch, several blocks")
        << 300 << 300 << false << 5 << 100 << 0 << 1 << dflt << -0.01F << 0.06F << false;
    QTest::newRow("feed-forward chunked, carried state")
        << 16 << 8 << false << 3 << 101 << 7 << 0 << dflt << -0.01F << 0.05F << true;
    QTest::newRow("recurrent nsyn 1") << 12 << 12 << true << 1 << 200 << 0 << 0 << dflt << -0.01F
                                      << 0.05F << false;
    QTest::newRow("recurrent nsyn 2, multi-batch")
        << 16 << 8 << true << 4 << 150 << 0 << 1 << dflt << -0.01F << 0.05F << false;
    QTest::newRow("recurrent wide, chunked") << 200 << 200 << true << 3 << 80 << 9 << 2 << dflt
                                             << -0.02F << 0.06F << false;
    QTest::newRow("recurrent chunked, carried state")
        << 12 << 12 << true << 2 << 64 << 10 << 0 << dflt << -0.01F << 0.05F << true;
    QTest::newRow("max_spikes clamping") << 8 << 8 << false << 2 << 100 << 0 << 0 << 2.0F << 0.5F
                                         << 3.0F << false;
    QTest::newRow("max_spikes clamping, recurrent nsyn 2")
        << 16 << 8 << true << 2 << 100 << 0 << 1 << 3.0F << 0.5F << 3.0F << false;
}

void TestKernelsLif::cudaMatchesCpu()
{
    QFETCH(int, nIn);
    QFETCH(int, nOut);
    QFETCH(bool, hasRec);
    QFETCH(int, batches);
    QFETCH(int, steps);
    QFETCH(int, chunk);
    QFETCH(int, style);
    QFETCH(float, maxSpikes);
    QFETCH(float, inputLo);
    QFETCH(float, inputHi);
    QFETCH(bool, carryState);

    const kernels::CudaDeviceInfo info = kernels::queryCudaDevice();
    if (!info.available) {
        QSKIP(skipMessage(info).c_str());
    }

    const auto prepare = [&] {
        auto lif = makeLif(nIn, nOut, hasRec, static_cast<ParamStyle>(style), maxSpikes);
        if (carryState) {
            lif->evolve(uniformTensor(Shape{1, 37, nIn}, inputLo, inputHi, 5));
        }
        return lif;
    };
    auto lif = prepare();
    if (carryState) {
        QVERIFY(largest(lif->tensor("vmem")) > 0.0F);
    }
    const Tensor input = uniformTensor(Shape{batches, steps, nIn}, inputLo, inputHi, 7);

    CudaResult gpu;
    try {
        gpu = runCuda(prepare, input, chunk);
    } catch (const std::exception& e) {
        QFAIL(qPrintable(QStringLiteral("the CUDA executor threw: %1").arg(e.what())));
    }
    const auto cpu = lif->evolve(input, RecordSpec(true));
    const auto& rec = cpu.record.at("");

    // The case must exercise what it claims: some spikes, and clamping where asked.
    const float most = largest(cpu.output);
    QVERIFY2(most > 0.0F, "the CPU reference emitted no spikes; the case tests nothing");
    if (maxSpikes < 100.0F) {
        QCOMPARE(most, maxSpikes);
    }

    const std::vector<std::string> problems{
        compare("spikes", gpu.spikes, cpu.output, 0.0F),
        compare("vmem", gpu.vmem, rec.at("vmem").data, 1e-5F),
        compare("isyn", gpu.isyn, rec.at("isyn").data, 1e-5F),
        hasRec ? compare("irec", gpu.irec, rec.at("irec").data, 1e-5F) : std::string(),
        compare("final vmem", gpu.finalVmem, lif->tensor("vmem"), 1e-5F),
        compare("final isyn", gpu.finalIsyn, lif->tensor("isyn"), 1e-5F),
        compare("final spikes", gpu.finalSpikes, lif->tensor("spikes"), 0.0F),
    };
    for (const auto& problem : problems) {
        QVERIFY2(problem.empty(), problem.c_str());
    }
}

QTEST_GUILESS_MAIN(TestKernelsLif)
#include "test_kernels_lif.moc"
