// Projections on wires through the main window, by real mouse and key input (issue #15): a
// Poisson source of 100 channels and a LIF layer of 50; dragging a wire from the source's output
// port to the layer's input opens the projection-kind menu (one-to-one disabled with the reason),
// Sparse chosen by keyboard is one undo step and draws a red "Sparse 100→50" wire; clicking the
// wire shows the connection panel; the kind combo changed by keys to Dense keeps the wire (same
// id, still selected) and undo brings the same synapses back; p = 2 typed, a delay of -1 ms and a
// negative std are refused inline with nothing changed; a delay of 3 ms sets 3 steps; Delayed by a
// click dashes the wire; Dense weights initialised normal(0, 0.1) by clicks have those
// statistics and a mixed-sign colour, a constant -0.2 turns the wire blue (inhibitory); the
// projection's row in the Modules tree is selected with the wire and clicking it shows the panel.
// The wire menu offers the kinds with the current one checked; a kind changed while the
// simulation runs lets it continue. Also the commands alone: identity between
// different sizes refused with the sizes, an undelayed cycle refused with the engine's reason.
#include "graph_test_models.hpp"
#include "inspector_input_helpers.hpp"
#include "real_input.hpp"

#include "engine/network/projections.hpp"
#include "ui/document/graph_commands.hpp"
#include "ui/document/graph_projection.hpp"
#include "ui/editor/document_tree.hpp"
#include "ui/editor/graph_canvas.hpp"
#include "ui/editor/graph_node_item.hpp"
#include "ui/editor/graph_wire_item.hpp"
#include "ui/inspector/connection_panel.hpp"
#include "ui/window/main_window.hpp"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QStandardItemModel>
#include <QTimer>
#include <QTreeWidget>
#include <QUndoStack>
#include <QtTest/QtTest>

#include <cmath>

using namespace spike::ui;
using spike::tests::settle;
using spike::tests::typeInto;

namespace {

const QByteArray kModel = R"({"format": "spikestudio.model", "version": 1,
  "model": {"type": "Network", "children": [
    {"name": "poisson", "type": "PoissonSource", "config": {"shape": [100]}},
    {"name": "lif", "type": "LIF", "config": {"shape": [50]}}]},
  "layout": {"poisson": [0, 0], "lif": [400, 0]}})";

void mouse(QWidget* viewport, QEvent::Type type, QPoint pos, Qt::MouseButton button, Qt::MouseButtons buttons)
{
    QMouseEvent event(type, QPointF(pos), QPointF(viewport->mapToGlobal(pos)), button, buttons, Qt::NoModifier);
    QApplication::sendEvent(viewport, &event);
}

QPoint portAt(const GraphCanvas& canvas, NodeId id, const char* name, bool input)
{
    QPointF p;
    if (!canvas.nodeItem(id)->portScenePos(QString::fromLatin1(name), input, p)) {
        qFatal("no port %s", name);
    }
    return canvas.mapFromScene(p);
}

/// Answers the next popup menu: records its entries ("text[disabled: tooltip]|..."), then sends
/// `keys` to it.
void answerMenu(QString* entries, QList<Qt::Key> keys)
{
    QTimer::singleShot(0, [entries, keys] {
        auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget());
        if (menu == nullptr) {
            return;
        }
        for (QAction* a : menu->actions()) {
            if (a->isSeparator() && a->text().isEmpty()) {
                continue;
            }
            *entries += a->text() + (a->isEnabled() ? QString() : QStringLiteral("[disabled: %1]").arg(a->toolTip())) +
                        (a->isChecked() ? QStringLiteral("[checked]") : QString()) + QLatin1Char('|');
        }
        for (Qt::Key key : keys) {
            QTest::keyClick(menu, key);
        }
    });
}

/// With SPIKE_SCREENSHOT_DIR set, saves the window as <dir>/wire_<name>.png (to look at).
void screenshot(QWidget& w, const char* name)
{
    const QString dir = qEnvironmentVariable("SPIKE_SCREENSHOT_DIR");
    if (!dir.isEmpty()) {
        settle();
        w.grab().save(QStringLiteral("%1/wire_%2.png").arg(dir, QLatin1String(name)));
    }
}

