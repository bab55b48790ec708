// ThreadPool: a fixed set of helper threads that run the parts of one parallel phase beside the
// simulation thread, which calls run() and stays the one owner of the engine state (the helpers
// only ever run a part the owner hands them, and run() returns when every part has finished).
//
// Part p always runs on thread p (0 = the caller, 1 .. threads() - 1 the helpers) and the split
// of a range into parts (splitRange()) depends only on the count, the number of parts and the
// alignment, never on timing: there is no work stealing, so which thread computes which element
// is fixed, and code that gives each element (neuron, target row) to exactly one part computes
// the same floats in the same order whatever the thread count.
// A helper waits for work by spinning briefly, then sleeping on an atomic (futex); run() wakes
// them, runs part 0 itself, then waits for the others likewise. The helpers start at the first
// run() that splits (so a pool that never splits costs no thread); nothing allocates after.
// An exception thrown by a part is caught on its thread and the first (lowest part) is rethrown
// by run() on the caller after all parts finished. Thread: run() is called by one thread at a
// time (the owner); the destructor joins the helpers.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <thread>
#include <utility>
#include <vector>

namespace spike::engine {

/// A fixed pool of threads() - 1 helpers plus the calling thread. See the file comment.
class ThreadPool {
public:
    /// `threads` ≥ 1 threads in all (the caller included); 0 means hardwareThreads().
    explicit ThreadPool(int threads);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    /// Threads taking part in run(): the caller plus the helpers.
    int threads() const { return m_threads; }

    /// Calls fn(p) for p in [0, parts), part p on thread p (parts ≤ threads()), and returns when
    /// all have returned; rethrows the lowest part's exception, if any. parts ≤ 1 runs inline.
    template <typename Fn>
    void run(int parts, Fn&& fn)
    {
        if (parts <= 1) {
            if (parts == 1) {
                fn(0);
            }
            return;
        }
        using F = std::remove_reference_t<Fn>;
        dispatch(parts, [](void* f, int p) { (*static_cast<F*>(f))(p); }, &fn);
    }

    /// Part `part` of `parts` of [0, count): contiguous, in order, each a multiple of `align`
    /// elements except the last, empty parts at the end when count is small.
    static std::pair<std::int64_t, std::int64_t> splitRange(std::int64_t count, int parts,
                                                            int part, std::int64_t align);
    /// How many parts of at least `minPerPart` elements [0, count) splits into, at most
    /// threads() (1: run inline).
    int partsFor(std::int64_t count, std::int64_t minPerPart) const;

    /// std::thread::hardware_concurrency(), at least 1.
    static int hardwareThreads();

private:
    using Call = void (*)(void*, int);
    void dispatch(int parts, Call call, void* context);
    void startHelpers();
    void helperLoop(int index, std::uint64_t seen);
    void runPart(int part);

    int m_threads = 1;
    std::vector<std::thread> m_helpers;
    std::vector<std::exception_ptr> m_errors;  ///< per part, of the current run()
    Call m_call = nullptr;
    void* m_context = nullptr;
    int m_parts = 0;
    std::atomic<std::uint64_t> m_generation{0};  ///< bumped by each run(); helpers wait on it
    std::atomic<int> m_pending{0};               ///< parts of the current run() not finished
    std::atomic<bool> m_stop{false};
};

}  // namespace spike::engine
