// Containers beyond evolve(): ModuleList (index names, no size chaining, no forward of its own,
// nested state-dict keys, model files) and Sequential::forward chaining its children's forward().
#include "tests/layer_test_helpers.hpp"
#include "engine/layers/activations.hpp"
#include "engine/neurons/lif.hpp"
#include "engine/layers/linear.hpp"
#include "engine/layers/lstm.hpp"
#include "engine/io/model_io.hpp"
#include "engine/io/module_factory.hpp"
#include "engine/layers/module_list.hpp"
#include "engine/tensor/random.hpp"
#include "engine/layers/sequential.hpp"

#include <QtTest/QtTest>

#include <QTemporaryDir>

using namespace spike::engine;  // NOLINT: test file

using spike::tests::expectError;
using spike::tests::keysOf;

namespace {

Tensor randomTensor(Shape shape, std::uint64_t seed, double lo = -1, double hi = 1)
{
    return spike::tests::uniformTensor(shape, seed, lo, hi);
}

/// Sequential with one child "blocks": ModuleList(Linear(2, 3), Linear(3, 1, no bias)).
std::unique_ptr<Sequential> nestedModel()
{
    auto list = std::make_unique<ModuleList>();
    list->append(std::make_unique<Linear>(2, 3, true, AttributeMap{{"seed", Tensor::scalar(4)}}));
    list->append(std::make_unique<Linear>(3, 1, false));
    auto seq = std::make_unique<Sequential>();
    seq->appendNamed("blocks", std::move(list));
    return seq;
}

}  // namespace

class TestContainers : public QObject {
    Q_OBJECT

private slots:
    void moduleListNamesChildrenByIndex()
    {
        ModuleList list;
        QCOMPARE(list.size(), std::size_t{0});
        // No size chaining: any modules, in any order.
        list.append(std::make_unique<Linear>(3, 4));
        list.append(std::make_unique<ReLU>(7));
        list.append(std::make_unique<LIF>(2, 2));
        QCOMPARE(list.size(), std::size_t{3});
        std::vector<std::string> names;
        for (const auto& [n, m] : list.namedChildren()) {
            names.push_back(n);
        }
        QCOMPARE(names, (std::vector<std::string>{"0", "1", "2"}));
        QCOMPARE(list.at(1).className(), std::string("ReLU"));
        QCOMPARE(&list.at(2), &list.getSubmodule("2"));
        QCOMPARE(list.at(2).fullName(), std::string("2"));
        expectError([&] { list.at(3); }, "ModuleList (root): index 3 is out of range (size 3)");
        expectError([&] { list.append(nullptr); }, "cannot append an empty module");
        expectError([&] { list.appendNamed("x", std::make_unique<ReLU>()); },
                    "named by their index; expected '3', got 'x'");
        QVERIFY(list.appendNamed("3", std::make_unique<Tanh>()).className() == "Tanh");
        QCOMPARE(list.toString(), std::string("ModuleList(\n  (0): Linear(in_features=3, out_features=4, bias=True)\n"
                                              "  (1): ReLU()\n  (2): LIF(shape=(2, 2), leak_mode=taus)\n"
                                              "  (3): Tanh()\n)"));
        std::vector<std::unique_ptr<Module>> children;
        children.push_back(std::make_unique<Linear>(1, 2));
        children.push_back(std::make_unique<Linear>(5, 6));
        QCOMPARE(ModuleList(std::move(children)).size(), std::size_t{2});
    }

    void nestedStateDictKeys()
    {
        auto seq = nestedModel();
        QCOMPARE(keysOf(seq->stateDict()),
                 (std::vector<std::string>{"blocks.0.weight", "blocks.0.bias", "blocks.1.weight"}));
        QCOMPARE(seq->getSubmodule("blocks.1").fullName(), std::string("blocks.1"));
        // A state dict keyed like PyTorch's loads strictly.
        auto other = nestedModel();
        StateDict dict = seq->stateDict();
        for (auto& [k, v] : dict) {
            v.fill(0.5F);
        }
        const auto r = other->loadStateDict(dict, true);
        QVERIFY2(r.status.ok, r.status.message.c_str());
        QVERIFY(other->getSubmodule("blocks.0").tensor("bias").identical(Tensor(Shape{3}, 0.5F)));
    }

