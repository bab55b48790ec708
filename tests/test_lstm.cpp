// LSTM: the torch reference case, a multi-layer run against a naive per-gate implementation,
// the batch_first and unbatched layouts, shape errors, evolve() carrying h and c across calls,
// PyTorch state-dict names, initialisation and model-file round trips.
#include "tests/layer_test_helpers.hpp"
#include "engine/layers/linear.hpp"
#include "engine/layers/lstm.hpp"
#include "engine/io/model_io.hpp"
#include "engine/io/module_factory.hpp"
#include "engine/tensor/random.hpp"
#include "engine/layers/sequential.hpp"
#include "tests/reference_case.hpp"

#include <QtTest/QtTest>

#include <QTemporaryDir>

#include <cmath>

using namespace spike::engine;  // NOLINT: test file
using spike::tests::ReferenceCase;

using spike::tests::expectError;
using spike::tests::keysOf;

namespace {

Tensor randomTensor(Shape shape, std::uint64_t seed, double lo = -1, double hi = 1)
{
    return spike::tests::uniformTensor(shape, seed, lo, hi);
}

/// (A, B, C) -> (B, A, C).
Tensor swapFirstAxes(const Tensor& t)
{
    const std::int64_t a = t.dim(0);
    const std::int64_t b = t.dim(1);
    const std::int64_t c = t.dim(2);
    Tensor out(Shape{b, a, c});
    for (std::int64_t i = 0; i < a; ++i) {
        for (std::int64_t j = 0; j < b; ++j) {
            for (std::int64_t k = 0; k < c; ++k) {
                out[(j * a + i) * c + k] = t[(i * b + j) * c + k];
            }
        }
    }
    return out;
}

/// Textbook LSTM in double, one gate and one unit at a time: x (L, N, in), h0/c0 (layers, N, H).
LstmResult naiveLstm(const LSTM& m, const Tensor& x, const Tensor& h0, const Tensor& c0)
{
    const std::int64_t steps = x.dim(0);
    const std::int64_t batch = x.dim(1);
    const std::int64_t hidden = m.hiddenSize();
    const auto sigmoid = [](double v) { return 1.0 / (1.0 + std::exp(-v)); };
    std::vector<double> seq(x.data(), x.data() + x.numel());
    std::int64_t in = m.inputSize();
    LstmResult r;
    r.h = Tensor(h0.shape());
    r.c = Tensor(c0.shape());
    for (std::int64_t k = 0; k < m.numLayers(); ++k) {
        const std::string l = std::to_string(k);
        const Tensor& wih = m.tensor("weight_ih_l" + l);
        const Tensor& whh = m.tensor("weight_hh_l" + l);
        const Tensor bih = m.hasBias() ? m.tensor("bias_ih_l" + l) : Tensor(Shape{4 * hidden});
        const Tensor bhh = m.hasBias() ? m.tensor("bias_hh_l" + l) : Tensor(Shape{4 * hidden});
        std::vector<double> next(static_cast<std::size_t>(steps * batch * hidden));
        for (std::int64_t n = 0; n < batch; ++n) {
            std::vector<double> h(static_cast<std::size_t>(hidden));
            std::vector<double> c(static_cast<std::size_t>(hidden));
            for (std::int64_t u = 0; u < hidden; ++u) {
                h[u] = h0[(k * batch + n) * hidden + u];
                c[u] = c0[(k * batch + n) * hidden + u];
            }
            for (std::int64_t t = 0; t < steps; ++t) {
                const double* xt = seq.data() + (t * batch + n) * in;
                std::vector<double> pre(static_cast<std::size_t>(4 * hidden));
                for (std::int64_t j = 0; j < 4 * hidden; ++j) {
                    double a = bih[j] + bhh[j];
                    for (std::int64_t q = 0; q < in; ++q) {
                        a += xt[q] * wih[j * in + q];
                    }
                    for (std::int64_t q = 0; q < hidden; ++q) {
                        a += h[q] * whh[j * hidden + q];
                    }
                    pre[j] = a;
                }
                for (std::int64_t u = 0; u < hidden; ++u) {
                    const double i = sigmoid(pre[u]);
                    const double f = sigmoid(pre[hidden + u]);
                    const double g = std::tanh(pre[2 * hidden + u]);
                    const double o = sigmoid(pre[3 * hidden + u]);
                    c[u] = f * c[u] + i * g;
                    h[u] = o * std::tanh(c[u]);
                    next[(t * batch + n) * hidden + u] = h[u];
                }
            }
            for (std::int64_t u = 0; u < hidden; ++u) {
                r.h[(k * batch + n) * hidden + u] = static_cast<float>(h[u]);
                r.c[(k * batch + n) * hidden + u] = static_cast<float>(c[u]);
            }
        }
        seq = std::move(next);
        in = hidden;
    }
    r.output = Tensor(Shape{steps, batch, hidden});
    for (std::int64_t i = 0; i < r.output.numel(); ++i) {
        r.output[i] = static_cast<float>(seq[i]);
    }
    return r;
}

}  // namespace