struct Stats {
    double mean = 0.0, std = 0.0, min = 0.0, max = 0.0;
};

Stats stats(const spike::engine::Tensor& t)
{
    Stats s{0.0, 0.0, t[0], t[0]};
    double sq = 0.0;
    for (std::int64_t i = 0; i < t.numel(); ++i) {
        s.mean += t[i];
        sq += static_cast<double>(t[i]) * t[i];
        s.min = std::min<double>(s.min, t[i]);
        s.max = std::max<double>(s.max, t[i]);
    }
    s.mean /= static_cast<double>(t.numel());
    s.std = std::sqrt(sq / static_cast<double>(t.numel()) - s.mean * s.mean);
    return s;
}

/// Shows `w` with kModel and a wire poisson.out -> lif.in carrying a projection of `type`.
ConnectionId showWithWire(MainWindow& w, const char* type)
{
    spike::tests::showMainWindow(w);
    if (!w.openModelFromJson(kModel, QStringLiteral("wires"))) {
        qFatal("kModel did not open");
    }
    GraphDocument& doc = *w.document();
    spike::tests::pushOk(doc, std::make_unique<ConnectWithProjectionCommand>(doc, doc.rootId(), "poisson.out", "lif.in", type));
    w.canvas()->fitToView();
    settle();
    return doc.connections(doc.rootId()).front();
}

}  // namespace

class TestWireProjection : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void buildAndEditAProjectionByHand();
    void wireMenuOffersTheKinds();
    void kindChangeContinuesARun();
    void commandsRefuseWhatDoesNotFit();
};

