// Containment for what no check of ours can foresee: HDF5 1.10.8 (Debian 12's, a C library
// this project does not build) crashes the process on some damaged files, in places the reader's
// checks cannot reach without re-implementing HDF5's format (fuzz_nir found a damaged group
// B-tree whose node HDF5 reads into a buffer it failed to allocate and never checked, a SIGSEGV
// inside H5Gget_info). Before the process reads a .nir file itself, a forked copy of it reads
// the whole file first; only when that copy finishes (with the file read or refused by the
// reader's own message) does the process read the file. A copy that crashes, is stopped by a
// sanitizer or allocation limit, or runs past its time limit leaves the process as it was, and
// the file is refused. Linux/POSIX (fork, waitpid). Internal to engine/nir.
// Thread: the caller holds detail::hdf5Mutex(), so no other thread of the process is inside
// HDF5 when the copy is made; the copy runs only `read` and ends with _exit (no atexit
// handlers, no flushing of the process's buffers, nothing written to its stderr).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace spike::engine::nir::detail {

/// Runs `read` in a forked copy of this process and waits for it at most `limit`. Returns ""
/// when the copy finished (`read` returned or threw), else what stopped it: "crashed (signal 11,
/// Segmentation fault)", "was stopped by a memory-safety report", "was stopped (exit status 1)",
/// "did not finish within 30 s". When the copy cannot be made (fork fails: no memory, the process
/// limit), returns "" and the caller reads in-process as it would without this check.
///
/// fork() copies only the calling thread: a lock another thread held at that moment (the
/// allocator's under AddressSanitizer, whose allocator is not fork-aware in GCC 12; any library's)
/// stays locked in the copy for ever. A copy found waiting on such a lock (in futex(), sleeping,
/// no CPU time used for 0.3 s: with one thread nothing can wake it) is killed and made again, up
/// to kMaxDeadlockedCopies times, within the same `limit`; after that the caller reads in-process.
/// `copiesMade`, when given, receives how many copies were made.
std::string readInChildFirst(const std::function<void()>& read, std::chrono::milliseconds limit,
                             int* copiesMade = nullptr);

/// How many deadlocked copies readInChildFirst makes before it gives up the check.
inline constexpr int kMaxDeadlockedCopies = 8;

/// The time a file `fileBytes` long may take to be read in the copy: 30 s plus 1 s per 10 MB.
std::chrono::milliseconds trialReadLimit(std::uint64_t fileBytes);

}  // namespace spike::engine::nir::detail
