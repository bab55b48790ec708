// MainWindow: SpikeStudio's main window, composition of the editor and the live plots.
//
// Owns: the GraphDocument (the model being edited, with its undo stack), its DocumentFile
// (path, modified flag, recent files, autosave and recovery), the centre (breadcrumb + canvas
// above, membrane-potential and spike-raster plots below, time axes linked), the docks
// ("Palette", "Modules", "Inspector", "Equations"), the menus and the run toolbar, and the
// RunSession of the document (ui/run/run_session.hpp: when a run starts, how edits reach it,
// rebuilds), whose run the plots show (the plot requests are routed here).
// Invariants: the canvas, the Modules tree and the Inspector show the same document; the
// Inspector dock shows the connection panel exactly while one wire (or a projection) is selected;
// the canvas and tree selections agree (both ways); a failed open keeps the document; the
// window title is DocumentFile::windowTitle().
// The public API never opens a dialog (tests and the screenshot mode call it); menu actions call
// it and show failures in message boxes. Run / Step go through the SimulationController's
// worker thread (LiveRun); plots redraw on LiveRun's timer, never per step.
// Files: main_window.cpp (construction, docks, selection), main_window_actions.cpp (actions,
// menus, toolbar), main_window_files.cpp (file commands and their dialogs, exports, close and
// recovery), main_window_run.cpp (run controls), main_window_threads.cpp (Simulation ▸ CPU
// Threads), main_window_plots.cpp (plot requests and routing), main_window_help.cpp (the Help menu),
// main_window_start.cpp (the start page in the centre, before any model), main_window_nir.cpp
// (NIR files: import with its dialog, File ▸ Export ▸ NIR…).
// Thread: GUI thread only.
#pragma once

#include "ui/document/graph_document.hpp"

#include "engine/core/recording.hpp"
#include "engine/nir/nir_import.hpp"

#include <QElapsedTimer>
#include <QList>
#include <QPointer>
#include <QMainWindow>
#include <QString>
#include <QStringList>

#include <array>
#include <memory>
#include <utility>
#include <vector>

class QAction;
class QActionGroup;
class QComboBox;
class QCustomPlot;
class QDoubleSpinBox;
class QDockWidget;
class QLabel;
class QMenu;
class QSpinBox;
class QSplitter;
class QTimer;
class QStackedWidget;

namespace spike::ui {

class ConnectionPanel;
class DocumentFile;
class DocumentTree;
class EquationPanel;
class EquationView;
class GraphBreadcrumb;
class GraphCanvas;
class Inspector;
class LayerHistogramDialog;
class LiveRun;
class PaletteWidget;
class PlotPanes;
class RasterPlot;
class RunSession;
class StartPage;
class TracePlot;

/// The application window; see the file comment.
class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    /// Steps the Step spin box starts at.
    static constexpr int kDefaultSteps = 1000;
    /// Smallest time step the toolbar's dt field takes [ms].
    static constexpr double kMinTimeStepMs = 0.001;
    /// Largest number of steps one Step may take.
    static constexpr int kMaxSteps = 1000000;  // RunSession::kMaxSteps

    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // ---- files (no dialogs) -------------------------------------------------------------------
    /// Opens a model file (or a bundled ":/examples/..." one). On failure returns false, stores
    /// the engine's message (file, JSON path, what was expected) in `error`, shows it in the
    /// status bar and keeps the current document.
    bool openModel(const QString& path, QString* error = nullptr);
    /// Imports a NIR file (engine::nir::loadNir with `options`; docs/nir.md) as the document,
    /// untitled under the file's name so that Save asks for a JSON file. On failure returns
    /// false with the engine's one line in `error` and the status bar, keeping the current
    /// document. `notes` receives what the import adapted (renamed nodes, defaults filled in),
    /// which the status bar also counts. openModel() of a .nir path imports with the engine's
    /// default options (1 ms, forward Euler).
    bool openNir(const QString& path, const engine::nir::NirImportOptions& options,
                 QString* error = nullptr, QStringList* notes = nullptr);
    /// Like openModel, from JSON text; `sourceName` names it in messages.
    bool openModelFromJson(const QByteArray& text, const QString& sourceName,
                           QString* error = nullptr);

