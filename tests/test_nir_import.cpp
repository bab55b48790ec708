// NIR import and export (engine/nir): the five reference graphs written by the NIR library itself
// (tests/data/nir, copied from shared/reference/nir; its README gives the scheme) simulate as the
// recorded expectation says - spikes exactly, voltages within atol = rtol = 1e-4 - through the
// same run path as `spikesim run`; the malformed files give one message naming the file, node
// and what was expected; NIR -> JSON -> NIR keeps every array bit for bit, JSON -> NIR -> JSON
// simulates identically; the exporter lists what NIR cannot hold.
#include "engine/io/model_clone.hpp"
#include "engine/io/model_io.hpp"
#include "engine/io/module_factory.hpp"
#include "engine/network/network.hpp"
#include "engine/nir/nir_export.hpp"
#include "engine/nir/nir_file.hpp"
#include "engine/nir/nir_import.hpp"
#include "engine/runtime/headless_run.hpp"
#include "engine/tensor/npy.hpp"
#include "tests/nir_file_test_helpers.hpp"

#include <QtTest/QtTest>

#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <random>

using namespace spike::engine;  // NOLINT: test file

namespace {

const std::string kData = SPIKE_TEST_DATA_DIR "/nir/";

struct Case {
    std::string name;
    std::int64_t steps = 0;
    double dt = 0.0;
    std::map<std::string, std::string> expected;  ///< "node.signal" -> .npy file
    double outputSpikes = 0.0;
};

Case readCase(const std::string& name)
{
    std::ifstream in(kData + name + "/case.json");
    const auto j = nlohmann::json::parse(in);
    Case c;
    c.name = name;
    c.steps = j.at("steps").get<std::int64_t>();
    c.dt = j.at("dt").get<double>();
    for (const auto& [key, file] : j.at("expected").items()) {
        c.expected[key] = file.get<std::string>();
    }
    c.outputSpikes = j.at("output_spikes").get<double>();
    return c;
}

/// Runs `root` on `input` (T, N) for `steps` steps through HeadlessRun (spikesim's path) on the
/// CPU, recording each key "path.signal"; (steps, width) rows per key.
std::map<std::string, std::vector<float>> simulate(Module& root, const Tensor& input,
                                                   std::int64_t steps,
                                                   const std::vector<std::string>& keys)
{
    HeadlessRunOptions options;
    options.backend = BackendKind::Cpu;
    options.steps = steps;
    HeadlessRun run(root, options);
    std::vector<ProbeRequest> requests;
    for (const auto& key : keys) {
        const auto dot = key.rfind('.');
        requests.push_back({key.substr(0, dot), key.substr(dot + 1), {}});
    }
    run.record(requests);
    const HeadlessRunResult r = run.run(input.data(), steps);
    std::map<std::string, std::vector<float>> out;
    for (std::size_t k = 0; k < keys.size(); ++k) {
        out[keys[k]] = r.recordings[k];
    }
    return out;
}

std::vector<std::string> keysOf(const Case& c)
{
    std::vector<std::string> keys;
    for (const auto& [key, file] : c.expected) {
        keys.push_back(key);
    }
    return keys;
}

/// Every recording of `got` against the case's expected arrays (spiking outputs exactly).
void compareWithExpected(const Case& c, const std::map<std::string, std::vector<float>>& got)
{
    for (const auto& [key, file] : c.expected) {
        const Tensor want = npy::load(kData + c.name + "/" + file);
        const std::vector<float>& rows = got.at(key);
        QCOMPARE(static_cast<std::int64_t>(rows.size()), want.numel());
        for (std::int64_t i = 0; i < want.numel(); ++i) {
            const double w = want[i];
            const double g = rows[static_cast<std::size_t>(i)];
            if (std::fabs(g - w) > 1e-4 + 1e-4 * std::fabs(w)) {
                QFAIL(qPrintable(QString("%1 %2: element %3 (step %4) is %5, NIR's reference %6")
                                     .arg(QString::fromStdString(c.name), QString::fromStdString(key))
                                     .arg(i)
                                     .arg(i / (want.numel() / c.steps))
                                     .arg(g, 0, 'g', 9)
                                     .arg(w, 0, 'g', 9)));
            }
        }
    }
}

double total(const std::vector<float>& v)
{
    double s = 0.0;
    for (const float x : v) {
        s += x;
    }
    return s;
}

/// Whether `b` keeps every node, array (bit for bit) and edge of `a` (nir_file_test_helpers.hpp).
void compareGraphs(const nir::NirGraph& a, const nir::NirGraph& b, const std::string& where)
{
    const std::string d = spike::tests::diffKept(a, b, where);
    QVERIFY2(d.empty(), d.c_str());
}

}  // namespace

