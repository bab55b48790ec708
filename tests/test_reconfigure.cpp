// Module settings and reconfigure(): every registered type's settings read its example config
// and write it back unchanged; configWithSetting refuses out-of-bounds values, wrong kinds and
// unknown names with messages naming type and setting; configWithSize; and the carry rule of
// reconfigure.hpp on LIF (spread, per-neuron arrays grown and shrunk, has_rec switched on,
// states), Linear (the overlapping weight block), projections, containers and composites, with
// the reconfigured module simulating bit-identically to one built directly with those values.
#include "engine/io/module_factory.hpp"
#include "engine/io/reconfigure.hpp"
#include "engine/network/network.hpp"
#include "engine/network/projections.hpp"
#include "engine/runtime/state_carry.hpp"
#include "tests/layer_test_helpers.hpp"
#include "tests/module_compare.hpp"

#include <QtTest/QtTest>
#include <QFile>

#include <sys/resource.h>  // getrusage: the peak resident size
#include <algorithm>
#include <iostream>
#include <string>

using namespace spike::engine;  // NOLINT: test file
using nlohmann::json;
using spike::tests::expectError;
using spike::tests::uniformTensor;

namespace {

Tensor vec(std::vector<float> v)
{
    const auto n = static_cast<std::int64_t>(v.size());
    return Tensor(Shape{n}, v);
}

void set(Module& m, const std::string& name, const AttributeValue& v)
{
    const Status s = m.setAttribute(name, v);
    QVERIFY2(s.ok, s.message.c_str());
}

bool hasNote(const Reconfigured& r, const std::string& fragment)
{
    for (const auto& n : r.notes) {
        if (n.find(fragment) != std::string::npos) {
            return true;
        }
    }
    return false;
}

std::string notesText(const Reconfigured& r)
{
    std::string all;
    for (const auto& n : r.notes) {
        all += n + "\n";
    }
    return all;
}

/// The settings list of docs/model-format.md, generated from ModuleTypeInfo::settings: one
/// item per type with settings, a sub-item "`name` (size, 1 to 100000000): doc" per setting.
std::string settingsMarkdown()
{
    std::string out;
    for (const ModuleTypeInfo& info : moduleTypes()) {
        if (info.settings.empty()) {
            continue;
        }
        out += "- `" + info.type + "`\n";
        for (const ConfigSetting& s : info.settings) {
            std::string values;
            if (s.kind == SettingKind::Integer) {
                values = std::to_string(s.min) + " to " + std::to_string(s.max);
            } else if (s.kind == SettingKind::Boolean) {
                values = "true/false";
            } else {
                for (const auto& c : s.choices) {
                    values += (values.empty() ? "" : "/") + c;
                }
            }
            out += "  - `" + s.name + "` (" + (s.size ? "size, " : "") + values + "): " + s.doc + "\n";
        }
    }
    return out;
}

}  // namespace

class TestReconfigure : public QObject {
    Q_OBJECT

private slots:
    void everyTypeRoundTripsItsSettings()
    {
        for (const ModuleTypeInfo& info : moduleTypes()) {
            const json example = info.exampleConfig;
            int sizes = 0;
            for (const ConfigSetting& s : info.settings) {
                QVERIFY2(s.get && s.set, (info.type + "." + s.name).c_str());
                const json v = s.get(example);
                const json back = configWithSetting(info.type, example, s.name, v);
                // The value reads back, and the rebuilt module's own config agrees with it.
                const std::string what = info.type + "." + s.name + " = " + v.dump();
                QVERIFY2(s.get(back) == v, what.c_str());
                const auto built = createModule(info.type, back);
                QVERIFY2(s.get(built->config()) == v, (what + ", built: " + built->config().dump()).c_str());
                sizes += s.size ? 1 : 0;
            }
            QVERIFY2(sizes <= 1, info.type.c_str());
            // Every sized type but containers and projections has a size setting.
            const bool unsized = info.container || info.category == "projections" ||
                                 info.category == "templates";
            if (!unsized) {
                QVERIFY2(sizes == 1, (info.type + " has no size setting").c_str());
            }
            if (info.category == "projections") {
                QVERIFY2(info.settings.empty(), info.type.c_str());
            }
        }
    }