    // ---- running (no dialogs) -----------------------------------------------------------------
    /// Runs `steps` more steps of zero input on the worker as fast as possible and waits for them
    /// (at most a minute), then redraws the plots. States carry over between calls until resetState() or an edit.
    bool runSteps(int steps, QString* error = nullptr);
    /// Runs freely for `seconds` of wall time with the plots redrawing live, then pauses.
    bool runFor(double seconds, QString* error = nullptr);
    /// Whether the simulation is running freely (Run pressed, not paused).
    bool isRunning() const;
    /// Resets the simulation to step 0 and empties the plots.
    void resetState();
    /// Selects the module at dotted `path` ("" is the root) in the tree, the canvas (showing its
    /// parent) and the inspector; false when there is none.
    bool selectModule(const QString& path);
    /// Opens a trace pane plotting `signal` of the module at `path` from the next samples on
    /// (the canvas' node or port menu ▸ Plot): a State ("i_exc", "refrac", "v", an LSTM's "h"),
    /// "out" (the whole output of a non-spiking module), a named non-spiking output port, or a
    /// signal the module records ("value_prefix"); "spikes" of a spiking module makes the
    /// raster show only the chosen neurons of it (no pane; "all" shows every neuron again).
    /// Modules inside a composite (a
    /// DynamicsNetwork's "lstm") are recorded through it. Selects the module. False, with the
    /// reason in `error` and the status bar, when the module has no such signal.
    /// `neurons` chooses which channels (neuron_selection.hpp: "all", "0-99", "1, 5, 7-9",
    /// "random 20"); `key` receives the new pane's key in plotPanes().
    bool plotSignal(const QString& path, const QString& signal, const QString& neurons = QStringLiteral("all"),
                    QString* error = nullptr, int* key = nullptr);
    /// Closes the trace pane `key` made by plotSignal() (its Close button) and stops recording it.
    void closePlotPane(int key);

    // ---- what is shown ------------------------------------------------------------------------
    GraphDocument* document() const { return m_doc; }
    DocumentFile* documentFile() const { return m_file; }
    /// The document's model (root module).
    const engine::Module* model() const;
    /// Path or resource name of the last opened model (empty for a new document).
    const QString& modelSource() const { return m_source; }
    /// Rolling recording of the current run, or nullptr before a run and after a reset or edit.
    const engine::Recording* lastRecording() const;
    /// Steps simulated since the last reset (0 without a run).
    std::int64_t simulatedSteps() const;
    /// Dotted path of the module shown in the inspector (null QString when none).
    QString selectedModulePath() const;

    GraphCanvas* canvas() const { return m_canvas; }
    GraphBreadcrumb* breadcrumb() const { return m_breadcrumb; }
    PaletteWidget* palette() const { return m_palette; }
    DocumentTree* moduleTree() const { return m_tree; }
    /// The "Inspector" dock: the registry-generated editor of the selected module.
    Inspector* inspector() const { return m_inspector; }
    /// What the "Inspector" dock shows instead while one wire is selected (on the canvas, or its
    /// projection in the Modules tree): the wire's projection kind, flag and weights.
    ConnectionPanel* connectionPanel() const { return m_connectionPanel; }
    /// Whether the Inspector dock shows the connection panel (a wire is selected).
    bool showsConnectionPanel() const;
    /// The selection pane (key 0 of plotPanes()): the membrane of the selected neuron layer.
    TracePlot* tracePlot() const { return m_tracePlot; }
    /// The plot area: the raster, the selection pane and one pane per plotSignal().
    PlotPanes* plotPanes() const { return m_panes; }
    RasterPlot* rasterPlot() const { return m_rasterPlot; }
    QSpinBox* stepsSpinBox() const { return m_steps; }
    /// The "Equations" dock (tabbed with the Inspector): the selected model's equations, its
    /// symbols linked to the Inspector's rows.
    EquationView* equationsView() const { return m_equations; }
    /// The Equations tab: the view and its neuron / values row.
    EquationPanel* equationPanel() const { return m_equationPanel; }
    /// The toolbar's time step [ms] (the dt of every module that has one).
    QDoubleSpinBox* timeStepSpinBox() const { return m_dt; }
    /// The toolbar's backend choice (CPU, CUDA; CUDA disabled with the reason without a device).
    QComboBox* backendComboBox() const { return m_backend; }
    /// The status bar's clock: "t = 30.0 ms (300 steps)", or "300 steps" for a model without dt.
    QString clockText() const;
    /// Steps per second of the run, measured over the last half second or more (0 when idle).
    double stepsPerSecond() const { return m_stepsPerSecond; }
    /// The status bar's speed: "1,000 steps/s · ×1 real time" (no factor for `dtS` 0: no dt).
    static QString rateText(double stepsPerSecond, double dtS);
    /// Whether the status bar shows "Preparing the run…" with a busy bar: a new run was started
    /// (Run or Step) and its first steps have not arrived after the preparing delay (the
    /// simulation thread is drawing synapses and building its plan; the window stays usable).
    bool isPreparingShown() const;
    /// How long [ms] a start may take before the status bar says so (default 150).
    void setPreparingDelay(int ms);
    /// The action with this object name ("action.save", "action.group", ...), or nullptr.
    QAction* action(const QString& objectName) const;
    /// (command, keys) of every action that has a shortcut, by command: Help ▸ Keyboard Shortcuts.
    std::vector<std::pair<QString, QString>> shortcuts() const;
    /// Help ▸ About's text: versions of SpikeStudio, Qt, QCustomPlot; whether CUDA can run here.
    QString aboutText() const;

