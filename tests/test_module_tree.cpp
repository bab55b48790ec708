// Module tree and attribute registry: torch.nn.Module-style tree operations, Rockpool-style
// registry queries, validate-then-commit, state dicts with PyTorch key names, hooks, modes,
// printing, and evolve() semantics (batching, chunking, recording time base, bad input).
#include "engine/neurons/lif.hpp"
#include "engine/layers/sequential.hpp"
#include "engine/tensor/decimal.hpp"

#include <QtTest/QtTest>

#include <cmath>

using namespace spike::engine;  // NOLINT: test file

namespace {

/// Sequential( 0: LIF(4,4), 1: Sequential( 0: LIF(4,2) , 1: LIF(2,2, rec) ) )
std::unique_ptr<Sequential> makeTree()
{
    auto root = std::make_unique<Sequential>();
    root->append(std::make_unique<LIF>(4, 4));
    auto inner = std::make_unique<Sequential>();
    inner->append(std::make_unique<LIF>(4, 2));
    inner->append(std::make_unique<LIF>(2, 2, true));
    root->append(std::move(inner));
    return root;
}

Tensor randomInput(std::int64_t t, std::int64_t n, std::uint64_t seed, float scale = 0.6F)
{
    Random rng(seed);
    Tensor x(Shape{t, n});
    for (std::int64_t i = 0; i < x.numel(); ++i) {
        x[i] = rng.uniform() < 0.3 ? static_cast<float>(rng.uniform()) * scale : 0.0F;
    }
    return x;
}

std::set<std::string> keysOf(const NestedAttributes& nested)
{
    std::set<std::string> out;
    for (const auto& [path, attrs] : nested) {
        for (const auto& [name, v] : attrs) {
            out.insert(path.empty() ? name : path + "." + name);
        }
    }
    return out;
}

}  // namespace

class TestModuleTree : public QObject {
    Q_OBJECT

private slots:
    void timeStepIsTheDecimalItWasSetTo()
    {
        // float32 holds 0.001 as 0.0010000000474974513; time from steps x dt must not drift by
        // that much (issue #16: "t = 55,856,322.7 ms (55,856,320 steps)").
        const std::pair<float, double> cases[] = {{1e-3F, 0.001}, {1e-4F, 0.0001}, {5e-4F, 0.0005},
                                                  {0.1F, 0.1}, {2.5e-5F, 2.5e-5}};
        for (const auto& [dt, decimal] : cases) {
            LIF lif(2, 2, false, {{"dt", Tensor::scalar(dt)}});
            QVERIFY(lif.timeStep() == decimal);
            QVERIFY(static_cast<float>(lif.timeStep()) == dt);  // still the same float32
        }
        LIF lif(2, 2, false, {{"dt", Tensor::scalar(1e-3F)}});
        QVERIFY(lif.timeStep() == 0.001);
        QVERIFY(55'856'320.0 * lif.timeStep() * 1e3 == 55'856'320.0);
        QVERIFY(std::isnan(shortestDecimal(std::nanf(""))));
        QVERIFY(shortestDecimal(0.1F) == 0.1);
        QVERIFY(shortestDecimal(3.0e38F) == 3.0e38);
    }

    void namedModulesInInsertionOrder()
    {
        auto root = makeTree();
        std::vector<std::string> paths;
        for (const auto& [p, m] : root->namedModules()) {
            paths.push_back(p);
        }
        QCOMPARE(paths, (std::vector<std::string>{"", "0", "1", "1.0", "1.1"}));
        QCOMPARE(root->getSubmodule("1.1").className(), std::string("LIF"));
        QCOMPARE(root->getSubmodule("1.1").fullName(), std::string("1.1"));
        QCOMPARE(root->getSubmodule("1.1").name(), std::string("1"));
        QCOMPARE(&root->getSubmodule(""), static_cast<Module*>(root.get()));
    }

