// Replays every input the fuzzers found (tests/fuzz/regressions/<target>/<name>) through the same
// steps the fuzz target ran (tests/fuzz/fuzz_inputs.hpp) in the normal build, and checks the
// outcome against <name>.expected beside it: the exact message the engine must give (or "ok"
// for an input that must now load), one line per step tried, with "<dir>" for the scratch
// folder. A finding that crashes, hangs or gives another message fails here under ctest; the
// fuzzers themselves run in .ci/fuzz (docs/testing.md).
#include "tests/fuzz/fuzz_inputs.hpp"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <string>

namespace {

namespace fs = std::filesystem;

using Replay = std::function<std::string(std::string_view, const fs::path&)>;

const std::map<std::string, Replay>& replays()
{
    static const std::map<std::string, Replay> table{
        {"fuzz_model_json", spike::fuzz::modelJson},     {"fuzz_npy", spike::fuzz::npyOrNpz},
        {"fuzz_state_dict", spike::fuzz::stateDict},     {"fuzz_cli_values", spike::fuzz::cliValues},
        {"fuzz_nir", spike::fuzz::nirFile},              {"fuzz_equations", spike::fuzz::equationText},
    };
    return table;
}

std::string readAll(const fs::path& path)
{
    std::ifstream f(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

std::string replaceAll(std::string text, const std::string& from, const std::string& to)
{
    for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
        text.replace(at, from.size(), to);
    }
    return text;
}

}  // namespace

class TestFuzzRegressions : public QObject {
    Q_OBJECT

private slots:
    void everyFindingHasItsMessage_data()
    {
        QTest::addColumn<QString>("target");
        QTest::addColumn<QString>("input");
        int rows = 0;
        for (const auto& targetDir : fs::directory_iterator(SPIKE_FUZZ_REGRESSIONS_DIR)) {
            if (!targetDir.is_directory()) {
                continue;
            }
            const std::string target = targetDir.path().filename().string();
            QVERIFY2(replays().count(target), ("no fuzz target named " + target).c_str());
            for (const auto& entry : fs::directory_iterator(targetDir.path())) {
                if (entry.path().extension() == ".expected") {
                    QVERIFY2(fs::exists(fs::path(entry.path()).replace_extension()),
                             (entry.path().string() + " has no input beside it").c_str());
                    continue;
                }
                QVERIFY2(fs::exists(entry.path().string() + ".expected"),
                         (entry.path().string() + " has no .expected file beside it").c_str());
                const std::string row = target + "/" + entry.path().filename().string();
                QTest::newRow(row.c_str()) << QString::fromStdString(target)
                                           << QString::fromStdString(entry.path().string());
                ++rows;
            }
        }
        QVERIFY2(rows > 0, "no regression inputs under " SPIKE_FUZZ_REGRESSIONS_DIR);
    }

    void everyFindingHasItsMessage()
    {
        QFETCH(QString, target);
        QFETCH(QString, input);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const fs::path scratch = dir.path().toStdString();
        const std::string bytes = readAll(input.toStdString());
        const std::string outcome =
            replaceAll(replays().at(target.toStdString())(bytes, scratch), scratch.string(), "<dir>");
        std::string expected = readAll(input.toStdString() + ".expected");
        while (!expected.empty() && expected.back() == '\n') {
            expected.pop_back();
        }
        QCOMPARE(QString::fromStdString(outcome), QString::fromStdString(expected));
    }
};

QTEST_GUILESS_MAIN(TestFuzzRegressions)
#include "test_fuzz_regressions.moc"
