// Device code of equation programs (engine/equations/device_source.hpp): the CUDA source the
// CUDA backend compiles with NVRTC at run time (kernels/equation_jit.hpp). Here, without a GPU:
// - every library model under every method that applies, and a text using every function, with a
//   per-neuron parameter: the source compiled for the host (its spike_eq_step entry runs the
//   kernel's neuron function) and launched over spans of 1 to 5 steps must give, after every
//   step, the states, spikes and refractory counters of the interpreter, bit for bit (the traces
//   and spike rows a launch writes, t counted from the launch's first step);
// - NVRTC (when the CUDA Toolkit is on the machine) compiles every such source: machine code for
//   sm_90 and sm_75, PTX for a device newer than this NVRTC knows;
// - what one launch computes once: COBALIF's exp(-dt/taue) and exp(-dt/taui) before the step loop;
// - layouts the kernel cannot run are refused with a message;
// - the disk cache of compiled images (kernels/nvrtc.hpp) gives back what was kept, and misses on
//   a damaged file, another program or device, or a folder it cannot write.
// test_equation_parity_cuda_emulated runs the same code through the CUDA backend on the emulator.
#include "engine/equations/device_source.hpp"
#include "engine/equations/native.hpp"
#include "engine/equations/population.hpp"
#include "engine/neurons/model_library.hpp"
#include "tests/equation_test_cases.hpp"
#include "kernels/equation_jit.hpp"
#include "kernels/nvrtc.hpp"

#include <QtTest/QtTest>

#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace spike::engine;  // NOLINT: test file
namespace eq = spike::engine::equations;
namespace kn = spike::kernels;

namespace {

constexpr std::int64_t kN = 37;

/// The generated argument struct (kernels::EquationJitArgs), as the host entry reads it.
using HostEntry = void (*)(float* const* args, std::int64_t begin, std::int64_t end);

/// Every (library model or "", method) pair.
std::vector<std::pair<std::string, std::string>> allCases()
{
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& lib : libraryModels()) {
        for (const std::string& m : eq::applicableMethods(lib.model)) {
            out.emplace_back(lib.model.name, m);
        }
    }
    out.emplace_back("", "rk4");
    out.emplace_back("", "euler");
    return out;
}

eq::CompiledModel compiledCase(const std::string& name, const std::string& method)
{
    const eq::EquationModel model = name.empty() ? eq::parseModel(spike::tests::kEveryFunction) : findLibraryModel(name)->model;
    return eq::compileModel(model, spike::tests::equationDtOf(name), method);
}

/// The first parameter that is not an input, made per-neuron (default x 0.8 .. 1.2).
void firstParameterPerNeuron(eq::Population& pop, std::mt19937& rng)
{
    for (const auto& p : pop.compiled().model.parameters) {
        if (p.input) {
            continue;
        }
        std::vector<float> v(static_cast<std::size_t>(pop.size()));
        std::uniform_real_distribution<float> u(0.8F, 1.2F);
        for (float& x : v) {
            x = static_cast<float>(p.value) * u(rng);
        }
        pop.setParameter(p.name, v.data(), pop.size());
        pop.parametersChanged();
        return;
    }
}

}  // namespace

class TestEquationDeviceCode : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_cache;

