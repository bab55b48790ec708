// MainWindow: SpikeStudio's main window. Owns the loaded model (module tree) and the recording
// of its last run; composes the "Modules" tree dock, the "Attributes" dock, the membrane
// potential and spike raster plots (stacked in a splitter, time axes linked) and the Run/Reset
// toolbar. Invariants: a failed load keeps the previous model; the recording, when present,
// was made by the current model since its last load or state reset.
// Runs the model on the GUI thread for now (a later change moves evolution to a worker).
// The public API below never opens a dialog (tests and the screenshot mode call it); the menu
// and toolbar actions call it and show failures in a message box.
// Thread: GUI thread only.
#pragma once

#include "engine/module.hpp"
#include "engine/recording.hpp"

#include <QMainWindow>
#include <QString>

#include <memory>
#include <optional>

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QSpinBox;
class QSplitter;

namespace spike::ui {

class AttributeTable;
class ModuleTreeWidget;
class RasterPlot;
class TracePlot;
struct LoadedModel;

/// The application window: module tree, attribute view, run controls and plots.
class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    /// Steps the Run spin box starts at.
    static constexpr int kDefaultSteps = 1000;
    /// Largest number of steps one run may take.
    static constexpr int kMaxSteps = 1000000;

    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Loads a model file (or a bundled one when `path` starts with ":/") and shows it.
    /// On failure returns false, stores the engine's message in `error` (when given), shows it
    /// in the status bar and keeps the current model.
    bool openModel(const QString& path, QString* error = nullptr);
    /// Like openModel, from JSON text; `sourceName` names it in messages and the title.
    bool openModelFromJson(const QByteArray& text, const QString& sourceName,
                           QString* error = nullptr);
    /// Evolves the model over `steps` steps of zero input, recording everything, and plots the
    /// result. States carry over from the previous run. On failure returns false with the
    /// message in `error` and the status bar; the model is then left as the engine left it.
    bool runSteps(int steps, QString* error = nullptr);
    /// Resets every module's state and forgets the last recording.
    void resetState();
    /// Selects the module at dotted `path` ("" is the root); false when there is none.
    bool selectModule(const QString& path);

    /// The loaded model, or nullptr.
    const engine::Module* model() const { return m_model.get(); }
    /// Path or resource name the model was loaded from (empty when none).
    const QString& modelSource() const { return m_source; }
    /// Recording of the last run, or nullptr before a run and after a reset.
    const engine::Recording* lastRecording() const;
    /// Dotted path of the selected module (null QString when nothing is selected).
    QString selectedModulePath() const;

    /// The "Modules" dock's tree (one item per module, path in ModuleTreeWidget::PathRole).
    ModuleTreeWidget* moduleTree() const { return m_tree; }
    /// The "Attributes" dock's table of the selected module's registry.
    AttributeTable* attributeTable() const { return m_attributes; }
    /// Upper plot: membrane potential traces of the selected module.
    TracePlot* tracePlot() const { return m_tracePlot; }
    /// Lower plot: spike raster of every spiking module.
    RasterPlot* rasterPlot() const { return m_rasterPlot; }
    /// The toolbar's step count for Run.
    QSpinBox* stepsSpinBox() const { return m_steps; }

protected:
    void showEvent(QShowEvent* event) override;

private:
    void buildActions();
    void buildMenus();
    void buildToolBar();
    void buildDocks();
    void buildCentre();
    /// The module at `path` in the current model, or nullptr.
    const engine::Module* moduleAt(const QString& path) const;
    bool adopt(LoadedModel loaded, const QString& source, QString* error);
    void showSelectedModule(const QString& path);
    void refreshTraces();
    void clearPlots(const QString& explanation);
    /// Time axes back to the whole last run.
    void showWholeRun();
    void updateControls();
    void promptOpen();
    void openInteractively(const QString& path);
    void runInteractively();

    std::unique_ptr<engine::Module> m_model;
    QString m_source;
    std::optional<engine::Recording> m_recording;
    double m_runStartMs = 0.0;  ///< [ms] time span of m_recording
    double m_runEndMs = 0.0;
    QString m_lastDir;

    ModuleTreeWidget* m_tree = nullptr;
    AttributeTable* m_attributes = nullptr;
    TracePlot* m_tracePlot = nullptr;
    RasterPlot* m_rasterPlot = nullptr;
    QSplitter* m_plotSplitter = nullptr;
    QSpinBox* m_steps = nullptr;
    QLabel* m_clock = nullptr;
    QDockWidget* m_modulesDock = nullptr;
    QDockWidget* m_attributesDock = nullptr;
    bool m_docksSized = false;
    QMenu* m_examplesMenu = nullptr;
    QAction* m_openAction = nullptr;
    QAction* m_quitAction = nullptr;
    QAction* m_runAction = nullptr;
    QAction* m_resetAction = nullptr;
};

}  // namespace spike::ui
