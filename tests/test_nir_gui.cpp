// NIR files in the main window, by real input (issue #18): File ▸ Open by its shortcut, the file
// dialog's filters checked and the path pasted into it, then the import dialog
// (ui/window/nir_import_dialog.hpp) answered with typed keys: 0.5 ms and Enter gives the nested
// Network of tests/data/nir/nested_li with every neuron at dt 5e-4, which runs with a trace of
// sub.li's v (in the selection pane; no empty raster for a model without spikes). The dialog's
// choice (the method picked by arrow keys) is remembered; Cancel keeps the previous document as
// it was; a malformed file, and one HDF5 itself crashes on (read first by a forked copy), shows
// its one-line error and changes nothing. File ▸ Export ▸ NIR… of a model with a PoissonSource
// lists it as left out: Cancel writes nothing, "Export without them" writes a file loadNir reads
// back, and the document stays as it was (still modified). Save after opening a .nir proposes
// model.json and never writes the .nir. Modal dialogs are answered from timers (their exec()
// blocks), the way a person would: keys and clicks on their widgets.
#include "ui/document/document_file.hpp"
#include "ui/document/graph_document.hpp"
#include "ui/editor/graph_canvas.hpp"
#include "ui/plots/plot_panes.hpp"
#include "ui/plots/trace_plot.hpp"
#include "ui/window/main_window.hpp"
#include "ui/window/nir_export_dialog.hpp"
#include "ui/window/nir_import_dialog.hpp"

#include "engine/nir/nir_file.hpp"
#include "engine/nir/nir_import.hpp"

#include "real_input.hpp"

#include <QClipboard>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <qcustomplot.h>

#include <functional>
#include <memory>
#include <utility>
#include <vector>

using namespace spike::ui;  // NOLINT: test file
using spike::tests::settle;
using spike::tests::typeInto;

