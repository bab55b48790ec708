// DocumentTree (the "Modules" dock): after a load its items are the document's namedModules()
// (paths, order, types, shapes, projections styled apart); every structural command and its
// undo/redo updates the items in place (no rebuild) and keeps the user's folding; user clicks
// and ctrl-clicks emit nodesSelected, selectNodes() selects quietly; a selected node that is
// deleted leaves the selection; double-click activates; a null or deleted document clears.
#include "tests/graph_test_models.hpp"
#include "ui/editor/document_tree.hpp"
#include "ui/document/graph_commands.hpp"
#include "ui/document/graph_document.hpp"

#include <QHeaderView>
#include <QSignalSpy>
#include <QtTest/QtTest>

#include <memory>

using namespace spike::ui;
using Json = nlohmann::json;

namespace {

/// drive → E ⇄ I, E → L, bias → L, L → out (as in test_graph_document), plus a nested Network
/// "sub" (in → a → b → out, a → b through a projection) fed by E through a projection, and a
/// Sequential "seq" (LIF 4→4, LIF 4→2) fed by sub directly.
Json nestedModel()
{
    auto lif = [](const char* name, Json shape) {
        return Json{{"name", name}, {"type", "LIF"}, {"config", {{"shape", shape}, {"has_rec", false}}}};
    };
    const Json oneToOne{{"type", "OneToOneProjection"}, {"config", {{"shape", {4}}}}};
    Json sub{{"name", "sub"},
             {"type", "Network"},
             {"config", {{"input_size", 4}, {"output_size", 4}}},
             {"children", {lif("a", {4, 4}), lif("b", {4, 4})}},
             {"connections",
              {{{"name", "in_to_a"}, {"from", "in"}, {"to", "a.in"}},
               {{"name", "a_to_b"}, {"from", "a.spikes"}, {"to", "b.in"}, {"projection", oneToOne}},
               {{"name", "b_to_out"}, {"from", "b.spikes"}, {"to", "out"}}}}};
    Json seq{{"name", "seq"}, {"type", "Sequential"}, {"children", {lif("0", {4, 4}), lif("1", {4, 2})}}};
    Json doc = spike::tests::sampleGraphModel();
    doc.erase("layout");
    Json& model = doc["model"];
    model["children"].push_back(sub);
    model["children"].push_back(seq);
    model["connections"].push_back({{"name", "E_to_sub"}, {"from", "E.spikes"}, {"to", "sub"},
                                    {"projection", {{"type", "DenseProjection"}, {"config", {{"shape", {4, 4}}}}}}});
    model["connections"].push_back({{"name", "sub_to_seq"}, {"from", "sub"}, {"to", "seq"}});
    return doc;
}

/// The nested model in a shown tree.
struct ShownTree {
    GraphDocument doc;
    DocumentTree tree;
    ShownTree()
    {
        doc.fromJson(nestedModel());
        tree.setDocument(&doc);
        tree.resize(700, 900);
        tree.show();
    }
};

void push(GraphDocument& doc, std::unique_ptr<GraphCommand> command)
{
    spike::tests::pushOk(doc, std::move(command));
}

/// "(4,)" / "(4, 2)", written independently of the widget.
QString expectedShape(const spike::engine::Module& m)
{
    QString out = "(";
    for (std::size_t k = 0; k < m.shape().size(); ++k) {
        out += (k > 0 ? ", " : "") + QString::number(m.shape()[k]);
    }
    return out + (m.shape().size() == 1 ? ",)" : ")");
}

/// Empty when the tree's items, in tree order, are the document's namedModules() with the
/// right ids, parents, names, tooltips, types, shapes and projection style; else the first
/// difference.
QString mismatch(const DocumentTree& tree, const GraphDocument& doc)
{
    std::vector<QTreeWidgetItem*> items;
    for (QTreeWidgetItemIterator it(const_cast<DocumentTree*>(&tree)); *it != nullptr; ++it) {
        items.push_back(*it);
    }
    const auto modules = doc.root().namedModules();
    if (items.size() != modules.size()) {
        return QString("%1 items for %2 modules").arg(items.size()).arg(modules.size());
    }
    for (std::size_t k = 0; k < items.size(); ++k) {
        const auto& [path, m] = modules[k];
        const QString where = QString("item %1 ('%2'): ").arg(k).arg(QString::fromStdString(path));
        QTreeWidgetItem* item = items[k];
        const NodeId id = tree.idOf(item);
        if (id != doc.nodeId(*m) || tree.itemFor(id) != item) {
            return where + "wrong id";
        }
        if (tree.idOf(item->parent()) != doc.parentOf(id)) {
            return where + "wrong parent";
        }
        const bool root = path.empty();
        const QString name = root ? QString("(root)") : QString::fromStdString(m->name());
        const QString tip = root ? QString::fromStdString(m->className()) : QString::fromStdString(path);
        if (item->text(DocumentTree::NameColumn) != name) {
            return where + "name " + item->text(DocumentTree::NameColumn);
        }
        if (item->toolTip(DocumentTree::NameColumn) != tip) {
            return where + "tooltip " + item->toolTip(DocumentTree::NameColumn);
        }
        if (item->text(DocumentTree::TypeColumn) != QString::fromStdString(m->className())) {
            return where + "type " + item->text(DocumentTree::TypeColumn);
        }
        if (item->text(DocumentTree::ShapeColumn) != expectedShape(*m)) {
            return where + "shape " + item->text(DocumentTree::ShapeColumn);
        }
        if (item->font(DocumentTree::NameColumn).italic() != doc.nodeData(id, NodeRole::IsProjection).toBool()) {
            return where + "projection style";
        }
    }
    return {};
}

#define VERIFY_MIRRORS(tree, doc)                                   \
    do {                                                            \
        const QString diff = mismatch(tree, doc);                   \
        QVERIFY2(diff.isEmpty(), qPrintable(diff));                 \
    } while (false)

/// Clicks (optionally with modifiers) the middle of a row's name cell.
void click(DocumentTree& tree, NodeId id, Qt::KeyboardModifiers modifiers = Qt::NoModifier)
{
    QTreeWidgetItem* item = tree.itemFor(id);
    QVERIFY(item != nullptr);
    tree.scrollToItem(item);
    const QRect rect = tree.visualItemRect(item);
    QVERIFY(rect.isValid());
    QTest::mouseClick(tree.viewport(), Qt::LeftButton, modifiers, rect.center());
}

}  // namespace