    void moduleListHasNoForward()
    {
        ModuleList list;
        list.append(std::make_unique<Linear>(2, 2));
        expectError([&] { list.forward(Tensor(Shape{3, 2})); },
                    "ModuleList (root): a ModuleList has no forward of its own (as in PyTorch); the "
                    "module that owns it calls its children");
        expectError([&] { list.evolve(Tensor(Shape{3, 0})); }, "has no forward of its own");
        // Any input gets the list's own reason, not a generic channel-count complaint.
        expectError([&] { list.evolve(Tensor(Shape{3, 4})); }, "has no forward of its own");
        auto seq = nestedModel();
        expectError([&] { seq->forward(Tensor(Shape{3, 2})); },
                    "ModuleList 'blocks': a ModuleList has no forward of its own");
        // Its owner calls the children.
        const Tensor x = randomTensor(Shape{4, 2}, 1);
        const auto& blocks = dynamic_cast<const ModuleList&>(seq->getSubmodule("blocks"));
        const Tensor y = blocks.at(1).forward(blocks.at(0).forward(x));
        QCOMPARE(y.shape(), (Shape{4, 1}));
    }

    void sequentialForwardChainsChildren()
    {
        Sequential seq;
        seq.append(std::make_unique<Linear>(4, 3));
        seq.append(std::make_unique<Tanh>(3));
        seq.append(std::make_unique<Linear>(3, 2, true, AttributeMap{{"seed", Tensor::scalar(1)}}));
        for (const Shape& shape : {Shape{5, 4}, Shape{2, 5, 4}, Shape{4}}) {
            const Tensor x = randomTensor(shape, 2, -3, 3);
            const Tensor manual =
                seq.getSubmodule("2").forward(seq.getSubmodule("1").forward(seq.getSubmodule("0").forward(x)));
            QVERIFY(seq.forward(x).identical(manual));
        }

        // Hooks: the Sequential's own around the chain, each child's around its call.
        const Tensor x = randomTensor(Shape{5, 4}, 3);
        Tensor x2 = x;
        x2.flat() *= 2.0F;
        const Tensor expected = seq.forward(x2);
        int outer = 0;
        int inner = 0;
        auto pre = seq.registerForwardPreHook([&](Module&, const Tensor& in) {
            ++outer;
            Tensor doubled = in;
            doubled.flat() *= 2.0F;
            return std::optional<Tensor>(doubled);
        });
        auto post = seq.getSubmodule("1").registerForwardHook(
            [&](Module&, const Tensor&, const Tensor&) { ++inner; return std::optional<Tensor>(); });
        QVERIFY(seq.forward(x).identical(expected));
        QCOMPARE(outer, 1);
        QCOMPARE(inner, 1);
        pre.remove();
        post.remove();

        // A torch composite: Linear then LSTM on (L, N, features).
        Sequential rnn;
        rnn.append(std::make_unique<Linear>(4, 6));
        rnn.append(std::make_unique<LSTM>(6, 5));
        const Tensor seqInput = randomTensor(Shape{7, 2, 4}, 4);
        const Tensor out = rnn.forward(seqInput);
        QCOMPARE(out.shape(), (Shape{7, 2, 5}));
        QVERIFY(out.identical(rnn.getSubmodule("1").forward(rnn.getSubmodule("0").forward(seqInput))));

        // Time-series children: forward() is their evolve, one child after another.
        Sequential a;
        Sequential b;
        for (Sequential* s : {&a, &b}) {
            s->append(std::make_unique<Linear>(3, 4));
            s->append(std::make_unique<LIF>(4, 4));
        }
        const Tensor drive = randomTensor(Shape{20, 3}, 5, 0, 2);
        QVERIFY(a.forward(drive).identical(b.evolve(drive).output));
        expectError([] { Sequential().forward(Tensor(Shape{2})); }, "Sequential (root): is empty");
        expectError([&] { seq.append(std::make_unique<ReLU>(5)); },
                    "cannot append ReLU '3' with input size 5 after Linear '2' with output size 2");
    }

