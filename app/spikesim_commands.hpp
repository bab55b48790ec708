// The spikesim commands (info, run, analyse), separated from main() so the CLI stays
// composition only.
// Called on the main thread; throw spike::engine::Error with a one-line message on failure.
#pragma once

#include "engine/core/module.hpp"
#include "engine/nir/nir_import.hpp"

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace spike::app {

/// Options of `spikesim run`.
struct RunOptions {
    std::string model;
    std::int64_t steps = 0;  ///< 0: the input's length
    std::string input;
    std::vector<std::string> record;
    std::string outDir;
    std::int64_t seed = -1;  ///< -1: keep the model's seeds
    bool progress = false;
    std::string stateDict;
    std::string backend = "auto";  ///< auto | cpu | cuda (the executor path)
    double realtime = 0.0;         ///< > 0: pace to this many simulated seconds per wall second
    bool backendGiven = false;     ///< --backend appeared on the command line
    int threads = 0;               ///< CPU threads (0: every core); results identical for any
    bool threadsGiven = false;     ///< --threads appeared on the command line
    engine::nir::NirImportOptions nir;  ///< --dt, --discretisation, --time-unit for a .nir model
};

/// Options of `spikesim analyse MODEL fi`.
struct FiCommandOptions {
    std::string model;
    std::string node;                   ///< dotted module path; "" is the root
    std::string current;                ///< START:STOP:COUNT; "" = engine::suggestedFiOptions
    std::optional<std::int64_t> steps;  ///< measured steps; default 1 s / dt
    std::int64_t warmupSteps = 0;
    std::string outPath;                ///< CSV file; "" writes the CSV to the output stream
    engine::nir::NirImportOptions nir;  ///< --dt, --discretisation, --time-unit for a .nir model
};

/// Runs `spikesim analyse MODEL fi` (spikesim_analyse.cpp): writes the CSV (current, rate_hz,
/// first_isi_rate_hz[, analytic_hz]) to options.outPath with a one-line summary on `out`, or
/// the CSV itself on `out` without --out. Returns 0; throws Error for bad input.
int analyseFi(const FiCommandOptions& options, std::ostream& out);

/// Options of `spikesim analyse MODEL sweep`.
struct SweepCommandOptions {
    std::string model;
    std::string node;                   ///< dotted module path; "" is the root
    std::vector<std::string> params;    ///< NAME=START:STOP:COUNT, one or two
    std::string measure = "rate";       ///< rate | cv | spikes | peak
    std::string state;                  ///< for peak: the state; "" = the membrane
    double current = 0.0;               ///< constant input per step on every input channel
    std::optional<std::int64_t> steps;  ///< measured steps; default 1 s / dt
    std::int64_t warmupSteps = 0;
    std::string outPath;                ///< CSV file; "" writes the CSV to the output stream
    engine::nir::NirImportOptions nir;  ///< --dt, --discretisation, --time-unit for a .nir model
};

/// Runs `spikesim analyse MODEL sweep` (spikesim_analyse.cpp): writes the CSV (NAME1[,NAME2],
/// MEASURE; one row per grid point, x-major) to options.outPath with a one-line summary on `out`,
/// or the CSV itself on `out` without --out. Returns 0; throws Error for bad input.
int analyseSweep(const SweepCommandOptions& options, std::ostream& out);

/// Options of `spikesim analyse MODEL phase`.
struct PhaseCommandOptions {
    std::string model;
    std::string node;                   ///< dotted module path; "" is the root
    std::string x;                      ///< horizontal state; "" = suggested (the membrane)
    std::string y;                      ///< vertical state; "" = suggested (the next state)
    std::string range;                  ///< XMIN:XMAX,YMIN:YMAX; "" = suggested
    std::int64_t grid = 21;             ///< vector-field arrows per axis
    std::int64_t resolution = 201;      ///< nullcline grid points per axis
    double current = 0.0;               ///< constant input per step on the input port
    std::int64_t neuron = 0;            ///< whose parameters and other states are used
    std::string outPath;                ///< JSON file; "" writes the JSON to the output stream
    engine::nir::NirImportOptions nir;  ///< --dt, --discretisation, --time-unit for a .nir model
};

/// Runs `spikesim analyse MODEL phase` (spikesim_phase.cpp): writes the phase portrait as JSON
/// (axes, vector field, nullclines, fixed points; docs/analysis.md) to options.outPath with a
/// summary of the fixed points on `out`, or the JSON itself on `out` without --out. Returns 0;
/// throws Error for bad input.
int analysePhase(const PhaseCommandOptions& options, std::ostream& out);

/// Options of `spikesim analyse MODEL isi`.
struct IsiCommandOptions {
    std::string model;
    std::string record;        ///< PATH.signal of a spiking output ("E.spikes")
    std::int64_t steps = 0;    ///< steps to run (zero input), >= 1
    std::int64_t bins = 50;    ///< ISI histogram bins
    std::int64_t window = 0;   ///< Fano window [steps]; 0: 100 ms
    std::string backend = "auto";
    std::string outPath;       ///< CSV file; "" writes the CSV to the output stream
    engine::nir::NirImportOptions nir;  ///< --dt, --discretisation, --time-unit for a .nir model
};

/// Runs `spikesim analyse MODEL isi` (spikesim_analyse.cpp): runs the model for options.steps
/// steps recording options.record, then writes the ISI histogram CSV (isi_start_s, isi_end_s,
/// count) to options.outPath with a summary (rates, ISI mean, CV, Fano factor) on `out`, or the
/// CSV itself on `out` without --out. Returns 0; throws Error for bad input.
int analyseIsi(const IsiCommandOptions& options, std::ostream& out);

/// Options of `spikesim analyse MODEL divergence`.
struct DivergenceCommandOptions {
    std::string model;
    std::int64_t steps = 0;          ///< steps to run in lock-step, >= 1
    std::string a = "cpu";           ///< side A: cpu, cpu:THREADS or cuda
    std::string b = "cuda";          ///< side B
    std::vector<std::string> set;    ///< PATH.NAME[=INDEX]=VALUE changes of side B
    double input = 0.0;              ///< constant input on every input channel of the root
    std::string outPath;             ///< CSV file; "" writes the CSV to the output stream
    engine::nir::NirImportOptions nir;  ///< --dt, --discretisation, --time-unit for a .nir model
};

/// Runs `spikesim analyse MODEL divergence` (spikesim_analyse.cpp): engine::backendDivergence of
/// the model between sides A and B, written as CSV (comment lines with the sides and the first
/// spike difference, then step, time_s and one column per State of max |a - b|) to
/// options.outPath with a summary on `out`, or the CSV itself on `out` without --out. Returns 0;
/// throws Error for bad input (a side that is not available here among them).
int analyseDivergence(const DivergenceCommandOptions& options, std::ostream& out);

/// Text of `spikesim info MODEL`: paths, types, shapes and attributes by kind and family (for
/// a .nir model, also its NIR version and what the import adapted).
std::string describeModel(const std::string& modelPath,
                          const engine::nir::NirImportOptions& nir = {});

/// Options of `spikesim convert IN OUT`.
struct ConvertOptions {
    std::string input;   ///< .nir or .json
    std::string output;  ///< .json or .nir (the other format, or the same to normalise)
    engine::nir::NirImportOptions nir;  ///< how a .nir input is discretised
};

/// Runs `spikesim convert` (spikesim_convert.cpp): reads IN in its format and writes OUT in the
/// format its extension names. What NIR cannot hold is listed on `err`, one "left out:" line
/// per module path, before the file is written; import notes likewise. Returns 0; throws Error.
int convertModel(const ConvertOptions& options, std::ostream& out, std::ostream& err);
/// Runs `spikesim run`; prints the one-line summary to `out`, progress to `err`. Returns 0.
/// Networks, --backend and --realtime run through an executor (runOnExecutor); other models
/// with batched input or nested recordings through Module::evolve().
int runModel(const RunOptions& options, std::ostream& out, std::ostream& err);

/// The executor path of `spikesim run` (spikesim_executor_run.cpp): `input` is (T, Nin) with
/// at least `steps` rows; recordings name leaf modules of the compiled plan ("E.spikes").
void runOnExecutor(engine::Module& root, const RunOptions& options, const engine::Tensor& input,
                   std::int64_t steps, const std::vector<std::string>& keys, std::ostream& out,
                   std::ostream& err);

}  // namespace spike::app