    void getSubmoduleNamesTheMissingStep()
    {
        auto root = makeTree();
        try {
            root->getSubmodule("1.7.0");
            QFAIL("expected an error");
        } catch (const Error& e) {
            const std::string msg = e.what();
            QVERIFY2(msg.find("'1' (Sequential) has no child '7'") != std::string::npos, e.what());
            QVERIFY2(msg.find("children: 0, 1") != std::string::npos, e.what());
        }
        QVERIFY_THROWS_EXCEPTION(Error, root->getSubmodule("0.x"));
    }

    void applyVisitsChildrenBeforeParents()
    {
        auto root = makeTree();
        std::vector<std::string> order;
        root->apply([&](Module& m) { order.push_back(m.fullName()); });
        QCOMPARE(order, (std::vector<std::string>{"0", "1.0", "1.1", "1", ""}));
    }

    void shapesAndFlags()
    {
        auto root = makeTree();
        QCOMPARE(root->sizeIn(), std::int64_t{4});
        QCOMPARE(root->sizeOut(), std::int64_t{2});
        QCOMPARE(root->shape(), (std::vector<std::int64_t>{4, 2}));
        QVERIFY(root->spikingInput());
        QVERIFY(root->spikingOutput());
        auto& lif = dynamic_cast<LIF&>(root->getSubmodule("1.0"));
        QCOMPARE(lif.nSynapses(), std::int64_t{2});
        Sequential seq;
        seq.append(std::make_unique<LIF>(4, 4));
        try {
            seq.append(std::make_unique<LIF>(3, 3));
            QFAIL("expected a size mismatch");
        } catch (const Error& e) {
            const std::string msg = e.what();
            QVERIFY2(msg.find("input size 3") != std::string::npos &&
                         msg.find("output size 4") != std::string::npos,
                     e.what());
        }
        QVERIFY_THROWS_EXCEPTION(Error, LIF(5, 2));
    }

    void printsLikePyTorch()
    {
        auto root = makeTree();
        const std::string expected = "Sequential(\n"
                                     "  (0): LIF(shape=(4, 4), leak_mode=taus)\n"
                                     "  (1): Sequential(\n"
                                     "    (0): LIF(shape=(4, 2), leak_mode=taus)\n"
                                     "    (1): LIF(shape=(2, 2), leak_mode=taus, has_rec=True)\n"
                                     "  )\n"
                                     ")";
        QCOMPARE(root->toString(), expected);
    }

    void registryQueriesByKindAndFamily()
    {
        auto root = makeTree();
        const auto taus = keysOf(root->parameters("taus"));
        QCOMPARE(taus, (std::set<std::string>{"0.tau_mem", "0.tau_syn", "1.0.tau_mem",
                                              "1.0.tau_syn", "1.1.tau_mem", "1.1.tau_syn"}));
        QCOMPARE(keysOf(root->parameters("weights")), (std::set<std::string>{"1.1.w_rec"}));
        QVERIFY(keysOf(root->state()).count("1.0.isyn") == 1);
        QVERIFY(keysOf(root->state()).count("0.tau_mem") == 0);
        QVERIFY(keysOf(root->simulationParameters()).count("1.1.dt") == 1);
        QCOMPARE(root->parameters("decays").size(), std::size_t{0});
        // attributesNamed sees derived attributes too.
        QCOMPARE(keysOf(root->attributesNamed("alpha")),
                 (std::set<std::string>{"0.alpha", "1.0.alpha", "1.1.alpha"}));
        QCOMPARE(std::get<Tensor>(root->state().at("1.0").at("isyn")).shape(), (Shape{2, 2}));
    }

    void setAttributesValidatesEverythingBeforeCommitting()
    {
        auto root = makeTree();
        const Tensor before = root->getSubmodule("0").tensor("tau_mem");
        NestedAttributes change;
        change["0"]["tau_mem"] = Tensor::scalar(0.05F);
        change["1.0"]["tau_mem"] = Tensor::scalar(-0.01F);  // invalid
        const Status s = root->setAttributes(change);
        QVERIFY(!s.ok);
        QVERIFY2(s.message.find("'tau_mem'") != std::string::npos, s.message.c_str());
        QVERIFY2(s.message.find("> 0") != std::string::npos, s.message.c_str());
        QVERIFY2(s.message.find("1.0") != std::string::npos, s.message.c_str());
        QVERIFY(root->getSubmodule("0").tensor("tau_mem").identical(before));

        change["1.0"]["tau_mem"] = Tensor(Shape{2}, std::vector<float>{0.03F, 0.04F});
        QVERIFY(root->setAttributes(change).ok);
        QCOMPARE(root->getSubmodule("0").tensor("tau_mem")[0], 0.05F);
        QCOMPARE(root->getSubmodule("1.0").tensor("tau_mem")[1], 0.04F);
        // Derived values follow the committed change.
        QCOMPARE(root->getSubmodule("0").tensor("alpha")[0], std::exp(-1e-3F / 0.05F));
    }

