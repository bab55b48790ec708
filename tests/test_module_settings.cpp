// Module settings in the inspector (issue #15), with real key and mouse events into the Settings
// group's editors: a LIF dropped on the canvas resized 1 -> 100 by typing, its values carried,
// undo giving back 1 neuron under the same NodeId, position and wires; a dense wire's projection
// reshaped with the node; an identity wire and a one-to-one projection refusing with the reason,
// nothing changed; 0, -3, 10^12 and "x" refused inline; has_rec switched by a click, an MLP's
// norm_type by the keyboard; a Sequential's child read-only; the group within 330 and 560 px;
// a running simulation continuing through a resize.
#include "tests/graph_canvas_test_helpers.hpp"
#include "tests/real_input.hpp"

#include "ui/document/graph_configure.hpp"
#include "ui/inspector/inspector.hpp"
#include "ui/inspector/inspector_settings.hpp"
#include "ui/run/live_run.hpp"
#include "ui/run/run_session.hpp"

#include "engine/io/module_factory.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QSignalSpy>
#include <QtTest/QtTest>

using namespace spike::tests::canvas;
using spike::tests::settle;

namespace {

/// The name of the size setting of `type` ("neurons" for LIF).
QString sizeSetting(const std::string& type)
{
    for (const auto& s : spike::engine::findModuleType(type)->settings) {
        if (s.size) {
            return QString::fromStdString(s.name);
        }
    }
    return {};
}

/// Types `text` into setting `name`'s line edit (replacing what is there) and presses Enter.
void typeSetting(Inspector& inspector, const QString& name, const QString& text)
{
    auto* edit = qobject_cast<QLineEdit*>(inspector.settings()->editorFor(name));
    QVERIFY2(edit != nullptr, qPrintable(QStringLiteral("no line edit for setting %1").arg(name)));
    spike::tests::bringIntoView(edit);
    QTest::mouseClick(edit, Qt::LeftButton, Qt::NoModifier, edit->rect().center());
    QTest::keyClick(edit, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(edit, text);
    QTest::keyClick(edit, Qt::Key_Return);
    settle();
}

QString shownText(const Inspector& inspector, const QString& name)
{
    auto* edit = qobject_cast<QLineEdit*>(inspector.settings()->editorFor(name));
    return edit != nullptr ? edit->text() : QString();
}

std::int64_t neurons(const GraphDocument& doc, NodeId id)
{
    return doc.module(id)->shape().back();
}

/// src (PoissonSource 5) -> lif (LIF 3) through a DenseProjection "dense"; src -> id3 (LIF 5)
/// as identity "ident"; lif -> o2o (LIF 3) through a OneToOneProjection "one".
Json wiredModel()
{
    auto proj = [](const char* type, Json shape) { return Json{{"type", type}, {"config", {{"shape", shape}}}}; };
    Json model{{"type", "Network"},
               {"children",
                {{{"name", "src"}, {"type", "PoissonSource"}, {"config", {{"shape", {5}}}}},
                 {{"name", "lif"}, {"type", "LIF"}, {"config", {{"shape", {3, 3}}, {"has_rec", false}}}},
                 {{"name", "ident"}, {"type", "LIF"}, {"config", {{"shape", {5, 5}}, {"has_rec", false}}}},
                 {{"name", "o2o"}, {"type", "LIF"}, {"config", {{"shape", {3, 3}}, {"has_rec", false}}}}}},
               {"connections",
                {{{"name", "dense"}, {"from", "src.out"}, {"to", "lif.in"}, {"projection", proj("DenseProjection", {5, 3})}},
                 {{"name", "ident_wire"}, {"from", "src.out"}, {"to", "ident.in"}},
                 {{"name", "one"}, {"from", "lif.spikes"}, {"to", "o2o.in"},
                  {"projection", proj("OneToOneProjection", {3})}}}}};
    return Json{{"format", "spikestudio.model"}, {"version", 1}, {"model", model},
                {"layout", {{"src", {0.0, 0.0}}, {"lif", {300.0, 0.0}}, {"ident", {300.0, 200.0}}, {"o2o", {600.0, 0.0}}}}};
}

/// A document shown on a canvas and an inspector 420 px wide (the dock's usual width).
struct Scene {
    Fixture f;
    Inspector inspector;
    explicit Scene(const Json& model) : f(model)
    {
        inspector.resize(420, 800);
        inspector.setDocument(&f.doc);
        inspector.show();
    }
};

}  // namespace

class TestModuleSettings : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void resizingADroppedLifByTypingCarriesItsValuesAndUndoes()
    {
        Scene s(wiredModel());
        GraphDocument& doc = s.f.doc;
        const NodeId lif = s.f.canvas.addModule(QStringLiteral("LIF"), QPointF(600.0, 300.0));
        QVERIFY(lif.valid());
        QCOMPARE(neurons(doc, lif), std::int64_t{1});
        // Palette drops start with engine::startValues.
        const Json start = spike::engine::startValues("LIF");
        QVERIFY(start.contains("tau_mem"));
        const float tau = start.at("tau_mem").get<float>();
        QCOMPARE(std::get<spike::engine::Tensor>(doc.module(lif)->attribute("tau_mem")).data()[0], tau);
        const QPointF where = doc.position(lif).value();
        s.inspector.showNode(lif);
        const QString size = sizeSetting("LIF");
        QVERIFY(!size.isEmpty());
        QVERIFY(s.inspector.settings()->isVisible());
        QCOMPARE(shownText(s.inspector, size), QStringLiteral("1"));
        const int steps = doc.undoStack()->count();

