// Tests for kernels/lif_cuda: device discovery never throws, a build or machine without CUDA
// refuses with a clear message, malformed problems are rejected before any device work, and on
// a CUDA device the kernels match the engine's CPU LIF (spikes exactly, traces within 1e-5) for
// feed-forward layers with one or more synapses, recurrent layers, several batch elements,
// carried-over state, chunked transfers and max_spikes_per_dt clamping. Recurrent weights are
// multiples of 1/256 so that spikes @ w_rec sums exactly in any order (the CPU uses Eigen's GEMV,
// the GPU sums in neuron order). Device comparisons skip with the reason when no device is usable.
#include "engine/neurons/lif.hpp"
#include "engine/core/recording.hpp"
#include "engine/tensor/tensor.hpp"
#include "kernels/lif_cuda.hpp"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using spike::engine::AttributeMap;
using spike::engine::LIF;
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

/// A scalar / (1,) / (n,) / (n, nsyn) attribute as n * nsyn values, neuron-major.
std::vector<float> expand(const Tensor& t, std::int64_t n, std::int64_t nsyn)
{
    std::vector<float> out(static_cast<std::size_t>(n * nsyn));
    for (std::int64_t i = 0; i < n; ++i) {
        for (std::int64_t k = 0; k < nsyn; ++k) {
            float value = 0.0F;
            if (t.numel() == 1) {
                value = t[0];
            } else if (t.numel() == n) {
                value = t[i];
            } else {
                value = t[i * nsyn + k];
            }
            out[static_cast<std::size_t>(i * nsyn + k)] = value;
        }
    }
    return out;
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

/// Runs the CUDA backend on `input` from the LIF's current parameters and state.
CudaResult runCuda(const LIF& lif, const Tensor& input, std::int64_t maxChunkSteps)
{
    const std::int64_t batches = input.dim(0);
    const std::int64_t steps = input.dim(1);
    const std::int64_t nIn = lif.sizeIn();
    const std::int64_t nOut = lif.sizeOut();
    const std::int64_t nsyn = lif.nSynapses();
    const std::vector<float> alpha = expand(lif.tensor("alpha"), nOut, 1);
    const std::vector<float> beta = expand(lif.tensor("beta"), nOut, nsyn);
    const std::vector<float> bias = expand(lif.tensor("bias"), nOut, 1);
    const std::vector<float> threshold = expand(lif.tensor("threshold"), nOut, 1);
    const std::vector<float> vmem0 = expand(lif.tensor("vmem"), nOut, 1);
    const std::vector<float> isyn0 = expand(lif.tensor("isyn"), nOut, nsyn);
    const std::vector<float> spikes0 = expand(lif.tensor("spikes"), nOut, 1);

    const auto bt = static_cast<std::size_t>(batches * steps);
    CudaResult r;
    r.spikes.assign(bt * static_cast<std::size_t>(nOut), -1.0F);
    r.vmem.assign(bt * static_cast<std::size_t>(nOut), -1.0F);
    r.isyn.assign(bt * static_cast<std::size_t>(nIn), -1.0F);
    r.irec.assign(lif.hasRecurrence() ? bt * static_cast<std::size_t>(nIn) : 0, -1.0F);
    r.finalVmem.assign(static_cast<std::size_t>(nOut), -1.0F);
    r.finalIsyn.assign(static_cast<std::size_t>(nIn), -1.0F);
    r.finalSpikes.assign(static_cast<std::size_t>(nOut), -1.0F);

    kernels::LifProblem p;
    p.batches = batches;
    p.steps = steps;
    p.nIn = nIn;
    p.nOut = nOut;
    p.nSyn = nsyn;
    p.input = input.data();
    p.alpha = alpha.data();
    p.beta = beta.data();
    p.bias = bias.data();
    p.threshold = threshold.data();
    p.maxSpikes = lif.tensor("max_spikes_per_dt")[0];
    p.wRec = lif.hasRecurrence() ? lif.tensor("w_rec").data() : nullptr;
    p.initialVmem = vmem0.data();
    p.initialIsyn = isyn0.data();
    p.initialSpikes = spikes0.data();
    p.spikes = r.spikes.data();
    p.recVmem = r.vmem.data();
    p.recIsyn = r.isyn.data();
    p.recIrec = lif.hasRecurrence() ? r.irec.data() : nullptr;
    p.finalVmem = r.finalVmem.data();
    p.finalIsyn = r.finalIsyn.data();
    p.finalSpikes = r.finalSpikes.data();
    p.maxChunkSteps = maxChunkSteps;
    kernels::lifForwardCuda(p);
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

/// A small valid feed-forward problem over caller-owned buffers.
struct SmallProblem {
    std::vector<float> input = std::vector<float>(2 * 3 * 4, 0.5F);
    std::vector<float> ones = std::vector<float>(4, 0.9F);
    std::vector<float> zeros = std::vector<float>(4, 0.0F);
    std::vector<float> out = std::vector<float>(2 * 3 * 4, 0.0F);
    kernels::LifProblem problem;

    SmallProblem()
    {
        problem.batches = 2;
        problem.steps = 3;
        problem.nIn = 4;
        problem.nOut = 4;
        problem.nSyn = 1;
        problem.input = input.data();
        problem.alpha = ones.data();
        problem.beta = ones.data();
        problem.bias = zeros.data();
        problem.threshold = ones.data();
        problem.spikes = out.data();
    }
};

}  // namespace

class TestKernelsLif : public QObject {
    Q_OBJECT

private slots:
    void deviceQueryNeverThrows();
    void forwardRefusesWithoutDevice();
    void malformedProblemsRejected();
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

void TestKernelsLif::forwardRefusesWithoutDevice()
{
    const kernels::CudaDeviceInfo info = kernels::queryCudaDevice();
    if (info.available) {
        QSKIP("a CUDA device is present; the refusal path cannot be exercised");
    }
    SmallProblem small;
    std::string message;
    try {
        kernels::lifForwardCuda(small.problem);
        QFAIL("lifForwardCuda returned without a usable device");
    } catch (const std::runtime_error& e) {
        message = e.what();
    }
    QVERIFY(!message.empty());
    QVERIFY2(message.find("CUDA") != std::string::npos, message.c_str());
    if (!kernels::builtWithCuda()) {
        QVERIFY2(message.find("no CUDA support") != std::string::npos, message.c_str());
        QVERIFY2(message.find("SPIKE_WITH_CUDA=ON") != std::string::npos, message.c_str());
    }
}

void TestKernelsLif::malformedProblemsRejected()
{
    if (!kernels::builtWithCuda()) {
        QSKIP("built without CUDA: every call reports the missing CUDA support first");
    }
    {
        SmallProblem small;
        small.problem.nSyn = 2;  // nIn 4 != nOut 4 * nSyn 2
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, kernels::lifForwardCuda(small.problem));
    }
    {
        SmallProblem small;
        small.problem.alpha = nullptr;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, kernels::lifForwardCuda(small.problem));
    }
    {
        SmallProblem small;
        small.problem.spikes = nullptr;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, kernels::lifForwardCuda(small.problem));
    }
    {
        SmallProblem small;
        std::vector<float> irec(small.input.size());
        small.problem.recIrec = irec.data();  // irec without recurrence
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, kernels::lifForwardCuda(small.problem));
    }
    {
        // Recurrent layers above the one-block limit are refused with a message naming it.
        const std::int64_t n = kernels::kMaxRecurrentNeurons + 1;
        std::vector<float> perNeuron(static_cast<std::size_t>(n), 0.5F);
        std::vector<float> w(static_cast<std::size_t>(n * n), 0.0F);
        std::vector<float> x(static_cast<std::size_t>(n), 0.0F);
        std::vector<float> out(static_cast<std::size_t>(n), 0.0F);
        kernels::LifProblem p;
        p.batches = 1;
        p.steps = 1;
        p.nIn = n;
        p.nOut = n;
        p.input = x.data();
        p.alpha = perNeuron.data();
        p.beta = perNeuron.data();
        p.bias = perNeuron.data();
        p.threshold = perNeuron.data();
        p.wRec = w.data();
        p.spikes = out.data();
        std::string message;
        try {
            kernels::lifForwardCuda(p);
        } catch (const std::runtime_error& e) {
            message = e.what();
        }
        QVERIFY2(message.find(std::to_string(kernels::kMaxRecurrentNeurons)) != std::string::npos,
                 message.c_str());
    }
}

void TestKernelsLif::cudaMatchesCpu_data()
{
    QTest::addColumn<int>("nIn");
    QTest::addColumn<int>("nOut");
    QTest::addColumn<bool>("hasRec");
    QTest::addColumn<int>("batches");
    QTest::addColumn<int>("steps");
    QTest::addColumn<int>("chunk");  // maxChunkSteps, 0 = automatic
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

    auto lif = makeLif(nIn, nOut, hasRec, static_cast<ParamStyle>(style), maxSpikes);
    if (carryState) {
        lif->evolve(uniformTensor(Shape{1, 37, nIn}, inputLo, inputHi, 5));
        QVERIFY(largest(lif->tensor("vmem")) > 0.0F);
    }
    const Tensor input = uniformTensor(Shape{batches, steps, nIn}, inputLo, inputHi, 7);

    CudaResult gpu;
    try {
        gpu = runCuda(*lif, input, chunk);
    } catch (const std::exception& e) {
        QFAIL(qPrintable(QStringLiteral("lifForwardCuda threw: %1").arg(e.what())));
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