    void setAttributesRejectsBadInputWithClearMessages()
    {
        auto root = makeTree();
        const auto expectFailure = [&](const NestedAttributes& c, const std::string& needle) {
            const Status s = root->setAttributes(c);
            QVERIFY2(!s.ok, needle.c_str());
            QVERIFY2(s.message.find(needle) != std::string::npos, s.message.c_str());
        };
        expectFailure({{"9", {{"tau_mem", Tensor::scalar(1)}}}}, "has no child '9'");
        expectFailure({{"0", {{"tau_men", Tensor::scalar(1)}}}}, "has no attribute 'tau_men'");
        expectFailure({{"0", {{"tau_mem", Tensor(Shape{3})}}}}, "expected shape () or (1,) or (4,)");
        expectFailure({{"0", {{"threshold", Tensor::scalar(NAN)}}}}, "expected finite values");
        expectFailure({{"0", {{"leak_mode", std::string("fast")}}}}, "expected one of 'taus'");
        expectFailure({{"0", {{"alpha", Tensor::scalar(0.9F)}}}}, "derived");
        expectFailure({{"0", {{"max_spikes_per_dt", Tensor::scalar(1.5F)}}}}, "whole numbers");
        expectFailure({{"0", {{"leak_mode", Tensor::scalar(1)}}}}, "got a number");
    }

    void leakModesConvertAndKeepDynamics()
    {
        LIF a(4, 4, false, {{"tau_mem", Tensor(Shape{4}, {0.01F, 0.02F, 0.03F, 0.04F})}});
        const Tensor alphaTaus = a.tensor("alpha");
        QVERIFY(a.setAttribute("leak_mode", std::string("decays")).ok);
        QVERIFY(a.isDerived("tau_mem"));
        QVERIFY(!a.isDerived("alpha"));
        QVERIFY(a.tensor("alpha").identical(alphaTaus));
        for (int i = 0; i < 4; ++i) {
            QVERIFY(std::abs(a.tensor("tau_mem")[i] - 0.01F * static_cast<float>(i + 1)) < 1e-6F);
        }
        QCOMPARE(keysOf(a.parameters("decays")), (std::set<std::string>{"alpha", "beta"}));
        // Same decays => bit-identical dynamics.
        LIF b(4, 4, false, {{"tau_mem", Tensor(Shape{4}, {0.01F, 0.02F, 0.03F, 0.04F})}});
        const Tensor x = randomInput(200, 4, 3);
        QVERIFY(a.evolve(x).output.identical(b.evolve(x).output));
        // Into bitshifts: dash values are rounded to whole shifts and become settable.
        QVERIFY(a.setAttribute("leak_mode", std::string("bitshifts")).ok);
        const Tensor dash = a.tensor("dash_mem");
        for (std::int64_t i = 0; i < dash.numel(); ++i) {
            QCOMPARE(dash[i], std::nearbyint(dash[i]));
            QCOMPARE(a.tensor("alpha")[i], 1.0F - std::exp2(-dash[i]));
        }
        QVERIFY(a.setAttribute("dash_mem", Tensor::scalar(4)).ok);
        QCOMPARE(a.tensor("alpha")[0], 1.0F - 1.0F / 16.0F);
        // Mode and its values may change together in one call.
        QVERIFY(a.setAttributes({{"", {{"leak_mode", std::string("decays")},
                                       {"alpha", Tensor::scalar(0.5F)}}}})
                    .ok);
        QCOMPARE(a.tensor("tau_mem")[0], -1e-3F / std::log(0.5F));
    }

