// NIR as the peers write and simulate it (engine/nir, docs/nir_peers.md):
// - Rockpool: files laid out as Rockpool's to_nir writes a LIFTorch (tests/data/nir/rockpool,
//   made from two Rockpool cases by make_rockpool.py) imported with discretisation "rockpool"
//   reproduce Rockpool's own recordings (spikes exactly, vmem within 1e-4) through spikesim's
//   run path, and euler and exact do not; an LI with Rockpool's r steps as ExpSynTorch; the dt
//   Rockpool's r was written for is recovered exactly; the engine's LIF exports as Rockpool's
//   to_nir writes it and comes back simulating bit for bit.
// - Sinabs: time constants counted in steps (time unit "steps") become seconds, IF's r a rate,
//   and a file read in seconds with second-long taus gets a note pointing at "steps".
#include "engine/io/model_clone.hpp"
#include "engine/io/module_factory.hpp"
#include "engine/network/network.hpp"
#include "engine/network/projections.hpp"
#include "engine/nir/nir_export.hpp"
#include "engine/nir/nir_file.hpp"
#include "engine/nir/nir_import.hpp"
#include "engine/runtime/headless_run.hpp"
#include "engine/tensor/npy.hpp"
#include "engine/tensor/random.hpp"

#include <QtTest/QtTest>

#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <numeric>

using namespace spike::engine;  // NOLINT: test file