    // ---- window layout (QSettings "window/...") ------------------------------------------------
    /// The window's size on first start: 1400x900, or the screen's available area when smaller.
    QSize defaultSize() const;
    /// Restores the geometry, the docks' arrangement and the editor/plots split that the last
    /// session saved; false (nothing changed) when there is none or it does not apply.
    bool restoreWindowState();
    /// Saves what restoreWindowState() restores; called when the window closes.
    void saveWindowState() const;
    /// View ▸ Reset Layout: every dock back where a new installation has it (Inspector and
    /// Equations tabbed on the right, Palette and Modules on the left), sized for the window,
    /// in the Edit layout.
    void resetLayout();
    /// The window's arrangements for the work at hand (View ▸ Layout, Ctrl+1/2/3).
    enum class WorkLayout {
        Edit,     ///< palette, modules and inspector docks; the canvas 60 % of the centre
        Run,      ///< inspector only; the plots 72 % of the centre
        Analyse,  ///< no docks; the plots all but a strip of canvas
    };
    /// Switches to `layout` (dock visibility and the editor/plots split; the split each layout
    /// had last in this session comes back).
    void setWorkLayout(WorkLayout layout);
    WorkLayout workLayout() const { return m_workLayout; }
    /// View ▸ Layout ▸ Grow Plots When a Run Starts: a run started in Edit switches to Run, and
    /// Reset (or another document) switches back while the user has not picked a layout since.
    bool growsPlotsOnRun() const { return m_growPlotsOnRun; }

    // ---- start page (main_window_start.cpp) ----------------------------------------------------
    /// Shows the start page (examples, recent files, New network, Open…) in place of the canvas
    /// and plots, until something changes the document (New, Open, an example, a recent file, a
    /// palette module added or dropped, any edit) or "New network" is chosen.
    void showStartPage();
    /// Whether the centre shows the start page.
    bool startPageShown() const;
    StartPage* startPage() const { return m_startPage; }

