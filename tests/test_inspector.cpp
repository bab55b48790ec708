// Inspector: one row per registered attribute for every module type; edits through spin boxes,
// sliders, combo boxes, table cells and whole-array actions each push one (merged) undo step;
// refusals by the engine or the edit gate change nothing and show the reason; leak_mode
// switches update the derived rows; resets are one undo step; the family filter; updates from
// undo flow into the editors without pushing anything; large modules build no per-element
// widgets; a DynamicsNetwork's statistics follow edits of the weights below it.
#include "engine/composites/dynamics_network.hpp"
#include "engine/io/module_factory.hpp"
#include "engine/network/network.hpp"
#include "ui/document/graph_commands.hpp"
#include "ui/document/graph_document.hpp"
#include "tests/graph_test_models.hpp"
#include "ui/inspector/inspector.hpp"
#include "ui/inspector/inspector_editors.hpp"

#include <QLabel>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QTableWidget>
#include <QtTest/QtTest>

#include <cmath>
#include <memory>

using namespace spike::ui;
using spike::tests::documentOf;
using spike::engine::AttributeValue;
using spike::engine::Shape;
using spike::engine::Tensor;
using Json = nlohmann::json;

namespace {

const Tensor& tensorOf(const GraphDocument& doc, const std::string& name)
{
    return doc.root().tensor(name);
}

ScalarEditor* scalarEditor(const Inspector& inspector, const char* name)
{
    return qobject_cast<ScalarEditor*>(inspector.editorFor(QString::fromLatin1(name)));
}

ArrayEditor* arrayEditor(const Inspector& inspector, const char* name)
{
    return qobject_cast<ArrayEditor*>(inspector.editorFor(QString::fromLatin1(name)));
}

/// The number a scalar editor shows.
double shownNumber(const ScalarEditor* editor)
{
    if (editor->spinBox() != nullptr) {
        return editor->spinBox()->value();
    }
    return editor->checkBox()->isChecked() ? 1.0 : 0.0;
}

/// Every scalar and enum editor shows the module's value and its derived flag.
void requireEditorsMatch(const Inspector& inspector, const spike::engine::Module& module)
{
    for (const auto& view : module.attributes()) {
        const QString name = QString::fromStdString(view.spec->name);
        auto* editor = qobject_cast<AttributeEditor*>(inspector.editorFor(name));
        QVERIFY2(editor != nullptr, qPrintable(name));
        QVERIFY2(editor->derived() == view.derived, qPrintable(name));
        if (auto* scalar = qobject_cast<ScalarEditor*>(editor)) {
            const double want = std::get<Tensor>(*view.value)[0];
            const double tolerance = 1e-6 * std::abs(want);
            QVERIFY2(std::abs(shownNumber(scalar) - want) <= tolerance,
                     qPrintable(name + QStringLiteral(": shows %1, module has %2")
                                           .arg(shownNumber(scalar))
                                           .arg(want)));
        } else if (auto* choice = qobject_cast<EnumEditor*>(editor)) {
            QCOMPARE(choice->comboBox()->currentText().toStdString(),
                     std::get<std::string>(*view.value));
        }
    }
}

}  // namespace

class TestInspector : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everyModuleTypeHasOneRowPerAttribute();
    void spinBoxEditIsOneUndoableCommand();
    void sliderMovesMergeIntoOneUndoStep();
    void negativeTauIsRefusedWithTheEnginesMessage();
    void editGateCanRefuse();
    void leakModeUpdatesDerivedRows();
    void vectorActionsAreOneUndoStepEach();
    void matrixActionsAreOneUndoStepEach();
    void resetParametersAndStateAreOneUndoStepEach();
    void integerAndBooleanEditors();
    void familyFilterHidesOtherFamilies();
    void undoUpdatesEditorsWithoutPushing();
    void removingTheNodeClearsTheInspector();
    void largeModulesBuildNoPerElementWidgets();
    void statisticsFollowEditsBelowTheModule();
};