class TestDocumentTree : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void itemsAreNamedModules()
    {
        GraphDocument doc;
        doc.fromJson(nestedModel());
        DocumentTree tree;
        tree.setDocument(&doc);
        QCOMPARE(tree.rebuildCount(), 1);
        VERIFY_MIRRORS(tree, doc);
        QCOMPARE(tree.topLevelItemCount(), 1);
        QCOMPARE(tree.itemFor(doc.findNode("sub.a"))->toolTip(DocumentTree::NameColumn), QString("sub.a"));
        QCOMPARE(tree.itemFor(doc.findNode("seq.1"))->text(DocumentTree::ShapeColumn), QString("(4, 2)"));
        QVERIFY(tree.itemFor(doc.findNode("sub.a_to_b"))->font(0).italic());
        QVERIFY(!tree.itemFor(doc.findNode("sub.a"))->font(0).italic());
        QCOMPARE(tree.itemFor(doc.findNode("E"))->text(DocumentTree::SpikingColumn), QString("in, out"));
        QVERIFY(tree.itemFor(doc.findNode("sub"))->isExpanded());
        QVERIFY(tree.naturalWidth() > tree.header()->sectionSizeHint(DocumentTree::NameColumn));

        // Loading another model replaces every item (one rebuild).
        doc.fromJson(Json{{"format", "spikestudio.model"}, {"version", 1},
                          {"model", {{"type", "Sequential"}, {"children", {{{"type", "LIF"}, {"config", {{"shape", {8, 4}}}}}}}}}});
        QCOMPARE(tree.rebuildCount(), 2);
        VERIFY_MIRRORS(tree, doc);
        QCOMPARE(tree.itemFor(doc.rootId())->toolTip(DocumentTree::NameColumn), QString("Sequential"));
    }

    void editsUpdateInPlace()
    {
        GraphDocument doc;
        doc.fromJson(nestedModel());
        DocumentTree tree;
        tree.setDocument(&doc);
        const NodeId root = doc.rootId();
        const NodeId sub = doc.findNode("sub");
        const NodeId seq = doc.findNode("seq");
        const NodeId e = doc.findNode("E");
        const NodeId i = doc.findNode("I");
        // The user folds "sub"; edits elsewhere keep it folded and "seq" open.
        tree.itemFor(sub)->setExpanded(false);

        std::vector<std::pair<const char*, std::function<std::unique_ptr<GraphCommand>()>>> makers{
            {"add", [&] { return std::make_unique<AddNodeCommand>(doc, root, "LIF", Json{{"shape", {2, 2}}}, "x"); }},
            {"add nested", [&] { return std::make_unique<AddNodeCommand>(doc, sub, "CUBALIF", Json{{"shape", {4}}}, "c"); }},
            {"delete", [&] { return std::make_unique<DeleteNodesCommand>(doc, std::vector<NodeId>{e, doc.findNode("L")}); }},
            {"delete nested", [&] { return std::make_unique<DeleteNodesCommand>(doc, std::vector<NodeId>{sub}); }},
            {"rename", [&] { return std::make_unique<RenameCommand>(doc, sub, "inner"); }},
            {"rename connection", [&] { return std::make_unique<RenameCommand>(doc, doc.findConnection(root, "E_to_I"), "forward"); }},
            {"connect", [&] { return std::make_unique<ConnectCommand>(doc, root, "L.spikes", "E.exc", "DenseProjection", Json{{"shape", {4, 4}}}); }},
            {"connect nested", [&] { return std::make_unique<ConnectCommand>(doc, sub, "b.spikes", "a.in", "OneToOneProjection", Json{{"shape", {4}}}, "back"); }},
            {"disconnect", [&] { return std::make_unique<DisconnectCommand>(doc, std::vector<ConnectionId>{doc.findConnection(root, "E_to_sub")}); }},
            {"attribute", [&] { return std::make_unique<SetAttributeCommand>(doc, doc.findNode("L"), "threshold", spike::engine::Tensor::scalar(0.5F)); }},
            {"group", [&] { return std::make_unique<GroupCommand>(doc, std::vector<NodeId>{e, i}, "pop"); }},
            {"group nested", [&] { return std::make_unique<GroupCommand>(doc, std::vector<NodeId>{sub, seq}, "outer"); }},
        };
        for (const auto& [what, make] : makers) {
            push(doc, make());
            VERIFY_MIRRORS(tree, doc);
            doc.undoStack()->undo();
            VERIFY_MIRRORS(tree, doc);
            doc.undoStack()->redo();
            VERIFY_MIRRORS(tree, doc);
            doc.undoStack()->undo();
            VERIFY_MIRRORS(tree, doc);
            QVERIFY2(tree.itemFor(sub) != nullptr && !tree.itemFor(sub)->isExpanded(), what);
            QVERIFY2(tree.itemFor(seq)->isExpanded(), what);
        }

        // A rename rewrites the paths below the renamed node.
        push(doc, std::make_unique<RenameCommand>(doc, sub, "inner"));
        QCOMPARE(tree.itemFor(doc.findNode("inner.a_to_b"))->toolTip(DocumentTree::NameColumn), QString("inner.a_to_b"));
        QCOMPARE(tree.itemFor(sub)->text(DocumentTree::NameColumn), QString("inner"));
        doc.undoStack()->undo();

        // Group then ungroup (and both undone/redone): items follow, folding survives.
        auto group = std::make_unique<GroupCommand>(doc, std::vector<NodeId>{sub, seq}, "outer");
        GroupCommand* g = group.get();
        push(doc, std::move(group));
        VERIFY_MIRRORS(tree, doc);
        QCOMPARE(tree.itemFor(sub)->parent(), tree.itemFor(g->group()));
        QVERIFY(!tree.itemFor(sub)->isExpanded());
        QVERIFY(tree.itemFor(g->group())->isExpanded());
        push(doc, std::make_unique<UngroupCommand>(doc, g->group()));
        VERIFY_MIRRORS(tree, doc);
        QVERIFY(tree.itemFor(g->group()) == nullptr);
        doc.undoStack()->undo();
        VERIFY_MIRRORS(tree, doc);
        doc.undoStack()->redo();
        VERIFY_MIRRORS(tree, doc);
        doc.undoStack()->undo();
        doc.undoStack()->undo();
        VERIFY_MIRRORS(tree, doc);
        QVERIFY(!tree.itemFor(sub)->isExpanded());

        QCOMPARE(tree.rebuildCount(), 1);
    }

    void userSelectionEmits()
    {
        ShownTree shown;
        GraphDocument& doc = shown.doc;
        DocumentTree& tree = shown.tree;
        QVERIFY(QTest::qWaitForWindowExposed(&tree));
        QSignalSpy selected(&tree, &DocumentTree::nodesSelected);
        const NodeId e = doc.findNode("E");
        const NodeId a = doc.findNode("sub.a");
        const NodeId projection = doc.findNode("E_to_I");

        click(tree, a);
        QCOMPARE(selected.count(), 1);
        QCOMPARE(selected.last().at(0).value<QList<NodeId>>(), QList<NodeId>{a});
        // Ctrl-click adds; the list is in tree order, whatever the click order.
        click(tree, e, Qt::ControlModifier);
        QCOMPARE(selected.last().at(0).value<QList<NodeId>>(), (QList<NodeId>{e, a}));
        click(tree, projection, Qt::ControlModifier);
        QCOMPARE(selected.last().at(0).value<QList<NodeId>>(), (QList<NodeId>{e, a, projection}));
        QCOMPARE(tree.selectedNodes(), (QList<NodeId>{e, a, projection}));
        // Ctrl-click on a selected row takes it out; a plain click selects that row alone.
        click(tree, a, Qt::ControlModifier);
        QCOMPARE(selected.last().at(0).value<QList<NodeId>>(), (QList<NodeId>{e, projection}));
        click(tree, a);
        QCOMPARE(selected.last().at(0).value<QList<NodeId>>(), QList<NodeId>{a});
    }

    void selectNodesIsQuiet()
    {
        ShownTree shown;
        GraphDocument& doc = shown.doc;
        DocumentTree& tree = shown.tree;
        QVERIFY(QTest::qWaitForWindowExposed(&tree));
        QSignalSpy selected(&tree, &DocumentTree::nodesSelected);
        const NodeId l = doc.findNode("L");
        const NodeId b = doc.findNode("sub.b");
        tree.itemFor(doc.findNode("sub"))->setExpanded(false);

        tree.selectNodes({b, NodeId{999999}, l});
        QCOMPARE(selected.count(), 0);
        QCOMPARE(tree.selectedNodes(), (QList<NodeId>{l, b}));
        QVERIFY(tree.itemFor(doc.findNode("sub"))->isExpanded());
        QCOMPARE(tree.currentItem(), tree.itemFor(b));

        tree.selectNodes({l});
        QCOMPARE(tree.selectedNodes(), QList<NodeId>{l});
        tree.selectNodes({});
        QVERIFY(tree.selectedNodes().isEmpty());
        QCOMPARE(selected.count(), 0);

        // A later user click still reports.
        click(tree, l);
        QCOMPARE(selected.count(), 1);
    }

    void removedSelectionDisappears()
    {
        ShownTree shown;
        GraphDocument& doc = shown.doc;
        DocumentTree& tree = shown.tree;
        QVERIFY(QTest::qWaitForWindowExposed(&tree));
        QSignalSpy selected(&tree, &DocumentTree::nodesSelected);
        const NodeId l = doc.findNode("L");
        const NodeId a = doc.findNode("sub.a");
        const NodeId bias = doc.findNode("bias");

        click(tree, l);
        click(tree, bias, Qt::ControlModifier);
        QCOMPARE(selected.count(), 2);
        push(doc, std::make_unique<DeleteNodesCommand>(doc, std::vector<NodeId>{l}));
        QVERIFY(tree.itemFor(l) == nullptr);
        QCOMPARE(tree.selectedNodes(), QList<NodeId>{bias});
        QCOMPARE(selected.count(), 2);
        doc.undoStack()->undo();
        VERIFY_MIRRORS(tree, doc);
        QCOMPARE(tree.selectedNodes(), QList<NodeId>{bias});

        // A selected module deep inside a deleted subtree.
        tree.selectNodes({a});
        push(doc, std::make_unique<DeleteNodesCommand>(doc, std::vector<NodeId>{doc.findNode("sub")}));
        QVERIFY(tree.selectedNodes().isEmpty());
        QVERIFY(tree.itemFor(a) == nullptr);
        QCOMPARE(selected.count(), 2);
        click(tree, bias);
        QCOMPARE(selected.last().at(0).value<QList<NodeId>>(), QList<NodeId>{bias});
    }

    void doubleClickActivates()
    {
        ShownTree shown;
        GraphDocument& doc = shown.doc;
        DocumentTree& tree = shown.tree;
        QVERIFY(QTest::qWaitForWindowExposed(&tree));
        QSignalSpy activated(&tree, &DocumentTree::nodeActivated);
        const NodeId seq = doc.findNode("seq");
        const QRect rect = tree.visualItemRect(tree.itemFor(seq));
        // What a platform delivers for a double-click: press, release, double-click, release.
        QTest::mouseClick(tree.viewport(), Qt::LeftButton, Qt::NoModifier, rect.center());
        QTest::mouseDClick(tree.viewport(), Qt::LeftButton, Qt::NoModifier, rect.center());
        QTest::mouseRelease(tree.viewport(), Qt::LeftButton, Qt::NoModifier, rect.center());
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.at(0).at(0).value<NodeId>(), seq);
    }

    void nullOrDeletedDocumentClears()
    {
        auto doc = std::make_unique<GraphDocument>();
        doc->fromJson(nestedModel());
        DocumentTree tree;
        tree.setDocument(doc.get());
        const NodeId e = doc->findNode("E");
        tree.selectNodes({e});
        tree.setDocument(nullptr);
        QCOMPARE(tree.topLevelItemCount(), 0);
        QVERIFY(tree.itemFor(e) == nullptr);
        QVERIFY(tree.selectedNodes().isEmpty());
        QVERIFY(tree.document() == nullptr);
        // Edits of a document no longer shown reach nothing.
        push(*doc, std::make_unique<AddNodeCommand>(*doc, doc->rootId(), "LIF", Json{{"shape", {2, 2}}}, "x"));
        QCOMPARE(tree.topLevelItemCount(), 0);

        tree.setDocument(doc.get());
        VERIFY_MIRRORS(tree, *doc);
        doc.reset();
        QCOMPARE(tree.topLevelItemCount(), 0);
        QVERIFY(tree.document() == nullptr);
        QVERIFY(tree.itemFor(e) == nullptr);
    }
};

QTEST_MAIN(TestDocumentTree)
#include "test_document_tree.moc"
