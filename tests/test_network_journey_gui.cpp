// The issue's brief by hand (issue #15): in the main window, from an empty network, a user types
// "PoissonSource 100" and "LIF 100" on the canvas, adds a LIF and types 50 into its Settings
// group, drags a wire between the two 100-channel ports (a pass-through) and chooses Sparse in
// the wire's panel with the keyboard, drags a wire from the 100 to the 50 neurons (the kind menu:
// Sparse by keyboard), sets that projection's rule, p and weight by typing, runs 300 steps with
// the toolbar, and undoes everything with Ctrl+Z back to the empty document. Every step is real
// mouse and key input; the rates of the network built are checked on the engine's own run of it.
// test_network_journey does the same through the commands alone.
#include "circuit_helpers.hpp"
#include "graph_test_models.hpp"
#include "inspector_input_helpers.hpp"
#include "real_input.hpp"

#include "engine/io/model_clone.hpp"
#include "engine/network/projections.hpp"
#include "ui/document/graph_projection.hpp"
#include "ui/editor/document_tree.hpp"
#include "ui/editor/graph_canvas.hpp"
#include "ui/editor/graph_node_item.hpp"
#include "ui/editor/graph_wire_item.hpp"
#include "ui/editor/quick_add_popup.hpp"
#include "ui/inspector/connection_panel.hpp"
#include "ui/inspector/inspector.hpp"
#include "ui/inspector/inspector_editors.hpp"
#include "ui/inspector/inspector_settings.hpp"
#include "ui/plots/plot_panes.hpp"
#include "ui/window/main_window.hpp"

#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QMenu>
#include <QTimer>
#include <QToolButton>
#include <QUndoStack>
#include <QtTest/QtTest>


using namespace spike::ui;
using spike::tests::settle;
using spike::tests::typeInto;

namespace {

const QByteArray kEmpty = R"({"format": "spikestudio.model", "version": 1, "model": {"type": "Network"}})";

void mouse(QWidget* viewport, QEvent::Type type, QPoint pos, Qt::MouseButton button, Qt::MouseButtons buttons)
{
    QMouseEvent event(type, QPointF(pos), QPointF(viewport->mapToGlobal(pos)), button, buttons, Qt::NoModifier);
    QApplication::sendEvent(viewport, &event);
}

/// Types `text` on the canvas with the pointer at viewport position `at`, then Enter in the
/// quick-add popup that opened; returns the node added (selected).
NodeId typeOnCanvas(GraphCanvas& canvas, QPoint at, const QString& text)
{
    QCursor::setPos(canvas.viewport()->mapToGlobal(at));
    QTest::keyClicks(canvas.viewport(), text);
    QuickAddPopup* popup = canvas.quickAddPopup();
    if (popup == nullptr || !popup->isVisible()) {
        return {};
    }
    QTest::keyClick(popup->lineEdit(), Qt::Key_Return);
    settle();
    return canvas.selectedNodes().value(0);
}

QPoint portAt(const GraphCanvas& canvas, NodeId id, const char* name, bool input)
{
    QPointF p;
    if (!canvas.nodeItem(id)->portScenePos(QString::fromLatin1(name), input, p)) {
        qFatal("no port %s", name);
    }
    return canvas.mapFromScene(p);
}

void drag(QWidget* vp, QPoint a, QPoint b)
{
    mouse(vp, QEvent::MouseButtonPress, a, Qt::LeftButton, Qt::LeftButton);
    mouse(vp, QEvent::MouseMove, (a + b) / 2, Qt::NoButton, Qt::LeftButton);
    mouse(vp, QEvent::MouseButtonRelease, b, Qt::LeftButton, Qt::NoButton);
    settle();
}

void clickWire(GraphCanvas& canvas, ConnectionId id)
{
    GraphWireItem* wire = canvas.wireItem(id);
    const QPoint on = canvas.mapFromScene(GraphWireItem::curve(wire->from(), wire->to()).pointAtPercent(0.35));
    mouse(canvas.viewport(), QEvent::MouseButtonPress, on, Qt::LeftButton, Qt::LeftButton);
    mouse(canvas.viewport(), QEvent::MouseButtonRelease, on, Qt::LeftButton, Qt::NoButton);
    settle();
}

/// Types `text` into the spin box of attribute `name` in `inspector` and presses Enter.
void typeAttribute(Inspector* inspector, const char* name, const QString& text)
{
    auto* editor = qobject_cast<AttributeEditor*>(inspector->editorFor(QString::fromLatin1(name)));
    QVERIFY2(editor != nullptr, name);
    auto* spin = editor->findChild<QAbstractSpinBox*>();
    QVERIFY2(spin != nullptr, name);
    spike::tests::bringIntoView(spin);
    typeInto(spin, text);
    QTest::keyClick(spin, Qt::Key_Return);
    settle();
}


}  // namespace

