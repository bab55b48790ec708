// Composite modules show their data flow (issue #19): opening a DynamicsNetwork draws its forward
// computation as labelled dashed arrows between its children (conv → norm_common → resblocks
// "+ state, activation" → ... → fc_reward_head), laid out left to right in that order, not a grid
// of unconnected boxes; double-clicking into a ResBlock shows conv1 → conv2 → act "+ x
// (residual)"; an MLP and a Sequential chain their children. Every arrow every composite declares
// (each residual type, norms on and off) names children the module has.
#include "engine/composites/mlp.hpp"
#include "engine/composites/resblock.hpp"
#include "engine/io/model_io.hpp"
#include "ui/document/graph_document.hpp"
#include "ui/editor/graph_canvas.hpp"
#include "ui/editor/graph_node_item.hpp"

#include "real_input.hpp"

#include <QGraphicsPathItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QMouseEvent>
#include <QtTest/QtTest>

#include <fstream>
#include <set>

using namespace spike::ui;

namespace {

const std::string kExample = SPIKE_TEST_DATA_DIR "/../../resources/examples/dynamics_network.json";

nlohmann::json exampleJson()
{
    std::ifstream in(kExample);
    return nlohmann::json::parse(in);
}

/// Double-clicks node `id`'s header on the canvas, as a person opens a group.
void doubleClick(GraphCanvas& canvas, NodeId id)
{
    GraphNodeItem* item = canvas.nodeItem(id);
    QVERIFY(item != nullptr);
    const QPoint where = canvas.mapFromScene(item->mapToScene(QPointF(item->boundingRect().width() / 2.0, 8.0)));
    QTest::mouseDClick(canvas.viewport(), Qt::LeftButton, Qt::NoModifier, where);
    spike::tests::settle();
}

/// The labels drawn on the visible data-flow arrows.
QStringList arrowLabels(const GraphCanvas& canvas)
{
    QStringList labels;
    for (QGraphicsItem* item : canvas.scene()->items()) {
        if (item->type() == QGraphicsSimpleTextItem::Type && item->parentItem() != nullptr &&
            item->parentItem()->type() == QGraphicsPathItem::Type && item->parentItem()->isVisible()) {
            const QString text = static_cast<QGraphicsSimpleTextItem*>(item)->text();
            if (!text.isEmpty()) {
                labels << text;
            }
        }
    }
    labels.sort();
    return labels;
}

/// Every arrow of `module`'s dataFlow() names two distinct children of it.
void checkNamesChildren(const spike::engine::Module& module, const QString& what)
{
    const auto flow = module.dataFlow();
    QVERIFY2(!flow.empty(), qPrintable(what));
    std::set<std::string> children;
    for (const auto& [name, child] : module.namedChildren()) {
        children.insert(name);
    }
    for (const spike::engine::FlowStep& step : flow) {
        QVERIFY2(children.count(step.from) == 1, qPrintable(what + ": " + QString::fromStdString(step.from)));
        QVERIFY2(children.count(step.to) == 1, qPrintable(what + ": " + QString::fromStdString(step.to)));
        QVERIFY2(step.from != step.to, qPrintable(what));
    }
}

}  // namespace

class TestCompositeFlow : public QObject {
    Q_OBJECT

private slots:
    void dynamicsNetworkDrawsItsComputation()
    {
        GraphDocument doc;
        doc.fromJson(exampleJson());
        GraphCanvas canvas;
        canvas.resize(1000, 600);
        canvas.setDocument(&doc);
        canvas.show();
        QVERIFY(QTest::qWaitForWindowExposed(&canvas));
        QVERIFY(!canvas.isEditable());
        QCOMPARE(canvas.flowArrowTexts(),
                 (QStringList{"conv → norm_common", "norm_common → resblocks: + state, activation",
                              "resblocks → conv1x1_reward: next_latent_state", "conv1x1_reward → norm_reward",
                              "norm_reward → lstm: activation, flatten", "lstm → norm_value_prefix: out[0]",
                              "norm_value_prefix → fc_reward_head: activation"}));
        // In the order the computation runs, read like text: left to right, four to a row.
        const QStringList order{"conv", "norm_common", "resblocks", "conv1x1_reward", "norm_reward", "lstm",
                                "norm_value_prefix", "fc_reward_head"};
        const auto at = [&](int i) { return canvas.nodeItem(doc.findNode(order[i].toStdString()))->pos(); };
        for (int i = 1; i < order.size(); ++i) {
            if (i == 4) {  // conv1x1_reward starts the second row, below the whole first one
                for (int j = 0; j < 4; ++j) {
                    QVERIFY2(at(j).y() < at(4).y(), qPrintable(order[j]));
                }
                continue;
            }
            QVERIFY2(at(i - 1).x() < at(i).x(), qPrintable(order[i - 1] + " is not left of " + order[i]));
            QCOMPARE(at(i - 1).y(), at(i).y());  // the flow's nodes head their columns
        }
        // The arrows are drawn, each with its label.
        int arrows = 0;
        for (QGraphicsItem* item : canvas.scene()->items()) {
            arrows += item->type() == QGraphicsPathItem::Type && item->isVisible() ? 1 : 0;
        }
        QCOMPARE(arrows, 7);
        QCOMPARE(arrowLabels(canvas), (QStringList{"+ state, activation", "activation", "activation, flatten",
                                                   "next_latent_state", "out[0]"}));

        // Into the res blocks (a ModuleList: no computation of its own), then block 0.
        doubleClick(canvas, doc.findNode("resblocks"));
        QCOMPARE(canvas.network(), doc.findNode("resblocks"));
        QVERIFY(canvas.flowArrowTexts().isEmpty());
        doubleClick(canvas, doc.findNode("resblocks.0"));
        QCOMPARE(canvas.network(), doc.findNode("resblocks.0"));
        QCOMPARE(canvas.flowArrowTexts(), (QStringList{"conv1 → conv2", "conv2 → act: + x (residual)"}));
        QCOMPARE(arrowLabels(canvas), QStringList{"+ x (residual)"});
        // And back: the top level's arrows again.
        QVERIFY(canvas.leave());
        QVERIFY(canvas.leave());
        QCOMPARE(canvas.flowArrowTexts().size(), 7);
    }

    void everyDeclaredArrowNamesChildren()
    {
        using spike::engine::MLP;
        using spike::engine::ResBlock;
        for (const char* type : {"basic", "bottleneck", "downsample"}) {
            spike::engine::ResBlockOptions options;
            options.resType = type;
            options.outChannels = 4;
            const ResBlock block(4, options);
            checkNamesChildren(block, QStringLiteral("ResBlock ") + type);
        }
        spike::engine::MlpOptions options;
        options.normType = "BN";
        const MLP mlp(8, 6, 3, 3, options);
        checkNamesChildren(mlp, QStringLiteral("MLP"));
        QCOMPARE(mlp.dataFlow().size(), mlp.namedChildren().size() - 1);
        const auto root = spike::engine::loadModel(kExample);
        checkNamesChildren(*root, QStringLiteral("DynamicsNetwork"));
        checkNamesChildren(root->getSubmodule("resblocks.0"), QStringLiteral("resblocks.0"));
    }
};

QTEST_MAIN(TestCompositeFlow)
#include "test_composite_flow.moc"
