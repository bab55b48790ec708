// Stimulus sources: each waveform against its analytic definition (constant, pulse edges at exact
// steps, sine against std::sin, Poisson rate statistics and seeding, regular spike steps, file
// playback with and without looping), zero-channel input end to end, chunked evolution
// bit-identical to one call, a source driving a LIF in a Sequential, rejected values, the
// factory's configs, and model-file round trips including a FileSource whose data is a .npy file.
#include "engine/neurons/lif.hpp"
#include "engine/io/model_io.hpp"
#include "engine/io/module_factory.hpp"
#include "engine/tensor/npy.hpp"
#include "engine/layers/sequential.hpp"
#include "engine/sources/sources.hpp"

#include <QtTest/QtTest>

#include <QTemporaryDir>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>

using namespace spike::engine;  // NOLINT: test file
namespace fs = std::filesystem;

namespace {

/// Input of T steps and zero channels, (T, 0) or (B, T, 0).
Tensor noInput(std::int64_t steps, std::int64_t batches = 0)
{
    return batches > 0 ? Tensor(Shape{batches, steps, 0}) : Tensor(Shape{steps, 0});
}

/// Value at (t, c) of a (T, N) tensor.
float at(const Tensor& t, std::int64_t step, std::int64_t c)
{
    return t[step * t.dim(1) + c];
}

/// Steps at which channel c of a (T, N) output is non-zero.
std::vector<std::int64_t> spikeSteps(const Tensor& out, std::int64_t c)
{
    std::vector<std::int64_t> steps;
    for (std::int64_t t = 0; t < out.dim(0); ++t) {
        if (at(out, t, c) != 0.0F) {
            steps.push_back(t);
        }
    }
    return steps;
}

Tensor vec(std::vector<float> values)
{
    const auto n = static_cast<std::int64_t>(values.size());
    return Tensor(Shape{n}, values);
}

/// Evolves `m` in chunks of the given lengths and concatenates the outputs, (T, N).
Tensor evolveInChunks(Module& m, const std::vector<std::int64_t>& chunks)
{
    std::vector<float> all;
    std::int64_t steps = 0;
    for (const auto len : chunks) {
        const Tensor out = m.evolve(noInput(len)).output;
        all.insert(all.end(), out.data(), out.data() + out.numel());
        steps += len;
    }
    return Tensor(Shape{steps, m.sizeOut()}, all);
}

/// One of each source with non-default attributes, by type name.
std::unique_ptr<Source> makeSource(const std::string& type)
{
    if (type == "ConstantCurrent") {
        return std::make_unique<ConstantCurrent>(
            3, AttributeMap{{"amplitude", vec({0.5F, -1.0F, 2.0F})}});
    }
    if (type == "PulseTrain") {
        return std::make_unique<PulseTrain>(
            3, AttributeMap{{"onset", vec({0.0F, 0.003F, 0.01F})},
                            {"duration", Tensor::scalar(0.004F)},
                            {"period", vec({0.01F, 0.007F, 0.0F})},
                            {"amplitude", Tensor::scalar(2.5F)},
                            {"baseline", Tensor::scalar(-0.5F)}});
    }
    if (type == "SineCurrent") {
        return std::make_unique<SineCurrent>(
            3, AttributeMap{{"frequency", vec({5.0F, 40.0F, 123.0F})},
                            {"phase", Tensor::scalar(0.3F)},
                            {"offset", Tensor::scalar(0.25F)},
                            {"amplitude", vec({1.0F, 0.5F, 3.0F})}});
    }
    if (type == "PoissonSource") {
        return std::make_unique<PoissonSource>(
            3, AttributeMap{{"rate", vec({20.0F, 200.0F, 700.0F})},
                            {"seed", Tensor::scalar(11.0F)}});
    }
    if (type == "RegularSpikeTrain") {
        return std::make_unique<RegularSpikeTrain>(
            3, AttributeMap{{"rate", vec({100.0F, 300.0F, 0.0F})},
                            {"onset", vec({0.0F, 0.005F, 0.0F})}});
    }
    Tensor data(Shape{17, 3});
    for (std::int64_t i = 0; i < data.numel(); ++i) {
        data[i] = static_cast<float>(i) * 0.25F - 3.0F;
    }
    return std::make_unique<FileSource>(data, true);
}

const std::vector<std::string>& sourceTypes()
{
    static const std::vector<std::string> types{"ConstantCurrent", "PulseTrain",
                                                "SineCurrent",     "PoissonSource",
                                                "RegularSpikeTrain", "FileSource"};
    return types;
}

bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

void writeText(const std::string& path, const std::string& text)
{
    std::ofstream(path) << text;
}

}  // namespace