void TestInspector::everyModuleTypeHasOneRowPerAttribute()
{
    for (const auto& info : spike::engine::moduleTypes()) {
        std::unique_ptr<GraphDocument> doc;
        try {
            doc = documentOf(info.type, info.exampleConfig);
        } catch (const std::exception& e) {
            QFAIL(qPrintable(QString::fromStdString(info.type + ": " + e.what())));
        }
        Inspector inspector;
        inspector.setDocument(doc.get());
        // The root and every module below it (composites build children).
        for (const auto& [path, module] : doc->root().namedModules()) {
            inspector.showNode(doc->findNode(path));
            QStringList want;
            for (const auto& view : module->attributes()) {
                want << QString::fromStdString(view.spec->name);
                QVERIFY2(inspector.editorFor(want.back()) != nullptr,
                         qPrintable(QString::fromStdString(info.type + " '" + path + "': ") + want.back()));
            }
            QStringList got = inspector.rowNames();
            QCOMPARE(got.size(), want.size());
            got.sort();
            want.sort();
            QCOMPARE(got, want);
            requireEditorsMatch(inspector, *module);
            // Nothing of its own (a Network): a note says where its contents are, no empty frame.
            bool noted = false;
            for (const QLabel* label : inspector.findChildren<QLabel*>()) {
                noted = noted || (label->isVisibleTo(&inspector) && label->text().contains(QStringLiteral("no attributes of its own")));
            }
            QCOMPARE(noted, want.isEmpty() && module->statistics().empty());
        }
    }
}

void TestInspector::spinBoxEditIsOneUndoableCommand()
{
    auto doc = documentOf("LIF", {{"shape", {4, 4}}});
    Inspector inspector;
    inspector.setDocument(doc.get());
    inspector.showNode(doc->rootId());
    QSignalSpy edited(&inspector, &Inspector::edited);
    ScalarEditor* editor = scalarEditor(inspector, "tau_mem");
    QVERIFY(editor != nullptr && editor->spinBox() != nullptr);
    QVERIFY(editor->logarithmic());
    QCOMPARE(static_cast<float>(editor->spinBox()->value()), 0.02F);

    editor->spinBox()->setValue(0.03);
    QCOMPARE(doc->undoStack()->count(), 1);
    QCOMPARE(tensorOf(*doc, "tau_mem")[0], 0.03F);
    QCOMPARE(edited.count(), 1);
    QCOMPARE(edited.at(0).at(1).toString(), QStringLiteral("tau_mem"));
    QVERIFY(inspector.lastMessage().isEmpty());

    doc->undoStack()->undo();
    QCOMPARE(tensorOf(*doc, "tau_mem")[0], 0.02F);
    QCOMPARE(static_cast<float>(editor->spinBox()->value()), 0.02F);
    QCOMPARE(doc->undoStack()->count(), 1);
    QCOMPARE(edited.count(), 1);
}

void TestInspector::sliderMovesMergeIntoOneUndoStep()
{
    auto doc = documentOf("LIF", {{"shape", {4, 4}}});
    Inspector inspector;
    inspector.setDocument(doc.get());
    inspector.showNode(doc->rootId());
    ScalarEditor* bias = scalarEditor(inspector, "bias");
    QVERIFY(bias != nullptr && !bias->logarithmic());
    ScalarEditor* tau = scalarEditor(inspector, "tau_syn");
    QVERIFY(tau != nullptr && tau->logarithmic());

    for (const int position : {600, 700, 800}) {
        tau->slider()->setValue(position);
    }
    QCOMPARE(doc->undoStack()->count(), 1);
    QCOMPARE(tensorOf(*doc, "tau_syn")[0], static_cast<float>(tau->valueAt(800)));
    QVERIFY(tensorOf(*doc, "tau_syn")[0] > 0.05F);
    QCOMPARE(static_cast<float>(tau->spinBox()->value()), tensorOf(*doc, "tau_syn")[0]);

    doc->undoStack()->undo();
    QCOMPARE(tensorOf(*doc, "tau_syn")[0], 0.05F);
    QCOMPARE(tau->slider()->value(), 500);  // 0.05 sits mid-way on its 0.0005 .. 5 log scale
}