namespace {

const std::string kRockpool = SPIKE_TEST_DATA_DIR "/nir/rockpool/";

/// Runs `root` on `input` (T, N) through HeadlessRun on the CPU, recording "path.signal" keys.
std::vector<std::vector<float>> simulate(Module& root, const Tensor& input,
                                         const std::vector<std::string>& keys)
{
    HeadlessRunOptions options;
    options.backend = BackendKind::Cpu;
    options.steps = input.dim(0);
    HeadlessRun run(root, options);
    std::vector<ProbeRequest> requests;
    for (const auto& key : keys) {
        const auto dot = key.rfind('.');
        requests.push_back({key.substr(0, dot), key.substr(dot + 1), {}});
    }
    run.record(requests);
    return run.run(input.data(), input.dim(0)).recordings;
}

/// How many elements of `got` differ from `want` by more than atol = rtol = 1e-4.
std::int64_t mismatches(const std::vector<float>& got, const Tensor& want)
{
    std::int64_t bad = 0;
    for (std::int64_t i = 0; i < want.numel(); ++i) {
        const double w = want[i];
        bad += std::fabs(got[static_cast<std::size_t>(i)] - w) > 1e-4 + 1e-4 * std::fabs(w) ? 1 : 0;
    }
    return bad;
}

nir::NirValue floats(std::vector<double> values)
{
    nir::NirArray a;
    a.type = nir::ArrayType::Float32;
    a.shape = {static_cast<std::int64_t>(values.size())};
    a.values = std::move(values);
    return nir::NirValue::ofArray(std::move(a));
}

nir::NirNode ioNode(const std::string& name, const std::string& type, std::int64_t n)
{
    nir::NirNode node;
    node.name = name;
    node.type = type;
    nir::NirArray shape;
    shape.type = nir::ArrayType::Int64;
    shape.shape = {1};
    shape.values = {static_cast<double>(n)};
    node.params["shape"] = nir::NirValue::ofArray(std::move(shape));
    return node;
}

/// input -> `node` -> output, `node` of n elements.
nir::NirFile chain(nir::NirNode node, std::int64_t n)
{
    nir::NirFile f;
    f.version = nir::kDefaultNirVersion;
    const std::string name = node.name;
    f.graph.nodes = {ioNode("input", "Input", n), std::move(node), ioNode("output", "Output", n)};
    f.graph.edges = {{"input", name}, {name, "output"}};
    return f;
}

bool mentions(const std::vector<std::string>& notes, const std::string& text)
{
    return std::any_of(notes.begin(), notes.end(),
                       [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

}  // namespace

class TestNirPeers : public QObject {
    Q_OBJECT

private slots:
    void rockpoolExportsRunAsRockpool_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("feed-forward (lif_ff_scalar)") << QString("ff");
        QTest::newRow("recurrent, bias (lif_recurrent)") << QString("recurrent");
    }

    void rockpoolExportsRunAsRockpool()
    {
        QFETCH(QString, name);
        std::ifstream in(kRockpool + "cases.json");
        const auto spec = nlohmann::json::parse(in).at("cases").at(name.toStdString());
        const Tensor input = npy::load(kRockpool + spec.at("input").get<std::string>());
        std::vector<std::string> keys;
        std::vector<Tensor> want;
        for (const auto& [key, file] : spec.at("expected").items()) {
            keys.push_back(key);
            want.push_back(npy::load(kRockpool + file.get<std::string>()));
        }
        const std::string path = kRockpool + name.toStdString() + ".nir";
        for (const std::string method : {"rockpool", "exact", "euler"}) {
            nir::NirImportOptions options;
            options.dt = spec.at("dt").get<double>();
            options.discretisation = method;
            const nir::NirImport imported = nir::loadNir(path, options);
            // NIR's own CubaLIF calls its membrane v where Rockpool's LIF says vmem.
            std::vector<std::string> asked = keys;
            for (auto& key : asked) {
                if (method != "rockpool" && key.size() > 5 && key.substr(key.size() - 5) == ".vmem") {
                    key = key.substr(0, key.size() - 4) + "v";
                }
            }
            const auto got = simulate(*imported.root, input, asked);
            std::int64_t bad = 0;
            for (std::size_t k = 0; k < keys.size(); ++k) {
                QCOMPARE(static_cast<std::int64_t>(got[k].size()), want[k].numel());
                bad += mismatches(got[k], want[k]);
            }
            if (method == "rockpool") {
                QVERIFY2(bad == 0, qPrintable(QString("%1 elements differ from Rockpool's").arg(bad)));
                QVERIFY2(imported.notes.empty(), imported.notes.empty() ? "" : imported.notes[0].c_str());
            } else {
                // NIR's own discretisations of the same file are not what Rockpool simulates.
                QVERIFY2(bad > 0, method.c_str());
            }
        }
    }

    void rockpoolImportSaysWhatItIgnores()
    {
        nir::NirImportOptions options;
        options.dt = 5e-4;
        options.discretisation = "rockpool";
        nir::NirFile f = nir::readNirFile(kRockpool + "ff.nir");
        const auto at = std::find_if(f.graph.nodes.begin(), f.graph.nodes.end(),
                                     [](const nir::NirNode& node) { return node.name == "0"; });
        QVERIFY(at != f.graph.nodes.end());
        nir::NirNode& lif = *at;
        QCOMPARE(QString::fromStdString(lif.type), QString("CubaLIF"));
        lif.params["w_in"] = floats({2, 2, 2, 2});
        lif.params["v_reset"] = floats({-1, -1, -1, -1});
        const nir::NirImport imported = nir::importNir(f, "ff.nir", options);
        QCOMPARE(QString::fromStdString(imported.root->getSubmodule("0").className()), QString("LIF"));
        QCOMPARE(imported.root->getSubmodule("0").tensor("dt")[0], 5e-4F);
        QVERIFY(mentions(imported.notes, "node '0': w_in is not 1"));
        QVERIFY(mentions(imported.notes, "node '0': v_reset is not 0"));
        // The file's r was written for dt = 1 ms; the import runs at the dt chosen and says so.
        QVERIFY(mentions(imported.notes, "was written for dt = 0.001 s"));
    }

    void rockpoolDtInvertsTheWrittenR()
    {
        for (const double tau : {1e-3, 0.02, 0.5}) {
            for (const double dt : {1e-5, 1e-4, 1e-3, 2e-2}) {
                const double r = tau * std::exp(-dt / tau) / dt;
                QVERIFY(std::fabs(nir::rockpoolDt(tau, r) - dt) <= 1e-12 * std::max(1.0, dt / tau));
            }
        }
        QCOMPARE(nir::rockpoolDt(0.02, 0.0), 0.0);
        QCOMPARE(nir::rockpoolDt(0.02, -1.0), 0.0);
    }

    void rockpoolLiStepsAsExpSyn()
    {
        // ExpSynTorch: isyn = beta * (isyn + x); its to_nir writes LI(tau, r = tau beta / dt).
        const double dt = 1e-3;
        const std::vector<double> tau{0.005, 0.02, 0.1};
        nir::NirNode li;
        li.name = "syn";
        li.type = "LI";
        std::vector<double> r;
        for (const double t : tau) {
            r.push_back(static_cast<float>(t * std::exp(-dt / t) / dt));
        }
        li.params["tau"] = floats(tau);
        li.params["r"] = floats(r);
        li.params["v_leak"] = floats({0, 0, 0});
        nir::NirImportOptions options;
        options.dt = dt;
        options.discretisation = "rockpool";
        const nir::NirImport imported = nir::importNir(chain(li, 3), "expsyn.nir", options);
        const Module& syn = imported.root->getSubmodule("syn");
        QCOMPARE(QString::fromStdString(std::get<std::string>(syn.attribute("discretisation"))),
                 QString("impulse"));
        Random rng(7);
        Tensor input(Shape{200, 3});
        for (std::int64_t i = 0; i < input.numel(); ++i) {
            input[i] = rng.uniform(0.0, 1.0) < 0.1 ? static_cast<float>(rng.uniform(0.0, 2.0)) : 0.0F;
        }
        const auto got = simulate(*imported.root, input, {"syn.v"});
        std::vector<double> v(3, 0.0);
        for (std::int64_t t = 0; t < 200; ++t) {
            for (std::size_t i = 0; i < 3; ++i) {
                v[i] = std::exp(-dt / tau[i]) * (v[i] + input[t * 3 + static_cast<std::int64_t>(i)]);
                const double g = got[0][static_cast<std::size_t>(t * 3) + i];
                QVERIFY2(std::fabs(g - v[i]) <= 1e-5 + 1e-5 * std::fabs(v[i]),
                         qPrintable(QString("step %1 neuron %2: %3, ExpSyn %4").arg(t).arg(i).arg(g).arg(v[i])));
            }
        }
    }

    void lifExportsAsRockpoolWritesIt_data()
    {
        QTest::addColumn<bool>("recurrent");
        QTest::newRow("feed-forward") << false;
        QTest::newRow("recurrent") << true;
    }

    void lifExportsAsRockpoolWritesIt()
    {
        QFETCH(bool, recurrent);
        const std::int64_t n = 5;
        auto lif = createModule("LIF", {{"shape", {n, n}}, {"has_rec", recurrent}});
        Random rng(3);
        Tensor tauMem(Shape{n});
        Tensor bias(Shape{n});
        Tensor wRec(Shape{n, n});
        for (std::int64_t i = 0; i < n; ++i) {
            tauMem[i] = static_cast<float>(rng.uniform(0.01, 0.05));
            bias[i] = static_cast<float>(rng.uniform(0.0, 0.05));
        }
        for (std::int64_t i = 0; i < wRec.numel(); ++i) {
            wRec[i] = static_cast<float>(rng.uniform(-0.2, 0.05));
        }
        AttributeMap values{{"tau_mem", tauMem}, {"bias", bias}};
        if (recurrent) {
            values["w_rec"] = wRec;
        }
        QVERIFY(lif->setAttributes(NestedAttributes{{"", values}}).ok);
        const nir::NirExport e = nir::exportNir(*lif);
        QVERIFY2(e.leftOut.empty(), e.leftOut.empty() ? "" : e.leftOut[0].c_str());
        const nir::NirNode* top = e.file.graph.find("lif");
        QVERIFY(top != nullptr);
        QCOMPARE(top->graph != nullptr, recurrent);
        const nir::NirNode* cuba = recurrent ? top->graph->find("lif") : top;
        QVERIFY(cuba != nullptr);
        QCOMPARE(QString::fromStdString(cuba->type), QString("CubaLIF"));
        const float dt = lif->tensor("dt")[0];
        for (std::int64_t i = 0; i < n; ++i) {
            const float r = tauMem[i] * std::exp(-dt / tauMem[i]) / dt;
            QCOMPARE(static_cast<float>(cuba->params.at("r").array.values[static_cast<std::size_t>(i)]), r);
            QCOMPARE(static_cast<float>(cuba->params.at("v_leak").array.values[static_cast<std::size_t>(i)]), bias[i]);
        }
        if (recurrent) {
            const nir::NirNode* rec = top->graph->find("w_rec");
            QVERIFY(rec != nullptr);
            QCOMPARE(static_cast<float>(rec->params.at("weight").array.values[1]), wRec[n]);  // W^T
        }

        // Written and read back with discretisation "rockpool": the same LIF. Feed-forward it
        // simulates bit for bit; the recurrent input is summed by a Linear instead of inside the
        // LIF, so only its rounding may differ.
        QTemporaryDir dir;
        const std::string path = dir.filePath("lif.nir").toStdString();
        nir::writeNirFile(path, e.file);
        nir::NirImportOptions options;
        options.dt = dt;
        options.discretisation = "rockpool";
        const nir::NirImport back = nir::loadNir(path, options);
        Tensor input(Shape{300, n});
        for (std::int64_t i = 0; i < input.numel(); ++i) {
            input[i] = rng.uniform() < 0.1 ? static_cast<float>(rng.uniform(0.0, 0.5)) : 0.0F;
        }
        auto net = std::make_unique<Network>(n, n);
        net->addNode("lif", cloneModule(*lif));
        net->connect("in", "lif");
        net->connect("lif", "out");
        const std::string inner = recurrent ? "lif.lif." : "lif.";
        const auto want = simulate(*net, input, {"lif.vmem", "lif.spikes"});
        const auto got = simulate(*back.root, input, {inner + "vmem", inner + "spikes"});
        QVERIFY(std::accumulate(want[1].begin(), want[1].end(), 0.0) > 20.0);
        QCOMPARE(got[1], want[1]);
        QCOMPARE(got[0].size(), want[0].size());
        if (!recurrent) {
            QVERIFY(std::memcmp(got[0].data(), want[0].data(), got[0].size() * sizeof(float)) == 0);
        }
        for (std::size_t i = 0; i < want[0].size(); ++i) {
            QVERIFY(std::fabs(got[0][i] - want[0][i]) <= 1e-4F * (1.0F + std::fabs(want[0][i])));
        }
    }

    void lifExportListsWhatNirCannotHold()
    {
        auto two = createModule("LIF", {{"shape", {8, 4}}});
        QVERIFY_THROWS_EXCEPTION(Error, nir::exportNir(*two));  // nothing else in the model
        auto noisy = createModule("LIF", {{"shape", {4, 4}}});
        QVERIFY(noisy->setAttributes(NestedAttributes{{"", AttributeMap{
                    {"noise_std", Tensor(Shape{}, std::vector<float>{0.1F})},
                    {"max_spikes_per_dt", Tensor(Shape{}, std::vector<float>{1.0F})}}}}).ok);
        const nir::NirExport e = nir::exportNir(*noisy);
        QCOMPARE(e.leftOut.size(), std::size_t{2});
        QVERIFY(QString::fromStdString(e.leftOut[0]).startsWith("lif.noise_std"));
        QVERIFY(QString::fromStdString(e.leftOut[1]).startsWith("lif.max_spikes_per_dt: 1"));
    }

    void namedBoundaryPortsExport()
    {
        // A group (nested Network) whose input is split into named ports, as the editor makes
        // one: the wire from "in.drive" through a projection into a LIF becomes an Input node
        // "drive" -> Linear -> lif; the whole input "in" beside named ports is listed as left
        // out (a NIR edge starts at one Input node), not a crash (seen by the GUI monkey).
        auto group = std::make_unique<Network>(std::vector<BoundaryPort>{{"drive", 3}, {"bias", 2}},
                                               std::vector<BoundaryPort>{{"out", 2}});
        group->addNode("lif", createModule("LIF", {{"shape", {2, 2}}}));
        group->connect("in.drive", "lif", std::make_unique<DenseProjection>(3, 2));
        group->connect("in", "lif", std::make_unique<DenseProjection>(5, 2));
        group->connect("lif", "out");
        auto root = std::make_unique<Network>(std::vector<BoundaryPort>{{"drive", 3}, {"bias", 2}},
                                              std::vector<BoundaryPort>{{"out", 2}});
        root->addNode("group", std::move(group));
        root->connect("in.drive", "group.drive");
        root->connect("in.bias", "group.bias");
        root->connect("group", "out");
        const nir::NirExport e = nir::exportNir(*root);
        QCOMPARE(e.leftOut.size(), std::size_t{1});
        QVERIFY2(QString::fromStdString(e.leftOut[0]).contains("spans several boundary ports"),
                 e.leftOut[0].c_str());
        const nir::NirNode* g = e.file.graph.find("group");
        QVERIFY(g != nullptr && g->graph != nullptr);
        QVERIFY(g->graph->find("drive") != nullptr);
        QCOMPARE(QString::fromStdString(g->graph->find("drive")->type), QString("Input"));
        const bool wired = std::any_of(g->graph->edges.begin(), g->graph->edges.end(),
                                       [](const nir::NirEdge& edge) { return edge.source == "drive"; });
        QVERIFY(wired);
    }

    void sinabsTimeInStepsBecomesSeconds()
    {
        // Sinabs' to_nir: LIF(tau = tau_mem in steps, r = 1, v_leak = 0); IAF as IF(r = 1).
        nir::NirNode lif;
        lif.name = "lif";
        lif.type = "LIF";
        lif.params["tau"] = floats({10, 20});
        lif.params["r"] = floats({1, 1});
        lif.params["v_leak"] = floats({0, 0});
        lif.params["v_threshold"] = floats({1, 1});
        nir::NirImportOptions options;
        options.dt = 1e-3;
        options.timeUnit = "steps";
        nir::NirImport imported = nir::importNir(chain(lif, 2), "sinabs.nir", options);
        QCOMPARE(imported.root->getSubmodule("lif").tensor("tau")[0], 10.0F * 1e-3F);
        QCOMPARE(imported.root->getSubmodule("lif").tensor("tau")[1], 20.0F * 1e-3F);
        QVERIFY(!mentions(imported.notes, "is long for a spiking network"));
        options.timeUnit = "s";
        imported = nir::importNir(chain(lif, 2), "sinabs.nir", options);
        QCOMPARE(imported.root->getSubmodule("lif").tensor("tau")[0], 10.0F);
        QVERIFY(mentions(imported.notes, "node 'lif': tau = 10 s is long for a spiking network"));

        // IAF adds its input every step: IF's r counts per step, so it becomes r / dt.
        nir::NirNode iaf;
        iaf.name = "iaf";
        iaf.type = "IF";
        iaf.params["r"] = floats({1});
        iaf.params["v_threshold"] = floats({2.5});
        iaf.params["v_reset"] = floats({0});
        options.timeUnit = "steps";
        imported = nir::importNir(chain(iaf, 1), "sinabs.nir", options);
        Tensor input(Shape{6, 1});
        input.flat().setConstant(1.0F);
        const auto got = simulate(*imported.root, input, {"iaf.v", "output.output"});
        const std::vector<float> v{1, 2, 0, 1, 2, 0};
        const std::vector<float> z{0, 0, 1, 0, 0, 1};
        for (std::size_t t = 0; t < 6; ++t) {
            QCOMPARE(got[0][t], v[t]);
            QCOMPARE(got[1][t], z[t]);
        }
        options.timeUnit = "minutes";
        QVERIFY_THROWS_EXCEPTION(Error, nir::importNir(chain(iaf, 1), "sinabs.nir", options));
    }
};

QTEST_GUILESS_MAIN(TestNirPeers)
#include "test_nir_peers.moc"
