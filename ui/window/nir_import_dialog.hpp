// NirImportDialog: how to discretise a NIR file being opened (File ▸ Open, Open Recent, the start
// page's recent files, `spikestudio FILE.nir`). NIR graphs are continuous-time; the engine needs
// a time step and a discretisation (engine::nir::NirImportOptions) to make them run. The dialog
// offers the time step [ms], the methods of engine::nir::discretisations() with a one-line
// explanation of the one chosen, and whether the file's time constants count seconds or steps;
// OK remembers the choice (QSettings "nir/dtMs", "nir/discretisation", "nir/timeUnit") as the
// next default, Cancel changes nothing. It only asks: the caller
// imports. Thread: GUI thread.
#pragma once

#include "engine/nir/nir_import.hpp"

#include <QDialog>
#include <QString>

class QComboBox;
class QDialogButtonBox;
class QDoubleSpinBox;
class QLabel;

namespace spike::ui {

/// Modal dialog asking for the NirImportOptions of one file; see the file comment.
class NirImportDialog : public QDialog {
    Q_OBJECT

public:
    /// Smallest time step accepted [ms] (the toolbar's dt field has the same floor).
    static constexpr double kMinTimeStepMs = 0.001;
    /// Largest time step accepted [ms].
    static constexpr double kMaxTimeStepMs = 1000.0;

    /// For the file named `fileName` (shown in the text); the fields start from remembered().
    explicit NirImportDialog(const QString& fileName, QWidget* parent = nullptr);

    /// The options the fields say (dt in seconds).
    engine::nir::NirImportOptions options() const;
    /// The options chosen at the last OK (QSettings), or the engine's defaults (1 ms, "euler", s).
    static engine::nir::NirImportOptions remembered();
    /// Stores `options` as the next default.
    static void remember(const engine::nir::NirImportOptions& options);
    /// The menu text of a discretisation ("Forward Euler (NIR reference; Norse, snnTorch)"), or
    /// its name when the GUI has no text for it.
    static QString methodTitle(const QString& discretisation);
    /// One line on what a discretisation does.
    static QString methodExplanation(const QString& discretisation);

    QDoubleSpinBox* timeStepBox() const { return m_dt; }
    QComboBox* methodBox() const { return m_method; }
    /// Seconds or time steps: what the file's time constants count.
    QComboBox* timeUnitBox() const { return m_timeUnit; }
    /// The explanation under the method box.
    QLabel* explanationLabel() const { return m_explanation; }
    QDialogButtonBox* buttons() const { return m_buttons; }

    void accept() override;

private:
    void showExplanation();

    QDoubleSpinBox* m_dt = nullptr;
    QComboBox* m_method = nullptr;
    QComboBox* m_timeUnit = nullptr;
    QLabel* m_explanation = nullptr;
    QDialogButtonBox* m_buttons = nullptr;
};

}  // namespace spike::ui
