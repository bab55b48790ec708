// MainWindow, the editor side: opening a model fills the canvas, the Modules tree and the
// inspector; the canvas and tree selections agree both ways; palette, clipboard (across windows),
// group and nested navigation work through the window's actions, with standard shortcuts; failed
// loads keep the document; the close prompt and the recovery offer; `spikestudio --screenshot`
// exits non-zero on failure. Running and plotting: test_main_window_run.cpp. The API never opens
// a dialog. Runs with QT_QPA_PLATFORM=offscreen.
#include "tests/main_window_test_helpers.hpp"
#include "ui/document/document_file.hpp"
#include "ui/editor/document_tree.hpp"
#include "ui/document/graph_commands.hpp"
#include "ui/editor/graph_breadcrumb.hpp"
#include "ui/editor/graph_canvas.hpp"
#include "ui/editor/graph_node_item.hpp"
#include "ui/inspector/equation_view.hpp"
#include "ui/inspector/inspector.hpp"
#include "ui/inspector/inspector_editors.hpp"
#include "ui/window/main_window.hpp"
#include "ui/plots/neuron_selection.hpp"
#include "ui/editor/palette_widget.hpp"
#include "ui/plots/plot_export.hpp"
#include "ui/plots/raster_plot.hpp"
#include "ui/plots/trace_plot.hpp"

#include "engine/core/attribute.hpp"
#include "engine/runtime/backend.hpp"
#include "engine/neurons/cuba_lif.hpp"
#include "engine/io/model_io.hpp"
#include "engine/io/module_factory.hpp"
#include "engine/network/network.hpp"

#include <QLineEdit>
#include <QMenu>
#include <QTableWidget>
#include <QDialog>
#include <QMenuBar>
#include "engine/tensor/npy.hpp"

#include <QAction>
#include <QClipboard>
#include <QFile>
#include <QDoubleSpinBox>
#include <QImage>
#include <QPlainTextEdit>
#include <QStandardItemModel>
#include <QMessageBox>
#include <QPushButton>
#include <QTimer>
#include <QProcess>
#include <QSpinBox>
#include <QUndoStack>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <algorithm>
#include <random>

using spike::engine::Module;
using spike::engine::RecordSpec;
using spike::engine::Shape;
using spike::engine::Tensor;
using spike::ui::MainWindow;
using spike::ui::NodeId;
using spike::tests::answerNextDialog;
using spike::tests::freshExample;
using spike::tests::kCuba;
using spike::tests::kExample;
using spike::tests::treeItemCount;
using spike::tests::writeFile;


