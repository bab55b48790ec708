// Equation-defined populations on both backends: every library model and a user text (one per
// integration method) runs in a small network (a constant current per neuron into its input, or
// Poisson spikes through a sparse projection into COBA's conductances) on the CPU executor and on
// the CUDA executor, in chunks, and must give the same spikes and the same states bit for bit
// (the same program and numbers on both, and the transcendental functions of
// kernels/portable_math.hpp, which give the same bits on a real GPU as on the host; the last case
// uses every one of them). The same again with the device running each population as device code
// compiled at run time (NVRTC; kernels/equation_jit.hpp) instead of interpreting it. The CUDA rows
// run as test_equation_parity_cuda_emulated on the emulator (there the device source is compiled
// by NVRTC when the toolkit is on the machine, then by the host compiler, and run), on a real
// device where there is one (docs/backends.md records the run), and skip otherwise.
#include "engine/equations/native.hpp"
#include "engine/io/module_factory.hpp"
#include "engine/network/network.hpp"
#include "engine/neurons/equation_neuron.hpp"
#include "engine/neurons/model_library.hpp"
#include "engine/runtime/backend.hpp"
#include "engine/sources/sources.hpp"
#include "kernels/cuda_device.hpp"
#include "kernels/equation_jit.hpp"
#include "kernels/nvrtc.hpp"
#include "tests/projection_test_helpers.hpp"

#include <QtTest/QtTest>

#include <functional>
#include <memory>
#include <string>
#include <vector>

using namespace spike::engine;  // NOLINT: test file
namespace eq = spike::engine::equations;

