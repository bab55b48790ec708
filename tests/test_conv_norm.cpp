// Conv2d, BatchNorm1d / BatchNorm2d and LayerNorm: the torch reference cases (conv2d,
// batchnorm2d), Conv2d against a direct convolution, unbatched inputs and shape errors, the
// per-time-step evolve adapter, eval-mode formulas and training-mode running statistics,
// state-dict loading, model-file round trips, and the module factory's configs.
#include "engine/layers/conv2d.hpp"
#include "engine/io/model_io.hpp"
#include "engine/io/module_factory.hpp"
#include "engine/layers/normalization.hpp"
#include "engine/tensor/random.hpp"
#include "engine/layers/sequential.hpp"
#include "tests/layer_test_helpers.hpp"
#include "tests/reference_case.hpp"

#include <QtTest/QtTest>

#include <QTemporaryDir>

#include <array>
#include <cmath>

using namespace spike::engine;  // NOLINT: test file
using spike::tests::ReferenceCase;

namespace {

Tensor randomTensor(Shape shape, std::uint64_t seed, double lo = -4, double hi = 4)
{
    return spike::tests::uniformTensor(shape, seed, lo, hi);
}

/// Direct (naive) 2-D convolution in double, straight from the definition in conv2d.hpp.
Tensor naiveConv2d(const Tensor& x, const Tensor& w, const Tensor* b, Size2 s, Size2 p, Size2 d,
                   std::int64_t groups)
{
    const std::int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), wd = x.dim(3);
    const std::int64_t o = w.dim(0), cg = w.dim(1), kh = w.dim(2), kw = w.dim(3);
    const std::int64_t og = o / groups;
    const std::int64_t ho = (h + 2 * p[0] - d[0] * (kh - 1) - 1) / s[0] + 1;
    const std::int64_t wo = (wd + 2 * p[1] - d[1] * (kw - 1) - 1) / s[1] + 1;
    Tensor y(Shape{n, o, ho, wo});
    for (std::int64_t in = 0; in < n; ++in) {
        for (std::int64_t oc = 0; oc < o; ++oc) {
            const std::int64_t g = oc / og;
            for (std::int64_t oy = 0; oy < ho; ++oy) {
                for (std::int64_t ox = 0; ox < wo; ++ox) {
                    double acc = b != nullptr ? (*b)[oc] : 0.0;
                    for (std::int64_t ci = 0; ci < cg; ++ci) {
                        for (std::int64_t ki = 0; ki < kh; ++ki) {
                            for (std::int64_t kj = 0; kj < kw; ++kj) {
                                const std::int64_t iy = oy * s[0] - p[0] + ki * d[0];
                                const std::int64_t ix = ox * s[1] - p[1] + kj * d[1];
                                if (iy < 0 || iy >= h || ix < 0 || ix >= wd) {
                                    continue;
                                }
                                acc += static_cast<double>(w[((oc * cg + ci) * kh + ki) * kw + kj]) *
                                       x[((in * c + g * cg + ci) * h + iy) * wd + ix];
                            }
                        }
                    }
                    y[((in * o + oc) * ho + oy) * wo + ox] = static_cast<float>(acc);
                }
            }
        }
    }
    return y;
}

/// Runs `f`, expecting an Error whose message contains `needle`.
template <typename F>
bool throwsWith(F f, const std::string& needle)
{
    try {
        f();
    } catch (const Error& e) {
        if (std::string(e.what()).find(needle) != std::string::npos) {
            return true;
        }
        qWarning("unexpected message: %s", e.what());
        return false;
    }
    qWarning("no exception (expected '%s')", needle.c_str());
    return false;
}

}  // namespace

class TestConvNorm : public QObject {
    Q_OBJECT

private slots:
    // ---- Conv2d ---------------------------------------------------------------------------

