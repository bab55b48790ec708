// The engine's random generator as the LIF's membrane noise uses it (Random::fillNormal): each
// value equals Box–Muller evaluated in double precision from the same bits to float32 accuracy;
// two million draws are standard normal by their moments and the Kolmogorov–Smirnov statistic;
// filling at once or in pieces gives the same stream; and a noisy LIF at rest has the
// Ornstein–Uhlenbeck stationary variance sigma^2 dt / (1 - alpha^2).
#include "engine/neurons/lif.hpp"
#include "engine/tensor/random.hpp"

#include <QtTest/QtTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

using namespace spike::engine;  // NOLINT: test file

namespace {

/// The pair fillNormal() makes from one 64-bit draw, in double precision from the same u1
/// (rounded as the float code rounds it) and the same angle.
std::pair<double, double> referencePair(std::uint64_t bits)
{
    const auto k = static_cast<std::int32_t>(bits >> 33U);
    const float u1 = (static_cast<float>(k) + 0.5F) * 4.656612873077392578125E-10F;
    const double r = std::sqrt(-2.0 * std::log(static_cast<double>(u1)));
    const double theta = 6.283185307179586476925 * static_cast<double>(bits & 0xFFFFFFU) / 16777216.0;
    return {r * std::cos(theta), r * std::sin(theta)};
}

double normalCdf(double x)
{
    return 0.5 * std::erfc(-x / std::sqrt(2.0));
}

}  // namespace

class TestRandom : public QObject {
    Q_OBJECT

private slots:
    void valuesAreBoxMullerToFloatAccuracy()
    {
        constexpr std::int64_t kPairs = 200'000;
        Random fast(5);
        Random bits(5);
        std::vector<float> z(2 * kPairs);
        fast.fillNormal(z.data(), static_cast<std::int64_t>(z.size()), 1.0F);
        double worst = 0.0;
        for (std::int64_t p = 0; p < kPairs; ++p) {
            const auto [c, s] = referencePair(bits.next());
            for (const auto& [got, want] : {std::pair{z[2 * p], c}, std::pair{z[2 * p + 1], s}}) {
                worst = std::max(worst, std::abs(got - want) / std::max(1.0, std::abs(want)));
            }
        }
        qInfo("largest error against double Box-Muller: %.3g", worst);
        QVERIFY2(worst < 5e-7, qPrintable(QString::number(worst)));
    }

    void drawsAreStandardNormal()
    {
        constexpr std::int64_t kN = 2'000'000;
        Random rng(12345);
        std::vector<float> z(kN);
        rng.fillNormal(z.data(), kN, 1.0F);
        double m1 = 0.0;
        double m2 = 0.0;
        double m3 = 0.0;
        double m4 = 0.0;
        std::int64_t beyond3 = 0;
        for (const float v : z) {
            const double x = v;
            QVERIFY(std::isfinite(x));
            m1 += x;
            m2 += x * x;
            m3 += x * x * x;
            m4 += x * x * x * x;
            beyond3 += std::abs(x) > 3.0 ? 1 : 0;
        }
        const double n = static_cast<double>(kN);
        m1 /= n;
        m2 /= n;
        m3 /= n;
        m4 /= n;
        const double var = m2 - m1 * m1;
        // Tolerances are about 5 standard errors of each estimate at this n.
        QVERIFY2(std::abs(m1) < 0.0035, qPrintable(QString::number(m1)));
        QVERIFY2(std::abs(var - 1.0) < 0.005, qPrintable(QString::number(var)));
        QVERIFY2(std::abs(m3) < 0.009, qPrintable(QString::number(m3)));
        QVERIFY2(std::abs(m4 - 3.0) < 0.02, qPrintable(QString::number(m4)));
        // P(|z| > 3) = 0.0026998.
        QVERIFY(std::abs(static_cast<double>(beyond3) / n - 0.0026998) < 0.00019);

        std::sort(z.begin(), z.end());
        double ks = 0.0;
        for (std::int64_t i = 0; i < kN; ++i) {
            const double f = normalCdf(z[static_cast<std::size_t>(i)]);
            ks = std::max({ks, f - static_cast<double>(i) / n, static_cast<double>(i + 1) / n - f});
        }
        // Kolmogorov-Smirnov: D * sqrt(n) above 1.63 would reject normality at the 1 % level.
        QVERIFY2(ks * std::sqrt(n) < 1.63, qPrintable(QString::number(ks * std::sqrt(n))));
    }

    void piecesContinueOneStream()
    {
        constexpr std::int64_t kN = 2101;
        Random whole(9);
        std::vector<float> once(kN);
        whole.fillNormal(once.data(), kN, 0.25F);
        Random pieces(9);
        std::vector<float> split(kN);
        std::int64_t at = 0;
        for (const std::int64_t len : {1, 3, 2, 7, 1024, 0, 5, 1059}) {
            pieces.fillNormal(split.data() + at, len, 0.25F);
            at += len;
        }
        QCOMPARE(at, kN);
        QVERIFY(std::equal(once.begin(), once.end(), split.begin()));
        // The scale multiplies unit draws; reseeding restarts the stream.
        Random unit(9);
        std::vector<float> plain(kN);
        unit.fillNormal(plain.data(), kN, 1.0F);
        for (std::int64_t i = 0; i < kN; ++i) {
            QCOMPARE(once[static_cast<std::size_t>(i)], 0.25F * plain[static_cast<std::size_t>(i)]);
        }
        unit.reseed(9);
        std::vector<float> again(3);
        unit.fillNormal(again.data(), 3, 1.0F);
        QVERIFY(std::equal(again.begin(), again.end(), plain.begin()));
    }

    void noisyLifAtRestHasTheOrnsteinUhlenbeckVariance()
    {
        constexpr std::int64_t kNeurons = 1000;
        constexpr std::int64_t kSteps = 2000;
        constexpr std::int64_t kSkip = 200;
        const float sigma = 0.1F;
        const float dt = 0.001F;
        const float tau = 0.02F;
        LIF lif(kNeurons, kNeurons, false,
                {{"noise_std", Tensor::scalar(sigma)}, {"dt", Tensor::scalar(dt)},
                 {"tau_mem", Tensor::scalar(tau)}, {"threshold", Tensor::scalar(1.0e6F)},
                 {"seed", Tensor::scalar(3.0F)}});
        const EvolveResult r = lif.evolve(Tensor(Shape{kSteps, kNeurons}), RecordSpec{"vmem"});
        const Tensor& v = r.record.at("").at("vmem").data;
        double sum = 0.0;
        double sumSq = 0.0;
        for (std::int64_t i = kSkip * kNeurons; i < kSteps * kNeurons; ++i) {
            sum += v[i];
            sumSq += static_cast<double>(v[i]) * v[i];
        }
        const double count = static_cast<double>((kSteps - kSkip) * kNeurons);
        const double var = sumSq / count - (sum / count) * (sum / count);
        const double alpha = std::exp(-static_cast<double>(dt) / tau);
        const double want = static_cast<double>(sigma) * sigma * dt / (1.0 - alpha * alpha);
        qInfo("membrane variance %.4g, Ornstein-Uhlenbeck %.4g", var, want);
        QVERIFY2(std::abs(var / want - 1.0) < 0.03, qPrintable(QString::number(var / want)));
        QVERIFY(std::abs(sum / count) < 0.05 * std::sqrt(want));
    }
};

QTEST_GUILESS_MAIN(TestRandom)
#include "test_random.moc"