void TestWireProjection::buildAndEditAProjectionByHand()
{
    MainWindow w;
    spike::tests::showMainWindow(w);
    QString error;
    QVERIFY2(w.openModelFromJson(kModel, QStringLiteral("wires"), &error), qPrintable(error));
    settle();
    GraphCanvas* canvas = w.canvas();
    GraphDocument& doc = *w.document();
    canvas->fitToView();
    settle();
    const NodeId root = doc.rootId();
    const NodeId poisson = doc.findNode("poisson");
    const NodeId lif = doc.findNode("lif");
    QWidget* vp = canvas->viewport();
    const int start = doc.undoStack()->index();

    // ---- drag a wire from poisson.out (100) to lif.in (50): the kinds are offered ----------------
    QString offered;
    answerMenu(&offered, {Qt::Key_Down, Qt::Key_Return});
    const QPoint a = portAt(*canvas, poisson, "out", false);
    const QPoint b = portAt(*canvas, lif, "in", true);
    mouse(vp, QEvent::MouseButtonPress, a, Qt::LeftButton, Qt::LeftButton);
    mouse(vp, QEvent::MouseMove, (a + b) / 2, Qt::NoButton, Qt::LeftButton);
    mouse(vp, QEvent::MouseButtonRelease, b, Qt::LeftButton, Qt::NoButton);
    settle();
    // The offscreen platform does not give the window back its activation after a popup closes,
    // as a window system does: without it no shortcut (Ctrl+Z below) would reach the window.
    QApplication::setActiveWindow(&w);
    QVERIFY(QTest::qWaitForWindowActive(&w));
    QVERIFY2(offered.contains(QStringLiteral("Sparse random (")), qPrintable(offered));
    QVERIFY2(offered.contains(QStringLiteral("Dense (all-to-all)|")), qPrintable(offered));
    QVERIFY2(offered.contains(QStringLiteral("One-to-one[disabled: ")) && offered.contains(QStringLiteral("100 to 50")),
             qPrintable(offered));
    QCOMPARE(doc.undoStack()->index(), start + 1);  // one undo step
    QCOMPARE(doc.connections(root).size(), std::size_t{1});
    const ConnectionId wireId = doc.connections(root).front();
    auto info = doc.connection(wireId);
    QCOMPARE(QString::fromStdString(doc.module(info->projection)->className()), QStringLiteral("SparseProjection"));
    GraphWireItem* wire = canvas->wireItem(wireId);
    QCOMPARE(wire->label(), QStringLiteral("Sparse 100→50"));
    QCOMPARE(wire->summary().sign, WireSummary::Sign::Excitatory);
    QCOMPARE(wire->colour(), QColor(0xc8, 0x3c, 0x2c));
    QVERIFY(wire->toolTip().contains(QStringLiteral("synapses")));

    // ---- click the wire: the Inspector dock shows its panel ---------------------------------------
    QVERIFY(!w.showsConnectionPanel());
    const QPoint onWire = canvas->mapFromScene(GraphWireItem::curve(wire->from(), wire->to()).pointAtPercent(0.3));
    mouse(vp, QEvent::MouseButtonPress, onWire, Qt::LeftButton, Qt::LeftButton);
    mouse(vp, QEvent::MouseButtonRelease, onWire, Qt::LeftButton, Qt::NoButton);
    settle();
    QCOMPARE(canvas->selectedWire(), wireId);
    QVERIFY(w.showsConnectionPanel());
    ConnectionPanel* panel = w.connectionPanel();
    QVERIFY2(panel->title().startsWith(QStringLiteral("Wire poisson.out (100) → lif.in (50)")), qPrintable(panel->title()));
    QCOMPARE(panel->kindBox()->currentText(), QStringLiteral("Sparse random"));
    auto* kinds = qobject_cast<QStandardItemModel*>(panel->kindBox()->model());
    QVERIFY(!kinds->item(1)->isEnabled());  // one-to-one between 100 and 50
    QVERIFY(!kinds->item(0)->isEnabled());  // identity too
    QCOMPARE(panel->inspector()->node(), info->projection);
    QCOMPARE(w.moduleTree()->selectedNodes(), QList<NodeId>{info->projection});  // its grey row
    QVERIFY(panel->inspector()->rowNames().contains(QStringLiteral("seed")));
    const auto* sparse = dynamic_cast<const spike::engine::SparseProjection*>(doc.module(info->projection));
    const std::vector<std::int32_t> synapses = sparse->targets();
    const float seed = sparse->tensor("seed")[0];
    const NodeId sparseNode = info->projection;

    // ---- the kind combo, by keys: Sparse -> Dense (the wire stays, selected) ------------------------
    panel->kindBox()->setFocus();
    QTest::keyClick(panel->kindBox(), Qt::Key_Up);
    settle();
    QCOMPARE(doc.undoStack()->index(), start + 2);
    info = doc.connection(wireId);
    QVERIFY(info.has_value());
    QCOMPARE(QString::fromStdString(doc.module(info->projection)->className()), QStringLiteral("DenseProjection"));
    QCOMPARE(doc.module(info->projection)->tensor("weight").shape(), spike::engine::Shape({100, 50}));
    wire = canvas->wireItem(wireId);
    QCOMPARE(wire->label(), QStringLiteral("Dense 100→50"));
    QCOMPARE(canvas->selectedWire(), wireId);
    QVERIFY(w.showsConnectionPanel());
    QCOMPARE(panel->kindBox()->currentText(), QStringLiteral("Dense"));

    // ---- undo (Ctrl+Z): Sparse again with the same synapses and seed --------------------------------
    QTest::keyClick(canvas, Qt::Key_Z, Qt::ControlModifier);
    settle();
    QCOMPARE(doc.undoStack()->index(), start + 1);
    info = doc.connection(wireId);
    QCOMPARE(info->projection, sparseNode);
    sparse = dynamic_cast<const spike::engine::SparseProjection*>(doc.module(info->projection));
    QVERIFY(sparse != nullptr);
    QCOMPARE(sparse->tensor("seed")[0], seed);
    QVERIFY(sparse->targets() == synapses);
    QCOMPARE(panel->kindBox()->currentText(), QStringLiteral("Sparse random"));
    QCOMPARE(canvas->wireItem(wireId)->label(), QStringLiteral("Sparse 100→50"));
    screenshot(w, "sparse");
    w.resize(1024, 700);
    screenshot(w, "sparse_1024");
    w.resize(1400, 900);
    settle();

    // ---- p = 2 typed into the projection's row: refused inline, p unchanged -------------------------
    const float pBefore = sparse->tensor("p")[0];
    auto* pEditor = qobject_cast<AttributeEditor*>(panel->inspector()->editorFor(QStringLiteral("p")));
    QVERIFY(pEditor != nullptr);
    auto* pSpin = pEditor->findChild<QAbstractSpinBox*>();
    QVERIFY(pSpin != nullptr);
    spike::tests::bringIntoView(pSpin);
    typeInto(pSpin, QStringLiteral("2"));
    QTest::keyClick(pSpin, Qt::Key_Return);
    settle();
    QCOMPARE(sparse->tensor("p")[0], pBefore);
    QVERIFY2(panel->inspector()->lastMessage().contains(QStringLiteral("'p'")), qPrintable(panel->inspector()->lastMessage()));
    QCOMPARE(doc.undoStack()->index(), start + 1);

    // ---- the delay in ms: -1 refused, 3 ms = 3 steps at dt 1 ms -------------------------------------
    QVERIFY2(panel->delayText().contains(QStringLiteral("0 steps = 0 ms at dt 1 ms")), qPrintable(panel->delayText()));
    typeInto(panel->delayMsEdit(), QStringLiteral("-1"));
    QTest::keyClick(panel->delayMsEdit(), Qt::Key_Return);
    settle();
    QVERIFY2(panel->lastMessage().contains(QStringLiteral("negative")), qPrintable(panel->lastMessage()));
    QCOMPARE(sparse->tensor("delay")[0], 0.0F);
    QCOMPARE(doc.undoStack()->index(), start + 1);
    typeInto(panel->delayMsEdit(), QStringLiteral("3"));
    QTest::keyClick(panel->delayMsEdit(), Qt::Key_Return);
    settle();
    QCOMPARE(sparse->tensor("delay")[0], 3.0F);
    QVERIFY(panel->lastMessage().isEmpty());
    QVERIFY2(panel->delayText().contains(QStringLiteral("3 steps = 3 ms at dt 1 ms")), qPrintable(panel->delayText()));
    QCOMPARE(doc.undoStack()->index(), start + 2);

    // ---- Delayed by a click: the wire is dashed ---------------------------------------------------
    QCheckBox* delayed = panel->delayedBox();
    QVERIFY(!delayed->isChecked());
    QTest::mouseClick(delayed, Qt::LeftButton, Qt::NoModifier, QPoint(8, delayed->height() / 2));
    settle();
    QVERIFY(doc.connection(wireId)->delayed);
    QVERIFY(canvas->wireItem(wireId)->delayed());
    QVERIFY(delayed->isChecked());
    QCOMPARE(doc.undoStack()->index(), start + 3);
    QCOMPARE(canvas->selectedWire(), wireId);

    // ---- Dense again, weights initialised normal(0, 0.1) by clicks -----------------------------------
    panel->kindBox()->setFocus();
    QTest::keyClick(panel->kindBox(), Qt::Key_Up);
    settle();
    info = doc.connection(wireId);
    QCOMPARE(QString::fromStdString(doc.module(info->projection)->className()), QStringLiteral("DenseProjection"));
    QVERIFY(info->delayed);  // the flag stays with the wire
    QVERIFY(panel->initApplyButton()->isVisible());
    QCOMPARE(panel->initSchemeBox()->currentData().toString(), QStringLiteral("normal"));
    typeInto(panel->initParamEdit(0), QStringLiteral("0"));
    typeInto(panel->initParamEdit(1), QStringLiteral("-1"));
    QTest::mouseClick(panel->initApplyButton(), Qt::LeftButton);
    settle();
    QVERIFY2(panel->lastMessage().contains(QStringLiteral("std >= 0")), qPrintable(panel->lastMessage()));
    const int beforeInit = doc.undoStack()->index();
    typeInto(panel->initParamEdit(1), QStringLiteral("0.1"));
    typeInto(panel->initSeedEdit(), QStringLiteral("7"));
    QTest::mouseClick(panel->initApplyButton(), Qt::LeftButton);
    settle();
    QVERIFY2(panel->lastMessage().isEmpty(), qPrintable(panel->lastMessage()));
    QCOMPARE(doc.undoStack()->index(), beforeInit + 1);
    const Stats s = stats(doc.module(info->projection)->tensor("weight"));
    // 5000 draws: the mean's standard error is 0.0014, the std's about 0.001.
    QVERIFY2(std::abs(s.mean) < 0.007, qPrintable(QString::number(s.mean)));
    QVERIFY2(std::abs(s.std - 0.1) < 0.006, qPrintable(QString::number(s.std)));
    QCOMPARE(canvas->wireItem(wireId)->summary().sign, WireSummary::Sign::Mixed);
    screenshot(w, "dense");

    // ---- a constant negative weight: the wire turns inhibitory blue --------------------------------
    QComboBox* scheme = panel->initSchemeBox();
    scheme->setFocus();
    QTest::keyClick(scheme, Qt::Key_Home);  // Constant
    settle();
    QCOMPARE(scheme->currentData().toString(), QStringLiteral("constant"));
    typeInto(panel->initParamEdit(0), QStringLiteral("-0.2"));
    QTest::mouseClick(panel->initApplyButton(), Qt::LeftButton);
    settle();
    QCOMPARE(doc.module(info->projection)->tensor("weight")[123], -0.2F);
    QCOMPARE(canvas->wireItem(wireId)->summary().sign, WireSummary::Sign::Inhibitory);
    QCOMPARE(canvas->wireItem(wireId)->colour(), QColor(0x2c, 0x5f, 0xc8));
    screenshot(w, "inhibitory");

    // ---- clicking the background shows the module inspector again ---------------------------------
    mouse(vp, QEvent::MouseButtonPress, QPoint(5, vp->height() - 5), Qt::LeftButton, Qt::LeftButton);
    mouse(vp, QEvent::MouseButtonRelease, QPoint(5, vp->height() - 5), Qt::LeftButton, Qt::NoButton);
    settle();
    QVERIFY(!canvas->selectedWire().valid());
    QVERIFY(!w.showsConnectionPanel());
    screenshot(w, "deselected");

    // ---- the projection's row in the Modules tree shows the wire's panel too ------------------------
    QTreeWidget* tree = w.moduleTree();
    const QList<QTreeWidgetItem*> rows = tree->findItems(QString::fromStdString(info->name), Qt::MatchRecursive);
    QCOMPARE(rows.size(), 1);
    tree->scrollToItem(rows.front());
    QTest::mouseClick(tree->viewport(), Qt::LeftButton, Qt::NoModifier, tree->visualItemRect(rows.front()).center());
    settle();
    QVERIFY(w.showsConnectionPanel());
    QCOMPARE(panel->connection(), wireId);
}

