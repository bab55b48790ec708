// spikesim with NIR files, run as a user runs it: `info` names the graph's nodes and how it was
// discretised, `run` records nodes by their NIR names (nested ones dotted) and reproduces the NIR
// library's reference recordings, `convert` goes .nir -> .json -> .nir keeping the graph, a
// model NIR cannot fully hold says what was left out, and every bad file or option ends with
// exit status 1 and one line naming the file and the problem.
#include "engine/nir/nir_file.hpp"
#include "engine/tensor/npy.hpp"

#include "tests/spikesim_process.hpp"

#include <QtTest/QtTest>

#include <QTemporaryDir>

#include <cmath>

using spike::tests::runSpikesim;

namespace {

QString data(const QString& rest)
{
    return QStringLiteral(SPIKE_TEST_DATA_DIR "/nir/") + rest;
}

}  // namespace

class TestSpikesimNir : public QObject {
    Q_OBJECT

private slots:
    void infoListsTheGraph()
    {
        const auto o = runSpikesim({"info", data("nested_li/model.nir"), "--dt", "0.0005"});
        QVERIFY2(o.exitCode == 0, qPrintable(o.err));
        QVERIFY2(o.out.contains("NIR graph, discretised with dt 0.0005 s, euler"), qPrintable(o.out));
        QVERIFY2(o.out.contains("sub.li  LI"), qPrintable(o.out));
        QVERIFY2(o.out.contains("fc  Linear"), qPrintable(o.out));
        QVERIFY2(o.out.contains("connection"), qPrintable(o.out));
    }

    void runRecordsByNirNames()
    {
        QTemporaryDir dir;
        const auto o = runSpikesim({"run", data("nested_li/model.nir"), "--dt", "1e-3", "--input",
                                    data("nested_li/input.npy"), "--record", "sub.li.v", "--record",
                                    "output.output", "--out", dir.path()});
        QVERIFY2(o.exitCode == 0, qPrintable(o.err));
        const auto got = spike::engine::npy::load(dir.filePath("sub.li.v.npy").toStdString());
        const auto want = spike::engine::npy::load(data("nested_li/expected_sub.li_v.npy").toStdString());
        QCOMPARE(got.numel(), want.numel());
        for (std::int64_t i = 0; i < want.numel(); ++i) {
            QVERIFY(std::fabs(got[i] - want[i]) <= 1e-4 + 1e-4 * std::fabs(want[i]));
        }
        QVERIFY(QFileInfo::exists(dir.filePath("output.output.npy")));
    }

    void severalInputsTakeAnArchive()
    {
        // Two Input nodes ("a": 2, "b": 3) take one array each from an .npz, by name
        // (tests/data/nir/two_inputs/make_two_inputs.py made the graph, the input and NIR's
        // forward-Euler recordings with h5py and NumPy).
        QTemporaryDir dir;
        auto o = runSpikesim({"run", data("two_inputs/model.nir"), "--input",
                              data("two_inputs/input.npz"), "--record", "lif.v", "--record",
                              "output.output", "--out", dir.path()});
        QVERIFY2(o.exitCode == 0, qPrintable(o.err));
        const auto v = spike::engine::npy::load(dir.filePath("lif.v.npy").toStdString());
        const auto want = spike::engine::npy::load(data("two_inputs/expected_lif_v.npy").toStdString());
        QCOMPARE(v.numel(), want.numel());
        for (std::int64_t i = 0; i < want.numel(); ++i) {
            QVERIFY(std::fabs(v[i] - want[i]) <= 1e-4 + 1e-4 * std::fabs(want[i]));
        }
        const auto z = spike::engine::npy::load(dir.filePath("output.output.npy").toStdString());
        const auto spikes =
            spike::engine::npy::load(data("two_inputs/expected_output_output.npy").toStdString());
        double total = 0.0;
        for (std::int64_t i = 0; i < spikes.numel(); ++i) {
            QCOMPARE(z[i], spikes[i]);
            total += z[i];
        }
        QCOMPARE(total, 25.0);
        // A single .npy cannot say which Input is which: it must hold all 5 channels side by
        // side; an archive without "b" is refused naming it.
        o = runSpikesim({"run", data("two_inputs/model.nir"), "--input", data("nested_li/input.npy")});
        QCOMPARE(o.exitCode, 1);
        QVERIFY2(o.err.contains("expected (T, 5)"), qPrintable(o.err));
    }