namespace {

const QString kNested = QStringLiteral(SPIKE_TEST_DATA_DIR "/nir/nested_li/model.nir");
const QString kNegativeTau = QStringLiteral(SPIKE_TEST_DATA_DIR "/nir/malformed/negative_tau.nir");
/// A file HDF5 1.10.8 itself crashes on (found by fuzz_nir; docs/testing.md).
const QString kHdf5Crash =
    QStringLiteral(SPIKE_TEST_DATA_DIR "/../fuzz/regressions/fuzz_nir/metadata_malloc_null.nir");
const QString kExample = QStringLiteral(":/examples/lif_current_step.json");
const QString kRockpoolFile = QStringLiteral(SPIKE_TEST_DATA_DIR "/nir/rockpool/ff.nir");

/// "QMessageBox: Could not open NIR file: <text> <informative text>" for a failure message.
QString describeDialog(QDialog* dialog)
{
    QString what = dialog->metaObject()->className() + QStringLiteral(": ") + dialog->windowTitle();
    if (auto* box = qobject_cast<QMessageBox*>(dialog)) {
        what += QStringLiteral(": ") + box->text() + QLatin1Char(' ') + box->informativeText();
    }
    return what;
}

/// Calls `act` once with the next modal dialog of type `Dialog` to be shown (from a timer: the
/// dialog's exec() blocks the caller). Sets `done` after `act` ran. A different dialog that stays
/// open for 10 s, before `act` or within a minute after it (a message box the test does not
/// expect, such as "Could not open NIR file"), would block exec() for ever: it is closed and the
/// test fails, quoting it.
template <typename Dialog>
void whenShown(std::function<void(Dialog*)> act, bool& done)
{
    done = false;
    auto* timer = new QTimer;
    timer->setInterval(20);
    auto polls = std::make_shared<int>(0);
    auto watchAfter = std::make_shared<int>(-1);  // polls left to watch after `act`; -1 before
    QObject::connect(timer, &QTimer::timeout, timer, [timer, act, &done, polls, watchAfter] {
        QWidget* modal = QApplication::activeModalWidget();
        auto* dialog = *watchAfter < 0 ? qobject_cast<Dialog*>(modal) : nullptr;
        if (dialog == nullptr || !dialog->isVisible()) {
            auto* other = qobject_cast<QDialog*>(modal);
            if (*watchAfter >= 0 && --*watchAfter == 0) {
                timer->stop();
                timer->deleteLater();
                return;
            }
            if (other == nullptr || !other->isVisible()) {
                *polls = 0;
            } else if (++*polls > 500) {
                timer->stop();
                timer->deleteLater();
                const QString what = describeDialog(other);
                other->reject();
                QFAIL(qPrintable("a dialog stayed open, unanswered: " + what));
            }
            return;
        }
        *watchAfter = 3000;
        *polls = 0;
        act(dialog);
        done = true;
        // A check that failed inside `act` returned before the dialog was answered: close it,
        // so the test reports the failure instead of waiting on exec() forever.
        if (QTest::currentTestFailed() && dialog->isVisible()) {
            timer->stop();
            timer->deleteLater();
            dialog->reject();
        }
    });
    timer->start();
}

/// Pastes `path` into a Qt file dialog's name field (Ctrl+V) and presses Return. Typed key by
/// key, an absolute path leaves every folder it passes ("/", "/tmp") selected in the dialog's
/// list, which then wins over the typed name; a pasted one arrives whole, as a person's would.
void pastePath(QFileDialog* dialog, const QString& path)
{
    auto* name = dialog->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
    QVERIFY(name != nullptr);
    name->setCompleter(nullptr);  // its pop-up, had a folder listing matched, would take the Return
    QGuiApplication::clipboard()->setText(path);
    // The dialog's folder model loads on a thread; when it lands (late on a loaded machine) the
    // dialog selects the file it remembers and rewrites the name field. Paste again until the
    // path has stayed there for a moment.
    for (int attempt = 0; attempt < 50; ++attempt) {
        if (name->text() != path) {
            QTest::mouseClick(name, Qt::LeftButton, Qt::NoModifier, name->rect().center());
            QTest::keyClick(name, Qt::Key_A, Qt::ControlModifier);
            QTest::keyClick(name, Qt::Key_V, Qt::ControlModifier);
        }
        QTest::qWait(100);
        if (name->text() == path) {
            QTest::qWait(100);
            if (name->text() == path) {
                break;
            }
        }
    }
    QCOMPARE(name->text(), path);
    QTest::keyClick(name, Qt::Key_Return);
}

QByteArray readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

/// Opens `path` through the import dialog, typing `dtMs` and pressing Enter.
bool openWithDialog(MainWindow& w, const QString& path, const QString& dtMs)
{
    bool answered = false;
    whenShown<NirImportDialog>(
        [dtMs](NirImportDialog* d) {
            typeInto(d->timeStepBox(), dtMs);
            QTest::keyClick(d->timeStepBox(), Qt::Key_Enter);
        },
        answered);
    w.openInteractively(path);
    return answered;
}

}  // namespace