void TestWireProjection::wireMenuOffersTheKinds()
{
    MainWindow w;
    const ConnectionId id = showWithWire(w, "DenseProjection");
    GraphDocument& doc = *w.document();
    GraphCanvas* canvas = w.canvas();
    GraphWireItem* wire = canvas->wireItem(id);
    const QPoint onWire = canvas->mapFromScene(GraphWireItem::curve(wire->from(), wire->to()).pointAtPercent(0.3));
    QMenu menu;
    canvas->fillContextMenu(menu, onWire);
    QMenu* kinds = nullptr;
    QStringList entries;
    for (QAction* a : menu.actions()) {
        entries << a->text();
        if (a->menu() != nullptr) {
            kinds = a->menu();
        }
    }
    QVERIFY2(entries.contains(QStringLiteral("Delayed")) && entries.contains(QStringLiteral("Delete wire")),
             qPrintable(entries.join(QLatin1Char('|'))));
    QVERIFY(kinds != nullptr);
    QStringList checked;
    QStringList disabled;
    for (QAction* a : kinds->actions()) {
        if (a->isChecked()) {
            checked << a->text();
        }
        if (!a->isEnabled()) {
            disabled << a->text();
        }
    }
    QCOMPARE(checked, QStringList{QStringLiteral("Dense")});
    QCOMPARE(disabled, QStringList({QStringLiteral("None (identity)"), QStringLiteral("One-to-one")}));
    // Choosing Sparse random there is one step.
    const int before = doc.undoStack()->index();
    kinds->actions().at(3)->trigger();
    settle();
    QCOMPARE(doc.undoStack()->index(), before + 1);
    QCOMPARE(canvas->wireItem(id)->label(), QStringLiteral("Sparse 100→50"));
}

