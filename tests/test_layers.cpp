// Layers and activations: the torch reference cases (act_*, linear), identities the math
// guarantees, NaN propagation, shape errors, the per-time-step evolve adapter, hooks on
// forward(), initialisation, and model-file round trips. Conv2d, BatchNorm and LayerNorm are
// covered by test_conv_norm.cpp.
#include "engine/layers/activations.hpp"
#include "engine/layers/linear.hpp"
#include "engine/io/model_io.hpp"
#include "engine/io/module_factory.hpp"
#include "engine/tensor/random.hpp"
#include "engine/layers/sequential.hpp"
#include "tests/layer_test_helpers.hpp"
#include "tests/reference_case.hpp"

#include <QtTest/QtTest>

#include <QTemporaryDir>

#include <cmath>

using namespace spike::engine;  // NOLINT: test file
using spike::tests::ReferenceCase;

namespace {

std::unique_ptr<Layer> activationFromCase(const ReferenceCase& c)
{
    const std::string type = c.json.at("module").get<std::string>();
    const auto& p = c.json.at("params");
    if (type == "GELU") {
        return std::make_unique<GELU>(1, p.value("approximate", "none"));
    }
    if (type == "PReLU") {
        auto m = std::make_unique<PReLU>(p.at("num_parameters").get<std::int64_t>());
        if (!m->setAttribute("weight", c.named("params", "weight")).ok) {
            throw std::runtime_error("weight rejected");
        }
        return m;
    }
    if (type == "Threshold") {
        return std::make_unique<Threshold>(p.at("threshold").get<float>(), p.at("value").get<float>());
    }
    if (type == "ReLU") {
        return std::make_unique<ReLU>();
    }
    if (type == "Sigmoid") {
        return std::make_unique<Sigmoid>();
    }
    if (type == "Tanh") {
        return std::make_unique<Tanh>();
    }
    throw std::runtime_error("unknown module " + type);
}

Tensor randomTensor(Shape shape, std::uint64_t seed, double lo = -4, double hi = 4)
{
    return spike::tests::uniformTensor(shape, seed, lo, hi);
}

}  // namespace

class TestLayers : public QObject {
    Q_OBJECT

private slots:
    void activationReferenceCases_data()
    {
        QTest::addColumn<QString>("name");
        for (const char* n : {"act_gelu", "act_gelu_tanh", "act_prelu", "act_relu", "act_sigmoid",
                              "act_tanh", "act_threshold"}) {
            QTest::newRow(n) << QString(n);
        }
    }

    void activationReferenceCases()
    {
        QFETCH(QString, name);
        const auto c = ReferenceCase::load(name.toStdString());
        auto layer = activationFromCase(c);
        const Tensor input = c.array(c.json.at("input").get<std::string>());
        const Tensor expected = c.named("expected", "output");
        const Tensor out = layer->forward(input);
        QCOMPARE(out.shape(), expected.shape());
        const double excess = spike::tests::toleranceExcess(out, expected, c.atol(), c.rtol());
        QVERIFY2(excess <= 0.0, ("exceeds tolerance by " + std::to_string(excess)).c_str());
    }

    void linearReferenceCase()
    {
        const auto c = ReferenceCase::load("linear");
        const auto& p = c.json.at("params");
        Linear linear(p.at("in_features").get<std::int64_t>(), p.at("out_features").get<std::int64_t>(),
                      true, {{"weight", c.named("params", "weight")}, {"bias", c.named("params", "bias")}});
        const Tensor out = linear.forward(c.array("input.npy"));
        const Tensor expected = c.named("expected", "output");
        QCOMPARE(out.shape(), expected.shape());
        QVERIFY(spike::tests::toleranceExcess(out, expected, c.atol(), c.rtol()) <= 0.0);
        // Leading axes are batch axes: (2, 10, 7) gives the same rows.
        const Tensor batched = linear.forward(c.array("input.npy").reshaped(Shape{2, 10, 7}));
        QCOMPARE(batched.shape(), (Shape{2, 10, 3}));
        QVERIFY(spike::tests::toleranceExcess(batched, expected, 1e-6, 0) <= 0.0);
    }

