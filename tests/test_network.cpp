// Network wiring, cycle delays, the execution plan (time-batched versus lock-step), chunking
// determinism, nesting, probes, health checks and the model-file round trip.
#include "engine/runtime/backend.hpp"
#include "engine/runtime/execution_plan.hpp"
#include "engine/neurons/lif.hpp"
#include "engine/layers/linear.hpp"
#include "engine/io/model_io.hpp"
#include "engine/network/network.hpp"
#include "engine/network/projections.hpp"
#include "engine/layers/sequential.hpp"
#include "engine/sources/sources.hpp"
#include "tests/layer_test_helpers.hpp"
#include "tests/module_compare.hpp"

#include <QtTest/QtTest>

#include <filesystem>

using namespace spike::engine;
using spike::tests::expectError;

namespace {

Tensor scalar(float v)
{
    return Tensor::scalar(v);
}

/// Adds LIF nodes "n0" .. "n<count - 1>" of `size` neurons to `net` and connects each to the
/// next in that order; returns how many of those connections came out delayed (0: a chain
/// closes no cycle).
int addLifChain(Network& net, int count, std::int64_t size)
{
    for (int i = 0; i < count; ++i) {
        net.addNode("n" + std::to_string(i), std::make_unique<LIF>(size, size));
    }
    int delayed = 0;
    for (int i = 0; i + 1 < count; ++i) {
        delayed += net.connect("n" + std::to_string(i), "n" + std::to_string(i + 1)).delayed ? 1 : 0;
    }
    return delayed;
}

/// Poisson drive → LIF "a" (8) ⇄ LIF "b" (6), with a sparse and a dense projection, a delayed
/// back projection and a pass-through edge to the output: feed-forward and cyclic parts.
std::unique_ptr<Network> mixedNetwork()
{
    auto net = std::make_unique<Network>(0, 6);
    net->addNode("drive", std::make_unique<PoissonSource>(
                              8, AttributeMap{{"rate", scalar(300.0F)}, {"seed", scalar(3.0F)}}));
    net->addNode("a", std::make_unique<LIF>(8, 8, false,
                                            AttributeMap{{"tau_mem", scalar(0.01F)},
                                                         {"threshold", scalar(0.5F)}}));
    net->addNode("b", std::make_unique<LIF>(6, 6, false, AttributeMap{{"threshold", scalar(0.3F)}}));
    net->connect("drive", "a", std::make_unique<OneToOneProjection>(
                                   8, AttributeMap{{"weight", scalar(2.0F)}}));
    auto ab = std::make_unique<SparseProjection>(
        8, 6, AttributeMap{{"weight", scalar(0.7F)}, {"p", scalar(0.5F)}, {"seed", scalar(5.0F)},
                           {"delay", scalar(2.0F)}});
    net->connect("a", "b", std::move(ab));
    auto ba = std::make_unique<DenseProjection>(6, 8);
    spike::tests::randomize(*ba, 11);
    net->connect("b", "a", std::move(ba));
    net->connect("b", "out");
    return net;
}

struct RunResult {
    Tensor output;
    std::vector<std::vector<float>> probes;
    NestedAttributes state;
};

RunResult runFor(Module& root, std::int64_t steps, std::int64_t chunk, bool lockStep,
                 const std::vector<ProbeRequest>& probes)
{
    ExecutorOptions options;
    options.maxChunkSteps = chunk;
    options.plan.lockStepAll = lockStep;
    auto ex = makeCpuExecutor(root, options);
    const auto infos = ex->setProbes(probes);
    RunResult r;
    r.output = Tensor(Shape{steps, root.sizeOut()});
    r.probes.resize(probes.size());
    for (std::int64_t t0 = 0; t0 < steps; t0 += chunk) {
        const std::int64_t n = std::min(chunk, steps - t0);
        ex->advance(n, nullptr, r.output.data() + t0 * root.sizeOut());
        for (std::size_t k = 0; k < probes.size(); ++k) {
            const float* d = ex->probeData(k);
            r.probes[k].insert(r.probes[k].end(), d, d + n * infos[k].width);
        }
    }
    ex->storeStates();
    r.state = root.state();
    return r;
}

bool identical(const RunResult& a, const RunResult& b)
{
    return a.output.identical(b.output) && a.probes == b.probes &&
           a.state.size() == b.state.size() &&
           std::equal(a.state.begin(), a.state.end(), b.state.begin(), [](const auto& x, const auto& y) {
               if (x.first != y.first || x.second.size() != y.second.size()) {
                   return false;
               }
               return std::equal(x.second.begin(), x.second.end(), y.second.begin(),
                                 [](const auto& u, const auto& v) {
                                     return u.first == v.first &&
                                            std::get<Tensor>(u.second).identical(std::get<Tensor>(v.second));
                                 });
           });
}

std::int64_t count(const std::vector<float>& v)
{
    std::int64_t n = 0;
    for (float x : v) {
        n += x != 0.0F ? 1 : 0;
    }
    return n;
}

}  // namespace