    void longSequentialKeepsShapeNamesAndLookups()
    {
        // 20000 children: each append looks at its neighbours by position and each name is
        // checked by lookup, so the chain is built in linear time (it took 20 s for 50000 when
        // every append copied the list of children and compared every name).
        constexpr std::size_t kChildren = 20000;
        Sequential seq;
        for (std::size_t i = 0; i + 1 < kChildren; ++i) {
            seq.append(std::make_unique<ReLU>(4));
        }
        seq.append(std::make_unique<Linear>(4, 2));
        QCOMPARE(seq.childCount(), kChildren);
        QCOMPARE(seq.sizeIn(), std::int64_t{4});
        QCOMPARE(seq.sizeOut(), std::int64_t{2});
        QCOMPARE(seq.childAt(kChildren - 1).name(), std::string("19999"));
        QCOMPARE(seq.childAt(kChildren - 1).className(), std::string("Linear"));
        QCOMPARE(&seq.getSubmodule("12345"), &seq.childAt(12345));
        QCOMPARE(seq.findChild("20000"), static_cast<Module*>(nullptr));
        expectError([&] { seq.appendNamed("7", std::make_unique<ReLU>(2)); },
                    "a child named '7' already exists");
        expectError([&] { seq.childAt(kChildren); }, "has no child at position 20000 (it has 20000 children)");
        const Tensor x = randomTensor(Shape{3, 4}, 6, -1, 1);
        QVERIFY(seq.forward(x).identical(seq.childAt(kChildren - 1).forward(ReLU(4).forward(x))));
    }

    void modelFileRoundTripWithModuleList()
    {
        QTemporaryDir dir;
        auto seq = nestedModel();
        auto& blocks = dynamic_cast<ModuleList&>(seq->getSubmodule("blocks"));
        blocks.append(std::make_unique<LSTM>(3, 2, 2));
        const std::string path = dir.filePath("list.json").toStdString();
        saveModel(path, *seq);
        auto loaded = loadModel(path);
        QCOMPARE(loaded->toString(), seq->toString());
        QCOMPARE(loaded->getSubmodule("blocks").className(), std::string("ModuleList"));
        const StateDict want = seq->stateDict();
        const StateDict got = loaded->stateDict();
        QCOMPARE(keysOf(got), keysOf(want));
        QCOMPARE(keysOf(got).back(), std::string("blocks.2.bias_hh_l1"));
        for (std::size_t i = 0; i < want.size(); ++i) {
            QVERIFY2(got[i].second.identical(want[i].second), want[i].first.c_str());
        }

        const ModuleTypeInfo* info = findModuleType("ModuleList");
        QVERIFY(info != nullptr);
        QCOMPARE(info->category, std::string("containers"));
        QVERIFY(info->container);
        QVERIFY(info->create(info->exampleConfig) != nullptr);

        // A child not named by its index is refused with the file position.
        const nlohmann::json doc = {
            {"format", "spikestudio.model"},
            {"version", 1},
            {"model", {{"type", "ModuleList"},
                       {"children", {{{"type", "ReLU"}, {"name", "relu"}}}}}}};
        expectError([&] { modelFromJson(doc, "doc", "."); },
                    "/model/children/0: ModuleList (root): children of a ModuleList are named by their index");
    }
};

QTEST_GUILESS_MAIN(TestContainers)
#include "test_containers.moc"