class TestLstm : public QObject {
    Q_OBJECT

private slots:
    void referenceCase()
    {
        const auto c = ReferenceCase::load("lstm");
        const auto& p = c.json.at("params");
        AttributeMap weights;
        for (const char* key : {"weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"}) {
            weights.emplace(key, c.named("params", key));
        }
        LSTM lstm(p.at("input_size").get<std::int64_t>(), p.at("hidden_size").get<std::int64_t>(), 1,
                  true, false, weights);
        const Tensor x = c.array(c.json.at("input").get<std::string>());
        const Tensor h0 = c.array(c.json.at("h0").get<std::string>());
        const Tensor c0 = c.array(c.json.at("c0").get<std::string>());
        const LstmResult r = lstm.forwardWithState(x, &h0, &c0);
        const std::pair<const char*, const Tensor*> checks[] = {
            {"output", &r.output}, {"h", &r.h}, {"c", &r.c}};
        for (const auto& [name, got] : checks) {
            const Tensor expected = c.named("expected", name);
            QCOMPARE(got->shape(), expected.shape());
            const double excess = spike::tests::toleranceExcess(*got, expected, c.atol(), c.rtol());
            QVERIFY2(excess <= 0.0, (std::string(name) + " exceeds tolerance by " +
                                     std::to_string(excess)).c_str());
        }
        // The stored States are untouched by the torch call; forward(x) starts from zeros.
        QVERIFY(lstm.tensor("h").identical(Tensor(Shape{1, 5})));
        const Tensor zeros(Shape{1, 2, 5});
        QVERIFY(lstm.forward(x).identical(lstm.forwardWithState(x, &zeros, &zeros).output));
        QVERIFY(!lstm.forward(x).identical(r.output));
    }

    void multiLayerMatchesNaiveImplementation_data()
    {
        QTest::addColumn<int>("layers");
        QTest::addColumn<bool>("bias");
        QTest::addColumn<int>("hidden");
        QTest::newRow("3 layers") << 3 << true << 7;
        QTest::newRow("2 layers, no bias") << 2 << false << 5;
        QTest::newRow("1 layer, wide") << 1 << true << 33;
    }

    void multiLayerMatchesNaiveImplementation()
    {
        QFETCH(int, layers);
        QFETCH(bool, bias);
        QFETCH(int, hidden);
        LSTM lstm(4, hidden, layers, bias, false, {{"seed", Tensor::scalar(7)}});
        const Tensor x = randomTensor(Shape{9, 3, 4}, 1, -2, 2);
        const Tensor h0 = randomTensor(Shape{layers, 3, hidden}, 2);
        const Tensor c0 = randomTensor(Shape{layers, 3, hidden}, 3);
        const LstmResult got = lstm.forwardWithState(x, &h0, &c0);
        const LstmResult want = naiveLstm(lstm, x, h0, c0);
        QCOMPARE(got.output.shape(), (Shape{9, 3, hidden}));
        QCOMPARE(got.h.shape(), (Shape{layers, 3, hidden}));
        QVERIFY(spike::tests::toleranceExcess(got.output, want.output, 1e-5, 1e-5) <= 0.0);
        QVERIFY(spike::tests::toleranceExcess(got.h, want.h, 1e-5, 1e-5) <= 0.0);
        QVERIFY(spike::tests::toleranceExcess(got.c, want.c, 1e-5, 1e-5) <= 0.0);
        // The last layer's final h is the output's last step.
        for (std::int64_t i = 0; i < 3 * hidden; ++i) {
            QCOMPARE(got.h[(layers - 1) * 3 * hidden + i], got.output[8 * 3 * hidden + i]);
        }
    }

