// DI-engine's composite blocks on their own: ResBlock (basic, bottleneck, downsample) against
// compositions of Conv2d / BatchNorm2d / ReLU, including evolve() and shape errors, and MLP's
// layer layout (norms, activations, zero-initialised last layer) and option errors.
#include "engine/layers/activations.hpp"
#include "engine/layers/conv2d.hpp"
#include "engine/composites/mlp.hpp"
#include "engine/layers/normalization.hpp"
#include "engine/tensor/random.hpp"
#include "engine/composites/resblock.hpp"
#include "tests/layer_test_helpers.hpp"

#include <QtTest/QtTest>

#include <string>
#include <utility>
#include <vector>

using namespace spike::engine;  // NOLINT: test file
using spike::tests::expectClose;
using spike::tests::expectError;
using spike::tests::keysOf;
using spike::tests::randomize;

namespace {

Tensor randomTensor(Shape shape, std::uint64_t seed, double lo = -1, double hi = 1)
{
    return spike::tests::uniformTensor(shape, seed, lo, hi);
}

/// The entries of `dict` under "prefix.", with the prefix removed.
StateDict subDict(const StateDict& dict, const std::string& prefix)
{
    StateDict out;
    for (const auto& [k, v] : dict) {
        if (k.rfind(prefix + ".", 0) == 0) {
            out.emplace_back(k.substr(prefix.size() + 1), v);
        }
    }
    return out;
}

void loadInto(Module& m, const StateDict& dict)
{
    const auto r = m.loadStateDict(dict, true);
    QVERIFY2(r.status.ok, r.status.message.c_str());
}

}  // namespace