void TestInspector::negativeTauIsRefusedWithTheEnginesMessage()
{
    auto doc = documentOf("LIF", {{"shape", {4, 4}}});
    Inspector inspector;
    inspector.setDocument(doc.get());
    inspector.showNode(doc->rootId());

    // A scalar spin box stops at the bound; the engine refuses the bound itself (tau > 0).
    ScalarEditor* editor = scalarEditor(inspector, "tau_mem");
    editor->spinBox()->setValue(-0.01);
    QVERIFY2(inspector.lastMessage().contains(QStringLiteral("tau_mem")), qPrintable(inspector.lastMessage()));
    QCOMPARE(doc->undoStack()->count(), 0);
    QCOMPARE(tensorOf(*doc, "tau_mem")[0], 0.02F);
    QCOMPARE(static_cast<float>(editor->spinBox()->value()), 0.02F);

    // tau_mem becoming per neuron (from outside the inspector) swaps its row's editor for an
    // array editor; then a tau typed negative into its table.
    QVERIFY(doc->setAttributes(doc->rootId(), {{"tau_mem", Tensor(Shape{4}, {0.01F, 0.02F, 0.03F, 0.04F})}}).ok);
    QTRY_VERIFY(arrayEditor(inspector, "tau_mem") != nullptr);
    ArrayEditor* array = arrayEditor(inspector, "tau_mem");
    QCOMPARE(inspector.node(), doc->rootId());
    QVERIFY(inspector.lastMessage().isEmpty());
    array->setExpanded(true);
    QVERIFY(array->table() != nullptr);
    QCOMPARE(array->table()->rowCount(), 4);
    array->table()->item(1, 0)->setText(QStringLiteral("-0.5"));
    QVERIFY2(inspector.lastMessage().contains(QStringLiteral("tau_mem")), qPrintable(inspector.lastMessage()));
    QVERIFY(inspector.lastMessage().contains(QStringLiteral("-0.5")));
    QCOMPARE(doc->undoStack()->count(), 0);
    QCOMPARE(tensorOf(*doc, "tau_mem")[1], 0.02F);
    QCOMPARE(array->table()->item(1, 0)->text(), QStringLiteral("0.02"));

    // A valid cell edit then goes through and clears the message.
    array->table()->item(1, 0)->setText(QStringLiteral("0.025"));
    QCOMPARE(doc->undoStack()->count(), 1);
    QCOMPARE(tensorOf(*doc, "tau_mem")[1], 0.025F);
    QVERIFY(inspector.lastMessage().isEmpty());
}

void TestInspector::editGateCanRefuse()
{
    auto doc = documentOf("LIF", {{"shape", {4, 4}}});
    Inspector inspector;
    inspector.setDocument(doc.get());
    inspector.showNode(doc->rootId());
    int asked = 0;
    inspector.setEditGate([&asked](NodeId, const spike::engine::AttributeSpec& spec) {
        ++asked;
        return spec.name == "tau_mem" ? QStringLiteral("pause to change tau_mem: it needs a rebuild")
                                      : QString();
    });
    QSignalSpy edited(&inspector, &Inspector::edited);
    ScalarEditor* tau = scalarEditor(inspector, "tau_mem");
    tau->spinBox()->setValue(0.04);
    QCOMPARE(asked, 1);
    QCOMPARE(doc->undoStack()->count(), 0);
    QCOMPARE(edited.count(), 0);
    QCOMPARE(inspector.lastMessage(), QStringLiteral("pause to change tau_mem: it needs a rebuild"));
    QCOMPARE(tensorOf(*doc, "tau_mem")[0], 0.02F);
    QCOMPARE(static_cast<float>(tau->spinBox()->value()), 0.02F);

    scalarEditor(inspector, "threshold")->spinBox()->setValue(1.5);
    QCOMPARE(doc->undoStack()->count(), 1);
    QCOMPARE(tensorOf(*doc, "threshold")[0], 1.5F);
    QCOMPARE(edited.count(), 1);
}