    void settingsChangeWhatTheySay()
    {
        const json lif = configWithSetting("LIF", {{"shape", {3, 1}}, {"has_rec", false}}, "neurons", 100);
        QCOMPARE(lif.at("shape").dump(), std::string("[300,100]"));  // 3 synapses per neuron kept
        const json k = configWithSetting("LIF", lif, "synapses", 2);
        QCOMPARE(k.at("shape").dump(), std::string("[200,100]"));
        QCOMPARE(configWithSetting("LIF", k, "has_rec", true).at("has_rec").get<bool>(), true);
        QCOMPARE(configWithSetting("PoissonSource", {{"shape", {1}}}, "channels", 7).dump(),
                 json({{"shape", {7}}}).dump());
        const json file = configWithSetting("FileSource", {{"shape", {10, 2}}}, "rows", 4);
        QCOMPARE(file.at("shape").dump(), std::string("[4,2]"));
        const json conv = configWithSetting("Conv2d", findModuleType("Conv2d")->exampleConfig,
                                            "kernel_width", 5);
        QCOMPARE(conv.at("kernel_size").dump(), std::string("[3,5]"));
        const auto built = createModule("Conv2d", conv);
        QCOMPARE(built->config().at("kernel_size").dump(), std::string("[3,5]"));
        const json lin = configWithSetting("Linear", {{"in_features", 1}, {"out_features", 1}},
                                           "in_features", 4);
        QCOMPARE(lin.at("in_features").get<int>(), 4);
        const json net = configWithSetting("Network", {{"input_ports", {{{"name", "exc"}, {"size", 3}}}}},
                                           "input_size", 5);
        QCOMPARE(net.at("input_ports").dump(), std::string(R"([{"name":"exc","size":5}])"));
    }

    void configWithSettingRefusesBadValues()
    {
        const json lif = findModuleType("LIF")->exampleConfig;
        expectError([&] { configWithSetting("LIF", lif, "neurons", 0); },
                    "LIF setting 'neurons': expected a whole number in [1, 100000000], got 0");
        expectError([&] { configWithSetting("LIF", lif, "neurons", -1); }, "LIF setting 'neurons'");
        expectError([&] { configWithSetting("LIF", lif, "neurons", 1000000000000LL); },
                    "got 1000000000000");
        expectError([&] { configWithSetting("LIF", lif, "neurons", 2.5); }, "got 2.5");
        expectError([&] { configWithSetting("LIF", lif, "neurons", "7"); }, "got \"7\"");
        expectError([&] { configWithSetting("LIF", lif, "neurons", 18446744073709551615ULL); },
                    "LIF setting 'neurons'");
        expectError([&] { configWithSetting("LIF", lif, "has_rec", 1); },
                    "LIF setting 'has_rec': expected true or false, got 1");
        expectError([&] { configWithSetting("LIF", lif, "size", 3); },
                    "LIF has no setting 'size' (settings: 'neurons', 'synapses', 'has_rec')");
        expectError([&] { configWithSetting("Sequential", json::object(), "size", 3); },
                    "Sequential has no setting 'size' (it has no settings)");
        expectError([&] { configWithSetting("NoSuchType", json::object(), "n", 3); },
                    "unknown module type 'NoSuchType'");
        expectError([&] { configWithSetting("MLP", findModuleType("MLP")->exampleConfig, "activation", "Foo"); },
                    "MLP setting 'activation': expected one of 'ReLU', 'GELU', 'Tanh', 'Sigmoid', 'none', got \"Foo\"");
        // Bounds of one setting hold, the reader refuses the combination, naming the setting.
        expectError([&] { configWithSetting("LIF", {{"shape", {2000, 1000}}}, "neurons", 60000000); },
                    "LIF setting 'neurons': 60000000 neurons x 2 synapses exceeds");
        expectError([&] {
            configWithSetting("Conv2d", {{"in_channels", 4}, {"out_channels", 4}, {"kernel_size", 3}},
                              "groups", 3);
        }, "Conv2d setting 'groups': config 'groups': 3 does not divide");
        expectError([&] { configWithSetting("Network", {{"input_ports", {{{"name", "exc"}, {"size", 3}},
                                                                        {{"name", "inh"}, {"size", 1}}}}},
                                            "input_size", 5); },
                    "Network setting 'input_size': this side has 2 named ports");
    }