class TestSources : public QObject {
    Q_OBJECT

private slots:
    void factoryListsEverySource()
    {
        for (const auto& type : sourceTypes()) {
            const ModuleTypeInfo* info = findModuleType(type);
            QVERIFY2(info != nullptr, type.c_str());
            QCOMPARE(info->category, std::string("sources"));
            QVERIFY(!info->container);
            auto m = createModule(type, info->exampleConfig);
            QCOMPARE(m->className(), type);
            QCOMPARE(m->sizeIn(), std::int64_t{0});
            QCOMPARE(m->sizeOut(), std::int64_t{1});
            QVERIFY(!m->spikingInput());
            const bool spiking = type == "PoissonSource" || type == "RegularSpikeTrain";
            QCOMPARE(m->spikingOutput(), spiking);
            QCOMPARE(m->recordableSignals(), std::vector<std::string>{"output"});
            QCOMPARE(m->config(), info->exampleConfig);
            QVERIFY(m->hasAttribute("dt"));
            QCOMPARE(m->spec("dt").units, std::string("s"));
            // Every attribute is declared with a doc line.
            for (const auto& view : m->attributes()) {
                QVERIFY2(!view.spec->doc.empty(), view.spec->name.c_str());
            }
        }
        auto c = createModule("PoissonSource", {{"shape", {7}}});
        QCOMPARE(c->sizeOut(), std::int64_t{7});
        QCOMPARE(c->shape(), (std::vector<std::int64_t>{0, 7}));
        QCOMPARE(c->toString(), std::string("PoissonSource(shape=(7,))"));
        QCOMPARE(c->spec("rate").units, std::string("Hz"));
        QCOMPARE(c->spec("rate").family, std::string("rates"));
        QVERIFY(!c->spec("seed").liveEditable);
        QVERIFY(c->spec("rate").liveEditable);
        auto f = createModule("FileSource", {{"shape", {40, 3}}});
        QCOMPARE(f->sizeOut(), std::int64_t{3});
        QCOMPARE(f->tensor("data").shape(), (Shape{40, 3}));
        QCOMPARE(f->config(), nlohmann::json({{"shape", {40, 3}}}));
        QCOMPARE(f->toString(), std::string("FileSource(shape=(40, 3), loop=False)"));
    }

    void factoryRejectsBadConfigs()
    {
        const auto message = [](const std::string& type, const nlohmann::json& config) {
            try {
                (void)createModule(type, config);
            } catch (const Error& e) {
                return std::string(e.what());
            }
            return std::string("no error");
        };
        QVERIFY(contains(message("ConstantCurrent", nlohmann::json::object()), "'shape': missing"));
        QVERIFY(contains(message("PulseTrain", {{"shape", {0}}}),
                         "expected a value in [1, 100000000]"));
        QVERIFY(contains(message("SineCurrent", {{"shape", {2, 3}}}), "expected [N]"));
        QVERIFY(contains(message("PoissonSource", {{"shape", {2.5}}}), "whole number"));
        QVERIFY(contains(message("RegularSpikeTrain", {{"shape", {2}}, {"rate", 3}}),
                         "'rate': unknown key"));
        QVERIFY(contains(message("FileSource", {{"shape", {5}}}), "expected [T, N]"));
        QVERIFY(contains(message("FileSource", {{"shape", {100000, 100000}}}), "tensor limit"));
        QVERIFY_THROWS_EXCEPTION(Error, ConstantCurrent(0));
        QVERIFY_THROWS_EXCEPTION(Error, FileSource(Tensor(Shape{4})));
    }