    void conv2dReferenceCase()
    {
        const auto c = ReferenceCase::load("conv2d");
        const auto& p = c.json.at("params");
        const auto k = p.at("kernel_size").get<std::int64_t>();
        const auto s = p.at("stride").get<std::int64_t>();
        const auto pad = p.at("padding").get<std::int64_t>();
        Conv2d conv(p.at("in_channels").get<std::int64_t>(), p.at("out_channels").get<std::int64_t>(),
                    {k, k}, {s, s}, {pad, pad}, {1, 1}, 1, true, {0, 0},
                    {{"weight", c.named("params", "weight")}, {"bias", c.named("params", "bias")}});
        const Tensor input = c.array(c.json.at("input").get<std::string>());
        const Tensor expected = c.named("expected", "output");
        const Tensor out = conv.forward(input);
        QCOMPARE(out.shape(), expected.shape());
        const double excess = spike::tests::toleranceExcess(out, expected, c.atol(), c.rtol());
        QVERIFY2(excess <= 0.0, ("exceeds tolerance by " + std::to_string(excess)).c_str());
        QCOMPARE(conv.toString(),
                 std::string("Conv2d(3, 4, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1))"));
    }

    void conv2dMatchesDirectConvolution_data()
    {
        QTest::addColumn<QVector<qint64>>("a");  // in, out, kh, kw, sh, sw, ph, pw, dh, dw, groups, bias, N, H, W
        QTest::newRow("3x3") << QVector<qint64>{3, 4, 3, 3, 1, 1, 0, 0, 1, 1, 1, 1, 2, 7, 6};
        QTest::newRow("3x3 pad") << QVector<qint64>{8, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 0, 2, 8, 8};
        QTest::newRow("stride 2 pad") << QVector<qint64>{4, 6, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 3, 9, 8};
        QTest::newRow("rect kernel") << QVector<qint64>{2, 3, 2, 4, 1, 3, 0, 2, 1, 1, 1, 1, 2, 5, 11};
        QTest::newRow("dilation") << QVector<qint64>{3, 2, 3, 3, 1, 1, 2, 1, 2, 3, 1, 1, 2, 10, 9};
        QTest::newRow("groups") << QVector<qint64>{6, 4, 3, 3, 1, 2, 1, 0, 1, 1, 2, 1, 2, 6, 7};
        QTest::newRow("depthwise") << QVector<qint64>{5, 10, 3, 3, 2, 1, 1, 1, 1, 1, 5, 0, 1, 8, 5};
        QTest::newRow("1x1") << QVector<qint64>{16, 8, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 2, 4, 4};
        QTest::newRow("1x1 stride pad") << QVector<qint64>{4, 3, 1, 1, 2, 2, 1, 1, 1, 1, 1, 1, 2, 5, 5};
        QTest::newRow("padding > kernel") << QVector<qint64>{1, 2, 2, 2, 3, 1, 3, 2, 1, 1, 1, 1, 1, 3, 3};
        QTest::newRow("kernel = input") << QVector<qint64>{2, 2, 5, 4, 1, 1, 0, 0, 1, 1, 1, 1, 2, 5, 4};
    }

    void conv2dMatchesDirectConvolution()
    {
        QFETCH(QVector<qint64>, a);
        const Size2 k{a[2], a[3]}, s{a[4], a[5]}, p{a[6], a[7]}, d{a[8], a[9]};
        Conv2d conv(a[0], a[1], k, s, p, d, a[10], a[11] != 0, {0, 0},
                    {{"seed", Tensor::scalar(static_cast<float>(a[0] * 31 + a[1]))}});
        QCOMPARE(conv.hasAttribute("bias"), a[11] != 0);
        const Tensor x = randomTensor(Shape{a[12], a[0], a[13], a[14]}, 40 + a[1], -2, 2);
        const Tensor expected = naiveConv2d(x, conv.tensor("weight"),
                                            a[11] != 0 ? &conv.tensor("bias") : nullptr, s, p, d, a[10]);
        const Tensor out = conv.forward(x);
        QCOMPARE(out.shape(), expected.shape());
        // Output size: floor((H + 2p - d(k - 1) - 1) / s) + 1.
        QCOMPARE(out.dim(2), (a[13] + 2 * p[0] - d[0] * (k[0] - 1) - 1) / s[0] + 1);
        QCOMPARE(out.dim(3), (a[14] + 2 * p[1] - d[1] * (k[1] - 1) - 1) / s[1] + 1);
        QVERIFY(spike::tests::toleranceExcess(out, expected, 1e-5, 1e-5) <= 0.0);
    }

