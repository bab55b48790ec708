// ThreadPool: helpers that wait on one atomic word, spinning briefly first. See thread_pool.hpp.
//
// The word m_generation holds (run counter << 16) | parts, so a helper reads which run it sees
// and how many parts it has in one load: a helper that missed a run it had no part in can never
// mix that run's part count with a later run's. The caller writes m_call and m_context before
// the release store that bumps the word, and reads m_errors after the acquire load that sees
// m_pending reach zero.
#include "engine/core/thread_pool.hpp"

#include "engine/tensor/error.hpp"

#include <algorithm>
#include <chrono>
#include <string>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace spike::engine {

namespace {

inline void cpuRelax()
{
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#else
    std::this_thread::yield();
#endif
}

/// How long a helper (or the owner, waiting for the helpers) polls before it sleeps: longer than
/// the gap between two phases of one step, so a helper that is not descheduled answers without a
/// futex wake-up (which in a virtual machine can cost tens of µs: with a 7 µs window the 10^5
/// sparse network made ten times the futex calls and ran 7 to 15 % slower on 2 threads), still
/// far below a scheduler tick, so a pool idle between runs costs little CPU. A time, not a count
/// of pauses: a pause takes 10 to 140 cycles, by CPU (14 ns on the Intel guest of
/// bench/README.md, where the 4096 polls used until 2026-12-02 made 58 µs).
constexpr double kSpinWindowNs = 100e3;
constexpr std::uint64_t kPartsMask = 0xFFFF;

/// The polls that take about kSpinWindowNs here: pauses timed once per process (the fastest of
/// three probes, so a probe that was descheduled does not shorten the window), 1024 to 2^17.
int spinPolls()
{
    static const int polls = [] {
        constexpr int kProbe = 256;
        double fastest = 1e9;
        for (int round = 0; round < 3; ++round) {
            const auto t0 = std::chrono::steady_clock::now();
            for (int i = 0; i < kProbe; ++i) {
                cpuRelax();
            }
            const std::chrono::duration<double, std::nano> took = std::chrono::steady_clock::now() - t0;
            fastest = std::min(fastest, took.count() / kProbe);
        }
        const double polls = kSpinWindowNs / std::max(fastest, 0.5);
        return static_cast<int>(std::clamp(polls, 1024.0, 131072.0));
    }();
    return polls;
}

}  // namespace

ThreadPool::ThreadPool(int threads)
{
    if (threads < 0 || threads > 1024) {
        throw Error("threads must be in [0, 1024] (0 = every core), got " + std::to_string(threads));
    }
    m_threads = threads == 0 ? hardwareThreads() : threads;
    m_errors.resize(static_cast<std::size_t>(m_threads));
    m_helpers.reserve(static_cast<std::size_t>(m_threads - 1));
}

void ThreadPool::startHelpers()
{
    // Each helper starts from the word as it is now, before the run that starts them bumps it.
    const std::uint64_t word = m_generation.load(std::memory_order_relaxed);
    for (int i = 1; i < m_threads; ++i) {
        m_helpers.emplace_back([this, i, word] { helperLoop(i, word); });
    }
}

ThreadPool::~ThreadPool()
{
    m_stop.store(true, std::memory_order_release);
    m_generation.fetch_add(kPartsMask + 1, std::memory_order_release);
    m_generation.notify_all();
    for (auto& t : m_helpers) {
        t.join();
    }
}

int ThreadPool::hardwareThreads()
{
    return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

std::pair<std::int64_t, std::int64_t> ThreadPool::splitRange(std::int64_t count, int parts,
                                                             int part, std::int64_t align)
{
    const std::int64_t units = (count + align - 1) / align;
    const std::int64_t perPart = (units + parts - 1) / parts;
    const std::int64_t begin = std::min(count, part * perPart * align);
    const std::int64_t end = std::min(count, (part + 1) * perPart * align);
    return {begin, end};
}

int ThreadPool::partsFor(std::int64_t count, std::int64_t minPerPart) const
{
    minPerPart = std::max<std::int64_t>(1, minPerPart);
    if (m_threads < 2 || count < 2 * minPerPart) {
        return 1;  // the common answer for small work, without a 64-bit division per call
    }
    const std::int64_t parts = count / minPerPart;
    return static_cast<int>(std::clamp<std::int64_t>(parts, 1, m_threads));
}

void ThreadPool::runPart(int part)
{
    try {
        m_call(m_context, part);
    } catch (...) {
        m_errors[static_cast<std::size_t>(part)] = std::current_exception();
    }
}

void ThreadPool::dispatch(int parts, Call call, void* context)
{
    if (parts > m_threads) {
        throw Error("ThreadPool::run: " + std::to_string(parts) + " parts for " +
                    std::to_string(m_threads) + " threads");
    }
    if (m_helpers.empty()) {
        startHelpers();
    }
    m_call = call;
    m_context = context;
    std::fill_n(m_errors.begin(), parts, nullptr);
    m_pending.store(parts - 1, std::memory_order_relaxed);
    const std::uint64_t counter = (m_generation.load(std::memory_order_relaxed) >> 16) + 1;
    m_generation.store((counter << 16) | static_cast<std::uint64_t>(parts),
                       std::memory_order_release);
    m_generation.notify_all();
    runPart(0);
    int left = 0;
    const int polls = spinPolls();
    for (int i = 0; i < polls && (left = m_pending.load(std::memory_order_acquire)) != 0; ++i) {
        cpuRelax();
    }
    while ((left = m_pending.load(std::memory_order_acquire)) != 0) {
        m_pending.wait(left, std::memory_order_acquire);
    }
    for (int p = 0; p < parts; ++p) {
        if (m_errors[static_cast<std::size_t>(p)]) {
            std::rethrow_exception(m_errors[static_cast<std::size_t>(p)]);
        }
    }
}

void ThreadPool::helperLoop(int index, std::uint64_t seen)
{
    const int polls = spinPolls();
    for (;;) {
        std::uint64_t word = seen;
        for (int i = 0; i < polls && (word = m_generation.load(std::memory_order_acquire)) == seen;
             ++i) {
            cpuRelax();
        }
        while ((word = m_generation.load(std::memory_order_acquire)) == seen) {
            m_generation.wait(seen, std::memory_order_acquire);
        }
        seen = word;
        if (m_stop.load(std::memory_order_acquire)) {
            return;
        }
        if (index < static_cast<int>(word & kPartsMask)) {
            runPart(index);
            if (m_pending.fetch_sub(1, std::memory_order_acq_rel) == 1) {
                m_pending.notify_one();
            }
        }
    }
}

}  // namespace spike::engine