    void zeroChannelInputWorksEndToEnd()
    {
        ConstantCurrent src(2, {{"amplitude", Tensor::scalar(0.75F)}});
        const auto r = src.evolve(noInput(5), RecordSpec(true));
        QCOMPARE(r.output.shape(), (Shape{5, 2}));
        QCOMPARE(r.record.at("").at("output").data.shape(), (Shape{5, 2}));
        QVERIFY(!r.record.at("").at("output").spikes);
        QCOMPARE(r.record.at("").at("output").tStart, 0.0);
        QCOMPARE(src.stepsElapsed(), std::int64_t{5});
        const auto b = src.evolve(noInput(4, 3), RecordSpec(true));
        QCOMPARE(b.output.shape(), (Shape{3, 4, 2}));
        QCOMPARE(b.record.at("").at("output").data.shape(), (Shape{3, 4, 2}));
        QCOMPARE(b.record.at("").at("output").tStart, 5 * 1e-3);  // steps x the decimal dt
        // Hooks see the zero-channel input too.
        int calls = 0;
        auto handle =
            src.registerForwardPreHook([&](Module&, const Tensor& in) -> std::optional<Tensor> {
                ++calls;
                return in;
            });
        QCOMPARE(src.evolve(noInput(3)).output.shape(), (Shape{3, 2}));
        QCOMPARE(calls, 1);
        handle.remove();
        // Wrong channel counts and empty inputs are refused.
        QVERIFY_THROWS_EXCEPTION(Error, src.evolve(Tensor(Shape{4, 1})));
        try {
            src.evolve(noInput(0));
            QFAIL("zero steps accepted");
        } catch (const Error& e) {
            QVERIFY(contains(e.what(), "empty"));
        }
    }

    void constantCurrent()
    {
        ConstantCurrent scalar(3, {{"amplitude", Tensor::scalar(-0.5F)}});
        const Tensor out = scalar.evolve(noInput(10, 2)).output;
        for (std::int64_t i = 0; i < out.numel(); ++i) {
            QCOMPARE(out[i], -0.5F);
        }
        ConstantCurrent perChannel(3, {{"amplitude", vec({1.0F, 2.0F, 3.0F})}});
        const Tensor p = perChannel.evolve(noInput(4)).output;
        for (std::int64_t t = 0; t < 4; ++t) {
            for (std::int64_t c = 0; c < 3; ++c) {
                QCOMPARE(at(p, t, c), static_cast<float>(c + 1));
            }
        }
        // Live change: takes effect at the next step.
        QVERIFY(perChannel.setAttribute("amplitude", Tensor::scalar(7.0F)).ok);
        QCOMPARE(perChannel.evolve(noInput(1)).output[2], 7.0F);
    }

    void pulseTrainEdgesFallOnExactSteps()
    {
        // 1 ms steps: pulses of 5 steps starting at step 10, every 20 steps.
        PulseTrain train(1, {{"onset", Tensor::scalar(0.01F)},
                             {"duration", Tensor::scalar(0.005F)},
                             {"period", Tensor::scalar(0.02F)},
                             {"amplitude", Tensor::scalar(3.0F)},
                             {"baseline", Tensor::scalar(0.5F)}});
        const Tensor out = train.evolve(noInput(100)).output;
        for (std::int64_t k = 0; k < 100; ++k) {
            const bool on = k >= 10 && (k - 10) % 20 < 5;
            QCOMPARE(out[k], on ? 3.5F : 0.5F);
        }

        // A single pulse (period 0), a step (duration 0 and period 0), duration 0 with a period
        // (on from onset), a width shorter than a step (one step), per-channel onsets.
        PulseTrain shapes(4, {{"onset", vec({0.002F, 0.003F, 0.0F, 0.0071F})},
                              {"duration", vec({0.004F, 0.0F, 0.0F, 0.0002F})},
                              {"period", vec({0.0F, 0.0F, 0.01F, 0.0F})}});
        const Tensor s = shapes.evolve(noInput(30)).output;
        QCOMPARE(spikeSteps(s, 0), (std::vector<std::int64_t>{2, 3, 4, 5}));
        std::vector<std::int64_t> step;
        for (std::int64_t k = 3; k < 30; ++k) {
            step.push_back(k);
        }
        QCOMPARE(spikeSteps(s, 1), step);
        QCOMPARE(spikeSteps(s, 2).size(), std::size_t{30});
        QCOMPARE(spikeSteps(s, 3), (std::vector<std::int64_t>{7}));
        QCOMPARE(at(s, 2, 0), 1.0F);  // default amplitude 1, baseline 0

        // dt changes move the edges with it: at 0.5 ms the same times are twice as many steps.
        QVERIFY(train.setAttribute("dt", Tensor::scalar(0.5e-3F)).ok);
        train.resetState();
        const Tensor fine = train.evolve(noInput(100)).output;
        for (std::int64_t k = 0; k < 100; ++k) {
            const bool on = k >= 20 && (k - 20) % 40 < 10;
            QCOMPARE(fine[k], on ? 3.5F : 0.5F);
        }
    }