    void resetStateAndParameters()
    {
        auto root = makeTree();
        root->evolve(randomInput(50, 4, 1, 3.0F));
        QCOMPARE(root->stepsElapsed(), std::int64_t{50});
        QVERIFY(std::get<Tensor>(root->state().at("0").at("vmem")).flat().abs().sum() > 0);
        root->resetState();
        QCOMPARE(root->stepsElapsed(), std::int64_t{0});
        for (const auto& [path, attrs] : root->state()) {
            for (const auto& [name, v] : attrs) {
                QCOMPARE(std::get<Tensor>(v).flat().abs().sum(), 0.0F);
            }
        }
        QVERIFY(root->setAttributes({{"0", {{"threshold", Tensor::scalar(3)}}}}).ok);
        root->resetParameters();
        QCOMPARE(root->getSubmodule("0").tensor("threshold")[0], 1.0F);
    }

    void stateDictUsesTorchKeysAndLoadsStrictly()
    {
        auto root = makeTree();
        const StateDict dict = root->stateDict();
        std::vector<std::string> keys;
        for (const auto& [k, v] : dict) {
            keys.push_back(k);
        }
        const std::vector<std::string> expectedStart{"0.tau_mem", "0.tau_syn", "0.bias",
                                                     "0.threshold", "0.vmem", "0.isyn",
                                                     "0.spikes"};
        QCOMPARE(std::vector<std::string>(keys.begin(), keys.begin() + 7), expectedStart);
        QVERIFY(std::find(keys.begin(), keys.end(), "1.1.w_rec") != keys.end());
        QVERIFY(std::find(keys.begin(), keys.end(), "0.alpha") == keys.end());  // derived
        QVERIFY(std::find(keys.begin(), keys.end(), "0.dt") == keys.end());     // sim. parameter

        auto other = makeTree();
        StateDict modified = dict;
        for (auto& [k, v] : modified) {
            if (k == "0.threshold") {
                v = Tensor::scalar(2.5F);
            }
        }
        // Missing and unexpected keys fail a strict load and change nothing.
        StateDict partial(modified.begin() + 1, modified.end());
        partial.emplace_back("2.weight", Tensor::scalar(1));
        auto r = other->loadStateDict(partial, true);
        QVERIFY(!r.status.ok);
        QCOMPARE(r.missingKeys, (std::vector<std::string>{"0.tau_mem"}));
        QCOMPARE(r.unexpectedKeys, (std::vector<std::string>{"2.weight"}));
        QVERIFY2(r.status.message.find("Missing key(s) in state_dict: \"0.tau_mem\"") !=
                     std::string::npos,
                 r.status.message.c_str());
        QCOMPARE(other->getSubmodule("0").tensor("threshold")[0], 1.0F);
        // Non-strict loads what matches and reports the rest.
        r = other->loadStateDict(partial, false);
        QVERIFY(r.status.ok);
        QCOMPARE(other->getSubmodule("0").tensor("threshold")[0], 2.5F);
        // Shape mismatch names the key and both shapes.
        StateDict bad = dict;
        for (auto& [k, v] : bad) {
            if (k == "1.1.w_rec") {
                v = Tensor(Shape{3, 3});
            }
        }
        r = other->loadStateDict(bad, true);
        QVERIFY(!r.status.ok);
        QVERIFY2(r.status.message.find("size mismatch for 1.1.w_rec") != std::string::npos,
                 r.status.message.c_str());
        // A full strict load reproduces the source model exactly.
        QVERIFY(other->loadStateDict(modified, true).status.ok);
        auto reference = makeTree();
        QVERIFY(reference->loadStateDict(modified, true).status.ok);
        const Tensor x = randomInput(100, 4, 9, 2.0F);
        QVERIFY(other->evolve(x).output.identical(reference->evolve(x).output));
    }