    void everySettingRefusesWhatItsReaderWould()
    {
        for (const ModuleTypeInfo& info : moduleTypes()) {
            for (const ConfigSetting& s : info.settings) {
                const std::string named = info.type + " setting '" + s.name + "': expected ";
                const auto refused = [&](const json& v) {
                    expectError([&] { configWithSetting(info.type, info.exampleConfig, s.name, v); }, named);
                };
                if (s.kind == SettingKind::Integer) {
                    QVERIFY2(s.min >= -4 && s.max >= s.min, named.c_str());
                    for (const json& v : {json(s.min - 1), json(s.max + 1), json(1000000000000LL),
                                          json(-1000000000000LL), json(1.5), json("3"), json(true)}) {
                        refused(v);
                    }
                } else if (s.kind == SettingKind::Boolean) {
                    refused(1);
                    refused("true");
                } else {
                    QVERIFY2(!s.choices.empty(), named.c_str());
                    refused("nope");
                    refused(0);
                }
                if (QTest::currentTestFailed()) {
                    return;
                }
            }
        }
    }

    void modelFormatListsEverySetting()
    {
        // docs/model-format.md carries the generated list between two markers; on a mismatch
        // the expected text is printed to paste there.
        QFile doc(QStringLiteral(SPIKE_TEST_DATA_DIR "/../../docs/model-format.md"));
        QVERIFY(doc.open(QIODevice::ReadOnly));
        const std::string text = doc.readAll().toStdString();
        const std::string begin = "<!-- settings: generated from ModuleTypeInfo::settings -->\n";
        const std::string end = "<!-- settings end -->";
        const auto from = text.find(begin);
        const auto to = text.find(end);
        QVERIFY2(from != std::string::npos && to != std::string::npos && to > from, "markers missing");
        const std::string expected = settingsMarkdown();
        const std::string actual = text.substr(from + begin.size(), to - from - begin.size());
        if (actual != expected) {
            std::cout << "docs/model-format.md should list:\n" << expected << std::flush;
        }
        QVERIFY2(actual == expected, "docs/model-format.md's settings list is not the generated one (printed above)");
    }

    void configWithSize()
    {
        QCOMPARE(spike::engine::configWithSize("LIF", 100).at("shape").dump(), std::string("[100,100]"));
        QCOMPARE(spike::engine::configWithSize("PoissonSource", 100).at("shape").dump(), std::string("[100]"));
        QCOMPARE(spike::engine::configWithSize("Linear", 8).at("out_features").get<int>(), 8);
        QCOMPARE(createModule("LIF", spike::engine::configWithSize("LIF", 100))->sizeOut(), 100);
        expectError([] { spike::engine::configWithSize("LIF", 0); }, "LIF setting 'neurons'");
        expectError([] { spike::engine::configWithSize("Sequential", 3); }, "Sequential has no size setting");
        expectError([] { spike::engine::configWithSize("DenseProjection", 3); },
                    "a projection's shape follows its wire");
    }