        typeSetting(s.inspector, size, QStringLiteral("100"));
        QCOMPARE(doc.undoStack()->count(), steps + 1);
        QVERIFY(doc.contains(lif));  // the same id
        QCOMPARE(neurons(doc, lif), std::int64_t{100});
        QCOMPARE(doc.position(lif).value(), where);
        const auto& t = std::get<spike::engine::Tensor>(doc.module(lif)->attribute("tau_mem"));
        for (std::int64_t i = 0; i < t.numel(); ++i) {
            QCOMPARE(t.data()[i], tau);  // one value spread to every neuron
        }
        QCOMPARE(s.inspector.node(), lif);
        QCOMPARE(shownText(s.inspector, size), QStringLiteral("100"));
        QVERIFY(s.inspector.settings()->messageFor(size).isEmpty());
        const auto* command = dynamic_cast<const ConfigureNodeCommand*>(doc.undoStack()->command(steps));
        QVERIFY(command != nullptr);
        for (const std::string& note : command->notes()) {
            QVERIFY(s.inspector.settings()->notesText().contains(QString::fromStdString(note)));
        }

        doc.undoStack()->undo();
        QVERIFY(doc.contains(lif));
        QCOMPARE(neurons(doc, lif), std::int64_t{1});
        QCOMPARE(doc.position(lif).value(), where);
        QVERIFY(s.f.canvas.nodeItem(lif) != nullptr);
        doc.undoStack()->redo();
        QCOMPARE(neurons(doc, lif), std::int64_t{100});
        QCOMPARE(doc.position(lif).value(), where);
    }

    void aDenseWireFollowsTheResizeAndUndoKeepsTheWires()
    {
        Scene s(wiredModel());
        GraphDocument& doc = s.f.doc;
        const NodeId lif = doc.findNode("lif");
        const ConnectionId dense = doc.findConnection(doc.rootId(), "dense");
        const ConnectionId one = doc.findConnection(doc.rootId(), "one");
        const NodeId projection = doc.connection(dense)->projection;
        const std::vector<ConnectionId> before = doc.connections(doc.rootId());
        // A one-to-one projection out of lif refuses a size change: make that wire dense first.
        s.inspector.showNode(lif);
        typeSetting(s.inspector, sizeSetting("LIF"), QStringLiteral("7"));
        QVERIFY(s.inspector.settings()->messageFor(sizeSetting("LIF")).contains(
            QStringLiteral("wire 'one': a one-to-one projection needs equal sizes (7 -> 3)")));
        QCOMPARE(neurons(doc, lif), std::int64_t{3});
        QCOMPARE(shownText(s.inspector, sizeSetting("LIF")), QStringLiteral("3"));
        push(doc, std::make_unique<DisconnectCommand>(doc, std::vector<ConnectionId>{one}));
        const int steps = doc.undoStack()->count();

        typeSetting(s.inspector, sizeSetting("LIF"), QStringLiteral("7"));
        QCOMPARE(doc.undoStack()->count(), steps + 1);
        QCOMPARE(neurons(doc, lif), std::int64_t{7});
        const auto info = doc.connection(dense);
        QVERIFY(info.has_value());  // the same ConnectionId
        QCOMPARE(info->projection, projection);
        QCOMPARE(doc.module(projection)->config().at("shape"), Json::array({5, 7}));
        QCOMPARE(doc.connectionIndex(dense), std::size_t{0});
        QVERIFY(s.f.wire("dense") != nullptr);

        doc.undoStack()->undo();
        QCOMPARE(neurons(doc, lif), std::int64_t{3});
        QCOMPARE(doc.module(projection)->config().at("shape"), Json::array({5, 3}));
        doc.undoStack()->undo();  // the disconnect
        QCOMPARE(doc.connections(doc.rootId()), before);
    }