    void sineMatchesStdSin()
    {
        const float dt = 1e-4F;
        SineCurrent sine(3, {{"dt", Tensor::scalar(dt)},
                             {"frequency", vec({1.0F, 50.0F, 333.0F})},
                             {"phase", vec({0.0F, 1.0F, -2.5F})},
                             {"amplitude", vec({1.0F, 2.0F, 0.5F})},
                             {"offset", vec({0.0F, -1.0F, 4.0F})}});
        const Tensor out = evolveInChunks(sine, {1000, 1, 2999, 6000});
        const double freqs[3] = {1.0, 50.0, 333.0};
        const double phases[3] = {0.0, 1.0, static_cast<double>(-2.5F)};  // as stored
        const double amps[3] = {1.0, 2.0, 0.5};
        const double offsets[3] = {0.0, -1.0, 4.0};
        double worst = 0.0;
        for (std::int64_t k = 0; k < out.dim(0); ++k) {
            for (int c = 0; c < 3; ++c) {
                const double t = static_cast<double>(k) * static_cast<double>(dt);
                const double expected =
                    offsets[c] + amps[c] * std::sin(2.0 * M_PI * freqs[c] * t + phases[c]);
                worst = std::max(worst, std::abs(expected - static_cast<double>(at(out, k, c))));
            }
        }
        QVERIFY2(worst < 1e-6, std::to_string(worst).c_str());
    }

    void poissonRateSeedAndBatches()
    {
        const std::int64_t n = 200;
        const std::int64_t steps = 5000;
        PoissonSource p(n, {{"rate", Tensor::scalar(50.0F)}, {"seed", Tensor::scalar(1.0F)}});
        const Tensor out = p.evolve(noInput(steps)).output;
        double count = 0.0;
        for (std::int64_t i = 0; i < out.numel(); ++i) {
            QVERIFY(out[i] == 0.0F || out[i] == 1.0F);
            count += out[i];
        }
        const double prob = 50.0 * static_cast<double>(1e-3F);
        const double draws = static_cast<double>(n * steps);
        const double sigma = std::sqrt(draws * prob * (1.0 - prob));
        QVERIFY2(std::abs(count - draws * prob) < 4.0 * sigma,
                 (std::to_string(count) + " spikes, expected " + std::to_string(draws * prob))
                     .c_str());
        // Every channel fires at its own rate.
        for (std::int64_t c = 0; c < n; c += 37) {
            const double own = static_cast<double>(spikeSteps(out, c).size());
            QVERIFY(std::abs(own - steps * prob) < 4.0 * std::sqrt(steps * prob * (1.0 - prob)));
        }

        // Same seed: same spikes; resetState: same again; another seed: different.
        PoissonSource same(n, {{"rate", Tensor::scalar(50.0F)}, {"seed", Tensor::scalar(1.0F)}});
        QVERIFY(same.evolve(noInput(steps)).output.identical(out));
        p.resetState();
        QVERIFY(p.evolve(noInput(steps)).output.identical(out));
        PoissonSource other(n, {{"rate", Tensor::scalar(50.0F)}, {"seed", Tensor::scalar(2.0F)}});
        QVERIFY(!other.evolve(noInput(steps)).output.identical(out));
        // Changing the seed restarts the generator from the new seed at once.
        QVERIFY(other.setAttribute("seed", Tensor::scalar(1.0F)).ok);
        QVERIFY(other.evolve(noInput(steps)).output.identical(out));

        // Per-channel rates: silent, certain, in between.
        PoissonSource mixed(3, {{"rate", vec({0.0F, 1000.0F, 100.0F})}});
        const Tensor m = mixed.evolve(noInput(2000)).output;
        QVERIFY(spikeSteps(m, 0).empty());
        QCOMPARE(spikeSteps(m, 1).size(), std::size_t{2000});
        QVERIFY(!spikeSteps(m, 2).empty() && spikeSteps(m, 2).size() < 400);

        // Batches: each element draws its own spikes; element 0 of a batch equals an unbatched
        // run from the same seed (the stream continues into element 1, 2, ...).
        const AttributeMap settings{{"rate", Tensor::scalar(100.0F)},
                                    {"seed", Tensor::scalar(4.0F)}};
        PoissonSource batched(20, settings);
        const Tensor b = batched.evolve(noInput(300, 3)).output;
        const auto element = [&](std::int64_t e) {
            const float* begin = b.data() + e * 6000;
            return Tensor(Shape{300, 20}, std::vector<float>(begin, begin + 6000));
        };
        QVERIFY(!element(0).identical(element(1)));
        QVERIFY(!element(1).identical(element(2)));
        PoissonSource single(20, settings);
        QVERIFY(single.evolve(noInput(300)).output.identical(element(0)));
        QVERIFY(single.evolve(noInput(300)).output.identical(element(1)));
    }

