// The two spikesim commands, separated from main() so the CLI stays composition only.
// Called on the main thread; throw spike::engine::Error with a one-line message on failure.
#pragma once

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
};

/// Text of `spikesim info MODEL`: paths, types, shapes and attributes by kind and family.
std::string describeModel(const std::string& modelPath);
/// Runs `spikesim run`; prints the one-line summary to `out`, progress to `err`. Returns 0.
int runModel(const RunOptions& options, std::ostream& out, std::ostream& err);

}  // namespace spike::app