    void namedParametersListsSettableParameters()
    {
        auto root = makeTree();
        std::vector<std::string> keys;
        for (const auto& [k, v] : root->namedParameters()) {
            keys.push_back(k);
        }
        QCOMPARE(keys.front(), std::string("0.tau_mem"));
        QVERIFY(std::find(keys.begin(), keys.end(), "1.1.w_rec") != keys.end());
        QVERIFY(std::find(keys.begin(), keys.end(), "0.vmem") == keys.end());
    }

    void hooksRunAndAreRemovable()
    {
        auto root = makeTree();
        int preCalls = 0;
        int postCalls = 0;
        std::string hookPath;
        float hookInputSum = -1.0F;
        std::int64_t hookOutWidth = 0;
        auto& inner = root->getSubmodule("1.0");
        HookHandle pre = inner.registerForwardPreHook([&](Module&, const Tensor& in) {
            ++preCalls;
            return std::optional<Tensor>(Tensor(in.shape()));  // silence the input
        });
        HookHandle post = inner.registerForwardHook(
            [&](Module& m, const Tensor& in, const Tensor& out) -> std::optional<Tensor> {
                ++postCalls;
                hookPath = m.fullName();
                hookInputSum = in.flat().abs().sum();
                hookOutWidth = out.dim(2);
                return std::nullopt;
            });
        const Tensor x = randomInput(100, 4, 5, 5.0F);
        const auto silenced = root->evolve(x, RecordSpec(true));
        QCOMPARE(preCalls, 1);
        QCOMPARE(postCalls, 1);
        QCOMPARE(hookPath, std::string("1.0"));
        QCOMPARE(hookInputSum, 0.0F);
        QCOMPARE(hookOutWidth, std::int64_t{2});
        QVERIFY(pre.active());
        QCOMPARE(silenced.record.at("1.0").at("isyn").data.flat().abs().sum(), 0.0F);
        pre.remove();
        post.remove();
        pre.remove();  // idempotent
        QVERIFY(!pre.active());
        root->resetState();
        const auto normal = root->evolve(x, RecordSpec(true));
        QCOMPARE(preCalls, 1);
        QVERIFY(normal.record.at("1.0").at("isyn").data.flat().abs().sum() > 0.0F);
        // A post-hook may replace the output.
        auto h = root->registerForwardHook([](Module&, const Tensor&, const Tensor& out) {
            return std::optional<Tensor>(Tensor(out.shape(), 7.0F));
        });
        QCOMPARE(root->evolve(x).output[0], 7.0F);
        h.remove();
        // Handles outlive their module safely.
        HookHandle orphan;
        {
            LIF temp(2, 2);
            orphan = temp.registerForwardHook(
                [](Module&, const Tensor&, const Tensor&) { return std::optional<Tensor>(); });
        }
        QVERIFY(!orphan.active());
        orphan.remove();
    }

    void trainEvalPropagate()
    {
        auto root = makeTree();
        QVERIFY(root->getSubmodule("1.1").training());
        root->eval();
        for (const auto& [p, m] : root->namedModules()) {
            QVERIFY(!m->training());
        }
        root->getSubmodule("1").train();
        QVERIFY(root->getSubmodule("1.0").training());
        QVERIFY(!root->getSubmodule("0").training());
    }

    void evolveShapesAndBatches()
    {
        LIF lif(4, 2);
        const Tensor x = randomInput(30, 4, 11, 2.0F);
        const auto single = lif.evolve(x, RecordSpec(true));
        QCOMPARE(single.output.shape(), (Shape{30, 2}));
        QCOMPARE(single.record.at("").at("isyn").data.shape(), (Shape{30, 2, 2}));
        const Tensor afterSingle = lif.tensor("vmem");
        lif.resetState();
        Tensor batch(Shape{3, 30, 4});
        for (int b = 0; b < 3; ++b) {
            std::copy(x.data(), x.data() + x.numel(), batch.data() + b * x.numel());
        }
        const auto batched = lif.evolve(batch, RecordSpec(true));
        QCOMPARE(batched.output.shape(), (Shape{3, 30, 2}));
        QCOMPARE(batched.record.at("").at("vmem").data.shape(), (Shape{3, 30, 2}));
        for (int b = 0; b < 3; ++b) {
            QCOMPARE(std::memcmp(batched.output.data() + b * 60, single.output.data(),
                                 60 * sizeof(float)),
                     0);
        }
        QVERIFY(lif.tensor("vmem").identical(afterSingle));  // batch element 0's final state
        QVERIFY(std::get<Tensor>(batched.state.at("").at("vmem")).identical(afterSingle));
    }