    void batchFirstAndUnbatchedLayouts()
    {
        const AttributeMap seed{{"seed", Tensor::scalar(3)}};
        LSTM seqFirst(5, 6, 2, true, false, seed);
        LSTM batchFirst(5, 6, 2, true, true, seed);
        QCOMPARE(batchFirst.toString(), std::string("LSTM(5, 6, num_layers=2, batch_first=True)"));
        const Tensor x = randomTensor(Shape{7, 4, 5}, 4);  // (L, N, Hin)
        const Tensor h0 = randomTensor(Shape{2, 4, 6}, 5);
        const Tensor c0 = randomTensor(Shape{2, 4, 6}, 6);
        const LstmResult a = seqFirst.forwardWithState(x, &h0, &c0);
        const LstmResult b = batchFirst.forwardWithState(swapFirstAxes(x), &h0, &c0);
        QCOMPARE(b.output.shape(), (Shape{4, 7, 6}));
        QCOMPARE(b.h.shape(), (Shape{2, 4, 6}));  // h and c stay (num_layers, N, H)
        QVERIFY(b.output.identical(swapFirstAxes(a.output)));
        QVERIFY(b.h.identical(a.h));
        QVERIFY(b.c.identical(a.c));

        // Unbatched (L, Hin) with (num_layers, H) states equals a batch of one.
        const Tensor x1 = randomTensor(Shape{7, 5}, 7);
        const Tensor h1 = randomTensor(Shape{2, 6}, 8);
        const Tensor c1 = randomTensor(Shape{2, 6}, 9);
        const LstmResult u = seqFirst.forwardWithState(x1, &h1, &c1);
        QCOMPARE(u.output.shape(), (Shape{7, 6}));
        QCOMPARE(u.h.shape(), (Shape{2, 6}));
        const Tensor h1b = h1.reshaped(Shape{2, 1, 6});
        const Tensor c1b = c1.reshaped(Shape{2, 1, 6});
        const LstmResult one = seqFirst.forwardWithState(x1.reshaped(Shape{7, 1, 5}), &h1b, &c1b);
        QVERIFY(u.output.identical(one.output.reshaped(Shape{7, 6})));
        QVERIFY(u.h.identical(one.h.reshaped(Shape{2, 6})));
        QVERIFY(u.c.identical(one.c.reshaped(Shape{2, 6})));
        // batch_first does not apply to an unbatched input.
        QVERIFY(batchFirst.forward(x1).identical(seqFirst.forward(x1)));
    }