    void lifSpreadsOneValue()
    {
        auto lif = createModule("LIF", {{"shape", {1, 1}}});
        set(*lif, "tau_mem", Tensor::scalar(0.03F));
        set(*lif, "threshold", vec({2.0F}));
        const Reconfigured r = reconfigure(*lif, spike::engine::configWithSize("LIF", 100));
        QCOMPARE(r.module->sizeOut(), 100);
        const Tensor& tau = r.module->tensor("tau_mem");
        QCOMPARE(tau.numel(), 1);
        QCOMPARE(tau[0], 0.03F);
        const Tensor& th = r.module->tensor("threshold");
        QVERIFY(th.numel() == 1 || th.numel() == 100);
        for (std::int64_t i = 0; i < th.numel(); ++i) {
            QCOMPARE(th[i], 2.0F);
        }
        QVERIFY2(hasNote(r, "threshold: (1,) -> (), the same one value (2)"), notesText(r).c_str());

        QVERIFY2(!hasNote(r, "tau_mem"), notesText(r).c_str());  // a scalar carries as it is
        // Values that end where a new layer starts anyway (zero states, default bias) are not noted.
        QVERIFY2(!hasNote(r, "vmem") && !hasNote(r, "bias"), notesText(r).c_str());
        QVERIFY(lif->sizeOut() == 1);  // the old module is untouched
    }

    void perNeuronArraysGrowAndShrink()
    {
        auto lif = createModule("LIF", {{"shape", {3, 3}}});
        set(*lif, "bias", vec({0.1F, 0.2F, 0.3F}));
        set(*lif, "vmem", vec({0.5F, 0.6F, 0.7F}));
        const Reconfigured grown = reconfigure(*lif, {{"shape", {5, 5}}});
        const Tensor& bias = grown.module->tensor("bias");
        QCOMPARE(bias.shape(), Shape{5});
        QCOMPARE(bias[0], 0.1F);
        QCOMPARE(bias[2], 0.3F);
        QCOMPARE(bias[3], 0.0F);  // the new neurons take the initial value
        QCOMPARE(bias[4], 0.0F);
        const Tensor& vmem = grown.module->tensor("vmem");  // a State carries too
        QCOMPARE(vmem[1], 0.6F);
        QCOMPARE(vmem[4], 0.0F);
        QVERIFY2(hasNote(grown, "bias: (3,) -> (5,), the first 3 kept, entries beyond take the initial value"),
                 notesText(grown).c_str());

        auto five = createModule("LIF", {{"shape", {5, 5}}});
        set(*five, "bias", vec({1, 2, 3, 4, 5}));
        const Reconfigured shrunk = reconfigure(*five, {{"shape", {2, 2}}});
        QVERIFY(shrunk.module->tensor("bias").identical(vec({1, 2})));
        QVERIFY2(hasNote(shrunk, "bias: (5,) -> (2,), the first 2 kept"), notesText(shrunk).c_str());
    }

    void hasRecOnGivesRecurrentWeights()
    {
        auto lif = createModule("LIF", {{"shape", {8, 4}}, {"has_rec", false}});
        set(*lif, "leak_mode", std::string("decays"));
        set(*lif, "alpha", Tensor::scalar(0.5F));
        const json on = configWithSetting("LIF", lif->config(), "has_rec", true);
        const Reconfigured r = reconfigure(*lif, on);
        QCOMPARE(r.module->tensor("w_rec").shape(), (Shape{4, 8}));
        QCOMPARE(std::get<std::string>(r.module->attribute("leak_mode")), std::string("decays"));
        QCOMPARE(r.module->tensor("alpha")[0], 0.5F);
        QVERIFY2(hasNote(r, "w_rec: new"), notesText(r).c_str());
        // The new w_rec is drawn from the carried seed, as a layer built with that seed draws it.
        auto seeded = createModule("LIF", {{"shape", {8, 4}}});
        set(*seeded, "seed", Tensor::scalar(5.0F));
        const Reconfigured s5 = reconfigure(*seeded, on);
        auto direct = createModule("LIF", on);
        set(*direct, "seed", Tensor::scalar(5.0F));
        const AttributeValue drawn = direct->spec("w_rec").init(*direct);
        QVERIFY(s5.module->tensor("w_rec").identical(std::get<Tensor>(drawn)));
        QVERIFY(!s5.module->tensor("w_rec").identical(r.module->tensor("w_rec")));  // seed 0 differs
        // And off again: w_rec is dropped with a note.
        const Reconfigured off = reconfigure(*r.module, lif->config());
        QVERIFY(!off.module->hasAttribute("w_rec"));
        QVERIFY2(hasNote(off, "w_rec: not part of the new configuration"), notesText(off).c_str());
    }

