// NIR round trips for the node types the NIR library's reference graphs (test_nir_import) do not
// contain: AvgPool2d, Flatten of an image, Scale, Threshold, Delay and I in one chain, Conv1d and
// a Flatten of a sequence in another. Each graph, built here as NIR's layout has it, goes
// NIR -> module tree -> JSON model file -> module tree -> NIR and keeps every node, array (bit for
// bit, with its shape and element type) and edge; the tree read back from the JSON file and the
// one imported from the exported NIR file simulate bit for bit like the first import.
#include "engine/io/model_io.hpp"
#include "engine/nir/nir_export.hpp"
#include "engine/nir/nir_file.hpp"
#include "engine/nir/nir_import.hpp"
#include "engine/runtime/headless_run.hpp"
#include "engine/tensor/random.hpp"
#include "tests/nir_file_test_helpers.hpp"

#include <QtTest/QtTest>

#include <QTemporaryDir>

using namespace spike::engine;  // NOLINT: test file

namespace {

nir::NirValue arrayOf(nir::ArrayType type, std::vector<std::int64_t> shape, std::vector<double> values)
{
    nir::NirArray a;
    a.type = type;
    a.shape = std::move(shape);
    a.values = std::move(values);
    return nir::NirValue::ofArray(std::move(a));
}

nir::NirValue ints(std::vector<double> values)
{
    const auto n = static_cast<std::int64_t>(values.size());
    return arrayOf(nir::ArrayType::Int64, {n}, std::move(values));
}

nir::NirValue scalarInt(double value)
{
    return arrayOf(nir::ArrayType::Int64, {}, {value});
}

/// n float32 values from `rng` in [lo, hi), with the given shape.
nir::NirValue floats(Random& rng, std::vector<std::int64_t> shape, double lo, double hi)
{
    std::int64_t n = 1;
    for (const auto d : shape) {
        n *= d;
    }
    std::vector<double> v;
    for (std::int64_t i = 0; i < n; ++i) {
        v.push_back(static_cast<float>(rng.uniform(lo, hi)));
    }
    return arrayOf(nir::ArrayType::Float32, std::move(shape), std::move(v));
}

nir::NirNode node(const std::string& name, const std::string& type,
                  std::map<std::string, nir::NirValue> params)
{
    nir::NirNode n;
    n.name = name;
    n.type = type;
    n.params = std::move(params);
    return n;
}

/// input (1, 6, 6) -> AvgPool2d 2x2 -> Flatten -> Scale -> Threshold -> Delay -> I -> output.
nir::NirFile imageChain()
{
    Random rng(11);
    nir::NirFile f;
    f.version = nir::kDefaultNirVersion;
    f.graph.nodes = {
        node("input", "Input", {{"shape", ints({1, 6, 6})}}),
        node("avg", "AvgPool2d",
             {{"kernel_size", ints({2, 2})}, {"stride", ints({2, 2})}, {"padding", ints({0, 0})}}),
        node("flat", "Flatten",
             {{"start_dim", scalarInt(0)}, {"end_dim", scalarInt(-1)}, {"input_type", ints({1, 3, 3})}}),
        node("gain", "Scale", {{"scale", floats(rng, {9}, 0.5, 2.0)}}),
        node("thr", "Threshold", {{"threshold", floats(rng, {9}, 0.2, 0.8)}}),
        node("late", "Delay", {{"delay", arrayOf(nir::ArrayType::Float32, {9}, {0, 1e-3, 2e-3, 3e-3, 0, 1e-3, 2e-3, 3e-3, 5e-3})}}),
        node("count", "I", {{"r", floats(rng, {9}, 50.0, 200.0)}}),
        node("output", "Output", {{"shape", ints({9})}}),
    };
    f.graph.edges = {{"input", "avg"}, {"avg", "flat"}, {"flat", "gain"}, {"gain", "thr"},
                     {"thr", "late"}, {"late", "count"}, {"count", "output"}};
    return f;
}

/// input (2, 8) -> Conv1d (3 channels, kernel 3, dilation 2, padding 1) -> Flatten -> output.
nir::NirFile sequenceChain()
{
    Random rng(12);
    nir::NirFile f;
    f.version = nir::kDefaultNirVersion;
    f.graph.nodes = {
        node("input", "Input", {{"shape", ints({2, 8})}}),
        node("conv", "Conv1d",
             {{"weight", floats(rng, {3, 2, 3}, -1.0, 1.0)}, {"bias", floats(rng, {3}, -0.2, 0.2)},
              {"stride", ints({1})}, {"padding", ints({1})}, {"dilation", ints({2})},
              {"groups", scalarInt(1)}, {"input_shape", ints({8})}}),
        node("flat", "Flatten",
             {{"start_dim", scalarInt(0)}, {"end_dim", scalarInt(-1)}, {"input_type", ints({3, 6})}}),
        node("output", "Output", {{"shape", ints({18})}}),
    };
    f.graph.edges = {{"input", "conv"}, {"conv", "flat"}, {"flat", "output"}};
    return f;
}

std::vector<float> run(Module& root, const Tensor& input)
{
    HeadlessRunOptions options;
    options.backend = BackendKind::Cpu;
    options.steps = input.dim(0);
    HeadlessRun r(root, options);
    r.record({{"output", "output", {}}});
    return r.run(input.data(), input.dim(0)).recordings.at(0);
}

}  // namespace