    void mathematicalIdentities()
    {
        const Tensor x = randomTensor(Shape{500}, 1, -10, 10);
        Tensor negX(x.shape());
        for (std::int64_t i = 0; i < x.numel(); ++i) {
            negX[i] = -x[i];
        }
        Sigmoid sigmoid;
        Tanh tanh;
        GELU gelu;
        ReLU relu;
        const Tensor s = sigmoid.forward(x);
        const Tensor sNeg = sigmoid.forward(negX);
        const Tensor t = tanh.forward(x);
        const Tensor tNeg = tanh.forward(negX);
        const Tensor g = gelu.forward(x);
        const Tensor gNeg = gelu.forward(negX);
        const Tensor r = relu.forward(x);
        const Tensor rNeg = relu.forward(negX);
        for (std::int64_t i = 0; i < x.numel(); ++i) {
            QVERIFY(std::abs(s[i] - (1.0F - sNeg[i])) < 1e-6F);               // sigmoid(x) = 1 - sigmoid(-x)
            QCOMPARE(t[i], -tNeg[i]);                                          // tanh is odd
            QVERIFY(std::abs(t[i] - (2.0F * sigmoid.forward(Tensor::scalar(2 * x[i]))[0] - 1.0F)) < 1e-5F);
            QVERIFY(std::abs((g[i] - gNeg[i]) - x[i]) < 1e-5F * (1 + std::abs(x[i])));  // gelu(x) - gelu(-x) = x
            QCOMPARE(r[i] - rNeg[i], x[i]);                                    // relu(x) - relu(-x) = x
            QVERIFY(s[i] > 0.0F && s[i] <= 1.0F);
        }
    }