    void regularSpikeTrainExactSteps()
    {
        RegularSpikeTrain train(4, {{"rate", vec({100.0F, 100.0F, 300.0F, 0.0F})},
                                    {"onset", vec({0.0F, 0.0049F, 0.001F, 0.0F})}});
        const Tensor out = train.evolve(noInput(3000)).output;
        std::vector<std::int64_t> every10;
        std::vector<std::int64_t> from5;
        for (std::int64_t k = 0; k < 3000; k += 10) {
            every10.push_back(k);
            from5.push_back(k + 5);
        }
        QCOMPARE(spikeSteps(out, 0), every10);
        QCOMPARE(spikeSteps(out, 1), from5);
        // 300 Hz at 1 ms: P = 10/3 steps; spikes at 1 + ceil(n * 10 / 3).
        std::vector<std::int64_t> third;
        for (std::int64_t n = 0; 1 + (10 * n + 2) / 3 < 3000; ++n) {
            third.push_back(1 + (10 * n + 2) / 3);
        }
        QCOMPARE(spikeSteps(out, 2), third);
        QVERIFY(spikeSteps(out, 3).empty());

        // Exact in the long run: 100 Hz at 1 ms keeps exactly one spike every 10 steps.
        RegularSpikeTrain longRun(1, {{"rate", Tensor::scalar(100.0F)}});
        (void)longRun.evolve(noInput(1000000));
        const Tensor late = longRun.evolve(noInput(100)).output;
        QCOMPARE(spikeSteps(late, 0),
                 (std::vector<std::int64_t>{0, 10, 20, 30, 40, 50, 60, 70, 80, 90}));
        // 1000 Hz at 1 ms (rate × dt = 1 up to float32 rounding) fires every step.
        RegularSpikeTrain everyStep(1, {{"rate", Tensor::scalar(1000.0F)}});
        QCOMPARE(spikeSteps(everyStep.evolve(noInput(50)).output, 0).size(), std::size_t{50});
    }

    void fileSourcePlaysRows()
    {
        Tensor data(Shape{5, 2});
        for (std::int64_t i = 0; i < data.numel(); ++i) {
            data[i] = static_cast<float>(i + 1);
        }
        FileSource once(data);
        QCOMPARE(once.length(), std::int64_t{5});
        const Tensor a = once.evolve(noInput(12)).output;
        for (std::int64_t k = 0; k < 12; ++k) {
            for (std::int64_t c = 0; c < 2; ++c) {
                QCOMPARE(at(a, k, c), k < 5 ? data[k * 2 + c] : 0.0F);
            }
        }
        FileSource looping(data, true);
        const Tensor l = evolveInChunks(looping, {3, 4, 6});
        for (std::int64_t k = 0; k < 13; ++k) {
            for (std::int64_t c = 0; c < 2; ++c) {
                QCOMPARE(at(l, k, c), data[(k % 5) * 2 + c]);
            }
        }
        // Switching loop on live resumes the file where the clock stands.
        QVERIFY(once.setAttribute("loop", Tensor::scalar(1.0F)).ok);
        QCOMPARE(at(once.evolve(noInput(1)).output, 0, 1), data[(12 % 5) * 2 + 1]);
        // resetState restarts playback.
        once.resetState();
        QCOMPARE(at(once.evolve(noInput(1)).output, 0, 0), data[0]);

        // Loaded from a .npy file.
        QTemporaryDir dir;
        const std::string path = dir.filePath("stim.npy").toStdString();
        npy::save(path, data);
        auto loaded = FileSource::fromNpy(path);
        QVERIFY(loaded->tensor("data").identical(data));
        QVERIFY(loaded->evolve(noInput(12)).output.identical(a));
        npy::save(path, Tensor(Shape{3}));
        try {
            (void)FileSource::fromNpy(path);
            QFAIL("a 1-D array was accepted");
        } catch (const Error& e) {
            QVERIFY(contains(e.what(), path));
            QVERIFY(contains(e.what(), "(T, N)"));
        }
    }