class TestNirRoundTrip : public QObject {
    Q_OBJECT

private slots:
    void everyOtherNodeTypeRoundTrips_data()
    {
        QTest::addColumn<QString>("graph");
        QTest::newRow("AvgPool2d, Flatten, Scale, Threshold, Delay, I") << QStringLiteral("image");
        QTest::newRow("Conv1d, Flatten") << QStringLiteral("sequence");
    }

    void everyOtherNodeTypeRoundTrips()
    {
        QFETCH(QString, graph);
        const nir::NirFile original = graph == "image" ? imageChain() : sequenceChain();
        QTemporaryDir dir;
        const std::string first = dir.filePath("first.nir").toStdString();
        nir::writeNirFile(first, original);
        nir::NirImportOptions options;
        options.dt = 1e-3;
        const nir::NirImport imported = nir::loadNir(first, options);

        const std::string json = dir.filePath("model.json").toStdString();
        saveModel(json, *imported.root);
        const auto reloaded = loadModel(json);
        const nir::NirExport exported = nir::exportNir(*reloaded);
        QVERIFY2(exported.leftOut.empty(), exported.leftOut.empty() ? "" : exported.leftOut[0].c_str());
        const std::string again = dir.filePath("again.nir").toStdString();
        nir::writeNirFile(again, exported.file);
        const std::string d = spike::tests::diffKept(original.graph, nir::readNirFile(again).graph, "");
        QVERIFY2(d.empty(), d.c_str());

        // Everything simulates as the first import did: the JSON file's tree and the NIR file's.
        const nir::NirImport back = nir::loadNir(again, options);
        Random rng(5);
        const std::int64_t width = imported.root->sizeIn();
        Tensor input(Shape{60, width});
        for (std::int64_t i = 0; i < input.numel(); ++i) {
            input[i] = static_cast<float>(rng.uniform(0.0, 1.5));
        }
        const std::vector<float> want = run(*imported.root, input);
        double moved = 0.0;
        for (const float v : want) {
            moved = std::max(moved, static_cast<double>(std::fabs(v)));
        }
        QVERIFY2(moved > 0.1, qPrintable(QString::number(moved)));
        QVERIFY(run(*reloaded, input) == want);
        QVERIFY(run(*back.root, input) == want);
    }
};

QTEST_GUILESS_MAIN(TestNirRoundTrip)
#include "test_nir_round_trip.moc"