    void anIdentityWireRefusesWithTheReasonAndNothingChanges()
    {
        Scene s(wiredModel());
        GraphDocument& doc = s.f.doc;
        const NodeId ident = doc.findNode("ident");
        const Json saved = doc.toJson();
        const int steps = doc.undoStack()->count();
        s.inspector.showNode(ident);
        const QString size = sizeSetting("LIF");
        typeSetting(s.inspector, size, QStringLiteral("4"));
        const QString message = s.inspector.settings()->messageFor(size);
        QVERIFY2(message.contains(QStringLiteral("wire 'ident_wire'")) && message.contains(QStringLiteral("5")) &&
                     message.contains(QStringLiteral("4")) && message.contains(QStringLiteral("projection")),
                 qPrintable(message));
        QCOMPARE(doc.undoStack()->count(), steps);
        QCOMPARE(doc.toJson(), saved);
        QCOMPARE(shownText(s.inspector, size), QStringLiteral("5"));
    }

    void badSizesAreRefusedInline()
    {
        Scene s(wiredModel());
        GraphDocument& doc = s.f.doc;
        const NodeId lif = doc.findNode("lif");
        s.inspector.showNode(lif);
        const QString size = sizeSetting("LIF");
        const Json saved = doc.toJson();
        const int steps = doc.undoStack()->count();
        for (const QString& text : {QStringLiteral("0"), QStringLiteral("-3"), QStringLiteral("1000000000000"),
                                    QStringLiteral("x")}) {
            typeSetting(s.inspector, size, text);
            const QString message = s.inspector.settings()->messageFor(size);
            QVERIFY2(!message.isEmpty(), qPrintable(text));
            QVERIFY2(message.contains(size), qPrintable(message));
            QCOMPARE(shownText(s.inspector, size), QStringLiteral("3"));
            QCOMPARE(doc.undoStack()->count(), steps);
            QCOMPARE(doc.toJson(), saved);
        }
        // A good value clears the message.
        doc.undoStack()->clear();
        push(doc, std::make_unique<DisconnectCommand>(
                      doc, std::vector<ConnectionId>{doc.findConnection(doc.rootId(), "one")}));
        typeSetting(s.inspector, size, QStringLiteral("4"));
        QCOMPARE(neurons(doc, lif), std::int64_t{4});
        QVERIFY(s.inspector.settings()->messageFor(size).isEmpty());
    }

    void hasRecTogglesByAClick()
    {
        Scene s(wiredModel());
        GraphDocument& doc = s.f.doc;
        const NodeId lif = doc.findNode("o2o");
        s.inspector.showNode(lif);
        auto* box = qobject_cast<QCheckBox*>(s.inspector.settings()->editorFor(QStringLiteral("has_rec")));
        QVERIFY(box != nullptr);
        QVERIFY(!box->isChecked());
        QVERIFY(!doc.module(lif)->config().at("has_rec").get<bool>());
        spike::tests::bringIntoView(box);
        QTest::mouseClick(box, Qt::LeftButton, Qt::NoModifier, QPoint(box->height() / 2, box->height() / 2));
        settle();
        QVERIFY(doc.module(lif)->config().at("has_rec").get<bool>());
        QVERIFY(doc.module(lif)->hasAttribute("w_rec"));
        QVERIFY(doc.connection(doc.findConnection(doc.rootId(), "one")).has_value());
        auto* again = qobject_cast<QCheckBox*>(s.inspector.settings()->editorFor(QStringLiteral("has_rec")));
        QVERIFY(again != nullptr && again->isChecked());
        doc.undoStack()->undo();
        QVERIFY(!doc.module(lif)->config().at("has_rec").get<bool>());
    }

    void aChoiceChangesByTheKeyboard()
    {
        Scene s(wiredModel());
        GraphDocument& doc = s.f.doc;
        const NodeId mlp = s.f.canvas.addModule(QStringLiteral("MLP"), QPointF(0.0, 400.0));
        QVERIFY(mlp.valid());
        const auto* type = spike::engine::findModuleType("MLP");
        s.inspector.showNode(mlp);
        auto* combo = qobject_cast<QComboBox*>(s.inspector.settings()->editorFor(QStringLiteral("norm_type")));
        QVERIFY(combo != nullptr);
        QCOMPARE(combo->currentText(), QString::fromStdString(type->exampleConfig.at("norm_type").get<std::string>()));
        const int steps = doc.undoStack()->count();
        spike::tests::bringIntoView(combo);
        combo->setFocus(Qt::TabFocusReason);
        const QString before = combo->currentText();
        QTest::keyClick(combo, Qt::Key_Down);
        settle();
        QCOMPARE(doc.undoStack()->count(), steps + 1);
        auto* again = qobject_cast<QComboBox*>(s.inspector.settings()->editorFor(QStringLiteral("norm_type")));
        QVERIFY(again != nullptr && again->currentText() != before);
        QCOMPARE(QString::fromStdString(doc.module(mlp)->config().at("norm_type").get<std::string>()),
                 again->currentText());
        doc.undoStack()->undo();
        QCOMPARE(QString::fromStdString(doc.module(mlp)->config().at("norm_type").get<std::string>()), before);
    }