    void chunkedEvolutionIsBitIdentical()
    {
        for (const auto& type : sourceTypes()) {
            auto whole = makeSource(type);
            auto chunked = makeSource(type);
            const Tensor once = whole->evolve(noInput(100)).output;
            const Tensor pieces = evolveInChunks(*chunked, {7, 30, 1, 62});
            QVERIFY2(once.identical(pieces), type.c_str());
            // Batched, every element equals the unbatched output (Poisson aside: its elements
            // continue one stream).
            whole->resetState();
            const Tensor b = whole->evolve(noInput(100, 2)).output;
            const Tensor first(Shape{100, 3}, std::vector<float>(b.data(), b.data() + 300));
            QVERIFY2(first.identical(once), type.c_str());
            const Tensor second(Shape{100, 3}, std::vector<float>(b.data() + 300, b.data() + 600));
            QVERIFY2(second.identical(once) == (type != "PoissonSource"), type.c_str());
            // resetState restarts time (and generators).
            chunked->resetState();
            QVERIFY2(chunked->evolve(noInput(100)).output.identical(once), type.c_str());
        }
    }

    void sourceDrivesLifInSequential()
    {
        Sequential seq;
        seq.append(std::make_unique<PulseTrain>(
            4, AttributeMap{{"onset", Tensor::scalar(0.02F)},
                            {"duration", Tensor::scalar(0.0F)},
                            {"period", Tensor::scalar(0.0F)},
                            {"amplitude", Tensor::scalar(0.5F)}}));
        seq.append(std::make_unique<LIF>(4, 4));
        QCOMPARE(seq.sizeIn(), std::int64_t{0});
        QCOMPARE(seq.sizeOut(), std::int64_t{4});
        QVERIFY(seq.spikingOutput());
        QVERIFY(seq.timeStep() == 1e-3);
        const auto r = seq.evolve(noInput(200), RecordSpec(true));
        QCOMPARE(r.output.shape(), (Shape{200, 4}));
        const Tensor& drive = r.record.at("0").at("output").data;
        const Tensor& isyn = r.record.at("1").at("isyn").data;
        QCOMPARE(drive.shape(), (Shape{200, 4}));
        for (std::int64_t k = 0; k < 20; ++k) {
            for (std::int64_t c = 0; c < 4; ++c) {
                QCOMPARE(at(r.output, k, c), 0.0F);
                QCOMPARE(isyn[k * 4 + c], 0.0F);
            }
        }
        QVERIFY(isyn[20 * 4] > 0.0F);  // the LIF receives the step at its onset
        double spikes = 0.0;
        for (std::int64_t i = 0; i < r.output.numel(); ++i) {
            spikes += r.output[i];
        }
        QVERIFY(spikes > 0.0);
        // Chunked evolution of the whole chain equals one call.
        seq.resetState();
        std::vector<float> parts;
        for (const std::int64_t len : {50, 1, 149}) {
            const Tensor o = seq.evolve(noInput(len)).output;
            parts.insert(parts.end(), o.data(), o.data() + o.numel());
        }
        QVERIFY(Tensor(Shape{200, 4}, parts).identical(r.output));
        // A Poisson source feeds spikes into a LIF.
        Sequential poisson;
        poisson.append(std::make_unique<PoissonSource>(
            8, AttributeMap{{"rate", Tensor::scalar(400.0F)}}));
        poisson.append(std::make_unique<LIF>(8, 8));
        const auto pr = poisson.evolve(noInput(300),
                                       RecordSpec(std::set<std::string>{"0.output", "1.vmem"}));
        QVERIFY(pr.record.at("0").at("output").spikes);
        const Tensor& vmem = pr.record.at("1").at("vmem").data;
        QVERIFY(std::any_of(vmem.data(), vmem.data() + vmem.numel(),
                            [](float v) { return v != 0.0F; }));
    }