    void shapeErrorsNameModuleAndExpectation()
    {
        LSTM lstm(6, 5, 2);
        const Tensor x(Shape{8, 3, 6});
        expectError([&] { lstm.forward(Tensor(Shape{8, 3, 7})); },
                    "LSTM (root): input (8, 3, 7) has 7 features in its last axis, expected input_size 6");
        expectError([&] { lstm.forward(Tensor(Shape{6})); },
                    "must be (L, N, 6) (sequence, batch, input_size) or unbatched (L, 6)");
        expectError([&] { lstm.forward(Tensor(Shape{2, 2, 2, 6})); }, "input (2, 2, 2, 6) must be");
        expectError([&] { lstm.forwardWithState(Tensor(Shape{0, 3, 6})); }, "is empty");
        const Tensor wrongBatch(Shape{2, 4, 5});
        expectError([&] { lstm.forwardWithState(x, &wrongBatch); },
                    "LSTM (root): h0 has shape (2, 4, 5), expected (2, 3, 5) (num_layers, batch, hidden_size)");
        const Tensor good(Shape{2, 3, 5});
        const Tensor wrongLayers(Shape{1, 3, 5});
        expectError([&] { lstm.forwardWithState(x, &good, &wrongLayers); },
                    "c0 has shape (1, 3, 5), expected (2, 3, 5)");
        expectError([&] { lstm.forwardWithState(Tensor(Shape{8, 6}), &good); },
                    "h0 has shape (2, 3, 5), expected (2, 5) (num_layers, hidden_size) for an unbatched input");
        LSTM batchFirst(6, 5, 1, true, true);
        expectError([&] { batchFirst.forward(Tensor(Shape{6})); }, "(N, L, 6) (batch, sequence, input_size)");
        // A named child says where it sits.
        Sequential seq;
        seq.appendNamed("rnn", std::make_unique<LSTM>(6, 5));
        expectError([&] { seq.getSubmodule("rnn").forward(Tensor(Shape{2, 2})); }, "LSTM 'rnn': input (2, 2)");
        QVERIFY_THROWS_EXCEPTION(Error, LSTM(0, 5));
        QVERIFY_THROWS_EXCEPTION(Error, LSTM(3, 5, 0));
        QVERIFY(!lstm.setAttribute("weight_hh_l1", Tensor(Shape{20, 6})).ok);
        QVERIFY(!lstm.setAttribute("h", Tensor(Shape{1, 5})).ok);
        QVERIFY(lstm.setAttribute("h", Tensor(Shape{2, 5}, 0.5F)).ok);
    }