class TestNirImport : public QObject {
    Q_OBJECT

private slots:
    void referenceGraphsSimulateAsNir_data()
    {
        QTest::addColumn<QString>("name");
        for (const char* n : {"lif_affine", "cubalif_linear", "recurrent_lif", "nested_li",
                              "conv_if_pool"}) {
            QTest::newRow(n) << QString(n);
        }
    }

    void referenceGraphsSimulateAsNir()
    {
        QFETCH(QString, name);
        const Case c = readCase(name.toStdString());
        nir::NirImportOptions options;
        options.dt = c.dt;
        const nir::NirImport imported = nir::loadNir(kData + c.name + "/model.nir", options);
        QVERIFY(imported.root != nullptr);
        const Tensor input = npy::load(kData + c.name + "/input.npy");
        QCOMPARE(input.dim(1), imported.root->sizeIn());
        const auto got = simulate(*imported.root, input, c.steps, keysOf(c));
        compareWithExpected(c, got);
        // output_spikes counts spikes where the output is spiking (nested_li's is LI's v).
        const Tensor out = npy::load(kData + c.name + "/expected_output_output.npy");
        const bool spiking = std::all_of(out.data(), out.data() + out.numel(),
                                         [](float v) { return v == 0.0F || v == 1.0F; });
        if (spiking) {
            QCOMPARE(total(got.at("output.output")), c.outputSpikes);
        }
    }

    void nestedGraphsBecomeNestedNetworks()
    {
        const nir::NirImport imported = nir::loadNir(kData + "nested_li/model.nir");
        const Module& sub = imported.root->getSubmodule("sub");
        QCOMPARE(QString::fromStdString(sub.className()), QString("Network"));
        QCOMPARE(QString::fromStdString(sub.getSubmodule("li").className()), QString("LI"));
        QCOMPARE(QString::fromStdString(imported.root->getSubmodule("fc").className()),
                 QString("Linear"));
    }

    void recurrentEdgeDeliversThePreviousStep()
    {
        const nir::NirImport imported = nir::loadNir(kData + "recurrent_lif/model.nir");
        const auto& net = dynamic_cast<const Network&>(*imported.root);
        int delayed = 0;
        for (const auto& c : net.connections()) {
            if (c.delayed) {
                ++delayed;
                QCOMPARE(QString::fromStdString(c.from.node), QString("fc_rec"));
                QCOMPARE(QString::fromStdString(c.to.node), QString("lif"));
            }
        }
        QCOMPARE(delayed, 1);
    }

    void dtAndDiscretisationAreKeptOnTheNeurons()
    {
        nir::NirImportOptions options;
        options.dt = 1e-4;
        options.discretisation = "exact";
        const nir::NirImport imported = nir::loadNir(kData + "lif_affine/model.nir", options);
        const Module& lif = imported.root->getSubmodule("lif");
        QCOMPARE(lif.tensor("dt")[0], 1e-4F);
        QCOMPARE(QString::fromStdString(std::get<std::string>(lif.attribute("discretisation"))),
                 QString("exact"));
    }