    void conv2dUnbatchedInputShapesAndErrors()
    {
        Conv2d conv(3, 5, {3, 3}, {1, 1}, {1, 1});
        const Tensor x = randomTensor(Shape{1, 3, 6, 4}, 7);
        const Tensor batched = conv.forward(x);
        const Tensor single = conv.forward(x.reshaped(Shape{3, 6, 4}));
        QCOMPARE(single.shape(), (Shape{5, 6, 4}));
        QVERIFY(single.reshaped(batched.shape()).identical(batched));
        QVERIFY(throwsWith([&] { conv.forward(Tensor(Shape{2, 2, 6, 4})); },
                           "has 2 channels on axis 1, expected 3"));
        QVERIFY(throwsWith([&] { conv.forward(Tensor(Shape{6, 4})); }, "must be (N, C, H, W) or (C, H, W)"));
        Conv2d big(1, 1, {5, 5});
        QCOMPARE(big.sampleInputShape(), (Shape{1, 5, 5}));  // smallest input the kernel fits
        QVERIFY(throwsWith([&] { big.forward(Tensor(Shape{1, 1, 3, 7})); },
                           "Conv2d (root): kernel (5, 5) with dilation (1, 1) is larger than the padded input (3, 7)"));
        QVERIFY(throwsWith([] { Conv2d(4, 6, {3, 3}, {1, 1}, {0, 0}, {1, 1}, 4); }, "groups (4)"));
        QVERIFY(throwsWith([] { Conv2d(3, 3, {3, 3}, {0, 1}); }, "stride must be >= 1"));
        QVERIFY(throwsWith([] { Conv2d(3, 3, {3, 3}, {1, 1}, {0, 0}, {1, 1}, 1, true, {2, 2}); },
                           "larger than the padded input_size"));
        Conv2d strided(2, 4, {3, 3}, {2, 2}, {1, 1}, {1, 1}, 1, true, {8, 6});
        QCOMPARE(strided.sampleInputShape(), (Shape{2, 8, 6}));
        QCOMPARE(strided.sampleOutputShape(), (Shape{4, 4, 3}));
        QCOMPARE(strided.shape(), (std::vector<std::int64_t>{96, 48}));
        QCOMPARE(Conv2d(4, 8, {3, 1}, {1, 1}, {0, 0}, {2, 2}, 2, false).extraRepr(),
                 std::string("4, 8, kernel_size=(3, 1), stride=(1, 1), dilation=(2, 2), groups=2, bias=False"));
        // PyTorch's initialisation bound, 1 / sqrt(in / groups * kh * kw).
        Conv2d init(8, 16, {3, 3}, {1, 1}, {0, 0}, {1, 1}, 2);
        const float bound = 1.0F / std::sqrt(4.0F * 9.0F);
        QVERIFY(init.tensor("weight").flat().abs().maxCoeff() <= bound);
        QVERIFY(init.tensor("weight").flat().abs().maxCoeff() > 0.9F * bound);
        QVERIFY(init.tensor("bias").flat().abs().maxCoeff() <= bound);
    }

    void conv2dEvolvesPerTimeStep()
    {
        Conv2d conv(2, 3, {3, 3}, {1, 2}, {1, 0}, {1, 1}, 1, true, {5, 7});
        const Tensor x = randomTensor(Shape{2, 3, 2 * 5 * 7}, 11);
        const auto r = conv.evolve(x, RecordSpec(true));
        QCOMPARE(r.output.shape(), (Shape{2, 3, 3 * 5 * 3}));
        QCOMPARE(r.record.at("").at("output").data.shape(), (Shape{2, 3, 45}));
        for (std::int64_t b = 0; b < 2; ++b) {
            for (std::int64_t t = 0; t < 3; ++t) {
                Tensor sample(Shape{2, 5, 7});
                std::copy_n(x.data() + (b * 3 + t) * 70, 70, sample.data());
                const Tensor y = conv.forward(sample);
                for (std::int64_t i = 0; i < 45; ++i) {
                    QCOMPARE(r.output[(b * 3 + t) * 45 + i], y[i]);
                }
            }
        }
    }