void TestInspector::leakModeUpdatesDerivedRows()
{
    auto doc = documentOf("LIF", {{"shape", {4, 4}}});
    Inspector inspector;
    inspector.setDocument(doc.get());
    inspector.showNode(doc->rootId());
    scalarEditor(inspector, "tau_mem")->spinBox()->setValue(0.03);
    auto* mode = qobject_cast<EnumEditor*>(inspector.editorFor(QStringLiteral("leak_mode")));
    QVERIFY(mode != nullptr);
    QVERIFY(scalarEditor(inspector, "alpha")->derived());
    QVERIFY(!scalarEditor(inspector, "alpha")->isEnabled());
    QVERIFY(scalarEditor(inspector, "tau_mem")->toolTip().contains(QStringLiteral("Live")));

    for (const char* next : {"decays", "bitshifts", "taus"}) {
        const int before = doc->undoStack()->count();
        mode->comboBox()->setCurrentIndex(mode->comboBox()->findText(QString::fromLatin1(next)));
        QCOMPARE(doc->undoStack()->count(), before + 1);
        QCOMPARE(std::get<std::string>(doc->root().attribute("leak_mode")), std::string(next));
        requireEditorsMatch(inspector, doc->root());
    }
    // In decays mode alpha is settable and tau_mem follows it.
    mode->comboBox()->setCurrentIndex(mode->comboBox()->findText(QStringLiteral("decays")));
    ScalarEditor* alpha = scalarEditor(inspector, "alpha");
    QVERIFY(!alpha->derived() && alpha->isEnabled());
    QVERIFY(scalarEditor(inspector, "tau_mem")->derived());
    alpha->spinBox()->setValue(0.9);
    requireEditorsMatch(inspector, doc->root());
    QCOMPARE(static_cast<float>(scalarEditor(inspector, "tau_mem")->spinBox()->value()),
             doc->root().tensor("tau_mem")[0]);
}

void TestInspector::vectorActionsAreOneUndoStepEach()
{
    auto doc = documentOf("LIF", {{"shape", {4, 4}}});
    QVERIFY(doc->setAttributes(doc->rootId(), {{"tau_mem", Tensor(Shape{4}, {0.01F, 0.02F, 0.03F, 0.0123F})}}).ok);
    Inspector inspector;
    inspector.setDocument(doc.get());
    inspector.showNode(doc->rootId());
    ArrayEditor* tau = arrayEditor(inspector, "tau_mem");
    QVERIFY(tau != nullptr && tau->kind() == AttributeEditor::Kind::Vector);
    const Tensor before = tensorOf(*doc, "tau_mem");

    QVERIFY(tau->applyScale(2.0));
    QCOMPARE(doc->undoStack()->count(), 1);
    for (std::int64_t i = 0; i < 4; ++i) {
        QCOMPARE(tensorOf(*doc, "tau_mem")[i], before[i] * 2.0F);
    }
    QVERIFY(tau->applySetAll(0.05));
    QCOMPARE(doc->undoStack()->count(), 2);
    QVERIFY(tensorOf(*doc, "tau_mem").identical(Tensor(Shape{4}, 0.05F)));
    QVERIFY(tau->summaryText().contains(QStringLiteral("0.05")));

    // A refused action (taus must be > 0) leaves no step behind, not even an empty one.
    QVERIFY(!tau->applySetAll(-1.0));
    QCOMPARE(doc->undoStack()->count(), 2);
    QVERIFY(!doc->undoStack()->canRedo());
    QVERIFY(inspector.lastMessage().contains(QStringLiteral("tau_mem")));
    QVERIFY(tensorOf(*doc, "tau_mem").identical(Tensor(Shape{4}, 0.05F)));

    tau->seedBox()->setValue(7);
    QVERIFY(tau->applyRandomise(10.0));
    QCOMPARE(doc->undoStack()->count(), 3);
    const Tensor randomised = tensorOf(*doc, "tau_mem");
    bool moved = false;
    for (std::int64_t i = 0; i < 4; ++i) {
        QVERIFY(std::abs(randomised[i] - 0.05F) <= 0.005F + 1e-7F);
        moved = moved || randomised[i] != 0.05F;
    }
    QVERIFY(moved);
    doc->undoStack()->undo();
    QVERIFY(tau->applyRandomise(10.0));  // same seed, same values
    QVERIFY(tensorOf(*doc, "tau_mem").identical(randomised));

    // A state vector: Set all, then undo.
    ArrayEditor* vmem = arrayEditor(inspector, "vmem");
    const int count = doc->undoStack()->count();
    QVERIFY(vmem->applySetAll(0.5));
    QCOMPARE(doc->undoStack()->count(), count + 1);
    QVERIFY(tensorOf(*doc, "vmem").identical(Tensor(Shape{4}, 0.5F)));
    doc->undoStack()->undo();
    QVERIFY(tensorOf(*doc, "vmem").identical(Tensor(Shape{4}, 0.0F)));

    for (std::int64_t i = 0; i < 4; ++i) {
        doc->undoStack()->undo();
    }
    QVERIFY(tensorOf(*doc, "tau_mem").identical(before));
}

