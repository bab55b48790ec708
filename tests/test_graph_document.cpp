// GraphDocument and its undo commands: ids, roles and fine-grained signals; every command's
// redo → undo → redo equality; refused edits; attribute-edit merging; group/ungroup simulating
// bit-identically; copy/paste; and 1000 random edits undone back to the saved JSON byte for byte.
#include "tests/graph_test_models.hpp"
#include "engine/runtime/backend.hpp"
#include "engine/network/network.hpp"
#include "tests/layer_test_helpers.hpp"
#include "ui/document/graph_commands.hpp"
#include "ui/document/graph_document.hpp"

#include <QSignalSpy>
#include <QtTest/QtTest>

#include <random>

using namespace spike::ui;
using spike::engine::AttributeValue;
using spike::engine::Tensor;
using Json = nlohmann::json;

namespace {

std::string dump(const GraphDocument& doc)
{
    return doc.toJson().dump();
}

/// Pushes and requires success.
void push(GraphDocument& doc, std::unique_ptr<GraphCommand> command)
{
    spike::tests::pushOk(doc, std::move(command));
}

/// The shared sample network (graph_test_models.hpp) with weights and rates that make it spike,
/// and stored positions for E and I only.
Json sampleModel()
{
    Json doc = spike::tests::sampleGraphModel();
    Json& children = doc["model"]["children"];
    children[0]["attributes"] = {{"rate", 400.0}, {"seed", 7}};
    children[3]["attributes"] = {{"amplitude", 0.3}};
    children[4]["attributes"] = {{"threshold", 0.2}};
    Json& conns = doc["model"]["connections"];
    conns[0]["projection"]["attributes"] = {{"weight", 30.0}};
    conns[1]["projection"]["attributes"] = {{"weight", {{"shape", {4, 3}}, {"data", {5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}}}}};
    conns[2]["projection"]["attributes"] = {{"weight", {{"shape", {3, 4}}, {"data", {4, 3, 4, 2, 4, 4, 3, 4, 1, 4, 4, 2}}}}};
    conns[3]["projection"]["attributes"] = {{"weight", 0.8}};
    doc["layout"] = {{"E", {10.0, 20.0}}, {"I", {50.0, 20.0}}};
    return doc;
}

/// Spikes of every spiking leaf (by name, whatever the nesting) over `steps` steps.
std::map<std::string, std::vector<float>> simulate(const Json& doc, std::int64_t steps)
{
    auto model = spike::engine::modelFromJson(doc, "test", ".").root;
    std::vector<spike::engine::ProbeRequest> probes;
    std::vector<std::string> names;
    for (const auto& [path, m] : model->namedModules()) {
        const auto recordable = m->recordableSignals();
        if (m->childCount() == 0 && std::find(recordable.begin(), recordable.end(), "spikes") != recordable.end()) {
            probes.push_back({path, "spikes", {}});
            names.push_back(path.substr(path.rfind('.') == std::string::npos ? 0 : path.rfind('.') + 1));
        }
    }
    spike::engine::ExecutorOptions options;
    options.maxChunkSteps = 16;
    auto ex = spike::engine::makeCpuExecutor(*model, options);
    const auto infos = ex->setProbes(probes);
    std::map<std::string, std::vector<float>> out;
    std::vector<float> output(static_cast<std::size_t>(steps * model->sizeOut()));
    for (std::int64_t t0 = 0; t0 < steps; t0 += 16) {
        ex->advance(16, nullptr, output.data() + t0 * model->sizeOut());
        for (std::size_t k = 0; k < probes.size(); ++k) {
            const float* d = ex->probeData(k);
            out[names[k]].insert(out[names[k]].end(), d, d + 16 * infos[k].width);
        }
    }
    out["<output>"] = output;
    return out;
}

std::size_t spikeCount(const std::map<std::string, std::vector<float>>& run)
{
    std::size_t n = 0;
    for (const auto& [name, v] : run) {
        n += static_cast<std::size_t>(std::count_if(v.begin(), v.end(), [](float x) { return x != 0.0F; }));
    }
    return n;
}

}  // namespace