    void evolveCarriesStateAcrossCalls()
    {
        const AttributeMap seed{{"seed", Tensor::scalar(11)}};
        LSTM whole(3, 4, 2, true, false, seed);
        LSTM chunked(3, 4, 2, true, false, seed);
        const Tensor x = randomTensor(Shape{2, 10, 3}, 12, -2, 2);  // (B, T, Hin)
        const auto r = whole.evolve(x, RecordSpec(true));
        QCOMPARE(r.output.shape(), (Shape{2, 10, 4}));

        std::vector<Tensor> parts;
        std::int64_t t0 = 0;
        for (const std::int64_t len : {4, 1, 5}) {
            Tensor part(Shape{2, len, 3});
            for (std::int64_t b = 0; b < 2; ++b) {
                std::copy(x.data() + (b * 10 + t0) * 3, x.data() + (b * 10 + t0 + len) * 3,
                          part.data() + b * len * 3);
            }
            parts.push_back(chunked.evolve(part).output);
            t0 += len;
        }
        Tensor joined(Shape{2, 10, 4});
        t0 = 0;
        for (const Tensor& p : parts) {
            const std::int64_t len = p.dim(1);
            for (std::int64_t b = 0; b < 2; ++b) {
                std::copy(p.data() + b * len * 4, p.data() + (b + 1) * len * 4,
                          joined.data() + (b * 10 + t0) * 4);
            }
            t0 += len;
        }
        // Batch element 0 carries its state, so its chunks join bit for bit; element 1 restarts
        // from element 0's state at every call (as the neuron layers do), so only its first
        // chunk matches.
        for (std::int64_t i = 0; i < 10 * 4; ++i) {
            QCOMPARE(joined[i], r.output[i]);
        }
        for (std::int64_t i = 0; i < 4 * 4; ++i) {
            QCOMPARE(joined[40 + i], r.output[40 + i]);
        }
        QVERIFY(chunked.tensor("h").identical(whole.tensor("h")));
        QVERIFY(chunked.tensor("c").identical(whole.tensor("c")));

        // Without a batch axis: (T, Hin) in two chunks equals one call.
        LSTM a(3, 4, 2, true, false, seed);
        LSTM b(3, 4, 2, true, false, seed);
        const Tensor single = randomTensor(Shape{12, 3}, 13);
        const Tensor once = a.evolve(single).output;
        QCOMPARE(once.shape(), (Shape{12, 4}));
        Tensor head(Shape{5, 3});
        Tensor tail(Shape{7, 3});
        std::copy(single.data(), single.data() + 15, head.data());
        std::copy(single.data() + 15, single.data() + 36, tail.data());
        const Tensor y0 = b.evolve(head).output;
        const Tensor y1 = b.evolve(tail).output;
        for (std::int64_t i = 0; i < 20; ++i) {
            QCOMPARE(y0[i], once[i]);
        }
        for (std::int64_t i = 0; i < 28; ++i) {
            QCOMPARE(y1[i], once[20 + i]);
        }
        QVERIFY(a.tensor("c").identical(b.tensor("c")));

        // evolve equals the torch call from the stored state, and stores element 0's final state.
        LSTM fresh(3, 4, 2, true, false, seed);
        const LstmResult torchRun = fresh.forwardWithState(swapFirstAxes(x));
        QVERIFY(r.output.identical(swapFirstAxes(torchRun.output)));
        for (std::int64_t k = 0; k < 2; ++k) {
            for (std::int64_t u = 0; u < 4; ++u) {
                QCOMPARE(whole.tensor("h")[k * 4 + u], torchRun.h[(k * 2 + 0) * 4 + u]);
                QCOMPARE(whole.tensor("c")[k * 4 + u], torchRun.c[(k * 2 + 0) * 4 + u]);
            }
        }

        // Recorded traces: output (B, T, H); h and c (B, T, num_layers, H).
        QCOMPARE(r.record.at("").at("output").data.shape(), (Shape{2, 10, 4}));
        const Tensor& hTrace = r.record.at("").at("h").data;
        QCOMPARE(hTrace.shape(), (Shape{2, 10, 2, 4}));
        QCOMPARE(r.record.at("").at("c").data.shape(), (Shape{2, 10, 2, 4}));
        for (std::int64_t b = 0; b < 2; ++b) {
            for (std::int64_t t = 0; t < 10; ++t) {
                for (std::int64_t u = 0; u < 4; ++u) {
                    QCOMPARE(hTrace[((b * 10 + t) * 2 + 1) * 4 + u], r.output[(b * 10 + t) * 4 + u]);
                }
            }
        }
        QCOMPARE(whole.recordableSignals(), (std::vector<std::string>{"output", "h", "c"}));

        // resetState() zeroes h and c and the run repeats exactly.
        whole.resetState();
        QVERIFY(whole.tensor("h").identical(Tensor(Shape{2, 4})));
        QVERIFY(whole.evolve(x).output.identical(r.output));
    }