    void evolveRejectsBadInput()
    {
        LIF lif(4, 2);
        const auto expectError = [&](const Tensor& in, const std::string& needle) {
            try {
                lif.evolve(in);
                QFAIL(needle.c_str());
            } catch (const Error& e) {
                QVERIFY2(std::string(e.what()).find(needle) != std::string::npos, e.what());
            }
        };
        expectError(Tensor(Shape{10, 3}), "input has 3 channels, expected 4");
        expectError(Tensor(Shape{0, 4}), "is empty");
        expectError(Tensor(Shape{4}), "input must be (T, 4) or (B, T, 4)");
        Tensor nan(Shape{2, 5, 4});
        nan[1 * 20 + 3 * 4 + 1] = NAN;
        expectError(nan, "NaN at time step 3, channel 1, batch 1");
        QCOMPARE(lif.stepsElapsed(), std::int64_t{0});
    }

    void chunkedEvolutionIsBitIdentical()
    {
        // With noise on, to check the generator stream carries over chunk boundaries too.
        const AttributeMap init{{"noise_std", Tensor::scalar(0.5F)}, {"seed", Tensor::scalar(42)}};
        auto whole = std::make_unique<Sequential>();
        whole->append(std::make_unique<LIF>(6, 6, true, init));
        whole->append(std::make_unique<LIF>(6, 3, false, init));
        auto chunked = std::make_unique<Sequential>();
        chunked->append(std::make_unique<LIF>(6, 6, true, init));
        chunked->append(std::make_unique<LIF>(6, 3, false, init));

        const Tensor x = randomInput(120, 6, 17, 1.5F);
        const auto full = whole->evolve(x, RecordSpec(true));
        Tensor joined(Shape{120, 3});
        Tensor joinedV(Shape{120, 6});
        for (int c = 0; c < 4; ++c) {
            Tensor piece(Shape{30, 6});
            std::copy(x.data() + c * 180, x.data() + (c + 1) * 180, piece.data());
            const auto r = chunked->evolve(piece, RecordSpec(true));
            std::copy(r.output.data(), r.output.data() + 90, joined.data() + c * 90);
            const auto& v = r.record.at("0").at("vmem");
            std::copy(v.data.data(), v.data.data() + 180, joinedV.data() + c * 180);
            QCOMPARE(v.tStart, 30.0 * c * 1e-3);  // steps x the decimal dt
        }
        QVERIFY(joined.identical(full.output));
        QVERIFY(joinedV.identical(full.record.at("0").at("vmem").data));
        QVERIFY(full.output.flat().sum() > 0);
        // Reset reseeds: the same run again gives the same result.
        whole->resetState();
        QVERIFY(whole->evolve(x).output.identical(full.output));
        // Setting a seed takes effect at once: a module given seed 7 after construction draws
        // what one built with seed 7 draws, and differs from seed 42.
        LIF built(6, 6, false, {{"noise_std", Tensor::scalar(0.5F)}, {"seed", Tensor::scalar(7)}});
        LIF edited(6, 6, false, {{"noise_std", Tensor::scalar(0.5F)}});
        QVERIFY(edited.setAttribute("seed", Tensor::scalar(7)).ok);
        LIF other(6, 6, false, {{"noise_std", Tensor::scalar(0.5F)}, {"seed", Tensor::scalar(42)}});
        const auto vOf = [&](LIF& m) { return m.evolve(x, RecordSpec(true)).record.at("").at("vmem").data; };
        const Tensor vBuilt = vOf(built);
        QVERIFY(vOf(edited).identical(vBuilt));
        QVERIFY(!vOf(other).identical(vBuilt));
    }