void TestWireProjection::kindChangeContinuesARun()
{
    MainWindow w;
    const ConnectionId id = showWithWire(w, "SparseProjection");
    GraphDocument& doc = *w.document();
    GraphCanvas* canvas = w.canvas();
    QTest::keyClick(&w, Qt::Key_F5);  // Run (the Run layout resizes the canvas)
    QTRY_VERIFY(w.isRunning());
    QTRY_VERIFY(w.simulatedSteps() > 20);
    settle();
    GraphWireItem* wire = canvas->wireItem(id);
    const QPoint onWire = canvas->mapFromScene(GraphWireItem::curve(wire->from(), wire->to()).pointAtPercent(0.3));
    QVERIFY(canvas->viewport()->rect().contains(onWire));
    mouse(canvas->viewport(), QEvent::MouseButtonPress, onWire, Qt::LeftButton, Qt::LeftButton);
    mouse(canvas->viewport(), QEvent::MouseButtonRelease, onWire, Qt::LeftButton, Qt::NoButton);
    settle();
    QVERIFY(w.showsConnectionPanel());
    QComboBox* kind = w.connectionPanel()->kindBox();
    kind->setFocus();
    QTest::keyClick(kind, Qt::Key_Up);  // Dense, while running
    settle();
    QCOMPARE(QString::fromStdString(doc.module(doc.connection(id)->projection)->className()),
             QStringLiteral("DenseProjection"));
    const std::int64_t at = w.simulatedSteps();
    QVERIFY(w.isRunning());
    QTRY_VERIFY2(w.simulatedSteps() > at + 20, "the run did not continue after the kind change");
    QVERIFY(w.showsConnectionPanel());
    QTest::keyClick(&w, Qt::Key_F5);  // Pause
    QTRY_VERIFY(!w.isRunning());
}