namespace {

constexpr std::int64_t kN = 20;
constexpr std::int64_t kSteps = 300;
constexpr std::int64_t kChunk = 7;

struct Case {
    std::string type;
    float drive;  ///< SI; the constant input of neuron i is drive * (0.5 + i / kN)
    float dt;
    std::string text;    ///< for EquationNeuron
    std::string method;  ///< "" = the model's
};

std::vector<Case> cases()
{
    return {
        {"Izhikevich", 0.012F, 1e-4F, "", ""},
        {"AdEx", 6e-10F, 1e-4F, "", ""},
        {"HodgkinHuxley", 0.12F, 1e-5F, "", ""},
        {"QIF", 0.01F, 1e-4F, "", ""},
        {"FitzHughNagumo", 0.8F, 5e-5F, "", ""},
        {"AdaptiveLIF", 0.04F, 1e-4F, "", ""},
        {"COBALIF", 0.0F, 1e-4F, "", ""},
        {EquationNeuron::kCustomType, 0.04F, 1e-4F,
         "dv/dt = (v_rest - v + I) / tau + 0.1*mV/ms*sin(t/ms) : volt (unless refractory)\nI : volt (input)\n"
         "tau = 10*ms : second\nv_rest = -70*mV : volt\nv(0) = v_rest\nthreshold: v > -50*mV\n"
         "reset: v = -70*mV\nrefractory: 2*ms",
         "rk4"},
        {EquationNeuron::kCustomType, 0.04F, 1e-4F,
         "dv/dt = (v_rest - v - w + I) / tau : volt\ndw/dt = (0.1*(v - v_rest) - w) / (50*ms) : volt\n"
         "I : volt (input)\ntau = 10*ms : second\nv_rest = -70*mV : volt\nv(0) = v_rest\nw(0) = 0*mV\n"
         "threshold: v > -55*mV\nreset: v = v_rest; w += 1*mV",
         "exact"},
        {EquationNeuron::kCustomType, 0.04F, 1e-4F,
         "dv/dt = (v_rest - v + I) / tau : volt\nI : volt (input)\ntau = 10*ms : second\n"
         "v_rest = -70*mV : volt\nv(0) = v_rest\nthreshold: v > -50*mV\nreset: v = v_rest",
         "rk2"},
        {EquationNeuron::kCustomType, 0.04F, 1e-4F,
         "dv/dt = (v_rest - v + I + f) / tau : volt\nI : volt (input)\ntau = 10*ms : second\n"
         "v_rest = -70*mV : volt\nx = v / mV : 1\n"
         "f = 0.1*mV*(sin(x) + cos(x) + tan(x/10) + sinh(x/50) + cosh(x/50) + tanh(x) + arcsin(tanh(x/10))"
         " + arccos(tanh(x/10)) + arctan(x) + exp(x/20) + log(1 + abs(x)) + log10(1 + abs(x))"
         " + exprel(x/10) + (abs(x)/100)**1.7) : volt\n"
         "v(0) = v_rest\nthreshold: v > -50*mV\nreset: v = v_rest",
         ""},
    };
}

std::unique_ptr<Network> networkFor(const Case& c)
{
    nlohmann::json config{{"shape", {kN}}};
    if (!c.text.empty()) {
        config["equations"] = c.text;
    }
    auto neuron = createModule(c.type, config);
    NestedAttributes change;
    change[""]["dt"] = Tensor::scalar(c.dt);
    if (!c.method.empty()) {
        change[""]["method"] = c.method;
    }
    const Status s = neuron->setAttributes(change);
    if (!s.ok) {
        throw Error(s.message);
    }
    const auto& eq = dynamic_cast<EquationNeuron&>(*neuron);
    const std::string port = eq.model().inputs.front();
    auto net = std::make_unique<Network>(0, kN);
    net->addNode("E", std::move(neuron));
    if (c.type == "COBALIF") {
        net->addNode("drive", std::make_unique<PoissonSource>(
                                  40, AttributeMap{{"rate", Tensor::scalar(400.0F)}, {"seed", Tensor::scalar(3)}}));
        net->connect("drive", "E.ge", spike::tests::sparseProjection(40, kN, 0.3F, 8, 0, 1));
    } else {
        Tensor amplitude(Shape{kN});
        for (std::int64_t i = 0; i < kN; ++i) {
            amplitude[i] = c.drive * (0.5F + static_cast<float>(i) / kN);
        }
        net->addNode("drive", std::make_unique<ConstantCurrent>(kN, AttributeMap{{"amplitude", amplitude}}));
        net->connect("drive", "E." + port);
    }
    net->connect("E", "out");
    return net;
}

/// Spikes, then every state, of kSteps steps in chunks.
std::vector<std::vector<float>> runOn(const std::string& backend, Module& root, const std::vector<std::string>& states)
{
    ExecutorOptions options;
    options.maxChunkSteps = kChunk;
    auto ex = makeExecutor(root, parseBackendKind(backend), options);
    if (ex->backendName() != backend) {
        throw Error("asked for " + backend + ", got " + ex->backendName());
    }
    std::vector<ProbeRequest> probes{{"E", "spikes", {}}};
    for (const auto& s : states) {
        probes.push_back({"E", s, {}});
    }
    const std::vector<ProbeInfo> infos = ex->setProbes(probes);
    std::vector<std::vector<float>> rows(infos.size());
    std::vector<float> out(static_cast<std::size_t>(kChunk * kN));
    for (std::int64_t t0 = 0; t0 < kSteps; t0 += kChunk) {
        const std::int64_t n = std::min(kChunk, kSteps - t0);
        ex->advance(n, nullptr, out.data());
        for (std::size_t p = 0; p < infos.size(); ++p) {
            const float* d = ex->probeData(p);
            rows[p].insert(rows[p].end(), d, d + n * infos[p].width);
        }
    }
    return rows;
}

}  // namespace

