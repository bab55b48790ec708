// spikestudio: the GUI. Composition only: parses the command line (QCommandLineParser), builds
// the main window, opens MODEL (none, or one that fails to open: the start page, over an empty
// network; a NIR file through the window's import dialog), optionally runs it (--run-steps N steps, or --run-for SECONDS of wall time with the
// plots live) at the size the last session left (--size WxH: that size; first start: 1400x900 or
// the screen) and either runs the event loop, after offering to recover the work of a session
// that crashed, or, with --screenshot, saves a picture of the whole window (--grab: of its canvas
// or its plots) and exits. The document is autosaved every minute (--autosave-seconds S: every
// S seconds). In screenshot mode no dialog is ever shown, nothing is autosaved: every failure is
// one line on stderr and a non-zero exit.
#include "ui/document/document_file.hpp"
#include "ui/editor/graph_canvas.hpp"
#include "ui/plots/plot_panes.hpp"
#include "ui/window/main_window.hpp"

#include "engine/nir/nir_import.hpp"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QIcon>
#include <QMessageBox>
#include <QPixmap>
#include <QSpinBox>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace {

constexpr int kWindowWidth = 1400;   // [px] screenshots' default size
constexpr int kWindowHeight = 900;   // [px]
constexpr int kMinSide = 320;        // [px] --size bounds
constexpr int kMaxSide = 8192;       // [px]
constexpr double kMaxAutosaveSeconds = 86400.0;  // [s] --autosave-seconds bound: a day

int failWith(const QString& message)
{
    std::fprintf(stderr, "spikestudio: %s\n", qPrintable(message));
    return 1;
}

