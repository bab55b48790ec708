// spikesim: the headless runner. Composition only: parses the command line (CLI11) and calls the
// engine. Links the engine alone (no Qt). Every failure prints one line naming the file, JSON
// path or attribute at fault and exits non-zero; output files are written only after a run has
// succeeded, each atomically, so no partial file is ever left looking complete.
#include "engine/io/model_io.hpp"
#include "engine/io/module_factory.hpp"
#include "engine/tensor/npy.hpp"
#include "app/spikesim_commands.hpp"

#include <CLI/CLI.hpp>

#include <iostream>

int main(int argc, char** argv)
{
    CLI::App app{"spikesim: run SpikeStudio models (JSON or NIR) without the GUI"};
    app.require_subcommand(1);

    // How a .nir model (continuous time) is discretised: every command that reads a model.
    spike::engine::nir::NirImportOptions nir;
    const auto nirOptions = [&nir](CLI::App* cmd) {
        cmd->add_option("--dt", nir.dt, "Time step [s] for a .nir model (default 1e-3)")
            ->check(CLI::Range(1e-9, 1e3));
        cmd->add_option("--discretisation", nir.discretisation,
                        "How a .nir model's neurons integrate: euler (NIR's reference, Norse, "
                        "snnTorch; default), exact (exponential decay, input held) or rockpool "
                        "(as Rockpool simulates what it exported)")
            ->check(CLI::IsMember(spike::engine::nir::discretisations()));
        cmd->add_option("--time-unit", nir.timeUnit,
                        "What a .nir model's time constants and delays count: s (seconds, as "
                        "NIR says; default) or steps (of dt; Sinabs writes tau so)")
            ->check(CLI::IsMember(spike::engine::nir::timeUnits()));
    };

    std::string infoModel;
    auto* info = app.add_subcommand("info", "Print a model's module tree and attributes");
    info->add_option("MODEL", infoModel, "Model file (.json or .nir)")->required();
    nirOptions(info);

    spike::app::ConvertOptions convert;
    auto* convertCmd = app.add_subcommand(
        "convert", "Convert a model between the JSON model format and NIR (by the file names)");
    convertCmd->add_option("IN", convert.input, "Model file to read (.json or .nir)")->required();
    convertCmd->add_option("OUT", convert.output, "File to write (.nir or .json)")->required();
    nirOptions(convertCmd);

    spike::app::RunOptions run;
    auto* runCmd = app.add_subcommand("run", "Evolve a model and write recordings as .npy");
    runCmd->add_option("MODEL", run.model, "Model file (.json or .nir)")->required();
    nirOptions(runCmd);
    runCmd->add_option("--steps", run.steps, "Number of time steps (default: the input's length)")
        ->check(CLI::Range(std::int64_t{1}, std::int64_t{1000000000}));
    runCmd->add_option("--input", run.input, "Input .npy, (T, Nin) or (B, T, Nin), or .npz with one (T, N) array per input port (a NIR graph's Input nodes, by name); default zeros");
    runCmd->add_option("--record", run.record,
                       "Signal to record as PATH.ATTR (ATTR for the root module); repeatable");
    runCmd->add_option("--out", run.outDir, "Folder for recordings (written as PATH.ATTR.npy)");
    runCmd->add_option("--seed", run.seed, "Seed for every module's random generator")
        ->check(CLI::Range(std::int64_t{0}, std::int64_t{16777216}));
    runCmd->add_flag("--progress", run.progress, "Report progress on stderr while running");
    runCmd->add_option("--state-dict", run.stateDict,
                       "Folder of <key>.npy files loaded (strictly) before running");
    auto* backendOpt = runCmd->add_option("--backend", run.backend,
                                          "auto (CUDA when a device is present and the network "
                                          "has at least 20000 channels), cpu or cuda")
                           ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
    auto* threadsOpt =
        runCmd->add_option("--threads", run.threads,
                           "CPU threads for neuron populations and sparse projections (0 = every "
                           "core, the default); "
                           "results are bit-identical for any count")
            ->check(CLI::Range(0, 1024));
    runCmd->add_option("--realtime", run.realtime,
                       "Pace the run: simulated seconds per wall-clock second (e.g. 1, 0.1)")
        ->check(CLI::Range(1e-6, 1e6));

    spike::app::FiCommandOptions fi;
    auto* analyse = app.add_subcommand(
        "analyse", "Measure a model: f-I curve (fi), parameter sweep (sweep), phase portrait (phase), spike statistics (isi), "
        "CPU-vs-GPU divergence (divergence)");
    analyse->require_subcommand(1);
    auto* fiCmd = analyse->add_subcommand("fi", "f-I curve of a neuron module as CSV");
    analyse->add_option("MODEL", fi.model, "Model file (.json or .nir)")->required();
    nirOptions(analyse);
    fiCmd->add_option("--node", fi.node, "Dotted path of the neuron module (default: the root)");
    fiCmd->add_option("--current", fi.current,
                      "Constant input currents START:STOP:COUNT (default: 41 from 0 to four times "
                      "the rheobase, probed for models without a formula)");
    std::int64_t fiSteps = 0;
    auto* fiStepsOpt = fiCmd->add_option("--steps", fiSteps,
                                         "Measured steps per current (default: 1 s / dt)");
    fiCmd->add_option("--warmup", fi.warmupSteps, "Steps run first and not counted (default 0)");
    fiCmd->add_option("--out", fi.outPath, "CSV file to write (default: the CSV on stdout)");
    spike::app::SweepCommandOptions sweep;
    auto* sweepCmd = analyse->add_subcommand(
        "sweep", "A measure of a neuron module over a grid of one or two parameters as CSV");
    sweepCmd->add_option("--node", sweep.node, "Dotted path of the neuron module (default: the root)");
    sweepCmd->add_option("--param", sweep.params,
                         "Parameter and its values NAME=START:STOP:COUNT; give one or two");
    sweepCmd->add_option("--measure", sweep.measure,
                         "rate (Hz, default), cv (mean ISI CV), spikes (count) or peak (of --state)");
    sweepCmd->add_option("--state", sweep.state, "State whose peak is measured (default: the membrane)");
    sweepCmd->add_option("--current", sweep.current,
                         "Constant input per step on every input channel (default 0)");
    std::int64_t sweepSteps = 0;
    auto* sweepStepsOpt = sweepCmd->add_option("--steps", sweepSteps,
                                               "Measured steps per point (default: 1 s / dt)");
    sweepCmd->add_option("--warmup", sweep.warmupSteps, "Steps run first and not measured (default 0)");
    sweepCmd->add_option("--out", sweep.outPath, "CSV file to write (default: the CSV on stdout)");
    spike::app::PhaseCommandOptions phase;
    auto* phaseCmd = analyse->add_subcommand(
        "phase", "Phase portrait of a neuron module as JSON: vector field, nullclines, fixed points");
    phaseCmd->add_option("--node", phase.node, "Dotted path of the neuron module (default: the root)");
    phaseCmd->add_option("--x", phase.x, "State on the horizontal axis (default: the membrane)");
    phaseCmd->add_option("--y", phase.y, "State on the vertical axis (default: the next state)");
    phaseCmd->add_option("--range", phase.range,
                         "Plane XMIN:XMAX,YMIN:YMAX (default: around the state, threshold, reset)");
    phaseCmd->add_option("--grid", phase.grid, "Vector-field arrows per axis (default 21)");
    phaseCmd->add_option("--resolution", phase.resolution,
                         "Nullcline grid points per axis (default 201)");
    phaseCmd->add_option("--current", phase.current,
                         "Constant input per step on the input port (default 0)");
    phaseCmd->add_option("--neuron", phase.neuron,
                         "Neuron whose parameters and other states are used (default 0)");
    phaseCmd->add_option("--out", phase.outPath, "JSON file to write (default: the JSON on stdout)");
    spike::app::IsiCommandOptions isi;
    auto* isiCmd = analyse->add_subcommand(
        "isi", "Spike statistics of a recorded population: ISI histogram as CSV, rates, CV, Fano");
    isiCmd->add_option("--record", isi.record, "The spiking output, PATH.spikes (e.g. E.spikes)")
        ->required();
    isiCmd->add_option("--steps", isi.steps, "Steps to run from the model's state, zero input")
        ->required();
    isiCmd->add_option("--bins", isi.bins, "ISI histogram bins (default 50)");
    isiCmd->add_option("--window", isi.window, "Fano factor window in steps (default: 100 ms)");
    isiCmd->add_option("--backend", isi.backend, "auto, cpu or cuda")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
    isiCmd->add_option("--out", isi.outPath, "CSV file to write (default: the CSV on stdout)");

    spike::app::DivergenceCommandOptions divergence;
    auto* divergenceCmd = analyse->add_subcommand(
        "divergence", "Largest difference per state between two backends run in lock-step, as CSV");
    divergenceCmd->add_option("--steps", divergence.steps, "Steps to run (1 to 1000000)")->required();
    divergenceCmd->add_option("--a", divergence.a, "Side A: cpu (default), cpu:THREADS or cuda");
    divergenceCmd->add_option("--b", divergence.b, "Side B: cuda (default), cpu or cpu:THREADS");
    divergenceCmd->add_option("--set", divergence.set,
                              "A change of side B only, PATH.NAME=VALUE or PATH.NAME[INDEX]=VALUE "
                              "(e.g. E.bias[3]=0.11); repeatable");
    divergenceCmd->add_option("--input", divergence.input,
                              "Constant input per step on every input channel (default 0)");
    divergenceCmd->add_option("--out", divergence.outPath, "CSV file to write (default: the CSV on stdout)");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    }

    run.backendGiven = backendOpt->count() > 0;
    run.threadsGiven = threadsOpt->count() > 0;
    run.nir = nir;
    fi.nir = nir;
    convert.nir = nir;
    try {
        if (analyse->parsed()) {
            if (fiStepsOpt->count() > 0) {
                fi.steps = fiSteps;
            }
            if (sweepCmd->parsed()) {
                sweep.model = fi.model;
                sweep.nir = nir;
                if (sweepStepsOpt->count() > 0) {
                    sweep.steps = sweepSteps;
                }
                return spike::app::analyseSweep(sweep, std::cout);
            }
            if (phaseCmd->parsed()) {
                phase.model = fi.model;
                phase.nir = nir;
                return spike::app::analysePhase(phase, std::cout);
            }
            if (divergenceCmd->parsed()) {
                divergence.model = fi.model;
                divergence.nir = nir;
                return spike::app::analyseDivergence(divergence, std::cout);
            }
            if (isiCmd->parsed()) {
                isi.model = fi.model;
                isi.nir = nir;
                return spike::app::analyseIsi(isi, std::cout);
            }
            return spike::app::analyseFi(fi, std::cout);
        }
        if (info->parsed()) {
            std::cout << spike::app::describeModel(infoModel, nir);
            return 0;
        }
        if (convertCmd->parsed()) {
            return spike::app::convertModel(convert, std::cout, std::cerr);
        }
        return spike::app::runModel(run, std::cout, std::cerr);
    } catch (const spike::engine::Error& e) {
        std::cerr << "spikesim: " << e.what() << "\n";
        return 1;
    } catch (const std::bad_alloc&) {
        std::cerr << "spikesim: out of memory (the model or input is too large for this machine)\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "spikesim: " << e.what() << "\n";
        return 1;
    }
}