    // ---- BatchNorm ------------------------------------------------------------------------

    void batchNorm2dReferenceCase()
    {
        const auto c = ReferenceCase::load("batchnorm2d");
        const auto& p = c.json.at("params");
        BatchNorm2d bn(p.at("num_features").get<std::int64_t>(), p.at("eps").get<double>(), 0.1,
                       true, true, {1, 1},
                       {{"weight", c.named("params", "weight")}, {"bias", c.named("params", "bias")},
                        {"running_mean", c.named("params", "running_mean")},
                        {"running_var", c.named("params", "running_var")}});
        bn.eval();
        const Tensor input = c.array(c.json.at("input").get<std::string>());
        const Tensor expected = c.named("expected", "output");
        const Tensor out = bn.forward(input);
        QCOMPARE(out.shape(), expected.shape());
        const double excess = spike::tests::toleranceExcess(out, expected, c.atol(), c.rtol());
        QVERIFY2(excess <= 0.0, ("exceeds tolerance by " + std::to_string(excess)).c_str());
        QCOMPARE(bn.toString(),
                 std::string("BatchNorm2d(4, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)"));
        std::vector<std::string> keys;
        for (const auto& [k, v] : bn.stateDict()) {
            keys.push_back(k);
        }
        QCOMPARE(keys, (std::vector<std::string>{"weight", "bias", "running_mean", "running_var",
                                                 "num_batches_tracked"}));
    }

    void batchNorm1dEvalMatchesFormula()
    {
        const Tensor w = randomTensor(Shape{3}, 21, 0.5, 2);
        const Tensor b = randomTensor(Shape{3}, 22, -1, 1);
        const Tensor mean = randomTensor(Shape{3}, 23, -1, 1);
        const Tensor var = randomTensor(Shape{3}, 24, 0.1, 3);
        BatchNorm1d bn(3, 1e-3, 0.1, true, true, 0,
                       {{"weight", w}, {"bias", b}, {"running_mean", mean}, {"running_var", var}});
        bn.eval();
        for (const Shape& shape : {Shape{5, 3}, Shape{4, 3, 6}}) {
            const Tensor x = randomTensor(shape, 25);
            const Tensor y = bn.forward(x);
            QCOMPARE(y.shape(), shape);
            const std::int64_t inner = shape.rank() == 3 ? shape[2] : 1;
            for (std::int64_t i = 0; i < x.numel(); ++i) {
                const std::int64_t ch = (i / inner) % 3;
                const double ref = (x[i] - mean[ch]) / std::sqrt(var[ch] + 1e-3) * w[ch] + b[ch];
                QVERIFY(std::abs(y[i] - ref) <= 1e-5 * (1 + std::abs(ref)));
            }
        }
        QVERIFY(throwsWith([&] { bn.forward(Tensor(Shape{4, 2})); }, "has 2 channels on axis 1, expected 3"));
        QVERIFY(throwsWith([&] { bn.forward(Tensor(Shape{3})); }, "expected a 2-D or 3-D input, got (3,)"));
        BatchNorm2d bn2d(2);
        bn2d.eval();
        QVERIFY(throwsWith([&] { bn2d.forward(Tensor(Shape{2, 2, 3})); },
                           "expected a 4-D input"));
        // Without affine there is no weight or bias; without tracking, no running statistics
        // and batch statistics are used in eval mode too.
        BatchNorm1d plain(3, 1e-5, 0.1, false, false);
        QVERIFY(!plain.hasAttribute("weight") && !plain.hasAttribute("running_mean"));
        plain.eval();
        const Tensor y = plain.forward(randomTensor(Shape{50, 3}, 26));
        for (std::int64_t ch = 0; ch < 3; ++ch) {
            double s = 0;
            double s2 = 0;
            for (std::int64_t n = 0; n < 50; ++n) {
                s += y[n * 3 + ch];
                s2 += static_cast<double>(y[n * 3 + ch]) * y[n * 3 + ch];
            }
            QVERIFY(std::abs(s / 50) < 1e-5);
            QVERIFY(std::abs(s2 / 50 - 1) < 1e-3);
        }
    }