    void linearKeepsTheOverlappingBlock()
    {
        auto lin = createModule("Linear", {{"in_features", 3}, {"out_features", 2}});
        const Tensor w = uniformTensor(Shape{2, 3}, 7, -1, 1);
        set(*lin, "weight", w);
        const Reconfigured r = reconfigure(*lin, {{"in_features", 5}, {"out_features", 2}});
        const Tensor& nw = r.module->tensor("weight");
        QCOMPARE(nw.shape(), (Shape{2, 5}));
        for (std::int64_t o = 0; o < 2; ++o) {
            for (std::int64_t i = 0; i < 3; ++i) {
                QCOMPARE(nw.at({o, i}), w.at({o, i}));
            }
        }
        QVERIFY2(hasNote(r, "weight: (2, 3) -> (2, 5), the first 2 x 3 kept"), notesText(r).c_str());
        QVERIFY(r.module->tensor("bias").identical(lin->tensor("bias")));  // same shape: unchanged
        const Reconfigured smaller = reconfigure(*lin, {{"in_features", 2}, {"out_features", 1}});
        QCOMPARE(smaller.module->tensor("weight").at({0, 1}), w.at({0, 1}));
    }

    void projectionsKeepTheirSettings()
    {
        auto dense = createModule("DenseProjection", {{"shape", {2, 2}}});
        set(*dense, "weight", Tensor(Shape{2, 2}, 0.25F));
        const Reconfigured d = reconfigure(*dense, {{"shape", {100, 50}}});
        const Tensor& w = d.module->tensor("weight");
        QCOMPARE(w.shape(), (Shape{100, 50}));
        QCOMPARE(w[0], 0.25F);
        QCOMPARE(w[w.numel() - 1], 0.25F);
        QVERIFY2(hasNote(d, "weight: one value (0.25) spread to (100, 50)"), notesText(d).c_str());

        // A 1 x 1 matrix is not one value for all: its entry stays at (0, 0) and the others are
        // drawn as in a new (100, 50) projection (Kaiming uniform, not all equal).
        auto single = createModule("DenseProjection", {{"shape", {1, 1}}});
        set(*single, "weight", Tensor(Shape{1, 1}, 0.25F));
        const Reconfigured g = reconfigure(*single, {{"shape", {100, 50}}});
        const Tensor& gw = g.module->tensor("weight");
        QCOMPARE(gw.shape(), (Shape{100, 50}));
        QCOMPARE(gw[0], 0.25F);
        QVERIFY(gw[1] != gw[2] || gw[2] != gw[3]);
        const auto fresh = createModule("DenseProjection", {{"shape", {100, 50}}});
        QCOMPARE(gw[gw.numel() - 1], fresh->tensor("weight")[gw.numel() - 1]);

        auto sparse = createModule("SparseProjection", {{"shape", {10, 10}}});
        const Status s = sparse->setAttributes({{"", {{"rule", std::string("probability")},
                                                      {"p", Tensor::scalar(0.3F)},
                                                      {"seed", Tensor::scalar(42.0F)},
                                                      {"weight", Tensor::scalar(-0.5F)}}}});
        QVERIFY2(s.ok, s.message.c_str());
        const Reconfigured sp = reconfigure(*sparse, {{"shape", {100, 50}}});
        QCOMPARE(std::get<std::string>(sp.module->attribute("rule")), std::string("probability"));
        QCOMPARE(sp.module->tensor("p")[0], 0.3F);
        QCOMPARE(sp.module->tensor("seed")[0], 42.0F);
        QCOMPARE(sp.module->tensor("weight")[0], -0.5F);
        QCOMPARE(sp.module->sizeIn(), 100);
    }

