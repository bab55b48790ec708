// The forked trial read of nir_trial_read.hpp.
#include "engine/nir/nir_trial_read.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/syscall.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

// Under AddressSanitizer or UndefinedBehaviorSanitizer a report ends in the sanitizer's death
// callbacks (libFuzzer's writes its "crash-" input there); the copy replaces them with a plain
// exit, so a fault the copy contains is not reported as the process's own. Absent (null) in
// builds without a sanitizer.
extern "C" void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

namespace spike::engine::nir::detail {

namespace {

constexpr int kStoppedInCopy = 70;  ///< the copy's exit status after a sanitizer report

[[noreturn]] void endCopyAfterReport()
{
    ::_exit(kStoppedInCopy);
}

/// In the copy: nothing on the process's stdout and stderr, crashes end the copy by their
/// signal and leave no core file.
void prepareCopy()
{
    const rlimit noCore{0, 0};
    ::setrlimit(RLIMIT_CORE, &noCore);
    const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null >= 0) {
        ::dup2(null, STDERR_FILENO);
        ::dup2(null, STDOUT_FILENO);
        ::close(null);
    }
    for (const int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) {
        ::signal(signal, SIG_DFL);
    }
    if (__sanitizer_set_death_callback != nullptr) {
        __sanitizer_set_death_callback(endCopyAfterReport);
    }
}

std::string describe(int status)
{
    if (WIFSIGNALED(status)) {
        const int signal = WTERMSIG(status);
        const char* name = ::strsignal(signal);
        return "crashed (signal " + std::to_string(signal) +
               (name != nullptr ? std::string(", ") + name : std::string()) + ")";
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == kStoppedInCopy) {
        return "was stopped by a memory-safety report";
    }
    if (WIFEXITED(status)) {
        return "was stopped (exit status " + std::to_string(WEXITSTATUS(status)) + ")";
    }
    return "ended abnormally";
}

/// "30 s" (whole seconds from 10 s on), "1.5 s", "0.3 s".
std::string secondsText(std::chrono::milliseconds limit)
{
    const auto ms = limit.count();
    if (ms >= 10'000) {
        return std::to_string((ms + 500) / 1000) + " s";
    }
    return std::to_string(ms / 1000) + "." + std::to_string(ms % 1000 / 100) + " s";
}

}  // namespace

std::chrono::milliseconds trialReadLimit(std::uint64_t fileBytes)
{
    return std::chrono::milliseconds(30'000 + fileBytes / 10'000);
}

namespace {

/// What /proc says of the copy: its scheduler state, CPU time used (clock ticks) and the system
/// call it is in (-1 when running or unknown).
struct CopySample {
    char state = '?';
    unsigned long long cpuTicks = 0;
    long syscall = -1;
    bool known = false;
};

CopySample sampleCopy(pid_t pid)
{
    CopySample sample;
    const std::string dir = "/proc/" + std::to_string(pid);
    std::ifstream stat(dir + "/stat");
    std::string line;
    if (!std::getline(stat, line)) {
        return sample;
    }
    const std::size_t close = line.rfind(')');  // the name in parentheses may hold spaces
    if (close == std::string::npos) {
        return sample;
    }
    std::istringstream fields(line.substr(close + 1));
    std::string skip;
    unsigned long long user = 0;
    unsigned long long system = 0;
    fields >> sample.state;
    for (int field = 4; field <= 13; ++field) {  // ppid .. cmajflt
        fields >> skip;
    }
    fields >> user >> system;
    std::ifstream call(dir + "/syscall");  // readable by the parent of the copy
    long number = -1;
    if (!fields || !(call >> number)) {
        return sample;
    }
    sample.cpuTicks = user + system;
    sample.syscall = number;
    sample.known = true;
    return sample;
}

/// How one copy ended.
enum class CopyEnd { Finished, Deadlocked, TimedOut, Unwaitable };

/// Waits for the copy `child` until `deadline`. The copy has one thread, so a copy waiting in
/// futex() without using CPU time for 0.3 s waits for a lock that a thread of the process held
/// when it was copied (a thread that does not exist in the copy): it never ends, and is killed.
CopyEnd waitForCopy(pid_t child, std::chrono::steady_clock::time_point deadline, int& status)
{
    using Clock = std::chrono::steady_clock;
    constexpr auto kSample = std::chrono::milliseconds(100);
    constexpr int kDeadlockedSamples = 3;
    // A pidfd becomes readable when the copy ends (Linux 5.3); without one, waitpid is polled.
    const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, child, 0));
    auto pause = std::chrono::microseconds(100);
    Clock::time_point nextSample = Clock::now() + kSample;
    CopySample last;
    int blockedSamples = 0;
    CopyEnd end = CopyEnd::Finished;
    for (;;) {
        const pid_t done = ::waitpid(child, &status, WNOHANG);
        if (done == child) {
            break;
        }
        if (done < 0 && errno != EINTR) {
            end = CopyEnd::Unwaitable;  // reaped elsewhere (a SIGCHLD set to SIG_IGN)
            break;
        }
        const Clock::time_point now = Clock::now();
        if (now >= nextSample) {
            nextSample = now + kSample;
            const CopySample sample = sampleCopy(child);
            const bool blocked = sample.known && sample.state == 'S' &&
                                 sample.syscall == SYS_futex && last.known &&
                                 sample.cpuTicks == last.cpuTicks;
            blockedSamples = blocked ? blockedSamples + 1 : 0;
            last = sample;
        }
        if (blockedSamples >= kDeadlockedSamples || now >= deadline) {
            end = blockedSamples >= kDeadlockedSamples ? CopyEnd::Deadlocked : CopyEnd::TimedOut;
            ::kill(child, SIGKILL);
            while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
            }
            break;
        }
        const Clock::time_point wake = std::min(deadline, nextSample);
        if (pidfd >= 0) {
            pollfd ended{pidfd, POLLIN, 0};
            const auto left = std::chrono::ceil<std::chrono::milliseconds>(wake - now);
            ::poll(&ended, 1, static_cast<int>(std::max<long long>(left.count(), 1)));
        } else {
            std::this_thread::sleep_for(pause);
            pause = std::min(pause * 2, std::chrono::microseconds(20'000));
        }
    }
    if (pidfd >= 0) {
        ::close(pidfd);
    }
    return end;
}

}  // namespace

std::string readInChildFirst(const std::function<void()>& read, std::chrono::milliseconds limit,
                             int* copiesMade)
{
    using Clock = std::chrono::steady_clock;
    const Clock::time_point deadline = Clock::now() + limit;
    if (copiesMade != nullptr) {
        *copiesMade = 0;
    }
    for (int copy = 0; copy < kMaxDeadlockedCopies; ++copy) {
        const pid_t child = ::fork();
        if (child < 0) {
            return {};  // no copy (ENOMEM, EAGAIN): read in-process, as without this check
        }
        if (child == 0) {
            prepareCopy();
            try {
                read();
            } catch (...) {
                // A refusal by the reader's own checks: the process gives the same message.
            }
            ::_exit(0);
        }
        if (copiesMade != nullptr) {
            ++*copiesMade;
        }
        int status = 0;
        switch (waitForCopy(child, deadline, status)) {
        case CopyEnd::Finished:
            return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? std::string() : describe(status);
        case CopyEnd::TimedOut:
            return "did not finish within " + secondsText(limit);
        case CopyEnd::Unwaitable:
            return {};
        case CopyEnd::Deadlocked:
            break;  // copied while another thread held a lock: copy again
        }
    }
    return {};  // every copy was made inside another thread's lock: read in-process
}

}  // namespace spike::engine::nir::detail
