// Model files: JSON save/load round-trips bit-exactly (inline and .npy arrays), the documented
// value encodings load, extra top-level data passes through, state-dict folders load strictly,
// and every malformed file in tests/data/corpus fails with its own specific message naming the
// file and JSON path. cloneModule() equals the file round trip on every bundled example.
#include "tests/module_compare.hpp"
#include "engine/neurons/lif.hpp"
#include "engine/io/model_clone.hpp"
#include "engine/io/model_io.hpp"
#include "engine/io/module_factory.hpp"
#include "engine/tensor/npy.hpp"
#include "engine/layers/sequential.hpp"
#include "engine/network/projections.hpp"

#include <QtTest/QtTest>

#include <limits>
#include <unistd.h>

#include <QTemporaryDir>

#include <filesystem>
#include <fstream>

using namespace spike::engine;  // NOLINT: test file
namespace fs = std::filesystem;
using spike::tests::compareTrees;

namespace {

std::string corpusDir()
{
    return std::string(SPIKE_TEST_DATA_DIR) + "/corpus";
}

std::string readText(const std::string& path)
{
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void writeText(const std::string& path, const std::string& text)
{
    std::ofstream(path) << text;
}

/// A tree with random per-neuron values everywhere, in two leak modes, with state.
std::unique_ptr<Sequential> randomModel(std::uint64_t seed)
{
    Random rng(seed);
    const auto randomTensor = [&](Shape s, double lo, double hi) {
        Tensor t(s);
        for (std::int64_t i = 0; i < t.numel(); ++i) {
            t[i] = static_cast<float>(rng.uniform(lo, hi));
        }
        return t;
    };
    auto root = std::make_unique<Sequential>();
    root->append(std::make_unique<LIF>(
        12, 6, true,
        AttributeMap{{"tau_mem", randomTensor(Shape{6}, 0.01, 0.05)},
                     {"tau_syn", randomTensor(Shape{6, 2}, 0.002, 0.02)},
                     {"bias", randomTensor(Shape{6}, -0.01, 0.03)},
                     {"threshold", randomTensor(Shape{6}, 0.5, 1.5)},
                     {"seed", Tensor::scalar(static_cast<float>(seed))}}));
    root->append(std::make_unique<LIF>(
        6, 6, false,
        AttributeMap{{"leak_mode", std::string("decays")},
                     {"alpha", randomTensor(Shape{6}, 0.8, 0.99)},
                     {"beta", Tensor::scalar(0.7F)},
                     {"surrogate", std::string("StepPWL")}}));
    Tensor x(Shape{50, 12});
    for (std::int64_t i = 0; i < x.numel(); ++i) {
        x[i] = rng.uniform() < 0.2 ? 0.5F : 0.0F;
    }
    root->evolve(x);  // non-trivial state, saved too
    return root;
}

}  // namespace

class TestModelIo : public QObject {
    Q_OBJECT

private slots:
    void registryCarriesTheHeaderEquations()
    {
        // The update equations shown for a type are exactly the comment block at the top of its
        // header (extracted by the build), and every neuron model and source has them.
        const std::string engineDir = std::string(SPIKE_TEST_DATA_DIR) + "/../../engine/";
        for (const auto& info : spike::engine::moduleTypes()) {
            const std::string text = spike::engine::moduleEquations(info.type);
            if (info.category == "neurons" || info.category == "sources" || info.category == "projections") {
                QVERIFY2(!info.header.empty() && !text.empty(), info.type.c_str());
                std::ifstream file(engineDir + info.header);
                QVERIFY2(file.good(), info.header.c_str());
                std::string expected;
                std::string line;
                while (std::getline(file, line) && line.rfind("//", 0) == 0) {
                    const std::size_t skip = line.size() > 2 && line[2] == ' ' ? 3 : 2;
                    expected += line.substr(skip) + "\n";
                }
                QCOMPARE(text, expected);
            } else {
                QVERIFY2(text.empty(), info.type.c_str());
            }
        }
        QVERIFY(spike::engine::moduleEquations("LIF").find("vmem   = vmem * alpha") != std::string::npos);
        QVERIFY(spike::engine::moduleEquations("CUBALIF").find("dv/dt") != std::string::npos);
        QVERIFY(spike::engine::moduleEquations("nope").empty());
    }