    void refusedCarryFallsBackPerAttribute()
    {
        // in_degree 8 fits 10 sources, not 2: that one value is refused, the rest carry.
        auto sparse = createModule("SparseProjection", {{"shape", {10, 10}}});
        const Status s = sparse->setAttributes({{"", {{"rule", std::string("in_degree")},
                                                      {"in_degree", Tensor::scalar(8.0F)},
                                                      {"seed", Tensor::scalar(5.0F)}}}});
        QVERIFY2(s.ok, s.message.c_str());
        const Reconfigured r = reconfigure(*sparse, {{"shape", {2, 10}}});
        QCOMPARE(r.module->tensor("seed")[0], 5.0F);
        QVERIFY(r.module->tensor("in_degree")[0] <= 2.0F);
        QVERIFY2(hasNote(r, "in_degree: starts at its initial value (the carried value was refused"),
                 notesText(r).c_str());
    }

    void runningStatesFollowAResizedPopulation()
    {
        // What a running simulation does when the editor resizes a population: the rebuilt
        // model takes the running one's States (carryStates); neuron i keeps its membrane.
        auto running = createModule("LIF", {{"shape", {3, 3}}});
        set(*running, "vmem", Tensor(Shape{3}, {0.1F, 0.2F, 0.3F}));
        auto grown = createModule("LIF", {{"shape", {5, 5}}});
        carryStates(*running, *grown);
        const Tensor& v = grown->tensor("vmem");
        QCOMPARE(v.shape(), (Shape{5}));
        QCOMPARE(v[0], 0.1F);
        QCOMPARE(v[2], 0.3F);
        QCOMPARE(v[3], 0.0F);  // a new neuron starts at rest
        QCOMPARE(v[4], 0.0F);
        auto shrunk = createModule("LIF", {{"shape", {2, 2}}});
        carryStates(*running, *shrunk);
        QCOMPARE(shrunk->tensor("vmem").shape(), (Shape{2}));
        QCOMPARE(shrunk->tensor("vmem")[1], 0.2F);
    }

    void badConfigLeavesTheOldModule()
    {
        auto lif = createModule("LIF", {{"shape", {3, 3}}});
        expectError([&] { (void)reconfigure(*lif, {{"shape", {0}}}); }, "config 'Nin'");
        QCOMPARE(lif->sizeOut(), 3);
    }

    void reconfiguredSimulatesLikeADirectBuild()
    {
        auto lif = createModule("LIF", {{"shape", {4, 4}}, {"has_rec", true}});
        set(*lif, "tau_mem", vec({0.02F, 0.03F, 0.04F, 0.05F}));
        set(*lif, "bias", Tensor::scalar(0.2F));
        const Tensor input = uniformTensor(Shape{20, 4}, 3, 0, 2);
        (void)lif->evolve(input);  // some state to carry
        const json config = {{"shape", {6, 6}}, {"has_rec", true}};
        const Reconfigured r = reconfigure(*lif, config);
        QCOMPARE(r.module->stepsElapsed(), lif->stepsElapsed());

        // The same values set on a module built directly.
        auto direct = createModule("LIF", config);
        AttributeMap values;
        for (const AttributeView& v : r.module->attributes()) {
            if (!v.derived) {
                values.emplace(v.spec->name, *v.value);
            }
        }
        const Status s = direct->setAttributes({{"", values}});
        QVERIFY2(s.ok, s.message.c_str());
        spike::tests::compareAttributes(*r.module, *direct);
        const Tensor more = uniformTensor(Shape{30, 6}, 4, 0, 2);
        const EvolveResult a = r.module->evolve(more);
        const EvolveResult b = direct->evolve(more);
        QVERIFY(a.output.identical(b.output));
        QVERIFY(a.output.flat().sum() > 0.0F);  // the layer fired: a test that can fail
    }