class TestEquationParity : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY(m_cache.isValid());
        qputenv("SPIKE_EQ_CACHE", m_cache.path().toUtf8());  // native and emulated device code
    }

    void cpuAndCudaAgree_data()
    {
        QTest::addColumn<int>("index");
        const auto all = cases();
        for (std::size_t k = 0; k < all.size(); ++k) {
            const std::string name = all[k].type + (all[k].method.empty() ? "" : " " + all[k].method);
            QTest::newRow(name.c_str()) << static_cast<int>(k);
        }
    }
    void cpuAndCudaAgree() { compareBackends(); }

    /// With native code asked for at once, the device builds and runs each population's compiled
    /// code (not the interpreter), with the interpreter's bits.
    void compiledDeviceCodeAgrees_data() { cpuAndCudaAgree_data(); }
    void compiledDeviceCodeAgrees()
    {
        if (const std::string why = spike::kernels::nvrtcUnavailableReason(); !why.empty()) {
            const auto device = spike::kernels::queryCudaDevice();
            if (device.available && device.name.find("emulator") == std::string::npos) {
                QSKIP(qPrintable(QString::fromStdString(why + ": a GPU interprets equation populations")));
            }
            qInfo("%s: the emulator compiles the device source with the host compiler only", why.c_str());
        }
        const eq::NativeMode before = eq::nativeMode();
        eq::setNativeMode(eq::NativeMode::Sync);
        const std::int64_t launches = spike::kernels::equationJitLaunches();
        compareBackends([launches](const EquationNeuron& onDevice) {
            const std::string status = onDevice.deviceExecutionStatus();
            QVERIFY2(status.rfind("device code (", 0) == 0, status.c_str());
            QVERIFY(spike::kernels::equationJitLaunches() >= launches + kSteps / kChunk);
        });
        eq::setNativeMode(before);
    }

private:
    QTemporaryDir m_cache;

    /// Runs the current row's case on both backends and compares every value; `checkDevice` then
    /// looks at the CUDA run's population.
    void compareBackends(const std::function<void(const EquationNeuron&)>& checkDevice = {})
    {
        QFETCH(int, index);
        const auto device = spike::kernels::queryCudaDevice();
        if (!device.available) {
            QSKIP(qPrintable(QString::fromStdString("no usable CUDA device: " + device.reason)));
        }
        const Case c = cases()[static_cast<std::size_t>(index)];
        auto cpuNet = networkFor(c);
        auto cudaNet = networkFor(c);
        std::vector<std::string> states;
        for (const auto& s : dynamic_cast<EquationNeuron&>(cpuNet->getSubmodule("E")).model().states) {
            states.push_back(s.name);
        }
        const auto cpu = runOn("cpu", *cpuNet, states);
        const auto cuda = runOn("cuda", *cudaNet, states);
        double spikes = 0;
        for (float z : cpu[0]) spikes += z;
        QVERIFY2(spikes > 0, "the case fires no spike: it tests too little");
        for (std::size_t p = 0; p < cpu.size(); ++p) {
            const std::string what = p == 0 ? "spikes" : states[p - 1];
            QCOMPARE(cuda[p].size(), cpu[p].size());
            for (std::size_t k = 0; k < cpu[p].size(); ++k) {
                if (!(cuda[p][k] == cpu[p][k] || (std::isnan(cuda[p][k]) && std::isnan(cpu[p][k])))) {
                    QFAIL(qPrintable(QString::fromStdString(what + " differs at step " + std::to_string(k / kN) +
                                                            ", neuron " + std::to_string(k % kN) + ": cpu " +
                                                            std::to_string(cpu[p][k]) + ", cuda " + std::to_string(cuda[p][k]))));
                }
            }
        }
        // The states carried back from the device equal the CPU's.
        const auto& a = cpuNet->getSubmodule("E");
        const auto& b = cudaNet->getSubmodule("E");
        for (const auto& s : states) {
            QVERIFY2(a.tensor(s).identical(b.tensor(s)), s.c_str());
        }
        if (checkDevice) {
            checkDevice(dynamic_cast<const EquationNeuron&>(b));
        }
    }
};

QTEST_GUILESS_MAIN(TestEquationParity)
#include "test_equation_parity.moc"