class TestNetworkJourneyGui : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void buildRunUndoByHand()
    {
        MainWindow w;
        spike::tests::showMainWindow(w);
        QString error;
        QVERIFY2(w.openModelFromJson(kEmpty, QStringLiteral("journey"), &error), qPrintable(error));
        settle();
        GraphDocument& doc = *w.document();
        const nlohmann::json empty = doc.toJson();
        GraphCanvas* canvas = w.canvas();
        QWidget* vp = canvas->viewport();

        // ---- three nodes: two with their size typed after the name, one resized in Settings ------
        const NodeId poisson = typeOnCanvas(*canvas, QPoint(80, 120), QStringLiteral("PoissonSource 100"));
        QVERIFY(poisson.valid());
        QCOMPARE(doc.module(poisson)->sizeOut(), 100);
        const NodeId first = typeOnCanvas(*canvas, QPoint(330, 120), QStringLiteral("LIF 100"));
        QVERIFY(first.valid());
        QCOMPARE(doc.module(first)->sizeOut(), 100);
        const NodeId second = typeOnCanvas(*canvas, QPoint(580, 120), QStringLiteral("LIF"));
        QVERIFY(second.valid());
        QCOMPARE(doc.module(second)->sizeOut(), 1);
        QCOMPARE(w.inspector()->node(), second);
        auto* size = qobject_cast<QLineEdit*>(w.inspector()->settings()->editorFor(QStringLiteral("neurons")));
        QVERIFY(size != nullptr);
        spike::tests::bringIntoView(size);
        typeInto(size, QStringLiteral("0"));  // refused inline, nothing changes
        QTest::keyClick(size, Qt::Key_Return);
        settle();
        QCOMPARE(doc.module(second)->sizeOut(), 1);
        typeInto(size, QStringLiteral("50"));
        QTest::keyClick(size, Qt::Key_Return);
        settle();
        QCOMPARE(doc.module(second)->sizeOut(), 50);
        // Rebuilt under the same id, still the selection the inspector and the tree show.
        QCOMPARE(canvas->selectedNodes(), QList<NodeId>{second});
        QCOMPARE(w.moduleTree()->selectedNodes(), QList<NodeId>{second});
        // The first nodes brought a time step: the run keeps real time, its axes in ms.
        QVERIFY(w.timeStepSpinBox()->isEnabled());
        QCOMPARE(w.timeStepSpinBox()->value(), 1.0);
        QVERIFY(!w.plotPanes()->timeAxis().steps);  // plotted against time in ms, not steps
        canvas->fitToView();
        settle();

        // ---- poisson -> first: equal sizes connect as a pass-through; Sparse chosen in the panel ---
        drag(vp, portAt(*canvas, poisson, "out", false), portAt(*canvas, first, "in", true));
        QCOMPARE(doc.connections(doc.rootId()).size(), std::size_t{1});
        const ConnectionId input = doc.connections(doc.rootId()).front();
        QVERIFY(!doc.connection(input)->projection.valid());
        clickWire(*canvas, input);
        QVERIFY(w.showsConnectionPanel());
        QComboBox* kind = w.connectionPanel()->kindBox();
        kind->setFocus();
        QTest::keyClick(kind, Qt::Key_End);  // the last kind: Sparse random
        settle();
        QCOMPARE(QString::fromStdString(doc.module(doc.connection(input)->projection)->className()),
                 QStringLiteral("SparseProjection"));
        QCOMPARE(canvas->wireItem(input)->label(), QStringLiteral("Sparse 100→100"));

        // ---- first -> second: different sizes, the kind menu; Sparse by keyboard ----------------------
        QTimer::singleShot(0, [] {
            if (auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget())) {
                QTest::keyClick(menu, Qt::Key_Down);
                QTest::keyClick(menu, Qt::Key_Return);
            }
        });
        drag(vp, portAt(*canvas, first, "spikes", false), portAt(*canvas, second, "in", true));
        QApplication::setActiveWindow(&w);  // offscreen: the window gets no activation back itself
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QCOMPARE(doc.connections(doc.rootId()).size(), std::size_t{2});
        const ConnectionId hidden = doc.connections(doc.rootId()).back();
        const NodeId projection = doc.connection(hidden)->projection;
        QCOMPARE(QString::fromStdString(doc.module(projection)->className()), QStringLiteral("SparseProjection"));
        QCOMPARE(canvas->wireItem(hidden)->label(), QStringLiteral("Sparse 100→50"));

        // ---- its rule, p and weight typed into the wire's inspector; p = 2 refused -----------------
        clickWire(*canvas, hidden);
        QVERIFY(w.showsConnectionPanel());
        Inspector* wireInspector = w.connectionPanel()->inspector();
        QCOMPARE(wireInspector->node(), projection);
        auto* ruleEditor = qobject_cast<AttributeEditor*>(wireInspector->editorFor(QStringLiteral("rule")));
        QVERIFY(ruleEditor != nullptr);
        auto* rule = ruleEditor->findChild<QComboBox*>();
        QVERIFY(rule != nullptr);
        spike::tests::bringIntoView(rule);
        rule->setFocus();
        QTest::keyClick(rule, Qt::Key_Home);  // "probability"
        settle();
        QCOMPARE(std::get<std::string>(doc.module(projection)->attribute("rule")), std::string("probability"));
        typeAttribute(wireInspector, "p", QStringLiteral("2"));
        QVERIFY(!wireInspector->lastMessage().isEmpty());
        typeAttribute(wireInspector, "p", QStringLiteral("0.1"));
        typeAttribute(wireInspector, "weight", QStringLiteral("0.08"));
        QCOMPARE(doc.module(projection)->tensor("p")[0], 0.1F);
        QCOMPARE(doc.module(projection)->tensor("weight")[0], 0.08F);

        // ---- the network the user built fires at rates a neuroscientist accepts --------------------
        const auto copy = spike::engine::cloneModule(doc.root());
        constexpr std::int64_t kSteps = 5000;
        const auto r = copy->evolve(spike::engine::Tensor(spike::engine::Shape{kSteps, 0}),
                                    spike::engine::RecordSpec({"lif.spikes", "lif_2.spikes"}));
        const double a = spike::tests::meanRate(r, "lif", kSteps);
        const double b = spike::tests::meanRate(r, "lif_2", kSteps);
        qInfo("built by hand: Poisson(100) 10 Hz -> LIF(100) %.1f Hz -> LIF(50) %.1f Hz", a, b);
        QVERIFY2(a > 2.0 && a < 50.0, qPrintable(QString::number(a)));
        QVERIFY2(b > 2.0 && b < 50.0, qPrintable(QString::number(b)));

        // ---- run it from the toolbar: 100 steps, three times ----------------------------------------
        QAction* step100 = w.action(QStringLiteral("action.step100"));
        QVERIFY(step100 != nullptr);
        QToolButton* button = nullptr;
        for (QToolButton* b : w.findChildren<QToolButton*>()) {
            if (b->defaultAction() == step100 && b->isVisible()) {
                button = b;
            }
        }
        QVERIFY(button != nullptr);
        for (int i = 1; i <= 3; ++i) {
            QTest::mouseClick(button, Qt::LeftButton);
            QTRY_COMPARE_WITH_TIMEOUT(w.simulatedSteps(), std::int64_t{100} * i, 30000);
        }

        // ---- Ctrl+Z until nothing is left to undo: the empty document -----------------------------
        canvas->setFocus();
        for (int i = 0; i < 100 && doc.undoStack()->canUndo(); ++i) {
            QTest::keyClick(canvas, Qt::Key_Z, Qt::ControlModifier);
            settle();
        }
        QVERIFY(!doc.undoStack()->canUndo());
        QCOMPARE(doc.toJson(), empty);
        QCOMPARE(canvas->nodeItemCount(), std::size_t{0});
        QCOMPARE(canvas->wireItemCount(), std::size_t{0});
    }
};

QTEST_MAIN(TestNetworkJourneyGui)
#include "test_network_journey_gui.moc"