    void convertBothWays()
    {
        QTemporaryDir dir;
        const QString json = dir.filePath("conv.json");
        const QString back = dir.filePath("conv.nir");
        auto o = runSpikesim({"convert", data("conv_if_pool/model.nir"), json});
        QVERIFY2(o.exitCode == 0, qPrintable(o.err));
        QVERIFY(QFileInfo::exists(json));
        o = runSpikesim({"convert", json, back});
        QVERIFY2(o.exitCode == 0, qPrintable(o.err));
        QVERIFY2(o.err.isEmpty(), qPrintable(o.err));
        const auto original = spike::engine::nir::readNirFile(data("conv_if_pool/model.nir").toStdString());
        const auto again = spike::engine::nir::readNirFile(back.toStdString());
        QCOMPARE(again.graph.nodes.size(), original.graph.nodes.size());
        QCOMPARE(again.graph.edges.size(), original.graph.edges.size());
        // The converted JSON runs like the file itself.
        o = runSpikesim({"run", json, "--input", data("conv_if_pool/input.npy"), "--record",
                         "lif.v", "--out", dir.filePath("rec")});
        QVERIFY2(o.exitCode == 0, qPrintable(o.err));
        const auto got = spike::engine::npy::load(dir.filePath("rec/lif.v.npy").toStdString());
        const auto want = spike::engine::npy::load(data("conv_if_pool/expected_lif_v.npy").toStdString());
        for (std::int64_t i = 0; i < want.numel(); ++i) {
            QVERIFY(std::fabs(got[i] - want[i]) <= 1e-4 + 1e-4 * std::fabs(want[i]));
        }
    }

    void convertSaysWhatIsLeftOut()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("cuba.nir");
        const auto o = runSpikesim({"convert", spike::tests::exampleModel("cuba_network.json"), out});
        // Brian2's CUBA network: its CUBALIF populations have no NIR form; each is named, on a
        // line of its own before the file is written, or in the one line saying nothing is left.
        QVERIFY2(o.err.contains("CUBALIF"), qPrintable(o.err));
        QVERIFY2(o.err.contains("left out"), qPrintable(o.err));
        if (o.exitCode == 0) {
            QVERIFY(QFileInfo::exists(out));
        } else {
            QCOMPARE(o.exitCode, 1);
            QVERIFY(!QFileInfo::exists(out));
            QCOMPARE(o.err.trimmed().count('\n'), 0);
        }
    }

    void badInputEndsWithOneLine_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("says");
        QTest::newRow("not hdf5") << QStringList{"info", data("malformed/not_hdf5.nir")}
                                  << "not an HDF5 file";
        QTest::newRow("truncated") << QStringList{"run", data("malformed/truncated.nir"), "--steps", "5"}
                                   << "truncated";
        QTest::newRow("negative tau") << QStringList{"info", data("malformed/negative_tau.nir")}
                                      << "tau must be > 0";
        QTest::newRow("unknown type") << QStringList{"convert", data("malformed/unknown_node_type.nir"), "x.json"}
                                      << "unknown type 'Izhikevich3000'";
        QTest::newRow("missing file") << QStringList{"info", data("nowhere.nir")} << "nowhere.nir";
        QTest::newRow("bad discretisation")
            << QStringList{"info", data("lif_affine/model.nir"), "--discretisation", "rk4"} << "rk4";
        QTest::newRow("wrong input width")
            << QStringList{"run", data("lif_affine/model.nir"), "--input", data("conv_if_pool/input.npy")}
            << "does not fit the model";
        QTest::newRow("unknown record")
            << QStringList{"run", data("lif_affine/model.nir"), "--steps", "3", "--record", "lif.w", "--out", "/tmp/x"}
            << "lif";
        QTest::newRow("bad output name")
            << QStringList{"convert", data("lif_affine/model.nir"), "/tmp/out.txt"} << ".nir or .json";
    }

    void badInputEndsWithOneLine()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, says);
        const auto o = runSpikesim(args);
        QVERIFY2(o.exitCode == 1 || (o.exitCode != 0 && o.exitCode != -2 && says == "rk4"),
                 qPrintable(QString::number(o.exitCode) + " " + o.err));
        QVERIFY2(o.err.contains(says), qPrintable(o.err));
        QVERIFY2(o.err.trimmed().count('\n') <= 1, qPrintable(o.err));
    }
};

QTEST_GUILESS_MAIN(TestSpikesimNir)
#include "test_spikesim_nir.moc"