class TestGraphDocument : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void idsRolesAndSignals()
    {
        GraphDocument doc;
        const NodeId root = doc.rootId();
        QVERIFY(root.valid());
        QCOMPARE(doc.nodeData(root, NodeRole::Type).toString(), QString("Network"));
        QSignalSpy added(&doc, &GraphDocument::nodeAdded);
        QSignalSpy inserted(&doc, &GraphDocument::subtreeInserted);
        QSignalSpy reset(&doc, &GraphDocument::documentReset);
        auto add = std::make_unique<AddNodeCommand>(doc, root, "CUBALIF", Json{{"shape", {3}}},
                                                    "", QPointF(1, 2));
        AddNodeCommand* addPtr = add.get();
        push(doc, std::move(add));
        const NodeId n = addPtr->node();
        QCOMPARE(added.count(), 1);
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(reset.count(), 0);
        QCOMPARE(added.at(0).at(0).value<NodeId>(), n);
        QCOMPARE(doc.findNode("cubalif"), n);
        QCOMPARE(doc.nodeData(n, NodeRole::Name).toString(), QString("cubalif"));
        QCOMPARE(doc.nodeData(n, NodeRole::Position).toPointF(), QPointF(1, 2));
        const QVariantList inPorts = doc.nodeData(n, NodeRole::InputPorts).toList();
        QCOMPARE(inPorts.size(), 2);
        QCOMPARE(inPorts[1].toMap()["name"].toString(), QString("inh"));
        QCOMPARE(inPorts[1].toMap()["offset"].toLongLong(), 3);
        QVERIFY(doc.nodeData(n, NodeRole::OutputPorts).toList()[0].toMap()["spiking"].toBool());
        QVERIFY(!doc.nodeData(n, NodeRole::Container).toBool());
        QVERIFY(doc.nodeData(root, NodeRole::Container).toBool());

        QSignalSpy moved(&doc, &GraphDocument::nodeMoved);
        push(doc, std::make_unique<MoveNodesCommand>(doc, std::vector<std::pair<NodeId, QPointF>>{{n, {5, 6}}}));
        QCOMPARE(moved.count(), 1);
        QCOMPARE(*doc.position(n), QPointF(5, 6));

        push(doc, std::make_unique<AddNodeCommand>(doc, root, "CUBALIF", Json{{"shape", {3}}}));
        const NodeId m = doc.findNode("cubalif_2");
        QVERIFY(m.valid());
        QSignalSpy connected(&doc, &GraphDocument::connectionAdded);
        auto connect = std::make_unique<ConnectCommand>(doc, root, "cubalif.spikes", "cubalif_2.exc",
                                                        "DenseProjection", Json{{"shape", {3, 3}}});
        ConnectCommand* connectPtr = connect.get();
        push(doc, std::move(connect));
        QCOMPARE(connected.count(), 1);
        const auto info = doc.connection(connectPtr->connection());
        QVERIFY(info.has_value());
        QCOMPARE(info->name, std::string("cubalif_to_cubalif_2"));
        QVERIFY(info->projection.valid());
        QVERIFY(doc.nodeData(info->projection, NodeRole::IsProjection).toBool());

        QSignalSpy renamed(&doc, &GraphDocument::nodeRenamed);
        push(doc, std::make_unique<RenameCommand>(doc, n, "exc"));
        QCOMPARE(renamed.count(), 1);
        QCOMPARE(doc.path(n), std::string("exc"));
        QCOMPARE(doc.connection(connectPtr->connection())->from.node, std::string("exc"));

        QSignalSpy changed(&doc, &GraphDocument::attributeChanged);
        push(doc, std::make_unique<SetAttributeCommand>(doc, m, "v_th", Tensor::scalar(-45.0F)));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.at(0).at(1).toString(), QString("v_th"));

        // Ids survive delete + undo; a deleted node is no longer resolvable.
        QSignalSpy removed(&doc, &GraphDocument::nodeRemoved);
        QSignalSpy unwired(&doc, &GraphDocument::connectionRemoved);
        push(doc, std::make_unique<DeleteNodesCommand>(doc, std::vector<NodeId>{n}));
        QCOMPARE(removed.count(), 1);
        QCOMPARE(unwired.count(), 1);
        QVERIFY(!doc.contains(n));
        doc.undoStack()->undo();
        QVERIFY(doc.contains(n));
        QCOMPARE(doc.path(n), std::string("exc"));
        QCOMPARE(doc.connection(connectPtr->connection())->to.node, std::string("cubalif_2"));
        QCOMPARE(reset.count(), 0);
    }

    void everyCommandRedoUndoRedo()
    {
        GraphDocument doc;
        doc.fromJson(sampleModel());
        const NodeId root = doc.rootId();
        const NodeId e = doc.findNode("E");
        const NodeId l = doc.findNode("L");
        const NodeId i = doc.findNode("I");
        const Json fragment = copyFragment(doc, {e, i});
        std::vector<std::function<std::unique_ptr<GraphCommand>()>> makers{
            [&] { return std::make_unique<AddNodeCommand>(doc, root, "LIF", Json{{"shape", {2, 2}}}, "x", QPointF(3, 4)); },
            [&] { return std::make_unique<DeleteNodesCommand>(doc, std::vector<NodeId>{e, l}); },
            [&] { return std::make_unique<MoveNodesCommand>(doc, std::vector<std::pair<NodeId, QPointF>>{{e, {1, 1}}, {l, {2, 2}}}); },
            [&] { return std::make_unique<ConnectCommand>(doc, root, "L.spikes", "E.exc", "DenseProjection", Json{{"shape", {4, 4}}}); },
            [&] { return std::make_unique<DisconnectCommand>(doc, std::vector<ConnectionId>{doc.findConnection(root, "E_to_I"), doc.findConnection(root, "bias_to_L")}); },
            [&] { return std::make_unique<RenameCommand>(doc, e, "Exc"); },
            [&] { return std::make_unique<RenameCommand>(doc, doc.findConnection(root, "I_to_E"), "back"); },
            [&] { return std::make_unique<SetAttributeCommand>(doc, doc.findNode("drive_to_E"), "weight", Tensor::scalar(2.5F)); },
            [&] { return std::make_unique<GroupCommand>(doc, std::vector<NodeId>{e, i}, "pop"); },
            [&] { return std::make_unique<PasteCommand>(doc, root, fragment, QPointF(100, 0)); },
        };
        for (std::size_t k = 0; k < makers.size(); ++k) {
            const std::string before = dump(doc);
            push(doc, makers[k]());
            const std::string after = dump(doc);
            QVERIFY2(after != before, std::to_string(k).c_str());
            doc.undoStack()->undo();
            QVERIFY2(dump(doc) == before, std::to_string(k).c_str());
            doc.undoStack()->redo();
            QVERIFY2(dump(doc) == after, std::to_string(k).c_str());
            doc.undoStack()->undo();
        }
        // Ungroup (of a group made by Group) redo → undo → redo.
        auto group = std::make_unique<GroupCommand>(doc, std::vector<NodeId>{e, i}, "pop");
        GroupCommand* g = group.get();
        push(doc, std::move(group));
        const std::string grouped = dump(doc);
        push(doc, std::make_unique<UngroupCommand>(doc, g->group()));
        const std::string ungrouped = dump(doc);
        doc.undoStack()->undo();
        QCOMPARE(dump(doc), grouped);
        doc.undoStack()->redo();
        QCOMPARE(dump(doc), ungrouped);
    }

    void refusedEditsPushNothing()
    {
        GraphDocument doc;
        doc.fromJson(sampleModel());
        const std::string before = dump(doc);
        QSignalSpy any(&doc, &GraphDocument::connectionAdded);
        const auto s = pushCommand(doc, std::make_unique<ConnectCommand>(doc, doc.rootId(), "I.spikes", "L.in"));
        QVERIFY(!s.ok);
        QVERIFY2(s.message.find("'I.spikes' (size 3) to 'L.in' (size 4) directly: sizes differ") != std::string::npos,
                 s.message.c_str());
        const auto bad = pushCommand(doc, std::make_unique<ConnectCommand>(doc, doc.rootId(), "E.spikes", "L.in",
                                                                          "DenseProjection", Json{{"shape", {3, 4}}}));
        QVERIFY(bad.message.find("expected shape (4, 4)") != std::string::npos);
        const auto port = pushCommand(doc, std::make_unique<ConnectCommand>(doc, doc.rootId(), "E.nope", "L.in"));
        QVERIFY(port.message.find("has no output port 'nope'") != std::string::npos);
        const auto value = pushCommand(doc, std::make_unique<SetAttributeCommand>(doc, doc.findNode("L"), "threshold", Tensor::scalar(std::nanf(""))));
        QVERIFY(!value.ok);
        const auto name = pushCommand(doc, std::make_unique<RenameCommand>(doc, doc.findNode("L"), "E"));
        QVERIFY(name.message.find("'E' is taken") != std::string::npos);
        QCOMPARE(any.count(), 0);
        QCOMPARE(doc.undoStack()->count(), 0);
        QCOMPARE(dump(doc), before);
    }

    void attributeEditsMerge()
    {
        GraphDocument doc;
        doc.fromJson(sampleModel());
        const std::string before = dump(doc);
        const NodeId l = doc.findNode("L");
        for (float v : {0.3F, 0.4F, 0.5F}) {
            push(doc, std::make_unique<SetAttributeCommand>(doc, l, "threshold", Tensor::scalar(v)));
        }
        QCOMPARE(doc.undoStack()->count(), 1);
        push(doc, std::make_unique<SetAttributeCommand>(doc, l, "tau_mem", Tensor::scalar(0.05F)));
        QCOMPARE(doc.undoStack()->count(), 2);
        QCOMPARE(std::get<Tensor>(doc.module(l)->attribute("threshold"))[0], 0.5F);
        doc.undoStack()->undo();
        doc.undoStack()->undo();
        QCOMPARE(dump(doc), before);
    }

    void groupSimulatesIdentically()
    {
        GraphDocument doc;
        doc.fromJson(sampleModel());
        const auto reference = simulate(doc.toJson(), 320);
        QVERIFY(spikeCount(reference) > 20);
        const std::string before = dump(doc);
        // Every selection groups: one boundary port per source a cut wire reads (E and I as a
        // group: E feeds I and L; {I, L}: E and bias reach L and I, L reaches the output, ...).
        const std::vector<std::vector<std::string>> selections{
            {"E", "I"}, {"L"}, {"I"}, {"E", "I", "L", "bias"}, {"drive", "E"}, {"I", "L"}, {"E", "L"}, {"bias", "E", "I"}};
        for (const auto& selection : selections) {
            std::vector<NodeId> ids;
            for (const auto& n : selection) {
                ids.push_back(doc.findNode(n));
            }
            auto group = std::make_unique<GroupCommand>(doc, ids, "g");
            GroupCommand* g = group.get();
            push(doc, std::move(group));
            QVERIFY(doc.network(g->group()) != nullptr);
            QVERIFY2(simulate(doc.toJson(), 320) == reference, selection.front().c_str());
            // Grouping again inside the group nests the same way.
            if (selection.size() >= 2) {
                auto nested = std::make_unique<GroupCommand>(doc, std::vector<NodeId>{doc.graphNodes(g->group()).front()}, "h");
                push(doc, std::move(nested));
                QVERIFY2(simulate(doc.toJson(), 320) == reference, selection.front().c_str());
                doc.undoStack()->undo();
            }
            push(doc, std::make_unique<UngroupCommand>(doc, g->group()));
            QVERIFY(simulate(doc.toJson(), 320) == reference);
            doc.undoStack()->undo();
            doc.undoStack()->undo();
            QCOMPARE(dump(doc), before);
        }
        // {I, L} gets input ports for E.spikes (feeding I and L) and bias, output ports for I
        // and L: E -> group -> E stays a delayed cycle.
        auto il = std::make_unique<GroupCommand>(doc, std::vector<NodeId>{doc.findNode("I"), doc.findNode("L")}, "g");
        GroupCommand* g = il.get();
        push(doc, std::move(il));
        const auto* group = doc.network(g->group());
        QCOMPARE(group->boundaryInputs(), (std::vector<spike::engine::BoundaryPort>{{"E", 4}, {"bias", 4}}));
        QCOMPARE(group->boundaryOutputs(), (std::vector<spike::engine::BoundaryPort>{{"I", 3}, {"L", 4}}));
        QVERIFY(doc.network(doc.rootId())->findConnection("g_to_E") == nullptr);
        QCOMPARE(doc.network(doc.rootId())->findConnection("I_to_E")->from.toString(), std::string("g.I"));
        QVERIFY(doc.network(doc.rootId())->findConnection("I_to_E")->delayed);
        doc.undoStack()->undo();
        QCOMPARE(dump(doc), before);
        // {drive, I}: drive -> E and E -> I would make an undelayed cycle group -> E -> group in
        // the parent (the network cannot see that drive and I are independent): refused with the
        // engine's reason, nothing changed.
        const auto refused = pushCommand(doc, std::make_unique<GroupCommand>(doc, std::vector<NodeId>{doc.findNode("drive"), doc.findNode("I")}));
        QVERIFY(!refused.ok);
        QVERIFY2(refused.message.find("cannot group: ") == 0 && refused.message.find("cycle") != std::string::npos,
                 refused.message.c_str());
        QCOMPARE(dump(doc), before);
    }

    void copyPaste()
    {
        GraphDocument doc;
        doc.fromJson(sampleModel());
        const Json fragment = copyFragment(doc, {doc.findNode("E"), doc.findNode("I")});
        QCOMPARE(fragment["nodes"].size(), std::size_t{2});
        QCOMPARE(fragment["connections"].size(), std::size_t{2});  // E_to_I, I_to_E only
        auto paste = std::make_unique<PasteCommand>(doc, doc.rootId(), fragment, QPointF(100, 0));
        PasteCommand* p = paste.get();
        push(doc, std::move(paste));
        QCOMPARE(p->nodes().size(), std::size_t{2});
        QCOMPARE(doc.path(p->nodes()[0]), std::string("E_2"));
        QCOMPARE(*doc.position(p->nodes()[0]), QPointF(110, 20));
        const auto* net = doc.network(doc.rootId());
        const auto* c = net->findConnection("I_to_E_2");
        QVERIFY(c != nullptr);
        QCOMPARE(c->from.toString(), std::string("I_2.spikes"));
        QVERIFY(c->delayed);
        // The copy behaves like the original: same weights, same spikes per population.
        QVERIFY(std::get<Tensor>(net->projection("E_to_I_2")->attribute("weight"))
                    .identical(std::get<Tensor>(net->projection("E_to_I")->attribute("weight"))));
        // Into another document.
        GraphDocument other;
        push(other, std::make_unique<PasteCommand>(other, other.rootId(), fragment));
        QCOMPARE(other.network(other.rootId())->nodes().size(), std::size_t{2});
        QCOMPARE(other.network(other.rootId())->connections().size(), std::size_t{2});
        QVERIFY(!pushCommand(other, std::make_unique<PasteCommand>(other, other.rootId(), Json{{"nodes", 1}})).ok);
    }

    void randomEditsUndoToSavedJson()
    {
        GraphDocument doc;
        doc.fromJson(sampleModel());
        const std::string initial = dump(doc);
        std::mt19937 rng(1234);
        auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
        std::map<std::string, int> done;
        int attempts = 0;
        int pushed = 0;
        while (pushed < 1000 && attempts < 20000) {
            ++attempts;
            // A random network of the document.
            std::vector<NodeId> nets;
            for (const auto& [path, m] : doc.root().namedModules()) {
                if (dynamic_cast<const spike::engine::Network*>(m) != nullptr) {
                    nets.push_back(doc.findNode(path));
                }
            }
            const NodeId net = nets[pick(nets.size())];
            const auto nodes = doc.graphNodes(net);
            const auto conns = doc.connections(net);
            std::unique_ptr<GraphCommand> cmd;
            std::string kind;
            auto someNodes = [&] {
                std::vector<NodeId> out;
                for (const NodeId n : nodes) {
                    if (pick(3) == 0) {
                        out.push_back(n);
                    }
                }
                return out;
            };
            switch (pick(10)) {
            case 0: {
                kind = "add";
                static const char* types[] = {"LIF", "CUBALIF", "PoissonSource", "ConstantCurrent"};
                const std::string t = types[pick(4)];
                const Json config = t == "LIF" ? Json{{"shape", {3, 3}}} : Json{{"shape", {3}}};
                cmd = std::make_unique<AddNodeCommand>(doc, net, t, config, "", QPointF(double(pick(100)), 0));
                break;
            }
            case 1:
                kind = "delete";
                if (!nodes.empty() && pick(3) == 0) {
                    cmd = std::make_unique<DeleteNodesCommand>(doc, std::vector<NodeId>{nodes[pick(nodes.size())]});
                }
                break;
            case 2:
                kind = "move";
                if (!nodes.empty()) {
                    cmd = std::make_unique<MoveNodesCommand>(doc, std::vector<std::pair<NodeId, QPointF>>{{nodes[pick(nodes.size())], QPointF(double(pick(500)), double(pick(500)))}});
                }
                break;
            case 3: {
                kind = "connect";
                if (nodes.empty()) {
                    break;
                }
                const NodeId a = nodes[pick(nodes.size())];
                const NodeId b = nodes[pick(nodes.size())];
                const auto outs = doc.nodeData(a, NodeRole::OutputPorts).toList();
                const auto ins = doc.nodeData(b, NodeRole::InputPorts).toList();
                if (outs.isEmpty() || ins.isEmpty()) {
                    break;
                }
                const auto op = outs[int(pick(std::size_t(outs.size())))].toMap();
                const auto ip = ins[int(pick(std::size_t(ins.size())))].toMap();
                const std::string from = doc.module(a)->name() + "." + op["name"].toString().toStdString();
                const std::string to = doc.module(b)->name() + "." + ip["name"].toString().toStdString();
                const auto ns = op["size"].toLongLong();
                const auto nt = ip["size"].toLongLong();
                const std::size_t how = pick(3);
                cmd = how == 0 ? std::make_unique<ConnectCommand>(doc, net, from, to)
                      : how == 1 ? std::make_unique<ConnectCommand>(doc, net, from, to, "DenseProjection", Json{{"shape", {ns, nt}}})
                                 : std::make_unique<ConnectCommand>(doc, net, from, to, "SparseProjection", Json{{"shape", {ns, nt}}});
                break;
            }
            case 4:
                kind = "disconnect";
                if (!conns.empty()) {
                    cmd = std::make_unique<DisconnectCommand>(doc, std::vector<ConnectionId>{conns[pick(conns.size())]});
                }
                break;
            case 5:
                kind = "rename";
                if (!nodes.empty() && pick(2) == 0) {
                    cmd = std::make_unique<RenameCommand>(doc, nodes[pick(nodes.size())], "n" + std::to_string(pick(30)));
                } else if (!conns.empty()) {
                    cmd = std::make_unique<RenameCommand>(doc, conns[pick(conns.size())], "w" + std::to_string(pick(30)));
                }
                break;
            case 6: {
                kind = "attribute";
                const auto all = doc.root().namedModules();
                const auto* m = all[pick(all.size())].second;
                std::vector<std::string> names;
                for (const auto& v : m->attributes()) {
                    if (!v.derived && v.spec->kind == spike::engine::AttributeKind::Parameter &&
                        v.spec->type == spike::engine::ValueType::Real) {
                        names.push_back(v.spec->name);
                    }
                }
                if (!names.empty()) {
                    cmd = std::make_unique<SetAttributeCommand>(doc, doc.nodeId(*m), names[pick(names.size())],
                                                                Tensor::scalar(float(pick(100)) / 50.0F - 0.5F));
                }
                break;
            }
            case 7:
                kind = "group";
                if (auto sel = someNodes(); !sel.empty()) {
                    cmd = std::make_unique<GroupCommand>(doc, sel, "g");
                }
                break;
            case 8:
                kind = "ungroup";
                for (const NodeId n : nodes) {
                    if (doc.network(n) != nullptr && pick(2) == 0) {
                        cmd = std::make_unique<UngroupCommand>(doc, n);
                        break;
                    }
                }
                break;
            case 9:
                kind = "paste";
                if (auto sel = someNodes(); !sel.empty() && nodes.size() < 12) {
                    cmd = std::make_unique<PasteCommand>(doc, nets[pick(nets.size())], copyFragment(doc, sel), QPointF(5, 5));
                }
                break;
            }
            if (!cmd) {
                continue;
            }
            if (pushCommand(doc, std::move(cmd)).ok) {
                ++pushed;
                ++done[kind];
            }
        }
        QCOMPARE(pushed, 1000);
        for (const auto& [kind, n] : done) {
            qInfo("%s: %d", kind.c_str(), n);
        }
        for (const char* kind : {"add", "delete", "move", "connect", "disconnect", "rename", "attribute", "group", "ungroup", "paste"}) {
            QVERIFY2(done[kind] > 5, kind);
        }
        const std::string final = dump(doc);
        QVERIFY(final != initial);
        // Merged attribute edits make fewer steps than edits.
        QVERIFY(doc.undoStack()->count() <= 1000);
        while (doc.undoStack()->canUndo()) {
            doc.undoStack()->undo();
        }
        QCOMPARE(dump(doc), initial);
        while (doc.undoStack()->canRedo()) {
            doc.undoStack()->redo();
        }
        QCOMPARE(dump(doc), final);
    }
};

QTEST_MAIN(TestGraphDocument)
#include "test_graph_document.moc"