class TestNirGui : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY(m_settings.isValid());
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("SpikeStudioTests"));
        QCoreApplication::setApplicationName(QStringLiteral("test_nir_gui"));
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settings.path());
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_settings.path());
    }

    void init() { QSettings().clear(); }

    void fileOpenImportsTheNestedGraphAndRunsIt()
    {
        MainWindow w;
        w.resize(1200, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.documentFile()->setAutosaveInterval(0);

        QStringList filters;
        bool chosen = false;
        whenShown<QFileDialog>(
            [&filters](QFileDialog* d) {
                filters = d->nameFilters();
                pastePath(d, kNested);
            },
            chosen);
        QString explanation;
        QString method;
        double startDt = 0.0;
        bool answered = false;
        whenShown<NirImportDialog>(
            [&](NirImportDialog* d) {
                startDt = d->timeStepBox()->value();
                method = d->methodBox()->currentData().toString();
                explanation = d->explanationLabel()->text();
                typeInto(d->timeStepBox(), QStringLiteral("0.5"));
                QTest::keyClick(d->timeStepBox(), Qt::Key_Enter);
            },
            answered);
        QTest::keyClick(&w, Qt::Key_O, Qt::ControlModifier);  // File ▸ Open
        QVERIFY(chosen);
        QVERIFY(answered);
        settle();

        QVERIFY(!filters.isEmpty());
        QCOMPARE(filters.front(), QStringLiteral("All models (*.json *.nir)"));
        QVERIFY2(filters.contains(QStringLiteral("NIR files (*.nir)")), qPrintable(filters.join("; ")));
        QCOMPARE(startDt, 1.0);  // the engine's default, nothing remembered yet
        QCOMPARE(method, QStringLiteral("euler"));
        QVERIFY2(explanation.contains("Euler"), qPrintable(explanation));

        // A Network holding the nested "sub" Network, every neuron at 0.5 ms.
        const spike::engine::Module& root = w.document()->root();
        QCOMPARE(QString::fromStdString(root.className()), QStringLiteral("Network"));
        const spike::engine::Module& sub = root.getSubmodule("sub");
        QCOMPARE(QString::fromStdString(sub.className()), QStringLiteral("Network"));
        const spike::engine::Module& li = root.getSubmodule("sub.li");
        QCOMPARE(QString::fromStdString(li.className()), QStringLiteral("LI"));
        int neurons = 0;
        for (const auto& [path, m] : root.namedModules()) {
            if (m->hasAttribute("dt") && m->hasAttribute("discretisation")) {
                ++neurons;
                QCOMPARE(m->timeStep(), 5e-4);
                QCOMPARE(std::get<std::string>(m->attribute("discretisation")), std::string("euler"));
            }
        }
        QVERIFY(neurons >= 1);
        QCOMPARE(QDir::toNativeSeparators(w.modelSource()), QDir::toNativeSeparators(kNested));
        // Untitled under the .nir's name; the canvas shows "sub" as a group.
        QVERIFY(w.documentFile()->filePath().isEmpty());
        QVERIFY2(w.windowTitle().startsWith(QStringLiteral("model.nir")), qPrintable(w.windowTitle()));
        QVERIFY(w.document()->findNode("sub").valid());
        QVERIFY(w.canvas()->nodeItem(w.document()->findNode("sub")) != nullptr);
        QVERIFY(!w.startPageShown());
        QCOMPARE(w.timeStepSpinBox()->value(), 0.5);
        // The dialog's choice is the next default.
        QCOMPARE(NirImportDialog::remembered().dt, 5e-4);
        QCOMPARE(w.documentFile()->recentFiles().value(0), QFileInfo(kNested).absoluteFilePath());

        // No spiking module: sub.li's membrane instead of an empty raster.
        QVERIFY(!w.plotPanes()->isRasterShown());
        QVERIFY(w.plotPanes()->isPaneShown(0));

        // Runs, with a trace of sub.li's v.
        QVERIFY(w.selectModule(QStringLiteral("sub.li")));
        QCOMPARE(w.selectedModulePath(), QStringLiteral("sub.li"));
        QString error;
        QVERIFY2(w.runSteps(40, &error), qPrintable(error));
        QVERIFY(w.lastRecording() != nullptr);
        QVERIFY(w.lastRecording()->count("sub.li") == 1);
        const spike::engine::TimeSeries& v = w.lastRecording()->at("sub.li").at("v");
        QCOMPARE(v.data.dim(0), std::int64_t{40});
        QCOMPARE(v.dt, 5e-4);
        QVERIFY(w.tracePlot()->graphCount() >= 1);
        QCOMPARE(w.tracePlot()->graph(0)->data()->size(), 40);
    }

    void methodIsRememberedAndCancelKeepsTheDocument()
    {
        MainWindow w;
        w.resize(1200, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.documentFile()->setAutosaveInterval(0);
        QString error;
        QVERIFY2(w.openModel(kExample, &error), qPrintable(error));

        // Exact, 2 ms, chosen by keys; Return opens.
        bool answered = false;
        QStringList explanations;
        whenShown<NirImportDialog>(
            [&explanations](NirImportDialog* d) {
                explanations << d->explanationLabel()->text();
                typeInto(d->timeStepBox(), QStringLiteral("2"));
                QTest::keyClick(d->methodBox(), Qt::Key_Down);  // the next method: exact
                explanations << d->explanationLabel()->text();
                QTest::keyClick(d->methodBox(), Qt::Key_Return);
            },
            answered);
        w.openInteractively(kNested);
        QVERIFY(answered);
        QCOMPARE(explanations.size(), 2);
        QVERIFY2(explanations[1].contains("exp"), qPrintable(explanations[1]));
        QVERIFY(explanations[0] != explanations[1]);
        const spike::engine::Module& li = w.document()->root().getSubmodule("sub.li");
        QCOMPARE(li.timeStep(), 2e-3);
        QCOMPARE(std::get<std::string>(li.attribute("discretisation")), std::string("exact"));

        // Back to the example; the next dialog starts at the remembered choice; Cancel.
        QVERIFY2(w.openModel(kExample, &error), qPrintable(error));
        const std::string before = w.document()->toJson().dump();
        const QString title = w.windowTitle();
        double startDt = 0.0;
        QString startMethod;
        whenShown<NirImportDialog>(
            [&](NirImportDialog* d) {
                startDt = d->timeStepBox()->value();
                startMethod = d->methodBox()->currentData().toString();
                typeInto(d->timeStepBox(), QStringLiteral("0.25"));
                QTest::mouseClick(d->buttons()->button(QDialogButtonBox::Cancel), Qt::LeftButton);
            },
            answered);
        w.openInteractively(kNested);
        QVERIFY(answered);
        QCOMPARE(startDt, 2.0);
        QCOMPARE(startMethod, QStringLiteral("exact"));
        QCOMPARE(w.document()->toJson().dump(), before);
        QCOMPARE(w.windowTitle(), title);
        QCOMPARE(w.modelSource(), kExample);
        QCOMPARE(NirImportDialog::remembered().dt, 2e-3);  // Cancel remembers nothing
    }

    void rockpoolMethodAndTimeInStepsAreChosenByKeys()
    {
        MainWindow w;
        w.resize(1200, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.documentFile()->setAutosaveInterval(0);

        // A file Rockpool wrote, opened "as Rockpool simulates" (the third method): its CubaLIF
        // becomes the engine's LIF, which the method's explanation says.
        bool answered = false;
        QString explanation;
        whenShown<NirImportDialog>(
            [&explanation](NirImportDialog* d) {
                typeInto(d->timeStepBox(), QStringLiteral("1"));
                QTest::keyClick(d->methodBox(), Qt::Key_Down);
                QTest::keyClick(d->methodBox(), Qt::Key_Down);
                explanation = d->explanationLabel()->text();
                QTest::keyClick(d->methodBox(), Qt::Key_Return);
            },
            answered);
        w.openInteractively(kRockpoolFile);
        QVERIFY(answered);
        QVERIFY2(explanation.contains("Rockpool's LIF"), qPrintable(explanation));
        QCOMPARE(QString::fromStdString(w.document()->root().getSubmodule("0").className()),
                 QStringLiteral("LIF"));
        QCOMPARE(NirImportDialog::remembered().discretisation, std::string("rockpool"));

        // Time constants counted in steps (Sinabs): chosen by keys, they arrive times dt.
        whenShown<NirImportDialog>(
            [](NirImportDialog* d) {
                QTest::keyClick(d->methodBox(), Qt::Key_Up);
                QTest::keyClick(d->methodBox(), Qt::Key_Up);  // back to euler
                QTest::keyClick(d->timeUnitBox(), Qt::Key_Down);
                QTest::keyClick(d->timeUnitBox(), Qt::Key_Return);
            },
            answered);
        w.openInteractively(kNested);
        QVERIFY(answered);
        const auto inSeconds = spike::engine::nir::loadNir(kNested.toStdString());
        const float tauFile = inSeconds.root->getSubmodule("sub.li").tensor("tau")[0];
        const spike::engine::Module& li = w.document()->root().getSubmodule("sub.li");
        QCOMPARE(li.tensor("tau")[0], tauFile * 1e-3F);
        QCOMPARE(std::get<std::string>(li.attribute("discretisation")), std::string("euler"));
        QCOMPARE(NirImportDialog::remembered().timeUnit, std::string("steps"));
    }

    void malformedFileShowsTheErrorAndChangesNothing()
    {
        MainWindow w;
        w.resize(1200, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.documentFile()->setAutosaveInterval(0);
        QString error;
        QVERIFY2(w.openModel(kExample, &error), qPrintable(error));
        const std::string before = w.document()->toJson().dump();
        const QString title = w.windowTitle();

        // A file the importer refuses, and one HDF5 itself crashes on (contained in a forked
        // trial read): each gives one line naming the file, and the window goes on unchanged.
        const std::vector<std::pair<QString, QString>> files{
            {kNegativeTau, QStringLiteral("tau")}, {kHdf5Crash, QStringLiteral("trial read")}};
        for (const auto& [file, fault] : files) {
            bool answered = false;
            whenShown<NirImportDialog>(
                [](NirImportDialog* d) { QTest::keyClick(d->timeStepBox(), Qt::Key_Return); },
                answered);
            bool shown = false;
            QString message;
            whenShown<QMessageBox>(
                [&message](QMessageBox* box) {
                    message = box->text();
                    QTest::keyClick(box, Qt::Key_Return);
                },
                shown);
            w.openInteractively(file);
            QVERIFY(answered);
            QVERIFY(shown);
            QVERIFY2(message.contains(QFileInfo(file).fileName()) && message.contains(fault),
                     qPrintable(message));
            QVERIFY2(!message.contains('\n'), qPrintable(message));
            QCOMPARE(w.document()->toJson().dump(), before);
            QCOMPARE(w.windowTitle(), title);
            QCOMPARE(w.modelSource(), kExample);
        }
    }

    void notesShowOnceWithoutBlocking()
    {
        // nested_li with its "fc" node named "in", which the import renames (a note).
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        spike::engine::nir::NirFile file = spike::engine::nir::readNirFile(kNested.toStdString());
        for (spike::engine::nir::NirNode& node : file.graph.nodes) {
            node.name = node.name == "fc" ? "in" : node.name;
        }
        for (spike::engine::nir::NirEdge& edge : file.graph.edges) {
            edge.source = edge.source == "fc" ? "in" : edge.source;
            edge.target = edge.target == "fc" ? "in" : edge.target;
        }
        const QString renamed = dir.filePath(QStringLiteral("renamed.nir"));
        spike::engine::nir::writeNirFile(renamed.toStdString(), file);

        MainWindow w;
        w.resize(1200, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.documentFile()->setAutosaveInterval(0);
        QVERIFY(openWithDialog(w, renamed, QStringLiteral("1")));  // returns: the box does not block
        auto* box = w.findChild<QMessageBox*>(QStringLiteral("nirNotesBox"));
        QVERIFY(box != nullptr);
        QVERIFY(box->isVisible());
        QVERIFY(!box->isModal());
        QVERIFY2(box->text().contains("one thing"), qPrintable(box->text()));
        QVERIFY2(box->informativeText().contains("in_"), qPrintable(box->informativeText()));
        QVERIFY(w.document()->findNode("in_").valid());
        QVERIFY2(w.statusBar()->currentMessage().contains("adapted one thing"),
                 qPrintable(w.statusBar()->currentMessage()));

        // A file with nothing to adapt shows no box, and the old one goes.
        QPointer<QMessageBox> old(box);
        QVERIFY(openWithDialog(w, kNested, QStringLiteral("1")));
        settle();
        QTRY_VERIFY(old.isNull() || !old->isVisible());
        QVERIFY(w.findChildren<QMessageBox*>(QStringLiteral("nirNotesBox")).isEmpty() ||
                !w.findChild<QMessageBox*>(QStringLiteral("nirNotesBox"))->isVisible());
    }

    void exportListsWhatIsLeftOutBeforeWriting()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        MainWindow w;
        w.resize(1200, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.documentFile()->setAutosaveInterval(0);
        QVERIFY(openWithDialog(w, kNested, QStringLiteral("1")));
        // A Poisson source added on the canvas: NIR has no node for it.
        const NodeId poisson = w.canvas()->addModule(QStringLiteral("PoissonSource"));
        QVERIFY(poisson.valid());
        const QString poissonName = QString::fromStdString(w.document()->path(poisson));
        QVERIFY(w.documentFile()->isModified());
        const std::string before = w.document()->toJson().dump();

        // The menu holds File ▸ Export ▸ NIR….
        auto* exportMenu = w.findChild<QMenu*>(QStringLiteral("menu.export"));
        QVERIFY(exportMenu != nullptr);
        QVERIFY(exportMenu->actions().contains(w.action(QStringLiteral("action.exportNir"))));

        // Cancel: the list names the source; nothing is written.
        QStringList entries;
        QString shown;
        bool answered = false;
        whenShown<NirExportDialog>(
            [&](NirExportDialog* d) {
                entries = d->entries();
                shown = d->listLabel()->text();
                QTest::mouseClick(d->cancelButton(), Qt::LeftButton);
            },
            answered);
        w.action(QStringLiteral("action.exportNir"))->trigger();
        QVERIFY(answered);
        QCOMPARE(entries.size(), 1);
        QVERIFY2(entries[0].startsWith(poissonName + ": PoissonSource ("), qPrintable(entries[0]));
        QVERIFY2(shown.contains("<b>" + poissonName + "</b>: PoissonSource ("), qPrintable(shown));
        QVERIFY(QDir(dir.path()).entryList(QDir::Files).isEmpty());
        QCOMPARE(w.document()->toJson().dump(), before);

        // Export without them, into the temporary folder.
        const QString out = dir.filePath(QStringLiteral("exported.nir"));
        whenShown<NirExportDialog>(
            [](NirExportDialog* d) { QTest::mouseClick(d->exportButton(), Qt::LeftButton); }, answered);
        bool chosen = false;
        QString proposed;
        whenShown<QFileDialog>(
            [&](QFileDialog* d) {
                proposed = d->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"))->text();
                pastePath(d, out);
            },
            chosen);
        w.action(QStringLiteral("action.exportNir"))->trigger();
        QVERIFY(answered);
        QVERIFY(chosen);
        QCOMPARE(proposed, QStringLiteral("model.nir"));
        QVERIFY(QFileInfo::exists(out));
        const spike::engine::nir::NirImport back = spike::engine::nir::loadNir(out.toStdString());
        QCOMPARE(QString::fromStdString(back.root->getSubmodule("sub.li").className()), QStringLiteral("LI"));
        QVERIFY(back.root->findChild(poissonName.toStdString()) == nullptr);
        // The document is as it was, still modified and untitled.
        QCOMPARE(w.document()->toJson().dump(), before);
        QVERIFY(w.documentFile()->isModified());
        QVERIFY(w.documentFile()->filePath().isEmpty());
    }

    void saveAfterOpeningNirAsksForJson()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString nir = dir.filePath(QStringLiteral("model.nir"));
        QVERIFY(QFile::copy(kNested, nir));
        const QByteArray original = readAll(nir);
        MainWindow w;
        w.resize(1200, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.documentFile()->setAutosaveInterval(0);
        QVERIFY(openWithDialog(w, nir, QStringLiteral("1")));
        QVERIFY(w.documentFile()->filePath().isEmpty());

        // A .nir name typed into Save is refused (JSON behind NIR's extension), nothing written.
        bool chosen = false;
        whenShown<QFileDialog>([&](QFileDialog* d) { pastePath(d, dir.filePath("other.nir")); }, chosen);
        bool warned = false;
        QString warning;
        whenShown<QMessageBox>(
            [&warning](QMessageBox* box) {
                warning = box->text();
                QTest::keyClick(box, Qt::Key_Return);
            },
            warned);
        // The offscreen platform activates no window when a dialog closes; a window manager would.
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QTest::keyClick(&w, Qt::Key_S, Qt::ControlModifier);  // File ▸ Save
        QVERIFY(chosen);
        QVERIFY(warned);
        QVERIFY2(warning.contains("Export"), qPrintable(warning));
        QVERIFY(!QFileInfo::exists(dir.filePath("other.nir")));

        // Save proposes model.json beside the .nir; Return takes it.
        QString proposed;
        whenShown<QFileDialog>(
            [&](QFileDialog* d) {
                auto* name = d->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
                proposed = name->text();
                QTest::keyClick(name, Qt::Key_Return);
            },
            chosen);
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QTest::keyClick(&w, Qt::Key_S, Qt::ControlModifier);
        QVERIFY(chosen);
        QCOMPARE(proposed, QStringLiteral("model.json"));
        const QString json = dir.filePath(QStringLiteral("model.json"));
        QTRY_VERIFY(QFileInfo::exists(json));
        QCOMPARE(readAll(nir), original);
        QCOMPARE(w.documentFile()->filePath(), QFileInfo(json).absoluteFilePath());
        QVERIFY2(w.windowTitle().startsWith(QStringLiteral("model.json")), qPrintable(w.windowTitle()));
        QVERIFY(readAll(json).contains("\"sub\""));
    }

private:
    QTemporaryDir m_settings;
};

QTEST_MAIN(TestNirGui)
#include "test_nir_gui.moc"