    void badValuesAreRejected()
    {
        PoissonSource p(2);
        const auto failsWith = [](Module& m, const std::string& name, const AttributeValue& v,
                                  const std::string& part) {
            const Tensor before = m.tensor(name);
            const Status s = m.setAttribute(name, v);
            if (s.ok || !contains(s.message, part) || !contains(s.message, name)) {
                qWarning("%s", s.message.c_str());
                return false;
            }
            return m.tensor(name).identical(before);
        };
        QVERIFY(failsWith(p, "rate", Tensor::scalar(-1.0F), ">= 0"));
        QVERIFY(failsWith(p, "rate", vec({10.0F, 2000.0F}), "rate × dt must be <= 1"));
        QVERIFY(!p.setAttribute("rate", vec({10.0F, 2000.0F})).message.empty());
        QVERIFY(contains(p.setAttribute("rate", vec({10.0F, 2000.0F})).message, "at channel 1"));
        QVERIFY(p.setAttribute("rate", Tensor::scalar(500.0F)).ok);
        // A time step that would make rate × dt > 1 is refused too, and nothing changes.
        const Status dtChange = p.setAttribute("dt", Tensor::scalar(0.01F));
        QVERIFY(!dtChange.ok);
        QVERIFY(contains(dtChange.message, "PoissonSource"));
        QCOMPARE(p.tensor("dt")[0], 1e-3F);
        QVERIFY(failsWith(p, "seed", Tensor::scalar(1.5F), "whole numbers"));
        QVERIFY_THROWS_EXCEPTION(Error, PoissonSource(1, {{"rate", Tensor::scalar(5000.0F)}}));

        RegularSpikeTrain r(1);
        QVERIFY(failsWith(r, "rate", Tensor::scalar(-5.0F), ">= 0"));
        QVERIFY(failsWith(r, "rate", Tensor::scalar(1500.0F), "rate × dt must be <= 1"));
        QVERIFY(failsWith(r, "onset", Tensor::scalar(-0.1F), ">= 0"));

        ConstantCurrent c(3);
        QVERIFY(failsWith(c, "amplitude", Tensor::scalar(std::nanf("")), "finite"));
        QVERIFY(failsWith(c, "amplitude", vec({1.0F, 2.0F}), "expected shape"));
        PulseTrain pulse(1);
        QVERIFY(failsWith(pulse, "period", Tensor::scalar(-0.01F), ">= 0"));
        QVERIFY(failsWith(pulse, "duration", Tensor::scalar(-0.01F), ">= 0"));
        QVERIFY(failsWith(pulse, "dt", Tensor::scalar(0.0F), "> 0"));
        SineCurrent sine(1);
        QVERIFY(failsWith(sine, "frequency", Tensor::scalar(-1.0F), ">= 0"));
        QVERIFY(failsWith(sine, "amplitude", Tensor::scalar(INFINITY), "finite"));
        FileSource f(Tensor(Shape{3, 2}));
        QVERIFY(failsWith(f, "loop", Tensor::scalar(2.0F), "0 or 1"));
        QVERIFY(failsWith(f, "data", Tensor(Shape{4, 2}), "expected shape (3, 2)"));
    }

