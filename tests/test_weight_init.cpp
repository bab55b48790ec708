// engine::initialWeights (engine/network/weight_init.hpp): each scheme's moments and bounds over
// a 400 x 500 matrix within statistical tolerance, Kaiming uniform's bound against fan_in (rows),
// the same seed giving the same matrix and another seed another one, and bad parameters refused
// with messages naming them.
#include "engine/network/weight_init.hpp"
#include "engine/tensor/error.hpp"

#include <QtTest/QtTest>

#include <algorithm>
#include <cmath>

using namespace spike::engine;  // NOLINT: test file

namespace {

struct Stats {
    double mean = 0.0, std = 0.0, min = 0.0, max = 0.0;
};

Stats stats(const Tensor& t)
{
    Stats s;
    s.min = t[0];
    s.max = t[0];
    double sum = 0.0, sq = 0.0;
    for (std::int64_t i = 0; i < t.numel(); ++i) {
        sum += t[i];
        sq += static_cast<double>(t[i]) * t[i];
        s.min = std::min<double>(s.min, t[i]);
        s.max = std::max<double>(s.max, t[i]);
    }
    const double n = static_cast<double>(t.numel());
    s.mean = sum / n;
    s.std = std::sqrt(std::max(0.0, sq / n - s.mean * s.mean));
    return s;
}

QString refusal(WeightInit scheme, const WeightInitParams& p, std::int64_t rows = 3, std::int64_t cols = 4)
{
    try {
        initialWeights(scheme, p, rows, cols, 1);
    } catch (const Error& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

}  // namespace

class TestWeightInit : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void constantFillsEveryEntry()
    {
        WeightInitParams p;
        p.value = -0.25;
        const Tensor w = initialWeights(WeightInit::Constant, p, 7, 3, 42);
        QCOMPARE(w.shape(), Shape({7, 3}));
        for (std::int64_t i = 0; i < w.numel(); ++i) {
            QCOMPARE(w[i], -0.25F);
        }
    }

    void uniformMomentsAndBounds()
    {
        WeightInitParams p;
        p.low = -0.2;
        p.high = 0.6;
        const Tensor w = initialWeights(WeightInit::Uniform, p, 400, 500, 3);
        const Stats s = stats(w);
        // n = 2e5: the mean's standard error is (0.8 / sqrt(12)) / sqrt(n) = 5.2e-4.
        QVERIFY2(std::abs(s.mean - 0.2) < 0.003, qPrintable(QString::number(s.mean)));
        QVERIFY2(std::abs(s.std - 0.8 / std::sqrt(12.0)) < 0.003, qPrintable(QString::number(s.std)));
        QVERIFY(s.min >= -0.2 && s.max < 0.6);
        QVERIFY(s.min < -0.199 && s.max > 0.599);  // the whole range is used
    }

    void normalMoments()
    {
        WeightInitParams p;
        p.mean = 0.0;
        p.std = 0.1;
        const Tensor w = initialWeights(WeightInit::Normal, p, 400, 500, 11);
        const Stats s = stats(w);
        // Standard error of the mean 0.1 / sqrt(2e5) = 2.2e-4; of the std about 1.6e-4.
        QVERIFY2(std::abs(s.mean) < 0.0015, qPrintable(QString::number(s.mean)));
        QVERIFY2(std::abs(s.std - 0.1) < 0.0015, qPrintable(QString::number(s.std)));
        QVERIFY(s.min < -0.35 && s.max > 0.35);  // tails of a normal, not a clipped draw
        p.mean = 1.5;
        p.std = 0.0;
        const Stats fixed = stats(initialWeights(WeightInit::Normal, p, 5, 5, 11));
        QCOMPARE(fixed.min, 1.5);
        QCOMPARE(fixed.max, 1.5);
    }

    void kaimingBoundFollowsFanIn()
    {
        WeightInitParams p;  // default gain 1/sqrt(3): bound 1/sqrt(fan_in), torch.nn.Linear's
        for (const std::int64_t rows : {16, 400}) {
            const Tensor w = initialWeights(WeightInit::KaimingUniform, p, rows, 500, 5);
            const Stats s = stats(w);
            const double bound = 1.0 / std::sqrt(static_cast<double>(rows));
            QVERIFY2(s.max < bound + 1e-6 && s.min >= -bound - 1e-6, qPrintable(QString::number(s.max)));
            QVERIFY2(s.max > 0.99 * bound && s.min < -0.99 * bound, qPrintable(QString::number(s.max)));
            QVERIFY(std::abs(s.std - bound / std::sqrt(3.0)) < 0.02 * bound);
        }
        p.gain = std::sqrt(2.0);  // He uniform: bound sqrt(6 / fan_in)
        const Stats he = stats(initialWeights(WeightInit::KaimingUniform, p, 24, 1000, 5));
        QVERIFY(he.max < std::sqrt(6.0 / 24.0) + 1e-6 && he.max > 0.99 * std::sqrt(6.0 / 24.0));
    }

    void seedDeterminesTheMatrix()
    {
        WeightInitParams p;
        for (const WeightInit scheme : {WeightInit::Uniform, WeightInit::Normal, WeightInit::KaimingUniform}) {
            const Tensor a = initialWeights(scheme, p, 30, 20, 7);
            const Tensor b = initialWeights(scheme, p, 30, 20, 7);
            const Tensor c = initialWeights(scheme, p, 30, 20, 8);
            QVERIFY(a.identical(b));
            QVERIFY(!a.identical(c));
        }
    }

    void namesRoundTrip()
    {
        for (const std::string& name : weightInitNames()) {
            QCOMPARE(weightInitName(weightInitFromName(name)), name);
        }
        QVERIFY_THROWS_EXCEPTION(Error, weightInitFromName("xavier"));
    }

    void badParametersAreRefused()
    {
        WeightInitParams p;
        QVERIFY(refusal(WeightInit::Constant, p, 0, 4).contains(QStringLiteral("(0, 4)")));
        QVERIFY(refusal(WeightInit::Constant, p, -3, 4).contains(QStringLiteral("at least one row")));
        QVERIFY(refusal(WeightInit::Constant, p, 100000, 100000).contains(QStringLiteral("2^31")));
        WeightInitParams bad = p;
        bad.std = -0.1;
        QVERIFY(refusal(WeightInit::Normal, bad).contains(QStringLiteral("std >= 0")));
        bad = p;
        bad.low = 1.0;
        bad.high = 0.0;
        QVERIFY(refusal(WeightInit::Uniform, bad).contains(QStringLiteral("low <= high")));
        bad = p;
        bad.gain = -1.0;
        QVERIFY(refusal(WeightInit::KaimingUniform, bad).contains(QStringLiteral("gain")));
        bad = p;
        bad.value = std::nan("");
        QVERIFY(refusal(WeightInit::Constant, bad).contains(QStringLiteral("value must be a finite")));
        QVERIFY(refusal(WeightInit::Constant, p).isEmpty());
    }
};

QTEST_APPLESS_MAIN(TestWeightInit)
#include "test_weight_init.moc"