    void recordSelectionRecordsOnlyWhatIsAsked()
    {
        auto root = makeTree();
        const auto r = root->evolve(randomInput(20, 4, 2), RecordSpec(std::set<std::string>{
                                                                "1.1.irec", "0.vmem"}));
        QCOMPARE(r.record.size(), std::size_t{2});
        QCOMPARE(r.record.at("0").size(), std::size_t{1});
        QCOMPARE(r.record.at("1.1").at("irec").data.shape(), (Shape{20, 2, 1}));
        QVERIFY(r.record.at("0").at("vmem").dt == 1e-3);  // the decimal dt
        QCOMPARE(root->evolve(randomInput(5, 4, 2)).record.size(), std::size_t{0});
        // A braced list of keys selects those keys (it must not decay to "record everything").
        const auto one = root->evolve(randomInput(5, 4, 2), {"0.vmem"});
        QCOMPARE(one.record.size(), std::size_t{1});
        QCOMPARE(one.record.at("0").size(), std::size_t{1});
        const auto single = root->evolve(randomInput(5, 4, 2), RecordSpec({"1.0.isyn"}));
        QCOMPARE(flatten(single.record).size(), std::size_t{1});
    }

    void analyticMembraneAndSynapse()
    {
        // No input, bias b, threshold out of reach: v_t = b (1 - alpha^t) / (1 - alpha).
        const float b = 0.01F;
        LIF lif(1, 1, false, {{"bias", Tensor::scalar(b)}, {"threshold", Tensor::scalar(100.0F)},
                              {"tau_mem", Tensor::scalar(0.02F)}});
        const auto r = lif.evolve(Tensor(Shape{200, 1}), RecordSpec(true));
        const double alpha = std::exp(-1e-3 / 0.02);
        for (int t = 1; t <= 200; ++t) {
            const double expected = b * (1.0 - std::pow(alpha, t)) / (1.0 - alpha);
            QVERIFY(std::abs(r.record.at("").at("vmem").data[t - 1] - expected) < 1e-5 * (1 + expected));
        }
        // One input pulse x at t = 0: isyn_t = x beta^(t+1).
        LIF syn(1, 1, false, {{"threshold", Tensor::scalar(100.0F)}, {"tau_syn", Tensor::scalar(0.005F)}});
        Tensor pulse(Shape{50, 1});
        pulse[0] = 2.0F;
        const auto s = syn.evolve(pulse, RecordSpec(true));
        const double beta = std::exp(-1e-3 / 0.005);
        for (int t = 0; t < 50; ++t) {
            QVERIFY(std::abs(s.record.at("").at("isyn").data[t] - 2.0 * std::pow(beta, t + 1)) < 1e-6);
        }
    }

    void constantDriveFiringMatchesTheory()
    {
        // dash_mem = 31 makes alpha round to exactly 1 in float32 (no leak): a bias of 1/4
        // reaches threshold 1 every 4th step and the subtractive reset leaves exactly 0.
        LIF perfect(1, 1, false, {{"leak_mode", std::string("bitshifts")},
                                  {"dash_mem", Tensor::scalar(31)},
                                  {"bias", Tensor::scalar(0.25F)}});
        QCOMPARE(perfect.tensor("alpha")[0], 1.0F);
        QCOMPARE(perfect.evolve(Tensor(Shape{400, 1})).output.flat().sum(), 100.0F);
        // Leaky: the first spike comes at the first n with b (1 - alpha^n) / (1 - alpha) >= 1.
        const double b = 0.06;
        const double alpha = std::exp(-1e-3 / 0.02);
        const int firstSpike =
            static_cast<int>(std::ceil(std::log(1.0 - (1.0 - alpha) / b) / std::log(alpha)));
        LIF leaky(1, 1, false, {{"bias", Tensor::scalar(static_cast<float>(b))}});
        const Tensor out = leaky.evolve(Tensor(Shape{100, 1})).output;
        int observed = -1;
        for (int t = 0; t < 100 && observed < 0; ++t) {
            observed = out[t] > 0 ? t + 1 : -1;
        }
        QCOMPARE(observed, firstSpike);
    }
};

QTEST_GUILESS_MAIN(TestModuleTree)
#include "test_module_tree.moc"