class TestComposites : public QObject {
    Q_OBJECT

private slots:
    void resBlockBasicMatchesItsComposition()
    {
        ResBlockOptions o;
        o.inputSize = {5, 4};
        o.bias = false;
        ResBlock block(3, o);
        QCOMPARE(keysOf(block.stateDict()),
                 (std::vector<std::string>{"conv1.0.weight", "conv1.1.weight", "conv1.1.bias",
                                           "conv1.1.running_mean", "conv1.1.running_var",
                                           "conv1.1.num_batches_tracked", "conv2.0.weight",
                                           "conv2.1.weight", "conv2.1.bias", "conv2.1.running_mean",
                                           "conv2.1.running_var", "conv2.1.num_batches_tracked"}));
        randomize(block, 20);
        block.eval();
        const StateDict dict = block.stateDict();
        Conv2d c1(3, 3, {3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, false);
        Conv2d c2(3, 3, {3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, false);
        BatchNorm2d n1(3);
        BatchNorm2d n2(3);
        ReLU relu;
        loadInto(c1, subDict(dict, "conv1.0"));
        loadInto(n1, subDict(dict, "conv1.1"));
        loadInto(c2, subDict(dict, "conv2.0"));
        loadInto(n2, subDict(dict, "conv2.1"));
        n1.eval();
        n2.eval();
        const Tensor x = randomTensor(Shape{2, 3, 5, 4}, 21, -2, 2);
        Tensor y = n2.forward(c2.forward(relu.forward(n1.forward(c1.forward(x)))));
        y.flat() += x.flat();
        const Tensor expected = relu.forward(y);
        QVERIFY(block.forward(x).identical(expected));
        // evolve: one (C*H*W) sample per step.
        const Tensor series = block.evolve(x.reshaped(Shape{2, 60})).output;
        expectClose(series, expected, 1e-6, 1e-6, "evolve");
        QCOMPARE(block.shape(), (std::vector<std::int64_t>{60}));
    }

    void resBlockBottleneckMatchesItsComposition()
    {
        ResBlockOptions o;
        o.resType = "bottleneck";
        o.inputSize = {4, 4};
        ResBlock block(4, o);
        randomize(block, 30);
        block.eval();
        const StateDict dict = block.stateDict();
        Conv2d c1(4, 4, {1, 1});
        Conv2d c2(4, 4, {3, 3}, {1, 1}, {1, 1});
        Conv2d c3(4, 4, {1, 1});
        BatchNorm2d n1(4);
        BatchNorm2d n2(4);
        BatchNorm2d n3(4);
        ReLU relu;
        int i = 1;
        for (auto [conv, norm] : {std::pair<Module*, Module*>{&c1, &n1}, {&c2, &n2}, {&c3, &n3}}) {
            loadInto(*conv, subDict(dict, "conv" + std::to_string(i) + ".0"));
            loadInto(*norm, subDict(dict, "conv" + std::to_string(i) + ".1"));
            norm->eval();
            ++i;
        }
        QVERIFY(block.getSubmodule("conv1.0").tensor("bias").numel() == 4);  // bias by default
        const Tensor x = randomTensor(Shape{3, 4, 4, 4}, 31, -2, 2);
        Tensor y = relu.forward(n1.forward(c1.forward(x)));
        y = n3.forward(c3.forward(relu.forward(n2.forward(c2.forward(y)))));
        y.flat() += x.flat();
        QVERIFY(block.forward(x).identical(relu.forward(y)));
        std::vector<std::string> conv3;
        for (const auto& [n, m] : block.getSubmodule("conv3").namedChildren()) {
            conv3.push_back(m->className());
        }
        QCOMPARE(conv3, (std::vector<std::string>{"Conv2d", "BatchNorm2d"}));
        o.outChannels = 5;
        expectError([&] { ResBlock bad(4, o); }, "out_channels must equal in_channels (4), got 5");
    }

    void resBlockDownsampleMatchesItsComposition()
    {
        ResBlockOptions o;
        o.resType = "downsample";
        o.outChannels = 6;
        o.inputSize = {7, 6};
        ResBlock block(3, o);
        QCOMPARE(block.outputSize(), (Size2{4, 3}));
        QCOMPARE(block.shape(), (std::vector<std::int64_t>{3 * 42, 6 * 12}));
        randomize(block, 40);
        block.eval();
        const StateDict dict = block.stateDict();
        QCOMPARE(keysOf(subDict(dict, "conv3")), (std::vector<std::string>{"0.weight", "0.bias"}));
        Conv2d c1(3, 6, {3, 3}, {2, 2}, {1, 1});
        Conv2d c2(6, 6, {3, 3}, {1, 1}, {1, 1});
        Conv2d c3(3, 6, {3, 3}, {2, 2}, {1, 1});
        BatchNorm2d n1(6);
        BatchNorm2d n2(6);
        ReLU relu;
        loadInto(c1, subDict(dict, "conv1.0"));
        loadInto(n1, subDict(dict, "conv1.1"));
        loadInto(c2, subDict(dict, "conv2.0"));
        loadInto(n2, subDict(dict, "conv2.1"));
        loadInto(c3, subDict(dict, "conv3.0"));
        n1.eval();
        n2.eval();
        const Tensor x = randomTensor(Shape{2, 3, 7, 6}, 41, -2, 2);
        Tensor y = n2.forward(c2.forward(relu.forward(n1.forward(c1.forward(x)))));
        y.flat() += c3.forward(x).flat();
        const Tensor expected = relu.forward(y);
        QVERIFY(block.forward(x).identical(expected));
        expectClose(block.evolve(x.reshaped(Shape{2, 126})).output, expected, 1e-6, 1e-6, "evolve");
        expectError([&] { block.forward(Tensor(Shape{2, 4, 7, 6})); },
                    "ResBlock (root): expected input (N, 3, H, W), got (2, 4, 7, 6)");
    }

    void mlpLayoutFollowsDiEngine()
    {
        MlpOptions o;
        o.normType = "BN";
        o.outputActivation = false;
        o.outputNorm = false;
        MLP head(32, 16, 21, 2, o);
        std::vector<std::string> layout;
        for (const auto& [n, m] : head.namedChildren()) {
            layout.push_back(n + ":" + m->className());
        }
        QCOMPARE(layout, (std::vector<std::string>{"0:Linear", "1:BatchNorm1d", "2:ReLU", "3:Linear"}));
        QCOMPARE(head.shape(), (std::vector<std::int64_t>{32, 21}));
        randomize(head, 50);
        head.eval();
        const Tensor x = randomTensor(Shape{5, 32}, 51);
        const Tensor manual = head.getSubmodule("3").forward(head.getSubmodule("2").forward(
            head.getSubmodule("1").forward(head.getSubmodule("0").forward(x))));
        QVERIFY(head.forward(x).identical(manual));
        expectClose(head.evolve(x).output, manual, 1e-5, 1e-5, "evolve");

        // Defaults: output norm and activation too; LN; three layers; zero-initialised last layer.
        MlpOptions ln;
        ln.normType = "LN";
        ln.activation = "Tanh";
        ln.lastLinearLayerInitZero = true;
        MLP deep(4, 6, 3, 3, ln);
        layout.clear();
        for (const auto& [n, m] : deep.namedChildren()) {
            layout.push_back(m->className());
        }
        QCOMPARE(layout, (std::vector<std::string>{"Linear", "LayerNorm", "Tanh", "Linear",
                                                   "LayerNorm", "Tanh", "Linear", "LayerNorm",
                                                   "Tanh"}));
        QVERIFY(deep.getSubmodule("6").tensor("weight").identical(Tensor(Shape{3, 6})));
        QVERIFY(deep.getSubmodule("6").tensor("bias").identical(Tensor(Shape{3})));
        QVERIFY(!deep.getSubmodule("3").tensor("weight").identical(Tensor(Shape{6, 6})));
        // The hidden Linears draw different weights.
        QVERIFY(!deep.getSubmodule("3").tensor("bias").identical(
            MLP(6, 6, 3, 3, ln).getSubmodule("0").tensor("bias")));
        MlpOptions plain;
        plain.activation = "none";
        MLP single(4, 9, 2, 1, plain);
        QCOMPARE(single.childCount(), std::size_t{1});
        QCOMPARE(MLP(4, 9, 2, 0, plain).getSubmodule("0").className(), std::string("Identity"));
        expectError([] { MLP(4, 9, 2, 1, MlpOptions{.activation = "ELU"}); },
                    "MLP: activation must be one of 'ReLU', 'GELU', 'Tanh', 'Sigmoid', 'none'; got 'ELU'");
    }
};

QTEST_GUILESS_MAIN(TestComposites)
#include "test_composites.moc"