    void containersKeepTheirNodes()
    {
        auto net = std::make_unique<Network>(3, 3);
        net->addNode("lif", createModule("LIF", {{"shape", {3, 3}}}));
        net->connect("in", "lif");
        net->connect("lif", "out");
        set(net->getSubmodule("lif"), "bias", vec({1, 2, 3}));
        const Reconfigured same = reconfigure(*net, net->config());
        QVERIFY(same.module->getSubmodule("lif").tensor("bias").identical(vec({1, 2, 3})));
        QCOMPARE(same.module->sizeIn(), 3);
        expectError([&] { (void)reconfigure(*net, {{"input_size", 4}, {"output_size", 3}}); },
                    "the connection");
        QCOMPARE(net->sizeIn(), 3);
    }

    void compositesCarryByPath()
    {
        const json config = findModuleType("MLP")->exampleConfig;
        auto mlp = createModule("MLP", config);
        spike::tests::randomize(*mlp, 11);
        const Reconfigured same = reconfigure(*mlp, config);
        spike::tests::compareTrees(*same.module, *mlp);
        QVERIFY2(same.notes.empty(), notesText(same).c_str());
        const json wider = configWithSetting("MLP", config, "hidden_channels", 20);
        const Reconfigured r = reconfigure(*mlp, wider);
        QVERIFY2(!r.notes.empty(), "a wider MLP notes its resized weights");
        QVERIFY2(hasNote(r, "weight: "), notesText(r).c_str());
    }

    void everyTypeReconfiguresToItselfUnchanged()
    {
        for (const ModuleTypeInfo& info : moduleTypes()) {
            auto m = createModule(info.type, info.exampleConfig);
            if (info.type == "Delay") {
                // Random delays would be refused (they are >= 0, the ring head a row of the
                // ring): a 3-step delay and a ring in mid-run, which carries too.
                QVERIFY(m->setAttribute("delay", Tensor(Shape{1}, 3e-3F)).ok);
                m->evolve(spike::tests::uniformTensor(Shape{5, 1}, 6, -1, 1));
            } else if (info.category == "layers" || info.category == "templates") {
                spike::tests::randomize(*m, 5);  // weights that are not one value spread
            }
            const Reconfigured r = reconfigure(*m, m->config());
            QVERIFY2(r.notes.empty(), (info.type + ": " + notesText(r)).c_str());
            spike::tests::compareTrees(*r.module, *m);
            if (QTest::currentTestFailed()) {
                qWarning("type %s", info.type.c_str());
                return;
            }
        }
    }

    void ringStatesCarryWithTheirDelay()
    {
        // A State whose shape follows the delay (SparseProjection's pending deliveries, Delay's
        // ring) carries unchanged, with its head, once the delay has carried.
        SparseProjection p(4, 3, {{"delay", Tensor::scalar(3.0F)}, {"rule", std::string("probability")},
                                  {"p", Tensor::scalar(1.0F)}});
        const Tensor pre = uniformTensor(Shape{5, 4}, 7, 0, 1);
        Tensor post(Shape{5, 3});
        p.deliver(pre.data(), 4, 5, post.data(), 3);
        QCOMPARE(p.tensor("pending_head").item(), 2.0F);
        QVERIFY(!p.tensor("pending").flat().isZero());
        const Reconfigured r = reconfigure(p, p.config());
        QVERIFY2(r.notes.empty(), notesText(r).c_str());
        spike::tests::compareTrees(*r.module, p);
        // The carried ring delivers what the old one would have.
        Tensor a(Shape{4, 3});
        Tensor b(Shape{4, 3});
        const Tensor quiet(Shape{4, 4});
        p.deliver(quiet.data(), 4, 4, a.data(), 3);
        dynamic_cast<SparseProjection&>(*r.module).deliver(quiet.data(), 4, 4, b.data(), 3);
        QVERIFY(a.identical(b));
        QVERIFY(!a.flat().isZero());
    }