void TestInspector::matrixActionsAreOneUndoStepEach()
{
    auto doc = documentOf("DenseProjection", {{"shape", {6, 5}}});
    Inspector inspector;
    inspector.setDocument(doc.get());
    inspector.showNode(doc->rootId());
    ArrayEditor* weight = arrayEditor(inspector, "weight");
    QVERIFY(weight != nullptr && weight->kind() == AttributeEditor::Kind::Matrix);
    QVERIFY(weight->heatMap() != nullptr && !weight->heatMap()->image().isNull());
    QCOMPARE(weight->heatMap()->image().size(), QSize(5, 6));
    const Tensor before = tensorOf(*doc, "weight");

    QVERIFY(weight->applyScale(2.0));
    QCOMPARE(doc->undoStack()->count(), 1);
    for (std::int64_t i = 0; i < before.numel(); ++i) {
        QCOMPARE(tensorOf(*doc, "weight")[i], before[i] * 2.0F);
    }
    QVERIFY(weight->applySetAll(-0.25));
    QCOMPARE(doc->undoStack()->count(), 2);
    QVERIFY(tensorOf(*doc, "weight").identical(Tensor(Shape{6, 5}, -0.25F)));
    QVERIFY(weight->summaryText().contains(QStringLiteral("-0.25")));

    doc->undoStack()->undo();
    doc->undoStack()->undo();
    QVERIFY(tensorOf(*doc, "weight").identical(before));
}

void TestInspector::resetParametersAndStateAreOneUndoStepEach()
{
    auto doc = documentOf("LIF", {{"shape", {4, 4}}});
    Inspector inspector;
    inspector.setDocument(doc.get());
    inspector.showNode(doc->rootId());
    const Json defaults = doc->toJson();
    scalarEditor(inspector, "tau_mem")->spinBox()->setValue(0.03);
    scalarEditor(inspector, "threshold")->spinBox()->setValue(2.0);
    auto* mode = qobject_cast<EnumEditor*>(inspector.editorFor(QStringLiteral("leak_mode")));
    mode->comboBox()->setCurrentIndex(mode->comboBox()->findText(QStringLiteral("decays")));
    scalarEditor(inspector, "alpha")->spinBox()->setValue(0.9);
    QVERIFY(arrayEditor(inspector, "vmem")->applySetAll(0.25));
    const Json edited = doc->toJson();
    const int count = doc->undoStack()->count();

    QVERIFY(inspector.resetParameters());
    QCOMPARE(doc->undoStack()->count(), count + 1);
    QCOMPARE(doc->root().tensor("tau_mem")[0], 0.02F);
    QCOMPARE(doc->root().tensor("threshold")[0], 1.0F);
    QCOMPARE(std::get<std::string>(doc->root().attribute("leak_mode")), std::string("taus"));
    QVERIFY(doc->root().tensor("vmem").identical(Tensor(Shape{4}, 0.25F)));  // states untouched
    requireEditorsMatch(inspector, doc->root());

    QVERIFY(inspector.resetState());
    QCOMPARE(doc->undoStack()->count(), count + 2);
    QCOMPARE(doc->toJson(), defaults);

    doc->undoStack()->undo();
    doc->undoStack()->undo();
    QCOMPARE(doc->toJson(), edited);
    requireEditorsMatch(inspector, doc->root());
}