    void loadingAndCopyingDrawNoSynapses()
    {
        // The GUI thread loads models and copies them for runs: a 10^7-synapse projection must
        // not be drawn there. The first use draws exactly what the settings give.
        using spike::engine::SparseProjection;
        const nlohmann::json text{
            {"format", "spikestudio.model"}, {"version", 1},
            {"model", {{"type", "SparseProjection"}, {"config", {{"shape", {10000, 10000}}}},
                       {"attributes", {{"rule", "in_degree"}, {"in_degree", 1000}, {"seed", 3}}}}}};
        QTemporaryDir dir;
        const std::string path = dir.filePath("sparse.json").toStdString();
        std::ofstream(path) << text.dump();
        const auto loaded = loadModel(path);
        const auto& sparse = dynamic_cast<const SparseProjection&>(*loaded);
        QVERIFY(!sparse.synapsesDrawn());
        const auto copy = cloneModule(*loaded);
        const auto& copied = dynamic_cast<const SparseProjection&>(*copy);
        QVERIFY(!copied.synapsesDrawn());
        QCOMPARE(copied.synapseCount(), std::int64_t{10000000});
        QVERIFY(copied.synapsesDrawn());
        QVERIFY(!sparse.synapsesDrawn());
        QVERIFY(copied.rowStart() == sparse.rowStart() && copied.targets() == sparse.targets());
        // A new seed: nothing drawn until asked, then other synapses.
        const std::vector<std::int32_t> before = copied.targets();
        QVERIFY(copy->setAttributes({{"", {{"seed", Tensor::scalar(4.0F)}}}}).ok);
        QVERIFY(!copied.synapsesDrawn());
        QVERIFY(copied.targets() != before);
    }

    void inlineRoundTripIsBitExact()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("model.json").toStdString();
        auto model = randomModel(5);
        saveModel(path, *model, SaveOptions{-1});
        QVERIFY(!fs::exists(dir.filePath("model.arrays").toStdString()));
        auto loaded = loadModel(path);
        compareTrees(*model, *loaded);
        // Saving the loaded model writes the same bytes.
        const std::string again = dir.filePath("again.json").toStdString();
        saveModel(again, *loaded, SaveOptions{-1});
        QCOMPARE(readText(again), readText(path));
        // And it behaves identically.
        Tensor x(Shape{40, 12}, 0.3F);
        QVERIFY(model->evolve(x).output.identical(loaded->evolve(x).output));
    }

    void largeArraysGoToNpyFiles()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("net.json").toStdString();
        auto model = randomModel(8);
        saveModel(path, *model, SaveOptions{8});
        const std::string w = dir.filePath("net.arrays/0.w_rec.npy").toStdString();
        QVERIFY(fs::exists(w));
        QVERIFY(npy::load(w).identical(model->getSubmodule("0").tensor("w_rec")));
        const auto doc = nlohmann::json::parse(readText(path));
        QCOMPARE(doc["model"]["children"][0]["attributes"]["w_rec"]["npy"].get<std::string>(),
                 std::string("net.arrays/0.w_rec.npy"));
        compareTrees(*model, *loadModel(path));
        // The folder moves with the model: references are relative.
        const std::string moved = dir.filePath("moved").toStdString();
        fs::create_directories(moved);
        fs::copy(path, moved + "/net.json");
        fs::copy(dir.filePath("net.arrays").toStdString(), moved + "/net.arrays");
        compareTrees(*model, *loadModel(moved + "/net.json"));