    void batchNormTrainingUpdatesRunningStatistics()
    {
        // Channel 0 holds 1, 2, 3, 6 (mean 3, biased var 3.5, unbiased 14/3); channel 1 holds
        // -1, -1, 1, 1 over (N=2, L=2) of a (2, 2, 2) input.
        const Tensor x(Shape{2, 2, 2}, std::vector<float>{1, 2, -1, -1, 3, 6, 1, 1});
        BatchNorm1d bn(2, 1e-5, 0.25, true, true, 2,
                       {{"weight", Tensor(Shape{2}, std::vector<float>{2, 1})},
                        {"bias", Tensor(Shape{2}, std::vector<float>{0.5F, 0})}});
        QVERIFY(bn.training());
        const Tensor y = bn.forward(x);
        const double inv0 = 1 / std::sqrt(3.5 + 1e-5);
        const double inv1 = 1 / std::sqrt(1.0 + 1e-5);
        const std::vector<double> expected{(1 - 3) * inv0 * 2 + 0.5, (2 - 3) * inv0 * 2 + 0.5, -inv1, -inv1,
                                           (3 - 3) * inv0 * 2 + 0.5, (6 - 3) * inv0 * 2 + 0.5, inv1, inv1};
        for (std::int64_t i = 0; i < 8; ++i) {
            QVERIFY2(std::abs(y[i] - expected[static_cast<std::size_t>(i)]) < 1e-5, std::to_string(i).c_str());
        }
        const Tensor& rm = bn.tensor("running_mean");
        const Tensor& rv = bn.tensor("running_var");
        QVERIFY(std::abs(rm[0] - 0.25 * 3) < 1e-6 && std::abs(rm[1] - 0.0) < 1e-6);
        QVERIFY(std::abs(rv[0] - (0.75 + 0.25 * 14.0 / 3.0)) < 1e-6);
        QVERIFY(std::abs(rv[1] - (0.75 + 0.25 * 4.0 / 3.0)) < 1e-6);
        QCOMPARE(bn.tensor("num_batches_tracked").item(), 1.0F);
        bn.forward(x);
        QCOMPARE(bn.tensor("num_batches_tracked").item(), 2.0F);
        QVERIFY(std::abs(bn.tensor("running_mean")[0] - (0.75 * 0.75 + 0.25 * 3)) < 1e-6);
        // resetState (dynamical state between runs) keeps the learned statistics.
        const Tensor kept = bn.tensor("running_var");
        bn.resetState();
        QVERIFY(bn.tensor("running_var").identical(kept));
        QCOMPARE(bn.tensor("num_batches_tracked").item(), 2.0F);
        // evolve() never updates them and uses them even in training mode.
        const Tensor series = randomTensor(Shape{1, 3, 4}, 27);
        const Tensor evolved = bn.evolve(series).output;
        QVERIFY(bn.tensor("running_var").identical(kept));
        bn.eval();
        QVERIFY(evolved.identical(bn.forward(series.reshaped(Shape{3, 2, 2})).reshaped(Shape{1, 3, 4})));
        // One value per channel cannot be normalised with batch statistics.
        bn.train();
        QVERIFY(throwsWith([&] { bn.forward(Tensor(Shape{1, 2})); }, "expected more than 1 value per channel"));
    }

    void batchNormStateDictLoading()
    {
        BatchNorm2d source(3, 1e-5, 0.1, true, true, {2, 2},
                           {{"running_mean", randomTensor(Shape{3}, 31)},
                            {"running_var", randomTensor(Shape{3}, 32, 0.5, 2)},
                            {"num_batches_tracked", Tensor::scalar(7)}});
        StateDict dict = source.stateDict();
        BatchNorm2d target(3);
        QVERIFY(target.loadStateDict(dict).status.ok);
        QCOMPARE(target.tensor("num_batches_tracked").item(), 7.0F);
        QVERIFY(target.tensor("running_var").identical(source.tensor("running_var")));
        // Old checkpoints without num_batches_tracked still load strictly...
        StateDict old;
        for (const auto& [k, v] : dict) {
            if (k != "num_batches_tracked") {
                old.emplace_back(k, v);
            }
        }
        BatchNorm2d fromOld(3);
        const auto r = fromOld.loadStateDict(old);
        QVERIFY2(r.status.ok, r.status.message.c_str());
        QVERIFY(r.missingKeys.empty());
        QVERIFY(fromOld.tensor("running_mean").identical(source.tensor("running_mean")));
        // ...but a missing running_mean fails the whole load and changes nothing.
        StateDict partial;
        for (const auto& [k, v] : dict) {
            if (k != "running_mean") {
                partial.emplace_back(k, v);
            }
        }
        BatchNorm2d fresh(3);
        const auto bad = fresh.loadStateDict(partial);
        QVERIFY(!bad.status.ok);
        QCOMPARE(bad.missingKeys, (std::vector<std::string>{"running_mean"}));
        QVERIFY(fresh.tensor("running_var").identical(Tensor(Shape{3}, 1.0F)));
    }

