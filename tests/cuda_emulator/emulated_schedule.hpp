// The order in which the CUDA emulator runs a launch's blocks and a block's threads (see
// spike::cudaemu::setThreadOrder in cuda_runtime.h): used by cuda_emulator.cpp only.
#pragma once

#include <cstddef>
#include <vector>

namespace spike::cudaemu::detail {

/// Fills `order` with a permutation of 0 .. count-1 in the current thread order: ascending,
/// descending, or shuffled by this host thread's generator (seeded from the order's seed, so a
/// run repeats itself launch for launch).
void arrange(std::size_t count, std::vector<std::size_t>& order);

}  // namespace spike::cudaemu::detail