    void aSequentialsChildAndTheRootAreReadOnly()
    {
        Scene s(stackModel());
        GraphDocument& doc = s.f.doc;
        const NodeId child = doc.children(doc.findNode("stack")).back();  // the LIF
        s.inspector.showNode(child);
        QVERIFY(!s.inspector.settings()->readOnlyReason().isEmpty());
        QWidget* editor = s.inspector.settings()->editorFor(sizeSetting("LIF"));
        QVERIFY(editor != nullptr && !editor->isEnabled());
        const Json saved = doc.toJson();
        QVERIFY(!s.inspector.settings()->commit(sizeSetting("LIF").toStdString(), 9));
        QCOMPARE(doc.toJson(), saved);
        const spike::engine::Status st = pushCommand(doc, std::make_unique<ConfigureNodeCommand>(
                                                       doc, child, Json{{"shape", {4, 9}}, {"has_rec", false}}));
        QVERIFY(!st.ok);
        QVERIFY2(QString::fromStdString(st.message).contains(QStringLiteral("Sequential")), st.message.c_str());
        QCOMPARE(doc.toJson(), saved);
    }

    void theGroupFitsTheDockWidths()
    {
        // The inspector dock is 330 to 560 px wide: every settings widget within it, no sideways
        // scroll. SPIKE_SCREENSHOT_DIR set: the inspector is saved there to be looked at.
        Scene s(wiredModel());
        GraphDocument& doc = s.f.doc;
        push(doc, std::make_unique<DisconnectCommand>(
                      doc, std::vector<ConnectionId>{doc.findConnection(doc.rootId(), "one")}));
        s.inspector.showNode(doc.findNode("lif"));
        typeSetting(s.inspector, sizeSetting("LIF"), QStringLiteral("100"));
        typeSetting(s.inspector, sizeSetting("LIF"), QStringLiteral("0"));  // a refusal shown too
        for (const int width : {330, 560}) {
            s.inspector.resize(width, 900);
            settle();
            SettingsPanel* panel = s.inspector.settings();
            QVERIFY(panel->isVisible());
            const QRect inside = s.inspector.rect();
            for (QWidget* w : panel->findChildren<QWidget*>()) {
                if (!w->isVisible()) {
                    continue;
                }
                const QRect r(w->mapTo(&s.inspector, QPoint(0, 0)), w->size());
                QVERIFY2(r.left() >= inside.left() && r.right() <= inside.right(),
                         qPrintable(QStringLiteral("%1 '%2' at %3..%4 of %5 px")
                                        .arg(QString::fromLatin1(w->metaObject()->className()), w->objectName())
                                        .arg(r.left())
                                        .arg(r.right())
                                        .arg(width)));
            }
            if (const QByteArray dir = qgetenv("SPIKE_SCREENSHOT_DIR"); !dir.isEmpty()) {
                s.inspector.grab().save(QStringLiteral("%1/settings_%2.png").arg(QString::fromLocal8Bit(dir)).arg(width));
            }
        }
    }

    void aRunningSimulationContinuesThroughAResize()
    {
        Scene s(wiredModel());
        GraphDocument& doc = s.f.doc;
        const NodeId lif = doc.findNode("lif");
        push(doc, std::make_unique<DisconnectCommand>(
                      doc, std::vector<ConnectionId>{doc.findConnection(doc.rootId(), "one")}));
        RunSession session(doc);
        QSignalSpy rebuilt(&session, &RunSession::rebuilt);
        session.toggle();
        QTRY_VERIFY(session.isRunning() && session.currentStep() > 0);
        s.inspector.showNode(lif);
        const std::int64_t edited = session.currentStep();
        typeSetting(s.inspector, sizeSetting("LIF"), QStringLiteral("100"));
        QCOMPARE(neurons(doc, lif), std::int64_t{100});
        QTRY_COMPARE(rebuilt.count(), 1);
        QTRY_VERIFY(session.isRunning());
        const std::int64_t at = session.currentStep();
        QVERIFY(at >= edited);  // continued, not started again
        QTRY_VERIFY(session.currentStep() > at + 20);  // steps keep increasing
        const spike::engine::Module* plotted = session.live()->plotModel().findChild("lif");
        QVERIFY(plotted != nullptr);
        QCOMPARE(plotted->shape().back(), std::int64_t{100});  // the plots follow
        session.toggle();
        QTRY_VERIFY(!session.isRunning());
    }
};

QTEST_MAIN(TestModuleSettings)
#include "test_module_settings.moc"