    void stateDictNamesFollowPyTorch()
    {
        LSTM lstm(3, 4, 2);
        QCOMPARE(keysOf(lstm.stateDict()),
                 (std::vector<std::string>{"weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0",
                                           "weight_ih_l1", "weight_hh_l1", "bias_ih_l1", "bias_hh_l1"}));
        QCOMPARE(lstm.tensor("weight_ih_l0").shape(), (Shape{16, 3}));
        QCOMPARE(lstm.tensor("weight_ih_l1").shape(), (Shape{16, 4}));
        QCOMPARE(lstm.tensor("weight_hh_l1").shape(), (Shape{16, 4}));
        QCOMPARE(lstm.tensor("bias_hh_l1").shape(), (Shape{16}));
        QCOMPARE(lstm.spec("weight_hh_l0").family, std::string("weights"));
        QCOMPARE(lstm.spec("bias_ih_l1").family, std::string("biases"));
        QVERIFY(lstm.spec("h").kind == AttributeKind::State);
        QVERIFY(!lstm.spec("h").inStateDict);
        LSTM noBias(3, 4, 2, false);
        QCOMPARE(keysOf(noBias.stateDict()),
                 (std::vector<std::string>{"weight_ih_l0", "weight_hh_l0", "weight_ih_l1", "weight_hh_l1"}));
        QCOMPARE(noBias.toString(), std::string("LSTM(3, 4, num_layers=2, bias=False)"));
        QCOMPARE(LSTM(3, 4).toString(), std::string("LSTM(3, 4)"));

        // A PyTorch state dict loads strictly (h and c are not in it).
        LSTM other(3, 4, 2, true, false, {{"seed", Tensor::scalar(5)}});
        const auto loaded = other.loadStateDict(lstm.stateDict(), true);
        QVERIFY2(loaded.status.ok, loaded.status.message.c_str());
        QVERIFY(other.tensor("weight_hh_l1").identical(lstm.tensor("weight_hh_l1")));

        // Initialisation: U(+-1/sqrt(H)) for every parameter, seeded.
        LSTM big(10, 64, 2);
        const float bound = 1.0F / std::sqrt(64.0F);
        for (const auto& [k, v] : big.stateDict()) {
            QVERIFY2(v.flat().abs().maxCoeff() <= bound, k.c_str());
            QVERIFY2(v.flat().abs().maxCoeff() > 0.9F * bound, k.c_str());
        }
        LSTM same(10, 64, 2);
        QVERIFY(same.tensor("weight_hh_l1").identical(big.tensor("weight_hh_l1")));
        QVERIFY(!big.tensor("weight_ih_l1").identical(big.tensor("weight_hh_l1")));
        LSTM reseeded(10, 64, 2, true, false, {{"seed", Tensor::scalar(1)}});
        QVERIFY(!reseeded.tensor("weight_ih_l0").identical(big.tensor("weight_ih_l0")));
    }

    void modelFilesRoundTrip()
    {
        QTemporaryDir dir;
        Sequential seq;
        seq.append(std::make_unique<Linear>(3, 4));
        seq.append(std::make_unique<LSTM>(4, 5, 2, true, false, AttributeMap{{"seed", Tensor::scalar(2)}}));
        seq.append(std::make_unique<LSTM>(5, 2, 1, false, true));
        const Tensor x = randomTensor(Shape{6, 3}, 21);
        seq.evolve(x);  // non-zero h and c are saved with the model
        const std::string path = dir.filePath("rnn.json").toStdString();
        saveModel(path, seq);
        auto loaded = loadModel(path);
        QCOMPARE(loaded->toString(), seq.toString());
        QCOMPARE(loaded->toString(), std::string("Sequential(\n  (0): Linear(in_features=3, out_features=4, bias=True)\n"
                                                 "  (1): LSTM(4, 5, num_layers=2)\n"
                                                 "  (2): LSTM(5, 2, bias=False, batch_first=True)\n)"));
        QVERIFY(loaded->getSubmodule("1").tensor("h").identical(seq.getSubmodule("1").tensor("h")));
        QVERIFY(!seq.getSubmodule("1").tensor("c").identical(Tensor(Shape{2, 5})));
        QVERIFY(loaded->evolve(x).output.identical(seq.evolve(x).output));

        const ModuleTypeInfo* info = findModuleType("LSTM");
        QVERIFY(info != nullptr);
        QCOMPARE(info->category, std::string("layers"));
        QVERIFY(info->create(info->exampleConfig) != nullptr);
        auto made = createModule("LSTM", {{"input_size", 4}, {"hidden_size", 3}, {"num_layers", 2},
                                          {"batch_first", true}});
        QCOMPARE(made->toString(), std::string("LSTM(4, 3, num_layers=2, batch_first=True)"));
        expectError([] { createModule("LSTM", {{"input_size", 4}}); }, "config 'hidden_size': missing");
        expectError([] { createModule("LSTM", {{"input_size", 4}, {"hidden_size", 3}, {"num_layers", 0}}); },
                    "config 'num_layers'");
        expectError([] { createModule("LSTM", {{"input_size", 4}, {"hidden_size", 3}, {"dropout", 0.5}}); },
                    "config 'dropout': unknown key");
    }
};

QTEST_GUILESS_MAIN(TestLstm)
#include "test_lstm.moc"