    void malformedFilesSayWhatIsWrong_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("expected");
        // README.json: the NIR library's broken files; more.json: ours (make_more.py), whose
        // texts are the words our message must hold.
        for (const char* list : {"README.json", "more.json"}) {
            std::ifstream in(kData + "malformed/" + list);
            const auto j = nlohmann::json::parse(in);
            for (const auto& [file, text] : j.items()) {
                QTest::newRow(file.c_str()) << QString::fromStdString(file)
                                            << QString::fromStdString(text.get<std::string>());
            }
        }
    }

    void malformedFilesSayWhatIsWrong()
    {
        QFETCH(QString, file);
        QFETCH(QString, expected);
        const std::string path = kData + "malformed/" + file.toStdString();
        try {
            nir::loadNir(path);
            QFAIL("a malformed file was accepted");
        } catch (const Error& e) {
            const QString message = QString::fromUtf8(e.what());
            QVERIFY2(message.startsWith(QString::fromStdString(path)), qPrintable(message));
            QVERIFY2(!message.contains('\n'), qPrintable(message));
            // The words a good importer uses (malformed/README.json), in our phrasing.
            const std::map<QString, QStringList> words{
                {"truncated.nir", {"truncated"}},
                {"not_hdf5.nir", {"not an HDF5 file"}},
                {"unknown_node_type.nir", {"'lif'", "unknown type", "Izhikevich3000"}},
                {"edge_to_missing_node.nir", {"lif -> nowhere", "does not exist"}},
                {"negative_tau.nir", {"'lif'", "tau must be > 0"}},
                {"missing_threshold.nir", {"'lif'", "missing parameter v_threshold"}},
                {"shape_mismatch.nir", {"sizes do not agree"}},
            };
            const QStringList needles = words.count(file) > 0 ? words.at(file) : QStringList{expected};
            for (const QString& w : needles) {
                QVERIFY2(message.contains(w), qPrintable(message + "  (expected: " + expected + ")"));
            }
        }
    }

    void badOptionsAreRefused()
    {
        nir::NirImportOptions options;
        options.dt = -1e-3;
        QVERIFY_THROWS_EXCEPTION(Error, nir::loadNir(kData + "lif_affine/model.nir", options));
        options.dt = 1e-3;
        options.discretisation = "rk4";
        QVERIFY_THROWS_EXCEPTION(Error, nir::loadNir(kData + "lif_affine/model.nir", options));
    }

    void newerVersionsAreRefusedByName()
    {
        nir::NirFile f = nir::readNirFile(kData + "lif_affine/model.nir");
        f.version = "2.0.0";
        try {
            nir::importNir(f, "future.nir");
            QFAIL("a NIR 2 file was accepted");
        } catch (const Error& e) {
            QVERIFY2(QString(e.what()).contains("future.nir: written by NIR 2.0.0"), e.what());
        }
    }

    void olderLayoutsLoad()
    {
        // NIR before 1.0: no v_reset (reset to 0), input_type / output_type instead of shape,
        // scalar 0-d parameters, a dotted node name.
        nir::NirFile f = nir::readNirFile(kData + "lif_affine/model.nir");
        f.version = "0.2.0";
        for (auto& n : f.graph.nodes) {
            if (n.type == "LIF") {
                n.params.erase("v_reset");
                nir::NirArray scalar;
                scalar.type = nir::ArrayType::Float64;
                scalar.values = {0.02};
                n.params["tau"] = nir::NirValue::ofArray(scalar);
            }
            if (n.type == "Input" || n.type == "Output") {
                nir::NirValue group;
                group.kind = nir::NirValue::Kind::Group;
                group.group["input"] = n.params.at("shape");
                n.params.erase("shape");
                n.params[n.type == "Input" ? "input_type" : "output_type"] = group;
            }
            if (n.name == "fc") {
                n.name = "layers.0";
            }
        }
        for (auto& e : f.graph.edges) {
            for (std::string* end : {&e.source, &e.target}) {
                if (*end == "fc") {
                    *end = "layers.0";
                }
            }
        }
        const nir::NirImport imported = nir::importNir(f, "old.nir");
        const Module& lif = imported.root->getSubmodule("lif");
        QCOMPARE(lif.tensor("tau").numel(), std::int64_t{6});
        QCOMPARE(lif.tensor("tau")[5], 0.02F);
        QCOMPARE(lif.tensor("v_reset")[0], 0.0F);
        QCOMPARE(QString::fromStdString(imported.root->getSubmodule("layers_0").className()),
                 QString("Linear"));
        QVERIFY(std::any_of(imported.notes.begin(), imported.notes.end(), [](const std::string& n) {
            return n.find("'layers.0' is called 'layers_0'") != std::string::npos;
        }));
        QVERIFY(std::any_of(imported.notes.begin(), imported.notes.end(), [](const std::string& n) {
            return n.find("no v_reset") != std::string::npos;
        }));
    }

    void cubaLiIsCubaLifWithoutTheThreshold_data()
    {
        QTest::addColumn<QString>("discretisation");
        QTest::newRow("euler") << QStringLiteral("euler");
        QTest::newRow("exact") << QStringLiteral("exact");
    }

    void cubaLiIsCubaLifWithoutTheThreshold()
    {
        // NIR's CubaLI (newer NIR versions) is CubaLIF without the threshold. cubalif_linear with
        // its "cuba" node retyped CubaLI (v_threshold and v_reset dropped) imports as NIRCubaLI and
        // records, bit for bit, the cuba.v of the same graph whose CubaLIF has v_threshold = 1e30
        // (never reached); it exports back as a CubaLI node with the file's arrays, and that file
        // imports and runs the same again.
        QFETCH(QString, discretisation);
        const Case c = readCase("cubalif_linear");
        const nir::NirFile original = nir::readNirFile(kData + "cubalif_linear/model.nir");
        nir::NirFile li = original;
        nir::NirFile lif = original;
        for (nir::NirFile* f : {&li, &lif}) {
            const auto node = std::find_if(f->graph.nodes.begin(), f->graph.nodes.end(),
                                           [](const nir::NirNode& n) { return n.name == "cuba"; });
            QVERIFY(node != f->graph.nodes.end());
            QCOMPARE(QString::fromStdString(node->type), QString("CubaLIF"));
            if (f == &li) {
                node->type = "CubaLI";
                QCOMPARE(node->params.erase("v_threshold"), std::size_t{1});
                QCOMPARE(node->params.erase("v_reset"), std::size_t{1});
            } else {
                nir::NirArray& threshold = node->params.at("v_threshold").array;
                std::fill(threshold.values.begin(), threshold.values.end(), 1e30);
            }
        }
        nir::NirImportOptions options;
        options.dt = c.dt;
        options.discretisation = discretisation.toStdString();
        const nir::NirImport a = nir::importNir(li, "cubali.nir", options);
        const nir::NirImport b = nir::importNir(lif, "cubalif.nir", options);
        const Module& cuba = a.root->getSubmodule("cuba");
        QCOMPARE(QString::fromStdString(cuba.className()), QString("NIRCubaLI"));
        QVERIFY(!cuba.spikingOutput());
        QVERIFY(!cuba.hasAttribute("v_threshold"));
        QCOMPARE(QString::fromStdString(std::get<std::string>(cuba.attribute("discretisation"))),
                 discretisation);
        QCOMPARE(cuba.tensor("dt")[0], static_cast<float>(c.dt));
        QVERIFY(a.notes.empty());  // w_in is in the file
        const Tensor input = npy::load(kData + c.name + "/input.npy");
        const auto got = simulate(*a.root, input, c.steps, {"cuba.v", "output.output"});
        const auto want = simulate(*b.root, input, c.steps, {"cuba.v", "cuba.spikes"});
        QVERIFY(got.at("cuba.v") == want.at("cuba.v"));
        QCOMPARE(total(want.at("cuba.spikes")), 0.0);
        QVERIFY(got.at("output.output") == got.at("cuba.v"));  // the graph's output is v
        double moved = 0.0;
        for (const float v : got.at("cuba.v")) {
            moved = std::max(moved, static_cast<double>(std::fabs(v)));
        }
        QVERIFY2(moved > 0.1, qPrintable(QString::number(moved)));

        const nir::NirExport e = nir::exportNir(*a.root);
        QVERIFY2(e.leftOut.empty(), e.leftOut.empty() ? "" : e.leftOut.front().c_str());
        QTemporaryDir dir;
        const std::string path = dir.filePath("cubali.nir").toStdString();
        nir::writeNirFile(path, e.file);
        const nir::NirFile back = nir::readNirFile(path);
        const nir::NirNode* node = back.graph.find("cuba");
        QVERIFY(node != nullptr);
        QCOMPARE(QString::fromStdString(node->type), QString("CubaLI"));
        std::vector<std::string> keys;
        for (const auto& [key, value] : node->params) {
            keys.push_back(key);
        }
        QCOMPARE(keys, (std::vector<std::string>{"r", "tau_mem", "tau_syn", "v_leak", "w_in"}));
        compareGraphs(li.graph, back.graph, "");
        const nir::NirImport again = nir::importNir(back, path, options);
        QVERIFY(simulate(*again.root, input, c.steps, {"cuba.v"}).at("cuba.v") == got.at("cuba.v"));
    }

    void nirToJsonToNirKeepsEveryArray_data() { referenceGraphsSimulateAsNir_data(); }

    void nirToJsonToNirKeepsEveryArray()
    {
        QFETCH(QString, name);
        const std::string path = kData + name.toStdString() + "/model.nir";
        const nir::NirFile original = nir::readNirFile(path);
        const nir::NirImport imported = nir::importNir(original, path);
        QTemporaryDir dir;
        const std::string json = dir.filePath("model.json").toStdString();
        saveModel(json, *imported.root);
        const auto reloaded = loadModel(json);
        const nir::NirExport exported = nir::exportNir(*reloaded);
        QVERIFY2(exported.leftOut.empty(), exported.leftOut.empty() ? "" : exported.leftOut.front().c_str());
        const std::string again = dir.filePath("again.nir").toStdString();
        nir::writeNirFile(again, exported.file);
        compareGraphs(original.graph, nir::readNirFile(again).graph, "");
    }

    void jsonToNirToJsonSimulatesIdentically_data() { referenceGraphsSimulateAsNir_data(); }

    void jsonToNirToJsonSimulatesIdentically()
    {
        QFETCH(QString, name);
        const Case c = readCase(name.toStdString());
        const nir::NirImport first = nir::loadNir(kData + c.name + "/model.nir");
        QTemporaryDir dir;
        const std::string path = dir.filePath("model.nir").toStdString();
        QVERIFY(nir::saveNir(path, *first.root).empty());
        const nir::NirImport second = nir::loadNir(path);
        const Tensor input = npy::load(kData + c.name + "/input.npy");
        const auto a = simulate(*first.root, input, c.steps, keysOf(c));
        const auto b = simulate(*second.root, input, c.steps, keysOf(c));
        for (const auto& [key, rows] : a) {
            QVERIFY2(rows == b.at(key), key.c_str());
        }
    }

    void mutatedGraphsNeverCrash()
    {
        // Structural mutations of the reference graphs (what a buggy exporter might write):
        // parameters dropped, reshaped, emptied, set to NaN or huge, types swapped, edges
        // rewired, nodes duplicated. Each import either succeeds, and the network then runs, or
        // throws one Error naming the file; nothing else.
        std::vector<nir::NirFile> seeds;
        for (const char* n : {"lif_affine", "cubalif_linear", "recurrent_lif", "nested_li",
                              "conv_if_pool"}) {
            seeds.push_back(nir::readNirFile(kData + n + "/model.nir"));
        }
        const std::vector<std::string> types{"Input", "Output", "Affine", "Linear", "Scale",
                                             "Threshold", "Flatten", "Conv1d", "Conv2d",
                                             "SumPool2d", "AvgPool2d", "Delay", "LIF", "CubaLIF",
                                             "CubaLI", "LI", "IF", "I", "NIRGraph", "Bogus"};
        std::mt19937 rng(20261127);
        const auto pick = [&rng](std::size_t n) {
            return static_cast<std::size_t>(std::uniform_int_distribution<std::size_t>(0, n - 1)(rng));
        };
        int imported = 0;
        int refused = 0;
        for (int trial = 0; trial < 1500; ++trial) {
            nir::NirFile f = seeds[pick(seeds.size())];
            nir::NirGraph& g = f.graph;
            const int mutations = 1 + static_cast<int>(pick(3));
            for (int m = 0; m < mutations && !g.nodes.empty(); ++m) {
                nir::NirNode& node = g.nodes[pick(g.nodes.size())];
                switch (pick(9)) {
                case 0:
                    if (!node.params.empty()) {
                        auto it = node.params.begin();
                        std::advance(it, static_cast<long>(pick(node.params.size())));
                        node.params.erase(it);
                    }
                    break;
                case 1:
                    for (auto& [key, v] : node.params) {
                        if (v.kind == nir::NirValue::Kind::Array && !v.array.values.empty()) {
                            v.array.values[pick(v.array.values.size())] =
                                std::vector<double>{std::nan(""), 1e300, -1e300, -1.0, 0.0, 1e9}[pick(6)];
                        }
                    }
                    break;
                case 2:
                    for (auto& [key, v] : node.params) {
                        if (v.kind == nir::NirValue::Kind::Array && pick(2) == 0) {
                            v.array.shape = {static_cast<std::int64_t>(pick(5))};
                            v.array.values.resize(static_cast<std::size_t>(v.array.shape[0]), 0.5);
                        }
                    }
                    break;
                case 3:
                    node.type = types[pick(types.size())];
                    break;
                case 4:
                    if (!g.edges.empty()) {
                        g.edges[pick(g.edges.size())].target = g.nodes[pick(g.nodes.size())].name;
                    }
                    break;
                case 5:
                    g.edges.push_back({g.nodes[pick(g.nodes.size())].name, g.nodes[pick(g.nodes.size())].name});
                    break;
                case 6:
                    g.nodes.push_back(node);
                    break;
                case 7:
                    if (!g.edges.empty()) {
                        g.edges.erase(g.edges.begin() + static_cast<long>(pick(g.edges.size())));
                    }
                    break;
                default:
                    node.params["weight"] = nir::NirValue::ofString("not numbers");
                    break;
                }
            }
            try {
                nir::NirImport r = nir::importNir(f, "mutant.nir");
                Tensor input(Shape{4, r.root->sizeIn()});
                input.flat().setConstant(0.5F);
                Tensor result = r.root->evolve(input).output;
                QVERIFY(result.dim(0) == 4);
                ++imported;
            } catch (const Error& e) {
                QVERIFY2(std::string(e.what()).rfind("mutant.nir: ", 0) == 0, e.what());
                QVERIFY2(std::string(e.what()).find('\n') == std::string::npos, e.what());
                ++refused;
            }
        }
        qInfo("%d mutants imported and ran, %d refused", imported, refused);
        QVERIFY(imported > 50);
        QVERIFY(refused > 300);
    }

    void exportListsWhatNirCannotHold()
    {
        auto net = std::make_unique<Network>(0, 0);
        net->addNode("noise", createModule("PoissonSource", {{"shape", {4}}}));
        net->addNode("cells", createModule("NIRLIF", {{"shape", {4}}}));
        net->addNode("readout", createModule("CUBALIF", {{"shape", {4}}}));
        net->connect("noise", "cells");
        net->connect("cells", "readout.exc");
        const nir::NirExport e = nir::exportNir(*net);
        QCOMPARE(e.leftOut.size(), std::size_t{2});
        QVERIFY2(QString::fromStdString(e.leftOut[0]).startsWith("noise: PoissonSource"),
                 e.leftOut[0].c_str());
        QVERIFY2(QString::fromStdString(e.leftOut[1]).startsWith("readout: CUBALIF"),
                 e.leftOut[1].c_str());
        QVERIFY(e.file.graph.find("cells") != nullptr);
        QVERIFY(e.file.graph.find("noise") == nullptr);
        QVERIFY(e.file.graph.edges.empty());
    }

    void projectionsOnWiresBecomeNodes()
    {
        auto net = std::make_unique<Network>(3, 2);
        net->addNode("a", createModule("NIRLIF", {{"shape", {3}}}));
        net->addNode("b", createModule("NIRLIF", {{"shape", {2}}}));
        net->connect("in", "a");
        std::unique_ptr<Projection> dense(
            dynamic_cast<Projection*>(createModule("DenseProjection", {{"shape", {3, 2}}}).release()));
        net->connect("a", "b", std::move(dense), "w");
        net->connect("b", "out");
        Tensor w(Shape{3, 2}, std::vector<float>{1, 2, 3, 4, 5, 6});
        QVERIFY(net->projection("w")->setAttribute("weight", w).ok);
        const nir::NirExport e = nir::exportNir(*net);
        const nir::NirNode* node = e.file.graph.find("w");
        QVERIFY(node != nullptr);
        QCOMPARE(QString::fromStdString(node->type), QString("Linear"));
        const nir::NirArray& weight = node->params.at("weight").array;
        QCOMPARE(weight.shape, (std::vector<std::int64_t>{2, 3}));
        // NIR's Linear holds W^T: row j is target j.
        QCOMPARE(weight.values, (std::vector<double>{1, 3, 5, 2, 4, 6}));
        // Imported back, the chain computes the same.
        const nir::NirImport back = nir::importNir(e.file, "x.nir");
        Tensor input(Shape{50, 3});
        for (std::int64_t i = 0; i < input.numel(); ++i) {
            input[i] = static_cast<float>((i * 7) % 11) * 0.3F;
        }
        const auto a = simulate(*net, input, 50, {"b.spikes", "b.v"});
        const auto b = simulate(*back.root, input, 50, {"b.spikes", "b.v"});
        QVERIFY(a.at("b.v") == b.at("b.v"));
        QVERIFY(total(a.at("b.spikes")) > 0.0);
    }
};

QTEST_GUILESS_MAIN(TestNirImport)
#include "test_nir_import.moc"