/// Lets the window lay itself out and the plots finish their queued replots.
void settle()
{
    for (int i = 0; i < 5; ++i) {
        QApplication::processEvents(QEventLoop::AllEvents, 50);
    }
}

}  // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("SpikeStudio"));
    // Settings (recent files) and recovery files under SpikeStudio/, not "Unknown Organization".
    QApplication::setOrganizationName(QStringLiteral("SpikeStudio"));
    QApplication::setApplicationVersion(QStringLiteral(SPIKE_VERSION));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/spikestudio.png")));
    QGuiApplication::setDesktopFileName(QStringLiteral("spikestudio"));  // the installed .desktop entry

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("SpikeStudio: build, run and inspect spiking neural networks."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(
        QStringLiteral("MODEL"),
        QStringLiteral("Model file (.json, a NIR graph .nir, or :/examples/NAME.json for a bundled "
                       "one) to open; default: the start page (examples, recent files, New network)."),
        QStringLiteral("[MODEL]"));
    const QCommandLineOption screenshotOption(
        QStringLiteral("screenshot"),
        QStringLiteral("Save a picture of the window to OUT (PNG) and exit; the window is "
                       "%1x%2 unless --size says otherwise.")
            .arg(kWindowWidth)
            .arg(kWindowHeight),
        QStringLiteral("OUT"));
    const QCommandLineOption sizeOption(
        QStringLiteral("size"),
        QStringLiteral("Window size WIDTHxHEIGHT in pixels (e.g. 1024x700), instead of the size "
                       "the last session left."),
        QStringLiteral("WxH"));
    const QCommandLineOption runStepsOption(
        QStringLiteral("run-steps"),
        QStringLiteral("Run the model for N steps of zero input after opening it."),
        QStringLiteral("N"));
    const QCommandLineOption runForOption(
        QStringLiteral("run-for"),
        QStringLiteral("Run the model for SECONDS of wall time (plots live) after opening it."),
        QStringLiteral("SECONDS"));
    const QCommandLineOption grabOption(
        QStringLiteral("grab"),
        QStringLiteral("What --screenshot pictures: window (default), canvas (the whole network, "
                       "fit to view) or plots; the example thumbnails are made of the last two."),
        QStringLiteral("PART"), QStringLiteral("window"));
    const QCommandLineOption autosaveOption(
        QStringLiteral("autosave-seconds"),
        QStringLiteral("Autosave the document to a recovery file every S seconds, which the next "
                       "start offers if this session does not end normally (default %1; above 0, "
                       "at most %2; never with --screenshot).")
            .arg(spike::ui::DocumentFile::kDefaultAutosaveIntervalMs / 1000)
            .arg(kMaxAutosaveSeconds),
        QStringLiteral("S"));
    parser.addOption(screenshotOption);
    parser.addOption(grabOption);
    parser.addOption(runStepsOption);
    parser.addOption(runForOption);
    parser.addOption(sizeOption);
    parser.addOption(autosaveOption);
    parser.process(app);

    QStringList positional = parser.positionalArguments();
    positional.removeAll(QString());  // an empty MODEL (a script's unset variable) is no model
    if (positional.size() > 1) {
        return failWith(QStringLiteral("expected at most one MODEL, got %1 (%2)")
                            .arg(positional.size())
                            .arg(positional.join(QStringLiteral(", "))));
    }
    int runSteps = 0;
    if (parser.isSet(runStepsOption)) {
        bool ok = false;
        runSteps = parser.value(runStepsOption).toInt(&ok);
        if (!ok || runSteps < 1 || runSteps > spike::ui::MainWindow::kMaxSteps) {
            return failWith(QStringLiteral("--run-steps expects a whole number from 1 to %1, got '%2'")
                                .arg(spike::ui::MainWindow::kMaxSteps)
                                .arg(parser.value(runStepsOption)));
        }
    }
    double runFor = 0.0;
    if (parser.isSet(runForOption)) {
        bool ok = false;
        runFor = parser.value(runForOption).toDouble(&ok);
        if (!ok || !(runFor > 0.0) || runFor > 3600.0) {
            return failWith(QStringLiteral("--run-for expects seconds above 0 and at most 3600, got '%1'")
                                .arg(parser.value(runForOption)));
        }
    }
    int autosaveMs = spike::ui::DocumentFile::kDefaultAutosaveIntervalMs;
    if (parser.isSet(autosaveOption)) {
        bool ok = false;
        const double seconds = parser.value(autosaveOption).toDouble(&ok);
        if (!ok || !(seconds > 0.0) || seconds > kMaxAutosaveSeconds) {
            return failWith(QStringLiteral("--autosave-seconds expects seconds above 0 and at most %1, got '%2'")
                                .arg(kMaxAutosaveSeconds)
                                .arg(parser.value(autosaveOption)));
        }
        autosaveMs = std::max(1, static_cast<int>(std::lround(seconds * 1000.0)));
    }
    QSize size;
    if (parser.isSet(sizeOption)) {
        const QStringList parts = parser.value(sizeOption).split(QLatin1Char('x'));
        bool okW = false;
        bool okH = false;
        if (parts.size() == 2) {
            size = QSize(parts[0].toInt(&okW), parts[1].toInt(&okH));
        }
        if (!okW || !okH || size.width() < kMinSide || size.height() < kMinSide ||
            size.width() > kMaxSide || size.height() > kMaxSide) {
            return failWith(QStringLiteral("--size expects WIDTHxHEIGHT in pixels, each from %1 to %2 "
                                           "(e.g. 1024x700), got '%3'")
                                .arg(kMinSide)
                                .arg(kMaxSide)
                                .arg(parser.value(sizeOption)));
        }
    }
    const bool screenshot = parser.isSet(screenshotOption);
    const QString grab = parser.value(grabOption);
    if (grab != QLatin1String("window") && grab != QLatin1String("canvas") && grab != QLatin1String("plots")) {
        return failWith(QStringLiteral("--grab expects window, canvas or plots, got '%1'").arg(grab));
    }

    spike::ui::MainWindow window;
    if (size.isValid()) {
        window.resize(size);
    } else if (screenshot) {
        window.resize(kWindowWidth, kWindowHeight);  // pictures do not depend on the last session
    } else if (!window.restoreWindowState()) {
        window.resize(window.defaultSize());
    }
    window.documentFile()->setAutosaveInterval(screenshot ? 0 : autosaveMs);
    if (screenshot) {
        window.show();  // the plots are laid out while they fill during --run-for
        settle();
    }
    QString error;
    QString failure;  // title of what went wrong (opening or running); empty when nothing did
    // In a session a NIR file asks how to discretise it, as File ▸ Open does, over the start
    // page (Cancel, or a failure in its own message box, leaves the page); a screenshot imports
    // it with the engine's defaults (1 ms, forward Euler).
    const bool askNir = !screenshot && !positional.isEmpty() &&
                        spike::engine::nir::isNirPath(positional.front().toStdString());
    const bool openFailed = !askNir && !positional.isEmpty() && !window.openModel(positional.front(), &error);
    if (positional.isEmpty() || openFailed || askNir) {
        window.showStartPage();  // a recovered document (offerRecovery() below) leaves it
    }
    bool nirDeclined = false;
    if (askNir) {
        window.show();
        window.openInteractively(positional.front());
        nirDeclined = window.modelSource() != positional.front();
    }
    if (openFailed) {
        failure = QObject::tr("Could not open model");
    } else if (nirDeclined) {
        runSteps = 0;
        runFor = 0.0;
    } else if (runSteps > 0) {
        window.stepsSpinBox()->setValue(runSteps);
        if (!window.runSteps(runSteps, &error)) {
            failure = QObject::tr("Run failed");
        }
    }
    if (failure.isEmpty() && runFor > 0.0 && !window.runFor(runFor, &error)) {
        failure = QObject::tr("Run failed");
    }

    if (screenshot) {
        if (!failure.isEmpty()) {
            return failWith(error);
        }
        const QString out = parser.value(screenshotOption);
        window.show();
        settle();
        QWidget* part = &window;
        if (grab == QLatin1String("canvas")) {
            window.canvas()->fitToView();  // the whole network, whatever share the layout gives it
            settle();
            part = window.canvas();
        } else if (grab == QLatin1String("plots")) {
            part = window.plotPanes();
        }
        const QPixmap picture = part->grab();
        if (picture.isNull() || !picture.save(out, "PNG")) {
            return failWith(QStringLiteral("could not write the screenshot to %1")
                                .arg(QDir::toNativeSeparators(QFileInfo(out).absoluteFilePath())));
        }
        return 0;
    }

    window.show();
    if (!failure.isEmpty()) {
        std::fprintf(stderr, "spikestudio: %s\n", qPrintable(error));
        QMessageBox::warning(&window, failure, error);
    }
    window.offerRecovery();
    return QApplication::exec();
}