void TestWireProjection::commandsRefuseWhatDoesNotFit()
{
    GraphDocument doc;
    doc.fromJson(nlohmann::json::parse(kModel.constData()));
    const NodeId root = doc.rootId();
    spike::tests::pushOk(doc, std::make_unique<ConnectWithProjectionCommand>(doc, root, "poisson.out", "lif.in",
                                                                             "SparseProjection"));
    const ConnectionId id = doc.connections(root).front();
    const nlohmann::json before = doc.toJson();
    for (const char* type : {"", "OneToOneProjection"}) {
        const auto s = pushCommand(doc, std::make_unique<SetProjectionCommand>(doc, id, type));
        QVERIFY(!s.ok);
        QVERIFY2(QString::fromStdString(s.message).contains(QStringLiteral("from 100 to 50")), s.message.c_str());
    }
    QVERIFY(doc.toJson() == before);
    QVERIFY(!pushCommand(doc, std::make_unique<ConnectWithProjectionCommand>(doc, root, "poisson.out", "lif.in",
                                                                             "LIF")).ok);
    QVERIFY(doc.toJson() == before);
    // lif -> lif through a dense projection closes a cycle: it is delayed, and undelaying it is
    // refused with the engine's reason.
    spike::tests::pushOk(doc, std::make_unique<ConnectWithProjectionCommand>(doc, root, "lif.spikes", "lif.in",
                                                                             "DenseProjection"));
    const ConnectionId loop = doc.connections(root).back();
    QVERIFY(doc.connection(loop)->delayed);
    const nlohmann::json withLoop = doc.toJson();
    const auto s = pushCommand(doc, std::make_unique<SetDelayedCommand>(doc, loop, false));
    QVERIFY(!s.ok);
    QVERIFY2(QString::fromStdString(s.message).contains(QStringLiteral("cycle")), s.message.c_str());
    QVERIFY(doc.toJson() == withLoop);
    QVERIFY(doc.connection(loop).has_value());
    // Undo and redo of a kind change give the same documents byte for byte.
    spike::tests::pushOk(doc, std::make_unique<SetProjectionCommand>(doc, id, "DenseProjection"));
    const nlohmann::json dense = doc.toJson();
    doc.undoStack()->undo();
    QVERIFY(doc.toJson() == withLoop);
    doc.undoStack()->redo();
    QVERIFY(doc.toJson() == dense);
    QVERIFY(doc.connection(id).has_value());
}

QTEST_MAIN(TestWireProjection)
#include "test_wire_projection.moc"