        // Temporaries of a save that was killed mid-write (their process is gone) are removed
        // by the next save; another file, or one of a living process, is left alone.
        const std::string arrays = dir.filePath("net.arrays/").toStdString();
        const std::string dead = std::to_string(std::numeric_limits<int>::max());  // > pid_max
        const std::string living = std::to_string(::getppid());
        for (const std::string& f : {arrays + "0.w_rec.npy.tmp-" + dead, path + ".tmp-" + dead,
                                     arrays + "0.w_rec.npy.tmp-" + living, arrays + "notes.txt"}) {
            writeText(f, "x");
        }
        saveModel(path, *model, SaveOptions{8});
        QVERIFY(!fs::exists(arrays + "0.w_rec.npy.tmp-" + dead));
        QVERIFY(!fs::exists(path + ".tmp-" + dead));
        QVERIFY(fs::exists(arrays + "0.w_rec.npy.tmp-" + living));
        QVERIFY(fs::exists(arrays + "notes.txt"));
        compareTrees(*model, *loadModel(path));
    }

    void documentedValueEncodingsLoad()
    {
        QTemporaryDir dir;
        const Tensor w(Shape{2, 4}, std::vector<float>{0.1F, -0.2F, 0.3F, -0.4F, 0.5F, 0.6F, 0.7F, 0.8F});
        npy::save(dir.filePath("w.npy").toStdString(), w);
        const std::string path = dir.filePath("m.json").toStdString();
        writeText(path, R"({"format": "spikestudio.model", "version": 1,
          "layout": {"nodes": {"0": [10, 20]}},
          "model": {"type": "LIF", "config": {"shape": [4, 2], "has_rec": true},
            "attributes": {"tau_mem": 0.03, "tau_syn": [[0.01, 0.02], [0.03, 0.04]],
                           "bias": {"shape": [1], "data": [0.5]}, "threshold": [1, 2],
                           "w_rec": {"npy": "w.npy"}, "leak_mode": "taus"}}})");
        const auto doc = loadModelDocument(path);
        const Module& m = *doc.root;
        QCOMPARE(m.tensor("tau_mem").shape(), Shape{});
        QCOMPARE(m.tensor("tau_syn").shape(), (Shape{2, 2}));
        QCOMPARE(m.tensor("tau_syn")[3], 0.04F);
        QCOMPARE(m.tensor("bias").shape(), Shape{1});
        QCOMPARE(m.tensor("threshold")[1], 2.0F);
        QVERIFY(m.tensor("w_rec").identical(w));
        QCOMPARE(doc.extras["layout"]["nodes"]["0"][1].get<int>(), 20);
        // Extras are written back unchanged.
        saveModel(dir.filePath("out.json").toStdString(), m, {}, doc.extras);
        QCOMPARE(loadModelDocument(dir.filePath("out.json").toStdString()).extras, doc.extras);
    }

    void malformedCorpusGivesSpecificMessages()
    {
        const auto expected = nlohmann::json::parse(readText(corpusDir() + "/expected.json"));
        int checked = 0;
        for (const auto& entry : fs::directory_iterator(corpusDir())) {
            const std::string name = entry.path().filename().string();
            if (name == "expected.json") {
                continue;
            }
            QVERIFY2(expected.contains(name), ("corpus file without expectation: " + name).c_str());
        }
        for (const auto& [file, needle] : expected.items()) {
            const std::string path = corpusDir() + "/" + file;
            try {
                loadModel(path);
                QFAIL(("loaded a malformed file: " + file).c_str());
            } catch (const Error& e) {
                const std::string msg = e.what();
                QVERIFY2(msg.rfind(path + ": ", 0) == 0, ("message must start with the path: " + msg).c_str());
                QVERIFY2(msg.find(needle.get<std::string>()) != std::string::npos,
                         (file + " gave: " + msg).c_str());
                QVERIFY2(msg.find('\n') == std::string::npos, msg.c_str());
            }
            ++checked;
        }
        QVERIFY(checked >= 25);
    }

    void deeplyNestedModulesAreRefused()
    {
        // A file of Sequentials inside one another 20000 deep once overflowed the loader's stack
        // (spikesim and the editor crashed on opening it): refused now at the first module too
        // deep, with its pointer, while kMaxModuleDepth levels still load and run.
        const auto nested = [](int levels) {
            nlohmann::json m = {{"type", "LIF"}, {"config", {{"shape", {2, 2}}}}};
            for (int k = 0; k < levels; ++k) {
                m = {{"type", "Sequential"}, {"children", nlohmann::json::array({std::move(m)})}};
            }
            return nlohmann::json{{"format", "spikestudio.model"}, {"version", 1}, {"model", std::move(m)}};
        };
        std::string deepest = "/model";
        for (int k = 0; k <= kMaxModuleDepth; ++k) {
            deepest += "/children/0";
        }
        try {
            modelFromJson(nested(20000), "deep.json", ".");
            QFAIL("loaded 20000 nested modules");
        } catch (const Error& e) {
            const std::string msg = e.what();
            QVERIFY2(msg.rfind("deep.json: " + deepest + ": modules nested more than 256 levels deep", 0) == 0,
                     msg.substr(0, 400).c_str());
        }
        const ModelDocument ok = modelFromJson(nested(kMaxModuleDepth), "ok.json", ".");
        const auto modules = ok.root->namedModules();
        QCOMPARE(modules.size(), static_cast<std::size_t>(kMaxModuleDepth + 1));
        QCOMPARE(modules.back().second->className(), std::string("LIF"));
        const ModelDocument again = modelFromJson(modelToJson(*ok.root), "again.json", ".");
        compareTrees(*ok.root, *again.root);
    }

    void missingFileAndUnwritableTarget()
    {
        try {
            loadModel("/nonexistent/model.json");
            QFAIL("expected an error");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("/nonexistent/model.json: cannot open") == 0, e.what());
        }
        LIF lif(2, 2);
        QVERIFY_THROWS_EXCEPTION(Error, saveModel("/nonexistent/dir/m.json", lif));
    }

    void savingIsAtomic()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("m.json").toStdString();
        writeText(path, "previous contents");
        LIF lif(2, 2);
        saveModel(path, lif);
        QVERIFY(readText(path).find("spikestudio.model") != std::string::npos);
        for (const auto& e : fs::directory_iterator(dir.path().toStdString())) {
            QVERIFY2(e.path().filename().string().find(".tmp") == std::string::npos,
                     "temporary file left behind");
        }
    }

    void stateDictFolderLoadsStrictly()
    {
        QTemporaryDir dir;
        auto source = randomModel(3);
        const std::string folder = dir.filePath("weights").toStdString();
        saveStateDictFolder(folder, source->stateDict());
        QVERIFY(fs::exists(folder + "/0.w_rec.npy"));
        QVERIFY(fs::exists(folder + "/1.alpha.npy"));
        const StateDict dict = loadStateDictFolder(folder);
        QCOMPARE(dict.size(), source->stateDict().size());
        auto target = randomModel(4);
        QVERIFY(target->loadStateDict(dict, true).status.ok);
        QVERIFY(target->getSubmodule("0").tensor("w_rec").identical(source->getSubmodule("0").tensor("w_rec")));
        // An extra file is an unexpected key under strict loading.
        npy::save(folder + "/2.weight.npy", Tensor(Shape{2}));
        const auto r = target->loadStateDict(loadStateDictFolder(folder), true);
        QVERIFY(!r.status.ok);
        QCOMPARE(r.unexpectedKeys, std::vector<std::string>{"2.weight"});
        QVERIFY_THROWS_EXCEPTION(Error, loadStateDictFolder(dir.filePath("nothing").toStdString()));
    }

    void cloneEqualsTheFileRoundTrip()
    {
        const fs::path examples = fs::path(SPIKE_TEST_DATA_DIR) / ".." / ".." / "resources" / "examples";
        SaveOptions inlineAll;
        inlineAll.inlineLimit = -1;
        int seen = 0;
        for (const auto& entry : fs::directory_iterator(examples)) {
            if (entry.path().extension() != ".json") {
                continue;
            }
            ++seen;
            const std::string name = entry.path().filename().string();
            auto source = loadModel(entry.path().string());
            // Move the states off their initial values, so that a clone that re-initialised
            // them would differ.
            const std::int64_t nIn = source->sizeIn();
            if (source->className() != "DynamicsNetwork") {
                (void)source->evolve(Tensor(Shape{50, nIn}, 0.5F));
            }
            const auto clone = cloneModule(*source);
            const auto roundTrip = modelFromJson(modelToJson(*source, inlineAll), name, ".").root;
            compareTrees(*clone, *roundTrip);
            if (QTest::currentTestFailed()) {
                QFAIL(name.c_str());
            }
            compareTrees(*clone, *source);
            QVERIFY2(modelToJson(*clone, inlineAll) == modelToJson(*source, inlineAll), name.c_str());

            // The copy is independent: changing it leaves the source as it was.
            for (const auto& [path, module] : clone->namedModules()) {
                for (const AttributeView& view : module->attributes()) {
                    const auto* t = std::get_if<Tensor>(view.value);
                    if (view.derived || view.spec->kind != AttributeKind::State || t == nullptr ||
                        t->numel() == 0) {
                        continue;
                    }
                    const std::string attribute = view.spec->name;
                    const Tensor before = source->getSubmodule(path).tensor(attribute);
                    module->resetState();
                    QVERIFY(source->getSubmodule(path).tensor(attribute).identical(before));
                    break;
                }
            }
        }
        QCOMPARE(seen, 12);  // every file of resources/examples, fi_curve.json included
    }

    void bundledExampleLoads()
    {
        const std::string path = std::string(SPIKE_TEST_DATA_DIR) + "/../../resources/examples/two_layer_lif.json";
        auto model = loadModel(path);
        QCOMPARE(model->namedModules().size(), std::size_t{3});
        const auto r = model->evolve(Tensor(Shape{1000, model->sizeIn()}));
        QVERIFY(r.output.flat().sum() > 0.0F);
    }
};

QTEST_GUILESS_MAIN(TestModelIo)
#include "test_model_io.moc"