class TestNetwork : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void wiringErrorsNameBothEnds()
    {
        Network net(3, 2);
        net.addNode("a", std::make_unique<Identity>(3));
        net.addNode("b", std::make_unique<Identity>(2));
        expectError([&] { net.connect("a", "b"); },
                    "cannot connect 'a.out' (size 3) to 'b.in' (size 2) directly: sizes differ");
        expectError([&] { net.connect("a", "b", std::make_unique<DenseProjection>(2, 2)); },
                    "through DenseProjection of shape (2, 2); expected shape (3, 2)");
        expectError([&] { net.connect("a.spikes", "b"); },
                    "Identity 'a' has no output port 'spikes' (output ports: 'out')");
        expectError([&] { net.connect("c", "b"); }, "no node 'c' (nodes: 'a', 'b')");
        expectError([&] { net.connect("a", "in"); }, "it can only be a connection's source");
        expectError([&] { net.addNode("out", std::make_unique<Identity>(1)); },
                    "may not be called 'out'");
        QCOMPARE(net.connections().size(), std::size_t(0));
        QCOMPARE(net.childCount(), std::size_t(2));  // the refused projection was not kept
        const Connection& c = net.connect("in", "a");
        QCOMPARE(c.name, std::string("in_to_a"));
        QVERIFY(!c.delayed);
        expectError([&] { net.connect("in", "a", nullptr, "in_to_a"); }, "the name is taken");
    }

    void inputsIntoOnePortSum()
    {
        Network net(0, 2);
        net.addNode("x", std::make_unique<ConstantCurrent>(2, AttributeMap{{"amplitude", scalar(1.5F)}}));
        net.addNode("y", std::make_unique<ConstantCurrent>(2, AttributeMap{{"amplitude", scalar(-4.0F)}}));
        net.connect("x", "out");
        net.connect("y", "out");
        net.connect("x", "out", std::make_unique<OneToOneProjection>(2, AttributeMap{{"weight", scalar(2.0F)}}));
        const Tensor out = net.evolve(Tensor(Shape{5, 0})).output;
        QCOMPARE(out.shape(), Shape({5, 2}));
        for (std::int64_t i = 0; i < out.numel(); ++i) {
            QCOMPARE(out[i], 1.5F - 4.0F + 3.0F);
        }
    }

    void cycleDeliversOneStepLate()
    {
        // x(t) = in(t) + y(t - 1), y(t) = x(t): x is the running sum of the input.
        Network net(1, 1);
        net.addNode("x", std::make_unique<Identity>(1));
        net.addNode("y", std::make_unique<Identity>(1));
        net.connect("in", "x");
        net.connect("x", "y");
        const Connection& back = net.connect("y", "x");
        QVERIFY(back.delayed);
        net.connect("x", "out");
        expectError([&] { net.connect("y", "x", nullptr, "again", false); }, "closes a cycle");
        const Tensor input(Shape{6, 1}, {1, 2, 0, 0, 5, -1});
        const Tensor out = net.evolve(input).output;
        const std::vector<float> expected{1, 3, 3, 3, 8, 7};
        for (std::size_t t = 0; t < expected.size(); ++t) {
            QCOMPARE(out[static_cast<std::int64_t>(t)], expected[t]);
        }
        // The delayed value carries over between evolve() calls.
        QCOMPARE(net.evolve(Tensor(Shape{1, 1}, {0})).output[0], 7.0F);
        // A self-loop is a cycle too.
        Network self(1, 1);
        self.addNode("acc", std::make_unique<Identity>(1));
        self.connect("in", "acc");
        QVERIFY(self.connect("acc", "acc").delayed);
        self.connect("acc", "out");
        QCOMPARE(self.evolve(Tensor(Shape{3, 1}, {1, 1, 1})).output[2], 3.0F);
    }

    void planGroupsCyclesAndBatchesTheRest()
    {
        auto net = mixedNetwork();
        const ExecutionPlan plan = compilePlan(*net);
        int lockStepGroups = 0;
        for (const auto& g : plan.groups) {
            if (g.lockStep) {
                ++lockStepGroups;
                QCOMPARE(g.nodes.size(), std::size_t(2));  // a and b
            } else {
                QCOMPARE(g.nodes.size(), std::size_t(1));
            }
        }
        QCOMPARE(lockStepGroups, 1);
        // drive runs before the cycle, the output after it.
        const int drive = plan.findNode("drive");
        const int a = plan.findNode("a");
        QVERIFY(plan.nodes[static_cast<std::size_t>(drive)].group <
                plan.nodes[static_cast<std::size_t>(a)].group);
        QVERIFY(plan.describe().find("b_to_a: b -> a via DenseProjection (delayed 1 step)") !=
                std::string::npos);
    }

    void timeBatchedEqualsLockStepAndAnyChunking()
    {
        const std::vector<ProbeRequest> probes{{"a", "spikes", {}}, {"b", "vmem", {}},
                                               {"a", "isyn", {0, 5}}, {"drive", "out", {}}};
        auto reference = mixedNetwork();
        const RunResult base = runFor(*reference, 600, 600, false, probes);
        QVERIFY2(count(base.probes[0]) > 20, "the test network must spike");
        for (const auto& [chunk, lockStep] :
             {std::pair<std::int64_t, bool>{600, true}, {1, false}, {7, false}, {64, true}}) {
            auto net = mixedNetwork();
            const RunResult r = runFor(*net, 600, chunk, lockStep, probes);
            QVERIFY2(identical(base, r), ("chunk " + std::to_string(chunk) +
                                          (lockStep ? " lock-step" : " time-batched")).c_str());
        }
    }

    void networkEvolveMatchesSequential()
    {
        auto seq = std::make_unique<Sequential>();
        seq->append(std::make_unique<LIF>(4, 4, false, AttributeMap{{"threshold", scalar(0.2F)}}));
        seq->append(std::make_unique<Linear>(4, 3, false));
        seq->append(std::make_unique<LIF>(3, 3));
        spike::tests::randomize(seq->getSubmodule("1"), 4);
        Network net(4, 3);
        net.addNode("0", std::make_unique<LIF>(4, 4, false, AttributeMap{{"threshold", scalar(0.2F)}}));
        net.addNode("1", std::make_unique<Linear>(4, 3, false));
        net.addNode("2", std::make_unique<LIF>(3, 3));
        spike::tests::randomize(net.getSubmodule("1"), 4);
        QCOMPARE(net.getSubmodule("1").tensor("weight").identical(seq->getSubmodule("1").tensor("weight")), true);
        net.connect("in", "0");
        net.connect("0", "1");
        net.connect("1", "2");
        net.connect("2", "out");
        const Tensor input = spike::tests::uniformTensor(Shape{2, 50, 4}, 9, 0.0, 0.3);
        const EvolveResult a = seq->evolve(input, RecordSpec({"0.vmem", "2.spikes"}));
        const EvolveResult b = net.evolve(input, RecordSpec({"0.vmem", "2.spikes"}));
        QVERIFY(a.output.identical(b.output));
        QVERIFY(a.record.at("0").at("vmem").data.identical(b.record.at("0").at("vmem").data));
        QVERIFY(a.record.at("2").at("spikes").data.identical(b.record.at("2").at("spikes").data));
        QVERIFY(b.record.at("2").at("spikes").spikes);
        // Batch semantics: stored state is batch element 0's, as for the Sequential.
        QVERIFY(seq->getSubmodule("0").tensor("vmem").identical(net.getSubmodule("0").tensor("vmem")));
        QCOMPARE(net.getSubmodule("2").stepsElapsed(), std::int64_t(50));
        QCOMPARE(net.stepsElapsed(), std::int64_t(50));
    }

    void nestedNetworksFlatten()
    {
        // outer: in → sub(in → lif → out) → out, against the same LIF wired flat.
        auto sub = std::make_unique<Network>(3, 3);
        sub->addNode("lif", std::make_unique<LIF>(3, 3, false, AttributeMap{{"threshold", scalar(0.1F)}}));
        sub->connect("in", "lif");
        sub->connect("lif", "out");
        Network outer(3, 3);
        outer.addNode("sub", std::move(sub));
        outer.connect("in", "sub");
        outer.connect("sub", "out");
        const auto names = outer.namedModules();
        QCOMPARE(names.back().first, std::string("sub.lif"));
        LIF flat(3, 3, false, AttributeMap{{"threshold", scalar(0.1F)}});
        const Tensor input = spike::tests::uniformTensor(Shape{40, 3}, 2, 0.0, 0.2);
        QVERIFY(outer.evolve(input).output.identical(flat.evolve(input).output));
        const ExecutionPlan plan = compilePlan(outer);
        QVERIFY(plan.findNode("sub.lif") >= 0);
        QVERIFY(plan.findNode("sub.in") >= 0);
    }

    void namedBoundaryPorts()
    {
        // sub: input ports "a" (3) and "b" (2) into two LIFs, output ports "x" (3) and "y" (2).
        const auto makeSub = [] {
            auto sub = std::make_unique<Network>(std::vector<BoundaryPort>{{"a", 3}, {"b", 2}},
                                                 std::vector<BoundaryPort>{{"x", 3}, {"y", 2}});
            sub->addNode("p", std::make_unique<LIF>(3, 3, false, AttributeMap{{"threshold", scalar(0.1F)}}));
            sub->addNode("q", std::make_unique<LIF>(2, 2, false, AttributeMap{{"threshold", scalar(0.2F)}}));
            sub->connect("in.a", "p");
            sub->connect("in.b", "q");
            sub->connect("p", "out.x");
            sub->connect("q", "out.y");
            return sub;
        };
        auto sub = makeSub();
        QCOMPARE(sub->sizeIn(), std::int64_t{5});
        QCOMPARE(sub->sizeOut(), std::int64_t{5});
        const auto ins = sub->inputPorts();
        QCOMPARE(ins.size(), std::size_t{2});
        QVERIFY(ins[1].name == "b" && ins[1].offset == 3 && ins[1].size == 2);
        QCOMPARE(sub->connections().front().from.toString(), std::string("in.a"));
        expectError([&] { sub->connect("in.c", "p"); },
                    "the network has no input port 'c' (input ports: 'a', 'b')");
        expectError([&] { sub->connect("p", "in.a"); }, "it can only be a connection's source");
        expectError([&] { sub->connect("in.b", "p"); }, "sizes differ");
        expectError([] { Network bad(std::vector<BoundaryPort>{{"a", 1}, {"a", 2}}, {}); }, "unique on their side");
        expectError([] { Network bad(std::vector<BoundaryPort>{{"in", 1}, {"a", 2}}, {}); },
                    "only when it is its side's only port");
        expectError([] { Network bad(std::vector<BoundaryPort>{{"a", 0}}, {}); }, "must have 1 to");

        // Nested with the ports wired from outside equals the same LIFs wired flat.
        const auto projection = [](std::int64_t n, std::int64_t m, unsigned seed) {
            auto w = std::make_unique<DenseProjection>(n, m);
            spike::tests::randomize(*w, seed);
            return w;
        };
        Network nested(std::vector<BoundaryPort>{{"in", 5}}, std::vector<BoundaryPort>{{"x", 3}, {"y", 2}});
        QVERIFY(nested.boundaryInputs().empty());  // one port called "in" is the unsplit input
        nested.addNode("sub", std::move(sub));
        nested.connect("in", "sub.a", projection(5, 3, 4));
        nested.connect("in", "sub.b", projection(5, 2, 5));
        nested.connect("sub.x", "out.x");
        nested.connect("sub.y", "out.y");
        Network flat(std::vector<BoundaryPort>{{"in", 5}}, std::vector<BoundaryPort>{{"x", 3}, {"y", 2}});
        flat.addNode("p", std::make_unique<LIF>(3, 3, false, AttributeMap{{"threshold", scalar(0.1F)}}));
        flat.addNode("q", std::make_unique<LIF>(2, 2, false, AttributeMap{{"threshold", scalar(0.2F)}}));
        flat.connect("in", "p", projection(5, 3, 4));
        flat.connect("in", "q", projection(5, 2, 5));
        flat.connect("p", "out.x");
        flat.connect("q", "out.y");
        const Tensor input = spike::tests::uniformTensor(Shape{60, 5}, 7, 0.0, 0.6);
        const Tensor expected = flat.evolve(input).output;
        QVERIFY(count(std::vector<float>(expected.data(), expected.data() + expected.numel())) > 0);
        QVERIFY(nested.evolve(input).output.identical(expected));

        // The model file keeps the ports, and the loaded network runs the same.
        nested.resetState();
        const nlohmann::json doc = modelToJson(nested);
        QCOMPARE(doc["model"]["config"]["output_ports"][1]["name"], nlohmann::json("y"));
        QVERIFY(doc["model"]["config"].contains("input_size"));
        auto back = modelFromJson(doc, "ports.json", ".").root;
        QVERIFY(back->evolve(input).output.identical(expected));
        nlohmann::json both = doc;
        both["model"]["config"]["output_size"] = 5;
        expectError([&] { (void)modelFromJson(both, "both.json", "."); }, "not both");
    }

    void everyNodeIsFoundByPathAndProbed()
    {
        // 3000 nodes: each path finds its own node (through the plan's index), the Input and
        // Output nodes (path "") and unknown paths find none, and probes of every node resolve.
        constexpr int kNodes = 3000;
        Network net(0, 0);
        QCOMPARE(addLifChain(net, kNodes, 2), 0);
        ExecutionPlan plan = compilePlan(net);
        for (int i = 0; i < kNodes; ++i) {
            const int k = plan.findNode("n" + std::to_string(i));
            QVERIFY(k >= 0);
            QCOMPARE(plan.nodes[static_cast<std::size_t>(k)].path, "n" + std::to_string(i));
            QCOMPARE(plan.nodes[static_cast<std::size_t>(k)].role, PlanNode::Role::Module);
        }
        QCOMPARE(plan.findNode(""), -1);
        QCOMPARE(plan.findNode("n3000"), -1);
        // A node added after compiling is found by searching; a renamed one once indexed again.
        PlanNode extra = plan.nodes.back();
        extra.path = "extra";
        plan.nodes.push_back(extra);
        QCOMPARE(plan.findNode("extra"), static_cast<int>(plan.nodes.size()) - 1);
        const int renamed = plan.findNode("n7");
        plan.nodes[static_cast<std::size_t>(renamed)].path = "seven";
        plan.indexNodes();
        QCOMPARE(plan.findNode("seven"), renamed);
        QCOMPARE(plan.findNode("n7"), -1);

        auto ex = makeCpuExecutor(net);
        std::vector<ProbeRequest> probes;
        for (int i = 0; i < kNodes; ++i) {
            probes.push_back({"n" + std::to_string(i), "vmem", {}});
        }
        const auto infos = ex->setProbes(probes);
        QCOMPARE(infos.size(), static_cast<std::size_t>(kNodes));
        QCOMPARE(infos.back().width, std::int64_t(2));
    }

    void probesResolveAndComplain()
    {
        auto net = mixedNetwork();
        auto ex = makeCpuExecutor(*net);
        expectError([&] { ex->setProbes({{"a", "voltage", {}}}); },
                    "LIF has no signal 'voltage' (signals: spikes, vmem, isyn)");
        expectError([&] { ex->setProbes({{"zz", "spikes", {}}}); }, "no module at path 'zz'");
        expectError([&] { ex->setProbes({{"b", "vmem", {6}}}); }, "index 6 is outside [0, 6)");
        const auto infos = ex->setProbes({{"b", "spikes", {1, 3}}, {"b", "vmem", {}}});
        QCOMPARE(infos[0].width, std::int64_t(2));
        QVERIFY(infos[0].spikes);
        QVERIFY(!infos[1].spikes);
        expectError([&] { ex->advance(33, nullptr, nullptr); }, "takes 1 to 32 steps");
    }

    void healthFindsNonFiniteState()
    {
        // Finite but enormous weights overflow a's synaptic current once b spikes.
        auto net = mixedNetwork();
        auto ex = makeCpuExecutor(*net);
        ex->advance(10, nullptr, nullptr);
        QVERIFY(!ex->findNonFinite().has_value());
        ex->storeStates();
        QVERIFY(net->setAttributes({{"b_to_a", {{"weight", Tensor(Shape{6, 8}, 3e38F)}}}}).ok);
        ex->loadStates(false);
        std::optional<NonFinite> bad;
        for (int chunk = 0; chunk < 20 && !bad; ++chunk) {
            ex->advance(32, nullptr, nullptr);
            bad = ex->findNonFinite();
        }
        QVERIFY(bad.has_value());
        QCOMPARE(bad->path, std::string("a"));
        QVERIFY2(bad->attribute == "isyn" || bad->attribute == "vmem", bad->attribute.c_str());
        QVERIFY(!std::isfinite(bad->value));
    }

    void modelFileRoundTripKeepsWiringAndDelays()
    {
        auto net = mixedNetwork();
        const auto dir = std::filesystem::temp_directory_path() / "spike_test_network";
        std::filesystem::create_directories(dir);
        const std::string path = (dir / "net.json").string();
        saveModel(path, *net);
        auto loaded = loadModel(path);
        auto* back = dynamic_cast<Network*>(loaded.get());
        QVERIFY(back != nullptr);
        QCOMPARE(back->connections().size(), net->connections().size());
        for (std::size_t i = 0; i < net->connections().size(); ++i) {
            QCOMPARE(back->connections()[i].name, net->connections()[i].name);
            QCOMPARE(back->connections()[i].delayed, net->connections()[i].delayed);
            QVERIFY(back->connections()[i].from == net->connections()[i].from);
        }
        spike::tests::compareTrees(*net, *back);
        const std::vector<ProbeRequest> probes{{"b", "spikes", {}}};
        QVERIFY(identical(runFor(*net, 200, 50, false, probes), runFor(*back, 200, 50, false, probes)));

        // The file records which edge is delayed: listing the back edge first with its flag
        // gives the same network; clearing the flag is refused, naming the connection.
        nlohmann::json doc = nlohmann::json::parse(std::ifstream(path));
        auto& conns = doc["model"]["connections"];
        std::rotate(conns.begin(), conns.begin() + 2, conns.begin() + 3);
        std::ofstream(path) << doc.dump();
        auto reordered = loadModel(path);
        QVERIFY(dynamic_cast<Network&>(*reordered).findConnection("b_to_a")->delayed);
        QVERIFY(!dynamic_cast<Network&>(*reordered).findConnection("a_to_b")->delayed);
        for (auto& c : conns) {
            c["delayed"] = false;
        }
        std::ofstream(path) << doc.dump();
        expectError([&] { (void)loadModel(path); }, "closes a cycle and must be delayed");
        std::filesystem::remove_all(dir);
    }

    void insertionAtAnIndexRestoresOrder()
    {
        auto net = mixedNetwork();
        const std::string before = modelToJson(*net).dump();
        // Take the middle node and connection out, put them back where they were.
        const std::size_t nodeIndex = 1;
        QCOMPARE(net->nodes()[nodeIndex].first, std::string("a"));
        std::vector<std::pair<std::size_t, Connection>> removed;
        std::vector<std::unique_ptr<Projection>> projections;
        for (std::size_t i = net->connections().size(); i-- > 0;) {
            const Connection c = net->connections()[i];
            if (c.from.node == "a" || c.to.node == "a") {
                removed.emplace_back(i, c);
                projections.push_back(net->disconnect(c.name));
                QVERIFY(projections.back() != nullptr);
            }
        }
        std::unique_ptr<Module> a = net->removeNode("a");
        QVERIFY(modelToJson(*net).dump() != before);
        net->insertNode(nodeIndex, "a", std::move(a));
        for (std::size_t k = removed.size(); k-- > 0;) {
            const auto& [i, c] = removed[k];
            net->insertConnection(i, c.from.toString(), c.to.toString(), std::move(projections[k]),
                                  c.name, c.delayed);
        }
        QCOMPARE(modelToJson(*net).dump(), before);
        expectError([&] { net->insertNode(9, "x", std::make_unique<LIF>(2, 2)); }, "position 9");
        expectError([&] { net->insertConnection(9, "b", "out"); }, "position 9");
        expectError([&] { (void)net->connectionIndex("nope"); }, "no connection 'nope'");
        // A refused insertion leaves the projection and the node with the caller.
        std::unique_ptr<Projection> wrong = std::make_unique<DenseProjection>(2, 3);
        expectError([&] { net->insertConnection(0, "b", "a", std::move(wrong)); },
                    "expected shape (6, 8)");
        QVERIFY(wrong != nullptr);
        auto extra = std::unique_ptr<Module>(std::make_unique<LIF>(2, 2));
        expectError([&] { net->insertNode(0, "b", std::move(extra)); }, "'b' is taken");
        QVERIFY(extra != nullptr);
        QCOMPARE(modelToJson(*net).dump(), before);
    }

    void renamingKeepsWiringAndBehaviour()
    {
        auto net = mixedNetwork();
        auto reference = mixedNetwork();
        net->renameNode("a", "alpha");
        net->renameConnection("a_to_b", "forward");
        QVERIFY(net->findConnection("forward") != nullptr);
        QCOMPARE(net->findConnection("forward")->from.node, std::string("alpha"));
        QCOMPARE(net->findConnection("b_to_a")->to.node, std::string("alpha"));
        QVERIFY(net->projection("forward") != nullptr);
        QCOMPARE(net->nodes()[1].first, std::string("alpha"));
        const std::vector<ProbeRequest> probes{{"b", "spikes", {}}};
        const RunResult renamed = runFor(*net, 120, 40, false, probes);
        const RunResult original = runFor(*reference, 120, 40, false, probes);
        QVERIFY(renamed.output.identical(original.output));
        QVERIFY(renamed.probes == original.probes);
        QVERIFY(std::any_of(renamed.probes[0].begin(), renamed.probes[0].end(),
                            [](float v) { return v != 0.0F; }));
        expectError([&] { net->renameNode("alpha", "b"); }, "'b' is taken");
        expectError([&] { net->renameNode("alpha", "forward"); }, "'forward' is taken");
        expectError([&] { net->renameNode("alpha", "in"); }, "invalid node name 'in'");
        expectError([&] { net->renameNode("forward", "x"); }, "is a connection's projection");
        expectError([&] { net->renameConnection("forward", "a.b"); }, "invalid connection name");
        expectError([&] { net->renameConnection("missing", "x"); }, "no connection 'missing'");
        net->renameNode("alpha", "a");
        net->renameConnection("forward", "a_to_b");
        QCOMPARE(modelToJson(*net).dump(), modelToJson(*reference).dump());
    }

    void cycleTestAndLookupsFollowEveryEdit()
    {
        // The names and cycle edges Network keeps beside its lists (connection_index.cpp) must
        // follow renames, removals and insertions at a position, or a cycle would run undelayed.
        Network net(0, 0);
        for (const char* name : {"a", "b", "c", "d"}) {
            net.addNode(name, std::make_unique<LIF>(2, 2));
        }
        net.connect("a", "b");
        net.connect("b", "c");
        net.renameNode("b", "x");
        QCOMPARE(&net.getSubmodule("x"), &net.childAt(1));
        QCOMPARE(net.findChild("b"), static_cast<Module*>(nullptr));
        QVERIFY(net.connect("c", "a").delayed);  // a -> x -> c -> a, through the renamed node
        expectError([&] { net.connect("c", "x", nullptr, "back", false); },
                    "connection 'back' from 'c.spikes' (size 2) to 'x.in' (size 2) closes a cycle");
        net.disconnect("c_to_a");
        net.disconnect("b_to_c");
        QVERIFY(!net.connect("c", "a").delayed);  // x no longer reaches c
        net.connect("x", "d", nullptr, "late", true);
        QVERIFY(!net.connect("d", "a").delayed);  // only through a delayed connection
        // Positions after an insertion at the front and a removal from the middle.
        net.insertConnection(0, "d", "c", nullptr, "first");
        net.disconnect("late");
        for (std::size_t i = 0; i < net.connections().size(); ++i) {
            const std::string& name = net.connections()[i].name;
            QCOMPARE(net.connectionIndex(name), i);
            QCOMPARE(net.findConnection(name), &net.connections()[i]);
        }
        QCOMPARE(net.findConnection("late"), static_cast<const Connection*>(nullptr));
        net.renameConnection("first", "d_into_c");
        QCOMPARE(net.connectionIndex("d_into_c"), std::size_t{0});
        expectError([&] { (void)net.connectionIndex("first"); }, "no connection 'first'");
        expectError([&] { net.addNode("d_into_c", std::make_unique<LIF>(2, 2)); },
                    "'d_into_c' already names a connection");
        // Removing a node drops its connections and edges: c -> a closes no cycle through d.
        std::unique_ptr<Module> d = net.removeNode("d");
        QCOMPARE(net.findChild("d"), static_cast<Module*>(nullptr));
        QCOMPARE(net.connectionIndex("c_to_a"), std::size_t{1});
        net.insertNode(0, "d", std::move(d));
        QCOMPARE(net.childAt(0).name(), std::string("d"));
        QVERIFY(net.connect("a", "d").delayed == false);
        QVERIFY(net.connect("d", "c").delayed);  // c -> a -> d -> c
    }

    void longChainLoadsAndItsClosingConnectionIsDelayed()
    {
        // 5000 nodes in a chain, connected in file order, then the last back to the first: the
        // cycle is found across the whole chain (each connection's cycle test walks only what
        // its target reaches, so building the chain costs linear time).
        constexpr int kNodes = 5000;
        Network net(0, 0);
        QCOMPARE(addLifChain(net, kNodes, 1), 0);
        const Connection& back = net.connect("n" + std::to_string(kNodes - 1), "n0");
        QVERIFY(back.delayed);
        QCOMPARE(net.connectionIndex(back.name), static_cast<std::size_t>(kNodes - 1));
        QCOMPARE(net.nodes().size(), static_cast<std::size_t>(kNodes));
    }
};

QTEST_GUILESS_MAIN(TestNetwork)
#include "test_network.moc"