class TestMainWindow : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void statusBarSaysWhatAnEditDid()
    {
        MainWindow w;
        QVERIFY(w.openModel(kExample));
        QUndoStack* undo = w.document()->undoStack();
        const spike::ui::NodeId layer = w.document()->findNode("0");
        QVERIFY(spike::ui::pushCommand(*w.document(),
                                       std::make_unique<spike::ui::SetAttributeCommand>(
                                           *w.document(), layer, "threshold", spike::engine::Tensor::scalar(2.0F)))
                    .ok);
        const QString done = undo->text(0);
        QVERIFY(!done.isEmpty());
        const QString undoKeys = w.action(QStringLiteral("action.undo"))->shortcut().toString(QKeySequence::NativeText);
        const QString redoKeys = w.action(QStringLiteral("action.redo"))->shortcut().toString(QKeySequence::NativeText);
        QVERIFY(!undoKeys.isEmpty() && !redoKeys.isEmpty());
        QCOMPARE(w.statusBar()->currentMessage(), done + QStringLiteral(" — ") + undoKeys + QStringLiteral(" undoes it"));
        undo->undo();
        QCOMPARE(w.statusBar()->currentMessage(),
                 QStringLiteral("Undone: ") + done + QStringLiteral(" — ") + redoKeys + QStringLiteral(" redoes it"));
        undo->redo();
        QCOMPARE(w.statusBar()->currentMessage(), done + QStringLiteral(" — ") + undoKeys + QStringLiteral(" undoes it"));
    }

    void helpMenuListsShortcutsAndVersions()
    {
        MainWindow w;
        const auto rows = w.shortcuts();
        const auto has = [&rows](const QString& command, const QString& keys) {
            return std::find(rows.begin(), rows.end(), std::make_pair(command, keys)) != rows.end();
        };
        QVERIFY(has(QStringLiteral("Run"), QStringLiteral("F5")));
        QVERIFY(has(QStringLiteral("Step"), QStringLiteral("F10")));
        QVERIFY(has(QStringLiteral("Keyboard Shortcuts"), QStringLiteral("F1")));
        w.action(QStringLiteral("action.shortcuts"))->trigger();
        auto* dialog = w.findChild<QDialog*>(QStringLiteral("shortcutsDialog"));
        QVERIFY(dialog != nullptr && dialog->isVisible());
        auto* table = dialog->findChild<QTableWidget*>();
        QVERIFY(table != nullptr);
        QCOMPARE(table->rowCount(), static_cast<int>(rows.size()));
        dialog->close();
        const QString about = w.aboutText();
        QVERIFY2(about.contains(QStringLiteral("Qt ") + QString::fromLatin1(qVersion())), qPrintable(about));
        QVERIFY2(about.contains(QStringLiteral("QCustomPlot 2.")), qPrintable(about));
        std::string why;
        const bool cuda = spike::engine::backendAvailable(spike::engine::BackendKind::Cuda, &why);
        QVERIFY2(about.contains(cuda ? QStringLiteral("CUDA backend: available")
                                     : QStringLiteral("CUDA backend: not available (") + QString::fromStdString(why)),
                 qPrintable(about));
        QVERIFY(w.menuBar()->actions().last()->text().remove(QLatin1Char('&')) == QStringLiteral("Help"));
    }

    void simulationMenuHoldsEveryRunCommand()
    {
        // docs/gui.md's menu table: Run / Pause, Step, Step 1 / 10 / 100, Reset, CPU Threads ▸.
        MainWindow w;
        QMenu* simulation = nullptr;
        for (QAction* top : w.menuBar()->actions()) {
            if (top->menu() != nullptr && top->text().remove(QLatin1Char('&')) == QStringLiteral("Simulation")) {
                simulation = top->menu();
            }
        }
        QVERIFY(simulation != nullptr);
        QStringList names;
        for (QAction* a : simulation->actions()) {
            if (!a->isSeparator()) {
                names << (a->menu() != nullptr ? a->menu()->objectName() : a->objectName());
            }
        }
        QCOMPARE(names, (QStringList{"action.run", "action.step", "action.step1", "action.step10",
                                     "action.step100", "action.reset", "threadsMenu"}));
        QCOMPARE(w.action(QStringLiteral("action.step10"))->text(), QStringLiteral("Step 10"));
        QCOMPARE(w.action(QStringLiteral("action.step10"))->iconText(), QStringLiteral("10"));
    }

    void init()
    {
        QStandardPaths::setTestModeEnabled(true);  // recent files and recovery stay in test dirs
    }

    void examplesAreBundled()
    {
        QVERIFY(QFile::exists(kExample));
        QStringList paths;
        for (const auto& example : spike::ui::DocumentFile::examples()) {
            paths.push_back(example.path);
        }
        QVERIFY(paths.contains(kExample));
        QVERIFY(paths.contains(kCuba));
    }

    void treeMirrorsModuleTree()
    {
        MainWindow w;
        QString error;
        QVERIFY2(w.openModel(kExample, &error), qPrintable(error));
        QVERIFY(w.model() != nullptr);
        QCOMPARE(w.windowTitle(), w.documentFile()->windowTitle());
        QVERIFY(w.windowTitle().startsWith(QStringLiteral("two_layer_lif.json")));

        const auto modules = w.model()->namedModules();
        QCOMPARE(treeItemCount(*w.moduleTree()), static_cast<int>(modules.size()));
        QCOMPARE(static_cast<int>(modules.size()), 3);
        const std::map<std::string, std::pair<QString, QString>> expected{
            {"", {"Sequential", "(8, 4)"}}, {"0", {"LIF", "(8, 8)"}}, {"1", {"LIF", "(8, 4)"}}};
        using Tree = spike::ui::DocumentTree;
        for (const auto& [path, module] : modules) {
            QTreeWidgetItem* item = w.moduleTree()->itemFor(w.document()->findNode(path));
            QVERIFY2(item != nullptr, path.c_str());
            QCOMPARE(item->text(Tree::TypeColumn), expected.at(path).first);
            QCOMPARE(item->text(Tree::ShapeColumn), expected.at(path).second);
        }
        // The first module with a membrane trace starts selected, in the tree and on the canvas.
        QCOMPARE(w.selectedModulePath(), QStringLiteral("0"));
        QCOMPARE(w.moduleTree()->selectedNodes(), QList<NodeId>{w.document()->findNode("0")});
        QCOMPARE(w.canvas()->selectedNodes(), QList<NodeId>{w.document()->findNode("0")});
        // The Sequential root shows its two children, read-only, under a one-crumb breadcrumb.
        QCOMPARE(w.canvas()->nodeItemCount(), std::size_t{2});
        QVERIFY(!w.canvas()->isEditable());
        QCOMPARE(w.breadcrumb()->crumbs(), QStringList{QStringLiteral("Sequential")});
    }

    void selectionSyncsBothWays()
    {
        MainWindow w;
        QVERIFY(w.openModel(kCuba));
        const NodeId e = w.document()->findNode("E");
        const NodeId i = w.document()->findNode("I");
        // Canvas -> tree and inspector.
        w.canvas()->nodeItem(i)->setSelected(true);
        w.canvas()->nodeItem(e)->setSelected(false);
        QCOMPARE(w.moduleTree()->selectedNodes(), QList<NodeId>{i});
        QCOMPARE(w.selectedModulePath(), QStringLiteral("I"));
        // Tree -> canvas, as a click does.
        w.moduleTree()->clearSelection();
        w.moduleTree()->itemFor(e)->setSelected(true);
        QCOMPARE(w.canvas()->selectedNodes(), QList<NodeId>{e});
        QCOMPARE(w.selectedModulePath(), QStringLiteral("E"));
        QCOMPARE(w.inspector()->node(), e);
    }

    void inspectorShowsTheSelectedModule()
    {
        MainWindow w;
        QVERIFY(w.openModel(kExample));
        for (const QString& path : {QStringLiteral("0"), QStringLiteral("1")}) {
            // Select through the tree widget, as a click does.
            w.moduleTree()->clearSelection();
            w.moduleTree()->itemFor(w.document()->findNode(path.toStdString()))->setSelected(true);
            QCOMPARE(w.inspector()->node(), w.document()->findNode(path.toStdString()));
            QStringList names;
            for (const auto& view : w.model()->getSubmodule(path.toStdString()).attributes()) {
                names.push_back(QString::fromStdString(view.spec->name));
            }
            QStringList rows = w.inspector()->rowNames();  // grouped by kind
            rows.sort();
            names.sort();
            QCOMPARE(rows, names);
        }
        // Module "1" is recurrent: its registry has w_rec, module "0"'s does not.
        QVERIFY(w.inspector()->rowNames().contains(QStringLiteral("w_rec")));
    }

    void inspectorRefusesRebuildEditsWhileRunning()
    {
        MainWindow w;
        QVERIFY(w.openModel(kExample));
        QVERIFY(!w.model()->getSubmodule("0").spec("seed").liveEditable);
        w.action(QStringLiteral("action.run"))->trigger();  // runs until paused
        QTRY_VERIFY(w.simulatedSteps() > 0);
        QVERIFY(w.selectModule(QStringLiteral("0")));
        const int before = w.document()->undoStack()->count();
        auto* box = w.inspector()->editorFor(QStringLiteral("seed"))->findChild<QDoubleSpinBox*>();
        QVERIFY(box != nullptr);
        box->setValue(box->value() + 1.0);
        QCOMPARE(w.document()->undoStack()->count(), before);
        QVERIFY2(w.inspector()->lastMessage().contains(QStringLiteral("Pause to change seed")),
                 qPrintable(w.inspector()->lastMessage()));
        // Paused, the same edit is taken (the simulation rebuilds with it) and the run stays.
        w.action(QStringLiteral("action.run"))->trigger();
        QTRY_VERIFY(w.action(QStringLiteral("action.run"))->text() == QStringLiteral("Run"));
        box->setValue(box->value() + 1.0);
        QCOMPARE(w.document()->undoStack()->count(), before + 1);
        QVERIFY(w.lastRecording() != nullptr);
    }

    void equationsFollowTheSelection()
    {
        MainWindow w;
        QVERIFY(w.openModel(kExample));
        QVERIFY(w.selectModule(QStringLiteral("0")));
        // The registry's equations for users (test_equation_view looks at them closely).
        const QString lif = w.equationsView()->toPlainText();
        QVERIFY2(lif.contains(QString::fromStdString(spike::engine::findModuleType("LIF")->equations.description)),
                 qPrintable(lif));
        QVERIFY2(lif.contains(QStringLiteral("vmem = α · vmem")), qPrintable(lif));
        QVERIFY(w.equationsView()->linkedSymbols().contains(QStringLiteral("tau_mem")));
        QVERIFY(w.selectModule(QString()));  // the Sequential root
        QVERIFY(w.equationsView()->toPlainText().contains(QStringLiteral("no update equations")));
    }

    void malformedFileKeepsModel()
    {
        MainWindow w;
        QVERIFY(w.openModel(kExample));
        const Module* before = w.model();
        const QString title = w.windowTitle();
        QTemporaryDir dir;
        QVERIFY(dir.isValid());

        const QString broken = writeFile(dir, QStringLiteral("broken.json"),
                                         R"({"format": "spikestudio.model", "version": 1,)");
        QVERIFY(!broken.isEmpty());
        QString error;
        QVERIFY(!w.openModel(broken, &error));
        QVERIFY2(error.contains(QStringLiteral("broken.json")), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("JSON")), qPrintable(error));
        QCOMPARE(w.model(), before);
        QCOMPARE(w.windowTitle(), title);
        QCOMPARE(treeItemCount(*w.moduleTree()), 3);
        QCOMPARE(w.canvas()->nodeItemCount(), std::size_t{2});
        QVERIFY(w.statusBar()->currentMessage().contains(broken));

        // Valid JSON, invalid model: the engine's message names the file and the JSON path.
        const QString invalid = writeFile(
            dir, QStringLiteral("invalid.json"),
            R"({"format": "spikestudio.model", "version": 1, "model": {"type": "LIF",
                "config": {"shape": [2, 2]}, "attributes": {"tau_mem": -1}}})");
        QVERIFY(!w.openModel(invalid, &error));
        QVERIFY2(error.contains(QStringLiteral("invalid.json")), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("tau_mem")), qPrintable(error));
        QCOMPARE(w.model(), before);

        // Bad text from memory (as for bundled models) is named after its source.
        QVERIFY(!w.openModelFromJson("[1, 2", QStringLiteral("memory.json"), &error));
        QVERIFY2(error.startsWith(QStringLiteral("memory.json: invalid JSON")), qPrintable(error));
        QCOMPARE(w.model(), before);
    }

    void missingFileKeepsModel()
    {
        MainWindow w;
        QVERIFY(w.openModel(kExample));
        QVERIFY(w.runSteps(20));
        const Module* before = w.model();
        QTemporaryDir dir;
        const QString missing = dir.filePath(QStringLiteral("missing.json"));
        QString error;
        QVERIFY(!w.openModel(missing, &error));
        QVERIFY2(error.contains(QStringLiteral("missing.json")), qPrintable(error));
        QCOMPARE(w.model(), before);
        QVERIFY(w.lastRecording() != nullptr);  // the last run's plots stay too
        QCOMPARE(w.tracePlot()->graphCount(), 8);

        QVERIFY(!w.openModel(QStringLiteral(":/examples/missing.json"), &error));
        QVERIFY2(error.contains(QStringLiteral(":/examples/missing.json")), qPrintable(error));
        QCOMPARE(w.model(), before);
    }

    void shortcutsAreStandard()
    {
        MainWindow w;
        const std::pair<const char*, QKeySequence::StandardKey> standard[] = {
            {"action.new", QKeySequence::New},       {"action.open", QKeySequence::Open},
            {"action.save", QKeySequence::Save},     {"action.saveAs", QKeySequence::SaveAs},
            {"action.quit", QKeySequence::Quit},     {"action.undo", QKeySequence::Undo},
            {"action.redo", QKeySequence::Redo},     {"action.cut", QKeySequence::Cut},
            {"action.copy", QKeySequence::Copy},     {"action.paste", QKeySequence::Paste},
            {"action.delete", QKeySequence::Delete}, {"action.selectAll", QKeySequence::SelectAll},
            {"action.find", QKeySequence::Find},     {"action.zoomIn", QKeySequence::ZoomIn},
            {"action.zoomOut", QKeySequence::ZoomOut}};
        for (const auto& [name, key] : standard) {
            QAction* a = w.action(QString::fromLatin1(name));
            QVERIFY2(a != nullptr, name);
            QCOMPARE(a->shortcut(), QKeySequence(key));
        }
        QCOMPARE(w.action(QStringLiteral("action.group"))->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_G));
        QCOMPARE(w.action(QStringLiteral("action.ungroup"))->shortcut(),
                 QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_G));
        // Every shortcut is unique.
        QSet<QString> seen;
        for (QAction* a : w.findChildren<QAction*>()) {
            if (!a->shortcut().isEmpty() && a->objectName().startsWith(QLatin1String("action."))) {
                QVERIFY2(!seen.contains(a->shortcut().toString()), qPrintable(a->shortcut().toString()));
                seen.insert(a->shortcut().toString());
            }
        }
    }

    void paletteAddsToTheShownNetwork()
    {
        MainWindow w;  // a new document: an empty Network
        QVERIFY(w.canvas()->isEditable());
        Q_EMIT w.palette()->moduleRequested(QStringLiteral("LIFRefrac"));
        QCOMPARE(w.canvas()->nodeItemCount(), std::size_t{1});
        const NodeId added = w.canvas()->selectedNodes().value(0);
        QCOMPARE(w.document()->nodeData(added, spike::ui::NodeRole::Type).toString(), QStringLiteral("LIFRefrac"));
        QCOMPARE(w.moduleTree()->selectedNodes(), QList<NodeId>{added});
        QCOMPARE(w.selectedModulePath(), QString::fromStdString(w.document()->path(added)));
        w.action(QStringLiteral("action.undo"))->trigger();
        QCOMPARE(w.canvas()->nodeItemCount(), std::size_t{0});
        QCOMPARE(treeItemCount(*w.moduleTree()), 1);
    }

    void groupEnterAndBreadcrumb()
    {
        MainWindow w;
        QVERIFY(w.openModel(kCuba));
        const QByteArray saved = QByteArray::fromStdString(w.document()->toJson().dump());
        w.canvas()->setSelection({w.document()->findNode("E"), w.document()->findNode("I")});
        w.action(QStringLiteral("action.group"))->trigger();
        QCOMPARE(w.canvas()->nodeItemCount(), std::size_t{1});
        const NodeId group = w.canvas()->selectedNodes().value(0);
        QVERIFY(w.document()->network(group) != nullptr);
        // Enter the group (as a double-click does): the breadcrumb leads back out.
        QVERIFY(w.canvas()->enter(group));
        QCOMPARE(w.breadcrumb()->crumbs(),
                 (QStringList{QStringLiteral("Network"), w.document()->nodeData(group, spike::ui::NodeRole::Name).toString()}));
        QCOMPARE(w.canvas()->nodeItemCount(), std::size_t{2});
        QVERIFY(w.action(QStringLiteral("action.up"))->isEnabled());
        QVERIFY(w.breadcrumb()->activate(0));
        QCOMPARE(w.canvas()->network(), w.document()->rootId());
        // Selecting a node inside the group in the tree shows the group on the canvas.
        const NodeId inner = w.document()->children(group).front();
        w.moduleTree()->clearSelection();
        w.moduleTree()->itemFor(inner)->setSelected(true);
        QCOMPARE(w.canvas()->network(), group);
        QCOMPARE(w.canvas()->selectedNodes(), QList<NodeId>{inner});
        // Undo restores the saved document exactly.
        w.document()->undoStack()->undo();
        QCOMPARE(QByteArray::fromStdString(w.document()->toJson().dump()), saved);
        QTRY_COMPARE(w.canvas()->network(), w.document()->rootId());  // the shown group went away
        QCOMPARE(w.breadcrumb()->crumbs(), QStringList{QStringLiteral("Network")});
    }

    void compositesOpenReadOnly()
    {
        MainWindow w;
        QString error;
        QVERIFY2(w.openModel(QStringLiteral(":/examples/dynamics_network.json"), &error), qPrintable(error));
        // Find a ResBlock (a composite) and open it.
        NodeId resblock;
        for (const auto& [path, module] : w.model()->namedModules()) {
            if (module->className() == "ResBlock") {
                resblock = w.document()->findNode(path);
                break;
            }
        }
        QVERIFY(resblock.valid());
        QVERIFY(w.canvas()->enter(resblock));
        QVERIFY(!w.canvas()->isEditable());
        QCOMPARE(w.canvas()->nodeItemCount(), w.document()->children(resblock).size());
        QVERIFY(w.breadcrumb()->crumbs().size() >= 2);
        // Structural edits are refused with the reason; nothing changes.
        const int before = w.document()->undoStack()->count();
        QVERIFY(!w.canvas()->addModule(QStringLiteral("LIF")).valid());
        QVERIFY2(w.canvas()->lastRefusal().contains(QStringLiteral("ResBlock")), qPrintable(w.canvas()->lastRefusal()));
        QCOMPARE(w.document()->undoStack()->count(), before);
        QVERIFY(!w.action(QStringLiteral("action.paste"))->isEnabled());
    }

    void clipboardCrossesWindows()
    {
        MainWindow a;
        MainWindow b;
        QVERIFY(a.openModel(kCuba));
        const NodeId e = a.document()->findNode("E");
        a.canvas()->setSelection({e, a.document()->findNode("I")});
        a.action(QStringLiteral("action.copy"))->trigger();
        QVERIFY(QApplication::clipboard()->mimeData()->hasFormat(spike::ui::GraphCanvas::fragmentMimeType()));
        b.action(QStringLiteral("action.paste"))->trigger();
        QCOMPARE(b.canvas()->nodeItemCount(), std::size_t{2});
        const spike::engine::Network* net = b.document()->network(b.document()->rootId());
        QCOMPARE(net->connections().size(), std::size_t{4});  // the wires among the copied nodes
        // The pasted module carries the copied attributes.
        const auto& src = a.model()->getSubmodule("E");
        const auto& dst = b.model()->getSubmodule("E");
        for (const auto& view : src.attributes()) {
            QCOMPARE(spike::engine::describeValue(dst.attribute(view.spec->name)),
                     spike::engine::describeValue(*view.value));
        }
        b.action(QStringLiteral("action.undo"))->trigger();
        QCOMPARE(b.canvas()->nodeItemCount(), std::size_t{0});
        // Cut is copy + delete in one undo step.
        a.canvas()->setSelection({e});
        a.action(QStringLiteral("action.cut"))->trigger();
        QCOMPARE(a.canvas()->nodeItemCount(), std::size_t{1});
        a.action(QStringLiteral("action.undo"))->trigger();
        QCOMPARE(a.canvas()->nodeItemCount(), std::size_t{2});
    }

    void closeAsksAboutUnsavedChanges()
    {
        MainWindow w;
        w.show();
        QVERIFY(!w.windowTitle().contains(QLatin1Char('*')));
        Q_EMIT w.palette()->moduleRequested(QStringLiteral("LIF"));
        QVERIFY(w.documentFile()->isModified());
        QVERIFY(w.windowTitle().contains(QLatin1Char('*')));
        // Cancel keeps the window and the work; Discard closes.
        answerNextDialog(QStringLiteral("Cancel"));
        QVERIFY(!w.close());
        QVERIFY(w.isVisible());
        QCOMPARE(w.canvas()->nodeItemCount(), std::size_t{1});
        answerNextDialog(QStringLiteral("Discard"));
        QVERIFY(w.close());
        // Unmodified: no question at all.
        MainWindow clean;
        clean.show();
        QVERIFY(clean.close());
    }

    void recoveryIsOfferedAfterACrash()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QByteArray edited;
        {
            // A session that ends without close() (as a crash does) leaves its recovery file.
            spike::ui::GraphDocument doc;
            spike::ui::DocumentFile file(doc);
            file.setRecoveryDirectory(dir.path());
            QVERIFY(file.open(kCuba));
            const auto status = spike::ui::pushCommand(
                doc, std::make_unique<spike::ui::AddNodeCommand>(doc, doc.rootId(), "PoissonSource",
                                                                 nlohmann::json{{"shape", {5}}}));
            QVERIFY(status.ok);
            QVERIFY(file.autosaveNow());
            edited = QByteArray::fromStdString(doc.toJson().dump());
        }
        MainWindow later;
        later.documentFile()->setRecoveryDirectory(dir.path());
        QCOMPARE(later.documentFile()->recoveryCandidates().size(), 1);
        answerNextDialog(QStringLiteral("Later"));
        later.offerRecovery();
        QCOMPARE(later.documentFile()->recoveryCandidates().size(), 1);  // still offered next time

        MainWindow w;
        w.documentFile()->setRecoveryDirectory(dir.path());
        answerNextDialog(QStringLiteral("Recover"));
        w.offerRecovery();
        QCOMPARE(QByteArray::fromStdString(w.document()->toJson().dump()), edited);
        QVERIFY(w.documentFile()->isModified());
        QCOMPARE(w.canvas()->nodeItemCount(), std::size_t{3});
        QVERIFY(w.documentFile()->recoveryCandidates().isEmpty());
    }

    void screenshotCommand()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("shot.png"));
        QProcess p;
        p.start(QStringLiteral(SPIKESTUDIO_PATH),
                {QStringLiteral("--screenshot"), out, QStringLiteral("--run-for"), QStringLiteral("0.3"), kCuba});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        const QImage image(out);
        QCOMPARE(image.size(), QSize(1400, 900));
        // A model that fails to load: non-zero exit, the engine's message, no picture.
        const QString bad = writeFile(dir, QStringLiteral("bad.json"),
                                      R"({"format": "spikestudio.model", "version": 1, "model": {"type": "Nope"}})");
        const QString out2 = dir.filePath(QStringLiteral("bad.png"));
        p.start(QStringLiteral(SPIKESTUDIO_PATH), {QStringLiteral("--screenshot"), out2, bad});
        QVERIFY(p.waitForFinished(60000));
        QVERIFY(p.exitCode() != 0);
        QVERIFY2(p.readAllStandardError().contains("Nope"), "the message names the unknown type");
        QVERIFY(!QFile::exists(out2));
        p.start(QStringLiteral(SPIKESTUDIO_PATH), {QStringLiteral("--screenshot"), out2, QStringLiteral("--run-for"),
                                                  QStringLiteral("zero"), kCuba});
        QVERIFY(p.waitForFinished(60000));
        QVERIFY(p.exitCode() != 0);
    }
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