    // ---- interactive helpers (dialogs) --------------------------------------------------------
    /// Opens `path` the way File ▸ Open does after its file dialog (Open Recent, the start page
    /// and `spikestudio FILE` in a session come here too): asks about unsaved changes; a .nir
    /// file first asks how to discretise it (NirImportDialog; Cancel keeps the document) and
    /// shows the import's notes, if any, in a box that does not block; failures in a message box.
    void openInteractively(const QString& path);
    /// File ▸ Export ▸ NIR…: exports the document's model (engine::nir::exportNir), lists what
    /// NIR cannot hold (NirExportDialog: Export without them / Cancel), asks for a .nir file name
    /// and writes it; failures in a message box. The document is not changed.
    void exportNirInteractively();
    /// Asks about unsaved changes (Save / Discard / Cancel); true when it is fine to go on.
    bool maybeSave();
    /// Offers the recovery files of sessions that crashed (newest first), one dialog each.
    void offerRecovery();

protected:
    void showEvent(QShowEvent* event) override;
    void closeEvent(QCloseEvent* event) override;

private:
    // main_window.cpp
    void buildCentre();
    void buildDocks();
    // main_window_layouts.cpp
    /// Sizes the docks and the editor/plots split for the window's current size.
    void applyDefaultSizes();
    void buildLayoutMenu(QMenu* view);
    void syncLayoutActions();
    /// The editor/plots split of `layout`: remembered from this session or its default share.
    void applySplit(WorkLayout layout);
    void growPlotsForRun();
    void undoAutomaticRunLayout();
    void onCanvasSelection(const QList<NodeId>& nodes);
    void onTreeSelection(const QList<NodeId>& nodes);
    /// The node the inspector shows for a new selection (canvas or tree); see its comment.
    NodeId inspectedFor(const QList<NodeId>& nodes);
    void showInInspector(NodeId id);
    /// Shows wire `id` in the Inspector dock (the connection panel).
    void showConnection(ConnectionId id);
    void onDocumentReset();
    void onStructureChanged();
    void onAttributeChanged(NodeId id, const QString& name);
    // main_window_actions.cpp
    QAction* makeAction(const QString& name, const QString& text, const QKeySequence& key,
                        const QString& tip);
    void buildActions();
    void buildMenus();
    void buildToolBar();
    void updateTitle();
    void updateEditActions();
    /// The status bar says what an edit, undo or redo did (the undo stack's index moved).
    void reportEdit(int index);
    // main_window_files.cpp
    void rebuildRecentMenu();
    void promptOpen();
    /// Opens a path the user chose (after maybeSave()): a .nir through its dialog, failures in
    /// a message box.
    void openFileChosen(const QString& path);
    bool saveInteractively();
    bool saveAsInteractively();
    void newInteractively();
    void exportPlotInteractively(QCustomPlot* plot, const QString& suffix);
    void exportRecordingsInteractively();
    // main_window_nir.cpp
    /// openInteractively() of a .nir file, after maybeSave().
    void openNirInteractively(const QString& path);
    // main_window_start.cpp
    /// Puts the centre and the start page in one stack (after buildCentre()) and wires the page.
    void buildStartPage();
    /// The centre shows the canvas and plots again.
    void leaveStartPage();
    // main_window_analyse.cpp
    /// Opens the dialog of `analysis` ("fi", "sweep" or "phase") for node `id`.
    void openAnalysis(NodeId id, const QString& analysis);
    /// View ▸ Analyse: the analyses of the one selected neuron population.
    void buildAnalyseMenu(QMenu* view);
    // main_window_threads.cpp
    /// Simulation ▸ CPU Threads, set to the user's kept choice.
    void buildThreadsMenu(QMenu* simulation);
    /// Checks `threads`' entry and hands it to the session (a running simulation moves to it);
    /// `chosen` (by the user): keeps it (QSettings "run/threads") and says so in the status bar.
    void applyThreads(int threads, bool chosen);
    // main_window_help.cpp
    void buildHelpMenu();
    void showShortcuts();
    void showAbout();
    // main_window_run.cpp
    /// The session's run, or nullptr.
    LiveRun* run() const;
    /// The inspector's States group: the paused run's values of the inspected module, or a
    /// note that they are the initial ones while it runs, or the model's without a run.
    void refreshRunStates();
    /// Fills the Equations tab's values: the running copy's (paused or running) for the module
    /// shown, else the document's; called on a timer while the tab is visible.
    void refreshEquationValues();
    /// The run's activation statistics to the canvas's composite view and the open weights and
    /// activations dialogs (main_window_analyse.cpp); every 500 ms while either looks, and the
    /// run's hooks taken off when nothing does.
    void refreshActivations();
    /// The run ended: plot requests lose their traces, the plots show `reason`.
    void onRunDropped(const QString& reason);
    // main_window_plots.cpp
    void refreshPlots();
    void clearPlots(const QString& explanation);
    void showWholeRun();
    /// A model without spikes or membranes gets a pane of its first recordable signal.
    void openOutputPane();
    /// The plots' live span for the document's model (PlotPanes::defaultSpan()).
    void chooseDefaultSpan();
    /// Records every plot request that has no trace in the run yet (a new run, a rebuild that
    /// brought a module back); a request whose trace the run dropped shows why in its pane.
    void attachPlotRequests();
    /// Right-click export menu and double-click "whole window" on a plot.
    void installPlotMenu(QCustomPlot* plot);
    /// Closes every requested pane, then opens the panes the document's "plots" entry names.
    void openDocumentPlots();
    /// Writes the open panes into the document's "plots" extras (saved with the model file).
    void storePlotRequests();
    /// Hides the raster of a model without spiking modules when another pane shows something
    /// (its membrane in the selection pane, a requested signal), and the selection pane of one
    /// without a membrane when other panes show something.
    void showUsefulPanes();
    // main_window_run.cpp
    void updateRunControls();
    /// Builds the status bar's busy bar (hidden) for "Preparing the run…" and "Opening NAME…",
    /// with their timers, once.
    void buildPreparingIndicator();
    /// Hides the busy bar and its message (the run's first steps are in, it paused or failed or
    /// was dropped; the file is read).
    /// Once per new reason: the status bar says equation neurons run interpreted because their
    /// native code could not be built (no C++ compiler; docs/equations.md).
    void reportNativeFailure();
    void endPreparing();
    void applySpeed();
    void applyBackend();
    void applyTimeStep();
    /// The toolbar's dt: the first module's time step; when modules disagree
    /// (Module::timeStepConflict()), its tooltip says which, and the status bar once per new
    /// conflict, since a value entered there gives every module the same dt.
    void showTimeStep();
    void measureRate();
    QString tracedPath() const;

