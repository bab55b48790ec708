// The two spikesim commands, separated from main() so the CLI stays composition only.
// Called on the main thread; throw spike::engine::Error with a one-line message on failure.
#pragma once

#include "engine/core/module.hpp"

#include <cstdint>
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
};

/// Text of `spikesim info MODEL`: paths, types, shapes and attributes by kind and family.
std::string describeModel(const std::string& modelPath);
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