    // ---- LayerNorm ------------------------------------------------------------------------

    void layerNormMatchesDirectComputation()
    {
        const Tensor w = randomTensor(Shape{4, 5}, 41, 0.5, 2);
        const Tensor b = randomTensor(Shape{4, 5}, 42);
        LayerNorm ln({4, 5}, 1e-5, true, true, {{"weight", w}, {"bias", b}});
        QCOMPARE(ln.toString(), std::string("LayerNorm((4, 5), eps=1e-05, elementwise_affine=True)"));
        const Tensor x = randomTensor(Shape{3, 2, 4, 5}, 43, -5, 5);
        const Tensor y = ln.forward(x);
        QCOMPARE(y.shape(), x.shape());
        LayerNorm plain({5}, 1e-5, false);
        QVERIFY(!plain.hasAttribute("weight"));
        const Tensor z = plain.forward(x);
        for (std::int64_t r = 0; r < 6; ++r) {
            double mean = 0;
            for (std::int64_t i = 0; i < 20; ++i) {
                mean += x[r * 20 + i];
            }
            mean /= 20;
            double var = 0;
            for (std::int64_t i = 0; i < 20; ++i) {
                var += (x[r * 20 + i] - mean) * (x[r * 20 + i] - mean);
            }
            var /= 20;
            for (std::int64_t i = 0; i < 20; ++i) {
                const double ref = (x[r * 20 + i] - mean) / std::sqrt(var + 1e-5) * w[i] + b[i];
                QVERIFY(std::abs(y[r * 20 + i] - ref) <= 1e-5 * (1 + std::abs(ref)));
            }
        }
        // Without affine terms every row of 5 has mean 0 and variance 1.
        for (std::int64_t r = 0; r < x.numel() / 5; ++r) {
            double s = 0;
            double s2 = 0;
            for (std::int64_t i = 0; i < 5; ++i) {
                s += z[r * 5 + i];
                s2 += static_cast<double>(z[r * 5 + i]) * z[r * 5 + i];
            }
            QVERIFY(std::abs(s / 5) < 1e-6);
            QVERIFY(std::abs(s2 / 5 - 1) < 1e-4);
        }
        QVERIFY(throwsWith([&] { ln.forward(Tensor(Shape{2, 5, 4})); },
                           "does not end with the normalized shape (4, 5)"));
        QVERIFY(throwsWith([] { LayerNorm({}); }, "normalized_shape must have 1 to 3 axes"));
    }

    // ---- files and factory ----------------------------------------------------------------