    void convKernelGrowsAroundTheOldBlock()
    {
        // Rank 4: weight (out, in, kh, kw); the old 3 x 3 taps stay at the top left of 5 x 4.
        const json config = {{"in_channels", 2}, {"out_channels", 3}, {"kernel_size", 3}};
        auto conv = createModule("Conv2d", config);
        spike::tests::randomize(*conv, 9);
        json bigger = configWithSetting("Conv2d", config, "kernel_height", 5);
        bigger = configWithSetting("Conv2d", bigger, "kernel_width", 4);
        const Reconfigured r = reconfigure(*conv, bigger);
        const Tensor& before = conv->tensor("weight");
        const Tensor& after = r.module->tensor("weight");
        QCOMPARE(after.shape(), (Shape{3, 2, 5, 4}));
        for (std::int64_t o = 0; o < 3; ++o) {
            for (std::int64_t i = 0; i < 2; ++i) {
                for (std::int64_t y = 0; y < 3; ++y) {
                    for (std::int64_t x = 0; x < 3; ++x) {
                        QCOMPARE(after.at({o, i, y, x}), before.at({o, i, y, x}));
                    }
                }
            }
        }
        QVERIFY(r.module->tensor("bias").identical(conv->tensor("bias")));
        QVERIFY2(hasNote(r, "weight: (3, 2, 3, 3) -> (3, 2, 5, 4), the first 3 x 2 x 3 x 3 kept"),
                 notesText(r).c_str());
    }

    void checkingBuildsNothingLarge()
    {
        // configWithSize checks "LIF 100000000" with the reader alone: no 10^8-neuron layer is
        // built per keystroke of the quick-add list. One such layer would touch at least 400 MB
        // (one float per neuron); the process's peak resident size must not grow by half of that.
        rusage usage{};
        getrusage(RUSAGE_SELF, &usage);
        const long peakBefore = usage.ru_maxrss;  // KiB
        for (const char* type : {"LIF", "LIFRefrac", "CUBALIF", "PoissonSource", "FileSource", "Linear",
                                 "BatchNorm1d", "LayerNorm", "ReLU", "PReLU"}) {
            const json c = spike::engine::configWithSize(type, 100000000);
            QVERIFY2(!c.empty(), type);
        }
        expectError([] { spike::engine::configWithSize("LSTM", 100000000); },
                    "LSTM setting 'hidden_size': config: a (400000000, 100000000) weight matrix is larger");
        getrusage(RUSAGE_SELF, &usage);
        const long grown = usage.ru_maxrss - peakBefore;
        QVERIFY2(grown < 200 * 1024, (std::to_string(grown) + " KiB more at the peak").c_str());
        // What the check accepts, the type builds: every whole-number setting at its lower bound.
        for (const ModuleTypeInfo& info : moduleTypes()) {
            for (const ConfigSetting& setting : info.settings) {
                if (setting.kind != SettingKind::Integer) {
                    continue;
                }
                json c;
                try {
                    c = configWithSetting(info.type, info.exampleConfig, setting.name, setting.min);
                } catch (const Error&) {
                    continue;  // refused in combination with the example's other settings
                }
                try {
                    QVERIFY(createModule(info.type, c) != nullptr);
                } catch (const Error& e) {
                    QFAIL((info.type + "." + setting.name + ": checked, then refused: " + e.what()).c_str());
                }
            }
        }
    }

    void millionNeuronsCarryEveryValue()
    {
        // Grown by a fifth: every value kept in place, every new neuron at the initial value 0.
        auto lif = createModule("LIF", spike::engine::configWithSize("LIF", 1000000));
        set(*lif, "bias", uniformTensor(Shape{1000000}, 1, 0, 1));
        const Reconfigured r = reconfigure(*lif, spike::engine::configWithSize("LIF", 1200000));
        const float* before = lif->tensor("bias").data();
        const float* after = r.module->tensor("bias").data();
        QCOMPARE(r.module->tensor("bias").numel(), std::int64_t{1200000});
        QVERIFY(std::equal(before, before + 1000000, after));
        QVERIFY(std::all_of(after + 1000000, after + 1200000, [](float v) { return v == 0.0F; }));
    }
};

QTEST_GUILESS_MAIN(TestReconfigure)
#include "test_reconfigure.moc"