void TestInspector::integerAndBooleanEditors()
{
    auto doc = documentOf("SparseProjection", {{"shape", {4, 4}}});
    Inspector inspector;
    inspector.setDocument(doc.get());
    inspector.showNode(doc->rootId());

    ScalarEditor* autapses = scalarEditor(inspector, "autapses");
    QVERIFY(autapses != nullptr && autapses->checkBox() != nullptr && autapses->slider() == nullptr);
    QVERIFY(autapses->checkBox()->isChecked());
    autapses->checkBox()->setChecked(false);
    QVERIFY2(inspector.lastMessage().isEmpty(), qPrintable(inspector.lastMessage()));
    QCOMPARE(doc->undoStack()->count(), 1);
    QCOMPARE(tensorOf(*doc, "autapses")[0], 0.0F);

    ScalarEditor* seed = scalarEditor(inspector, "seed");
    QVERIFY(seed != nullptr && seed->spinBox() != nullptr);
    QVERIFY(seed->toolTip().contains(QStringLiteral("rebuild")));
    seed->spinBox()->setValue(2.5);  // a fraction: the engine refuses it
    QVERIFY2(inspector.lastMessage().contains(QStringLiteral("seed")), qPrintable(inspector.lastMessage()));
    QCOMPARE(tensorOf(*doc, "seed")[0], 0.0F);
    QCOMPARE(seed->spinBox()->value(), 0.0);
    seed->slider()->setValue(seed->slider()->maximum());
    QCOMPARE(doc->undoStack()->count(), 2);
    QCOMPARE(static_cast<double>(tensorOf(*doc, "seed")[0]), seed->valueAt(seed->slider()->maximum()));
    QCOMPARE(std::nearbyint(tensorOf(*doc, "seed")[0]), tensorOf(*doc, "seed")[0]);

    // The gate refusing simulation-time edits also refuses a reset that would change the seed.
    inspector.setEditGate([](NodeId, const spike::engine::AttributeSpec& spec) {
        return spec.liveEditable ? QString() : QStringLiteral("pause to change %1").arg(QString::fromStdString(spec.name));
    });
    const Json before = doc->toJson();
    QVERIFY(!inspector.resetParameters());
    QCOMPARE(doc->undoStack()->count(), 2);
    QCOMPARE(doc->toJson(), before);
    QVERIFY(inspector.lastMessage().startsWith(QStringLiteral("pause to change")));
}

void TestInspector::familyFilterHidesOtherFamilies()
{
    auto doc = documentOf("LIF", {{"shape", {4, 4}}});
    Inspector inspector;
    inspector.setDocument(doc.get());
    inspector.showNode(doc->rootId());
    const QStringList families = inspector.families();
    QVERIFY(families.contains(QStringLiteral("taus")));
    QVERIFY(families.contains(QStringLiteral("decays")));
    QVERIFY(!families.contains(QString()));

    inspector.setFamilyFilter(QStringLiteral("taus"));
    for (const auto& view : doc->root().attributes()) {
        const QString name = QString::fromStdString(view.spec->name);
        QCOMPARE(inspector.rowVisible(name), view.spec->family == "taus");
    }
    inspector.setFamilyFilter(QString());
    for (const QString& name : inspector.rowNames()) {
        QVERIFY(inspector.rowVisible(name));
    }
}

void TestInspector::undoUpdatesEditorsWithoutPushing()
{
    auto doc = documentOf("LIF", {{"shape", {4, 4}}});
    Inspector inspector;
    inspector.setDocument(doc.get());
    inspector.showNode(doc->rootId());
    QSignalSpy edited(&inspector, &Inspector::edited);
    QVERIFY(pushCommand(*doc, std::make_unique<SetAttributeCommand>(*doc, doc->rootId(), "tau_mem",
                                                                    Tensor::scalar(0.05F)))
                .ok);
    ScalarEditor* tau = scalarEditor(inspector, "tau_mem");
    QCOMPARE(static_cast<float>(tau->spinBox()->value()), 0.05F);
    QCOMPARE(doc->undoStack()->count(), 1);

    doc->undoStack()->undo();
    QCOMPARE(static_cast<float>(tau->spinBox()->value()), 0.02F);
    QCOMPARE(doc->undoStack()->count(), 1);
    QVERIFY(doc->undoStack()->canRedo());
    doc->undoStack()->redo();
    QCOMPARE(static_cast<float>(tau->spinBox()->value()), 0.05F);
    QCOMPARE(doc->undoStack()->count(), 1);
    QCOMPARE(edited.count(), 0);
}