    void modelFileRoundTripIsBitExact()
    {
        QTemporaryDir dir;
        for (const auto& type : sourceTypes()) {
            auto original = makeSource(type);
            (void)original->evolve(noInput(13));
            const std::string path =
                dir.filePath(QString::fromStdString(type) + ".json").toStdString();
            saveModel(path, *original, SaveOptions{-1});
            auto loaded = loadModel(path);
            QCOMPARE(loaded->className(), type);
            QCOMPARE(loaded->config(), original->config());
            const auto a = original->attributes();
            const auto b = loaded->attributes();
            QCOMPARE(a.size(), b.size());
            for (std::size_t i = 0; i < a.size(); ++i) {
                QCOMPARE(a[i].spec->name, b[i].spec->name);
                QVERIFY2(std::get<Tensor>(*a[i].value).identical(std::get<Tensor>(*b[i].value)),
                         (type + "." + a[i].spec->name).c_str());
            }
            original->resetState();
            const Tensor expected = original->evolve(noInput(60)).output;
            QVERIFY2(loaded->evolve(noInput(60)).output.identical(expected), type.c_str());
        }

        // A large FileSource's data goes to a .npy file beside the model and comes back exactly.
        Tensor big(Shape{2500, 4});
        Random rng(3);
        for (std::int64_t i = 0; i < big.numel(); ++i) {
            big[i] = static_cast<float>(rng.normal());
        }
        Sequential seq;
        seq.append(std::make_unique<FileSource>(big, true));
        seq.append(std::make_unique<LIF>(4, 2));
        const std::string path = dir.filePath("stim.json").toStdString();
        saveModel(path, seq);
        const std::string npyPath = dir.filePath("stim.arrays/0.data.npy").toStdString();
        QVERIFY(fs::exists(npyPath));
        QVERIFY(npy::load(npyPath).identical(big));
        auto loaded = loadModel(path);
        QVERIFY(loaded->getSubmodule("0").tensor("data").identical(big));
        QVERIFY(seq.evolve(noInput(3000)).output.identical(loaded->evolve(noInput(3000)).output));
    }

    void modelFilesWrittenByHand()
    {
        // As spikesim loads them: a Poisson source driving a LIF, and a file source playing a
        // .npy file named relative to the model file.
        QTemporaryDir dir;
        const std::string path = dir.filePath("poisson.json").toStdString();
        writeText(path, R"({
  "format": "spikestudio.model",
  "version": 1,
  "model": {
    "type": "Sequential",
    "children": [
      {"type": "PoissonSource", "config": {"shape": [20]},
       "attributes": {"rate": 40, "seed": 3, "dt": 0.001}},
      {"type": "LIF", "config": {"shape": [20, 20]}, "attributes": {"tau_syn": 0.01}}
    ]
  }
})");
        auto model = loadModel(path);
        QCOMPARE(model->sizeIn(), std::int64_t{0});
        const auto r = model->evolve(noInput(500), RecordSpec(std::set<std::string>{"0.output"}));
        Sequential built;
        built.append(std::make_unique<PoissonSource>(
            20, AttributeMap{{"rate", Tensor::scalar(40.0F)}, {"seed", Tensor::scalar(3.0F)}}));
        built.append(std::make_unique<LIF>(20, 20, false,
                                           AttributeMap{{"tau_syn", Tensor::scalar(0.01F)}}));
        QVERIFY(built.evolve(noInput(500)).output.identical(r.output));
        QVERIFY(r.record.at("0").at("output").data.flat().sum() > 0.0F);
        QCOMPARE(r.record.size(), std::size_t{1});  // only what was asked for

        Tensor stim(Shape{6, 2});
        for (std::int64_t i = 0; i < stim.numel(); ++i) {
            stim[i] = static_cast<float>(i);
        }
        fs::create_directories(dir.filePath("data").toStdString());
        npy::save(dir.filePath("data/stimulus.npy").toStdString(), stim);
        const std::string filePath = dir.filePath("file.json").toStdString();
        writeText(filePath, R"({"format": "spikestudio.model", "version": 1,
  "model": {"type": "FileSource", "config": {"shape": [6, 2]},
            "attributes": {"data": {"npy": "data/stimulus.npy"}, "loop": true}}})");
        auto file = loadModel(filePath);
        const Tensor out = file->evolve(noInput(9)).output;
        for (std::int64_t k = 0; k < 9; ++k) {
            QCOMPARE(at(out, k, 1), stim[(k % 6) * 2 + 1]);
        }
        // A file whose array does not match the config's shape is refused, naming the attribute.
        writeText(filePath, R"({"format": "spikestudio.model", "version": 1,
  "model": {"type": "FileSource", "config": {"shape": [5, 2]},
            "attributes": {"data": {"npy": "data/stimulus.npy"}}}})");
        try {
            (void)loadModel(filePath);
            QFAIL("a mismatched array was accepted");
        } catch (const Error& e) {
            QVERIFY2(contains(e.what(), "/model/attributes/data"), e.what());
            QVERIFY2(contains(e.what(), "expected shape (5, 2), got (6, 2)"), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestSources)
#include "test_sources.moc"