private slots:
    void initTestCase()
    {
        QVERIFY(m_cache.isValid());
        qputenv("SPIKE_EQ_CACHE", m_cache.path().toUtf8());
    }

    void hostBuildMatchesTheInterpreter_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("method");
        for (const auto& [name, method] : allCases()) {
            QTest::newRow(((name.empty() ? std::string("every function") : name) + " " + method).c_str())
                << QString::fromStdString(name) << QString::fromStdString(method);
        }
    }
    void hostBuildMatchesTheInterpreter()
    {
        QFETCH(QString, name);
        QFETCH(QString, method);
        const std::string key = name.toStdString();
        const eq::CompiledModel compiled = compiledCase(key, method.toStdString());
        std::mt19937 rng(11);
        eq::Population reference(compiled, kN);  // interpreted
        std::mt19937 same = rng;
        firstParameterPerNeuron(reference, rng);
        eq::Population device(compiled, kN);  // its parameter arrays are the kernel's
        firstParameterPerNeuron(device, same);
        reference.initialise();
        device.initialise();
        const eq::DeviceLayout layout = eq::deviceLayout(device);
        const std::string source = eq::deviceSource(compiled.step, layout);
        const eq::NativeCode code = eq::nativeCodeNow(source);
        QVERIFY2(code.kind == eq::NativeCode::Kind::Ready, code.message.c_str());

        // The kernel's arrays: its own states, spikes and refractory counter; the parameters as
        // the population binds them.
        const auto n = static_cast<std::size_t>(kN);
        std::vector<std::vector<float>> owned(compiled.slotInfo.size());
        std::vector<float*> table(compiled.slotInfo.size(), nullptr);
        for (std::size_t s = 0; s < compiled.slotInfo.size(); ++s) {
            const eq::SlotKind kind = compiled.slotInfo[s].kind;
            if (kind == eq::SlotKind::State || kind == eq::SlotKind::Refractory || kind == eq::SlotKind::Spike) {
                const float* from = device.binding(s).data;
                owned[s].assign(from, from + n);
                table[s] = owned[s].data();
            } else if (kind != eq::SlotKind::Input && kind != eq::SlotKind::Time) {
                table[s] = device.binding(s).data;
            }
        }
        const std::size_t inputs = layout.inputSlots.size();
        std::uniform_real_distribution<float> u(0.0F, 1.0F);
        const float drive = spike::tests::equationDriveOf(key);
        std::int64_t step = 0;
        int spikes = 0;
        for (int launch = 0; launch < 160; ++launch) {
            const std::int64_t steps = 1 + launch % 5;
            std::vector<float> in(static_cast<std::size_t>(steps) * inputs * n);
            for (std::size_t k = 0; k < in.size(); ++k) {
                const float scale = drive * (0.5F + static_cast<float>(k % n) / static_cast<float>(n));
                const bool firstPort = (k / n) % inputs == 0;  // COBALIF: ge only, so that it fires
                in[k] = key == "COBALIF" ? (firstPort && u(rng) < 0.05F ? scale : 0.0F) : scale * (0.9F + 0.2F * u(rng));
            }
            std::vector<float> out(static_cast<std::size_t>(steps) * n, -1.0F);
            std::vector<std::vector<float>> rows(layout.traceSlots.size(), std::vector<float>(out.size(), -1.0F));
            kn::EquationJitArgs args;
            args.table = table.data();
            args.in = in.data();
            args.out = out.data();
            for (std::size_t k = 0; k < rows.size(); ++k) {
                args.rows[k] = rows[k].data();
            }
            args.n = kN;
            args.steps = steps;
            args.firstStep = step;
            args.dt = compiled.dt;
            reinterpret_cast<HostEntry>(code.fn)(reinterpret_cast<float* const*>(&args), 0, kN);

            const eq::NativeMode mode = eq::nativeMode();
            eq::setNativeMode(eq::NativeMode::Off);
            for (std::int64_t k = 0; k < steps; ++k, ++step) {
                std::vector<const float*> inputRows;
                for (std::size_t p = 0; p < inputs; ++p) {
                    inputRows.push_back(in.data() + (static_cast<std::size_t>(k) * inputs + p) * n);
                }
                reference.step(inputRows.data(), static_cast<double>(step) * compiled.dt);
                const std::string where = "step " + std::to_string(step) + " (launch " + std::to_string(launch) + ")";
                const std::size_t row = static_cast<std::size_t>(k) * n;
                QVERIFY2(std::memcmp(out.data() + row, reference.spikes(), n * sizeof(float)) == 0,
                         ("spikes differ at " + where).c_str());
                for (std::size_t t = 0; t < layout.traceSlots.size(); ++t) {
                    const float* expected = reference.binding(static_cast<std::size_t>(layout.traceSlots[t])).data;
                    if (std::memcmp(rows[t].data() + row, expected, n * sizeof(float)) != 0) {
                        for (std::size_t i = 0; i < n; ++i) {
                            QVERIFY2(rows[t][row + i] == expected[i] || (std::isnan(rows[t][row + i]) && std::isnan(expected[i])),
                                     (compiled.slotInfo[static_cast<std::size_t>(layout.traceSlots[t])].name + "[" +
                                      std::to_string(i) + "] differs at " + where + ": interpreted " +
                                      std::to_string(expected[i]) + ", device code " + std::to_string(rows[t][row + i]))
                                         .c_str());
                        }
                    }
                }
                for (std::size_t i = 0; i < n; ++i) {
                    spikes += reference.spikes()[i] != 0.0F ? 1 : 0;
                }
            }
            eq::setNativeMode(mode);
        }
        if (key != "FitzHughNagumo" && key != "HodgkinHuxley") {
            QVERIFY2(spikes > 0, "no spikes: the comparison tests too little");
        }
    }

    /// What a GPU does first: NVRTC compiles every source (machine code for the device's
    /// architecture, PTX for one newer than it knows, which the driver compiles).
    void nvrtcCompilesEverySource()
    {
        if (const std::string why = kn::nvrtcUnavailableReason(); !why.empty()) {
            QSKIP(why.c_str());
        }
        for (const auto& [name, method] : allCases()) {
            const eq::CompiledModel compiled = compiledCase(name, method);
            eq::Population pop(compiled, kN);
            std::mt19937 rng(3);
            firstParameterPerNeuron(pop, rng);
            const std::string source = eq::deviceSource(compiled.step, eq::deviceLayout(pop));
            const kn::NvrtcImage image = kn::nvrtcCompile(source, name + ".cu", 90);
            QVERIFY2(image.ok, image.message.c_str());
            QCOMPARE(QString::fromStdString(image.target), QString("sm_90"));
            QVERIFY(image.cubin && image.image.rfind("\x7f" "ELF", 0) == 0);
        }
        const eq::CompiledModel izhikevich = compiledCase("Izhikevich", "euler");
        const std::string source = eq::deviceSource(izhikevich.step, eq::deviceLayout(eq::Population(izhikevich, kN)));
        const kn::NvrtcImage turing = kn::nvrtcCompile(source, "izhikevich.cu", 75);
        QVERIFY2(turing.ok && turing.cubin && turing.target == "sm_75", turing.message.c_str());
        const kn::NvrtcImage future = kn::nvrtcCompile(source, "izhikevich.cu", 990);
        QVERIFY2(future.ok && !future.cubin, future.message.c_str());
        QVERIFY(future.target.rfind("compute_", 0) == 0);
        QVERIFY(future.image.find(".entry spike_eq_steps") != std::string::npos);
        const kn::NvrtcImage ancient = kn::nvrtcCompile(source, "izhikevich.cu", 30);
        QVERIFY(!ancient.ok);
        QVERIFY2(ancient.message.find("3.0") != std::string::npos, ancient.message.c_str());
    }

    /// The disk cache of device images: what one process compiled, the next loads instead of
    /// compiling (test_spikesim checks the twin's side); a file that is not what it claims, or a
    /// folder that cannot be written, is a miss, never an error.
    void imagesAreKeptOnDisk()
    {
        QTemporaryDir dir;
        const std::string folder = dir.path().toStdString();
        const eq::CompiledModel izhikevich = compiledCase("Izhikevich", "euler");
        const std::string source = eq::deviceSource(izhikevich.step, eq::deviceLayout(eq::Population(izhikevich, kN)));
        QVERIFY(!kn::cachedImage(source, 90, folder).ok);
        kn::NvrtcImage image;
        image.ok = true;
        image.image = std::string("\x7f" "ELF\n\0 cubin bytes\n", 20);  // binary, with NUL and newlines
        image.cubin = true;
        image.target = "sm_90";
        QVERIFY(kn::storeImage(source, 90, folder, image));
        const kn::NvrtcImage back = kn::cachedImage(source, 90, folder);
        QVERIFY(back.ok && back.cubin);
        QCOMPARE(back.image, image.image);
        QCOMPARE(back.target, image.target);
        QVERIFY(!kn::cachedImage(source, 75, folder).ok);           // another device
        QVERIFY(!kn::cachedImage(source + " ", 90, folder).ok);     // another program
        QVERIFY(!kn::cachedImage(source, 90, "").ok);               // no cache
        QVERIFY(!kn::storeImage(source, 90, "", image));

        const QStringList files = QDir(dir.path()).entryList(QDir::Files, QDir::Name);
        QCOMPARE(files.size(), 2);  // dev_<hash>_cc90.cu and .img, no temporary left
        const QString cu = dir.filePath(files[0]);
        const QString img = dir.filePath(files[1]);
        QVERIFY(cu.endsWith(".cu") && img.endsWith(".img"));
        const auto rewrite = [](const QString& path, const QByteArray& bytes) {
            QFile f(path);
            return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
        };
        QFile imgFile(img);
        QVERIFY(imgFile.open(QIODevice::ReadOnly));
        const QByteArray whole = imgFile.readAll();
        imgFile.close();
        QVERIFY(rewrite(img, whole.left(whole.size() - 3)));  // cut short
        QVERIFY(!kn::cachedImage(source, 90, folder).ok);
        QVERIFY(rewrite(img, QByteArray("spikestudio device image 2\nsm_90 1 3\nabc")));  // another format
        QVERIFY(!kn::cachedImage(source, 90, folder).ok);
        QVERIFY(rewrite(img, QByteArray("spikestudio device image 1\nsm_90 7 3\nabc")));  // not 0 or 1
        QVERIFY(!kn::cachedImage(source, 90, folder).ok);
        QVERIFY(rewrite(img, whole));
        QVERIFY(kn::cachedImage(source, 90, folder).ok);
        QVERIFY(rewrite(cu, QByteArray("another program with the same hash")));  // a collision
        QVERIFY(!kn::cachedImage(source, 90, folder).ok);
        QVERIFY(kn::storeImage(source, 90, folder, image));  // written again over it
        QVERIFY(kn::cachedImage(source, 90, folder).ok);
        kn::forgetImage(source, 90, folder);
        QVERIFY(!kn::cachedImage(source, 90, folder).ok);

        const std::string notAFolder = dir.filePath("plain file").toStdString();
        QVERIFY(rewrite(QString::fromStdString(notAFolder), QByteArray("x")));
        QVERIFY(!kn::storeImage(source, 90, notAFolder, image));
        QVERIFY(!kn::cachedImage(source, 90, notAFolder).ok);
        QVERIFY(!kn::storeImage(source, 90, notAFolder + "/below", image));

        if (kn::nvrtcUnavailableReason().empty()) {  // a real image round trip, and no compilation for it
            const kn::NvrtcImage compiled = kn::nvrtcCompile(source, "izhikevich.cu", 90);
            QVERIFY2(compiled.ok, compiled.message.c_str());
            QVERIFY(kn::storeImage(source, 90, folder, compiled));
            const long long before = kn::nvrtcCompilations();
            const kn::NvrtcImage kept = kn::cachedImage(source, 90, folder);
            QVERIFY(kept.ok && kept.cubin && kept.image == compiled.image);
            QCOMPARE(kn::nvrtcCompilations(), before);
        }
    }

    /// COBALIF's shared exp(-dt/taue) and exp(-dt/taui) run once per launch, before the step
    /// loop; the exp of the neuron's own value stays in it.
    void sharedValuesRunOncePerLaunch()
    {
        const eq::CompiledModel compiled = compiledCase("COBALIF", "exponential_euler");
        const std::string source = eq::deviceSource(compiled.step, eq::deviceLayout(eq::Population(compiled, kN)));
        const std::size_t loop = source.find("for (long long t = 0;");
        QVERIFY(loop != std::string::npos);
        const std::string exp = "static_cast<K::EqOp>(" + std::to_string(static_cast<int>(kn::EqOp::Exp)) + ")";
        const auto count = [&exp](const std::string& text) {
            int c = 0;
            for (std::size_t at = text.find(exp); at != std::string::npos; at = text.find(exp, at + 1)) {
                ++c;
            }
            return c;
        };
        QCOMPARE(count(source.substr(0, loop)), 2);
        QCOMPARE(count(source.substr(loop)), 1);
    }

    /// Layouts the kernel cannot run are refused with what is wrong.
    void badLayoutsAreRefused()
    {
        const eq::CompiledModel compiled = compiledCase("Izhikevich", "euler");
        const eq::DeviceLayout good = eq::deviceLayout(eq::Population(compiled, kN));
        const auto refusal = [&compiled](const eq::DeviceLayout& layout) {
            try {
                eq::deviceSource(compiled.step, layout);
            } catch (const std::invalid_argument& e) {
                return std::string(e.what());
            }
            return std::string();
        };
        QVERIFY(refusal(good).empty());
        eq::DeviceLayout traced = good;
        traced.perNeuron[static_cast<std::size_t>(compiled.stateSlots[0])] = 0;  // a state as one value
        QVERIFY2(refusal(traced).find("trace slot") != std::string::npos, refusal(traced).c_str());
        eq::DeviceLayout shared = traced;
        shared.traceSlots.erase(shared.traceSlots.begin());  // not traced: the store is what is wrong
        QVERIFY2(refusal(shared).find("store into shared slot") != std::string::npos, refusal(shared).c_str());
        eq::DeviceLayout spike = good;
        spike.spikeSlot = static_cast<int>(good.perNeuron.size());
        QVERIFY2(refusal(spike).find("spike slot") != std::string::npos, refusal(spike).c_str());
        eq::DeviceLayout inputs = good;
        inputs.inputSlots.assign(kn::kEqMaxInputs + 1, good.inputSlots.front());
        QVERIFY2(refusal(inputs).find("more input or trace slots") != std::string::npos, refusal(inputs).c_str());
        eq::DeviceLayout short_ = good;
        short_.perNeuron.resize(1);
        QVERIFY(!refusal(short_).empty());
    }
};

QTEST_GUILESS_MAIN(TestEquationDeviceCode)
#include "test_equation_device_code.moc"