void TestInspector::removingTheNodeClearsTheInspector()
{
    GraphDocument doc;
    auto add = std::make_unique<AddNodeCommand>(doc, doc.rootId(), "LIF", Json{{"shape", {3, 3}}}, "lif");
    AddNodeCommand* adding = add.get();
    QVERIFY(pushCommand(doc, std::move(add)).ok);
    const NodeId lif = adding->node();
    Inspector inspector;
    inspector.setDocument(&doc);
    inspector.showNode(lif);
    QCOMPARE(inspector.node(), lif);
    QVERIFY(inspector.editorFor(QStringLiteral("tau_mem")) != nullptr);

    QVERIFY(pushCommand(doc, std::make_unique<DeleteNodesCommand>(doc, std::vector<NodeId>{lif})).ok);
    QVERIFY(!inspector.node().valid());
    QVERIFY(inspector.editorFor(QStringLiteral("tau_mem")) == nullptr);
    QVERIFY(inspector.rowNames().isEmpty());

    inspector.showNode(NodeId{999999});
    QVERIFY(!inspector.node().valid());

    inspector.showNode(doc.rootId());
    QVERIFY(inspector.node().valid());
    doc.reset(spike::engine::createModule("LIF", Json{{"shape", {2, 2}}}));
    QVERIFY(!inspector.node().valid());
    QVERIFY(inspector.rowNames().isEmpty());
}

void TestInspector::largeModulesBuildNoPerElementWidgets()
{
    auto cuba = documentOf("CUBALIF", {{"shape", {3200}}});
    QVERIFY(cuba->setAttributes(cuba->rootId(), {{"tau_mem", Tensor(Shape{3200}, 0.02F)}}).ok);
    Inspector inspector;
    inspector.setDocument(cuba.get());
    inspector.showNode(cuba->rootId());
    QVERIFY(arrayEditor(inspector, "tau_mem") != nullptr);
    QVERIFY(inspector.findChildren<QWidget*>().size() < 400);
    QVERIFY(inspector.findChildren<QTableWidget*>().isEmpty());

    auto dense = documentOf("DenseProjection", {{"shape", {3200, 800}}});
    inspector.setDocument(dense.get());
    inspector.showNode(dense->rootId());
    ArrayEditor* weight = arrayEditor(inspector, "weight");
    QVERIFY(weight != nullptr);
    QCOMPARE(weight->heatMap()->image().size(), QSize(160, 160));
    weight->setExpanded(true);
    QVERIFY(weight->table() == nullptr);  // 2.56 million values: no table
    QVERIFY(inspector.findChildren<QWidget*>().size() < 400);
    QVERIFY(weight->applyScale(2.0));
    QCOMPARE(dense->undoStack()->count(), 1);
}

void TestInspector::statisticsFollowEditsBelowTheModule()
{
    GraphDocument doc;
    doc.load(std::string(SPIKE_TEST_DATA_DIR) + "/../../resources/examples/dynamics_network.json");
    const auto& net = dynamic_cast<const spike::engine::DynamicsNetwork&>(doc.root());
    Inspector inspector;
    inspector.setDocument(&doc);
    inspector.showNode(doc.rootId());
    QCOMPARE(inspector.statisticNames(), (QStringList{"dynamic_mean", "reward_mean"}));
    // The text has six significant digits.
    const auto shows = [&inspector](const char* name, double want) {
        bool ok = false;
        const double shown = inspector.statisticText(QString::fromLatin1(name)).toDouble(&ok);
        return ok && std::abs(shown - want) <= 1e-5 * std::abs(want);
    };
    const double before = net.getDynamicMean();
    QVERIFY(shows("dynamic_mean", before));
    QVERIFY(shows("reward_mean", net.getRewardMean()));

    // Tripling a res block's conv weight moves dynamic_mean at once; undo brings it back.
    const NodeId conv = doc.findNode("resblocks.0.conv1.0");
    Tensor weight = doc.module(conv)->tensor("weight");
    for (std::int64_t i = 0; i < weight.numel(); ++i) {
        weight[i] *= 3.0F;
    }
    QVERIFY(pushCommand(doc, std::make_unique<SetAttributeCommand>(doc, conv, "weight", weight)).ok);
    QVERIFY(net.getDynamicMean() > 1.2 * before);
    QVERIFY(shows("dynamic_mean", net.getDynamicMean()));
    QVERIFY(shows("reward_mean", net.getRewardMean()));
    doc.undoStack()->undo();
    QCOMPARE(net.getDynamicMean(), before);
    QVERIFY(shows("dynamic_mean", before));

    // Modules without statistics show none.
    inspector.showNode(conv);
    QVERIFY(inspector.statisticNames().isEmpty());
    QVERIFY(inspector.statisticText(QStringLiteral("dynamic_mean")).isEmpty());
}

QTEST_MAIN(TestInspector)
#include "test_inspector.moc"