    void nanPropagatesAndEmptyIsRejected()
    {
        Tensor x(Shape{3}, std::vector<float>{NAN, 1.0F, -1.0F});
        std::vector<std::unique_ptr<Layer>> layers;
        layers.push_back(std::make_unique<ReLU>());
        layers.push_back(std::make_unique<Sigmoid>());
        layers.push_back(std::make_unique<Tanh>());
        layers.push_back(std::make_unique<GELU>(1, "none"));
        layers.push_back(std::make_unique<GELU>(1, "tanh"));
        layers.push_back(std::make_unique<PReLU>());
        layers.push_back(std::make_unique<Identity>());
        for (auto& l : layers) {
            const Tensor y = l->forward(x);
            QVERIFY2(std::isnan(y[0]), l->className().c_str());
            QVERIFY(!std::isnan(y[1]));
        }
        Linear linear(3, 2);
        QVERIFY(std::isnan(linear.forward(Tensor(Shape{1, 3}, std::vector<float>{NAN, 0, 0}))[0]));
        try {
            ReLU().forward(Tensor(Shape{0, 4}));
            QFAIL("empty input accepted");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("is empty") != std::string::npos, e.what());
        }
    }

    void shapeErrorsNameTheProblem()
    {
        PReLU prelu(5);
        try {
            prelu.forward(Tensor(Shape{8, 4}));
            QFAIL("wrong channel count accepted");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("has 4 channels on axis 1, expected 5") != std::string::npos, e.what());
        }
        QCOMPARE(prelu.forward(Tensor(Shape{2, 5, 3}, -1.0F))[0], -0.25F);  // axis 1 of (N, C, L)
        Linear linear(7, 3);
        try {
            linear.forward(Tensor(Shape{4, 6}));
            QFAIL("wrong feature count accepted");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("has 6 features in its last axis, expected 7") != std::string::npos, e.what());
        }
        QVERIFY_THROWS_EXCEPTION(Error, Linear(0, 3));
        QVERIFY_THROWS_EXCEPTION(Error, PReLU(0));
        QVERIFY(!prelu.setAttribute("weight", Tensor(Shape{4})).ok);
    }

    void linearInitialisationFollowsPyTorch()
    {
        Linear a(50, 20);
        Linear b(50, 20);
        const Tensor& w = a.tensor("weight");
        const float bound = 1.0F / std::sqrt(50.0F);
        QCOMPARE(w.shape(), (Shape{20, 50}));
        QVERIFY(w.flat().abs().maxCoeff() <= bound);
        QVERIFY(w.flat().abs().maxCoeff() > 0.9F * bound);     // fills the interval
        QVERIFY(std::abs(w.flat().mean()) < 0.1F * bound);     // centred
        QVERIFY(a.tensor("bias").flat().abs().maxCoeff() <= bound);
        QVERIFY(w.identical(b.tensor("weight")));              // same seed, same weights
        Linear c(50, 20, true, {{"seed", Tensor::scalar(1)}});
        QVERIFY(!w.identical(c.tensor("weight")));
        QVERIFY(c.setAttribute("weight", Tensor(Shape{20, 50})).ok);
        c.resetParameters();
        QVERIFY(!c.tensor("weight").identical(Tensor(Shape{20, 50})));
        Linear noBias(3, 2, false);
        QVERIFY(!noBias.hasAttribute("bias"));
        QCOMPARE(noBias.toString(), std::string("Linear(in_features=3, out_features=2, bias=False)"));
        std::vector<std::string> keys;
        for (const auto& [k, v] : a.stateDict()) {
            keys.push_back(k);
        }
        QCOMPARE(keys, (std::vector<std::string>{"weight", "bias"}));
    }

    void flattenAndIdentity()
    {
        Flatten flatten;
        QCOMPARE(flatten.forward(Tensor(Shape{2, 3, 4, 5})).shape(), (Shape{2, 60}));
        Flatten inner(1, 1, 2);
        QCOMPARE(inner.forward(Tensor(Shape{2, 3, 4, 5})).shape(), (Shape{2, 12, 5}));
        QVERIFY_THROWS_EXCEPTION(Error, Flatten(1, 2, 1).forward(Tensor(Shape{2, 3})));
        const Tensor x = randomTensor(Shape{3, 4}, 2);
        QVERIFY(Identity().forward(x).identical(x));
    }

    void evolveAppliesLayersPerTimeStep()
    {
        // Sequential(Linear, Tanh) evolved over (B, T, 4) equals forward() on every sample.
        Sequential seq;
        seq.append(std::make_unique<Linear>(4, 3));
        seq.append(std::make_unique<Tanh>(3));
        const Tensor x = randomTensor(Shape{2, 5, 4}, 3);
        const auto r = seq.evolve(x, RecordSpec(true));
        QCOMPARE(r.output.shape(), (Shape{2, 5, 3}));
        QCOMPARE(r.record.at("0").at("output").data.shape(), (Shape{2, 5, 3}));
        const Tensor direct = seq.getSubmodule("1").forward(seq.getSubmodule("0").forward(x));
        QVERIFY(r.output.identical(direct));
        QCOMPARE(seq.toString(), std::string("Sequential(\n  (0): Linear(in_features=4, out_features=3, bias=True)\n"
                                             "  (1): Tanh()\n)"));
    }

    void forwardRunsHooks()
    {
        ReLU relu(4);
        int calls = 0;
        auto pre = relu.registerForwardPreHook([&](Module&, const Tensor& in) {
            ++calls;
            Tensor doubled = in;
            doubled.flat() *= 2.0F;
            return std::optional<Tensor>(doubled);
        });
        QCOMPARE(relu.forward(Tensor(Shape{4}, 1.5F))[0], 3.0F);
        QCOMPARE(calls, 1);
        pre.remove();
        QCOMPARE(relu.forward(Tensor(Shape{4}, 1.5F))[0], 1.5F);
    }

    void modelFilesRoundTrip()
    {
        QTemporaryDir dir;
        Sequential seq;
        seq.append(std::make_unique<Linear>(6, 5, true, AttributeMap{{"seed", Tensor::scalar(9)}}));
        seq.append(std::make_unique<PReLU>(5, 0.1F, 5));
        seq.append(std::make_unique<GELU>(5, "tanh"));
        seq.append(std::make_unique<Threshold>(0.2F, -1.0F, 5));
        seq.append(std::make_unique<Linear>(5, 2, false));
        const std::string path = dir.filePath("mlp.json").toStdString();
        saveModel(path, seq);
        auto loaded = loadModel(path);
        QCOMPARE(loaded->toString(), seq.toString());
        const Tensor x = randomTensor(Shape{7, 6}, 5);
        QVERIFY(loaded->evolve(x).output.identical(seq.evolve(x).output));
        for (const char* type : {"Linear", "ReLU", "Sigmoid", "Tanh", "GELU", "PReLU", "Threshold",
                                 "Flatten", "Identity"}) {
            const ModuleTypeInfo* info = findModuleType(type);
            QVERIFY2(info != nullptr, type);
            QVERIFY(info->create(info->exampleConfig) != nullptr);
        }
    }
};

QTEST_GUILESS_MAIN(TestLayers)
#include "test_layers.moc"
