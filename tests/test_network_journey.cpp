// The brief as a test: Poisson(100) -> LIF(100) -> LIF(50) with sparse projections, built
// from an empty document entirely through the commands the GUI pushes (a palette drop with its
// start values, a size set in the Settings group, a wire dragged between ports, a projection kind
// chosen for the wire, p and weight typed into the wire's inspector), run, and undone back to the
// empty document. test_network_journey_gui does the same with real mouse and key events.
#include "ui/document/graph_commands.hpp"
#include "ui/document/graph_configure.hpp"
#include "ui/document/graph_projection.hpp"
#include "ui/document/graph_document.hpp"

#include "engine/io/model_clone.hpp"
#include "engine/io/module_factory.hpp"
#include "engine/network/projections.hpp"
#include "tests/circuit_helpers.hpp"
#include "tests/graph_test_models.hpp"

#include <QtTest/QtTest>


using namespace spike;
using namespace spike::ui;
using spike::tests::pushOk;

namespace {

/// The name of `type`'s size setting (the one "LIF 100" sets).
std::string sizeSetting(const std::string& type)
{
    for (const engine::ConfigSetting& s : engine::findModuleType(type)->settings) {
        if (s.size) {
            return s.name;
        }
    }
    return {};
}

/// What a palette drop pushes: the type's example config and its start values.
NodeId drop(GraphDocument& doc, const std::string& type, QPointF at)
{
    const engine::ModuleTypeInfo* info = engine::findModuleType(type);
    auto add = std::make_unique<AddNodeCommand>(doc, doc.rootId(), type, info->exampleConfig, std::string(), at,
                                                engine::startValues(type, info->exampleConfig));
    AddNodeCommand* raw = add.get();
    pushOk(doc, std::move(add));
    return raw->node();
}

/// What typing a size into the Settings group pushes.
void setSize(GraphDocument& doc, NodeId node, std::int64_t n)
{
    engine::Module* m = doc.module(node);
    const nlohmann::json config = engine::configWithSetting(m->className(), m->config(), sizeSetting(m->className()), n);
    pushOk(doc, std::make_unique<ConfigureNodeCommand>(doc, node, config));
}


}  // namespace

class TestNetworkJourney : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void buildRunUndo()
    {
        GraphDocument doc;
        const nlohmann::json empty = doc.toJson();

        const NodeId poisson = drop(doc, "PoissonSource", {0, 0});
        const NodeId first = drop(doc, "LIF", {300, 0});
        const NodeId second = drop(doc, "LIF", {600, 0});
        setSize(doc, poisson, 100);
        setSize(doc, first, 100);
        setSize(doc, second, 50);
        QCOMPARE(doc.module(poisson)->sizeOut(), 100);
        QCOMPARE(doc.module(first)->sizeOut(), 100);
        QCOMPARE(doc.module(second)->sizeOut(), 50);
        // The start values survived the resizes (the carry rule spreads one value to every neuron).
        const engine::Tensor& tauSyn = doc.module(second)->tensor("tau_syn");
        QCOMPARE(tauSyn[tauSyn.numel() - 1], 0.005F);
        QCOMPARE(doc.module(second)->tensor("max_spikes_per_dt")[0], 1.0F);

        // Equal sizes connect as a pass-through; the user then chooses a sparse projection.
        auto wire1 = std::make_unique<ConnectCommand>(doc, doc.rootId(), "poissonsource.out", "lif.in");
        ConnectCommand* w1 = wire1.get();
        pushOk(doc, std::move(wire1));
        pushOk(doc, std::make_unique<SetProjectionCommand>(doc, w1->connection(), "SparseProjection"));
        // Different sizes: the drag offers the projection kinds; the first is sparse.
        QVERIFY(!projectionRefusal("", 100, 50).isEmpty());
        QVERIFY(projectionRefusal("SparseProjection", 100, 50).isEmpty());
        auto wire2 = std::make_unique<ConnectWithProjectionCommand>(doc, doc.rootId(), "lif.spikes", "lif_2.in",
                                                                    "SparseProjection");
        ConnectWithProjectionCommand* w2 = wire2.get();
        pushOk(doc, std::move(wire2));

        // p and weight typed into the wire's inspector (rule first: p applies to "probability").
        for (const ConnectionId c : {w1->connection(), w2->connection()}) {
            const NodeId projection = doc.connection(c)->projection;
            QVERIFY(projection.valid());
            pushOk(doc, std::make_unique<SetAttributeCommand>(doc, projection, "rule", std::string("probability")));
            pushOk(doc, std::make_unique<SetAttributeCommand>(doc, projection, "p", engine::Tensor::scalar(0.1F)));
            pushOk(doc, std::make_unique<SetAttributeCommand>(doc, projection, "weight", engine::Tensor::scalar(0.08F)));
        }
        const auto* sparse = dynamic_cast<const engine::SparseProjection*>(doc.module(doc.connection(w2->connection())->projection));
        QVERIFY(sparse != nullptr);
        QCOMPARE(sparse->sizeSource(), 100);
        QCOMPARE(sparse->sizeTarget(), 50);

        // Bad input is refused and changes nothing.
        const nlohmann::json before = doc.toJson();
        const NodeId projection = doc.connection(w2->connection())->projection;
        QVERIFY(!pushCommand(doc, std::make_unique<SetAttributeCommand>(doc, projection, "p", engine::Tensor::scalar(2.0F))).ok);
        QVERIFY(!pushCommand(doc, std::make_unique<SetAttributeCommand>(doc, projection, "delay", engine::Tensor::scalar(-1.0F))).ok);
        for (const std::int64_t n : {std::int64_t{0}, std::int64_t{-3}, std::int64_t{1000000000000}}) {
            bool refused = false;
            try {
                (void)engine::configWithSetting("LIF", doc.module(second)->config(), sizeSetting("LIF"), n);
            } catch (const engine::Error& e) {
                refused = QString::fromUtf8(e.what()).contains(QString::fromStdString(sizeSetting("LIF")));
            }
            QVERIFY2(refused, qPrintable(QString::number(n)));
        }
        QCOMPARE(doc.toJson(), before);

        // Run what the GUI runs (a copy of the document's model): rates a neuroscientist accepts.
        const auto model = engine::cloneModule(doc.root());
        constexpr std::int64_t kSteps = 5000;
        const engine::EvolveResult r = model->evolve(engine::Tensor(engine::Shape{kSteps, 0}),
                                                     engine::RecordSpec({"lif.spikes", "lif_2.spikes"}));
        const double a = spike::tests::meanRate(r, "lif", kSteps);
        const double b = spike::tests::meanRate(r, "lif_2", kSteps);
        qInfo("Poisson(100) 10 Hz -> LIF(100) %.1f Hz -> LIF(50) %.1f Hz", a, b);
        QVERIFY2(a > 2.0 && a < 50.0, qPrintable(QString::number(a)));
        QVERIFY2(b > 2.0 && b < 50.0, qPrintable(QString::number(b)));

        // Undo everything: the empty document, byte for byte; redo everything: the network again.
        const nlohmann::json built = doc.toJson();
        while (doc.undoStack()->canUndo()) {
            doc.undoStack()->undo();
        }
        QCOMPARE(doc.toJson(), empty);
        while (doc.undoStack()->canRedo()) {
            doc.undoStack()->redo();
        }
        QCOMPARE(doc.toJson(), built);
    }
};

QTEST_MAIN(TestNetworkJourney)
#include "test_network_journey.moc"