    GraphDocument* m_doc = nullptr;
    DocumentFile* m_file = nullptr;
    RunSession* m_session = nullptr;  ///< the run policy; owns the LiveRun
    QActionGroup* m_threadsGroup = nullptr;  ///< Simulation ▸ CPU Threads (data: the count)
    QString m_source;
    QString m_lastDir;
    NodeId m_inspected;
    /// A trace pane opened by plotSignal(): what it records and its trace in the run.
    struct PlotRequest {
        int key = 0;              ///< pane key in m_panes
        QString path;             ///< the module as the user named it
        QString probePath;        ///< the module the run records it through
        std::string signal;       ///< the signal as the run names it ("lstm.h" through "dynamics")
        QString label;            ///< the signal as the user named it
        std::vector<std::int64_t> neurons;  ///< channels (empty: all)
        QString neuronsText;      ///< the selection as the user typed it ("all", "0-99", "random 20")
        int traceId = 0;          ///< LiveRun trace id, 0 while not recorded
        QString why;              ///< why it is not recorded (shown in the pane)
    };
    std::vector<PlotRequest> m_plotRequests;
    int m_nextPaneKey = 1;
    bool m_openingDocumentPlots = false;  ///< openDocumentPlots() is opening the file's panes
    bool m_attaching = false;  ///< attachPlotRequests() is adding traces (their tracesChanged)
    bool m_syncingSelection = false;
    QList<NodeId> m_lastSelection;  ///< the selection inspectedFor() saw last
    bool m_docksSized = false;
    WorkLayout m_workLayout = WorkLayout::Edit;
    bool m_growPlotsOnRun = true;
    bool m_autoRunLayout = false;  ///< the Run layout came from starting a run, not from the user
    std::array<QList<int>, 3> m_splits;  ///< each layout's last editor/plots split (by WorkLayout)
    int m_undoIndex = 0;  ///< the undo stack's index reportEdit() saw last

    GraphCanvas* m_canvas = nullptr;
    GraphBreadcrumb* m_breadcrumb = nullptr;
    PaletteWidget* m_palette = nullptr;
    DocumentTree* m_tree = nullptr;
    Inspector* m_inspector = nullptr;
    ConnectionPanel* m_connectionPanel = nullptr;
    QStackedWidget* m_inspectorStack = nullptr;  ///< m_inspector or m_connectionPanel
    TracePlot* m_tracePlot = nullptr;
    RasterPlot* m_rasterPlot = nullptr;
    QSplitter* m_centre = nullptr;
    QStackedWidget* m_centreStack = nullptr;  ///< m_centre or m_startPage
    StartPage* m_startPage = nullptr;
    PlotPanes* m_panes = nullptr;
    QSpinBox* m_steps = nullptr;
    QComboBox* m_speed = nullptr;
    QComboBox* m_backend = nullptr;
    QDoubleSpinBox* m_dt = nullptr;
    QLabel* m_rate = nullptr;
    double m_stepsPerSecond = 0.0;
    QWidget* m_preparing = nullptr;   ///< status bar: the busy bar beside "Preparing the run…"
    QTimer* m_preparingTimer = nullptr;  ///< single shot: shows m_preparing after the delay
    bool m_runReported = false;  ///< the new run has reported running or paused
    std::string m_nativeFailureShown;  ///< engine::equations::lastNativeFailure() last reported
    std::string m_timeStepConflict;    ///< Module::timeStepConflict() of the document, last shown
    std::int64_t m_rateSteps = 0;     ///< step count at the start of the rate window
    qint64 m_rateStartMs = 0;         ///< [ms] wall time at the start of the rate window
    QElapsedTimer m_wallClock;        ///< started with the window
    QLabel* m_clock = nullptr;
    QDockWidget* m_paletteDock = nullptr;
    QDockWidget* m_modulesDock = nullptr;
    QDockWidget* m_attributesDock = nullptr;
    QDockWidget* m_equationsDock = nullptr;
    EquationView* m_equations = nullptr;
    EquationPanel* m_equationPanel = nullptr;
    QTimer* m_equationTimer = nullptr;  ///< refreshes the values while the Equations tab shows
    QTimer* m_activationTimer = nullptr;  ///< refreshActivations()
    bool m_activationsWatched = false;    ///< the run's ActivationMonitor is on
    QList<QPointer<LayerHistogramDialog>> m_histograms;  ///< open weights and activations dialogs
    QMenu* m_recentMenu = nullptr;
    QMenu* m_examplesMenu = nullptr;
    QAction* m_runAction = nullptr;
};

}  // namespace spike::ui