    void convAndNormModelFilesRoundTrip()
    {
        QTemporaryDir dir;
        Sequential seq;
        seq.append(std::make_unique<Conv2d>(2, 4, Size2{3, 3}, Size2{1, 1}, Size2{1, 1}, Size2{1, 1},
                                            1, true, Size2{6, 6}, AttributeMap{{"seed", Tensor::scalar(5)}}));
        seq.append(std::make_unique<BatchNorm2d>(
            4, 1e-3, 0.2, true, true, std::array<std::int64_t, 2>{6, 6},
            AttributeMap{{"running_mean", randomTensor(Shape{4}, 51)},
                         {"running_var", randomTensor(Shape{4}, 52, 0.5, 2)},
                         {"weight", randomTensor(Shape{4}, 53)},
                         {"num_batches_tracked", Tensor::scalar(3)}}));
        seq.append(std::make_unique<Conv2d>(4, 2, Size2{3, 3}, Size2{2, 2}, Size2{0, 0}, Size2{1, 1},
                                            2, false, Size2{6, 6}));
        seq.append(std::make_unique<LayerNorm>(std::vector<std::int64_t>{2, 2, 2}));
        seq.append(std::make_unique<BatchNorm1d>(8, 1e-5, 0.1, false));
        const std::string path = dir.filePath("cnn.json").toStdString();
        saveModel(path, seq);
        auto loaded = loadModel(path);
        QCOMPARE(loaded->toString(), seq.toString());
        const StateDict a = seq.stateDict();
        const StateDict b = loaded->stateDict();
        QCOMPARE(a.size(), b.size());
        for (std::size_t i = 0; i < a.size(); ++i) {
            QCOMPARE(a[i].first, b[i].first);
            QVERIFY2(a[i].second.identical(b[i].second), a[i].first.c_str());
        }
        QCOMPARE(loaded->getSubmodule("1").tensor("eps").item(), 1e-3F);
        const Tensor x = randomTensor(Shape{2, 3, 72}, 54);
        QVERIFY(loaded->evolve(x).output.identical(seq.evolve(x).output));
    }

    void convAndNormFactory()
    {
        for (const char* type : {"Conv2d", "BatchNorm1d", "BatchNorm2d", "LayerNorm"}) {
            const ModuleTypeInfo* info = findModuleType(type);
            QVERIFY2(info != nullptr, type);
            QCOMPARE(info->category, std::string("layers"));
            QVERIFY(info->create(info->exampleConfig) != nullptr);
        }
        auto conv = createModule("Conv2d", {{"in_channels", 3}, {"out_channels", 6}, {"kernel_size", 3},
                                            {"stride", {2, 1}}, {"padding", 1}, {"groups", 3},
                                            {"bias", false}, {"input_size", {9, 8}}});
        QCOMPARE(conv->toString(), std::string("Conv2d(3, 6, kernel_size=(3, 3), stride=(2, 1), "
                                               "padding=(1, 1), groups=3, bias=False)"));
        QCOMPARE(conv->shape(), (std::vector<std::int64_t>{3 * 9 * 8, 6 * 5 * 8}));
        QVERIFY(createModule("Conv2d", conv->config())->config() == conv->config());
        QVERIFY(throwsWith([] { createModule("Conv2d", {{"in_channels", 3}, {"out_channels", 6}}); },
                           "config 'kernel_size': missing"));
        QVERIFY(throwsWith([] { createModule("Conv2d", {{"in_channels", 3}, {"out_channels", 6},
                                                        {"kernel_size", {3, 3, 3}}}); },
                           "config 'kernel_size': expected a whole number or [height, width]"));
        QVERIFY(throwsWith([] { createModule("Conv2d", {{"in_channels", 3}, {"out_channels", 4},
                                                        {"kernel_size", 1}, {"groups", 3}}); },
                           "config 'groups'"));
        QVERIFY(throwsWith([] { createModule("Conv2d", {{"in_channels", 1}, {"out_channels", 1},
                                                        {"kernel_size", 5}, {"input_size", {2, 2}}}); },
                           "config 'input_size'"));
        QVERIFY(throwsWith([] { createModule("BatchNorm2d", {{"num_features", 0}}); },
                           "config 'num_features'"));
        QVERIFY(throwsWith([] { createModule("BatchNorm1d", {{"num_features", 2}, {"affine", 1}}); },
                           "config 'affine': expected true or false"));
        QVERIFY(throwsWith([] { createModule("LayerNorm", {{"normalized_shape", {2, 0}}}); },
                           "config 'normalized_shape'"));
        auto ln = createModule("LayerNorm", {{"normalized_shape", 6}, {"bias", false}});
        QCOMPARE(ln->toString(), std::string("LayerNorm((6,), eps=1e-05, elementwise_affine=True, bias=False)"));
        QVERIFY(!ln->hasAttribute("bias"));
    }
};

QTEST_GUILESS_MAIN(TestConvNorm)
#include "test_conv_norm.moc"
